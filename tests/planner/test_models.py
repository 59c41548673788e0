"""Parameter counts against published figures, Hugging Face config.json import, safetensors headers."""

from __future__ import annotations

import json
import struct

import pytest

from planner.errors import UserError
from planner.models import (
    MAX_SAFETENSORS_HEADER_BYTES,
    SUPPORTED_MODEL_TYPES,
    count_safetensors_params,
    generic_model,
    get_preset,
    list_presets,
    load_hf_config,
    load_model_folder,
    param_counts,
    resolve_model,
    safetensors_header,
)

# (preset id, official total, official active or None, where the figure is published)
OFFICIAL_TOTALS = [
    (
        "llama-2-7b",
        6.74e9,
        None,
        "HF Hub meta-llama/Llama-2-7b-hf 'Model size 6.74B params' (paper: nominal 7B)",
    ),
    ("llama-2-13b", 13.0e9, None, "HF Hub meta-llama/Llama-2-13b-hf 'Model size 13B params'"),
    (
        "llama-2-70b",
        69.0e9,
        None,
        "HF Hub meta-llama/Llama-2-70b-hf 'Model size 69B params' (paper: nominal 70B)",
    ),
    ("llama-3.1-8b", 8.03e9, None, "HF Hub meta-llama/Llama-3.1-8B 'Model size 8.03B params'"),
    ("llama-3.1-70b", 70.6e9, None, "HF Hub meta-llama/Llama-3.1-70B 'Model size 70.6B params'"),
    ("llama-3.1-405b", 406e9, None, "HF Hub meta-llama/Llama-3.1-405B 'Model size 406B params'"),
    (
        "mistral-7b",
        7.24e9,
        None,
        "HF Hub mistralai/Mistral-7B-v0.1 '7.24B params' (announcement rounds to 7.3B)",
    ),
    (
        "mixtral-8x7b",
        46.7e9,
        12.9e9,
        "Mistral AI, 'Mixtral of experts' (2023-12-11): 46.7B total, 12.9B per token",
    ),
    ("qwen2.5-7b", 7.61e9, None, "Qwen/Qwen2.5-7B model card: 'Number of Parameters: 7.61B'"),
    ("qwen2.5-14b", 14.7e9, None, "Qwen/Qwen2.5-14B model card: 'Number of Parameters: 14.7B'"),
    ("qwen2.5-72b", 72.7e9, None, "Qwen/Qwen2.5-72B model card: 'Number of Parameters: 72.7B'"),
    (
        "gemma-2-9b",
        9_241_705_984,
        None,
        "Gemma 2 report (arXiv 2408.00118) Table 2: 917,504,000 + 8,324,201,984",
    ),
    ("gemma-2-27b", 27_227_128_320, None, "Gemma 2 report Table 2: 1,179,648,000 + 26,047,480,320"),
    ("phi-3-mini", 3.82e9, None, "HF Hub microsoft/Phi-3-mini-4k-instruct '3.82B params' (report: 3.8B)"),
    (
        "deepseek-v3",
        671e9,
        None,
        "DeepSeek-V3 report (arXiv 2412.19437): 671B total; HF's 685B adds the 14B MTP module",
    ),
]


@pytest.mark.parametrize(
    ("preset", "official", "active", "source"), OFFICIAL_TOTALS, ids=[t[0] for t in OFFICIAL_TOTALS]
)
def test_preset_parameter_count_matches_the_official_figure(preset, official, active, source):
    spec = get_preset(preset)
    assert abs(spec.total_params - official) / official < 0.005, source
    if active is not None:
        assert abs(spec.active_params - active) / active < 0.005, source


def test_every_preset_is_checked_and_carries_a_source_and_date():
    checked = {row[0] for row in OFFICIAL_TOTALS}
    for spec in list_presets():
        assert spec.id in checked
        assert spec.source.startswith("https://huggingface.co/") and spec.source.endswith("config.json")
        assert len(spec.source_date) == 10 and spec.source_date[4] == "-"


def test_gemma2_embedding_and_non_embedding_split_matches_the_report_exactly():
    # Gemma 2 report, Table 2 (embedding / non-embedding parameters); the head is tied to the embedding.
    for preset, embedding, non_embedding in (
        ("gemma-2-9b", 917_504_000, 8_324_201_984),
        ("gemma-2-27b", 1_179_648_000, 26_047_480_320),
    ):
        spec = get_preset(preset)
        assert param_counts(spec).embedding == embedding
        assert spec.total_params - embedding == non_embedding


def test_deepseek_v3_active_parameters_round_to_the_published_37b():
    # Report: "671B total parameters with 37B activated for each token", rounded to whole billions. We count
    # the embedding and LM head as active (the convention behind Mixtral's 12.9B), which gives 37.55B.
    spec = get_preset("deepseek-v3")
    assert abs(spec.active_params - 37e9) < 0.6e9
    assert spec.is_moe and spec.uses_mla


def test_mla_kv_bytes_per_token_is_the_compressed_latent():
    # DeepSeek-V3: kv_lora_rank 512 + qk_rope_head_dim 64 values per token per layer, 61 layers, 2 bytes.
    assert get_preset("deepseek-v3").kv_bytes_per_token(2) == 61 * (512 + 64) * 2
    # Llama 3.1 70B (GQA): 2 x 80 layers x 8 KV heads x 128 x 2 bytes = 327,680 bytes per token
    assert get_preset("llama-3.1-70b").kv_bytes_per_token(2) == 327_680


def test_presets_are_found_by_id_or_name_and_unknown_names_are_refused():
    assert get_preset("Llama 3.1 70B").id == "llama-3.1-70b"
    assert resolve_model("MIXTRAL-8x7b").id == "mixtral-8x7b"
    with pytest.raises(UserError, match="unknown model preset 'llama-9'"):
        get_preset("llama-9")


@pytest.mark.parametrize("billions", [0.05, 0.5, 1, 7, 13.5, 70, 175, 1000])
def test_generic_model_lands_within_one_percent_of_the_requested_size(billions):
    spec = generic_model(billions)
    assert abs(spec.total_params / (billions * 1e9) - 1) < 0.01
    assert spec.hidden % spec.heads == 0 and spec.heads % spec.kv_heads == 0


def test_resolve_model_reads_sizes_and_refuses_nonsense():
    assert resolve_model("7b").family == "generic"
    assert abs(resolve_model("13.5B").total_params - 13.5e9) < 0.135e9
    with pytest.raises(UserError, match="unknown model 'gpt-17'"):
        resolve_model("gpt-17")
    with pytest.raises(UserError, match="outside"):
        resolve_model("0.001b")
    with pytest.raises(UserError):
        resolve_model("")


# --- config.json import ---------------------------------------------------------------------------------------


def write_config(tmp_path, config: dict, name="config.json"):
    path = tmp_path / name
    path.write_text(json.dumps(config))
    return path


LLAMA_2_7B_CONFIG = {
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 32,
    "vocab_size": 32000,
    "max_position_embeddings": 4096,
    "tie_word_embeddings": False,
}


def test_llama_config_counts_llama_2_7b():
    # HF Hub: meta-llama/Llama-2-7b-hf, 6,738,415,616 parameters (6.74B)
    assert load_hf_config(write_config_dir(LLAMA_2_7B_CONFIG)).total_params == 6_738_415_616


def write_config_dir(config: dict):
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp())
    (folder / "config.json").write_text(json.dumps(config))
    return folder / "config.json"


def test_gpt2_config_counts_gpt2_small(tmp_path):
    # The released GPT-2 small checkpoint holds 124,439,808 parameters: wte 50257x768, wpe 1024x768,
    # 12 layers of 7,087,872 (two LayerNorms 1,536 each, c_attn 768x2304+2304, c_proj 768x768+768,
    # c_fc 768x3072+3072, mlp c_proj 3072x768+768), ln_f 1,536; the head is tied to wte.
    layer = 1536 + (768 * 2304 + 2304) + (768 * 768 + 768) + 1536 + (768 * 3072 + 3072) + (3072 * 768 + 768)
    assert layer == 7_087_872
    expected = 50257 * 768 + 1024 * 768 + 12 * layer + 1536
    assert expected == 124_439_808
    config = {
        "model_type": "gpt2",
        "n_embd": 768,
        "n_layer": 12,
        "n_head": 12,
        "vocab_size": 50257,
        "n_positions": 1024,
    }
    spec = load_hf_config(write_config(tmp_path, config))
    assert spec.total_params == 124_439_808
    assert spec.tied_embeddings and spec.norm == "layernorm" and not spec.gated_mlp


def test_gpt_neox_config_counts_pythia_160m(tmp_path):
    # EleutherAI Pythia README: pythia-160m has 162,322,944 parameters, 85,056,000 of them non-embedding.
    config = {
        "model_type": "gpt_neox",
        "hidden_size": 768,
        "num_hidden_layers": 12,
        "num_attention_heads": 12,
        "intermediate_size": 3072,
        "vocab_size": 50304,
        "max_position_embeddings": 2048,
        "tie_word_embeddings": False,
    }
    spec = load_hf_config(write_config(tmp_path, config))
    assert spec.total_params == 162_322_944
    assert spec.total_params - 2 * 50304 * 768 == 85_056_000


def test_gemma_config_counts_gemma_7b(tmp_path):
    # HF Hub google/gemma-7b: 8.54B. By hand: attention 4 x 3072 x 4096 (16 heads x head_dim 256, MHA),
    # MLP 3 x 3072 x 24576, two RMSNorms; 28 layers; tied 256000 x 3072 embedding; final norm.
    layer = 4 * 3072 * 4096 + 3 * 3072 * 24576 + 2 * 3072
    expected = 28 * layer + 256000 * 3072 + 3072
    config = {
        "model_type": "gemma",
        "hidden_size": 3072,
        "intermediate_size": 24576,
        "num_attention_heads": 16,
        "num_key_value_heads": 16,
        "head_dim": 256,
        "num_hidden_layers": 28,
        "vocab_size": 256000,
        "max_position_embeddings": 8192,
    }
    spec = load_hf_config(write_config(tmp_path, config))
    assert spec.total_params == expected == 8_537_680_896
    assert abs(expected - 8.54e9) / 8.54e9 < 0.005


def test_gemma2_phi3_qwen2_mistral_mixtral_configs_reproduce_the_presets(tmp_path):
    cases = {
        "gemma-2-9b": {"model_type": "gemma2", "hidden_size": 3584, "intermediate_size": 14336,
                       "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 256,
                       "num_hidden_layers": 42, "vocab_size": 256000, "max_position_embeddings": 8192},
        "phi-3-mini": {"model_type": "phi3", "hidden_size": 3072, "intermediate_size": 8192,
                       "num_attention_heads": 32, "num_key_value_heads": 32, "num_hidden_layers": 32,
                       "vocab_size": 32064, "max_position_embeddings": 4096, "tie_word_embeddings": False},
        "qwen2.5-7b": {"model_type": "qwen2", "hidden_size": 3584, "intermediate_size": 18944,
                       "num_attention_heads": 28, "num_key_value_heads": 4, "num_hidden_layers": 28,
                       "vocab_size": 152064, "max_position_embeddings": 131072, "tie_word_embeddings": False},
        "mistral-7b": {"model_type": "mistral", "hidden_size": 4096, "intermediate_size": 14336,
                       "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
                       "vocab_size": 32000, "max_position_embeddings": 32768, "tie_word_embeddings": False},
        "mixtral-8x7b": {"model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336,
                         "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
                         "vocab_size": 32000, "max_position_embeddings": 32768, "num_local_experts": 8,
                         "num_experts_per_tok": 2, "tie_word_embeddings": False},
    }  # fmt: skip
    for preset, config in cases.items():
        spec = load_hf_config(write_config(tmp_path, config, f"{preset}.json"))
        assert spec.total_params == get_preset(preset).total_params, preset
        assert spec.active_params == get_preset(preset).active_params, preset


def test_deepseek_v3_config_gives_671b(tmp_path):
    config = {
        "model_type": "deepseek_v3", "hidden_size": 7168, "intermediate_size": 18432,
        "moe_intermediate_size": 2048, "num_hidden_layers": 61, "num_attention_heads": 128,
        "num_key_value_heads": 128, "n_shared_experts": 1, "n_routed_experts": 256, "num_experts_per_tok": 8,
        "first_k_dense_replace": 3, "moe_layer_freq": 1, "q_lora_rank": 1536, "kv_lora_rank": 512,
        "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128, "vocab_size": 129280,
        "max_position_embeddings": 163840, "tie_word_embeddings": False, "num_nextn_predict_layers": 1,
    }  # fmt: skip
    spec = load_hf_config(write_config(tmp_path, config))
    # DeepSeek-V3 report: 671B parameters in the main model (the MTP module is not part of it)
    assert abs(spec.total_params - 671e9) / 671e9 < 0.005
    assert spec.total_params == get_preset("deepseek-v3").total_params


def test_deepseek_v2_lite_config_without_q_lora(tmp_path):
    # deepseek-ai/DeepSeek-V2-Lite model card: 15.7B total parameters. q is projected directly (q_lora_rank null).
    config = {
        "model_type": "deepseek_v2", "hidden_size": 2048, "intermediate_size": 10944,
        "moe_intermediate_size": 1408, "num_hidden_layers": 27, "num_attention_heads": 16,
        "num_key_value_heads": 16, "n_shared_experts": 2, "n_routed_experts": 64, "num_experts_per_tok": 6,
        "first_k_dense_replace": 1, "moe_layer_freq": 1, "q_lora_rank": None, "kv_lora_rank": 512,
        "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128, "vocab_size": 102400,
        "max_position_embeddings": 163840, "tie_word_embeddings": False,
    }  # fmt: skip
    spec = load_hf_config(write_config(tmp_path, config))
    assert spec.q_lora_rank == 0 and spec.dense_layers == 1
    assert abs(spec.total_params - 15.7e9) / 15.7e9 < 0.005


def test_qwen2_moe_config_counts_qwen15_moe_a27b(tmp_path):
    # Qwen/Qwen1.5-MoE-A2.7B model card: 14.3B parameters in total, 2.7B activated at runtime.
    config = {
        "model_type": "qwen2_moe", "hidden_size": 2048, "intermediate_size": 5632,
        "moe_intermediate_size": 1408, "shared_expert_intermediate_size": 5632, "num_experts": 60,
        "num_experts_per_tok": 4, "num_hidden_layers": 24, "num_attention_heads": 16,
        "num_key_value_heads": 16, "vocab_size": 151936, "max_position_embeddings": 8192,
        "decoder_sparse_step": 1, "mlp_only_layers": [], "tie_word_embeddings": False,
    }  # fmt: skip
    spec = load_hf_config(write_config(tmp_path, config))
    assert abs(spec.total_params - 14.3e9) / 14.3e9 < 0.005
    assert abs(spec.active_params - 2.7e9) / 2.7e9 < 0.01  # published figure has two significant digits


def test_unknown_model_type_names_it_and_the_supported_ones(tmp_path):
    path = write_config(tmp_path, {"model_type": "bert", "hidden_size": 768})
    with pytest.raises(UserError) as caught:
        load_hf_config(path)
    message = str(caught.value)
    assert "'bert'" in message and all(t in message for t in SUPPORTED_MODEL_TYPES)
    assert "\n" not in message


@pytest.mark.parametrize("model_type", [["llama"], {"a": 1}, 7])
def test_model_type_that_is_not_text_is_refused_by_name(tmp_path, model_type):
    # found by the fuzz harness: a list as model_type reached a dict lookup and crashed with TypeError
    for data in (
        {**LLAMA_2_7B_CONFIG, "model_type": model_type},
        {"model_type": "gemma3", "text_config": {**LLAMA_2_7B_CONFIG, "model_type": model_type}},
    ):
        with pytest.raises(UserError, match="is not supported"):
            load_hf_config(write_config(tmp_path, data))


def test_malformed_json_and_missing_keys_name_the_file_and_key(tmp_path):
    broken = tmp_path / "config.json"
    broken.write_text('{"model_type": "llama", "hidden_size": 4096,')
    with pytest.raises(UserError, match=r"config\.json: malformed JSON"):
        load_hf_config(broken)
    # a key transformers has a default for takes it (llama: intermediate_size 11008); one it has none for
    # (mixtral's experts come with defaults too, so a model type with a required key: gpt2 has none, phi3 none;
    # MLA's kv_lora_rank in deepseek has one): a missing key is only refused where transformers would refuse it
    config = dict(LLAMA_2_7B_CONFIG)
    del config["intermediate_size"]
    assert load_hf_config(write_config(tmp_path, config)).ffn == 11008
    with pytest.raises(UserError, match=r"'num_experts_per_tok'") as caught:
        load_hf_config(
            write_config(
                tmp_path, {**LLAMA_2_7B_CONFIG, "model_type": "mixtral", "num_experts_per_tok": "two"}
            )
        )
    assert str(tmp_path) in str(caught.value)
    with pytest.raises(UserError, match=r"'hidden_size' must be a positive integer"):
        load_hf_config(write_config(tmp_path, dict(LLAMA_2_7B_CONFIG, hidden_size=-5)))
    with pytest.raises(UserError, match="missing key 'model_type'"):
        load_hf_config(write_config(tmp_path, {"hidden_size": 5}))
    with pytest.raises(UserError, match="expected a JSON object"):
        load_hf_config(write_config(tmp_path, [1, 2]))
    with pytest.raises(UserError, match="no such file"):
        load_hf_config(tmp_path / "absent.json")


def test_config_json_with_a_byte_order_mark_loads(tmp_path):
    # Windows Notepad saves UTF-8 with a byte-order mark; json.loads refuses the mark unless it is decoded away.
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA_2_7B_CONFIG), encoding="utf-8-sig")
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    # meta-llama/Llama-2-7b-hf on the HF Hub: "Model size 6.74B params"
    assert abs(load_hf_config(path).total_params - 6.74e9) / 6.74e9 < 0.005


@pytest.mark.parametrize(
    ("changes", "shown"),
    [
        # 320,000 layers x 12 x 4.1e10^2 (attention 4h^2 + MLP 3 x h x 11008... dominated by 4h^2) = 2.1e27
        ({"hidden_size": 40_960_000_000, "num_hidden_layers": 320_000}, "e+18B"),
    ],
)  # fmt: skip
def test_config_json_with_an_absurd_total_is_refused_naming_the_file(tmp_path, changes, shown):
    path = write_config(tmp_path, {**LLAMA_2_7B_CONFIG, **changes})
    with pytest.raises(UserError) as refused:
        load_hf_config(path)
    message = str(refused.value)
    assert message.startswith(f"{path}: model size ") and "is outside 1e-09B..10000B" in message
    assert shown in message and "\n" not in message


def test_a_moe_config_with_an_absurd_layer_count_is_refused_at_once(tmp_path):
    # Counting MoE layers one by one over 10**15 layers would hang; the count is arithmetic, the size check refuses.
    qwen_moe = {"model_type": "qwen2_moe", "hidden_size": 2048, "intermediate_size": 5632,
                "moe_intermediate_size": 1408, "num_experts": 60, "num_experts_per_tok": 4,
                "num_hidden_layers": 10**15, "num_attention_heads": 16, "vocab_size": 151936}  # fmt: skip
    deepseek = {"model_type": "deepseek_v2", "hidden_size": 2048, "intermediate_size": 10944,
                "moe_intermediate_size": 1408, "num_hidden_layers": 10**15, "num_attention_heads": 16,
                "n_routed_experts": 64, "num_experts_per_tok": 6, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
                "qk_nope_head_dim": 128, "v_head_dim": 128, "vocab_size": 102400}  # fmt: skip
    for config in (qwen_moe, deepseek):
        with pytest.raises(UserError, match="outside 1e-09B..10000B"):
            load_hf_config(write_config(tmp_path, config))


def test_moe_layer_counts_follow_the_sparse_step_and_the_dense_lists(tmp_path):
    # qwen2_moe, 24 layers, decoder_sparse_step 2: layer i is MoE when (i + 1) % 2 == 0, i.e. i = 1, 3, ..., 23
    # (12 layers); mlp_only_layers [0, 1, 3] turns 1 and 3 back to dense (0 was dense already): 10 MoE, 14 dense.
    qwen_moe = {"model_type": "qwen2_moe", "hidden_size": 2048, "intermediate_size": 5632,
                "moe_intermediate_size": 1408, "num_experts": 60, "num_experts_per_tok": 4, "num_hidden_layers": 24,
                "num_attention_heads": 16, "vocab_size": 151936, "decoder_sparse_step": 2,
                "mlp_only_layers": [0, 1, 3, 3]}  # fmt: skip
    spec = load_hf_config(write_config(tmp_path, qwen_moe))
    assert (spec.moe_layers, spec.dense_layers) == (10, 14)
    # deepseek, 61 layers, first_k_dense_replace 3, moe_layer_freq 2: transformers 5 (modeling_deepseek_v2.py)
    # makes every layer from first_k_dense_replace on an MoE layer and does not read moe_layer_freq: 58 MoE, 3 dense.
    deepseek = {"model_type": "deepseek_v2", "hidden_size": 2048, "intermediate_size": 10944,
                "moe_intermediate_size": 1408, "num_hidden_layers": 61, "num_attention_heads": 16,
                "n_routed_experts": 64, "num_experts_per_tok": 6, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
                "qk_nope_head_dim": 128, "v_head_dim": 128, "vocab_size": 102400, "first_k_dense_replace": 3,
                "moe_layer_freq": 2}  # fmt: skip
    spec = load_hf_config(write_config(tmp_path, deepseek))
    assert (spec.moe_layers, spec.dense_layers) == (58, 3)


def test_text_that_looks_like_a_path_is_named_as_missing_not_as_an_unknown_preset(tmp_path):
    missing = tmp_path / "models" / "config.json"
    for text in (str(missing), "config.json", "models\\llama\\config.json"):
        with pytest.raises(UserError, match=r"^no such file or folder: ") as refused:
            resolve_model(text)
        assert "preset" not in str(refused.value)
    with pytest.raises(UserError, match="a Hugging Face model id"):
        resolve_model("meta-llama/Llama-3.1-8B")  # offline: the message says what to give instead
    with pytest.raises(UserError, match="unknown model 'gpt-17'"):
        resolve_model("gpt-17")  # not a path: still the list of presets


def test_a_negative_size_is_refused_as_a_size():
    with pytest.raises(UserError, match=r"model size -7B is outside"):
        resolve_model("-7b")


# --- safetensors headers ----------------------------------------------------------------------------------------


def write_safetensors(path, tensors: dict[str, list[int]], data_bytes: int | None = None):
    """A file in the safetensors layout: u64 little-endian header length, JSON header, then zero bytes."""
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, shape in tensors.items():
        size = 2
        for n in shape:
            size *= n
        header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header).encode()
    with open(path, "wb") as handle:
        handle.write(struct.pack("<Q", len(raw)))
        handle.write(raw)
        handle.truncate(8 + len(raw) + (offset if data_bytes is None else data_bytes))


def test_safetensors_shards_are_summed_from_headers(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(LLAMA_2_7B_CONFIG))
    write_safetensors(tmp_path / "model-00001-of-00002.safetensors", {"a": [3, 4], "b": [5]})
    write_safetensors(tmp_path / "model-00002-of-00002.safetensors", {"c": [2, 3, 7], "scalar": []})
    spec = load_model_folder(tmp_path)
    assert spec.total_params == 3 * 4 + 5 + 2 * 3 * 7 + 1  # 60 elements; a scalar counts as one
    assert spec.layers == 32  # architecture still from config.json


def test_safetensors_tensor_data_is_never_read(tmp_path):
    # 50 GB of (sparse) tensor data after the header: reading it would take minutes; the header takes microseconds
    path = tmp_path / "huge.safetensors"
    write_safetensors(path, {"w": [100_000, 250_000]}, data_bytes=50 * 10**9)
    assert count_safetensors_params(path) == 25_000_000_000


def test_absurd_or_truncated_safetensors_headers_are_refused(tmp_path):
    absurd = tmp_path / "absurd.safetensors"
    absurd.write_bytes(struct.pack("<Q", 2**60) + b"{}")
    with pytest.raises(UserError, match="absurd"):
        count_safetensors_params(absurd)
    too_long = tmp_path / "long.safetensors"
    too_long.write_bytes(struct.pack("<Q", MAX_SAFETENSORS_HEADER_BYTES + 1) + b" " * 16)
    with pytest.raises(UserError, match="absurd"):
        count_safetensors_params(too_long)
    short = tmp_path / "short.safetensors"
    short.write_bytes(b"\x01\x02")
    with pytest.raises(UserError, match="not a safetensors file"):
        count_safetensors_params(short)
    garbage = tmp_path / "garbage.safetensors"
    garbage.write_bytes(struct.pack("<Q", 4) + b"nope")
    with pytest.raises(UserError, match="malformed safetensors header"):
        count_safetensors_params(garbage)


def test_model_folder_whose_safetensors_count_is_absurd_is_refused(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(LLAMA_2_7B_CONFIG))
    header = json.dumps({"w": {"dtype": "F16", "shape": [10**9, 10**9], "data_offsets": [0, 0]}}).encode()
    (tmp_path / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header)
    with pytest.raises(UserError, match=r"\(\*\.safetensors\): model size 1e\+09B parameters is outside"):
        load_model_folder(tmp_path)  # 10**18 elements: past the 10,000B ceiling


def test_model_folder_needs_a_config(tmp_path):
    with pytest.raises(UserError, match="no such file"):
        load_model_folder(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps(LLAMA_2_7B_CONFIG))
    assert resolve_model(str(tmp_path)).total_params == 6_738_415_616  # no shards: architecture count


def test_tiny_models_are_accepted(tmp_path):
    # 2 x 32,000 x 8 (embeddings) + a 1-layer, 8-wide body: 513,240 parameters, a real (test-sized) model
    tiny = {**LLAMA_2_7B_CONFIG, "hidden_size": 8, "num_hidden_layers": 1, "intermediate_size": 16,
            "num_attention_heads": 1, "num_key_value_heads": 1}  # fmt: skip
    spec = load_hf_config(write_config(tmp_path, tiny))
    # embedding + head 2 x 32000 x 8, attention 4 x 8 x 8, MLP 3 x 8 x 16, norms 3 x 8
    assert spec.total_params == 2 * 32000 * 8 + 4 * 64 + 3 * 128 + 3 * 8


def test_default_sequence_length_never_exceeds_the_models_context(tmp_path, capsys):
    from planner.cli import main

    gpt2 = {"model_type": "gpt2", "n_embd": 768, "n_head": 12, "n_layer": 12, "vocab_size": 50257}
    path = write_config(tmp_path, gpt2)
    assert main(["memory", "--model", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["config"]["seq_len"] == 1024  # gpt2's n_positions default


def test_sliding_window_layers_keep_only_their_window_and_a_null_window_keeps_everything(tmp_path):
    from planner.memory import MemoryConfig, estimate_memory

    mistral = {"model_type": "mistral", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
               "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000, "sliding_window": None}  # fmt: skip
    spec = load_hf_config(write_config(tmp_path, mistral))
    assert spec.sliding_window == 0 and spec.layer_types == ()
    full = estimate_memory(spec, MemoryConfig(task="inference", seq_len=8192)).kv_cache.bytes
    # by hand: 32 layers x K and V x 8 KV heads x 128 x 2 bytes (bf16) x 8192 tokens
    assert full == pytest.approx(32 * 2 * 8 * 128 * 2 * 8192, rel=0.01)
    windowed = load_hf_config(write_config(tmp_path, {**mistral, "sliding_window": 4096}))
    # transformers' DynamicSlidingWindowLayer keeps the last window - 1 tokens
    kept = estimate_memory(windowed, MemoryConfig(task="inference", seq_len=8192)).kv_cache.bytes
    assert kept == pytest.approx(32 * 2 * 8 * 128 * 2 * 4095, rel=0.01)


def test_an_index_json_names_the_shards_and_duplicates_and_adapters_are_left_out(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(LLAMA_2_7B_CONFIG))
    write_safetensors(tmp_path / "model-00001-of-00002.safetensors", {"a": [3, 4]})
    write_safetensors(tmp_path / "model-00002-of-00002.safetensors", {"b": [5]})
    # Mistral's repositories carry the same weights again in consolidated.safetensors; peft adds its adapter
    write_safetensors(tmp_path / "consolidated.safetensors", {"a": [3, 4], "b": [5]})
    write_safetensors(tmp_path / "adapter_model.safetensors", {"lora_A": [8, 2]})
    assert load_model_folder(tmp_path).total_params == 12 + 5
    # with an index, exactly the files its weight_map names (a stray extra shard is not counted)
    write_safetensors(tmp_path / "model-extra.safetensors", {"z": [1000]})
    index = {"metadata": {}, "weight_map": {"a": "model-00001-of-00002.safetensors",
                                            "b": "model-00002-of-00002.safetensors"}}  # fmt: skip
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(index))
    assert load_model_folder(tmp_path).total_params == 12 + 5


def test_a_folder_with_only_consolidated_weights_counts_them(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(LLAMA_2_7B_CONFIG))
    write_safetensors(tmp_path / "consolidated.safetensors", {"a": [3, 4]})
    assert load_model_folder(tmp_path).total_params == 12


def test_a_fifo_in_place_of_config_json_is_refused_not_read(tmp_path):
    import os

    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    os.mkfifo(tmp_path / "config.json")
    with pytest.raises(UserError, match="not a regular file"):
        load_hf_config(tmp_path / "config.json")


def raw_safetensors(path, header: dict) -> None:
    """A safetensors file whose header is exactly `header` (no tensor data)."""
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw)


def test_a_shape_of_more_dimensions_than_numpy_allows_is_refused(tmp_path):
    # NumPy 2's NPY_MAXDIMS is 64: a shape of 64 ones is a tensor of one element, 65 is refused
    raw_safetensors(
        tmp_path / "ok.safetensors", {"w": {"dtype": "F32", "shape": [1] * 64, "data_offsets": [0, 4]}}
    )
    assert safetensors_header(tmp_path / "ok.safetensors")["w"] == ("F32", (1,) * 64)
    raw_safetensors(tmp_path / "deep.safetensors", {"w": {"dtype": "F32", "shape": [1] * 65}})
    with pytest.raises(UserError, match=r"tensor 'w' has no valid 'shape'"):
        safetensors_header(tmp_path / "deep.safetensors")


def test_the_issue_header_of_300000_huge_dimensions_is_refused(tmp_path):
    """Issue 30: 300,000 dimensions of 2**62 made math.prod multiply ever longer integers (over 60 s)."""
    raw_safetensors(tmp_path / "huge.safetensors", {"w": {"dtype": "F32", "shape": [2**62] * 300_000}})
    with pytest.raises(UserError, match=r"tensor 'w' has no valid 'shape'"):
        safetensors_header(tmp_path / "huge.safetensors")


def test_a_shape_whose_element_count_reaches_2_to_the_63_is_refused(tmp_path):
    raw_safetensors(tmp_path / "big.safetensors", {"w": {"dtype": "F32", "shape": [2**32, 2**31]}})
    with pytest.raises(UserError, match=r"tensor 'w' has no valid 'shape'"):
        safetensors_header(tmp_path / "big.safetensors")
    raw_safetensors(tmp_path / "fits.safetensors", {"w": {"dtype": "F32", "shape": [2**32, 2**30, 0]}})
    assert safetensors_header(tmp_path / "fits.safetensors")["w"][1] == (2**32, 2**30, 0)


def test_deepseek_sparse_attention_attends_its_top_k_keys(tmp_path):
    """DeepSeek-V3.2's shape (DeepseekV32Config's defaults: 61 layers, 128 heads of 128 + 64 query-key dims,
    latent 512 + 64, an indexer of 64 heads x 128 per layer, index_topk 2048): past 2,048 tokens a query attends
    only the 2,048 keys its indexer picks (DeepSeek-V3.2-Exp report: core attention O(L k) instead of O(L^2)),
    and the indexer scores every earlier key. Figures by hand."""
    import dataclasses

    from planner.gpus import get_gpu
    from planner.models import load_hf_config
    from planner.models.kv_cache import (
        FULL,
        attended_tokens,
        kv_cache_bytes_per_sequence,
        sparse_attention_share,
    )
    from planner.perf import Replica, device_rates
    from planner.perf.serving import decode_attention_seconds

    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "deepseek_v32"}), encoding="utf-8")
    spec = load_hf_config(path)
    assert spec.index_topk == 2048
    assert attended_tokens(spec, FULL, 32768) == 2048 and attended_tokens(spec, FULL, 1000) == 1000
    # indexer per query-key pair: 61 x (2 x 64 x 128 + 2 x 64) = 61 x 16,512; attention: 61 x 4 x 128 x 192
    indexer = 16512 / 98304
    assert sparse_attention_share(spec, 1000) == pytest.approx(1 + indexer)
    # 128K prompt: k s - k^2 / 2 of s^2 / 2 pairs attended
    assert sparse_attention_share(spec, 131072) == pytest.approx(
        2 * 2048 / 131072 - (2048 / 131072) ** 2 + indexer
    )
    # a decode step reads the 2,048 attended latents of each layer and every indexer key (bf16)
    assert kv_cache_bytes_per_sequence(spec, 32768, 2, read=True) == 61 * (2048 * 576 + 32768 * 128) * 2
    assert kv_cache_bytes_per_sequence(spec, 32768, 2) == 61 * 32768 * (576 + 128) * 2  # what it keeps
    gpu = get_gpu("h200")
    rates = device_rates(gpu, "bf16")
    sparse = Replica(model=spec, gpu=gpu, rates=rates, tp=8)
    dense = Replica(model=dataclasses.replace(spec, index_topk=0), gpu=gpu, rates=rates, tp=8)
    plain = dataclasses.replace(spec, index_topk=0, index_heads=0, index_head_dim=0)  # MLA without an indexer
    plain_replica = Replica(model=plain, gpu=gpu, rates=rates, tp=8)
    # below 2,048 tokens every key is attended: the indexer's keys and scores come on top
    assert decode_attention_seconds(sparse, 64, 64 * 1024) == decode_attention_seconds(dense, 64, 64 * 1024)
    assert decode_attention_seconds(sparse, 64, 64 * 1024) > decode_attention_seconds(
        plain_replica, 64, 64 * 1024
    )
    assert (
        decode_attention_seconds(sparse, 64, 64 * 131072)
        < decode_attention_seconds(dense, 64, 64 * 131072) / 2
    )
