"""Serving against targets (SLOs): how far a load is from the TTFT, TPOT and tokens/s targets, the fewest
replicas of a layout that meet them, and which options to show when none does.

The miss of a load is the worst ratio of figure to target: TTFT at its 90th percentile over the TTFT target,
the mean time per output token over the TPOT target, the tokens/s target over the tokens/s delivered (an
overloaded request rate misses by infinity). A miss of at most 1 meets every target. More replicas share the
users (or the request rate) and lower every ratio until each replica serves one user or one request at a time;
the search doubles the replicas until the targets are met or the miss stops falling, then bisects for the
fewest that meet them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from planner import perf
from planner.search.types import PlanOption, ServingLatency, Workload

# A doubling of the replicas that lowers the miss by less than this share has reached what replicas can do.
NO_PROGRESS = 0.01
MAX_DOUBLINGS = 24


def miss_ratio(load: perf.ServingLoad, tokens_per_s: float, workload: Workload) -> float | None:
    """The worst figure / target ratio (None without targets); inf when the request rate overloads it."""
    ratios = []
    if workload.ttft_target_s is not None:
        ratios.append(load.ttft_p90_s / workload.ttft_target_s)
    if workload.tpot_target_s is not None:
        ratios.append(load.tpot_s / workload.tpot_target_s)
    if workload.tokens_per_second:
        ratios.append(workload.tokens_per_second / tokens_per_s if tokens_per_s > 0 else math.inf)
    if load.overloaded and (ratios or workload.request_rate):
        return math.inf
    return max(ratios) if ratios else None


def latency_of(load: perf.ServingLoad, miss: float | None, replicas: int) -> ServingLatency:
    return ServingLatency(
        ttft_p50_s=load.ttft_p50_s, ttft_p90_s=load.ttft_p90_s, prefill_s=load.prefill_s, queue_s=load.queue_s,
        itl_p90_s=load.itl_p90_s, request_rate=load.request_rate * replicas, overloaded=load.overloaded,
        miss=miss,
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Reach:
    """The replicas of one layout against the targets: `within` the GPU limit (the fewest that meet the
    targets, else the limit's most), `needed` the fewest that meet them at any count (None: no count of this
    layout meets them), and the miss at `within`."""

    within: int
    needed: int | None
    miss: float


def replicas_for_targets(miss_at: Callable[[int], float], start: int, limit: int, most: int | None) -> Reach:
    """The fewest replicas from `start` whose miss is at most 1 (miss_at(replicas)); `limit`: the GPU limit's
    replicas; `most`: replicas beyond which nothing changes (one per user), None for no such bound."""

    def bounded(r: int) -> int:
        return min(r, most) if most else r

    current, miss = start, miss_at(start)
    if miss <= 1:
        return Reach(current, current, miss)
    for _ in range(MAX_DOUBLINGS):
        trial = bounded(current * 2)
        if trial <= current:
            break
        trial_miss = miss_at(trial)
        if trial_miss <= 1:
            needed = _bisect(miss_at, current, trial)
            if needed <= limit:
                return Reach(needed, needed, miss_at(needed))
            at_limit = max(start, limit)
            return Reach(at_limit, needed, miss_at(at_limit))
        stalled = not math.isinf(miss) and trial_miss > miss * (1 - NO_PROGRESS)
        current, miss = trial, trial_miss
        if stalled:
            break
    at_limit = max(start, min(limit, current))
    return Reach(at_limit, None, miss_at(at_limit))


def _bisect(miss_at: Callable[[int], float], missing: int, meeting: int) -> int:
    """The fewest replicas in (missing, meeting] that meet the targets (the miss falls with replicas)."""
    while meeting - missing > 1:
        middle = (missing + meeting) // 2
        if miss_at(middle) <= 1:
            meeting = middle
        else:
            missing = middle
    return meeting


def options_to_show(options: list[PlanOption]) -> tuple[list[PlanOption], bool]:
    """(options, met): the options that meet every target, or, when none does, all of them closest first."""
    meeting = [option for option in options if not option.misses_targets]
    if meeting or not options:
        return meeting, True
    return sorted(options, key=_closeness), False


def _closeness(option: PlanOption) -> tuple[float, int]:
    miss = option.latency.miss if option.latency is not None and option.latency.miss is not None else math.inf
    return (miss, option.gpus)
