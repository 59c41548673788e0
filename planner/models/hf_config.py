"""Hugging Face config.json import: the model types read and how each one's keys become a ModelSpec."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from planner.errors import UserError
from planner.messages import msg
from planner.models.config_file import ConfigKeys, check_imported_size, read_config_json
from planner.models.hf_defaults import DEEPSEEK_V2_EXPERTS_PER_TOKEN
from planner.models.spec import ModelSpec, validate_spec

SUPPORTED_MODEL_TYPES = (
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen2_moe",
    "qwen3",
    "qwen3_moe",
    "gemma",
    "gemma2",
    "gemma3_text",
    "phi3",
    "gpt2",
    "gpt_neox",
    "deepseek_v2",
    "deepseek_v3",
)


def load_hf_config(path: str | os.PathLike[str]) -> ModelSpec:
    """Read a Hugging Face config.json (llama, mistral, mixtral, qwen2, qwen2_moe, gemma, gemma2, phi3, gpt2,
    gpt_neox, deepseek_v2, deepseek_v3) into a ModelSpec. UserError names the file and key on bad input."""
    path = Path(path)
    if path.is_dir():
        path = path / "config.json"
    data = read_config_json(path)
    model_type = data.get("model_type")
    if model_type is None:
        raise UserError.of(msg("error.config_no_model_type", path=str(path)))
    if model_type not in SUPPORTED_MODEL_TYPES:
        supported = ", ".join(SUPPORTED_MODEL_TYPES)
        raise UserError.of(
            msg("error.config_model_type", path=str(path), model_type=model_type, supported=supported)
        )
    config = ConfigKeys(data, str(path))
    name = str(data.get("_name_or_path") or path.parent.name or model_type)
    common = {"name": name, "family": model_type, "source": str(path)}
    if model_type == "gpt2":
        spec = _gpt2(config, common)
    elif model_type == "gpt_neox":
        spec = _gpt_neox(config, common)
    elif model_type in ("deepseek_v2", "deepseek_v3"):
        spec = _deepseek(config, common)
    else:
        spec = _llama_like(config, common)
    validate_spec(spec, where=str(path))
    check_imported_size(spec.total_params, str(path))
    return spec


def _count_multiples(step: int, start: int, stop: int) -> int:
    """How many i in range(start, stop) are multiples of step (counted, not looped: layers may be absurd)."""
    if stop <= start:
        return 0
    return (stop - 1) // step - (start - 1) // step if start > 0 else (stop - 1) // step + 1


def _llama_like(config: ConfigKeys, common: dict[str, str]) -> ModelSpec:
    """llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, gemma3_text, phi3: the same
    tensor layout (phi3 fuses qkv and gate/up, same counts) with each type's biases, norms and defaults."""
    t = config.model_type
    hidden = config.int("hidden_size")
    heads = config.int("num_attention_heads")
    kv_heads = config.int("num_key_value_heads", heads)
    head_dim = config.int("head_dim") if config.data.get("head_dim") is not None else hidden // heads
    layers = config.int("num_hidden_layers")
    gemma = t in ("gemma", "gemma2", "gemma3_text")
    # biases: llama, gemma*, qwen3* put attention_bias on q, k, v and o; qwen2 always biases q, k, v (not o);
    # qwen2_moe's qkv_bias does the same; mistral, mixtral and phi3 have none
    qkv_bias = out_bias = False
    if t in ("llama", "gemma", "gemma2", "gemma3_text", "qwen3", "qwen3_moe"):
        qkv_bias = out_bias = config.bool("attention_bias", False)
    elif t == "qwen2":
        qkv_bias = True
    elif t == "qwen2_moe":
        qkv_bias = config.bool("qkv_bias", True)
    # null means no window (transformers keeps the None); a missing key takes the type's default
    window = (
        config.raw["sliding_window"] if "sliding_window" in config.raw else config.data.get("sliding_window")
    )
    if t in ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe") and not config.bool("use_sliding_window", False):
        window = None
    fields: dict[str, Any] = dict(  # Any: ModelSpec's fields, checked by validate_spec
        common,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        ffn=config.int("intermediate_size"),
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", gemma),
        gated_mlp=True,
        norm="rmsnorm",
        attn_bias=qkv_bias,
        attn_out_bias=out_bias,
        mlp_bias=config.bool("mlp_bias", False) if t == "llama" else False,
        max_context=config.int("max_position_embeddings", 4096),
        norms_per_layer=4 if t in ("gemma2", "gemma3_text") else 2,
        activation="gelu" if gemma else "silu",
        qk_norm=t in ("qwen3", "qwen3_moe", "gemma3_text"),
        sliding_window=window
        if isinstance(window, int) and not isinstance(window, bool) and window > 0
        else 0,
    )
    if t == "mixtral":
        fields.update(
            experts=config.int("num_local_experts"),
            experts_per_token=config.int("num_experts_per_tok"),
            moe_ffn=fields["ffn"],
        )
    elif t in ("qwen2_moe", "qwen3_moe"):
        fields.update(_qwen_moe(config, layers, shared=t == "qwen2_moe"))
    return ModelSpec(**fields)


def _qwen_moe(config: ConfigKeys, layers: int, shared: bool) -> dict[str, Any]:  # Any: ModelSpec fields
    """MoE fields of qwen2_moe / qwen3_moe: layer i is sparse when (i + 1) % decoder_sparse_step == 0 and it is not in
    mlp_only_layers (every layer may be dense); qwen2_moe adds a gated shared expert."""
    experts = config.int("num_experts")
    step = config.int("decoder_sparse_step", 1)
    dense_only = config.data.get("mlp_only_layers") or []
    if not isinstance(dense_only, list):
        raise UserError.of(msg("error.config_mlp_only_layers", path=config.path))
    # counted, not looped over, so an absurd layer count reaches the size check instead of hanging here
    listed = {i for i in dense_only if isinstance(i, int) and 0 <= i < layers and (i + 1) % step == 0}
    moe_layers = _count_multiples(step, 1, layers + 1) - len(listed)
    shared_ffn = config.int("shared_expert_intermediate_size", 0, allow_zero=True) if shared else 0
    if moe_layers <= 0:
        return {}  # every layer dense: a dense model as transformers builds it
    return dict(
        experts=experts,
        experts_per_token=config.int("num_experts_per_tok"),
        moe_ffn=config.int("moe_intermediate_size"),
        dense_layers=layers - moe_layers,
        shared_experts=1 if shared_ffn else 0,
        shared_expert_ffn=shared_ffn,
        shared_expert_gate=shared,  # qwen2_moe builds the gate (hidden -> 1) even for a zero-width shared expert
    )


def _gpt2(config: ConfigKeys, common: dict[str, str]) -> ModelSpec:
    hidden = config.int("n_embd")
    heads = config.int("n_head")
    inner = config.data.get("n_inner")
    return ModelSpec(
        name=common["name"],
        family=common["family"],
        source=common["source"],
        layers=config.int("n_layer"),
        hidden=hidden,
        heads=heads,
        kv_heads=heads,
        head_dim=hidden // heads,
        ffn=config.int("n_inner") if inner is not None else 4 * hidden,
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", True),
        gated_mlp=False,
        norm="layernorm",
        attn_bias=True,
        attn_out_bias=True,
        mlp_bias=True,
        max_context=config.int("n_positions", 1024),
        learned_positions=True,
        activation="gelu_new" if config.data.get("activation_function", "gelu_new") == "gelu_new" else "gelu",
        rotary=False,
    )


def _gpt_neox(config: ConfigKeys, common: dict[str, str]) -> ModelSpec:
    hidden = config.int("hidden_size")
    heads = config.int("num_attention_heads")
    bias = config.bool("attention_bias", True)
    return ModelSpec(
        name=common["name"],
        family=common["family"],
        source=common["source"],
        layers=config.int("num_hidden_layers"),
        hidden=hidden,
        heads=heads,
        kv_heads=heads,
        head_dim=hidden // heads,
        ffn=config.int("intermediate_size"),
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", False),
        gated_mlp=False,
        norm="layernorm",
        attn_bias=bias,
        attn_out_bias=bias,
        mlp_bias=True,
        max_context=config.int("max_position_embeddings", 2048),
        activation="gelu",
    )


def _deepseek(config: ConfigKeys, common: dict[str, str]) -> ModelSpec:
    layers = config.int("num_hidden_layers")
    experts = config.int("n_routed_experts", 0, allow_zero=True)
    # transformers makes every layer from first_k_dense_replace on an MoE layer (moe_layer_freq is not read)
    first_dense = min(config.int("first_k_dense_replace", 0, allow_zero=True), layers)
    moe_layers = layers - first_dense if experts else 0
    experts = experts if moe_layers else 0
    # an explicit null means "no low-rank query" (DeepSeek-V2-Lite); a missing key takes transformers' default
    q_lora = config.raw["q_lora_rank"] if "q_lora_rank" in config.raw else config.data.get("q_lora_rank")
    heads = config.int("num_attention_heads")
    return ModelSpec(
        name=common["name"],
        family=common["family"],
        source=common["source"],
        layers=layers,
        hidden=config.int("hidden_size"),
        heads=heads,
        kv_heads=heads,  # MLA: every head has its own K and V, decompressed from the shared latent
        head_dim=config.int("v_head_dim"),
        ffn=config.int("intermediate_size"),
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", False),
        gated_mlp=True,
        norm="rmsnorm",
        attn_bias=config.bool("attention_bias", False),
        mlp_bias=config.bool("mlp_bias", False) if config.model_type == "deepseek_v2" else False,
        experts=experts,
        experts_per_token=(
            config.int("num_experts_per_tok", DEEPSEEK_V2_EXPERTS_PER_TOKEN) if experts else 0
        ),
        shared_experts=config.int("n_shared_experts", 0, allow_zero=True) if experts else 0,
        moe_ffn=config.int("moe_intermediate_size") if experts else 0,
        dense_layers=layers - moe_layers if experts else 0,
        q_lora_rank=config.int("q_lora_rank") if q_lora is not None else 0,
        kv_lora_rank=config.int("kv_lora_rank"),
        qk_rope_head_dim=config.int("qk_rope_head_dim"),
        qk_nope_head_dim=config.int("qk_nope_head_dim"),
        v_head_dim=config.int("v_head_dim"),
        max_context=config.int("max_position_embeddings", 4096),
        # e_score_correction_bias (noaux_tc routing) is a buffer in transformers 5, not a parameter
        router_bias=False,
    )
