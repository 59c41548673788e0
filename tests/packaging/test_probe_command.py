"""desktop/probe_command.py: which command runs gpu-probe, from a source tree and from the frozen bundle."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from desktop import probe_command as pc


def test_source_tree_runs_the_profiler_module_with_this_interpreter(monkeypatch):
    monkeypatch.delenv(pc.PROBE_CMD_ENV, raising=False)
    monkeypatch.delattr(sys, "frozen", raising=False)
    command = pc.probe_command(["--quick"])
    assert command[:3] == [sys.executable, "-I", "-u"]  # isolated from the current folder, lines unbuffered
    assert command[-3:] == [str(Path(pc.__file__).resolve().parents[1]), "profiler", "--quick"]


def test_environment_override_is_split_like_a_shell_and_takes_arguments(monkeypatch):
    monkeypatch.setenv(pc.PROBE_CMD_ENV, "fake-probe --scenario slow")
    assert pc.probe_command(["--progress"]) == ["fake-probe", "--scenario", "slow", "--progress"]
    assert pc.probe_availability().available


def _freeze(monkeypatch, tmp_path: Path, variant: str | None) -> Path:
    """Pretend to be the PyInstaller bundle: executable in tmp_path, data folder tmp_path/_internal."""
    internal = tmp_path / "_internal"
    internal.mkdir()
    if variant is not None:
        (internal / pc.BUILD_INFO_FILE).write_text(json.dumps({"variant": variant}), encoding="utf-8")
    suffix = ".exe" if sys.platform == "win32" else ""
    monkeypatch.delenv(pc.PROBE_CMD_ENV, raising=False)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(internal), raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / f"gpu-advisor{suffix}"))
    return tmp_path / f"gpu-probe{suffix}"


def test_frozen_bundle_runs_the_gpu_probe_executable_next_to_gpu_advisor(monkeypatch, tmp_path):
    probe = _freeze(monkeypatch, tmp_path, "full")
    assert pc.probe_command(["--quick"]) == [str(probe.resolve()), "--quick"]


def test_full_bundle_can_probe_only_when_its_gpu_probe_is_there(monkeypatch, tmp_path):
    probe = _freeze(monkeypatch, tmp_path, "full")
    missing = pc.probe_availability()
    assert not missing.available and "missing" in missing.reason
    probe.write_bytes(b"")
    assert pc.probe_availability() == pc.ProbeAvailability(True, "bundled gpu-probe")


def test_lite_bundle_explains_how_to_probe_elsewhere(monkeypatch, tmp_path):
    probe = _freeze(monkeypatch, tmp_path, "lite")
    probe.write_bytes(b"")  # the lite bundle ships gpu-probe too, but without torch it cannot measure
    availability = pc.probe_availability()
    assert not availability.available
    assert availability.reason == pc.NO_PROBE_MESSAGE
    assert "gpu-probe --quick --json report.json" in availability.reason
    assert "Import probe report" in availability.reason
    assert pc.build_info() == {"variant": "lite"}


def test_unreadable_build_info_counts_as_unknown_not_a_crash(monkeypatch, tmp_path):
    _freeze(monkeypatch, tmp_path, None)
    assert pc.build_info() == {"variant": "unknown"}


def test_source_tree_without_torch_says_how_to_install_it(monkeypatch):
    monkeypatch.delenv(pc.PROBE_CMD_ENV, raising=False)
    monkeypatch.delattr(sys, "frozen", raising=False)
    monkeypatch.setattr(pc.importlib.util, "find_spec", lambda name: None)
    availability = pc.probe_availability()
    assert not availability.available and "gpu-advisor[probe]" in availability.reason


def test_availability_check_never_imports_torch(monkeypatch):
    monkeypatch.delenv(pc.PROBE_CMD_ENV, raising=False)
    monkeypatch.delattr(sys, "frozen", raising=False)
    had_torch = "torch" in sys.modules
    pc.probe_availability()
    assert ("torch" in sys.modules) == had_torch
