"""config.json readers for the older decoder families whose keys and layers follow no llama-style pattern: opt,
bloom, falcon, mpt, gptj, codegen, gpt_bigcode and gpt_neo, each as transformers 5.22 builds it
(transformers/models/<type>/modeling_<type>.py). Parallel attention/MLP blocks share one input norm; ALiBi
models (bloom, mpt, falcon with alibi) have no rotary or learned positions.

Each is checked against transformers itself in tests/planner/test_hf_coverage.py (exact parameter counts on
generated configs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from planner.models.config_file import ConfigKeys
from planner.models.spec import ModelSpec

# BLOOM keeps no context length in its config (ALiBi has no position table); it was trained on sequences of
# 2,048 tokens (BigScience, "BLOOM: A 176B-Parameter Open-Access Multilingual Language Model", arXiv 2211.05100,
# section 3.3.3), which is the length the context check holds a plan to.
BLOOM_TRAINED_CONTEXT = 2048


def _spec(common: dict[str, Any], **fields: Any) -> ModelSpec:  # Any: ModelSpec fields
    """A ModelSpec of an ungated, LayerNorm family: K and V as wide as Q unless kv_heads says otherwise."""
    hidden, heads = fields["hidden"], fields["heads"]
    base: dict[str, Any] = dict(  # Any: ModelSpec fields
        common, kv_heads=heads, head_dim=hidden // heads, gated_mlp=False, norm="layernorm", activation="gelu"
    )
    return ModelSpec(**{**base, **fields})


def _opt(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:  # Any: ModelSpec fields
    hidden = config.int("hidden_size")
    bias = config.bool("enable_bias", True)
    embed_width = config.int("word_embed_proj_dim", hidden)
    return _spec(
        common,
        layers=config.int("num_hidden_layers"),
        hidden=hidden,
        heads=config.int("num_attention_heads"),
        ffn=config.int("ffn_dim"),
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", True),
        norm="layernorm" if config.bool("layer_norm_elementwise_affine", True) else "nonparametric",
        attn_bias=bias,
        attn_out_bias=bias,
        mlp_bias=bias,
        max_context=config.int("max_position_embeddings", 2048),
        learned_positions=True,
        position_offset=2,  # OPTLearnedPositionalEmbedding keeps two rows more than max_position_embeddings
        rotary=False,
        activation="relu",
        # a final norm only for pre-norm stacks whose checkpoint has one (opt-350m has neither)
        final_norm=config.bool("do_layer_norm_before", True)
        and not config.bool("_remove_final_layer_norm", False),
        embed_width=embed_width if embed_width != hidden else 0,
    )


def _bloom(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:  # Any: ModelSpec fields
    # n_embed is an older spelling of hidden_size that BloomConfig still honours
    hidden = config.int("n_embed" if config.raw.get("n_embed") is not None else "hidden_size")
    return _spec(
        common,
        layers=config.int("n_layer"),
        hidden=hidden,
        heads=config.int("n_head"),
        ffn=4 * hidden,
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", True),
        attn_bias=True,
        attn_out_bias=True,
        mlp_bias=True,
        max_context=BLOOM_TRAINED_CONTEXT,
        rotary=False,
        embedding_norm=True,
    )


def _falcon(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:  # Any: ModelSpec fields
    hidden = config.int("hidden_size")
    heads = config.int("num_attention_heads")
    new_architecture = config.bool("new_decoder_architecture", False)
    if new_architecture:
        kv_heads = config.int("num_kv_heads", heads)
    else:
        kv_heads = 1 if config.bool("multi_query", True) else heads
    # norms: ln_attn + ln_mlp (the new architecture, unless num_ln_in_parallel_attn says 1), one shared norm
    # for a parallel block, input + post-attention norms for a sequential one
    norms = 2
    if config.bool("parallel_attn", True):
        listed = config.data.get("num_ln_in_parallel_attn")
        norms = 2 if (listed is None and new_architecture) or listed == 2 else 1
    bias = config.bool("bias", False)
    return _spec(
        common,
        layers=config.int("num_hidden_layers"),
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        ffn=config.int("ffn_hidden_size", 4 * hidden),
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", True),
        attn_bias=bias,
        attn_out_bias=bias,
        mlp_bias=bias,
        norms_per_layer=norms,
        max_context=config.int("max_position_embeddings", 2048),
        rotary=not config.bool("alibi", False),
    )


def _mpt(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:  # Any: ModelSpec fields
    hidden = config.int("d_model")
    return _spec(
        common,
        layers=config.int("n_layers"),
        hidden=hidden,
        heads=config.int("n_heads"),
        ffn=4 * hidden,  # MptMLP is 4 x d_model wide whatever expansion_ratio says
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", True),
        norm="layernorm_nobias",  # MptBlock drops its LayerNorms' biases (the Hub's weights have none)
        attn_bias=False,
        mlp_bias=False,
        max_context=config.int("max_seq_len", 2048),
        rotary=False,  # ALiBi; learned_pos_emb is not built by transformers
    )


def _gptj(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:  # Any: ModelSpec fields
    """gptj and codegen: a parallel block (one norm), no attention biases, a biased MLP and LM head."""
    hidden = config.int("n_embd")
    inner = config.data.get("n_inner")
    return _spec(
        common,
        layers=config.int("n_layer"),
        hidden=hidden,
        heads=config.int("n_head"),
        ffn=config.int("n_inner") if inner is not None else 4 * hidden,
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", False),
        attn_bias=False,
        mlp_bias=True,
        norms_per_layer=1,
        max_context=config.int("n_positions", 2048),
        lm_head_bias=True,
        activation="gelu_new",
    )


def _gpt_bigcode(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:  # Any: ModelSpec fields
    hidden = config.int("n_embd")
    heads = config.int("n_head")
    inner = config.data.get("n_inner")
    return _spec(
        common,
        layers=config.int("n_layer"),
        hidden=hidden,
        heads=heads,
        kv_heads=1 if config.bool("multi_query", True) else heads,  # multi-query: one K and V head
        ffn=config.int("n_inner") if inner is not None else 4 * hidden,
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", True),
        attn_bias=True,
        attn_out_bias=True,
        mlp_bias=True,
        max_context=config.int("n_positions", 2048),
        learned_positions=True,
        rotary=False,
        cross_attention=config.bool("add_cross_attention", False),
    )


def _gpt_neo(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:  # Any: ModelSpec fields
    # Its local layers attend window_size tokens through a mask; transformers' DynamicCache keeps every token
    # of every layer (GPTNeoConfig has no sliding_window), so every layer is counted as a full one.
    hidden = config.int("hidden_size")
    inner = config.data.get("intermediate_size")
    return _spec(
        common,
        layers=config.int("num_layers"),
        hidden=hidden,
        heads=config.int("num_heads"),
        ffn=config.int("intermediate_size") if inner is not None else 4 * hidden,
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", True),
        attn_bias=False,
        attn_out_bias=True,
        mlp_bias=True,
        max_context=config.int("max_position_embeddings", 2048),
        learned_positions=True,
        rotary=False,
        activation="gelu_new",
    )


CLASSIC_READERS: dict[str, Callable[[ConfigKeys, dict[str, Any]], ModelSpec]] = {
    "opt": _opt,
    "bloom": _bloom,
    "falcon": _falcon,
    "mpt": _mpt,
    "gptj": _gptj,
    "codegen": _gptj,
    "gpt_bigcode": _gpt_bigcode,
    "gpt_neo": _gpt_neo,
}
