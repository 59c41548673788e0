"""When owning pays for itself: the month at which cumulative owning has cost no more than each way of renting.

Both sides grow linearly per GPU: owning costs the capex on the day of purchase (month 0) and its running cost
(power for the busy hours, maintenance) every month; renting costs its monthly bill. They meet after
capex / (rent per month - owned running cost per month) months (docs/sources.md, "Costs"). The resale at the
horizon is left out, so the month says when owning has paid for itself through use alone.
"""

from __future__ import annotations

from typing import Protocol

# A month is 365.25 / 12 days, in every cost figure of the planner (planner.costs reads these).
DAYS_PER_MONTH = 365.25 / 12
HOURS_PER_MONTH = 24 * DAYS_PER_MONTH  # 730.5
# A break-even later than 20 years is "never": no GPU is kept in service that long.
MAX_BREAK_EVEN_MONTHS = 240.0
RENT_KINDS = ("on_demand", "spot", "reserved", "rent_mix")


class BreakEvenInputs(Protocol):
    """What the break-even reads of a planner.costs.RentBuyInputs (which builds on this module, so it is named
    here by what it offers): the prices, the schedule, the owned side's costs and the horizon."""

    @property
    def buys(self) -> bool: ...
    @property
    def capex_per_gpu(self) -> float: ...
    @property
    def horizon_months(self) -> int: ...
    @property
    def used_hours_per_gpu_month(self) -> float: ...
    @property
    def power_cost_per_gpu_hour(self) -> float: ...
    @property
    def maintenance_per_gpu_month(self) -> float: ...
    @property
    def rent_on_demand_per_gpu_hour(self) -> float: ...
    @property
    def rent_spot_per_gpu_hour(self) -> float | None: ...
    @property
    def rent_reserved_per_gpu_hour(self) -> float | None: ...
    @property
    def spot_overhead_fraction(self) -> float: ...


def running_cost_per_busy_hour(inputs: BreakEvenInputs) -> float:
    """Owned cost that scales with use, per busy GPU-hour: power, plus maintenance spread over the busy hours."""
    used = inputs.used_hours_per_gpu_month
    return inputs.power_cost_per_gpu_hour + (inputs.maintenance_per_gpu_month / used if used else 0.0)


def months_to_break_even(
    capex_per_gpu: float, rent_per_gpu_month: float, owned_running_per_gpu_month: float
) -> float | None:
    """Fractional months until cumulative owning <= cumulative renting, per GPU; None when renting costs no more
    per month than running an owned GPU, or when it takes longer than MAX_BREAK_EVEN_MONTHS."""
    margin = rent_per_gpu_month - owned_running_per_gpu_month
    if margin <= 0:
        return None
    months = capex_per_gpu / margin
    return months if months <= MAX_BREAK_EVEN_MONTHS else None


def rent_per_gpu_month(inputs: BreakEvenInputs, kind: str, spot_share: float = 0.0) -> float | None:
    """One GPU's monthly rent at the inputs' schedule: on demand and spot for the busy hours (spot with its
    reclaim overhead), reserved around the clock, "rent_mix" a spot share of the busy hours and on demand for the
    rest; None for a kind without a price."""
    used = inputs.used_hours_per_gpu_month
    spot = inputs.rent_spot_per_gpu_hour
    spot_rate = spot * (1 + inputs.spot_overhead_fraction) if spot is not None else None
    if kind == "on_demand":
        return used * inputs.rent_on_demand_per_gpu_hour
    if kind == "spot":
        return used * spot_rate if spot_rate is not None else None
    if kind == "reserved":
        reserved = inputs.rent_reserved_per_gpu_hour
        return HOURS_PER_MONTH * reserved if reserved is not None else None
    if kind == "rent_mix":
        if spot_rate is None:
            return None
        return used * ((1 - spot_share) * inputs.rent_on_demand_per_gpu_hour + spot_share * spot_rate)
    raise ValueError(f"unknown way of renting {kind!r}; use one of {RENT_KINDS}")


def break_even_months_by_rent(
    inputs: BreakEvenInputs, spot_share: float = 0.0, within_horizon: bool = False
) -> dict[str, float | None]:
    """The break-even month of buying against each way of renting that has a price ("rent_mix" only for a spot
    share strictly between 0 and 1); empty without a purchase price. within_horizon: None for a month after the
    inputs' horizon (the lines of a chart over the horizon do not cross)."""
    if not inputs.buys:
        return {}
    owned = inputs.used_hours_per_gpu_month * running_cost_per_busy_hour(inputs)
    found: dict[str, float | None] = {}
    for kind in RENT_KINDS:
        if kind == "rent_mix" and not 0 < spot_share < 1:
            continue
        rent = rent_per_gpu_month(inputs, kind, spot_share)
        if rent is not None:
            months = months_to_break_even(inputs.capex_per_gpu, rent, owned)
            beyond = within_horizon and months is not None and months > inputs.horizon_months
            found[kind] = None if beyond else months
    return found
