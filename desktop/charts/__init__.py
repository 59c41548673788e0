"""The charts (pyqtgraph). Importing this package applies the chart theme (desktop/charts/theme.py) once a
QApplication exists, so pyqtgraph loads with the first page that draws a chart, not with the application: the
window of a page without charts appears without it (docs/architecture.md, start-up)."""

from __future__ import annotations


def _apply_theme_once() -> None:
    from PySide6.QtWidgets import QApplication

    if QApplication.instance() is not None:
        from desktop.charts.theme import apply_global_chart_theme

        apply_global_chart_theme()


_apply_theme_once()
