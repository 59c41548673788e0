"""Data-parallel collectives across many nodes: NCCL's own latency model (NVIDIA/nccl src/graph/tuning.cc at
01afd20, the Simple protocol's baseLat/hwLat in microseconds) worked by hand, and what it does to a step."""

from __future__ import annotations

import pytest

from planner import perf
from planner.gpus import get_gpu
from planner.models import get_preset
from planner.perf.communication import multi_node_allreduce_s, multi_node_gather_latency_s
from planner.vocabulary import Layout, ZeroStage


def test_reduce_scatter_ring_latency_by_hand():
    # 1,024 ranks on 128 nodes of 8: 1,023 ring steps, 127 of them over the network.
    # 8.4 + (1023 - 127) x 3.4 + 127 x 9.6 = 8.4 + 3046.4 + 1219.2 = 4274.0 us
    assert multi_node_gather_latency_s(1024, 1024, 8) == pytest.approx(4274.0e-6)
    # 16 ranks on 2 nodes: 8.4 + 14 x 3.4 + 1 x 9.6 = 65.6 us
    assert multi_node_gather_latency_s(16, 16, 8) == pytest.approx(65.6e-6)


def test_allreduce_is_the_faster_of_ring_and_tree():
    bus = 40e9
    # 512 ranks on 64 nodes, 1 MB: ring = 2 x 511/512 x 1e6 / 40e9 + 1.9 x (8.4 + (1022 - 126) x 3.4 + 126 x 9.6) us
    ring = 2 * 511 / 512 * 1e6 / bus + 1.9 * (8.4 + 896 * 3.4 + 126 * 9.6) * 1e-6
    # tree = 2 x 1e6 / (0.9 x 40e9) + 2 x ((8 - 1) x 28 + log2(64) x 50) us
    tree = 2e6 / (0.9 * bus) + 2 * (7 * 28 + 6 * 50) * 1e-6
    assert tree < ring
    assert multi_node_allreduce_s(1e6, 512, 512, 8, bus) == pytest.approx(tree)
    # 16 ranks on 2 nodes, 1 GB: the ring's bandwidth wins over the tree's 0.9
    big_ring = 2 * 15 / 16 * 1e9 / bus + 1.9 * (8.4 + (30 - 2) * 3.4 + 2 * 9.6) * 1e-6
    assert multi_node_allreduce_s(1e9, 16, 16, 8, bus) == pytest.approx(big_ring)


def test_fsdp_step_pays_the_ring_latency_of_many_nodes():
    # The same per-GPU work (micro-batch 1 of 2,048 tokens, one micro-batch a step) on 16 and on 1,024 H100s with
    # ZeRO-3: the per-layer gathers' ring latency grows with the ranks, so the larger job's step is longer by at
    # least the exposed share of 3 x 32 layers x (4274.0 - 127.6) us (1,024 vs 16 ranks) -- here all of it hides
    # behind compute but for the interference, so the step only has to be longer.
    model = get_preset("llama-2-7b")
    gpu = get_gpu("h100-sxm")
    numbers = perf.model_numbers(model)
    rates = perf.device_rates(gpu, "bf16")

    def step(gpus: int) -> float:
        layout = Layout(dp=gpus, zero=ZeroStage.WEIGHTS, micro_batch=1)
        return perf.training_step_time(
            numbers, gpu, layout, seq_len=2048, global_batch=gpus, rates=rates
        ).step_time_s

    assert step(1024) > step(16)
