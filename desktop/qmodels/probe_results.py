"""ProbeResultsModel: the measurements of the running (or last) probe, each beside its catalog spec.

Also home of ``spec_value``: which catalog figure a measurement is compared with (the % of spec shown on the
Hardware page and in the probe history).
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)

from desktop import fmt
from desktop.qmodels.base import RIGHT_ALIGNED, SORT_ROLE, FlatTableModel

CONTEXT = "ProbeResultsModel"

KIND_NAMES = {
    "memory_bandwidth": QT_TRANSLATE_NOOP("ProbeResultsModel", "memory (read + write)"),
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


def spec_value(
    spec: Any, measurement: Mapping[str, object], mig: Mapping[str, object] | None = None
) -> float | None:
    """The catalog figure a measurement is compared with, in the measurement's unit (FLOP/s or B/s).

    matmul <dtype> -> dense peak TFLOPS x 1e12; memory_bandwidth -> spec memory bandwidth (read + write counted,
    as the probe counts a copy); host copies -> half the spec PCIe bandwidth (the catalog figure is both
    directions together). Peer copies have no single spec figure (NVLink vs PCIe, one or both directions), so
    they get None rather than a misleading percentage. A MIG slice (`mig` from the probe, with its
    compute_fraction and memory_fraction) is compared with its share of the whole GPU's figure.
    """
    if spec is None:
        return None
    kind = measurement.get("kind")
    if kind == "matmul":
        tflops = (getattr(spec, "tflops", None) or {}).get(measurement.get("dtype") or "")
        return float(tflops) * 1e12 * _share(mig, "compute_fraction") if tflops else None
    if kind == "memory_bandwidth":
        return float(spec.memory_bandwidth_bytes_per_s) * _share(mig, "memory_fraction") or None
    if kind in ("h2d_bandwidth", "d2h_bandwidth"):
        # the catalog counts both directions of the x16 link together; a host copy uses one direction
        return float(getattr(spec, "pcie_bytes_per_s", 0.0) or 0.0) / 2 or None
    return None


def _share(mig: Mapping[str, object] | None, key: str) -> float:
    """A MIG slice's share of the GPU (1 for a whole GPU, or when the probe could not say)."""
    value = (mig or {}).get(key)
    return float(value) if isinstance(value, (int, float)) and 0 < value <= 1 else 1.0


def describe_measurement(measurement: Mapping[str, object]) -> str:
    """ "matmul bf16", "memory bandwidth", "peer copy → cuda:1" (translated)."""
    kind = str(measurement.get("kind", ""))
    text = _tr(str(KIND_NAMES[kind])) if kind in KIND_NAMES else kind
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


def short_label(device: str, measurement: Mapping[str, object]) -> str:
    """A chart label that fits beside a bar: "GPU 0 bf16", "GPU 1 memory", "CPU fp32"."""
    who = f"GPU {device.removeprefix('cuda:')}" if device.startswith("cuda:") else device.upper()
    kind = str(measurement.get("kind", ""))
    dtype = measurement.get("dtype")
    what = str(dtype) if kind == "matmul" and dtype else _tr(str(SHORT_KIND_NAMES.get(kind, kind)))
    return f"{who} {what}"


@dataclass
class ResultRow:
    device: str  # "cuda:0" / "cpu"
    device_name: str
    measurement: Mapping[str, object]  # validated by profiler.protocol before it gets here
    spec_value: float | None

    @property
    def value(self) -> float | None:
        value = self.measurement.get("value")
        if (
            self.measurement.get("ok") is not True
            or isinstance(value, bool)
            or not isinstance(value, (int, float))
        ):
            return None
        return float(value)

    @property
    def fraction_of_spec(self) -> float | None:
        if self.value is None or not self.spec_value:
            return None
        return float(self.value) / self.spec_value


class ProbeResultsModel(FlatTableModel):
    CONTEXT = "ProbeResultsModel"

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.rows: list[ResultRow] = []
        self.errors = 0  # cells whose drawing raised (logged, shown empty); the fuzz tests keep it at 0

    def clear(self) -> None:
        self.beginResetModel()
        self.rows = []
        self.endResetModel()

    def add(self, row: ResultRow) -> None:
        self.add_rows([row])

    def add_rows(self, rows: Sequence[ResultRow]) -> None:
        """Append rows in one insertion (a burst of results costs the views one update, not one each)."""
        if not rows:
            return
        position = len(self.rows)
        self.beginInsertRows(QModelIndex(), position, position + len(rows) - 1)
        self.rows.extend(rows)
        self.endInsertRows()

    def row_total(self) -> int:
        return len(self.rows)

    def column_headers(self) -> tuple[str, ...]:
        return tuple(str(header) for header in COLUMNS)

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self.rows)):
            return None
        try:
            return self._cell(self.rows[index.row()], index.column(), role)
        except Exception:  # a Qt virtual must never raise (the sort proxy calls it); show nothing, log why
            self.errors += 1
            sys.stderr.write(traceback.format_exc())
            return None

    def _cell(self, row: ResultRow, column: int, role: int) -> Any:
        m = row.measurement
        unit = str(m.get("unit", ""))
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return row.device
            if column == 1:
                return describe_measurement(m)
            if column == 2:
                return (
                    fmt.measurement(row.value, unit)
                    if m.get("ok")
                    else QCoreApplication.translate("ProbeResultsModel", "failed")
                )
            if column == 3:
                return fmt.measurement(row.spec_value, unit) if row.spec_value else "—"
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
