"""The output edge of the command line: text from files never steers the terminal (issue 30 item 1).

While a subcommand runs, stdout goes through `VisibleControls`, which writes every control character except
newline and tab as `\\uXXXX` (planner/visible_text.py): a name from a file cannot retitle the window or clear the
screen, and the escape is still valid inside a JSON string. Errors on stderr are made one line by `one_line`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from planner.visible_text import escaped_controls


class VisibleControls:
    """A text stream that writes to `target` with control characters made visible (see the module's doc)."""

    def __init__(self, target: TextIO):
        self.target = target

    def write(self, text: str) -> int:
        self.target.write(escaped_controls(text))
        return len(text)

    def __getattr__(self, name: str) -> object:  # flush, fileno, encoding, isatty, ... of the real stream
        return getattr(self.target, name)


@contextmanager
def visible_stdout() -> Iterator[None]:
    """sys.stdout with control characters made visible while the block runs (restored after, also in tests)."""
    original = sys.stdout
    sys.stdout = VisibleControls(original)
    try:
        yield
    finally:
        sys.stdout = original
