"""Price per GPU-hour by GPU model: the user's quotes against the dated reference points shipped with the app.

One row per GPU model (sorted by the cheapest price), a dot per quote: filled for the user's own quotes,
hollow squares for reference prices. Prices are in the display currency; quotes whose currency has no
exchange rate are left out and counted in the title, never converted at an assumed rate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QVBoxLayout, QWidget

from desktop.charts.theme import palette_colors, series_color, style_plot

import pyqtgraph as pg  # isort: skip  (PySide6 first: docs/architecture.md, "Known traps")

CONTEXT = "PriceChart"


def _tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


@dataclass(frozen=True)
class PricePoint:
    gpu: str  # display name of the GPU model
    price: float  # in the display currency
    reference: bool  # shipped reference price (True) or the user's quote
    label: str  # provider and date, for the tooltip


class PriceChart(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.plot_widget = pg.PlotWidget(self, enableMenu=False)
        self.plot_widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # no Tab stop: a chart takes no keys
        self.plot = self.plot_widget.getPlotItem()
        style_plot(self.plot)
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.plot.invertY(True)
        self.plot.getAxis("left").setWidth(200)
        self.rows: dict[str, int] = {}
        # top right: rows run from the cheapest GPU at the top, so the dear (right) end of the top rows is empty
        self.legend = self.plot.addLegend(offset=(-10, 10), labelTextColor=palette_colors()[1])
        self.user_points = pg.ScatterPlotItem(
            size=10, pen=pg.mkPen(None), brush=series_color(0), hoverable=True
        )
        self.reference_points = pg.ScatterPlotItem(
            size=10,
            symbol="s",
            pen=pg.mkPen(series_color(1), width=2),
            brush=pg.mkBrush(None),
            hoverable=True,
        )
        self.plot.addItem(self.reference_points)
        self.plot.addItem(self.user_points)
        self.points: list[PricePoint] = []
        self.currency = "USD"
        self.left_out = 0
        self.total = 0  # quotes with a price; more than len(points) when dense groups are drawn as quantiles
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot_widget)
        self.retranslate()

    def retranslate(self) -> None:
        self.legend.clear()
        self.legend.addItem(self.user_points, QCoreApplication.translate("PriceChart", "your quotes"))
        self.legend.addItem(
            self.reference_points, QCoreApplication.translate("PriceChart", "reference prices (dated)")
        )
        self._titles()

    def _titles(self) -> None:
        title = QCoreApplication.translate("PriceChart", "Price per GPU-hour by GPU model ({0})").format(
            self.currency
        )
        if self.left_out:
            title += QCoreApplication.translate(
                "PriceChart", " — {0} without an exchange rate left out"
            ).format(self.left_out)
        if self.total > len(self.points):
            title += QCoreApplication.translate(
                "PriceChart", " — {0} quotes, busy GPU models drawn as price quantiles"
            ).format(self.total)
        self.plot.setTitle(title, size="10pt")
        self.plot.setLabel(
            "bottom", QCoreApplication.translate("PriceChart", "{0} per GPU-hour").format(self.currency)
        )

    def set_points(
        self, points: list[PricePoint], currency: str, left_out: int = 0, total: int | None = None
    ) -> None:
        """One row per GPU model (cheapest at the top), price along x: long GPU names never overlap.

        ``total``: how many quotes the points stand for (desktop.quote_pricing.chart_points summarises a GPU
        model with very many quotes as price quantiles); the title says so when it is more than the points.
        """
        self.points, self.currency, self.left_out = list(points), currency, left_out
        self.total = len(self.points) if total is None else total
        cheapest: dict[str, float] = {}
        for point in self.points:
            cheapest[point.gpu] = min(point.price, cheapest.get(point.gpu, float("inf")))
        order = sorted(cheapest, key=lambda gpu: (cheapest[gpu], gpu))
        self.rows = {gpu: position for position, gpu in enumerate(order)}

        def spots(reference: bool) -> list[dict[str, Any]]:
            return [
                {"pos": (p.price, self.rows[p.gpu]), "data": p.label}
                for p in self.points
                if p.reference == reference
            ]

        self.user_points.setData(spots(False))
        self.reference_points.setData(spots(True))
        self.plot.getAxis("left").setTicks([[(position, gpu) for gpu, position in self.rows.items()]])
        self.plot.setYRange(-0.6, max(len(order), 1) - 0.4, padding=0)
        top = max((p.price for p in self.points), default=1.0)
        self.plot.setXRange(0, top * 1.08, padding=0)
        self._titles()
