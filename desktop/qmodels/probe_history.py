"""ProbeHistoryModel: stored probe runs (this machine's and imported ones) with key figures and % of spec."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from PySide6 import QtCore
from PySide6.QtCore import QCoreApplication, QModelIndex, QPersistentModelIndex, Qt

from desktop import fmt
from desktop.qmodels.base import RIGHT_ALIGNED, SORT_ROLE, FlatTableModel
from planner.visible_text import pictured_controls

if TYPE_CHECKING:
    from planner.gpus import GpuSpec
    from planner.store import Measurement, ProbeRun

# Qt's marker for pyside6-lupdate (it finds the calls by this name), typed: it returns its text unchanged.
QT_TRANSLATE_NOOP = cast("Callable[[str, str], str]", QtCore.QT_TRANSLATE_NOOP)

RUN_ID_ROLE = Qt.ItemDataRole.UserRole + 2
CONTEXT = "ProbeHistoryModel"

COLUMNS = (
    ("created_at", QT_TRANSLATE_NOOP("ProbeHistoryModel", "Date")),
    ("machine", QT_TRANSLATE_NOOP("ProbeHistoryModel", "Machine")),
    ("source", QT_TRANSLATE_NOOP("ProbeHistoryModel", "Source")),
    ("devices", QT_TRANSLATE_NOOP("ProbeHistoryModel", "Devices")),
    ("mode", QT_TRANSLATE_NOOP("ProbeHistoryModel", "Mode")),
    ("bandwidth", QT_TRANSLATE_NOOP("ProbeHistoryModel", "Memory bandwidth")),
    ("bandwidth_pct", QT_TRANSLATE_NOOP("ProbeHistoryModel", "% of spec")),
    ("bf16", QT_TRANSLATE_NOOP("ProbeHistoryModel", "bf16 matmul")),
    ("bf16_pct", QT_TRANSLATE_NOOP("ProbeHistoryModel", "% of spec")),
)
_HEADERS = tuple(header for _, header in COLUMNS)
SOURCE_NAMES = {
    "local": QT_TRANSLATE_NOOP("ProbeHistoryModel", "this machine"),
    "imported": QT_TRANSLATE_NOOP("ProbeHistoryModel", "imported"),
}
_NUMERIC = {"bandwidth", "bandwidth_pct", "bf16", "bf16_pct"}


def _tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


def summarise_devices(names: list[str]) -> str:
    """["NVIDIA H100 80GB HBM3"] * 8 + ["cpu"] -> "8 × NVIDIA H100 80GB HBM3, cpu"."""
    counts = Counter(names)
    return ", ".join(f"{count} × {name}" if count > 1 else name for name, count in counts.items())


@dataclass
class HistoryRow:
    run_id: int
    created_at: str
    machine: str
    source: str
    label: str
    mode: str
    devices: list[str]
    bandwidth: float | None  # B/s
    bf16: float | None  # FLOP/s
    spec: GpuSpec | None  # of the first GPU

    @property
    def bandwidth_fraction(self) -> float | None:
        if self.bandwidth is None or self.spec is None or not self.spec.memory_bandwidth_bytes_per_s:
            return None
        return self.bandwidth / self.spec.memory_bandwidth_bytes_per_s

    @property
    def bf16_fraction(self) -> float | None:
        peak = (self.spec.tflops.get("bf16") if self.spec is not None else None) or None
        if self.bf16 is None or not peak:
            return None
        return self.bf16 / (peak * 1e12)


def history_row(
    run: ProbeRun,
    match_gpu: Callable[[str], GpuSpec | None] | None = None,
    measurements: Sequence[Measurement] | None = None,
) -> HistoryRow:
    """A stored run (store.probe_runs.all()) -> HistoryRow; ``match_gpu`` (AppContext.match_gpu) finds the spec
    of its first GPU (a CPU matches none).

    With the run's `measurements` (store.probe_runs.measurements), the key figures of a run that measured a
    GPU are that GPU's, so a CPU figure is never set against a GPU's datasheet; a CPU-only run shows its own
    figures against no spec at all."""
    matches = (match_gpu(name) for name in run.devices) if match_gpu is not None else iter(())
    spec = next((spec for spec in matches if spec is not None), None)
    bandwidth, bf16 = run.memory_bandwidth_bytes_per_s, run.best_bf16_flop_per_s
    if measurements is not None:
        gpu = [m for m in measurements if m.device.startswith("cuda") and m.ok and m.value]
        pool = gpu if gpu else [m for m in measurements if m.ok and m.value]
        if not gpu:
            spec = None  # a CPU run is compared with the CPU: there is no datasheet figure for it
        bandwidth = max((m.value or 0.0 for m in pool if m.kind == "memory_bandwidth"), default=None) or None
        bf16 = (
            max((m.value or 0.0 for m in pool if m.kind == "matmul" and m.dtype == "bf16"), default=None)
            or None
        )
    return HistoryRow(
        run_id=run.id,
        created_at=run.created_at,
        machine=run.machine or run.hostname or "",
        source=run.source,
        label=run.label or "",
        mode=run.mode,
        devices=list(run.devices),
        bandwidth=bandwidth,
        bf16=bf16,
        spec=spec,
    )


class ProbeHistoryModel(FlatTableModel):
    CONTEXT = "ProbeHistoryModel"

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[HistoryRow] = []

    def set_rows(self, rows: list[HistoryRow]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def run_id(self, row: int) -> int:
        return self.rows[row].run_id

    def row_total(self) -> int:
        return len(self.rows)

    def column_headers(self) -> tuple[str, ...]:
        return _HEADERS

    def _display(self, row: HistoryRow, key: str) -> str:
        if key == "created_at":
            return fmt.datetime_(row.created_at)
        if key == "machine":
            return row.label or row.machine
        if key == "source":
            return _tr(SOURCE_NAMES[row.source]) if row.source in SOURCE_NAMES else row.source
        if key == "devices":
            return summarise_devices(row.devices)
        if key == "mode":
            return row.mode
        if key == "bandwidth":
            return fmt.bandwidth(row.bandwidth) if row.bandwidth else "—"
        if key == "bf16":
            return fmt.flops(row.bf16) if row.bf16 else "—"
        fraction = row.bandwidth_fraction if key == "bandwidth_pct" else row.bf16_fraction
        return fmt.percent(fraction) if fraction is not None else "—"

    def _sort_value(self, row: HistoryRow, key: str) -> Any:
        values = {
            "created_at": row.created_at,
            "bandwidth": row.bandwidth or 0.0,
            "bf16": row.bf16 or 0.0,
            "bandwidth_pct": row.bandwidth_fraction or 0.0,
            "bf16_pct": row.bf16_fraction or 0.0,
        }
        return values.get(key, self._display(row, key))

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self.rows)):
            return None
        row, key = self.rows[index.row()], COLUMNS[index.column()][0]
        if role == Qt.ItemDataRole.DisplayRole:
            shown = self._display(row, key)
            return pictured_controls(shown) if isinstance(shown, str) else shown  # a label's ESC shows as ␛
        if role == SORT_ROLE:
            return self._sort_value(row, key)
        if role == RUN_ID_ROLE:
            return row.run_id
        if role == Qt.ItemDataRole.ToolTipRole:
            if key in ("bandwidth_pct", "bf16_pct"):
                return (
                    QCoreApplication.translate("ProbeHistoryModel", "against {0}").format(row.spec.name)
                    if row.spec is not None
                    else QCoreApplication.translate(
                        "ProbeHistoryModel", "a CPU or an unknown GPU: no datasheet figure to compare with"
                    )
                )
            if key == "machine":
                return row.machine
            if key == "devices":
                return "\n".join(row.devices)
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole and key in _NUMERIC:
            return RIGHT_ALIGNED
        return None
