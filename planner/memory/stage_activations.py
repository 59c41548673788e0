"""One pipeline stage's activations: per token, times the micro-batches in flight under 1F1B, split by recompute class; the working memory of an inference step."""

from __future__ import annotations

from typing import NamedTuple

from planner.memory.activations import (
    TE_NORM_LINEAR_VALUES,
    norm_bytes,
    norm_stats,
    per_token_layer_activations,
    residual_of,
)
from planner.memory.config import (
    LOGITS_BYTES_PER_VALUE,
    MemoryConfig,
)
from planner.memory.divisors import Divisors
from planner.memory.element_bytes import (
    compute_bytes,
    kv_element_bytes,
)
from planner.memory.pipeline_stages import Stage
from planner.models import ModelSpec
from planner.models.kv_cache import kv_cache_bytes_per_sequence, state_bytes_per_sequence
from planner.vocabulary import Precision, Recompute, Task


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


class StageActivations(NamedTuple):
    """Bytes one stage's GPU holds for the micro-batch in flight: activations (logits included; under autocast,
    and under FSDP2's 16-bit compute for ZeRO-2/3), KV cache. A NamedTuple for the same reason as StageAmounts."""

    activations: float
    logits: float
    inflight: float
    kv_cache: float
    activations_sharded: float
    logits_sharded: float


def per_token_activations(
    model: ModelSpec, config: MemoryConfig, divisors: Divisors
) -> tuple[float, float, float, float]:
    """(dense layer, MoE layer) activation bytes per token in training, under autocast and then under FSDP2's
    16-bit compute (ZeRO-2/3); they depend on tp and the recompute mode, not on pp, ep, dp or the micro-batch."""

    def per_layer(moe: bool, sharded: bool) -> float:
        if moe and not model.is_moe:
            return 0.0
        return per_token_layer_activations(model, config, divisors, moe, config.seq_len, sharded)

    return per_layer(False, False), per_layer(True, False), per_layer(False, True), per_layer(True, True)


def inflight_microbatches(config: MemoryConfig, stage: Stage) -> float:
    """Micro-batches whose activations a stage holds at once: 1F1B keeps pp on the first stage."""
    return inflight_at(config.layout.pp, config.inflight_microbatches, stage.index, config.virtual_stages)


def inflight_at(pp: int, inflight: int | None, stage_index: int, virtual_stages: int = 1) -> float:
    """inflight_microbatches of stage `stage_index` of `pp`, the first holding `inflight` (None: pp). With v > 1
    model chunks per rank (interleaved 1F1B), rank k runs 2 (pp - k - 1) + (v - 1) pp warm-up forwards of a chunk
    before its first backward (Megatron-Core's interleaved schedule), so it holds v pp + pp - 2k - 1 chunks of
    its layers / v at the peak: pp (1 + (pp - 1) / (pp v)) micro-batches of its layers on the first stage
    (Narayanan et al. 2021, section 2.2.2; Korthikanti et al. 2022, section 4.2.3), counted exactly, not rounded
    up to whole micro-batches."""
    if pp <= 1:
        return 1
    if virtual_stages > 1 and not inflight:
        chunks = virtual_stages * pp + pp - 2 * stage_index - 1
        return max(1.0, chunks / virtual_stages)
    if stage_index == 0:
        return inflight or pp
    if inflight:
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

    inflight: float
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
        inflight_microbatches(config, stage),
        *training_class_terms(model, config, stage, tp, per_token, recompute),
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
        residual, autocast = residual_of(e, full_training, sharded)
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
                final = (TE_NORM_LINEAR_VALUES * e * hidden + norm_stats(model)) / sp_divisor  # output
            else:
                head_input = (0.0 if frozen else e) * hidden
                final = (
                    norm_bytes(model, frozen, residual, autocast) * hidden + norm_stats(model) + head_input
                ) / sp_divisor
            logits_bytes = 12.0
            head = logits_bytes * model.vocab / tp + final
        per_class.append(ActivationClassTerms(full, in_flight, once, head))
    return per_class[0], per_class[1]


def training_activations_at(terms: TrainingActivationTerms, tokens: int) -> StageActivations:
    """stage_activations in training for a micro-batch of `tokens` tokens."""
    activations, logits = _class_activations(terms.autocast, tokens, terms.inflight)
    sharded, logits_sharded = _class_activations(terms.sharded, tokens, terms.inflight)
    return StageActivations(activations, logits, terms.inflight, 0.0, sharded, logits_sharded)


def _class_activations(terms: ActivationClassTerms, tokens: int, inflight: float) -> tuple[float, float]:
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
