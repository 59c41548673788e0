"""The Plan page's charts: the selected option's memory per GPU against capacity, and scaling with GPU count.

Both widgets are drawn from plain data (set_data / set_series) and keep that data in ``chart_data()`` so tests
and the exports read exactly what is on screen. Redraws reuse the plot items (setData/setOpts) instead of
clearing the scene, so a redraw after an input change stays in the low milliseconds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtGui import QImage, QImageWriter, QResizeEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desktop import fmt
from desktop.charts.redraw import set_points, set_ticks
from desktop.message_templates import QT_TRANSLATE_NOOP  # typed: returns its text

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

    redraw_now = getattr(widget, "redraw_now", None)
    if redraw_now is not None:
        redraw_now()  # a chart whose plots wait for the next turn draws them first
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    QImageWriter(buffer, QByteArray(b"PNG")).write(image)
    buffer.close()
    return bytes(data.data())


class MemoryBarChart(QWidget):
    """One horizontal stacked bar: the selected option's memory terms per GPU, with the GPU capacity line and
    the usable line (capacity less the memory headroom); their label sits beside the bar, right of the lines."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._terms: list[tuple[str, int]] = []
        self._capacity = 0
        self._usable = 0
        self.plot_widget = pg.PlotWidget(background=None, enableMenu=False)
        self.plot_widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # no Tab stop: a chart takes no keys
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
        self.usable_line = pg.InfiniteLine(
            angle=90, pen=pg.mkPen("#9a6700", width=1, style=Qt.PenStyle.DotLine), movable=False
        )
        # Beside the bar, right of the capacity line (the x range leaves room for it): never over a segment.
        self.capacity_text = pg.TextItem("", color="#D00000", anchor=(0, 0.5))
        self.plot.addItem(self.usable_line)
        self.plot.addItem(self.capacity_line)
        self.plot.addItem(self.capacity_text)
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

    def set_data(
        self, terms: Sequence[tuple[str, int]], capacity_bytes: int, usable_bytes: int | None = None
    ) -> None:
        """terms: (term key as in MemoryBreakdown, bytes per GPU); capacity_bytes: the GPU's memory;
        usable_bytes: what a plan may fill (capacity less the memory headroom; default: all of it)."""
        self._terms = [(str(term), int(value)) for term, value in terms]
        self._capacity = int(capacity_bytes or 0)
        self._usable = int(usable_bytes if usable_bytes is not None else self._capacity)
        self._redraw()

    def clear(self) -> None:
        self.set_data([], 0)

    def chart_data(self) -> dict[str, Any]:
        """What is drawn: segments (term, start GiB, size GiB), total, capacity and usable memory in GiB, and
        where the capacity label starts (GiB, right of the bar and the lines)."""
        segments, start = [], 0.0
        sizes = dict(self._terms)
        for term, _ in MEMORY_TERMS:
            size = sizes.get(term, 0) / GIB
            segments.append((term, start, size))
            start += size
        capacity = self._capacity / GIB
        return {
            "segments": segments,
            "total_gib": start,
            "capacity_gib": capacity,
            "usable_gib": self._usable / GIB,
            "label_gib": max(capacity, start) * 1.01,
        }

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
        capacity, usable = data["capacity_gib"], data["usable_gib"]
        self.capacity_line.setVisible(capacity > 0)
        self.capacity_line.setValue(capacity)
        self.usable_line.setVisible(0 < usable < capacity)
        self.usable_line.setValue(usable)
        text = QCoreApplication.translate("PlanCharts", "capacity {0}").format(_gib_text(capacity))
        if 0 < usable < capacity:
            text = QCoreApplication.translate("PlanCharts", "usable {0} of {1}").format(
                _gib_text(usable), _gib_text(capacity)
            )
        self.capacity_text.setText(text if capacity > 0 else "")
        self.capacity_text.setPos(data["label_gib"], 0.0)
        self._fit_range(data["label_gib"])

    def _fit_range(self, label_gib: float | None = None) -> None:
        """Room on the right for the capacity label: its width in pixels as a share of the plot's width."""
        label_gib = self.chart_data()["label_gib"] if label_gib is None else label_gib
        width = max(self.plot_widget.width(), 200)
        share = min(0.6, (self.fontMetrics().horizontalAdvance(self.capacity_text.toPlainText()) + 16) / width)
        right = max(label_gib, 1.0) / (1.0 - share)
        self.plot.setXRange(0, right, padding=0)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._fit_range()  # the label's room depends on the width (the bars and the key do not)


def _gib_text(gib: float) -> str:
    from desktop import fmt

    return fmt.gib(gib * GIB, 1)


NEW_FAMILIES_PER_TURN = 1  # strategy families whose lines are made in one turn of the event loop


class ScalingChart(QWidget):
    """Time (left plot) and cost (right plot) against GPU count, one line per strategy family.

    set_series({family label: [(gpus, time_s, cost_amount or None), ...]}, currency) draws them; log2 x axis
    (GPU counts are powers of two or multiples of 8); the selected option is marked with a ring on both plots.
    Times span orders of magnitude (log axis); costs differ by percents between GPU counts, so the cost axis
    is linear from zero: a 5% difference looks like 5%, not like a cliff. clear(message) removes every curve
    and axis and says why (nothing fits), so no axes of an earlier plan are left standing. The selected option's
    error band (planner.uncertainty.ErrorBand of its time) is drawn as a bar through the ring on both plots (cost
    scales with time) and written in the legend.
    """

    drawn = Signal()  # the plots show the data of the last set_series

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._series: dict[str, list[tuple[int, float, float | None]]] = {}
        self._currency = "USD"
        self._selected: tuple[str, int] | None = None
        self._band: fmt.BandLike | None = None  # the selected option's time band
        self._time_unit = (3600.0, "h")
        self._time_kind = "wall"
        self.layout_widget = pg.GraphicsLayoutWidget()
        self.layout_widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # no Tab stop: a chart takes no keys
        self.layout_widget.setBackground(None)
        self.time_plot = self.layout_widget.addPlot(row=0, col=0, enableMenu=False)
        self.cost_plot = self.layout_widget.addPlot(row=0, col=1, enableMenu=False)
        for plot in (self.time_plot, self.cost_plot):
            _style_plot(plot)
            plot.getAxis("left").enableAutoSIPrefix(False)  # the unit is in the label, never "(x0.001)"
        self.time_plot.setLogMode(x=True, y=True)
        self.cost_plot.setLogMode(x=True, y=False)
        self.empty_label = QLabel()  # what the chart says instead of axes when there is nothing to draw
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.hide()
        self.key_label = QLabel()  # the legend, above both plots, so it never covers a curve
        self.key_label.setWordWrap(True)
        self.key_label.setTextFormat(Qt.TextFormat.RichText)
        self._time_curves: dict[str, pg.PlotDataItem] = {}
        self._cost_curves: dict[str, pg.PlotDataItem] = {}
        # The selected option, ringed; PlotDataItems so the plots' log mode applies to them too.
        marker = {"pen": None, "symbol": "o", "symbolSize": 16, "symbolBrush": None}
        self.time_marker = self.time_plot.plot([], [], symbolPen=pg.mkPen("#D00000", width=2), **marker)
        self.cost_marker = self.cost_plot.plot([], [], symbolPen=pg.mkPen("#D00000", width=2), **marker)
        # Its error band: a vertical bar from estimate x (1 + low) to estimate x (1 + high).
        self.time_band_bar = self.time_plot.plot([], [], pen=pg.mkPen("#D00000", width=3))
        self.cost_band_bar = self.cost_plot.plot([], [], pen=pg.mkPen("#D00000", width=3))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.key_label)
        layout.addWidget(self.layout_widget, 1)
        layout.addWidget(self.empty_label, 1)
        # The plots are redrawn on the event loop's next turn, not within set_series: an input change on the Plan
        # page draws the table and the headline in one turn and these lines (pyqtgraph's setData and the paint
        # that follows: 15-40 ms of the GUI thread) in the next, so neither turn stalls the window past the budget.
        # Several set_series in one turn redraw once. chart_data() and the legend are the new data at once.
        self._plots_timer = QTimer(self)
        self._plots_timer.setSingleShot(True)
        self._plots_timer.setInterval(0)
        self._plots_timer.timeout.connect(self._redraw)
        self.retranslate()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if self._series:  # the labels that fit depend on the plots' size: once the plots are laid out again
            self._plots_timer.start()

    def redraw_now(self) -> None:
        """Draw the plots now, whole, if a redraw is waiting (before the chart is grabbed as a picture)."""
        while self._plots_timer.isActive():
            self._plots_timer.stop()
            self._redraw()

    def clear(self, message: str = "") -> None:
        """No curves and no axes, only `message` where the plots were."""
        self.set_series({}, self._currency)
        self.empty_label.setText(message)
        self.layout_widget.hide()
        self.empty_label.show()

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
        self.key_label.setText(self._legend(sorted(self._series)))

    def set_series(
        self,
        series: Mapping[str, Sequence[tuple[int, float, float | None]]],
        currency: str = "USD",
        selected: tuple[str, int] | None = None,
        time_kind: str = "wall",
        band: fmt.BandLike | None = None,
    ) -> None:
        """series: family -> points (gpus, time in seconds, cost amount); selected: (family, gpus) to ring;
        band: the selected option's time band (None: no bar).

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
        self._band = band if selected is not None else None
        self._time_unit = _time_unit(self._series, time_kind)
        self._time_kind = time_kind
        self.empty_label.hide()
        self.empty_label.clear()  # no words of an earlier plan (or language) left in the hidden label
        self.layout_widget.show()
        self.key_label.setText(self._legend(sorted(self._series)))  # the band changes with the selection
        self._plots_timer.start()

    def chart_data(self) -> dict[str, Any]:
        """family -> {"gpus": [...], "time_s": [...], "cost": [...]} as drawn, plus the currency."""
        return {
            "currency": self._currency,
            "selected": self._selected,
            "selected_band": self._band_data(),
            "series": {
                family: {
                    "gpus": [p[0] for p in points],
                    "time_s": [p[1] for p in points],
                    "cost": [p[2] for p in points],
                }
                for family, points in self._series.items()
            },
        }

    def _selected_point(self) -> tuple[int, float, float | None] | None:
        if self._selected is None:
            return None
        for point in self._series.get(self._selected[0], []):
            if point[0] == self._selected[1]:
                return point
        return None

    def _band_data(self) -> dict[str, Any] | None:
        """The bar as drawn: the selected point's time and cost range under its band, and the band itself."""
        point, band = self._selected_point(), self._band
        if point is None or band is None:
            return None
        low, high = 1.0 + band.low_fraction, 1.0 + band.high_fraction
        count, time_s, cost = point
        return {
            "gpus": count, "time_s": [time_s * low, time_s * high],
            "cost": [cost * low, cost * high] if cost else None,
            "low_fraction": band.low_fraction, "high_fraction": band.high_fraction, "cases": band.cases,
        }  # fmt: skip

    def _draw_band(self, divisor: float) -> None:
        data = self._band_data()
        if data is None:
            set_points(self.time_band_bar, [], [])
            set_points(self.cost_band_bar, [], [])
            return
        count = data["gpus"]
        set_points(self.time_band_bar, [count, count], [t / divisor for t in data["time_s"]])
        costs = data["cost"]
        set_points(self.cost_band_bar, [count, count] if costs else [], costs or [])

    def _legend(self, families: list[str]) -> str:
        key = [  # each family's colour as _redraw gives it: by its place among the families, sorted
            f"<span style='color:{PALETTE[index % len(PALETTE)]}'>&#9632;</span>&nbsp;{family}"
            for index, family in enumerate(families)
        ]
        selected = QCoreApplication.translate("PlanCharts", "selected option")
        if self._band is not None and self._selected_point() is not None:
            span, _, runs = fmt.band(self._band).partition(", ")  # the range never wraps: "−33% .. +34%"
            kept = span.replace(" ", "&nbsp;") + (", " + runs if runs else "")
            selected = QCoreApplication.translate("PlanCharts", "selected option, time {0}").format(kept)
        ring = "<span style='color:#D00000'>&#9675;</span>&nbsp;" + selected
        return " &nbsp; ".join([*key, ring]) if key else ""

    def _set_ticks(self, divisor: float) -> None:
        """Readable log-axis labels: GPU counts as powers of two, times and costs as 1-2-5 steps."""
        points = [p for line in self._series.values() for p in line]
        if not points:
            return
        counts = [p[0] for p in points]
        # as many labels as fit the plot's width (each about four digits wide) and height (one line each)
        across = max(2, self.time_plot.width() // max(1, self.fontMetrics().horizontalAdvance("00000")))
        down = max(2, self.time_plot.height() // max(1, 2 * self.fontMetrics().height()))
        ticks = _thin(gpu_ticks(min(counts), max(counts)), min(5, int(across)))
        for plot in (self.time_plot, self.cost_plot):
            _set_log_ticks(plot.getAxis("bottom"), ticks, fmt_integer)
        times = [p[1] / divisor for p in points]
        # the time axis: labels at least a line and a half apart on the plot's log scale, as tall as it is now
        # (1-2-5 steps are 0.3 of a decade apart at the closest: in a short plot, decades only)
        height = self.time_plot.getViewBox().height() or self.time_plot.height()
        decades = max(math.log10(max(times)) - math.log10(min(times)), 0.3) * 1.1  # with the auto-range padding
        gap = 1.5 * self.fontMetrics().height() * decades / max(height, 1.0)
        _set_log_ticks(self.time_plot.getAxis("left"), spaced_log_ticks(log_ticks(min(times), max(times)), gap),
                       _significant)  # fmt: skip
        costs = [p[2] for p in points if p[2]]
        if costs:
            top = max(costs) * 1.1
            self.cost_plot.setYRange(-0.03 * top, top, padding=0)  # from zero, with the 0 label in view
            axis = self.cost_plot.getAxis("left")
            ticks = linear_ticks(top, min(5, int(down)))
            step = ticks[1] - ticks[0] if len(ticks) > 1 else top
            set_ticks(axis, [[(v, _step_text(v, step)) for v in ticks], []])

    def _curve(
        self, store: dict[str, pg.PlotDataItem], plot: pg.PlotItem, family: str, color: str
    ) -> pg.PlotDataItem:
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
        """Draw the plots; a strategy family without lines yet gets them here, NEW_FAMILIES_PER_TURN per turn (a
        line with its symbols is 5-15 ms of the GUI thread to make: the first curves of four families in one turn
        were a stall of 60-120 ms), the others on the next turns; `drawn` once every family is drawn."""
        divisor = self._time_unit[0]
        for family in list(self._time_curves):
            if family not in self._series:
                self.time_plot.removeItem(self._time_curves.pop(family))
                self.cost_plot.removeItem(self._cost_curves.pop(family))
        made, later = 0, False
        for index, (family, points) in enumerate(sorted(self._series.items())):
            color = PALETTE[index % len(PALETTE)]
            if family not in self._time_curves:
                if made >= NEW_FAMILIES_PER_TURN:
                    later = True
                    continue
                made += 1
            time_curve = self._curve(self._time_curves, self.time_plot, family, color)
            cost_curve = self._curve(self._cost_curves, self.cost_plot, family, color)
            if getattr(time_curve, "color", None) != color:
                for curve in (time_curve, cost_curve):
                    curve.setPen(pg.mkPen(color, width=2))
                    curve.setSymbolBrush(color)
                    curve.color = color
            gpus = [p[0] for p in points]
            set_points(time_curve, gpus, [p[1] / divisor for p in points])
            priced = [(p[0], p[2]) for p in points if p[2] is not None and p[2] > 0]
            set_points(cost_curve, [g for g, _ in priced], [c for _, c in priced])
        marker_time: tuple[list[float], list[float]] = ([], [])
        marker_cost: tuple[list[float], list[float]] = ([], [])
        if self._selected is not None:
            for count, time_s, cost in self._series.get(self._selected[0], []):
                if count == self._selected[1]:
                    marker_time[0].append(count)
                    marker_time[1].append(time_s / divisor)
                    if cost:
                        marker_cost[0].append(count)
                        marker_cost[1].append(cost)
        set_points(self.time_marker, *marker_time)
        set_points(self.cost_marker, *marker_cost)
        self._draw_band(divisor)
        self._set_ticks(divisor)
        labels = (self._time_unit, self._currency, self._time_kind)
        if labels != self._labels_for:
            self.retranslate()
        self.time_plot.enableAutoRange()
        self.cost_plot.enableAutoRange(axis="x")
        if later:
            self._plots_timer.start()  # the families still without lines: next turn
        else:
            self.drawn.emit()

    def redraw_pending(self) -> bool:
        """New data waits for the next turn of the event loop to be drawn."""
        return self._plots_timer.isActive()


def _step_text(value: float, step: float) -> str:
    """A linear tick as its step needs it: 0, 1,000, 2,000 (whole steps) or 0.5, 1.0 (fractional)."""
    from desktop import fmt

    return fmt.number(value, max(0, -math.floor(math.log10(step))) if step > 0 else 0)


def fmt_integer(value: float) -> str:
    from desktop import fmt

    return fmt.integer(round(value))


def linear_ticks(top: float, most: int = 5) -> list[float]:
    """0 and round steps (1, 2, 5 x 10^k) up to `top`, at most `most` + 1 of them."""
    if not top > 0:
        return [0.0]
    for exponent in range(math.floor(math.log10(top / most)) - 1, math.floor(math.log10(top)) + 2):
        for step in (1, 2, 5):
            size = step * 10.0**exponent
            if top / size <= most:
                return [size * i for i in range(int(top / size) + 1)]
    return [0.0, top]


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


def spaced_log_ticks(values: Sequence[float], gap_decades: float) -> list[float]:
    """Of round values (1-2-5 steps), those at least `gap_decades` apart on a log axis: all of them, else the
    decades, else every 2nd, 3rd... decade (at least one value)."""
    if not values:
        return []
    logs = [math.log10(v) for v in values]
    if all(b - a >= gap_decades - 1e-9 for a, b in zip(logs, logs[1:], strict=False)):
        return list(values)
    decades = [v for v, x in zip(values, logs, strict=True) if abs(x - round(x)) < 1e-9]
    if not decades:  # less than a decade: its ends, or one value
        return [values[0], values[-1]] if logs[-1] - logs[0] >= gap_decades else [values[0]]
    every = max(1, math.ceil(gap_decades - 1e-9))
    return decades[::every]


def _thin(values: Sequence[float], most: int = 7) -> list[float]:
    """At most `most` ticks, evenly picked, so labels never collide."""
    if len(values) <= most:
        return list(values)
    step = math.ceil(len(values) / max(1, most))
    return list(values[::step])


def gpu_ticks(low: int, high: int) -> list[int]:
    """GPU counts worth labelling: powers of two between the smallest and largest count."""
    ticks, value = [], 1
    while value <= max(high, 1):
        if value >= low:
            ticks.append(value)
        value *= 2
    return ticks or [low]


def _set_log_ticks(axis: pg.AxisItem, values: list[float], text: Callable[[float], str]) -> None:
    set_ticks(axis, [[(math.log10(v), text(v)) for v in values if v > 0], []])



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
