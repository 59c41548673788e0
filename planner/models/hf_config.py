"""Hugging Face config.json import: the model types read and how each one's keys become a ModelSpec."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from planner.errors import UserError
from planner.messages import msg
from planner.models.config_file import ConfigKeys, check_imported_size, read_config_json
from planner.models.hf_classic import CLASSIC_READERS
from planner.models.hf_defaults import DEEPSEEK_V2_EXPERTS_PER_TOKEN
from planner.models.hf_hybrid import hybrid_fields, pure_state_space
from planner.models.hf_special import SPECIAL_READERS
from planner.models.hf_towers import tower_params
from planner.models.hf_types import READ_TYPES, TRAITS, WRAPPERS, Traits
from planner.models.kv_cache import CHUNKED, FULL, SLIDING
from planner.models.spec import ModelSpec, validate_spec

# Every model type read (the decoder types of planner/models/hf_types.py and the multimodal wrappers of them).
SUPPORTED_MODEL_TYPES = tuple(sorted((*READ_TYPES, *WRAPPERS)))


def load_hf_config(path: str | os.PathLike[str]) -> ModelSpec:
    """Read a Hugging Face config.json of any type in SUPPORTED_MODEL_TYPES into a ModelSpec, as transformers
    builds it. UserError names the file and key on bad input, and the type when it is not read."""
    path = Path(path)
    if path.is_dir():
        path = path / "config.json"
    data = read_config_json(path)
    model_type = data.get("model_type")
    if model_type is None:
        raise UserError.of(msg("error.config_no_model_type", path=str(path)))
    _check_type_name(model_type, path)
    if data.get("auto_map"):
        # code shipped with the checkpoint (trust_remote_code): never run, and its layout is unknown
        raise UserError.of(msg("error.config_remote_code", path=str(path), model_type=model_type))
    name = str(data.get("_name_or_path") or path.parent.name or model_type)
    common: dict[str, Any] = {
        "name": name,
        "family": model_type,
        "source": str(path),
    }  # Any: ModelSpec fields
    wrapper: dict[str, Any] = {}  # Any: JSON values
    if model_type in WRAPPERS:
        wrapper = data
        text = data.get("text_config") or {}
        if not isinstance(text, dict):
            raise UserError.of(msg("error.config_not_object", path=str(path), kind="text_config"))
        model_type = text.get("model_type") or WRAPPERS[model_type]
        _check_type_name(model_type, path)
        # each tower named by its model_type (siglip_vision_model), or by its key when the file gives none
        towers = sorted(
            str(value.get("model_type") or key) if isinstance(value, dict) else key
            for key, value in data.items() if key.endswith(("vision_config", "audio_config"))
        )  # fmt: skip
        common.update(family=model_type, towers_not_counted=", ".join(towers))
        data = {**text, "model_type": model_type}
    if model_type not in TRAITS:
        supported = ", ".join(SUPPORTED_MODEL_TYPES)
        raise UserError.of(
            msg("error.config_model_type", path=str(path), model_type=model_type, supported=supported)
        )
    config = ConfigKeys(data, str(path), model_type)
    traits = TRAITS[model_type]
    readers = {"gpt2": _gpt2, "gpt_neox": _gpt_neox, "deepseek": _deepseek, "state_space": _state_space}
    readers.update(CLASSIC_READERS)
    readers.update(SPECIAL_READERS)
    spec = readers.get(traits.reader, _llama_like)(config, common)
    if traits.layer_rule == "hybrid":
        spec = dataclasses.replace(spec, **hybrid_fields(config))
    elif traits.reader not in ("deepseek", "state_space") and traits.layer_rule != "reader":
        spec = dataclasses.replace(spec, **_layer_fields(config, traits, spec.layers))
    if wrapper:
        spec = dataclasses.replace(spec, tower_params=tower_params(wrapper, spec.hidden, str(path)))
    validate_spec(spec, where=str(path))
    check_imported_size(spec.total_params, str(path))
    return spec


def _check_type_name(model_type: object, path: Path) -> None:
    """A model_type that is not text (a list, a number) is refused as an unsupported type, not looked up."""
    if not isinstance(model_type, str):
        supported = ", ".join(SUPPORTED_MODEL_TYPES)
        raise UserError.of(
            msg("error.config_model_type", path=str(path), model_type=model_type, supported=supported)
        )


def _count_multiples(step: int, start: int, stop: int) -> int:
    """How many i in range(start, stop) are multiples of step (counted, not looped: layers may be absurd)."""
    if stop <= start:
        return 0
    return (stop - 1) // step - (start - 1) // step if start > 0 else (stop - 1) // step + 1


def _flag(config: ConfigKeys, key: str | bool) -> bool:
    """A trait that is either a constant or the name of the config key that turns it on."""
    return key if isinstance(key, bool) else config.bool(key, False)


def _llama_like(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:  # Any: ModelSpec fields
    """Every type whose layer is attention + MLP (or MoE) with separate or fused projections: the traits of
    hf_types.TRAITS say which biases, norms, q/k norms and MoE layout each type has."""
    traits = TRAITS[str(config.model_type)]
    hidden = config.int("hidden_size")
    heads = config.int("num_attention_heads")
    kv_heads = config.int("num_key_value_heads", heads)
    head_dim = config.int("head_dim", hidden // heads)
    layers = config.int("num_hidden_layers")
    qk_norm = bool(traits.qk_norm) and (not traits.qk_norm_key or config.bool(traits.qk_norm_key, False))
    fields: dict[str, Any] = dict(  # Any: ModelSpec's fields, checked by validate_spec
        common,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        # llama4: dense layers are intermediate_size_mlp wide, experts intermediate_size
        ffn=_dense_ffn(config, traits),
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", False),
        gated_mlp=traits.gated,
        norm=traits.norm,
        attn_bias=_flag(config, traits.qkv_bias),
        attn_out_bias=_flag(config, traits.out_bias),
        mlp_bias=_flag(config, traits.mlp_bias),
        max_context=config.int("max_position_embeddings", 4096),
        norms_per_layer=1
        if traits.parallel_key and config.bool(traits.parallel_key, False)
        else traits.norms_per_layer,
        final_norm=traits.final_norm,
        activation=traits.activation,
        qk_norm=qk_norm,
        qk_norm_full=qk_norm and traits.qk_norm == "full",
        attention_sinks=traits.sinks,
        lm_head_bias=_flag(config, traits.lm_head_bias),
    )
    if traits.moe:
        fields.update(_moe_fields(config, traits, layers))
    if traits.layer_extra == "attention_gate":  # afmoe: gate_proj (hidden -> heads x head_dim) beside q_proj
        fields.update(attn_output_gate=True)
    if traits.layer_extra == "sub_norms":  # bitnet: attn_sub_norm over hidden, ffn_sub_norm over intermediate
        fields.update(layer_extra_params=hidden + fields["ffn"])
    elif (
        traits.layer_extra == "xielu" and config.data.get("hidden_act") == "xielu"
    ):  # its alpha_p and alpha_n
        fields.update(layer_extra_params=2)
    elif traits.layer_extra == "lambdas":
        fields.update(layer_extra_params=4 * head_dim)
    return ModelSpec(**fields)


def _dense_ffn(config: ConfigKeys, traits: Traits) -> int:
    """The dense MLP's width: llama4's intermediate_size_mlp (its experts take intermediate_size); 0 for a type
    whose file may have no dense MLP (solar_open, qwen3_5_moe_text: every layer MoE, no intermediate_size)."""
    if traits.moe == "llama4":
        return config.int("intermediate_size_mlp")
    optional = traits.moe in ("deepseek", "all")
    return config.int(traits.dense_ffn_key, 0 if optional else None, allow_zero=optional)


def _moe_fields(config: ConfigKeys, traits: Traits, layers: int) -> dict[str, Any]:  # Any: ModelSpec fields
    """MoE fields. "all": every layer sparse. "qwen": layer i sparse when (i + 1) % decoder_sparse_step == 0 and
    it is not in mlp_only_layers. "llama4": the layers of moe_layers (default every interleave_moe_layer_step-th)."""
    experts = config.int(
        traits.experts_key or config.first("n_routed_experts", "num_local_experts", "num_experts")
    )
    if traits.moe == "qwen":
        step = config.int("decoder_sparse_step", 1)
        dense_only = config.data.get("mlp_only_layers") or []
        if not isinstance(dense_only, list):
            raise UserError.of(msg("error.config_mlp_only_layers", path=config.path))
        # counted, not looped over, so an absurd layer count reaches the size check instead of hanging here
        listed = {i for i in dense_only if isinstance(i, int) and 0 <= i < layers and (i + 1) % step == 0}
        moe_layers = _count_multiples(step, 1, layers + 1) - len(listed)
    elif traits.moe == "llama4":
        step = config.int("interleave_moe_layer_step", 1)
        listed_moe = config.data.get("moe_layers")
        if isinstance(listed_moe, list):
            moe_layers = len({i for i in listed_moe if isinstance(i, int) and 0 <= i < layers})
        else:
            moe_layers = _count_multiples(step, step - 1 + 1, layers + 1) if step else 0
    elif traits.moe == "deepseek":
        moe_layers = _deepseek_moe_layers(config, layers)
    elif traits.moe == "ernie":
        moe_layers = _ernie_moe_layers(config, layers)
    else:
        moe_layers = layers
    fields: dict[str, Any] = {}  # Any: ModelSpec fields
    if traits.shared_expert == "qwen":
        shared_ffn = config.int("shared_expert_intermediate_size", 0, allow_zero=True)
        # qwen2_moe builds the gate (hidden -> 1) even for a zero-width shared expert
        fields.update(
            shared_experts=1 if shared_ffn else 0, shared_expert_ffn=shared_ffn, shared_expert_gate=True
        )
    elif traits.shared_expert == "granite":
        shared_ffn = config.int("shared_intermediate_size", 0, allow_zero=True)
        fields.update(shared_experts=1 if shared_ffn else 0, shared_expert_ffn=shared_ffn)
    elif traits.moe == "deepseek" or traits.shared_expert == "count":  # shared experts of moe_ffn, one MLP
        key = traits.shared_key or config.first("n_shared_experts", "num_shared_experts")
        fields.update(shared_experts=config.int(key, 0, allow_zero=True))
    elif traits.shared_expert == "llama4":
        fields.update(shared_experts=1, shared_expert_ffn=config.int("intermediate_size"))
    if moe_layers <= 0:
        return {}  # every layer dense: a dense model as transformers builds it
    moe_ffn = config.int(traits.moe_ffn_key)
    return dict(
        fields,
        experts=experts,
        experts_per_token=config.int(traits.top_k_key),
        moe_ffn=moe_ffn,
        dense_layers=layers - moe_layers,
        router_bias=traits.router_bias,
        expert_bias=traits.expert_bias,
    )


def _deepseek_moe_layers(config: ConfigKeys, layers: int) -> int:
    """MoE layers of a DeepSeek-style stack: the file's mlp_layer_types ("sparse" / "dense") when it lists them,
    else every layer from first_k_dense_replace on (the correction bias of its router is a buffer)."""
    listed = config.data.get("mlp_layer_types")
    if isinstance(listed, list) and listed:
        return sum(1 for kind in listed[:layers] if kind == "sparse")
    first_dense = config.first("first_k_dense_replace", "num_dense_layers")  # afmoe: num_dense_layers
    return layers - min(config.int(first_dense, 0, allow_zero=True), layers)


def _ernie_moe_layers(config: ConfigKeys, layers: int) -> int:
    """ernie4_5_moe: layer i sparse when (i + 1) % moe_layer_interval == 0 and moe_layer_start_index <= i <=
    moe_layer_end_index (-1: the last layer); counted, not looped over."""
    interval = config.int("moe_layer_interval")
    start = config.int("moe_layer_start_index", allow_zero=True)
    end = config.data.get("moe_layer_end_index")
    last = layers - 1 if end == -1 else min(config.int("moe_layer_end_index", allow_zero=True), layers - 1)
    # i + 1 a multiple of interval with start + 1 <= i + 1 <= last + 1
    return _count_multiples(interval, start + 1, last + 2) if start <= last else 0


def _layer_fields(config: ConfigKeys, traits: Traits, layers: int) -> dict[str, Any]:  # Any: ModelSpec fields
    """layer_types (the file's list, or the type's rule when it has none), the sliding window and chunk size."""
    if layers > 100_000:  # an absurd count: left to the size check, no list of it built
        return {}
    window = config.data.get("sliding_window")
    window = window if isinstance(window, int) and not isinstance(window, bool) and window > 0 else 0
    chunk = config.data.get("attention_chunk_size")
    chunk = chunk if isinstance(chunk, int) and not isinstance(chunk, bool) and chunk > 0 else 0
    listed = config.data.get("layer_types")
    if isinstance(listed, list) and listed:
        kinds = tuple(_KIND_OF.get(str(kind), str(kind)) for kind in listed)
    else:
        kinds = _rule_layer_types(config, traits.layer_rule, layers, window)
    if len(kinds) != layers:
        raise UserError.of(msg("error.spec_layer_types", where=config.path, kinds=len(kinds), layers=layers))
    if SLIDING in kinds and not window:
        kinds = tuple(FULL if kind == SLIDING else kind for kind in kinds)  # no window: every token attended
    if kinds == (FULL,) * layers:
        kinds = ()
    return {
        "layer_types": kinds,
        "sliding_window": window,
        "attention_chunk": chunk if CHUNKED in kinds else 0,
    }


_KIND_OF = {"full_attention": FULL, "sliding_attention": SLIDING, "chunked_attention": CHUNKED}


def _rule_layer_types(config: ConfigKeys, rule: str, layers: int, window: int) -> tuple[str, ...]:
    """The layer types a configuration class derives when the file does not list them."""
    if rule == "full" or (not window and rule not in ("llama4",)):
        return (FULL,) * layers
    if rule in ("window", "ministral"):
        return (SLIDING,) * layers
    if rule.startswith(("every:", "pattern:", "global_every:")):
        period = int(rule.split(":")[1])
        if rule.startswith("pattern:"):
            period = _pattern(config, period)
        elif rule.startswith(
            "global_every:"
        ):  # afmoe: full attention every global_attn_every_n_layers-th layer
            period = config.int("global_attn_every_n_layers", period)
        return (
            tuple(SLIDING if (i + 1) % period else FULL for i in range(layers))
            if period
            else (FULL,) * layers
        )
    use_window = config.bool("use_sliding_window", False)
    if rule == "qwen":
        first = config.int("max_window_layers", layers, allow_zero=True)
        return tuple(SLIDING if use_window and i >= first else FULL for i in range(layers))
    if rule == "from_max":  # dots1: sliding from layer max_window_layers on, whenever a window is set
        first = config.int("max_window_layers", layers, allow_zero=True)
        return tuple(SLIDING if i >= first else FULL for i in range(layers))
    if rule == "first_of:4":  # cwm: full attention on layers 0, 4, 8, ...
        return tuple(FULL if i % 4 == 0 else SLIDING for i in range(layers))
    if rule == "qwen_moe":
        below = config.int("max_window_layers", layers, allow_zero=True)
        return tuple(SLIDING if use_window and (i + 1) % 2 and i < below else FULL for i in range(layers))
    if rule == "smollm3":
        rope = _no_rope_layers(config, layers)
        return tuple(SLIDING if use_window and not rope[i] else FULL for i in range(layers))
    if rule == "llama4":
        rope = _no_rope_layers(config, layers)
        return tuple(CHUNKED if rope[i] else FULL for i in range(layers))
    return (FULL,) * layers  # qwen_off: sliding only where the file lists it


def _pattern(config: ConfigKeys, default: int) -> int:
    """sliding_window_pattern: an int period, or a string such as "LLLG" (its length)."""
    value = config.data.get("sliding_window_pattern", default)
    if isinstance(value, str):
        return len(value)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default


def _no_rope_layers(config: ConfigKeys, layers: int) -> list[int]:
    """1 where a layer uses rotary positions (transformers' no_rope_layers), default all but every interval-th."""
    listed = config.data.get("no_rope_layers")
    if isinstance(listed, list) and len(listed) == layers:
        return [1 if value else 0 for value in listed]
    interval = config.int("no_rope_layer_interval", 4)
    return [int((i + 1) % interval != 0) for i in range(layers)]


def _state_space(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:  # Any: ModelSpec fields
    return ModelSpec(**pure_state_space(config, common))


def _gpt2(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:
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
        cross_attention=config.bool("add_cross_attention", False),
    )


def _gpt_neox(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:
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


def _deepseek(config: ConfigKeys, common: dict[str, Any]) -> ModelSpec:
    layers = config.int("num_hidden_layers")
    experts = config.int("n_routed_experts", 0, allow_zero=True)
    # transformers makes every layer from first_k_dense_replace on an MoE layer (moe_layer_freq is not read),
    # or those mlp_layer_types calls "sparse" (glm4_moe_lite)
    moe_layers = _deepseek_moe_layers(config, layers) if experts else 0
    experts = experts if moe_layers else 0
    # an explicit null means "no low-rank query" (DeepSeek-V2-Lite); a missing key takes transformers' default
    q_lora = config.data.get("q_lora_rank")
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
        mlp_bias=config.bool("mlp_bias", False)
        if config.model_type in ("deepseek_v2", "minicpm3")
        else False,
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
        **_sparse_attention_indexer(config, layers),
    )


def _sparse_attention_indexer(config: ConfigKeys, layers: int) -> dict[str, Any]:
    """DeepSeek Sparse Attention (deepseek_v32, glm_moe_dsa): index_n_heads x index_head_dim, and the layers whose
    indexer_types entry is "shared" (glm_moe_dsa; when the file does not list them, GlmMoeDsaConfig's rule:
    index_topk_pattern's "S" positions, else layer i shared unless max(i - offset + 1, 0) % freq == 0 with
    index_topk_freq (1) and index_skip_topk_offset (2)); every deepseek_v32 layer has its own indexer."""
    if config.model_type not in ("deepseek_v32", "glm_moe_dsa"):
        return {}
    shared: tuple[int, ...] = ()
    if config.model_type == "glm_moe_dsa":
        listed = config.data.get("indexer_types")
        pattern = config.data.get("index_topk_pattern")
        if isinstance(listed, list) and listed:
            shared = tuple(i for i, kind in enumerate(listed[:layers]) if kind == "shared")
        elif isinstance(pattern, (str, list)) and pattern:
            shared = tuple(i for i, kind in enumerate(list(pattern)[:layers]) if kind in ("S", "shared"))
        else:
            freq = max(config.int("index_topk_freq", 1), 1)
            offset = config.int("index_skip_topk_offset", 2, allow_zero=True)
            shared = tuple(i for i in range(layers) if max(i - offset + 1, 0) % freq)
    return {"index_heads": config.int("index_n_heads"), "index_head_dim": config.int("index_head_dim"),
            "shared_index_layers": shared, "index_topk": config.int("index_topk")}  # fmt: skip
