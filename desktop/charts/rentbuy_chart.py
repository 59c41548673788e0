"""Rent or buy chart: cumulative cost by month for each way of paying, with break-even markers.

Drawn from plain data (set_data) and kept in chart_data() for tests. Curves are created once per series name
and updated with setData, so dragging a slider redraws in a few milliseconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desktop.charts.redraw import set_points
from desktop.message_templates import QT_TRANSLATE_NOOP  # typed: returns its text

import pyqtgraph as pg  # isort: skip  (PySide6 first)

CONTEXT = "RentBuyChart"

# Series keys (as planner.costs names them) in legend order, display names and colours (Okabe-Ito).
SERIES = (
    ("on_demand", QT_TRANSLATE_NOOP("RentBuyChart", "rent on demand"), "#0072B2", Qt.PenStyle.SolidLine),
    ("spot", QT_TRANSLATE_NOOP("RentBuyChart", "rent spot"), "#56B4E9", Qt.PenStyle.DashLine),
    (
        "reserved",
        QT_TRANSLATE_NOOP("RentBuyChart", "rent reserved (paid around the clock)"),
        "#009E73",
        Qt.PenStyle.DashDotLine,
    ),
    (
        "rent_mix",
        QT_TRANSLATE_NOOP("RentBuyChart", "rent mix (on demand + spot share)"),
        "#999999",
        Qt.PenStyle.DashLine,
    ),
    ("buy", QT_TRANSLATE_NOOP("RentBuyChart", "buy"), "#D55E00", Qt.PenStyle.SolidLine),
    (
        "hybrid",
        QT_TRANSLATE_NOOP("RentBuyChart", "hybrid (own base, rent bursts)"),
        "#CC79A7",
        Qt.PenStyle.DotLine,
    ),
)


def _tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


def _bold_font() -> QFont:
    font = QFont()
    font.setBold(True)
    return font


class AmountAxis(pg.AxisItem):
    """Tick labels as whole amounts with the locale's group separator (450,000 / 450 000), no SI prefixes."""

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802
        from desktop import fmt

        return [fmt.number(value * scale, 0) for value in values]


class RentBuyChart(QWidget):
    """Cumulative cost (display currency) against months; a vertical marker where buying overtakes renting."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._series: dict[str, list[float]] = {}
        self._break_even: dict[str, float | None] = {}
        self._currency = "USD"
        self.plot_widget = pg.PlotWidget(axisItems={"left": AmountAxis(orientation="left")}, enableMenu=False)
        self.plot_widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # no Tab stop: a chart takes no keys
        self.plot = self.plot_widget.getPlotItem()
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.getViewBox().setMouseEnabled(x=False, y=False)
        # The key sits above the plot (a label), so it never covers a curve or the break-even text.
        self.key_label = QLabel()
        self.key_label.setWordWrap(True)
        self.key_label.setTextFormat(Qt.TextFormat.RichText)
        self._curves: dict[str, pg.PlotDataItem] = {}
        for key, _, color, style in SERIES:
            self._curves[key] = self.plot.plot([], [], pen=pg.mkPen(color, width=2.5, style=style))
        self.break_even_line = pg.InfiniteLine(
            angle=90, movable=False, pen=pg.mkPen("#444444", width=1.5, style=Qt.PenStyle.DashLine)
        )
        # near the bottom, where the cumulative costs have not climbed yet: the text crosses no curve
        self.break_even_line.label = pg.InfLineLabel(
            self.break_even_line, "", position=0.06, anchors=[(0, 1), (0, 1)], color="#333333"
        )
        self.break_even_line.label.setFont(_bold_font())
        self.plot.addItem(self.break_even_line)
        self.break_even_points = self.plot.plot(
            [],
            [],
            pen=None,
            symbol="d",
            symbolSize=12,
            symbolBrush="#D55E00",
            symbolPen=pg.mkPen("w", width=1),
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.key_label)
        layout.addWidget(self.plot_widget, 1)
        self.retranslate()

    def retranslate(self) -> None:
        self.plot.getAxis("bottom").setLabel(QCoreApplication.translate("RentBuyChart", "months"))
        self.plot.getAxis("left").setLabel(
            QCoreApplication.translate("RentBuyChart", "cumulative cost ({0})").format(self._currency)
        )
        self._redraw()

    def set_data(
        self,
        series: Mapping[str, Sequence[float]],
        break_even_months: Mapping[str, float | None],
        currency: str,
    ) -> None:
        """series: key -> cumulative cost at the end of month 0, 1, 2, ... (index = month; month 0 = upfront).

        break_even_months: rent series key -> month at which buying becomes cheaper (None: never in the horizon).
        """
        self._series = {key: [float(v) for v in values] for key, values in series.items()}
        self._break_even = dict(break_even_months)
        if currency != self._currency:  # the axis title names it (a new title re-lays the plot out)
            self._currency = currency
            self.retranslate()
        else:
            self._redraw()

    def chart_data(self) -> dict[str, Any]:
        return {
            "series": dict(self._series),
            "break_even_months": dict(self._break_even),
            "currency": self._currency,
        }

    def _redraw(self) -> None:
        key = []
        for name, label, color, style in SERIES:
            curve, values = self._curves[name], self._series.get(name)
            if values:
                set_points(curve, range(len(values)), values)
                curve.setVisible(True)
                swatch = "&#9472;&#9472;" if style == Qt.PenStyle.SolidLine else "&#9476;&#9476;"
                key.append(f"<span style='color:{color}'><b>{swatch}</b></span>&nbsp;{_tr(label)}")
            else:
                set_points(curve, [], [])
                curve.setVisible(False)
        self.key_label.setText(" &nbsp; ".join(key))
        months = self._break_even.get("on_demand")
        self.break_even_line.setVisible(months is not None)
        points_x, points_y = [], []
        if months is not None:
            self.break_even_line.setValue(months)
            # Text on the side with room: right of the line in the first half of the horizon, left after.
            horizon = max((len(v) - 1 for v in self._series.values()), default=1) or 1
            anchor = (0, 1) if months < horizon / 2 else (1, 1)
            self.break_even_line.label.anchors = [anchor, anchor]
            self.break_even_line.label.setAnchor(anchor)
            self.break_even_line.label.setText(
                QCoreApplication.translate("RentBuyChart", "buying pays off after {0} months").format(
                    _months_text(months)
                )
            )
        for at in self._break_even.values():
            buy = self._series.get("buy")
            if at is None or not buy:
                continue
            points_x.append(at)
            points_y.append(_interpolate(buy, at))
        set_points(self.break_even_points, points_x, points_y)
        self.plot.enableAutoRange()


def _interpolate(values: Sequence[float], month: float) -> float:
    if month <= 0:
        return values[0]
    low = min(int(month), len(values) - 1)
    high = min(low + 1, len(values) - 1)
    fraction = month - low
    return values[low] + (values[high] - values[low]) * fraction


def _months_text(months: float) -> str:
    from desktop import fmt

    return fmt.number(months, 1)
