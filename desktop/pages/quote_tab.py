"""One quote table of the Quotes page (rental or purchase): its toolbar, filters, banner, table and chart, loaded
in the background when large, edited in place with undo (desktop/pages/quotes.py holds the page around the two
tabs, its import and export).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer
from PySide6.QtGui import QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop.charts.price_chart import PriceChart, PricePoint
from desktop.context import AppContext
from desktop.delegates import QuoteDelegate
from desktop.pages.page_widgets import banner, show_banner
from desktop.pages.quote_draft import QuoteDraftDialog
from desktop.qmodels.quotes import (
    KIND_NAMES,
    Arranged,
    Derived,
    QuoteKind,
    QuoteTableModel,
    Row,
)
from desktop.quote_pricing import (
    CHART_POINTS_PER_GROUP,
    SYNC_ROWS,
    ChartData,
    LoadProgress,
    Pricing,
    chart_of_view,
    quote_count,
)
from desktop.undo import AddQuotesCommand, DeleteQuotesCommand
from planner.errors import UserError


class QuotesHost(Protocol):
    """What a tab asks of the Quotes page that holds it (desktop.pages.quotes.QuotesPage, which imports this
    module, so it is named here by what it offers): the app context, the prices every figure is computed from,
    the GPU names and choices, the kinds' names, the CSV dialogs, and the loading and change announcements."""

    @property
    def context(self) -> AppContext: ...
    def pricing(self) -> Pricing: ...
    def derive(self, kind: str, row: Row) -> Derived: ...
    def gpu_names(self) -> dict[str, str]: ...
    def gpu_choices(self, used_only: bool = False) -> list[tuple[str, str]]: ...
    def kind_name(self, kind: str) -> str: ...
    def import_csv_dialog(self) -> None: ...
    def export_csv_dialog(self) -> None: ...
    def announce_change(self) -> None: ...
    def update_summary(self) -> None: ...
    def loading_started(self, tab: QuoteTab) -> None: ...
    def loading_progress(self, fraction: float) -> None: ...
    def loading_finished(self, tab: QuoteTab) -> None: ...


def _with_shortcut(text: str, button: QPushButton) -> str:
    """A tooltip that names the button's keyboard shortcut in the platform's spelling: "Add a quote (Ctrl+N)"."""
    keys = button.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
    return f"{text} ({keys})" if keys else text


class QuoteTab(QWidget):
    """One quote table (rental or purchase) with its toolbar, filters, banner, table and chart."""

    def __init__(self, page: QuotesHost, kind_name: str):
        super().__init__(page if isinstance(page, QWidget) else None)  # the page holds the tab
        self.page = page
        self.context = page.context
        self.kind = QuoteKind(kind_name, self.context.store)
        self.model = QuoteTableModel(self.kind, self.derive, self)
        self.model.pricing = self.page.pricing  # derived columns sort in SQL by the page's figures
        self.model.background = self._arrange_in_background
        self.undo_stack = QUndoStack(self)
        self.model.undo_stack = self.undo_stack
        self.loading = False  # a background load of every quote is under way
        self._load_generation = 0
        self._chart_generation = 0
        self._columns_sized = False
        # Big tables redraw the chart in a job, at most a few times a second (edits come in bursts).
        self._chart_timer = QTimer(self)
        self._chart_timer.setSingleShot(True)
        self._chart_timer.setInterval(150)
        self._chart_timer.timeout.connect(self._chart_in_background)
        self._build()
        self.model.edit_refused.connect(self._on_refused)
        self.model.edited.connect(self.page.announce_change)
        self.model.modelReset.connect(self.refresh_chart)
        self.model.rowsInserted.connect(self.refresh_chart)
        self.model.rowsRemoved.connect(self.refresh_chart)
        self.model.dataChanged.connect(self.refresh_chart)
        self.model.arranged.connect(self._update_buttons)

    # -- layout ------------------------------------------------------------------------------------------------
    def _build(self) -> None:
        self.add_button = QPushButton(self)
        self.duplicate_button = QPushButton(self)
        self.delete_button = QPushButton(self)
        self.import_button = QPushButton(self)
        self.export_button = QPushButton(self)
        self.add_button.clicked.connect(lambda: self.start_draft())
        self.duplicate_button.clicked.connect(self.duplicate_selected)
        self.delete_button.clicked.connect(self.delete_selected)
        self.import_button.clicked.connect(self.page.import_csv_dialog)
        self.export_button.clicked.connect(self.page.export_csv_dialog)
        tools = QHBoxLayout()
        for button in (self.add_button, self.duplicate_button, self.delete_button):
            tools.addWidget(button)
        tools.addStretch(1)
        tools.addWidget(self.import_button)
        tools.addWidget(self.export_button)

        self.gpu_filter = QComboBox(self)
        self.provider_filter = QLineEdit(self)
        self.provider_filter.setClearButtonEnabled(True)
        self.kind_filter = QComboBox(self)
        self.currency_filter = QComboBox(self)
        self.reference_check = QCheckBox(self)
        self.reference_check.setChecked(True)
        self.gpu_filter.currentIndexChanged.connect(self._apply_filters)
        self.provider_filter.textChanged.connect(self._apply_filters)
        self.kind_filter.currentIndexChanged.connect(self._apply_filters)
        self.currency_filter.currentIndexChanged.connect(self._apply_filters)
        self.reference_check.toggled.connect(self._apply_filters)
        self.filter_label = QLabel(self)
        filters = QHBoxLayout()
        filters.addWidget(self.filter_label)
        filters.addWidget(self.gpu_filter, 2)
        filters.addWidget(self.provider_filter, 2)
        if self.kind.name == "rental":
            filters.addWidget(self.kind_filter, 1)
        else:
            self.kind_filter.hide()
        filters.addWidget(self.currency_filter, 1)
        filters.addWidget(self.reference_check)

        self.banner = banner(self)
        self.table = QTableView(self)
        self.table.setObjectName(f"{self.kind.name}QuotesTable")
        self.table.setModel(self.model)  # the model filters and sorts itself (fast for 100,000 quotes)
        # Tab leaves the table: arrows move between cells, and Tab in an open editor still goes to the next cell
        self.table.setTabKeyNavigation(False)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        # Column widths from the first rows only: measuring 1,000 rows of Python cells takes a visible pause.
        self.table.horizontalHeader().setResizeContentsPrecision(0)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 10)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.AnyKeyPressed
        )
        self.delegate = QuoteDelegate(self.page.gpu_choices, self.table)
        self.table.setItemDelegate(self.delegate)
        self.table.selectionModel().selectionChanged.connect(self._update_buttons)

        self.chart = PriceChart(self)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.table)
        splitter.addWidget(self.chart)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setChildrenCollapsible(False)
        splitter.setSizes([380, 300])

        layout = QVBoxLayout(self)
        layout.addLayout(tools)
        layout.addLayout(filters)
        layout.addWidget(self.banner)
        layout.addWidget(splitter, 1)
        self._update_buttons()

    def _set_shortcuts(self) -> None:
        """After setText: QAbstractButton.setText replaces the shortcut with the text's mnemonic (none here)."""
        self.add_button.setShortcut(QKeySequence.StandardKey.New)  # Ctrl+N
        self.duplicate_button.setShortcut(QKeySequence("Ctrl+D"))
        self.delete_button.setShortcut(QKeySequence.StandardKey.Delete)

    def retranslate(self) -> None:
        self.add_button.setText(self.tr("Add"))
        self.duplicate_button.setText(self.tr("Duplicate"))
        self.delete_button.setText(self.tr("Delete"))
        self._set_shortcuts()
        self.add_button.setToolTip(_with_shortcut(self.tr("Add a quote of your own"), self.add_button))
        self.duplicate_button.setToolTip(
            _with_shortcut(
                self.tr("Copy the selected quotes as your own (reference prices too)"), self.duplicate_button
            )
        )
        self.delete_button.setToolTip(
            _with_shortcut(
                self.tr("Delete the selected quotes of your own (Undo brings them back)"), self.delete_button
            )
        )
        self.import_button.setText(self.tr("Import CSV…"))
        self.export_button.setText(self.tr("Export CSV…"))
        self.filter_label.setText(self.tr("Filter:"))
        self.provider_filter.setPlaceholderText(
            self.tr("provider contains…") if self.kind.name == "rental" else self.tr("vendor contains…")
        )
        self.reference_check.setText(self.tr("Reference prices"))
        self.reference_check.setToolTip(self.tr("Show the dated reference prices shipped with GPU Advisor"))
        self._fill_filter_combos()
        self.chart.retranslate()
        self.model.reformat()  # the converted prices in the new language's number format

    def _fill_filter_combos(self) -> None:
        def refill(combo: QComboBox, items: list[tuple[str, str]]) -> None:
            current = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            for data, text in items:
                combo.addItem(text, data)
            position = combo.findData(current)
            combo.setCurrentIndex(max(position, 0))
            combo.blockSignals(False)

        refill(self.gpu_filter, [("", self.tr("all GPUs"))] + self.page.gpu_choices(used_only=True))
        refill(
            self.kind_filter, [("", self.tr("all kinds"))] + [(k, self.page.kind_name(k)) for k in KIND_NAMES]
        )
        currencies = sorted(set(self.model.stats().currencies) | {"USD", "EUR", "RUB"})
        refill(self.currency_filter, [("", self.tr("all currencies"))] + [(c, c) for c in currencies if c])

    def _apply_filters(self) -> None:
        self.model.set_filter(
            gpu=self.gpu_filter.currentData() or "",
            provider=self.provider_filter.text().strip(),
            kind=self.kind_filter.currentData() or "",
            currency=self.currency_filter.currentData() or "",
            show_reference=self.reference_check.isChecked(),
        )

    # -- data --------------------------------------------------------------------------------------------------
    def reload(self) -> None:
        """Read every quote again: here for a small table, in a job (with progress) for a big one."""
        self.model.gpu_names = self.page.gpu_names()
        self.model.display_currency = self.context.display_currency()
        count = quote_count(self.context.store, self.kind.name)
        if count is not None and count > SYNC_ROWS:
            self._load_in_background()
            return
        self._load_generation += 1  # a background load still running is now out of date
        self.model.reload()
        self._loaded()

    def _load_in_background(self) -> None:
        self._load_generation += 1
        generation = self._load_generation
        self.loading = True
        self.set_busy(True)
        version, arranger = self.model.spec_version, self.model.arranger(with_stats=True)
        kind = self.kind.name

        def load(progress: LoadProgress) -> tuple[Arranged, int]:
            # what the derived columns' spot overheads need (QuotePricing.spot_overhead), imported here: on the GUI
            # thread, with the first rows drawn, it was 60-130 ms of one stall
            import planner.costs  # noqa: F401
            import planner.scale  # noqa: F401

            return arranger(progress), version  # the store sorts and counts in SQL: ids, never rows

        self.page.loading_started(self)
        # The job starts on the next event-loop turn: at start-up the rest of the window is still being built,
        # and a pool thread reading 100,000 ids would share the interpreter with it.
        QTimer.singleShot(0, self, lambda: self._start_load(generation, load, kind))

    def _start_load(self, generation: int, load: Callable[..., Any], kind: str) -> None:
        if generation != self._load_generation:
            return  # a newer reload came before this one started
        self.context.jobs.run(
            load,
            on_done=lambda result: self._loaded_in_background(generation, result),
            on_error=lambda message: self._load_failed(generation, message),
            on_progress=lambda fraction, _stage: self.page.loading_progress(fraction),
            name=f"load {kind} quotes",
        )

    def _loaded_in_background(self, generation: int, result: tuple[Any, ...]) -> None:
        if generation != self._load_generation:
            return
        arranged, version = result
        self.loading = False
        self.set_busy(False)
        self.model.set_view(arranged, version)
        self._loaded()
        self.page.loading_finished(self)

    def _load_failed(self, generation: int, message: str) -> None:
        if generation != self._load_generation:
            return
        self.loading = False
        self.set_busy(False)
        self.page.loading_finished(self)
        show_banner(self.banner, self.tr("The quotes could not be read: {0}").format(message), error=True)

    def _loaded(self) -> None:
        self._fill_filter_combos()
        if not self._columns_sized and self.model.rowCount():
            self._columns_sized = True  # once: later loads keep the widths the user may have dragged
            self.table.resizeColumnsToContents()
            for column, spec in enumerate(self.model.columns):
                # free text (long provider names) is elided, with the whole text as the tooltip, so the
                # derived prices and their basis (measured or spec) stay in view at the default width
                widest = 150 if spec.editor == "text" else 190
                if self.table.columnWidth(column) > widest:
                    self.table.setColumnWidth(column, widest)
        self._update_buttons()
        self.page.update_summary()

    def fit_derived_columns(self) -> None:
        """The derived texts change with the currency and the basis ("spec" -> "partly measured"): refit."""
        if self._columns_sized:
            for column, spec in enumerate(self.model.columns):
                if spec.derived:
                    self.table.resizeColumnToContents(column)

    def _arrange_in_background(
        self, work: Callable[[], list[Any]], apply: Callable[[list[Any]], None]
    ) -> None:
        """QuoteTableModel.background: sort or filter a big table on a pool thread."""
        self.context.jobs.run(
            work,
            on_done=apply,
            on_error=lambda message: show_banner(self.banner, message, error=True),
            name=f"arrange {self.kind.name} quotes",
        )

    def derive(self, row: Row) -> Derived:
        return self.page.derive(self.kind.name, row)

    def refresh_chart(self, *_args: object) -> None:
        """Redraw the price chart from the visible quotes: now for a small table, in a job for a big one."""
        if self.model.rowCount() > SYNC_ROWS:
            self._chart_timer.start()
            return
        self._chart_generation += 1
        self._show_chart(self._chart_work()())

    def _chart_work(self) -> Callable[[], ChartData]:
        """The chart of the visible quotes, computed by the store in SQL (quantiles per GPU model and origin)."""
        query, quotes = self.model.view_query(), self.kind.quotes
        return lambda: chart_of_view(quotes.view_chart(query, CHART_POINTS_PER_GROUP), PricePoint)

    def _chart_in_background(self) -> None:
        self._chart_generation += 1
        generation = self._chart_generation
        self.context.jobs.run(
            self._chart_work(),
            on_done=lambda data: self._show_chart(data) if generation == self._chart_generation else None,
            name=f"{self.kind.name} price chart",
        )

    def _show_chart(self, data: ChartData) -> None:
        self.chart.set_points(data.points, self.context.display_currency(), data.left_out, data.total)
        if self.kind.name == "purchase":
            self.chart.plot.setTitle(
                self.tr("Price per GPU by GPU model ({0})").format(self.context.display_currency()),
                size="10pt",
            )
            self.chart.plot.setLabel("bottom", self.tr("{0} per GPU").format(self.context.display_currency()))

    def selected_rows(self) -> list[Row]:
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        if not rows:
            current = self.table.currentIndex()
            if current.isValid() and self.table.selectionModel().isSelected(current):
                rows = [current.row()]
        return [self.model.rows[r] for r in rows if r < len(self.model.rows)]

    def _update_buttons(self) -> None:
        selected = self.selected_rows()
        busy = self.model.read_only
        self.add_button.setEnabled(not busy)
        self.duplicate_button.setEnabled(bool(selected) and not busy)
        self.delete_button.setEnabled(any(r.get("origin") != "reference" for r in selected) and not busy)

    def _on_refused(self, reason: str) -> None:
        show_banner(self.banner, self.tr("Not changed: {0}").format(reason), error=True)
        self.context.show_status(self.tr("Value refused: {0}").format(reason))

    def clear_banner(self) -> None:
        show_banner(self.banner, "")

    # -- add / duplicate / delete --------------------------------------------------------------------------------
    def draft_defaults(self) -> dict[str, object]:
        """What a new draft starts from: the filtered GPU (or the H100), the display currency, on demand."""
        return {"gpu": self.gpu_filter.currentData() or "h100-sxm", "currency": self.context.display_currency(),
                "kind": "on-demand", "quoted_on": _dt.date.today().isoformat()}  # fmt: skip

    def start_draft(self) -> QuoteDraftDialog:
        """Open the new-quote form; the quote is stored (undoably) only when the form is complete and valid."""
        from desktop.context import CURRENCIES
        from desktop.qmodels.quotes import KIND_NAMES

        self.clear_banner()
        kinds = [(kind, self.page.kind_name(kind)) for kind in KIND_NAMES]
        dialog = QuoteDraftDialog(
            self.kind.name,
            self.kind.validate,
            self.page.gpu_choices(),
            kinds,
            CURRENCIES,
            self.draft_defaults(),
            self,
        )
        dialog.accepted.connect(lambda: self.add_quote(dialog.values()))
        dialog.setModal(True)
        dialog.open()  # not exec(): the event loop keeps running
        self.draft = dialog
        return dialog

    def _add_unique(self, quote: Mapping[str, object], label_key: str) -> Row | None:
        """Add ``quote``; when it duplicates a stored one, number the label ("… (2)") until it is new."""
        from desktop.messages import render_error

        base = str(quote.get(label_key) or "")
        last_error = ""
        for attempt in range(1, 100):
            candidate = dict(quote)
            if attempt > 1:
                candidate[label_key] = f"{base} ({attempt})".strip()
            try:
                return self.kind.get(self.kind.add(candidate))
            except UserError as exc:
                last_error = render_error(exc)
                if exc.message is None or exc.message.code != "error.quote_duplicate":
                    break
        self._on_refused(last_error)
        return None

    def _label_key(self) -> str:
        return "offer" if self.kind.name == "rental" else "note"

    def add_quote(self, quote: Mapping[str, object]) -> Row | None:
        """Store a complete quote (a finished draft) as one undoable step."""
        self.clear_banner()
        row = self._add_unique(quote, self._label_key())
        if row is None:
            return None
        self.undo_stack.push(AddQuotesCommand(self.model, [row], self.tr("adding a quote")))
        self.model.insert_rows([row])
        self.model.edited.emit()
        self.select_id(row["id"], self.kind.provider_key)
        return row

    def duplicate_selected(self) -> list[Row]:
        self.clear_banner()
        added = []
        for row in self.selected_rows():
            copy = {key: row.get(key) for key in self.kind.store_columns}
            added_row = self._add_unique(copy, self._label_key())
            if added_row is not None:
                added.append(added_row)
        if added:
            self.undo_stack.push(
                AddQuotesCommand(self.model, added, self.tr("duplicating %n quote(s)", "", len(added)))
            )
            self.model.insert_rows(added)
            self.model.edited.emit()
            self.select_id(added[0]["id"], self.kind.provider_key)
        return added

    def delete_selected(self) -> list[Row]:
        self.clear_banner()
        rows = [r for r in self.selected_rows() if r.get("origin") != "reference"]
        skipped = len(self.selected_rows()) - len(rows)
        deleted: list[Row] = []
        for row in rows:
            try:
                deleted.append(self.kind.delete(row["id"]))
            except Exception as exc:  # a button's slot: nothing may escape it; the reason is shown instead
                from desktop.workers import describe_error

                self._on_refused(describe_error(exc))
        if deleted:
            self.undo_stack.push(DeleteQuotesCommand(self.model, deleted))
            self.model.remove_ids([row["id"] for row in deleted])
            self.model.edited.emit()
        if skipped:
            show_banner(
                self.banner, self.tr("Reference prices kept (they are read-only): {0}").format(skipped)
            )
        return deleted

    def select_id(self, quote_id: Any, key: str | None = None) -> None:
        position = self.model.row_of_id(quote_id)
        if position < 0:
            return
        column = self.model.column_of(key) if key else 0
        index = self.model.index(position, column)
        if index.isValid():
            # Through the selection model: QTableView.selectRow reads the keyboard, and with Ctrl still held
            # after Ctrl+N (or Ctrl+D) it would toggle the new row out of the selection again.
            flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            self.table.selectionModel().setCurrentIndex(index, flags)
            self.table.scrollTo(index)

    def set_busy(self, busy: bool) -> None:
        self.model.read_only = busy
        self._update_buttons()
