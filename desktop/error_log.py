"""The desktop app's bugs, written down where the user can find them.

A UserError (and a file or disk problem) is the user's to fix and is shown as it is. Anything else is a bug: its
traceback goes to <user log dir>/gpu-advisor/errors.log (platformdirs; ~/.local/state/gpu-advisor/log on Linux)
and to stderr, and the person is told that it was a bug and where its report is, instead of reading it as "no
price" or a silent nothing. Background jobs record their unexpected failures here (desktop.workers); an exception
that escapes a slot or a Qt virtual on the GUI thread reaches sys.excepthook, which desktop.app installs here.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QCoreApplication

APPLICATION = "gpu-advisor"


def error_log_path() -> Path:
    """<user log dir>/gpu-advisor/errors.log, computed on each call (tests move HOME)."""
    import platformdirs

    return Path(platformdirs.user_log_dir(APPLICATION, appauthor=False)) / "errors.log"


def record_error(where: str, trace: str) -> Path | None:
    """Append a bug's traceback (with the time and where it happened) to the error log; its path, or None when
    the log cannot be written (the traceback still goes to stderr)."""
    sys.stderr.write(f"{where}:\n{trace}")
    path = error_log_path()
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as log:
            log.write(f"--- {stamp} {where}\n{trace.rstrip()}\n")
    except OSError:
        return None
    return path


def bug_sentence(path: Path | None) -> str:
    """What the person is told about a bug, in the interface language."""
    if path is None:
        return QCoreApplication.translate("ErrorLog", "This is a bug in GPU Advisor (details on stderr).")
    return QCoreApplication.translate("ErrorLog", "This is a bug in GPU Advisor; its report is in {0}.").format(
        str(path)
    )


def install_excepthook(announce: Callable[[str], None]) -> None:
    """Route exceptions that escape the GUI thread's slots and virtuals to the error log, and announce each one
    (the main window shows it in its status bar). Never raises: it runs inside Qt's event loop."""

    def hook(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):  # Ctrl+C in the terminal that started the app: not a bug
            sys.__excepthook__(kind, error, trace)
            return
        text = "".join(traceback.format_exception(kind, error, trace))
        try:
            announce(f"{kind.__name__}: {error}. {bug_sentence(record_error('unhandled on the GUI thread', text))}")
        except Exception:  # the hook must not raise; the traceback is already on stderr
            pass

    sys.excepthook = hook
