"""The Plan page's words (desktop/plan_text.py), from a plan state built here: the headline names the best
option, the selected row its own line, and an error band is shown beside the figures it belongs to.

Hand-built band: ErrorBand(-0.12, +0.15, 23 cases) around a run time t reads "(-12% .. +15%, 23 published
runs)"; throughput scales with 1 / time, so its band is 1/1.15 - 1 = -13% .. 1/0.88 - 1 = +14%.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from desktop import plan_text
from desktop.plan_state import PlanInputs, PlanState
from desktop.qmodels.plan_options import PlanOptionsModel
from planner.gpus import get_gpu
from planner.models import get_preset
from planner.search import Constraints, Workload, plan
from planner.uncertainty import ErrorBand

BAND = ErrorBand(low_fraction=-0.12, high_fraction=0.15, cases=23, basis="training/hopper/single-node")


class Banded:
    """A planner option with a time band (what the performance model adds to PlanOption)."""

    def __init__(self, option, band):
        self._option, self.time_band = option, band

    def __getattr__(self, name):
        return getattr(self._option, name)


def plain(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


@pytest.fixture
def english(qapp):
    """English with its plural forms ("23 published runs"), as the app installs it."""
    from desktop.i18n import set_language

    set_language("en", strict=True)


@pytest.fixture
def state(english):
    result = plan(get_preset("llama-3.1-8b"), Workload(task="lora", seq_len=2048, global_batch=32, tokens=1e9),
                  [get_gpu("h100-sxm")], Constraints(max_gpus=16), top=5)  # fmt: skip
    plan_state = PlanState(inputs=PlanInputs(task="lora", hardware=("catalog:h100-sxm",)))
    plan_state.set_result(result)
    return plan_state


def test_the_headline_names_the_best_option_and_the_selected_row_has_its_own_line(state):
    best, third = state.result.options[0], state.result.options[2]
    state.select(2)
    assert f"Best: {best.gpus} × {best.gpu.name}" in plain(plan_text.headline_html(state))
    selected = plain(plan_text.selected_html(state))
    assert selected.startswith("Selected, row 3:") and f"{third.gpus} × {third.gpu.name}" in selected
    state.select(0)
    assert plan_text.selected_html(state) == ""  # the best is selected: one line says it


def test_micro_batch_and_gradient_accumulation_are_shown(state):
    best = state.result.options[0]
    steps = best.gradient_accumulation_steps or 1
    # global batch 32 = micro-batch x accumulation steps x data-parallel ranks
    assert best.layout.micro_batch * steps * best.layout.dp == 32
    text = plain(plan_text.headline_html(state))
    assert f"micro-batch {best.layout.micro_batch}, {steps} accumulation step" in text


def test_an_error_band_is_shown_beside_the_run_time_and_the_cost(state):
    option = Banded(state.result.options[0], BAND)
    text = plain(plan_text.option_summary(option, training=True, users=None))
    assert re.search(r"finishes in [\d.,]+ \w+ \(-12% \.\. \+15%, 23 published runs\)", text), text
    assert re.search(r"costs .* \(-12% \.\. \+15%, 23 published runs\)", text) or option.cost is None
    model = PlanOptionsModel()
    model.set_options([option], training=True)
    time_cell = model.index(0, model.column_of("time")).data()
    assert time_cell.endswith("\n-12..+15%"), time_cell  # the band on the cell's second line
    assert "23 published runs" in model.index(0, model.column_of("time")).data(3)  # the tooltip


def test_a_throughput_band_is_the_inverse_of_the_time_band(english):
    inverse = BAND.inverse()
    assert inverse.low_fraction == pytest.approx(1 / 1.15 - 1) and inverse.high_fraction == pytest.approx(
        1 / 0.88 - 1
    )
    from desktop import fmt

    assert fmt.band(inverse) == "-13% .. +14%, 23 published runs"


def test_without_a_band_the_figures_stand_alone(state):
    unbanded = dataclasses.replace(state.result.options[0], time_band=None)
    text = plain(plan_text.option_summary(unbanded, training=True, users=None))
    assert "published run" not in text


def test_a_pure_state_space_model_is_not_given_a_context_limit(english, tmp_path):
    """A Mamba config has no max_position_embeddings and no attention: the summary says there is no limit from
    attention instead of the reader's 4,096-token default plan length."""
    import json

    from planner.models import load_hf_config

    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "mamba", "hidden_size": 768, "num_hidden_layers": 24,
                                "vocab_size": 50280}), encoding="utf-8")  # fmt: skip
    summary = plan_text.model_summary(load_hf_config(path))
    assert "24 layers, no context limit (no attention layers)" in summary and "4,096" not in summary
    assert "context 131,072 tokens" in plan_text.model_summary(get_preset("llama-3.1-70b"))
