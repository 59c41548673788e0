"""Collectives: nccl-tests conventions by hand, and a real 2-process gloo run under torchrun on localhost."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from profiler.collectives import aligned_size, bus_factor, has_exited, parse_size
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


# ---------------------------------------------------------------------------------------------------------------
# Launching: the frozen hand-off, the worker's own error line, and no orphaned ranks after a timeout
# ---------------------------------------------------------------------------------------------------------------

GLOO_ARGS = ["--backend", "gloo", "--sizes", "4K", "--warmup", "1", "--iters", "2", "--timeout-s", "60"]


def test_torchrun_command_hands_off_to_the_frozen_probe_itself():
    from profiler.collectives import torchrun_command

    source = torchrun_command(2, ["--backend", "nccl"])
    assert source[:2] == [sys.executable, "-I"] and source[5] == "torch.distributed.run"
    assert source[-3:] == ["profiler.collectives", "--backend", "nccl"]
    assert "--no-python" in source and "-m" not in source  # the ranks run isolated too
    frozen = torchrun_command(8, ["--backend", "nccl"], ["/opt/gpu-advisor/gpu-probe"])
    assert frozen == [
        "/opt/gpu-advisor/gpu-probe", "--torchrun", "--standalone", "--nproc-per-node", "8",
        "--no-python", "/opt/gpu-advisor/gpu-probe", "--collectives-worker", "--backend", "nccl",
    ]  # fmt: skip
    assert "-m" not in frozen  # a frozen executable has no -m: that is what re-entered gpu-probe's own parser


@pytest.mark.slow
def test_the_frozen_style_hand_off_runs_real_collectives(tmp_path):
    """gpu-probe --torchrun ... --no-python gpu-probe --collectives-worker: the bundle's path, run from source."""
    from profiler.collectives import run_torchrun

    entries = run_torchrun(
        2, GLOO_ARGS, str(tmp_path / "c.json"), timeout_s=120, probe_exe=[sys.executable, "-m", "profiler"]
    )
    by_op = {entry["op"]: entry for entry in entries}
    assert by_op["all_reduce"]["ok"] and by_op["all_reduce"]["results"][0]["size_bytes"] == 4096
    assert by_op["all_reduce"]["world_size"] == 2
    assert "max over ranks" in by_op["all_reduce"]["details"]["time"]


@pytest.mark.slow
def test_a_failing_rank_is_reported_by_its_own_error_line_not_torchrun_banner():
    from profiler.collectives import run_supervised, worker_error_line

    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
               str(Path(__file__).with_name("failing_worker.py"))]  # fmt: skip
    outcome = run_supervised(command, dict(os.environ, OMP_NUM_THREADS="1"), timeout_s=120)
    assert outcome.returncode == 1 and not outcome.timed_out
    assert "=====" in outcome.output and "ChildFailedError" in outcome.output  # what torchrun prints last
    line = worker_error_line(outcome.output)
    # rank 1 is torchrun's root cause; rank 0's "Connection closed by peer" is only the consequence
    assert line == (
        "rank 1: RuntimeError: rank one lost its NIC: unhandled system error "
        "(run with NCCL_DEBUG=INFO for details)"
    )


@pytest.mark.slow
def test_a_real_collectives_failure_reaches_the_caller_as_the_worker_line(tmp_path, monkeypatch):
    from profiler.collectives import CollectivesFailed, run_torchrun

    monkeypatch.setenv(
        "GLOO_SOCKET_IFNAME", "nonexistent0"
    )  # a misconfigured interface, as on a real cluster
    with pytest.raises(CollectivesFailed) as failed:
        run_torchrun(2, GLOO_ARGS, str(tmp_path / "c.json"), timeout_s=120)
    message = str(failed.value)
    assert message.startswith("torchrun collectives failed (exit 1): rank ")
    assert "Unable to find address for: nonexistent0" in message and "=====" not in message


def test_nccl_warn_lines_come_first():
    from profiler.collectives import worker_error_line

    output = (
        "[rank0]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled "
        "system error\n"
        "box:1234:1250 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.0.0.2<43210> failed "
        ": No route to host\n"
        "============================================================\n"
    )
    assert worker_error_line(output) == (
        "NCCL WARN socketStartConnect: Connect to 10.0.0.2<43210> failed : No route to host"
    )
    assert worker_error_line("============\n------\n") is None


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc to check the processes are gone")
def test_stopping_kills_a_new_session_grandchild_that_ignores_sigterm(tmp_path):
    import subprocess
    import time

    from profiler.collectives import stop_tree

    pid_file = tmp_path / "grandchild.pid"
    parent = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("new_session_parent.py")), str(pid_file)],
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        grandchild = int(pid_file.read_text())
        assert os.getpgid(grandchild) != os.getpgid(parent.pid)  # its own session: killpg(parent) misses it
        killed = stop_tree(parent, grace_s=0.2)
        assert grandchild in killed and parent.returncode is not None
        deadline = time.monotonic() + 10
        while not has_exited(grandchild) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert has_exited(grandchild)
    finally:
        if parent.poll() is None:
            parent.kill()


@pytest.mark.slow
def test_a_supervised_child_that_hangs_times_out_with_its_output():
    from profiler.collectives import run_supervised

    code = "import sys, time; print('started', flush=True); time.sleep(3600)"
    outcome = run_supervised([sys.executable, "-c", code], None, timeout_s=3, grace_s=0.5)
    assert outcome.timed_out and outcome.returncode is None


@pytest.mark.slow
def test_gpu_probe_collectives_with_gloo_end_to_end(tmp_path, monkeypatch):
    import profiler.probe as probe
    from profiler.__main__ import main
    from tests.profiler.test_probe import TINY

    monkeypatch.setattr(probe, "settings_for", lambda mode: TINY)
    out = tmp_path / "r.json"
    assert (
        main(["--device", "cpu", "--collectives", "--collectives-backend", "gloo", "--json", str(out)]) == 0
    )
    entries = {entry["op"]: entry for entry in load_report(out).collectives}
    assert entries["all_reduce"]["ok"] and entries["all_reduce"]["backend"] == "gloo"
    assert [r["size_bytes"] for r in entries["all_reduce"]["results"]] == [65536, 1048576]
