"""The arithmetic of one pipeline stage's GPU, in bytes: parameters per GPU and bytes per value, the
activations of the micro-batches in flight and the KV cache, then the sharded model states and the overhead.

Numbers only (the words are planner.memory.words); the parts that depend on fewer layout fields are computed
separately so that planner.memory.estimate.MemoryTotals can reuse them across a search."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import NamedTuple

from planner.memory.config import (
    ALLOCATOR_MARGIN_FRACTION,
    CUDA_CONTEXT_BYTES,
    LOGITS_BYTES_PER_VALUE,
    LSE_BYTES,
    NCCL_BYTES_PER_COMMUNICATOR,
    NF4_BITS,
    ROUTER_BYTES_PER_VALUE,
    WEIGHT_BITS,
    MemoryConfig,
)
from planner.models import ModelSpec, ParamCounts
from planner.vocabulary import Layout, Offload, Optimizer, Precision, Recompute, Task


@dataclass(frozen=True)
class Stage:
    index: int
    dense_layers: int
    moe_layers: int
    has_embedding: bool
    has_head: bool

    @property
    def layers(self) -> int:
        return self.dense_layers + self.moe_layers


@functools.lru_cache(maxsize=8192)
def pipeline_stages(model: ModelSpec, pp: int) -> tuple[Stage, ...]:
    """First and last pipeline stage (the only candidates for the fullest GPU).

    Layers are split as evenly as possible, the first stages taking the remainder; dense-first layers of an
    MoE model (DeepSeek's first_k_dense_replace) sit at the start.
    """
    base, remainder = divmod(model.layers, pp)
    dense_total = model.layers - model.moe_layers

    def stage(index: int) -> Stage:
        start = index * base + min(index, remainder)
        size = base + (1 if index < remainder else 0)
        dense = max(0, min(start + size, dense_total) - start)
        return Stage(index, dense, size - dense, index == 0, index == pp - 1)

    return (stage(0),) if pp == 1 else (stage(0), stage(pp - 1))


@functools.lru_cache(maxsize=8192)
def _lora_params_per_layer(model: ModelSpec, rank: int, targets: tuple[str, ...]) -> tuple[int, int, int]:
    """(adapter params in a dense layer, in an MoE layer outside routed experts, in all routed experts of one
    MoE layer, plus the number of adapted matrices a token passes in a dense layer) -- r x (d_in + d_out) each."""
    h = model.hidden
    chosen = set(targets)
    attention = 0
    if model.uses_mla:
        qk_head = model.qk_nope_head_dim + model.qk_rope_head_dim
        if "q" in chosen:
            attention += rank * ((model.q_lora_rank or h) + model.heads * qk_head)
        if chosen & {"k", "v"}:
            attention += rank * (
                model.kv_lora_rank + model.heads * (model.qk_nope_head_dim + model.v_head_dim)
            )
        if "o" in chosen:
            attention += rank * (model.heads * model.v_head_dim + h)
    else:
        widths = {"q": model.heads * model.head_dim, "k": model.kv_heads * model.head_dim}
        widths["v"] = widths["k"]
        widths["o"] = widths["q"]
        attention = sum(rank * (h + widths[t]) for t in ("q", "k", "v", "o") if t in chosen)

    def mlp(ffn: int) -> int:
        matrices = [t for t in ("gate", "up", "down") if t in chosen and (model.gated_mlp or t != "gate")]
        return len(matrices) * rank * (h + ffn) if ffn else 0

    shared_ffn = model.shared_expert_ffn or model.shared_experts * model.moe_ffn
    dense_layer = attention + mlp(model.ffn)
    moe_non_expert = attention + mlp(shared_ffn)
    routed = model.experts * mlp(model.moe_ffn) if model.is_moe else 0
    return dense_layer, moe_non_expert, routed


# --- Bytes per value ----------------------------------------------------------------------------------------


def training_weight_bytes(precision: str) -> float:
    """Bytes per trainable parameter held as the working weight copy."""
    if precision == Precision.FP32:
        return 4.0
    if precision == Precision.FP8:
        return 3.0  # bf16 weights + an fp8 copy cached for the GEMMs (Transformer Engine)
    return 2.0


def gradient_bytes(precision: str) -> float:
    return 4.0 if precision == Precision.FP32 else 2.0


# Optimizer state per trainable parameter: AdamW m + v in fp32; 8-bit AdamW m + v in int8 (Dettmers et al.
# 2021, arXiv 2110.02861); SGD momentum in fp32.
_OPTIMIZER_STATE_BYTES = {Optimizer.ADAMW: 8.0, Optimizer.ADAMW8BIT: 2.0, Optimizer.SGD: 4.0}


def optimizer_bytes(optimizer: Optimizer, precision: str) -> float:
    """Optimizer state per trainable parameter; mixed precision adds the fp32 master copy (4 bytes)."""
    master = 0.0 if precision == Precision.FP32 else 4.0
    return master + _OPTIMIZER_STATE_BYTES[optimizer]


def _activation_element_bytes(task: Task, precision: str) -> float:
    if task == Task.QLORA:
        return 2.0
    return 4.0 if precision == Precision.FP32 else 2.0


def kv_element_bytes(config: MemoryConfig) -> float:
    """KV-cache bytes per value: kv_precision if given, else the weights' precision (16 bit for int formats)."""
    precision = config.kv_precision
    if precision is None:
        precision = Precision.BF16 if Precision(config.precision).is_weight_only else config.precision
    return WEIGHT_BITS[precision] / 8


def master_precision(precision: str) -> Precision:
    """The precision gradients and optimizer state are counted in: fp32 stays fp32, everything else bf16."""
    return Precision.FP32 if precision == Precision.FP32 else Precision.BF16


# --- The estimate -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Divisors:
    """How one layout divides the model among the ranks (from tp and ep; dp is read where it is used).

    expert_divisor: expert tensor parallel 1 when ep > 1 (each expert whole on one rank, Megatron-Core's
    recommendation for fine-grained MoE); with ep 1 experts are split over tp like every other matrix.
    """

    tp: int
    expert_divisor: int
    kv_heads_per_rank: int


def divisors_of(model: ModelSpec, layout: Layout) -> Divisors:
    expert_divisor = layout.ep if layout.ep > 1 else layout.tp
    return Divisors(layout.tp, expert_divisor, max(1, model.kv_heads // layout.tp))


def _stage_params(model: ModelSpec, counts: ParamCounts, stage: Stage, pp: int) -> tuple[int, int, int]:
    """(non-expert block params, routed-expert params, embedding/head/final-norm params) of one stage."""
    blocks = stage.dense_layers * counts.dense_layer + stage.moe_layers * counts.moe_layer_non_expert
    experts = stage.moe_layers * counts.routed_experts_per_layer
    ends = 0
    if stage.has_embedding:
        ends += counts.embedding
    if stage.has_head:
        ends += counts.final_norm + counts.lm_head
        if model.tied_embeddings and pp > 1:
            ends += model.vocab * model.hidden  # the last stage keeps its own copy of the tied matrix
    return blocks, experts, ends


def _largest_unit_params(model: ModelSpec, counts: ParamCounts, divisors: Divisors) -> float:
    """Parameters per GPU of the biggest unit ZeRO-3/FSDP gathers at once (a layer, the embedding or head)."""
    layer = counts.dense_layer / divisors.tp if model.layers > model.moe_layers else 0.0
    if model.is_moe:
        moe = (
            counts.moe_layer_non_expert / divisors.tp
            + counts.routed_experts_per_layer / divisors.expert_divisor
        )
        layer = max(layer, moe)
    head = (counts.lm_head or model.vocab * model.hidden) / divisors.tp
    return max(layer, counts.embedding / divisors.tp, head)


def _attention_activations(
    model: ModelSpec, config: MemoryConfig, divisors: Divisors, e: float, seq_len: int
) -> float:
    """Attention tensors autograd keeps per token for one layer on one GPU: Q, K, V, the attention output
    (MLA: also its latents), the flash log-sum-exp or, unfused, the expanded K/V and the probabilities."""
    tp = divisors.tp
    heads_per_rank = model.heads / tp
    if model.uses_mla:
        qk_head = model.qk_nope_head_dim + model.qk_rope_head_dim
        latent = e * (2 * model.q_lora_rank + 2 * model.kv_lora_rank + model.qk_rope_head_dim)
        attention = e * model.heads * (2 * qk_head + 2 * model.v_head_dim) / tp + latent
    else:
        q_width = model.heads * model.head_dim / tp
        kv_width = divisors.kv_heads_per_rank * model.head_dim
        attention = e * (2 * q_width + 2 * kv_width)  # Q, attention output; K, V
    if config.flash_attention:
        return attention + LSE_BYTES * heads_per_rank
    if not model.uses_mla and model.kv_heads < model.heads:
        # unfused attention expands K and V to every query head (HF's repeat_kv, Megatron's core attention)
        attention += 2 * e * (heads_per_rank - divisors.kv_heads_per_rank) * model.head_dim
    if config.layout.recompute == Recompute.NONE:
        attention += (
            e * heads_per_rank * seq_len
        )  # softmax probabilities, a x s per token (Korthikanti's 5as/h)
    return attention


def _per_token_layer_activations(
    model: ModelSpec, config: MemoryConfig, divisors: Divisors, moe: bool, seq_len: int
) -> float:
    """Bytes autograd keeps per token for one layer (one micro-batch), on one GPU.

    Korthikanti et al. count 34 x h bytes per token in 16 bit for a GPT layer with dropout; the same tensors
    here: each norm's input, the attention and MLP inputs, Q, K, V, the attention output, the MLP
    intermediates (4 x ffn for a gated MLP: gate, its activation, up, their product; 2 x ffn otherwise).
    """
    task = config.task
    e = _activation_element_bytes(task, config.precision)
    h = model.hidden
    tp = divisors.tp
    replicated = (model.norms_per_layer + 2) * e * h  # norm inputs + attention input + MLP input
    attention = _attention_activations(model, config, divisors, e, seq_len)
    mlp_factor = 4 if model.gated_mlp else 2
    if moe:
        shared_ffn = model.shared_expert_ffn or model.shared_experts * model.moe_ffn
        k = model.experts_per_token
        mlp = (k * (2 * e * h + mlp_factor * e * model.moe_ffn) + mlp_factor * e * shared_ffn) / tp
        replicated += ROUTER_BYTES_PER_VALUE * model.experts
    else:
        mlp = mlp_factor * e * model.ffn / tp
    if task.is_adapter:
        # each adapter keeps its down-projected input (r values) for the up-projection's backward
        adapted = sum(1 for t in config.lora_targets if t in ("q", "k", "v", "o")) + (
            sum(1 for t in config.lora_targets if t in ("gate", "up", "down"))
            * (model.experts_per_token or 1)
        )
        mlp += adapted * e * config.lora_rank / tp
    sp_divisor = tp if config.sequence_parallel else 1
    return replicated / sp_divisor + attention + mlp


def _inference_working_bytes(
    model: ModelSpec, config: MemoryConfig, divisors: Divisors, seq_len: int
) -> float:
    """Largest transient of one layer's forward without autograd, per token: the layer's input (still held by
    the caller), the updated residual stream and its normalised copy, plus the attention tensors or the MLP
    intermediates (gate activation, up, their product), whichever is larger."""
    e = 2.0 if config.precision != Precision.FP32 else 4.0
    h = model.hidden
    tp = divisors.tp
    residual = 3 * e * h
    if model.uses_mla:
        attention = (
            e
            * model.heads
            * (2 * (model.qk_nope_head_dim + model.qk_rope_head_dim) + 2 * model.v_head_dim)
            / tp
        )
    else:
        attention = e * (
            2 * model.heads * model.head_dim / tp + 2 * divisors.kv_heads_per_rank * model.head_dim
        )
    if not config.flash_attention:
        attention += 3 * e * model.heads / tp * seq_len  # scores, masked scores, probabilities
        if not model.uses_mla and model.kv_heads < model.heads:
            attention += (
                2 * e * (model.heads / tp - divisors.kv_heads_per_rank) * model.head_dim
            )  # K, V expanded
    if model.is_moe:
        width = model.experts_per_token * model.moe_ffn + (
            model.shared_expert_ffn or model.shared_experts * model.moe_ffn
        )
        width = max(width, model.ffn if model.dense_layers else 0)
    else:
        width = model.ffn
    mlp = (3 if model.gated_mlp else 2) * e * width / tp
    return residual + max(attention, mlp)


class StageAmounts(NamedTuple):
    """Bytes of one pipeline stage's GPU by term, before rounding up, plus the figures its words quote.

    Numbers and words are kept apart so that search loops, which only need totals, skip the words. A
    NamedTuple (immutable like the frozen dataclasses here): a search builds tens of thousands of these, and a
    tuple is several times cheaper to build than a frozen dataclass.
    """

    stage: int
    weights: float
    gradients: float
    optimizer: float
    activations: float
    kv_cache: float
    overhead: float
    host_bytes: float
    gathered_bytes: float  # ZeRO-3's unsharded working copy of the largest unit (weights + gradients)
    params_gpu: float
    gathered_weights: float
    streamed_weights: float
    adapter_params: float
    logits: float
    inflight: int
    communicators: int

    @property
    def total_bytes(self) -> int:
        """Per-GPU bytes as MemoryBreakdown.total_bytes counts them (each term rounded up on its own)."""
        ceil = math.ceil
        return (
            ceil(self.weights)
            + ceil(self.gradients)
            + ceil(self.optimizer)
            + ceil(self.activations)
            + ceil(self.kv_cache)
            + ceil(self.overhead)
        )


@dataclass(frozen=True, slots=True)
class StageShape:
    """What one stage's GPU holds given tp, pp and ep only: parameter counts per GPU and bytes per parameter.
    stage_activations adds what the micro-batch and recompute mode hold, stage_state the sharded model states
    (dp, ZeRO stage, offload) and the overhead."""

    stage: int
    task: Task
    training: bool  # task.is_training, kept as a field: the state arithmetic reads it in search loops
    full_training: bool
    adapter: bool
    tp: int
    pp: int
    ep: int
    params_gpu: float
    dense_params_gpu: float
    expert_params_gpu: float
    stored_weights: float
    bytes_per_param: float
    largest: float  # parameters per GPU of the largest unit ZeRO-3 gathers
    qlora_workspace: float
    adapter_dense: float
    adapter_expert: float
    adapter_bytes: float
    trainable_dense: float
    trainable_expert: float
    grad_per: float
    opt_per: float


class StageActivations(NamedTuple):
    """Bytes one stage's GPU holds for the micro-batch in flight: activations (logits included), KV cache.
    A NamedTuple for the same reason as StageAmounts."""

    activations: float
    logits: float
    inflight: int
    kv_cache: float


def _stored_weights(
    model: ModelSpec, config: MemoryConfig, params_gpu: float, high_precision_gpu: float
) -> tuple[float, float]:
    """(weight bytes on this GPU, bytes per parameter): a training working copy, or the stored format, where
    embedding, head, norms and biases stay 16 bit beside quantised linear layers."""
    if config.task.is_full_training:
        bytes_per_param = training_weight_bytes(config.precision)
        return params_gpu * bytes_per_param, bytes_per_param
    bits = NF4_BITS if config.task == Task.QLORA else WEIGHT_BITS[config.precision]
    low = bits < 16
    linear_gpu = params_gpu - (high_precision_gpu if low else 0.0)
    stored = linear_gpu * bits / 8 + (high_precision_gpu * 2 if low else 0.0)
    return stored, stored / params_gpu if params_gpu else 0.0


def stage_shape(
    model: ModelSpec, config: MemoryConfig, stage: Stage, counts: ParamCounts, divisors: Divisors
) -> StageShape:
    """The numbers of one stage that depend on tp, pp and ep only (not on dp, zero, offload, recompute or
    micro_batch)."""
    task, layout = config.task, config.layout
    tp, pp = layout.tp, layout.pp
    blocks, experts, ends = _stage_params(model, counts, stage, pp)
    small = stage.layers * counts.small_per_layer  # the final norm is already part of `ends`
    dense_params_gpu = (blocks + ends) / tp
    expert_params_gpu = experts / divisors.expert_divisor
    params_gpu = dense_params_gpu + expert_params_gpu
    # Parameters kept at 16 bit even when the linear layers are quantised: embedding, head, norms, biases.
    stored, bytes_per_param = _stored_weights(model, config, params_gpu, (ends + small) / tp)
    qlora_workspace = 0.0
    if task == Task.QLORA:
        # bitsandbytes dequantises one matrix at a time to bf16 for the matmul
        widest = max(model.ffn, model.moe_ffn, model.heads * max(model.head_dim, model.v_head_dim))
        qlora_workspace = model.hidden * widest / tp * 2
    # trainable parameters: the full model, or the LoRA adapters
    adapter_dense = adapter_expert = adapter_bytes = 0.0
    trainable_dense = trainable_expert = 0.0
    if task.is_adapter:
        per_dense, per_moe, per_routed = _lora_params_per_layer(model, config.lora_rank, config.lora_targets)
        adapter_dense = (stage.dense_layers * per_dense + stage.moe_layers * per_moe) / tp
        adapter_expert = stage.moe_layers * per_routed / divisors.expert_divisor
        adapter_bytes = training_weight_bytes(master_precision(config.precision))
        trainable_dense, trainable_expert = adapter_dense, adapter_expert
    elif task.is_full_training:
        trainable_dense, trainable_expert = dense_params_gpu, expert_params_gpu
    grad_per = opt_per = 0.0
    if task.is_training:
        precision = master_precision(config.precision)
        grad_per = gradient_bytes(precision)
        opt_per = optimizer_bytes(config.optimizer, precision)
    return StageShape(
        stage=stage.index, task=task, training=task.is_training, full_training=task.is_full_training,
        adapter=task.is_adapter, tp=tp, pp=pp, ep=layout.ep, params_gpu=params_gpu,
        dense_params_gpu=dense_params_gpu, expert_params_gpu=expert_params_gpu, stored_weights=stored,
        bytes_per_param=bytes_per_param, largest=_largest_unit_params(model, counts, divisors),
        qlora_workspace=qlora_workspace, adapter_dense=adapter_dense, adapter_expert=adapter_expert,
        adapter_bytes=adapter_bytes, trainable_dense=trainable_dense, trainable_expert=trainable_expert,
        grad_per=grad_per, opt_per=opt_per,
    )  # fmt: skip


def per_token_activations(model: ModelSpec, config: MemoryConfig, divisors: Divisors) -> tuple[float, float]:
    """(dense layer, MoE layer) activation bytes per token in training; they depend on tp and the recompute mode
    (only without flash attention), not on pp, ep, dp or the micro-batch."""
    per_dense = _per_token_layer_activations(model, config, divisors, False, config.seq_len)
    per_moe = (
        _per_token_layer_activations(model, config, divisors, True, config.seq_len) if model.is_moe else 0.0
    )
    return per_dense, per_moe


def _inflight_microbatches(config: MemoryConfig, stage: Stage) -> int:
    """Micro-batches whose activations a stage holds at once: 1F1B keeps pp on the first stage."""
    pp = config.layout.pp
    if stage.index == 0 and pp > 1:
        return config.inflight_microbatches or pp
    if config.inflight_microbatches and pp > 1:
        return max(1, min(config.inflight_microbatches, pp - stage.index))
    return 1


def stage_activations(
    model: ModelSpec,
    config: MemoryConfig,
    stage: Stage,
    divisors: Divisors,
    per_token: tuple[float, float] | None,
    recompute: Recompute,
    micro_batch: int,
) -> StageActivations:
    """Activations and KV cache of one stage at `micro_batch` sequences with `recompute` (these two are read
    from the arguments, the rest from config); per_token: per_token_activations (training only)."""
    tp = divisors.tp
    tokens = micro_batch * config.seq_len
    e = _activation_element_bytes(config.task, config.precision)
    inflight = 1
    logits = 0.0
    if per_token is not None:  # training
        per_dense, per_moe = per_token
        inflight = _inflight_microbatches(config, stage)
        sp_divisor = tp if config.sequence_parallel else 1
        if recompute == Recompute.FULL:
            kept = stage.layers * e * model.hidden / sp_divisor * tokens * inflight
            working = max(per_dense, per_moe) * tokens
            activations = kept + working
        else:
            activations = (stage.dense_layers * per_dense + stage.moe_layers * per_moe) * tokens * inflight
        if stage.has_head:
            logits = tokens * (LOGITS_BYTES_PER_VALUE * model.vocab / tp + 2 * e * model.hidden / sp_divisor)
            activations += logits
    else:
        working = _inference_working_bytes(model, config, divisors, config.seq_len) * tokens
        logits = micro_batch * LOGITS_BYTES_PER_VALUE * model.vocab / tp if stage.has_head else 0.0
        activations = working + logits
    kv = 0.0
    if config.task == Task.INFERENCE:
        kv_bytes = kv_element_bytes(config)
        if model.uses_mla:
            per_token_layer = (model.kv_lora_rank + model.qk_rope_head_dim) * kv_bytes
        else:
            per_token_layer = 2 * divisors.kv_heads_per_rank * model.head_dim * kv_bytes
        kv = stage.layers * tokens * per_token_layer
    return StageActivations(activations, logits, inflight, kv)


# The offload modes as module constants: stage_state runs tens of thousands of times per search, and reading
# an enum member off its class costs several times a plain name.
_OFFLOAD_ALL = Offload.ALL
_OFFLOAD_OPTIMIZER = Offload.OPTIMIZER


def stage_state(shape: StageShape, acts: StageActivations, dp: int, zero: int, offload: str) -> StageAmounts:
    """A stage's numbers once dp, the ZeRO stage and offload are known: sharded model states and overhead."""
    training = shape.training
    zero = zero if training else 0
    ep = shape.ep
    # ZeRO shards over the ranks that hold the same replica: dp for dense parts; for experts the
    # expert-data-parallel group dp x tp / ep.
    dense_shard = dp
    expert_shard = dp * shape.tp // ep if ep > 1 else dp
    host = 0.0
    gathered_total = 0.0  # ZeRO-3's unsharded working copy of the largest unit (weights + gradients)
    gathered_weights = streamed_weights = 0.0
    largest, bytes_per_param = shape.largest, shape.bytes_per_param

    # --- weights
    weights = shape.stored_weights
    if zero == 3:
        shard = (
            shape.dense_params_gpu / dense_shard + shape.expert_params_gpu / expert_shard
        ) * bytes_per_param
        gathered_weights = largest * bytes_per_param
        gathered_total += gathered_weights
        if offload == _OFFLOAD_ALL:
            host += shard
            weights = gathered_weights
        else:
            weights = shard + gathered_weights
    elif not training and offload == _OFFLOAD_ALL:
        host += weights
        weights = streamed_weights = largest * bytes_per_param
    weights += shape.qlora_workspace
    if shape.adapter:
        adapter_dense, adapter_expert = shape.adapter_dense, shape.adapter_expert
        if zero == 3:
            weights += (adapter_dense / dense_shard + adapter_expert / expert_shard) * shape.adapter_bytes
        else:
            weights += (adapter_dense + adapter_expert) * shape.adapter_bytes

    # --- gradients and optimizer
    gradients = optimizer = 0.0
    if training:
        trainable_dense, trainable_expert = shape.trainable_dense, shape.trainable_expert
        trainable = trainable_dense + trainable_expert
        shards = trainable_dense / dense_shard + trainable_expert / expert_shard
        gradients = (shards if zero >= 2 else trainable) * shape.grad_per
        if zero == 3 and shape.full_training:
            gradients += largest * shape.grad_per
            gathered_total += largest * shape.grad_per
        optimizer = (shards if zero >= 1 else trainable) * shape.opt_per
        if offload == _OFFLOAD_OPTIMIZER or offload == _OFFLOAD_ALL:
            host += optimizer
            optimizer = 0.0

    # --- overhead: one NCCL communicator per parallel group
    communicators = (dp > 1 and training) + (shape.tp > 1) + (shape.pp > 1) + (ep > 1)
    dynamic = gradients + acts.activations + acts.kv_cache  # allocated and freed step by step: fragmentation
    overhead = (
        CUDA_CONTEXT_BYTES + ALLOCATOR_MARGIN_FRACTION * dynamic + communicators * NCCL_BYTES_PER_COMMUNICATOR
    )
    return StageAmounts(
        shape.stage,
        weights,
        gradients,
        optimizer,
        acts.activations,
        acts.kv_cache,
        overhead,
        host,
        gathered_total,
        shape.params_gpu,
        gathered_weights,
        streamed_weights,
        shape.adapter_dense + shape.adapter_expert,
        acts.logits,
        acts.inflight,
        communicators,
    )


def stage_amounts(model: ModelSpec, config: MemoryConfig, stage: Stage, counts: ParamCounts) -> StageAmounts:
    """The numbers of one stage (bytes per GPU) of a normalised config; stage_terms puts them into words."""
    layout = config.layout
    divisors = divisors_of(model, layout)
    shape = stage_shape(model, config, stage, counts, divisors)
    per_token = per_token_activations(model, config, divisors) if config.task.is_training else None
    acts = stage_activations(model, config, stage, divisors, per_token, layout.recompute, layout.micro_batch)
    return stage_state(shape, acts, layout.dp, layout.zero, layout.offload)
