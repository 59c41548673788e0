"""Chart colours that follow the application palette (light or dark) and a colour-blind-safe series palette."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

import pyqtgraph as pg  # isort: skip  (PySide6 first: docs/architecture.md, "Known traps")

# Okabe-Ito, then a few distinct extras for 8+ GPUs; readable on light and dark backgrounds.
SERIES_COLORS = (
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#999999", "#F0E442",
    "#7F3C8D", "#11A579", "#3969AC", "#F2B701",
)  # fmt: skip


def series_color(index: int) -> QColor:
    return QColor(SERIES_COLORS[index % len(SERIES_COLORS)])


def series_pen(index: int, width: float = 2.0, style: Qt.PenStyle | None = None) -> pg.QtGui.QPen:
    """The pen of series ``index``; ``style`` (a Qt.PenStyle, e.g. DashLine) marks a series that ended."""
    if style is None:
        return pg.mkPen(series_color(index), width=width)
    return pg.mkPen(series_color(index), width=width, style=style)


def palette_colors() -> tuple[QColor, QColor]:
    """(background, foreground) of charts: the palette's Base and Text colours."""
    palette = QApplication.palette()
    return palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.Text)


def apply_global_chart_theme() -> None:
    """Set pyqtgraph's defaults from the palette; call after the QApplication exists, before charts are built."""
    background, foreground = palette_colors()
    pg.setConfigOptions(background=background, foreground=foreground, antialias=True)


def style_plot(plot: pg.PlotItem) -> None:
    """A calm, static plot: light grid, no context menu, no auto-range button, no mouse zoom. Build the plot
    with enableMenu=False too: its view box then never builds the menu this would throw away (a third of a
    plot's construction time on the GUI thread)."""
    plot.showGrid(x=True, y=True, alpha=0.15)
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.getViewBox().setMouseEnabled(x=False, y=False)

