"""The SQLite ledger: probe runs, rental and purchase quotes, plans, settings, user GPU types.

`from planner.store import Store` is the entry point (store.py): ``Store.open()`` gives one connection and one
repository per aggregate over it (``store.rental_quotes``, ``store.purchase_quotes``, ``store.probe_runs``,
``store.plans``, ``store.settings``, ``store.user_gpus``). Code outside the package annotates with
``StoreProtocol`` (protocols.py). The package is split by concern: connection (opening, recovery, retried writes),
errors (SQLite environment errors vs bugs), checked_stamp (skipping the whole-file checks on open for a file
GPU Advisor last checked and closed), database (the connection, its lock and transactions), migrations
(schema history), quotes (columns, validation, CSV), rows (the row types), one module per repository
(quote_repository, probe_runs, plans, settings, user_gpus), seed (shipped reference prices), prices (SQL price
summaries), quote_view (the GUI quote table's window: filter, sort, counts and chart in SQL).
"""

from planner.store.connection import default_db_path
from planner.store.errors import StoreEnvironmentError
from planner.store.migrations import LATEST_VERSION
from planner.store.prices import PriceSummary
from planner.store.protocols import (
    PlanStore,
    ProbeRunStore,
    PurchaseQuoteStore,
    QuoteStore,
    RentalQuoteStore,
    SettingStore,
    StoreProtocol,
    UserGpuStore,
)
from planner.store.quote_view import (
    ChartPick,
    ViewChart,
    ViewFilter,
    ViewPricing,
    ViewQuery,
    ViewSort,
    ViewStats,
)
from planner.store.quotes import (
    INTERCONNECTS,
    KINDS,
    PURCHASE_COLUMNS,
    RENTAL_COLUMNS,
    GpuResolver,
    validate_purchase_quote,
    validate_rental_quote,
)
from planner.store.rows import (
    ExchangeRate,
    GpuSeen,
    ImportBatch,
    ImportResult,
    Machine,
    Measurement,
    PlanSummary,
    ProbeRun,
    PurchaseQuoteRow,
    RentalQuoteRow,
    SavedPlan,
)
from planner.store.store import Store

__all__ = [
    "INTERCONNECTS",
    "KINDS",
    "LATEST_VERSION",
    "PURCHASE_COLUMNS",
    "RENTAL_COLUMNS",
    "ChartPick",
    "ExchangeRate",
    "GpuResolver",
    "GpuSeen",
    "ImportBatch",
    "ImportResult",
    "Machine",
    "Measurement",
    "PlanStore",
    "PlanSummary",
    "PriceSummary",
    "ProbeRun",
    "ProbeRunStore",
    "PurchaseQuoteRow",
    "PurchaseQuoteStore",
    "QuoteStore",
    "RentalQuoteRow",
    "RentalQuoteStore",
    "SavedPlan",
    "SettingStore",
    "Store",
    "StoreEnvironmentError",
    "StoreProtocol",
    "UserGpuStore",
    "ViewChart",
    "ViewFilter",
    "ViewPricing",
    "ViewQuery",
    "ViewSort",
    "ViewStats",
    "default_db_path",
    "validate_purchase_quote",
    "validate_rental_quote",
]
