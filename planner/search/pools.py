"""Mixed GPU pools: one training job on what the user has (say 64 x A100 80GB + 32 x H100), compared three ways;
and serving replicas spread over the pool.

- each type alone: the fastest plan on at most that many GPUs of one type (the rest stays idle or runs other jobs:
  "separate jobs");
- the whole pool as one data-parallel job: every type runs the same model-parallel shape and sharding (tp x pp,
  ZeRO stage and offload, so the gradient and optimizer shards line up), each type's memory is checked on its own plan, the global batch is split in proportion
  to each type's compute rate (more gradient-accumulation steps on the faster type, the same micro-batch, so the
  memory per GPU is the one planned), and the gradient synchronisation runs at the slowest type's pace;
- the winner, with the reason it wins.

One step of the pooled job: B / sum(r_i) + max(d_i), where r_i is type i's tokens per second of compute alone
(its planned step without the data-parallel communication d_i) and B the tokens per step. Its throughput never
beats the sum of the types' own throughputs: with conductances c_i = r_i / B, B / (1 / sum c_i + D) <=
sum B / (1 / c_i + D) because x / (1 + D x) is concave and 0 at 0 (subadditive), and each type's own d_i <= D.
With one type it is that type's own plan exactly.

Serving: replicas are independent, so the pool serves the sum of each type's replicas (every GPU of each type,
the users split in proportion to what each type serves); with one replica down the pool keeps the sum less its
largest replica, held against the target.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from planner import perf
from planner.errors import UserError
from planner.gpus import GpuSpec
from planner.messages import msg
from planner.models import ModelSpec
from planner.money import Money
from planner.scale import checkpoint_cost, failure_rate, goodput, storage
from planner.search.plan import plan
from planner.search.types import Constraints, PlanOption, Workload


@dataclass(frozen=True, slots=True)
class PoolPart:
    """One GPU type of the pool and how many of them."""

    gpu: GpuSpec
    count: int


@dataclass(frozen=True, slots=True)
class PoolChoice:
    """One way to run the job on the pool: which GPUs, the failure-free throughput, the effective fraction, the
    wall time and cost with losses (None without tokens / prices), and the plans it rests on."""

    name: str  # "alone:<gpu id>" | "pool"
    gpus: Mapping[str, int]
    tokens_per_s: float
    effective_fraction: float
    wall_time_s: float | None
    cost: Money | None
    plans: tuple[PlanOption, ...]
    tp: int
    pp: int
    tokens_per_s_one_down: float | None = None  # serving: with the largest replica down
    meets_target_one_down: bool | None = None  # serving, with a tokens/s target
    meets_target: bool | None = None  # serving, with a tokens/s target

    @property
    def useful_tokens_per_s(self) -> float:
        return self.tokens_per_s * self.effective_fraction

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name, "gpus": dict(self.gpus), "tokens_per_s": self.tokens_per_s,
            "effective_fraction": self.effective_fraction, "wall_time_s": self.wall_time_s,
            "cost": self.cost.as_dict() if self.cost is not None else None, "tp": self.tp, "pp": self.pp,
            "strategies": {option.gpu.id: option.layout.as_dict() for option in self.plans},
            "tokens_per_s_one_down": self.tokens_per_s_one_down, "meets_target": self.meets_target,
            "meets_target_one_down": self.meets_target_one_down,
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class PoolComparison:
    """Every way that fits, fastest first (by useful tokens per second), the winner's name and why it wins."""

    choices: tuple[PoolChoice, ...]
    best: str
    reason: str
    perfect_sum_tokens_per_s: float  # the types' own throughputs added: no pooled job can beat it

    def as_dict(self) -> dict[str, object]:
        return {
            "choices": [choice.as_dict() for choice in self.choices],
            "best": self.best,
            "reason": self.reason,
            "perfect_sum_tokens_per_s": self.perfect_sum_tokens_per_s,
        }


def compare_pool(
    model: ModelSpec,
    workload: Workload,
    parts: Sequence[PoolPart],
    constraints: Constraints | None = None,
    *,
    prices: Mapping[str, Money] | None = None,
    calibration: Mapping[str, perf.Calibration] | None = None,
) -> PoolComparison:
    """Each type alone against the whole pool: one data-parallel job (training) or all replicas (serving)."""
    base = constraints or Constraints()
    parts = [part for part in parts if part.count > 0]
    if not parts:
        raise UserError.of(msg("error.gpus_positive"))
    prices, calibration = prices or {}, calibration or {}
    if not workload.is_training:
        return _serving_pool(model, workload, parts, base, prices, calibration)
    choices: list[PoolChoice] = []
    own: dict[str, PlanOption] = {}
    for part in parts:
        limits = replace(base, max_gpus=part.count, gpus=None)
        result = plan(model, workload, part.gpu, limits, prices=prices, calibration=calibration, top=1)
        if result.options:
            option = own[part.gpu.id] = result.options[0]
            choices.append(_alone(option))
    if len(parts) > 1:
        pooled = _best_pooled(model, workload, parts, base, prices, calibration, own)
        if pooled is not None:
            choices.append(pooled)
    if not choices:
        return PoolComparison((), "", "nothing fits on any type of the pool", 0.0)
    choices.sort(key=lambda choice: -choice.useful_tokens_per_s)
    perfect = sum(option.tokens_per_s for option in own.values())
    return PoolComparison(tuple(choices), choices[0].name, _reason(choices), perfect)


def _alone(option: PlanOption) -> PoolChoice:
    return PoolChoice(
        f"alone:{option.gpu.id}", {option.gpu.id: option.gpus}, option.tokens_per_s, option.effective_fraction,
        option.effective_wall_time_s, option.effective_cost, (option,), option.layout.tp, option.layout.pp,
    )  # fmt: skip


def _serving_pool(
    model: ModelSpec,
    workload: Workload,
    parts: Sequence[PoolPart],
    base: Constraints,
    prices: Mapping[str, Money],
    calibration: Mapping[str, perf.Calibration],
) -> PoolComparison:
    """Each type's replicas alone against all of them together (the users split by what each type serves). The
    target is held against each way afterwards: a type that cannot reach it alone still shows what it serves."""
    open_load = replace(workload, tokens_per_second=None)
    alone: dict[str, PlanOption] = {}
    for part in parts:
        option = _most_served(model, open_load, part.gpu, replace(base, max_gpus=part.count, gpus=None), prices,
                              calibration)  # fmt: skip
        if option is not None:
            alone[part.gpu.id] = option
    choices = [_served(workload, (option,), "alone:" + option.gpu.id) for option in alone.values()]
    if len(parts) > 1:
        pooled = _pooled_replicas(model, open_load, parts, base, prices, calibration)
        if pooled is not None:
            choices.append(_served(workload, pooled, "pool"))
    if not choices:
        return PoolComparison((), "", "nothing fits on any type of the pool", 0.0)
    choices.sort(key=lambda choice: -choice.tokens_per_s)
    # replicas are independent: the pool serves exactly the sum of its replicas
    perfect = max(choice.tokens_per_s for choice in choices)
    return PoolComparison(tuple(choices), choices[0].name, _serving_reason(choices), perfect)


def _most_served(
    model: ModelSpec,
    workload: Workload,
    gpu: GpuSpec,
    limits: Constraints,
    prices: Mapping[str, Money],
    calibration: Mapping[str, perf.Calibration],
) -> PlanOption | None:
    """The option that serves the most output tokens per second (the search ranks serving by time per token)."""
    result = plan(model, workload, gpu, limits, prices=prices, calibration=calibration, top=1000)
    return max(result.options, key=lambda option: option.tokens_per_s, default=None)


def _pooled_replicas(
    model: ModelSpec,
    workload: Workload,
    parts: Sequence[PoolPart],
    base: Constraints,
    prices: Mapping[str, Money],
    calibration: Mapping[str, perf.Calibration],
) -> tuple[PlanOption, ...] | None:
    """Every GPU of every type as replicas; with stated users, a first pass gives each type's share."""

    def serve(users: Mapping[str, int | None]) -> tuple[PlanOption, ...] | None:
        plans = []
        for part in parts:
            share = replace(workload, concurrent_users=users[part.gpu.id])
            option = _most_served(model, share, part.gpu, replace(base, gpus=part.count), prices, calibration)
            if option is None:
                return None
            plans.append(option)
        return tuple(plans)

    users = workload.concurrent_users
    plans = serve({part.gpu.id: users for part in parts})
    if plans is None or not users:
        return plans
    total = sum(option.tokens_per_s for option in plans)
    return serve({option.gpu.id: max(1, math.ceil(users * option.tokens_per_s / total)) for option in plans})


def _served(workload: Workload, plans: Sequence[PlanOption], name: str) -> PoolChoice:
    """A serving way: the replicas' tokens/s added up, and with the largest replica down, against the target."""
    tokens_per_s = sum(option.tokens_per_s for option in plans)
    largest = max(option.tokens_per_s / max(1, option.layout.dp) for option in plans)
    one_down = tokens_per_s - largest
    expected = sum(o.replica_failure.expected_tokens_per_s if o.replica_failure else o.tokens_per_s for o in plans)
    target = workload.tokens_per_second
    wall = workload.tokens / tokens_per_s if workload.tokens else None
    return PoolChoice(
        name, {option.gpu.id: option.gpus for option in plans}, tokens_per_s, expected / tokens_per_s, wall,
        _pool_cost(plans, wall),
        tuple(plans), plans[0].layout.tp, plans[0].layout.pp, one_down,
        None if target is None else one_down >= target, None if target is None else tokens_per_s >= target,
    )  # fmt: skip


def _best_pooled(
    model: ModelSpec,
    workload: Workload,
    parts: Sequence[PoolPart],
    base: Constraints,
    prices: Mapping[str, Money],
    calibration: Mapping[str, perf.Calibration],
    own: Mapping[str, PlanOption],
) -> PoolChoice | None:
    """The fastest pooled job over the shapes and shardings (tp, pp, ZeRO stage, offload) the types' own plans
    chose. Each type's memory is checked at its own dp, which shards ZeRO states over fewer ranks than the whole
    pool does: conservative."""
    shapes = sorted({(o.layout.tp, o.layout.pp, int(o.layout.zero), str(o.layout.offload)) for o in own.values()})
    best: PoolChoice | None = None
    for tp, pp, zero, offload in shapes:
        plans = []
        for part in parts:
            pinned = {**base.pinned, "tp": tp, "pp": pp, "zero": zero, "offload": offload}
            limits = replace(base, gpus=part.count, pinned=pinned)
            result = plan(model, workload, part.gpu, limits, prices=prices, calibration=calibration, top=1)
            if not result.options:
                break  # this shape does not fit (or divide) on one of the types
            plans.append(result.options[0])
        else:
            choice = pooled_choice(plans, workload, base)
            if best is None or choice.useful_tokens_per_s > best.useful_tokens_per_s:
                best = choice
    return best


def pooled_choice(plans: Sequence[PlanOption], workload: Workload, base: Constraints) -> PoolChoice:
    """One data-parallel job over every type's plan (same tp x pp): the batch split by compute rate, the
    gradient synchronisation at the slowest type's pace, failures of every GPU, the checkpoint written by all."""
    tokens_per_step = workload.tokens_per_step
    rates = []
    sync = 0.0
    for option in plans:
        dp_s = option.time_breakdown.get("dp_comm_s", 0.0)
        compute_s = option.step_time_s - dp_s
        rates.append(tokens_per_step / compute_s)
        sync = max(sync, dp_s)
    step_s = tokens_per_step / sum(rates) + sync
    tokens_per_s = tokens_per_step / step_s
    gpus = sum(option.gpus for option in plans)
    fraction = _pool_fraction(plans, base, gpus)
    wall = workload.tokens / (tokens_per_s * fraction) if workload.tokens else None
    cost = _pool_cost(plans, wall)
    first = plans[0].layout
    return PoolChoice("pool", {option.gpu.id: option.gpus for option in plans}, tokens_per_s, fraction, wall, cost,
                      tuple(plans), first.tp, first.pp)  # fmt: skip


def _pool_fraction(plans: Sequence[PlanOption], base: Constraints, gpus: int) -> float:
    """Effective time of the pooled job: every GPU's failures stop it; all ranks write the checkpoint."""
    terms = [option.goodput for option in plans if option.goodput is not None]
    if not terms:
        return 1.0
    resilience = base.resilience
    failures = sum(failure_rate(option.gpu, resilience.failures_per_gpu_hour).per_gpu_hour * option.gpus
                   for option in plans)  # fmt: skip
    spot = sum(term.spot_interruptions_per_hour for term in terms)
    where = storage(resilience.storage, resilience.checkpoint_bytes_per_s_per_gpu)
    cost = checkpoint_cost(terms[0].checkpoint.bytes, gpus, where, resilience.restart_s)
    interval = resilience.checkpoint_interval_s
    return goodput(cost, failures, "pool", spot_interruptions_per_hour=spot, interval_s=interval).effective_fraction


def _pool_cost(plans: Sequence[PlanOption], wall_s: float | None) -> Money | None:
    """Every GPU of the pool billed for the whole wall time (None without a price for every type)."""
    if wall_s is None or any(option.cost is None or option.gpu_hours is None for option in plans):
        return None
    total: Money | None = None
    for option in plans:
        assert option.cost is not None and option.gpu_hours  # checked above
        per_gpu_hour = option.cost * (1 / option.gpu_hours)
        part = per_gpu_hour * (option.gpus * wall_s / 3600)
        if total is not None and part.currency != total.currency:
            return None
        total = part if total is None else Money(total.amount + part.amount, total.currency)
    return total


def _reason(choices: Sequence[PoolChoice]) -> str:
    """Why the first choice wins, in one sentence with the figures."""
    best, runner = choices[0], choices[1] if len(choices) > 1 else None
    if runner is None:
        return f"{best.name} is the only way that fits"
    speedup = best.useful_tokens_per_s / runner.useful_tokens_per_s
    if best.name == "pool":
        return (f"the whole pool is {speedup:.2f}x faster than {runner.name.split(':', 1)[1]} alone: the extra GPUs "
                "bring more than the gradient sync at the slower pace costs")  # fmt: skip
    if runner.name == "pool":
        return (f"{best.name.split(':', 1)[1]} alone is {speedup:.2f}x faster than the whole pool: the pool's "
                "common layout and gradient sync at the slower pace cost more than its extra GPUs bring; the other "
                "GPUs stay free for separate jobs")  # fmt: skip
    return f"{best.name.split(':', 1)[1]} alone is {speedup:.2f}x faster than {runner.name.split(':', 1)[1]} alone"


def _serving_reason(choices: Sequence[PoolChoice]) -> str:
    """Why the first serving way wins: it serves the most, and what it keeps with its largest replica down."""
    best = choices[0]
    kept = f"; with its largest replica down it serves {best.tokens_per_s_one_down:,.0f} tokens/s"
    if best.meets_target_one_down is not None:
        kept += ", enough for the target" if best.meets_target_one_down else ", short of the target"
    if len(choices) == 1:
        return f"{best.name} is the only way that fits{kept}"
    runner = choices[1]
    return f"{best.name} serves {best.tokens_per_s / runner.tokens_per_s:.2f}x what {runner.name} does{kept}"
