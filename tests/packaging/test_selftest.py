"""`gpu-advisor --self-test` from the source tree, in a child process, exactly as a person (or CI) runs it.

The same command runs against the built bundle in `make package-check` and in packaging/github-ci.yml.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXPECTED_CHECKS = [
    "bundle_data",
    "qt_platform",
    "nvml",
    "database",
    "translations",
    "plan",
    "main_window",
    "render",
    "probe",
    "no_torch_in_gui",
]
PAGES = {"hardware", "quotes", "plan", "rent_buy", "settings"}


def run_self_test(tmp_path: Path, **extra_env: str) -> tuple[subprocess.CompletedProcess, dict]:
    summary_file = tmp_path / "summary.json"
    images = tmp_path / "images"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", **extra_env}
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "desktop",
            "--self-test",
            "--summary",
            str(summary_file),
            "--images",
            str(images),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert summary_file.exists(), f"no summary written; stderr:\n{completed.stderr[-3000:]}"
    summary = json.loads(summary_file.read_text(encoding="utf-8"))
    assert json.loads(completed.stdout) == summary  # the same JSON on stdout
    return completed, summary


@pytest.mark.slow
def test_self_test_passes_from_the_source_tree_and_reports_every_check(tmp_path):
    completed, summary = run_self_test(tmp_path)
    failed = {c["name"]: c["detail"] for c in summary["checks"] if not c["ok"]}
    assert completed.returncode == 0 and summary["ok"], f"failed checks: {failed}\n{completed.stderr[-2000:]}"
    assert [c["name"] for c in summary["checks"]] == EXPECTED_CHECKS
    assert summary["variant"] == "source" and summary["frozen"] is False
    for check in summary["checks"]:
        assert set(check) == {"name", "ok", "seconds", "detail"} and check["seconds"] >= 0
    by_name = {c["name"]: c["detail"] for c in summary["checks"]}

    # conftest sets GPU_ADVISOR_FAKE_NVML=none: NVML answers "no GPU" with a reason, and that is a pass.
    assert by_name["nvml"]["available"] is False and by_name["nvml"]["reason"]

    # every page rendered to a PNG, plus the charts on them, all in the folder we asked for
    written = {p.name for p in (tmp_path / "images").glob("*.png")}
    assert {f"{page}.png" for page in PAGES} <= written
    assert by_name["render"]["charts"] >= 2
    assert len(written) == by_name["render"]["images"]

    # torch is installed in the test environment, so a real CPU probe ran in a child process ...
    assert by_name["probe"]["ran"] is True
    assert by_name["probe"]["measurements_ok"] >= 1
    assert by_name["probe"]["command"].startswith(Path(sys.executable).name)
    # ... while the self-test (GUI) process itself never imported torch.
    assert by_name["no_torch_in_gui"] == {"torch_in_gui_process": False}


@pytest.mark.slow
def test_self_test_exits_1_and_names_the_failed_check(tmp_path):
    # A probe child that dies: exactly the probe check must fail, and the exit code must say so.
    failing_probe = f'"{sys.executable}" -c "import sys; sys.exit(3)"'
    completed, summary = run_self_test(tmp_path, GPU_ADVISOR_PROBE_CMD=failing_probe)
    assert completed.returncode == 1 and summary["ok"] is False
    failed = [c["name"] for c in summary["checks"] if not c["ok"]]
    assert failed == ["probe"], summary
    assert "exited with 3" in next(c["detail"] for c in summary["checks"] if c["name"] == "probe")
    assert "self-test FAILED: probe" in completed.stderr
