"""LoRA adapter parameters of a decoder layer, as peft wraps the modules the plan targets (r x (d_in + d_out) per
adapted matrix), and what a layer's own shape changes in them (gemma3n's KV-sharing layers and per-layer MLP
widths)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence

from planner.memory.config import MemoryConfig
from planner.models import ModelSpec, fused_gate_up, fused_qkv, gate_in_q_proj
from planner.models.spec import kv_shared


@functools.lru_cache(maxsize=8192)
def lora_params_per_layer(model: ModelSpec, rank: int, targets: tuple[str, ...]) -> tuple[int, int, int]:
    """(adapter params in a dense layer, in an MoE layer outside routed experts, in all routed experts of one
    MoE layer, plus the number of adapted matrices a token passes in a dense layer) -- r x (d_in + d_out) each."""
    h = model.hidden
    chosen = set(targets)
    attention = 0
    if model.uses_mla:
        # the modules peft wraps (transformers' DeepseekV2/V3 attention): q -> q_proj, or q_a_proj and q_b_proj
        # with a low-rank query; k -> kv_a_proj_with_mqa (to the latent and the shared rotary key); v ->
        # kv_b_proj (the latent decompressed to every head's K-nope and V); o -> o_proj
        qk_head = model.qk_nope_head_dim + model.qk_rope_head_dim
        if "q" in chosen and model.q_lora_rank:
            attention += rank * (h + model.q_lora_rank) + rank * (model.q_lora_rank + model.heads * qk_head)
        elif "q" in chosen:
            attention += rank * (h + model.heads * qk_head)
        if "k" in chosen:
            attention += rank * (h + model.kv_lora_rank + model.qk_rope_head_dim)
        if "v" in chosen:
            attention += rank * (
                model.kv_lora_rank + model.heads * (model.qk_nope_head_dim + model.v_head_dim)
            )
        if "o" in chosen:
            attention += rank * (model.heads * model.v_head_dim + h)
    else:
        widths = {"q": model.heads * model.head_dim, "k": model.kv_heads * model.head_dim}
        widths["v"] = widths["k"]
        widths["o"] = widths["q"]
        if model.attn_output_gate and gate_in_q_proj(model.family):
            widths["q"] *= 2  # q_proj also yields the output gate
        separate: tuple[str, ...] = ("q", "k", "v", "o")
        if fused_qkv(model.family) and chosen & {"q", "k", "v"}:
            # gpt2's c_attn, gpt_neox's query_key_value: one projection, one adapter for q, k and v
            attention += rank * (h + widths["q"] + 2 * widths["k"])
            separate = ("o",)
        attention += sum(rank * (h + widths[t]) for t in separate if t in chosen)

    def mlp(ffn: int) -> int:
        matrices = [t for t in ("gate", "up", "down") if t in chosen and (model.gated_mlp or t != "gate")]
        if fused_gate_up(model.family) and chosen & {"gate", "up"}:
            # phi3's gate_up_proj: one adapter, hidden -> 2 x ffn
            return (rank * (h + 2 * ffn) + ("down" in chosen) * rank * (ffn + h)) if ffn else 0
        return len(matrices) * rank * (h + ffn) if ffn else 0

    shared_ffn = model.shared_expert_ffn or model.shared_experts * model.moe_ffn
    dense_layer = attention + mlp(model.ffn)
    moe_non_expert = attention + mlp(shared_ffn)
    routed = model.experts * mlp(model.moe_ffn) if model.is_moe else 0
    return dense_layer, moe_non_expert, routed


def per_layer_adapters(model: ModelSpec, config: MemoryConfig, layers: Sequence[int]) -> int:
    """gemma3n: what its layers' own shapes change in the adapters: a layer reading an earlier layer's keys and
    values has no k_proj / v_proj to adapt, a layer of its own MLP width adapts that width."""
    rank, targets = config.lora_rank, config.lora_targets
    key_value = tuple(target for target in targets if target in ("k", "v"))
    change = (
        -len(kv_shared(model, layers)) * lora_params_per_layer(model, rank, key_value)[0] if key_value else 0
    )
    mlp = tuple(target for target in targets if target in ("gate", "up", "down"))
    if model.ffn_widths and mlp:
        uniform = lora_params_per_layer(model, rank, mlp)[0]
        for i in layers:
            own = dataclasses.replace(model, ffn=model.ffn_widths[i], ffn_widths=())
            change += lora_params_per_layer(own, rank, mlp)[0] - uniform
    return change
