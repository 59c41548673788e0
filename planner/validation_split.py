"""Which published cases may be fitted and which are held back: the frozen test split, and the classes the
validation statistics and error bands are reported by.

The split is by source group and is decided before any fit (planner/catalog/validation_split.json lists the
frozen test groups and states the rule that chose them). No constant is ever fitted to a test case:
`gpu-advisor validate` fits and cross-validates on the fitting split only and then predicts the test split with
the shipped constants, so its test figures say how the model does on sources it never saw. A group is either
wholly fitting or wholly test (errors are correlated inside a source, so a source split across the two would
leak).

Classes (`case_classes`): training or serving; for training whether the figure is a steady step or a whole run,
its scale (one GPU, one node, several nodes, 1,024 GPUs or more), its GPU generation and whether the model is a
mixture of experts. Every case belongs to one class of each dimension.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TypeVar

from planner.perf.efficiencies import architecture
from planner.validation_cases import Case

SPLIT_FILE = "validation_split.json"
SPLIT_SCHEMA = "gpu-advisor.validation-split"
LARGE_SCALE_GPUS = 1024  # "1,024+ GPUs": where data-parallel scale-out and the network are the question

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class FrozenSplit:
    """The frozen test split: its rule in words, the date it was frozen, and its source groups."""

    rule: str
    frozen_on: str
    test_groups: frozenset[str]

    def is_test(self, case: Case) -> bool:
        return case.group in self.test_groups


@lru_cache(maxsize=1)
def frozen_split() -> FrozenSplit:
    """The shipped split (planner/catalog/validation_split.json)."""
    text = resources.files("planner.catalog").joinpath(SPLIT_FILE).read_text(encoding="utf-8")
    document = json.loads(text)
    if document.get("schema") != SPLIT_SCHEMA:
        raise ValueError(f"{SPLIT_FILE}: schema is not {SPLIT_SCHEMA}")
    return FrozenSplit(str(document["rule"]), str(document["frozen_on"]), frozenset(document["test_groups"]))


def fitting(cases: Iterable[Case], split: FrozenSplit | None = None) -> list[Case]:
    """The cases constants may be fitted to (and that cross-validation holds out one source at a time)."""
    chosen = split or frozen_split()
    return [case for case in cases if not chosen.is_test(case)]


def held_back(cases: Iterable[Case], split: FrozenSplit | None = None) -> list[Case]:
    """The frozen test cases: predicted, never fitted."""
    chosen = split or frozen_split()
    return [case for case in cases if chosen.is_test(case)]


# ------------------------------------------------------------------------------------------------ classes


def training_scale(gpus: int, gpus_per_node: int) -> str:
    if gpus <= 1:
        return "1 GPU"
    if gpus <= gpus_per_node:
        return "1 node"
    return f"{LARGE_SCALE_GPUS}+ GPUs" if gpus >= LARGE_SCALE_GPUS else "multi-node"


def case_classes(case: Case) -> tuple[str, ...]:
    """The classes of an included case, one per dimension (`dimension: value`)."""
    inputs = case.inputs
    assert inputs is not None  # only included cases are classified
    if not case.is_training:
        return ("task: serving",)  # serving's kinds are reported as kinds
    return (
        "task: training",
        "figure: whole run" if case.kind == "training_run" else "figure: steady step",
        f"scale: {training_scale(inputs.gpus, inputs.gpus_per_node)}",
        f"GPU: {architecture(inputs.gpu)}",
        "model: MoE" if inputs.model.is_moe else "model: dense",
    )


def by_class(items: Sequence[T], case_of: Callable[[T], Case]) -> dict[str, list[T]]:
    """Items grouped by every class of their case, in a stable order (dimension, then value)."""
    grouped: dict[str, list[T]] = {}
    for item in items:
        for key in case_classes(case_of(item)):
            grouped.setdefault(key, []).append(item)
    return dict(sorted(grouped.items()))
