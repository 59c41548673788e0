"""Probe results against the catalog spec, one horizontal bar per measurement, drawn as results arrive.

Bandwidths and FLOPS have different units, so the common axis is "% of spec"; a line marks 100 %. Each bar is
labelled with the measured figure. Measurements without a spec figure are listed by the results table only.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desktop import fmt
from desktop.charts.theme import palette_colors, series_color, style_plot

import pyqtgraph as pg  # isort: skip  (after PySide6, so pyqtgraph binds to PySide6 and not another Qt)

CONTEXT = "ProbeSpecChart"


def _tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


class ProbeSpecChart(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.plot_widget = pg.PlotWidget(self, enableMenu=False)
        self.plot_widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # no Tab stop: a chart takes no keys
        self.plot = self.plot_widget.getPlotItem()
        style_plot(self.plot)
        self.plot.showGrid(x=True, y=False, alpha=0.15)
        self.plot.invertY(True)
        self.plot.getAxis("left").setWidth(150)
        self.reference = pg.InfiniteLine(
            pos=100,
            angle=90,
            pen=pg.mkPen(palette_colors()[1], width=1, style=pg.QtCore.Qt.PenStyle.DashLine),
        )
        self.plot.addItem(self.reference)
        self.bars = pg.BarGraphItem(x0=[], y=[], width=[], height=0.6, brush=series_color(0))
        self.plot.addItem(self.bars)
        self.labels: list[pg.TextItem] = []
        self.items: list[tuple[str, float, str]] = []  # (label, percent of spec, measured text)
        # the empty state: what the chart will show and how to get it, instead of bare axes
        self.empty_label = QLabel(self)
        self.empty_label.setWordWrap(True)
        self.empty_label.setObjectName("hint")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.empty_label)
        layout.addWidget(self.plot_widget)
        self.retranslate()
        self._redraw()

    def retranslate(self) -> None:
        self.plot.setTitle(
            QCoreApplication.translate("ProbeSpecChart", "Measured as % of the catalog spec"), size="10pt"
        )
        self.plot.setLabel("bottom", QCoreApplication.translate("ProbeSpecChart", "% of spec"))
        self.empty_label.setText(
            QCoreApplication.translate(
                "ProbeSpecChart",
                "No measurements yet. “Run quick probe” measures this machine (matrix multiply, memory bandwidth) in "
                "about a minute; each result appears here as a share of its catalog spec.",
            )
        )

    def clear(self) -> None:
        self.items = []
        self._redraw()

    def add(self, label: str, percent: float, measured_text: str) -> None:
        self.add_many([(label, percent, measured_text)])

    def add_many(self, items: list[tuple[str, float, str]]) -> None:
        """Append bars and redraw once (a burst of results is one redraw, not one per bar)."""
        if items:
            self.items.extend((label, float(percent), text) for label, percent, text in items)
            self._redraw()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if self.items:
            self._redraw()  # the labels' room depends on the width

    def set_items(self, items: list[tuple[str, float, str]]) -> None:
        self.items = list(items)
        self._redraw()

    def _redraw(self) -> None:
        count = len(self.items)
        self.empty_label.setVisible(count == 0)
        percents = [p for _, p, _ in self.items]
        self.bars.setOpts(x0=[0.0] * count, y=list(range(count)), width=percents, height=0.6)
        for label in self.labels:
            self.plot.removeItem(label)
        self.labels = []
        background, foreground = palette_colors()
        # the x range leaves room right of each bar for its whole label, at the plot's width now
        width = max(self.plot.getViewBox().width(), 120.0)
        right = 130.0
        for row, (_, percent, text) in enumerate(self.items):
            words = f"{text}  ({fmt.percent(percent / 100)})"
            # on the chart's background, over the dashed 100 % line: a label past 100 % is not struck through
            label = pg.TextItem(words, color=foreground, anchor=(0, 0.5), fill=pg.mkBrush(background))
            label.setZValue(self.reference.zValue() + 1)
            label.setPos(percent + 2, row)
            self.plot.addItem(label)
            self.labels.append(label)
            share = min(0.8, (self.fontMetrics().horizontalAdvance(words) + 12) / width)
            right = max(right, (percent + 2) / (1 - share))
        self.plot.getAxis("left").setTicks([[(row, name) for row, (name, _, _) in enumerate(self.items)]])
        self.plot.setXRange(0, right, padding=0)
        self.plot.setYRange(-0.6, max(count, 4) - 0.4, padding=0)
