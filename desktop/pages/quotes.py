"""Quotes page: rental and purchase quotes, edited in place with undo, filtered, imported, exported, charted.

Writes go through the store (one owner of the database); edits are validated with the store's validator and
refused in place with the reason; add, duplicate, delete and edits are undoable (QUndoStack, Ctrl+Z and
Ctrl+Shift+Z through the window's Edit menu). CSV import first shows a preview of every bad row with its reason,
then writes in a background job with progress.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer
from PySide6.QtGui import QKeySequence, QUndoGroup, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop import dialogs, fmt
from desktop.charts.price_chart import PriceChart, PricePoint
from desktop.delegates import QuoteDelegate
from desktop.messages import render
from desktop.pages.base import Page
from desktop.pages.hardware import banner, show_banner
from desktop.pages.quote_draft import QuoteDraftDialog
from desktop.qmodels.quotes import (
    KIND_NAMES,
    Arrangement,
    Derived,
    LoadedQuotes,
    QuoteKind,
    QuoteTableModel,
    Row,
    rate_text,
)
from desktop.quote_pricing import (
    SYNC_ROWS,
    Basis,
    ChartData,
    LoadProgress,
    Pricing,
    SpotOverhead,
    basis_for,
    chart_points,
    load_quotes,
    measured_figures,
    quote_count,
)
from desktop.undo import AddQuotesCommand, DeleteQuotesCommand
from planner.errors import UserError

if TYPE_CHECKING:
    from desktop.context import AppContext
    from planner.messages import Message
    from planner.store import ImportResult, StoreProtocol
    from planner.store.protocols import PurchaseQuoteStore, RentalQuoteStore

PREVIEW_ROWS_SHOWN = 500  # the preview lists this many bad rows; the count says how many there are in all


def short_gpu_name(name: str) -> str:
    """Drop the vendor and brand words tables do not need: "NVIDIA GeForce RTX 4090" -> "RTX 4090"."""
    for prefix in ("NVIDIA ", "GeForce "):
        name = name.removeprefix(prefix)
    return name


def _with_shortcut(text: str, button: QPushButton) -> str:
    """A tooltip that names the button's keyboard shortcut in the platform's spelling: "Add a quote (Ctrl+N)"."""
    keys = button.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
    return f"{text} ({keys})" if keys else text


class QuoteTab(QWidget):
    """One quote table (rental or purchase) with its toolbar, filters, banner, table and chart."""

    def __init__(self, page: QuotesPage, kind_name: str):
        super().__init__(page)
        self.page = page
        self.context = page.context
        self.kind = QuoteKind(kind_name, self.context.store)
        self.model = QuoteTableModel(self.kind, self.derive, self)
        self.model.derived_sort_key = lambda name: self.page.pricing().sort_value(self.kind.name, name)
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
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        # Column widths from the first rows only: measuring 1,000 rows of Python cells takes a visible pause.
        self.table.horizontalHeader().setResizeContentsPrecision(60)
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
        version, arranger = self.model.spec_version, self.model.arranger()
        store, kind = self.context.store, self.kind.name

        def load(progress: LoadProgress) -> tuple[LoadedQuotes, tuple[int, Arrangement]]:
            rows = load_quotes(store, kind, progress)
            return LoadedQuotes.of(rows), (version, arranger(rows))

        self.page.loading_started(self)
        # The job starts on the next event-loop turn: at start-up the rest of the window is still being built,
        # and a pool thread turning 100,000 rows into Python objects would share the interpreter with it (the
        # window appeared about 0.4 s later; tests/bench/bench_gui.py, main window with 100k quotes).
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
        rows, arranged = result
        self.loading = False
        self.set_busy(False)
        self.model.set_rows(rows, arranged)
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
        rows, kind = list(self.model.rows), self.kind.name
        pricing, names = self.page.pricing(), self.page.gpu_names()
        return lambda: chart_points(rows, kind, pricing, names, PricePoint)

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


class QuotesPage(Page):
    page_id = "quotes"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self._announcing = False
        self._measured: dict[str, dict[str, float]] | None = None
        self._pricing: Pricing | None = None  # snapshot for derived columns, sorting and the chart
        self._loading: set[QuoteTab] = set()  # tabs loading in the background
        self.tabs = QTabWidget(self)
        self.rental = QuoteTab(self, "rental")
        self.purchase = QuoteTab(self, "purchase")
        self.tabs.addTab(self.rental, "")
        self.tabs.addTab(self.purchase, "")
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 1000)
        self.progress.setMaximumHeight(12)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.progress)
        layout.addWidget(self.tabs, 1)
        self._undo_group: QUndoGroup | None = None
        context.quotes_changed.connect(self._on_quotes_changed)
        context.settings_changed.connect(self._on_rates_changed)
        context.probe_runs_changed.connect(self._on_probe_runs_changed)
        self.reload()
        self.retranslate()

    # -- page interface ----------------------------------------------------------------------------------------
    def title(self) -> str:
        return self.tr("Quotes")

    def retranslate(self) -> None:
        self.tabs.setTabText(0, self.tr("Rental (per GPU-hour)"))
        self.tabs.setTabText(1, self.tr("Purchase"))
        self.rental.retranslate()
        self.purchase.retranslate()
        self.update_summary()

    def load_example(self) -> None:
        from desktop.examples import add_example_quotes

        add_example_quotes(self.context)
        if not self.context.exchange_rates().to_usd.get("RUB"):
            # an example rate so the RUB example quote converts; dated, like every rate the user enters
            self.context.set_exchange_rate("RUB", 0.0125, "2026-09-01")
        self.reload()

    def undo_stacks(self) -> list[QUndoStack]:
        return [self.rental.undo_stack, self.purchase.undo_stack]

    def activate_undo(self, group: QUndoGroup) -> None:
        self._undo_group = group
        group.setActiveStack(self.current_tab().undo_stack)

    def current_tab(self) -> QuoteTab:
        return self.rental if self.tabs.currentIndex() == 0 else self.purchase

    def _on_tab_changed(self, _index: int) -> None:
        if self._undo_group is not None and self.isVisible():
            self._undo_group.setActiveStack(self.current_tab().undo_stack)

    # -- shared lookups ----------------------------------------------------------------------------------------
    def gpu_names(self) -> dict[str, str]:
        """Catalog id -> short display name ("NVIDIA GeForce RTX 4090" -> "RTX 4090")."""
        return {gpu_id: short_gpu_name(spec.name) for gpu_id, spec in self.context.gpu_catalog().items()}

    def gpu_choices(self, used_only: bool = False) -> list[tuple[str, str]]:
        names = self.gpu_names()
        if used_only:
            used = set(self.rental.model.stats().gpus) | set(self.purchase.model.stats().gpus)
            names = {gpu_id: names.get(gpu_id, gpu_id) for gpu_id in used if gpu_id}
        return sorted(names.items(), key=lambda item: item[1].casefold())

    def kind_name(self, kind: str) -> str:
        from desktop.qmodels.quotes import _tr as model_tr

        return model_tr(KIND_NAMES[kind])

    def measured(self) -> dict[str, dict[str, float]]:
        if self._measured is None:
            try:
                runs = self.context.store.probe_runs.all()
            except UserError:  # the database cannot be read now: prices per catalog spec meanwhile
                runs = []
            self._measured = measured_figures(runs, self.context.match_gpu)
        return self._measured

    def basis(self, gpu_id: str) -> Basis:
        return basis_for(self.context.gpu_catalog().get(gpu_id), self.measured().get(gpu_id, {}))

    def pricing(self) -> Pricing:
        """The snapshot every price figure on this page is computed from (rebuilt when rates, settings, probe
        runs or the catalog change); immutable, so background jobs may use it."""
        if self._pricing is None:
            catalog = self.context.gpu_catalog()
            basis = {gpu_id: self.basis(gpu_id) for gpu_id in catalog}
            try:
                rates, problem = self.context.exchange_rates(), ""
            except (
                ValueError,
                KeyError,
                TypeError,
            ) as exc:  # the database, or a stored rate no longer readable
                from desktop.workers import describe_error

                rates, problem = None, describe_error(exc)
            self._pricing = Pricing.build(self.context.display_currency(), rates, basis, problem, catalog)
        return self._pricing

    def display_price(self, kind: str, row: Row) -> float | None:
        """Price per GPU-hour (rental) or per GPU (purchase) in the display currency; None without a rate."""
        return self.pricing().display_price(kind, row)

    def derive(self, kind: str, row: Row) -> Derived:
        pricing = self.pricing()
        currency = pricing.currency
        texts: dict[str, str] = {}
        tips: dict[str, str] = {}
        amount = pricing.unit_amount(kind, row)
        if amount is None:
            return Derived({"display_price": self.tr("no rate")}, {}, {"display_price": self.tr("no price")})
        price, reason = pricing.convert(amount, str(row.get("currency") or ""))
        if price is None:
            return Derived({"display_price": self.tr("no rate")}, {}, {"display_price": reason})
        sort = pricing.derived_values(kind, row)
        for name, value in sort.items():
            texts[name] = fmt.money(value, currency)
        if str(row.get("currency") or "").upper() != currency:
            tips["display_price"] = self.tr("{0} at the stored exchange rate").format(
                fmt.money(float(amount), str(row.get("currency")))
            )
        basis = pricing.basis.get(str(row.get("gpu") or ""), Basis())
        texts["basis"], tips["basis"] = self._basis_text(basis)
        spot = pricing.spot_overhead(row) if kind == "rental" else None
        if spot is not None:
            texts["per_useful_gpu_hour"], tips["per_useful_gpu_hour"] = self._useful_price_text(price, spot)
        return Derived(texts, sort, tips)

    def _useful_price_text(self, price: float, spot: SpotOverhead) -> tuple[str, str]:
        """The effective spot price's cell and the assumptions it rests on (its tooltip)."""
        from planner.costs import DEFAULT_SPOT_CHECKPOINT_WRITE_S, DEFAULT_SPOT_RESTART_S

        currency = self.pricing().currency
        where = (
            self.tr("as the quote states")
            if spot.stated
            else self.tr("not stated: the provider's typical rate, AWS Spot Instance Advisor's top band")
        )
        job = self.tr(
            "A job on one instance of %n GPU(s), reclaimed {0} times per instance-hour ({1}); each reclaim loses "
            "the work since the last checkpoint (one takes {2} to write, at Daly's optimal interval) and a {3} "
            "restart. Hardware failures count alike on demand, so it compares with on-demand prices as they are.",
            "",
            spot.gpus,
        ).format(
            rate_text(spot.rate_per_instance_hour),
            where,
            fmt.duration(DEFAULT_SPOT_CHECKPOINT_WRITE_S),
            fmt.duration(DEFAULT_SPOT_RESTART_S),
        )
        if spot.fraction is None:
            return self.tr("spot cannot run it"), f"{render(spot.problem) if spot.problem else ''} {job}".strip()
        effective = price * (1 + spot.fraction)
        sum_line = self.tr("{0} per GPU-hour × (1 + {1} lost to reclaims) = {2} per useful GPU-hour.").format(
            fmt.money(price, currency), fmt.percent(spot.fraction, 1), fmt.money(effective, currency)
        )
        return fmt.money(effective, currency), f"{sum_line} {job}"

    def _basis_text(self, basis: Basis) -> tuple[str, str]:
        if basis.bf16_flops is None and basis.bandwidth is None:
            return self.tr("no spec"), self.tr("This GPU is not in the catalog; add it as your own GPU type")
        if basis.measured == {"bf16", "bandwidth"}:
            return self.tr("measured"), self.tr("Both figures come from your probe runs of this GPU type")
        if basis.measured:
            return self.tr("partly measured"), self.tr("Measured: {0}; the rest is the catalog spec").format(
                ", ".join(sorted(basis.measured))
            )
        return self.tr("spec"), self.tr("Catalog spec sheet figures (no probe run of this GPU type yet)")

    # -- refresh -----------------------------------------------------------------------------------------------
    def reload(self) -> None:
        self._pricing = None
        self.rental.reload()
        self.purchase.reload()
        self.update_summary()

    def update_summary(self) -> None:
        if self._loading:
            self.summary.setText(self.tr("Reading the quotes…"))
            return
        stats = [tab.model.stats() for tab in (self.rental, self.purchase)]
        self.summary.setText(
            self.tr(
                "{0} of your quotes and {1} dated reference prices. Prices are shown in {2} (Settings)."
            ).format(
                fmt.integer(sum(s.mine for s in stats)),
                fmt.integer(sum(s.reference for s in stats)),
                self.context.display_currency(),
            )
        )

    def loading_started(self, tab: QuoteTab) -> None:
        self._loading.add(tab)
        self.progress.setValue(0)
        self.progress.show()
        self.update_summary()

    def loading_progress(self, fraction: float) -> None:
        self.progress.setValue(int(fraction * 1000))

    def loading_finished(self, tab: QuoteTab) -> None:
        self._loading.discard(tab)
        if not self._loading:
            self.progress.hide()
        self.update_summary()

    def announce_change(self) -> None:
        """One of our tabs wrote to the store: tell the other pages (our own models are already current)."""
        self._announcing = True
        try:
            self.context.quotes_changed.emit()
        finally:
            self._announcing = False
        self.update_summary()

    def _on_quotes_changed(self) -> None:
        if not self._announcing:
            self.reload()

    def _on_rates_changed(self) -> None:
        self._pricing = None
        for tab in (self.rental, self.purchase):
            tab.model.refresh_derived(self.context.display_currency())
            tab.fit_derived_columns()
            tab.refresh_chart()
        self.update_summary()

    def _on_probe_runs_changed(self) -> None:
        self._measured = None
        self._on_rates_changed()

    # -- CSV import / export -----------------------------------------------------------------------------------
    def import_csv_dialog(self) -> None:
        path = dialogs.open_file(
            self, "quotes-csv", self.tr("Import quotes CSV"), self.tr("CSV files (*.csv);;All files (*)")
        )
        if path:
            self.preview_import(path)

    def preview_import(self, path: str, kind: str | None = None) -> None:
        """Check every row in the background, then show the preview dialog (nothing is written yet)."""
        kind = (
            kind or detect_quote_kind(path) or ("rental" if self.current_tab() is self.rental else "purchase")
        )
        self.tabs.setCurrentWidget(self.rental if kind == "rental" else self.purchase)
        self.context.show_status(self.tr("Checking {0}…").format(path))
        self.context.jobs.run(
            preview_csv, self.context.store, path, kind,
            on_done=self._show_preview, on_error=self._import_failed, name="check quotes CSV",
        )  # fmt: skip

    def _show_preview(self, preview: ImportPreview) -> None:
        dialog = ImportPreviewDialog(preview, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.run_import(preview.path, preview.kind))
        self.preview_dialog = dialog
        dialog.open()

    def run_import(self, path: str, kind: str) -> None:
        tab = self.rental if kind == "rental" else self.purchase
        for each in (self.rental, self.purchase):
            each.set_busy(True)  # one writer at a time on the shared connection
        self.progress.setValue(0)
        self.progress.show()
        self.context.jobs.run(
            import_csv, self.context.store, path, kind,
            on_done=lambda result: self._imported(tab, result), on_error=self._import_failed,
            on_progress=lambda fraction, _stage: self.progress.setValue(int(fraction * 1000)),
            name="import quotes CSV",
        )  # fmt: skip

    def _imported(self, tab: QuoteTab, answer: tuple[ImportResult, list[Row]]) -> None:
        result, added = answer
        self._end_import()
        if added:  # one undoable step: Ctrl+Z takes the whole import back, Ctrl+Shift+Z brings it again
            tab.undo_stack.push(
                AddQuotesCommand(tab.model, added, self.tr("importing %n quote(s)", "", len(added)))
            )
        self.context.quotes_changed.emit()  # reloads our tables too
        text = self.tr("Imported {0} quotes; {1} duplicates skipped; {2} rows refused.").format(
            result.added, len(result.duplicates), result.bad_rows
        )
        show_banner(tab.banner, text)
        self.context.show_status(text)

    def _import_failed(self, message: str) -> None:
        self._end_import()
        show_banner(self.current_tab().banner, self.tr("Nothing imported: {0}").format(message), error=True)
        self.context.show_status(self.tr("Import failed"))

    def _end_import(self) -> None:
        self.progress.hide()
        for each in (self.rental, self.purchase):
            each.set_busy(False)

    def export_csv_dialog(self) -> None:
        tab = self.current_tab()
        name = f"{tab.kind.name}-quotes.csv"
        path = dialogs.save_file(
            self, "quotes-csv", self.tr("Export quotes CSV"), name, self.tr("CSV files (*.csv)")
        )
        if path:
            self.export_csv(path, tab.kind.name)

    def export_csv(self, path: str, kind: str) -> None:
        exporter = (self.rental if kind == "rental" else self.purchase).kind.export_csv
        self.context.jobs.run(
            exporter, path, True,
            on_done=lambda count: self.context.show_status(self.tr("Exported %n quote(s) to {0}", "", count).format(path)),
            on_error=lambda message: show_banner(self.current_tab().banner, message, error=True),
            name="export quotes CSV",
        )  # fmt: skip


# --------------------------------------------------------------------------------------------------------------
# CSV preview (pool thread; no widgets)


@dataclass
class ImportPreview:
    path: str
    kind: str
    total: int = 0
    good: int = 0
    errors: list[tuple[int, Message]] = field(default_factory=list)  # (spreadsheet row, reason)

    @property
    def bad_rows(self) -> int:
        return len({row for row, _ in self.errors})


def detect_quote_kind(path: str) -> str | None:
    """ "rental" or "purchase" from the CSV header (a purchase sheet names vendor and price), None if unclear."""
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as handle:
            header = handle.readline().lower()
    except OSError:
        return None
    cells = {cell.strip() for cell in header.replace(";", ",").split(",")}
    if {"vendor", "price"} <= cells:
        return "purchase"
    if "provider" in cells:
        return "rental"
    return None


def preview_csv(
    store: StoreProtocol, path: str, kind: str, progress: LoadProgress | None = None
) -> ImportPreview:
    """Read and validate every row exactly as the import will, without writing anything."""
    from planner.store.quotes import PURCHASE, RENTAL, read_quote_csv

    spec = RENTAL if kind == "rental" else PURCHASE
    parsed = read_quote_csv(path, spec)  # UserError for a file-level problem
    resolver = store.user_gpus.resolver()
    preview = ImportPreview(path=path, kind=kind, total=len(parsed.rows) + len(parsed.errors))
    preview.errors.extend(parsed.errors)
    for done, (row_number, cells) in enumerate(parsed.rows):
        _cleaned, reasons = spec.clean(cells, resolver)
        if reasons:
            preview.errors.extend((row_number, reason) for reason in reasons)
        else:
            preview.good += 1
        if progress is not None and done % 2000 == 0:
            progress(done / max(len(parsed.rows), 1), "checking")
    preview.errors.sort(key=lambda item: item[0])
    return preview


def import_csv(
    store: StoreProtocol, path: str, kind: str, progress: LoadProgress | None = None
) -> tuple[ImportResult, list[Row]]:
    """Import a quote CSV (on a pool thread); (what the import did, the stored rows it added, for undo)."""
    quotes: RentalQuoteStore | PurchaseQuoteStore = (
        store.rental_quotes if kind == "rental" else store.purchase_quotes
    )

    def report(stage: str, done: int, total: int) -> None:
        if progress is not None:
            progress(done / total if total else 0.0, stage)

    before = {row["id"] for row in quotes.find(mine_only=True)}
    result = quotes.import_csv(path, skip_invalid=True, progress=report)
    added: list[Row] = []
    if result.added:
        added = [dict(row) for row in quotes.find(mine_only=True) if row["id"] not in before]
    return result, added


class ImportPreviewDialog(QDialog):
    """What an import would do: rows ready, rows refused with their reasons; nothing written until OK."""

    def __init__(self, preview: ImportPreview, parent: QWidget | None = None):
        super().__init__(parent)
        self.preview = preview
        self.setWindowTitle(self.tr("Import preview"))
        summary = QLabel(self)
        summary.setWordWrap(True)
        summary.setText(
            self.tr(
                "{0}: {1} rows, <b>{2} ready to import</b>, {3} refused (listed below; they will be skipped)."
            ).format(preview.path, preview.total, preview.good, preview.bad_rows)
        )
        shown = preview.errors[:PREVIEW_ROWS_SHOWN]
        self.table = QTableWidget(len(shown), 2, self)
        self.table.setHorizontalHeaderLabels([self.tr("Row"), self.tr("Reason")])
        for position, (row_number, reason) in enumerate(shown):
            number = QTableWidgetItem(str(row_number))
            number.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(position, 0, number)
            self.table.setItem(position, 1, QTableWidgetItem(render(reason)))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.resizeColumnToContents(0)
        self.table.setVisible(bool(shown))
        self.buttons = QDialogButtonBox(self)
        self.import_button = self.buttons.addButton(
            self.tr("Import valid rows ({0})").format(preview.good), QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.import_button.setEnabled(preview.good > 0)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(summary)
        if len(preview.errors) > PREVIEW_ROWS_SHOWN:
            layout.addWidget(
                QLabel(self.tr("Showing the first {0} problems.").format(PREVIEW_ROWS_SHOWN), self)
            )
        layout.addWidget(self.table, 1)
        layout.addWidget(self.buttons)
        self.resize(720, 420 if shown else 160)
