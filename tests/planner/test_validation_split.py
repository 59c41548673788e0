"""The frozen test split of the validation set (planner/catalog/validation_split.json): whole source groups chosen
by a stated rule, never fitted to, scored beside the in-sample and cross-validated figures."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from planner.models import param_counts
from planner.validation import Figures, validate
from planner.validation_cases import Case, included, load_cases
from planner.validation_split import (
    FrozenSplit,
    case_classes,
    fitting,
    frozen_split,
    held_back,
    training_scale,
)


def test_the_shipped_split_names_real_groups_and_keeps_each_group_on_one_side():
    split = frozen_split()
    cases = load_cases()
    groups = {case.group for case in cases}
    assert split.test_groups <= groups
    assert len(split.rule) > 100 and split.frozen_on
    for group in groups:
        sides = {split.is_test(case) for case in cases if case.group == group}
        assert len(sides) == 1, group
    assert len(fitting(cases)) + len(held_back(cases)) == len(cases)


def test_a_group_whose_every_case_was_excluded_before_the_fit_is_a_test_group():
    # The rule: no shipped constant was fitted to a test group. A group none of whose cases could be predicted
    # when the constants were fitted (the Meta model cards: no GPU count or batch) is on the test side.
    split = frozen_split()
    for group in ("meta-llama2-card", "meta-llama3-card", "meta-llama31-card", "korthikanti-2022"):
        assert group in split.test_groups


class _Recorder:
    """A predictor and a fit that remember every case they are given (the split must keep test cases from the
    fit and from cross-validation, and predict them only with the shipped constants)."""

    def __init__(self) -> None:
        self.fitted: list[str] = []
        self.predicted: list[tuple[str, str]] = []

    def predict(self, case: Case, constants: str) -> Figures:
        self.predicted.append((case.id, constants))
        return Figures(tokens_per_s=1e6, step_time_s=1.0, output_tokens_per_s=1e3, per_user_tokens_per_s=10.0,
                       tpot_s=0.1, ttft_s=0.1)  # fmt: skip

    def fit(self, cases: Sequence[Case], start: str) -> str:
        self.fitted.extend(case.id for case in cases)
        return "fold"


def test_no_test_case_reaches_the_fit_and_test_cases_are_predicted_with_the_shipped_constants():
    cases = [case for case in included(load_cases()) if case.published.metric != "tflops_per_gpu"]
    groups = sorted({case.group for case in cases})
    split = FrozenSplit("two groups held back for this test", "2026-12-05", frozenset(groups[:2]))
    recorder = _Recorder()
    report = validate(recorder.predict, "shipped", recorder.fit, cases=cases, prior="prior", split=split)
    test_ids = {case.id for case in cases if case.group in split.test_groups}
    assert test_ids and not test_ids & set(recorder.fitted)
    assert {r.case.id for r in report.test} == test_ids
    assert not test_ids & {r.case.id for r in report.results} and not test_ids & {
        r.case.id for r in report.cross_validated
    }
    assert {constants for case_id, constants in recorder.predicted if case_id in test_ids} == {"shipped"}
    assert report.statistics(figure="test").cases == len(test_ids)


@pytest.mark.parametrize(
    ("gpus", "per_node", "expected"),
    [
        (1, 8, "1 GPU"),
        (8, 8, "1 node"),
        (16, 8, "multi-node"),
        (1023, 8, "multi-node"),
        (1024, 8, "1024+ GPUs"),
    ],
)
def test_scale_classes(gpus: int, per_node: int, expected: str):
    assert training_scale(gpus, per_node) == expected


def test_every_training_case_has_one_class_per_dimension():
    for case in included(load_cases()):
        classes = case_classes(case)
        dimensions = [key.split(":")[0] for key in classes]
        assert len(dimensions) == len(set(dimensions)), case.id
        if case.is_training:
            assert {"task", "figure", "scale", "GPU", "model"} == set(dimensions)


def test_the_moe_cases_of_the_test_split_read_their_stated_shape():
    # Qwen3-235B-A22B as the Megatron-MoE-ModelZoo yaml states it. Hand count per layer: attention
    # q 4096x8192 + k, v 2 x 4096x512 + o 8192x4096 = 71.30 M, q/k norms 256, two RMSNorms 8192, router
    # 4096x128 = 0.52 M, 128 experts x 3 x 4096x1536 = 2415.92 M; x 94 layers = 233.85 B; untied embedding and
    # head 2 x 151936 x 4096 = 1.245 B; final norm 4096: 235.09 B (the name says 235 B).
    cases = [case for case in load_cases() if case.group == "megatron-moe-modelzoo"]
    assert len(cases) == 5 and all(frozen_split().is_test(case) for case in cases)
    for case in cases:
        assert case.inputs is not None, case.excluded
        model = case.inputs.model
        assert (model.experts, model.experts_per_token, model.moe_ffn, model.kv_heads) == (128, 8, 1536, 4)
        assert model.is_moe and model.head_dim == 128
        assert param_counts(model).total == pytest.approx(235.09e9, rel=2e-4)
