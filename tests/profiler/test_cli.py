"""`gpu-probe` as a user and the GUI run it: a child process, a report file, JSON lines, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from profiler.__main__ import main
from profiler.report import load_report

ROOT = Path(__file__).resolve().parents[2]


def run_probe_cli(*args: str, nvml: str = "none", timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ, GPU_ADVISOR_FAKE_NVML=nvml, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "profiler", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=ROOT,
    )


@pytest.mark.slow
def test_quick_json_without_a_gpu_writes_a_valid_report(tmp_path):
    out = tmp_path / "report.json"
    completed = run_probe_cli("--quick", "--json", str(out), nvml="nolib")
    assert completed.returncode == 0, completed.stderr
    report = load_report(out)
    assert report.mode == "quick"
    assert report.nvml["available"] is False
    assert report.nvml["reason"] == "no NVIDIA GPU: NVML library not found (libnvidia-ml.so.1 / nvml.dll)"
    (device,) = report.devices
    assert device["kind"] == "cpu"
    assert report.best("memory_bandwidth") > 0 and report.best("matmul", "fp32") > 0
    assert report.best("matmul", "bf16") > 0
    assert "no NVIDIA GPU" in completed.stdout and "GB/s" in completed.stdout and "FLOPS" in completed.stdout


@pytest.mark.slow
def test_progress_prints_the_json_lines_the_gui_reads(tmp_path):
    out = tmp_path / "r.json"
    completed = run_probe_cli("--progress", "--device", "cpu", "--json", str(out))
    assert completed.returncode == 0, completed.stderr
    events = [json.loads(line) for line in completed.stdout.splitlines()]
    start = events[0]
    assert {k: start[k] for k in ("event", "devices", "mode")} == {
        "event": "start",
        "devices": ["cpu"],
        "mode": "quick",
    }
    assert [(d["device"], d["kind"]) for d in start["device_info"]] == [("cpu", "cpu")]
    assert events[-1]["event"] == "done"
    progress = [e for e in events if e["event"] == "progress"]
    assert all(set(e) == {"event", "stage", "fraction", "device"} for e in progress)
    fractions = [e["fraction"] for e in progress]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    results = [e for e in events if e["event"] == "result"]
    assert [r["measurement"]["kind"] for r in results] == ["memory_bandwidth", "matmul", "matmul"]
    assert all(r["device"] == "cpu" for r in results)
    # The done event carries the same report that was written to the file.
    assert events[-1]["report"] == json.loads(out.read_text())
    assert load_report(json.dumps(events[-1]["report"])).nvml["reason"].startswith("no NVIDIA GPU")


@pytest.mark.parametrize(
    "argv",
    [["--device", "gpu0"], ["--device", "cuda:x"], ["--quick", "--full"], ["--bogus"], ["extra"]],
)
def test_bad_arguments_exit_2_with_one_line(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("gpu-probe: ") and err.count("\n") == 1


def test_help_exits_0(capsys):
    assert main(["--help"]) == 0
    assert "--collectives" in capsys.readouterr().out


def test_unwritable_json_path_is_refused_before_probing(tmp_path, capsys, monkeypatch):
    import profiler.probe as probe

    monkeypatch.setattr(
        probe, "run_probe", lambda *a, **k: pytest.fail("probed although the file cannot be written")
    )
    assert main(["--device", "cpu", "--json", str(tmp_path / "missing-dir" / "r.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gpu-probe: cannot write") and "no such folder" in err and err.count("\n") == 1


@pytest.mark.slow
def test_collectives_flag_without_two_gpus_says_why(tmp_path, monkeypatch, capsys):
    import profiler.probe as probe
    from tests.profiler.test_probe import TINY

    monkeypatch.setattr(probe, "settings_for", lambda mode: TINY)
    out = tmp_path / "r.json"
    assert main(["--device", "cpu", "--collectives", "--json", str(out)]) == 0
    entries = load_report(out).collectives
    assert {e["op"] for e in entries} == {"all_reduce", "all_gather", "reduce_scatter"}
    assert all(e["ok"] is False and "at least 2 CUDA GPUs" in e["error"] for e in entries)


def test_importing_the_profiler_loads_neither_torch_nor_pynvml_nor_qt():
    code = (
        "import sys, profiler, profiler.nvml, profiler.fake_nvml, profiler.report, profiler.probe, "
        "profiler.collectives, profiler.__main__; "
        "print(sorted(m for m in ('torch', 'pynvml', 'PySide6', 'pyqtgraph', 'numpy', 'planner') if m in sys.modules))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        cwd=ROOT,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "[]"


@pytest.mark.slow
def test_gpus_nvml_lists_but_torch_cannot_use_are_reported_as_not_measured(tmp_path, monkeypatch, capsys):
    """8 x H100 in NVML, a CPU build of torch: the report must say why those GPUs have no figures."""
    import torch

    import profiler.probe as probe
    from tests.profiler.test_probe import TINY

    monkeypatch.setenv("GPU_ADVISOR_FAKE_NVML", "h100x8")
    monkeypatch.setattr(probe, "settings_for", lambda mode: TINY)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # the same on a machine with a real GPU
    out = tmp_path / "r.json"
    assert main(["--quick", "--json", str(out)]) == 0
    report = load_report(out)
    gpus = [d for d in report.devices if d["kind"] == "cuda"]
    assert [d["device"] for d in gpus] == [f"cuda:{i}" for i in range(8)]
    for device in gpus:
        assert device["name"] == "NVIDIA H100 80GB HBM3" and device["uuid"].startswith("GPU-")
        assert device["measurements"] and not any(m["ok"] for m in device["measurements"])
        assert all(
            "NVML lists this GPU but torch cannot use it" in m["error"] for m in device["measurements"]
        )
    (cpu,) = [d for d in report.devices if d["kind"] == "cpu"]
    assert all(m["ok"] for m in cpu["measurements"])  # the CPU still gets its measured row
    summary = capsys.readouterr().out
    assert (
        "cuda:7: NVIDIA H100 80GB HBM3: not measured: NVML lists this GPU but torch cannot use it" in summary
    )


@pytest.mark.slow
def test_ctrl_c_during_a_full_probe_stops_with_one_line_and_exit_130(tmp_path):
    import signal

    out = tmp_path / "r.json"
    env = dict(os.environ, GPU_ADVISOR_FAKE_NVML="none", PYTHONPATH=str(ROOT))
    child = subprocess.Popen(
        [sys.executable, "-m", "profiler", "--full", "--progress", "--device", "cpu", "--json", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
    )  # fmt: skip
    try:
        first = json.loads(child.stdout.readline())  # torch has started; the measurements begin now
        assert first["event"] == "start"
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 130, err
    assert "Traceback" not in err and err.count("\n") == 1
    assert err.startswith("gpu-probe: interrupted")
    assert not out.exists()  # no half-written report
