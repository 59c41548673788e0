"""AppContext: what every page shares (the store, the GPU inventory, settings, the job runner, app signals).

One AppContext per window. Pages receive it in their constructor (``SomePage(context, parent=None)``) and talk
to each other only through its signals: a page that changes quotes emits ``quotes_changed``, and every page
that shows prices refreshes. Nothing here is slow on the GUI thread: NVML is read by a background job
(``inventory_changed`` fires when it arrives), the store is a local SQLite file opened once.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QSettings, Signal

from desktop.workers import JobRunner

ORGANIZATION = "GPU Advisor"
APPLICATION = "gpu-advisor"

# Store setting keys shared by the pages (Settings page writes them; Quotes, Plan and Rent or buy read them).
SETTING_DISPLAY_CURRENCY = "display_currency"  # "USD" | "EUR" | "RUB"
SETTING_ELECTRICITY_PRICE = "electricity_price_per_kwh"  # {"amount": float, "currency": str}
SETTING_LANGUAGE = "ui/language"  # QSettings key: "en" | "ru" | "" (follow the system)

CURRENCIES = ("USD", "EUR", "RUB")
DEFAULT_ELECTRICITY = {"amount": 0.15, "currency": "USD"}  # a placeholder the user is told to set, per kWh

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


def open_store(path: str | os.PathLike | None = None) -> tuple[Any, str | None]:
    """Open the store; on failure open a temporary one and return the message for the user.

    Returns (store, problem): problem is None when the real database opened. The app keeps running with a
    temporary database so the user can still look around, and is told nothing will be kept.
    """
    from planner.store import Store

    try:
        return Store.open(path), None
    except Exception as exc:  # a newer schema, a locked or unreadable file: show it, do not crash
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

    def __init__(self, store: Any = None, inventory: Any = None, parent: QObject | None = None):
        super().__init__(parent)
        self.jobs = JobRunner(self)
        self.jobs.jobs_changed.connect(lambda count: self.busy_changed.emit(count > 0))
        if store is None:
            store, problem = open_store()
        else:
            problem = None
        self.store = store
        self.store_problem: str | None = problem
        self.inventory = inventory
        self.inventory_error: str | None = None
        self.plan_option: Any = None  # last value of plan_option_changed
        self._catalog: dict | None = None
        self._price_book: Any = None
        self.quotes_changed.connect(self._forget_catalog)
        self.settings_changed.connect(self._forget_catalog)

    # -- inventory ---------------------------------------------------------------------------------------------
    @property
    def inventory_ready(self) -> bool:
        return self.inventory is not None

    def load_inventory(self) -> None:
        """Read NVML on a pool thread; ``inventory_changed`` fires on the GUI thread when it is in."""
        self.jobs.run(
            _read_inventory, on_done=self._set_inventory, on_error=self._inventory_failed, name="read NVML"
        )

    def _set_inventory(self, inventory: Any) -> None:
        self.inventory = inventory
        self.inventory_changed.emit(inventory)

    def _inventory_failed(self, message: str) -> None:
        # read_inventory never raises by contract; if it did, show an empty inventory with the reason
        self.inventory_error = message
        self.inventory_changed.emit(None)

    def gpu_count(self) -> int:
        return len(getattr(self.inventory, "gpus", None) or [])

    # -- GPU catalog -------------------------------------------------------------------------------------------
    def gpu_catalog(self) -> dict:
        """planner.gpus.load_catalog() plus the user's own GPU types, cached until quotes/settings change."""
        if self._catalog is None:
            from planner.gpus import load_catalog

            extra = ()
            lister = getattr(self.store, "list_user_gpus", None)
            if lister is not None:
                try:
                    extra = tuple(lister())
                except Exception:  # a user GPU row that no longer loads must not hide the catalog
                    extra = ()
            self._catalog = load_catalog(extra)
        return self._catalog

    def _forget_catalog(self) -> None:
        self._catalog = None

    def price_book(self) -> Any:
        """desktop.plan_request.PriceBook over this store: typical prices per GPU type from SQL summaries,
        shared by the Plan and Rent-or-buy pages and kept until the database changes."""
        if self._price_book is None or self._price_book.store is not self.store:
            from desktop.plan_request import PriceBook

            self._price_book = PriceBook(self.store)
        return self._price_book

    # -- settings ----------------------------------------------------------------------------------------------
    def qsettings(self) -> QSettings:
        return make_qsettings()

    def setting(self, key: str, default: Any = None) -> Any:
        try:
            return self.store.get_setting(key, default)
        except Exception:
            return default

    def set_setting(self, key: str, value: Any) -> None:
        self.store.set_setting(key, value)
        self.settings_changed.emit()

    def display_currency(self) -> str:
        code = str(self.setting(SETTING_DISPLAY_CURRENCY, "USD") or "USD").upper()
        return code if code in CURRENCIES else "USD"

    def set_display_currency(self, code: str) -> None:
        self.set_setting(SETTING_DISPLAY_CURRENCY, code.upper())

    def exchange_rates(self):
        """planner.money.ExchangeRates from the store (to_usd per currency, with the date they were set)."""
        return self.store.get_exchange_rates()

    def set_exchange_rate(self, currency: str, to_usd: float, as_of: str) -> None:
        self.store.set_exchange_rate(currency, to_usd, as_of)
        self.settings_changed.emit()

    def electricity_price(self):
        """planner.money.Money per kWh (the user's setting, else DEFAULT_ELECTRICITY)."""
        from planner.money import Money

        value = self.setting(SETTING_ELECTRICITY_PRICE, None) or DEFAULT_ELECTRICITY
        try:
            return Money(float(value["amount"]), str(value["currency"]).upper())
        except (KeyError, TypeError, ValueError):
            return Money(DEFAULT_ELECTRICITY["amount"], DEFAULT_ELECTRICITY["currency"])

    def set_electricity_price(self, amount: float, currency: str) -> None:
        self.set_setting(SETTING_ELECTRICITY_PRICE, {"amount": float(amount), "currency": currency.upper()})

    def language(self) -> str:
        """ "en", "ru" or "" (follow the system); stored in QSettings because it is needed before the store."""
        return str(self.qsettings().value(SETTING_LANGUAGE, "") or "")

    def set_language(self, code: str) -> None:
        """Store the choice for the next start. No settings_changed: desktop.i18n.switch_language retranslates
        every page in place, while settings_changed would make pages reload prices the user may have typed."""
        settings = self.qsettings()
        settings.setValue(SETTING_LANGUAGE, code)
        settings.sync()

    def to_display_currency(self, amount: float, currency: str):
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
        except Exception as exc:
            from desktop.workers import describe_error

            return None, describe_error(exc)

    # -- misc --------------------------------------------------------------------------------------------------
    def show_status(self, text: str) -> None:
        self.status_message.emit(text)

    def shutdown(self) -> None:
        """Stop background work and close the store (called when the window closes)."""
        self.jobs.cancel_all()
        self.jobs.wait_for_done(5000)


def _read_inventory():
    from profiler.nvml import read_inventory

    return read_inventory()
