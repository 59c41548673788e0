"""KV cache per layer kind against what transformers' DynamicCache holds after a real forward of tiny models on
CPU: full layers every token, sliding and chunked layers their window - 1, MLA layers (deepseek_v2/v3, minicpm3,
youtu, glm4_moe_lite) the compressed latent + the shared rotary key per token, DeepSeek Sparse Attention layers
(deepseek_v32, glm_moe_dsa) also their indexer's key per token (planner/models/kv_cache.py)."""

from __future__ import annotations

import json
import random

import pytest

from planner.models import load_hf_config
from planner.models.kv_cache import kv_cache_bytes_per_sequence

transformers = pytest.importorskip("transformers", reason="needs the trace extra (installed by `make test`)")
torch = pytest.importorskip("torch")

from tests.planner.hf_generated import buildable_case, built_model, generated_config  # noqa: E402

KV_TYPES = ("llama", "mistral", "ministral", "qwen2", "gemma2", "gemma3_text", "cohere2", "olmo3", "exaone4",
            "gpt_oss", "llama4_text", "smollm3", "gpt2", "deepseek_v2", "deepseek_v3", "falcon", "gpt_bigcode",
            "bloom", "opt", "gpt_neo", "mpt", "gptj", "phi", "stablelm", "dots1", "cwm", "vaultgemma",
            "glm4_moe", "helium", "bitnet", "apertus", "hunyuan_v1_moe", "ernie4_5_moe", "minicpm3", "youtu",
            "glm4_moe_lite", "cohere2_moe", "dbrx", "diffllama", "minimax_m2", "deepseek_v32", "glm_moe_dsa", "afmoe", "gemma3n_text", "jetmoe", "longcat_flash")  # fmt: skip
# MLA as DeepSeek's configs have it: as many KV heads as query heads (transformers' MLA expands the latent to
# them), and one routing group (the router's groups must divide the few experts of a tiny model; no cache effect)
MLA = {"n_group": 1, "topk_group": 1}
SEQ_LEN = 24  # longer than every generated window (4..16)


def _runnable(data):
    """Settings transformers builds but cannot run forward, made runnable as real checkpoints have them: falcon's
    new decoder architecture with sequential blocks (its forward looks for ln_attn, built only for parallel
    ones; every Falcon-40B/180B config has parallel_attn), gptj's rotary_dim wider than a head, dbrx without
    clip_qkv (its forward clamps to None; the published DBRX config has clip_qkv 8), longcat_flash routing
    each token to one expert (LongCat-Flash routes to 12)."""
    if data["model_type"] == "falcon" and data.get("new_decoder_architecture"):
        data["parallel_attn"] = True
    if data["model_type"] == "dbrx":
        data["attn_config"]["clip_qkv"] = 8
    if data["model_type"] == "longcat_flash":  # its experts' forward squeezes away a top-1 routing (it routes to 12)
        data["moe_topk"] = 2
    if data["model_type"] == "gptj":
        data["rotary_dim"] = min(data.get("rotary_dim") or 0, data["n_embd"] // data["n_head"]) or None


@pytest.mark.slow
@pytest.mark.parametrize("model_type", KV_TYPES)
def test_kv_cache_bytes_equal_transformers_dynamic_cache(model_type, tmp_path):
    rng = random.Random(f"kv-{model_type}")
    for index in range(3):
        if "kv_lora_rank" in generated_config(model_type, random.Random(0)):  # an MLA type
            data = generated_config(model_type, rng)
            data.update(MLA, num_key_value_heads=data["num_attention_heads"])
        else:
            data = buildable_case(model_type, rng)[0]
        for key in ("max_position_embeddings", "n_positions", "max_seq_len"):
            if key in data:
                data[key] = 128
        _runnable(data)
        path = tmp_path / f"{index}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        spec = load_hf_config(path)
        torch.manual_seed(0)
        model = built_model(data, device="cpu").eval()
        cache = transformers.DynamicCache(config=model.config)
        ids = torch.randint(2, spec.vocab, (1, SEQ_LEN))
        with torch.no_grad():
            model(input_ids=ids, past_key_values=cache, use_cache=True)
        held = sum(
            t.numel() * t.element_size()
            for layer in cache.layers
            # DeepSeek Sparse Attention layers (DynamicIndexedLayer) also keep their indexer's keys
            for t in (
                getattr(layer, "keys", None),
                getattr(layer, "values", None),
                getattr(layer, "indexer_keys", None),
            )
            if isinstance(t, torch.Tensor)
        )
        ours = kv_cache_bytes_per_sequence(spec, SEQ_LEN, 4)  # fp32 on CPU
        assert ours == pytest.approx(held, rel=0.02), json.dumps(data)


@pytest.mark.slow
@pytest.mark.parametrize(
    "layout", ({}, {"index_topk_pattern": "FSSF"}, {"index_topk_freq": 2, "index_skip_topk_offset": 1})
)
def test_dsa_indexer_layers_as_glm_moe_dsa_lays_them_out(layout, tmp_path):
    """glm_moe_dsa without indexer_types: its configuration class's pattern or frequency rule decides which layers
    run an indexer; parameters and the cache (indexer keys of those layers only) as transformers has them."""
    data = {key: value for key, value in generated_config("glm_moe_dsa", random.Random(1)).items()
            if key not in ("indexer_types", "layer_types", "mlp_layer_types")}  # fmt: skip
    data.update(MLA, num_hidden_layers=4, max_position_embeddings=128, **layout)
    data["num_key_value_heads"] = data["num_attention_heads"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    spec = load_hf_config(path)
    model = built_model(data, device="cpu").eval()
    assert spec.total_params == sum(p.numel() for p in model.parameters())
    cache = transformers.DynamicCache(config=model.config)
    with torch.no_grad():
        model(input_ids=torch.randint(2, spec.vocab, (1, SEQ_LEN)), past_key_values=cache, use_cache=True)
    indexed = sum(1 for layer in cache.layers if getattr(layer, "indexer_keys", None) is not None)
    assert len(spec.shared_index_layers) == 4 - indexed
    assert indexed < 4 if layout else indexed == 4  # the pattern and the rule leave some layers without one
    held = sum(t.numel() * t.element_size() for layer in cache.layers
               for t in (layer.keys, layer.values, getattr(layer, "indexer_keys", None)) if isinstance(t, torch.Tensor))  # fmt: skip
    assert kv_cache_bytes_per_sequence(spec, SEQ_LEN, 4) == held
