"""Running gpu-probe as a child of `gpu-advisor probe` with time limits that match the work.

The child runs with --progress: a JSON line before each measurement (profiler/__main__.py documents the
protocol), so silence means a stall, not a long probe. The parent
- stops reading once the "done" event says the report is written, or once the child has exited and its pipe
  stays quiet for EXIT_GRACE_S (a grandchild that keeps the pipe open held it 90 s: issue 30);
- kills the child's whole process group (it starts in its own session) when no line came for PROBE_STALL_S,
  when Ctrl-C ends the command (a child in its own session gets no SIGINT from the terminal), and after the
  run, so that nothing the probe started outlives it.
Lines that are not protocol events (a GPU_ADVISOR_PROBE_CMD that prints a summary) are kept, to be shown.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import IO

from planner.errors import UserError
from planner.messages import msg
from profiler.exits import on_interrupt

# The longest stretch without a line: torch's first import on a cold disk and CUDA's start-up, before the first
# progress event, take about a minute on a slow machine; each measurement has a budget of a few seconds
# (profiler/probe_settings.py). Five minutes of silence is a hung child.
PROBE_STALL_S = 300.0
EXIT_GRACE_S = 2.0  # after the child exits: how long its pipe may stay open (its report is written already)
_POLL_S = 0.2


@dataclass
class ProbeChildOutcome:
    returncode: int
    other_lines: list[str] = field(default_factory=list)  # output that is not a protocol event, in order
    done: bool = False  # the child said its report is written ("done" event)
    error: str | None = None  # the child's "error" event, if any


def run_probe_child(command: list[str], stall_s: float = PROBE_STALL_S) -> ProbeChildOutcome:
    """Run `command` (gpu-probe with --progress) to its end; UserError when it stalls (the group is killed)."""
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=os.name == "posix",
    )
    lines: queue.Queue[str | None] = queue.Queue()
    assert process.stdout is not None
    threading.Thread(target=_read_lines, args=(process.stdout, lines), daemon=True).start()
    outcome = ProbeChildOutcome(returncode=0)
    try:
        with on_interrupt(lambda: stop_group(process)):
            _read_until_done(process, lines, outcome, stall_s)
            try:
                outcome.returncode = process.wait(timeout=EXIT_GRACE_S)
            except subprocess.TimeoutExpired:  # it said "done" but does not exit
                stop_group(process)
                outcome.returncode = process.wait()
    finally:
        stop_group(process)  # what the probe started and left behind (a grandchild holding the pipe)
        if process.poll() is None:
            process.wait()
    return outcome


def _read_until_done(
    process: subprocess.Popen[str], lines: queue.Queue[str | None], outcome: ProbeChildOutcome, stall_s: float
) -> None:
    last_line = time.monotonic()
    exited_at: float | None = None
    while True:
        try:
            line = lines.get(timeout=_POLL_S)
        except queue.Empty:
            now = time.monotonic()
            if exited_at is None and process.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at > EXIT_GRACE_S:
                return  # the child is gone; whoever still holds its pipe is not waited for
            if now - last_line > stall_s:
                stop_group(process)
                raise UserError.of(msg("error.probe_stalled", seconds=round(stall_s))) from None
            continue
        if line is None:
            return  # end of the output
        last_line = time.monotonic()
        event = _event(line)
        if event is None:
            outcome.other_lines.append(line)
        elif event.get("event") == "done":
            outcome.done = True
            return  # the report is in: stop reading
        elif event.get("event") == "error":
            outcome.error = str(event.get("message"))


def _read_lines(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    try:
        for line in stream:
            lines.put(line)
    except (OSError, ValueError):  # the pipe closed under us
        pass
    lines.put(None)


def _event(line: str) -> dict[str, object] | None:
    """A protocol event ({"event": ...}), or None for any other line."""
    if not line.startswith("{"):
        return None
    try:
        event = json.loads(line)
    except ValueError:
        return None
    return event if isinstance(event, dict) and isinstance(event.get("event"), str) else None


def stop_group(process: subprocess.Popen[str]) -> None:
    """Kill the child and every process in its group (POSIX; elsewhere the child alone)."""
    if os.name == "posix":
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):  # the group is gone already
            pass
    elif process.poll() is None:
        process.kill()
