"""Throughput against latency (planner.search.serving_frontier), the curve the GUI charts.

Independent expectations:
- Llama 3.1 8B in bf16: 8.03e9 parameters x 2 bytes = 16.06 GB read once per decode step; an H100 SXM reads at
  most 3.35 TB/s (datasheet), so a token takes at least 4.79 ms on one GPU (at most 209 tokens/s per user), and on
  tp GPUs at least 4.79 / tp ms;
- Little's law: N users in a closed loop, each reading one token per TPOT at best, give at most N / TPOT tokens/s
  over the replica's tp GPUs;
- 16 x 8B bf16 replicas on 80 GB: the KV cache of one 1,200-token sequence is 1,200 x 2 x 32 layers x 8 KV heads x
  128 x 2 B = 157 MB, so one H100 (72 GB usable, 16 GB of weights) holds a few hundred, not thousands.
"""

from __future__ import annotations

import pytest

from planner.gpus import get_gpu
from planner.models import get_preset
from planner.search import plan
from planner.search.serving_frontier import pareto, serving_frontier
from planner.search.types import Constraints, Workload

H100_BYTES_PER_S = 3.35e12
WEIGHTS_8B_BF16 = 8.03e9 * 2


def _points(**targets):
    workload = Workload(task="inference", seq_len=1200, output_len=200, **targets)
    return serving_frontier(get_preset("llama-3.1-8b"), workload, get_gpu("h100-sxm")), workload


def test_every_point_is_above_its_physical_floor_and_within_littles_law():
    points, _ = _points()
    assert {p.tp for p in points} == {1, 2, 4, 8}
    for p in points:
        assert p.tpot_s >= WEIGHTS_8B_BF16 / (H100_BYTES_PER_S * p.tp)
        assert p.tokens_per_s_per_gpu * p.tp <= p.users / p.tpot_s * (1 + 1e-9)
    single = next(p for p in points if p.tp == 1 and p.users == 1)
    floor = WEIGHTS_8B_BF16 / H100_BYTES_PER_S
    assert floor <= single.tpot_s <= 2 * floor  # batch 1 is memory-bound: above the floor, within twice it
    most = max(p.users for p in points if p.tp == 1)
    assert 128 <= most <= (0.9 * 80e9 - WEIGHTS_8B_BF16) / (1200 * 2 * 32 * 8 * 128 * 2)


def test_more_users_trade_each_users_speed_for_each_gpus_throughput():
    points, _ = _points()
    for tp in (1, 2, 4, 8):
        line = sorted((p for p in points if p.tp == tp), key=lambda p: p.users)
        assert all(
            a.tokens_per_s_per_gpu < b.tokens_per_s_per_gpu for a, b in zip(line, line[1:], strict=False)
        )
        assert all(
            a.per_user_tokens_per_s >= b.per_user_tokens_per_s for a, b in zip(line, line[1:], strict=False)
        )
    frontier = pareto(points)
    assert frontier[0].tp == 8 and frontier[-1].tp == 1  # fastest per user: TP 8; most per GPU: one GPU
    for point in points:  # nothing beats a frontier point on both axes
        assert (
            not any(
                f.per_user_tokens_per_s < point.per_user_tokens_per_s
                and f.tokens_per_s_per_gpu < point.tokens_per_s_per_gpu
                for f in frontier
            )
            or point in frontier
        )


def test_targets_mark_the_points_and_the_search_agrees():
    points, workload = _points(tpot_target_s=0.02)
    for p in points:
        assert p.meets == (p.tpot_s <= 0.02)
    assert any(p.meets for p in points) and not all(p.meets for p in points)
    # one GPU at 16 users: the same figures as the serving search's option for that layout and load
    users16 = next(p for p in points if p.tp == 1 and p.users == 16)
    found = plan(get_preset("llama-3.1-8b"), Workload(task="inference", seq_len=1200, output_len=200,
                                                      concurrent_users=16), [get_gpu("h100-sxm")],
                 Constraints(gpus=1, pinned={"tp": 1}))  # fmt: skip
    option = found.options[0]
    assert option.batch_per_replica == 16
    assert users16.tpot_s == pytest.approx(option.tpot_s, rel=1e-9)
    assert users16.tokens_per_s_per_gpu == pytest.approx(option.tokens_per_s, rel=1e-9)


def test_an_moe_model_has_expert_parallel_lines_within_littles_law():
    # Mixtral 8x7B (8 experts) on H100 with vLLM: EP 2, 4 and 8 groups beside TP 1..8; a group of ep GPUs
    # decoding N users (N / ep per rank) gives at most N / TPOT tokens/s over its ep GPUs.
    workload = Workload(task="inference", seq_len=1200, output_len=200)
    points = serving_frontier(get_preset("mixtral-8x7b"), workload, get_gpu("h100-sxm"))
    labels = {p.label for p in points}
    assert {"EP 2", "EP 4", "EP 8"} <= labels and "TP 8" in labels
    for p in points:
        gpus = p.tp * p.ep
        assert p.tokens_per_s_per_gpu * gpus <= p.users / p.tpot_s * (1 + 1e-9)
    # the EP 8 group at 64 users (8 per rank): the same figures as the serving search's option for that layout
    point = next(p for p in points if p.ep == 8 and p.users == 64)
    found = plan(get_preset("mixtral-8x7b"), Workload(task="inference", seq_len=1200, output_len=200,
                                                      concurrent_users=64), [get_gpu("h100-sxm")],
                 Constraints(gpus=8, pinned={"ep": 8}))  # fmt: skip
    option = found.options[0]
    assert option.layout.ep == 8 and option.gpus == 8
    assert point.tpot_s == pytest.approx(option.tpot_s, rel=1e-9)
    assert point.tokens_per_s_per_gpu == pytest.approx(option.tokens_per_s / 8, rel=1e-9)
