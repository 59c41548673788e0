"""Spot and preemptible capacity: what a reclaimed node costs a synchronous job, and when spot stops paying.

A synchronous job stops when any one of its nodes is reclaimed, so its spot interruption rate is nodes x the
rate per instance-hour; each interruption loses the work since the last checkpoint and a restart, like a failure
(planner.scale.goodput). Every hour is billed, useful or not, so the price per useful GPU-hour is the price over
the effective fraction; spot pays while spot price / spot fraction stays below on-demand price / on-demand
fraction. Sources and dates: docs/sources.md, "Reliability at scale".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from planner.break_even import HOURS_PER_MONTH
from planner.scale.goodput import Goodput

# AWS publishes no rate per hour; its Spot Instance Advisor gives each instance type's "frequency of
# interruption", the share of its capacity reclaimed over the trailing month, in bands <5 %, 5-10 %, 10-15 %,
# 15-20 % and >20 % (aws.amazon.com/ec2/spot/instance-advisor, read December 2026). A quote without its own rate
# takes the top band's floor, 20 % a month: 1 - e^(-rate x 730.5 h) = 0.2. GPU instances usually sit in the top
# bands; a provider's own figure, stored on the quote, replaces it.
SPOT_MONTHLY_INTERRUPTED_SHARE = 0.20
DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR = -math.log(1 - SPOT_MONTHLY_INTERRUPTED_SHARE) / HOURS_PER_MONTH
SPOT_RATE_SOURCE = (
    f"{DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR:.2g} reclaims per instance-hour: AWS Spot Instance Advisor's top "
    f"band, >{SPOT_MONTHLY_INTERRUPTED_SHARE:.0%} of instances interrupted a month"
)
# The largest job size the break-even search tries (nodes); beyond it "spot pays at every size".
MAX_NODES_SEARCHED = 1 << 20


def spot_overhead(on_demand: Goodput | None, spot: Goodput) -> float:
    """Extra billed hours per useful hour on spot compared with the same job on demand (failures alike)."""
    base = on_demand.effective_fraction if on_demand is not None else 1.0
    return base / spot.effective_fraction - 1


@dataclass(frozen=True, slots=True)
class SpotComparison:
    """Spot against on demand for one job: the price per useful GPU-hour of each, whether spot pays, and the
    largest job (nodes) at which it still does (None: at every size searched; 0: not even on one node)."""

    spot_per_useful_gpu_hour: float
    on_demand_per_useful_gpu_hour: float
    spot_fraction: float
    on_demand_fraction: float
    pays: bool
    break_even_nodes: int | None

    def as_dict(self) -> dict[str, object]:
        return {
            "spot_per_useful_gpu_hour": self.spot_per_useful_gpu_hour,
            "on_demand_per_useful_gpu_hour": self.on_demand_per_useful_gpu_hour,
            "spot_effective_fraction": self.spot_fraction,
            "on_demand_effective_fraction": self.on_demand_fraction,
            "spot_pays": self.pays,
            "break_even_nodes": self.break_even_nodes,
        }


def compare_spot(
    spot_price: float,
    on_demand_price: float,
    fractions_at: Callable[[int], tuple[float, float]],
    nodes: int,
) -> SpotComparison:
    """Spot at `spot_price` against on demand at `on_demand_price` (per GPU-hour, one currency) for a job on
    `nodes` nodes; fractions_at(n) gives (on-demand, spot) effective fractions of the same job on n nodes."""
    on_demand_fraction, spot_fraction = fractions_at(nodes)

    def pays(n: int) -> bool:
        od, sp = fractions_at(n)
        return sp > 0 and spot_price / sp < on_demand_price / od

    return SpotComparison(
        spot_per_useful_gpu_hour=spot_price / spot_fraction if spot_fraction > 0 else math.inf,
        on_demand_per_useful_gpu_hour=on_demand_price / on_demand_fraction,
        spot_fraction=spot_fraction, on_demand_fraction=on_demand_fraction, pays=pays(nodes),
        break_even_nodes=_largest_paying(pays),
    )  # fmt: skip


def _largest_paying(pays: Callable[[int], bool]) -> int | None:
    """The largest node count at which spot pays (the fractions fall with size: doubling, then bisection)."""
    if not pays(1):
        return 0
    low = 1
    while low < MAX_NODES_SEARCHED and pays(low * 2):
        low *= 2
    if low >= MAX_NODES_SEARCHED:
        return None
    high = low * 2  # pays(low), not pays(high)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if pays(middle) else (low, middle)
    return low
