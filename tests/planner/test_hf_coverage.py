"""The config.json reader against transformers itself: every model type it reads, on generated configs (small
random variants of each configuration class, re-saved by transformers, whole and trimmed to the keys that differ
from the class's defaults), must give exactly the parameter count of AutoModelForCausalLM.from_config on the meta
device; the shipped defaults must be the installed transformers' own; and every causal-LM type transformers ships
must be either read or refused on purpose, so that a new one fails here instead of passing silently."""

from __future__ import annotations

import json
import random

import pytest

from planner.models import load_hf_config
from planner.models.hf_types import READ_TYPES, WRAPPERS

transformers = pytest.importorskip("transformers", reason="needs the trace extra (installed by `make test`)")
pytest.importorskip("torch")

from tests.planner.hf_generated import buildable_case  # noqa: E402

CONFIGS_PER_TYPE = 8


@pytest.mark.slow
@pytest.mark.parametrize("model_type", READ_TYPES)
def test_parameter_count_equals_transformers(model_type, tmp_path):
    rng = random.Random(f"hf-coverage-{model_type}")
    for index in range(CONFIGS_PER_TYPE):
        data, params = buildable_case(model_type, rng, trimmed=index % 2 == 1)
        path = tmp_path / f"{index}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        assert load_hf_config(path).total_params == params, json.dumps(data)


def test_shipped_defaults_are_the_installed_transformers():
    from tools.gen_hf_defaults import generate

    shipped = json.loads(
        __import__("importlib.resources")
        .resources.files("planner.catalog")
        .joinpath("hf_config_defaults.json")
        .read_text(encoding="utf-8")
    )
    assert shipped == json.loads(json.dumps(generate())), "run: .venv/bin/python tools/gen_hf_defaults.py"


def test_every_causal_lm_type_is_read_or_known_unread():
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    from tests.planner.hf_unread import UNREAD_TYPES

    shipped = set(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES)
    known = set(READ_TYPES) | set(WRAPPERS) | set(UNREAD_TYPES)
    assert not shipped - known, (
        f"causal-LM types transformers added that the reader does not know: {sorted(shipped - known)}"
    )


def test_unread_type_is_refused_by_name(tmp_path):
    from planner.errors import UserError

    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "rwkv", "hidden_size": 64}), encoding="utf-8")
    with pytest.raises(UserError, match="rwkv"):
        load_hf_config(path)


def test_remote_code_is_refused_with_the_reason(tmp_path):
    from planner.errors import UserError

    path = tmp_path / "config.json"
    path.write_text(
        json.dumps({"model_type": "llama", "auto_map": {"AutoModelForCausalLM": "x.Y"}}), encoding="utf-8"
    )
    with pytest.raises(UserError, match="auto_map"):
        load_hf_config(path)


def test_bloom_560m_has_its_published_parameter_count(tmp_path):
    # bigscience/bloom-560m config.json (hidden_size 1024, n_layer 24, n_head 16, vocab 250880); its model card
    # (huggingface.co/bigscience/bloom-560m, "Model Architecture and Objective") states 559,214,592 parameters
    path = tmp_path / "config.json"
    config = {"model_type": "bloom", "hidden_size": 1024, "n_layer": 24, "n_head": 16, "vocab_size": 250880}
    path.write_text(json.dumps(config), encoding="utf-8")
    spec = load_hf_config(path)
    assert spec.total_params == 559_214_592
    assert not spec.rotary and spec.max_context == 2048  # ALiBi, held to its trained length


def test_dbrx_has_its_published_parameter_counts(tmp_path):
    # databricks/dbrx-base config.json (d_model 6144, 48 heads, 40 layers, 8 KV heads, 16 experts of 10752, top 4,
    # vocab 100352); Databricks' announcement ("Introducing DBRX", 2024-03-27) states 132B total and 36B active
    path = tmp_path / "config.json"
    config = {"model_type": "dbrx", "d_model": 6144, "n_heads": 48, "n_layers": 40, "max_seq_len": 32768,
              "vocab_size": 100352, "attn_config": {"kv_n_heads": 8, "clip_qkv": 8, "rope_theta": 500000},
              "ffn_config": {"ffn_hidden_size": 10752, "moe_num_experts": 16, "moe_top_k": 4}}  # fmt: skip
    path.write_text(json.dumps(config), encoding="utf-8")
    spec = load_hf_config(path)
    assert round(spec.total_params / 1e9) == 132 and round(spec.active_params / 1e9) == 36
    assert spec.kv_heads == 8 and spec.max_context == 32768


def test_nested_config_that_is_not_an_object_is_refused(tmp_path):
    from planner.errors import UserError

    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "dbrx", "ffn_config": [1, 2]}), encoding="utf-8")
    with pytest.raises(UserError, match="ffn_config"):
        load_hf_config(path)


def test_longcat_flash_has_its_published_parameter_count(tmp_path):
    # LongCat-Flash's shape (LongcatFlashConfig's defaults: 28 layers of two MLA sublayers, hidden 6144, 512 experts
    # of 2048 and 256 zero-compute experts, top 12, vocab 131072); the LongCat-Flash Technical Report (Meituan,
    # arXiv 2509.01322) states 560B total parameters. transformers 5.22 also allocates gate_up_proj rows for the
    # zero-compute experts (741B as built), which the checkpoint does not hold.
    path = tmp_path / "config.json"
    config = {"model_type": "longcat_flash", "hidden_size": 6144, "num_layers": 28, "num_attention_heads": 64,
              "ffn_hidden_size": 12288, "expert_ffn_hidden_size": 2048, "n_routed_experts": 512,
              "zero_expert_num": 256, "moe_topk": 12, "q_lora_rank": 1536, "kv_lora_rank": 512,
              "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "vocab_size": 131072}  # fmt: skip
    path.write_text(json.dumps(config), encoding="utf-8")
    spec = load_hf_config(path)
    assert abs(spec.total_params / 1e9 - 560) < 1  # 560.66B
    assert spec.layers == 56 and spec.kv_bytes_per_token(2) == 56 * (512 + 64) * 2  # two MLA caches a layer
