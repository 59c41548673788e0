"""A hybrid attention / state-space model read from its published config.json against the figures its authors
publish: Jamba v0.1 (AI21, arXiv 2403.19887): 52B parameters in all, 12B active, and a KV cache of 4GB at a
256K-token context in 16 bit (Table 1), since only 4 of its 32 layers attend; the 28 Mamba layers keep a state
of fixed size instead."""

from __future__ import annotations

import json

import pytest

from planner.models import load_hf_config
from planner.models.kv_cache import kv_cache_bytes_per_sequence, state_bytes_per_sequence

# ai21labs/Jamba-v0.1 config.json (Hugging Face, 2024-03-28), the keys that size the model.
JAMBA_V01 = {
    "model_type": "jamba", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 65536, "num_experts": 16,
    "num_experts_per_tok": 2, "attn_layer_period": 8, "attn_layer_offset": 4, "expert_layer_period": 2,
    "expert_layer_offset": 1, "mamba_d_state": 16, "mamba_d_conv": 4, "mamba_expand": 2, "mamba_dt_rank": 256,
    "mamba_conv_bias": True, "mamba_proj_bias": False, "max_position_embeddings": 262144,
    "tie_word_embeddings": False,
}  # fmt: skip


def test_jamba_v01_counts_and_kv_cache_match_the_paper(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(JAMBA_V01), encoding="utf-8")
    spec = load_hf_config(path)
    assert round(spec.total_params / 1e9) == 52
    assert round(spec.active_params / 1e9) == 12
    assert spec.layer_types.count("full") == 4 and spec.layer_types.count("state") == 28
    kv = kv_cache_bytes_per_sequence(spec, 256 * 1024, 2)
    assert kv / 2**30 == pytest.approx(4.0)  # the paper's "4GB": 4 layers x 262,144 tokens x 2 x 8 x 128 x 2 B
    # each Mamba layer: conv (8192 channels x 4) + SSM (8192 x 16) values, the same at any context
    assert state_bytes_per_sequence(spec, 2) == 28 * (8192 * 4 + 8192 * 16) * 2
