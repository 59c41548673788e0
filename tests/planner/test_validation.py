"""The performance model on the shipped published measurements (planner/catalog/validation.json).

The figures asserted here are the targets of issue 15 on real published data: nothing is fitted to a single
case (planner.perf.FittedConstants holds eleven physical constants shared by every case), and the bands are
checked on sources the fit never saw (leave-one-source-out cross-validation).
"""

from __future__ import annotations

import json
from importlib.resources import files

import pytest

from planner import perf
from planner.gpus import get_gpu
from planner.models import get_preset
from planner.validation import predicted_metric, validate
from planner.validation_cases import included, load_cases
from planner.validation_predict import PRIOR, engine_sequences_that_fit, fit_constants, predict
from planner.validation_split import fitting
from planner.vocabulary import Precision

# No published case is missed by more than 40 % (the worst: TensorRT-LLM v0.7a on one H200, Llama-2-70B fp8, a
# static batch of 192 with 2,048-token outputs, +38 %; the same GPU, shape and lengths under TensorRT-LLM v1.0 are
# predicted -6 %: docs/architecture.md, "Known misses").
KNOWN_BEYOND_40_PERCENT: set[str] = set()


def test_the_set_keeps_enough_cases_and_says_why_it_leaves_any_out():
    cases = load_cases()
    chosen = included(cases)
    assert len(chosen) >= 40
    assert len({case.group for case in chosen}) >= 8
    for case in cases:
        if case.inputs is None:
            assert case.excluded and len(case.excluded) > 20, case.id
    kinds = {case.kind for case in chosen}
    assert {"training_throughput", "decode_latency", "serving_throughput", "ttft"} <= kinds


def test_a_case_is_predicted_from_its_stated_inputs():
    # llm-foundry: MPT-7B on 8 A100 80GB, FSDP, micro-batch 6, 2048 tokens: 4,641 tokens/s per GPU.
    case = next(c for c in load_cases() if c.id == "mpt-7b-a100-80gb-8gpu-fsdp")
    figures = predict(case, perf.SHIPPED)
    assert figures.tokens_per_s / 8 == pytest.approx(4641, rel=0.15)
    assert "zero 3" in figures.layout and "mb 6" in figures.layout


def test_the_published_v07a_batches_fit_only_with_an_8_bit_kv_cache():
    # TensorRT-LLM v0.7a ran Llama-2-70B "FP8" on one H200 (143,771 MiB = 150.75e9 bytes) at batch 192 with
    # 128 + 2,048 tokens and at batch 96 with 128 + 4,096. One token's KV cache is 2 x 80 layers x 8 KV heads x
    # 128 = 163,840 values and the fp8 weights take at least 69.0e9 bytes (68.98e9 parameters x 1 byte), so at
    # most (150.75 - 68.98) / (163,840 x 2,176 x 1 byte = 0.357e9) = 229 sequences of 2,176 tokens fit with an
    # 8-bit KV cache and 114 with a 16-bit one; of 4,224 tokens 118 and 59. The published batches (192, 96) fit
    # only with the 8-bit cache, which the cases therefore keep; the engine's capacity rule agrees.
    model, gpu = get_preset("llama-2-70b"), get_gpu("h200-sxm")
    for tokens, batch, fp8_bound, fp16_bound in ((2176, 192, 229, 114), (4224, 96, 118, 59)):
        fp8 = engine_sequences_that_fit(model, gpu, 1, tokens, Precision.FP8, Precision.FP8)
        fp16 = engine_sequences_that_fit(model, gpu, 1, tokens, Precision.FP8, Precision.BF16)
        assert batch <= fp8 <= fp8_bound, (tokens, fp8)
        assert fp16 <= fp16_bound < batch, (tokens, fp16)


def test_the_v07a_miss_is_the_engine_release_not_the_regime():
    # TensorRT-LLM v1.0 (2025) ran a model of the same shape (Llama 3.3 70B: Llama 3.1 70B's architecture) in fp8
    # on one H200 with the same lengths, at the sequences that fit (202 of 2,176 tokens, 103 of 4,224 by the rule
    # above; v0.7a ran 192 and 96): 4,336 and 2,872 tokens/s against v0.7a's 2,941 and 1,946, 1.47 x at both
    # lengths. The physics is the same, so the model must predict the two releases alike; the published gap
    # (its +38 % / +31 % on v0.7a against -6 % / -8 % on v1.0) is the 2023 release's kernels.
    cases = {case.id: case for case in load_cases()}
    for length in (2048, 4096):
        old = cases[f"trtllm-v07a-llama2-70b-h200-fp8-bs{192 if length == 2048 else 96}-128-{length}"]
        new = cases[f"trtllm-v10-llama33-70b-h200-fp8-tp1-128-{length}"]
        predicted_old = predicted_metric(old, predict(old, perf.SHIPPED))
        predicted_new = predicted_metric(new, predict(new, perf.SHIPPED))
        assert predicted_old == pytest.approx(predicted_new, rel=0.06)
        assert new.published.value / old.published.value == pytest.approx(1.47, abs=0.01)


def test_a_long_prompt_under_load_keeps_its_prefill_and_matches_the_published_nim_figures():
    # NVIDIA NIM 1.8.0 (docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance): Llama 3.3 70B, 2 x H100, fp8 TP2,
    # 5,000-token prompts, 500 out, one user: TTFT 406.77 ms, ITL 18.58 ms, 51.67 tokens/s. Floors by hand: the
    # prefill's 2 x 70.6e9 x 5,000 = 7.06e14 FLOPs at the two GPUs' fp8 dense peak (2 x 1,979e12 FLOP/s) take
    # 178 ms; a decode step reads the 70.6e9 fp8 weights, half on each GPU, at 3.35e12 B/s: 10.5 ms.
    cases = {case.id: case for case in load_cases()}
    stem = "llama33-70b-h100-fp8-tp2-5000-500-c1"
    ttft = predicted_metric(cases[f"nim18-ttft-{stem}"], predict(cases[f"nim18-ttft-{stem}"], perf.SHIPPED))
    itl = predicted_metric(cases[f"nim18-itl-{stem}"], predict(cases[f"nim18-itl-{stem}"], perf.SHIPPED))
    assert 0.178 < ttft == pytest.approx(0.40677, rel=0.25)
    assert 0.0105 < itl == pytest.approx(0.01858, rel=0.25)
    # and the three figures agree with one another as the page's do: 500 / (TTFT + 499 x ITL) = 51.7 tokens/s
    assert 500 / (0.40677 + 499 * 0.01858) == pytest.approx(51.67, rel=0.002)


def test_batch_1_decode_on_the_rtx_4090_matches_exllamav2s_published_rows():
    # turboderp/exllamav2 README (Performance table, commit 373bcc1, 2024-08-17), RTX 4090 column: tokens/s of
    # batch-1 decode for 11 models and formats, each predicted within 25 % of the published figure (before the
    # kernel time was counted in cycles at the 4090's 2,520 MHz boost clock, 6 of 11 were 25-30 % slow).
    cases = [case for case in load_cases() if case.group == "exllamav2-readme" and case.inputs is not None]
    assert len(cases) == 11
    for case in cases:
        predicted = predicted_metric(case, predict(case, perf.SHIPPED))
        assert predicted == pytest.approx(case.published.value, rel=0.25), case.id


@pytest.fixture(scope="module")
def report():
    return validate(predict, perf.SHIPPED, fit_constants, prior=PRIOR)


@pytest.mark.slow
def test_validation_targets_on_the_shipped_set(report):
    shipped = report.statistics()
    assert shipped.cases >= 40 and report.sources >= 8
    assert shipped.median_abs_error <= 0.10
    assert shipped.within_25_percent >= 0.90
    beyond = {r.case.id for r in report.results if abs(r.error) > 0.40}
    assert beyond <= KNOWN_BEYOND_40_PERCENT
    # cross-validated: a source's cases predicted with constants fitted without it
    cross = report.statistics(cross_validated=True)
    assert cross.median_abs_error <= 0.15 and cross.within_25_percent >= 0.80
    # the bands hold the published figure of a held-out source in at least 80 % of cases
    assert report.band_coverage >= 0.80


@pytest.mark.slow
def test_shipped_constants_and_bands_are_what_the_fit_and_cross_validation_give(report):
    refit = fit_constants(fitting(included(load_cases())), PRIOR)
    for name, value in perf.SHIPPED.as_dict().items():
        assert getattr(refit, name) == pytest.approx(value, rel=0.02, abs=1e-9), name
    shipped = json.loads(files("planner.catalog").joinpath("error_bands.json").read_text(encoding="utf-8"))
    fresh = report.bands.as_dict()
    assert shipped["coverage"] == fresh["coverage"]
    assert set(shipped["bands"]) == set(fresh["bands"])
    for key, band in fresh["bands"].items():
        assert shipped["bands"][key]["cases"] == band["cases"]
        assert shipped["bands"][key]["low_fraction"] == pytest.approx(band["low_fraction"], abs=0.01)
        assert shipped["bands"][key]["high_fraction"] == pytest.approx(band["high_fraction"], abs=0.01)
