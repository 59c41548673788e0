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
import os
import sys
import tempfile
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
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
    def __init__(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        signals: _JobSignals,
        job: Job,
    ):
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
        self.runnable: _Runnable | None = None  # set by JobRunner.run; kept here so Python owns it
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
        message = describe_error(exc) if isinstance(exc, BaseException) else str(exc)
        if self.error is not None and not _is_expected(self.error):
            from desktop.error_log import bug_sentence, record_error

            message += ". " + bug_sentence(record_error(f"background job {self.name!r} failed", trace))
        self.failed.emit(message)

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
        job = Job(str(name or getattr(fn, "__name__", "job")), self)
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


def _accepts_progress(fn: Callable[..., Any]) -> bool:
    try:
        return "progress" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


# --------------------------------------------------------------------------------------------------------------
# The probe child process
#
# Everything the child prints is untrusted: each line is bounded in size while it is read (a 70 MB line is
# dropped as it streams in, never joined or parsed), then validated by profiler.protocol before any of it
# reaches a model, so no value from the child can raise inside data(), a sort or a slot. Results are emitted in
# batches (one per read from the pipe), so a burst of N results costs the page O(N), not O(N^2).

DEFAULT_TIMEOUT_S = {"quick": 10 * 60, "full": 45 * 60}
_STDERR_TAIL_LINES = 20
_PROBLEM_SAMPLES = 5


@dataclass(frozen=True)
class ProbeTimers:
    """How a stuck child is ended (seconds; tests pass short ones).

    stall_s: no progress or result line for this long while the child runs -> it is stopped (a step stuck in
    the driver). terminate_grace_s: after asking it to stop (SIGTERM, so gpu-probe can stop torchrun's workers)
    before killing it. abandon_grace_s: after killing it, before the run is ended without waiting any longer
    (a process in uninterruptible sleep inside the driver ignores even SIGKILL until the driver lets go), so
    Quick and Full are never left disabled.
    """

    stall_s: float = 120.0
    terminate_grace_s: float = 5.0
    abandon_grace_s: float = 10.0


def probe_argv(mode: str, json_path: str) -> list[str]:
    """The child's argv: ``gpu-probe --progress --quick|--full --json FILE``.

    desktop.probe_command decides what runs ``gpu-probe`` (GPU_ADVISOR_PROBE_CMD, the bundled executable or
    ``python -m profiler``); the mode and file arguments are always appended, so a fake child in the tests
    sees what the real one would.
    """
    from desktop.probe_command import probe_command

    return probe_command(["--progress", f"--{mode}", "--json", json_path])


class LineReader:
    """Splits a byte stream into lines without ever holding more than `limit` bytes of one line.

    A line over the limit is dropped as its bytes arrive (counted, not kept), so an endless line costs a
    constant amount of memory and linear time, and none of it is parsed.
    """

    def __init__(self, limit: int):
        self.limit = limit
        self._parts: list[bytes] = []
        self._size = 0
        self._oversized = False

    def feed(self, data: bytes) -> list[bytes | int]:
        """Complete lines in `data` (bytes), with an int (the size) in place of each line over the limit."""
        lines: list[bytes | int] = []
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                self._add(data[start:])
                return lines
            self._add(data[start:end])
            lines.append(self._take())
            start = end + 1

    def flush(self) -> list[bytes | int]:
        """What is left after the stream ended (a last line without a newline)."""
        return [self._take()] if self._size or self._oversized else []

    def _add(self, piece: bytes) -> None:
        self._size += len(piece)
        if self._oversized or self._size > self.limit:
            self._oversized, self._parts = True, []
        elif piece:
            self._parts.append(piece)

    def _take(self) -> bytes | int:
        line: bytes | int = self._size if self._oversized else b"".join(self._parts)
        self._parts, self._size, self._oversized = [], 0, False
        return line


class ProbeProcess(QObject):
    """Runs the probe child and turns its JSON lines into signals (all on the GUI thread).

    Signals: started(list of profiler.protocol.DeviceInfo), progress(stage, fraction), result(event dict with
    "device" and "measurement", one per result) and results(list of the same, one per batch read together),
    warning(message: a line that was ignored, a report kept although the child then failed), finished(report
    dict, validated), failed(message). Exactly one of finished/failed is emitted per run.
    """

    started = Signal(object)
    progress = Signal(str, float)
    result = Signal(object)
    results = Signal(object)
    warning = Signal(str)
    finished = Signal(object)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None, timers: ProbeTimers | None = None):
        super().__init__(parent)
        from profiler.protocol import MAX_LINE_BYTES

        self.timers = timers or ProbeTimers()
        self._process: QProcess | None = None
        self._abandoned: list[QProcess] = []  # children that did not exit when killed (kept until they do)
        self._reader = LineReader(MAX_LINE_BYTES)
        self._stderr_tail: deque[str] = deque(maxlen=_STDERR_TAIL_LINES)
        self._garbage: list[str] = []
        self._problems: list[str] = []
        self._problem_count = 0
        self._report: dict[str, object] | None = None
        self._error_event: str | None = None
        self._json_path: str | None = None
        self._stage = ""
        self._ended = True
        self._stop_reason: str | None = None  # "cancelled" | "timeout" | "stalled" once stopping began
        self._timer = self._single_shot(self._on_timeout)
        self._stall_timer = self._single_shot(self._on_stall)
        self._kill_timer = self._single_shot(self._kill)
        self._abandon_timer = self._single_shot(self._abandon)
        self.mode = "quick"
        self.timeout_s = 0.0

    def _single_shot(self, slot: Callable[[], None]) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.timeout.connect(slot)
        return timer

    @property
    def running(self) -> bool:
        return not self._ended

    def start(self, mode: str = "quick", timeout_s: float | None = None) -> None:
        """Start a run; ``mode`` is "quick" or "full"; ``timeout_s`` stops a child that runs longer."""
        self.begin(mode, timeout_s)
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
        process.start(argv[0], argv[1:])

    def begin(self, mode: str = "quick", timeout_s: float | None = None) -> None:
        """Mark a run as started (timers running) before any output is fed: start() does this, then starts the
        child; tests call it and feed_stdout / end_of_output without a child."""
        if self.running:
            raise RuntimeError("a probe is already running")
        if mode not in DEFAULT_TIMEOUT_S:
            raise ValueError(f"unknown probe mode {mode!r}")
        self.mode = mode
        self.timeout_s = float(timeout_s if timeout_s is not None else DEFAULT_TIMEOUT_S[mode])
        self._reset()
        self._ended = False
        self._timer.start(int(self.timeout_s * 1000))
        self._stall_timer.start(int(self.timers.stall_s * 1000))

    def cancel(self) -> None:
        """Stop the child; ``failed("Cancelled")`` follows once it is gone (or given up on)."""
        if self.running and self._process is not None:
            self._stop("cancelled")

    def wait_killed(self, timeout_ms: int = 3000) -> None:
        """At shutdown: kill a running child and reap it so no orphan keeps the GPU busy."""
        for process in [p for p in (self._process, *self._abandoned) if p is not None]:
            if process.state() != QProcess.ProcessState.NotRunning:
                process.kill()
                process.waitForFinished(timeout_ms)
        if self.running:
            self._stop_reason = self._stop_reason or "cancelled"

    # -- feeding (the QProcess slots call these; tests may call them directly) ----------------------------------
    def feed_stdout(self, data: bytes) -> None:
        """Parse whatever the child printed: complete lines are validated and emitted, in one batch."""
        batch: list[dict[str, object]] = []
        for line in self._reader.feed(data):
            self._handle_line(line, batch)
        self._emit_batch(batch)

    def _handle_line(self, line: bytes | int, batch: list[dict[str, object]]) -> None:
        from profiler import protocol

        if isinstance(line, int):
            self._problem(
                QCoreApplication.translate(
                    "workers", "a line of {0} bytes (over the limit; not read)"
                ).format(f"{line:,}")
            )
            return
        try:
            event = protocol.parse_line(line)
        except (
            protocol.NotAnEvent
        ) as garbage:  # torch or a library printing to stdout: a sample for the message
            if len(self._garbage) < _PROBLEM_SAMPLES:
                self._garbage.append(str(garbage))
            return
        except protocol.ProtocolError as exc:
            self._problem(str(exc))
            return
        if event is not None:
            self._dispatch(event, batch)

    def _dispatch(self, event: object, batch: list[dict[str, object]]) -> None:
        from profiler import protocol

        if isinstance(event, protocol.Start):
            self._alive()
            self.started.emit(list(event.devices))
        elif isinstance(event, protocol.Progress):
            self._alive()
            self._stage = event.stage
            self.progress.emit(event.stage, event.fraction)
        elif isinstance(event, protocol.Result):
            self._alive()
            batch.append({"device": event.device, "measurement": event.measurement})
        elif isinstance(event, protocol.Done):
            self._report = dict(event.report)
        elif isinstance(event, protocol.Failure):
            self._error_event = event.message

    def _emit_batch(self, batch: list[dict[str, object]]) -> None:
        for item in batch:
            self.result.emit(item)
        if batch:
            self.results.emit(batch)

    def _alive(self) -> None:
        """A line that shows the child is making progress: the stall timer starts again."""
        if self.running and self._stop_reason is None:
            self._stall_timer.start(int(self.timers.stall_s * 1000))

    def _problem(self, message: str) -> None:
        self._problem_count += 1
        if len(self._problems) < _PROBLEM_SAMPLES:
            self._problems.append(message)
        if self._problem_count == 1:  # say it once at once; the end of the run says how many
            self.warning.emit(
                QCoreApplication.translate(
                    "workers", "The probe sent a line the app could not use, and it was ignored: {0}"
                ).format(message)
            )

    # -- internals -------------------------------------------------------------------------------------------
    def _reset(self) -> None:
        from profiler.protocol import MAX_LINE_BYTES

        self._reader = LineReader(MAX_LINE_BYTES)
        self._stderr_tail.clear()
        self._garbage = []
        self._problems = []
        self._problem_count = 0
        self._report = None
        self._error_event = None
        self._stage = ""
        self._stop_reason = None

    @Slot()
    def _on_stdout(self) -> None:
        if self._process is None:
            return
        try:
            self.feed_stdout(bytes(self._process.readAllStandardOutput().data()))
        except (
            Exception
        ) as exc:  # a slot must survive any child output; a defect here is reported, not raised
            self._problem(f"{type(exc).__name__}: {exc}")
            sys.stderr.write(traceback.format_exc())

    @Slot()
    def _on_stderr(self) -> None:
        if self._process is None:
            return
        text = bytes(self._process.readAllStandardError().data()).decode("utf-8", "replace")
        for line in text.splitlines():
            if line.strip():
                self._stderr_tail.append(line.rstrip()[:500])

    @Slot(int, QProcess.ExitStatus)
    def _on_process_finished(self, exit_code: int, exit_status: QProcess.ExitStatus) -> None:
        self._on_stdout()
        self.end_of_output(exit_code, exit_status == QProcess.ExitStatus.CrashExit)

    def end_of_output(self, exit_code: int, crashed: bool) -> None:
        """The child is gone: read what is left, then emit finished(report) or failed(message)."""
        try:
            batch: list[dict[str, object]] = []
            for line in self._reader.flush():
                self._handle_line(line, batch)
            self._emit_batch(batch)
            outcome = self._outcome(exit_code, crashed)
        except Exception as exc:  # the run must end (buttons back) whatever went wrong in reading it
            outcome = QCoreApplication.translate("workers", "The probe output could not be read: {0}").format(
                f"{type(exc).__name__}: {exc}"
            )
        self._end(outcome)

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
        if self.running and self._stop_reason is None:
            self._stop("timeout")

    @Slot()
    def _on_stall(self) -> None:
        if self.running and self._stop_reason is None:
            self._stop("stalled")

    def _stop(self, reason: str) -> None:
        """Ask the child to stop (SIGTERM), kill it after the grace period, give up on it after another."""
        self._stop_reason = reason
        self._stall_timer.stop()
        self._timer.stop()
        self._terminate()
        self._kill_timer.start(int(self.timers.terminate_grace_s * 1000))

    def _terminate(self) -> None:
        if self._process is not None:
            self._process.terminate()

    @Slot()
    def _kill(self) -> None:
        if not self.running:
            return
        if self._process is None:  # a run fed without a child (tests): nothing to wait for
            self._end(self._stopped_message())
            return
        self._kill_child()
        self._abandon_timer.start(int(self.timers.abandon_grace_s * 1000))

    def _kill_child(self) -> None:
        """SIGKILL (TerminateProcess on Windows). A process stuck in the driver survives even this."""
        if self._process is not None:
            self._process.kill()

    @Slot()
    def _abandon(self) -> None:
        """The child did not exit even when killed (stuck in the driver): end the run without it."""
        if not self.running or self._process is None:
            return
        process, pid = self._process, self._process.processId()
        process.readyReadStandardOutput.disconnect(self._on_stdout)
        process.readyReadStandardError.disconnect(self._on_stderr)
        process.finished.disconnect(self._on_process_finished)
        process.errorOccurred.disconnect(self._on_process_error)
        self._abandoned.append(process)
        process.finished.connect(lambda *_args, p=process: self._forget_abandoned(p))
        self._process = None
        stuck = QCoreApplication.translate(
            "workers",
            "The probe process (pid {0}) did not exit when it was killed; it may be stuck in the GPU driver. "
            "The run was ended without it.",
        ).format(pid)
        self._end(f"{self._stopped_message()} {stuck}".strip())

    def _forget_abandoned(self, process: QProcess) -> None:
        if process in self._abandoned:
            self._abandoned.remove(process)
            process.deleteLater()

    def _stopped_message(self) -> str:
        if self._stop_reason == "timeout":
            return QCoreApplication.translate(
                "workers", "The probe took longer than {0} s and was stopped."
            ).format(int(self.timeout_s))
        if self._stop_reason == "stalled":
            stage = self._stage or QCoreApplication.translate("workers", "starting")
            return QCoreApplication.translate(
                "workers", "The probe made no progress for {0} s (at: {1}) and was stopped."
            ).format(f"{self.timers.stall_s:g}", stage)
        if self._stop_reason == "cancelled":
            return QCoreApplication.translate("workers", "Cancelled")
        return ""

    def _outcome(self, exit_code: int, crashed: bool) -> dict[str, object] | str:
        """The report dict on success, otherwise the message for failed(). A report the child finished and sent
        is kept even when the child then exits with an error (torch often aborts at exit after a CUDA error)."""
        if self._stop_reason is not None:
            return self._stopped_message()
        report = self._report
        if report is None and not self._error_event and not crashed and exit_code == 0:
            report = self._read_json_file()
        if report is not None:
            self._warn_if_the_end_went_wrong(exit_code, crashed)
            return report
        if self._error_event:
            return QCoreApplication.translate("workers", "The probe reported an error: {0}").format(
                self._error_event
            )
        if crashed or exit_code != 0:
            return QCoreApplication.translate("workers", "The probe exited with code {0}{1}").format(
                exit_code, self._details()
            )
        return QCoreApplication.translate("workers", "The probe finished without a report{0}").format(
            self._details()
        )

    def _warn_if_the_end_went_wrong(self, exit_code: int, crashed: bool) -> None:
        if crashed or exit_code != 0:
            how = (
                QCoreApplication.translate("workers", "crashed")
                if crashed
                else QCoreApplication.translate("workers", "exited with code {0}").format(exit_code)
            )
            self.warning.emit(
                QCoreApplication.translate("workers", "The probe sent its finished report, then {0}{1} The report was kept; a CUDA error during "
                    "the run is the usual cause.").format(how, self._details())
            )  # fmt: skip
        elif self._error_event:
            self.warning.emit(
                QCoreApplication.translate(
                    "workers", "The probe reported an error after its report: {0}"
                ).format(self._error_event)
            )
        if self._problem_count > 1:
            self.warning.emit(
                QCoreApplication.translate(
                    "workers", "{0} lines from the probe were ignored; the first: {1}"
                ).format(self._problem_count, self._problems[0])
            )

    def _details(self) -> str:
        lines = list(self._stderr_tail)[-3:] or self._garbage[-3:] or self._problems[-3:]
        return (": " + " | ".join(lines)) if lines else "."

    def _read_json_file(self) -> dict[str, object] | None:
        """The report file the child wrote, read strictly (size-bounded, validated); a bad one is a problem."""
        from profiler.report import ReportError, load_report

        if not self._json_path or not os.path.getsize(self._json_path):
            return None
        try:
            return dict(load_report(self._json_path).data)
        except ReportError as exc:
            self._problem(QCoreApplication.translate("workers", "the report file: {0}").format(str(exc)))
            return None

    def _end(self, outcome: dict[str, object] | str) -> None:
        if self._ended:
            return
        self._ended = True
        for timer in (self._timer, self._stall_timer, self._kill_timer, self._abandon_timer):
            timer.stop()
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
