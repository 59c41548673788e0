"""Training step time from operators: per layer and micro-batch the GEMMs at their real shapes, flash
attention, the memory-bound ops, recompute, the loss; per step the optimizer; the communication of every
parallel dimension with what compute hides of it; the pipeline schedule's bubble.

One micro-batch on one pipeline stage (the fullest: ceil(L / pp) layers, plus the LM head) takes

    forward      GEMMs + attention + memory-bound ops (+ the QLoRA dequantisation of the frozen weights)
    backward     2 x the forward GEMMs (activation and weight gradients; frozen weights: activations only),
                 2.5 x the attention FLOPs, 2 x the memory-bound traffic
    recompute    full: the forward again; selective: attention and the memory-bound ops again
    + exposed    tensor-parallel all-reduces (or reduce-scatter + all-gather with sequence parallel: the same
                 volume), expert all-to-alls, context-parallel KV exchange behind attention,
                 ZeRO-3 / FSDP all-gathers and reduce-scatters behind the micro-batch's compute

and the step is  micro-batches x that  +  the bubble ((p - 1) / v micro-batch times and the point-to-point
sends of fill and drain)  +  the exposed data-parallel gradient reduction (bucketed behind the last
micro-batch's backward)  +  the optimizer step (memory-bound, per shard)  +  offload transfers.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple

from planner.errors import UserError
from planner.gpus import GpuSpec
from planner.messages import msg
from planner.models import ModelSpec
from planner.perf import expert_parallel
from planner.perf.communication import (
    Link,
    allgather_time_s,
    allreduce_time_s,
    exposed_s,
    group_link,
)
from planner.perf.compute import (
    GemmWork,
    LayerGemmWork,
    LayerShape,
    WeightStorage,
    attention_backward_seconds,
    attention_forward_seconds,
    causal_attention_flops,
    gemm_seconds,
    layer_gemm_work,
    layer_gemms_seconds,
    layer_shape,
    sized_gemm_work,
    unfused_attention_seconds,
    work_seconds,
)
from planner.perf.efficiencies import (
    DEFAULT_INTER_NODE_BYTES_PER_S,
    LINK_EFFICIENCY,
    SHIPPED,
    DeviceRates,
    FittedConstants,
)
from planner.perf.flops import ModelNumbers, training_flops_per_token
from planner.perf.memory_ops import (
    BACKWARD_TRAFFIC,
    MEMORY_KERNELS_PER_LAYER,
    cross_entropy_bytes,
    dequantise_bytes,
    fp8_cast_bytes_per_token,
    fp8_weight_cast_bytes,
    layer_memory_bytes_per_token,
    optimizer_bytes,
)
from planner.perf.schedules import Schedule
from planner.vocabulary import Layout, Offload, Recompute, Task, ZeroStage

ACTIVATION_BYTES = 2.0
GRADIENT_BYTES = 2.0  # gradients reduced in bf16 (FSDP mixed precision, Megatron with bf16 reduce)
NF4_BITS = 4.127  # QLoRA NF4 with double quantisation (Dettmers et al. 2023, arXiv 2305.14314, section 3)

# CPU Adam throughput per GPU's share of the host (parameters updated per second) for optimizer offload.
# Assumption (order of magnitude of DeepSpeed's CPU-Adam on a server socket shared by 8 GPUs; Ren et al.,
# "ZeRO-Offload", arXiv 2101.06840).
CPU_ADAM_PARAMS_PER_S = 1.0e9
# Share of data-parallel gradient communication a user may state as hidden (Workload.comm_overlap): when set,
# it replaces the overlap model below.


@dataclass(frozen=True, slots=True)
class TrainingOptions:
    """What a layout does not say but a framework decides.

    virtual_stages: model chunks per pipeline rank (interleaved 1F1B); context_parallel: ranks one sequence is
    split over (they are data-parallel ranks of the layout: layout.dp counts them); sequence_parallel: the norm
    and residual region split over tp (None: on whenever tp > 1, as Megatron-Core and NeMo run it);
    tp_comm_overlap: tensor-parallel collectives overlapped with the GEMMs (Megatron-Core --tp-comm-overlap);
    optimizer: adamw | adamw8bit | sgd; lora_rank: adapter rank (LoRA / QLoRA); flash_attention: False for
    frameworks without it (scores materialised, planner.perf.compute.unfused_attention_seconds);
    ep_per_node_dispatch: MoE tokens sent once per node and forwarded over NVLink (DeepEP); ep_comm_overlap: the
    expert all-to-all run behind another micro-batch's compute (planner.perf.expert_parallel).
    """

    virtual_stages: int = 1
    context_parallel: int = 1
    sequence_parallel: bool | None = None
    tp_comm_overlap: bool = False
    optimizer: str = "adamw"
    lora_rank: int = 16
    flash_attention: bool = True
    ep_per_node_dispatch: bool = False
    ep_comm_overlap: bool = False


DEFAULT_OPTIONS = TrainingOptions()


@dataclass(frozen=True, slots=True)
class StepTime:
    """Seconds per optimizer step, by cause, and the tokens per second and MFU that follow.

    compute_s: micro-batches x (forward + backward + recompute) of the fullest stage; bubble_s: pipeline idle;
    tp/dp/ep/cp_comm_s: exposed communication; optimizer_s: the optimizer step; offload_s: CPU offload.
    breakdown: the same and the parts of compute (GEMMs, attention, memory-bound ops, loss), seconds per step.
    """

    compute_s: float
    bubble_s: float
    tp_comm_s: float
    dp_comm_s: float
    ep_comm_s: float
    offload_s: float
    flops_per_step: float
    tokens_per_step: int
    microbatches: int
    confidence: str
    assumptions: tuple[str, ...] = ()
    breakdown: Mapping[str, float] = field(default_factory=dict)
    optimizer_s: float = 0.0
    cp_comm_s: float = 0.0
    gpus: int = 1
    peak_flops_per_s: float = 0.0

    @property
    def step_time_s(self) -> float:
        return (
            self.compute_s
            + self.bubble_s
            + self.tp_comm_s
            + self.dp_comm_s
            + self.ep_comm_s
            + self.cp_comm_s
            + self.optimizer_s
            + self.offload_s
        )

    @property
    def tokens_per_s(self) -> float:
        return self.tokens_per_step / self.step_time_s

    @property
    def mfu(self) -> float:
        """Model FLOPs (6 x matmul parameters + attention, no recompute) per second over the dense peak."""
        if not self.peak_flops_per_s:
            return 0.0
        return self.flops_per_step / (self.step_time_s * self.gpus * self.peak_flops_per_s)


@dataclass(frozen=True, slots=True)
class _MicroBatch:
    """One micro-batch on the fullest stage, seconds by part."""

    gemm_s: float
    attention_s: float
    memory_s: float
    loss_s: float
    dequant_s: float
    forward_s: float
    backward_s: float
    tp_s: float
    ep_s: float
    cp_s: float
    fsdp_s: float
    # the sums, worked out once (the search reads total_s of one micro-batch at every dp it times)
    compute_s: float = field(init=False)
    total_s: float = field(init=False)

    def __post_init__(self) -> None:
        compute = self.gemm_s + self.attention_s + self.memory_s + self.loss_s + self.dequant_s
        object.__setattr__(self, "compute_s", compute)
        object.__setattr__(self, "total_s", compute + self.tp_s + self.ep_s + self.cp_s + self.fsdp_s)


# StepModel.stage_floor's floor is the micro-batch time without a pipeline over pp, times this: rounding in the
# two ways of dividing the same sum must never put the floor above the figure it bounds.
FLOOR_ROUNDING_MARGIN = 1 - 1e-9


def stage_floor_s(unpipelined_s: float, share: float, every_stage_s: float = 0.0) -> float:
    """StepModel.stage_floor's micro-batch seconds on the fullest pipeline stage, from the micro-batch without a
    pipeline: its time less `every_stage_s`, the part every stage takes whole (StepModel.every_stage_s), x the
    stage's share of the layers (StepModel.stage_share), plus that part; a hair below (floating-point rounding
    must never lift the floor over the time it bounds). Nondecreasing in unpipelined_s (each rounded step is)."""
    return (share * (unpipelined_s - every_stage_s) + every_stage_s) * FLOOR_ROUNDING_MARGIN


class MicrobatchFloor(NamedTuple):
    """StepModel.floor of one micro-batch shape at any dp: (micro-batches + bubble) x the cached micro-batch's
    compute and tensor-parallel time (a named tuple: the search keeps one per candidate variant)."""

    total_s: float
    bubble: float  # micro-batch times the pipeline idles: (p - 1) / v
    micro_batch: int
    global_batch: int

    def at(self, dp: int, cp: int = 1) -> float:
        microbatches = max(1, self.global_batch // (max(1, dp // cp) * self.micro_batch))
        return (microbatches + self.bubble) * self.total_s


class StageTime(NamedTuple):
    """One stage of a pipeline whose stages differ (StepModel.stage_time): seconds of one micro-batch on it
    (forward + backward + recompute, its tensor/expert-parallel traffic) and, per optimizer step, the exposed
    gradient all-reduce of its parameters over dp and its optimizer step."""

    microbatch_s: float
    forward_s: float
    backward_s: float
    dp_comm_s: float
    optimizer_s: float


@dataclass(frozen=True, slots=True)
class _LayerTerms:
    """Forward seconds of one layer (dense and MoE GEMMs, attention, memory-bound ops), the LM head and the
    loss, and the attention backward, for one micro-batch: they depend on tp, ep, the micro-batch and cp only,
    so every pipeline depth and recompute mode scales the same terms by its stage's layers."""

    dense_gemm_s: float
    moe_gemm_s: float
    head_s: float
    attention_forward_s: float
    attention_backward_s: float
    memory_s: float
    loss_s: float


class _LayerWork(NamedTuple):
    dense: LayerGemmWork
    moe: LayerGemmWork | None  # None: a model without MoE layers
    head: GemmWork


class SharedWork:
    """The GPU-independent work of one layer for one micro-batch at (tp, ep, micro-batch, context-parallel
    ranks): its GEMMs' FLOPs and bytes (planner.perf.compute.layer_gemm_work) and the LM head's. The StepModels
    of one search (one per GPU type, the same model and sequence length) share one: each converts the work to
    seconds at its own rates, with the arithmetic gemm_seconds uses (compute.work_seconds), so a StepModel
    with a shared one times every layout exactly as one with its own."""

    def __init__(self, model: ModelSpec, seq_len: int):
        self.model, self.seq_len = model, seq_len
        self.layers: dict[tuple[int, int, int, int], _LayerWork] = {}

    def layer(self, tp: int, ep: int, micro_batch: int, cp: int, shape: LayerShape, tokens: float) -> _LayerWork:
        """The work at (tp, ep, micro-batch, cp), of `shape` (layer_shape at tp, ep) and `tokens` rows."""
        key = (tp, ep, micro_batch, cp)
        found = self.layers.get(key)
        if found is None:
            moe = layer_gemm_work(shape, tokens, moe=True) if self.model.moe_layers else None
            head = sized_gemm_work(tokens, shape.vocab_shard, shape.hidden)
            found = self.layers[key] = _LayerWork(layer_gemm_work(shape, tokens, moe=False), moe, head)
        return found


def training_step_time(
    numbers: ModelNumbers,
    gpu: GpuSpec,
    layout: Layout,
    *,
    seq_len: int,
    global_batch: int,
    rates: DeviceRates,
    task: Task | str = Task.PRETRAIN,
    precision: str = "bf16",
    comm_overlap: float | None = None,
    gpus_per_node: int | None = None,
    inter_node_bytes_per_s: float | None = None,
    options: TrainingOptions = DEFAULT_OPTIONS,
    constants: FittedConstants = SHIPPED,
) -> StepTime:
    """Seconds for one optimizer step of `global_batch` sequences of `seq_len` tokens on dp x tp x pp GPUs."""
    model = StepModel(
        numbers, gpu, seq_len=seq_len, global_batch=global_batch, rates=rates, task=task, precision=precision,
        comm_overlap=comm_overlap, gpus_per_node=gpus_per_node, inter_node_bytes_per_s=inter_node_bytes_per_s,
        options=options, constants=constants,
    )  # fmt: skip
    return model.step(layout)


class StepModel:
    """training_step_time for one model, GPU, workload and set of constants, over many layouts (the search):
    a micro-batch's compute and its tensor/expert/context-parallel communication do not depend on dp, the ZeRO
    stage or offload, so they are kept per (tp, pp, ep, micro-batch, recompute) and reused."""

    def __init__(
        self,
        numbers: ModelNumbers,
        gpu: GpuSpec,
        *,
        seq_len: int,
        global_batch: int,
        rates: DeviceRates,
        task: Task | str = Task.PRETRAIN,
        precision: str = "bf16",
        comm_overlap: float | None = None,
        gpus_per_node: int | None = None,
        inter_node_bytes_per_s: float | None = None,
        options: TrainingOptions = DEFAULT_OPTIONS,
        constants: FittedConstants = SHIPPED,
        shared_work: SharedWork | None = None,
    ):
        """shared_work: the GEMM work shared with the StepModels of the other GPU types of one search (the
        same model and sequence length; None: its own)."""
        if comm_overlap is not None and not 0 <= comm_overlap <= 1:
            raise UserError.of(msg("error.comm_overlap_range", overlap=comm_overlap))
        if numbers.model is None:
            raise ValueError("ModelNumbers without its ModelSpec: build them with planner.perf.model_numbers")
        self.numbers, self.model, self.gpu = numbers, numbers.model, gpu
        if shared_work is None:
            shared_work = SharedWork(numbers.model, seq_len)
        elif shared_work.model is not numbers.model or shared_work.seq_len != seq_len:
            raise ValueError("a SharedWork serves StepModels of one model and sequence length")
        self.shared_work = shared_work
        self.seq_len, self.global_batch, self.rates, self.task = seq_len, global_batch, rates, Task.parse(task)
        self.precision, self.comm_overlap = precision, comm_overlap
        self.per_node = gpus_per_node or gpu.gpus_per_node
        self.network = inter_node_bytes_per_s or DEFAULT_INTER_NODE_BYTES_PER_S
        self.options, self.constants = options, constants
        self.share = constants.gemm_training(rates.generation)
        self.adapters = self.task.is_adapter
        self.microbatch_cache: dict[tuple[object, ...], _MicroBatch] = {}
        self.contexts: dict[tuple[int, int, int, int, str, int], _Context] = {}  # StepModel._context
        self.layer_cache: dict[tuple[int, int, int, int], _LayerTerms] = {}
        self.links: dict[tuple[int, int], Link] = {}
        self.geometries: dict[tuple[int, int, int], tuple[LayerShape, int, float, float]] = {}
        self.layer_shapes: dict[tuple[int, int], LayerShape] = {}

    def step(self, layout: Layout) -> StepTime:
        return self._context_of(layout).step(layout)

    def seconds(self, layout: Layout) -> float:
        """step(layout).step_time_s, without the breakdown (what the search compares). The search asks it of
        every layout it times: the kept context is looked up here (_context's key) without further calls."""
        cp = max(1, min(self.options.context_parallel, layout.dp))
        context = self.contexts.get((layout.tp, layout.pp, layout.ep, layout.micro_batch, layout.recompute, cp))
        return (context or self._context_of(layout)).seconds(layout)

    def _context_of(self, layout: Layout) -> _Context:
        cp = max(1, min(self.options.context_parallel, layout.dp))
        return self._context(layout.tp, layout.pp, layout.ep, layout.micro_batch, layout.recompute, cp)

    def _context(self, tp: int, pp: int, ep: int, micro_batch: int, recompute: str, cp: int) -> _Context:
        """The _Context of one micro-batch shape, kept: every layout of that shape (any dp, ZeRO stage,
        offload or virtual stages) reads the same micro-batch and per-shape figures from it. (A Recompute
        member hashes and compares as its string: it needs no str() in the key.)"""
        key = (tp, pp, ep, micro_batch, recompute, cp)
        found = self.contexts.get(key)
        if found is None:
            found = self.contexts[key] = _Context(self, tp, pp, ep, micro_batch, recompute, cp)
        return found

    def lower_bound(self, layout: Layout) -> float | None:
        """A floor under seconds(layout) from the cached micro-batch of the same shape (None when it is not
        cached yet): its compute and tensor-parallel time over the micro-batches and the pipeline bubble, nothing
        else (no data-parallel, optimizer, offload or point-to-point time)."""
        return self.floor(
            layout.tp, layout.pp, layout.ep, layout.dp, layout.micro_batch, layout.recompute, layout.virtual_stages
        )

    def floor(
        self, tp: int, pp: int, ep: int, dp: int, micro_batch: int, recompute: str, virtual_stages: int = 1
    ) -> float | None:
        """lower_bound of a layout given by its fields, with the pipeline bubble's share of the micro-batch time
        when `virtual_stages` is given: (p - 1) / v of it."""
        cp = max(1, min(self.options.context_parallel, dp))
        found = self._floor(tp, pp, ep, micro_batch, recompute, virtual_stages, cp)
        return None if found is None else found.at(dp, cp)

    def microbatch_floor(
        self, tp: int, pp: int, ep: int, micro_batch: int, recompute: str, virtual_stages: int = 1
    ) -> MicrobatchFloor | None:
        """floor at every dp of one (tp, pp, ep, micro-batch, recompute, virtual stages), for a search that asks
        at many dps: None when the micro-batch is not cached yet, or with context parallelism (whose ranks, and
        so the cached micro-batch, depend on dp)."""
        if self.options.context_parallel > 1:
            return None
        return self._floor(tp, pp, ep, micro_batch, recompute, virtual_stages, 1)

    def stage_floor(
        self, tp: int, pp: int, ep: int, micro_batch: int, recompute: str, virtual_stages: int = 1
    ) -> MicrobatchFloor | None:
        """A floor like microbatch_floor for any pipeline depth, from the micro-batch without a pipeline
        (computed when not cached) by stage_floor_s. Every part of a micro-batch's time on the fullest stage is
        proportional to that stage's layers (GEMMs, attention, memory-bound ops, recompute, the tensor-, expert-
        and context-parallel collectives, fp8 casts, dequantisation), ceil(L / pp) of the model's L, or the same
        on every stage (the LM head and the loss: every_stage_s), or, with a user-set MFU, exactly the model's
        FLOPs over pp. A search asks it before it works out a layout's memory. None with context parallelism
        (see microbatch_floor)."""
        unpipelined = self.unpipelined_microbatch_s(tp, ep, micro_batch, recompute)
        if unpipelined is None:
            return None
        every_stage = self.every_stage_s(tp, ep, micro_batch)
        return MicrobatchFloor(
            stage_floor_s(unpipelined, self.stage_share(pp), every_stage),
            self.bubble_microbatches(pp, virtual_stages), micro_batch, self.global_batch,
        )  # fmt: skip

    def every_stage_s(self, tp: int, ep: int, micro_batch: int) -> float:
        """The seconds of a micro-batch that the fullest stage of any pipeline takes whole, whatever its layers:
        the LM head's GEMM forward and backward (activation and weight gradients; frozen weights: activations
        only; recompute never repeats it) and the loss (_Context._compute), whatever the recompute mode. 0 where
        stage_floor scales the whole micro-batch instead: a user-set MFU (the FLOPs over pp), tensor-parallel
        collectives overlapped with the GEMMs (the head's GEMM hides some of them), context parallelism."""
        options = self.options
        if self.rates.flat_mfu is not None or options.tp_comm_overlap or options.context_parallel > 1:
            return 0.0
        terms = self.layer_cache.get((tp, ep, micro_batch, 1))
        if terms is None:
            terms = self._context(tp, 1, ep, micro_batch, Recompute.NONE, 1)._layer_terms()
        backward = 1.0 if self.adapters else 2.0
        return (1 + backward) * terms.head_s + terms.loss_s

    def stage_share(self, pp: int) -> float:
        """The least share of the micro-batch without a pipeline that the fullest of `pp` stages takes: its
        ceil(L / pp) layers of L (1 / pp with a user-set MFU, which spreads the model's FLOPs evenly)."""
        layers = self.model.layers
        if self.rates.flat_mfu is not None or layers <= 0:
            return 1 / pp
        return math.ceil(layers / pp) / layers

    def unpipelined_microbatch_s(self, tp: int, ep: int, micro_batch: int, recompute: str) -> float | None:
        """The time of one micro-batch without a pipeline (compute and tensor/expert-parallel communication),
        which stage_floor scales to the fullest stage (stage_floor_s); None with context parallelism (see
        microbatch_floor)."""
        if self.options.context_parallel > 1:
            return None
        cached = self.microbatch_cache.get((tp, 1, ep, micro_batch, str(recompute), 1))
        if cached is None:
            cached = self._context(tp, 1, ep, micro_batch, recompute, 1)._shared_microbatch()
        return cached.total_s

    def bubble_microbatches(self, pp: int, virtual_stages: int = 1) -> float:
        """Micro-batch times a pipeline of `pp` stages idles per step: (p - 1) / v."""
        virtual = virtual_stages if virtual_stages > 1 else self.options.virtual_stages
        return (pp - 1) / virtual if pp > 1 else 0.0

    def _floor(
        self, tp: int, pp: int, ep: int, micro_batch: int, recompute: str, virtual_stages: int, cp: int
    ) -> MicrobatchFloor | None:
        cached = self.microbatch_cache.get((tp, pp, ep, micro_batch, str(recompute), cp))
        if cached is None:
            return None
        virtual = virtual_stages if virtual_stages > 1 else self.options.virtual_stages
        bubble = (pp - 1) / virtual if pp > 1 else 0.0
        return MicrobatchFloor(cached.total_s, bubble, micro_batch, self.global_batch)

    def geometry(self, tp: int, pp: int, ep: int) -> tuple[LayerShape, int, float, float]:
        """(the per-rank GEMM shapes, layers, MoE layers and dense layers of the fullest stage) at (tp, pp, ep),
        kept per shape: every layout the search times asks for them."""
        key = (tp, pp, ep)
        found = self.geometries.get(key)
        if found is None:
            model = self.model
            stage_layers = math.ceil(model.layers / pp)
            moe_share = model.moe_layers / model.layers if model.layers else 0.0
            stage_moe = stage_layers * moe_share
            shape = self.layer_shapes.get((tp, ep))
            if shape is None:  # every pipeline depth shares it (layer_shape's cache would hash the ModelSpec)
                shape = self.layer_shapes[(tp, ep)] = layer_shape(model, tp, ep)
            found = self.geometries[key] = (shape, stage_layers, stage_moe, stage_layers - stage_moe)
        return found

    def stage_time(
        self, layout: Layout, dense_layers: int, moe_layers: int, has_head: bool, trainable_params: float
    ) -> StageTime:
        """A pipeline stage that holds exactly `dense_layers` + `moe_layers` decoder layers, the LM head and the
        loss only where `has_head`, and `trainable_params` trainable parameters (all its tp ranks together): the
        stage of a pipeline sized per GPU type, where step() counts the fullest stage of an even split. layout:
        its dp, tp, ZeRO stage (0-2: pipeline parallel runs with ZeRO-0/1, so ZeRO-3's gathers and offload are
        not counted here), recompute mode and micro-batch (pp and virtual stages are not read)."""
        cp = max(1, min(self.options.context_parallel, layout.dp))
        # its own context (not kept): the stage's layers below are not those of an even split
        context = _Context(self, layout.tp, 1, layout.ep, layout.micro_batch, layout.recompute, cp)
        context.stage_dense, context.stage_moe = float(dense_layers), float(moe_layers)
        context.stage_layers = dense_layers + moe_layers
        context.layer_share = context.stage_layers / self.model.layers if self.model.layers else 1.0
        context.with_head = has_head
        mb = context._compute()
        dp_s = context._gradient_sync(mb, trainable_params / layout.tp * GRADIENT_BYTES, layout)
        shards = layout.tp * (layout.dp if layout.zero >= ZeroStage.OPTIMIZER else 1)
        optimizer_s = optimizer_bytes(trainable_params / shards, self.options.optimizer) / self.rates.copy_bytes_per_s
        return StageTime(mb.total_s, mb.forward_s, mb.backward_s, dp_s, optimizer_s)

    def p2p_send_s(self, layout: Layout, across_nodes: bool = False) -> float:
        """One point-to-point send of a micro-batch's boundary activations (or their gradients) between
        neighbouring pipeline stages; `across_nodes`: over the network whatever the layout's spans."""
        return self._context_of(layout)._p2p_s(layout.dp, self.per_node * 2 if across_nodes else None)

    def link(self, group: int, span: int) -> Link:
        key = (group, span)
        if key not in self.links:
            self.links[key] = group_link(self.gpu, self.rates, group, span, self.per_node, self.network,
                                         self.constants.latency_scale)  # fmt: skip
        return self.links[key]


class _Context:
    """The estimates of one micro-batch shape (tp, pp, ep, micro-batch, recompute, context-parallel ranks) over a
    StepModel, kept there (StepModel._context): what a layout adds to it (dp, ZeRO stage, offload, virtual
    stages: the micro-batches per step, the data-parallel and ZeRO-3 traffic, the bubble, the optimizer) is
    worked out per call from the layout passed in, with the same arithmetic as on a fresh context."""

    __slots__ = (
        "owner", "link", "numbers", "model", "gpu", "seq_len", "global_batch", "rates", "task", "comm_overlap",
        "options", "constants", "tp", "pp", "ep", "cp", "micro_batch", "recompute", "key", "shared", "tokens",
        "shape", "stage_layers", "stage_moe", "stage_dense", "layer_share", "with_head", "share", "kernel_s",
        "adapters", "sequence_parallel", "stage_weight_params", "trainable", "gradient_bytes",
    )  # fmt: skip

    def __init__(self, owner: StepModel, tp: int, pp: int, ep: int, micro_batch: int, recompute: str, cp: int):
        self.owner, self.link = owner, owner.link
        self.numbers, self.model, self.gpu = owner.numbers, owner.model, owner.gpu
        self.seq_len, self.global_batch, self.rates, self.task = (
            owner.seq_len, owner.global_batch, owner.rates, owner.task
        )
        self.comm_overlap, self.options, self.constants = owner.comm_overlap, owner.options, owner.constants
        self.tp, self.pp, self.ep, self.cp = tp, pp, ep, cp
        self.micro_batch, self.recompute = micro_batch, Recompute(recompute)
        self.key = (tp, pp, ep, micro_batch, str(recompute), cp)
        self.shared: _MicroBatch | None = None  # _shared_microbatch, once worked out
        self.tokens = micro_batch * self.seq_len / cp  # rows per rank per micro-batch
        self.shape, self.stage_layers, self.stage_moe, self.stage_dense = owner.geometry(tp, pp, ep)
        self.layer_share: float | None = None  # of the model's FLOPs on this stage (a user-set MFU); None: 1 / pp
        self.with_head = True  # the fullest stage of an even split: its layers and the LM head and loss
        self.share = owner.share
        self.kernel_s = self.constants.kernel_s
        self.adapters = owner.adapters
        sp = self.options.sequence_parallel
        self.sequence_parallel = sp if sp is not None else self.tp > 1
        # per-shape figures every layout of this shape reads (the same expressions as per call: exact)
        self.stage_weight_params = self._stage_weight_params()
        self.trainable = self.numbers.lora_params if self.adapters else self.numbers.total_params
        self.gradient_bytes = self._gradient_bytes()

    def microbatches(self, layout: Layout) -> int:
        """Micro-batches per step of `layout` (of this context's shape): the global batch over its data groups."""
        data_groups = max(1, layout.dp // self.cp)
        return max(1, self.global_batch // (data_groups * self.micro_batch))

    # -- one micro-batch -------------------------------------------------------------------------------------
    def microbatch(self, layout: Layout) -> _MicroBatch:
        """The micro-batch's compute and its tensor/expert/context-parallel communication (which do not depend
        on dp: kept in the caller's cache across layouts that differ in dp, ZeRO stage or offload), and its
        ZeRO-3 gathers (which do)."""
        cached = self._shared_microbatch()
        if layout.zero != ZeroStage.WEIGHTS or layout.dp <= 1:
            return cached
        return dataclasses.replace(cached, fsdp_s=self._fsdp_of(cached, layout.dp))

    def _shared_microbatch(self) -> _MicroBatch:
        """The dp-independent part of the micro-batch, kept here and in the owner's cache (the floors)."""
        cached = self.shared
        if cached is None:
            key = self.key
            cache = self.owner.microbatch_cache
            cached = cache.get(key)
            if cached is None:
                cached = cache[key] = self._compute()
            self.shared = cached
        return cached

    def _fsdp_of(self, mb: _MicroBatch, dp: int) -> float:
        return self._fsdp(mb.gemm_s + mb.attention_s + mb.memory_s, dp)

    def _layer_terms(self) -> _LayerTerms:
        """The per-layer seconds of this micro-batch, from the owner's cache (_LayerTerms)."""
        key = (self.tp, self.ep, self.micro_batch, self.cp)
        cache = self.owner.layer_cache
        terms = cache.get(key)
        if terms is None:
            terms = cache[key] = self._layer_terms_of()
        return terms

    def _layer_terms_of(self) -> _LayerTerms:
        rates, shape, tokens, kernel = self.rates, self.shape, self.tokens, self.kernel_s
        dense, moe, head = self._layer_gemms()
        attention_f, attention_b = self._layer_attention()
        per_token = layer_memory_bytes_per_token(shape, self.tp, self.sequence_parallel)
        memory = tokens * per_token / rates.copy_bytes_per_s + MEMORY_KERNELS_PER_LAYER * kernel
        loss = cross_entropy_bytes(tokens, shape) / rates.copy_bytes_per_s + 4 * kernel
        return _LayerTerms(dense, moe, head, attention_f, attention_b, memory, loss)

    def _compute(self) -> _MicroBatch:
        terms = self._layer_terms()
        rates = self.rates
        gemm_f = self.stage_dense * terms.dense_gemm_s
        if self.stage_moe:
            gemm_f += self.stage_moe * terms.moe_gemm_s
        head_f = terms.head_s if self.with_head else 0.0
        attn_f, attn_b = self.stage_layers * terms.attention_forward_s, self.stage_layers * terms.attention_backward_s
        mem_f = self.stage_layers * terms.memory_s
        casts = self._fp8_casts()
        loss = terms.loss_s if self.with_head else 0.0
        if rates.flat_mfu is not None:  # a user-set MFU: model FLOPs at peak x MFU, nothing else
            flops = self._model_flops_per_microbatch()
            compute = flops / (rates.peak_flops_per_s * rates.flat_mfu)
            gemm, attention, memory, loss, head_f = compute, 0.0, 0.0, 0.0, 0.0
            forward = compute / 3
        else:
            backward_gemm = (1.0 if self.adapters else 2.0) * (gemm_f + head_f)
            recompute = self._recompute(gemm_f, attn_f, mem_f)
            gemm = gemm_f + head_f + backward_gemm + recompute[0]
            attention = attn_f + attn_b + recompute[1]
            memory = mem_f * (1 + BACKWARD_TRAFFIC) + recompute[2] + casts
            forward = gemm_f + head_f + attn_f + mem_f
        dequant = self._qlora_dequant()
        backward = gemm + attention + memory + loss + dequant - forward
        return _MicroBatch(
            gemm_s=gemm, attention_s=attention, memory_s=memory, loss_s=loss, dequant_s=dequant,
            forward_s=forward, backward_s=max(0.0, backward), tp_s=self._tp(gemm), ep_s=self._ep(gemm + attention + memory),
            cp_s=self._cp(attention), fsdp_s=0.0,
        )  # fmt: skip

    def _layer_attention(self) -> tuple[float, float]:
        """(forward, backward) attention seconds of one layer for one micro-batch."""
        shape, rates, kernel = self.shape, self.rates, self.kernel_s
        if not self.options.flash_attention:
            sequences = self.micro_batch / self.cp
            return unfused_attention_seconds(sequences, self.seq_len, shape, rates, self.share, kernel)
        flops = causal_attention_flops(self.micro_batch, self.seq_len, shape.q_width) / self.cp
        return attention_forward_seconds(flops, rates, kernel), attention_backward_seconds(flops, rates, kernel)

    def _layer_gemms(self) -> tuple[float, float, float]:
        """Forward seconds of one layer's dense and MoE GEMMs and the LM head's: from the shared work (SharedWork)
        unless a probe measured GEMMs (their rates depend on the shapes) or the user set an MFU."""
        rates, shape, tokens, kernel = self.rates, self.shape, self.tokens, self.kernel_s
        ridge = self.constants.ridge_overlap
        if rates.measured_gemms or rates.flat_mfu is not None:
            storage = WeightStorage()
            dense = layer_gemms_seconds(shape, tokens, rates, self.share, kernel, moe=False, storage=storage,
                                        ridge=ridge)  # fmt: skip
            moe = 0.0
            if self.model.moe_layers:
                moe = layer_gemms_seconds(shape, tokens, rates, self.share, kernel, moe=True, storage=storage,
                                          ridge=ridge)  # fmt: skip
            head = gemm_seconds(tokens, shape.vocab_shard, shape.hidden, rates, self.share, kernel, ridge=ridge)
            return dense, moe, head
        work = self.owner.shared_work.layer(self.tp, self.ep, self.micro_batch, self.cp, shape, tokens)
        rate, copy = rates.matmul_flops_per_s * self.share, rates.copy_bytes_per_s  # gemm_seconds' rate
        moe = 0.0 if work.moe is None else work.moe.seconds(rate, copy, kernel, ridge)
        return work.dense.seconds(rate, copy, kernel, ridge), moe, work_seconds(work.head, rate, copy, kernel, ridge)

    def _fp8_casts(self) -> float:
        """fp8 training: the casts of every GEMM's inputs and output gradients, and of the weights."""
        if self.rates.dtype != "fp8":
            return 0.0
        weights = self.stage_dense * self.shape.dense_weights + self.stage_moe * self.shape.moe_weights
        moved = self.tokens * self.stage_layers * fp8_cast_bytes_per_token(self.shape) + fp8_weight_cast_bytes(weights)
        return moved / self.rates.copy_bytes_per_s + 8 * self.stage_layers * self.kernel_s

    def _model_flops_per_microbatch(self) -> float:
        n = self.numbers
        per_token = training_flops_per_token(
            n.matmul_params, n.layers, self.seq_len, n.attention_width, self.recompute, self.adapters
        )
        if self.layer_share is not None:  # a stage of a pipeline sized per GPU type (stage_time)
            return per_token * self.micro_batch * self.seq_len * self.layer_share / (self.tp * self.cp)
        return per_token * self.micro_batch * self.seq_len / (self.tp * self.pp * self.cp)

    def _recompute(self, gemm_f: float, attn_f: float, mem_f: float) -> tuple[float, float, float]:
        """(GEMM, attention, memory) seconds recomputed in the backward."""
        mode = Recompute.parse(self.recompute)
        if mode == Recompute.FULL:
            return gemm_f, attn_f, mem_f
        if mode == Recompute.SELECTIVE:
            return 0.0, attn_f, mem_f
        return 0.0, 0.0, 0.0

    def _qlora_dequant(self) -> float:
        """QLoRA: bitsandbytes dequantises each frozen NF4 weight to 16 bits before each use: the forward, the
        backward's activation gradient, and the recomputed forward."""
        if self.task != Task.QLORA:
            return 0.0
        weights = self.stage_dense * self.shape.dense_weights + self.stage_moe * self.shape.moe_weights
        uses = 3 if self.recompute == Recompute.FULL else 2
        memory = dequantise_bytes(weights, NF4_BITS) / self.rates.copy_bytes_per_s
        alu = weights * self.constants.dequant_ops_per_weight / self.rates.int_ops_per_s
        kernels = 7 * self.stage_layers * self.kernel_s  # one per weight matrix
        return uses * (max(memory, alu) + kernels)

    # -- communication inside a micro-batch ------------------------------------------------------------------
    def _tp(self, gemm_s: float) -> float:
        if self.tp <= 1:
            return 0.0
        link = self.link(self.tp, self.tp)
        message = self.tokens * self.shape.hidden * ACTIVATION_BYTES
        calls = 4 + (2 if self.recompute == Recompute.FULL else 0)
        total = self.stage_layers * calls * allreduce_time_s(message, self.tp, link.bus_bytes_per_s, link.latency_s)
        if self.options.tp_comm_overlap:
            return exposed_s(total, gemm_s, interference=self.constants.overlap_interference)
        return total

    def _ep(self, compute_s: float) -> float:
        """The expert dispatches and combines of the stage's MoE layers (planner.perf.expert_parallel)."""
        if self.ep <= 1 or not self.stage_moe:
            return 0.0
        shape, per_node, sp = self.shape, self.owner.per_node, self.sequence_parallel
        span = expert_parallel.group_span(self.ep, self.tp, sp)
        copies = expert_parallel.traffic(shape.experts_total, shape.experts_per_token, self.ep, span, per_node,
                                         self.options.ep_per_node_dispatch)  # fmt: skip
        nvlink, network = self.link(self.ep, min(span, per_node)), self.link(self.ep, span)
        tokens = expert_parallel.routed_tokens(self.tokens, self.tp, sp)
        one = expert_parallel.alltoall_seconds(shape.hidden * ACTIVATION_BYTES, tokens, copies, nvlink, network)
        total = self.stage_moe * expert_parallel.DISPATCH_AND_COMBINE * one
        if self.options.ep_comm_overlap:
            return exposed_s(total, compute_s, interference=self.constants.overlap_interference)
        return total

    def _cp(self, attention_s: float) -> float:
        """Ring attention: each rank passes its K and V chunk round the context group (forward), and K, V and
        their gradients back (backward), overlapped with the attention blocks it computes meanwhile."""
        if self.cp <= 1:
            return 0.0
        link = self.link(self.cp, self.cp * self.tp)
        chunk = self.tokens * self.shape.kv_elements_per_token_layer * ACTIVATION_BYTES
        per_layer = 3 * (self.cp - 1) * (chunk / link.bus_bytes_per_s + link.latency_s)
        return exposed_s(self.stage_layers * per_layer, attention_s, interference=self.constants.overlap_interference)

    def _fsdp(self, compute_s: float, dp: int) -> float:
        """ZeRO-3 / FSDP: every micro-batch all-gathers the stage's weights for the forward and again for the
        backward and reduce-scatters the gradients, layer by layer, prefetched behind the neighbouring layer's
        compute; the first layer's gather and the last layer's reduction are left exposed."""
        if dp <= 1:  # the callers ask for ZeRO-3 layouts only
            return 0.0
        link = self.link(dp, dp * self.tp)
        weights = self.stage_weight_params * ACTIVATION_BYTES
        gather = allgather_time_s(weights, dp, link.bus_bytes_per_s, link.latency_s * self.stage_layers)
        total = 3 * gather if not self.adapters else 2 * gather
        if self.comm_overlap is not None:
            return (1 - self.comm_overlap) * total
        return exposed_s(
            total, compute_s, 2 * total / (3 * max(1, self.stage_layers)), self.constants.overlap_interference
        )

    def _stage_weight_params(self) -> float:
        n = self.numbers
        return n.total_params / (self.tp * self.pp) - n.expert_params * (1 - 1 / self.ep) / (self.tp * self.pp)

    # -- the step ----------------------------------------------------------------------------------------------
    def _bubble(self, microbatch_s: float, layout: Layout, microbatches: int) -> float:
        if self.pp <= 1:
            return 0.0
        virtual = layout.virtual_stages if layout.virtual_stages > 1 else self.options.virtual_stages
        schedule = Schedule(self.pp, microbatches, virtual)
        bubble = (self.pp - 1) / schedule.virtual_stages * microbatch_s
        return bubble + schedule.p2p_transfers_on_critical_path * self._p2p_s(layout.dp)

    def seconds(self, layout: Layout) -> float:
        """step(layout).step_time_s: the same sum, without building the breakdown or a copy of the micro-batch."""
        mb = self.shared or self._shared_microbatch()
        microbatches = self.microbatches(layout)
        fsdp = self._fsdp_of(mb, layout.dp) if layout.zero == ZeroStage.WEIGHTS and layout.dp > 1 else 0.0
        microbatch_s = mb.total_s + fsdp
        # the terms most layouts do not have: not worked out then (the 0.0 their functions return)
        offload = 0.0
        if layout.offload != Offload.NONE:
            offload = offload_time_s(self.numbers, self.gpu, layout, microbatches, self.adapters)
        bubble = self._bubble(microbatch_s, layout, microbatches) if self.pp > 1 else 0.0
        return (
            microbatches * microbatch_s + bubble + self._gradient_sync(mb, self.gradient_bytes, layout)
            + self._optimizer_s(layout) + offload
        )  # fmt: skip

    def step(self, layout: Layout) -> StepTime:
        mb = self.microbatch(layout)
        m = self.microbatches(layout)
        bubble = self._bubble(mb.total_s, layout, m)
        dp = self._gradient_sync(mb, self.gradient_bytes, layout)
        optimizer = self._optimizer_s(layout)
        offload = offload_time_s(self.numbers, self.gpu, layout, m, self.adapters)
        # the sequences the step really processes: data groups x micro-batch x micro-batches (the search notes
        # where this differs from the requested global batch)
        tokens_per_step = max(1, layout.dp // self.cp) * self.micro_batch * m * self.seq_len
        n = self.numbers
        model_flops = tokens_per_step * training_flops_per_token(
            n.matmul_params, n.layers, self.seq_len, n.attention_width, Recompute.NONE, self.adapters
        )
        compute, tp, dp_comm, ep, cp = m * mb.compute_s, m * mb.tp_s, dp + m * mb.fsdp_s, m * mb.ep_s, m * mb.cp_s
        breakdown = {
            "compute_s": compute, "pipeline_bubble_s": bubble, "tp_comm_s": tp, "dp_comm_s": dp_comm,
            "ep_comm_s": ep, "cp_comm_s": cp, "optimizer_s": optimizer, "offload_s": offload,
            "gemm_s": m * mb.gemm_s, "attention_s": m * mb.attention_s, "memory_bound_s": m * mb.memory_s,
            "loss_s": m * mb.loss_s, "dequantise_s": m * mb.dequant_s,
        }  # fmt: skip
        return StepTime(
            compute_s=compute, bubble_s=bubble, tp_comm_s=tp, dp_comm_s=dp_comm, ep_comm_s=ep, offload_s=offload,
            flops_per_step=model_flops, tokens_per_step=tokens_per_step, microbatches=m,
            confidence=self.rates.confidence, assumptions=self.rates.assumptions,
            breakdown=MappingProxyType(breakdown), optimizer_s=optimizer, cp_comm_s=cp, gpus=layout.gpus,
            peak_flops_per_s=self.rates.peak_flops_per_s,
        )  # fmt: skip

    def _p2p_s(self, dp: int, span: int | None = None) -> float:
        """One point-to-point send of a micro-batch's boundary activations between neighbouring stages (ranks
        tp x dp apart, or `span` GPUs)."""
        link = self.link(2, span or self.tp * dp * 2)
        message = self.tokens * self.shape.hidden * ACTIVATION_BYTES / (self.tp if self.sequence_parallel else 1)
        return message / link.bus_bytes_per_s + link.latency_s

    def _gradient_bytes(self) -> float:
        """Gradient bytes per rank that ZeRO-0/1/2 reduce over dp (every layout of this shape: kept)."""
        trainable = self.numbers.lora_params if self.adapters else self.numbers.total_params
        expert_share = 0 if self.adapters else self.numbers.expert_params * (1 - 1 / self.ep)
        return (trainable - expert_share) / (self.tp * self.pp) * GRADIENT_BYTES

    def _gradient_sync(self, mb: _MicroBatch, gradient_bytes: float, layout: Layout) -> float:
        """Exposed seconds of reducing `gradient_bytes` per rank over layout.dp with ZeRO-0/1/2 (ZeRO-3 reduces
        per micro-batch, in _fsdp): an all-reduce, or a reduce-scatter plus the all-gather of the updated weights
        (the same volume), bucketed behind the last micro-batch's backward; the all-gather behind the next
        step's first forward. A layout's gradients: self.gradient_bytes."""
        dp, zero = layout.dp, layout.zero
        if dp <= 1 or zero == ZeroStage.WEIGHTS:
            return 0.0
        link = self.link(dp, dp * self.tp)
        total = allreduce_time_s(gradient_bytes, dp, link.bus_bytes_per_s, link.latency_s)
        if self.comm_overlap is not None:
            return (1 - self.comm_overlap) * total
        window = mb.backward_s + (mb.forward_s if zero >= ZeroStage.OPTIMIZER else 0.0)
        last_bucket = total / max(1, self.stage_layers)
        return exposed_s(total, window, last_bucket, self.constants.overlap_interference)

    def _optimizer_s(self, layout: Layout) -> float:
        if layout.offload != Offload.NONE:
            return 0.0  # the CPU steps (offload_time_s)
        shards = self.tp * self.pp * (layout.dp if layout.zero >= ZeroStage.OPTIMIZER else 1)
        return optimizer_bytes(self.trainable / shards, self.options.optimizer) / self.rates.copy_bytes_per_s


def offload_time_s(
    numbers: ModelNumbers,
    gpu: GpuSpec,
    layout: Layout,
    microbatches: int,
    adapters_only: bool = False,
) -> float:
    """Exposed seconds per step that CPU offload adds (ZeRO-Offload / ZeRO-Infinity style).

    optimizer: 16-bit gradients go down and 16-bit parameters come back over PCIe (one direction each, the
    two overlap), plus CPU Adam over this rank's shard. all: parameters also stream up for every forward and
    backward of every micro-batch.
    """
    if layout.offload == Offload.NONE:
        return 0.0
    trainable = numbers.lora_params if adapters_only else numbers.total_params
    shard = trainable / (layout.tp * layout.pp * (layout.dp if layout.zero >= 1 else 1))
    pcie = gpu.pcie_bytes_per_s / 2 * LINK_EFFICIENCY
    seconds = shard * 2 / pcie + shard / CPU_ADAM_PARAMS_PER_S
    if layout.offload == Offload.ALL:
        params_per_rank = numbers.total_params / (layout.tp * layout.pp)
        seconds += microbatches * 2 * params_per_rank * 2 / pcie
    return seconds


def offload_assumption() -> str:
    return (
        f"offload: PCIe at {LINK_EFFICIENCY} of one direction; CPU Adam {CPU_ADAM_PARAMS_PER_S:.0e} parameters/s "
        "per GPU (assumption)"
    )
