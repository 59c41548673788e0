"""AppContext: what every page shares (the store, the GPU inventory, settings, the job runner, app signals).

One AppContext per window. Pages receive it in their constructor (``SomePage(context, parent=None)``) and talk
to each other only through its signals: a page that changes quotes emits ``quotes_changed``, and every page
that shows prices refreshes. Nothing here is slow on the GUI thread: NVML is read by a background job
(``inventory_changed`` fires when it arrives), the store is a local SQLite file opened once, after the window
shows (open_store_soon) or when first asked for.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject, QSettings, QTimer, Signal

from desktop.workers import JobRunner
from planner.errors import UserError

if TYPE_CHECKING:
    from collections.abc import Callable

    from desktop.db_watch import DatabaseWatcher
    from desktop.plan_request import PriceBook
    from planner.gpus import GpuSpec
    from planner.money import ExchangeRates, Money
    from planner.search import PlanOption
    from planner.store import ExchangeRate, StoreProtocol
    from profiler.nvml_inventory import Inventory

ORGANIZATION = "GPU Advisor"
APPLICATION = "gpu-advisor"

# The interface language lives in QSettings, as it is needed before the store opens; the other settings (display
# currency, electricity price) live in the store (planner/store/settings.py).
SETTING_LANGUAGE = "ui/language"  # QSettings key: "en" | "ru" | "" (follow the system)

CURRENCIES = ("USD", "EUR", "RUB")
CHART_IMPORT_DELAY_MS = 300  # after the window's first paints: a thread importing meanwhile would slow them
# A placeholder the user is told to set: the price of one kWh.
DEFAULT_ELECTRICITY_PER_KWH = 0.15
DEFAULT_ELECTRICITY_CURRENCY = "USD"

# Tests and --screenshots point QSettings somewhere else; None means the per-user config folder.
_settings_path_override: str | None = None


def set_settings_path(path: str | None) -> None:
    """Use another QSettings file (screenshots use a temporary one so the user's window state is untouched)."""
    global _settings_path_override
    _settings_path_override = path


def settings_path() -> str:
    """The INI file behind QSettings: <user config dir>/gpu-advisor/gpu-advisor.ini.

    Computed on each call (not cached by Qt) so tests that move XDG_CONFIG_HOME get a fresh file.
    """
    if _settings_path_override:
        return _settings_path_override
    import platformdirs

    return str(Path(platformdirs.user_config_dir(APPLICATION, appauthor=False)) / f"{APPLICATION}.ini")


def make_qsettings() -> QSettings:
    return QSettings(settings_path(), QSettings.Format.IniFormat)


def open_store(path: str | Path | None = None) -> tuple[StoreProtocol, str | None]:
    """Open the store; on failure open a temporary one and return the message for the user.

    Returns (store, problem): problem is None when the real database opened. The app keeps running with a
    temporary database so the user can still look around, and is told nothing will be kept.
    """
    from planner.store import Store

    try:
        return Store.open(path), None
    except (
        Exception
    ) as exc:  # the window must open whatever the real database does (newer, locked, unreadable)
        from desktop.workers import describe_error

        problem = describe_error(exc)
    scratch = Path(tempfile.mkdtemp(prefix="gpu-advisor-")) / "temporary.sqlite"
    return Store.open(scratch), problem


class AppContext(QObject):
    """Shared state and signals for one main window.

    Attributes: ``store`` (planner.store.Store), ``store_problem`` (str | None: why the real database could
    not be opened), ``inventory`` (profiler.nvml.Inventory, None until read), ``jobs`` (JobRunner).
    """

    quotes_changed = Signal()
    probe_runs_changed = Signal()
    settings_changed = Signal()
    plans_changed = Signal()
    # The Plan page's selected option (planner.search.PlanOption) or None; Rent or buy pre-fills from it (issue 7).
    plan_option_changed = Signal(object)
    document_title_changed = Signal(str)
    status_message = Signal(str)
    inventory_changed = Signal(object)  # profiler.nvml.Inventory
    busy_changed = Signal(bool)  # some background job is running

    def __init__(
        self,
        store: StoreProtocol | None = None,
        inventory: Inventory | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.jobs = JobRunner(self)
        self.jobs.jobs_changed.connect(lambda count: self.busy_changed.emit(count > 0))
        # The database opens when first asked for: the window shows without planner.store's imports (40-70 ms of
        # start-up); once it is up, open_store_soon imports them on a pool thread and opens it.
        self._store: StoreProtocol | None = store
        self._store_problem: str | None = None
        self._store_callbacks: list[Callable[[], None]] = []
        self._store_import: bool = False  # planner.store is being imported on a pool thread
        self.db_watcher: DatabaseWatcher | None = None  # another window's or process's edits show here too
        self.inventory = inventory
        self.inventory_error: str | None = None
        self.plan_option: PlanOption | None = None  # last value of plan_option_changed
        self._catalog: dict[str, GpuSpec] | None = None
        self._price_book: PriceBook | None = None
        self.quotes_changed.connect(self._forget_catalog)
        self.settings_changed.connect(self._forget_catalog)
        self._charts_loaded = False
        self._chart_callbacks: list[Callable[[], None]] | None = None  # while pyqtgraph is imported
        if store is not None:
            self._store_opened()

    # -- store -------------------------------------------------------------------------------------------------
    @property
    def store(self) -> StoreProtocol:
        """The database (planner.store.Store), opened on first use; a temporary one where the real one cannot
        be opened (store_problem says why)."""
        if self._store is None:
            self._store, self._store_problem = open_store()
            self._store_opened()
        return self._store

    @property
    def store_problem(self) -> str | None:
        """Why the real database could not be opened (a temporary one is used), or None."""
        self.store  # noqa: B018 (opens it)
        return self._store_problem

    @property
    def store_open(self) -> bool:
        return self._store is not None

    def when_store_open(self, callback: Callable[[], None]) -> None:
        """Call `callback` on the GUI thread once the database is open: now if it is, else when it opens."""
        if self._store is not None:
            callback()
        else:
            self._store_callbacks.append(callback)

    def open_store_soon(self) -> None:
        """Open the database without holding up the GUI thread on its imports: planner.store is imported on a
        pool thread, then the store is opened here (a few milliseconds)."""
        if self._store is not None or self._store_import:
            return
        self._store_import = True
        self.jobs.run(_import_store, on_done=self._open_now, on_error=self._open_now, name="open the database")

    def _open_now(self, _answer: object = None) -> None:
        self.store  # noqa: B018 (opens it; an import error shows as the store's problem)

    def _store_opened(self) -> None:
        from desktop.db_watch import DatabaseWatcher

        self.db_watcher = DatabaseWatcher(self)
        callbacks, self._store_callbacks = self._store_callbacks, []
        for callback in callbacks:
            callback()

    # -- inventory ---------------------------------------------------------------------------------------------
    @property
    def inventory_ready(self) -> bool:
        return self.inventory is not None

    def load_inventory(self) -> None:
        """Read NVML on a pool thread; ``inventory_changed`` fires on the GUI thread when it is in."""
        self.jobs.run(
            _read_inventory, on_done=self._set_inventory, on_error=self._inventory_failed, name="read NVML"
        )

    def _set_inventory(self, inventory: Inventory) -> None:
        self.inventory = inventory
        self.inventory_changed.emit(inventory)

    def _inventory_failed(self, message: str) -> None:
        # read_inventory never raises by contract; if it did, show an empty inventory with the reason
        self.inventory_error = message
        self.inventory_changed.emit(None)

    def gpu_count(self) -> int:
        return len(getattr(self.inventory, "gpus", None) or [])

    # -- charts ------------------------------------------------------------------------------------------------
    def when_charts_loaded(self, callback: Callable[[], None]) -> None:
        """Call `callback` on the GUI thread once pyqtgraph is imported: now if it is, else after it has been
        imported on a pool thread (on the GUI thread its import is a stall of 0.3-1.5 s; the window shows
        without it and draws its charts after). Callbacks that waited run one per idle turn (desktop.shelf.later:
        each builds a chart, 10-50 ms)."""
        if self._charts_loaded or ("pyqtgraph" in sys.modules and self._chart_callbacks is None):
            self._charts_loaded = True  # imported by a page before (fully: no import of ours is under way)
            callback()
            return
        if self._chart_callbacks is None:
            self._chart_callbacks = []
            QTimer.singleShot(CHART_IMPORT_DELAY_MS, self, self._import_charts)
        self._chart_callbacks.append(callback)

    @property
    def charts_loaded(self) -> bool:
        """pyqtgraph is imported and the callbacks that waited for it are queued (when_charts_loaded)."""
        return self._charts_loaded

    def _import_charts(self) -> None:
        self.jobs.run(_import_pyqtgraph, on_done=lambda _: self._charts_imported(),
                      on_error=lambda _: self._charts_imported(), name="import the charts")  # fmt: skip

    def _charts_imported(self) -> None:
        """pyqtgraph is in (or failed: the callers' own imports say why): the waiting callbacks, one per turn."""
        from desktop.shelf import later

        self._charts_loaded = True
        callbacks, self._chart_callbacks = self._chart_callbacks or [], None
        for callback in callbacks:
            later(self, callback)

    # -- GPU catalog -------------------------------------------------------------------------------------------
    def gpu_catalog(self) -> dict[str, GpuSpec]:
        """planner.gpus.load_catalog() plus the user's own GPU types, cached until quotes/settings change."""
        if self._catalog is None:
            from planner.gpus import load_catalog

            try:
                extra = tuple(self.store.user_gpus.all())
            except UserError:  # a user GPU row that no longer loads, or the database: never hide the catalog
                extra = ()
            self._catalog = load_catalog(extra)
        return self._catalog

    def user_gpus(self) -> tuple[GpuSpec, ...]:
        """The user's own GPU types (those of gpu_catalog())."""
        return tuple(gpu for gpu in self.gpu_catalog().values() if gpu.user_defined)

    def match_gpu(self, device_name: str) -> GpuSpec | None:
        """The GPU type of a device name a probe or NVML reported (planner.gpus.match_nvml_name, the one place
        names are matched), the user's own types included; None for a CPU or an unknown GPU."""
        from planner.gpus import match_nvml_name

        return match_nvml_name(device_name, self.user_gpus())

    def _forget_catalog(self) -> None:
        self._catalog = None

    def price_book(self) -> PriceBook:
        """desktop.plan_request.PriceBook over this store: typical prices per GPU type from SQL summaries,
        shared by the Plan and Rent-or-buy pages and kept until the database changes."""
        if self._price_book is None or self._price_book.store is not self.store:
            from desktop.plan_request import PriceBook

            self._price_book = PriceBook(self.store)
        return self._price_book

    # -- settings ----------------------------------------------------------------------------------------------
    def qsettings(self) -> QSettings:
        return make_qsettings()

    def display_currency(self) -> str:
        try:
            code = self.store.settings.display_currency()
        except UserError:  # the database cannot be read right now: show prices in dollars meanwhile
            code = "USD"
        return code if code in CURRENCIES else "USD"

    def set_display_currency(self, code: str) -> None:
        self.store.settings.set_display_currency(code)
        self.settings_changed.emit()

    def exchange_rate_entries(self) -> dict[str, ExchangeRate]:
        """The rates the user set, each with its date; none when the database cannot be read."""
        try:
            return self.store.settings.exchange_rate_entries()
        except ValueError:  # StoreEnvironmentError (a UserError) or a stored value no longer readable
            return {}

    def exchange_rates(self) -> ExchangeRates:
        """planner.money.ExchangeRates from the store (to_usd per currency, with the date they were set)."""
        return self.store.settings.exchange_rates()

    def set_exchange_rate(self, currency: str, to_usd: float, as_of: str) -> None:
        self.store.settings.set_exchange_rate(currency, to_usd, as_of)
        self.settings_changed.emit()

    def electricity_price(self) -> Money:
        """planner.money.Money per kWh (the user's setting, else the placeholder DEFAULT_ELECTRICITY_PER_KWH)."""
        from planner.money import Money

        try:
            price = self.store.settings.electricity_price()
        except UserError:  # the database cannot be read right now: the placeholder, as when unset
            price = None
        return price or Money(DEFAULT_ELECTRICITY_PER_KWH, DEFAULT_ELECTRICITY_CURRENCY)

    def set_electricity_price(self, amount: float, currency: str) -> None:
        from planner.money import Money

        self.store.settings.set_electricity_price(Money(float(amount), currency))
        self.settings_changed.emit()

    def language(self) -> str:
        """ "en", "ru" or "" (follow the system); stored in QSettings because it is needed before the store."""
        return str(self.qsettings().value(SETTING_LANGUAGE, "") or "")

    def set_language(self, code: str) -> None:
        """Store the choice for the next start. No settings_changed: desktop.i18n.switch_language retranslates
        every page in place, while settings_changed would make pages reload prices the user may have typed."""
        settings = self.qsettings()
        settings.setValue(SETTING_LANGUAGE, code)
        settings.sync()

    def to_display_currency(self, amount: float, currency: str) -> tuple[Money | None, str | None]:
        """(Money in the display currency, None) or (None, reason) when a rate is missing: never assumed."""
        from planner.money import Money, convert

        source, target = str(currency or "").upper(), self.display_currency()
        try:
            rates = self.exchange_rates()
            if source != target and not {source, target} <= set(rates.to_usd):
                # the user's prompt, in the interface language (the planner's own message is English)
                return None, QCoreApplication.translate(
                    "AppContext", "No exchange rate for {0} → {1}: set one in Settings (Exchange rates)."
                ).format(source, target)
            return convert(Money(float(amount), source), target, rates), None
        except (UserError, ValueError) as exc:  # a rate or amount the planner refuses, a database error
            from desktop.workers import describe_error

            return None, describe_error(exc)

    # -- misc --------------------------------------------------------------------------------------------------
    def show_status(self, text: str) -> None:
        self.status_message.emit(text)

    def shutdown(self) -> None:
        """Stop background work and close the store (called when the window closes)."""
        if self.db_watcher is not None:
            self.db_watcher.stop()
        self.jobs.cancel_all()
        self.jobs.wait_for_done(5000)


def _import_pyqtgraph() -> None:
    """Pool thread: pyqtgraph's modules (no widget is made; desktop.charts applies the palette on the GUI
    thread when a chart module is imported there)."""
    import pyqtgraph  # noqa: F401


def _import_store() -> None:
    """Pool thread: planner.store's modules (the connection is opened on the GUI thread, which uses it)."""
    import planner.store  # noqa: F401


def _read_inventory() -> Inventory:
    from profiler.nvml_inventory import read_inventory

    return read_inventory()
