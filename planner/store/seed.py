"""Reference prices shipped with the app (planner/catalog/reference_prices.csv, DOMAIN.md section 6).

Each row has a stable `key`. Seeding inserts the keys a database does not have yet, marked origin "reference":
a first start gets them all, an upgrade that ships new reference prices adds only the new ones, and the
user's own rows are never read, changed or replaced. A price that changes ships as a new dated row with a new
key, so old reference points stay as history.
"""

from __future__ import annotations

import csv
import io
from functools import lru_cache
from importlib import resources

from planner.store.quotes import PURCHASE, RENTAL, GpuResolver

REFERENCE_FILE = "reference_prices.csv"


@lru_cache(maxsize=1)
def reference_rows() -> tuple[dict[str, str], ...]:
    """The rows of the shipped reference price file, as read (cells are text)."""
    text = resources.files("planner.catalog").joinpath(REFERENCE_FILE).read_text(encoding="utf-8")
    return tuple(csv.DictReader(io.StringIO(text)))


# The reference file's column for a store column named otherwise: one "provider" and one "gpus" column serve
# both records.
_FILE_COLUMN = {"gpus_per_instance": "gpus", "vendor": "provider"}


def reference_quote(row: dict[str, str], gpus: GpuResolver | None = None) -> tuple[str, dict, list[str]]:
    """(table name, cleaned quote, reasons) for one reference row; store columns the file lacks stay blank."""
    quotes = {"rental": RENTAL, "purchase": PURCHASE}.get(row["record"])
    if quotes is None:
        return "", {}, [f"record must be rental or purchase, got {row['record']!r}"]
    quote = {column: row.get(_FILE_COLUMN.get(column, column)) for column in quotes.columns}
    cleaned, reasons = quotes.clean(quote, gpus)
    return quotes.table, cleaned, reasons


def seed_rows(gpus: GpuResolver | None = None) -> list[tuple[str, str, dict]]:
    """(table, key, cleaned quote) for every reference row. A GPU id the catalog does not know is kept as written
    (a shipped row is never dropped); tests/planner/test_store.py checks that every shipped row is valid."""
    prepared = []
    for row in reference_rows():
        table, cleaned, reasons = reference_quote(row, gpus)
        if any(not reason.startswith("gpu:") for reason in reasons) or not table:
            continue
        if cleaned.get("gpu") != row["gpu"] and any(r.startswith("gpu:") for r in reasons):
            cleaned["gpu"] = row["gpu"]
        prepared.append((table, row["key"], cleaned))
    return prepared
