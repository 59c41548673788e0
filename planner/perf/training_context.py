"""One micro-batch shape of a training step (StepContext, kept per shape by planner.perf.training.StepModel):
the micro-batch's compute and its tensor/expert/context-parallel traffic, and what a layout adds to it (data-
parallel and ZeRO-3 traffic, the pipeline bubble, the optimizer, offload). The formulas are described in
planner.perf.training's docstring."""

from __future__ import annotations

import dataclasses
from types import MappingProxyType
from typing import Protocol

from planner.gpus import GpuSpec
from planner.memory.runtimes import chosen_runtime
from planner.models import ModelSpec
from planner.perf import expert_parallel, gradient_reduction
from planner.perf.communication import (
    Fabric,
    Link,
    allgather_time_s,
    allreduce_time_s,
    exposed_s,
    multi_node_allreduce_s,
    multi_node_gather_latency_s,
    slowed,
)
from planner.perf.compute import (
    LayerShape,
    WeightStorage,
    attention_backward_seconds,
    attention_forward_seconds,
    causal_attention_flops,
    gemm_seconds,
    layer_gemms_seconds,
    unfused_attention_seconds,
    work_seconds,
)
from planner.perf.efficiencies import DeviceRates, FittedConstants
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
from planner.perf.training_terms import (
    ACTIVATION_BYTES,
    GRADIENT_BYTES,
    NF4_BITS,
    LayerTerms,
    MicroBatch,
    SharedWork,
    StepTime,
    TrainingOptions,
    offload_time_s,
)
from planner.vocabulary import Layout, Offload, Recompute, Task, ZeroStage


class StepOwner(Protocol):
    """What a StepContext reads of the StepModel that keeps it (planner.perf.training.StepModel): the
    workload, the rates and constants, the caches every shape shares, the per-shape geometry and the links."""

    numbers: ModelNumbers
    model: ModelSpec
    gpu: GpuSpec
    seq_len: int
    global_batch: int
    rates: DeviceRates
    task: Task
    comm_overlap: float | None
    options: TrainingOptions
    constants: FittedConstants
    fabric: Fabric
    share: float
    adapters: bool
    shared_work: SharedWork
    microbatch_cache: dict[tuple[object, ...], MicroBatch]
    layer_cache: dict[tuple[int, int, int, int], LayerTerms]
    per_node: int

    def geometry(self, tp: int, pp: int, ep: int) -> tuple[LayerShape, int, float, float]: ...

    def link(self, group: int, span: int) -> Link: ...


class StepContext:
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

    def __init__(
        self, owner: StepOwner, tp: int, pp: int, ep: int, micro_batch: int, recompute: str, cp: int
    ):
        self.owner, self.link = owner, owner.link
        self.numbers, self.model, self.gpu = owner.numbers, owner.model, owner.gpu
        self.seq_len, self.global_batch, self.rates, self.task = (
            owner.seq_len,
            owner.global_batch,
            owner.rates,
            owner.task,
        )
        self.comm_overlap, self.options, self.constants = owner.comm_overlap, owner.options, owner.constants
        self.tp, self.pp, self.ep, self.cp = tp, pp, ep, cp
        self.micro_batch, self.recompute = micro_batch, Recompute(recompute)
        self.key = (tp, pp, ep, micro_batch, str(recompute), cp)
        self.shared: MicroBatch | None = None  # _shared_microbatch, once worked out
        self.tokens = micro_batch * self.seq_len / cp  # rows per rank per micro-batch
        self.shape, self.stage_layers, self.stage_moe, self.stage_dense = owner.geometry(tp, pp, ep)
        self.layer_share: float | None = (
            None  # of the model's FLOPs on this stage (a user-set MFU); None: 1 / pp
        )
        self.with_head = True  # the fullest stage of an even split: its layers and the LM head and loss
        self.share = owner.share
        self.kernel_s = self.constants.kernel_s * self.rates.kernel_scale  # at this GPU's clock
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
    def microbatch(self, layout: Layout) -> MicroBatch:
        """The micro-batch's compute and its tensor/expert/context-parallel communication (which do not depend
        on dp: kept in the caller's cache across layouts that differ in dp, ZeRO stage or offload), and its
        ZeRO-3 gathers (which do)."""
        cached = self.shared_microbatch()
        if layout.zero != ZeroStage.WEIGHTS or layout.dp <= 1:
            return cached
        return dataclasses.replace(cached, fsdp_s=self._fsdp_of(cached, layout))

    def shared_microbatch(self) -> MicroBatch:
        """The dp-independent part of the micro-batch, kept here and in the owner's cache (the floors)."""
        cached = self.shared
        if cached is None:
            key = self.key
            cache = self.owner.microbatch_cache
            cached = cache.get(key)
            if cached is None:
                cached = cache[key] = self.compute()
            self.shared = cached
        return cached

    def _fsdp_of(self, mb: MicroBatch, layout: Layout) -> float:
        wire = self.reduction(layout).wire_bytes
        return self._fsdp(mb.gemm_s + mb.attention_s + mb.memory_s, layout.dp, wire)

    def layer_terms(self) -> LayerTerms:
        """The per-layer seconds of this micro-batch, from the owner's cache (LayerTerms)."""
        key = (self.tp, self.ep, self.micro_batch, self.cp)
        cache = self.owner.layer_cache
        terms = cache.get(key)
        if terms is None:
            terms = cache[key] = self._layer_terms_of()
        return terms

    def _layer_terms_of(self) -> LayerTerms:
        rates, shape, tokens, kernel = self.rates, self.shape, self.tokens, self.kernel_s
        dense, moe, head = self._layer_gemms()
        attention_f, attention_b = self._layer_attention()
        per_token = layer_memory_bytes_per_token(shape, self.tp, self.sequence_parallel)
        memory = tokens * per_token / rates.copy_bytes_per_s + MEMORY_KERNELS_PER_LAYER * kernel
        loss = cross_entropy_bytes(tokens, shape) / rates.copy_bytes_per_s + 4 * kernel
        return LayerTerms(dense, moe, head, attention_f, attention_b, memory, loss)

    def compute(self) -> MicroBatch:
        terms = self.layer_terms()
        rates = self.rates
        gemm_f = self.stage_dense * terms.dense_gemm_s
        if self.stage_moe:
            gemm_f += self.stage_moe * terms.moe_gemm_s
        head_f = terms.head_s if self.with_head else 0.0
        attn_f, attn_b = (
            self.stage_layers * terms.attention_forward_s,
            self.stage_layers * terms.attention_backward_s,
        )
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
        return MicroBatch(
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
        return attention_forward_seconds(flops, rates, kernel), attention_backward_seconds(
            flops, rates, kernel
        )

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
                                          ridge=ridge, expert_load=self._expert_load())  # fmt: skip
            head = gemm_seconds(
                tokens, shape.vocab_shard, shape.hidden, rates, self.share, kernel, ridge=ridge
            )
            return dense, moe, head
        work = self.owner.shared_work.layer(self.tp, self.ep, self.micro_batch, self.cp, shape, tokens,
                                            self._expert_load())  # fmt: skip
        rate, copy = rates.matmul_flops_per_s * self.share, rates.copy_bytes_per_s  # gemm_seconds' rate
        moe = 0.0 if work.moe is None else work.moe.seconds(rate, copy, kernel, ridge)
        return (
            work.dense.seconds(rate, copy, kernel, ridge),
            moe,
            work_seconds(work.head, rate, copy, kernel, ridge),
        )

    def _fp8_casts(self) -> float:
        """fp8 training: the casts of every GEMM's inputs and output gradients, and of the weights."""
        if self.rates.dtype != "fp8":
            return 0.0
        weights = self.stage_dense * self.shape.dense_weights + self.stage_moe * self.shape.moe_weights
        moved = self.tokens * self.stage_layers * fp8_cast_bytes_per_token(
            self.shape
        ) + fp8_weight_cast_bytes(weights)
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
        total = (
            self.stage_layers
            * calls
            * allreduce_time_s(message, self.tp, link.bus_bytes_per_s, link.latency_s)
        )
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
        network = slowed(network, self.owner.fabric.alltoall_slowdown(span))  # above an oversubscribed pod
        tokens = expert_parallel.routed_tokens(self.tokens, self.tp, sp)
        one = expert_parallel.alltoall_seconds(
            shape.hidden * ACTIVATION_BYTES, tokens, copies, nvlink, network
        )
        one *= self._expert_load()  # the busiest rank receives (and returns) the most
        total = self.stage_moe * expert_parallel.DISPATCH_AND_COMBINE * one
        if self.options.ep_comm_overlap:
            return exposed_s(total, compute_s, interference=self.constants.overlap_interference)
        return total

    def _expert_load(self) -> float:
        """The busiest expert-parallel rank's routed work over the mean (expert_parallel.slowest_rank_load); with a
        token-dropping runtime's capacity factor, the padded capacity (expert_parallel.padded_expert_load)."""
        if not self.model.moe_layers:
            return 1.0
        if self.options.moe_capacity_factor is not None:  # token dropping: padded to the capacity
            return expert_parallel.padded_expert_load(self.options.moe_capacity_factor)
        if self.ep <= 1:
            return 1.0
        routed = expert_parallel.routed_tokens(self.tokens, self.tp, self.sequence_parallel)
        return expert_parallel.slowest_rank_load(routed, self.ep, self.shape.experts_per_token)

    def _cp(self, attention_s: float) -> float:
        """Ring attention: each rank passes its K and V chunk round the context group (forward), and K, V and
        their gradients back (backward), overlapped with the attention blocks it computes meanwhile."""
        if self.cp <= 1:
            return 0.0
        link = self._ring_link(self.cp, self.cp * self.tp)
        chunk = self.tokens * self.shape.kv_elements_per_token_layer * ACTIVATION_BYTES
        per_layer = 3 * (self.cp - 1) * (chunk / link.bus_bytes_per_s + link.latency_s)
        return exposed_s(
            self.stage_layers * per_layer, attention_s, interference=self.constants.overlap_interference
        )

    def _ring_link(self, group: int, span: int) -> Link:
        """The link of a ring (or tree) collective over `group` ranks across `span` GPUs, slowed where it crosses
        an oversubscribed pod's uplinks with fewer nodes in the pod than the oversubscription (Fabric)."""
        return slowed(self.link(group, span), self.owner.fabric.ring_slowdown(span, self.owner.per_node))

    def _fsdp(self, compute_s: float, dp: int, wire_bytes: float = GRADIENT_BYTES) -> float:
        """ZeRO-3 / FSDP: every micro-batch all-gathers the stage's 16-bit weights for the forward and again for
        the backward and reduce-scatters the gradients (`wire_bytes` per element: fp32 under FSDP2's and
        torchtitan's reduce dtype, planner.perf.gradient_reduction), layer by layer, prefetched behind the
        neighbouring layer's compute; the first layer's gather and the last layer's reduction are left exposed."""
        if dp <= 1:  # the callers ask for ZeRO-3 layouts only
            return 0.0
        link = self._ring_link(dp, dp * self.tp)
        weights = self.stage_weight_params * ACTIVATION_BYTES
        latency = link.latency_s
        if link.kind == "network":  # a ring over every rank: its latency grows with the ranks (NCCL's model)
            latency = multi_node_gather_latency_s(dp, dp * self.tp, self.owner.per_node)
        gather = allgather_time_s(weights, dp, link.bus_bytes_per_s, latency * self.stage_layers)
        # the reduce-scatter moves what an all-gather of the same elements does, at the gradients' width
        reduce = 0.0 if self.adapters else gather * wire_bytes / ACTIVATION_BYTES
        total = 2 * gather + reduce
        if self.comm_overlap is not None:
            return (1 - self.comm_overlap) * total
        return exposed_s(
            total, compute_s, 2 * total / (3 * max(1, self.stage_layers)), self.constants.overlap_interference
        )

    def _stage_weight_params(self) -> float:
        n = self.numbers
        return n.total_params / (self.tp * self.pp) - n.expert_params * (1 - 1 / self.ep) / (
            self.tp * self.pp
        )

    # -- the step ----------------------------------------------------------------------------------------------
    def _bubble(self, microbatch_s: float, layout: Layout, microbatches: int) -> float:
        if self.pp <= 1:
            return 0.0
        virtual = layout.virtual_stages if layout.virtual_stages > 1 else self.options.virtual_stages
        schedule = Schedule(self.pp, microbatches, virtual)
        bubble = (self.pp - 1) / schedule.virtual_stages * microbatch_s
        return bubble + schedule.p2p_transfers_on_critical_path * self.p2p_s(layout.dp)

    def seconds(self, layout: Layout) -> float:
        """step(layout).step_time_s: the same sum, without building the breakdown or a copy of the micro-batch."""
        mb = self.shared or self.shared_microbatch()
        microbatches = self.microbatches(layout)
        fsdp = self._fsdp_of(mb, layout) if layout.zero == ZeroStage.WEIGHTS and layout.dp > 1 else 0.0
        microbatch_s = mb.total_s + fsdp
        # the terms most layouts do not have: not worked out then (the 0.0 their functions return)
        offload = 0.0
        if layout.offload != Offload.NONE:
            offload = offload_time_s(self.numbers, self.gpu, layout, microbatches, self.adapters)
        bubble = self._bubble(microbatch_s, layout, microbatches) if self.pp > 1 else 0.0
        return (
            microbatches * microbatch_s + bubble + self.gradient_sync(mb, self.gradient_bytes, layout)
            + self._optimizer_s(layout) + offload
        )  # fmt: skip

    def step(self, layout: Layout) -> StepTime:
        mb = self.microbatch(layout)
        m = self.microbatches(layout)
        bubble = self._bubble(mb.total_s, layout, m)
        dp = self.gradient_sync(mb, self.gradient_bytes, layout)
        optimizer = self._optimizer_s(layout)
        offload = offload_time_s(self.numbers, self.gpu, layout, m, self.adapters)
        # the sequences the step really processes: data groups x micro-batch x micro-batches (the search notes
        # where this differs from the requested global batch)
        tokens_per_step = max(1, layout.dp // self.cp) * self.micro_batch * m * self.seq_len
        n = self.numbers
        model_flops = tokens_per_step * training_flops_per_token(
            n.matmul_params, n.layers, self.seq_len, n.attention_width, Recompute.NONE, self.adapters
        )
        compute, tp, dp_comm, ep, cp = (
            m * mb.compute_s,
            m * mb.tp_s,
            dp + m * mb.fsdp_s,
            m * mb.ep_s,
            m * mb.cp_s,
        )
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

    def p2p_s(self, dp: int, span: int | None = None) -> float:
        """One point-to-point send of a micro-batch's boundary activations between neighbouring stages (ranks
        tp x dp apart, or `span` GPUs)."""
        link = self.link(2, span or self.tp * dp * 2)
        message = (
            self.tokens * self.shape.hidden * ACTIVATION_BYTES / (self.tp if self.sequence_parallel else 1)
        )
        return message / link.bus_bytes_per_s + link.latency_s

    def _gradient_bytes(self) -> float:
        """Gradient bytes per rank that ZeRO-0/1/2 reduce over dp (every layout of this shape: kept)."""
        trainable = self.numbers.lora_params if self.adapters else self.numbers.total_params
        expert_share = 0 if self.adapters else self.numbers.expert_params * (1 - 1 / self.ep)
        return (trainable - expert_share) / (self.tp * self.pp) * GRADIENT_BYTES

    def reduction(self, layout: Layout) -> gradient_reduction.Reduction:
        """How the runtime of `layout` reduces its gradients (TrainingOptions.runtime: none named, the one the
        search chooses for the layout, or a pinned one; planner.perf.gradient_reduction)."""
        named = self.options.runtime
        if not named:
            return gradient_reduction.NEUTRAL
        runtime = chosen_runtime(None if named == "auto" else named, str(self.task), self.tp, self.pp, self.ep,
                                 int(layout.zero), str(layout.offload), self.model.family)  # fmt: skip
        return gradient_reduction.reduction(runtime, layout.zero, self.model.hidden)

    def gradient_sync(self, mb: MicroBatch, gradient_bytes: float, layout: Layout) -> float:
        """Exposed seconds of reducing `gradient_bytes` per rank over layout.dp with ZeRO-0/1/2 (ZeRO-3 reduces
        per micro-batch, in _fsdp): an all-reduce, or a reduce-scatter plus the all-gather of the updated weights
        (the same volume), bucketed behind the last micro-batch's backward; the all-gather behind the next
        step's first forward. A layout's gradients: self.gradient_bytes (16-bit); the runtime's reduction
        (self.reduction) sets their width on the wire, the buckets and the tail that waits for the backward's end."""
        dp, zero = layout.dp, layout.zero
        if dp <= 1 or zero == ZeroStage.WEIGHTS:
            return 0.0
        plan = self.reduction(layout)
        link = self._ring_link(dp, dp * self.tp)
        if plan is gradient_reduction.NEUTRAL:
            total, last_bucket = self._neutral_reduction(gradient_bytes, dp, link)
        else:
            wire = gradient_bytes * plan.wire_bytes / GRADIENT_BYTES
            count = gradient_reduction.buckets(wire, plan, self.stage_layers)
            embedding = 0.0 if self.adapters else self.shape.vocab_shard * self.shape.hidden * plan.wire_bytes
            tail = gradient_reduction.tail_bytes(wire, plan, self.stage_layers, embedding)
            total = count * self._allreduce_s(wire / count, dp, link)
            last_bucket = self._allreduce_s(tail, dp, link)
        if self.comm_overlap is not None:
            return (1 - self.comm_overlap) * total
        if not plan.overlapped:
            return total
        window = mb.backward_s + (mb.forward_s if zero >= ZeroStage.OPTIMIZER else 0.0)
        return exposed_s(total, window, last_bucket, self.constants.overlap_interference)

    def _neutral_reduction(self, gradient_bytes: float, dp: int, link: Link) -> tuple[float, float]:
        """(all the reduction's seconds, its last bucket's) with no runtime named: one bucket per layer across
        nodes, one all-reduce inside a node, the last layer's share the tail."""
        if link.kind == "network":
            buckets = max(1, self.stage_layers)
            per_bucket = multi_node_allreduce_s(
                gradient_bytes / buckets, dp, dp * self.tp, self.owner.per_node, link.bus_bytes_per_s
            )
            total = buckets * per_bucket
        else:
            total = allreduce_time_s(gradient_bytes, dp, link.bus_bytes_per_s, link.latency_s)
        return total, total / max(1, self.stage_layers)

    def _allreduce_s(self, size_bytes: float, dp: int, link: Link) -> float:
        """One all-reduce of `size_bytes` per rank over dp ranks (NCCL's ring or tree across nodes)."""
        if link.kind == "network":
            return multi_node_allreduce_s(
                size_bytes, dp, dp * self.tp, self.owner.per_node, link.bus_bytes_per_s
            )
        return allreduce_time_s(size_bytes, dp, link.bus_bytes_per_s, link.latency_s)

    def _optimizer_s(self, layout: Layout) -> float:
        if layout.offload != Offload.NONE:
            return 0.0  # the CPU steps (offload_time_s)
        shards = self.tp * self.pp * (layout.dp if layout.zero >= ZeroStage.OPTIMIZER else 1)
        return optimizer_bytes(self.trainable / shards, self.options.optimizer) / self.rates.copy_bytes_per_s
