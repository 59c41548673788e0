"""Quotes page: rental and purchase quotes, edited in place with undo, filtered, imported, exported, charted.

Writes go through the store (one owner of the database); edits are validated with the store's validator and
refused in place with the reason; add, duplicate, delete and edits are undoable (QUndoStack, Ctrl+Z and
Ctrl+Shift+Z through the window's Edit menu). CSV import first shows a preview of every bad row with its reason,
then writes in a background job with progress.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QUndoGroup, QUndoStack
from PySide6.QtWidgets import (
    QLabel,
    QProgressBar,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop import dialogs, fmt
from desktop.messages import render
from desktop.pages.base import Page
from desktop.pages.page_widgets import show_banner
from desktop.pages.quote_import import (
    ImportPreview,
    ImportPreviewDialog,
    detect_quote_kind,
    import_csv,
    preview_csv,
)
from desktop.pages.quote_tab import QuoteTab
from desktop.qmodels.quotes import (
    KIND_NAMES,
    Derived,
    Row,
    rate_text,
)
from desktop.quote_pricing import (
    Basis,
    Pricing,
    SpotOverhead,
    basis_for,
    measured_figures,
)
from desktop.undo import ImportBatchCommand
from desktop.workers import JobRunner
from planner.errors import UserError

if TYPE_CHECKING:
    from collections.abc import Callable

    from desktop.context import AppContext
    from planner.store import ImportResult


def short_gpu_name(name: str) -> str:
    """Drop the vendor and brand words tables do not need: "NVIDIA GeForce RTX 4090" -> "RTX 4090"."""
    for prefix in ("NVIDIA ", "GeForce "):
        name = name.removeprefix(prefix)
    return name


class QuotesPage(Page):
    page_id = "quotes"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self._announcing = False
        self._measured: dict[str, dict[str, float]] | None = None
        self._pricing: Pricing | None = None  # snapshot for derived columns, sorting and the chart
        self._loading: set[QuoteTab] = set()  # tabs loading in the background
        self.undo_jobs = JobRunner(self, max_threads=1)  # an import's undo and redo, in the order asked
        self.undo_in_flight = 0
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
        from desktop.qmodels.quotes import model_tr

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
        elif kind == "rental" and row.get("kind") != "spot":  # an empty cell read as "unknown": say "nothing lost"
            texts["per_useful_gpu_hour"] = "—"
            tips["per_useful_gpu_hour"] = self.tr(
                "Not a spot quote: nothing is reclaimed, so its price per GPU-hour is its price per useful GPU-hour"
            )
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

    def _imported(self, tab: QuoteTab, result: ImportResult) -> None:
        self._end_import()
        if result.batch is not None:  # one undoable step: Ctrl+Z takes the whole import back, Ctrl+Shift+Z
            tab.undo_stack.push(ImportBatchCommand(  # brings it again, by its batch of ids in the store
                tab.model.kind.quotes, result.batch, self.context.quotes_changed.emit,
                self.tr("importing %n quote(s)", "", result.added), self.in_background,
            ))  # fmt: skip
        self.context.quotes_changed.emit()  # reloads our tables too
        text = self.tr("Imported {0} quotes; {1} duplicates skipped; {2} rows refused.").format(
            result.added, result.duplicate_rows, result.bad_rows
        )
        show_banner(tab.banner, text)
        self.context.show_status(text)

    def in_background(self, work: Callable[[], object], then: Callable[[], object]) -> None:
        """Undo or redo of an import: the store's SQL on undo_jobs' one thread (in the order asked), both tables
        read-only until the last is done, then `then` on the GUI thread."""
        self.undo_in_flight += 1
        for each in (self.rental, self.purchase):
            each.set_busy(True)

        def finished(failure: str | None = None) -> None:
            self.undo_in_flight -= 1
            if self.undo_in_flight == 0:
                for each in (self.rental, self.purchase):
                    each.set_busy(False)
            if failure is not None:
                show_banner(self.current_tab().banner, failure, error=True)
            then()

        self.undo_jobs.run(work, on_done=lambda _result: finished(), on_error=finished, name="undo import")

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
