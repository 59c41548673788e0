"""Modules stay small enough to read as one job (CONTRIBUTING.md): at most 700 lines in planner/ and profiler/,
800 in desktop/. A module that grows past its limit is split by job (a new module with one job, named for it),
not allowed a larger limit here."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIMITS = {"planner": 700, "profiler": 700, "desktop": 800}


def line_count(path: Path) -> int:
    with path.open(encoding="utf-8") as handle:
        return sum(1 for _ in handle)


@pytest.mark.parametrize("package", sorted(LIMITS))
def test_no_module_is_over_its_package_limit(package):
    limit = LIMITS[package]
    modules = sorted((ROOT / package).rglob("*.py"))
    assert modules, f"no modules found under {package}/"
    over = {str(path.relative_to(ROOT)): lines for path in modules if (lines := line_count(path)) > limit}
    assert not over, f"over {limit} lines in {package}/ (split them by job): {over}"


def test_the_line_count_is_the_editor_line_count(tmp_path):
    """A file with a final newline has as many lines as newlines; one without counts its last line too."""
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("x = 1\ny = 2", encoding="utf-8")
    assert line_count(tmp_path / "a.py") == 2
    assert line_count(tmp_path / "b.py") == 2
