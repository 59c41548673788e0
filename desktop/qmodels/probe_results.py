"""ProbeResultsModel: the measurements of the running (or last) probe, each beside its catalog spec.

Also home of ``spec_value``: which catalog figure a measurement is compared with (the % of spec shown on the
Hardware page and in the probe history).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt

from desktop import fmt
from desktop.qmodels.base import RIGHT_ALIGNED, SORT_ROLE, FlatTableModel

CONTEXT = "ProbeResultsModel"

KIND_NAMES = {
    "memory_bandwidth": QT_TRANSLATE_NOOP("ProbeResultsModel", "memory bandwidth"),
    "h2d_bandwidth": QT_TRANSLATE_NOOP("ProbeResultsModel", "host → device"),
    "d2h_bandwidth": QT_TRANSLATE_NOOP("ProbeResultsModel", "device → host"),
    "p2p_bandwidth": QT_TRANSLATE_NOOP("ProbeResultsModel", "peer copy"),
    "matmul": QT_TRANSLATE_NOOP("ProbeResultsModel", "matmul"),
}
COLUMNS = (
    QT_TRANSLATE_NOOP("ProbeResultsModel", "Device"),
    QT_TRANSLATE_NOOP("ProbeResultsModel", "Measurement"),
    QT_TRANSLATE_NOOP("ProbeResultsModel", "Measured"),
    QT_TRANSLATE_NOOP("ProbeResultsModel", "Spec"),
    QT_TRANSLATE_NOOP("ProbeResultsModel", "% of spec"),
)


def _tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


def spec_value(spec: Any, measurement: dict) -> float | None:
    """The catalog figure a measurement is compared with, in the measurement's unit (FLOP/s or B/s).

    matmul <dtype> -> dense peak TFLOPS x 1e12; memory_bandwidth -> spec memory bandwidth; host copies -> half the
    spec PCIe bandwidth (the catalog figure is both directions together). Peer copies have no single spec figure (NVLink vs PCIe, one or both
    directions), so they get None rather than a misleading percentage.
    """
    if spec is None:
        return None
    kind = measurement.get("kind")
    if kind == "matmul":
        tflops = (getattr(spec, "tflops", None) or {}).get(measurement.get("dtype") or "")
        return float(tflops) * 1e12 if tflops else None
    if kind == "memory_bandwidth":
        return float(spec.memory_bandwidth_bytes_per_s) or None
    if kind in ("h2d_bandwidth", "d2h_bandwidth"):
        # the catalog counts both directions of the x16 link together; a host copy uses one direction
        return float(getattr(spec, "pcie_bytes_per_s", 0.0) or 0.0) / 2 or None
    return None


def describe_measurement(measurement: dict) -> str:
    """ "matmul bf16", "memory bandwidth", "peer copy → cuda:1" (translated)."""
    kind = str(measurement.get("kind", ""))
    text = _tr(KIND_NAMES[kind]) if kind in KIND_NAMES else kind
    if measurement.get("dtype"):
        text = f"{text} {measurement['dtype']}"
    if measurement.get("peer"):
        text = f"{text} → {measurement['peer']}"
    return text


SHORT_KIND_NAMES = {
    "memory_bandwidth": QT_TRANSLATE_NOOP("ProbeResultsModel", "memory"),
    "h2d_bandwidth": QT_TRANSLATE_NOOP("ProbeResultsModel", "host→dev"),
    "d2h_bandwidth": QT_TRANSLATE_NOOP("ProbeResultsModel", "dev→host"),
    "p2p_bandwidth": QT_TRANSLATE_NOOP("ProbeResultsModel", "peer"),
    "matmul": QT_TRANSLATE_NOOP("ProbeResultsModel", "matmul"),
}


def short_label(device: str, measurement: dict) -> str:
    """A chart label that fits beside a bar: "GPU 0 bf16", "GPU 1 memory", "CPU fp32"."""
    who = f"GPU {device.removeprefix('cuda:')}" if device.startswith("cuda:") else device.upper()
    kind = str(measurement.get("kind", ""))
    what = (
        measurement.get("dtype")
        if kind == "matmul" and measurement.get("dtype")
        else _tr(SHORT_KIND_NAMES.get(kind, kind))
    )
    return f"{who} {what}"


@dataclass
class ResultRow:
    device: str  # "cuda:0" / "cpu"
    device_name: str
    measurement: dict
    spec_value: float | None

    @property
    def value(self) -> float | None:
        return self.measurement.get("value") if self.measurement.get("ok") else None

    @property
    def fraction_of_spec(self) -> float | None:
        if self.value is None or not self.spec_value:
            return None
        return float(self.value) / self.spec_value


class ProbeResultsModel(FlatTableModel):
    CONTEXT = "ProbeResultsModel"

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: list[ResultRow] = []

    def clear(self) -> None:
        self.beginResetModel()
        self.rows = []
        self.endResetModel()

    def add(self, row: ResultRow) -> None:
        position = len(self.rows)
        self.beginInsertRows(QModelIndex(), position, position)
        self.rows.append(row)
        self.endInsertRows()

    def row_total(self) -> int:
        return len(self.rows)

    def column_headers(self) -> tuple[str, ...]:
        return COLUMNS

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not (0 <= index.row() < len(self.rows)):
            return None
        row, column = self.rows[index.row()], index.column()
        m = row.measurement
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return row.device
            if column == 1:
                return describe_measurement(m)
            if column == 2:
                return (
                    fmt.measurement(row.value, m.get("unit", ""))
                    if m.get("ok")
                    else QCoreApplication.translate("ProbeResultsModel", "failed")
                )
            if column == 3:
                return fmt.measurement(row.spec_value, m.get("unit", "")) if row.spec_value else "—"
            return fmt.percent(row.fraction_of_spec) if row.fraction_of_spec is not None else "—"
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == 0:
                return row.device_name or None
            if not m.get("ok"):
                return str(m.get("error") or QCoreApplication.translate("ProbeResultsModel", "failed"))
            return str(m.get("method") or "") or None
        if role == SORT_ROLE:
            return (
                row.device,
                describe_measurement(m),
                row.value or 0.0,
                row.spec_value or 0.0,
                row.fraction_of_spec or 0.0,
            )[column]
        if role == Qt.ItemDataRole.TextAlignmentRole and column >= 2:
            return RIGHT_ALIGNED
        return None
