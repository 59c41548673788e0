"""Generated config.json files for the model-reader tests: small random variants of each model type's
configuration class in the installed transformers, re-saved by transformers itself (to_dict, or to_diff_dict for
a trimmed file whose left-out keys take the class's defaults), and the figures transformers gives for them."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import transformers

# Small values for the keys that size a model (each applied where the configuration class has the key).
SMALL: dict[str, list[Any]] = {
    "hidden_size": [32, 64], "n_embd": [32, 64], "d_model": [32, 64],
    "num_hidden_layers": [1, 2, 4, 6], "n_layer": [1, 2, 3], "num_layers": [2, 4],
    "num_attention_heads": [2, 4], "n_head": [2, 4], "n_heads": [2, 4], "n_layers": [1, 2, 3],
    "head_dim": [8, 16], "intermediate_size": [48, 64], "intermediate_size_mlp": [40, 56], "n_inner": [48, 64],
    "moe_intermediate_size": [16, 24], "shared_expert_intermediate_size": [0, 16, 32],
    "num_local_experts": [2, 4], "num_experts": [2, 4], "n_routed_experts": [2, 4], "n_shared_experts": [1, 2],
    "num_experts_per_tok": [1, 2], "first_k_dense_replace": [0, 1, 2], "decoder_sparse_step": [1, 2],
    "interleave_moe_layer_step": [1, 2], "vocab_size": [64, 96, 130],
    "max_position_embeddings": [64, 128], "n_positions": [64, 128],
    "sliding_window": [4, 8, 16], "attention_chunk_size": [4, 8], "sliding_window_pattern": [2, 3],
    "max_window_layers": [0, 1, 2], "no_rope_layer_interval": [2, 3],
    "kv_lora_rank": [8, 16], "q_lora_rank": [8, 16, None], "qk_rope_head_dim": [4, 8],
    "qk_nope_head_dim": [8, 16], "v_head_dim": [8, 16],
    # state-space mixers (mamba, mamba2, jamba, bamba); the periods and head counts are made consistent below
    "state_size": [4, 8], "mamba_d_state": [4, 8], "conv_kernel": [2, 4], "mamba_d_conv": [2, 4],
    "expand": [1, 2], "mamba_expand": [1, 2], "time_step_rank": ["auto", 4], "mamba_dt_rank": ["auto", 4],
    "n_groups": [1, 2], "mamba_n_groups": [1, 2], "num_heads": [2, 4], "mamba_n_heads": [2, 4],
    "attn_layer_period": [1, 2, 3], "expert_layer_period": [1, 2], "attn_layer_indices": [None, [0], [1, 2]],
    "shared_intermediate_size": [16, 32],
    # gated delta-net linear attention (qwen3_next, qwen3_5); the value heads a multiple of the key heads below
    "linear_num_key_heads": [1, 2], "linear_key_head_dim": [8, 16], "linear_value_head_dim": [8, 16],
    "linear_conv_kernel_dim": [2, 4],
    # ernie4_5_moe's MoE layout and hunyuan_v1_moe's top-k
    "moe_num_experts": [2, 4], "moe_k": [1, 2], "moe_num_shared_experts": [0, 1, 2], "moe_layer_start_index": [0, 1, 2],
    "moe_layer_interval": [1, 2], "moe_layer_end_index": [-1, 1, 3], "moe_topk": [1, 2],
    # lfm2, lfm2_moe: short convolutions; the MLP width derived from a float multiplier
    "conv_L_cache": [2, 3], "block_multiple_of": [8, 16], "block_ffn_dim_multiplier": [1, 1.0, 1.3, 0.7],
    "num_dense_layers": [0, 1, 2],
    # DeepSeek Sparse Attention's indexer (deepseek_v32, glm_moe_dsa); its head at least the rotary part
    "index_n_heads": [2, 4], "index_head_dim": [8, 16],
}  # fmt: skip
FLAGS = ("attention_bias", "mlp_bias", "qkv_bias", "use_bias", "attention_out_bias", "tie_word_embeddings",
         "use_sliding_window", "use_qk_norm", "add_cross_attention", "lm_head_bias", "use_qkv_bias", "qk_layernorm",
         "use_parallel_residual", "parallel_attn", "new_decoder_architecture", "multi_query", "alibi", "bias",
         "enable_bias", "do_layer_norm_before", "layer_norm_elementwise_affine", "no_bias", "use_conv_bias",
         "mamba_conv_bias", "mamba_proj_bias", "conv_bias", "block_auto_adjust_ff_dim", "mamba_rms_norm",
         "projectors_bias")  # fmt: skip


def class_fields(model_type: str) -> dict[str, Any]:
    cls = transformers.CONFIG_MAPPING[model_type]
    return {f.name: f.default for f in dataclasses.fields(cls)}


def generated_config(model_type: str, rng: random.Random, *, trimmed: bool = False) -> dict[str, Any]:
    """A small random config of this type as transformers saves it (trimmed: only the keys that differ from the
    class's defaults, as a hand-written file would be)."""
    cls = transformers.CONFIG_MAPPING[model_type]
    fields = class_fields(model_type)
    values: dict[str, Any] = {k: rng.choice(v) for k, v in SMALL.items() if k in fields}
    for key in FLAGS:
        if key in fields and rng.random() < 0.5:
            values[key] = rng.random() < 0.5
    heads = values.get("num_attention_heads", values.get("n_head", values.get("n_heads", 4)))
    if "num_key_value_heads" in fields:
        values["num_key_value_heads"] = rng.choice([h for h in (1, 2, heads) if heads % h == 0])
    _make_consistent(values, fields, rng)
    if model_type == "cohere2_moe":  # dense and sparse layers; the dense ones need their width
        layers = values.get("num_hidden_layers", fields["num_hidden_layers"])
        values["mlp_layer_types"] = [rng.choice(["dense", "sparse"]) for _ in range(layers)]
        values.update(
            prefix_dense_intermediate_size=rng.choice([40, 56]), num_shared_experts=rng.choice([0, 1, 2])
        )
    if model_type == "dbrx":  # the attention and MoE keys nest in attn_config and ffn_config
        # rope_theta as the published config.json has it (transformers 5.22 reads it from attn_config)
        values["attn_config"] = {
            "kv_n_heads": rng.choice([h for h in (1, 2, heads) if heads % h == 0]),
            "rope_theta": 500000,
        }
        values["ffn_config"] = {
            "ffn_hidden_size": rng.choice([16, 24]),
            "moe_num_experts": rng.choice([2, 4]),
            "moe_top_k": rng.choice([1, 2]),
        }
        values["tie_word_embeddings"] = False  # DbrxConfig refuses tied embeddings
    if model_type == "diffllama":  # its differential attention splits the KV heads in two halves
        values["num_key_value_heads"] = rng.choice([h for h in (2, heads) if heads % h == 0])
    if (
        model_type == "nemotron_h"
    ):  # a layer of each kind in a random order; experts on the hidden size or a latent
        kinds = ["linear_attention", "moe", "full_attention", "mlp"]
        values["layers_block_type"] = [rng.choice(kinds) for _ in range(rng.choice([2, 4, 6]))]
        values.update(
            mamba_num_heads=rng.choice([2, 4]),
            mamba_head_dim=rng.choice([8, 16]),
            ssm_state_size=rng.choice([4, 8]),
            moe_shared_expert_intermediate_size=rng.choice([16, 24]),
            moe_latent_size=rng.choice([None, 8, 16]),
        )
    if model_type in ("deepseek_v32", "glm_moe_dsa", "longcat_flash"):  # always a low-rank query
        values["q_lora_rank"] = rng.choice([8, 16])
    if model_type == "glm_moe_dsa":  # indexer layers and layers reusing the previous one's top-k
        layers = values.get("num_hidden_layers", fields["num_hidden_layers"])
        values["indexer_types"] = ["full"] + [rng.choice(["full", "shared"]) for _ in range(layers - 1)]
    if model_type == "gemma3n_text":  # its per-layer inputs, AltUp and LAuReL small; some layers sharing KV
        layers = rng.choice([6, 7, 8])  # sliding except every fifth: the shared layers' kinds occur earlier
        values.update(
            num_hidden_layers=layers,
            num_kv_shared_layers=rng.choice([0, 1, layers - 5]),
            vocab_size_per_layer_input=rng.choice([32, 64]),
            hidden_size_per_layer_input=rng.choice([4, 8]),
            laurel_rank=rng.choice([4, 8]),
            altup_num_inputs=rng.choice([2, 3, 4]),
        )
        if rng.random() < 0.5:  # MatFormer's mix-n-match: a width per layer
            values["intermediate_size"] = [rng.choice([32, 48, 64]) for _ in range(layers)]
    if (
        model_type == "longcat_flash"
    ):  # zero-compute experts beside the routed ones; layers hold two sublayers
        values.update(num_layers=rng.choice([1, 2, 3]), zero_expert_num=rng.choice([0, 1, 2]),
                      ffn_hidden_size=rng.choice([48, 64]), expert_ffn_hidden_size=rng.choice([16, 24]),
                      moe_topk=rng.choice([1, 2]))  # fmt: skip
        values["head_dim"] = values["qk_rope_head_dim"]  # its rotary embedding's width (64 and 64 as published)
    if model_type == "recurrent_gemma":  # Griffin: a block cycle, a window, the RG-LRU's width and conv
        values.update(block_types=rng.choice([["recurrent", "recurrent", "attention"], ["attention", "recurrent"],
                                               ["recurrent"], ["attention"]]),
                      attention_window_size=rng.choice([4, 8, 16]), lru_width=rng.choice([None, 32, 48]),
                      conv1d_width=rng.choice([2, 4]))  # fmt: skip
    if (
        model_type == "helium"
    ):  # it builds o_proj hidden x hidden: only heads x head_dim == hidden runs forward
        values["head_dim"] = values.get("hidden_size", fields["hidden_size"]) // heads
    if "pad_token_id" in fields:
        values["pad_token_id"] = 0
    for key in ("bos_token_id", "eos_token_id"):
        if key in fields:
            values[key] = 1
    if "attention_types" in fields:  # gpt_neo: the global/local pattern must cover every layer
        values["attention_types"] = [[["global", "local"], values["num_layers"] // 2]]
    config = cls(**values)
    data = config.to_diff_dict() if trimmed else config.to_dict()
    data["model_type"] = model_type
    return data


def _make_consistent(values: dict[str, Any], fields: dict[str, Any], rng: random.Random) -> None:
    """What the configuration classes require of the state-space keys: each layer offset below its period, and
    the Mamba-2 heads times head_dim equal to expand x hidden (mamba2 checks it; bamba derives it)."""
    for kind in ("attn", "expert"):
        if f"{kind}_layer_period" in values:
            values[f"{kind}_layer_offset"] = rng.randrange(values[f"{kind}_layer_period"])
    if "num_heads" in values and "expand" in values and "head_dim" in fields:
        inner = values["expand"] * values.get("hidden_size", fields["hidden_size"])
        values["head_dim"] = inner // values["num_heads"]
    if "shared_intermediate_size" in fields and "mamba_n_heads" in fields:  # granitemoehybrid
        # no experts (a dense shared MLP) or some, and attention layers among the Mamba ones
        values["num_local_experts"] = rng.choice([0, 2, 4])
        values["layer_types"] = [
            rng.choice(["mamba", "attention", "linear_attention", "full_attention"])
            for _ in range(values.get("num_hidden_layers", fields["num_hidden_layers"]))
        ]
    if "linear_num_key_heads" in values:  # qwen3_next, qwen3_5: each layer linear or full attention
        values["linear_num_value_heads"] = values["linear_num_key_heads"] * rng.choice([1, 2])
        values["layer_types"] = [
            rng.choice(["linear_attention", "full_attention"])
            for _ in range(values.get("num_hidden_layers", fields["num_hidden_layers"]))
        ]
    if (
        "block_size" in fields and "linear_attn_alpha_factor" in fields
    ):  # minimax: lightning or full attention
        values["layer_types"] = [
            rng.choice(["linear_attention", "full_attention"])
            for _ in range(values.get("num_hidden_layers", fields["num_hidden_layers"]))
        ]
    if "conv_L_cache" in values:  # lfm2, lfm2_moe: each layer a short conv or full attention
        values["layer_types"] = [
            rng.choice(["conv", "full_attention"])
            for _ in range(values.get("num_hidden_layers", fields["num_hidden_layers"]))
        ]
    if "mamba_n_heads" in values and "mamba_d_head" in fields:
        inner = values["mamba_expand"] * values.get("hidden_size", fields["hidden_size"])
        if (
            "mamba_d_ssm" in fields
        ):  # falcon_h1: the mixer's own width (null: expand x hidden), "auto" head dim
            values["mamba_d_ssm"] = rng.choice([None, 8 * values["mamba_n_heads"]])
            inner = values["mamba_d_ssm"] or inner
        values["mamba_d_head"] = rng.choice(["auto", inner // values["mamba_n_heads"]])


def built_model(data: dict[str, Any], device: str = "meta") -> Any:
    """transformers' causal LM for this config.json content (meta: shapes only)."""
    import torch

    config = transformers.AutoConfig.for_model(
        data["model_type"], **{k: v for k, v in data.items() if k != "model_type"}
    )
    with torch.device(device):
        return transformers.AutoModelForCausalLM.from_config(config)


def buildable_case(
    model_type: str, rng: random.Random, *, trimmed: bool = False
) -> tuple[dict[str, Any], int]:
    """A generated config transformers can build (it refuses some combinations itself, such as gpt_bigcode's
    cross-attention with multi-query attention) and its parameter count."""
    for _ in range(20):
        data = generated_config(model_type, rng, trimmed=trimmed)
        try:
            return data, transformers_params(data)
        except NotImplementedError:
            continue
    raise AssertionError(f"no buildable {model_type} config in 20 draws")


def transformers_params(data: dict[str, Any]) -> int:
    """Parameters of transformers' model, less what it allocates that no checkpoint holds and no token uses:
    longcat_flash's gate_up_proj rows for its zero-compute experts (LongcatFlashExperts sizes gate_up_proj by
    n_routed_experts + zero_expert_num; its forward sends those experts' tokens through an identity)."""
    model = built_model(data)
    unused = 0
    if data["model_type"] == "longcat_flash":
        for layer in model.model.layers:
            experts = layer.mlp.experts
            unused += experts.gate_up_proj[experts.num_routed_experts :].numel()
    return sum(p.numel() for p in model.parameters()) - unused
