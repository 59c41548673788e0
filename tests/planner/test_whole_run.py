"""Whole-run validation cases: the steady step and the goodput term a plan shows, against published runs."""

from __future__ import annotations

import pytest

from planner.perf.efficiencies import SHIPPED
from planner.validation import predicted_metric
from planner.validation_cases import load_cases
from planner.validation_predict import completed_layout, predict, whole_run_goodput


def _case(case_id: str):  # type: ignore[no-untyped-def]
    (case,) = [c for c in load_cases() if c.id == case_id]
    assert case.inputs is not None, case.excluded
    return case


def test_the_goodput_of_a_16k_gpu_run_is_the_llama3_papers_effective_training_time():
    # Llama 3 paper (arXiv 2407.21783), section 3.3.4: on up to 16K H100 "we achieved higher than 90% effective
    # training time" over a 54-day snapshot (466 interruptions). The plan's goodput term for the same job:
    case = _case("llama31-405b-training-gpu-hours")
    assert case.inputs is not None and case.inputs.gpus == 16384
    effective = whole_run_goodput(case.inputs, completed_layout(case))
    assert 0.85 <= effective <= 0.95


def test_a_whole_run_is_its_tokens_at_the_steady_step_over_the_goodput():
    case = _case("bloom-176b-training-gpu-hours")
    assert case.inputs is not None and case.inputs.training is not None
    constants = SHIPPED
    figures = predict(case, constants)
    effective = whole_run_goodput(case.inputs, completed_layout(case))
    step_s = figures.step_time_s
    assert step_s is not None and 0.95 < effective < 1.0  # 384 GPUs: few failures over the run
    tokens_per_step = 2048 * 2048  # global batch x sequence
    steady_hours = 366e9 / tokens_per_step * step_s * 384 / 3600
    assert predicted_metric(case, figures) == pytest.approx(steady_hours / effective, rel=1e-9)


def test_the_bloom_run_is_met_within_a_quarter_of_its_published_gpu_hours():
    # GENCI: "1,082,990 hours of computation on 48 Jean Zay nodes"; 366 B tokens (BLOOM paper, Table 3).
    case = _case("bloom-176b-training-gpu-hours")
    assert predicted_metric(case, predict(case, SHIPPED)) == pytest.approx(1_082_990, rel=0.25)
