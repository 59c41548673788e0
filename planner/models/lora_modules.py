"""The module names a LoRA adapter wraps for each target (attention q, k, v, o; the MLP's gate, up, down), by
Hugging Face model_type: the names of the nn.Linear (gpt2, gpt_bigcode: Conv1D) layers in each type's
transformers 5.22 modeling file, written as peft's target_modules takes them (a name matches a module whose
qualified name equals it or ends with "." + it). One table for the exports (peft_config.json) and the memory
model's adapter count: targets that share a module (a fused q/k/v or gate/up projection) are one adapter.

A name is qualified where the bare one would also match another module: gpt2's c_proj is both the attention
output and the MLP's down projection; lfm2's short-conv layers also have an out_proj.
"""

from __future__ import annotations

from collections.abc import Iterable

Names = dict[str, tuple[str, ...]]

LLAMA_NAMES: Names = {
    "q": ("q_proj",), "k": ("k_proj",), "v": ("v_proj",), "o": ("o_proj",),
    "gate": ("gate_proj",), "up": ("up_proj",), "down": ("down_proj",),
}  # fmt: skip


def _names(qkv: tuple[str, str, str] | str, o: str, up: str = "up_proj", down: str = "down_proj",
           gate: str | None = "gate_proj") -> Names:  # fmt: skip
    """A table row: q, k, v (one string: a fused projection), o, and the MLP (gate None: an ungated MLP; gate
    equal to up: a fused gate/up projection)."""
    q, k, v = (qkv, qkv, qkv) if isinstance(qkv, str) else qkv
    names: Names = {"q": (q,), "k": (k,), "v": (v,), "o": (o,), "up": (up,), "down": (down,)}
    if gate is not None:
        names["gate"] = (gate,)
    return names


_SEPARATE = ("q_proj", "k_proj", "v_proj")
_GPT2 = _names("attn.c_attn", "attn.c_proj", "mlp.c_fc", "mlp.c_proj", gate=None)
_BLOOM = _names("self_attention.query_key_value", "self_attention.dense", "mlp.dense_h_to_4h", "mlp.dense_4h_to_h",
                gate=None)  # fmt: skip
# Multi-head latent attention (deepseek_v2 and its kin): q -> q_proj, or q_a_proj and q_b_proj with a low-rank
# query; k -> kv_a_proj_with_mqa (to the latent and the shared rotary key); v -> kv_b_proj (the latent
# decompressed to every head's K-nope and V); o -> o_proj
_MLA: Names = {**LLAMA_NAMES, "q": ("q_proj", "q_a_proj", "q_b_proj"), "k": ("kv_a_proj_with_mqa",),
               "v": ("kv_b_proj",)}  # fmt: skip
# Short-conv hybrids: the attention output is self_attn.out_proj (a conv layer has conv.out_proj); the MLP's
# w1 (gate), w3 (up) and w2 (down): w2(silu(w1(x)) * w3(x))
_LFM2 = _names(_SEPARATE, "self_attn.out_proj", "feed_forward.w3", "feed_forward.w2", gate="feed_forward.w1")
# granitemoe and kin: the shared MLP's input_linear yields gate and up together
_GRANITE_SHARED = {**LLAMA_NAMES, "gate": ("shared_mlp.input_linear",), "up": ("shared_mlp.input_linear",),
                   "down": ("shared_mlp.output_linear",)}  # fmt: skip
_GATE_UP = {**LLAMA_NAMES, "gate": ("gate_up_proj",), "up": ("gate_up_proj",)}
# MoE types whose every MLP is routed experts, fused parameters that no Linear holds (peft 0.21 converts the
# llama names to them only for the types of its transformers_weight_conversion)
_ATTENTION_ONLY = {target: LLAMA_NAMES[target] for target in ("q", "k", "v", "o")}
_UNGATED = _names(_SEPARATE, "o_proj", gate=None)  # up_proj, an activation, down_proj

_TABLE: dict[str, Names] = {
    "gpt2": _GPT2,
    "gpt_bigcode": _GPT2,
    "gpt_neox": _names(
        "attention.query_key_value", "attention.dense", "mlp.dense_h_to_4h", "mlp.dense_4h_to_h", gate=None
    ),  # fmt: skip
    "persimmon": _names(
        "self_attn.query_key_value", "self_attn.dense", "mlp.dense_h_to_4h", "mlp.dense_4h_to_h", gate=None
    ),  # fmt: skip
    "bloom": _BLOOM,
    "falcon": _BLOOM,
    "mpt": _names("attn.Wqkv", "attn.out_proj", "ffn.up_proj", "ffn.down_proj", gate=None),
    # dbrx: every layer's MLP is its experts' fused weights, no Linear module to name
    "dbrx": {"q": ("attn.Wqkv",), "k": ("attn.Wqkv",), "v": ("attn.Wqkv",), "o": ("attn.out_proj",)},
    "codegen": _names("attn.qkv_proj", "attn.out_proj", "mlp.fc_in", "mlp.fc_out", gate=None),
    "gptj": _names(_SEPARATE, "attn.out_proj", "mlp.fc_in", "mlp.fc_out", gate=None),
    "gpt_neo": _names(_SEPARATE, "attention.out_proj", "mlp.c_fc", "mlp.c_proj", gate=None),
    "opt": _names(_SEPARATE, "self_attn.out_proj", "fc1", "fc2", gate=None),
    "phi": _names(_SEPARATE, "self_attn.dense", "mlp.fc1", "mlp.fc2", gate=None),
    "phi3": {**_GATE_UP, "q": ("qkv_proj",), "k": ("qkv_proj",), "v": ("qkv_proj",)},
    "glm": _GATE_UP,
    "glm4": _GATE_UP,
    "starcoder2": _names(_SEPARATE, "o_proj", "mlp.c_fc", "mlp.c_proj", gate=None),
    "nanochat": _names(_SEPARATE, "o_proj", "mlp.fc1", "mlp.fc2", gate=None),
    "lfm2": _LFM2,
    "lfm2_moe": _LFM2,
    "apertus": _UNGATED,
    "arcee": _UNGATED,
    "jais2": _UNGATED,
    "nemotron": _UNGATED,
    "nemotron_h": _UNGATED,  # attention, Mamba-2, MLP and MoE layers; the MLP's up_proj and down_proj
    "granitemoe": _ATTENTION_ONLY,
    "gpt_oss": _ATTENTION_ONLY,
    "phimoe": _ATTENTION_ONLY,
    "granitemoeshared": _GRANITE_SHARED,
    "granitemoe_swa": _GRANITE_SHARED,
    "granitemoehybrid": _GRANITE_SHARED,
    "deepseek_v2": _MLA,
    "deepseek_v3": _MLA,
    "minicpm3": _MLA,
    "longcat_flash": {**_MLA, "q": ("q_a_proj", "q_b_proj")},
    "youtu": _MLA,
    "glm4_moe_lite": _MLA,
    # DeepSeek Sparse Attention: always a low-rank query; the indexer's wq_b, wk and weights_proj are not adapted
    # afmoe: its attention has a gate_proj too; the MLP names are qualified (a dense layer's mlp, the shared experts)
    "afmoe": {**LLAMA_NAMES, "gate": ("mlp.gate_proj", "shared_experts.gate_proj")},
    "deepseek_v32": {**_MLA, "q": ("q_a_proj", "q_b_proj")},
    "glm_moe_dsa": {**_MLA, "q": ("q_a_proj", "q_b_proj")},
    # jetmoe: the keys and values come from one kv_proj; its attention experts' q and o and its MLP experts are
    # parameters of JetMoeParallelExperts, no Linear
    "jetmoe": {"k": ("kv_proj",), "v": ("kv_proj",)},
    # pure state-space models: no attention, and no MLP (the mixer is the whole layer)
    "mamba": {},
    "falcon_mamba": {},
    "mamba2": {},
}


# MoE types whose routed experts peft 0.21 adapts (peft/utils/transformers_weight_conversion.py: the types of
# _MODEL_TO_CONVERSION_PATTERN with _MOE_FUSED_TARGETS): transformers 5 fuses each layer's experts into two
# parameters (gate_up_proj, down_proj) that no Linear holds, and peft rewrites the v4 names of the experts'
# projections (gate_proj / up_proj / down_proj; mixtral's pattern w1 / w3 / w2) to them: one adapter per expert on
# gate_up_proj of rank 2r (gate and up only together), one on down_proj of rank r. Those names then adapt no dense
# MLP or shared expert. Every other MoE type's experts take no adapter (their MLP names reach only Linear
# modules: dense layers, shared experts). tests/planner/test_lora_vs_peft.py checks this list against peft's.
PEFT_FUSED_EXPERTS = {
    **{name: "qwen2_moe" for name in (
        "afmoe", "cohere2_moe", "deepseek_v2", "deepseek_v3", "deepseek_v32", "dots1", "ernie4_5_moe", "exaone_moe",
        "flex_olmo", "glm4_moe", "glm4_moe_lite", "glm_moe_dsa", "hunyuan_v1_moe", "longcat_flash", "mellum",
        "olmoe", "qwen3_moe", "qwen3_next", "solar_open")},
    **{name: "mixtral" for name in ("minimax", "minimax_m2", "mixtral")},
}  # fmt: skip
_FUSED_EXPERT_NAMES = {
    "qwen2_moe": {"gate": ("gate_proj", "up_proj"), "up": ("gate_proj", "up_proj"), "down": ("down_proj",)},
    "mixtral": {"gate": ("w1", "w3"), "up": ("w1", "w3"), "down": ("w2",)},
}


def peft_fused_experts(family: str | None) -> bool:
    """Whether peft adapts this MoE type's routed experts (as fused parameters) and no dense MLP of it."""
    return (family or "") in PEFT_FUSED_EXPERTS


# Types whose attention output gate is a module of its own (afmoe's self_attn.gate_proj), not half of q_proj
_SEPARATE_ATTENTION_GATE = ("afmoe",)


def gate_in_q_proj(family: str | None) -> bool:
    """Whether a gated attention's output gate comes out of q_proj (twice as wide: qwen3_next, qwen3_5)."""
    return family not in _SEPARATE_ATTENTION_GATE


def lora_module_names(family: str | None) -> Names:
    """Target -> the module names peft adapts for it in this model type (the llama names where the type
    uses them; a target the type has no module for is absent). For a type of PEFT_FUSED_EXPERTS the MLP targets
    name the experts' v4 projections, gate and up both (one fused parameter)."""
    names = _TABLE.get(family or "", LLAMA_NAMES)
    pattern = PEFT_FUSED_EXPERTS.get(family or "")
    return {**names, **_FUSED_EXPERT_NAMES[pattern]} if pattern else names


def lora_target_modules(family: str | None, targets: Iterable[str]) -> list[str]:
    """peft's target_modules for these targets, each module named once, in the targets' order."""
    names = lora_module_names(family)
    modules: list[str] = []
    for target in targets:
        modules += [name for name in names.get(str(target), ()) if name not in modules]
    return modules


def fused_qkv(family: str | None) -> bool:
    """Whether q, k and v come from one module (one adapter for any of them)."""
    names = lora_module_names(family)
    return bool(names.get("q")) and names.get("q") == names.get("k") == names.get("v")


def fused_gate_up(family: str | None) -> bool:
    """Whether the MLP's gate and up projections are one module (one adapter for either)."""
    names = lora_module_names(family)
    return bool(names.get("gate")) and names.get("gate") == names.get("up")
