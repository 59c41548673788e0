"""The busiest expert-parallel rank's share of routed work under routing balanced in expectation
(planner.perf.expert_parallel.slowest_rank_load), against a simulation of the routing and tabulated values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from planner.perf.expert_parallel import expected_max_normal, slowest_rank_load


@pytest.mark.parametrize(
    ("n", "tabulated"),
    [(2, 1 / math.sqrt(math.pi)), (3, 1.5 / math.sqrt(math.pi)), (8, 1.4236), (32, 2.0697)],
)
def test_expected_maximum_of_normals_matches_the_tables(n: int, tabulated: float) -> None:
    # E max of 2 and 3 standard normals: 1/sqrt(pi) and 3/(2 sqrt(pi)) exactly; 8 and 32: Harter's tables (1961).
    assert expected_max_normal(n) == pytest.approx(tabulated, abs=2e-4)


@pytest.mark.parametrize(
    ("experts", "top_k", "ep", "routed"), [(8, 2, 8, 512), (64, 8, 8, 256), (128, 8, 32, 64)]
)
def test_the_load_is_what_random_routing_gives_the_busiest_rank(
    experts: int, top_k: int, ep: int, routed: int
) -> None:
    # Each of the group's ep x routed tokens picks top_k distinct experts at random; experts sit experts / ep to
    # a rank. The busiest rank's pairs over the mean, averaged over many micro-batches:
    rng = np.random.default_rng(7)
    trials, tokens = 400, ep * routed
    ratios = []
    for _ in range(trials):
        picks = np.argsort(rng.random((tokens, experts)), axis=1)[:, :top_k]  # k distinct experts per token
        per_rank = np.bincount((picks // (experts // ep)).ravel(), minlength=ep)
        ratios.append(per_rank.max() / per_rank.mean())
    simulated = float(np.mean(ratios))
    predicted = slowest_rank_load(routed, ep, top_k)
    # distinct experts per token make the counts a little less spread than independent picks: the formula may sit
    # slightly above the simulation, never below it by more than the simulation's noise
    assert predicted - 1 == pytest.approx(simulated - 1, rel=0.15)


def test_no_expert_parallelism_no_imbalance() -> None:
    assert slowest_rank_load(4096, 1, 8) == 1.0
