"""The `gpu-advisor` executable: the GUI when called bare, the planner's subcommands otherwise.

This module imports neither Qt nor torch at import time, so `gpu-advisor memory ...` starts fast and works on
machines without a display.
"""

from __future__ import annotations

import sys

# Flags that belong to the GUI; anything else is handed to the command-line interface.
GUI_FLAGS = {"--screenshots", "--self-test"}


def wants_gui(argv: list[str]) -> bool:
    """True when argv names no subcommand (only global options and GUI flags)."""
    from planner.cli import SUBCOMMANDS

    return not any(arg in SUBCOMMANDS for arg in argv) and not any(
        arg in ("-h", "--help", "--version") for arg in argv
    )


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--self-test" in argv:  # offscreen checks of this installation (desktop/selftest.py)
        from desktop.selftest import main as self_test

        return self_test(argv)
    if wants_gui(argv):
        from desktop.app import main as gui_main

        return gui_main(argv)
    from planner.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
