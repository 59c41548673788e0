"""Offloaded training states live in the node's CPU RAM: the search keeps a layout only when the GPUs of one
node together offload no more than the node has (planner.memory.host_ram; `plan --host-ram-gib`)."""

from __future__ import annotations

import pytest

from planner.cli import main
from planner.gpus import GIB, get_gpu
from planner.memory.deepspeed_states import DEEPSPEED_SUB_GROUP_ELEMENTS
from planner.models import get_preset
from planner.search import plan
from planner.search.types import Constraints, Workload
from planner.vocabulary import Offload, Task, ZeroStage

MODEL = get_preset("llama-3.1-70b")
RTX_4090 = get_gpu("rtx-4090")  # a 4-GPU workstation in the catalog: 4 x 24 GB of GPU memory
WORKLOAD = Workload(task=Task.FINETUNE, seq_len=2048, global_batch=64)
ZERO3_OFFLOAD_ALL = {"zero": 3, "offload": "all", "tp": 1, "pp": 1}


def _deepspeed_offload_all_host_bytes(params: int, gpus: int) -> float:
    """DeepSpeed ZeRO-3 with parameters and optimizer on the CPU, per GPU (stage3.py; the export's ds_config):
    the 16-bit weight partition (2 B), fp32 master weights and Adam m and v (12 B) of its 1/gpus share, and the
    fp32 gradients of one optimizer sub-group at a time (4 B x sub_group_size)."""
    share = params / gpus
    return (2 + 12) * share + 4 * min(share, DEEPSPEED_SUB_GROUP_ELEMENTS)


def test_a_70b_fine_tune_does_not_fit_a_4090_box_by_offloading_a_terabyte():
    """4 x RTX 4090 with the default host RAM (2 x 96 GB): ZeRO-3 + all offload fits each GPU (only the largest
    module stays there) but the 4 GPUs offload about 921 GiB, so no option is offered, and the excluded entry
    says why with the node's figures."""
    result = plan(MODEL, WORKLOAD, RTX_4090, Constraints(gpus=4))
    assert result.options == ()
    offloaded = [item for item in result.excluded if "CPU RAM" in item.reason]
    assert offloaded, [item.reason for item in result.excluded]
    need = 4 * _deepspeed_offload_all_host_bytes(MODEL.total_params, 4)
    assert need / GIB == pytest.approx(921, abs=1)
    assert f"{need / GIB:.0f} GiB" in offloaded[0].reason and "192 GiB" in offloaded[0].reason
    assert all("still needs" not in advice for advice in result.advice)


def test_the_same_box_with_two_tib_of_ram_runs_it():
    result = plan(MODEL, WORKLOAD, RTX_4090, Constraints(gpus=4, host_ram_bytes=2048 * GIB))
    assert result.options
    for option in result.options:
        assert option.layout.offload == Offload.ALL and option.layout.zero == ZeroStage.WEIGHTS
        assert 4 * option.memory.host_offload_bytes <= 2048 * GIB


def test_more_gpus_spread_the_offloaded_states_over_more_nodes():
    """At 64 GPUs each 4-GPU node offloads 4/64 of the states (about 58 GiB): within its 192 GiB. The search
    must not drop the state for what it needs at a small dp."""
    pinned = Constraints(gpus=64, pinned=ZERO3_OFFLOAD_ALL)
    result = plan(MODEL, WORKLOAD, RTX_4090, pinned)
    assert result.options
    option = result.options[0]
    per_gpu = _deepspeed_offload_all_host_bytes(MODEL.total_params, option.layout.dp)
    assert option.memory.host_offload_bytes == pytest.approx(per_gpu, rel=0.01)
    assert 4 * option.memory.host_offload_bytes <= 192 * GIB
    assert plan(MODEL, WORKLOAD, RTX_4090, Constraints(gpus=4, pinned=ZERO3_OFFLOAD_ALL)).options == ()


def test_host_ram_gib_on_the_command_line(capsys):
    base = ["plan", "--model", "llama-3.1-70b", "--gpu", "rtx-4090", "--gpus", "4", "--task", "finetune",
            "--seq-len", "2048"]  # fmt: skip
    assert main(base) == 0
    assert "more than the node's 192 GiB (--host-ram-gib)" in capsys.readouterr().out
    assert main([*base, "--host-ram-gib", "2048"]) == 0
    assert "all offload" in capsys.readouterr().out
    for bad in ("0", "-5", "nan", "1e30"):
        assert main([*base, f"--host-ram-gib={bad}"]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "host-ram-gib" in err
