"""One training job as a pipeline over a mixed GPU pool: its stages run on different GPU types, each type's
stages holding layers in proportion to its speed (issue 18's "pipeline stages sized to each type's speed").

The shape: tp GPUs of one type per stage, dp copies of the whole pipeline, so a type with n GPUs holds
n // (dp x tp) stages (a type's stages sit next to each other; every order of the types is tried). The layers are
split over the stages by the same time model that plans one type (planner.perf.StepModel.stage_time): one
layer more at a time to the stage whose micro-batch would then take least (the LM head and the loss count on the
last stage), which gives each stage as many layers as its speed allows, in integers, and the smallest slowest
stage an integer split can have (for costs that grow with the layers, adding where the maximum stays lowest is
optimal). Each stage's memory is then checked on its own GPU type (planner.memory.stage_total_bytes): its
layers, the embedding on the first stage, the LM head and logits on the last, and the micro-batches the 1F1B
schedule keeps in flight there (min(p, m) on the first stage, p - i on stage i). A shape whose split by speed
overflows a stage is split again with each stage capped at the layers its GPU's memory holds there.

One step of m micro-batches (1F1B, Narayanan et al. 2021, arXiv 2104.04473, section 2.2): the slowest stage
sets the pace, m x max_s(t_s), and a micro-batch passing through the other stages once fills and drains the
pipeline, sum_s(t_s) - max_s(t_s) (for equal stages (p - 1) t, the usual bubble); each boundary's send of the
boundary activations (and their gradients back) lies on the fill-and-drain path twice, between two types at
the slower of their links (the network: different types sit in different servers), and a boundary whose send
takes longer than the slowest stage sets the pace instead; then the slowest stage's exposed gradient all-reduce
over dp and its optimizer step. One stage holding the whole model is StepModel's own step of that layout (a
test); equal stages give 1F1B's (p - 1) micro-batch times of bubble.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from planner import perf
from planner.errors import UserError
from planner.gpus import GpuSpec
from planner.memory import MemoryConfig, Stage, StageTotals, split_stages
from planner.messages import Message, msg
from planner.models import ModelSpec, param_counts
from planner.search.common import SearchMemory, job_checkpoint_bytes
from planner.search.enumeration import MAX_PIPELINE, MICRO_BATCHES, allowed, pinned_count, powers_of_two
from planner.search.types import Constraints, Workload
from planner.vocabulary import Layout, Recompute, ZeroStage


@dataclass(frozen=True, slots=True)
class PipelineStage:
    """One stage of the pipeline: its GPU type, its layers, its seconds per micro-batch, its bytes per GPU."""

    index: int
    gpu_id: str
    layers: int
    has_embedding: bool
    has_head: bool
    microbatch_s: float
    need_bytes: int
    capacity_bytes: int

    @property
    def fits(self) -> bool:
        return self.need_bytes <= self.capacity_bytes

    def as_dict(self) -> dict[str, object]:
        return {
            "index": self.index, "gpu": self.gpu_id, "layers": self.layers, "embedding": self.has_embedding,
            "lm_head": self.has_head, "microbatch_s": self.microbatch_s, "need_bytes": self.need_bytes,
            "capacity_bytes": self.capacity_bytes, "fits": self.fits,
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class PipelinePlan:
    """A pipeline over the pool: the layout (pp = stages), every stage, and the step's seconds by cause."""

    layout: Layout
    stages: tuple[PipelineStage, ...]
    gpus: Mapping[str, int]  # GPUs used per type: dp x tp x its stages
    microbatches: int
    tokens_per_step: int
    pace_s: float  # per micro-batch: the slowest stage, or a boundary send slower than it
    bubble_s: float  # fill and drain: the other stages' micro-batch times
    p2p_s: float  # the boundary sends on the fill-and-drain path
    boundary_send_s: float  # the slowest boundary's one send (between types: at the slower link)
    dp_comm_s: float
    optimizer_s: float
    checkpoint_bytes: int

    @property
    def step_time_s(self) -> float:
        return (
            self.microbatches * self.pace_s + self.bubble_s + self.p2p_s + self.dp_comm_s + self.optimizer_s
        )

    @property
    def tokens_per_s(self) -> float:
        return self.tokens_per_step / self.step_time_s

    @property
    def fits(self) -> bool:
        return all(stage.fits for stage in self.stages)

    def worst_stage(self) -> PipelineStage:
        """The stage nearest to (or furthest over) its GPU's memory."""
        return max(self.stages, key=lambda stage: stage.need_bytes / stage.capacity_bytes)

    def as_dict(self) -> dict[str, object]:
        return {
            "layout": self.layout.as_dict(), "stages": [stage.as_dict() for stage in self.stages],
            "microbatches": self.microbatches, "step_time_s": self.step_time_s, "pace_s": self.pace_s,
            "bubble_s": self.bubble_s, "p2p_s": self.p2p_s, "boundary_send_s": self.boundary_send_s,
            "dp_comm_s": self.dp_comm_s, "optimizer_s": self.optimizer_s,
        }  # fmt: skip


def assign_layers(
    layers: int, stage_cost: Callable[[int, int], float], stages: int, most: Sequence[int] | None = None
) -> tuple[int, ...] | None:
    """Integer layers per stage (at least one each, `layers` in all) that keep the slowest stage fastest:
    stage_cost(stage, n) is the stage's seconds with n layers (nondecreasing in n); one layer at a time goes to
    the stage whose cost with it is lowest (the earlier stage on a tie). most: at most that many layers on each
    stage (what its memory holds); None when those caps cannot hold every layer."""
    if not 1 <= stages <= layers:
        raise ValueError(f"{stages} stages cannot each hold one of {layers} layers")
    limits = list(most) if most is not None else [layers] * stages
    if min(limits) < 1 or sum(limits) < layers:
        return None
    counts = [1] * stages
    heap = [(stage_cost(s, 2), s) for s in range(stages) if limits[s] > 1]
    heapq.heapify(heap)
    for _ in range(layers - stages):
        _, s = heapq.heappop(heap)
        counts[s] += 1
        if counts[s] < limits[s]:
            heapq.heappush(heap, (stage_cost(s, counts[s] + 1), s))
    return tuple(counts)


@dataclass(frozen=True, slots=True)
class _Type:
    """One GPU type of the pool in the pipeline search: its count, its time model and usable memory."""

    gpu: GpuSpec
    count: int
    steps: perf.StepModel
    capacity_bytes: int


@dataclass(frozen=True, slots=True)
class _Candidate:
    """A pipeline before its memory is checked: the layout, the type of each stage and the layers of each."""

    layout: Layout
    types: tuple[_Type, ...]
    layer_counts: tuple[int, ...]
    times: tuple[perf.StageTime, ...]
    sends: tuple[float, ...]
    microbatches: int
    tokens_per_step: int
    paces: Mapping[str, tuple[float, float]]  # per type: seconds per layer and of the LM head (_paces)

    @property
    def seconds_per_token(self) -> float:
        return self.step_time_s / self.tokens_per_step

    @property
    def pace_s(self) -> float:
        return max(max(t.microbatch_s for t in self.times), max(self.sends, default=0.0))

    @property
    def step_time_s(self) -> float:
        busy = [t.microbatch_s for t in self.times]
        return (self.microbatches * self.pace_s + sum(busy) - max(busy) + 2 * sum(self.sends)
                + max(t.dp_comm_s for t in self.times) + max(t.optimizer_s for t in self.times))  # fmt: skip


def best_pipeline(
    model: ModelSpec,
    workload: Workload,
    parts: Sequence[tuple[GpuSpec, int]],
    base: Constraints,
    calibration: Mapping[str, perf.Calibration],
) -> tuple[PipelinePlan | None, Message | None]:
    """The fastest pipeline over the pool's types that fits, or (None, why none does)."""
    numbers = perf.model_numbers(model, workload.lora_rank)
    types = [_type(numbers, workload, gpu, count, base, calibration) for gpu, count in parts]
    candidates = sorted(_candidates(model, workload, numbers, types, base), key=lambda c: c.seconds_per_token)
    if not candidates:
        return None, msg("pool.pipeline.no_shape", limit=min(model.layers, MAX_PIPELINE))
    memory = _StageMemory(model, workload)
    best: PipelinePlan | None = None
    unfit: list[tuple[_Candidate, PipelinePlan]] = []
    for candidate in candidates:
        checked = _checked(model, workload, numbers, memory, candidate)
        if checked.fits:
            best = checked
            break
        unfit.append((candidate, checked))
    # the faster shapes whose split by speed overflows a stage but whose stages hold all they need together:
    # split again within each stage's memory (slower than by speed alone, so only while the split by speed could
    # still beat the best that fits)
    roomy = [candidate for candidate, plan in unfit if _room_left(plan)]
    for candidate in roomy[:RESPLIT_LIMIT]:
        if best is not None and candidate.seconds_per_token >= best.step_time_s / best.tokens_per_step:
            break
        resplit = _within_memory(model, workload, numbers, memory, candidate)
        within = _checked(model, workload, numbers, memory, resplit) if resplit is not None else None
        if within is not None and within.fits and (best is None or within.tokens_per_s > best.tokens_per_s):
            best = within
    if best is not None:
        return best, None
    closest = min((plan for _, plan in unfit), key=_overflow)
    stage = closest.worst_stage()
    return None, msg(
        "pool.pipeline.stage_too_big", stage=stage.index + 1, gpu=stage.gpu_id, layers=stage.layers,
        need_bytes=stage.need_bytes, capacity_bytes=stage.capacity_bytes, strategy=closest.layout,
    )  # fmt: skip


def ideal_tokens_per_s(
    model: ModelSpec,
    workload: Workload,
    gpu: GpuSpec,
    count: int,
    base: Constraints,
    calibration: Mapping[str, perf.Calibration],
) -> float:
    """`count` GPUs of one type run perfectly: every group of tp GPUs doing nothing but the decoder layers'
    micro-batches at the type's fastest pace per layer over the tensor-parallel sizes and micro-batches searched
    (no bubble, no data-parallel traffic, no LM head or optimizer step, no memory limit). No plan on these GPUs
    beats it, and no pipeline over several types beats the types' figures added up: each stage of type i holds
    its layers at type i's pace, so the pipeline's pace is at least every type's share of the layers at its
    own pace (a weighted mean of the types' ideal rates)."""
    numbers = perf.model_numbers(model, workload.lora_rank)
    kind = _type(numbers, workload, gpu, count, base, calibration)
    per_node = base.gpus_per_node or gpu.gpus_per_node
    best = 0.0
    for tp in (t for t in powers_of_two(min(per_node, count)) if model.heads % t == 0):
        for micro_batch in MICRO_BATCHES:
            layout = Layout(tp=tp, micro_batch=micro_batch)
            seconds = [kind.steps.stage_time(layout, 1, 0, False, 0).microbatch_s]
            if model.moe_layers:
                seconds.append(kind.steps.stage_time(layout, 0, 1, False, 0).microbatch_s)
            best = max(best, (count // tp) * micro_batch * workload.seq_len / (model.layers * min(seconds)))
    return best


# Shapes split again within memory when their split by speed overflows a stage, fastest first: each costs a
# binary search over every stage's layers in the memory model; a search budget, not a model constant.
RESPLIT_LIMIT = 48


class _StageMemory:
    """planner.memory.StageTotals per layout and in-flight count (the search's memory configuration)."""

    def __init__(self, model: ModelSpec, workload: Workload):
        self._model = model
        self._memory = SearchMemory(model, workload)
        self._totals: dict[tuple[Layout, int], StageTotals | None] = {}

    def totals(self, layout: Layout, inflight: int) -> StageTotals | None:
        """None for a layout the memory model refuses (tp over the heads): it never fits."""
        key = (layout, inflight)
        if key not in self._totals:
            config = dataclasses.replace(self._memory.config(layout), inflight_microbatches=inflight)
            try:
                self._totals[key] = StageTotals(self._model, config)
            except UserError:
                self._totals[key] = None
        return self._totals[key]

    def config(self, layout: Layout) -> MemoryConfig:
        return self._memory.config(layout)


def _within_memory(
    model: ModelSpec,
    workload: Workload,
    numbers: perf.ModelNumbers,
    memory: _StageMemory,
    candidate: _Candidate,
) -> _Candidate | None:
    """The candidate split again with each stage at most the layers its GPU's memory holds there (None when
    the stages cannot hold the model)."""
    layout, placed = candidate.layout, candidate.types
    totals = memory.totals(layout, min(layout.pp, candidate.microbatches))
    if totals is None:
        return None
    last = len(placed) - 1

    def need(index: int, layers: int) -> int:
        moe = (
            layers if model.moe_layers else 0
        )  # an MoE model's stage counted as MoE layers: the heavier kind
        return totals.total(Stage(index, layers - moe, moe, index == 0, index == last))

    most = []
    for index, kind in enumerate(placed):
        low, high = 0, model.layers - last  # the largest count that fits (the bytes grow with the layers)
        while low < high:
            middle = (low + high + 1) // 2
            low, high = (middle, high) if need(index, middle) <= kind.capacity_bytes else (low, middle - 1)
        most.append(low)
    return _timed(model, workload, numbers, layout, placed, candidate.microbatches, candidate.paces, most)


def _room_left(found: PipelinePlan) -> bool:
    """Whether the stages' memory together holds what they need together (a split within memory may fit)."""
    return sum(stage.need_bytes for stage in found.stages) <= sum(
        stage.capacity_bytes for stage in found.stages
    )


def _overflow(found: PipelinePlan) -> float:
    stage = found.worst_stage()
    return stage.need_bytes / stage.capacity_bytes


def _type(
    numbers: perf.ModelNumbers,
    workload: Workload,
    gpu: GpuSpec,
    count: int,
    base: Constraints,
    calibration: Mapping[str, perf.Calibration],
) -> _Type:
    rates = perf.device_rates(gpu, workload.precision, mfu=workload.mfu, bandwidth_fraction=workload.bandwidth_fraction,
                              calibration=calibration.get(gpu.id))  # fmt: skip
    options = perf.TrainingOptions(
        optimizer=str(workload.optimizer),
        lora_rank=workload.lora_rank,
        runtime=str(workload.runtime or "auto"),
    )
    steps = perf.StepModel(
        numbers, gpu, seq_len=workload.seq_len,
        global_batch=workload.global_batch, rates=rates, task=workload.task, precision=workload.precision,
        comm_overlap=workload.comm_overlap, gpus_per_node=base.gpus_per_node,
        inter_node_bytes_per_s=base.inter_node_bytes_per_s, options=options,
    )  # fmt: skip
    return _Type(gpu, count, steps, base.usable_bytes(gpu))


def _candidates(
    model: ModelSpec,
    workload: Workload,
    numbers: perf.ModelNumbers,
    types: Sequence[_Type],
    base: Constraints,
) -> list[_Candidate]:
    """Every shape (tp, dp, micro-batch, recompute mode, order of the types) that gives each type a stage, timed
    with its layers sized to speed. Pipeline parallel runs with ZeRO stage 0 or 1 (planner.search.training): ZeRO-1
    (the distributed optimizer) wherever dp > 1."""
    pinned = base.pinned
    per_node = min(base.gpus_per_node or t.gpu.gpus_per_node for t in types)
    tps = allowed("tp", [t for t in powers_of_two(per_node) if model.heads % t == 0], pinned, pinned_count)
    deepest = min(model.layers, MAX_PIPELINE)
    found = []
    for tp in tps:
        for dp in allowed("dp", powers_of_two(max(t.count for t in types) // tp), pinned, pinned_count):
            stages = [t.count // (dp * tp) for t in types]
            if min(stages) < 1 or not 2 <= sum(stages) <= deepest:
                continue
            for micro_batch in allowed("micro_batch", MICRO_BATCHES, pinned, pinned_count):
                microbatches = workload.global_batch // (dp * micro_batch)
                if microbatches < 1:
                    continue
                for recompute in allowed("recompute", tuple(Recompute), pinned, Recompute.parse):
                    layout = Layout(dp=dp, tp=tp, pp=sum(stages), zero=ZeroStage(int(dp > 1)), recompute=recompute,
                                    micro_batch=micro_batch)  # fmt: skip
                    paces = {kind.gpu.id: _paces(model, layout, kind) for kind in types}
                    for order in itertools.permutations(range(len(types))):
                        placed = tuple(types[i] for i in order for _ in range(stages[i]))
                        timed = _timed(model, workload, numbers, layout, placed, microbatches, paces)
                        assert timed is not None  # no caps: every split holds the model
                        found.append(timed)
    return found


def _timed(
    model: ModelSpec,
    workload: Workload,
    numbers: perf.ModelNumbers,
    layout: Layout,
    placed: tuple[_Type, ...],
    microbatches: int,
    paces: Mapping[str, tuple[float, float]],
    most: Sequence[int] | None = None,
) -> _Candidate | None:
    """The candidate with its layers sized to each stage's speed (paces: _paces of each type; most: each
    stage's cap, _within_memory), and its times; None when the caps cannot hold the model."""
    last = len(placed) - 1

    def cost(stage: int, layers: int) -> float:
        per_layer, head = paces[placed[stage].gpu.id]
        return layers * per_layer + (head if stage == last else 0.0)

    layer_counts = assign_layers(model.layers, cost, len(placed), most)
    if layer_counts is None:
        return None
    stages = split_stages(model, layer_counts)
    timed: dict[tuple[object, ...], perf.StageTime] = {}  # a type's stages mostly hold the same layers
    for kind, stage in zip(placed, stages, strict=True):
        key = (kind.gpu.id, stage.dense_layers, stage.moe_layers, stage.has_head, stage.has_embedding)
        if key not in timed:
            trainable = _trainable_params(model, workload, numbers, stage)
            timed[key] = kind.steps.stage_time(
                layout, stage.dense_layers, stage.moe_layers, stage.has_head, trainable
            )
    times = tuple(timed[(kind.gpu.id, stage.dense_layers, stage.moe_layers, stage.has_head, stage.has_embedding)]
                  for kind, stage in zip(placed, stages, strict=True))  # fmt: skip
    sent: dict[tuple[str, str], float] = {}
    for before, after in itertools.pairwise(placed):
        if (before.gpu.id, after.gpu.id) not in sent:
            sent[(before.gpu.id, after.gpu.id)] = _send_s(layout, before, after)
    sends = tuple(sent[(before.gpu.id, after.gpu.id)] for before, after in itertools.pairwise(placed))
    tokens = layout.dp * layout.micro_batch * microbatches * workload.seq_len
    return _Candidate(layout, placed, layer_counts, times, sends, microbatches, tokens, paces)


def _paces(model: ModelSpec, layout: Layout, kind: _Type) -> tuple[float, float]:
    """(seconds of one micro-batch per decoder layer, of the LM head and loss) on one type: a stage's time is
    linear in its layers (planner.perf.StepModel.stage_time); an MoE model's layers at their mean."""
    layer = kind.steps.stage_time(layout, 1, 0, False, 0).microbatch_s
    if model.moe_layers:
        moe_share = model.moe_layers / model.layers
        moe = kind.steps.stage_time(layout, 0, 1, False, 0).microbatch_s
        layer = (1 - moe_share) * layer + moe_share * moe
    return layer, kind.steps.stage_time(layout, 0, 0, True, 0).microbatch_s


def _send_s(layout: Layout, before: _Type, after: _Type) -> float:
    """One boundary send: inside one type at its own link; between two types over the network, at the slower."""
    if before.gpu.id == after.gpu.id:
        return before.steps.p2p_send_s(layout)
    return max(
        before.steps.p2p_send_s(layout, across_nodes=True), after.steps.p2p_send_s(layout, across_nodes=True)
    )


def _trainable_params(
    model: ModelSpec, workload: Workload, numbers: perf.ModelNumbers, stage: Stage
) -> float:
    """The parameters whose gradients the stage reduces over dp (all its tp ranks together)."""
    if workload.task.is_adapter:
        return numbers.lora_params * stage.layers / model.layers
    counts = param_counts(model)
    params = stage.dense_layers * counts.dense_layer + stage.moe_layers * counts.moe_layer
    if stage.has_embedding:
        params += counts.embedding
    if stage.has_head:
        params += counts.final_norm + counts.lm_head
    return float(params)


def _checked(
    model: ModelSpec,
    workload: Workload,
    numbers: perf.ModelNumbers,
    memory: _StageMemory,
    candidate: _Candidate,
) -> PipelinePlan:
    """The candidate with each stage's bytes per GPU on its own type (the micro-batches 1F1B keeps in flight:
    min(p, m) on the first stage, p - i on stage i)."""
    layout = candidate.layout
    totals = memory.totals(layout, min(layout.pp, candidate.microbatches))
    stages = []
    for kind, stage, timed in zip(candidate.types, split_stages(model, candidate.layer_counts), candidate.times,
                                  strict=True):  # fmt: skip
        need = totals.total(stage) if totals is not None else 2**62  # a refused layout never fits
        stages.append(PipelineStage(stage.index, kind.gpu.id, stage.layers, stage.has_embedding, stage.has_head,
                                    timed.microbatch_s, need, kind.capacity_bytes))  # fmt: skip
    gpus: dict[str, int] = {}
    for kind in candidate.types:
        gpus[kind.gpu.id] = gpus.get(kind.gpu.id, 0) + layout.dp * layout.tp
    busy = [t.microbatch_s for t in candidate.times]
    return PipelinePlan(
        layout=layout, stages=tuple(stages), gpus=gpus, microbatches=candidate.microbatches,
        tokens_per_step=candidate.tokens_per_step, pace_s=candidate.pace_s, bubble_s=sum(busy) - max(busy),
        p2p_s=2 * sum(candidate.sends), boundary_send_s=max(candidate.sends, default=0.0),
        dp_comm_s=max(t.dp_comm_s for t in candidate.times), optimizer_s=max(t.optimizer_s for t in candidate.times),
        checkpoint_bytes=job_checkpoint_bytes(workload, numbers, memory.config(layout)),
    )  # fmt: skip
