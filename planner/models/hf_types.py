"""The model types the config.json reader knows, each with the traits of its decoder layer in transformers 5.22
(transformers/models/<type>/modeling_<type>.py): which projections carry biases and which key turns them on,
the norms of a layer, q/k norms, the MLP, the MoE layout and the rule that lays out sliding / chunked layers when
a config.json leaves `layer_types` out. Data only; planner/models/hf_config.py reads a config.json with it.

Every type here is checked against transformers itself (tests/planner/test_hf_coverage.py builds generated
configs of each on the meta device and compares the parameter counts exactly).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Traits:
    """How one model type's decoder layer is built. A str for a bias names the config key that turns it on."""

    reader: str = (
        "llama"  # llama | gpt2 | gpt_neox | deepseek | state_space (hf_hybrid.py) | a CLASSIC_TYPES type
    )
    qkv_bias: str | bool = False
    out_bias: str | bool = False
    mlp_bias: str | bool = False
    gated: bool = True
    norm: str = "rmsnorm"
    norms_per_layer: int = 2
    final_norm: bool = True
    qk_norm: str = ""  # "" | "head" (over head_dim) | "full" (over all heads)
    qk_norm_key: str = ""  # the config key that turns the q/k norms on (empty: always on when qk_norm is set)
    activation: str = "silu"
    moe: str = (
        ""  # "" | "all" | "qwen" (decoder_sparse_step) | "llama4" (interleave step) | "deepseek" (see below)
    )
    moe_ffn_key: str = "moe_intermediate_size"
    dense_ffn_key: str = "intermediate_size"  # the dense layers' MLP width (cohere2_moe: its prefix layers')
    experts_key: str = (
        ""  # the routed-expert count's key (empty: n_routed_experts, num_local_experts, num_experts)
    )
    top_k_key: str = "num_experts_per_tok"
    # "" | "qwen" (gated, shared_expert_intermediate_size) | "llama4" (one of intermediate_size) | "granite"
    # (shared_intermediate_size) | "count" (shared_key experts of moe_ffn, fused into one MLP)
    shared_expert: str = ""
    shared_key: str = ""
    router_bias: bool = False
    expert_bias: bool = False
    sinks: bool = False
    lm_head_bias: str | bool = False
    parallel_key: str = ""  # the key that makes attention and MLP share one input norm (a parallel block)
    layer_rule: str = (
        "window"  # how layer_types follow from the config when it does not list them (see below)
    )
    # "" | "sub_norms" (bitnet: RMSNorms over hidden and intermediate) | "xielu" (apertus) | "lambdas" (diffllama:
    # lambda_q1, lambda_k1, lambda_q2, lambda_k2 of head_dim each) | "attention_gate" (afmoe: an output gate of
    # its own, gate_proj, as wide as q_proj)
    layer_extra: str = ""


# Older families read by planner/models/hf_classic.py, one reader each (their keys follow no common pattern).
CLASSIC_TYPES = ("opt", "bloom", "falcon", "mpt", "gptj", "codegen", "gpt_bigcode", "gpt_neo")
# Types with a reader of their own in planner/models/hf_special.py (nested or renamed keys).
SPECIAL_TYPES = ("dbrx", "nemotron_h")  # gemma3n_text too, with its own layer rule

LLAMA = Traits(qkv_bias="attention_bias", out_bias="attention_bias", mlp_bias="mlp_bias")
NO_BIAS = Traits()

# Layer-type rules (each the __post_init__ of the type's configuration class):
#   window        every layer sliding when sliding_window is set, else full (mistral, mixtral, starcoder2)
#   full          every layer full (the type has no sliding attention)
#   every:N       sliding except every N-th layer (gemma2 2, olmo3 4, gpt_oss 2)
#   pattern:N     sliding except every k-th layer, k = sliding_window_pattern (default N) (gemma3, cohere2, exaone4)
#   qwen          sliding from layer max_window_layers on, when use_sliding_window (qwen2, qwen3)
#   qwen_moe      odd layers below max_window_layers sliding, when use_sliding_window (qwen2_moe)
#   qwen_off      full unless the file lists layer_types (qwen3_moe)
#   smollm3       sliding where no_rope_layers marks a NoPE layer... (see _layer_types)
#   llama4        chunked except every no_rope_layer_interval-th layer
#   from_max      sliding from layer max_window_layers on (dots1)
#   first_of:4    full on layers 0, 4, 8, ..., else sliding (cwm)
#   global_every:N  sliding except every k-th layer, k = global_attn_every_n_layers (default N) (afmoe)
# MoE "deepseek": n_routed_experts from layer first_k_dense_replace on (or where mlp_layer_types says "sparse"),
# plus n_shared_experts shared experts of moe_intermediate_size (dots1, glm4_moe, exaone_moe, solar_open).
# MoE "ernie": layer i sparse when (i + 1) % moe_layer_interval == 0 and moe_layer_start_index <= i <=
# moe_layer_end_index (-1: the last layer).
#   reader        the type's own reader sets every layer's kind (nemotron_h)
#   hybrid        attention or state-space layers, as planner/models/hf_hybrid.py reads them (jamba, bamba,
#                 granitemoehybrid; qwen3_next, qwen3_5: gated delta-net linear attention; lfm2: short conv;
#                 minimax: lightning attention; falcon_h1: attention and Mamba-2 side by side)
TRAITS: dict[str, Traits] = {
    "llama": LLAMA,
    "mistral": NO_BIAS,
    "ministral": Traits(layer_rule="ministral"),
    "ministral3": NO_BIAS,
    "mixtral": Traits(moe="all", moe_ffn_key="intermediate_size"),
    "qwen2": Traits(qkv_bias=True, layer_rule="qwen"),
    "qwen2_moe": Traits(qkv_bias="qkv_bias", moe="qwen", shared_expert="qwen", layer_rule="qwen_moe"),
    "qwen3": Traits(qkv_bias="attention_bias", out_bias="attention_bias", qk_norm="head", layer_rule="qwen"),
    "qwen3_moe": Traits(qkv_bias="attention_bias", out_bias="attention_bias", qk_norm="head", moe="qwen",
                        layer_rule="qwen_off"),
    "gemma": Traits(qkv_bias="attention_bias", out_bias="attention_bias", activation="gelu", layer_rule="full"),
    "gemma2": Traits(qkv_bias="attention_bias", out_bias="attention_bias", activation="gelu", norms_per_layer=4,
                     layer_rule="every:2"),
    "gemma3_text": Traits(qkv_bias="attention_bias", out_bias="attention_bias", activation="gelu",
                          norms_per_layer=4, qk_norm="head", layer_rule="pattern:6"),
    "phi3": Traits(layer_rule="window"),
    "granite": LLAMA,
    "smollm3": Traits(qkv_bias="attention_bias", out_bias="attention_bias", mlp_bias="mlp_bias",
                      layer_rule="smollm3"),
    "olmo": Traits(qkv_bias="attention_bias", out_bias="attention_bias", norm="nonparametric", final_norm=True,
                   layer_rule="full"),
    "olmo2": Traits(qkv_bias="attention_bias", out_bias="attention_bias", qk_norm="full", layer_rule="full"),
    "olmo3": Traits(qkv_bias="attention_bias", out_bias="attention_bias", qk_norm="full", layer_rule="every:4"),
    "olmoe": Traits(qkv_bias="attention_bias", out_bias="attention_bias", qk_norm="full", moe="all",
                    moe_ffn_key="intermediate_size", layer_rule="full"),
    "exaone4": Traits(qkv_bias=False, qk_norm="head", layer_rule="pattern:4"),
    "ernie4_5": Traits(qkv_bias="use_bias", out_bias="use_bias", mlp_bias="use_bias", layer_rule="full"),
    "seed_oss": Traits(qkv_bias="attention_bias", out_bias="attention_out_bias", mlp_bias="mlp_bias",
                       layer_rule="full"),
    "cohere": Traits(qkv_bias="attention_bias", out_bias="attention_bias", norm="layernorm_nobias",
                     norms_per_layer=1, qk_norm="full", qk_norm_key="use_qk_norm", layer_rule="full"),
    "cohere2": Traits(qkv_bias="attention_bias", out_bias="attention_bias", norm="layernorm_nobias",
                      norms_per_layer=1, layer_rule="pattern:4"),
    "hunyuan_v1_dense": Traits(qkv_bias="attention_bias", out_bias="attention_bias", mlp_bias="mlp_bias",
                               qk_norm="head", layer_rule="full"),
    "starcoder2": Traits(qkv_bias="use_bias", out_bias="use_bias", mlp_bias="use_bias", gated=False,
                         norm="layernorm", activation="gelu"),
    "gpt_oss": Traits(qkv_bias="attention_bias", out_bias="attention_bias", moe="all", moe_ffn_key="intermediate_size", router_bias=True,
                      expert_bias=True, sinks=True, layer_rule="every:2"),
    "phimoe": Traits(qkv_bias="attention_bias", out_bias="attention_bias", norm="layernorm", moe="all",
                     moe_ffn_key="intermediate_size", lm_head_bias="lm_head_bias"),
    "granitemoe": Traits(qkv_bias="attention_bias", out_bias="attention_bias", moe="all", moe_ffn_key="intermediate_size", layer_rule="full"),
    "llama4_text": Traits(qkv_bias="attention_bias", out_bias="attention_bias", moe="llama4",
                          moe_ffn_key="intermediate_size", shared_expert="llama4", layer_rule="llama4"),
    "glm": Traits(qkv_bias="attention_bias", layer_rule="full"),
    "glm4": Traits(qkv_bias="attention_bias", norms_per_layer=4, layer_rule="full"),
    "stablelm": Traits(qkv_bias="use_qkv_bias", norm="layernorm", qk_norm="full", qk_norm_key="qk_layernorm",
                       parallel_key="use_parallel_residual", layer_rule="full"),
    "vaultgemma": Traits(qkv_bias="attention_bias", out_bias="attention_bias", activation="gelu",
                         layer_rule="every:2"),
    "granitemoeshared": Traits(qkv_bias="attention_bias", out_bias="attention_bias", moe="all",
                               moe_ffn_key="intermediate_size", shared_expert="granite", layer_rule="full"),
    "granite_swa": Traits(qkv_bias="attention_bias", out_bias="attention_bias", mlp_bias="mlp_bias", sinks=True,
                          layer_rule="first_of:4"),
    "granitemoe_swa": Traits(qkv_bias="attention_bias", out_bias="attention_bias", moe="all",
                             moe_ffn_key="intermediate_size", shared_expert="granite", sinks=True,
                             layer_rule="first_of:4"),
    "flex_olmo": Traits(qkv_bias="attention_bias", out_bias="attention_bias", qk_norm="full", moe="all",
                        moe_ffn_key="intermediate_size", layer_rule="full"),
    "cwm": Traits(qkv_bias="attention_bias", out_bias="attention_bias", mlp_bias="mlp_bias", layer_rule="first_of:4"),
    "dots1": Traits(qkv_bias="attention_bias", out_bias="attention_bias", qk_norm="head", moe="deepseek",
                    layer_rule="from_max"),
    # experts and shared experts of intermediate_size; the dense layers mlp_layer_types names are
    # prefix_dense_intermediate_size wide; one bias-free norm per layer (RMSNorm or LayerNorm: one vector)
    "cohere2_moe": Traits(qkv_bias="attention_bias", out_bias="attention_bias", norm="layernorm_nobias",
                          norms_per_layer=1, moe="deepseek", moe_ffn_key="intermediate_size",
                          dense_ffn_key="prefix_dense_intermediate_size", layer_rule="pattern:4"),
    "glm4_moe": Traits(qkv_bias="attention_bias", qk_norm="head", qk_norm_key="use_qk_norm", moe="deepseek",
                       layer_rule="full"),
    "exaone_moe": Traits(qk_norm="head", moe="deepseek", layer_rule="pattern:4"),
    "solar_open": Traits(qkv_bias="attention_bias", moe="deepseek", layer_rule="full"),
    "phi": Traits(qkv_bias=True, out_bias=True, mlp_bias=True, gated=False, norm="layernorm", norms_per_layer=1,
                  qk_norm="head", qk_norm_key="qk_layernorm", activation="gelu_new", lm_head_bias=True,
                  layer_rule="full"),
    "persimmon": Traits(qkv_bias=True, out_bias=True, mlp_bias=True, gated=False, norm="layernorm",
                        qk_norm="head", qk_norm_key="qk_layernorm", activation="gelu", layer_rule="full"),
    "nemotron": Traits(qkv_bias="attention_bias", out_bias="attention_bias", mlp_bias="mlp_bias", gated=False,
                       norm="layernorm", activation="relu2", layer_rule="full"),
    "arcee": Traits(qkv_bias="attention_bias", out_bias="attention_bias", mlp_bias="mlp_bias", gated=False,
                    activation="gelu", layer_rule="full"),
    "jais2": Traits(qkv_bias="attention_bias", out_bias="attention_bias", mlp_bias="mlp_bias", gated=False,
                    norm="layernorm", activation="gelu", layer_rule="full"),
    "nanochat": Traits(qkv_bias="attention_bias", out_bias="attention_bias", gated=False, norm="nonparametric",
                       activation="relu2", layer_rule="full"),
    "hyperclovax": Traits(qkv_bias="attention_bias", out_bias="attention_bias", mlp_bias="mlp_bias",
                          norms_per_layer=4, layer_rule="full"),
    "mellum": Traits(qkv_bias="attention_bias", out_bias="attention_bias", qk_norm="head", moe="qwen",
                     layer_rule="full"),
    "helium": Traits(qkv_bias="attention_bias", mlp_bias="mlp_bias", layer_rule="full"),
    "bitnet": Traits(qkv_bias="attention_bias", out_bias="attention_bias", activation="relu2", layer_rule="full",
                     layer_extra="sub_norms"),
    "apertus": Traits(qkv_bias="attention_bias", out_bias="attention_bias", gated=False, qk_norm="head",
                      activation="xielu", layer_rule="full", layer_extra="xielu"),
    "hunyuan_v1_moe": Traits(qkv_bias="attention_bias", out_bias="attention_bias", qk_norm="head", moe="all",
                             moe_ffn_key="intermediate_size", top_k_key="moe_topk", shared_expert="llama4",
                             layer_rule="full"),
    "ernie4_5_moe": Traits(qkv_bias="use_bias", out_bias="use_bias", mlp_bias="use_bias", moe="ernie",
                           experts_key="moe_num_experts", top_k_key="moe_k", shared_expert="count",
                           shared_key="moe_num_shared_experts", router_bias=True, lm_head_bias="use_bias",
                           layer_rule="full"),
    # q/k RMSNorms over all heads (heads x head_dim), every layer an MoE (the router's correction bias a buffer)
    "minimax_m2": Traits(qk_norm="full", moe="all", moe_ffn_key="intermediate_size", layer_rule="full"),
    # llama attention with four lambda vectors of head_dim per layer (its group norm has no weight)
    "diffllama": Traits(qkv_bias="attention_bias", out_bias="attention_bias", layer_rule="full", layer_extra="lambdas"),
    **{name: Traits(reader=name, layer_rule="full") for name in (*CLASSIC_TYPES, *SPECIAL_TYPES)},
    "nemotron_h": Traits(reader="nemotron_h", layer_rule="reader"),  # its reader lays out its layer kinds
    # Gemma 3n's decoder: sliding except every fifth layer (Gemma3nTextConfig), read by hf_special._gemma3n
    "gemma3n_text": Traits(reader="gemma3n_text", layer_rule="every:5"),
    "jetmoe": Traits(reader="jetmoe", layer_rule="full"),
    "longcat_flash": Traits(reader="longcat_flash", layer_rule="full"),
    "recurrent_gemma": Traits(reader="recurrent_gemma", layer_rule="reader"),  # its reader lays out its layers
    "gpt2": Traits(reader="gpt2", layer_rule="full"),
    "gpt_neox": Traits(reader="gpt_neox", layer_rule="full"),
    "deepseek_v2": Traits(reader="deepseek", layer_rule="full"),
    "deepseek_v3": Traits(reader="deepseek", layer_rule="full"),
    # DeepSeek Sparse Attention: MLA plus a lightning indexer per layer (hf_config._sparse_attention_indexer)
    "deepseek_v32": Traits(reader="deepseek", layer_rule="full"),
    # afmoe: four norms a layer, q/k norms, a sigmoid gate on the attention output from its own gate_proj, the
    # first num_dense_layers dense, shared experts of moe_intermediate_size, the router's expert_bias a parameter
    "afmoe": Traits(qkv_bias="attention_bias", out_bias="attention_bias", norms_per_layer=4, qk_norm="head",
                    moe="deepseek", shared_key="num_shared_experts", router_bias=True,
                    layer_rule="global_every:4", layer_extra="attention_gate"),
    "glm_moe_dsa": Traits(reader="deepseek", layer_rule="full"),
    # MLA attention (q_proj or q_a_proj + q_b_proj, kv_a_proj_with_mqa, kv_b_proj) with a dense MLP, or with
    # DeepSeek's MoE (glm4_moe_lite)
    "minicpm3": Traits(reader="deepseek", layer_rule="full"),
    "youtu": Traits(reader="deepseek", layer_rule="full"),
    "glm4_moe_lite": Traits(reader="deepseek", layer_rule="full"),
    "jamba": Traits(layer_rule="hybrid"),
    "bamba": Traits(qkv_bias="attention_bias", out_bias="attention_bias", mlp_bias="mlp_bias", layer_rule="hybrid"),
    "granitemoehybrid": Traits(qkv_bias="attention_bias", out_bias="attention_bias", layer_rule="hybrid"),
    "qwen3_next": Traits(qkv_bias="attention_bias", out_bias="attention_bias", qk_norm="head", moe="qwen",
                         shared_expert="qwen", layer_rule="hybrid"),
    "qwen3_5_text": Traits(qkv_bias="attention_bias", out_bias="attention_bias", qk_norm="head", layer_rule="hybrid"),
    "qwen3_5_moe_text": Traits(qkv_bias="attention_bias", out_bias="attention_bias", qk_norm="head", moe="all",
                               shared_expert="qwen", layer_rule="hybrid"),
    "lfm2": Traits(qk_norm="head", layer_rule="hybrid"),
    "lfm2_moe": Traits(qk_norm="head", layer_rule="hybrid"),
    "minimax": Traits(moe="all", moe_ffn_key="intermediate_size", layer_rule="hybrid"),
    "falcon_h1": Traits(qkv_bias="attention_bias", out_bias="attention_bias", mlp_bias="mlp_bias",
                        layer_rule="hybrid"),
    "mamba": Traits(reader="state_space"),
    "falcon_mamba": Traits(reader="state_space"),
    "mamba2": Traits(reader="state_space"),
}  # fmt: skip

# Configurations that wrap a text decoder with a vision (or audio) tower: the decoder is read from text_config
# (its model_type, or the one named here when the file leaves it out); the towers are not counted.
WRAPPERS: dict[str, str] = {
    "gemma3": "gemma3_text",
    "gemma3n": "gemma3n_text",
    "llama4": "llama4_text",
    "mistral3": "mistral",
    "qwen3_5": "qwen3_5_text",
    "qwen3_5_moe": "qwen3_5_moe_text",
}

READ_TYPES = tuple(sorted(TRAITS))
