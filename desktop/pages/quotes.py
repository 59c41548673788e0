"""Quotes page: rental and purchase quotes, edited in place with undo, filtered, imported, exported, charted.

Writes go through the store (one owner of the database); edits are validated with the store's validator and
refused in place with the reason; add, duplicate, delete and edits are undoable (QUndoStack, Ctrl+Z and
Ctrl+Shift+Z through the window's Edit menu). CSV import first shows a preview of every bad row with its reason,
then writes in a background job with progress.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
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

from desktop import fmt
from desktop.charts.price_chart import PriceChart, PricePoint
from desktop.delegates import QuoteDelegate
from desktop.pages.base import Page
from desktop.pages.hardware import banner, show_banner
from desktop.qmodels.quotes import KIND_NAMES, Derived, QuoteFilterProxy, QuoteKind, QuoteTableModel
from desktop.undo import AddQuotesCommand, DeleteQuotesCommand

PREVIEW_ROWS_SHOWN = 500  # the preview lists this many bad rows; the count says how many there are in all


def short_gpu_name(name: str) -> str:
    """Drop the vendor and brand words tables do not need: "NVIDIA GeForce RTX 4090" -> "RTX 4090"."""
    for prefix in ("NVIDIA ", "GeForce "):
        name = name.removeprefix(prefix)
    return name


# --------------------------------------------------------------------------------------------------------------
# Derived figures (price per GPU-hour in the display currency, per PFLOP-hour, per TB/s-hour)


def measured_figures(store: Any, match_gpu) -> dict[str, dict[str, float]]:
    """Best measured bf16 FLOP/s and memory B/s per catalog GPU id, from stored probe runs.

    A run counts for a GPU type only when all its GPUs are of that one type (the run's key figures are its
    best device, so a mixed box cannot be attributed).
    """
    figures: dict[str, dict[str, float]] = {}
    for run in store.list_probe_runs():
        names = [str(n) for n in run.get("devices") or [] if str(n).lower() != "cpu" and n]
        ids = {spec.id for spec in (match_gpu(name) for name in names) if spec is not None}
        if len(ids) != 1:
            continue
        gpu_id = ids.pop()
        entry = figures.setdefault(gpu_id, {})
        for key, column in (("bf16", "best_bf16_flop_per_s"), ("bandwidth", "memory_bandwidth_bytes_per_s")):
            value = run.get(column)
            if value:
                entry[key] = max(entry.get(key, 0.0), float(value))
    return figures


@dataclass
class Basis:
    """Throughput figures one price is divided by, and where they came from."""

    bf16_flops: float | None = None
    bandwidth: float | None = None
    measured: set[str] = field(default_factory=set)


# --------------------------------------------------------------------------------------------------------------


class QuoteTab(QWidget):
    """One quote table (rental or purchase) with its toolbar, filters, banner, table and chart."""

    def __init__(self, page: QuotesPage, kind_name: str):
        super().__init__(page)
        self.page = page
        self.context = page.context
        self.kind = QuoteKind(kind_name, self.context.store)
        self.model = QuoteTableModel(self.kind, self.derive, self)
        self.undo_stack = QUndoStack(self)
        self.model.undo_stack = self.undo_stack
        self.proxy = QuoteFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self._build()
        self.model.edit_refused.connect(self._on_refused)
        self.model.edited.connect(self.page.announce_change)
        self.model.modelReset.connect(self.refresh_chart)
        self.model.dataChanged.connect(lambda *_: self.refresh_chart())
        self.proxy.layoutChanged.connect(self.refresh_chart)

    # -- layout ------------------------------------------------------------------------------------------------
    def _build(self) -> None:
        self.add_button = QPushButton(self)
        self.duplicate_button = QPushButton(self)
        self.delete_button = QPushButton(self)
        self.import_button = QPushButton(self)
        self.export_button = QPushButton(self)
        self.add_button.clicked.connect(self.add_quote)
        self.duplicate_button.clicked.connect(self.duplicate_selected)
        self.delete_button.clicked.connect(self.delete_selected)
        self.import_button.clicked.connect(self.page.import_csv_dialog)
        self.export_button.clicked.connect(self.page.export_csv_dialog)
        self.delete_button.setShortcut(QKeySequence.StandardKey.Delete)
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
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
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

    def retranslate(self) -> None:
        self.add_button.setText(self.tr("Add"))
        self.duplicate_button.setText(self.tr("Duplicate"))
        self.duplicate_button.setToolTip(
            self.tr("Copy the selected quotes as your own (reference prices too)")
        )
        self.delete_button.setText(self.tr("Delete"))
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
        currencies = sorted({str(r.get("currency") or "") for r in self.model.rows} | {"USD", "EUR", "RUB"})
        refill(self.currency_filter, [("", self.tr("all currencies"))] + [(c, c) for c in currencies if c])

    def _apply_filters(self) -> None:
        self.proxy.set_filter(
            gpu=self.gpu_filter.currentData() or "",
            provider=self.provider_filter.text().strip(),
            kind=self.kind_filter.currentData() or "",
            currency=self.currency_filter.currentData() or "",
            show_reference=self.reference_check.isChecked(),
        )
        self.refresh_chart()

    # -- data --------------------------------------------------------------------------------------------------
    def reload(self) -> None:
        self.model.gpu_names = self.page.gpu_names()
        self.model.display_currency = self.context.display_currency()
        self.model.reload()
        self._fill_filter_combos()
        self.table.resizeColumnsToContents()
        for column in range(self.model.columnCount()):
            if self.table.columnWidth(column) > 190:
                self.table.setColumnWidth(column, 190)
        self._update_buttons()

    def derive(self, row: dict) -> Derived:
        return self.page.derive(self.kind.name, row)

    def refresh_chart(self) -> None:
        points, left_out = [], 0
        names = self.page.gpu_names()
        for proxy_row in range(self.proxy.rowCount()):
            source_row = self.proxy.mapToSource(self.proxy.index(proxy_row, 0)).row()
            row = self.model.rows[source_row]
            price = self.page.display_price(self.kind.name, row)
            if price is None:
                left_out += 1
                continue
            who = row.get("provider") or row.get("vendor") or ""
            points.append(
                PricePoint(
                    names.get(row["gpu"], row["gpu"]),
                    price,
                    row.get("origin") == "reference",
                    f"{who} {row.get('quoted_on', '')}",
                )
            )
        self.chart.set_points(points, self.context.display_currency(), left_out)
        if self.kind.name == "purchase":
            self.chart.plot.setTitle(
                self.tr("Price per GPU by GPU model ({0})").format(self.context.display_currency()),
                size="10pt",
            )
            self.chart.plot.setLabel("bottom", self.tr("{0} per GPU").format(self.context.display_currency()))

    def selected_rows(self) -> list[dict]:
        rows = sorted({self.proxy.mapToSource(i).row() for i in self.table.selectionModel().selectedRows()})
        if not rows:
            current = self.table.currentIndex()
            if current.isValid() and self.table.selectionModel().isSelected(current):
                rows = [self.proxy.mapToSource(current).row()]
        return [self.model.rows[r] for r in rows]

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
    def new_quote(self) -> dict:
        today = _dt.date.today().isoformat()
        gpu = self.gpu_filter.currentData() or "h100-sxm"
        currency = self.context.display_currency()
        if self.kind.name == "rental":
            return {"provider": self.tr("New provider"), "offer": "", "gpu": gpu, "gpus_per_instance": 1,
                    "price_per_gpu_hour": 1.0, "currency": currency, "kind": "on-demand", "quoted_on": today}  # fmt: skip
        return {"vendor": self.tr("New vendor"), "gpu": gpu, "gpus": 1, "price": 10000.0, "currency": currency,
                "quoted_on": today}  # fmt: skip

    def _add_unique(self, quote: dict, label_key: str) -> dict | None:
        """Add ``quote``; when it duplicates a stored one, number the label ("… (2)") until it is new."""
        from planner.errors import UserError

        base = str(quote.get(label_key) or "")
        last_error = ""
        for attempt in range(1, 100):
            candidate = dict(quote)
            if attempt > 1:
                candidate[label_key] = f"{base} ({attempt})".strip()
            try:
                quote_id = self.kind.add(candidate)
            except UserError as exc:
                last_error = str(exc)
                if "already stored" not in last_error:
                    break
                continue
            return self._stored_row(quote_id)
        self._on_refused(last_error)
        return None

    def _stored_row(self, quote_id: Any) -> dict:
        getter = getattr(self.context.store, f"get_{self.kind.name}_quote")
        return getter(quote_id)

    def _label_key(self) -> str:
        return "offer" if self.kind.name == "rental" else "note"

    def add_quote(self) -> dict | None:
        self.clear_banner()
        row = self._add_unique(self.new_quote(), self._label_key())
        if row is None:
            return None
        self.undo_stack.push(AddQuotesCommand(self.model, [row], self.tr("Add quote")))
        self.model.reload()
        self.model.edited.emit()
        self.select_id(row["id"], self.kind.provider_key)
        return row

    def duplicate_selected(self) -> list[dict]:
        self.clear_banner()
        added = []
        for row in self.selected_rows():
            copy = {key: row.get(key) for key in self.kind.store_columns}
            added_row = self._add_unique(copy, self._label_key())
            if added_row is not None:
                added.append(added_row)
        if added:
            self.undo_stack.push(
                AddQuotesCommand(self.model, added, self.tr("Duplicate quotes: {0}").format(len(added)))
            )
            self.model.reload()
            self.model.edited.emit()
            self.select_id(added[0]["id"], self.kind.provider_key)
        return added

    def delete_selected(self) -> list[dict]:
        self.clear_banner()
        rows = [r for r in self.selected_rows() if r.get("origin") != "reference"]
        skipped = len(self.selected_rows()) - len(rows)
        deleted = []
        for row in rows:
            try:
                deleted.append(self.kind.delete(row["id"]))
            except Exception as exc:
                from desktop.workers import describe_error

                self._on_refused(describe_error(exc))
        if deleted:
            self.undo_stack.push(DeleteQuotesCommand(self.model, deleted))
            self.model.reload()
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
        index = self.proxy.mapFromSource(self.model.index(position, column))
        if index.isValid():
            self.table.setCurrentIndex(index)
            self.table.selectRow(index.row())
            self.table.scrollTo(index)

    def set_busy(self, busy: bool) -> None:
        self.model.read_only = busy
        self._update_buttons()


class QuotesPage(Page):
    page_id = "quotes"

    def __init__(self, context, parent: QWidget | None = None):
        super().__init__(context, parent)
        self._announcing = False
        self._measured: dict[str, dict[str, float]] | None = None
        self.tabs = QTabWidget(self)
        self.rental = QuoteTab(self, "rental")
        self.purchase = QuoteTab(self, "purchase")
        self.tabs.addTab(self.rental, "")
        self.tabs.addTab(self.purchase, "")
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 1000)
        self.progress.hide()
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.progress)
        layout.addWidget(self.tabs, 1)
        self._undo_group = None
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
        self._update_summary()

    def load_example(self) -> None:
        from desktop.examples import add_example_quotes

        add_example_quotes(self.context)
        if not self.context.exchange_rates().to_usd.get("RUB"):
            # an example rate so the RUB example quote converts; dated, like every rate the user enters
            self.context.set_exchange_rate("RUB", 0.0125, "2026-09-01")
        self.reload()

    def undo_stacks(self) -> list[QUndoStack]:
        return [self.rental.undo_stack, self.purchase.undo_stack]

    def activate_undo(self, group) -> None:
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
            used = {row.get("gpu") for tab in (self.rental, self.purchase) for row in tab.model.rows}
            names = {gpu_id: names.get(gpu_id, gpu_id) for gpu_id in used if gpu_id}
        return sorted(names.items(), key=lambda item: item[1].casefold())

    def kind_name(self, kind: str) -> str:
        from desktop.qmodels.quotes import _tr as model_tr

        return model_tr(KIND_NAMES[kind])

    def measured(self) -> dict[str, dict[str, float]]:
        if self._measured is None:
            from planner.gpus import match_nvml_name

            extra = [s for s in self.context.gpu_catalog().values() if getattr(s, "user_defined", False)]
            try:
                self._measured = measured_figures(
                    self.context.store, lambda name: match_nvml_name(name, extra)
                )
            except Exception:
                self._measured = {}
        return self._measured

    def basis(self, gpu_id: str) -> Basis:
        spec = self.context.gpu_catalog().get(gpu_id)
        measured = self.measured().get(gpu_id, {})
        basis = Basis()
        if measured.get("bf16"):
            basis.bf16_flops = measured["bf16"]
            basis.measured.add("bf16")
        elif spec is not None and spec.tflops.get("bf16"):
            basis.bf16_flops = spec.tflops["bf16"] * 1e12
        if measured.get("bandwidth"):
            basis.bandwidth = measured["bandwidth"]
            basis.measured.add("bandwidth")
        elif spec is not None and spec.memory_bandwidth_bytes_per_s:
            basis.bandwidth = float(spec.memory_bandwidth_bytes_per_s)
        return basis

    def display_price(self, kind: str, row: dict) -> float | None:
        """Price per GPU-hour (rental) or per GPU (purchase) in the display currency; None without a rate."""
        if kind == "rental":
            amount = row.get("price_per_gpu_hour")
        else:
            amount = (row.get("price") or 0) / max(int(row.get("gpus") or 1), 1)
        if amount is None or not row.get("currency"):
            return None
        money, _reason = self.context.to_display_currency(float(amount), str(row["currency"]))
        return None if money is None else float(money.amount)

    def derive(self, kind: str, row: dict) -> Derived:
        currency = self.context.display_currency()
        texts: dict[str, str] = {}
        sort: dict[str, float] = {}
        tips: dict[str, str] = {}
        amount = (
            row.get("price_per_gpu_hour")
            if kind == "rental"
            else (row.get("price") or 0) / max(int(row.get("gpus") or 1), 1)
        )
        converted, reason = (
            (None, "")
            if amount is None
            else self.context.to_display_currency(float(amount), str(row.get("currency") or ""))
        )
        if converted is None:
            texts["display_price"] = self.tr("no rate")
            tips["display_price"] = reason or self.tr("no price")
            return Derived(texts, sort, tips)
        price = float(converted.amount)
        texts["display_price"] = fmt.money(price, currency)
        sort["display_price"] = price
        if row.get("currency") != currency:
            tips["display_price"] = self.tr("{0} at the stored exchange rate").format(
                fmt.money(float(amount), str(row.get("currency")))
            )
        basis = self.basis(str(row.get("gpu") or ""))
        if kind == "rental":
            if basis.bf16_flops:
                per = price / (basis.bf16_flops / 1e15)
                texts["per_pflop_hour"], sort["per_pflop_hour"] = fmt.money(per, currency), per
            if basis.bandwidth:
                per = price / (basis.bandwidth / 1e12)
                texts["per_tbps_hour"], sort["per_tbps_hour"] = fmt.money(per, currency), per
        elif basis.bf16_flops:
            per = price / (basis.bf16_flops / 1e12)
            texts["per_tflops"], sort["per_tflops"] = fmt.money(per, currency), per
        texts["basis"], tips["basis"] = self._basis_text(basis)
        return Derived(texts, sort, tips)

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
        self.rental.reload()
        self.purchase.reload()
        self._update_summary()

    def _update_summary(self) -> None:
        mine = sum(
            1
            for tab in (self.rental, self.purchase)
            for r in tab.model.rows
            if r.get("origin") != "reference"
        )
        reference = sum(
            1
            for tab in (self.rental, self.purchase)
            for r in tab.model.rows
            if r.get("origin") == "reference"
        )
        self.summary.setText(
            self.tr(
                "{0} of your quotes and {1} dated reference prices. Prices are shown in {2} (Settings)."
            ).format(mine, reference, self.context.display_currency())
        )

    def announce_change(self) -> None:
        """One of our tabs wrote to the store: tell the other pages (our own models are already current)."""
        self._announcing = True
        try:
            self.context.quotes_changed.emit()
        finally:
            self._announcing = False
        self._update_summary()

    def _on_quotes_changed(self) -> None:
        if not self._announcing:
            self.reload()

    def _on_rates_changed(self) -> None:
        for tab in (self.rental, self.purchase):
            tab.model.refresh_derived(self.context.display_currency())
            tab.refresh_chart()
        self._update_summary()

    def _on_probe_runs_changed(self) -> None:
        self._measured = None
        self._on_rates_changed()

    # -- CSV import / export -----------------------------------------------------------------------------------
    def import_csv_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Import quotes CSV"), "", self.tr("CSV files (*.csv);;All files (*)")
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

    def _imported(self, tab: QuoteTab, result: Any) -> None:
        self._end_import()
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
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Export quotes CSV"), name, self.tr("CSV files (*.csv)")
        )
        if path:
            self.export_csv(path, tab.kind.name)

    def export_csv(self, path: str, kind: str) -> None:
        exporter = getattr(self.context.store, f"export_{kind}_csv")
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
    errors: list[tuple[int, str]] = field(default_factory=list)  # (spreadsheet row, reason)

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


def preview_csv(store: Any, path: str, kind: str, progress=None) -> ImportPreview:
    """Read and validate every row exactly as the import will, without writing anything."""
    from planner.store.quotes import PURCHASE, RENTAL, read_quote_csv

    spec = RENTAL if kind == "rental" else PURCHASE
    parsed = read_quote_csv(path, spec)  # UserError for a file-level problem
    resolver = store.gpu_resolver()
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


def import_csv(store: Any, path: str, kind: str, progress=None) -> Any:
    importer = getattr(store, f"import_{kind}_csv")

    def report(stage: str, done: int, total: int) -> None:
        if progress is not None:
            progress(done / total if total else 0.0, stage)

    return importer(path, skip_invalid=True, progress=report)


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
            self.table.setItem(position, 1, QTableWidgetItem(reason))
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
