"""The example sessions in README.md and README.ru.md are what the commands print today: each fenced block that
starts with `$ gpu-advisor ...` is run through the installed entry point and its output compared line for line
(only the search's own wall time, "searched in N ms", may differ). A change to a model's numbers that leaves a
README example behind fails here instead of showing a newcomer a figure the app no longer gives."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SESSION = re.compile(r"^```\n(\$ gpu-advisor .*?)^```", re.M | re.S)
WALL_TIME = re.compile(r"searched in [\d,.]+ ms")


def sessions(path: Path) -> list[tuple[list[str], str]]:
    """(argv after `gpu-advisor`, the output shown) of each example session in `path`; a command may continue
    over lines ending in a backslash."""
    found = []
    for block in SESSION.findall(path.read_text(encoding="utf-8")):
        lines = block.splitlines()
        command = [lines.pop(0)]
        while command[-1].endswith("\\"):
            command.append(lines.pop(0))
        argv = shlex.split(" ".join(line.rstrip("\\").strip() for line in command).removeprefix("$ "))
        found.append((argv[1:], "\n".join(lines)))
    return found


EXAMPLES = [(path.name, argv, shown) for path in (ROOT / "README.md", ROOT / "README.ru.md")
            for argv, shown in sessions(path)]  # fmt: skip


def test_both_readmes_show_examples():
    assert {name for name, _, _ in EXAMPLES} == {"README.md", "README.ru.md"}
    assert sum(name == "README.md" for name, _, _ in EXAMPLES) >= 3  # "three example commands with their output"


@pytest.mark.parametrize(("readme", "argv", "shown"), EXAMPLES, ids=[f"{n}:{a[0]}" for n, a, _ in EXAMPLES])
def test_a_readme_example_prints_what_it_shows(readme, argv, shown):
    ran = subprocess.run([sys.executable, "-m", "desktop.entry", *argv], capture_output=True, text=True,
                         cwd=ROOT, timeout=300, check=False)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    printed = [WALL_TIME.sub("searched in N ms", line).rstrip() for line in ran.stdout.rstrip().splitlines()]
    expected = [WALL_TIME.sub("searched in N ms", line).rstrip() for line in shown.rstrip().splitlines()]
    assert printed == expected, f"{readme}: `gpu-advisor {shlex.join(argv)}` prints otherwise; update the example"
