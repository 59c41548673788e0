"""The layering rules of DESIGN.md, checked on the real import graph.

planner/ and profiler/ never import Qt; profiler/ never imports planner/; importing any core module pulls in
neither torch nor pynvml (they load lazily, inside the functions that need them).
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY_OR_GUI = ("torch", "pynvml", "PySide6", "pyqtgraph", "desktop")


def core_modules() -> list[str]:
    names = []
    for package in ("planner", "profiler"):
        names.append(package)
        for info in pkgutil.walk_packages([str(ROOT / package)], prefix=f"{package}."):
            if not info.name.endswith("__main__"):
                names.append(info.name)
    return names


def imported_after(modules: list[str]) -> set[str]:
    """Top-level package names loaded by importing `modules` in a fresh interpreter."""
    code = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stdout))


def test_core_imports_no_gui_and_no_heavy_modules():
    loaded = imported_after(core_modules())
    assert not loaded & set(HEAVY_OR_GUI), f"core layers imported {sorted(loaded & set(HEAVY_OR_GUI))}"


def test_import_linter_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    if not lint.exists():
        pytest.fail("import-linter is missing: make test installs it through the dev extra")
    out = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
