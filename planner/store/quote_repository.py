"""Rental and purchase quotes: the two quote repositories, one shared implementation.

Every statement takes its values as parameters; table and column names come from planner.store.quotes'
constants, never from input. Validation is planner.store.quotes' (shared with the GUI editor and CSV import);
reference rows (shipped with the app, origin "reference") can be listed but never edited or deleted.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

from planner.errors import UserError
from planner.messages import msg
from planner.store import prices as price_queries
from planner.store.connection import utc_now_iso
from planner.store.database import Database, Repository, guarded
from planner.store.prices import PriceSummary
from planner.store.quote_csv import open_quote_csv, write_quote_csv
from planner.store.quote_import import CsvImport, ImportRefused, Progress, find_duplicate, insert_quotes
from planner.store.quote_view import QuoteView, ViewChart, ViewQuery, ViewStats
from planner.store.quotes import (
    PURCHASE,
    RENTAL,
    GpuResolver,
    QuoteTable,
    QuoteValues,
    Reasons,
)
from planner.store.rows import (
    PURCHASE_ROW_COLUMNS,
    RENTAL_ROW_COLUMNS,
    ImportBatch,
    ImportResult,
    PurchaseQuoteRow,
    RentalQuoteRow,
    purchase_rows,
    rental_rows,
)

STREAM_CHUNK_ROWS = 2000  # rows a listing holds at once
_RENTAL_ORDER = "gpu, price_per_gpu_hour, id"
_PURCHASE_ORDER = "gpu, price / gpus, id"
RowT = TypeVar("RowT", RentalQuoteRow, PurchaseQuoteRow)


class QuoteRepository(Repository, Generic[RowT]):
    """What rental and purchase quotes share: validate, add, get, count, update, delete, restore, CSV."""

    def __init__(
        self,
        db: Database,
        spec: QuoteTable,
        to_rows: Callable[[Iterable[Any]], list[RowT]],
        row_columns: tuple[str, ...],
        resolver: Callable[[], GpuResolver],
    ) -> None:
        super().__init__(db)
        self.spec: QuoteTable = spec
        self._to_rows: Callable[[Iterable[Any]], list[RowT]] = to_rows
        self._row_columns = row_columns
        self._resolver = resolver
        self._view = QuoteView(db, spec, row_columns)

    # -- one quote ------------------------------------------------------------------------------------------------
    def validate(self, quote: Mapping[str, object]) -> Reasons:
        """Reasons the quote cannot be stored; empty when it can. The GUI editor and CSV import share this."""
        return self.spec.clean(quote, self._resolver())[1]

    def add(self, quote: Mapping[str, object]) -> int:
        """Store the user's quote; UserError with every reason when it is invalid or already stored."""
        cleaned = self._clean_or_refuse(quote)

        def work() -> int:
            existing = find_duplicate(self._conn, self.spec, cleaned)
            if existing is not None:
                raise UserError.of(
                    msg("error.quote_duplicate", label=self.spec.label, quote_id=str(existing))
                )
            new_id = insert_quotes(self._conn, self.spec, [cleaned], origin="user", created_at=utc_now_iso())
            return int(new_id or 0)

        return self._db.write(work)

    @guarded
    def get(self, quote_id: int) -> RowT:
        rows = self._select(["id = ?"], [int(quote_id)], "id")
        if not rows:
            raise UserError.of(msg("error.quote_missing", label=self.spec.label, quote_id=str(quote_id)))
        return rows[0]

    @guarded
    def count(self, mine_only: bool = False) -> int:
        spec = self.spec
        sql = f"SELECT count(*) FROM {spec.table}" + (" WHERE origin = 'user'" if mine_only else "")
        return int(self._conn.execute(sql).fetchone()[0])

    def update(self, quote_id: int, changes: Mapping[str, object]) -> RowT:
        """Change some columns of the user's quote; the other price of a rental is derived again."""
        unknown = sorted(set(changes) - set(self.spec.columns))
        if unknown:
            raise UserError.of(
                msg("error.quote_unknown_fields", label=self.spec.label, fields=", ".join(unknown))
            )

        def work() -> RowT:
            current = self.get(quote_id)
            self._refuse_reference(current, "error.quote_reference_edit")
            cleaned = self._clean_or_refuse(self._merged(current, changes))
            existing = find_duplicate(self._conn, self.spec, cleaned, exclude_id=int(quote_id))
            if existing is not None:
                raise UserError.of(msg("error.quote_change_duplicate", label=self.spec.label,
                                       quote_id=str(quote_id), existing=str(existing)))  # fmt: skip
            spec = self.spec
            assignments = ", ".join(f"{c} = ?" for c in spec.columns)
            self._conn.execute(
                f"UPDATE {spec.table} SET {assignments} WHERE id = ?",
                [cleaned[c] for c in spec.columns] + [int(quote_id)],
            )
            return self.get(quote_id)

        return self._db.write(work)

    def _merged(self, current: Mapping[str, object], changes: Mapping[str, object]) -> dict[str, object]:
        merged = {c: current[c] for c in self.spec.columns}
        merged.update(changes)
        if self.spec is RENTAL and ("price_per_gpu_hour" in changes) != (
            "price_per_instance_hour" in changes
        ):
            # one price changed: derive the other again instead of refusing a now-stale pair
            stale = "price_per_instance_hour" if "price_per_gpu_hour" in changes else "price_per_gpu_hour"
            merged[stale] = None
        return merged

    def delete(self, quote_id: int) -> RowT:
        """Delete the user's quote and return it (for undo); reference rows are refused."""

        def work() -> RowT:
            row = self.get(quote_id)
            self._refuse_reference(row, "error.quote_reference_delete")
            spec = self.spec
            self._conn.execute(f"DELETE FROM {spec.table} WHERE id = ?", [int(quote_id)])
            return row

        return self._db.write(work)

    def restore(self, row: Mapping[str, object]) -> int:
        """Put back a row returned by delete (undo): same id when it is still free, same created_at."""
        cleaned: QuoteValues = self._clean_or_refuse(row)
        row_id = row.get("id")
        spec: QuoteTable = self.spec

        def work() -> int:
            columns = ("id", *spec.columns, "origin", "created_at")
            taken = self._conn.execute(f"SELECT 1 FROM {spec.table} WHERE id = ?", [row_id]).fetchone()
            values = [
                None if taken else row_id,
                *(cleaned[c] for c in spec.columns),
                "user",
                row.get("created_at") or utc_now_iso(),
            ]
            sql = (
                f"INSERT INTO {spec.table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"
            )
            return int(self._conn.execute(sql, values).lastrowid or 0)

        return self._db.write(work)

    # -- the GUI's window onto the table (planner/store/quote_view.py) ------------------------------------------
    def view_ids(self, query: ViewQuery, progress: Callable[[float], None] | None = None) -> Sequence[int]:
        """Ids of the quotes `query` shows, in its order, 8 bytes each (off the store's lock where it can)."""
        return self._view.ordered_ids(query, progress)

    def view_stats(self) -> ViewStats:
        """Yours, reference, GPU ids and currencies over the whole table, by SQL aggregates."""
        return self._view.stats()

    def view_chart(self, query: ViewQuery, per_group: int) -> ViewChart:
        """The price chart's quantile picks of the quotes `query` shows."""
        return self._view.chart(query, per_group)

    def rows_by_ids(self, ids: Sequence[int]) -> list[RowT]:
        """find()'s rows of these ids, in the order asked; ids gone since are left out."""
        return self._to_rows(self._view.rows(ids))

    # -- undo of an import, by its batch ----------------------------------------------------------------------------
    def set_aside(self, batch: ImportBatch) -> int:
        """Undo of an import: its rows leave the table for this connection's TEMP table (SQL only, so a million
        rows take no memory here; the undo stack lives as long as the connection); returns how many left."""
        table, aside = self.spec.table, self._aside_table()
        params = [batch.first_id, batch.last_id, batch.created_at]

        def work() -> int:
            self._conn.execute(
                f"INSERT INTO temp.{aside} SELECT * FROM main.{table} "
                "WHERE id BETWEEN ? AND ? AND origin = 'user' AND created_at = ?", params,
            )  # fmt: skip
            return int(self._conn.execute(
                f"DELETE FROM main.{table} WHERE id BETWEEN ? AND ? AND origin = 'user' AND created_at = ?", params
            ).rowcount)  # fmt: skip

        return self._db.write(work)

    def bring_back(self, batch: ImportBatch) -> ImportBatch:
        """Redo of an undone import: its rows return from the TEMP table with their ids, or, where a quote
        added since took one of them, all of them shifted to follow the table's last id (still one block, in
        their order); returns the batch as it now stands."""
        table, aside = self.spec.table, self._aside_table()
        span: list[object] = [batch.first_id, batch.last_id]

        def work() -> ImportBatch:
            taken = self._conn.execute(f"SELECT 1 FROM main.{table} WHERE id BETWEEN ? AND ? LIMIT 1", span)
            first = batch.first_id
            if taken.fetchone() is not None:
                first = int(
                    self._conn.execute(f"SELECT coalesce(max(id), 0) + 1 FROM main.{table}").fetchone()[0]
                )
            others = [
                row[1] for row in self._conn.execute(f"PRAGMA main.table_info({table})") if row[1] != "id"
            ]
            self._conn.execute(
                f"INSERT INTO main.{table} (id, {', '.join(others)}) SELECT id - ? + ?, {', '.join(others)} "
                f"FROM temp.{aside} WHERE id BETWEEN ? AND ? ORDER BY id", [batch.first_id, first, *span],
            )  # fmt: skip
            self._conn.execute(f"DELETE FROM temp.{aside} WHERE id BETWEEN ? AND ?", span)
            return ImportBatch(first, first + batch.last_id - batch.first_id, batch.created_at)

        return self._db.write(work)

    def _aside_table(self) -> str:
        """The TEMP table undone imports wait in (set_aside_<table>), made on first use with the table's columns."""
        table = self.spec.table
        aside = f"set_aside_{table}"
        with self._db.guard():
            self._conn.execute(
                f"CREATE TEMP TABLE IF NOT EXISTS {aside} AS SELECT * FROM main.{table} WHERE 0"
            )
        return aside

    # -- CSV files ------------------------------------------------------------------------------------------------
    def import_csv(
        self, path: str | Path, skip_invalid: bool = False, progress: Progress | None = None
    ) -> ImportResult:
        """Import a quote CSV in one transaction: all rows or (with errors and no skip_invalid) none.

        The file streams through (planner/store/quote_csv.py): rows are checked and written a chunk at a time
        inside the write transaction, so memory stays bounded whatever the file's length (issue 30 item 7).
        A duplicate of a row earlier in the same file is found in the table, where that row already is.
        """
        path = Path(path)
        open_quote_csv(path).close()  # a file-level problem is refused before the write lock is taken
        try:
            return self._db.write(
                lambda: CsvImport(self._conn, self.spec, self._resolver(), path, skip_invalid, progress).run()
            )
        except ImportRefused as refused:  # rolled back: nothing was written
            return refused.result

    def export_csv(self, path: str | Path, mine_only: bool = True) -> int:
        """Write quotes with the import columns; returns the number of rows written. Refuses (UserError) the
        database file itself as the target: the export would replace the quotes it is writing."""
        if _same_file(Path(path), self._db.path):
            raise UserError.of(msg("error.export_is_database", path=str(path)))
        # streamed, never held whole; closing() frees the store's lock even when the write fails half way
        with contextlib.closing(self._stream(["origin = 'user'"] if mine_only else [], [], "id")) as rows:
            return write_quote_csv(path, self.spec, rows)

    # -- helpers (called with the lock held) ----------------------------------------------------------------------
    def _select(
        self, where: list[str], params: list[object], order: str, limit: int | None = None, offset: int = 0
    ) -> list[RowT]:
        spec = self.spec
        sql = f"SELECT {', '.join(self._row_columns)} FROM {spec.table}"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY {order}"
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            params = [*params, int(limit), int(offset)]
        return self._to_rows(self._conn.execute(sql, params))

    def _stream(self, where: list[str], params: list[object], order: str) -> Generator[RowT, None, None]:
        """The rows of _select one chunk at a time, in bounded memory, the store's lock held until the last
        (a listing of a million quotes starts printing at once: issue 30 item 7)."""
        spec = self.spec
        sql = f"SELECT {', '.join(self._row_columns)} FROM {spec.table}"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY {order}"
        with self._db.guard():
            cursor = self._conn.execute(sql, params)
            while chunk := cursor.fetchmany(STREAM_CHUNK_ROWS):
                yield from self._to_rows(chunk)

    def _filters(
        self, gpu: str | None, provider_column: str, provider: str | None, mine_only: bool
    ) -> tuple[list[str], list[object]]:
        where: list[str] = []
        params: list[object] = []
        if gpu:
            gpu_id, reason = self._resolver().resolve(gpu)
            where.append("gpu = ?")
            params.append(gpu_id if reason is None else gpu.strip().lower())
        if provider:
            where.append(f"{provider_column} = ? COLLATE NOCASE")
            params.append(provider.strip())
        if mine_only:
            where.append("origin = 'user'")
        return where, params

    def _clean_or_refuse(self, quote: Mapping[str, object]) -> QuoteValues:
        cleaned, reasons = self.spec.clean(quote, self._resolver())
        if reasons:
            raise UserError.of(msg("error.quote_invalid", label=self.spec.label, reasons=tuple(reasons)))
        return cleaned

    def _refuse_reference(self, row: Mapping[str, object], code: str) -> None:
        if row["origin"] == "reference":
            who = row.get("provider") or row.get("vendor")
            raise UserError.of(msg(code, label=self.spec.label, quote_id=str(row["id"]), who=str(who),
                                   quoted_on=str(row["quoted_on"])))  # fmt: skip


class RentalQuotes(QuoteRepository[RentalQuoteRow]):
    """Rental quotes (columns: planner.store.quotes.RENTAL_COLUMNS; prices per hour in `currency`)."""

    def __init__(self, db: Database, resolver: Callable[[], GpuResolver]) -> None:
        super().__init__(db, RENTAL, rental_rows, RENTAL_ROW_COLUMNS, resolver)

    @guarded
    def find(
        self,
        gpu: str | None = None,
        provider: str | None = None,
        kind: str | None = None,
        mine_only: bool = False,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[RentalQuoteRow]:
        """Quotes sorted by GPU then price per GPU-hour (then id); filters combine, None/False: no filter."""
        where, params = self._rental_filters(gpu, provider, kind, mine_only)
        return self._select(where, params, _RENTAL_ORDER, limit, offset)

    def stream(
        self,
        gpu: str | None = None,
        provider: str | None = None,
        kind: str | None = None,
        mine_only: bool = False,
    ) -> Iterator[RentalQuoteRow]:
        """find()'s rows one by one, in bounded memory whatever the table holds."""
        with self._db.guard():
            where, params = self._rental_filters(gpu, provider, kind, mine_only)
        return self._stream(where, params, _RENTAL_ORDER)

    def _rental_filters(
        self, gpu: str | None, provider: str | None, kind: str | None, mine_only: bool
    ) -> tuple[list[str], list[object]]:
        where, params = self._filters(gpu, "provider", provider, mine_only)
        if kind:
            where.append("kind = ?")
            params.append(kind.strip().lower())
        return where, params

    @guarded
    def price_summary(self, gpu: str | None = None, kinds: Sequence[str] | None = None) -> list[PriceSummary]:
        """Count, lowest, median and highest price per GPU-hour per (gpu, kind, currency, origin), computed in
        SQL (planner/store/prices.py). gpu: a catalog id or None for all; kinds: None for every kind."""
        return price_queries.rental_price_summary(
            self._conn, gpu, tuple(kinds) if kinds is not None else None
        )

    @guarded
    def price_median(
        self, gpu: str, kinds: Sequence[str], origin: str, factors: Mapping[str, float]
    ) -> float | None:
        """Median of price_per_gpu_hour x factors[currency] over one GPU's quotes of these kinds and origin
        ("user" | "reference"); quotes in a currency missing from `factors` are left out. None: no quote."""
        return price_queries.rental_price_median(self._conn, gpu, tuple(kinds), origin, factors)

    @guarded
    def cheapest_offers(self, per_group: int = 3, gpus: Sequence[str] | None = None) -> list[RentalQuoteRow]:
        """Every reference quote and the `per_group` cheapest user quotes per (gpu, kind, currency), as find()
        rows sorted by GPU then price: a bounded list to pick offers from, at any table size."""
        return rental_rows(price_queries.cheapest_rental_offers(self._conn, per_group, gpus))


class PurchaseQuotes(QuoteRepository[PurchaseQuoteRow]):
    """Purchase quotes (columns: PURCHASE_COLUMNS; `price` is the whole quote for `gpus` GPUs)."""

    def __init__(self, db: Database, resolver: Callable[[], GpuResolver]) -> None:
        super().__init__(db, PURCHASE, purchase_rows, PURCHASE_ROW_COLUMNS, resolver)

    @guarded
    def find(
        self, gpu: str | None = None, vendor: str | None = None, mine_only: bool = False
    ) -> list[PurchaseQuoteRow]:
        """Quotes sorted by GPU then price per GPU (then id)."""
        where, params = self._filters(gpu, "vendor", vendor, mine_only)
        return self._select(where, params, _PURCHASE_ORDER)

    def stream(
        self, gpu: str | None = None, vendor: str | None = None, mine_only: bool = False
    ) -> Iterator[PurchaseQuoteRow]:
        """find()'s rows one by one, in bounded memory whatever the table holds."""
        with self._db.guard():
            where, params = self._filters(gpu, "vendor", vendor, mine_only)
        return self._stream(where, params, _PURCHASE_ORDER)


def _same_file(first: Path, second: Path) -> bool:
    try:
        return first.exists() and first.samefile(second)
    except OSError:  # a name too long, a loop: not the database, and writing it will say what is wrong
        return False
