"""Mixed GPU pools: one training job on what the user has (say 64 x A100 80GB + 32 x H100), compared four ways;
and serving replicas spread over the pool.

- each type alone: the fastest plan on at most that many GPUs of one type (the rest stays idle);
- separate jobs: every type runs its own job at its own plan: the pool's throughput is the sum of the types'
  own, but one run goes at its own job's pace (the fastest type alone), so it ranks as that;
- a pipeline over the types (planner.search.pool_pipeline): stages on different types, each type's stages
  holding layers in proportion to its speed, each stage's memory checked on its own type, the step set by the
  slowest stage plus the bubble, the activations between types sent at the slower link;
- the whole pool as one data-parallel job: every type runs the same model-parallel shape and sharding (tp x pp,
  ZeRO stage and offload, so the gradient and optimizer shards line up), each type's memory is checked on its own plan, the global batch is split in proportion
  to each type's compute rate (more gradient-accumulation steps on the faster type, the same micro-batch, so the
  memory per GPU is the one planned), and the gradient synchronisation runs at the slowest type's pace;
- the winner, with the reason it wins.

One step of the pooled job: B / sum(r_i) + max(d_i), where r_i is type i's tokens per second of compute alone
(its planned step without the data-parallel communication d_i) and B the tokens per step. Its throughput never
beats the sum of the types' own throughputs: with conductances c_i = r_i / B, B / (1 / sum c_i + D) <=
sum B / (1 / c_i + D) because x / (1 + D x) is concave and 0 at 0 (subadditive), and each type's own d_i <= D.
With one type it is that type's own plan exactly. The pipeline obeys the same bound (every stage of type i
does at most its share of the layers at type i's own per-layer pace), and with one type there is no mixed way:
the comparison is that type's plan alone.

Serving: replicas are independent, so the pool serves the sum of each type's replicas (every GPU of each type,
the users split in proportion to what each type serves); with one replica down the pool keeps the sum less its
largest replica, held against the target.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from planner import perf
from planner.errors import UserError
from planner.gpus import GpuSpec
from planner.messages import Message, msg
from planner.models import ModelSpec
from planner.money import Money
from planner.scale import checkpoint_cost, failure_rate, goodput, storage
from planner.search.plan import plan, precision_refusal
from planner.search.pool_pipeline import PipelinePlan, best_pipeline, ideal_tokens_per_s
from planner.search.types import Constraints, PlanOption, Workload

# The ways compare_pool may weigh: "alone" (each type; always), "pool", "pipeline", "separate". FIRST_WAYS are the
# rows of the first version, which callers that name rows by "pool" / "alone:<gpu id>" rely on; EVERY_WAY adds the
# pipeline over the types and separate jobs (the command line and the Plan page show every way).
FIRST_WAYS = ("alone", "pool")
# Below this ratio the reason says "x% faster" instead of "1.0Nx faster".
CLOSE_RACE_SPEEDUP = 1.1
EVERY_WAY = ("alone", "pool", "pipeline", "separate")


@dataclass(frozen=True, slots=True)
class PoolPart:
    """One GPU type of the pool and how many of them."""

    gpu: GpuSpec
    count: int


@dataclass(frozen=True, slots=True)
class PoolChoice:
    """One way to run the job on the pool: which GPUs, the failure-free throughput, the effective fraction, the
    wall time and cost with losses (None without tokens / prices), and the plans it rests on (each type's own
    for "alone", "pool" and "separate"; none for "pipeline", whose stages are in `pipeline`)."""

    name: str  # "alone:<gpu id>" | "pool" | "pipeline" | "separate"
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
    explanation: Message | None = None  # what this way does (pipeline, separate jobs)
    pipeline: PipelinePlan | None = None  # "pipeline": its layout, stages and step by cause
    aggregate_tokens_per_s: float | None = (
        None  # "separate": every type's job together (tokens_per_s: one run's)
    )

    @property
    def useful_tokens_per_s(self) -> float:
        return self.tokens_per_s * self.effective_fraction

    @property
    def label(self) -> Message:
        """The way's name for people: "{gpu} alone", "the whole pool", ..."""
        if self.name.startswith("alone:"):
            return msg("pool.name.alone", gpu=self.name.split(":", 1)[1])
        return msg(f"pool.name.{self.name}")

    def as_dict(self) -> dict[str, object]:
        strategies = {option.gpu.id: option.layout.as_dict() for option in self.plans}
        if self.pipeline is not None:
            strategies = {gpu_id: self.pipeline.layout.as_dict() for gpu_id in self.gpus}
        return {
            "name": self.name, "gpus": dict(self.gpus), "tokens_per_s": self.tokens_per_s,
            "effective_fraction": self.effective_fraction, "wall_time_s": self.wall_time_s,
            "cost": self.cost.as_dict() if self.cost is not None else None, "tp": self.tp, "pp": self.pp,
            "strategies": strategies,
            "tokens_per_s_one_down": self.tokens_per_s_one_down, "meets_target": self.meets_target,
            "meets_target_one_down": self.meets_target_one_down,
            "explanation": self.explanation.text if self.explanation is not None else None,
            "pipeline": self.pipeline.as_dict() if self.pipeline is not None else None,
            "aggregate_tokens_per_s": self.aggregate_tokens_per_s,
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class PoolMiss:
    """A mixed way that does not fit, and why (a planner.messages Message: "pool.pipeline.*")."""

    name: str
    reason: Message

    def as_dict(self) -> dict[str, object]:
        return {"name": self.name, "reason": self.reason.text, "reason_code": self.reason.code}


@dataclass(frozen=True, slots=True)
class PoolComparison:
    """Every way that fits, fastest first (by useful tokens per second), the winner's name and why it wins."""

    choices: tuple[PoolChoice, ...]
    best: str
    reason: (
        Message  # "pool.reason.*": said once, as the Message (the CLI prints its English, the GUI renders it)
    )
    perfect_sum_tokens_per_s: (
        float  # the types' own plans' throughputs added: no pooled data-parallel job beats it
    )
    # every type run perfectly (planner.search.pool_pipeline.ideal_tokens_per_s), added up: no mixed way beats it
    ideal_sum_tokens_per_s: float = 0.0
    not_fitting: tuple[PoolMiss, ...] = ()  # mixed ways that do not fit, with why

    def as_dict(self) -> dict[str, object]:
        return {
            "choices": [choice.as_dict() for choice in self.choices],
            "best": self.best,
            "reason": self.reason.text,
            "reason_code": self.reason.code,
            "perfect_sum_tokens_per_s": self.perfect_sum_tokens_per_s,
            "not_fitting": [miss.as_dict() for miss in self.not_fitting],
            "ideal_sum_tokens_per_s": self.ideal_sum_tokens_per_s,
        }


def compare_pool(
    model: ModelSpec,
    workload: Workload,
    parts: Sequence[PoolPart],
    constraints: Constraints | None = None,
    *,
    prices: Mapping[str, Money] | None = None,
    calibration: Mapping[str, perf.Calibration] | None = None,
    ways: Collection[str] = FIRST_WAYS,
) -> PoolComparison:
    """Each type alone against the whole pool: one data-parallel job and, with `ways` EVERY_WAY, a pipeline over
    the types and separate jobs (training), or all replicas (serving)."""
    unknown = set(ways) - set(EVERY_WAY)
    if unknown:
        raise ValueError(f"unknown pool ways {sorted(unknown)}; choose from {EVERY_WAY}")
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
    missing: list[PoolMiss] = []
    if len(parts) > 1:
        pooled = (
            _best_pooled(model, workload, parts, base, prices, calibration, own) if "pool" in ways else None
        )
        if pooled is not None:
            choices.append(pooled)
        if "pipeline" in ways:
            pipeline, why_not = _pipeline(model, workload, parts, base, prices, calibration)
            if pipeline is not None:
                choices.append(pipeline)
            if why_not is not None:
                missing.append(PoolMiss("pipeline", why_not))
        if "separate" in ways and len(own) > 1:
            choices.append(_separate(list(own.values())))
    if not choices:
        return PoolComparison((), "", msg("pool.reason.none_fits"), 0.0, not_fitting=tuple(missing))
    # a stable sort: separate jobs rank as their fastest job, right after that type alone
    choices.sort(key=lambda choice: -choice.useful_tokens_per_s)
    perfect = sum(option.tokens_per_s for option in own.values())
    ideal = sum(
        ideal_tokens_per_s(model, workload, part.gpu, part.count, base, calibration) for part in parts
    )
    reason = _reason(choices)
    return PoolComparison(tuple(choices), choices[0].name, reason, perfect, ideal_sum_tokens_per_s=ideal,
                          not_fitting=tuple(missing))  # fmt: skip


def _alone(option: PlanOption) -> PoolChoice:
    return PoolChoice(
        f"alone:{option.gpu.id}", {option.gpu.id: option.gpus}, option.tokens_per_s, option.effective_fraction,
        option.effective_wall_time_s, option.effective_cost, (option,), option.layout.tp, option.layout.pp,
    )  # fmt: skip


def _pipeline(
    model: ModelSpec,
    workload: Workload,
    parts: Sequence[PoolPart],
    base: Constraints,
    prices: Mapping[str, Money],
    calibration: Mapping[str, perf.Calibration],
) -> tuple[PoolChoice | None, Message | None]:
    """The pipeline over the types as a way to run the job, or why there is none."""
    for part in parts:
        refusal = precision_refusal(part.gpu, workload)
        if refusal is not None:
            return None, msg("pool.pipeline.precision", refusal=refusal)
    found, why_not = best_pipeline(
        model, workload, [(part.gpu, part.count) for part in parts], base, calibration
    )
    if found is None:
        return None, why_not
    catalog = {part.gpu.id: part.gpu for part in parts}
    used = [(catalog[gpu_id], count) for gpu_id, count in found.gpus.items()]
    fraction = _pool_fraction(used, found.checkpoint_bytes, base)
    wall = workload.tokens / (found.tokens_per_s * fraction) if workload.tokens else None
    cost = _billed(used, prices, wall)
    return PoolChoice(
        "pipeline", dict(found.gpus), found.tokens_per_s, fraction, wall, cost, (), found.layout.tp, found.layout.pp,
        explanation=_pipeline_words(found), pipeline=found,
    ), None  # fmt: skip


def _pipeline_words(found: PipelinePlan) -> Message:
    groups: list[Message] = []
    for gpu_id, stages in itertools.groupby(found.stages, key=lambda stage: stage.gpu_id):
        layers = [stage.layers for stage in stages]
        if min(layers) == max(layers):
            groups.append(msg("pool.way.stage_group", stages=len(layers), gpu=gpu_id, layers=layers[0]))
        else:
            groups.append(msg("pool.way.stage_group_range", stages=len(layers), gpu=gpu_id, fewest=min(layers),
                              most=max(layers)))  # fmt: skip
    return msg(
        "pool.way.pipeline", stages=len(found.stages), groups=tuple(groups), dp=found.layout.dp,
        microbatches=found.microbatches, pace_s=found.pace_s, bubble_percent=100 * _bubble_share(found),
        boundary_send_s=found.boundary_send_s,
    )  # fmt: skip


def _bubble_share(found: PipelinePlan) -> float:
    return (found.bubble_s + found.p2p_s) / found.step_time_s


def _separate(own: Sequence[PlanOption]) -> PoolChoice:
    """Every type its own job: the pool does the types' own throughputs together, one run its own job's."""
    fastest = max(own, key=lambda option: option.tokens_per_s * option.effective_fraction)
    together = sum(option.tokens_per_s for option in own)
    words = msg("pool.way.separate", aggregate_tokens_per_s=together, tokens_per_s=fastest.tokens_per_s,
                gpu=fastest.gpu.id)  # fmt: skip
    return PoolChoice(
        "separate", {option.gpu.id: option.gpus for option in own}, fastest.tokens_per_s,
        fastest.effective_fraction, fastest.effective_wall_time_s, fastest.effective_cost, tuple(own),
        fastest.layout.tp, fastest.layout.pp, explanation=words, aggregate_tokens_per_s=together,
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
        return PoolComparison((), "", msg("pool.reason.none_fits"), 0.0)
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
    expected = sum(
        o.replica_failure.expected_tokens_per_s if o.replica_failure else o.tokens_per_s for o in plans
    )
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
    shapes = sorted(
        {(o.layout.tp, o.layout.pp, int(o.layout.zero), str(o.layout.offload)) for o in own.values()}
    )
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
    terms = [option.goodput for option in plans if option.goodput is not None]
    used = [(option.gpu, option.gpus) for option in plans]
    fraction = _pool_fraction(used, terms[0].checkpoint.bytes, base) if terms else 1.0
    wall = workload.tokens / (tokens_per_s * fraction) if workload.tokens else None
    cost = _pool_cost(plans, wall)
    first = plans[0].layout
    return PoolChoice("pool", {option.gpu.id: option.gpus for option in plans}, tokens_per_s, fraction, wall, cost,
                      tuple(plans), first.tp, first.pp)  # fmt: skip


def _pool_fraction(used: Sequence[tuple[GpuSpec, int]], state_bytes: int, base: Constraints) -> float:
    """Effective time of one job over the pool (`used`: GPUs per type): every GPU's failures and, on spot,
    every node's reclaims stop it; all ranks write the `state_bytes` checkpoint (1.0 with failures off)."""
    resilience = base.resilience
    failures = sum(
        failure_rate(gpu, resilience.failures_per_gpu_hour).per_gpu_hour * count for gpu, count in used
    )
    nodes = sum(-(-count // (base.gpus_per_node or gpu.gpus_per_node)) for gpu, count in used)
    spot = resilience.spot_interruptions_per_node_hour * nodes
    if failures == 0 and spot == 0:
        return 1.0
    where = storage(resilience.storage, resilience.checkpoint_bytes_per_s_per_gpu)
    cost = checkpoint_cost(state_bytes, sum(count for _, count in used), where, resilience.restart_s)
    interval = resilience.checkpoint_interval_s
    return goodput(
        cost, failures, "pool", spot_interruptions_per_hour=spot, interval_s=interval
    ).effective_fraction


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


def _billed(
    used: Sequence[tuple[GpuSpec, int]], prices: Mapping[str, Money], wall_s: float | None
) -> Money | None:
    """Every GPU used billed for the whole wall time at its type's price (None without one for every type)."""
    if wall_s is None or any(gpu.id not in prices for gpu, _ in used):
        return None
    currencies = {prices[gpu.id].currency for gpu, _ in used}
    if len(currencies) > 1:
        return None
    amount = sum(prices[gpu.id].amount * count * wall_s / 3600 for gpu, count in used)
    return Money(amount, currencies.pop())


def _reason(choices: Sequence[PoolChoice]) -> Message:
    """Why the first choice wins, in one sentence with the figures: against the next way that is another run
    (separate jobs rank as their fastest type alone, the same run)."""
    best = choices[0]
    others = [
        c
        for c in choices[1:]
        if c.name != "separate" and not (best.name == "separate" and c.name.startswith("alone:"))
    ]
    if not others:
        return msg("pool.reason.only", way=best.label)
    runner = others[0]
    speedup = best.useful_tokens_per_s / runner.useful_tokens_per_s
    if best.name == "pool":
        why = msg("pool.why.pool")
    elif best.name == "pipeline":
        assert best.pipeline is not None
        why = msg("pool.why.pipeline", bubble_percent=100 * _bubble_share(best.pipeline))
    elif runner.name in ("pool", "pipeline"):
        why = msg(f"pool.why.alone_over_{runner.name}")
    else:
        why = msg("pool.why.faster_type")
    if speedup < CLOSE_RACE_SPEEDUP:  # "1.00x faster" says nothing: a close race is told in percent
        return msg("pool.reason.faster_by_percent", way=best.label, faster_percent=100 * (speedup - 1),
                   runner=runner.label, why=why)  # fmt: skip
    return msg("pool.reason.faster", way=best.label, speedup=speedup, runner=runner.label, why=why)


def _serving_reason(choices: Sequence[PoolChoice]) -> Message:
    """Why the first serving way wins: it serves the most, and what it keeps with its largest replica down."""
    best = choices[0]
    code = {None: "pool.kept", True: "pool.kept.enough", False: "pool.kept.short"}[best.meets_target_one_down]
    kept = msg(code, tokens_per_s=best.tokens_per_s_one_down or 0.0)
    if len(choices) == 1:
        return msg("pool.reason.serving_only", way=best.label, kept=kept)
    runner = choices[1]
    ratio = best.tokens_per_s / runner.tokens_per_s if runner.tokens_per_s > 0 else math.inf
    return msg("pool.reason.serving_more", way=best.label, ratio=ratio, runner=runner.label, kept=kept)
