"""Reference prices shipped with the app (planner/catalog/reference_prices.csv; each row cites its source).

Each row has a stable `key`. Seeding inserts the keys a database does not have yet, marked origin "reference":
a first start gets them all, an upgrade that ships new reference prices adds only the new ones, and the
user's own rows are never read, changed or replaced. A price that changes ships as a new dated row with a new
key, so old reference points stay as history; a corrected citation (source, note) of a shipped key replaces the
stored one, so a database always cites what the shipped file cites.
"""

from __future__ import annotations

import csv
import io
from functools import lru_cache
from importlib import resources

from planner.messages import msg
from planner.store.connection import utc_now_iso
from planner.store.database import Database
from planner.store.quote_import import insert_quotes
from planner.store.quotes import PURCHASE, RENTAL, GpuResolver, QuoteTable, QuoteValues, Reasons

REFERENCE_FILE = "reference_prices.csv"
CITATION_COLUMNS = ("source", "note")


@lru_cache(maxsize=1)
def reference_rows() -> tuple[dict[str, str], ...]:
    """The rows of the shipped reference price file, as read (cells are text)."""
    text = resources.files("planner.catalog").joinpath(REFERENCE_FILE).read_text(encoding="utf-8")
    return tuple(csv.DictReader(io.StringIO(text)))


# The reference file's column for a store column named otherwise: one "provider" and one "gpus" column serve
# both records.
_FILE_COLUMN = {"gpus_per_instance": "gpus", "vendor": "provider"}
_TABLES = {"rental": RENTAL, "purchase": PURCHASE}


def reference_quote(row: dict[str, str], gpus: GpuResolver | None = None) -> tuple[str, QuoteValues, Reasons]:
    """(table name, cleaned quote, reasons) for one reference row; store columns the file lacks stay blank."""

    quotes = _TABLES.get(row["record"])
    if quotes is None:
        return (
            "",
            {},
            [msg("quote.bad_choice", field="record", choices="rental, purchase", value=row["record"])],
        )
    quote = {column: row.get(_FILE_COLUMN.get(column, column)) for column in quotes.columns}
    cleaned, reasons = quotes.clean(quote, gpus)
    return quotes.table, cleaned, reasons


def seed_rows(gpus: GpuResolver | None = None) -> list[tuple[QuoteTable, str, QuoteValues]]:
    """(table, key, cleaned quote) for every reference row. A GPU id the catalog does not know is kept as written
    (a shipped row is never dropped); tests/planner/test_store.py checks that every shipped row is valid."""
    prepared = []
    for row in reference_rows():
        table, cleaned, reasons = reference_quote(row, gpus)
        gpu_reasons = [reason for reason in reasons if reason.code.startswith("quote.gpu_")]
        if len(gpu_reasons) < len(reasons) or not table:
            continue
        if gpu_reasons:
            cleaned["gpu"] = row["gpu"]
        prepared.append((RENTAL if table == RENTAL.table else PURCHASE, row["key"], cleaned))
    return prepared


def seed_reference_prices(db: Database) -> None:
    """Add the shipped reference prices this database lacks and bring their citations up to date."""
    wanted = seed_rows(GpuResolver())
    with db.guard():
        if not _stale(db, wanted):
            return

    def refresh() -> None:
        stored = _stored_citations(db)
        missing = [(spec, key, quote) for spec, key, quote in wanted if key not in stored]
        now = utc_now_iso()
        for spec, key, quote in missing:
            insert_quotes(db.conn, spec, [quote], origin="reference", created_at=now, seed_keys=[key])
        for spec, key, quote in wanted:
            citation = tuple(quote[c] for c in CITATION_COLUMNS)
            if key in stored and stored[key] != citation:
                db.conn.execute(
                    f"UPDATE {spec.table} SET source = ?, note = ? WHERE seed_key = ? AND origin = 'reference'",
                    [*citation, key],
                )

    db.write(refresh)


def _stored_citations(db: Database) -> dict[str, tuple[object, ...]]:
    """seed key -> (source, note) of every reference row stored."""
    found: dict[str, tuple[object, ...]] = {}
    for spec in (RENTAL, PURCHASE):
        rows = db.conn.execute(f"SELECT seed_key, source, note FROM {spec.table} WHERE seed_key IS NOT NULL")
        found.update((key, (source, note)) for key, source, note in rows)
    return found


def _stale(db: Database, wanted: list[tuple[QuoteTable, str, QuoteValues]]) -> bool:
    stored = _stored_citations(db)
    return any(stored.get(key) != tuple(quote[c] for c in CITATION_COLUMNS) for _, key, quote in wanted)
