"""Model FLOPs: what a step or a token costs in floating-point operations, by the conventions MFU is reported in.

The performance model times operators (planner.perf.compute, memory_ops, communication); these counts give the
MFU it implies (model FLOPs / (time x GPUs x peak)), and cross-check against published formulas.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from planner.vocabulary import Recompute

if TYPE_CHECKING:
    from planner.models import ModelSpec


@dataclass(frozen=True, slots=True)
class ModelNumbers:
    """Per-model figures the time model needs, computed once per search (counts, not bytes).

    matmul_params: active parameters that do a matmul per token (the input embedding is a lookup, not a matmul;
    a tied embedding still works as the output head). attention_width: heads x query/key head dim (x the
    share of layers that attend).
    """

    total_params: int
    active_params: int
    matmul_params: int
    expert_params: int  # routed-expert parameters, all layers (sharded by ep)
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    attention_width: int
    vocab: int
    experts_per_token: int
    moe_layers: int
    lora_params: int
    model: ModelSpec | None = None  # the architecture the operator model reads its shapes from


def model_numbers(model: ModelSpec, lora_rank: int = 16) -> ModelNumbers:
    """Figures from a planner.models.ModelSpec (param_counts for the exact split)."""
    from planner.models import param_counts
    from planner.models.kv_cache import attention_layers

    counts = param_counts(model)
    active = model.active_params
    embedding_lookup = 0 if model.tied_embeddings else counts.embedding
    head_dim = (model.qk_nope_head_dim + model.qk_rope_head_dim) if model.uses_mla else model.head_dim
    expert_params = model.moe_layers * model.experts * counts.routed_expert if model.is_moe else 0
    q_width = model.heads * (model.head_dim or head_dim)
    kv_width = model.kv_heads * (model.head_dim or head_dim)
    # LoRA on q, k, v, o: r x (d_in + d_out) per adapted matrix (Hu et al. 2021, arXiv 2106.09685, section 4.1).
    q_out = q_width * (2 if model.attn_output_gate else 1)  # a gated q_proj also yields the output gate
    lora_per_layer = lora_rank * (2 * model.hidden + q_out + q_width + (model.hidden + kv_width) * 2)
    return ModelNumbers(
        total_params=model.total_params,
        active_params=active,
        matmul_params=max(1, active - embedding_lookup),
        expert_params=expert_params,
        layers=model.layers,
        hidden=model.hidden,
        heads=model.heads,
        kv_heads=model.kv_heads,
        # an average layer's: a hybrid's state-space layers do no attention
        attention_width=round(model.heads * head_dim * attention_layers(model) / model.layers),
        vocab=model.vocab,
        experts_per_token=max(1, model.experts_per_token),
        moe_layers=model.moe_layers,
        lora_params=attention_layers(model) * lora_per_layer,  # state-space layers have no q, k, v, o
        model=model,
    )


# FLOPs per (parameter x token) by pass: forward 2, backward 4 (activation grads 2 + weight grads 2).
FORWARD_FLOPS_PER_PARAM = 2
BACKWARD_FLOPS_PER_PARAM = 4


def training_flops_per_token(
    matmul_params: float,
    layers: int,
    seq_len: int,
    attention_width: int,
    recompute: Recompute = Recompute.NONE,
    adapters_only: bool = False,
) -> float:
    """Executed FLOPs per trained token: 6 x P (2 forward + 4 backward) plus attention 12 x L x s x width.

    The attention term is QK^T and scores x V (2 x 2 x s x width per layer forward, 3x with backward), the
    s/(6h) term of Narayanan et al. 2021. Full recompute repeats the forward: 8 x P (+ 16 L s width);
    selective recompute repeats only the attention scores. LoRA/QLoRA (adapters_only) skip the frozen weights'
    gradients: 4 x P (2 forward + 2 activation-gradient), the attention backward still runs.
    """
    recompute = Recompute.parse(recompute)
    attention_forward = 4 * layers * seq_len * attention_width
    backward_per_param = 2 if adapters_only else BACKWARD_FLOPS_PER_PARAM
    flops = (FORWARD_FLOPS_PER_PARAM + backward_per_param) * matmul_params + 3 * attention_forward
    if recompute == Recompute.FULL:
        flops += FORWARD_FLOPS_PER_PARAM * matmul_params + attention_forward
    elif recompute == Recompute.SELECTIVE:
        flops += attention_forward
    return float(flops)


def narayanan_flops_per_step(batch: int, seq_len: int, layers: int, hidden: int, vocab: int) -> float:
    """Narayanan et al. 2021 (arXiv 2104.04473) dense GPT form, no recompute: 72 B s L h^2 (1 + s/6h + V/12Lh).

    A cross-check for training_flops_per_token on a GPT-shaped model (ffn = 4h, no GQA, tied embeddings).
    """
    return (
        72.0
        * batch
        * seq_len
        * layers
        * hidden**2
        * (1 + seq_len / (6 * hidden) + vocab / (12 * layers * hidden))
    )
