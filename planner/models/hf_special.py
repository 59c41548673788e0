"""config.json readers for decoder types whose keys nest or whose layers follow no shared pattern, each as
transformers 5.22 builds it (transformers/models/<type>/modeling_<type>.py):

- dbrx: the attention and MoE keys sit in nested attn_config and ffn_config objects; fused Wqkv without bias,
  bias-free LayerNorms, every layer an MoE of gated experts (w1, v1, w2) with a bias-free router.
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
from planner.models.hf_hybrid import nemotron_h
from planner.models.spec import ModelSpec

# The defaults of DBRX's nested configuration classes (transformers/models/dbrx/configuration_dbrx.py:
# DbrxAttentionConfig, DbrxFFNConfig), for a key the nested object leaves out.
DBRX_ATTN_DEFAULTS = {"kv_n_heads": 1}
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


def _nemotron_h(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:  # Any: ModelSpec fields
    return ModelSpec(**nemotron_h(config, common))


SPECIAL_READERS: dict[str, Callable[[ConfigKeys, dict[str, Any]], ModelSpec]] = {
    "dbrx": _dbrx,
    "nemotron_h": _nemotron_h,
}
