"""docs/architecture.md describes the code as it is: every module of planner/ and profiler/ is named there with
its job (in backquotes, as `name.py`, `name` or a path ending in it), and every Python file it names in
backquotes exists. A module added without its line, or a line left for a module that went, fails here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"


def quoted_tokens(text: str) -> set[str]:
    """The backquoted spans of `text`."""
    return set(re.findall(r"`([^`\n]+)`", text))


def named_modules(text: str) -> set[str]:
    """Every word a backquoted span names, without a .py ending: `planner/perf/training.py` names planner, perf
    and training; `training_context` (`StepContext`) names training_context."""
    names = set()
    for token in quoted_tokens(text):
        for part in re.split(r"[/ ,()]", token):
            names.add(part.removesuffix(".py"))
    return names


def module_name(path: Path) -> str:
    """A package is named by its folder (`perf/`), a module by its file (`training.py`)."""
    return path.parent.name if path.name == "__init__.py" else path.stem


def test_every_planner_and_profiler_module_is_named():
    names = named_modules(DOC.read_text(encoding="utf-8"))
    missing = [
        str(path.relative_to(ROOT))
        for package in ("planner", "profiler")
        for path in sorted((ROOT / package).rglob("*.py"))
        if module_name(path) not in names
    ]
    assert not missing, f"docs/architecture.md does not name these modules with their job: {missing}"


def test_every_python_file_it_names_exists():
    files = {path.name for package in ("planner", "profiler", "desktop", "tests", "packaging", "tools")
             for path in (ROOT / package).rglob("*.py")} | {path.name for path in ROOT.glob("*.py")}
    gone = sorted(token for token in quoted_tokens(DOC.read_text(encoding="utf-8"))
                  if token.endswith(".py") and Path(token).name not in files)
    # a model folder's own json.py or torch.py is what the child bootstrap guards against: not ours
    assert gone == ["json.py", "torch.py"], f"docs/architecture.md names files that do not exist: {gone}"


def test_a_module_without_a_line_is_caught():
    """The check reads names, not lines: a new module's name missing from the text is reported."""
    text = "| `training.py` | the step model |\n`perf/` holds `training_context` and `training_terms`"
    assert {"training", "perf", "training_context", "training_terms"} <= named_modules(text)
    assert "training_fits" not in named_modules(text)
