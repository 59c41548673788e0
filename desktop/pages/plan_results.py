"""The Plan page's results panel: the message strip (headline, selected row, limits), the ranked options table
with the goodput and mixed-pool tabs beside it, the memory bar, the scaling chart, advice and excluded strategies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QLocale, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from desktop import plan_scale_text, plan_text
from desktop.charts.frontier_chart import FrontierChart
from desktop.charts.plan_charts import MemoryBarChart, ScalingChart
from desktop.plan_request import (
    PoolAnswer,
    render_note,
)
from desktop.qmodels.plan_options import PlanOptionsModel
from desktop.qmodels.pool_choices import PoolChoicesModel
from desktop.shelf import take

if TYPE_CHECKING:
    from collections.abc import Sequence

    from planner.search import PlanOption


# The strategy column is as wide as a common three-axis layout; longer ones (with offload or recompute) wrap
# after a comma onto a second line.
STRATEGY_SAMPLE = "ZeRO-1 × 16, TP 8, PP 8"
MESSAGE_LINES = 4  # the message strip above the table holds this many lines (more scroll inside it)


class MessageStrip(QScrollArea):
    """The headline, the selected row and the limits line in a strip of fixed height (MESSAGE_LINES lines):
    a message that appears or grows scrolls inside the strip instead of pushing the table down."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.headline = QLabel()
        self.headline.setObjectName("planHeadline")
        self.selected = QLabel()
        self.selected.setObjectName("planSelected")
        # What the budget and deadline took out of the ranking (those options are not in the table).
        self.limits = QLabel()
        self.limits.setObjectName("planLimits")
        self.limits.setStyleSheet("color: #9a6700;")
        inner = QWidget()
        layout = QVBoxLayout(inner)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        for label in (self.headline, self.selected, self.limits):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            layout.addWidget(label)
        layout.addStretch(1)
        self.setWidget(inner)
        self.setWidgetResizable(True)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # text to read, not a Tab stop
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFixedHeight(self.fontMetrics().lineSpacing() * MESSAGE_LINES + 8)

    def show_texts(self, headline: str, selected: str, limits: str) -> None:
        self.headline.setText(headline)
        for label, text in ((self.selected, selected), (self.limits, limits)):
            label.setText(text)
            label.setVisible(bool(text))


class PoolView(QWidget):
    """The mixed-pool comparison: a headline naming the best way and why it wins, the table of every way (best
    first, bold), and the bound no pooled job beats."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._shown: tuple[PoolAnswer | None, tuple[object, ...]] | None = None  # the answer drawn, and about what
        self.headline = QLabel()
        self.headline.setObjectName("poolHeadline")
        self.headline.setWordWrap(True)
        self.headline.setTextFormat(Qt.TextFormat.RichText)
        self.headline.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.model = PoolChoicesModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setTabKeyNavigation(False)  # Tab leaves the table; arrows move between rows
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(True)
        self.details = QLabel()  # the pipeline's stages, separate jobs, the ways that do not fit
        self.details.setObjectName("poolDetails")
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.ceiling = QLabel()
        self.ceiling.setWordWrap(True)
        self.ceiling.setObjectName("hint")
        # every row at its full height, the words under it: the tab scrolls as a whole instead of the table
        # shrinking to a sliver when five ways and their details share a short tab
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.headline)
        layout.addWidget(self.table)
        layout.addWidget(self.ceiling)  # the bound every row is under, then what the ways do
        layout.addWidget(self.details)
        layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes to the table and the fields
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(body)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)

    def show_answer(self, answer: PoolAnswer | None, names: dict[str, str], training: bool) -> None:
        # every redraw of the plan passes the pool's answer again; it changes only when the next one follows (or
        # with the GPU names, the kind of plan or the language)
        about = (names, training, QLocale().name())
        if self._shown is not None and answer is self._shown[0] and about == self._shown[1]:
            return
        self._shown = (answer, about)
        comparison = answer.comparison if answer is not None else None
        self.model.set_comparison(comparison, names)
        self.table.setVisible(comparison is not None and bool(comparison.choices))
        if answer is None:
            self.headline.setText(
                self.tr("No mixed pool: in Expert mode, add GPU types and their counts under Mixed pool to compare "
                        "each type alone with the whole pool as one job, a pipeline over the types and separate jobs.")
            )  # fmt: skip
            self.ceiling.setText("")
        elif comparison is None:
            self.headline.setText(
                "<b>" + self.tr("The pool cannot be planned:") + "</b> " + plan_text.escape(render_note(answer.error))
            )
            self.ceiling.setText("")
        else:
            self.headline.setText(plan_scale_text.pool_headline_html(comparison, names, training))
            self.ceiling.setText(plan_scale_text.pool_ceiling_text(comparison, training))
        details = plan_scale_text.pool_details_html(comparison, names) if comparison is not None else ""
        self.details.setText(details)
        self.details.setVisible(bool(details))
        self.table.resizeColumnsToContents()
        self.table.resizeRowsToContents()
        self._fit_table_height()

    def _fit_table_height(self) -> None:
        """The table as tall as its header and rows (the scroll area around the tab scrolls)."""
        table = self.table
        rows = sum(table.rowHeight(row) for row in range(self.model.rowCount()))
        scrollbar = table.horizontalScrollBar().sizeHint().height() if table.horizontalScrollBar().isVisible() else 0
        table.setFixedHeight(table.horizontalHeader().height() + rows + 2 * table.frameWidth() + scrollbar)


class OptionsTable(QTableView):
    """The options table. Its columns fit their contents; the strategy takes the room the others leave, on one
    line where it fits and wrapped at no less than STRATEGY_SAMPLE where not, again when the table is resized."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._others = 0  # the other columns' width at the last fit
        self._natural = 0  # the strategy column's width on one line
        self._banded: dict[int, int] = {}  # the columns of a figure over its band: their width to contents

    def fit_columns(self, strategy: int) -> None:
        self.resizeColumnsToContents()
        self._natural = self.columnWidth(strategy) if strategy >= 0 else 0
        self._others = self.horizontalHeader().length() - self._natural
        model = self.model()
        # a figure over its band ("4.4 h" / "-33..+34%"): the band is right-aligned, and as wide as the column
        banded = [model.column_of(k) for k in ("time", "tokens_per_s")] if isinstance(model, PlanOptionsModel) else []
        self._banded = {column: self.columnWidth(column) for column in banded if column >= 0}
        self._fit_strategy(strategy)

    def _fit_strategy(self, strategy: int, rows: bool = True) -> None:
        """The strategy column's width for the table's width; the rows' heights follow it (`rows`: always; else
        only when the column's width changed: the wrapping of the other cells does not depend on the table's
        width, and fitting the rows is the costly part). Where the table has room, the banded columns are a
        digit wider, their band clear of the cell's left border."""
        least = self.fontMetrics().horizontalAdvance(STRATEGY_SAMPLE) + 12  # + cell padding
        pad = self.fontMetrics().horizontalAdvance("0")
        room = self.viewport().width() - self._others
        if room - pad * len(self._banded) < least:
            pad = 0
        for column, width in self._banded.items():
            if self.columnWidth(column) != width + pad:
                self.setColumnWidth(column, width + pad)
        if strategy >= 0:
            width = min(self._natural, max(room - pad * len(self._banded), least))
            if width != self.columnWidth(strategy):
                self.setColumnWidth(strategy, width)
                rows = True
        if rows:
            self.resizeRowsToContents()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        model = self.model()
        if isinstance(model, PlanOptionsModel) and model.rowCount() and self._natural:
            self._fit_strategy(model.column_of("strategy"), rows=False)


class ResultsPanel(QWidget):
    """Message strip, options table, memory bar, scaling chart, advice and excluded strategies."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.messages = MessageStrip()
        self.headline, self.selected_label, self.limits = (
            self.messages.headline,
            self.messages.selected,
            self.messages.limits,
        )
        self.model = PlanOptionsModel(self)
        self.table = OptionsTable()
        self.table.setModel(self.model)
        self.table.setTabKeyNavigation(False)  # Tab leaves the table; arrows move between rows
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(True)  # a long strategy wraps onto a second line instead of widening the table
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        self.memory_chart = take(MemoryBarChart)  # built ahead in an idle moment if it could be
        self.memory_chart.setMinimumHeight(90)
        self.memory_title = QLabel()
        self.scaling_chart = take(ScalingChart)
        self.scaling_chart.setMinimumHeight(180)
        self.scaling_title = QLabel()
        self.advice = QTextBrowser()
        self.advice.setOpenLinks(False)
        self.excluded = QTextBrowser()
        self.goodput = QTextBrowser()  # the selected option's goodput term (training)
        self.pool = PoolView()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.advice, "")
        self.tabs.addTab(self.excluded, "")
        # the options table shares the widest place with the goodput block and the pool's comparison table
        self.views = QTabWidget()
        self.views.addTab(self.table, "")
        self.views.addTab(self.goodput, "")
        self.views.addTab(self.pool, "")
        self.frontier = FrontierChart()  # serving: throughput against latency of the selected GPU type
        self.views.addTab(self.frontier, "")

        memory_box = QWidget()
        memory_layout = QVBoxLayout(memory_box)
        memory_layout.setContentsMargins(0, 0, 0, 0)
        memory_layout.setSpacing(2)
        self.memory_header = QHBoxLayout()  # the title, and the page's "Trace exactly…" at its right
        self.memory_header.addWidget(self.memory_title, 1)
        memory_layout.addLayout(self.memory_header)
        memory_layout.addWidget(self.memory_chart, 1)
        scaling_box = QWidget()
        scaling_layout = QVBoxLayout(scaling_box)
        scaling_layout.setContentsMargins(0, 0, 0, 0)
        scaling_layout.addWidget(self.scaling_title)
        scaling_layout.addWidget(self.scaling_chart, 1)
        lower = QSplitter(Qt.Orientation.Horizontal)
        lower.addWidget(scaling_box)
        lower.addWidget(self.tabs)
        lower.setStretchFactor(0, 1)
        lower.setSizes([640, 300])
        vertical = QSplitter(Qt.Orientation.Vertical)
        vertical.addWidget(self.views)
        vertical.addWidget(memory_box)
        vertical.addWidget(lower)
        vertical.setStretchFactor(0, 1)
        vertical.setStretchFactor(2, 1)
        vertical.setSizes([260, 120, 370])
        self.vertical = vertical
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.messages)
        layout.addWidget(vertical, 1)
        self.retranslate()

    def show_options(self, options: Sequence[PlanOption], training: bool) -> None:
        """Fill the table; columns fit their contents, the strategy the room left (OptionsTable)."""
        self.model.set_options(options, training)
        self.table.fit_columns(self.model.column_of("strategy"))

    def retranslate(self) -> None:
        self.tabs.setTabText(0, self.tr("Advice"))
        self.tabs.setTabText(1, self.tr("Excluded strategies"))
        self.views.setTabText(0, self.tr("Options"))
        self.views.setTabText(1, self.tr("Goodput"))
        self.views.setTabText(2, self.tr("Mixed pool"))
        self.views.setTabText(3, self.tr("Throughput vs latency"))
        self.views.setTabToolTip(3, self.tr("Serving: output tokens/s per GPU against tokens/s per user for each "
                                            "layout of the selected GPU type, and the frontier"))
        self.frontier.retranslate()
        self.views.setTabToolTip(0, self.tr("The ranked options; time, GPU-hours and cost with losses"))
        self.views.setTabToolTip(1, self.tr("Failures, checkpoints and restarts of the selected option"))
        self.views.setTabToolTip(2, self.tr("Each GPU type of your pool alone, the whole pool as one job, a pipeline over the types and separate jobs"))
        self.memory_title.setText("<b>" + self.tr("Memory per GPU, selected option") + "</b>")
        self.scaling_title.setText(
            "<b>" + self.tr("Time and cost against GPU count (selected GPU type)") + "</b>"
        )
        self.memory_chart.retranslate()
        self.scaling_chart.retranslate()
