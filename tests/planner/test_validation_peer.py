"""AIConfigurator as the serving peer of `gpu-advisor validate` (planner/validation_peer.py): what it is asked
(the case's model, GPU, engine, lengths, precision and our load) and, where it is installed, what it answers."""

from __future__ import annotations

import json

import pytest

from planner.models import get_preset
from planner.perf import SHIPPED
from planner.validation_cases import included, load_cases
from planner.validation_peer import hf_config, peer_request, peer_result, peer_results
from planner.validation_predict import serving_load


def _case(case_id: str):  # type: ignore[no-untyped-def]
    return next(case for case in included(load_cases()) if case.id == case_id)


def test_a_trtllm_case_is_asked_at_its_own_lengths_precision_and_our_load():
    case = _case("trtllm-v017-llama31-70b-h100-fp8-tp2-1000-1000")
    request = peer_request(case)
    assert not isinstance(request, str)
    replica, load = serving_load(case, SHIPPED)
    assert (request.system, request.backend, request.mode, request.tp) == ("h100_sxm", "trtllm", "agg", 2)
    assert (request.isl, request.osl) == (1000, 1000) and request.quant == ("fp8", "fp8", "fp8")
    assert request.batch == load.concurrency > 1 and request.ctx_tokens == replica.limits[1]
    assert request.field == "tokens_per_second"  # the published figure is the TP group's total
    static = peer_request(_case("trtllm-v07a-llama2-70b-h200-fp8-bs960-128-128"))
    assert not isinstance(static, str)
    assert (static.mode, static.batch, static.field) == ("static", 960, "tokens_per_second_per_gpu")
    ttft = peer_request(_case("trtllm-v05-ttft-llama2-7b-a100-fp16-bs1-isl2048"))
    assert not isinstance(ttft, str)
    assert (ttft.field, ttft.scale, ttft.quant[0]) == ("ttft", 1e-3, "bfloat16")  # it reports milliseconds


def test_what_it_does_not_model_is_said_not_guessed():
    assert peer_request(_case("gptfast-llama2-7b-a100-bf16")) == "does not model gpt-fast"
    assert hf_config(get_preset("qwen2.5-7b")) is None  # q/k/v biases: a Llama config would drop them
    assert hf_config(get_preset("deepseek-v3")) is None  # MLA, shared experts, dense first layers


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "published"), [
    ("llama-3.1-8b", 8_030_261_248),  # meta-llama/Llama-3.1-8B safetensors total
    ("mixtral-8x7b", 46_702_792_704),  # mistralai/Mixtral-8x7B-v0.1 safetensors total
])  # fmt: skip
def test_the_config_it_is_given_is_the_model(preset, published):
    """The config.json written for the peer, built by transformers, has the model's published parameter count."""
    transformers = pytest.importorskip("transformers")
    import torch

    config = hf_config(get_preset(preset))
    assert config is not None
    hf = transformers.AutoConfig.for_model(**json.loads(json.dumps(config)))
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(hf)
    assert sum(p.numel() for p in model.parameters()) == published


@pytest.mark.slow
def test_aiconfigurator_answers_a_case_it_models_near_the_published_figure():
    """Where installed: on TensorRT-LLM v0.17's Llama 3.1 8B fp8 H100 128/128 row (28,837 tokens/s) it lands
    within 25 %, at our load."""
    pytest.importorskip("aiconfigurator", reason="the optional peer extra (pip install -e '.[peer]')")
    case = _case("trtllm-v017-llama31-8b-h100-fp8-128-128")
    result = peer_result(case)
    assert result.value is not None and result.value == pytest.approx(28_836.77, rel=0.25)
    assert result.batch == serving_load(case, SHIPPED)[1].concurrency


def test_without_the_package_every_case_says_so(monkeypatch):
    import planner.validation_peer as peer

    monkeypatch.setattr(peer, "installed", lambda: False)
    cases = [_case("trtllm-v017-llama31-8b-h100-fp8-128-128"), _case("gptfast-llama2-7b-a100-bf16")]
    assert {r.reason for r in peer_results(cases).values()} == {"not installed"}


@pytest.mark.slow
def test_the_peer_table_lists_every_serving_case_with_its_peer_or_why_none(monkeypatch, capsys):
    """`python -m planner.cli.validate_peer` (make validate) without the package: every serving case is still listed, ours with its
    in-sample and out-of-sample errors, and the line says how to install the peer."""
    import planner.validation_peer as peer
    from planner import perf
    from planner.cli.validate_peer import peer_json, print_peer
    from planner.validation import validate
    from planner.validation_predict import PRIOR, fit_constants, predict

    monkeypatch.setattr(peer, "installed", lambda: False)
    report = validate(predict, perf.SHIPPED, fit_constants, prior=PRIOR)
    payload = peer_json(report)
    serving = {r.case.id for r in (*report.results, *report.test) if r.case.inputs and r.case.inputs.serving}
    rows = payload["cases"]
    assert isinstance(rows, list) and {row["id"] for row in rows} == serving
    assert all(row["peer"] is None and row["peer_note"] == "not installed" for row in rows)
    assert all(row["out_of_sample_error"] is not None for row in rows)
    print_peer(payload)
    assert "aiconfigurator is not installed (pip install -e '.[peer]')" in capsys.readouterr().out
