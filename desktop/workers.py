"""Background work for the GUI: a job runner on QThreadPool and the probe child process.

Rules: the GUI thread never waits on slow work. A job runs a plain function on a pool thread and
reports back through signals that are delivered on the GUI thread; the function never touches widgets. The
probe runs in a child process (``gpu-probe --progress``) so a driver fault, an out-of-memory or a hang cannot
take the window down; Cancel kills the child.

PySide6 6.8+ trap: signals emitted from a pool thread reach plain Python callables in the *emitting* thread
unless the receiver is a QObject living in the GUI thread. ``Job`` is such a receiver: its ``@Slot`` methods run
on the GUI thread and only then call the caller's callbacks. The runner keeps a reference to every running job
so neither the job nor its signals are collected while the pool thread still uses them.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
import tempfile
import traceback
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QCoreApplication,
    QObject,
    QProcess,
    QProcessEnvironment,
    QRunnable,
    QThreadPool,
    QTimer,
    Signal,
    Slot,
)

ProgressCallback = Callable[[float, str], None]


class Cancelled(Exception):
    """Raised inside a job's progress callback after the job was cancelled; ends the job quietly."""


def describe_error(exc: BaseException) -> str:
    """One line for a person: a UserError's own message, otherwise the exception type and message."""
    from planner.errors import UserError

    if isinstance(exc, UserError):
        from desktop.messages import render_error

        return render_error(exc)  # in the interface language when the planner gave it as a Message
    if isinstance(exc, OSError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


class _JobSignals(QObject):
    """Emitted from the pool thread; connected (queued) to the Job living in the GUI thread."""

    finished = Signal(object)
    errored = Signal(object, str)
    progressed = Signal(float, str)


class _Runnable(QRunnable):
    def __init__(self, fn: Callable[..., Any], args: tuple, kwargs: dict, signals: _JobSignals, job: Job):
        super().__init__()
        # Python owns the runnable (Job keeps it): with autoDelete the pool would free it under Python's feet.
        self.setAutoDelete(False)
        self._fn, self._args, self._kwargs = fn, args, kwargs
        self._signals = signals
        self._job = job

    def run(self) -> None:  # runs on a pool thread
        try:
            result = self._fn(*self._args, **self._kwargs)
        except Cancelled:
            self._signals.errored.emit(Cancelled(), "cancelled")
        except BaseException as exc:  # report every failure; the GUI decides what to show
            self._signals.errored.emit(exc, traceback.format_exc())
        else:
            self._signals.finished.emit(result)


class Job(QObject):
    """One background call. Signals (GUI thread): done(result), failed(message), progress(fraction, message)."""

    done = Signal(object)
    failed = Signal(str)
    progress = Signal(float, str)

    def __init__(self, name: str, parent: QObject | None = None):
        super().__init__(parent)
        self.name = name
        self.cancelled = False
        self.running = True
        self.error: BaseException | None = None
        self.result: Any = None
        self.signals = _JobSignals()
        self.signals.finished.connect(self._on_finished)
        self.signals.errored.connect(self._on_errored)
        self.signals.progressed.connect(self._on_progressed)

    def cancel(self) -> None:
        """Ask the job to stop: its next progress report raises Cancelled (cooperative)."""
        self.cancelled = True

    def report_progress(self, fraction: float, message: str = "") -> None:
        """Called by the job function on the pool thread; fraction in 0..1."""
        if self.cancelled:
            raise Cancelled()
        self.signals.progressed.emit(float(fraction), message)

    @Slot(object)
    def _on_finished(self, result: object) -> None:
        self.running = False
        self.result = result
        self.done.emit(result)

    @Slot(object, str)
    def _on_errored(self, exc: object, trace: str) -> None:
        self.running = False
        if isinstance(exc, Cancelled):
            self.failed.emit(QCoreApplication.translate("workers", "Cancelled"))
            return
        self.error = exc if isinstance(exc, BaseException) else None
        if self.error is not None and not _is_expected(self.error):
            sys.stderr.write(f"background job {self.name!r} failed:\n{trace}")
        self.failed.emit(describe_error(exc) if isinstance(exc, BaseException) else str(exc))

    @Slot(float, str)
    def _on_progressed(self, fraction: float, message: str) -> None:
        self.progress.emit(fraction, message)


def _is_expected(exc: BaseException) -> bool:
    from planner.errors import UserError

    return isinstance(exc, (UserError, OSError, ValueError))


class JobRunner(QObject):
    """Runs functions off the GUI thread.

    ``run(fn, *args, on_done=..., on_error=..., on_progress=...)``: when ``on_progress`` is given (or
    ``fn`` declares a ``progress`` parameter) fn is called with ``progress=callable(fraction, message)``;
    calling it after ``job.cancel()`` raises Cancelled inside fn. Callbacks run on the GUI thread.
    ``jobs_changed(int)`` reports the number of running jobs (the main window shows a busy indicator).
    """

    jobs_changed = Signal(int)

    def __init__(self, parent: QObject | None = None, max_threads: int = 2):
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(max_threads)
        self._running: set[Job] = set()  # references keep jobs (and their signals) alive
        self._retired: deque[Job] = deque(maxlen=64)

    @property
    def running_count(self) -> int:
        return len(self._running)

    def run(
        self,
        fn: Callable[..., Any],
        *args: Any,
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[str], None] | None = None,
        on_progress: ProgressCallback | None = None,
        name: str | None = None,
    ) -> Job:
        job = Job(name or getattr(fn, "__name__", "job"), self)
        kwargs: dict[str, Any] = {}
        if on_progress is not None or _accepts_progress(fn):
            kwargs["progress"] = job.report_progress
        if on_done is not None:
            job.done.connect(on_done)
        if on_error is not None:
            job.failed.connect(on_error)
        if on_progress is not None:
            job.progress.connect(on_progress)
        job.done.connect(lambda _result, j=job: self._forget(j))
        job.failed.connect(lambda _message, j=job: self._forget(j))
        self._running.add(job)
        self.jobs_changed.emit(len(self._running))
        job.runnable = _Runnable(fn, args, kwargs, job.signals, job)
        self._pool.start(job.runnable)
        return job

    def _forget(self, job: Job) -> None:
        if job in self._running:
            self._running.discard(job)
            # Not deleteLater(): callers may still hold and read the job (job.result), and the pool thread may
            # still be returning from run(). Python owns it from now on; the retired list keeps the last few
            # alive long after their threads are done.
            job.setParent(None)
            self._retired.append(job)
            self.jobs_changed.emit(len(self._running))

    def cancel_all(self) -> None:
        for job in list(self._running):
            job.cancel()

    def wait_for_done(self, timeout_ms: int = 10_000) -> bool:
        """Block until the pool is idle (used at shutdown and in tests); True when it is."""
        return self._pool.waitForDone(timeout_ms)


def run_in_background(runner: JobRunner, fn: Callable[..., Any], *args: Any, **callbacks: Any) -> Job:
    """Functional spelling of ``runner.run`` (contract name)."""
    return runner.run(fn, *args, **callbacks)


def _accepts_progress(fn: Callable[..., Any]) -> bool:
    try:
        return "progress" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


# --------------------------------------------------------------------------------------------------------------
# The probe child process

DEFAULT_TIMEOUT_S = {"quick": 10 * 60, "full": 45 * 60}
_STDERR_TAIL_LINES = 20
_MAX_LINE_BYTES = 64 * 1024 * 1024  # a "done" line carries the whole report; refuse anything absurd


def probe_argv(mode: str, json_path: str) -> list[str]:
    """The child's argv: ``gpu-probe --progress --quick|--full --json FILE``.

    desktop.probe_command decides what runs ``gpu-probe`` (GPU_ADVISOR_PROBE_CMD, the bundled executable or
    ``python -m profiler``); the mode and file arguments are always appended, so a fake child in the tests
    sees what the real one would.
    """
    from desktop.probe_command import probe_command

    return probe_command(["--progress", f"--{mode}", "--json", json_path])


class ProbeProcess(QObject):
    """Runs the probe child and turns its JSON lines into signals (all on the GUI thread).

    Signals: started(list devices), progress(stage, fraction), result(event dict with "device" and
    "measurement"), finished(report dict), failed(message). Exactly one of finished/failed is emitted per run.
    """

    started = Signal(object)
    progress = Signal(str, float)
    result = Signal(object)
    finished = Signal(object)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._process: QProcess | None = None
        self._buffer = b""
        self._stderr_tail: deque[str] = deque(maxlen=_STDERR_TAIL_LINES)
        self._garbage: list[str] = []
        self._report: dict | None = None
        self._error_event: str | None = None
        self._json_path: str | None = None
        self._ended = True
        self._cancelled = False
        self._timed_out = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_timeout)
        self.mode = "quick"
        self.timeout_s = 0.0

    @property
    def running(self) -> bool:
        return not self._ended

    def start(self, mode: str = "quick", timeout_s: float | None = None) -> None:
        """Start a run; ``mode`` is "quick" or "full"; ``timeout_s`` kills a child that runs longer."""
        if self.running:
            raise RuntimeError("a probe is already running")
        if mode not in DEFAULT_TIMEOUT_S:
            raise ValueError(f"unknown probe mode {mode!r}")
        self.mode = mode
        self.timeout_s = float(timeout_s if timeout_s is not None else DEFAULT_TIMEOUT_S[mode])
        self._reset()
        handle, self._json_path = tempfile.mkstemp(prefix="gpu-advisor-probe-", suffix=".json")
        os.close(handle)
        argv = probe_argv(mode, self._json_path)
        process = QProcess(self)
        environment = QProcessEnvironment.systemEnvironment()
        environment.insert("PYTHONUNBUFFERED", "1")  # progress lines must arrive as they are printed
        environment.insert("CUDA_DEVICE_ORDER", "PCI_BUS_ID")  # NVML and CUDA agree on numbering
        process.setProcessEnvironment(environment)
        process.readyReadStandardOutput.connect(self._on_stdout)
        process.readyReadStandardError.connect(self._on_stderr)
        process.finished.connect(self._on_process_finished)
        process.errorOccurred.connect(self._on_process_error)
        self._process = process
        self._ended = False
        process.start(argv[0], argv[1:])
        self._timer.start(int(self.timeout_s * 1000))

    def cancel(self) -> None:
        """Kill the child; ``failed("Cancelled")`` follows once it is gone."""
        if self.running and self._process is not None:
            self._cancelled = True
            self._process.kill()

    def wait_killed(self, timeout_ms: int = 3000) -> None:
        """At shutdown: kill a running child and reap it so no orphan keeps the GPU busy."""
        if self.running and self._process is not None:
            self._cancelled = True
            self._process.kill()
            self._process.waitForFinished(timeout_ms)

    # -- internals -------------------------------------------------------------------------------------------
    def _reset(self) -> None:
        self._buffer = b""
        self._stderr_tail.clear()
        self._garbage = []
        self._report = None
        self._error_event = None
        self._cancelled = False
        self._timed_out = False

    @Slot()
    def _on_stdout(self) -> None:
        if self._process is None:
            return
        self._buffer += bytes(self._process.readAllStandardOutput().data())
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            self._handle_line(line)
        if len(self._buffer) > _MAX_LINE_BYTES:
            self._garbage.append(f"a line longer than {_MAX_LINE_BYTES} bytes")
            self._buffer = b""

    @Slot()
    def _on_stderr(self) -> None:
        if self._process is None:
            return
        text = bytes(self._process.readAllStandardError().data()).decode("utf-8", "replace")
        for line in text.splitlines():
            if line.strip():
                self._stderr_tail.append(line.rstrip())

    def _handle_line(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace").strip()
        if not text:
            return
        try:
            event = json.loads(text)
        except ValueError:
            event = None
        if not isinstance(event, dict) or not isinstance(event.get("event"), str):
            # torch or a library may print to stdout; keep a sample for the error message, ignore otherwise
            if len(self._garbage) < 5:
                self._garbage.append(text[:200])
            return
        kind = event["event"]
        if kind == "start":
            self.started.emit(list(event.get("devices") or []))
        elif kind == "progress":
            fraction = _clamp_fraction(event.get("fraction"))
            self.progress.emit(str(event.get("stage") or ""), fraction)
        elif kind == "result" and isinstance(event.get("measurement"), dict):
            self.result.emit(event)
        elif kind == "done" and isinstance(event.get("report"), dict):
            self._report = event["report"]
        elif kind == "error":
            self._error_event = str(event.get("message") or "unknown error")

    @Slot(int, QProcess.ExitStatus)
    def _on_process_finished(self, exit_code: int, exit_status: QProcess.ExitStatus) -> None:
        self._on_stdout()
        if self._buffer.strip():
            self._handle_line(self._buffer)
            self._buffer = b""
        crashed = exit_status == QProcess.ExitStatus.CrashExit
        self._end(self._outcome(exit_code, crashed))

    @Slot(QProcess.ProcessError)
    def _on_process_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            message = QCoreApplication.translate("workers", "The probe could not be started: {0}").format(
                self._process.errorString() if self._process else str(error)
            )
            self._end(message)
        # other errors (crash, kill) arrive through finished() as well

    @Slot()
    def _on_timeout(self) -> None:
        if self.running and self._process is not None:
            self._timed_out = True
            self._process.kill()

    def _outcome(self, exit_code: int, crashed: bool) -> dict | str:
        """The report dict on success, otherwise the message for failed()."""
        if self._timed_out:
            return QCoreApplication.translate(
                "workers", "The probe took longer than {0} s and was stopped."
            ).format(int(self.timeout_s))
        if self._cancelled:
            return QCoreApplication.translate("workers", "Cancelled")
        if self._error_event:
            return QCoreApplication.translate("workers", "The probe reported an error: {0}").format(
                self._error_event
            )
        if crashed or exit_code != 0:
            return QCoreApplication.translate("workers", "The probe exited with code {0}{1}").format(
                exit_code, self._details()
            )
        report = self._report or self._read_json_file()
        if report is None:
            return QCoreApplication.translate("workers", "The probe finished without a report{0}").format(
                self._details()
            )
        return report

    def _details(self) -> str:
        lines = list(self._stderr_tail)[-3:] or self._garbage[-3:]
        return (": " + " | ".join(lines)) if lines else "."

    def _read_json_file(self) -> dict | None:
        if not self._json_path:
            return None
        try:
            data = json.loads(Path(self._json_path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def _end(self, outcome: dict | str) -> None:
        if self._ended:
            return
        self._ended = True
        self._timer.stop()
        if self._json_path:
            Path(self._json_path).unlink(missing_ok=True)
            self._json_path = None
        if self._process is not None:
            self._process.deleteLater()
            self._process = None
        if isinstance(outcome, dict):
            self.finished.emit(outcome)
        else:
            self.failed.emit(outcome)


def _clamp_fraction(value: object) -> float:
    try:
        fraction = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0
    return min(1.0, max(0.0, fraction)) if fraction == fraction else 0.0
