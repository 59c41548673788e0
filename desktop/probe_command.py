"""How the GUI finds the `gpu-probe` child process, from a source tree and from the packaged bundle.

The GUI process never imports torch: the probe always runs as a child process. Where that child lives depends
on how the app was started:

- from a source tree or a pip install: the same Python interpreter runs the profiler package, isolated from the
  current folder (profiler/child_command.py);
- from the PyInstaller bundle: the bundled `gpu-probe` executable sits next to `gpu-advisor` and shares its
  libraries (packaging/gpu_advisor.spec);
- tests (and people debugging) may override both with GPU_ADVISOR_PROBE_CMD (a command line, split like a shell).

The "lite" bundle leaves torch out; `probe_availability()` says so without importing torch, and
`NO_PROBE_MESSAGE` tells the person how to measure the machine anyway.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP

from profiler.child_command import isolated_module_command

PROBE_CMD_ENV = "GPU_ADVISOR_PROBE_CMD"
# Written by packaging/gpu_advisor.spec into the bundle's data folder: {"variant": "full"|"lite", ...}.
BUILD_INFO_FILE = "gpu_advisor_build.json"

# The reasons below are English here (the self-test and the command line print them) and translated where the
# GUI shows them (ProbeAvailability.translated_reason, context "ProbeCommand").
NO_PROBE_MESSAGE = QT_TRANSLATE_NOOP(
    "ProbeCommand",
    "This build of GPU Advisor (the lite bundle) does not include torch, so it cannot run the probe here.\n"
    "To measure this machine, use the full bundle's gpu-probe, or install the probe with Python:\n"
    "    pip install 'gpu-advisor[probe]'\n"
    "    gpu-probe --quick --json report.json\n"
    "then import report.json with File > Import probe report. Planning, GPU detection and report import "
    "work in this build.",
)
NO_TORCH_MESSAGE = QT_TRANSLATE_NOOP(
    "ProbeCommand",
    "torch is not installed in this Python environment, so the probe cannot run here.\n"
    "Install it with: pip install 'gpu-advisor[probe]' (or run gpu-probe on another machine and "
    "import its report with File > Import probe report).",
)
MISSING_PROBE_MESSAGE = QT_TRANSLATE_NOOP("ProbeCommand", "the bundled probe is missing: {0}")


@dataclass(frozen=True)
class ProbeAvailability:
    """Whether this installation can run the torch probe; `reason` explains a False in plain words (English).

    reason_template and reason_values, when set, are the untranslated template `reason` was formatted from:
    translated_reason() words it in the interface language.
    """

    available: bool
    reason: str
    reason_template: str = ""
    reason_values: tuple[str, ...] = ()

    def translated_reason(self) -> str:
        """The reason in the interface language (the English text where no translation is loaded)."""
        from PySide6.QtCore import QCoreApplication

        template = self.reason_template or self.reason
        text = QCoreApplication.translate("ProbeCommand", template)
        return text.format(*self.reason_values) if self.reason_values else text


def is_frozen() -> bool:
    """True inside the PyInstaller bundle."""
    return bool(getattr(sys, "frozen", False))


def bundle_dir() -> Path | None:
    """The bundle's data folder (PyInstaller's `_internal`), or None from a source tree."""
    meipass = getattr(sys, "_MEIPASS", None)
    return Path(meipass) if is_frozen() and meipass else None


def build_info() -> dict[str, Any]:
    """What the packaging step recorded about this build ({"variant": "full"|"lite", ...}); {"variant":
    "source"} outside a bundle."""
    folder = bundle_dir()
    if folder is None:
        return {"variant": "source"}
    try:
        info: dict[str, Any] = json.loads((folder / BUILD_INFO_FILE).read_text(encoding="utf-8"))
        return info
    except (OSError, ValueError):
        return {"variant": "unknown"}


def bundled_probe_executable() -> Path:
    """Path of the `gpu-probe` executable next to the running `gpu-advisor` executable (frozen mode)."""
    name = "gpu-probe.exe" if sys.platform == "win32" else "gpu-probe"
    return Path(sys.executable).resolve().with_name(name)


def probe_command(args: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The full command line that runs `gpu-probe` with `args` (for QProcess or subprocess).

    Order of precedence: GPU_ADVISOR_PROBE_CMD, the bundled executable, this Python running profiler isolated.
    """
    override = os.environ.get(PROBE_CMD_ENV, "").strip()
    if override:
        return [*shlex.split(override, posix=sys.platform != "win32"), *args]
    if is_frozen():
        return [str(bundled_probe_executable()), *args]
    return isolated_module_command("profiler", args, unbuffered=True)


def probe_availability() -> ProbeAvailability:
    """Whether Run probe can work here, decided without importing torch (the GUI process never does)."""
    if os.environ.get(PROBE_CMD_ENV, "").strip():
        return ProbeAvailability(True, f"probe command set by {PROBE_CMD_ENV}")
    if is_frozen():
        if build_info().get("variant") == "lite":
            return ProbeAvailability(False, str(NO_PROBE_MESSAGE))
        if not bundled_probe_executable().exists():
            where = str(bundled_probe_executable())
            template = str(MISSING_PROBE_MESSAGE)
            return ProbeAvailability(False, template.format(where), template, (where,))
        return ProbeAvailability(True, "bundled gpu-probe")
    # find_spec locates the package on disk without running its __init__ (torch is a top-level package).
    if importlib.util.find_spec("torch") is None:
        return ProbeAvailability(False, str(NO_TORCH_MESSAGE))
    return ProbeAvailability(True, "python -m profiler")

