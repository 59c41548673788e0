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
    assert kv / 2**30 == pytest.approx(
        4.0
    )  # the paper's "4GB": 4 layers x 262,144 tokens x 2 x 8 x 128 x 2 B
    # each Mamba layer: conv (8192 channels x 4) + SSM (8192 x 16) values, the same at any context
    assert state_bytes_per_sequence(spec, 2) == 28 * (8192 * 4 + 8192 * 16) * 2


def _read(tmp_path, data, name="config.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return load_hf_config(path)


def test_jamba_time_model_sees_mamba_mixers_and_four_attending_layers(tmp_path):
    from planner.perf.compute import layer_shape
    from planner.perf.flops import model_numbers

    spec = _read(tmp_path, JAMBA_V01)
    shape = layer_shape(spec, 1)
    attention = 4096 * 4096 * 2 + 2 * 4096 * 1024  # q, o + k, v (8 KV heads x 128)
    # one Mamba mixer by hand: in_proj, conv1d (+ bias), x_proj, dt_proj (+ bias), A_log, D, out_proj, dt/B/C norms
    mamba = 4096 * 16384 + 8192 * 5 + 8192 * 288 + 256 * 8192 + 8192 + 8192 * 16 + 8192 + 8192 * 4096 + 288
    assert 32 * (shape.attn_in + shape.attn_out) == pytest.approx(4 * attention + 28 * mamba)
    assert shape.q_width == 4096 * 4 / 32  # attention FLOPs on 4 layers of 32
    assert model_numbers(spec).attention_width == 4096 * 4 // 32
    assert 32 * shape.state_elements_per_sequence_layer == 28 * (8192 * 4 + 8192 * 16)


def test_a_state_space_decode_step_reads_the_same_bytes_at_any_context(tmp_path):
    from planner.gpus import get_gpu
    from planner.perf import Replica, device_rates
    from planner.perf.serving import decode_attention_seconds, kv_bytes_read

    # state-spaces/mamba-2.8b-hf: 64 layers of hidden 2560, state 16, conv 4, expand 2
    mamba = {"model_type": "mamba", "hidden_size": 2560, "num_hidden_layers": 64, "vocab_size": 50280,
             "state_size": 16, "conv_kernel": 4, "expand": 2}  # fmt: skip
    gpu = get_gpu("h100-sxm")
    rates = device_rates(gpu, "bf16")
    replica = Replica(model=_read(tmp_path, mamba), gpu=gpu, rates=rates)
    short, long = (decode_attention_seconds(replica, 64, 64 * context) for context in (1024, 131072))
    assert short == long > 0  # 64 sequences' states, read and written back, whatever their length
    # conv (5120 x 4) + SSM (5120 x 16) states of 64 layers at 2 bytes, read and written back, 64 sequences
    assert kv_bytes_read(replica, 64, 64 * 131072) == 2 * 64 * 64 * (5120 * 4 + 5120 * 16) * 2
    all_attention = _read(tmp_path, {**JAMBA_V01, "attn_layer_period": 1, "attn_layer_offset": 0},
                          "all_attention.json")  # fmt: skip
    attention = Replica(model=all_attention, gpu=gpu, rates=rates)
    assert decode_attention_seconds(attention, 64, 64 * 131072) > 100 * long


# Qwen/Qwen3-Next-80B-A3B-Instruct config.json (Hugging Face, 2025-09-11), the keys that size the model.
QWEN3_NEXT_80B = {
    "model_type": "qwen3_next", "hidden_size": 2048, "intermediate_size": 5120, "num_hidden_layers": 48,
    "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256, "vocab_size": 151936,
    "max_position_embeddings": 262144, "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128,
    "linear_value_head_dim": 128, "linear_num_key_heads": 16, "linear_num_value_heads": 32, "num_experts": 512,
    "num_experts_per_tok": 10, "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512,
    "decoder_sparse_step": 1, "full_attention_interval": 4, "tie_word_embeddings": False, "mlp_only_layers": [],
}  # fmt: skip


def test_qwen3_next_80b_counts_and_state_match_its_model_card(tmp_path):
    """The model card: "80B in total and 3B activated"; layout 12 x (3 x (Gated DeltaNet -> MoE) -> 1 x (Gated
    Attention -> MoE)); gated delta-net 32 value heads and 16 query/key heads of 128; gated attention 16 query
    and 2 KV heads of 256."""
    spec = _read(tmp_path, QWEN3_NEXT_80B)
    assert round(spec.total_params / 1e9) == 80
    embeddings = 2 * 151936 * 2048  # untied embedding and LM head, left out of the card's activated figure
    assert round((spec.active_params - embeddings) / 1e9) == 3
    assert spec.layer_types == ("state", "state", "state", "full") * 12
    # 12 attending layers x 262,144 tokens x K and V x 2 heads x 256 x 2 bytes = 6 GiB
    assert kv_cache_bytes_per_sequence(spec, 256 * 1024, 2) / 2**30 == pytest.approx(6.0)
    # each delta-net layer: conv over q, k, v (2 x 16 x 128 + 32 x 128 channels x 4) + 32 heads x 128 x 128
    assert state_bytes_per_sequence(spec, 2) == 36 * ((2 * 16 * 128 + 32 * 128) * 4 + 32 * 128 * 128) * 2


def _lfm2(hidden: int, heads: int, block_ff_dim: int) -> dict[str, object]:
    """LiquidAI/LFM2-350M and LFM2-1.2B config.json (Hugging Face, 2025-07-10): 16 layers, attention on layers
    2, 5, 8, 10, 12 and 14 and short convolutions (3 taps) on the other 10, the MLP width derived from
    block_ff_dim, the old key names tie_embedding and block_ff_dim."""
    return {"model_type": "lfm2", "hidden_size": hidden, "num_hidden_layers": 16, "num_attention_heads": heads,
            "num_key_value_heads": 8, "block_ff_dim": block_ff_dim, "block_ffn_dim_multiplier": 1.0,
            "block_multiple_of": 256, "block_auto_adjust_ff_dim": True, "conv_L_cache": 3, "vocab_size": 65536,
            "tie_embedding": True, "max_position_embeddings": 128000,
            "layer_types": ["full_attention" if i in (2, 5, 8, 10, 12, 14) else "conv" for i in range(16)]}  # fmt: skip


@pytest.mark.parametrize(("hidden", "heads", "block_ff_dim", "published"), [
    (1024, 16, 6656, 354_483_968),  # LFM2-350M model card: "Parameters 354,483,968"
    (2048, 32, 12288, 1_170_340_608),  # LFM2-1.2B model card: "Parameters 1,170,340,608"
])  # fmt: skip
def test_lfm2_counts_match_the_model_cards_exactly(tmp_path, hidden, heads, block_ff_dim, published):
    spec = _read(tmp_path, _lfm2(hidden, heads, block_ff_dim))
    assert spec.total_params == published
    assert spec.ffn == 256 * -(-int(2 * block_ff_dim / 3) // 256)  # 2/3 of block_ff_dim, whole 256s
    # a conv layer keeps its last 3 inputs (hidden channels); 6 attention layers keep K and V of every token
    assert state_bytes_per_sequence(spec, 2) == 10 * hidden * 3 * 2
    assert kv_cache_bytes_per_sequence(spec, 4096, 2) == 6 * 4096 * 2 * 8 * (hidden // heads) * 2


def test_a_multiplier_that_is_no_number_is_one_clear_error(tmp_path):
    from planner.errors import UserError

    for bad in ("1.5", float("nan"), -1.0, True, 1e308):
        with pytest.raises(UserError, match="block_ffn_dim_multiplier"):
            _read(tmp_path, {**_lfm2(1024, 16, 6656), "block_ffn_dim_multiplier": bad})


def test_minimax_text_01_counts_match_its_model_card(tmp_path):
    """MiniMaxAI/MiniMax-Text-01 model card (Hugging Face, 2025-01-15): 456B parameters, 45.9B activated per
    token; 80 layers, a softmax attention after every 7 lightning attentions; 64 heads of 128; 32 experts of
    9216, top 2; hidden 6144; vocabulary 200,064."""
    data = {"model_type": "minimax", "hidden_size": 6144, "num_hidden_layers": 80, "num_attention_heads": 64,
            "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 9216, "num_local_experts": 32,
            "num_experts_per_tok": 2, "vocab_size": 200064, "max_position_embeddings": 10240000,
            "layer_types": ["full_attention" if (i + 1) % 8 == 0 else "linear_attention" for i in range(80)]}  # fmt: skip
    spec = _read(tmp_path, data)
    assert round(spec.total_params / 1e9) == 456
    embeddings = 2 * 200064 * 6144  # untied embedding and LM head, outside the card's activated figure
    assert round((spec.active_params - embeddings) / 1e9, 1) == 45.9
    # 70 lightning layers keep one 128 x 128 matrix per head, whatever the context; 10 layers a KV cache
    assert state_bytes_per_sequence(spec, 2) == 70 * 64 * 128 * 128 * 2
    assert kv_cache_bytes_per_sequence(spec, 1_000_000, 2) == 10 * 1_000_000 * 2 * 8 * 128 * 2


MAMBA_2_8B = {"model_type": "mamba", "hidden_size": 2560, "num_hidden_layers": 64, "vocab_size": 50280,
              "state_size": 16, "conv_kernel": 4, "expand": 2}  # state-spaces/mamba-2.8b-hf  # fmt: skip


def test_a_pure_state_space_model_has_no_context_to_exceed(tmp_path):
    """Mamba has no positions (its config has no max_position_embeddings): a long sequence is no warning, while
    Jamba's file states a context of 262,144 tokens and a longer sequence is."""
    from planner.memory import MemoryConfig, estimate_memory

    def beyond_context(spec, seq_len):
        notes = estimate_memory(
            spec, MemoryConfig(task="inference", seq_len=seq_len, precision="bf16")
        ).note_messages
        return any(note.code == "memory.seq_beyond_context" for note in notes)

    mamba = _read(tmp_path, MAMBA_2_8B, "mamba.json")
    assert not beyond_context(mamba, 1_000_000)
    jamba = _read(tmp_path, JAMBA_V01)
    assert beyond_context(jamba, 262_145) and not beyond_context(jamba, 262_144)
