"""GpuInventoryModel: the GPUs NVML found, one row each (a thin adapter over profiler.nvml.Inventory).

Fields NVML refused (profiler.nvml.Unavailable) read "n/a" with the reason as the tooltip. Without any NVIDIA
GPU the model shows one CPU row so the table is never a blank rectangle.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Callable
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
from PySide6.QtGui import QBrush, QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyle

from desktop import fmt
from desktop.nvml_words import translated
from desktop.qmodels.base import RIGHT_ALIGNED, SORT_ROLE, FlatTableModel

# (key, header); headers are marked for translation and translated when shown.
COLUMNS = (
    ("name", QT_TRANSLATE_NOOP("GpuInventoryModel", "GPU")),
    ("memory", QT_TRANSLATE_NOOP("GpuInventoryModel", "Memory")),
    ("driver", QT_TRANSLATE_NOOP("GpuInventoryModel", "Driver / CUDA")),
    ("cc", QT_TRANSLATE_NOOP("GpuInventoryModel", "Compute cap.")),
    ("pcie", QT_TRANSLATE_NOOP("GpuInventoryModel", "PCIe link")),
    ("power", QT_TRANSLATE_NOOP("GpuInventoryModel", "Power limit")),
    ("nvlink", QT_TRANSLATE_NOOP("GpuInventoryModel", "NVLink")),
    ("mig", QT_TRANSLATE_NOOP("GpuInventoryModel", "MIG")),
    ("ecc", QT_TRANSLATE_NOOP("GpuInventoryModel", "ECC")),
    ("temperature", QT_TRANSLATE_NOOP("GpuInventoryModel", "Temp.")),
    ("bus", QT_TRANSLATE_NOOP("GpuInventoryModel", "PCI bus")),
)
_HEADERS = tuple(header for _, header in COLUMNS)
_NUMERIC = {"memory", "power", "temperature"}
LOST_COLOR = "#d0342c"  # a red that reads on light and dark backgrounds


def _tr(text: str, disambiguation: str | None = None, n: int = -1) -> str:
    return QCoreApplication.translate("GpuInventoryModel", text, disambiguation, n)


@dataclass(frozen=True)
class Cell:
    """What one cell shows: text, optional tooltip, a sort value, and whether it is a refused field."""

    text: str
    tooltip: str = ""
    sort: Any = None
    refused: bool = False


def _unavailable_reason(value: Any) -> str | None:
    from profiler.nvml import Unavailable

    return value.reason if isinstance(value, Unavailable) else None


def _short_bus_id(bus_id: object) -> str:
    """ "00000000:18:00.0" -> "18:00.0", as lspci writes it: the PCI domain is almost always 0 (kept otherwise)."""
    text = str(bus_id)
    domain, colon, rest = text.partition(":")
    return rest if colon and rest.count(":") == 1 and set(domain) <= {"0"} else text


def _na(reason: str) -> Cell:
    return Cell(QCoreApplication.translate("GpuInventoryModel", "n/a"), translated(reason), None, True)


def cpu_info() -> dict[str, Any]:
    """This machine's CPU: name, logical cores, RAM in bytes (best effort, no extra dependencies)."""
    name = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.lower().startswith("model name"):
                    name = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    ram = None
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        pass
    return {"name": name or platform.machine() or "CPU", "cores": os.cpu_count() or 1, "ram_bytes": ram}


class GpuInventoryModel(FlatTableModel):
    CONTEXT = "GpuInventoryModel"

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._inventory: Any = None
        self._rows: list[dict[str, Cell]] = []
        self._lost_rows: set[int] = set()  # rows whose GPU stopped answering
        self._cpu: dict[str, Any] | None = None

    # -- data in -----------------------------------------------------------------------------------------------
    def set_inventory(self, inventory: Any) -> None:
        self.beginResetModel()
        self._inventory = inventory
        self._rows = self._build_rows(inventory)
        gpus = list(getattr(inventory, "gpus", None) or [])
        self._lost_rows = {row for row, gpu in enumerate(gpus) if getattr(gpu, "lost", False)}
        self.endResetModel()

    def mark_lost(self, cuda_index: int, reason: str) -> bool:
        """A GPU stopped answering while the app runs (the sampler says so): its row says "lost" with the
        reason and greys out; the other rows are untouched. True when the row changed."""
        gpus = list(getattr(self._inventory, "gpus", None) or [])
        for row, gpu in enumerate(gpus):
            if gpu.cuda_index != cuda_index or row in self._lost_rows:
                continue
            name = (
                str(gpu.name)
                if _unavailable_reason(gpu.name) is None
                else QCoreApplication.translate("GpuInventoryModel", "GPU {0}").format(gpu.index)
            )
            self._rows[row]["name"] = Cell(
                QCoreApplication.translate("GpuInventoryModel", "{0}: {1} (lost)").format(gpu.cuda_index, name),
                QCoreApplication.translate(
                    "GpuInventoryModel",
                    "The GPU stopped answering: {0}. Its last readings stay on the charts; restart the machine "
                    "(or reset the GPU) to use it again.",
                ).format(translated(reason)),
                gpu.cuda_index,
                True,
            )  # fmt: skip
            self._lost_rows.add(row)
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))
            return True
        return False

    def is_lost(self, row: int) -> bool:
        return row in self._lost_rows

    @property
    def inventory(self) -> Any:
        return self._inventory

    def _build_rows(self, inventory: Any) -> list[dict[str, Cell]]:
        if inventory is None:
            return []
        gpus = list(getattr(inventory, "gpus", None) or [])
        if not gpus:
            return [self._cpu_row()]
        return [self._gpu_row(inventory, gpu) for gpu in gpus]

    def _cpu_row(self) -> dict[str, Cell]:
        cpu = self._cpu = self._cpu or cpu_info()
        dash = Cell("—")
        row = {key: dash for key, _ in COLUMNS}
        row["name"] = Cell(
            QCoreApplication.translate("GpuInventoryModel", "CPU: {0}").format(cpu["name"]),
            QCoreApplication.translate("GpuInventoryModel", "{0} logical cores").format(cpu["cores"]),
            cpu["name"],
        )
        ram = cpu["ram_bytes"]
        row["memory"] = Cell(
            fmt.gib(ram, 0) if ram else QCoreApplication.translate("GpuInventoryModel", "n/a"),
            QCoreApplication.translate("GpuInventoryModel", "system memory (RAM)"),
            ram,
        )
        return row

    def _gpu_row(self, inventory: Any, gpu: Any) -> dict[str, Cell]:
        row: dict[str, Cell] = {}
        name_reason = _unavailable_reason(gpu.name)
        name = (
            str(gpu.name)
            if name_reason is None
            else QCoreApplication.translate("GpuInventoryModel", "GPU {0}").format(gpu.index)
        )
        if getattr(gpu, "lost", False):
            row["name"] = Cell(
                QCoreApplication.translate("GpuInventoryModel", "{0}: {1} (lost)").format(
                    gpu.cuda_index, name
                ),
                QCoreApplication.translate(
                    "GpuInventoryModel", "The GPU stopped answering (fell off the bus); restart the machine."
                ),
                gpu.cuda_index,
                True,
            )
        else:
            uuid = gpu.uuid if _unavailable_reason(gpu.uuid) is None else ""
            row["name"] = Cell(f"{gpu.cuda_index}: {name}", str(uuid), gpu.cuda_index)
        row["memory"] = self._memory_cell(gpu)
        row["driver"] = self._driver_cell(inventory)
        row["cc"] = self._simple(gpu.compute_capability, lambda cc: f"{cc[0]}.{cc[1]}", lambda cc: tuple(cc))
        row["pcie"] = self._pcie_cell(gpu)
        row["power"] = self._simple(gpu.power_limit_w, fmt.watts, float)
        row["nvlink"] = self._nvlink_cell(gpu)
        row["mig"] = self._mig_cell(gpu)
        row["ecc"] = self._simple(
            gpu.ecc,
            lambda mode: (
                QCoreApplication.translate("GpuInventoryModel", "on")
                if mode == "enabled"
                else QCoreApplication.translate("GpuInventoryModel", "off")
            ),
            str,
        )
        row["temperature"] = self._simple(gpu.temperature_c, fmt.celsius, float)
        row["bus"] = self._simple(gpu.pci_bus_id, _short_bus_id, str)
        return row

    @staticmethod
    def _simple(value: Any, show: Callable[[Any], str], sort: Callable[[Any], Any]) -> Cell:
        reason = _unavailable_reason(value)
        if reason is not None:
            return _na(reason)
        if value is None:
            return _na(QCoreApplication.translate("GpuInventoryModel", "not reported"))
        return Cell(show(value), "", sort(value))

    def _memory_cell(self, gpu: Any) -> Cell:
        total = gpu.memory_total_bytes
        reason = _unavailable_reason(total)
        if reason is not None:
            return _na(reason)
        used = gpu.memory_used_bytes
        tip = ""
        if _unavailable_reason(used) is None and used is not None:
            tip = QCoreApplication.translate("GpuInventoryModel", "{0} in use").format(fmt.gib(used))
        return Cell(fmt.gib(total), tip, int(total))

    def _driver_cell(self, inventory: Any) -> Cell:
        parts, reasons = [], []
        for value in (inventory.driver_version, inventory.cuda_driver_version):
            reason = _unavailable_reason(value)
            parts.append(
                QCoreApplication.translate("GpuInventoryModel", "n/a")
                if reason is not None or value is None
                else str(value)
            )
            if reason:
                reasons.append(reason)
        return Cell(" / ".join(parts), "; ".join(reasons), parts[0], bool(reasons) and len(reasons) == 2)

    def _pcie_cell(self, gpu: Any) -> Cell:
        gen, width = gpu.pcie_gen_current, gpu.pcie_width_current
        reasons = [r for r in (_unavailable_reason(gen), _unavailable_reason(width)) if r]
        if reasons or gen is None or width is None:
            return _na("; ".join(reasons) or QCoreApplication.translate("GpuInventoryModel", "not reported"))
        text = QCoreApplication.translate("GpuInventoryModel", "Gen {0} x{1}").format(gen, width)
        gen_max, width_max = gpu.pcie_gen_max, gpu.pcie_width_max
        tip = ""
        if (
            _unavailable_reason(gen_max) is None
            and _unavailable_reason(width_max) is None
            and gen_max
            and width_max
        ):
            tip = QCoreApplication.translate(
                "GpuInventoryModel", "maximum Gen {0} x{1}; the link trains down when idle"
            ).format(gen_max, width_max)
        return Cell(text, tip, (gen, width))

    def _nvlink_cell(self, gpu: Any) -> Cell:
        links = gpu.nvlink
        reason = _unavailable_reason(links)
        if reason is not None:
            return _na(reason)
        links = list(links or [])
        if not links:
            return Cell(QCoreApplication.translate("GpuInventoryModel", "none"), "", 0)
        links = [link for link in links if isinstance(link, dict)]
        peers = sorted({str(link.get("peer_pci_bus_id", "?")) for link in links})
        text = QCoreApplication.translate("GpuInventoryModel", "{0} × NVLink").format(len(links))
        if links and all(link.get("peer_type") == "switch" for link in links):
            text = QCoreApplication.translate("GpuInventoryModel", "{0} × NVLink, NVSwitch").format(
                len(links)
            )
        return Cell(
            text,
            QCoreApplication.translate("GpuInventoryModel", "peers: {0}").format(", ".join(peers)),
            len(links),
        )

    def _mig_cell(self, gpu: Any) -> Cell:
        mode = gpu.mig_mode
        reason = _unavailable_reason(mode)
        if reason is not None:
            return _na(reason)
        if mode != "enabled":
            return Cell(QCoreApplication.translate("GpuInventoryModel", "off"), "", 0)
        devices = gpu.mig_devices if _unavailable_reason(gpu.mig_devices) is None else []
        count = len(devices or [])
        tip = "\n".join(
            QCoreApplication.translate("GpuInventoryModel", "instance {0}: {1}").format(
                d.get("index", "?"), fmt.gib(d.get("memory_total_bytes"))
            )
            for d in devices or []
            if isinstance(d, dict)
        )
        return Cell(
            QCoreApplication.translate("GpuInventoryModel", "on, instances: {0}").format(count), tip, count
        )

    # -- Qt model interface ------------------------------------------------------------------------------------
    def row_total(self) -> int:
        return len(self._rows)

    def column_headers(self) -> tuple[str, ...]:
        return tuple(str(header) for header in _HEADERS)

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._rows)):
            return None
        key = COLUMNS[index.column()][0]
        cell = self._rows[index.row()][key]
        if role == Qt.ItemDataRole.DisplayRole:
            return cell.text
        if role == Qt.ItemDataRole.ToolTipRole:
            return cell.tooltip or None
        if role == SORT_ROLE:
            return cell.sort if cell.sort is not None else ""
        if role == Qt.ItemDataRole.ForegroundRole and index.row() in self._lost_rows and key == "name":
            return QBrush(QColor(LOST_COLOR))
        if role == Qt.ItemDataRole.ForegroundRole and (cell.refused or index.row() in self._lost_rows):
            return QBrush(QApplication.palette().color(QPalette.ColorRole.PlaceholderText))
        if role == Qt.ItemDataRole.DecorationRole and key == "name" and index.row() in self._lost_rows:
            return QApplication.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        if role == Qt.ItemDataRole.TextAlignmentRole and key in _NUMERIC:
            return RIGHT_ALIGNED
        return None

    def cell(self, row: int, key: str) -> Cell:
        return self._rows[row][key]
