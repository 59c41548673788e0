"""Writers that meet the user's own files, and Ctrl-C at any moment (issue 30 items 4 and 6).

Writers: every option that names a file or folder the command writes, against an existing file of any content
(or an export folder holding any of the files an export writes). Without --force the command refuses in one
line and the file keeps its bytes; with --force it may replace them. Every subcommand that has --force must be
in WRITERS, so a new writer is fuzzed as soon as it exists.

Signals: `gpu-advisor` children interrupted by SIGINT after a generated delay (from inside start-up to well into
the work). Properties: exit 130 with at most one line ("gpu-advisor: interrupted", or the refusal it had just
written) and no traceback, or the command finished first (exit 0 with its output). A SIGINT that lands before CPython installs its handler kills
the process by the signal, which a shell reports as 130: accepted; so is one before the entry point's first line
(CPython's start-up, the console script's import: see before_the_app). A clean interruption is tallied as a clean
refusal.
"""

from __future__ import annotations

import itertools
import re
import signal
import time
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.exports.common import EXPORT_FILES
from tests.fuzz.harness import Violation, explorer, fuzz_settings, run_in_process, start_child
from tests.fuzz.strategies import commands

pytestmark = pytest.mark.slow

COUNTER = itertools.count()
PLAN = ["plan", "--model", "7b", "--gpu", "h100-sxm", "--top", "1"]
# subcommand -> (argv with {path}, whether --force is quick enough to run here: validate and probe do real work)
WRITERS = {
    "plan": [([*PLAN, "--export", "{path}"], True), ([*PLAN, "--probe-shapes", "{path}"], True)],
    "quotes export": [(["quotes", "export", "{path}"], True), (["quotes", "export", "--all", "{path}"], True)],
    "validate": [(["validate", "--write-bands", "{path}"], False)],
    "probe": [(["probe", "--no-save", "--json", "{path}"], False)],
}


def test_every_subcommand_with_force_is_fuzzed_as_a_writer():
    with_force = {c.name for c in commands() if any("--force" in a.option_strings for a in c.options())}
    assert with_force == set(WRITERS)


def test_writers_keep_the_users_files(sandbox, monkeypatch):
    fuzz = explorer("writers: existing files (--force)")
    monkeypatch.setenv("GPU_ADVISOR_PROBE_CMD", str(sandbox / "no-such-probe"))  # a forced probe fails at once
    cases = [(argv, quick) for variants in WRITERS.values() for argv, quick in variants]

    @fuzz_settings(1.0)
    @given(st.sampled_from(cases), st.binary(max_size=64), st.sets(st.sampled_from(EXPORT_FILES), min_size=1),
           st.booleans())  # fmt: skip
    def explore(case, content, names, force):
        argv, quick = case
        force = force and quick
        target = sandbox / f"target-{next(COUNTER)}"
        if "--export" in argv:
            target.mkdir()
            kept = [target / name for name in sorted(names)]
        else:
            kept = [target]
        for path in kept:
            path.write_bytes(content)
        run = run_in_process([*(a.format(path=target) for a in argv), *(["--force"] * force)], fuzz.entry)
        extra = []
        unchanged = all(path.read_bytes() == content for path in kept)
        if not force and not (run.code == 2 and unchanged and "--force" in run.stderr):
            extra.append(Violation("overwrote", f"without --force: exit {run.code}, file kept: {unchanged}"))
        fuzz.check(run, extra)

    explore()
    fuzz.finish()


# Before the entry point's first line runs, a SIGINT is CPython's: inside its own start-up (importing `site`) it
# prints "Fatal Python error: init_import_site" and a traceback; inside the console script pip wrote, while it
# imports desktop.entry, a KeyboardInterrupt traceback whose only frames are that script and the import system.
# Both are outside the app's reach (it has not run yet), like a signal before its handler exists: accepted, and
# counted in BEFORE_THE_APP so the note can say how often the fuzz met them.
CPYTHON_START_UP = "Fatal Python error: init_import_site"
BEFORE_THE_APP: list[str] = []


def before_the_app(stderr: str) -> bool:
    if CPYTHON_START_UP in stderr:
        return True
    frames = re.findall(r'^  File "([^"]+)"', stderr, flags=re.MULTILINE)
    launcher_only = all(name.startswith("<frozen ") or name.endswith("/gpu-advisor") for name in frames)
    return bool(frames) and launcher_only and stderr.rstrip().endswith("KeyboardInterrupt")
SIGNALLED = (
    ["plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--json"],
    ["quotes", "list", "--json"],
    ["history"],
    ["models"],
    ["rentbuy", "--gpu", "h100-sxm", "--gpus", "8", "--rent-per-gpu-hour", "2.5"],
    ["memory", "--model", "llama-3.1-70b", "--gpus", "8"],
)


def test_ctrl_c_at_any_moment(sandbox):
    fuzz = explorer("signals: SIGINT at any moment (child)")

    @fuzz_settings(0.5)
    @given(st.sampled_from(SIGNALLED), st.floats(0.05, 2.5))
    def explore(argv, delay_s):
        child = start_child(argv, fuzz.entry, cwd=sandbox)
        time.sleep(delay_s)
        child.process.send_signal(signal.SIGINT)
        run = child.wait()
        if before_the_app(run.stderr):  # before any line of GPU Advisor ran: as a signal before the handler
            BEFORE_THE_APP.append(f"{delay_s:.2f} s: {run.stderr.strip().splitlines()[-1]}")
            run = replace(run, code=-signal.SIGINT, stderr="", exception=None, detail="")
        interrupted = run.code in (130, -signal.SIGINT)
        extra = []
        if interrupted and len(run.stderr_lines) > 1:
            extra.append(Violation("messy-interrupt", f"stderr after Ctrl-C: {run.stderr_lines[-3:]!r}"))
        elif interrupted:  # one line at most (its own, or a refusal it wrote just before): a clean refusal
            run = replace(run, code=2, stderr=run.stderr or "gpu-advisor: interrupted\n")
        fuzz.check(run, extra)

    explore()
    if BEFORE_THE_APP:
        print(f"\nSIGINT before the entry point ran ({len(BEFORE_THE_APP)}): {BEFORE_THE_APP}")
    fuzz.finish()
