"""`gpu-advisor --version` and `--help` load only what they print: the subcommands stand in by name and summary
(planner.cli.SUMMARIES), and a subcommand's module is imported only when that subcommand runs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from planner.cli import SUBCOMMANDS, build_parser, chosen_command

HEAVY = (
    "planner.search",
    "planner.exports",
    "planner.perf",
    "planner.memory",
    "planner.store",
    "planner.resolver",
)


def loaded_after(argv: list[str]) -> tuple[int, list[str]]:
    """(exit code, the planner modules loaded) of planner.cli.main(argv) in a fresh interpreter."""
    code = (
        "import contextlib, io, json, sys\n"
        "from planner.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    status = main({argv!r})\n"
        "print(json.dumps([status, sorted(m for m in sys.modules if m.startswith('planner'))]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    status, modules = json.loads(out.stdout.splitlines()[-1])
    return status, modules


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["--lang", "en", "--help"]])
def test_version_and_help_import_no_subcommand(argv):
    status, modules = loaded_after(argv)
    assert status == 0
    assert not [name for name in modules if name in SUBCOMMANDS.values()], modules
    assert not [name for name in modules if name.startswith(HEAVY)], modules


@pytest.mark.slow
def test_a_subcommand_imports_its_own_module_only():
    status, modules = loaded_after(["models", "--help"])
    assert status == 0
    assert [name for name in modules if name in SUBCOMMANDS.values()] == ["planner.cli.models_cmd"]


def test_the_stand_ins_list_what_the_real_subcommands_say():
    """--help built from the summaries reads exactly as --help with every subcommand registered."""
    assert build_parser(()).format_help() == build_parser().format_help()


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["plan", "--model", "7b"], ("plan",)),
        (["--db", "x.sqlite", "--lang", "ru", "quotes", "list"], ("quotes",)),
        (["--db=x.sqlite", "memory"], ("memory",)),
        (["--version"], ()),
        (["--help", "plan"], ()),
        (["memroy"], ()),
        ([], ()),
    ],
)
def test_the_chosen_subcommand_is_read_before_parsing(argv, expected):
    assert chosen_command(argv) == expected
