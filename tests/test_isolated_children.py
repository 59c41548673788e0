"""Every Python child of the app starts isolated from the current folder (issue 30 item 1).

A model folder may hold its own json.py, argparse.py, torch.py or a profiler/ package; with `python -m` they
would run in the probe or trace child when the user works from inside that folder. Each planted module here
writes a marker file when imported; after the probe, the CLI trace and the GUI's trace child ran from the
planted folder, no marker may exist.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from profiler.child_command import isolated_module_command

PLANTED_MODULES = ("json", "argparse", "torch", "re", "runpy", "typing", "transformers", "sitecustomize",
                   "usercustomize", "pathlib")  # fmt: skip
PLANTED_PACKAGES = ("profiler", "planner", "desktop")
TINY = {"model_type": "llama", "hidden_size": 128, "intermediate_size": 344, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1000}  # fmt: skip
GPU_ADVISOR = Path(sys.executable).with_name("gpu-advisor")


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """A model folder whose own modules would each leave a marker file in it when imported."""
    folder = tmp_path / "model folder"
    folder.mkdir()
    for name in (*PLANTED_MODULES, *PLANTED_PACKAGES):
        payload = f"open({str(folder / ('RAN-' + name))!r}, 'w').close()\n"
        target = folder / name / "__init__.py" if name in PLANTED_PACKAGES else folder / f"{name}.py"
        target.parent.mkdir(exist_ok=True)
        target.write_text(payload, encoding="utf-8")
        (target.parent / "__main__.py").write_text(payload, encoding="utf-8") if name in PLANTED_PACKAGES else None
    (folder / "config.json").write_text(json.dumps(TINY), encoding="utf-8")
    return folder


def markers(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.glob("RAN-*"))


def test_the_bootstrap_runs_the_apps_own_module_from_a_planted_folder(planted):
    """The probe's and the trace's own argument parsers run (argparse, json, re imported) and nothing planted."""
    for module in ("profiler", "profiler.memory_trace"):
        completed = subprocess.run(isolated_module_command(module, ["--help"]), cwd=planted, capture_output=True,
                                   text=True, timeout=120, check=False)  # fmt: skip
        assert completed.returncode == 0, completed.stderr
        assert "usage:" in completed.stdout
    assert markers(planted) == []


def test_a_plain_python_dash_m_would_have_run_the_planted_code(planted):
    """The test's own control: the planted folder does hijack `python -m` (what the app did before)."""
    subprocess.run([sys.executable, "-m", "profiler", "--help"], cwd=planted, capture_output=True, timeout=120,
                   check=False)  # fmt: skip
    assert "RAN-profiler" in markers(planted)


@pytest.mark.slow
def test_probe_and_memory_trace_from_a_planted_folder_run_none_of_it(planted):
    env = dict(os.environ, GPU_ADVISOR_FAKE_NVML="nolib")
    env.pop("GPU_ADVISOR_PROBE_CMD", None)
    probe = subprocess.run([str(GPU_ADVISOR), "probe", "--no-save"], cwd=planted, env=env, capture_output=True,
                           text=True, timeout=300, check=False)  # fmt: skip
    assert probe.returncode == 0, probe.stderr
    assert "matmul fp32" in probe.stdout  # the real probe ran (torch imported in the child)
    trace = subprocess.run(
        [str(GPU_ADVISOR), "memory", "--model", "config.json", "--trace", "--task", "train", "--seq-len", "64",
         "--json"],
        cwd=planted, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert trace.returncode == 0, trace.stderr
    assert json.loads(trace.stdout)["trace"]["traced"]["peak_bytes"] > 0  # the real trace ran (torch, transformers)
    assert markers(planted) == []


def test_the_guis_trace_child_is_isolated_too(qtbot, planted, monkeypatch):
    from desktop.pages.trace_memory import TraceProcess

    monkeypatch.chdir(planted)
    process = TraceProcess()
    with qtbot.waitSignal(process.failed, timeout=120_000) as failed:  # --help: no result line, so "failed"
        process.start(["--help"])
    assert "could not start" not in failed.args[0]  # the child ran
    assert markers(planted) == []
