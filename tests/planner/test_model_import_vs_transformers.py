"""config.json import against transformers itself: for hundreds of generated configs of every supported model type
(biases, tied embeddings, head_dim, MoE and MLA variants, keys left out so that transformers' defaults apply),
transformers builds the causal LM on the meta device and its parameter count must equal ours exactly."""

from __future__ import annotations

import json
import random

import pytest

from planner.models import load_hf_config

transformers = pytest.importorskip("transformers", reason="needs the trace extra (installed by `make test`)")
torch = pytest.importorskip("torch")

CONFIGS_PER_TYPE = 40  # x 15 types = 600 configs; about 20 s on 2 cores
# the types this hand-written generator knows; every other type is generated from transformers in test_hf_coverage.py
HAND_GENERATED_TYPES = ("llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2",
                        "gemma3_text", "phi3", "gpt2", "gpt_neox", "deepseek_v2", "deepseek_v3")  # fmt: skip


NULL_MEANS_NONE = ("q_lora_rank", "sliding_window")  # keys whose null a config.json uses to say "none"


def _maybe(rng: random.Random, config: dict[str, object], key: str, value: object) -> None:
    """Set key to value or leave it out (transformers' default), at random; null where null means "none"."""
    choice = rng.random()
    if choice < 0.6:
        config[key] = value
    elif choice < 0.75 and key in NULL_MEANS_NONE:
        config[key] = None


def generated_config(model_type: str, rng: random.Random) -> dict[str, object]:
    heads = rng.choice([2, 4, 8])
    head_dim = rng.choice([8, 16, 32])
    config: dict[str, object] = {
        "model_type": model_type,
        "pad_token_id": 0,
    }  # a real config names a token it has
    if model_type == "gpt2":
        config.update(n_embd=heads * head_dim, n_head=heads, n_layer=rng.randint(1, 3), vocab_size=rng.randint(50, 300),
                      n_positions=rng.choice([64, 128]))  # fmt: skip
        _maybe(rng, config, "n_inner", rng.choice([64, 96]))
        _maybe(rng, config, "tie_word_embeddings", rng.random() < 0.5)
        return config
    hidden = heads * head_dim * rng.choice([1, 2])
    config.update(hidden_size=hidden, num_attention_heads=heads, num_hidden_layers=rng.randint(1, 4),
                  vocab_size=rng.randint(50, 300), intermediate_size=rng.choice([32, 48, 64]),
                  max_position_embeddings=rng.choice([64, 256]))  # fmt: skip
    kv_heads = rng.choice([h for h in (1, 2, heads) if heads % h == 0])
    if (
        model_type == "llama"
    ):  # llama's default is one KV head per attention head; other types default to a number
        _maybe(rng, config, "num_key_value_heads", kv_heads)
    else:
        config["num_key_value_heads"] = kv_heads
    _maybe(rng, config, "tie_word_embeddings", rng.random() < 0.5)
    if model_type not in ("gpt_neox", "deepseek_v2", "deepseek_v3"):
        _maybe(rng, config, "head_dim", rng.choice([8, 16, 24]))
    for key in ("attention_bias", "mlp_bias", "qkv_bias"):
        _maybe(rng, config, key, rng.random() < 0.5)
    _maybe(rng, config, "sliding_window", rng.choice([16, 32]))
    if model_type == "mixtral":
        config.update(num_local_experts=rng.choice([2, 4]), num_experts_per_tok=rng.choice([1, 2]))
    if model_type in ("qwen2_moe", "qwen3_moe"):
        config.update(num_experts=rng.choice([2, 4]), num_experts_per_tok=rng.choice([1, 2]),
                      moe_intermediate_size=rng.choice([16, 24]))  # fmt: skip
        _maybe(rng, config, "decoder_sparse_step", rng.choice([1, 2]))
        _maybe(rng, config, "mlp_only_layers", rng.sample(range(4), rng.randint(0, 4)))
        if model_type == "qwen2_moe":
            _maybe(rng, config, "shared_expert_intermediate_size", rng.choice([0, 16, 32]))
    if model_type in ("deepseek_v2", "deepseek_v3"):
        config.update(kv_lora_rank=rng.choice([8, 16]), qk_rope_head_dim=rng.choice([4, 8]),
                      qk_nope_head_dim=rng.choice([8, 16]), v_head_dim=rng.choice([8, 16]),
                      moe_intermediate_size=rng.choice([16, 24]), num_experts_per_tok=1)  # fmt: skip
        _maybe(rng, config, "q_lora_rank", rng.choice([8, 16]))
        _maybe(rng, config, "n_routed_experts", rng.choice([2, 4]))
        _maybe(rng, config, "n_shared_experts", rng.choice([1, 2]))
        _maybe(rng, config, "first_k_dense_replace", rng.randint(0, 2))
    return config


def transformers_count(config: dict[str, object]) -> int:
    values = {
        k: v for k, v in config.items() if k != "model_type"
    }  # as from_pretrained passes them, nulls too
    hf = transformers.AutoConfig.for_model(config["model_type"], **values)
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(hf)
    return sum(p.numel() for p in model.parameters())


@pytest.mark.slow
@pytest.mark.parametrize("model_type", HAND_GENERATED_TYPES)
def test_parameter_count_equals_transformers_on_generated_configs(model_type, tmp_path):
    rng = random.Random(f"gpu-advisor-{model_type}")
    for index in range(CONFIGS_PER_TYPE):
        config = generated_config(model_type, rng)
        path = tmp_path / f"{index}.json"
        path.write_text(json.dumps(config), encoding="utf-8")
        assert load_hf_config(path).total_params == transformers_count(config), json.dumps(config)


# --- safetensors folders of quantised checkpoints -------------------------------------------------------------

TINY_LLAMA = {"model_type": "llama", "hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 2,
              "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 320, "pad_token_id": 0}  # fmt: skip


def _quantised(name: str, out: int, inp: int, method: str) -> dict[str, tuple[str, list[int]]]:
    """The tensors each format writes for one Linear weight (out x in), as its library lays them out."""
    base, bits, group = name[: -len(".weight")], 4, 32
    if method == "gptq":  # AutoGPTQ / GPTQModel: packed along the input rows
        return {f"{base}.qweight": ("I32", [inp * bits // 32, out]), f"{base}.qzeros": ("I32", [inp // group, out * bits // 32]),
                f"{base}.scales": ("F16", [inp // group, out]), f"{base}.g_idx": ("I32", [inp])}  # fmt: skip
    if method == "awq":  # AutoAWQ: packed along the output columns
        return {f"{base}.qweight": ("I32", [inp, out * bits // 32]), f"{base}.qzeros": ("I32", [inp // group, out * bits // 32]),
                f"{base}.scales": ("F16", [inp // group, out])}  # fmt: skip
    if method == "bnb4":  # bitsandbytes NF4 with double quantisation: two values per byte
        return {name: ("U8", [out * inp // 2, 1]), f"{name}.absmax": ("U8", [out * inp // 64]),
                f"{name}.quant_map": ("F32", [16]), f"{name}.nested_absmax": ("F32", [4]),
                f"{name}.nested_quant_map": ("F32", [256]), f"{name}.quant_state.bitsandbytes__nf4": ("U8", [120])}  # fmt: skip
    if method == "bnb8":
        return {name: ("I8", [out, inp]), f"{base}.SCB": ("F32", [out]), f"{base}.weight_format": ("U8", [1])}
    if method == "fp8":  # block-wise fp8 (DeepSeek-V3 style) with inverse scales
        return {
            name: ("F8_E4M3", [out, inp]),
            f"{name}_scale_inv": ("F32", [max(1, out // 128), max(1, inp // 128)]),
        }
    # compressed-tensors pack-quantized int4
    return {f"{base}.weight_packed": ("I32", [out, inp * bits // 32]), f"{base}.weight_scale": ("F16", [out, inp // group]),
            f"{base}.weight_shape": ("I64", [2])}  # fmt: skip


QUANTIZATION_CONFIGS = {
    "gptq": {"quant_method": "gptq", "bits": 4, "group_size": 32},
    "awq": {"quant_method": "awq", "bits": 4, "group_size": 32},
    "bnb4": {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4"},
    "bnb8": {"quant_method": "bitsandbytes", "load_in_8bit": True},
    "fp8": {"quant_method": "fp8", "weight_block_size": [128, 128]},
    "compressed": {"quant_method": "compressed-tensors", "format": "pack-quantized",
                   "config_groups": {"group_0": {"weights": {"num_bits": 4, "group_size": 32}}}},
}  # fmt: skip


def _write_header(path, tensors: dict[str, tuple[str, list[int]]]) -> None:
    import struct

    header, offset = {}, 0
    for name, (dtype, shape) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset]}
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw)


@pytest.mark.parametrize("method", list(QUANTIZATION_CONFIGS))
@pytest.mark.slow
def test_quantised_checkpoints_count_the_parameters_transformers_builds(tmp_path, method):
    from planner.models import load_model_folder

    expected = transformers_count(TINY_LLAMA)
    hf = transformers.AutoConfig.for_model(
        "llama", **{k: v for k, v in TINY_LLAMA.items() if k != "model_type"}
    )
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(hf)
    tensors: dict[str, tuple[str, list[int]]] = {}
    for name, param in model.named_parameters():
        quantised = ".layers." in name and name.endswith(
            "_proj.weight"
        )  # the libraries leave embeddings and head
        if quantised:
            tensors.update(_quantised(name, param.shape[0], param.shape[1], method))
        else:
            tensors[name] = ("BF16", list(param.shape))
    half = len(tensors) // 2
    names = list(tensors)
    _write_header(tmp_path / "model-00001-of-00002.safetensors", {n: tensors[n] for n in names[:half]})
    _write_header(tmp_path / "model-00002-of-00002.safetensors", {n: tensors[n] for n in names[half:]})
    config = {**TINY_LLAMA, "quantization_config": QUANTIZATION_CONFIGS[method]}
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    assert load_model_folder(tmp_path).total_params == expected
