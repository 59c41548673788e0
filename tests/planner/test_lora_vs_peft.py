"""LoRA trainable parameters against peft itself: tiny models of each architecture built by transformers, wrapped
by peft's get_peft_model on the real module names of q, k, v, o, gate, up, down (read from each type's
transformers modeling file; a fused projection is one module for all of its targets), must have exactly as many
trainable parameters as the memory model's adapter count."""

from __future__ import annotations

import json
import random

import pytest

from planner.memory.stages import lora_params_per_layer
from planner.models import load_hf_config

transformers = pytest.importorskip("transformers", reason="needs the trace extra (installed by `make test`)")
peft = pytest.importorskip("peft")
torch = pytest.importorskip("torch")

from tests.planner.hf_generated import buildable_case, built_model  # noqa: E402

RANK = 4
# target -> the module-name suffixes peft matches (its target_modules), per model type
LLAMA = {"q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "o_proj", "gate": "gate_proj", "up": "up_proj",
         "down": "down_proj"}  # fmt: skip
MODULES: dict[str, dict[str, str]] = {
    "llama": LLAMA,
    "qwen2": LLAMA,
    "phi3": {"q": "qkv_proj", "k": "qkv_proj", "v": "qkv_proj", "o": "o_proj", "gate": "gate_up_proj",
             "up": "gate_up_proj", "down": "down_proj"},
    "gpt2": {"q": "attn.c_attn", "k": "attn.c_attn", "v": "attn.c_attn", "o": "attn.c_proj", "up": "mlp.c_fc",
             "down": "mlp.c_proj"},
    "gpt_neox": {"q": "query_key_value", "k": "query_key_value", "v": "query_key_value", "o": "attention.dense",
                 "up": "dense_h_to_4h", "down": "dense_4h_to_h"},
    "falcon": {"q": "query_key_value", "k": "query_key_value", "v": "query_key_value",
               "o": "self_attention.dense", "up": "dense_h_to_4h", "down": "dense_4h_to_h"},
    "bloom": {"q": "query_key_value", "k": "query_key_value", "v": "query_key_value",
              "o": "self_attention.dense", "up": "dense_h_to_4h", "down": "dense_4h_to_h"},
    "opt": {"q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "out_proj", "up": "fc1", "down": "fc2"},
    "phi": {"q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "self_attn.dense", "up": "fc1", "down": "fc2"},
    "gpt_bigcode": {"q": "attn.c_attn", "k": "attn.c_attn", "v": "attn.c_attn", "o": "attn.c_proj",
                    "up": "mlp.c_fc", "down": "mlp.c_proj"},
    "codegen": {"q": "qkv_proj", "k": "qkv_proj", "v": "qkv_proj", "o": "out_proj", "up": "fc_in",
                "down": "fc_out"},
    "mpt": {"q": "Wqkv", "k": "Wqkv", "v": "Wqkv", "o": "out_proj", "up": "up_proj", "down": "down_proj"},
    # MLA's projections; MLP targets are left out: peft 0.21 rewrites gate/up/down of an MoE type into its fused
    # experts' parameters (transformers_weight_conversion), so it adapts no dense-layer MLP of deepseek_v3
    "deepseek_v3": {"q": "q_a_proj|q_b_proj|q_proj", "k": "kv_a_proj_with_mqa", "v": "kv_b_proj", "o": "o_proj"},
}  # fmt: skip
TARGET_SETS = (("q", "k", "v", "o"), ("q", "v"), ("k", "o"), ("q", "k", "v", "o", "gate", "up", "down"), ("up",))


def _peft_trainable(data, names):
    model = built_model(data, device="cpu")
    config = peft.LoraConfig(r=RANK, lora_alpha=2 * RANK, target_modules=sorted(names), bias="none")
    wrapped = peft.get_peft_model(model, config)
    return sum(p.numel() for p in wrapped.parameters() if p.requires_grad)


@pytest.mark.slow
@pytest.mark.parametrize("model_type", sorted(MODULES))
def test_lora_trainable_parameters_equal_peft(model_type, tmp_path):
    rng = random.Random(f"lora-{model_type}")
    for index in range(2):
        data = buildable_case(model_type, rng)[0]
        if model_type == "deepseek_v3":
            data.update(n_routed_experts=2, first_k_dense_replace=data["num_hidden_layers"])  # dense layers only
        path = tmp_path / f"{index}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        spec = load_hf_config(path)
        assert not spec.is_moe
        for targets in TARGET_SETS:
            names = {part for t in targets if t in MODULES[model_type] for part in MODULES[model_type][t].split("|")}
            if not names or not set(targets) <= set(MODULES[model_type]) | {"gate"}:
                continue  # a target the type has no module for (an ungated MLP's gate is simply absent)
            dense_layer = lora_params_per_layer(spec, RANK, targets)[0]
            assert spec.layers * dense_layer == _peft_trainable(data, names), (targets, json.dumps(data))
