"""`make device-check` stays importable and runnable without a GPU: isolated steps, skips that say why, one JSON."""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path

import pytest

from profiler import device_check, device_check_measures, device_check_memory
from profiler.device_check import Step, run_steps
from profiler.device_check_context import Context


def context(tmp_path: Path, gpus: int = 0, budget_s: float = 600) -> Context:
    return Context(tmp_path, gpus, "torch has no CUDA support (CPU build)", time.monotonic() + budget_s)


def test_a_failing_step_does_not_stop_the_others_and_gpu_steps_say_why_they_are_skipped(tmp_path):
    def broken(ctx):
        raise RuntimeError("CUDA error: device-side assert triggered")

    steps = [
        Step("broken", broken, "fails", needs_gpus=0),
        Step("fine", lambda ctx: {"headline": "42 GB/s", "value": 42.0}, "works", needs_gpus=0),
        Step("gpu", lambda ctx: {"never": "run"}, "needs a GPU", needs_gpus=1),
        Step("pair", lambda ctx: {"never": "run"}, "needs two", needs_gpus=2),
    ]
    results = run_steps(steps, context(tmp_path))
    assert results["broken"]["status"] == "error"
    assert results["broken"]["error"] == "RuntimeError: CUDA error: device-side assert triggered"
    assert results["fine"]["status"] == "ok" and results["fine"]["value"] == 42.0
    assert results["gpu"] == {
        "status": "skipped",
        "reason": "needs 1 CUDA GPU(s); this machine has 0 CUDA GPU(s) (torch has no CUDA support (CPU build))",
        "description": "needs a GPU",
    }
    assert results["pair"]["reason"].startswith("needs 2 CUDA GPU(s)")
    json.dumps(results)  # every step's result is JSON
    lines = device_check.summary_lines(results)
    assert lines[1].startswith("fine") and "42 GB/s" in lines[1]


def test_steps_that_do_not_fit_the_time_left_are_skipped(tmp_path):
    results = run_steps(
        [Step("slow", lambda ctx: {}, "", needs_gpus=0, estimate_s=60)], context(tmp_path, 0, 5)
    )
    assert results["slow"]["status"] == "skipped" and "10-minute budget" in results["slow"]["reason"]


def test_the_step_list_covers_the_issue_and_every_gpu_step_names_its_need():
    names = [step.name for step in device_check.STEPS]
    assert names[0] == "environment" and len(names) == len(set(names))
    for wanted in ("probe_quick", "probe_full", "event_vs_wall", "copy_sizes", "cold_warm_matmul",
                   "fp8_accumulation", "tf32_restored", "nn_vs_tn_and_flush", "h2d_per_numa", "busy_gpu",
                   "sticky_cuda_error", "collectives_nccl", "mig"):  # fmt: skip
        assert wanted in names
    assert {s.name for s in device_check.STEPS if s.needs_gpus == 0} == {
        "environment",
        "probe_quick",
        "collectives_gloo",
    }
    # the typical times of all steps fit the budget, and the budget keeps the whole check under 10 minutes
    assert sum(s.estimate_s for s in device_check.STEPS) <= device_check.TOTAL_BUDGET_S < 10 * 60


def test_cpu_lists_from_sysfs(tmp_path):
    assert device_check_measures.parse_cpu_list("0-3,8,10-11\n") == [0, 1, 2, 3, 8, 10, 11]
    for node, text in ((0, "0-47,96-143"), (1, "48-95")):
        (tmp_path / f"node{node}").mkdir()
        (tmp_path / f"node{node}" / "cpulist").write_text(text)
    (tmp_path / "possible").write_text("0-1")  # not a node folder
    nodes = device_check_measures.numa_cpus(tmp_path)
    assert sorted(nodes) == [0, 1] and len(nodes[0]) == 96 and nodes[1][0] == 48


def fake_python(folder: Path, name: str, printed: str) -> Path:
    path = folder / name
    path.write_text(f"#!/bin/sh\necho '{printed}'\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


@pytest.mark.skipif(sys.platform == "win32", reason="shell-script stand-ins for Python")
@pytest.mark.slow
def test_a_cuda_torch_is_found_in_another_python(tmp_path, monkeypatch):
    cpu = fake_python(tmp_path, "cpu-python", '["2.13.0+cpu", null, false]')
    gpu = fake_python(tmp_path, "gpu-python", '["2.13.0+cu128", "12.8", true]')
    no_gpu = fake_python(tmp_path, "cuda-no-gpu", '["2.13.0+cu128", "12.8", false]')
    assert device_check.torch_build(str(gpu)) == ("2.13.0+cu128", "12.8", True)
    assert device_check.find_cuda_python([str(cpu), str(no_gpu), str(gpu)]) == str(gpu)
    assert device_check.find_cuda_python([str(cpu), str(tmp_path / "missing")]) is None
    monkeypatch.setenv("DEVICE_CHECK_PYTHON", str(gpu))
    assert device_check._reexec_target(disabled=False) == str(gpu)  # this Python's torch is a CPU build
    assert device_check._reexec_target(disabled=True) is None


def test_on_this_cpu_machine_the_check_runs_skips_the_gpu_steps_and_exits_0(tmp_path, capsys):
    out = tmp_path / "nested" / "device-check.json"
    code = device_check.main(["--steps", "environment,probe_full,sticky_cuda_error,collectives_nccl",
                              "--out", str(out), "--no-reexec"])  # fmt: skip
    assert code == 0
    document = json.loads(out.read_text())
    assert document["schema"] == "gpu-advisor.device-check" and document["gpu_count"] == 0
    steps = document["steps"]
    assert steps["environment"]["status"] == "ok" and steps["environment"]["torch_cuda"] is None
    assert "pip install torch --index-url" in steps["environment"]["install_hint"]
    assert all(
        steps[name]["status"] == "skipped" for name in ("probe_full", "sticky_cuda_error", "collectives_nccl")
    )
    printed = capsys.readouterr().out
    assert "no CUDA GPU here" in printed and "the GPU steps are skipped" in printed
    assert "probe_full           skipped" in printed


def test_unknown_steps_are_refused_with_the_list(capsys):
    assert device_check.main(["--steps", "warp_drive", "--no-reexec"]) == 2
    assert "unknown step(s) warp_drive" in capsys.readouterr().err


@pytest.mark.slow
def test_the_cpu_steps_run_for_real(tmp_path):
    out = tmp_path / "dc.json"
    env_before = dict(os.environ)
    assert device_check.main(["--steps", "probe_quick", "--out", str(out), "--no-reexec"]) == 0
    assert dict(os.environ).keys() >= env_before.keys()
    step = json.loads(out.read_text())["steps"]["probe_quick"]
    assert step["status"] == "ok" and step["exit_code"] == 0
    (cpu,) = step["devices"]
    assert cpu["device"] == "cpu" and cpu["figures"]["memory_bandwidth"] > 0
    assert (tmp_path / "dc-reports" / "probe_quick.json").exists()  # the report itself is kept beside


def test_the_memory_step_is_listed_and_skipped_without_a_gpu(tmp_path):
    (step,) = [s for s in device_check.STEPS if s.name == "memory"]
    result = run_steps([step], context(tmp_path))["memory"]
    assert result["status"] == "skipped" and "needs 1 CUDA GPU" in result["reason"]


@pytest.mark.slow
def test_the_memory_comparison_runs_end_to_end_on_a_cpu(tmp_path, monkeypatch):
    pytest.importorskip("transformers")
    # the same children the GPU step runs (tracer real and fake, the planner's memory --json), on the CPU
    monkeypatch.setattr(
        device_check_memory,
        "MEMORY_TRAIN_CASES",
        [("llama-20m", "pretrain", "fp32", "sdpa", 1, 128), ("gpt2-17m", "lora", "fp32", "eager", 1, 128)],
    )
    rows = device_check_memory.memory_training_rows(context(tmp_path), device="cpu")
    assert len(rows) == 2 and all(row["error"] is None and row["measured_peak_bytes"] > 0 for row in rows)
    row = rows[0]
    assert abs(row["traced_over_measured"] - 1) < 0.03
    assert abs(row["analytic_over_measured"] - 1) < 0.10
