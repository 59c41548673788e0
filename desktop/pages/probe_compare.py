"""Two probe runs side by side (the Hardware page's Compare): every measured figure of either run, the best device
of each, and the second as a multiple of the first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop import fmt
from desktop.qmodels.probe_results import (
    describe_measurement,
)

if TYPE_CHECKING:
    from planner.store import StoreProtocol
    from profiler.report import ProbeReport


class CompareDialog(QDialog):
    """Two probe runs side by side: every measured figure, and the second as a multiple of the first."""

    def __init__(self, first: Any, second: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Compare probe runs"))
        rows = comparison_rows(first, second)
        self.table = QTableWidget(len(rows), 4, self)
        self.table.setTabKeyNavigation(False)  # Tab goes on to the dialog's buttons
        self.table.setHorizontalHeaderLabels(
            [self.tr("Measurement"), _run_title(first), _run_title(second), self.tr("Second / first")]
        )
        for r, (name, a, b, unit) in enumerate(rows):
            ratio = f"{b / a:.2f}×" if a and b else "—"
            for c, text in enumerate(
                (name, fmt.measurement(a, unit) if a else "—", fmt.measurement(b, unit) if b else "—", ratio)
            ):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(760, 420)


def _run_title(report: Any) -> str:
    machine = report.machine.get("hostname", "?") if isinstance(report.machine, dict) else "?"
    return f"{machine} {fmt.datetime_(report.created_at)}"


def comparison_rows(first: Any, second: Any) -> list[tuple[str, float | None, float | None, str]]:
    """(measurement name, best value in the first run, in the second, unit) for every kind/dtype in either run.

    Devices are pooled (the best GPU of each run): runs from different machines have different device ids.
    """
    keys: dict[tuple[object, ...], str] = {}
    for report in (first, second):
        for _device, m in report.measurements():
            keys.setdefault((m["kind"], m.get("dtype")), m["unit"])
    rows = []
    for (kind, dtype), unit in sorted(keys.items(), key=lambda item: (item[0][0], item[0][1] or "")):
        name = describe_measurement({"kind": kind, "dtype": dtype})
        rows.append((name, first.best(kind, dtype), second.best(kind, dtype), unit))
    return rows

def load_two_reports(store: StoreProtocol, first: int, second: int) -> tuple[ProbeReport, ProbeReport]:
    return store.probe_runs.report(first), store.probe_runs.report(second)
