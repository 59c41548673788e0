"""Redraws that touch only what changed: a chart redrawn for an input change gives each line its points and each
axis its labels only when they differ from those it shows.

pyqtgraph lays a line out again on every setData (its points, symbols and bounds: 2-5 ms of the GUI thread each)
and repaints an axis on every setTicks. An input change on the Plan page redraws its scaling chart, whose other
strategies' lines and ring mostly stay where they were; a drag on Rent or buy moves some of its lines only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def set_points(item: Any, xs: Sequence[float], ys: Sequence[float]) -> None:
    """`item.setData(xs, ys)` (a pyqtgraph PlotDataItem) unless it holds these points already."""
    points = (tuple(xs), tuple(ys))
    if getattr(item, "drawn_points", None) != points:
        item.setData(list(xs), list(ys))
        item.drawn_points = points


def set_ticks(axis: Any, ticks: list[list[tuple[float, str]]]) -> None:
    """`axis.setTicks(ticks)` (a pyqtgraph AxisItem) unless it shows these labels already."""
    if getattr(axis, "drawn_ticks", None) != ticks:
        axis.setTicks(ticks)
        axis.drawn_ticks = ticks
