"""Collectives: nccl-tests conventions by hand, and a real 2-process gloo run under torchrun on localhost."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from profiler.collectives import aligned_size, bus_factor, parse_size
from profiler.report import load_report

ROOT = Path(__file__).resolve().parents[2]


def test_bus_factors_follow_nccl_tests():
    # nccl-tests doc/PERFORMANCE.md: all-reduce 2(n-1)/n, all-gather and reduce-scatter (n-1)/n.
    assert bus_factor("all_reduce", 2) == 1.0
    assert bus_factor("all_reduce", 8) == 2 * 7 / 8 == 1.75
    assert bus_factor("all_gather", 8) == 7 / 8
    assert bus_factor("reduce_scatter", 4) == 3 / 4
    with pytest.raises(ValueError):
        bus_factor("broadcast", 2)


def test_sizes():
    assert parse_size("64K") == 65536 and parse_size("1M") == 1048576 and parse_size("1GiB") == 2**30
    assert parse_size("4096") == 4096
    assert aligned_size(1000, 2) == 1000  # 250 float32, 125 per rank
    assert aligned_size(1001, 2) == 1000
    assert aligned_size(3, 4) == 16  # at least one float32 per rank


@pytest.mark.slow
def test_two_gloo_processes_under_torchrun(tmp_path):
    out = tmp_path / "collectives.json"
    command = [
        sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
        "-m", "profiler.collectives", "--backend", "gloo", "--json", str(out),
        "--sizes", "4K,64K", "--warmup", "1", "--iters", "3", "--timeout-s", "60",
    ]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    completed = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    assert completed.returncode == 0, completed.stderr[-2000:]
    report = load_report(out)
    assert report.mode == "collectives" and report.devices == []
    by_op = {entry["op"]: entry for entry in report.collectives}
    assert set(by_op) == {"all_reduce", "all_gather", "reduce_scatter"}
    for op, entry in by_op.items():
        assert entry["backend"] == "gloo" and entry["world_size"] == 2 and entry["nnodes"] == 1
        if not entry["ok"]:  # a torch whose gloo lacks the op must say so, not invent a number
            assert op == "reduce_scatter" and "gloo cannot run reduce_scatter" in entry["error"]
            continue
        assert [r["size_bytes"] for r in entry["results"]] == [4096, 65536]
        # factor for n = 2 by hand: all-reduce 2(2-1)/2 = 1; all-gather, reduce-scatter (2-1)/2 = 0.5
        factor = {"all_reduce": 1.0, "all_gather": 0.5, "reduce_scatter": 0.5}[op]
        for result in entry["results"]:
            assert result["time_s"] > 0
            assert result["algbw_bytes_per_s"] == pytest.approx(result["size_bytes"] / result["time_s"])
            assert result["busbw_bytes_per_s"] == pytest.approx(result["algbw_bytes_per_s"] * factor)
    assert "all_reduce" in completed.stdout  # rank 0's table


def test_outside_torchrun_it_says_how_to_run(capsys):
    from profiler.collectives import main

    env_backup = {k: os.environ.pop(k) for k in ("RANK", "WORLD_SIZE") if k in os.environ}
    try:
        assert main(["--backend", "gloo"]) == 2
    finally:
        os.environ.update(env_backup)
    assert "torchrun" in capsys.readouterr().err
