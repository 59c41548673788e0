"""Small widgets the pages share: a read-only sortable table over a model, and the inline banner that shows an
error or a notice where it happened (never a blocking dialog).
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QSortFilterProxyModel, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHeaderView,
    QLabel,
    QScrollArea,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop.qmodels.gpu_inventory import SORT_ROLE


def make_table(
    model: QAbstractItemModel, parent: QWidget | None = None, sort_role: int = SORT_ROLE
) -> QTableView:
    """A read-only, sortable table over ``model`` (through a proxy so the model's order stays put)."""
    proxy = QSortFilterProxyModel(parent)
    proxy.setSourceModel(model)
    proxy.setSortRole(sort_role)
    view = QTableView(parent)
    view.setModel(proxy)
    view.setTabKeyNavigation(False)  # Tab leaves the table (arrows move between cells), as on every page
    view.setSortingEnabled(True)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 10)
    view.horizontalHeader().setHighlightSections(False)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.horizontalHeader().setStretchLastSection(True)
    view.setWordWrap(False)
    view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    return view


def banner(parent: QWidget | None = None) -> QLabel:
    """An inline message line (errors and notices shown where they happened, never a blocking dialog)."""
    label = QLabel(parent)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setFrameShape(QFrame.Shape.StyledPanel)
    label.setContentsMargins(8, 6, 8, 6)
    label.hide()
    return label


def show_banner(label: QLabel, text: str, error: bool = False) -> None:
    color = "#b00020" if error else "palette(text)"
    label.setStyleSheet(f"QLabel {{ color: {color}; }}")
    label.setText(text)
    label.setVisible(bool(text))


def fit_to_contents_width(scroll: QScrollArea, minimum: int) -> None:
    """A form's scroll area at least as wide as its widest row needs (words differ by language): a form that
    scrolls only vertically would otherwise clip the right edge of its fields."""
    inner = scroll.widget()
    if inner is None:
        return
    bar = scroll.verticalScrollBar().sizeHint().width()
    scroll.setMinimumWidth(max(minimum, inner.minimumSizeHint().width() + bar + 2 * scroll.frameWidth()))


class ChartHolder(QWidget):
    """An empty widget a chart is put in later (no margins: the chart fills it as it would its place)."""

    def __init__(self) -> None:
        super().__init__()
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)

    def put(self, chart: QWidget) -> None:
        self._layout.addWidget(chart)
        chart.show()  # a child added to a shown window stays hidden until shown
