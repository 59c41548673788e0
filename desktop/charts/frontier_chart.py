"""Throughput against latency for serving (the frontier): output tokens per second per GPU against the tokens per
second one user reads (1 / time per output token), one line per tensor-parallel layout over 1, 2, 4, ...
concurrent users (planner.search.serving_frontier), the Pareto frontier drawn thick, the TPOT target as a
vertical line (the points right of it meet it) and the selected option ringed. Drawn from plain data; chart_data()
is what is on screen."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desktop.charts.plan_charts import PALETTE
from desktop.charts.redraw import set_points

import pyqtgraph as pg  # isort: skip  (PySide6 first: pyqtgraph binds to the Qt already imported)

if TYPE_CHECKING:
    from planner.search.serving_frontier import FrontierPoint

class FrontierChart(QWidget):
    """Tokens/s per GPU (y) against tokens/s per user (x), both on log axes."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._points: tuple[FrontierPoint, ...] = ()
        self._frontier: tuple[FrontierPoint, ...] = ()
        self._target_per_user: float | None = None
        self._selected: tuple[float, float] | None = None  # (per-user, per-GPU tokens/s) of the selected option
        self._gpu_name = ""
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.layout_widget = pg.GraphicsLayoutWidget()
        self.layout_widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # no Tab stop: a chart takes no keys
        self.layout_widget.setBackground(None)
        self.plot = self.layout_widget.addPlot(row=0, col=0, enableMenu=False)
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        self.plot.hideButtons()
        self.plot.getViewBox().setMouseEnabled(x=False, y=False)
        self.plot.setLogMode(x=True, y=True)
        self._curves: dict[str, pg.PlotDataItem] = {}
        self.frontier_curve = self.plot.plot([], [], pen=pg.mkPen("#000000", width=3))
        self.target_line = pg.InfiniteLine(angle=90, pen=pg.mkPen("#cf222e", width=2, style=Qt.PenStyle.DashLine))
        self.plot.addItem(self.target_line)
        self.marker = self.plot.plot([], [], pen=None, symbol="o", symbolSize=16, symbolBrush=None,
                                     symbolPen=pg.mkPen("#D00000", width=2))  # fmt: skip
        self.empty_label = QLabel()
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(self.layout_widget, 1)
        layout.addWidget(self.empty_label, 1)
        self.retranslate()
        self.show_message("")

    def retranslate(self) -> None:
        self.plot.getAxis("bottom").setLabel(
            QCoreApplication.translate("FrontierChart", "tokens/s per user (1 / time per output token)")
        )
        self.plot.getAxis("left").setLabel(QCoreApplication.translate("FrontierChart", "output tokens/s per GPU"))
        self._write_title()

    def show_message(self, message: str) -> None:
        """No points: `message` where the plot was (training plans, nothing fits, the points still coming)."""
        self.set_points((), None, None, "")
        self.empty_label.setText(message)
        self.layout_widget.hide()
        self.empty_label.show()

    def set_points(
        self, points: Sequence[FrontierPoint], target_tpot_s: float | None, selected: tuple[float, float] | None,
        gpu_name: str,
    ) -> None:  # fmt: skip
        """points: planner.search.serving_frontier's; target_tpot_s: the TPOT target (None: no line); selected:
        (tokens/s per user, tokens/s per GPU) of the selected option (None: no ring)."""
        from planner.search.serving_frontier import pareto

        self._points = tuple(points)
        self._frontier = pareto(self._points)
        self._target_per_user = 1.0 / target_tpot_s if target_tpot_s else None
        self._selected = selected
        self._gpu_name = gpu_name
        if self._points:
            self.empty_label.hide()
            self.layout_widget.show()
        self._redraw()

    def chart_data(self) -> dict[str, Any]:
        """What is drawn: the points by layout ("TP 2", "EP 8"), the frontier, the target line's x (tokens/s per
        user) and the ring."""
        by_tp: dict[str, list[tuple[float, float, int]]] = {}
        for p in self._points:
            by_tp.setdefault(p.label, []).append((p.per_user_tokens_per_s, p.tokens_per_s_per_gpu, p.users))
        return {
            "gpu": self._gpu_name,
            "series": by_tp,
            "frontier": [(p.per_user_tokens_per_s, p.tokens_per_s_per_gpu, p.label, p.users, p.meets)
                         for p in self._frontier],  # fmt: skip
            "target_per_user_tokens_per_s": self._target_per_user,
            "selected": self._selected,
        }

    def _write_title(self) -> None:
        text = "<b>" + QCoreApplication.translate("FrontierChart", "Throughput against latency") + "</b>"
        if self._gpu_name:
            text += " — " + self._gpu_name
        if self._target_per_user is not None:
            text += "<br>" + QCoreApplication.translate(
                "FrontierChart", "Right of the red line: within the time-per-token target"
            )
        self.title.setText(text)

    def _redraw(self) -> None:
        data = self.chart_data()
        for tp in list(self._curves):
            if tp not in data["series"]:
                self.plot.removeItem(self._curves.pop(tp))
        for index, (label, points) in enumerate(sorted(data["series"].items())):
            curve = self._curves.get(label)
            if curve is None:
                color = PALETTE[index % len(PALETTE)]
                curve = self._curves[label] = self.plot.plot(
                    [], [], pen=pg.mkPen(color, width=1), symbol="o", symbolSize=5, symbolBrush=color,
                    symbolPen=None, name=label,
                )  # fmt: skip
            set_points(curve, [x for x, _, _ in points], [y for _, y, _ in points])
        set_points(self.frontier_curve, [p[0] for p in data["frontier"]], [p[1] for p in data["frontier"]])
        target = self._target_per_user
        self.target_line.setVisible(target is not None)
        if target is not None:
            self.target_line.setValue(_log10(target))
        selected = self._selected
        set_points(self.marker, [selected[0]] if selected else [], [selected[1]] if selected else [])
        self._write_title()


def _log10(value: float) -> float:
    """An InfiniteLine on a log-mode axis sits at log10 of the value."""
    import math

    return math.log10(value)
