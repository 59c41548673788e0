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

import math
from typing import NamedTuple

from planner.errors import UserError
from planner.gpus import GpuSpec
from planner.messages import msg
from planner.perf.communication import (
    NON_BLOCKING,
    Fabric,
    Link,
    group_link,
)
from planner.perf.compute import (
    LayerShape,
    layer_shape,
)
from planner.perf.efficiencies import (
    DEFAULT_INTER_NODE_BYTES_PER_S,
    SHIPPED,
    DeviceRates,
    FittedConstants,
)
from planner.perf.flops import ModelNumbers
from planner.perf.memory_ops import (
    optimizer_bytes,
)
from planner.perf.training_context import StepContext
from planner.perf.training_terms import (
    DEFAULT_OPTIONS,
    GRADIENT_BYTES,
    LayerTerms,
    MicroBatch,
    SharedWork,
    StepTime,
    TrainingOptions,
)
from planner.vocabulary import Layout, Recompute, Task, ZeroStage

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
        fabric: Fabric = NON_BLOCKING,
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
        self.seq_len, self.global_batch, self.rates, self.task = (
            seq_len,
            global_batch,
            rates,
            Task.parse(task),
        )
        self.precision, self.comm_overlap = precision, comm_overlap
        self.per_node = gpus_per_node or gpu.gpus_per_node
        self.network = inter_node_bytes_per_s or DEFAULT_INTER_NODE_BYTES_PER_S
        self.fabric = fabric  # the fat tree's pods and oversubscription (communication.Fabric)
        self.options, self.constants = options, constants
        self.share = constants.gemm_training(rates.generation)
        self.adapters = self.task.is_adapter
        self.microbatch_cache: dict[tuple[object, ...], MicroBatch] = {}
        self.contexts: dict[tuple[int, int, int, int, str, int], StepContext] = {}  # StepModel._context
        self.layer_cache: dict[tuple[int, int, int, int], LayerTerms] = {}
        self.links: dict[tuple[int, int], Link] = {}
        self.geometries: dict[tuple[int, int, int], tuple[LayerShape, int, float, float]] = {}
        self.layer_shapes: dict[tuple[int, int], LayerShape] = {}

    def step(self, layout: Layout) -> StepTime:
        return self._context_of(layout).step(layout)

    def seconds(self, layout: Layout) -> float:
        """step(layout).step_time_s, without the breakdown (what the search compares). The search asks it of
        every layout it times: the kept context is looked up here (_context's key) without further calls."""
        cp = max(1, min(self.options.context_parallel, layout.dp))
        context = self.contexts.get(
            (layout.tp, layout.pp, layout.ep, layout.micro_batch, layout.recompute, cp)
        )
        return (context or self._context_of(layout)).seconds(layout)

    def _context_of(self, layout: Layout) -> StepContext:
        cp = max(1, min(self.options.context_parallel, layout.dp))
        return self._context(layout.tp, layout.pp, layout.ep, layout.micro_batch, layout.recompute, cp)

    def _context(self, tp: int, pp: int, ep: int, micro_batch: int, recompute: str, cp: int) -> StepContext:
        """The StepContext of one micro-batch shape, kept: every layout of that shape (any dp, ZeRO stage,
        offload or virtual stages) reads the same micro-batch and per-shape figures from it. (A Recompute
        member hashes and compares as its string: it needs no str() in the key.)"""
        key = (tp, pp, ep, micro_batch, recompute, cp)
        found = self.contexts.get(key)
        if found is None:
            found = self.contexts[key] = StepContext(self, tp, pp, ep, micro_batch, recompute, cp)
        return found

    def lower_bound(self, layout: Layout) -> float | None:
        """A floor under seconds(layout) from the cached micro-batch of the same shape (None when it is not
        cached yet): its compute and tensor-parallel time over the micro-batches and the pipeline bubble, nothing
        else (no data-parallel, optimizer, offload or point-to-point time)."""
        return self.floor(
            layout.tp,
            layout.pp,
            layout.ep,
            layout.dp,
            layout.micro_batch,
            layout.recompute,
            layout.virtual_stages,
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
        only; recompute never repeats it) and the loss (StepContext.compute), whatever the recompute mode. 0 where
        stage_floor scales the whole micro-batch instead: a user-set MFU (the FLOPs over pp), tensor-parallel
        collectives overlapped with the GEMMs (the head's GEMM hides some of them), context parallelism."""
        options = self.options
        if self.rates.flat_mfu is not None or options.tp_comm_overlap or options.context_parallel > 1:
            return 0.0
        terms = self.layer_cache.get((tp, ep, micro_batch, 1))
        if terms is None:
            terms = self._context(tp, 1, ep, micro_batch, Recompute.NONE, 1).layer_terms()
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
            cached = self._context(tp, 1, ep, micro_batch, recompute, 1).shared_microbatch()
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
        context = StepContext(self, layout.tp, 1, layout.ep, layout.micro_batch, layout.recompute, cp)
        context.stage_dense, context.stage_moe = float(dense_layers), float(moe_layers)
        context.stage_layers = dense_layers + moe_layers
        context.layer_share = context.stage_layers / self.model.layers if self.model.layers else 1.0
        context.with_head = has_head
        mb = context.compute()
        dp_s = context.gradient_sync(mb, trainable_params / layout.tp * GRADIENT_BYTES, layout)
        shards = layout.tp * (layout.dp if layout.zero >= ZeroStage.OPTIMIZER else 1)
        optimizer_s = (
            optimizer_bytes(trainable_params / shards, self.options.optimizer) / self.rates.copy_bytes_per_s
        )
        return StageTime(mb.total_s, mb.forward_s, mb.backward_s, dp_s, optimizer_s)

    def p2p_send_s(self, layout: Layout, across_nodes: bool = False) -> float:
        """One point-to-point send of a micro-batch's boundary activations (or their gradients) between
        neighbouring pipeline stages; `across_nodes`: over the network whatever the layout's spans."""
        return self._context_of(layout).p2p_s(layout.dp, self.per_node * 2 if across_nodes else None)

    def link(self, group: int, span: int) -> Link:
        key = (group, span)
        if key not in self.links:
            self.links[key] = group_link(self.gpu, self.rates, group, span, self.per_node, self.network,
                                         self.constants.latency_scale)  # fmt: skip
        return self.links[key]
