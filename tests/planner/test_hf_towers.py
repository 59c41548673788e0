"""The vision tower size of multimodal wrappers (planner/models/hf_towers.py) against transformers itself: the
whole wrapper model built on the meta device, less its text decoder and LM head, on small random configs of the
tower and projector keys; and Gemma 3's published vision encoder size."""

from __future__ import annotations

import json
import random

import pytest

from planner.models import load_hf_config

transformers = pytest.importorskip("transformers", reason="needs the trace extra (installed by `make test`)")
torch = pytest.importorskip("torch")

TEXT = {"hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 8, "vocab_size": 300}  # fmt: skip


def _vision(rng: random.Random, wrapper: str) -> dict[str, object]:
    vision = {"hidden_size": rng.choice([16, 32]), "intermediate_size": rng.choice([24, 40]),
              "num_hidden_layers": rng.choice([1, 2]), "num_attention_heads": 2, "patch_size": rng.choice([2, 4]),
              "image_size": rng.choice([16, 32]), "num_channels": rng.choice([1, 3])}  # fmt: skip
    if wrapper == "gemma3" and rng.random() < 0.5:
        vision["vision_use_head"] = rng.random() < 0.5
    if wrapper == "mistral3":
        vision["head_dim"] = vision["hidden_size"] // 2
    if wrapper == "llama4":
        vision.update(vision_output_dim=rng.choice([24, 40]), projector_input_dim=rng.choice([16, 32]),
                      projector_output_dim=rng.choice([8, 24]), pixel_shuffle_ratio=0.5)  # fmt: skip
    if wrapper.startswith("qwen3_5"):
        vision.update(depth=rng.choice([1, 2]), num_heads=2, in_channels=rng.choice([1, 3]),
                      temporal_patch_size=rng.choice([1, 2]), spatial_merge_size=rng.choice([1, 2]),
                      out_hidden_size=rng.choice([24, 40]), num_position_embeddings=rng.choice([16, 64]))  # fmt: skip
    return vision


def _wrapper(rng: random.Random, wrapper: str) -> dict[str, object]:
    data: dict[str, object] = {
        "model_type": wrapper,
        "text_config": dict(TEXT),
        "vision_config": _vision(rng, wrapper),
    }
    if wrapper == "gemma3":
        data["mm_tokens_per_image"] = 4
    elif wrapper == "llama4":
        data["text_config"] = {**TEXT, "num_local_experts": 2, "intermediate_size_mlp": 40}
    elif wrapper.startswith("qwen3_5"):  # a gated delta-net layer and an attention layer
        data["text_config"] = {**TEXT, "layer_types": ["linear_attention", "full_attention"], "num_experts": 2, "num_experts_per_tok": 1,
                               "moe_intermediate_size": 16, "shared_expert_intermediate_size": 16,
                               "linear_num_key_heads": 2, "linear_num_value_heads": 2, "linear_key_head_dim": 8,
                               "linear_value_head_dim": 8}  # fmt: skip
    else:
        data.update(spatial_merge_size=rng.choice([1, 2]), multimodal_projector_bias=rng.random() < 0.5,
                    vision_feature_layer=rng.choice([-1, [-1, -2]]))  # fmt: skip
    return data


def _transformers_tower(data: dict[str, object]) -> int:
    config = transformers.AutoConfig.for_model(**data)
    with torch.device("meta"):
        model = transformers.AutoModelForImageTextToText.from_config(config)
    text = sum(
        p.numel() for name, p in model.named_parameters() if "language_model" in name or "lm_head" in name
    )
    return sum(p.numel() for p in model.parameters()) - text


@pytest.mark.slow
@pytest.mark.parametrize("wrapper", ["gemma3", "mistral3", "llama4", "qwen3_5", "qwen3_5_moe"])
def test_tower_size_equals_transformers(wrapper, tmp_path):
    rng = random.Random(f"towers-{wrapper}")
    for index in range(6):
        data = _wrapper(rng, wrapper)
        path = tmp_path / f"{index}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        assert load_hf_config(path).tower_params == _transformers_tower(data), json.dumps(data)


def test_gemma3_vision_encoder_has_its_published_size(tmp_path):
    from tests.planner.gemma3_config import GEMMA3_4B_PROJECTOR, write_gemma3_4b

    encoder = load_hf_config(write_gemma3_4b(tmp_path)).tower_params - GEMMA3_4B_PROJECTOR
    assert round(encoder / 1e6) == 417  # the Gemma 3 report's vision encoder (arXiv 2503.19786, Table 1)


def test_llama4_scout_has_its_published_size(tmp_path):
    """meta-llama/Llama-4-Scout-17B-16E config.json (Hugging Face, 2025-04-05), the keys that size it; Meta's model
    card: 17B active and 109B total parameters, the vision encoder included."""
    text = {"model_type": "llama4_text", "hidden_size": 5120, "intermediate_size": 8192,
            "intermediate_size_mlp": 16384, "num_hidden_layers": 48, "num_attention_heads": 40,
            "num_key_value_heads": 8, "head_dim": 128, "num_local_experts": 16, "num_experts_per_tok": 1,
            "interleave_moe_layer_step": 1, "vocab_size": 202048, "attention_chunk_size": 8192,
            "tie_word_embeddings": False}  # fmt: skip
    vision = {"model_type": "llama4_vision_model", "hidden_size": 1408, "intermediate_size": 5632,
              "num_hidden_layers": 34, "num_attention_heads": 16, "image_size": 336, "patch_size": 14,
              "vision_output_dim": 4096, "projector_input_dim": 4096, "projector_output_dim": 4096,
              "pixel_shuffle_ratio": 0.5}  # fmt: skip
    path = tmp_path / "config.json"
    path.write_text(
        json.dumps({"model_type": "llama4", "text_config": text, "vision_config": vision}), "utf-8"
    )
    spec = load_hf_config(path)
    assert round((spec.total_params + spec.tower_params) / 1e9) == 109
    assert round(spec.active_params / 1e9) == 17
