"""A validation case whose source states an interleaved pipeline schedule but not its chunk count: the layout
completion gives it the plan search's interleaved option, and the memory check and the timing both see it.

The case: Llama 3.1 405B's whole run (Llama 3 paper, arXiv 2407.21783, Table 4 and section 3.3.2: TP 8, PP 16,
DP 128, 16 sequences of 8,192 tokens per data-parallel group, "an interleaved schedule ... with V pipeline stages
on one pipeline rank", "without activation checkpointing").
"""

from __future__ import annotations

import dataclasses

import pytest

from planner.perf.efficiencies import SHIPPED
from planner.search.training_fits import VIRTUAL_STAGES
from planner.validation_cases import load_cases
from planner.validation_predict import case_step, completed_layout
from planner.vocabulary import Recompute

CASE = "llama31-405b-training-gpu-hours"


@pytest.fixture(scope="module")
def case():  # type: ignore[no-untyped-def]
    return next(c for c in load_cases() if c.id == CASE)


def test_the_stated_facts_are_pinned_and_the_unstated_chunk_count_is_the_searchs_option(case) -> None:  # type: ignore[no-untyped-def]
    training = case.inputs.training
    assert training.interleaved and training.virtual_stages == 1  # interleaved stated, V not
    layout = completed_layout(case)
    assert (layout.tp, layout.pp, layout.dp) == (8, 16, 128)
    assert layout.recompute == Recompute.NONE  # "without activation checkpointing"
    assert layout.virtual_stages in VIRTUAL_STAGES and layout.virtual_stages > 1
    assert layout.virtual_stages == 4  # 126 layers over 16 ranks x 4 chunks: about 2 layers a chunk


def test_interleaving_cuts_the_bubble_by_the_chunk_count(case) -> None:  # type: ignore[no-untyped-def]
    # Narayanan et al. 2021 (and the Llama 3 paper): bubble ratio (PP - 1) / (V * M) against (PP - 1) / M for 1F1B,
    # so V = 4 leaves a quarter of the bubble (the extra pipeline sends of the chunks add a little).
    layout = completed_layout(case)
    interleaved = case_step(case, case.inputs, layout, SHIPPED)
    plain = case_step(case, case.inputs, dataclasses.replace(layout, virtual_stages=1), SHIPPED)
    assert interleaved.compute_s == pytest.approx(plain.compute_s)
    assert interleaved.bubble_s / plain.bubble_s == pytest.approx(1 / 4, rel=0.10)
