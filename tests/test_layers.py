"""The layering rules of docs/architecture.md, checked on the real import graph.

planner/ and profiler/ never import Qt; profiler/ never imports planner/; importing any core module pulls in
neither torch nor pynvml (they load lazily, inside the functions that need them). The import-linter contracts
(pyproject.toml [tool.importlinter]) hold on this tree, and they are not vacuous: a copy of the tree with one
forbidden import planted per contract fails each of them, lazy imports inside functions included.
"""

from __future__ import annotations

import json
import pkgutil
import shutil
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


def lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    lint = Path(sys.executable).with_name("lint-imports")
    if not lint.exists():
        pytest.fail("import-linter is missing: make test installs it through the dev extra")
    return subprocess.run([str(lint), "--no-cache"], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_import_linter_contracts_hold():
    out = lint_imports(ROOT)
    assert out.returncode == 0, out.stdout + out.stderr


# One forbidden import per contract, each written the way it would slip in: lazily, inside a function. (Several
# also close import circles; the last one closes only a circle.)
# (file to append to, the import line, the line import-linter must report)
PLANTED = [
    ("planner/perf/training.py", "import torch", "planner.perf.training -> torch"),
    ("planner/memory/config.py", "from planner.store import store", "planner.memory.config -> planner.store"),
    ("planner/costs.py", "from planner.cli import main", "planner.costs -> planner.cli"),
    ("planner/money.py", "from profiler import nvml", "planner.money -> profiler.nvml"),
    ("desktop/fmt.py", "import transformers", "desktop.fmt -> transformers"),
    ("desktop/plan_state.py", "from profiler import probe", "desktop.plan_state -> profiler.probe"),
    ("desktop/charts/theme.py", "from desktop.pages import base", "desktop.charts.theme -> desktop.pages"),
    ("desktop/qmodels/base.py", "from desktop.pages import plan", "desktop.qmodels.base -> desktop.pages"),
    ("profiler/report.py", "import torch", "profiler.report -> torch"),
    ("planner/gpus.py", "import PySide6", "planner.gpus -> PySide6"),
    ("profiler/nvml.py", "from planner import gpus", "profiler.nvml -> planner.gpus"),
    ("profiler/jsontypes.py", "from profiler import json_checks", "profiler.json_checks -> profiler.jsontypes -> "),
]
CONTRACTS = 7  # pyproject.toml [tool.importlinter]: PLANTED breaks every one of them


def copy_tree(destination: Path) -> None:
    """The three root packages, the contracts and the contract types, so lint-imports can run on a tree we may
    break."""
    for package in ("planner", "profiler", "desktop", "tools"):
        shutil.copytree(ROOT / package, destination / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", destination / "pyproject.toml")


def test_each_contract_catches_a_planted_lazy_import(tmp_path):
    copy_tree(tmp_path)
    for number, (path, line, _) in enumerate(PLANTED):
        with open(tmp_path / path, "a", encoding="utf-8") as source:
            source.write(f"\n\ndef _planted_{number}():\n    {line}\n")
    report = lint_imports(tmp_path).stdout
    assert f"Contracts: 0 kept, {CONTRACTS} broken." in report, report
    for _, _, expected in PLANTED:
        assert expected in report, f"no contract caught {expected}:\n{report}"


def test_the_pure_core_may_read_the_probe_report_schema(tmp_path):
    """profiler.report is stdlib-only and is the one profiler module the core may import."""
    copy_tree(tmp_path)
    with open(tmp_path / "planner/perf/calibration.py", "a", encoding="utf-8") as source:
        source.write("\n\ndef _planted():\n    from profiler.report import ProbeReport\n    return ProbeReport\n")
    out = lint_imports(tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_planted_import_circle_is_found(tmp_path):
    """planner.costs imports planner.money; a lazy import of planner.costs inside planner.money closes a circle,
    which breaks no layer, only the no-circles contract (tools/import_contracts.py)."""
    copy_tree(tmp_path)
    with open(tmp_path / "planner/money.py", "a", encoding="utf-8") as source:
        source.write("\n\ndef _planted():\n    from planner.costs import run_cost\n    return run_cost\n")
    report = lint_imports(tmp_path).stdout
    assert f"Contracts: {CONTRACTS - 1} kept, 1 broken." in report, report
    assert "planner.costs -> planner.money -> planner.costs" in report, report


def test_sqlite_errors_are_caught_only_inside_the_store():
    """planner/store turns SQLite's environment errors (disk full, read-only, damaged, locked) into
    StoreEnvironmentError, a UserError; what still escapes as sqlite3.Error is a bug, which must surface rather
    than read as "no price". So no module outside planner/store imports sqlite3 at all."""
    import ast

    found = []
    for package in ("planner", "profiler", "desktop"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.is_relative_to(ROOT / "planner" / "store"):
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                if any(name.split(".")[0] == "sqlite3" for name in names):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, f"sqlite3 imported outside planner/store: {found}"
