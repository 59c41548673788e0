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


def reference_quote(row: dict[str, str], gpus: GpuResolver | None = None) -> tuple[str, dict, list[str]]:
    """(table name, cleaned quote, reasons) for one reference row."""
    if row["record"] == "rental":
        quote = {
            "provider": row["provider"],
            "offer": row["offer"],
            "gpu": row["gpu"],
            "gpus_per_instance": row["gpus"],
            "price_per_gpu_hour": row["price_per_gpu_hour"],
            "currency": row["currency"],
            "kind": row["kind"],
            "region": row["region"],
            "interconnect": row["interconnect"],
            "quoted_on": row["quoted_on"],
            "source": row["source"],
            "note": row["note"],
        }
        cleaned, reasons = RENTAL.clean(quote, gpus)
        return RENTAL.table, cleaned, reasons
    if row["record"] == "purchase":
        quote = {
            "vendor": row["provider"],
            "gpu": row["gpu"],
            "gpus": row["gpus"],
            "price": row["price"],
            "currency": row["currency"],
            "quoted_on": row["quoted_on"],
            "power_w": row["power_w"],
            "source": row["source"],
            "note": row["note"],
        }
        cleaned, reasons = PURCHASE.clean(quote, gpus)
        return PURCHASE.table, cleaned, reasons
    return "", {}, [f"record must be rental or purchase, got {row['record']!r}"]


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
