"""`gpu-advisor memory --trace`: run profiler.memory_trace in a child process (torch and transformers load only
there) and return its result; the comparison with the analytic figures is planner.memory.trace."""

from __future__ import annotations

import subprocess
import time

from planner.errors import UserError
from planner.memory.trace import TRACE_MODULE, TRACE_TIMEOUT_S, parse_trace_line
from planner.messages import msg
from profiler.child_command import isolated_module_command


def run_trace(arguments: list[str], timeout_s: float = TRACE_TIMEOUT_S) -> tuple[dict[str, object], float]:
    """(the child's result, wall seconds); UserError with the child's own message when it fails."""
    command = isolated_module_command(TRACE_MODULE, arguments)
    started = time.monotonic()
    try:
        completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        raise UserError.of(msg("error.trace_failed", reason=f"no result after {timeout_s:.0f} s")) from None
    wall_s = time.monotonic() - started
    result, error = None, None
    for line in completed.stdout.splitlines():
        event = parse_trace_line(line)
        if event is not None and event.kind == "result":
            result = event.result
        elif event is not None and event.kind == "error":
            error = event.message
    if result is None:
        tail = (completed.stderr.strip().splitlines() or ["no output"])[-1]
        raise UserError.of(msg("error.trace_failed", reason=error or tail))
    return result, wall_s
