"""Running `gpu-advisor` on hostile input and judging what came back (issue 14).

Two ways to run the command line, both through its stable entry points:

- in this process, through `desktop.entry.main(argv)` (fast: the bulk of the generated arguments), with stdout
  and stderr as strict UTF-8 byte streams like a real terminal's and a timer that turns a hang into a result;
- as a child process (`gpu-advisor ...`), for what only a real process shows: non-UTF-8 bytes in argv, a closed
  or broken stdout, special files that block or never end, exit codes, and a memory ceiling.

Every run becomes a `Run`; `judge` names its verdict (accepted, refused, crash, hang, messy) and the properties
it broke (a traceback, a hang, not-strict JSON, a refused import that wrote rows, ...). `Explorer` records each
run in the session's `TALLY` (the summary table of `make fuzz`) and fails the test on a violation, unless the
violation is one of the known defects of issue 14 (tests/fuzz/known_defects.py), each guarded by a strict xfail.

Safety: generated text never contains "/" or a leading "~", so a generated path is always relative to the
sandbox folder the test runs in; the harness never hands a real device path to anything that writes.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import resource
import signal
import sqlite3
import subprocess
import sys
import time
import traceback
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# A command that has not answered after this long is a hang (the slowest honest command here takes ~1 s alone,
# a few seconds on a busy 2-core machine).
HANG_TIMEOUT_S = 20.0
# A child may not take more memory than this: reading /dev/zero "without bound" then ends as a MemoryError (a
# crash the harness sees) instead of taking the machine down.
CHILD_MEMORY_BYTES = 1024**3
TRACEBACK = "Traceback (most recent call last)"
UNRAISABLE = "Exception ignored"
IMPORT_ERROR_ROW = re.compile(r"^row \d+: ")
# Issue 30 item 1: no control character but newline and tab reaches the terminal (C0, DEL, C1: a name from a
# file could retitle the window, recolour or clear the screen).
TERMINAL_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# The budget (tests/fuzz/conftest.py registers both profiles): "fuzz-ci" in `make test`, "fuzz" in `make fuzz`.
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "fuzz-ci")
if PROFILE not in ("fuzz-ci", "fuzz"):
    PROFILE = "fuzz-ci"
STRICT = PROFILE != "fuzz"  # fail at the first new violation (and shrink it) unless this is the long survey


# ---------------------------------------------------------------------------------------------------- a run


@dataclass
class Run:
    """What one invocation did. `code` is None when it hung; `exception` is "Type: message" of an exception that
    escaped (in-process) or the last line of the traceback on stderr (child process)."""

    entry: str
    argv: list[str]
    code: int | None
    stdout: bytes
    stderr: str
    seconds: float
    wants_json: bool = False
    exception: str | None = None
    detail: str = ""  # the full traceback, for the failure message

    @property
    def hung(self) -> bool:
        return self.code is None

    @property
    def stderr_lines(self) -> list[str]:
        """Lines as a terminal or a log shows them (\\n, \\r), not str.splitlines()'s wider idea of a break."""
        return [line for line in re.split(r"\r\n|\n|\r", self.stderr) if line.strip()]

    def describe(self) -> str:
        shown = " ".join(repr(a) if (not a or " " in a or not a.isprintable()) else a for a in self.argv)
        return f"gpu-advisor {shown[:600]}"


def _exception_line(stderr: str) -> str | None:
    """The "Type: message" line that ends a traceback on stderr, or the unraisable-exception line."""
    if TRACEBACK not in stderr and UNRAISABLE not in stderr:
        return None
    lines = [line for line in stderr.splitlines() if line.strip()]
    after = stderr.split(TRACEBACK)[-1] if TRACEBACK in stderr else stderr.split(UNRAISABLE)[-1]
    tail = [line for line in after.splitlines() if line.strip() and not line.startswith((" ", "\t"))]
    return (tail[-1] if tail else lines[-1]).strip()[:400]


class _Hang(BaseException):
    """Raised by the in-process timer; a BaseException so that no `except Exception` in the product eats it."""


def _utf8_stream() -> io.TextIOWrapper:
    # A terminal's stdout under a UTF-8 locale: strict UTF-8, so text the app cannot encode fails as it would.
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", newline="\n", write_through=True)


def run_in_process(argv: Sequence[str], entry: str, *, wants_json: bool = False,
                   timeout_s: float = HANG_TIMEOUT_S) -> Run:  # fmt: skip
    """`desktop.entry.main(argv)` in this process, stdout/stderr captured, a hang cut off after `timeout_s`."""
    from desktop.entry import main, wants_gui

    argv = list(argv)
    if wants_gui(argv):  # would open the main window and wait for a user: never what a fuzz input means
        raise AssertionError(f"generated arguments would open the GUI: {argv!r}")
    out, err = _utf8_stream(), io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")
    saved_env = dict(os.environ)  # the CLI writes --db into GPU_ADVISOR_DB for the rest of the process

    def on_alarm(_signum, _frame):
        raise _Hang

    previous = signal.signal(signal.SIGALRM, on_alarm)
    code: int | None = None
    exception = detail = None
    started = time.monotonic()
    try:
        signal.setitimer(signal.ITIMER_REAL, timeout_s)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = int(main(argv) or 0)
            except SystemExit as exc:  # argparse (--help, --version, a bad option)
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
                if not isinstance(exc.code, int) and exc.code is not None:
                    err.write(f"{exc.code}\n")
            except _Hang:
                code = None
            except BaseException as exc:  # noqa: BLE001 - the harness must see whatever escapes the entry point
                code = 1
                exception = f"{type(exc).__name__}: {exc}"[:400]
                detail = traceback.format_exc()
    except _Hang:  # the timer fired between the call's end and the disarm below
        code = None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        os.environ.clear()
        os.environ.update(saved_env)
    seconds = time.monotonic() - started
    with contextlib.suppress(ValueError):
        out.flush()
    with contextlib.suppress(ValueError, UnicodeEncodeError):
        err.flush()
    stdout = out.buffer.getvalue() if not out.closed else b""
    stderr = err.buffer.getvalue().decode("utf-8", "replace") if not err.closed else ""
    return Run(entry, argv, code, stdout, stderr, seconds, wants_json, exception, detail or "")


def cli_command() -> list[str]:
    """The installed `gpu-advisor` script next to this interpreter, else `python -m desktop.entry`."""
    script = Path(sys.executable).with_name("gpu-advisor")
    return [str(script)] if script.exists() else [sys.executable, "-m", "desktop.entry"]


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment (the suite's isolated HOME and database), a UTF-8 locale, the repository on
    the path; `extra` on top."""
    env = {**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "PYTHONPATH": str(REPO),
           "QT_QPA_PLATFORM": "offscreen", "PYTHONDONTWRITEBYTECODE": "1"}  # fmt: skip
    env.pop("PYTHONUTF8", None)
    env.update(extra or {})
    return env


@dataclass
class Child:
    """A started `gpu-advisor` child; `wait()` turns it into a Run (killing it when it has hung)."""

    entry: str
    argv: list[str]
    process: subprocess.Popen
    started: float
    timeout_s: float
    wants_json: bool

    def wait(self) -> Run:
        remaining = max(0.1, self.timeout_s - (time.monotonic() - self.started))
        try:
            out, err = self.process.communicate(timeout=remaining)
            code: int | None = self.process.returncode
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            out, err = self.process.communicate()
            code = None
        stderr = (err or b"").decode("utf-8", "replace")
        argv = [a if isinstance(a, str) else os.fsdecode(a) for a in self.argv]
        return Run(self.entry, argv, code, out or b"", stderr, time.monotonic() - self.started,
                   self.wants_json, _exception_line(stderr), stderr)  # fmt: skip


def start_child(argv: Sequence[str | bytes], entry: str, *, cwd: Path, stdout: str = "pipe",
                wants_json: bool = False, env: dict[str, str] | None = None, timeout_s: float = HANG_TIMEOUT_S,
                file_size_limit: int | None = None) -> Child:  # fmt: skip
    """Start `gpu-advisor argv` in `cwd`. stdout: "pipe" (captured), "closed" (fd 1 closed, as `>&-`) or
    "broken" (a pipe whose reader has gone, as `| head -c0`). file_size_limit: no file it writes may grow past
    this many bytes (RLIMIT_FSIZE; Python ignores SIGXFSZ, so the write fails with EFBIG as on a full disk)."""
    command: list[str | bytes] = [*cli_command(), *argv]
    stdout_target: int | None = subprocess.PIPE
    broken_writer = None
    if stdout == "closed":
        command = ["bash", "-c", 'exec "$@" >&-', "bash", *command]
        stdout_target = None
    elif stdout == "broken":
        reader, broken_writer = os.pipe()
        os.close(reader)
        stdout_target = broken_writer
    # start_new_session: its own process group, so a timeout also kills a probe child it started. The memory
    # ceiling is set from here (prlimit) rather than in a preexec_fn, which is unsafe with threads.
    process = subprocess.Popen(
        command, cwd=cwd, env=env or child_env(), stdin=subprocess.DEVNULL, stdout=stdout_target,
        stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    with contextlib.suppress(ProcessLookupError, PermissionError):
        resource.prlimit(process.pid, resource.RLIMIT_AS, (CHILD_MEMORY_BYTES, CHILD_MEMORY_BYTES))
        if file_size_limit is not None:
            resource.prlimit(process.pid, resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))
    if broken_writer is not None:
        os.close(broken_writer)
    return Child(entry, list(argv), process, time.monotonic(), timeout_s, wants_json)  # type: ignore[arg-type]


def run_child(argv: Sequence[str | bytes], entry: str, **options) -> Run:
    return start_child(argv, entry, **options).wait()


def run_children(jobs: Iterable[tuple[Sequence[str | bytes], str, dict]], parallel: int = 6) -> list[Run]:
    """Run many children, `parallel` at a time (hangs wait side by side, not one after another), in order."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=parallel) as pool:
        return list(pool.map(lambda job: run_child(job[0], job[1], **job[2]), jobs))


# ---------------------------------------------------------------------------------------------------- verdicts


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def strict_json(data: bytes) -> object:
    """json.loads that refuses NaN/Infinity and anything that is not UTF-8 (RFC 8259)."""
    return json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)


def json_problem(data: bytes) -> str | None:
    try:
        strict_json(data)
    except (ValueError, RecursionError) as exc:
        return f"stdout is not strict JSON ({type(exc).__name__}: {str(exc)[:120]})"
    return None


def all_finite(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(all_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(all_finite(v) for v in value)
    return True


def _clean_refusal(lines: list[str]) -> bool:
    """Exactly one line; `quotes import` also lists each bad row first ("row 7: ..."), as README documents."""
    if len(lines) == 1:
        return True
    return len(lines) > 1 and lines[-1].startswith("gpu-advisor: ") and all(
        IMPORT_ERROR_ROW.match(line) for line in lines[:-1]
    )


@dataclass(frozen=True)
class Violation:
    kind: str  # crash, hang, messy-refusal, json, terminal-control, db-written, moved-aside, export-*, wrong-value, ...
    what: str

    def signature(self) -> str:
        """Groups violations of one cause: the exception type and the start of its message."""
        head = re.sub(r"\d+", "N", self.what)[:70]
        return f"{self.kind}: {head}"


def judge(run: Run) -> tuple[str, list[Violation]]:
    """The run's verdict (accepted, refused, crash, hang, messy) and the properties it broke."""
    violations: list[Violation] = []
    if run.hung:
        return "hang", [Violation("hang", f"no answer within {run.seconds:.0f} s")]
    crashed = run.exception or TRACEBACK in run.stderr or UNRAISABLE in run.stderr
    if crashed:
        what = run.exception or _exception_line(run.stderr) or "traceback"
        verdict = "crash"
        violations.append(Violation("crash", what))
    elif run.code == 0:
        verdict = "accepted"
    elif run.code == 2:
        if _clean_refusal(run.stderr_lines):
            verdict = "refused"
        else:
            verdict = "messy"
            violations.append(Violation("messy-refusal", f"exit 2 with {len(run.stderr_lines)} stderr lines"))
    else:
        verdict = "crash"
        violations.append(Violation("crash", f"exit code {run.code}: {(run.stderr_lines or [''])[-1][:200]}"))
    if verdict != "crash":
        for stream, text in (("stdout", run.stdout.decode("utf-8", "replace")), ("stderr", run.stderr)):
            if found := TERMINAL_CONTROL.search(text):
                violations.append(Violation("terminal-control", f"{stream} carries {found.group()!r}"))
    if run.wants_json and (verdict == "accepted" or (verdict != "crash" and run.stdout.strip())):
        problem = json_problem(run.stdout)
        if problem:
            violations.append(Violation("json", problem))
    return verdict, violations


# ---------------------------------------------------------------------------------------------------- the tally

COLUMNS = ("inputs", "accepted", "refused", "crash", "hang", "json", "other")


@dataclass
class EntryCounts:
    inputs: int = 0
    accepted: int = 0
    refused: int = 0
    crash: int = 0
    hang: int = 0
    json: int = 0
    other: int = 0
    known: dict[str, int] = field(default_factory=dict)  # "item 4" -> violations matched to that known defect


class Tally:
    """Counts per entry point for the whole session (printed by tests/fuzz/conftest.py)."""

    def __init__(self) -> None:
        self.entries: dict[str, EntryCounts] = {}
        self.started = time.monotonic()

    def add(self, entry: str, verdict: str, violations: Sequence[Violation], known: Sequence[str]) -> None:
        counts = self.entries.setdefault(entry, EntryCounts())
        counts.inputs += 1
        if verdict in ("accepted", "refused", "crash", "hang"):
            setattr(counts, verdict, getattr(counts, verdict) + 1)
        kinds = {v.kind for v in violations}
        counts.json += "json" in kinds
        counts.other += bool(kinds - {"crash", "hang", "json"})
        for item in known:
            counts.known[item] = counts.known.get(item, 0) + 1

    def rows(self) -> list[list[str]]:
        rows = []
        for entry in sorted(self.entries):
            counts = self.entries[entry]
            known = ", ".join(f"{k}: {n}" for k, n in sorted(counts.known.items()))
            rows.append([entry, *(str(getattr(counts, c)) for c in COLUMNS), known or "-"])
        totals = [sum(getattr(c, col) for c in self.entries.values()) for col in COLUMNS]
        rows.append(["total", *(str(t) for t in totals), ""])
        return rows

    def table(self) -> str:
        headers = ["entry point", "inputs", "accepted (exit 0)", "clean refusals (exit 2, one line)",
                   "crashes", "hangs", "JSON violations", "other violations", "known defects hit (issue 14)"]  # fmt: skip
        lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows()]
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {entry: vars(counts) for entry, counts in sorted(self.entries.items())}


TALLY = Tally()


# ---------------------------------------------------------------------------------------------------- explorer


class Explorer:
    """One entry point under test: judge each run, record it, and fail on a violation that is not a known
    defect. strict=True raises at once (hypothesis then shrinks the input); strict=False (the long `make fuzz`
    run) keeps going so every input is counted, and `finish()` fails with the first example of each new cause."""

    def __init__(self, entry: str, strict: bool) -> None:
        self.entry = entry
        self.strict = strict
        self.unknown: dict[str, str] = {}

    def check(self, run: Run, extra: Sequence[Violation] = ()) -> str:
        from tests.fuzz.known_defects import match

        verdict, violations = judge(run)
        violations = [*violations, *extra]
        known, unknown = [], []
        for violation in violations:
            defect = match(run, violation)
            (known if defect else unknown).append(defect.item if defect else violation)
        TALLY.add(self.entry, verdict, violations, known)
        for violation in unknown:
            shown = run.detail[-1500:] or f"  stderr: {run.stderr[-600:]!r}"
            message = f"{violation.kind}: {violation.what}\n  input: {run.describe()}\n{shown}"
            if self.strict:
                raise AssertionError(message)
            self.unknown.setdefault(violation.signature(), message)
        return verdict

    def finish(self) -> None:
        if self.unknown:
            raise AssertionError(
                f"{len(self.unknown)} new kind(s) of failure in {self.entry}:\n\n" + "\n\n".join(self.unknown.values())
            )


# ---------------------------------------------------------------------------------------------------- the database


def is_sqlite(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def table_counts(db: Path) -> dict[str, int]:
    """Rows per table of the SQLite file (empty when there is no database, or the file is not one)."""
    if not is_sqlite(db):
        return {}
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {name: conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in names}
    finally:
        conn.close()


def moved_aside(folder: Path) -> list[Path]:
    """Files the store renamed to <name>.corrupt-<timestamp> in `folder`."""
    return sorted(folder.glob("*.corrupt-*"))


# ---------------------------------------------------------------------------------------------------- sandbox


def confined(folder: Path, name: str) -> str:
    """`name` as a path inside `folder`; refuses (AssertionError) anything that would leave it."""
    if "/" in name or name in ("", ".", "..") or name.startswith("~"):
        raise AssertionError(f"generated path {name!r} could leave the sandbox")
    return str(folder / name)


def devices_intact() -> list[str]:
    """The device files a fuzz input could be pointed at, still character devices (never renamed or replaced)."""
    import stat

    broken = []
    for device in ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/full"):
        try:
            if not stat.S_ISCHR(os.lstat(device).st_mode):
                broken.append(device)
        except FileNotFoundError:
            broken.append(device)
    return broken


def fuzz_settings(weight: float = 1.0):
    """The active profile's settings, with max_examples scaled by `weight` (a costly input gets fewer)."""
    from hypothesis import settings

    parent = settings.get_profile(PROFILE)
    base = int(os.environ.get("FUZZ_EXAMPLES") or parent.max_examples)  # `make fuzz FUZZ_EXAMPLES=5000`
    return settings(parent, max_examples=max(2, round(base * weight)))


def explorer(entry: str) -> Explorer:
    return Explorer(entry, strict=STRICT)
