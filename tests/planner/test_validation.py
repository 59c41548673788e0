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
from planner.validation import validate
from planner.validation_cases import included, load_cases
from planner.validation_predict import PRIOR, fit_constants, predict

# The one published case the model misses by more than 40 %: TensorRT-LLM v0.7a on one H200, Llama-2-70B fp8,
# a static batch of 192 with 2,048-token outputs, 2,941 tokens/s per GPU ("preliminary measured performance").
# The same blog's batch-960 row with 128-token outputs is predicted within 5 %; the model has no physical term
# that makes this row's decode steps 2 x slower than weights + KV at the H200's bandwidth (docs/architecture.md,
# "Performance model": known misses).
KNOWN_BEYOND_40_PERCENT = {"trtllm-v07a-llama2-70b-h200-fp8-bs192-128-2048"}


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
    refit = fit_constants(included(load_cases()), PRIOR)
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
