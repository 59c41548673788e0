"""A fat tree oversubscribed above its pods (planner.perf.communication.Fabric), by collective pattern, against hand
calculations: an all-to-all sends the share 1 - pod / span of its bytes out of the pod through 1/N of the
bandwidth; a rail-aligned ring crosses a pod boundary with one flow per rail against pod nodes / N uplinks per
rail. Llama 3's RoCE cluster (arXiv 2407.21783, section 3.3.1): pods of 3,072 GPUs, 1:7 between them."""

from __future__ import annotations

import pytest

from planner.cli import main
from planner.gpus import get_gpu
from planner.models import get_preset
from planner.perf import StepModel, device_rates, model_numbers
from planner.perf.communication import Fabric
from planner.vocabulary import Layout, ZeroStage

LLAMA3_CLUSTER = Fabric(pod_gpus=3072, oversubscription=7)


def test_all_to_all_leaving_a_pod_slows_by_its_share_times_n():
    # 16,384 GPUs over pods of 3,072: 13/16 of each rank's bytes leave its pod, through 1/7 of the bandwidth
    assert LLAMA3_CLUSTER.alltoall_slowdown(16_384) == pytest.approx((1 - 3072 / 16_384) * 7)
    assert LLAMA3_CLUSTER.alltoall_slowdown(3072) == 1.0  # inside one pod: non-blocking
    assert LLAMA3_CLUSTER.alltoall_slowdown(3072 + 3072 // 6) == pytest.approx(1.0)  # 1/7 leaves: 1/7 x 7
    assert Fabric().alltoall_slowdown(16_384) == 1.0


def test_a_ring_slows_only_where_a_pod_has_fewer_nodes_than_n():
    # 384 nodes of 8 GPUs a pod: one flow per rail crosses, 384 / 7 uplinks per rail carry it
    assert LLAMA3_CLUSTER.ring_slowdown(16_384, 8) == 1.0
    # pods of 4 nodes under 1:8: 0.5 uplink per rail for one crossing flow: half the bandwidth
    assert Fabric(pod_gpus=32, oversubscription=8).ring_slowdown(256, 8) == 2.0
    assert Fabric(pod_gpus=32, oversubscription=8).ring_slowdown(32, 8) == 1.0


def _step(layout: Layout, fabric: Fabric, model: str = "llama-3.1-8b", per_node: int = 8):
    gpu = get_gpu("h100-sxm")
    steps = StepModel(model_numbers(get_preset(model)), gpu, seq_len=4096, global_batch=layout.dp * 4,
                      rates=device_rates(gpu, "bf16"), fabric=fabric, gpus_per_node=per_node)  # fmt: skip
    return steps.step(layout)


def test_the_step_pays_the_fabric_by_pattern():
    # data parallel over 64 nodes: a ring, unchanged on Llama 3's pods, twice as slow on 4-node pods under 1:8
    layout = Layout(dp=512, tp=1, zero=ZeroStage.OPTIMIZER, micro_batch=1)
    flat = _step(layout, Fabric()).breakdown["dp_comm_s"]
    assert flat > 0
    assert _step(layout, LLAMA3_CLUSTER).breakdown["dp_comm_s"] == flat
    assert _step(layout, Fabric(pod_gpus=32, oversubscription=8)).breakdown["dp_comm_s"] > flat
    # expert parallel 8 over two 4-GPU nodes, pods of one node under 1:8: half the dispatched bytes leave the pod
    # at 1/8 of the bandwidth: the network part of each all-to-all takes 4x as long (its latency does not)
    moe = Layout(dp=8, ep=8, zero=ZeroStage.OPTIMIZER, micro_batch=1)
    flat_ep = _step(moe, Fabric(), "mixtral-8x7b", per_node=4).breakdown["ep_comm_s"]
    pods = _step(moe, Fabric(pod_gpus=4, oversubscription=8), "mixtral-8x7b", per_node=4).breakdown["ep_comm_s"]
    assert 2 * flat_ep < pods <= 4 * flat_ep


def test_the_cli_takes_the_fabric_and_refuses_less_than_one_to_one(capsys):
    argv = ["plan", "--model", "llama-3.1-8b", "--task", "train", "--gpu", "h100-sxm", "--gpus", "64"]
    assert main([*argv, "--pod-gpus", "16", "--oversubscription", "0.5"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--oversubscription" in err and len(err.splitlines()) == 1
    assert main([*argv, "--pod-gpus", "16", "--oversubscription", "4", "--json"]) == 0
    out = capsys.readouterr().out
    assert "pods of 16 GPUs, 1:4 above them" in out
