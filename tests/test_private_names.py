"""An underscored name is private to its module (issue 31): no module imports another module's `_name`
(`from planner.x import _helper`), and no module of planner/, profiler/, desktop/ or tools/ reaches into another
module's `_name` through the module (`x._helper`). A name two modules share is public, named for what it does, or
it moves to the module it belongs to. Tests may still set a module's private state with monkeypatch; they may not
import it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("planner", "profiler", "desktop", "tools", "tests")
CODE = ("planner", "profiler", "desktop", "tools")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _is_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _absolute(module: str | None, level: int, importer: str) -> str | None:
    """The dotted name `from <level dots><module> import` refers to, inside `importer` (a dotted module name)."""
    if level == 0:
        return module
    package = importer.split(".")[: -level]
    return ".".join([*package, *([module] if module else [])]) or None


def private_uses(source: str, importer: str, attributes: bool = True) -> list[str]:
    """Each `module: name` where `source` (the module `importer`) imports or reads another project module's
    private name."""
    tree = ast.parse(source)
    found: list[str] = []
    modules: dict[str, str] = {}  # local name -> the project module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PACKAGES:
                    modules[alias.asname or alias.name.split(".")[0]] = alias.name
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node.module, node.level, importer)
            if module is None or module.split(".")[0] not in PACKAGES or module == importer:
                continue
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"{module}: {alias.name}")
                elif _is_module(f"{module}.{alias.name}"):
                    modules[alias.asname or alias.name] = f"{module}.{alias.name}"
    if attributes:
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
                    and _private(node.attr) and modules[node.value.id] != importer):
                found.append(f"{modules[node.value.id]}: {node.attr}")
    return found


def _dotted(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_module_uses_another_modules_private_names():
    uses: dict[str, list[str]] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found = private_uses(path.read_text(encoding="utf-8"), _dotted(path), attributes=package in CODE)
            if found:
                uses[str(path.relative_to(ROOT))] = found
    assert not uses, f"private names used across modules (make them public or move them): {uses}"


def test_a_planted_private_import_is_found():
    """The check itself: each way of reaching a private name is reported, a module's own names and dunders are not."""
    source = (
        "from planner.search.training_fits import _hidden, visible\n"
        "from . import _sibling\n"
        "import planner.memory.stages as stages\n"
        "from planner.memory import activations\n"
        "stages._lora(1)\n"
        "activations._norm\n"
        "stages.__name__\n"
    )
    assert sorted(private_uses(source, "planner.search.training")) == [
        "planner.memory.activations: _norm",
        "planner.memory.stages: _lora",
        "planner.search.training_fits: _hidden",
        "planner.search: _sibling",
    ]
    assert private_uses("from planner.messages import _own\n", "planner.messages") == []
    assert private_uses("import planner.gpus as gpus\ngpus._x\n", "tests.t", attributes=False) == []
