"""The arithmetic of one pipeline stage's GPU, in bytes: parameters per GPU and bytes per value, the
activations of the micro-batches in flight and the KV cache, then the sharded model states and the overhead.

Numbers only (the words are planner.memory.words); the parts that depend on fewer layout fields are computed
separately so that planner.memory.estimate.MemoryTotals can reuse them across a search."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
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
from planner.models.kv_cache import kv_cache_bytes_per_sequence, state_bytes_per_sequence
from planner.models.spec import mixer_difference
from planner.vocabulary import Layout, Offload, Optimizer, Precision, Recompute, Task

# Model families whose q, k and v come from one fused projection (gpt2's c_attn, gpt_neox's query_key_value).
FUSED_QKV_FAMILIES = ("gpt2", "gpt_neox")


@dataclass(frozen=True)
class Stage:
    index: int
    dense_layers: int
    moe_layers: int
    has_embedding: bool
    has_head: bool
    first_layer: int = 0  # index of the stage's first decoder layer in the model

    @property
    def layers(self) -> int:
        return self.dense_layers + self.moe_layers

    @property
    def layer_indices(self) -> range:
        return range(self.first_layer, self.first_layer + self.layers)


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
        return Stage(index, dense, size - dense, index == 0, index == pp - 1, start)

    return (stage(0),) if pp == 1 else (stage(0), stage(pp - 1))


def split_stages(model: ModelSpec, layer_counts: tuple[int, ...]) -> tuple[Stage, ...]:
    """Every stage of a pipeline whose stages hold the given numbers of consecutive layers (uneven: sized per
    GPU type); the first keeps the embedding, the last the final norm and LM head, and an MoE model's dense-first
    layers sit at the start, as in pipeline_stages."""
    if sum(layer_counts) != model.layers or min(layer_counts, default=0) < 1:
        raise ValueError(f"stages of {layer_counts} layers do not hold the model's {model.layers}")
    dense_total = model.layers - model.moe_layers
    stages, start = [], 0
    for index, size in enumerate(layer_counts):
        dense = max(0, min(start + size, dense_total) - start)
        stages.append(Stage(index, dense, size - dense, index == 0, index == len(layer_counts) - 1, start))
        start += size
    return tuple(stages)


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
        separate: tuple[str, ...] = ("q", "k", "v", "o")
        if model.family in FUSED_QKV_FAMILIES and chosen & {"q", "k", "v"}:
            # gpt2's c_attn, gpt_neox's query_key_value: one projection, one adapter for q, k and v
            attention += rank * (h + widths["q"] + 2 * widths["k"])
            separate = ("o",)
        attention += sum(rank * (h + widths[t]) for t in separate if t in chosen)

    def mlp(ffn: int) -> int:
        matrices = [t for t in ("gate", "up", "down") if t in chosen and (model.gated_mlp or t != "gate")]
        return len(matrices) * rank * (h + ffn) if ffn else 0

    shared_ffn = model.shared_expert_ffn or model.shared_experts * model.moe_ffn
    dense_layer = attention + mlp(model.ffn)
    moe_non_expert = attention + mlp(shared_ffn)
    routed = model.experts * mlp(model.moe_ffn) if model.is_moe else 0
    return dense_layer, moe_non_expert, routed


# --- Bytes per value ----------------------------------------------------------------------------------------
# Mixed precision as PyTorch runs it (torch.amp autocast under HF Trainer / accelerate, FSDP2's
# MixedPrecisionPolicy): the weights, their gradients and AdamW's m and v stay fp32 (4 + 4 + 8 bytes/param) and
# the matmuls run on 16-bit copies. DeepSpeed's bf16 optimizer splits the same 16 bytes as 2 + 2 + 12.


def training_weight_bytes(precision: str) -> float:
    """Bytes per trainable parameter held as the weight itself: fp32 under autocast (fp8: + a cached fp8 copy)."""
    if precision == Precision.FP8:
        return 3.0  # bf16 weights + an fp8 copy cached for the GEMMs (Transformer Engine)
    return 4.0


def gradient_bytes(precision: str) -> float:
    """Gradients take the weights' dtype: fp32 under autocast (bf16 beside Transformer Engine's fp8)."""
    return 2.0 if precision == Precision.FP8 else 4.0


# Optimizer state per trainable parameter: AdamW m + v in fp32; 8-bit AdamW m + v in int8 (Dettmers et al.
# 2021, arXiv 2110.02861); SGD momentum in fp32.
_OPTIMIZER_STATE_BYTES = {Optimizer.ADAMW: 8.0, Optimizer.ADAMW8BIT: 2.0, Optimizer.SGD: 4.0}
# Megatron-LM mixed precision (tensor/pipeline parallel layouts): bf16 weights (2 bytes), fp32 main gradients
# (4, accumulated in the DDP buffer), an fp32 master copy (4) + the optimizer state, which its distributed
# optimizer (ZeRO-1) shards over dp (Megatron-LM docs, "Distributed Optimizer": 18 bytes/param without it).
MEGATRON_WEIGHT_BYTES = 2.0
MEGATRON_GRADIENT_BYTES = 4.0
MASTER_BYTES = 4.0


def optimizer_bytes(optimizer: Optimizer, precision: str) -> float:
    """Optimizer state per trainable parameter; an fp32 master copy (4 bytes) only beside fp8 weights."""
    master = 4.0 if precision == Precision.FP8 else 0.0
    return master + _OPTIMIZER_STATE_BYTES[optimizer]


def megatron_style(config: MemoryConfig) -> bool:
    """16-bit full training with tensor or pipeline parallel and ZeRO-0/1: counted as Megatron-LM holds it."""
    layout = config.layout
    return (
        config.task.is_full_training and compute_bytes(config) < 4 and (layout.tp > 1 or layout.pp > 1)
        and layout.zero <= 1
    )


def compute_bytes(config: MemoryConfig) -> float:
    """Bytes of one value the matmuls produce: 4 in fp32, 2 under 16-bit autocast or on 16-bit weights."""
    if config.task == Task.QLORA:
        return 2.0
    return 4.0 if config.precision == Precision.FP32 else 2.0


def kv_element_bytes(config: MemoryConfig) -> float:
    """KV-cache bytes per value: kv_precision if given, else the weights' precision (16 bit for int formats)."""
    precision = config.kv_precision
    if precision is None:
        precision = Precision.BF16 if Precision(config.precision).is_weight_only else config.precision
    return WEIGHT_BITS[precision] / 8


def master_precision(precision: str) -> Precision:
    """The precision gradients and optimizer state are counted in: fp8 keeps bf16 gradients, the rest fp32."""
    return Precision.FP8 if precision == Precision.FP8 else Precision.FP32


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
    blocks += mixer_difference(model, counts.attention, stage.layer_indices)  # state-space layers' own mixers
    experts = stage.moe_layers * counts.routed_experts_per_layer
    ends = 0
    if stage.has_embedding:
        ends += counts.embedding
    if stage.has_head:
        ends += counts.final_norm + counts.lm_head
        if model.tied_embeddings and pp > 1:
            ends += model.vocab * model.hidden  # the last stage keeps its own copy of the tied matrix
    return blocks, experts, ends


def _fsdp_units(model: ModelSpec, counts: ParamCounts, divisors: Divisors) -> tuple[float, float]:
    """Parameters per GPU of FSDP2's units with the common wrapping (each decoder layer, then the root): (the
    largest layer, the root: embedding, final norm and LM head gathered together)."""
    layer = counts.dense_layer / divisors.tp if model.layers > model.moe_layers else 0.0
    if model.is_moe:
        moe = (
            counts.moe_layer_non_expert / divisors.tp
            + counts.routed_experts_per_layer / divisors.expert_divisor
        )
        layer = max(layer, moe)
    root = (counts.embedding + counts.final_norm + counts.lm_head) / divisors.tp
    return layer, root


# Training activations follow what autograd saves in Hugging Face transformers' decoder layers (checked tensor by
# tensor against torch on CPU, tests/planner/test_memory_vs_torch.py): HF's RMSNorm computes in fp32 and keeps its
# fp32 input and normalised value; LayerNorm keeps its fp32 input; a Linear keeps its input when its weight
# trains, and under autocast each Linear keeps its own 16-bit copy of it; flash attention (SDPA) keeps Q, K, V,
# its output and an fp32 log-sum-exp per head; eager attention keeps Q, K and V expanded to every head, the
# probabilities (and their fp32 softmax under autocast); no dropout (modern recipes; GPT-2's default 0.1 adds masks).


# Tensor-parallel training (Megatron-Core with Transformer Engine, as Megatron-LM and NeMo run it) keeps less than
# Hugging Face's layers: TE's fused LayerNormLinear saves the norm's 16-bit input, its 16-bit output (the input
# of the QKV or FC1 GEMM, sequence-parallel sharded) and the per-token statistics (TransformerEngine
# transformer_engine/pytorch/module/layernorm_linear.py, tensors_to_save: inputmat, ln_out, mu, rsigma); the
# fused SwiGLU saves only its input, FC1's gate+up output (Megatron-LM megatron/core/fusions/fused_bias_swiglu.py,
# SwiGLUFunction.forward: save_for_backward(input)), FC2 keeps the activation's output: 3 ffn-wide tensors, and
# a GELU MLP 2 (FC1's output, FC2's input). Korthikanti et al. 2022 (arXiv 2205.05198) count the same tensors.
TE_NORM_LINEAR_VALUES = 2  # values per hidden feature per norm: its input and its output
TE_GATED_MLP_TENSORS = 3
TE_MLP_TENSORS = 2


def _transformer_engine(config: MemoryConfig, tp: int, sharded: bool) -> bool:
    """Full training with tensor parallel on 16-bit weights: what Megatron-Core with Transformer Engine keeps."""
    return sharded and tp > 1 and config.task.is_full_training


def _norm_bytes(model: ModelSpec, frozen: bool, residual: float, autocast: bool) -> float:
    """Bytes per token one norm keeps, per hidden feature (+ its per-token statistics, see _norm_stats), on a
    residual stream of `residual` bytes per value: LayerNorm keeps its input (autocast runs it in fp32); HF's
    RMSNorm keeps its input in fp32 (a copy of a 16-bit one) and, with a trained weight, the normalised value in
    the residual's dtype."""
    if model.norm == "layernorm":
        return 4.0 if autocast else residual
    return 4.0 if frozen else 4.0 + residual


def _residual_bytes(config: MemoryConfig, sharded: bool) -> tuple[float, bool]:
    """(bytes per value of the residual stream, whether autocast runs): autocast over fp32 weights keeps an fp32
    residual; FSDP2's 16-bit compute, LoRA on a 16-bit base and inference keep the compute dtype."""
    return _residual_of(compute_bytes(config), config.task.is_full_training, sharded)


def _residual_of(e: float, full_training: bool, sharded: bool) -> tuple[float, bool]:
    """_residual_bytes from the compute bytes per value `e` and whether every weight trains."""
    autocast = e < 4 and not sharded
    if full_training and not sharded:
        return 4.0, autocast
    return e, autocast


def _norm_stats(model: ModelSpec) -> float:
    return 8.0 if model.norm == "layernorm" else 4.0  # mean + rstd, or rstd, in fp32


def _attention_activations(
    model: ModelSpec, config: MemoryConfig, divisors: Divisors, e: float, seq_len: int
) -> float:
    """Attention tensors autograd keeps per token for one layer on one GPU: flash (SDPA) keeps Q, K, V, the output
    and an fp32 log-sum-exp per head; eager attention keeps Q, K and V expanded to every query head, the output and
    the probabilities (under autocast also the fp32 softmax they were cast from). MLA: also its latents."""
    tp = divisors.tp
    heads_per_rank = model.heads / tp
    if model.uses_mla:
        qk_head = model.qk_nope_head_dim + model.qk_rope_head_dim
        latent = e * (2 * model.q_lora_rank + 2 * model.kv_lora_rank + model.qk_rope_head_dim)
        q_width, k_width, v_width = model.heads * qk_head / tp, model.heads * qk_head / tp, model.heads * model.v_head_dim / tp
        kv_heads_rank = heads_per_rank
    else:
        latent = 0.0
        q_width = v_width = model.heads * model.head_dim / tp
        kv_heads_rank = divisors.kv_heads_per_rank
        k_width = kv_heads_rank * model.head_dim
    if config.flash_attention:
        kv = k_width + kv_heads_rank * (model.v_head_dim if model.uses_mla else model.head_dim)
        return e * (q_width + kv + v_width) + latent + LSE_BYTES * heads_per_rank
    expanded = e * (q_width + (k_width if model.uses_mla else q_width) + v_width)  # Q, K and V per query head
    probabilities = e * heads_per_rank * seq_len
    if e < 4:
        probabilities += 4 * heads_per_rank * seq_len  # the fp32 softmax the 16-bit probabilities come from
    if config.layout.recompute == Recompute.SELECTIVE:
        probabilities = 0.0  # selective recompute: the attention core is recomputed in the backward pass
    return expanded + e * v_width + probabilities + latent


def _mlp_tensors(model: ModelSpec, frozen: bool) -> int:
    """Intermediate tensors (ffn wide) one MLP keeps: gated: gate output, its activation, up output, their
    product (the down projection's input); GPT-2's gelu_new, written out in Python: five; native gelu: two. A
    frozen down projection does not keep its input."""
    if model.gated_mlp:
        count = 4
    elif model.activation == "gelu_new":
        count = 5
    else:
        count = 2
    return count - 1 if frozen else count


def _linear_input_bytes(model: ModelSpec, config: MemoryConfig, e: float, sharded: bool) -> float:
    """Per token per hidden feature: the inputs of the attention and MLP projections that training keeps (the
    output projection's and down projection's inputs are counted with attention and the MLP). FSDP2 (sharded)
    computes on 16-bit weights, without autocast: one shared input each."""
    if not config.task.is_full_training:
        return 0.0
    if e >= 4 or sharded:
        return 2 * e  # the attention input and the MLP input, each shared by its projections
    fused = model.family in FUSED_QKV_FAMILIES
    attention_inputs = 1 if fused else (1 if model.uses_mla else 3)
    mlp_inputs = 2 if model.gated_mlp else 1
    return e * (attention_inputs + mlp_inputs)  # autocast: each projection its own 16-bit copy


def _adapter_activations(model: ModelSpec, config: MemoryConfig, e: float, tp: int) -> float:
    """Per token: each LoRA adapter keeps its own copy of its input (peft casts it to the fp32 adapter dtype and
    autocast back to 16 bit) and its down-projected r values; in fp32 the inputs are shared."""
    h, r = model.hidden, config.lora_rank
    q_width = model.heads * model.head_dim
    attention = [str(t) for t in config.lora_targets if t in ("q", "k", "v", "o")]
    mlp = [str(t) for t in config.lora_targets if t in ("gate", "up", "down") and (model.gated_mlp or t != "gate")]
    if model.family in FUSED_QKV_FAMILIES and set(attention) & {"q", "k", "v"}:
        attention = ["qkv"] + [t for t in attention if t == "o"]  # one adapter on the fused projection
    widths = {"q": h, "k": h, "v": h, "qkv": h, "o": q_width, "gate": h, "up": h, "down": model.ffn}
    experts = model.experts_per_token or 1
    inputs = sum(widths[t] for t in attention) + experts * sum(widths[t] for t in mlp)
    count = len(attention) + experts * len(mlp)
    if e >= 4:  # fp32: no casts, the adapters read tensors that are kept anyway (or one shared input)
        inputs = h * bool(attention) + h * bool(mlp)
    return (e * inputs + e * r * count) / tp


def _per_token_layer_activations(
    model: ModelSpec, config: MemoryConfig, divisors: Divisors, moe: bool, seq_len: int, sharded: bool = False
) -> float:
    """Bytes autograd keeps per token for one layer (one micro-batch), on one GPU: the norms' inputs (and
    normalised values), the projections' inputs, attention, the MLP intermediates, MoE routing, LoRA inputs."""
    task = config.task
    e = compute_bytes(config)
    frozen = task.is_adapter
    h = model.hidden
    tp = divisors.tp
    residual, autocast = _residual_bytes(config, sharded)
    if _transformer_engine(config, tp, sharded):
        replicated = model.norms_per_layer * (TE_NORM_LINEAR_VALUES * e * h + _norm_stats(model))
        per_mlp = TE_GATED_MLP_TENSORS if model.gated_mlp else TE_MLP_TENSORS
    else:
        norms = model.norms_per_layer * (_norm_bytes(model, frozen, residual, autocast) * h + _norm_stats(model))
        replicated = norms + _linear_input_bytes(model, config, e, sharded) * h
        per_mlp = _mlp_tensors(model, frozen)
    attention = _attention_activations(model, config, divisors, e, seq_len)
    if moe:
        shared_ffn = model.shared_expert_ffn or model.shared_experts * model.moe_ffn
        k = model.experts_per_token
        # routed experts (grouped matmuls, outside autocast: the fp32 weights' dtype in full training): each
        # token-expert pair keeps its gathered input, gate+up output, activation, product and weighted output
        e_experts = 4.0 if task.is_full_training and not sharded else e
        routed = k * e_experts * ((2 * h + 4 * model.moe_ffn) if not frozen else (h + 3 * model.moe_ffn))
        mlp = (routed + per_mlp * e * shared_ffn) / divisors.expert_divisor
        replicated += ROUTER_BYTES_PER_VALUE * model.experts  # router softmax in fp32
    else:
        mlp = per_mlp * e * model.ffn / tp
    if task.is_adapter:
        mlp += _adapter_activations(model, config, e, tp)
    sp_divisor = tp if config.sequence_parallel else 1
    return replicated / sp_divisor + attention + mlp


def autocast_weight_copies(model: ModelSpec, counts: ParamCounts, stage: Stage, tp: int) -> float:
    """Bytes of the 16-bit weight copies autocast makes in the forward pass and autograd keeps until each layer's
    backward: every Linear weight of the stage (routed experts run outside autocast), the LM head included."""
    params = stage.dense_layers * counts.linear_weights_dense_layer
    params += stage.moe_layers * counts.linear_weights_moe_layer
    if stage.has_head:
        params += model.vocab * model.hidden
    return 2.0 * params / tp


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
        # scores, masked scores, probabilities; GPT-2's eager attention also keeps its scaled scores and the
        # torch.where against the causal mask alive at once
        copies = 5 if model.family == "gpt2" else 3
        attention += copies * e * model.heads / tp * seq_len
        if not model.uses_mla and model.kv_heads < model.heads:
            attention += (
                2 * e * (model.heads / tp - divisors.kv_heads_per_rank) * model.head_dim
            )  # K, V expanded
    # the MLP's transients alive at once: gated: gate, its activation, up; GPT-2's gelu_new, written out in
    # Python: its input and four intermediates of the tanh formula; native gelu: input and output
    width = 3 if model.gated_mlp else (5 if model.activation == "gelu_new" else 2)
    mlp = width * e * (model.ffn if not model.is_moe or model.dense_layers else 0) / tp
    if model.is_moe:
        # the grouped experts: each token-expert pair's gathered input, gate+up output, activation, product and
        # weighted output, as in training; plus the shared expert(s)
        shared = model.shared_expert_ffn or model.shared_experts * model.moe_ffn
        routed = model.experts_per_token * e * (2 * h + 4 * model.moe_ffn) + 3 * e * shared
        mlp = max(mlp, routed / divisors.expert_divisor)
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
    not_concurrent: int  # bytes of gradients and activations that are never held at the same time
    autocast_copies: float  # part of activations: autocast's 16-bit weight copies
    peak_phase: str  # when the step peaks: "forward", "backward" or "optimizer step"

    @property
    def total_bytes(self) -> int:
        """The step's peak per GPU as MemoryBreakdown.total_bytes counts it: each term rounded up on its own,
        less what is never held at once."""
        ceil = math.ceil
        return (
            ceil(self.weights)
            + ceil(self.gradients)
            + ceil(self.optimizer)
            + ceil(self.activations)
            + ceil(self.kv_cache)
            + ceil(self.overhead)
            - self.not_concurrent
        )


class StageShape(NamedTuple):
    """What one stage's GPU holds given tp, pp and ep only: parameter counts per GPU and bytes per parameter.
    stage_activations adds what the micro-batch and recompute mode hold, stage_state the sharded model states
    (dp, ZeRO stage, offload) and the overhead. A NamedTuple for the same reason as StageAmounts: a search
    builds one per stage of every model-parallel shape it sizes, and 28 fields make a frozen dataclass's
    construction several times a tuple's."""

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
    largest: float  # parameters per GPU of the largest decoder layer (an FSDP2 unit)
    root_unit: float  # parameters per GPU of FSDP2's root unit (embedding, final norm, LM head)
    compute_bytes: float  # bytes per value of the matmuls' copies (2 under 16-bit mixed precision)
    autocast_copies: float  # bytes of autocast's 16-bit weight copies kept for backward (unsharded training)
    # Megatron-style ZeRO-0/1 (tensor or pipeline parallel, 16-bit full training): bf16 weights, fp32 main
    # gradients, fp32 master + AdamW state; 0 where PyTorch's autocast / FSDP2 accounting applies
    megatron_opt_per: float
    tied_embedding_gradient: float  # bytes: 2 x the tied embedding's gradient at the end of backward (else 0)
    qlora_workspace: float
    adapter_dense: float
    adapter_expert: float
    adapter_bytes: float
    trainable_dense: float
    trainable_expert: float
    grad_per: float
    opt_per: float


class StageActivations(NamedTuple):
    """Bytes one stage's GPU holds for the micro-batch in flight: activations (logits included; under autocast,
    and under FSDP2's 16-bit compute for ZeRO-2/3), KV cache. A NamedTuple for the same reason as StageAmounts."""

    activations: float
    logits: float
    inflight: int
    kv_cache: float
    activations_sharded: float
    logits_sharded: float


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
    # the task's kinds and the compute bytes, read once (properties: a search builds thousands of shapes)
    training, full_training, adapter = task.is_training, task.is_full_training, task.is_adapter
    e = compute_bytes(config)
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
    if adapter:
        per_dense, per_moe, per_routed = _lora_params_per_layer(model, config.lora_rank, config.lora_targets)
        adapter_dense = (stage.dense_layers * per_dense + stage.moe_layers * per_moe) / tp
        adapter_expert = stage.moe_layers * per_routed / divisors.expert_divisor
        adapter_bytes = training_weight_bytes(master_precision(config.precision))
        trainable_dense, trainable_expert = adapter_dense, adapter_expert
    elif full_training:
        trainable_dense, trainable_expert = dense_params_gpu, expert_params_gpu
    grad_per = opt_per = 0.0
    if training:
        precision = master_precision(config.precision)
        grad_per = gradient_bytes(precision)
        opt_per = optimizer_bytes(config.optimizer, precision)
    megatron_opt_per = 0.0
    if full_training and e < 4 and (tp > 1 or pp > 1):
        megatron_opt_per = MASTER_BYTES + _OPTIMIZER_STATE_BYTES[config.optimizer]
    largest, root_unit = _fsdp_units(model, counts, divisors)
    tied_gradient = 0.0
    if full_training and model.tied_embeddings and stage.has_embedding:
        tied_gradient = 2 * model.vocab * model.hidden / tp * (MEGATRON_GRADIENT_BYTES if megatron_opt_per else grad_per)
    autocast_copies = 0.0
    if full_training and e < 4:
        autocast_copies = autocast_weight_copies(model, counts, stage, tp)
    return StageShape(
        stage=stage.index, task=task, training=training, full_training=full_training, adapter=adapter, tp=tp,
        pp=pp, ep=layout.ep, params_gpu=params_gpu,
        dense_params_gpu=dense_params_gpu, expert_params_gpu=expert_params_gpu, stored_weights=stored,
        bytes_per_param=bytes_per_param, largest=largest, root_unit=root_unit, compute_bytes=e,
        autocast_copies=autocast_copies, megatron_opt_per=megatron_opt_per,
        tied_embedding_gradient=tied_gradient,
        qlora_workspace=qlora_workspace, adapter_dense=adapter_dense, adapter_expert=adapter_expert,
        adapter_bytes=adapter_bytes, trainable_dense=trainable_dense, trainable_expert=trainable_expert,
        grad_per=grad_per, opt_per=opt_per,
    )  # fmt: skip


def per_token_activations(
    model: ModelSpec, config: MemoryConfig, divisors: Divisors
) -> tuple[float, float, float, float]:
    """(dense layer, MoE layer) activation bytes per token in training, under autocast and then under FSDP2's
    16-bit compute (ZeRO-2/3); they depend on tp and the recompute mode, not on pp, ep, dp or the micro-batch."""

    def per_layer(moe: bool, sharded: bool) -> float:
        if moe and not model.is_moe:
            return 0.0
        return _per_token_layer_activations(model, config, divisors, moe, config.seq_len, sharded)

    return per_layer(False, False), per_layer(True, False), per_layer(False, True), per_layer(True, True)


def inflight_microbatches(config: MemoryConfig, stage: Stage) -> int:
    """Micro-batches whose activations a stage holds at once: 1F1B keeps pp on the first stage."""
    return inflight_at(config.layout.pp, config.inflight_microbatches, stage.index)


def inflight_at(pp: int, inflight: int | None, stage_index: int) -> int:
    """inflight_microbatches of stage `stage_index` of `pp`, the first holding `inflight` (None: pp)."""
    if stage_index == 0 and pp > 1:
        return inflight or pp
    if inflight and pp > 1:
        return max(1, min(inflight, pp - stage_index))
    return 1


def stage_activations(
    model: ModelSpec,
    config: MemoryConfig,
    stage: Stage,
    divisors: Divisors,
    per_token: tuple[float, float, float, float] | None,
    recompute: Recompute,
    micro_batch: int,
) -> StageActivations:
    """Activations and KV cache of one stage at `micro_batch` sequences with `recompute` (these two are read
    from the arguments, the rest from config); per_token: per_token_activations (training only)."""
    if per_token is not None:  # training
        terms = training_activation_terms(model, config, stage, divisors.tp, per_token, recompute)
        return training_activations_at(terms, micro_batch * config.seq_len)
    tp = divisors.tp
    tokens = micro_batch * config.seq_len
    working = _inference_working_bytes(model, config, divisors, config.seq_len) * tokens
    logits = micro_batch * LOGITS_BYTES_PER_VALUE * model.vocab / tp if stage.has_head else 0.0
    activations = working + logits
    kv = 0.0
    if config.task == Task.INFERENCE:
        # each layer as transformers' caches keep it: sliding and chunked layers their window, state-space
        # layers a fixed state (kept in the compute dtype)
        layers = stage.layer_indices
        kv_heads = divisors.kv_heads_per_rank
        kv = micro_batch * kv_cache_bytes_per_sequence(
            model, config.seq_len, kv_element_bytes(config), layers=layers, kv_heads=kv_heads
        )
        kv += micro_batch * state_bytes_per_sequence(model, compute_bytes(config), layers=layers)
    return StageActivations(activations, logits, 1, kv, activations, logits)


class ActivationClassTerms(NamedTuple):
    """One activation class's training activations of a stage, per token of the micro-batch: `in_flight` for
    each micro-batch in flight, `once` (full recompute: the recomputed layer) and `head` (the head's and the
    loss's; None on a stage without the head)."""

    full: bool
    in_flight: float
    once: float
    head: float | None


class TrainingActivationTerms(NamedTuple):
    """A stage's training activations per token, under autocast and under FSDP2's 16-bit compute: everything
    stage_activations needs but the micro-batch, so a search reuses them for every micro-batch."""

    inflight: int
    autocast: ActivationClassTerms
    sharded: ActivationClassTerms


def training_activation_terms(
    model: ModelSpec,
    config: MemoryConfig,
    stage: Stage,
    tp: int,
    per_token: tuple[float, float, float, float],
    recompute: Recompute,
) -> TrainingActivationTerms:
    """The micro-batch-free part of a stage's training activations (training_activations_at applies it)."""
    return TrainingActivationTerms(
        inflight_microbatches(config, stage), *training_class_terms(model, config, stage, tp, per_token, recompute)
    )


def training_class_terms(
    model: ModelSpec,
    config: MemoryConfig,
    stage: Stage,
    tp: int,
    per_token: tuple[float, float, float, float],
    recompute: Recompute,
) -> tuple[ActivationClassTerms, ActivationClassTerms]:
    """TrainingActivationTerms' autocast and sharded terms: they read neither the layout nor the in-flight
    micro-batches of `config` (a search shares them between its configs). What the two classes share is read
    once (a search asks for thousands of these)."""
    e = compute_bytes(config)
    sp_divisor = tp if config.sequence_parallel else 1
    task = config.task
    frozen, full_training = task.is_adapter, task.is_full_training
    full = recompute == _RECOMPUTE_FULL
    hidden = model.hidden
    per_class = []
    for sharded, per_dense, per_moe in ((False, *per_token[:2]), (True, *per_token[2:])):
        residual, autocast = _residual_of(e, full_training, sharded)
        if full:  # each layer's input kept, one layer's activations at a time
            in_flight, once = stage.layers * residual * hidden / sp_divisor, max(per_dense, per_moe)
        else:
            in_flight, once = stage.dense_layers * per_dense + stage.moe_layers * per_moe, 0.0
        head = None
        if stage.has_head:
            # final norm + the head's input (trained head: fp32 in fp32, 16 bit otherwise), then the loss: HF keeps
            # log_softmax (fp32) for backward, whose start holds two fp32 gradients beside it: 12 bytes per
            # vocabulary entry per token (the forward's logits, fp32 copy and log_softmax, 8-10 bytes, are gone
            # by then)
            if sharded and tp > 1 and full_training:  # _transformer_engine: the final norm's 16-bit input and
                final = (TE_NORM_LINEAR_VALUES * e * hidden + _norm_stats(model)) / sp_divisor  # output
            else:
                head_input = (0.0 if frozen else e) * hidden
                final = (_norm_bytes(model, frozen, residual, autocast) * hidden + _norm_stats(model) + head_input) / sp_divisor
            logits_bytes = 12.0
            head = logits_bytes * model.vocab / tp + final
        per_class.append(ActivationClassTerms(full, in_flight, once, head))
    return per_class[0], per_class[1]


def training_activations_at(terms: TrainingActivationTerms, tokens: int) -> StageActivations:
    """stage_activations in training for a micro-batch of `tokens` tokens."""
    activations, logits = _class_activations(terms.autocast, tokens, terms.inflight)
    sharded, logits_sharded = _class_activations(terms.sharded, tokens, terms.inflight)
    return StageActivations(activations, logits, terms.inflight, 0.0, sharded, logits_sharded)


def _class_activations(terms: ActivationClassTerms, tokens: int, inflight: int) -> tuple[float, float]:
    """(activations, of which the head's and the loss's) of one stage in training, in the order of operations
    that computing them at once would take (the same floating-point figures)."""
    if terms.full:
        activations = terms.in_flight * tokens * inflight + terms.once * tokens
    else:
        activations = terms.in_flight * tokens * inflight
    logits = 0.0
    if terms.head is not None:
        logits = tokens * terms.head
        activations += logits
    return activations, logits


_RECOMPUTE_FULL = Recompute.FULL


# The offload modes as module constants: stage_state runs tens of thousands of times per search, and reading
# an enum member off its class costs several times a plain name.
_OFFLOAD_ALL = Offload.ALL
_OFFLOAD_OPTIMIZER = Offload.OPTIMIZER


def stage_state(
    shape: StageShape, acts: StageActivations, dp: int, zero: int, offload: str, accumulation: int = 1
) -> StageAmounts:
    """A stage's numbers once dp, the ZeRO stage and offload are known: sharded model states and overhead.

    ZeRO-2/3 are FSDP2's fully_shard with reshard_after_forward False/True (each layer a unit, the root the rest,
    16-bit compute copies under mixed precision): the GPU keeps its shard of the fp32 weights, gradients and
    AdamW state, the gathered units (ZeRO-3: the root and one layer at the backward peak; ZeRO-2: every unit
    between forward and backward) and about three layer-sized communication buffers (the prefetched all-gather,
    the reduce-scatter input and output), as FSDP2's memory tracker shows under a fake process group."""
    ((weights, gradients, optimizer, activations, overhead, not_concurrent, host, gathered_total, gathered_weights,
      streamed_weights, communicators, phase, _),) = _state_figures(shape, acts, zero, offload, accumulation, (dp,))  # fmt: skip
    zero = zero if shape.training else 0  # as _state_figures counts it
    megatron = shape.megatron_opt_per > 0 and zero <= 1
    return StageAmounts(
        shape.stage,
        weights,
        gradients,
        optimizer,
        activations,
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
        math.floor(not_concurrent),
        shape.autocast_copies if zero < 2 and not megatron else 0.0,
        phase,
    )


def stage_state_totals(
    shape: StageShape, acts: StageActivations, zero: int, offload: str, accumulation: int, dps: Sequence[int]
) -> list[int]:
    """[stage_state(shape, acts, dp, zero, offload, accumulation).total_bytes for dp in dps], worked out
    together (_state_figures) and without building the amounts: a search asks for a few dps of each."""
    return [figures[-1] for figures in _state_figures(shape, acts, zero, offload, accumulation, dps)]


def _state_figures(
    shape: StageShape, acts: StageActivations, zero: int, offload: str, accumulation: int, dps: Sequence[int]
) -> list[tuple[float, float, float, float, float, float, float, float, float, float, int, str, int]]:
    """stage_state's figures at each dp of `dps`: (weights, gradients, optimizer, activations, overhead, not
    concurrent, host, gathered total, gathered weights, streamed weights, communicators, peak phase, and the
    total bytes as StageAmounts.total_bytes counts them: each term rounded up, less what is never held at once).

    dp enters only through the ZeRO shard divisors and the data-parallel communicator, so what it does not
    change is worked out once, before the loop over dps; each figure is still the same chain of floating-point
    operations, in the same order, as working it all out at one dp (a part worked out once is a whole
    subexpression of it), so the bytes are the same whichever dps are asked for together. Below ZeRO-2 the
    gradients are not sharded: the step's moments and the allocator margin are worked out at the first dp only.
    """
    training = shape.training
    zero = zero if training else 0
    ep = shape.ep
    largest, bytes_per_param = shape.largest, shape.bytes_per_param
    megatron = shape.megatron_opt_per > 0 and zero <= 1
    # FSDP2 (ZeRO-2/3) and Megatron compute on 16-bit weights; plain data parallel runs autocast
    activations = acts.activations_sharded if zero >= 2 or megatron else acts.activations

    # --- weights (ZeRO-2/3: with their shard, which dp divides, in the loop)
    host = 0.0
    gathered_total = 0.0  # FSDP2's unsharded compute copies and communication buffers
    gathered_weights = streamed_weights = 0.0
    weights = shape.stored_weights
    grad_per, opt_per = shape.grad_per, shape.opt_per
    if megatron:
        weights = shape.params_gpu * MEGATRON_WEIGHT_BYTES
        grad_per, opt_per = MEGATRON_GRADIENT_BYTES, shape.megatron_opt_per
    gathered_at_loss = 0.0  # FSDP2's gathered units and buffers at the loss's backward (ZeRO-2/3)
    layer_gradients = 0.0  # FSDP2: a layer's unsharded 16-bit gradients, a temporary of its backward
    if zero >= 2:
        e = shape.compute_bytes
        # Gathered between forward and backward: ZeRO-3 the root unit (embedding, final norm, LM head), ZeRO-2
        # every unit. At the loss's backward the next layer is being gathered (ZeRO-3); inside a layer's backward
        # that layer is gathered too, beside three layer-sized communication buffers (the prefetched all-gather,
        # the reduce-scatter input and output) and the layer's unsharded 16-bit gradients (counted at the peak).
        units = shape.root_unit if zero == 3 else shape.params_gpu
        gathered_weights = (units + (largest if zero == 3 else 0.0)) * e
        gathered_at_loss = (units + (largest if zero == 3 else 0.0)) * e
        gathered_total = (units + (4 if zero == 3 else 3) * largest) * e
        layer_gradients = largest * e
        activations += layer_gradients
    else:
        activations += 0.0 if megatron else shape.autocast_copies
        if not training and offload == _OFFLOAD_ALL:
            host += weights
            weights = streamed_weights = largest * bytes_per_param
        weights += shape.qlora_workspace
        if shape.adapter:
            weights += (shape.adapter_dense + shape.adapter_expert) * shape.adapter_bytes
    # the step's moments but the gradients' part
    loss_moment = activations - layer_gradients + gathered_at_loss
    layer_moment = activations - acts.logits_sharded + gathered_total if zero >= 2 else 0.0
    held_but_gradients = activations + gathered_total
    trainable = shape.trainable_dense + shape.trainable_expert
    model_parallel_communicators = (shape.tp > 1) + (shape.pp > 1) + (ep > 1)
    unsharded_step: tuple[float, float, str, float] | None = None  # below ZeRO-2: the same at every dp
    ceil = math.ceil
    ceiled_activations = ceil(activations) + ceil(acts.kv_cache)

    figures = []
    for dp in dps:
        # ZeRO shards over the ranks that hold the same replica: dp for dense parts; for experts the
        # expert-data-parallel group dp x tp / ep.
        dense_shard = dp
        expert_shard = dp * shape.tp // ep if ep > 1 else dp
        dp_weights, dp_host = weights, host
        if zero >= 2:
            shard = (
                shape.dense_params_gpu / dense_shard + shape.expert_params_gpu / expert_shard
            ) * bytes_per_param
            if offload == _OFFLOAD_ALL:
                dp_host += shard
                dp_weights = gathered_total
            else:
                dp_weights = shard + gathered_total
            dp_weights += shape.qlora_workspace
            if shape.adapter:
                adapter_dense, adapter_expert = shape.adapter_dense, shape.adapter_expert
                if zero == 3:
                    dp_weights += (adapter_dense / dense_shard + adapter_expert / expert_shard) * shape.adapter_bytes
                else:
                    dp_weights += (adapter_dense + adapter_expert) * shape.adapter_bytes

        # --- gradients and optimizer
        gradients = optimizer = 0.0
        if training:
            shards = shape.trainable_dense / dense_shard + shape.trainable_expert / expert_shard
            gradients = (shards if zero >= 2 else trainable) * grad_per
            optimizer = (shards if zero >= 1 else trainable) * opt_per
            if offload == _OFFLOAD_OPTIMIZER or offload == _OFFLOAD_ALL:
                dp_host += optimizer
                optimizer = 0.0
        if unsharded_step is None:
            not_concurrent = 0.0
            phase = "backward" if training else "forward"
            if training:
                # The terms are each at its own maximum; the step's peak is the largest of three moments: the
                # loss's backward (every activation, FSDP2's units as they are then), a layer's backward (the loss's
                # tensors gone, FSDP2's layer buffers there) and the optimizer step (every gradient, no activation)
                # -- with one backward per step and the gradients freed after it (zero_grad(set_to_none=True)).
                # With gradient accumulation the gradients stay beside the next micro-batch's activations.
                # The end of backward: every gradient, and for a trained tied embedding its dense gradient twice
                # over while the embedding's backward adds it to the LM head's (embedding_dense_backward, then the
                # sum).
                optimizer_moment = gradients + shape.tied_embedding_gradient * (zero < 2)
                held = held_but_gradients + gradients
                if accumulation > 1:
                    optimizer_moment = held - (gathered_total - gathered_at_loss)
                # (the terms hold every byte counted: a moment never exceeds their sum)
                peak = min(held, max(loss_moment, layer_moment, optimizer_moment))
                not_concurrent = held - peak
                phase = "optimizer step" if optimizer_moment > max(loss_moment, layer_moment) else "backward"
            dynamic = gradients + activations + acts.kv_cache  # allocated and freed step by step: fragmentation
            margin = CUDA_CONTEXT_BYTES + ALLOCATOR_MARGIN_FRACTION * dynamic
            if zero < 2:
                unsharded_step = gradients, not_concurrent, phase, margin
        else:
            gradients, not_concurrent, phase, margin = unsharded_step

        # --- overhead: one NCCL communicator per parallel group
        communicators = (dp > 1 and training) + model_parallel_communicators
        overhead = margin + communicators * NCCL_BYTES_PER_COMMUNICATOR
        total = (
            ceil(dp_weights) + ceil(gradients) + ceil(optimizer) + ceiled_activations + ceil(overhead)
            - math.floor(not_concurrent)
        )  # fmt: skip
        figures.append((dp_weights, gradients, optimizer, activations, overhead, not_concurrent, dp_host,
                        gathered_total, gathered_weights, streamed_weights, communicators, phase, total))  # fmt: skip
    return figures


def stage_amounts(model: ModelSpec, config: MemoryConfig, stage: Stage, counts: ParamCounts) -> StageAmounts:
    """The numbers of one stage (bytes per GPU) of a normalised config; stage_terms puts them into words."""
    layout = config.layout
    divisors = divisors_of(model, layout)
    shape = stage_shape(model, config, stage, counts, divisors)
    per_token = per_token_activations(model, config, divisors) if config.task.is_training else None
    acts = stage_activations(model, config, stage, divisors, per_token, layout.recompute, layout.micro_batch)
    return stage_state(shape, acts, layout.dp, layout.zero, layout.offload, config.gradient_accumulation)
