"""The recurrent state of the state-space layers (and the KV cache of the attention layers beside them) against
what transformers' DynamicCache holds after a real forward of tiny models on CPU: each state-space layer keeps a
convolution state and an SSM state of fixed size (LinearAttentionLayer's conv_states and recurrent_states), the
same after 24 tokens as after 40, and each attention layer every token (planner/models/kv_cache.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from planner.models import load_hf_config
from planner.models.kv_cache import kv_cache_bytes_per_sequence, state_bytes_per_sequence

transformers = pytest.importorskip("transformers", reason="needs the trace extra (installed by `make test`)")
torch = pytest.importorskip("torch")

from tests.planner.hf_generated import built_model, generated_config  # noqa: E402

STATE_TYPES = (
    "mamba",
    "falcon_mamba",
    "mamba2",
    "jamba",
    "bamba",
    "granitemoehybrid",
    "qwen3_next",
    "qwen3_5_text",
    "qwen3_5_moe_text",
    "lfm2",
    "lfm2_moe",
    "minimax",
    "falcon_h1",
    "nemotron_h",
)
# layer_types that mix both kinds, attention on layer 1 (GraniteMoeHybrid's, the gated delta-net and LFM2 types')
LISTED_KINDS = {
    "granitemoehybrid": ("attention", "mamba"),
    "qwen3_next": ("full_attention", "linear_attention"),
    "qwen3_5_text": ("full_attention", "linear_attention"),
    "qwen3_5_moe_text": ("full_attention", "linear_attention"),
    "lfm2": ("full_attention", "conv"),
    "lfm2_moe": ("full_attention", "conv"),
}
# Where a generated config could leave one kind out, both kinds are set: Jamba attends on odd layers, Bamba and
# GraniteMoeHybrid on layer 1 (transformers' Bamba cannot build a mask for a stack without attention).
BOTH_KINDS = {
    "jamba": {"attn_layer_period": 2, "attn_layer_offset": 1},
    "bamba": {"attn_layer_indices": [1]},
    # Nemotron-H: a Mamba, an attention, an MoE-only and an MLP-only layer
    "nemotron_h": {"layers_block_type": ["linear_attention", "full_attention", "moe", "mlp"]},
}


def _held_bytes(cache) -> tuple[int, int]:
    """(KV bytes, state bytes) the cache's layers hold."""
    kv = state = 0
    for layer in cache.layers:
        for name in ("keys", "values"):
            tensor = getattr(layer, name, None)
            kv += tensor.numel() * tensor.element_size() if isinstance(tensor, torch.Tensor) else 0
        for name in ("conv_states", "recurrent_states"):
            for tensor in (getattr(layer, name, None) or {}).values():
                state += tensor.numel() * tensor.element_size() if isinstance(tensor, torch.Tensor) else 0
    for tensor in getattr(cache, "linear_cache", []):  # MiniMaxCache: one K^T V matrix per lightning layer
        state += tensor.numel() * tensor.element_size() if isinstance(tensor, torch.Tensor) else 0
    return kv, state


def _read_and_built(data: dict, path: Path):
    """The reader's spec of config `data` (written to `path`) and transformers' model built from it on the CPU,
    after checking that they count the same parameters."""
    path.write_text(json.dumps(data), encoding="utf-8")
    spec = load_hf_config(path)
    torch.manual_seed(0)
    model = built_model(data, device="cpu").eval()
    assert spec.total_params == sum(p.numel() for p in model.parameters()), json.dumps(data)
    return spec, model


@pytest.mark.slow
@pytest.mark.parametrize("model_type", STATE_TYPES)
def test_state_and_kv_bytes_equal_transformers_cache(model_type, tmp_path):
    rng = random.Random(f"state-{model_type}")
    for index in range(3):
        data = {**generated_config(model_type, rng), **BOTH_KINDS.get(model_type, {})}
        data["num_hidden_layers"] = max(2, data.get("num_hidden_layers", 2))
        if model_type in LISTED_KINDS:
            attention, state = LISTED_KINDS[model_type]
            data["layer_types"] = [attention if i == 1 else state for i in range(data["num_hidden_layers"])]
        if model_type == "minimax":  # its default alternation (full, lightning, ...) read without the list
            del data["layer_types"]
        spec, model = _read_and_built(data, tmp_path / f"{index}.json")
        for seq_len in (24, 40):
            cache = None if model_type == "minimax" else transformers.DynamicCache(config=model.config)
            with torch.no_grad():
                out = model(input_ids=torch.randint(2, spec.vocab, (1, seq_len)), past_key_values=cache)
            kv, state = _held_bytes(getattr(out, "cache_params", None) or out.past_key_values)
            assert state > 0, json.dumps(data)
            assert state_bytes_per_sequence(spec, 4) == state, json.dumps(data)  # fp32 on CPU
            assert kv_cache_bytes_per_sequence(spec, seq_len, 4) == kv, json.dumps(data)


@pytest.mark.slow
def test_recurrent_gemma_state_and_window_equal_transformers(tmp_path):
    """RecurrentGemma (Griffin): each recurrent layer keeps its conv's last conv1d_width - 1 inputs and the RG-LRU
    state on the module (conv1d_state, rg_lru.recurrent_states), lru_width values each, the same after 24 tokens
    as after 40; each local-attention layer its window - 1 tokens in the DynamicCache."""
    rng = random.Random("state-recurrent_gemma")
    for index in range(3):
        data = generated_config("recurrent_gemma", rng)
        data.update(num_hidden_layers=4, block_types=["recurrent", "attention"])
        spec, model = _read_and_built(data, tmp_path / f"{index}.json")
        for seq_len in (24, 40):
            cache = transformers.DynamicCache(config=model.config)
            with torch.no_grad():
                model(
                    input_ids=torch.randint(2, spec.vocab, (1, seq_len)),
                    past_key_values=cache,
                    use_cache=True,
                )
            kv = _held_bytes(cache)[0]
            blocks = [layer.temporal_block for layer in model.model.layers]
            state = sum(t.numel() * t.element_size() for b in blocks if hasattr(b, "rg_lru")
                        for t in (b.conv1d_state, b.rg_lru.recurrent_states))  # fmt: skip
            assert state > 0 and state_bytes_per_sequence(spec, 4) == state, json.dumps(data)  # fp32 on CPU
            assert kv_cache_bytes_per_sequence(spec, seq_len, 4) == kv, json.dumps(data)


@pytest.mark.slow
@pytest.mark.parametrize("model_type", ("jamba", "granitemoehybrid", "qwen3_next", "falcon_h1", "nemotron_h"))
def test_lora_adapters_on_a_hybrid_equal_peft(model_type, tmp_path):
    """LoRA on q, k, v, o adapts only the attending layers: a Mamba or delta-net mixer has no such modules
    (qwen3_next's q_proj is twice as wide: it also yields the output gate), nor an MLP-only or MoE-only layer
    (nemotron_h)."""
    peft = pytest.importorskip("peft")
    from planner.memory import MemoryConfig, estimate_memory

    data = {
        **generated_config(model_type, random.Random(f"lora-{model_type}")),
        **BOTH_KINDS.get(model_type, {}),
    }
    data["num_hidden_layers"] = 4
    if model_type in LISTED_KINDS:
        attention, state = LISTED_KINDS[model_type]
        data["layer_types"] = [state, attention, state, state]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    spec = load_hf_config(path)
    lora = peft.LoraConfig(r=8, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"])
    trainable = sum(
        p.numel() for p in peft.get_peft_model(built_model(data), lora).parameters() if p.requires_grad
    )
    gradients = estimate_memory(
        spec, MemoryConfig(task="lora", lora_rank=8, precision="bf16")
    ).gradients.bytes
    assert gradients == 4 * trainable  # fp32 adapter gradients, 4 bytes per trainable parameter
