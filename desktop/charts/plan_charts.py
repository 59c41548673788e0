"""The Plan page's charts: the selected option's memory per GPU against capacity, and scaling with GPU count.

Both widgets are drawn from plain data (set_data / set_series) and keep that data in ``chart_data()`` so tests
and the exports read exactly what is on screen. Redraws reuse the plot items (setData/setOpts) instead of
clearing the scene, so a redraw after an input change stays in the low milliseconds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

import pyqtgraph as pg  # isort: skip  (PySide6 first: pyqtgraph binds to the Qt already imported)

GIB = 2**30
CONTEXT = "PlanCharts"

# Memory terms in stacking order, with their display names (translated at draw time).
MEMORY_TERMS = (
    ("weights", QT_TRANSLATE_NOOP("PlanCharts", "weights")),
    ("gradients", QT_TRANSLATE_NOOP("PlanCharts", "gradients")),
    ("optimizer", QT_TRANSLATE_NOOP("PlanCharts", "optimizer states")),
    ("activations", QT_TRANSLATE_NOOP("PlanCharts", "activations")),
    ("kv_cache", QT_TRANSLATE_NOOP("PlanCharts", "KV cache")),
    ("overhead", QT_TRANSLATE_NOOP("PlanCharts", "overhead")),
)
# Colour-blind-safe palette (Okabe-Ito), readable on light and dark backgrounds.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999")


def _tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


def _style_plot(plot: pg.PlotItem) -> None:
    plot.showGrid(x=True, y=True, alpha=0.2)
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.getViewBox().setMouseEnabled(x=False, y=False)


def render_png(widget: QWidget) -> bytes:
    """The widget as drawn now, as an 8-bit RGB PNG (no alpha: planner.exports embeds such PNGs in report.pdf)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


class MemoryBarChart(QWidget):
    """One horizontal stacked bar: the selected option's memory terms per GPU, with the GPU capacity line."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._terms: list[tuple[str, int]] = []
        self._capacity = 0
        self.plot_widget = pg.PlotWidget(background=None)
        self.plot = self.plot_widget.getPlotItem()
        _style_plot(self.plot)
        self.plot.showGrid(x=True, y=False, alpha=0.2)
        self.plot.hideAxis("left")
        # The key is a QLabel, not a pyqtgraph legend: its text changes with every redraw and a label is cheap.
        self.key_label = QLabel()
        self.key_label.setWordWrap(True)
        self.key_label.setTextFormat(Qt.TextFormat.RichText)
        self._bars: list[pg.BarGraphItem] = []
        for index, (term, _) in enumerate(MEMORY_TERMS):
            bar = pg.BarGraphItem(
                x0=[0], y=[0], width=[0], height=0.6, brush=PALETTE[index], pen=pg.mkPen(None)
            )
            bar.term = term
            self.plot.addItem(bar)
            self._bars.append(bar)
        self.capacity_line = pg.InfiniteLine(
            angle=90, pen=pg.mkPen("#D00000", width=2, style=Qt.PenStyle.DashLine), movable=False
        )
        self.capacity_line.label = pg.InfLineLabel(
            self.capacity_line, "", position=0.12, anchors=[(1, 1), (1, 1)], color="#D00000"
        )
        self.plot.addItem(self.capacity_line)
        self.plot.setYRange(-0.45, 0.45, padding=0)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.key_label)
        layout.addWidget(self.plot_widget, 1)
        self.retranslate()

    def retranslate(self) -> None:
        self.plot.getAxis("bottom").setLabel(QCoreApplication.translate("PlanCharts", "memory per GPU (GiB)"))
        self._redraw()

    def set_data(self, terms: Sequence[tuple[str, int]], capacity_bytes: int) -> None:
        """terms: (term key as in MemoryBreakdown, bytes per GPU); capacity_bytes: the GPU's memory."""
        self._terms = [(str(term), int(value)) for term, value in terms]
        self._capacity = int(capacity_bytes or 0)
        self._redraw()

    def clear(self) -> None:
        self.set_data([], 0)

    def chart_data(self) -> dict:
        """What is drawn: segments (term, start GiB, size GiB), total and capacity in GiB."""
        segments, start = [], 0.0
        sizes = dict(self._terms)
        for term, _ in MEMORY_TERMS:
            size = sizes.get(term, 0) / GIB
            segments.append((term, start, size))
            start += size
        return {"segments": segments, "total_gib": start, "capacity_gib": self._capacity / GIB}

    def _redraw(self) -> None:
        data = self.chart_data()
        names = dict(MEMORY_TERMS)
        key = []
        for index, (bar, (term, start, size)) in enumerate(zip(self._bars, data["segments"], strict=False)):
            bar.setOpts(x0=[start], y=[0.0], width=[size], height=0.6)
            bar.setVisible(size > 0)
            if size > 0:
                key.append(
                    f"<span style='color:{PALETTE[index]}'>&#9632;</span>&nbsp;{_tr(names[term])}&nbsp;{_gib_text(size)}"
                )
        self.key_label.setText(" &nbsp; ".join(key))
        capacity = data["capacity_gib"]
        self.capacity_line.setVisible(capacity > 0)
        self.capacity_line.setValue(capacity)
        self.capacity_line.label.setText(
            QCoreApplication.translate("PlanCharts", "capacity {0}").format(_gib_text(capacity))
        )
        right = max(capacity, data["total_gib"], 1.0) * 1.08
        self.plot.setXRange(0, right, padding=0)


def _gib_text(gib: float) -> str:
    from desktop import fmt

    return fmt.gib(gib * GIB, 1)


class ScalingChart(QWidget):
    """Time (left plot) and cost (right plot) against GPU count, one line per strategy family.

    set_series({family label: [(gpus, time_s, cost_amount or None), ...]}, currency) draws them; log2 x axis
    (GPU counts are powers of two or multiples of 8); the selected option is marked with a ring on both plots.
    """

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._series: dict[str, list[tuple[int, float, float | None]]] = {}
        self._currency = "USD"
        self._selected: tuple[str, int] | None = None
        self._time_unit = (3600.0, "h")
        self._time_kind = "wall"
        self._legend_families: list[str] = []
        self.layout_widget = pg.GraphicsLayoutWidget()
        self.layout_widget.setBackground(None)
        self.time_plot = self.layout_widget.addPlot(row=0, col=0)
        self.cost_plot = self.layout_widget.addPlot(row=0, col=1)
        for plot in (self.time_plot, self.cost_plot):
            _style_plot(plot)
            plot.setLogMode(x=True, y=True)
            plot.getAxis("left").enableAutoSIPrefix(False)  # the unit is in the label, never "(x0.001)"
        self.key_label = QLabel()  # the legend, above both plots, so it never covers a curve
        self.key_label.setWordWrap(True)
        self.key_label.setTextFormat(Qt.TextFormat.RichText)
        self._time_curves: dict[str, pg.PlotDataItem] = {}
        self._cost_curves: dict[str, pg.PlotDataItem] = {}
        # The selected option, ringed; PlotDataItems so the plots' log mode applies to them too.
        marker = {"pen": None, "symbol": "o", "symbolSize": 16, "symbolBrush": None}
        self.time_marker = self.time_plot.plot([], [], symbolPen=pg.mkPen("#D00000", width=2), **marker)
        self.cost_marker = self.cost_plot.plot([], [], symbolPen=pg.mkPen("#D00000", width=2), **marker)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.key_label)
        layout.addWidget(self.layout_widget, 1)
        self.retranslate()

    def retranslate(self) -> None:
        self._labels_for = (self._time_unit, self._currency, self._time_kind)
        seconds, unit = self._time_unit
        unit_names = {
            "h": QCoreApplication.translate("PlanCharts", "hours"),
            "days": QCoreApplication.translate("PlanCharts", "days"),
            "s": QCoreApplication.translate("PlanCharts", "seconds"),
            "min": QCoreApplication.translate("PlanCharts", "minutes"),
            "ms": QCoreApplication.translate("PlanCharts", "milliseconds"),
        }
        serving = self._time_kind == "step"
        self.time_plot.setTitle(
            QCoreApplication.translate("PlanCharts", "Time per output token")
            if serving
            else QCoreApplication.translate("PlanCharts", "Time"),
            size="9pt",
        )
        self.cost_plot.setTitle(
            QCoreApplication.translate("PlanCharts", "Cost per 1M tokens")
            if serving
            else QCoreApplication.translate("PlanCharts", "Cost"),
            size="9pt",
        )
        self.time_plot.getAxis("left").setLabel(unit_names.get(unit, unit))
        self.cost_plot.getAxis("left").setLabel(self._currency)
        for plot in (self.time_plot, self.cost_plot):
            plot.getAxis("bottom").setLabel(QCoreApplication.translate("PlanCharts", "GPUs"))

    def set_series(
        self,
        series: Mapping[str, Sequence[tuple[int, float, float | None]]],
        currency: str = "USD",
        selected: tuple[str, int] | None = None,
        time_kind: str = "wall",
    ) -> None:
        """series: family -> points (gpus, time in seconds, cost amount); selected: (family, gpus) to ring.

        time_kind "wall" shows the whole run (hours or days); "step" shows seconds per step or token.
        """
        self._series = {
            family: sorted(
                (int(g), float(t), None if c is None else float(c)) for g, t, c in points if t and t > 0
            )
            for family, points in series.items()
        }
        self._currency = currency
        self._selected = selected
        self._time_unit = _time_unit(self._series, time_kind)
        self._time_kind = time_kind
        self._redraw()

    def chart_data(self) -> dict:
        """family -> {"gpus": [...], "time_s": [...], "cost": [...]} as drawn, plus the currency."""
        return {
            "currency": self._currency,
            "selected": self._selected,
            "series": {
                family: {
                    "gpus": [p[0] for p in points],
                    "time_s": [p[1] for p in points],
                    "cost": [p[2] for p in points],
                }
                for family, points in self._series.items()
            },
        }

    def _set_ticks(self, divisor: float) -> None:
        """Readable log-axis labels: GPU counts as powers of two, times and costs as 1-2-5 steps."""
        points = [p for line in self._series.values() for p in line]
        if not points:
            return
        counts = [p[0] for p in points]
        ticks = _thin(gpu_ticks(min(counts), max(counts)), 5)
        for plot in (self.time_plot, self.cost_plot):
            _set_log_ticks(plot.getAxis("bottom"), ticks, str)
        times = [p[1] / divisor for p in points]
        _set_log_ticks(self.time_plot.getAxis("left"), _thin(log_ticks(min(times), max(times))), _significant)
        costs = [p[2] for p in points if p[2]]
        if costs:
            _set_log_ticks(
                self.cost_plot.getAxis("left"), _thin(log_ticks(min(costs), max(costs))), _significant
            )

    def _curve(self, store: dict, plot: pg.PlotItem, family: str, color: str) -> pg.PlotDataItem:
        curve = store.get(family)
        if curve is None:
            curve = plot.plot(
                [],
                [],
                pen=pg.mkPen(color, width=2),
                symbol="o",
                symbolSize=6,
                symbolBrush=color,
                symbolPen=None,
            )
            store[family] = curve
        return curve

    def _redraw(self) -> None:
        divisor = self._time_unit[0]
        families = sorted(self._series)
        rebuild_legend = families != self._legend_families
        for family in list(self._time_curves):
            if family not in self._series:
                self.time_plot.removeItem(self._time_curves.pop(family))
                self.cost_plot.removeItem(self._cost_curves.pop(family))
        for index, (family, points) in enumerate(sorted(self._series.items())):
            color = PALETTE[index % len(PALETTE)]
            time_curve = self._curve(self._time_curves, self.time_plot, family, color)
            cost_curve = self._curve(self._cost_curves, self.cost_plot, family, color)
            if getattr(time_curve, "color", None) != color:
                for curve in (time_curve, cost_curve):
                    curve.setPen(pg.mkPen(color, width=2))
                    curve.setSymbolBrush(color)
                    curve.color = color
            gpus = [p[0] for p in points]
            time_curve.setData(gpus, [p[1] / divisor for p in points])
            priced = [(p[0], p[2]) for p in points if p[2] is not None and p[2] > 0]
            cost_curve.setData([g for g, _ in priced], [c for _, c in priced])
        if rebuild_legend:
            key = [
                f"<span style='color:{self._time_curves[family].color}'>&#9632;</span>&nbsp;{family}"
                for family in families
            ]
            ring = "<span style='color:#D00000'>&#9675;</span>&nbsp;" + QCoreApplication.translate(
                "PlanCharts", "selected option"
            )
            self.key_label.setText(" &nbsp; ".join([*key, ring]) if key else "")
            self._legend_families = families
        marker_time, marker_cost = ([], []), ([], [])
        if self._selected is not None:
            for gpus, time_s, cost in self._series.get(self._selected[0], []):
                if gpus == self._selected[1]:
                    marker_time[0].append(gpus)
                    marker_time[1].append(time_s / divisor)
                    if cost:
                        marker_cost[0].append(gpus)
                        marker_cost[1].append(cost)
        self.time_marker.setData(*marker_time)
        self.cost_marker.setData(*marker_cost)
        self._set_ticks(divisor)
        labels = (self._time_unit, self._currency, self._time_kind)
        if labels != self._labels_for:
            self.retranslate()
        for plot in (self.time_plot, self.cost_plot):
            plot.enableAutoRange()


def _significant(value: float) -> str:
    from desktop import fmt

    return fmt.significant(value, 2)


def log_ticks(low: float, high: float, steps: tuple[float, ...] = (1, 2, 5)) -> list[float]:
    """Round values (1, 2, 5 x 10^k) from just below `low` to just above `high`, for a log axis."""
    if not (low > 0 and high > 0):
        return []
    for candidate_steps in (steps, (1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9)):
        ticks, exponent = [], math.floor(math.log10(low))
        while True:
            value = candidate_steps[0] * 10.0**exponent
            done = False
            for step in candidate_steps:
                value = step * 10.0**exponent
                if value > high * 1.0001:
                    done = True
                    break
                if value >= low / 1.0001:
                    ticks.append(value)
            if done:
                break
            exponent += 1
        if len(ticks) >= 2:
            return ticks
    # A very narrow range: its two ends, rounded to two significant digits.
    return sorted({float(f"{low:.2g}"), float(f"{high:.2g}")})


def _thin(values: list[float], most: int = 7) -> list[float]:
    """At most `most` ticks, evenly picked, so labels never collide."""
    if len(values) <= most:
        return values
    step = math.ceil(len(values) / most)
    return values[::step]


def gpu_ticks(low: int, high: int) -> list[int]:
    """GPU counts worth labelling: powers of two between the smallest and largest count."""
    ticks, value = [], 1
    while value <= max(high, 1):
        if value >= low:
            ticks.append(value)
        value *= 2
    return ticks or [low]


def _set_log_ticks(axis: pg.AxisItem, values: list[float], text: Callable[[float], str]) -> None:
    axis.setTicks([[(math.log10(v), text(v)) for v in values if v > 0], []])


def _time_unit(
    series: Mapping[str, Sequence[tuple[int, float, float | None]]], time_kind: str
) -> tuple[float, str]:
    times = [t for points in series.values() for _, t, _ in points]
    if time_kind == "step":  # seconds per output token: milliseconds below a second
        return (0.001, "ms") if times and max(times) < 1.0 else (1.0, "s")
    if not times:
        return (1.0, "s")
    longest = max(times)
    if longest > 5 * 86400:
        return (86400.0, "days")
    if longest > 2 * 3600:
        return (3600.0, "h")
    if longest > 120:
        return (60.0, "min")
    return (1.0, "s")
