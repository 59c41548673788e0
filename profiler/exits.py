"""How `gpu-advisor` and `gpu-probe` end when the terminal goes away or the user presses Ctrl-C (issue 30 item 4).

- Ctrl-C at any moment exits 130 (the shell's 128 + SIGINT) with one line on stderr: inside the command's own
  work (`interruptible()`) it raises KeyboardInterrupt, so finally blocks stop children and close files; during
  start-up, the closing flush or interpreter shutdown it exits at once, where a KeyboardInterrupt would have
  printed a traceback (or, uncaught, ended the process by the signal itself).
- A closed stdout or stderr (`>&-`, Python then holds None) becomes the null device; a reader that went away
  (`| head -c0`) never leaves "Exception ignored ... BrokenPipeError" at exit.

Stdlib only: the two entry points call `run_entry` as the very first thing.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

INTERRUPTED_EXIT = 130  # 128 + SIGINT, what shells report for a command ended by Ctrl-C



class _State:
    prog = "gpu-advisor"  # the name the interrupted line starts with
    raising = 0  # > 0 inside interruptible()


_on_interrupt: list[Callable[[], None]] = []  # run before an immediate exit (e.g. stop a child's process group)


def _write_stderr(text: str) -> None:
    try:
        os.write(2, text.encode("utf-8", "replace"))
    except OSError:  # stderr closed: nothing to tell
        pass


def exit_interrupted() -> None:
    """One line, the registered clean-ups, exit 130 now (no flush that could block or fail)."""
    for stop in reversed(_on_interrupt):
        try:
            stop()
        except Exception:  # noqa: BLE001 - leaving is what matters now
            pass
    _write_stderr(f"{_State.prog}: interrupted\n")
    os._exit(INTERRUPTED_EXIT)


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    if _State.raising > 0:
        raise KeyboardInterrupt
    exit_interrupted()


@contextmanager
def interruptible() -> Iterator[None]:
    """Ctrl-C inside raises KeyboardInterrupt (the caller's finally blocks run); outside it exits at once."""
    _State.raising += 1
    try:
        yield
    finally:
        _State.raising -= 1


@contextmanager
def on_interrupt(stop: Callable[[], None]) -> Iterator[None]:
    """Run `stop` if Ctrl-C ends the process while this block runs (a child in its own session gets no SIGINT
    from the terminal, so its parent stops it)."""
    _on_interrupt.append(stop)
    try:
        yield
    finally:
        _on_interrupt.remove(stop)


def streams_present() -> None:
    """`cmd >&-` starts Python with sys.stdout None: write to the null device instead of crashing."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - lives as long as the process


def _flush_quietly() -> None:
    """Flush stdout and stderr now; a reader that went away gets the null device, so the flush Python does at
    exit has nothing left to fail on."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
            except (OSError, ValueError):
                pass


def _ending_unraisable_interrupts(
    previous: Callable[[sys.UnraisableHookArgs], object],
) -> Callable[[sys.UnraisableHookArgs], None]:
    """An unraisable hook that ends the process as Ctrl-C does when the exception Python could not raise is
    _on_sigint's KeyboardInterrupt: a signal handled inside a weakref callback (the import system's module locks
    run one at every import) or a destructor is printed as "Exception ignored in ..." and the command goes on.
    Every other unraisable goes to `previous`."""

    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        if unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt):
            exit_interrupted()
        previous(unraisable)

    return hook


def run_entry(prog: str, body: Callable[[], int]) -> int:
    """An entry point's whole run: handlers first, `body` interruptible, a flush that cannot traceback."""
    _State.prog = prog
    streams_present()
    sys.unraisablehook = _ending_unraisable_interrupts(sys.unraisablehook)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _on_sigint)
    try:
        with interruptible():
            code = body()
    except KeyboardInterrupt:
        exit_interrupted()
    except BrokenPipeError:
        code = 0
    _flush_quietly()
    return code
