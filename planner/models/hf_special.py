"""config.json readers for decoder types whose keys nest or whose layers follow no shared pattern, each as
transformers 5.22 builds it (transformers/models/<type>/modeling_<type>.py):

- dbrx: the attention and MoE keys sit in nested attn_config and ffn_config objects; fused Wqkv without bias,
  bias-free LayerNorms, every layer an MoE of gated experts (w1, v1, w2) with a bias-free router.
- gemma3n_text (Gemma 3n's decoder): Gemma 3 attention (q/k norms over a head) with four norms a layer, plus in
  every layer AltUp (correct_output_scale, correction and prediction coefficients over altup_num_inputs streams,
  a modality router and its norm), a LAuReL block (hidden -> laurel_rank -> hidden and a norm) and the per-layer
  input gate and projection (hidden <-> hidden_size_per_layer_input, and a norm); beside the token embedding a
  per-layer embedding (vocab_size_per_layer_input x layers x hidden_size_per_layer_input) with its projection
  from the hidden state and its norm, and AltUp's altup_num_inputs - 1 projections in and out. The last
  num_kv_shared_layers layers reuse an earlier layer's keys and values: no k_proj, v_proj, k_norm, no cache.
  intermediate_size is one width or one per layer.
- jetmoe: a mixture of attention heads (JetMoeMoA: num_local_experts experts, each a q projection hidden ->
  kv_heads x kv_channels and an o projection back, num_experts_per_tok of them per token, a router and an
  output bias; one kv_proj shared) and an MoE MLP (num_local_experts gated experts of intermediate_size, a router,
  an output bias), two RMSNorms a layer. Read as attention of num_experts_per_tok x kv_heads query heads (what a
  token computes) with the other attention experts counted beside it (ModelSpec.attention_experts).
- recurrent_gemma (Griffin): layers cycle through block_types; a "recurrent" layer's temporal block is linear_y and
  linear_x (hidden -> lru_width, biased), a depthwise conv1d (conv1d_width taps, biased), the RG-LRU (a recurrent
  parameter, input and recurrent gates block-diagonal over num_attention_heads blocks, biased) and linear_out
  (biased); an "attention" layer's is local attention over attention_window_size tokens, o_proj always biased;
  every layer then a gated MLP of intermediate_size / 2 with biases. State of a recurrent layer: the conv's last
  conv1d_width - 1 inputs and the RG-LRU state, lru_width each (the RG-LRU state is fp32 whatever the
  precision: counted here in the plan's bytes per value).
- longcat_flash: each of num_layers layers holds two MLA sublayers (DeepSeek's, q always low-rank) each followed
  by a dense MLP of ffn_hidden_size, and one MoE beside them (shortcut-connected) of n_routed_experts gated experts
  of expert_ffn_hidden_size and zero_expert_num zero-compute experts, top moe_topk, a router over both; two
  RMSNorms a sublayer. Read as 2 x num_layers sublayers (what transformers' cache counts), num_layers of them
  carrying the MoE (placed after the others in pipeline stages, as for jamba: totals exact, the per-stage split
  approximate). transformers 5.22 allocates gate_up_proj rows for the zero-compute experts too
  (LongcatFlashExperts: total_experts x 2 x ffn x hidden), which no checkpoint holds and no token uses: not
  counted (the class defaults give 560.66B, Meituan's LongCat-Flash report states 560B). The active count takes
  moe_topk real experts, its most (the report: 18.6B to 31.3B by token).
- nemotron_h: each layer one block (Mamba-2, attention, MLP or MoE) behind one norm; read in
  planner/models/hf_hybrid.py (nemotron_h), its layer kinds included.

Each is checked against transformers itself in tests/planner/test_hf_coverage.py (exact parameter counts on
generated configs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from planner.errors import UserError
from planner.messages import msg
from planner.models.config_file import ConfigKeys
from planner.models.hf_hybrid import LAYERS, nemotron_h
from planner.models.kv_cache import SLIDING, STATE
from planner.models.spec import ModelSpec

# The defaults of DBRX's nested configuration classes (transformers/models/dbrx/configuration_dbrx.py:
# DbrxAttentionConfig, DbrxFFNConfig), for a key the nested object leaves out.
DBRX_ATTN_DEFAULTS = {"kv_n_heads": 1}
# RecurrentGemma's training sequence length (Botev et al., "RecurrentGemma: Moving Past Transformers for Efficient
# Open Language Models", arXiv 2404.07839, 2024): the default sequence length of its plans
RECURRENT_GEMMA_TRAINED_TOKENS = 8192
# RecurrentGemmaConfig's default block cycle (and the two kinds it knows)
RECURRENT_GEMMA_BLOCKS = ("recurrent", "recurrent", "attention")
DBRX_FFN_DEFAULTS = {"ffn_hidden_size": 3584, "moe_num_experts": 4, "moe_top_k": 1}


def _nested(config: ConfigKeys, key: str, defaults: dict[str, Any]) -> ConfigKeys:  # Any: JSON values
    """A nested configuration object (null or absent: all its defaults) as ConfigKeys over its defaults."""
    value = config.data.get(key)
    if value is None:
        value = {}
    if not isinstance(value, dict):
        raise UserError.of(msg("error.config_not_object", path=config.path, kind=key))
    return ConfigKeys(
        {**defaults, **value, "model_type": config.model_type}, f"{config.path}: {key}", config.model_type
    )


def _dbrx(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:  # Any: ModelSpec fields
    hidden, heads = config.int("d_model"), config.int("n_heads")
    attn, ffn = (
        _nested(config, "attn_config", DBRX_ATTN_DEFAULTS),
        _nested(config, "ffn_config", DBRX_FFN_DEFAULTS),
    )
    return ModelSpec(
        **common,
        layers=config.int("n_layers"),
        hidden=hidden,
        heads=heads,
        kv_heads=attn.int("kv_n_heads"),
        head_dim=hidden // heads,
        ffn=0,  # no dense MLP: every layer is an MoE
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", False),  # DbrxConfig refuses tied embeddings
        gated_mlp=True,
        norm="layernorm_nobias",
        attn_bias=False,
        mlp_bias=False,
        experts=ffn.int("moe_num_experts"),
        experts_per_token=ffn.int("moe_top_k"),
        moe_ffn=ffn.int("ffn_hidden_size"),
        max_context=config.int("max_seq_len", 2048),
    )


def _gemma3n(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:  # Any: ModelSpec fields
    hidden, layers, heads = (
        config.int("hidden_size"),
        config.int("num_hidden_layers"),
        config.int("num_attention_heads"),
    )
    streams, per_layer = config.int("altup_num_inputs"), config.int("hidden_size_per_layer_input")
    widths = config.data.get("intermediate_size")
    if isinstance(widths, list) and len(widths) == layers:
        per_layer_widths = tuple(ConfigKeys({"w": w}, config.path).int("w") for w in widths)
    else:
        per_layer_widths = (config.int("intermediate_size"),) * layers
    ffn = max(per_layer_widths)
    altup = hidden + streams * streams + streams**3 + streams * hidden + hidden
    laurel = 2 * hidden * config.int("laurel_rank") + hidden
    per_layer_input = 2 * hidden * per_layer + hidden
    embedding_extra = (
        config.int("vocab_size_per_layer_input") * layers * per_layer  # embed_tokens_per_layer
        + layers * per_layer * hidden  # per_layer_model_projection
        + per_layer  # per_layer_projection_norm
        + 2 * (streams - 1) * hidden * hidden  # altup_projections, altup_unembed_projections
    )
    bias = config.bool("attention_bias", False)
    return ModelSpec(
        **common,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=config.int("num_key_value_heads", heads),
        head_dim=config.int("head_dim", hidden // heads),
        ffn=ffn,
        ffn_widths=per_layer_widths if len(set(per_layer_widths)) > 1 else (),
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", True),
        gated_mlp=True,
        norm="rmsnorm",
        norms_per_layer=4,
        qk_norm=True,
        attn_bias=bias,
        attn_out_bias=bias,
        mlp_bias=False,
        activation="gelu",
        max_context=config.int("max_position_embeddings", 32768),
        layer_extra_params=altup + laurel + per_layer_input,
        embedding_extra=embedding_extra,
        kv_shared_layers=config.int("num_kv_shared_layers", 0, allow_zero=True),
    )


def _jetmoe(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:  # Any: ModelSpec fields
    hidden, kv_heads, experts = (
        config.int("hidden_size"),
        config.int("num_key_value_heads"),
        config.int("num_local_experts"),
    )
    top_k = config.int("num_experts_per_tok")
    ffn = config.int("intermediate_size")
    return ModelSpec(
        **common,
        layers=config.int("num_hidden_layers"),
        hidden=hidden,
        heads=top_k * kv_heads,
        kv_heads=kv_heads,
        head_dim=config.int("kv_channels"),
        ffn=ffn,
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", True),
        gated_mlp=True,
        norm="rmsnorm",
        attn_bias=False,
        mlp_bias=False,
        experts=experts,
        experts_per_token=top_k,
        moe_ffn=ffn,
        attention_experts=experts,
        # the attention router (hidden -> experts) and the two output biases (MoA's, the MoE's)
        layer_extra_params=hidden * experts + 2 * hidden,
        max_context=config.int("max_position_embeddings", 4096),
    )


def _recurrent_gemma(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:  # Any: ModelSpec fields
    hidden, heads, layers = (
        config.int("hidden_size"),
        config.int("num_attention_heads"),
        config.int("num_hidden_layers"),
    )
    lru = config.int("lru_width", hidden)
    conv = config.int("conv1d_width")
    block = lru // heads
    mixer = (
        2 * (hidden * lru + lru)  # linear_y, linear_x
        + lru * hidden + hidden  # linear_out
        + lru * conv + lru  # conv_1d
        + lru + 2 * heads * block * (block + 1)  # recurrent_param, input and recurrent gates
    )  # fmt: skip
    cycle = config.data.get("block_types")
    cycle = list(RECURRENT_GEMMA_BLOCKS) if cycle is None else cycle  # the class's default (a tuple)
    if not isinstance(cycle, list) or not cycle or layers > LAYERS.high:
        raise UserError.of(msg("error.spec_layer_kind", where=f"{config.path}: block_types", kind=cycle))
    for kind in cycle:
        if kind not in RECURRENT_GEMMA_BLOCKS:
            raise UserError.of(msg("error.spec_layer_kind", where=f"{config.path}: block_types", kind=kind))
    kinds = tuple(STATE if cycle[i % len(cycle)] == "recurrent" else SLIDING for i in range(layers))
    return ModelSpec(
        **common,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=config.int("num_key_value_heads", heads),
        head_dim=hidden // heads,
        ffn=config.int("intermediate_size") // 2,
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", True),
        gated_mlp=True,
        norm="rmsnorm",
        attn_bias=config.bool("attention_bias", False),
        attn_out_bias=True,
        mlp_bias=True,
        activation="gelu",
        layer_types=kinds,
        sliding_window=config.int("attention_window_size"),
        state_mixer_params=mixer,
        state_values_per_layer=lru * (conv - 1) + lru,
        # local attention and a recurrence: any length runs (the RecurrentGemma report trains on 8,192 tokens)
        max_context=RECURRENT_GEMMA_TRAINED_TOKENS,
        unbounded_context=True,
    )


def _longcat_flash(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:  # Any: ModelSpec fields
    layers, heads = config.int("num_layers"), config.int("num_attention_heads")
    ffn = config.int("ffn_hidden_size")
    return ModelSpec(
        **common,
        layers=2 * layers,
        hidden=config.int("hidden_size"),
        heads=heads,
        kv_heads=heads,  # MLA: every head's K and V decompressed from the shared latent
        head_dim=config.int("v_head_dim"),
        ffn=ffn,
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", False),
        gated_mlp=True,
        norm="rmsnorm",
        attn_bias=config.bool("attention_bias", False),
        mlp_bias=False,
        experts=config.int("n_routed_experts"),
        experts_per_token=config.int("moe_topk"),
        zero_experts=config.int("zero_expert_num", 0, allow_zero=True),
        shared_experts=1,  # an MoE sublayer's own dense MLP, counted as its shared expert
        shared_expert_ffn=ffn,
        moe_ffn=config.int("expert_ffn_hidden_size"),
        dense_layers=layers,
        router_bias=config.bool("router_bias", False),
        q_lora_rank=config.int("q_lora_rank"),
        kv_lora_rank=config.int("kv_lora_rank"),
        qk_rope_head_dim=config.int("qk_rope_head_dim"),
        qk_nope_head_dim=config.int("qk_nope_head_dim"),
        v_head_dim=config.int("v_head_dim"),
        max_context=config.int("max_position_embeddings", 131072),
    )


def _nemotron_h(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:  # Any: ModelSpec fields
    return ModelSpec(**nemotron_h(config, common))


SPECIAL_READERS: dict[str, Callable[[ConfigKeys, dict[str, Any]], ModelSpec]] = {
    "dbrx": _dbrx,
    "gemma3n_text": _gemma3n,
    "jetmoe": _jetmoe,
    "recurrent_gemma": _recurrent_gemma,
    "longcat_flash": _longcat_flash,
    "nemotron_h": _nemotron_h,
}
