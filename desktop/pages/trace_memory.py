"""Plan page: "Trace exactly" -- the chosen option's memory traced on the real Hugging Face model.

The trace runs in a child process (`python -m profiler.memory_trace`, torch and transformers load only there: the
GUI process never imports them) on fake tensors, so even a 70B model takes a minute or two and allocates nothing.
The dialog shows its progress, can cancel it, and then puts the analytic figures (the option's MemoryBreakdown)
beside the traced ones, term by term, with what explains the difference. planner.memory.trace builds the
command line, parses the child's JSON lines and pairs the figures; this module only runs and shows them.

The Plan page adds the action with one call, install_trace_action(page, layout): the button keeps its own text
in the interface language and finds the selected option, the model and the workload on the page when clicked.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QProcess, QProcessEnvironment, QTimer, Signal
from PySide6.QtWidgets import (
    QBoxLayout,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop import fmt
from planner.errors import UserError
from planner.memory import MemoryBreakdown, MemoryConfig
from planner.memory.trace import (
    MAX_TRACE_LINE_BYTES,
    TRACE_MODULE,
    TRACE_TIMEOUT_S,
    comparison,
    parse_trace_line,
    trace_arguments,
)
from profiler.child_command import isolated_module_command

if TYPE_CHECKING:
    from planner.models import ModelSpec
    from planner.search import PlanOption, Workload

ROWS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "peak")


def trace_unavailable_reason() -> str | None:
    """Why this installation cannot trace (None: it can), decided without importing transformers or torch."""
    if getattr(sys, "frozen", False):
        return QCoreApplication.translate(
            "TraceMemory",
            "The packaged app does not include transformers. Trace from a source install: "
            "pip install 'gpu-advisor[trace]', then gpu-advisor memory --trace.",
        )
    if importlib.util.find_spec("transformers") is None or importlib.util.find_spec("torch") is None:
        return QCoreApplication.translate(
            "TraceMemory",
            "torch and transformers are not installed here. Install them with: pip install 'gpu-advisor[trace]'",
        )
    return None


def memory_config_for(workload: Workload, option: PlanOption) -> MemoryConfig:
    """The MemoryConfig the search estimated for this option (as planner.search.common.SearchMemory builds it)."""
    return MemoryConfig(
        task=workload.task, precision=workload.precision, kv_precision=workload.kv_precision,
        optimizer=workload.optimizer, seq_len=workload.seq_len, lora_rank=workload.lora_rank, layout=option.layout,
    )  # fmt: skip


class TraceProcess(QObject):
    """The tracing child as signals on the GUI thread: progress(stage, elapsed_s), finished(result dict),
    failed(message). Exactly one of finished/failed per run; cancel() ends it with failed("Cancelled")."""

    progress = Signal(str, float)
    finished = Signal(object)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._process: QProcess | None = None
        self._buffer = b""
        self._result: dict[str, object] | None = None
        self._error = ""
        self._stderr_tail = b""
        self._ended = True
        self._cancelled = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_timeout)

    @property
    def running(self) -> bool:
        return not self._ended

    def start(self, arguments: list[str], timeout_s: float = TRACE_TIMEOUT_S) -> None:
        self._buffer, self._result, self._error, self._stderr_tail = b"", None, "", b""
        self._ended, self._cancelled = False, False
        process = QProcess(self)
        environment = QProcessEnvironment.systemEnvironment()
        environment.insert("PYTHONUNBUFFERED", "1")
        process.setProcessEnvironment(environment)
        process.readyReadStandardOutput.connect(self._on_stdout)
        process.readyReadStandardError.connect(self._on_stderr)
        process.finished.connect(self._on_finished)
        process.errorOccurred.connect(self._on_error)
        self._process = process
        self._timer.start(int(timeout_s * 1000))
        # isolated from the current folder: a model folder's own json.py or torch.py never runs here
        command = isolated_module_command(TRACE_MODULE, arguments, unbuffered=True)
        process.start(command[0], command[1:])

    def cancel(self) -> None:
        if self.running and self._process is not None:
            self._cancelled = True
            self._process.kill()

    def wait_killed(self, timeout_ms: int = 3000) -> None:
        """When the dialog closes: no child is left behind."""
        if self._process is not None and self._process.state() != QProcess.ProcessState.NotRunning:
            self._cancelled = True
            self._process.kill()
            self._process.waitForFinished(timeout_ms)

    def feed(self, data: bytes) -> None:
        """Handle what the child printed (complete lines); tests call it without a child."""
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        if len(self._buffer) > MAX_TRACE_LINE_BYTES:
            self._buffer = b""
            self._error = self.tr("the trace printed a line longer than 4 MiB")
        for line in lines:
            event = parse_trace_line(line)
            if event is None:
                continue
            if event.kind == "progress":
                self.progress.emit(event.stage, event.elapsed_s)
            elif event.kind == "result":
                self._result = event.result
            else:
                self._error = event.message

    def end(self) -> None:
        """The child is gone: emit finished or failed once."""
        if self._ended:
            return
        self._ended = True
        self._timer.stop()
        if self._cancelled:
            self.failed.emit(self.tr("Cancelled"))
        elif self._result is not None:
            self.finished.emit(self._result)
        else:
            tail = self._stderr_tail.decode("utf-8", "replace").strip().splitlines()
            reason = self._error or (tail[-1] if tail else "") or self.tr("the trace ended without a result")
            self.failed.emit(reason)

    def _on_stdout(self) -> None:
        if self._process is not None:
            self.feed(bytes(self._process.readAllStandardOutput().data()))

    def _on_stderr(self) -> None:
        if self._process is not None:
            self._stderr_tail = (self._stderr_tail + bytes(self._process.readAllStandardError().data()))[
                -4096:
            ]

    def _on_finished(self, _code: int, _status: QProcess.ExitStatus) -> None:
        self._on_stdout()
        self.end()

    def _on_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self._error = self.tr("the trace could not start: {0}").format(sys.executable)
            self.end()

    def _on_timeout(self) -> None:
        self._error = self.tr("no result after {0}").format(fmt.duration(TRACE_TIMEOUT_S))
        if self._process is not None:
            self._process.kill()


class TraceMemoryDialog(QDialog):
    """Analytic against traced memory of one option, the trace running in the background."""

    def __init__(self, model: ModelSpec, config: MemoryConfig, breakdown: MemoryBreakdown,
                 parent: QWidget | None = None):  # fmt: skip
        super().__init__(parent)
        self.model, self.config, self.breakdown = model, config, breakdown
        self.rows: dict[str, dict[str, object]] = {}
        self.setWindowTitle(self.tr("Trace memory exactly"))
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.table = QTableWidget(len(ROWS), 5)
        self.table.setTabKeyNavigation(False)  # Tab leaves the table; arrows move between cells
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("Term"),
                self.tr("Analytic"),
                self.tr("Traced"),
                self.tr("Ratio"),
                self.tr("What differs"),
            ]
        )
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().hide()
        self.buttons = QDialogButtonBox()
        self.cancel_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button.clicked.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.buttons)
        self.resize(860, 360)
        self.process = TraceProcess(self)
        self.process.progress.connect(self._on_progress)
        self.process.finished.connect(self._on_result)
        self.process.failed.connect(self._on_failed)
        self._fill(None)

    def start(self) -> bool:
        """Start the trace; False (with the reason shown) where it cannot run."""
        reason = trace_unavailable_reason()
        if reason is None:
            try:
                arguments = trace_arguments(self.model, self.config)
            except UserError as exc:
                from desktop.messages import render_error

                reason = render_error(exc)
        if reason is not None:
            self.status.setText(reason)
            self.cancel_button.setEnabled(False)
            return False
        self.status.setText(self.tr("Starting the trace (torch and transformers load in a child process)…"))
        self.process.start(arguments)
        return True

    def cancel(self) -> None:
        self.process.cancel()

    def done(self, result: int) -> None:
        self.process.wait_killed()
        super().done(result)

    def closeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        self.process.wait_killed()
        super().closeEvent(event)  # type: ignore[arg-type]

    def _on_progress(self, stage: str, elapsed_s: float) -> None:
        self.status.setText(self.tr("Tracing: {0} ({1})").format(stage, fmt.duration(elapsed_s)))

    def _on_result(self, result: object) -> None:
        if not isinstance(result, dict):
            return
        self.rows = comparison(self.breakdown, result)
        seconds = result.get("seconds")
        took = fmt.duration(float(seconds)) if isinstance(seconds, (int, float)) else "?"
        self.status.setText(
            self.tr(
                "Traced on fake tensors in {0}: the real model's step, accounted tensor by tensor."
            ).format(took)
        )
        self.cancel_button.setEnabled(False)
        self._fill(self.rows)

    def _on_failed(self, message: str) -> None:
        self.status.setText(self.tr("The trace did not finish: {0}").format(message))
        self.cancel_button.setEnabled(False)

    def _explanations(self) -> dict[str, str]:
        return {
            "weights": self.tr("every parameter and buffer (ZeRO-2/3: the shard plus the gathered units)"),
            "gradients": self.tr("at their maximum, the optimizer step"),
            "optimizer": self.tr("AdamW m and v"),
            "activations": self.tr("what the forward keeps plus the backward's transients; the formulas leave out "
                                   "rotary tables and small per-token statistics"),
            "kv_cache": self.tr("keys and values after the decoded tokens"),
            "peak": self.tr("the step's peak; the analytic figure without the CUDA context and allocator margin"),
        }  # fmt: skip

    def _fill(self, rows: dict[str, dict[str, object]] | None) -> None:
        names = {
            "weights": self.tr("Weights"), "gradients": self.tr("Gradients"), "optimizer": self.tr("Optimizer"),
            "activations": self.tr("Activations"), "kv_cache": self.tr("KV cache"), "peak": self.tr("Peak"),
        }  # fmt: skip
        why = self._explanations()
        for index, name in enumerate(ROWS):
            row = (rows or {}).get(name, {})
            analytic = row.get("analytic_bytes")
            if analytic is None:
                term = self.breakdown.total_bytes - self.breakdown.overhead.bytes if name == "peak" else None
                analytic = term if name == "peak" else getattr(self.breakdown, name).bytes
            traced, ratio = row.get("traced_bytes"), row.get("ratio")
            cells = [
                names[name],
                fmt.gib(analytic, 2) if isinstance(analytic, int) else "",
                fmt.gib(traced, 2) if isinstance(traced, int) else "…",
                fmt.number(ratio, 3) if isinstance(ratio, (int, float)) else "",
                why[name],
            ]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)  # the explanation is longer than its column
                self.table.setItem(index, column, item)
        self.table.resizeColumnsToContents()


class TraceButton(QPushButton):
    """ "Trace exactly…": opens TraceMemoryDialog for the page's selected option; keeps its own text translated."""

    def __init__(self, page: QWidget):
        super().__init__(page)
        self.page = page
        self.dialog: TraceMemoryDialog | None = None
        self.clicked.connect(self.open_trace)
        self.retranslate()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.setText(self.tr("Trace exactly…"))
        self.setToolTip(self.tr("Run the real model's step on fake tensors in the background and compare its memory "
                                "with the estimate (a config.json or model folder)"))  # fmt: skip

    def open_trace(self) -> None:
        """Slot: never raises (a Qt virtual's caller); a missing option or model is said in the dialog."""
        state, call = getattr(self.page, "state", None), getattr(self.page, "call", None)
        option = getattr(state, "selected_option", None)
        if option is None or call is None:
            self.setToolTip(self.tr("Choose an option in the table first"))
            return
        self.dialog = TraceMemoryDialog(
            call.model, memory_config_for(call.workload, option), option.memory, self
        )
        self.dialog.show()
        self.dialog.start()


def install_trace_action(page: QWidget, layout: QBoxLayout) -> TraceButton:
    """Add the "Trace exactly…" button to `layout` (the Plan page's memory bar title row) and return it."""
    button = TraceButton(page)
    layout.addWidget(button)
    return button
