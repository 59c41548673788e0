"""The one table of input limits (issue 30 item 2; issue 31): every number a person or a file gives the app.

Each quantity has a physical range: finite, at least `low` (a floor where a smaller value would only divide by
almost nothing: an MFU of 5e-324 makes a step take 1e300 years), at most `high` (the bound the app states: the
largest clusters, the longest sequences), and whether it must be whole. Text is checked before it becomes a
number: at most MAX_NUMBER_CHARS characters (Python's int() would take 4,300 digits, and the arithmetic after it
overflow converting to a float).

Whole numbers in files are capped at MAX_INTEGER_DIGITS while the JSON is parsed (`json_int`).

Users: the command line (`argparse_type`, given to every int/float option by planner.cli; a new option without a
row here still gets the digit cap and finiteness, and a test asks for its row), config.json and probe reports
(`json_int`, their parse_int hook), the CSV readers (`check_digits`), the GUI's spin boxes (`LIMITS[...]`).
A refusal is one UserError line; results are made finite before printing (`finite_json`). MAX_INTEGER_DIGITS
and json_int live in profiler/report.py, which gpu-probe and the pure core may both import.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from planner.errors import UserError
from planner.messages import msg
from profiler.report import MAX_INTEGER_DIGITS, json_int

MAX_NUMBER_CHARS = 40  # "1.2345678901234567e+300" and its kin; more is no number a person means


@dataclass(frozen=True)
class Limit:
    """A quantity's accepted range: low <= value <= high, finite; `integer` for whole numbers."""

    low: float
    high: float
    integer: bool = False


# Minutes and prices: a week of restart or a 1e12 price is a typo, not a plan; floors where a value divides.
LIMITS: dict[str, Limit] = {
    # counts and shapes (planner/memory/config.py bounds a layout by these rows, planner/costs.py rent vs buy)
    "gpus": Limit(1, 10_000_000, True),
    "max_gpus": Limit(1, 10_000_000, True),
    "owned_gpus": Limit(0, 10_000_000, True),
    "gpus_per_node": Limit(1, 1_000_000, True),
    "pod_gpus": Limit(1, 10_000_000, True),
    "seq_len": Limit(1, 100_000_000, True),
    "batch": Limit(1, 10_000_000, True),
    "output_len": Limit(1, 100_000_000, True),
    "lora_rank": Limit(1, 65_536, True),
    "dp": Limit(1, 1_000_000, True),
    "tp": Limit(1, 1_000_000, True),
    "pp": Limit(1, 1_000_000, True),
    "ep": Limit(1, 1_000_000, True),
    "zero": Limit(0, 3, True),
    "micro_batch": Limit(1, 1_000_000, True),
    "virtual_stages": Limit(1, 1_000_000, True),
    "inflight": Limit(1, 1_000_000, True),
    "top": Limit(1, 1_000_000, True),
    "gpus_per_quote": Limit(
        1, 100_000, True
    ),  # a quote for a whole cluster is never refused for its size alone
    # serving load and targets
    "prompt_tokens": Limit(1, 100_000_000, True),
    "users": Limit(1, 10_000_000, True),
    "request_rate": Limit(1e-6, 1e9),  # requests per second
    "ttft_ms": Limit(1e-3, 1e9),  # a microsecond to about eleven days
    "tpot_ms": Limit(1e-3, 1e9),
    # the work: tokens to train or serve, rates
    "tokens": Limit(1, 1e18),
    "tokens_per_second": Limit(1e-3, 1e12),
    # fractions of a peak: below 0.1% a GPU is not doing the work at all
    "mfu": Limit(1e-3, 1),
    "bandwidth_fraction": Limit(1e-3, 1),
    "utilization": Limit(1e-3, 1),
    "resale_fraction": Limit(0, 1),
    "overhead_fraction": Limit(0, 100),  # a share of the purchase price; 100x the price is a typo
    "maintenance_fraction": Limit(0, 100),
    "memory_headroom": Limit(0, 90),  # percent of GPU memory kept free
    "server_overhead_fraction": Limit(0, 10),  # a purchase quote's server share of its GPUs' price
    # money, in any currency
    "price_per_gpu_hour": Limit(0, 1e6),  # a quote's (planner/store/quotes.py) and plan --price-per-gpu-hour
    "price_per_instance_hour": Limit(0, 1e6 * 100_000),  # per GPU-hour x gpus_per_quote
    "purchase_price": Limit(
        0, 1e12 * 100_000
    ),  # a purchase quote's whole price: purchase_per_gpu x gpus_per_quote
    "rent_per_gpu_hour": Limit(0, 1e12),
    "spot_per_gpu_hour": Limit(0, 1e12),
    "reserved_per_gpu_hour": Limit(0, 1e12),
    "purchase_per_gpu": Limit(0, 1e12),
    "electricity_per_kwh": Limit(0, 1e12),
    "budget": Limit(1e-6, 1e15),
    # time: about a second is the shortest span any of these can mean
    "deadline_days": Limit(1e-5, 365_000),
    "years": Limit(0.01, 100),
    "hours_per_day": Limit(0.01, 24),
    "days_per_week": Limit(0.01, 7),
    "restart_minutes": Limit(0, 1e6),
    "min_term_hours": Limit(0, 1e6),  # a rental quote's minimum term: a century of hours is a typo
    "checkpoint_write_minutes": Limit(0, 7 * 24 * 60),
    "checkpoint_interval_minutes": Limit(0.01, 1e6),
    # rates and links: 1 MB/s is the slowest disk that still writes a checkpoint in a lifetime
    "checkpoint_gb_per_s": Limit(1e-3, 1e6),
    "inter_node_gbps": Limit(1e-3, 1e6),
    "oversubscription": Limit(1, 1000),  # 1:1 is non-blocking; a fabric has fewer uplinks, never more
    "host_ram_gib": Limit(1, 1e7),  # a node's CPU RAM; 10 PiB is no machine
    "failures_per_million_gpu_hours": Limit(0, 1e6),  # one failure per GPU-hour
    "spot_interruptions_per_node_hour": Limit(0, 3600),  # one reclaim a second
    # the machine
    "power_w": Limit(0, 5000),  # the largest GPU modules draw about 1,200-1,400 W
    "pue": Limit(1, 3),  # facility / IT power (The Green Grid): 1.0 the floor, old server rooms about 2.5
    # inputs only the GUI has (the CLI takes --model 7b and --tokens): the generic model's size in billions
    # (planner/models/generic.py), a dataset's passes, the plan's job repeated a month, a currency's rate to USD
    "model_billions": Limit(0.05, 10_000),
    "epochs": Limit(0.1, 1000),
    "runs_per_month": Limit(0, 100_000),
    "exchange_rate": Limit(1e-6, 1e6),
}
# an option with no row: finite, within what a float carries exactly and an int fits in SQLite
UNLISTED = Limit(-1e15, 1e15)


def check_digits(text: str, what: str) -> None:
    """UserError when `text` is too long to be a number a person means (before int()/float() see it)."""
    digits = sum(char.isdigit() for char in text)
    if len(text.strip()) > MAX_NUMBER_CHARS or digits > MAX_NUMBER_CHARS:
        raise UserError.of(msg("error.number_too_long", what=what, chars=len(text), limit=MAX_NUMBER_CHARS))


def parse_number(text: str, what: str, limit: Limit, integer: bool | None = None) -> int | float:
    """`text` as a number within `limit` (UserError in one line otherwise); whole when the limit says so."""
    check_digits(text, what)
    whole = limit.integer if integer is None else integer
    cleaned = text.strip().replace("_", "")
    if whole:
        try:
            value: int | float = int(cleaned)
        except ValueError:
            raise UserError.of(msg("error.must_be_whole", what=what, value=text)) from None
    else:
        try:
            value = float(cleaned)
        except ValueError:
            raise UserError.of(msg("error.not_a_number", what=what, value=text)) from None
    check_range(value, what, limit)
    return value


def check_range(value: int | float, what: str, limit: Limit) -> None:
    """UserError unless `value` is finite and limit.low <= value <= limit.high."""
    if isinstance(value, float) and not math.isfinite(value):
        raise UserError.of(msg("error.must_be_finite", what=what, value=value))
    if value > limit.high:
        raise UserError.of(msg("error.absurdly_large", what=what, value=value, limit=limit.high))
    if not limit.low <= value:
        raise UserError.of(msg("error.out_of_range", what=what, value=value, low=limit.low, high=limit.high))


def argparse_type(dest: str, integer: bool, option: str) -> Any:
    """The argparse `type` of `option` (its `dest` names its row of LIMITS; UNLISTED without one)."""
    import argparse

    limit = LIMITS.get(dest, UNLISTED)

    def parse(text: str) -> int | float:
        try:
            return parse_number(text, option, limit, integer)
        except UserError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = "int" if integer else "float"  # argparse names the type in its own messages
    return parse


def finite_json(payload: Any) -> Any:
    """`payload` with every non-finite float as None: `--json` output is strict JSON, never Infinity or NaN."""
    if isinstance(payload, float):
        return payload if math.isfinite(payload) else None
    if isinstance(payload, dict):
        return {key: finite_json(value) for key, value in payload.items()}
    if isinstance(payload, (list, tuple)):
        return [finite_json(value) for value in payload]
    return payload


__all__ = [
    "LIMITS",
    "MAX_INTEGER_DIGITS",
    "UNLISTED",
    "Limit",
    "argparse_type",
    "check_digits",
    "check_range",
    "finite_json",
    "json_int",
    "parse_number",
]
