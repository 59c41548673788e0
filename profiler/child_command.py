"""Command lines for this app's own Python child processes, isolated from the folder they start in.

`python -m profiler` puts the current folder first on sys.path, so a model folder's own json.py, argparse.py,
torch.py or profiler/ package would run in the child when the user works from inside that folder. Every child
the app starts (the probe, `memory --trace`, the GUI's "Trace exactly", torchrun's ranks) therefore runs with
`-I` (no current folder, no user site, no PYTHON* variables) and a two-line bootstrap that puts the app's own
package root first on sys.path and runs the module. The root comes from where this package was imported, so
the same command works from a source tree, an editable install and a regular install. A frozen bundle has no
`-m`: its callers start the bundled executable instead (its sys.path holds only the bundle).

Stdlib only: the CLI, the GUI and gpu-probe import it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

# argv[1] is the package root, argv[2] the module; the module then sees argv as `python -m module ARGS` would.
BOOTSTRAP = (
    "import sys, runpy; root, module = sys.argv[1], sys.argv[2]; del sys.argv[1:3]; "
    "sys.path.insert(0, root); runpy.run_module(module, run_name='__main__', alter_sys=True)"
)


def package_root() -> Path:
    """The folder that holds the app's packages (profiler/, planner/, desktop/)."""
    return Path(__file__).resolve().parents[1]


def isolated_module_command(
    module: str, arguments: Sequence[str] = (), *, unbuffered: bool = False
) -> list[str]:
    """`python -I [-u] -c BOOTSTRAP ROOT MODULE ARGS`: `python -m MODULE ARGS` without the current folder.

    unbuffered: `-u`, for children whose progress lines are read as they come (-I ignores PYTHONUNBUFFERED).
    """
    flags = ["-I", "-u"] if unbuffered else ["-I"]
    return [sys.executable, *flags, "-c", BOOTSTRAP, str(package_root()), module, *arguments]
