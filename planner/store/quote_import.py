"""Writing quotes: the insert, the duplicate look-up, and a quote CSV's import streamed through in bounded memory.

The import (issue 30 item 7: a 1,000,000-row file took 2.3 GB when it was read whole) checks and writes the rows a
chunk at a time inside one write transaction: all rows or, with errors and no skip_invalid, none. A duplicate of
a row earlier in the same file is found in the table, where that row already is (one index look-up: the identity
index of migration 6), and named by its spreadsheet row through an array of row numbers in id order. The reasons
listed are the first REPORTED_ROWS_MAX of each kind; the counts cover every row.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from array import array
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from planner.messages import Message, msg
from planner.store.connection import utc_now_iso
from planner.store.quote_csv import open_quote_csv, stream_quote_csv
from planner.store.quotes import GpuResolver, QuoteTable, QuoteValues, dedupe_key
from planner.store.rows import ImportBatch, ImportResult

IMPORT_CHUNK_ROWS = 2000  # rows checked before they are written together
# SQLite's page cache (KiB) while an import runs, instead of its default 2 MB: a million-row insert updates six
# indexes at scattered places, and with 2 MB the pages kept spilling to the log and being read back (300,000
# rows: 13.5 s user + 4.9 s system CPU with 2 MB, 12.5 s + 0.6 s with 64 MB). Within the 300 MB the import may use.
IMPORT_CACHE_KIB = 65536
REPORTED_ROWS_MAX = 1000  # reasons an import result lists, of each kind (the counts cover every row)
# progress(stage, done, total): stage is "checking" (validating rows) or "writing" (inside the transaction);
# done and total are bytes of the file.
Progress = Callable[[str, int, int], None]


def insert_quotes(
    conn: sqlite3.Connection,
    spec: QuoteTable,
    quotes: Sequence[Mapping[str, object]],
    origin: str,
    created_at: str,
    seed_keys: Sequence[str | None] | None = None,
) -> int | None:
    """Insert cleaned quotes; the new id when there was one quote, else None."""
    columns = (*spec.columns, "origin", "seed_key", "created_at")
    sql = f"INSERT INTO {spec.table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"
    keys = seed_keys or [None] * len(quotes)
    values = [
        [q[c] for c in spec.columns] + [origin, key, created_at] for q, key in zip(quotes, keys, strict=True)
    ]
    if len(values) == 1:
        return conn.execute(sql, values[0]).lastrowid
    conn.executemany(sql, values)
    return None


def find_duplicate(
    conn: sqlite3.Connection, spec: QuoteTable, quote: Mapping[str, object], exclude_id: int | None = None
) -> int | None:
    """The id of a stored quote with the same identity (text compared without letter case), else None."""
    params = [quote[c] for c in spec.dedupe_columns]
    if exclude_id is not None:
        params.append(exclude_id)
    row = conn.execute(duplicate_query(spec, exclude_id is not None), params).fetchone()
    return int(row[0]) if row else None


def find_duplicates(
    conn: sqlite3.Connection, spec: QuoteTable, quotes: Sequence[Mapping[str, object]]
) -> list[int | None]:
    """find_duplicate for many quotes in one statement: for each, the id of a stored quote with the same identity
    (text without letter case), else None. The quotes travel as one JSON parameter (json_each), each looked up
    through the identity index by a correlated sub-query, as find_duplicate's own query does."""
    if not quotes:
        return []
    values = json.dumps([[quote[c] for c in spec.dedupe_columns] for quote in quotes])
    found: list[int | None] = [None] * len(quotes)
    for position, quote_id in conn.execute(duplicates_query(spec), [values]):
        found[int(position)] = None if quote_id is None else int(quote_id)
    return found


@functools.cache
def duplicates_query(spec: QuoteTable) -> str:
    """find_duplicates' SQL, built once per table."""
    conditions = [
        f"t.{c} = json_extract(q.value, '$[{i}]')" + (" COLLATE NOCASE" if c in spec.text_columns else "")
        for i, c in enumerate(spec.dedupe_columns)
    ]
    return (
        f"SELECT q.key, (SELECT t.id FROM {spec.table} t WHERE {' AND '.join(conditions)} LIMIT 1) "
        "FROM json_each(?) q ORDER BY q.key"
    )


@functools.cache
def duplicate_query(spec: QuoteTable, excluding_an_id: bool) -> str:
    """find_duplicate's SQL, built once per table (an import asks it for every row)."""
    conditions = [
        f"{c} = ? COLLATE NOCASE" if c in spec.text_columns else f"{c} = ?" for c in spec.dedupe_columns
    ]
    if excluding_an_id:
        conditions.append("id != ?")
    return f"SELECT id FROM {spec.table} WHERE {' AND '.join(conditions)} LIMIT 1"


class ImportRefused(Exception):
    """Ends the write transaction of an import refused for its errors (rolled back), carrying the result."""

    def __init__(self, result: ImportResult) -> None:
        super().__init__("import refused")
        self.result = result


class CsvImport:
    """One run of an import inside its write transaction (a retried transaction starts a new one). run() returns
    the result, or raises ImportRefused (the transaction then rolls back)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        spec: QuoteTable,
        resolver: GpuResolver,
        path: Path,
        skip_invalid: bool,
        progress: Progress | None,
    ) -> None:
        self.conn, self.spec, self.resolver = conn, spec, resolver
        self.path, self.skip_invalid, self.progress = path, skip_invalid, progress
        self.errors: list[tuple[int, Message]] = []  # the first REPORTED_ROWS_MAX reasons
        self.duplicates: list[tuple[int, Message]] = []  # the first REPORTED_ROWS_MAX duplicates
        self.bad_rows = 0
        self.last_bad_row = 0
        self.duplicate_rows = 0
        self.checked: list[tuple[int, QuoteValues]] = []  # clean rows of this chunk, duplicates not looked up yet
        self.pending: list[QuoteValues] = []  # checked rows not yet written
        self.pending_keys: dict[tuple[object, ...], int] = {}  # their dedupe keys -> row number
        # the row number of each row written, in id order: the ids of one transaction are consecutive
        self.written_rows: array[int] = array("q")
        self.first_id = 0
        self.ids_follow_rows = True  # False if SQLite ever chose ids out of order (then duplicates name ids)
        self.total = 0
        self.now = utc_now_iso()

    def run(self) -> ImportResult:
        previous_cache = int(self.conn.execute("PRAGMA cache_size").fetchone()[0])
        self.conn.execute(f"PRAGMA cache_size = -{IMPORT_CACHE_KIB}")
        try:
            return self._run()
        finally:
            self.conn.execute(f"PRAGMA cache_size = {previous_cache}")

    def _run(self) -> ImportResult:
        table = self.spec.table
        self.first_id = int(self.conn.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}").fetchone()[0])
        handle = open_quote_csv(self.path)
        size = max(self.path.stat().st_size, 1)

        def bytes_read() -> int:
            return size if handle.closed else handle.tell()

        for row_number, row in stream_quote_csv(self.path, self.spec, handle):
            self.total += 1
            if isinstance(row, Message):
                self._refuse_row(row_number, [row])
            else:
                self._check(row_number, row)
            if len(self.checked) >= IMPORT_CHUNK_ROWS:
                self._flush()
                if self.progress and not self._refused():  # a chunk is in the open transaction
                    self.progress("writing", bytes_read(), size)
            if self.progress and self.total % 1000 == 1:
                self.progress("checking", bytes_read(), size)
        if self._refused():
            raise ImportRefused(self._result(added=0, refused=True))
        self._flush()
        if self.progress:
            self.progress("writing", size, size)
        return self._result(added=len(self.written_rows), refused=False)

    def _result(self, added: int, refused: bool) -> ImportResult:
        batch = None
        if added:  # every id from first_id up is this transaction's (it appended them after the table's max)
            table = self.spec.table
            last = int(self.conn.execute(f"SELECT max(id) FROM {table}").fetchone()[0])
            batch = ImportBatch(self.first_id, last, self.now)
        return ImportResult(
            added=added, duplicates=self.duplicates, errors=self.errors, refused=refused, total_rows=self.total,
            bad_rows=self.bad_rows, duplicate_rows=self.duplicate_rows, batch=batch,
        )  # fmt: skip

    def _refused(self) -> bool:
        """Whether nothing will be written (a bad row, no skip_invalid): the rest is only checked."""
        return self.bad_rows > 0 and not self.skip_invalid

    def _refuse_row(self, row_number: int, reasons: Sequence[Message]) -> None:
        if self.bad_rows == 0 and not self.skip_invalid:
            self._settle()  # the import is refused from here: the rows before are still looked up, never written
        if row_number != self.last_bad_row:
            self.bad_rows += 1
            self.last_bad_row = row_number
        room = REPORTED_ROWS_MAX - len(self.errors)
        self.errors.extend((row_number, reason) for reason in reasons[:room])

    def _duplicate(self, row_number: int, reason: Message) -> None:
        self.duplicate_rows += 1
        if len(self.duplicates) < REPORTED_ROWS_MAX:
            self.duplicates.append((row_number, reason))

    def _check(self, row_number: int, cells: Mapping[str, str]) -> None:
        """Clean one row; a clean one waits in the chunk, whose duplicates are looked up together (_settle)."""
        cleaned, reasons = self.spec.clean(cells, self.resolver)
        if reasons:
            self._refuse_row(row_number, reasons)
            return
        if self._refused():
            return
        self.checked.append((row_number, cleaned))

    def _settle(self) -> None:
        """The chunk's rows against the table in one statement (one identity-index look-up each, no Python round
        trip per row), then against each other in file order: each duplicate is named as it was when every row
        was looked up alone, and the rest wait to be written."""
        if not self.checked:
            return
        rows = [cleaned for _row_number, cleaned in self.checked]
        found = find_duplicates(self.conn, self.spec, rows)
        for (row_number, cleaned), existing in zip(self.checked, found, strict=True):
            key = dedupe_key(cleaned, self.spec.dedupe_columns)
            earlier = self.pending_keys.get(key)
            if earlier is None and existing is not None:
                if existing >= self.first_id and self.ids_follow_rows:
                    earlier = self.written_rows[existing - self.first_id]  # a row of this file, already written
                else:
                    self._duplicate(row_number, msg("csv.duplicate_of_quote", label=self.spec.label,
                                                    quote_id=str(existing)))  # fmt: skip
                    continue
            if earlier is not None:
                self._duplicate(row_number, msg("csv.duplicate_of_row", row=str(earlier)))
                continue
            self.pending_keys[key] = row_number
            self.pending.append(cleaned)
        self.checked = []

    def _flush(self) -> None:
        if self._refused():
            return
        self._settle()
        if not self.pending:
            return
        insert_quotes(self.conn, self.spec, self.pending, origin="user", created_at=self.now)
        self.written_rows.extend(self.pending_keys.values())  # dicts keep insertion order: the rows' order
        self.pending, self.pending_keys = [], {}
        table = self.spec.table
        last = self.conn.execute(f"SELECT max(id) FROM {table}").fetchone()[0]
        self.ids_follow_rows = self.ids_follow_rows and last == self.first_id + len(self.written_rows) - 1
