"""The SQLite ledger: probe runs, rental and purchase quotes, plans, settings, user GPU types.

`from planner.store import Store` is the entry point; see repository.py. The package is split by concern:
connection (opening, recovery, retried writes), migrations (schema history), quotes (columns, validation,
CSV), seed (shipped reference prices), repository (the Store class).
"""

from planner.store.connection import default_db_path
from planner.store.migrations import LATEST_VERSION
from planner.store.prices import PriceSummary
from planner.store.quotes import (
    INTERCONNECTS,
    KINDS,
    PURCHASE_COLUMNS,
    RENTAL_COLUMNS,
    GpuResolver,
    validate_purchase_quote,
    validate_rental_quote,
)
from planner.store.repository import ImportResult, Store

__all__ = [
    "INTERCONNECTS",
    "KINDS",
    "LATEST_VERSION",
    "PURCHASE_COLUMNS",
    "PriceSummary",
    "RENTAL_COLUMNS",
    "GpuResolver",
    "ImportResult",
    "Store",
    "default_db_path",
    "validate_purchase_quote",
    "validate_rental_quote",
]
