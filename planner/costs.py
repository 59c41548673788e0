"""What a run costs, and whether to rent or buy the GPUs (the comparison and its sources: docs/sources.md,
"Costs").

Money is in one currency per calculation (convert with planner.money first). Hours are GPU-hours unless a
name says otherwise; a month is 365.25 / 12 = 30.4375 days.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from planner.break_even import (
    DAYS_PER_MONTH,
    HOURS_PER_MONTH,
    months_to_break_even,
    rent_per_gpu_month,
    running_cost_per_busy_hour,
)
from planner.errors import UserError
from planner.gpus import GpuSpec
from planner.limits import LIMITS
from planner.messages import Message, msg
from planner.money import Money
from planner.scale import (
    DETECTION_S,
    RESCHEDULE_S,
    SpotComparison,
    compare_spot,
    spot_overhead_of_job,
)

# Defaults for the owned side, each an assumption the user can change.
# PUE: Uptime Institute's 2023 survey average is 1.58; new GPU halls run 1.2-1.4. 1.4 sits between.
DEFAULT_PUE = 1.4
# Electricity: about $0.12-0.13 per kWh, US commercial average (EIA Electric Power Monthly, 2024).
DEFAULT_ELECTRICITY_PER_KWH = 0.12
# Spot: lost work and restarts make a spot GPU-hour buy less than an hour of progress. Assumption: 10%.
DEFAULT_SPOT_OVERHEAD_FRACTION = 0.10
# A spot line from an interruption rate (spot_line below) when the user gives no times: a checkpoint takes a
# minute to write, what one 8-GPU node's local NVMe (8 x 3.5 GB/s, planner.scale.checkpoints) writes of a
# 120B-parameter model at 14 bytes per parameter, so an upper figure for models that fit one node; a restart
# takes detection + rescheduling (planner.scale.checkpoints: the 10 min NCCL timeout + 5 min). The same defaults
# as `gpu-advisor rentbuy --checkpoint-write-minutes / --restart-minutes`.
DEFAULT_SPOT_CHECKPOINT_WRITE_S = 60.0
DEFAULT_SPOT_RESTART_S = DETECTION_S + RESCHEDULE_S
# The bounds below are the input limits' (planner/limits.py, the one table), for the same quantities.
MAX_SPOT_INTERRUPTIONS_PER_NODE_HOUR = LIMITS["spot_interruptions_per_node_hour"].high  # one reclaim a second
MAX_SPOT_CHECKPOINT_S = LIMITS["checkpoint_write_minutes"].high * 60  # a week to write or restart: a typo

SERIES = ("on_demand", "spot", "reserved", "buy", "hybrid")
# Rent vs buy inputs past these are typos, not plans; they also keep every figure in the result finite.
MAX_RENT_BUY_GPUS = int(LIMITS["gpus"].high)
MAX_PURCHASE_PER_GPU = LIMITS["purchase_per_gpu"].high  # in any currency
MAX_PRICE = LIMITS["rent_per_gpu_hour"].high  # any rent per GPU-hour or electricity price per kWh
MAX_SHARE = LIMITS["overhead_fraction"].high  # overheads and maintenance as a share of the purchase price
# Physical ranges. PUE (The Green Grid) is facility power / IT power: 1.0 is the floor, Uptime Institute's 2023
# survey average is 1.58 and old server rooms reach about 2.5. The largest GPU modules draw about 1,200-1,400 W;
# 0 W is allowed and leaves electricity out of the comparison.
MIN_PUE, MAX_PUE = LIMITS["pue"].low, LIMITS["pue"].high
MAX_POWER_W_PER_GPU = LIMITS["power_w"].high


# ---------------------------------------------------------------------------------------------- run cost


@dataclass(frozen=True)
class RunCost:
    """Cost of one run.

    gpu_hours: the work itself; billed_gpu_hours: what is paid for (spot adds lost work and restarts);
    wall_time_s: calendar time including spot losses.
    """

    total: Money
    per_million_tokens: Money | None
    per_epoch: Money | None
    gpu_hours: float
    billed_gpu_hours: float
    wall_time_s: float | None
    spot: bool = False
    assumptions: tuple[str, ...] = ()


def spot_overhead_fraction(
    interruptions_per_hour: float, restart_overhead_h: float, checkpoint_interval_h: float
) -> float:
    """Extra hours per hour of work on spot: each interruption loses half a checkpoint interval on average plus
    the restart (reload, warm-up)."""
    if min(interruptions_per_hour, restart_overhead_h, checkpoint_interval_h) < 0:
        raise UserError.of(msg("error.spot_inputs_negative"))
    return interruptions_per_hour * (checkpoint_interval_h / 2 + restart_overhead_h)


def run_cost(
    gpu_hours: float,
    price_per_gpu_hour: Money,
    *,
    tokens: float | None = None,
    dataset_tokens: float | None = None,
    wall_time_s: float | None = None,
    spot: bool = False,
    interruptions_per_hour: float = 0.0,
    restart_overhead_h: float = 0.0,
    checkpoint_interval_h: float = 1.0,
) -> RunCost:
    """Total cost of `gpu_hours` at `price_per_gpu_hour`, per million tokens and per epoch of `dataset_tokens`.

    Spot: interruptions (per hour of wall time) cost lost work and restart time, billed like any other hour.
    Example: 128 GPUs x 24 days x 24 h = 73,728 GPU-hours at $3.75 = $276,480.
    """
    if gpu_hours < 0 or price_per_gpu_hour.amount < 0:
        raise UserError.of(msg("error.run_cost_negative"))
    overhead = (
        spot_overhead_fraction(interruptions_per_hour, restart_overhead_h, checkpoint_interval_h)
        if spot
        else 0
    )
    billed = gpu_hours * (1 + overhead)
    total = price_per_gpu_hour * billed
    assumptions = [f"{price_per_gpu_hour.amount:g} {price_per_gpu_hour.currency} per GPU-hour"]
    if spot:
        assumptions.append(
            f"spot: {interruptions_per_hour:g} interruptions/h, each losing half of a {checkpoint_interval_h:g} h "
            f"checkpoint interval plus {restart_overhead_h:g} h restart: +{overhead:.1%} hours"
        )
    per_million = total / (tokens / 1e6) if tokens else None
    per_epoch = total * (dataset_tokens / tokens) if tokens and dataset_tokens else None
    return RunCost(
        total=total,
        per_million_tokens=per_million,
        per_epoch=per_epoch,
        gpu_hours=gpu_hours,
        billed_gpu_hours=billed,
        wall_time_s=wall_time_s * (1 + overhead) if wall_time_s is not None else None,
        spot=spot,
        assumptions=tuple(assumptions),
    )


# ---------------------------------------------------------------------------------------------- spot line


@dataclass(frozen=True, slots=True)
class SpotLine:
    """Spot from an interruption rate, for a job on `gpus` GPUs (whole nodes of `gpus_per_node`).

    overhead_fraction: extra billed hours per useful hour against the same job on demand (both suffer the GPU
    type's hardware failures; spot adds nodes x the reclaim rate: planner.scale.spot_overhead_of_job), with the
    sentence saying how (basis). comparison, with both prices: spot at its price x (1 + overhead) against the
    on-demand price, and the largest job (nodes) at which spot still pays (planner.scale.SpotComparison; its
    fractions are relative to on demand, whose own is 1).
    """

    interruptions_per_node_hour: float
    checkpoint_write_s: float
    restart_s: float
    gpus: int
    gpus_per_node: int
    overhead_fraction: float
    basis: str
    comparison: SpotComparison | None = None

    @property
    def nodes(self) -> int:
        return -(-self.gpus // self.gpus_per_node)

    def as_dict(self, currency: str) -> dict[str, object]:
        """JSON for `gpu-advisor rentbuy --json` ("spot", docs/cli.md)."""
        comparison = self.comparison
        return {
            "interruptions_per_node_hour": self.interruptions_per_node_hour,
            "checkpoint_write_s": self.checkpoint_write_s,
            "restart_s": self.restart_s,
            "nodes": self.nodes,
            "gpus_per_node": self.gpus_per_node,
            "overhead_fraction": self.overhead_fraction,
            "spot_per_useful_gpu_hour": Money(comparison.spot_per_useful_gpu_hour, currency).as_dict()
            if comparison else None,
            "spot_pays": comparison.pays if comparison else None,
            "break_even_nodes": comparison.break_even_nodes if comparison else None,
        }  # fmt: skip


def spot_line(
    gpu: GpuSpec,
    gpus: int,
    interruptions_per_node_hour: float,
    checkpoint_write_s: float = DEFAULT_SPOT_CHECKPOINT_WRITE_S,
    restart_s: float = DEFAULT_SPOT_RESTART_S,
    spot_price: float | None = None,
    on_demand_price: float | None = None,
    gpus_per_node: int | None = None,
) -> SpotLine:
    """The spot line's overhead from a reclaim rate per instance-hour, and with both prices (per GPU-hour, one
    currency) when spot stops paying. UserError for an impossible input or a job spot cannot run at all."""
    _check_spot_inputs(gpus, interruptions_per_node_hour, checkpoint_write_s, restart_s)
    per_node = gpus_per_node or gpu.gpus_per_node
    nodes = -(-gpus // per_node)

    def overhead(job_gpus: int) -> float:
        try:
            extra, _ = spot_overhead_of_job(
                gpu, job_gpus, interruptions_per_node_hour, checkpoint_write_s, restart_s, per_node
            )
        # e^(restart / MTBF) past a float, or an effective fraction of 0: the job never gets anywhere
        except (OverflowError, ZeroDivisionError):
            return math.inf
        return extra

    try:
        extra, basis = spot_overhead_of_job(
            gpu, gpus, interruptions_per_node_hour, checkpoint_write_s, restart_s, per_node
        )
    except (OverflowError, ZeroDivisionError):
        extra, basis = math.inf, ""
    if not extra <= MAX_SHARE:
        raise UserError.of(msg("error.spot_no_progress", rate=interruptions_per_node_hour, nodes=nodes,
                               restart_s=restart_s))  # fmt: skip
    comparison = None
    if spot_price is not None and on_demand_price is not None and on_demand_price > 0:

        def fractions(count: int) -> tuple[float, float]:
            extra_hours = overhead(gpus if count == nodes else count * per_node)
            return 1.0, 1 / (1 + extra_hours)

        comparison = compare_spot(spot_price, on_demand_price, fractions, nodes)
    return SpotLine(interruptions_per_node_hour, checkpoint_write_s, restart_s, gpus, per_node, extra, basis,
                    comparison)  # fmt: skip


def _check_spot_inputs(gpus: int, rate: float, write_s: float, restart_s: float) -> None:
    if gpus < 1:
        raise UserError.of(msg("error.gpus_positive"))
    for code, value, limit in (("spot_interruption_rate", rate, MAX_SPOT_INTERRUPTIONS_PER_NODE_HOUR),
                               ("checkpoint_write_time", write_s, MAX_SPOT_CHECKPOINT_S),
                               ("restart_time", restart_s, MAX_SPOT_CHECKPOINT_S)):  # fmt: skip
        what = msg(f"quantity.{code}")
        if not math.isfinite(value):
            raise UserError.of(msg("error.must_be_finite", what=what, value=value))
        if value < 0:
            raise UserError.of(msg("error.must_not_be_negative", what=what))
        if value > limit:
            raise UserError.of(msg("error.value_too_large", what=what, value=value, limit=limit))


# ---------------------------------------------------------------------------------------------- rent vs buy


@dataclass(frozen=True)
class RentBuyInputs:
    """Everything rent vs buy rests on. Prices per GPU in `currency`.

    purchase_per_gpu: GPU price; infra_overhead_fraction: server, network, racking as a share of it;
    power_w_per_gpu: draw while busy (the TDP is a fair upper figure); pue: facility overhead on power;
    hours_per_day x days_per_week: the schedule; utilization: busy share of that schedule; horizon_months:
    how long the hardware is used; resale_fraction: share of the purchase recovered at the end;
    maintenance_fraction_per_year: support, spares, ops as a share of the purchase per year;
    rent_*: per GPU-hour; reserved is paid around the clock for the horizon (a commitment);
    hybrid_owned_gpus: GPUs owned in the hybrid plan (base load); the rest of the demand is rented on demand;
    purchase_per_gpu None: no purchase price is known, so neither buying nor the hybrid is priced;
    job_gpus: GPUs one job needs at the same time (a plan's GPU count: an 8-GPU tensor-parallel job cannot run
    on 4 owned GPUs), so the hybrid owns whole job-sized groups (None: GPU-hours are interchangeable).
    """

    gpus: int = 8
    purchase_per_gpu: float | None = 27_500.0
    rent_on_demand_per_gpu_hour: float = 2.80
    rent_spot_per_gpu_hour: float | None = None
    rent_reserved_per_gpu_hour: float | None = None
    currency: str = "USD"
    infra_overhead_fraction: float = 0.0
    power_w_per_gpu: float = 700.0
    pue: float = DEFAULT_PUE
    electricity_per_kwh: float = DEFAULT_ELECTRICITY_PER_KWH
    hours_per_day: float = 24.0
    days_per_week: float = 7.0
    utilization: float = 1.0
    horizon_months: int = 36
    resale_fraction: float = 0.0
    maintenance_fraction_per_year: float = 0.0
    spot_overhead_fraction: float = DEFAULT_SPOT_OVERHEAD_FRACTION
    hybrid_owned_gpus: int | None = None
    # How spot_overhead_fraction was found ("": the flat assumption; planner.scale.spot_overhead_of_job's words
    # when it comes from an interruption rate).
    spot_overhead_basis: str = ""
    job_gpus: int | None = None

    @property
    def buys(self) -> bool:
        """A purchase price is known: buying and the hybrid can be priced."""
        return self.purchase_per_gpu is not None

    @property
    def hybrid_groups(self) -> int:
        """Whole job-sized groups the GPUs make (one per GPU when jobs are not sized)."""
        return self.gpus // (self.job_gpus or 1)

    def validate(self) -> None:
        """UserError naming the first impossible input (NaN and infinity are impossible everywhere)."""
        self._validate_finite()
        negative = msg("error.must_not_be_negative", what=msg("quantity.rent_prices"))
        checks = [
            (self.gpus >= 1, msg("error.gpus_positive")),
            (self.gpus <= MAX_RENT_BUY_GPUS, msg("error.rentbuy_gpus_large", gpus=self.gpus, limit=MAX_RENT_BUY_GPUS)),
            (self.purchase_per_gpu is None or self.purchase_per_gpu <= MAX_PURCHASE_PER_GPU,
             msg("error.purchase_large", price=self.purchase_per_gpu or 0.0, limit=MAX_PURCHASE_PER_GPU)),
            (self.purchase_per_gpu is None or self.purchase_per_gpu >= 0, self._negative("purchase_price")),
            (self.job_gpus is None or 1 <= self.job_gpus <= self.gpus,
             msg("error.job_gpus_range", job_gpus=self.job_gpus or 0, gpus=self.gpus)),
            (self.rent_on_demand_per_gpu_hour >= 0, self._negative("rent_price")),
            (self.infra_overhead_fraction >= 0, self._negative("infra_overhead")),
            (0 <= self.power_w_per_gpu <= MAX_POWER_W_PER_GPU,
             msg("error.power_range", limit=MAX_POWER_W_PER_GPU, power=self.power_w_per_gpu)),
            (MIN_PUE <= self.pue <= MAX_PUE, msg("error.pue_range", low=MIN_PUE, high=MAX_PUE, pue=self.pue)),
            (self.electricity_per_kwh >= 0, self._negative("electricity_price")),
            (0 < self.hours_per_day <= 24, msg("error.hours_per_day_range")),
            (0 < self.days_per_week <= 7, msg("error.days_per_week_range")),
            (0 < self.utilization <= 1, msg("error.utilisation_range")),
            (1 <= self.horizon_months <= 240, msg("error.horizon_range")),
            (0 <= self.resale_fraction <= 1, msg("error.resale_range")),
            (self.maintenance_fraction_per_year >= 0, self._negative("maintenance")),
            (self.spot_overhead_fraction >= 0, self._negative("spot_overhead")),
            (self.hybrid_owned_gpus is None or 0 <= self.hybrid_owned_gpus <= self.gpus, msg("error.hybrid_range")),
            (self.hybrid_owned_gpus is None or self.hybrid_owned_gpus % (self.job_gpus or 1) == 0,
             msg("error.hybrid_whole_groups", job_gpus=self.job_gpus or 1)),
        ]  # fmt: skip
        for prices in (self.rent_spot_per_gpu_hour, self.rent_reserved_per_gpu_hour):
            checks.append((prices is None or prices >= 0, negative))
        checks += [(value is None or value <= limit, msg("error.value_too_large", what=msg(f"quantity.{code}"),
                                                         value=value, limit=limit))
                   for code, value, limit in self._bounded()]  # fmt: skip
        for ok, problem in checks:
            if not ok:
                raise UserError.of(problem)

    def _bounded(self) -> tuple[tuple[str, float | None, float], ...]:
        """(quantity code, value, upper bound) of the inputs without a physical ceiling: past these the result
        overflows to infinity (a 1e308 rent), so they are typos, not plans."""
        return (("rent_price", self.rent_on_demand_per_gpu_hour, MAX_PRICE),
                ("spot_rent_price", self.rent_spot_per_gpu_hour, MAX_PRICE),
                ("reserved_rent_price", self.rent_reserved_per_gpu_hour, MAX_PRICE),
                ("electricity_price", self.electricity_per_kwh, MAX_PRICE),
                ("infra_overhead", self.infra_overhead_fraction, MAX_SHARE),
                ("maintenance", self.maintenance_fraction_per_year, MAX_SHARE),
                ("spot_overhead", self.spot_overhead_fraction, MAX_SHARE))  # fmt: skip

    @staticmethod
    def _negative(quantity: str) -> Message:
        return msg("error.must_not_be_negative", what=msg(f"quantity.{quantity}"))

    def _validate_finite(self) -> None:
        numbers = {  # planner.messages "quantity.*" code -> value
            "purchase_price": self.purchase_per_gpu,
            "rent_price": self.rent_on_demand_per_gpu_hour,
            "spot_rent_price": self.rent_spot_per_gpu_hour,
            "reserved_rent_price": self.rent_reserved_per_gpu_hour,
            "infra_overhead": self.infra_overhead_fraction,
            "power_per_gpu": self.power_w_per_gpu,
            "pue": self.pue,
            "electricity_price": self.electricity_per_kwh,
            "hours_per_day": self.hours_per_day,
            "days_per_week": self.days_per_week,
            "utilisation": self.utilization,
            "resale_fraction": self.resale_fraction,
            "maintenance": self.maintenance_fraction_per_year,
            "spot_overhead": self.spot_overhead_fraction,
        }
        for quantity, value in numbers.items():
            if value is not None and not math.isfinite(value):
                raise UserError.of(msg("error.must_be_finite", what=msg(f"quantity.{quantity}"), value=value))

    @property
    def scheduled_hours_per_month(self) -> float:
        """Hours per GPU per month the schedule allows (24 h x 7 d: 730.5)."""
        return self.hours_per_day * self.days_per_week / 7 * DAYS_PER_MONTH

    @property
    def used_hours_per_gpu_month(self) -> float:
        return self.scheduled_hours_per_month * self.utilization

    @property
    def capex_per_gpu(self) -> float:
        return (self.purchase_per_gpu or 0.0) * (1 + self.infra_overhead_fraction)

    @property
    def power_cost_per_gpu_hour(self) -> float:
        """Electricity for one busy GPU-hour: kW x PUE x price per kWh."""
        return self.power_w_per_gpu / 1000 * self.pue * self.electricity_per_kwh

    @property
    def maintenance_per_gpu_month(self) -> float:
        return (self.purchase_per_gpu or 0.0) * self.maintenance_fraction_per_year / 12


@dataclass(frozen=True)
class RentBuyResult:
    """Cumulative cost per month (index 0 = the day of purchase) for each plan, break-evens and advice.

    break_even_gpu_hours: capex / (rent - owned running cost per hour), per GPU (docs/sources.md, "Costs");
    break_even_months: first calendar month at which cumulative owning <= cumulative renting at this schedule
    (fractional, None if never within 20 years); break_even_utilization: busy share of the schedule at which
    owning over the horizon costs the same as renting on demand (None if above 100%).
    """

    inputs: RentBuyInputs
    months: tuple[int, ...]
    series: Mapping[str, tuple[float, ...]]
    totals: Mapping[str, Money]
    break_even_gpu_hours: float | None
    break_even_months: float | None
    break_even_utilization: float | None
    owned_cost_per_gpu_hour: float  # over the horizon, per busy hour, everything included
    running_cost_per_gpu_hour: float  # power + maintenance per busy hour (what the break-even subtracts)
    hybrid_owned_gpus: int
    cheapest: str
    recommendation: str
    assumptions: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        """JSON for `gpu-advisor rentbuy --json`: "rent" is on-demand renting."""
        currency = self.inputs.currency
        names = {
            "rent": "on_demand",
            "buy": "buy",
            "hybrid": "hybrid",
            "spot": "spot",
            "reserved": "reserved",
        }
        return {
            "break_even_gpu_hours": self.break_even_gpu_hours,
            "break_even_months": self.break_even_months,
            "break_even_utilization": self.break_even_utilization,
            "totals": {name: self.totals[key].as_dict() for name, key in names.items() if key in self.totals},
            "monthly": {
                "month": list(self.months),
                **{name: list(self.series[key]) for name, key in names.items() if key in self.series},
            },
            "currency": currency,
            "owned_cost_per_gpu_hour": {"amount": self.owned_cost_per_gpu_hour, "currency": currency},
            "running_cost_per_gpu_hour": {"amount": self.running_cost_per_gpu_hour, "currency": currency},
            "hybrid_owned_gpus": self.hybrid_owned_gpus,
            "cheapest": self.cheapest,
            "recommendation": self.recommendation,
            "assumptions": list(self.assumptions),
        }


def break_even_gpu_hours(
    capex_per_gpu: float, rent_per_gpu_hour: float, running_per_gpu_hour: float
) -> float | None:
    """GPU-hours after which owning one GPU has cost less than renting it: capex / (rent - running cost).

    None when renting is cheaper per hour than merely running an owned GPU (owning never pays off).
    """
    margin = rent_per_gpu_hour - running_per_gpu_hour
    return capex_per_gpu / margin if margin > 0 else None


def break_even_utilization(inputs: RentBuyInputs) -> float | None:
    """Busy share of the schedule at which owning over the whole horizon equals renting on demand.

    Owning per GPU-month: capex x (1 - resale) / horizon + maintenance + u x H x power;
    renting: u x H x rent. Solve for u; None if it needs more than 100%.
    """
    hours = inputs.scheduled_hours_per_month
    fixed = inputs.capex_per_gpu * (1 - inputs.resale_fraction) / inputs.horizon_months
    fixed += inputs.maintenance_per_gpu_month
    margin = inputs.rent_on_demand_per_gpu_hour - inputs.power_cost_per_gpu_hour
    if margin <= 0:
        return None
    utilization = fixed / (hours * margin)
    return utilization if utilization <= 1 else None


def _owned_series(
    gpus: int, inputs: RentBuyInputs, busy_hours_per_gpu_month: float, months: Sequence[int]
) -> list[float]:
    """Cumulative cash for owning `gpus`: capex on day 0, power + maintenance monthly, resale at the horizon."""
    capex = gpus * inputs.capex_per_gpu
    monthly = gpus * (
        busy_hours_per_gpu_month * inputs.power_cost_per_gpu_hour + inputs.maintenance_per_gpu_month
    )
    resale = gpus * (inputs.purchase_per_gpu or 0.0) * inputs.resale_fraction
    return [capex + monthly * m - (resale if m == inputs.horizon_months else 0.0) for m in months]


def _months_to_break_even(inputs: RentBuyInputs, running_per_hour: float) -> float | None:
    """Fractional calendar months until cumulative owning <= cumulative renting on demand (planner.break_even)."""
    rent = rent_per_gpu_month(inputs, "on_demand") or 0.0
    return months_to_break_even(
        inputs.capex_per_gpu, rent, inputs.used_hours_per_gpu_month * running_per_hour
    )


def _hybrid_owned(inputs: RentBuyInputs) -> int | None:
    """GPUs the hybrid owns: the user's choice, else half the job-sized groups (at least one GPU when jobs are
    not sized); None when there is no hybrid (no purchase price, or fewer than two job-sized groups)."""
    if not inputs.buys:
        return None
    if inputs.job_gpus is None:
        return inputs.hybrid_owned_gpus if inputs.hybrid_owned_gpus is not None else max(1, inputs.gpus // 2)
    if inputs.hybrid_groups < 2 and not inputs.hybrid_owned_gpus:
        return None  # one job needs every GPU: owning part of them runs nothing
    if inputs.hybrid_owned_gpus is not None:
        return inputs.hybrid_owned_gpus
    return inputs.hybrid_groups // 2 * inputs.job_gpus


def _hybrid_series(
    inputs: RentBuyInputs, owned: int, demand_per_month: float, months: Sequence[int]
) -> list[float]:
    """Owned GPUs (whole job-sized groups) take the demand first, up to their whole schedule; the rest is
    rented on demand."""
    owned_busy = min(demand_per_month, owned * inputs.scheduled_hours_per_month)
    burst = demand_per_month - owned_busy
    owned_part = _owned_series(owned, inputs, owned_busy / owned, months) if owned else [0.0] * len(months)
    rent = inputs.rent_on_demand_per_gpu_hour
    return [own + burst * rent * m for own, m in zip(owned_part, months, strict=True)]


def utilisation_from_runs(
    gpus: int,
    gpu_hours_per_run: float,
    runs_per_month: float,
    hours_per_day: float = 24.0,
    days_per_week: float = 7.0,
) -> float:
    """Busy share of `gpus` GPUs' schedule when a job of `gpu_hours_per_run` runs `runs_per_month` times.

    Example: a 25-minute job on 64 GPUs (26.7 GPU-hours) run 20 times a month on those 64 GPUs around the clock:
    20 x 26.7 / (64 x 730.5) = 1.1%. UserError when the runs do not fit the schedule.
    """
    scheduled = gpus * hours_per_day * days_per_week / 7 * DAYS_PER_MONTH
    if not (gpu_hours_per_run > 0 and runs_per_month > 0 and scheduled > 0):
        raise UserError.of(msg("error.runs_positive"))
    busy = gpu_hours_per_run * runs_per_month / scheduled
    if busy > 1:
        fit = scheduled / gpu_hours_per_run
        raise UserError.of(msg("error.runs_do_not_fit", runs=runs_per_month, fit=math.floor(fit), gpus=gpus))
    return busy


def rent_vs_buy(inputs: RentBuyInputs) -> RentBuyResult:
    """Cumulative cost per month of renting (on demand, spot, reserved), buying and a hybrid, and when owning pays.

    Demand: `gpus` GPUs busy `utilization` of `hours_per_day` x `days_per_week`. Renting pays for busy hours
    only (reserved: around the clock); owning pays the capex up front and power for busy hours. Hybrid owns
    `hybrid_owned_gpus` (default half, at least one; with `job_gpus`, half of the whole job-sized groups) which
    take the demand first (base load) and rents the rest on demand (bursts). Without a purchase price only the
    rent series are computed.
    """
    inputs.validate()
    months = tuple(range(inputs.horizon_months + 1))
    demand_per_month = inputs.gpus * inputs.used_hours_per_gpu_month  # GPU-hours
    series: dict[str, list[float]] = {
        "on_demand": [demand_per_month * inputs.rent_on_demand_per_gpu_hour * m for m in months],
    }
    if inputs.rent_spot_per_gpu_hour is not None:
        spot_rate = inputs.rent_spot_per_gpu_hour * (1 + inputs.spot_overhead_fraction)
        series["spot"] = [demand_per_month * spot_rate * m for m in months]
    if inputs.rent_reserved_per_gpu_hour is not None:
        reserved_month = inputs.gpus * HOURS_PER_MONTH * inputs.rent_reserved_per_gpu_hour
        series["reserved"] = [reserved_month * m for m in months]
    owned = _hybrid_owned(inputs)
    if inputs.buys:
        series["buy"] = _owned_series(inputs.gpus, inputs, inputs.used_hours_per_gpu_month, months)
        if owned is not None:
            series["hybrid"] = _hybrid_series(inputs, owned, demand_per_month, months)

    running = running_cost_per_busy_hour(inputs)
    buys = inputs.buys
    hours = (
        break_even_gpu_hours(inputs.capex_per_gpu, inputs.rent_on_demand_per_gpu_hour, running)
        if buys
        else None
    )
    calendar = _months_to_break_even(inputs, running) if buys else None
    utilization = break_even_utilization(inputs) if buys else None
    used_over_horizon = inputs.used_hours_per_gpu_month * inputs.horizon_months
    owned_per_hour = series["buy"][-1] / (inputs.gpus * used_over_horizon) if buys else 0.0
    totals = {key: Money(values[-1], inputs.currency) for key, values in series.items()}
    cheapest = min(totals, key=lambda key: totals[key].amount)
    frozen = MappingProxyType({key: tuple(values) for key, values in series.items()})
    return RentBuyResult(
        inputs=inputs,
        months=months,
        series=frozen,
        totals=MappingProxyType(totals),
        break_even_gpu_hours=hours,
        break_even_months=calendar,
        break_even_utilization=utilization,
        owned_cost_per_gpu_hour=owned_per_hour,
        running_cost_per_gpu_hour=running,
        hybrid_owned_gpus=owned or 0,
        cheapest=cheapest,
        recommendation=_recommendation(inputs, totals, cheapest, hours, calendar, utilization),
        assumptions=_assumptions(inputs),
    )


_PLAN_NAMES = {
    "on_demand": "renting on demand",
    "spot": "renting spot",
    "reserved": "renting reserved",
    "buy": "buying",
    "hybrid": "hybrid (own the base load, rent the bursts)",
}


def _money(amount: float, currency: str) -> str:
    from planner.money import format_money

    return format_money(Money(amount, currency))


def _recommendation(
    inputs: RentBuyInputs,
    totals: Mapping[str, Money],
    cheapest: str,
    hours: float | None,
    calendar: float | None,
    utilization: float | None,
) -> str:
    """One paragraph for people: the cheapest plan and the numbers behind it."""
    cur = inputs.currency
    years = inputs.horizon_months / 12
    busy = (
        f"{inputs.utilization:.0%} busy, {inputs.hours_per_day:g} h/day, {inputs.days_per_week:g} days/week"
    )
    ranked = sorted(totals, key=lambda key: totals[key].amount)
    others = "; ".join(f"{_PLAN_NAMES[key]} {_money(totals[key].amount, cur)}" for key in ranked[1:])
    text = (
        f"{_PLAN_NAMES[cheapest].capitalize()} is cheapest over {years:g} years for {inputs.gpus} GPU{'s' if inputs.gpus != 1 else ''} at {busy}: "
        f"{_money(totals[cheapest].amount, cur)} ({others})."
    )
    if not inputs.buys:
        return text + " No purchase price is known, so buying is not compared."
    if hours is None:
        text += " Owning never pays off: the rent is below the running cost of an owned GPU."
    else:
        text += f" Owning pays off after {hours:,.0f} GPU-hours per GPU"
        text += f" (about {calendar:.1f} months at this schedule)." if calendar is not None else "."
    if utilization is None:
        text += f" Over {inputs.horizon_months} months renting wins even at 100% utilisation."
    else:
        verdict = "owning" if inputs.utilization >= utilization else "renting"
        text += (
            f" Over {inputs.horizon_months} months owning beats on-demand renting from {utilization:.0%}"
            f" utilisation up; at the planned {inputs.utilization:.0%}, {verdict} wins."
        )
    return text


def _assumptions(inputs: RentBuyInputs) -> tuple[str, ...]:
    cur = inputs.currency
    return (
        f"capex per GPU {_money(inputs.capex_per_gpu, cur)} = purchase x (1 + {inputs.infra_overhead_fraction:g} "
        "infrastructure overhead), paid on day 0",
        f"power {inputs.power_w_per_gpu:g} W per busy GPU x PUE {inputs.pue:g} x {inputs.electricity_per_kwh:g} "
        f"{cur}/kWh = {inputs.power_cost_per_gpu_hour:.3f} {cur} per busy GPU-hour; idle power not counted",
        f"maintenance {inputs.maintenance_fraction_per_year:.0%} of the purchase per year; resale "
        f"{inputs.resale_fraction:.0%} of the purchase at month {inputs.horizon_months}",
        f"a month is {DAYS_PER_MONTH:.4g} days; busy hours per GPU per month {inputs.used_hours_per_gpu_month:.0f}",
        "renting pays busy hours only; reserved pays every hour of the horizon; spot adds "
        f"{inputs.spot_overhead_fraction:.1%} for lost work and restarts"
        + (f" ({inputs.spot_overhead_basis})" if inputs.spot_overhead_basis else " (assumed)"),
        "hybrid: owned GPUs take the demand first, the rest is rented on demand"
        + (f"; it owns whole groups of {inputs.job_gpus} GPUs (one job's GPUs)" if inputs.job_gpus else ""),
    )


def hours_to_months(gpu_hours: float, hours_per_day: float, days_per_week: float = 7.0) -> float:
    """Calendar months that `gpu_hours` of one GPU take at a schedule (8 h x 5 days: 174 h a month)."""
    per_month = hours_per_day * days_per_week / 7 * DAYS_PER_MONTH
    return gpu_hours / per_month if per_month else math.inf


__all__ = [
    "DAYS_PER_MONTH",
    "HOURS_PER_MONTH",
    "running_cost_per_busy_hour",
    "utilisation_from_runs",
    "RentBuyInputs",
    "RentBuyResult",
    "RunCost",
    "break_even_gpu_hours",
    "break_even_utilization",
    "hours_to_months",
    "rent_vs_buy",
    "run_cost",
    "spot_line",
    "spot_overhead_fraction",
    "SpotLine",
]
