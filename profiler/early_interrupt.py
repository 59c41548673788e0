"""The first line of an entry point: until profiler.exits takes over, Ctrl-C exits 130 with one line.

Importing profiler.exits imports `signal`, whose enums take a moment to build (milliseconds on a loaded
machine); a Ctrl-C inside that import printed a KeyboardInterrupt traceback (found by tests/fuzz's signals
class, issue 30 items 4 and 8). The interpreter has already loaded the C module `_signal` at start-up, so a
handler can be set before anything else is imported. Stdlib only, and nothing imported here but os and sys.
"""

from __future__ import annotations

import os
import sys
from types import FrameType

INTERRUPTED_EXIT = 130  # 128 + SIGINT, as profiler.exits


def exit_on_ctrl_c(prog: str) -> None:
    """Until run_entry installs its own handler: one line, exit 130, no traceback."""

    def interrupted(_signum: int, _frame: FrameType | None) -> None:
        try:
            os.write(2, f"{prog}: interrupted\n".encode())
        except OSError:  # stderr closed: nothing to tell
            pass
        os._exit(INTERRUPTED_EXIT)

    c_signal = sys.modules.get("_signal")  # always there in CPython; without it the window stays as it was
    if c_signal is not None:
        c_signal.signal(c_signal.SIGINT, interrupted)
