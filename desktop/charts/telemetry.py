"""Live telemetry: utilisation, memory used, temperature and power per GPU over a rolling window.

The sampler thread (profiler.nvml.TelemetrySampler) collects into ring buffers; this widget only draws what
``update_from_snapshot`` hands it, so the GUI thread never waits on NVML. Curves are created once per GPU and
updated with setData (cheap at 1 Hz even for 8 GPUs x 600 samples).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desktop.charts.theme import SERIES_COLORS, series_pen, style_plot

import pyqtgraph as pg  # isort: skip  (after PySide6, so pyqtgraph binds to PySide6 and not another Qt)

CONTEXT = "TelemetryChart"
WINDOW_S = 300.0  # the rolling window shown, seconds

# (metric in the sampler's snapshot, title, unit, scale from the sampler's unit to the shown unit)
PANELS = (
    ("utilization_pct", QT_TRANSLATE_NOOP("TelemetryChart", "Utilisation"), "%", 1.0),
    ("memory_used_bytes", QT_TRANSLATE_NOOP("TelemetryChart", "Memory used"), "GiB", 1.0 / 2**30),
    ("temperature_c", QT_TRANSLATE_NOOP("TelemetryChart", "Temperature"), "°C", 1.0),
    ("power_w", QT_TRANSLATE_NOOP("TelemetryChart", "Power"), "W", 1.0),
)


def _tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


def _current(value: float | None, unit: str) -> str:
    """A current reading with its unit, in the locale's numbers ("—" before the first sample)."""
    from desktop import fmt

    if value is None or not math.isfinite(value):
        return "—"
    decimals = 1 if unit == "GiB" else 0
    return f"{fmt.number(value, decimals)} {QCoreApplication.translate('fmt', unit)}"


PANEL_MIN_HEIGHT = 160  # pixels: title 20, plot 90 (five tick labels a line apart), axis and its label 50


class TelemetryChart(QWidget):
    """Four panels. Built with `plots=False`, it has none until `add_plot` adds them one per call (each is 10-15
    ms of the GUI thread: the Hardware page adds one per idle turn); set_gpus needs all four."""

    def __init__(self, parent: QWidget | None = None, plots: bool = True):
        super().__init__(parent)
        self.legend = QLabel(self)
        self.legend.setWordWrap(True)
        self.graphics = pg.GraphicsLayoutWidget(self)
        self.graphics.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # no Tab stop: a chart takes no keys
        self.graphics.ci.setSpacing(6)
        # two rows of panels, each a title, a plot several lines tall and its time axis: below this the y labels
        # of a panel overlap (1280 x 720, a 1920 x 1080 screen at 150 %); the GPU table above gives up rows first
        self.graphics.setMinimumHeight(PANEL_MIN_HEIGHT * 2)
        self.plots: dict[str, pg.PlotItem] = {}
        while plots and not self.add_plot():
            pass
        self.curves: dict[tuple[str, int], pg.PlotCurveItem] = {}
        self.names: dict[int, str] = {}
        self.lost: dict[int, str] = {}  # cuda index -> why the GPU stopped answering
        self.refused: dict[int, dict[str, str]] = {}  # cuda index -> {metric: NVML's reason}
        self.last_values: dict[tuple[str, int], float] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.legend)
        layout.addWidget(self.graphics, 1)
        self._update_legend()  # the plots' titles are worded as they are added

    def add_plot(self) -> bool:
        """Add the next panel's plot; True once all are there."""
        if len(self.plots) < len(PANELS):
            position = len(self.plots)
            metric, title, unit, _scale = PANELS[position]
            plot = self.graphics.addPlot(row=position // 2, col=position % 2, enableMenu=False)
            style_plot(plot)
            plot.setXRange(-WINDOW_S, 0, padding=0)
            plot.getAxis("left").setWidth(44)
            if metric == "utilization_pct":
                plot.setYRange(0, 100, padding=0.02)
            self.plots[metric] = plot
            self._title(metric, str(title), unit)
        return len(self.plots) == len(PANELS)

    def _title(self, metric: str, title: str, unit: str) -> None:
        plot = self.plots[metric]
        unit_text = QCoreApplication.translate("fmt", unit)  # "GiB" and "W" are marked in desktop/fmt.py
        plot.setTitle(f"{_tr(title)} ({unit_text})", size="10pt")
        plot.setLabel("bottom", QCoreApplication.translate("TelemetryChart", "seconds ago"))

    def retranslate(self) -> None:
        for metric, title, unit, _scale in PANELS:
            if metric in self.plots:
                self._title(metric, str(title), unit)
        self._update_legend()

    def set_gpus(self, names: Mapping[int, str]) -> None:
        """Name the GPUs (cuda index -> label) and build one curve per GPU and panel."""
        self.names = dict(names)
        self.lost = {gpu: reason for gpu, reason in self.lost.items() if gpu in self.names}
        self.refused = {gpu: fields for gpu, fields in self.refused.items() if gpu in self.names}
        for (metric, gpu), curve in list(self.curves.items()):
            if gpu not in self.names:
                self.plots[metric].removeItem(curve)
                del self.curves[(metric, gpu)]
        for gpu in sorted(self.names):
            for metric, *_ in PANELS:
                if (metric, gpu) not in self.curves:
                    # a bare curve item: a quarter of plot()'s data item (no symbols, no per-item options) on the
                    # GUI thread, 32 of them for 8 GPUs
                    curve = pg.PlotCurveItem(pen=series_pen(gpu), name=self.names[gpu])
                    self.plots[metric].addItem(curve)
                    self.curves[(metric, gpu)] = curve
        self._update_legend()

    def set_status(self, lost: Mapping[int, str], refused: Mapping[int, Mapping[str, str]]) -> None:
        """Mark GPUs that stopped answering (their curves turn dashed and end where they were lost; the others
        stay live) and metrics NVML refuses for a GPU (named in the legend, with the reason as its tooltip)."""
        lost_now = {gpu: reason for gpu, reason in lost.items() if gpu in self.names}
        refused_now = {gpu: dict(fields) for gpu, fields in refused.items() if gpu in self.names and fields}
        if lost_now == self.lost and refused_now == self.refused:
            return
        for gpu in set(lost_now) - set(self.lost):
            for metric, *_ in PANELS:
                curve = self.curves.get((metric, gpu))
                if curve is not None:
                    curve.setPen(series_pen(gpu, style=Qt.PenStyle.DashLine))
        self.lost, self.refused = lost_now, refused_now
        self._update_legend()

    def _update_legend(self) -> None:
        """The key as a table, one row per GPU with its colour and current values: with 8 GPUs the curves
        cross, and the numbers beside them stay readable."""
        if not self.names:
            self.legend.setText(QCoreApplication.translate("TelemetryChart", "No GPU to watch."))
            self.legend.setToolTip("")
            return
        header = "".join(
            f"<th align='right'>&nbsp;{html.escape(_tr(str(title)))}&nbsp;</th>"
            for _metric, title, *_ in PANELS
        )
        rows, tips = [f"<tr><th></th>{header}</tr>"], []
        for gpu in sorted(self.names):
            color = SERIES_COLORS[gpu % len(SERIES_COLORS)]
            name = f'<span style="color:{color}">■</span>&nbsp;{html.escape(self.names[gpu])}'
            if gpu in self.lost:
                name = f"<s>{name}</s>&nbsp;" + html.escape(
                    QCoreApplication.translate("TelemetryChart", "(lost)")
                )
                tips.append(f"{self.names[gpu]}: {self.lost[gpu]}")
            cells = []
            for metric, _title, unit, _scale in PANELS:
                if metric in self.refused.get(gpu, {}):
                    cells.append(html.escape(QCoreApplication.translate("TelemetryChart", "not reported")))
                    tips.append(f"{self.names[gpu]}, {metric}: {self.refused[gpu][metric]}")
                else:
                    cells.append(html.escape(_current(self.last_values.get((metric, gpu)), unit)))
            values = "".join(f"<td align='right'>&nbsp;{cell}&nbsp;</td>" for cell in cells)
            rows.append(f"<tr><td>{name}</td>{values}</tr>")
        self.legend.setText(f"<table cellspacing='0'>{''.join(rows)}</table>")
        self.legend.setToolTip("\n".join(tips))

    def update_from_snapshot(self, snapshot: Mapping[int, Mapping[str, np.ndarray]]) -> None:
        """Draw the last WINDOW_S seconds of each GPU; x is seconds before the newest sample."""
        newest = max((float(cols["t_s"][-1]) for cols in snapshot.values() if len(cols["t_s"])), default=None)
        if newest is None:
            return
        for gpu, columns in snapshot.items():
            t = np.asarray(columns["t_s"], dtype=float)
            if not len(t) or gpu not in self.names:
                continue
            keep = t >= newest - WINDOW_S
            x = t[keep] - newest
            for metric, _title, _unit, scale in PANELS:
                curve = self.curves.get((metric, gpu))
                if curve is None:
                    continue
                y = np.asarray(columns[metric], dtype=float)[keep] * scale
                curve.setData(x, y, connect="finite")
                finite = y[np.isfinite(y)]
                if len(finite):
                    self.last_values[(metric, gpu)] = float(finite[-1])
        for metric in ("memory_used_bytes", "temperature_c", "power_w"):
            self._fit_y(metric)
        self._update_legend()  # the current values beside the curves

    def _fit_y(self, metric: str) -> None:
        """A stable y range from 0 to a rounded maximum (auto-range would jitter every second)."""
        highest = 0.0
        for (name, _gpu), curve in self.curves.items():
            if name != metric:
                continue
            _x, y = curve.getData()
            if y is not None and len(y):
                finite = y[np.isfinite(y)]
                if len(finite):
                    highest = max(highest, float(finite.max()))
        if highest > 0:
            step = 10 ** math.floor(math.log10(highest))
            self.plots[metric].setYRange(0, math.ceil(highest * 1.1 / step) * step, padding=0)
