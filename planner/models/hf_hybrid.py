"""State-space (Mamba-style) layers of the hybrid and pure state-space model types, read from a config.json as
transformers 5.22 builds them: the mixer a state-space layer holds instead of attention (its parameters), the
recurrent state it keeps per sequence (transformers' LinearAttentionLayer: a convolution state and an SSM state,
whatever the sequence length), and which layers attend, which keep a state and which are MoE.

Mixers (transformers/models/<type>/modeling_<type>.py):
- Mamba-1 (mamba, falcon_mamba, jamba): in_proj (hidden -> 2 inner), a depthwise conv1d over inner channels,
  x_proj (inner -> dt_rank + 2 state), dt_proj (dt_rank -> inner, biased), A_log (inner x state), D (inner),
  out_proj (inner -> hidden); Jamba adds RMSNorms over dt, B and C. State: conv (inner x conv_kernel) + SSM
  (inner x state).
- Mamba-2 (mamba2, bamba, granitemoehybrid): in_proj (hidden -> inner + conv_dim + heads), conv1d over conv_dim = inner + 2 groups
  x state channels, dt_bias, A_log and D per head, a gated RMSNorm over inner, out_proj (inner -> hidden).
  State: conv (conv_dim x conv_kernel) + SSM (heads x head_dim x state).
- Gated delta-net (qwen3_next, qwen3_5_text, qwen3_5_moe_text): see _gated_delta_net. Their attention layers
  are gated (q_proj twice as wide, ModelSpec.attn_output_gate).
- LFM2's short convolution (lfm2, lfm2_moe): see _short_conv.
- MiniMax's lightning attention (minimax): see _lightning_attention.
- Falcon-H1 (falcon_h1): a Mamba-2 mixer beside the attention of every layer; see _falcon_h1.
"""

from __future__ import annotations

import math
from typing import Any

from planner.errors import UserError
from planner.limits import Limit, check_range
from planner.messages import msg
from planner.models.config_file import ConfigKeys
from planner.models.kv_cache import FULL, NONE, STATE

GATED_DELTA_NET_TYPES = ("qwen3_next", "qwen3_5_text", "qwen3_5_moe_text")

# Each layer's kind is listed (ModelSpec.layer_types); a deeper stack is no model, refused before the list is built.
LAYERS = Limit(1, 100_000, True)
# LFM2 scales its MLP by block_ffn_dim_multiplier (1.0 in every published config); past this it is a typo
FFN_MULTIPLIER = Limit(0.0, 1000.0, False)


def _mamba1(hidden: int, inner: int, state: int, conv: int, dt_rank: int, proj_bias: bool, conv_bias: bool,
            dt_norms: bool) -> tuple[int, int]:  # fmt: skip
    """(parameters, state values per sequence) of one Mamba-1 mixer."""
    params = (
        hidden * 2 * inner
        + (2 * inner if proj_bias else 0)  # in_proj
        + inner * conv
        + (inner if conv_bias else 0)  # depthwise conv1d
        + inner * (dt_rank + 2 * state)  # x_proj
        + dt_rank * inner
        + inner  # dt_proj
        + inner * state
        + inner  # A_log, D
        + inner * hidden
        + (hidden if proj_bias else 0)  # out_proj
        + (dt_rank + 2 * state if dt_norms else 0)  # Jamba's dt / B / C RMSNorms
    )
    return params, inner * conv + inner * state


def _mamba2(hidden: int, inner: int, heads: int, head_dim: int, groups: int, state: int, conv: int,
            proj_bias: bool, conv_bias: bool, *, gated_norm: bool = True,
            out_bias: bool | None = None) -> tuple[int, int]:  # fmt: skip
    """(parameters, state values per sequence) of one Mamba-2 mixer (falcon_h1's: the gated norm optional,
    out_proj's bias its own key)."""
    conv_dim = inner + 2 * groups * state
    projection = inner + conv_dim + heads
    params = (
        hidden * projection
        + (projection if proj_bias else 0)  # in_proj
        + conv_dim * conv
        + (conv_dim if conv_bias else 0)  # depthwise conv1d
        + 3 * heads  # dt_bias, A_log, D
        + (inner if gated_norm else 0)  # gated RMSNorm
        + inner * hidden
        + (hidden if (proj_bias if out_bias is None else out_bias) else 0)  # out_proj
    )
    return params, conv_dim * conv + heads * head_dim * state


def _gated_delta_net(config: ConfigKeys, hidden: int) -> tuple[int, int]:
    """(parameters, state values per sequence) of one gated delta-net mixer (qwen3_next, qwen3_5): projections
    of hidden to q, k (key heads x key dim each), v and the gate z (value heads x value dim each) and to one beta
    and one alpha per value head; a depthwise conv over q, k and v (no bias); dt_bias and A_log per value head;
    a gated RMSNorm over one value head; out_proj. State: conv (conv_dim x kernel) + one key dim x value dim
    matrix per value head."""
    v_heads, k_dim, v_dim = (config.int(key) for key in ("linear_num_value_heads", "linear_key_head_dim",
                                                         "linear_value_head_dim"))  # fmt: skip
    key, value, conv = (
        config.int("linear_num_key_heads") * k_dim,
        v_heads * v_dim,
        config.int("linear_conv_kernel_dim"),
    )
    conv_dim = 2 * key + value
    params = (
        hidden * (conv_dim + value + 2 * v_heads) + conv_dim * conv + 2 * v_heads + v_dim + value * hidden
    )
    return params, conv_dim * conv + v_heads * k_dim * v_dim


def _falcon_h1(config: ConfigKeys, hidden: int, layers: int) -> dict[str, Any]:  # Any: ModelSpec fields
    """falcon_h1: every layer attention and a Mamba-2 mixer side by side, then the MLP. The mixer's width is
    mamba_d_ssm (or mamba_expand x hidden when null), its gated norm only with mamba_rms_norm, out_proj's bias
    projectors_bias; its muP vector is a buffer."""
    d_ssm = config.data.get("mamba_d_ssm")
    inner = config.int("mamba_expand") * hidden if d_ssm is None else config.int("mamba_d_ssm")
    heads = config.int("mamba_n_heads")
    head_dim = inner // heads if config.data.get("mamba_d_head") == "auto" else config.int("mamba_d_head")
    mixer = _mamba2(hidden, inner, heads, head_dim, config.int("mamba_n_groups"), config.int("mamba_d_state"),
                    config.int("mamba_d_conv"), config.bool("mamba_proj_bias", False),
                    config.bool("mamba_conv_bias", True), gated_norm=config.bool("mamba_rms_norm", False),
                    out_bias=config.bool("projectors_bias", False))  # fmt: skip
    return {"parallel_state_mixer": True, **_state_fields(mixer, (FULL,) * layers)}


def _short_conv(config: ConfigKeys, hidden: int) -> tuple[int, int]:
    """(parameters, state values per sequence) of one LFM2 short-convolution mixer: in_proj (hidden -> 3 hidden:
    the gates B and C and the input x), a depthwise conv1d of conv_L_cache taps over hidden channels, out_proj
    (hidden -> hidden), biases on all three with conv_bias. State: the conv's last conv_L_cache inputs."""
    conv = config.int("conv_L_cache")
    bias = config.bool("conv_bias", False)
    params = 3 * hidden * hidden + hidden * conv + hidden * hidden + (5 * hidden if bias else 0)
    return params, hidden * conv


def _lfm2_mlp(config: ConfigKeys, layers: int) -> dict[str, Any]:  # Any: ModelSpec fields
    """LFM2's MLP and embeddings. lfm2: block_ff_dim (or intermediate_size) cut to 2/3, scaled by
    block_ffn_dim_multiplier and rounded up to block_multiple_of when block_auto_adjust_ff_dim. lfm2_moe: dense
    MLPs of intermediate_size on the first num_dense_layers layers, num_experts experts of
    moe_intermediate_size on the others (the router's expert_bias is a buffer). tie_embedding is the older key
    of tie_word_embeddings."""
    fields: dict[str, Any] = {
        "tied_embeddings": config.bool(config.first("tie_embedding", "tie_word_embeddings"), True)
    }
    ffn = config.int(config.first("block_ff_dim", "intermediate_size"))
    if config.model_type == "lfm2":
        if config.bool("block_auto_adjust_ff_dim", True):
            ffn = int(2 * ffn / 3)
            if config.data.get("block_ffn_dim_multiplier") is not None:
                multiple, multiplier = (
                    config.int("block_multiple_of"),
                    config.number("block_ffn_dim_multiplier", 1.0),
                )
                check_range(multiplier, f"{config.path}: block_ffn_dim_multiplier", FFN_MULTIPLIER)
                ffn = -(-int(multiplier * ffn) // multiple) * multiple
        return {**fields, "ffn": ffn}
    dense = min(config.int("num_dense_layers", allow_zero=True), layers)
    if dense == layers:
        return {**fields, "ffn": ffn}
    return dict(fields, ffn=ffn, experts=config.int("num_experts"), experts_per_token=config.int("num_experts_per_tok"),
                moe_ffn=config.int("moe_intermediate_size"), dense_layers=dense)  # fmt: skip


def _lightning_attention(config: ConfigKeys, hidden: int) -> tuple[int, int]:
    """(parameters, state values per sequence) of one MiniMax lightning-attention mixer: qkv_proj (hidden -> 3
    heads x head_dim), output_gate (hidden -> heads x head_dim), an RMSNorm over heads x head_dim, out_proj; no
    biases (its decay tables are buffers). State: one head_dim x head_dim matrix (K^T V) per head."""
    heads = config.int("num_attention_heads")
    head_dim = config.int("head_dim") if config.data.get("head_dim") is not None else hidden // heads
    width = heads * head_dim
    return 5 * hidden * width + width, heads * head_dim * head_dim


def _listed_kinds(
    config: ConfigKeys, layers: int, interval_key: str = "", first_full: bool = False
) -> tuple[str, ...]:
    """The file's layer_types ("full_attention" attends; "linear_attention", lfm2's "conv" keep a state), else
    every interval-th layer full attention and the others linear (qwen3_next's default), MiniMax's alternation
    from a full layer (first_full), or lfm2's full_attn_idxs (default: every layer attends)."""
    kinds = config.data.get("layer_types")
    if kinds is None and first_full:
        return tuple(STATE if i % 2 else FULL for i in range(layers))
    if kinds is None and interval_key:
        interval = config.int(interval_key, 4)
        return tuple(STATE if (i + 1) % interval else FULL for i in range(layers))
    if kinds is None and config.model_type == "lfm2":
        listed = config.data.get("full_attn_idxs")
        attending = (
            {i for i in listed if isinstance(i, int)} if isinstance(listed, list) else set(range(layers))
        )
        return tuple(FULL if i in attending else STATE for i in range(layers))
    if not isinstance(kinds, list) or len(kinds) != layers:
        listed = len(kinds) if isinstance(kinds, list) else 0
        raise UserError.of(msg("error.spec_layer_types", where=config.path, kinds=listed, layers=layers))
    return tuple(FULL if kind == "full_attention" else STATE for kind in kinds)


def _layers(config: ConfigKeys) -> int:
    layers = config.int("num_hidden_layers")
    check_range(layers, f"{config.path}: num_hidden_layers", LAYERS)
    return layers


def _dt_rank(config: ConfigKeys, key: str, hidden: int) -> int:
    """The time-step rank: "auto" is ceil(hidden / 16), as every Mamba-1 configuration class derives it."""
    return math.ceil(hidden / 16) if config.data.get(key) == "auto" else config.int(key)


def pure_state_space(config: ConfigKeys, common: dict[str, Any]) -> dict[str, Any]:  # Any: ModelSpec fields
    """mamba, falcon_mamba, mamba2: every layer a norm and a mixer, no attention and no MLP."""
    hidden = config.int("hidden_size")
    layers = _layers(config)
    inner = config.int("expand") * hidden
    state, conv = config.int("state_size"), config.int("conv_kernel")
    proj_bias, conv_bias = config.bool("use_bias", False), config.bool("use_conv_bias", True)
    if config.model_type == "mamba2":
        mixer = _mamba2(hidden, inner, config.int("num_heads"), config.int("head_dim"), config.int("n_groups"),
                        state, conv, proj_bias, conv_bias)  # fmt: skip
    else:
        dt_rank = _dt_rank(config, "time_step_rank", hidden)
        mixer = _mamba1(hidden, inner, state, conv, dt_rank, proj_bias, conv_bias, dt_norms=False)
    return dict(
        common,
        layers=layers,
        hidden=hidden,
        heads=1,  # no attention anywhere: the attention fields only have to be valid
        kv_heads=1,
        head_dim=hidden,
        ffn=0,
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", False),
        gated_mlp=False,
        norm="rmsnorm",
        attn_bias=False,
        mlp_bias=False,
        max_context=config.int("max_position_embeddings", 4096),  # none of the three has the key: a default
        unbounded_context=True,  # no positions anywhere: any length is read (the state is the same size)
        norms_per_layer=1,
        rotary=False,
        **_state_fields(mixer, (STATE,) * layers),
    )


def hybrid_fields(config: ConfigKeys) -> dict[str, Any]:  # Any: ModelSpec fields
    """jamba, bamba, granitemoehybrid: attention + MLP layers and state-space + MLP layers (Jamba's MLP an MoE
    on every expert_layer_period-th layer, GraniteMoeHybrid's a shared MLP + MoE): the mixer, the layer kinds and
    the MoE layout."""
    layers = _layers(config)
    hidden = config.int("hidden_size")
    if config.model_type in GATED_DELTA_NET_TYPES:
        kinds = _listed_kinds(config, layers, "full_attention_interval")
        return {"attn_output_gate": True, **_state_fields(_gated_delta_net(config, hidden), kinds)}
    if config.model_type == "minimax":  # lightning attention on odd layers unless the file lists the kinds
        kinds = _listed_kinds(config, layers, first_full=True)
        return _state_fields(_lightning_attention(config, hidden), kinds)
    if config.model_type == "falcon_h1":
        return _falcon_h1(config, hidden, layers)
    if config.model_type in ("lfm2", "lfm2_moe"):
        return {
            **_lfm2_mlp(config, layers),
            **_state_fields(_short_conv(config, hidden), _listed_kinds(config, layers)),
        }
    inner = config.int("mamba_expand") * hidden
    state, conv = config.int("mamba_d_state"), config.int("mamba_d_conv")
    proj_bias, conv_bias = config.bool("mamba_proj_bias", False), config.bool("mamba_conv_bias", True)
    fields: dict[str, Any] = {}  # Any: ModelSpec fields
    if config.model_type == "jamba":
        dt_rank = _dt_rank(config, "mamba_dt_rank", hidden)
        mixer = _mamba1(hidden, inner, state, conv, dt_rank, proj_bias, conv_bias, dt_norms=True)
        period, offset = config.int("attn_layer_period"), config.int("attn_layer_offset", allow_zero=True)
        attends = [i % period == offset for i in range(layers)]
        fields.update(_jamba_moe(config, layers))
    else:  # bamba, granitemoehybrid: Mamba-2 mixers
        heads = config.int("mamba_n_heads")
        head_dim = inner // heads if config.data.get("mamba_d_head") == "auto" else config.int("mamba_d_head")
        mixer = _mamba2(hidden, inner, heads, head_dim, config.int("mamba_n_groups"), state, conv, proj_bias,
                        conv_bias)  # fmt: skip
        attends = _mamba2_attending(config, layers)
        if config.model_type == "granitemoehybrid":
            fields.update(_granite_mlp(config))
    return {**fields, **_state_fields(mixer, tuple(FULL if attending else STATE for attending in attends))}


def _mamba2_attending(config: ConfigKeys, layers: int) -> list[bool]:
    """Which layers attend: Bamba's attn_layer_indices, GraniteMoeHybrid's layer_types (default all Mamba)."""
    if config.model_type == "bamba":
        listed = config.data.get("attn_layer_indices") or []
        indices = {i for i in listed if isinstance(i, int)} if isinstance(listed, list) else set()
        return [i in indices for i in range(layers)]
    kinds = config.data.get("layer_types") or ["mamba"] * layers
    if not isinstance(kinds, list) or len(kinds) != layers:
        listed = len(kinds) if isinstance(kinds, list) else 0
        raise UserError.of(msg("error.spec_layer_types", where=config.path, kinds=listed, layers=layers))
    # transformers reads "mamba" as linear_attention; every other kind builds attention
    return [kind not in ("mamba", "linear_attention") for kind in kinds]


def _granite_mlp(config: ConfigKeys) -> dict[str, Any]:  # Any: ModelSpec fields
    """GraniteMoeHybrid: every layer a gated shared MLP of shared_intermediate_size, plus (when
    num_local_experts > 0) num_local_experts routed experts of intermediate_size."""
    shared = config.int("shared_intermediate_size")
    experts = config.int("num_local_experts", allow_zero=True)
    if not experts:
        return {"ffn": shared}
    return dict(experts=experts, experts_per_token=config.int("num_experts_per_tok"),
                moe_ffn=config.int("intermediate_size"), shared_experts=1, shared_expert_ffn=shared,
                dense_layers=0)  # fmt: skip


def _jamba_moe(config: ConfigKeys, layers: int) -> dict[str, Any]:  # Any: ModelSpec fields
    """Jamba: layer i is an MoE (num_experts experts of intermediate_size) when i % expert_layer_period equals
    expert_layer_offset and num_experts > 1; every other layer a dense MLP of intermediate_size."""
    experts = config.int("num_experts")
    period, offset = config.int("expert_layer_period"), config.int("expert_layer_offset", allow_zero=True)
    moe_layers = (layers - 1 - offset) // period + 1 if offset < layers else 0
    if experts <= 1 or moe_layers <= 0:
        return {}
    return dict(experts=experts, experts_per_token=config.int("num_experts_per_tok"),
                moe_ffn=config.int("intermediate_size"), dense_layers=layers - moe_layers)  # fmt: skip


def _state_fields(mixer: tuple[int, int], kinds: tuple[str, ...]) -> dict[str, Any]:  # Any: ModelSpec fields
    params, values = mixer
    return {"layer_types": kinds, "state_mixer_params": params, "state_values_per_layer": values}


# nemotron_h's older spelling of its layer list (hybrid_override_pattern), one letter a layer
NEMOTRON_H_PATTERN = {"M": "linear_attention", "E": "moe", "*": "full_attention", "-": "mlp"}


def _nemotron_h_kinds(config: ConfigKeys) -> list[str]:
    """nemotron_h's layers: layers_block_type (or layer_types), else the older hybrid_override_pattern string,
    else the class's default (a Mamba, an MoE, an attention and an MLP layer)."""
    listed = config.raw.get("layers_block_type")
    pattern = config.raw.get("hybrid_override_pattern")
    if listed is None and isinstance(pattern, str):
        listed = [NEMOTRON_H_PATTERN.get(letter, letter) for letter in pattern]
    if listed is None:
        listed = ["linear_attention", "moe", "full_attention", "mlp"]
    if (
        not isinstance(listed, list)
        or not listed
        or any(kind not in NEMOTRON_H_PATTERN.values() for kind in listed)
    ):
        count = len(listed) if isinstance(listed, list) else 0
        raise UserError.of(msg("error.spec_layer_types", where=config.path, kinds=count, layers=count))
    check_range(len(listed), f"{config.path}: layers_block_type", LAYERS)
    return listed


def nemotron_h(config: ConfigKeys, common: dict[str, Any]) -> dict[str, Any]:  # Any: ModelSpec fields
    """nemotron_h: one norm and one block per layer, the block a Mamba-2 mixer, attention (no biases), a ReLU^2
    MLP, or an MoE of ReLU^2 experts (in a latent when moe_latent_size is set) with one shared MLP; its router's
    correction bias is a buffer and its multi-token-prediction layers are not built by the causal LM."""
    kinds = _nemotron_h_kinds(config)
    hidden = config.int("hidden_size")
    heads = config.int("mamba_num_heads")
    head_dim = config.int("mamba_head_dim")
    mixer = _mamba2(hidden, heads * head_dim, heads, head_dim, config.int(config.first("mamba_n_groups", "n_groups")),
                    config.int("ssm_state_size"), config.int(config.first("mamba_d_conv", "conv_kernel")),
                    config.bool("use_bias", False),
                    config.bool(config.first("mamba_conv_bias", "use_conv_bias"), True))  # fmt: skip
    attention_heads = config.int("num_attention_heads")
    fields: dict[str, Any] = dict(  # Any: ModelSpec fields
        common,
        layers=len(kinds),
        hidden=hidden,
        heads=attention_heads,
        kv_heads=config.int("num_key_value_heads", attention_heads),
        head_dim=config.int("head_dim", hidden // attention_heads),
        ffn=config.int("intermediate_size"),
        vocab=config.int("vocab_size"),
        tied_embeddings=False,  # NemotronHForCausalLM ties nothing (_tied_weights_keys is empty), whatever the key
        gated_mlp=False,
        norm="rmsnorm",
        attn_bias=False,
        mlp_bias=config.bool("mlp_bias", False),
        activation="relu2",
        max_context=config.int("max_position_embeddings", 4096),
        norms_per_layer=1,
        mixer_or_mlp=True,
    )
    moe_layers = kinds.count("moe")
    if moe_layers:
        latent = config.data.get("moe_latent_size")
        fields.update(
            experts=config.int("n_routed_experts"), experts_per_token=config.int("num_experts_per_tok"),
            moe_ffn=config.int("moe_intermediate_size"), shared_experts=1,
            shared_expert_ffn=config.int("moe_shared_expert_intermediate_size"), dense_layers=len(kinds) - moe_layers,
            moe_latent=0 if latent is None else config.int("moe_latent_size"),
        )  # fmt: skip
    by_kind = {"linear_attention": STATE, "full_attention": FULL, "mlp": NONE, "moe": NONE}
    return {**fields, **_state_fields(mixer, tuple(by_kind[kind] for kind in kinds))}
