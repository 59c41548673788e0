"""Rental and purchase quotes: the columns, the validation shared by CSV import and the GUI editor, CSV files.

A quote comes in as a mapping of column -> value (str from a CSV cell or a form field, or a number). Cleaning
returns a normalised row (numbers as numbers, the GPU as its catalog id, empty text as "") plus the reasons it
is refused, each a planner.messages.Message (English via .text, Russian in the GUI); an empty reason list means
the row can be stored.

CSV conventions (docs/ledger.md documents them for users):
- UTF-8 (a byte-order mark is fine), comma- or semicolon-separated, a header row naming the columns.
- Row numbers are spreadsheet row numbers: the header is row 1, the first quote is row 2.
- On export a text cell that starts with = + - @ (or a tab / carriage return) gets a leading apostrophe so a
  spreadsheet shows it as text instead of running it as a formula; import removes that one apostrophe again.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from planner import gpus as gpu_catalog
from planner.errors import UserError
from planner.gpus import GpuSpec
from planner.limits import LIMITS, MAX_NUMBER_CHARS
from planner.messages import Message, msg

RENTAL_COLUMNS = (
    "provider",
    "offer",
    "gpu",
    "gpus_per_instance",
    "price_per_gpu_hour",
    "price_per_instance_hour",
    "currency",
    "kind",
    "region",
    "interconnect",
    "min_term_hours",
    "interruptions_per_hour",
    "quoted_on",
    "valid_until",
    "source",
    "note",
)
PURCHASE_COLUMNS = (
    "vendor",
    "gpu",
    "gpus",
    "price",
    "currency",
    "quoted_on",
    "server_overhead_fraction",
    "power_w",
    "source",
    "note",
)
KINDS = ("on-demand", "spot", "reserved-1y", "reserved-3y", "committed")
INTERCONNECTS = ("nvlink", "pcie", "infiniband")
KNOWN_CURRENCIES = ("USD", "EUR", "RUB")
# Two quotes are the same quote when these agree (text compared without regard to letter case).
RENTAL_DEDUPE_COLUMNS = (
    "provider",
    "offer",
    "gpu",
    "kind",
    "region",
    "price_per_gpu_hour",
    "currency",
    "quoted_on",
)
PURCHASE_DEDUPE_COLUMNS = ("vendor", "gpu", "gpus", "price", "currency", "quoted_on")
# Per-instance and per-GPU prices given together must agree within this fraction.
PRICE_AGREEMENT_FRACTION = 0.01
SHORT_TEXT_MAX = 200
LONG_TEXT_MAX = 2000
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
MAX_CSV_BYTES = 256 * 1024 * 1024  # far above any real quote sheet; refuses a mistaken multi-GB file quickly
# Upper limits that hold in any currency unit (an H100 rents for about 2.5 USD or 65,000 VND an hour and sells
# for about 30,000 USD or 8e8 VND): anything above is a typo, and an unbounded number would overflow to
# infinity in derived prices (1e308 x 8 GPUs), which JSON cannot carry and a CSV round trip cannot restore.
# Limits are per GPU so that a quote for a whole cluster is never refused for its size alone.
# Each is a row of planner/limits.py, the one table the CLI and the GUI's spin boxes take their ranges from.
MAX_GPUS_PER_QUOTE = int(LIMITS["gpus_per_quote"].high)
MAX_PRICE_PER_GPU_HOUR = LIMITS["price_per_gpu_hour"].high
MAX_PURCHASE_PRICE_PER_GPU = LIMITS["purchase_per_gpu"].high  # the rent-vs-buy limit
MAX_POWER_W_PER_GPU = LIMITS["power_w"].high  # the largest GPU modules draw about 1,200-1,400 W
MAX_INTERRUPTIONS_PER_HOUR = LIMITS["spot_interruptions_per_node_hour"].high  # one reclaim a second
MAX_SERVER_OVERHEAD_FRACTION = LIMITS["server_overhead_fraction"].high
MAX_MIN_TERM_HOURS = LIMITS["min_term_hours"].high
MAX_NAMED_COLUMNS = 10  # a header error names at most this many columns, then "and N more"

_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_CURRENCY_RE = re.compile(r"^[A-Z]{3}$")
_DECIMAL_COMMA_RE = re.compile(r"^-?\d+,\d+$")
# How a number with separators is read (issue 14 item 5: "1,000" from a semicolon CSV was once read as 1.0).
# One comma with exactly three digits after it ("1,000", "3,490") is a thousands separator in some locales and
# a decimal mark in others: refused, never guessed. Both marks ("1,234.50", "1.234,50"): the last one is the
# decimal mark and the others must group by three. Two or more of one mark ("1,000,000", "1.000.000"): grouping.
_AMBIGUOUS_COMMA_RE = re.compile(r"^-?\d{1,3},\d{3}$")
_GROUPED_RE = {
    ",.": re.compile(r"^-?\d{1,3}(,\d{3})+(\.\d+)?$"),  # 1,234.50 / 1,000,000
    ".,": re.compile(r"^-?\d{1,3}(\.\d{3})+(,\d+)?$"),  # 1.234,50 / 1.000.000
}


# ----------------------------------------------------------------------------------------------------------------
# GPU names -> catalog ids
# ----------------------------------------------------------------------------------------------------------------


class GpuResolver:
    """Maps what a person typed ("H100 SXM", "h100-sxm") to the catalog id, with the catalog's own suggestions.

    Uses planner.gpus (the catalog plus the user's own GPU types). Results are cached per distinct text, so a
    200,000-row file costs a few lookups.
    """

    def __init__(self, extra: Sequence[GpuSpec] = ()) -> None:
        self._extra = tuple(extra)
        self._cache: dict[str, tuple[str, Message | None]] = {}

    def resolve(self, text: str) -> tuple[str, Message | None]:
        """(catalog id, None) or (text, the reason it is refused)."""
        if text not in self._cache:
            self._cache[text] = self._lookup(text)
        return self._cache[text]

    def _lookup(self, text: str) -> tuple[str, Message | None]:
        try:
            return gpu_catalog.get_gpu(text, extra=self._extra).id, None
        except UserError as exc:
            refusal = exc
        hint = self._lookalike(text)
        if hint is not None:
            return text, msg("quote.gpu_lookalike", text=text, hint=hint)
        return text, msg("quote.gpu_refused", reason=refusal.message or str(refusal))

    def _lookalike(self, text: str) -> str | None:
        """The id of a name typed with the letter O for zero ("H1OO"), which plain fuzzy matching misses."""
        if not re.search(r"\d", text):
            return None
        folded = re.sub(r"(?<=[\dO])O|O(?=[\dO])", "0", text, flags=re.IGNORECASE)
        if folded == text:
            return None
        try:
            return gpu_catalog.get_gpu(folded, extra=self._extra).id
        except UserError:
            return None


# ----------------------------------------------------------------------------------------------------------------
# Cell parsing
# ----------------------------------------------------------------------------------------------------------------


Reasons = list[Message]
# A cleaned quote: column -> text, whole number, float or None (a blank optional number).
QuoteValues = dict[str, Any]


def _text(value: object) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    return text.strip()  # text typed in the app is kept as typed, a leading apostrophe included


def unguard_formula(cell: str) -> str:
    """Undo guard_formula on a cell read from a CSV: "'=SUM(A1)" came from "=SUM(A1)" and "''x" from "'x".
    Only a CSV cell is unguarded, never text typed into the app (issue 14 item 5: a typed "'=x" is kept)."""
    text = cell.strip()
    if len(text) > 1 and text[0] == "'" and text[1] in (*FORMULA_PREFIXES[:4], "'"):
        return text[1:]
    return cell


def _shown(value: object, limit: int = 40) -> str:
    """A cell as a reason quotes it: its text, stripped and cut to `limit` characters."""
    return str(value).strip()[:limit]


def _is_blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _number(value: object, name: str, reasons: Reasons) -> float | None:
    """A finite number from a cell ("3.49", "3,49", 3.49); None (and a reason) when it is not one."""
    if isinstance(value, bool):
        reasons.append(msg("quote.not_a_number", field=name, value=repr(value)))
        return None
    if isinstance(value, (int, float)):
        number = float(value) if abs(value) < 1e300 else math.inf  # a 400-digit int overflows float()
    else:
        text = str(value).strip().replace("\u00a0", "").replace("\u202f", "").replace(" ", "")
        if len(text) > MAX_NUMBER_CHARS:  # the number policy (planner/limits.py): no number a person means
            reasons.append(msg("quote.not_a_number", field=name, value=repr(_shown(value))))
            return None
        if _AMBIGUOUS_COMMA_RE.match(text):
            reasons.append(msg("quote.ambiguous_number", field=name, value=repr(_shown(value))))
            return None
        text = _without_grouping(text)
        if _DECIMAL_COMMA_RE.match(text):  # "3,49" as written where the comma is the decimal mark
            text = text.replace(",", ".")
        try:
            number = float(text)
        except ValueError:
            reasons.append(msg("quote.not_a_number", field=name, value=repr(_shown(value))))
            return None
    if not math.isfinite(number):
        reasons.append(msg("quote.not_finite", field=name, value=repr(value)))
        return None
    return number


def _without_grouping(text: str) -> str:
    """ "1,234.50" -> "1234.50", "1.234,50" -> "1234,50", "1.000.000" -> "1000000"; other text unchanged."""
    for (group, decimal), pattern in ((tuple(k), p) for k, p in _GROUPED_RE.items()):
        if pattern.match(text) and (text.count(group) > 1 or decimal in text):
            return text.replace(group, "")
    return text


def _positive(value: object, name: str, reasons: Reasons) -> float | None:
    number = _number(value, name, reasons)
    if number is not None and number <= 0:
        reasons.append(msg("quote.not_positive", field=name))
        return None
    return number


def _at_most(number: float | None, limit: float, name: str, reasons: Reasons, refusal: str = "quote.above_limit",
             **details: float) -> float | None:  # fmt: skip
    """The number, or None (and the `refusal` message) when it is above `limit`."""
    if number is not None and number > limit:
        # the refused number as the person typed it, %g-style (1e+308), in every language
        reasons.append(msg(refusal, field=name, limit=limit, value=f"{number:g}", **details))
        return None
    return number


def _gpu_count(value: object, name: str, reasons: Reasons) -> int | None:
    """A whole number of GPUs, 1..MAX_GPUS_PER_QUOTE (checked before int(), so 1e23 never reaches SQLite)."""
    number = _number(value, name, reasons)
    if number is None:
        return None
    if not 1 <= number <= MAX_GPUS_PER_QUOTE or number != int(number):
        shown = _shown(value) if isinstance(value, str) else f"{value!r}"[:40]
        reasons.append(msg("quote.gpu_count", field=name, limit=MAX_GPUS_PER_QUOTE, value=shown))
        return None
    return int(number)


def parse_iso_date(value: object, name: str, reasons: Reasons) -> str | None:
    if isinstance(value, date):
        return value.isoformat()
    text = _text(value)
    if _DATE_RE.match(text):
        try:
            return date.fromisoformat(text).isoformat()
        except ValueError:
            pass
    reasons.append(msg("quote.not_a_date", field=name, value=text[:40]))
    return None


def parse_currency(value: object, reasons: Reasons) -> str | None:
    text = _text(value).upper()
    if not _CURRENCY_RE.match(text):
        reasons.append(
            msg("quote.bad_currency", choices=", ".join(KNOWN_CURRENCIES), value=_text(value)[:20])
        )
        return None
    return text


def _bounded_text(value: object, name: str, limit: int, reasons: Reasons) -> str:
    text = _text(value)
    if len(text) > limit:
        reasons.append(msg("quote.too_long", field=name, limit=limit))
    return text


def _required_text(value: object, name: str, reasons: Reasons) -> str:
    text = _bounded_text(value, name, SHORT_TEXT_MAX, reasons)
    if not text:
        reasons.append(msg("quote.required", field=name))
    return text


def _required_gpu(value: object, gpus: GpuResolver | None, reasons: Reasons) -> str:
    """The GPU's catalog id; "" with a reason when the cell is empty (an unknown GPU gets its own reason)."""
    gpu_text = _required_text(value, "gpu", reasons)
    if not gpu_text:
        return ""
    gpu, gpu_reason = (gpus or GpuResolver()).resolve(gpu_text)
    if gpu_reason:
        reasons.append(gpu_reason)
    return gpu


def _required_currency(value: object, reasons: Reasons) -> str | None:
    if _is_blank(value):
        reasons.append(msg("quote.currency_required", choices=", ".join(KNOWN_CURRENCIES)))
        return None
    return parse_currency(value, reasons)


def _required_date(value: object, name: str, reasons: Reasons) -> str | None:
    if _is_blank(value):
        reasons.append(msg("quote.date_empty", field=name))
        return None
    return parse_iso_date(value, name, reasons)


def _choice(value: object, name: str, choices: Sequence[str], default: str, reasons: Reasons) -> str:
    """A lower-case member of `choices`, `default` for a blank cell ("" = the cell may stay empty)."""
    chosen = _text(value).lower() or default
    if chosen and chosen not in choices:
        code = "quote.bad_choice_or_empty" if default == "" else "quote.bad_choice"
        reasons.append(msg(code, field=name, choices=", ".join(choices), value=_shown(_text(value))))
    return chosen


def _optional_number(value: object, name: str, reasons: Reasons) -> float | None:
    return None if _is_blank(value) else _number(value, name, reasons)


# ----------------------------------------------------------------------------------------------------------------
# Rental quotes
# ----------------------------------------------------------------------------------------------------------------


def clean_rental_quote(
    quote: Mapping[str, object], gpus: GpuResolver | None = None
) -> tuple[QuoteValues, Reasons]:
    """Normalise one rental quote; returns (row with every RENTAL_COLUMNS key, reasons it is refused).

    Prices are per hour in `currency`. A missing per-GPU price is the instance price / GPUs per instance and a
    missing instance price is per-GPU x GPUs; when both are given they must agree within 1 %.
    """
    reasons: Reasons = []
    cell = quote.get
    row: QuoteValues = {
        "provider": _required_text(cell("provider"), "provider", reasons),
        "offer": _bounded_text(cell("offer"), "offer", SHORT_TEXT_MAX, reasons),
        "gpu": _required_gpu(cell("gpu"), gpus, reasons),
    }
    count = cell("gpus_per_instance")
    gpus_per_instance = 1 if _is_blank(count) else _gpu_count(count, "gpus_per_instance", reasons)
    row["gpus_per_instance"] = gpus_per_instance
    row["price_per_gpu_hour"], row["price_per_instance_hour"] = _rental_prices(
        quote, gpus_per_instance, reasons
    )
    row["currency"] = _required_currency(cell("currency"), reasons)
    row["kind"] = _choice(cell("kind"), "kind", KINDS, "on-demand", reasons)
    row["region"] = _bounded_text(cell("region"), "region", SHORT_TEXT_MAX, reasons)
    row["interconnect"] = _choice(cell("interconnect"), "interconnect", INTERCONNECTS, "", reasons)
    hours = _optional_number(cell("min_term_hours"), "min_term_hours", reasons)
    if hours is not None and hours < 0:
        reasons.append(msg("quote.negative", field="min_term_hours"))
    row["min_term_hours"] = _at_most(hours, MAX_MIN_TERM_HOURS, "min_term_hours", reasons)
    row["interruptions_per_hour"] = _interruption_rate(cell("interruptions_per_hour"), reasons)
    row["quoted_on"], row["valid_until"] = _quote_dates(quote, reasons)
    row["source"] = _bounded_text(cell("source"), "source", LONG_TEXT_MAX, reasons)
    row["note"] = _bounded_text(cell("note"), "note", LONG_TEXT_MAX, reasons)
    return row, reasons


def _interruption_rate(value: object, reasons: Reasons) -> float | None:
    """Reclaims per instance-hour a spot/preemptible quote carries (blank: unknown), at most one a second."""
    rate = _optional_number(value, "interruptions_per_hour", reasons)
    if rate is not None and rate < 0:
        reasons.append(msg("quote.negative", field="interruptions_per_hour"))
    return _at_most(rate, MAX_INTERRUPTIONS_PER_HOUR, "interruptions_per_hour", reasons)


def _rental_prices(
    quote: Mapping[str, object], count: int | None, reasons: Reasons
) -> tuple[float | None, float | None]:
    """(price per GPU-hour, price per instance-hour), the missing one derived from the other and the count."""
    per_gpu_cell, per_instance_cell = quote.get("price_per_gpu_hour"), quote.get("price_per_instance_hour")
    per_gpu = None if _is_blank(per_gpu_cell) else _positive(per_gpu_cell, "price_per_gpu_hour", reasons)
    per_gpu = _at_most(per_gpu, MAX_PRICE_PER_GPU_HOUR, "price_per_gpu_hour", reasons)
    per_instance = (
        None
        if _is_blank(per_instance_cell)
        else _positive(per_instance_cell, "price_per_instance_hour", reasons)
    )
    instance_limit = MAX_PRICE_PER_GPU_HOUR * (count or MAX_GPUS_PER_QUOTE)  # unknown count: lenient
    per_instance = _at_most(per_instance, instance_limit, "price_per_instance_hour", reasons,
                            "quote.above_limit_per_gpu", per_gpu_limit=MAX_PRICE_PER_GPU_HOUR)  # fmt: skip
    if _is_blank(per_gpu_cell) and _is_blank(per_instance_cell):
        reasons.append(msg("quote.price_required"))
    elif count is not None and per_gpu is not None and per_instance is None and _is_blank(per_instance_cell):
        per_instance = per_gpu * count
    elif count is not None and per_instance is not None and per_gpu is None and _is_blank(per_gpu_cell):
        per_gpu = per_instance / count
    elif count is not None and per_gpu is not None and per_instance is not None:
        expected = per_gpu * count
        if abs(per_instance - expected) > PRICE_AGREEMENT_FRACTION * expected:
            reasons.append(msg("quote.prices_disagree", per_instance=per_instance, per_gpu=per_gpu, gpus=count,
                               expected=expected))  # fmt: skip
    # A derived price (the other one divided or multiplied by the GPU count) must be a usable number too.
    for name, price in (("price_per_gpu_hour", per_gpu), ("price_per_instance_hour", per_instance)):
        if price is not None and not (math.isfinite(price) and price > 0):
            reasons.append(msg("quote.unusable_price", field=name, price=f"{price:g}"))
    return per_gpu, per_instance


def _quote_dates(quote: Mapping[str, object], reasons: Reasons) -> tuple[str | None, str]:
    """(quoted_on, valid_until): valid_until "" when blank, never before quoted_on."""
    quoted_on = _required_date(quote.get("quoted_on"), "quoted_on", reasons)
    if _is_blank(quote.get("valid_until")):
        return quoted_on, ""
    valid_until = parse_iso_date(quote.get("valid_until"), "valid_until", reasons)
    if valid_until and quoted_on and valid_until < quoted_on:
        reasons.append(msg("quote.valid_before_quoted"))
    return quoted_on, valid_until or ""


def validate_rental_quote(quote: Mapping[str, object], gpus: GpuResolver | None = None) -> Reasons:
    """Reasons this rental quote cannot be stored (empty list: it can). Shared by CSV import and the GUI."""
    return clean_rental_quote(quote, gpus)[1]


# ----------------------------------------------------------------------------------------------------------------
# Purchase quotes
# ----------------------------------------------------------------------------------------------------------------


def clean_purchase_quote(
    quote: Mapping[str, object], gpus: GpuResolver | None = None
) -> tuple[QuoteValues, Reasons]:
    """Normalise one purchase quote. `price` is the whole quote for `gpus` GPUs; `server_overhead_fraction` is the
    server, network and rack cost as a fraction of that price (0.3 = +30 %); `power_w` is watts per GPU."""
    reasons: Reasons = []
    cell = quote.get
    row: QuoteValues = {
        "vendor": _required_text(cell("vendor"), "vendor", reasons),
        "gpu": _required_gpu(cell("gpu"), gpus, reasons),
    }
    count = cell("gpus")
    row["gpus"] = gpu_count = 1 if _is_blank(count) else _gpu_count(count, "gpus", reasons)
    row["price"] = _purchase_price(cell("price"), gpu_count, reasons)
    row["currency"] = _required_currency(cell("currency"), reasons)
    row["quoted_on"] = _required_date(cell("quoted_on"), "quoted_on", reasons)
    fraction = _optional_number(cell("server_overhead_fraction"), "server_overhead_fraction", reasons)
    if fraction is not None and not 0 <= fraction <= MAX_SERVER_OVERHEAD_FRACTION:
        reasons.append(msg("quote.overhead_range"))
    row["server_overhead_fraction"] = fraction
    power = cell("power_w")
    row["power_w"] = (
        None
        if _is_blank(power)
        else _at_most(
            _positive(power, "power_w", reasons),
            MAX_POWER_W_PER_GPU,
            "power_w",
            reasons,
            "quote.above_limit_w",
        )  # fmt: skip
    )
    row["source"] = _bounded_text(cell("source"), "source", LONG_TEXT_MAX, reasons)
    row["note"] = _bounded_text(cell("note"), "note", LONG_TEXT_MAX, reasons)
    return row, reasons


def _purchase_price(value: object, gpu_count: int | None, reasons: Reasons) -> float | None:
    if _is_blank(value):
        reasons.append(msg("quote.required", field="price"))
        return None
    price = _positive(value, "price", reasons)
    limit = MAX_PURCHASE_PRICE_PER_GPU * (gpu_count or MAX_GPUS_PER_QUOTE)  # unknown count: lenient
    return _at_most(price, limit, "price", reasons, "quote.above_limit_per_gpu",
                    per_gpu_limit=MAX_PURCHASE_PRICE_PER_GPU)  # fmt: skip


def validate_purchase_quote(quote: Mapping[str, object], gpus: GpuResolver | None = None) -> Reasons:
    return clean_purchase_quote(quote, gpus)[1]


# ----------------------------------------------------------------------------------------------------------------
# One description per quote table, so import/export/dedupe code is written once
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuoteTable:
    table: str
    kind: str  # "rental" | "purchase"
    label: Message  # "rental quote" / "purchase quote", inside other messages
    plural: Message  # "rental quotes" / "purchase quotes"
    columns: tuple[str, ...]
    dedupe_columns: tuple[str, ...]
    required_header: frozenset[str]  # columns a CSV header must name
    clean: Callable[[Mapping[str, object], GpuResolver | None], tuple[QuoteValues, Reasons]]
    text_columns: frozenset[str]


RENTAL = QuoteTable(
    table="rental_quotes",
    kind="rental",
    label=msg("store.rental_quote"),
    plural=msg("store.rental_quotes"),
    columns=RENTAL_COLUMNS,
    dedupe_columns=RENTAL_DEDUPE_COLUMNS,
    required_header=frozenset({"provider", "gpu", "currency", "quoted_on"}),
    clean=clean_rental_quote,
    text_columns=frozenset({"provider", "offer", "gpu", "currency", "kind", "region", "interconnect", "quoted_on",
                            "valid_until", "source", "note"}),
)  # fmt: skip
PURCHASE = QuoteTable(
    table="purchase_quotes",
    kind="purchase",
    label=msg("store.purchase_quote"),
    plural=msg("store.purchase_quotes"),
    columns=PURCHASE_COLUMNS,
    dedupe_columns=PURCHASE_DEDUPE_COLUMNS,
    required_header=frozenset({"vendor", "gpu", "price", "currency", "quoted_on"}),
    clean=clean_purchase_quote,
    text_columns=frozenset({"vendor", "gpu", "currency", "quoted_on", "source", "note"}),
)


def dedupe_key(row: Mapping[str, object], columns: Iterable[str]) -> tuple[object, ...]:
    """The identity of a quote: text without letter case, numbers as they are."""
    return tuple(_folded(row[c]) for c in columns)


def _folded(value: object) -> object:
    return value.casefold() if isinstance(value, str) else value


# ----------------------------------------------------------------------------------------------------------------
# CSV cells (the files themselves: planner/store/quote_csv.py)
# ----------------------------------------------------------------------------------------------------------------


def guard_formula(text: str) -> str:
    """Prefix ' to a cell a spreadsheet would run as a formula (OWASP "CSV injection"), and to one that starts
    with ' itself, so that unguard_formula gives back exactly the text stored."""
    return "'" + text if text.startswith((*FORMULA_PREFIXES, "'")) else text
