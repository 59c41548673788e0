"""The Store: the one owner of the SQLite ledger in a process (GUI or CLI).

Every write goes through `_write`, one BEGIN IMMEDIATE transaction retried while another process holds the
write lock; every statement takes its values as parameters (table and column names come from constants in
this package, never from input). Reads see the last committed state and never wait for a writer (WAL).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import sqlite_utils

from planner.errors import UserError
from planner.store import prices as price_queries
from planner.store.connection import (
    check_readable,
    configure,
    connect,
    default_db_path,
    is_corruption,
    looks_like_sqlite,
    move_aside,
    retry_while_busy,
    run_in_write_transaction,
    utc_now_iso,
)
from planner.store.migrations import LATEST_VERSION, MIGRATIONS
from planner.store.prices import PriceSummary
from planner.store.quotes import (
    PURCHASE,
    RENTAL,
    GpuResolver,
    QuoteTable,
    dedupe_key,
    iter_chunks,
    read_quote_csv,
    write_quote_csv,
)
from planner.store.seed import seed_rows

T = TypeVar("T")
INTERNAL_QUOTE_COLUMNS = ("id", "origin", "created_at")
PROBE_SOURCES = ("local", "imported")
LOCAL_MACHINE_NAME = "this machine"
# A machine label may be as long as a quote's provider name (planner.store.quotes.SHORT_TEXT_MAX).
MAX_LABEL_CHARS = 200
IMPORT_CHUNK_ROWS = 2000
# progress(stage, done, total): stage is "checking" (validating rows) or "writing" (inside the transaction).
Progress = Callable[[str, int, int], None]


@dataclass
class ImportResult:
    """What a CSV import did. Row numbers are spreadsheet rows (header = row 1, first quote = row 2)."""

    added: int
    duplicates: list[tuple[int, str]] = field(default_factory=list)  # (row, "duplicate of rental quote #12")
    errors: list[tuple[int, str]] = field(default_factory=list)  # (row, reason)
    refused: bool = False  # True: there were errors and skip_invalid was off, so nothing was written
    total_rows: int = 0

    @property
    def bad_rows(self) -> int:
        return len({row for row, _ in self.errors})


@functools.lru_cache(maxsize=8)
def _rows_to_dicts(columns: tuple[str, ...]) -> Callable[[Any], list[dict]]:
    """A function turning rows (tuples in `columns` order) into dicts keyed by `columns`, in that order.

    Generated once per column list as `[{"id": c0, "provider": c1, ...} for (c0, c1, ...) in rows]`: a dict
    display with constant keys is built in one bytecode, about 20% faster than dict(zip(columns, row)) per row,
    which counts when the GUI lists 100,000 quotes. Column names come from this package's constants, never
    from input (checked here: identifiers only).
    """
    if not all(name.isidentifier() for name in columns):
        raise ValueError(f"not column names: {columns!r}")
    names = ", ".join(f"c{i}" for i in range(len(columns)))
    items = ", ".join(f"{name!r}: c{i}" for i, name in enumerate(columns))
    namespace: dict[str, Any] = {}
    exec(f"def rows_to_dicts(rows):\n    return [{{{items}}} for ({names},) in rows]\n", namespace)  # noqa: S102
    return namespace["rows_to_dicts"]


def _json_ready(value: Any) -> Any:
    """Tuples, mappings and dataclasses as plain JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # field by field: dataclasses.asdict deep-copies, which mappingproxy fields refuse
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    return value


def _move_damaged_aside(path: Path) -> Path:
    """move_aside, with a file that cannot be renamed (read-only folder or media, /proc) as a UserError: the
    file is left as it was, and the GUI shows one line instead of crashing on an OSError."""
    try:
        return move_aside(path)
    except OSError as exc:
        raise UserError(
            f"{path} is not a usable database and could not be moved aside ({exc.strerror or exc}); "
            "choose another database file (--db PATH on the command line)"
        ) from None


class Store:
    """The ledger. Create with Store.open(); close() when done (or use it as a context manager)."""

    def __init__(self, conn: sqlite3.Connection, path: Path, recovered_from: Path | None) -> None:
        self.conn = conn
        self.db = sqlite_utils.Database(conn, execute_plugins=False)
        self.path = path
        self.recovered_from = recovered_from  # where a damaged database was moved, or None
        self._lock = threading.RLock()
        self._in_write = False

    # ------------------------------------------------------------------------------------------------------------
    # Opening
    # ------------------------------------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path | None = None) -> Store:
        """Open (creating, upgrading and seeding as needed) the database at `path`, GPU_ADVISOR_DB or the user data
        folder. A damaged or non-SQLite file is moved aside (see .recovered_from); a newer schema is refused."""
        path = Path(path).expanduser() if path else default_db_path()
        if path.is_dir():
            raise UserError(f"{path} is a folder; give the database file's path")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot create the folder {path.parent}: {exc.strerror or exc}") from None
        try:
            is_sqlite = looks_like_sqlite(path)
        except OSError as exc:  # e.g. a file this user may not read
            raise UserError(f"cannot read the database {path}: {exc.strerror or exc}") from None
        recovered = _move_damaged_aside(path) if not is_sqlite else None
        conn = connect(path)
        try:
            check_readable(conn)
        except sqlite3.DatabaseError as exc:
            conn.close()
            if not is_corruption(exc):
                raise UserError(f"cannot read the database {path}: {exc}") from None
            recovered = _move_damaged_aside(path)
            conn = connect(path)
            check_readable(conn)
        try:
            retry_while_busy(lambda: cls._refuse_foreign(conn, path))
            retry_while_busy(lambda: configure(conn))
        except sqlite3.OperationalError as exc:
            conn.close()
            raise UserError(f"cannot use the database {path}: {exc}") from None
        except BaseException:
            conn.close()
            raise
        store = cls(conn, path, recovered)
        try:
            store._migrate()
            store._seed_reference_prices()
        except BaseException:
            store.close()
            raise
        return store

    @staticmethod
    def _refuse_foreign(conn: sqlite3.Connection, path: Path) -> None:
        """Refuse, without writing a byte, a database from a newer GPU Advisor or from another program.

        The version and the tables are read in one read transaction: another process may be creating this
        database right now, and tables seen without its version would look like another program's.
        """
        conn.execute("BEGIN")
        try:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            tables = conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]
        finally:
            conn.execute("ROLLBACK")  # read only: nothing to keep
        if version > LATEST_VERSION:
            raise UserError(
                f"{path} was written by a newer GPU Advisor (database version {version}; this one reads up to "
                f"{LATEST_VERSION}); it was left unchanged: update GPU Advisor or choose another file with --db"
            )
        if version == 0 and tables:
            raise UserError(
                f"{path} is an SQLite database of another program; it was left unchanged: choose another "
                "file with --db"
            )

    def close(self) -> None:
        with self._lock:
            self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def data_stamp(self) -> tuple[int, int]:
        """A value that changes whenever the database changes: rows this connection changed, and SQLite's
        data_version (bumped by every commit of another connection, e.g. a CLI import). Caches of query
        results compare it to know they are still current; it costs one pragma, no table read."""
        return self.conn.total_changes, int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def _write(self, work: Callable[[], T]) -> T:
        """Run `work` in one write transaction (nested calls join the outer one)."""
        with self._lock:
            if self._in_write:
                return work()
            self._in_write = True
            try:
                return run_in_write_transaction(self.conn, work)
            finally:
                self._in_write = False

    def _migrate(self) -> None:
        def step() -> int:
            version = self.schema_version  # re-read under the write lock: another process may have upgraded
            if version < LATEST_VERSION:
                MIGRATIONS[version](self.db)
                version += 1
                self.conn.execute(f"PRAGMA user_version = {int(version)}")
            return version

        while self.schema_version < LATEST_VERSION:
            self._write(step)

    def _seed_reference_prices(self) -> None:
        """Add shipped reference prices this database lacks; user rows are never touched."""
        wanted = seed_rows(GpuResolver())

        def present() -> set[str]:
            keys: set[str] = set()
            for spec in (RENTAL, PURCHASE):
                rows = self.conn.execute(f"SELECT seed_key FROM {spec.table} WHERE seed_key IS NOT NULL")
                keys.update(row[0] for row in rows)
            return keys

        if {key for _, key, _ in wanted} <= present():
            return

        def insert_missing() -> None:
            have = present()
            now = utc_now_iso()
            for table, key, quote in wanted:
                if key not in have:
                    spec = RENTAL if table == RENTAL.table else PURCHASE
                    self._insert_quotes(spec, [quote], origin="reference", created_at=now, seed_keys=[key])

        self._write(insert_missing)

    # ------------------------------------------------------------------------------------------------------------
    # Quotes, shared by rental and purchase tables
    # ------------------------------------------------------------------------------------------------------------

    def gpu_resolver(self) -> GpuResolver:
        """Catalog lookup that also knows the user's own GPU types."""
        return GpuResolver(self.list_user_gpus())

    def _insert_quotes(
        self,
        spec: QuoteTable,
        quotes: Sequence[Mapping[str, Any]],
        origin: str,
        created_at: str,
        seed_keys: Sequence[str | None] | None = None,
    ) -> int | None:
        columns = (*spec.columns, "origin", "seed_key", "created_at")
        sql = f"INSERT INTO {spec.table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"
        keys = seed_keys or [None] * len(quotes)
        values = [
            [q[c] for c in spec.columns] + [origin, key, created_at]
            for q, key in zip(quotes, keys, strict=True)
        ]
        if len(values) == 1:
            return self.conn.execute(sql, values[0]).lastrowid
        self.conn.executemany(sql, values)
        return None

    def _find_duplicate(
        self, spec: QuoteTable, quote: Mapping[str, Any], exclude_id: int | None = None
    ) -> int | None:
        conditions = [
            f"{c} = ? COLLATE NOCASE" if c in spec.text_columns else f"{c} = ?" for c in spec.dedupe_columns
        ]
        params = [quote[c] for c in spec.dedupe_columns]
        if exclude_id is not None:
            conditions.append("id != ?")
            params.append(exclude_id)
        row = self.conn.execute(
            f"SELECT id FROM {spec.table} WHERE {' AND '.join(conditions)} LIMIT 1", params
        ).fetchone()
        return row[0] if row else None

    def _clean_or_refuse(self, spec: QuoteTable, quote: Mapping[str, Any]) -> dict:
        cleaned, reasons = spec.clean(quote, self.gpu_resolver())
        if reasons:
            raise UserError(f"cannot store the {spec.label}: {'; '.join(reasons)}")
        return cleaned

    def _add_quote(self, spec: QuoteTable, quote: Mapping[str, Any]) -> int:
        cleaned = self._clean_or_refuse(spec, quote)

        def work() -> int:
            existing = self._find_duplicate(spec, cleaned)
            if existing is not None:
                raise UserError(f"this {spec.label} is already stored as #{existing}")
            return int(self._insert_quotes(spec, [cleaned], origin="user", created_at=utc_now_iso()))

        return self._write(work)

    def _select_quotes(
        self,
        spec: QuoteTable,
        where: list[str],
        params: list[Any],
        order: str,
        limit: int | None,
        offset: int,
    ) -> list[dict]:
        columns = ("id", *spec.columns, "origin", "created_at")
        sql = f"SELECT {', '.join(columns)} FROM {spec.table}"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY {order}"
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            params = [*params, int(limit), int(offset)]
        return _rows_to_dicts(columns)(self.conn.execute(sql, params))

    def _get_quote(self, spec: QuoteTable, quote_id: int) -> dict:
        rows = self._select_quotes(spec, ["id = ?"], [int(quote_id)], "id", None, 0)
        if not rows:
            raise UserError(f"there is no {spec.label} #{quote_id}")
        return rows[0]

    def _refuse_reference(self, spec: QuoteTable, row: Mapping[str, Any], action: str) -> None:
        if row["origin"] == "reference":
            who = row.get("provider") or row.get("vendor")
            raise UserError(
                f"{spec.label} #{row['id']} is a reference price shipped with GPU Advisor ({who}, "
                f"{row['quoted_on']}); reference rows can't be {action} (hide them with --mine)"
            )

    def _update_quote(self, spec: QuoteTable, quote_id: int, changes: Mapping[str, Any]) -> dict:
        unknown = sorted(set(changes) - set(spec.columns))
        if unknown:
            raise UserError(f"unknown {spec.label} fields: {', '.join(unknown)}")

        def work() -> dict:
            current = self._get_quote(spec, quote_id)
            self._refuse_reference(spec, current, "edited")
            merged = {c: current[c] for c in spec.columns}
            merged.update(changes)
            if spec is RENTAL and ("price_per_gpu_hour" in changes) != ("price_per_instance_hour" in changes):
                # one price changed: derive the other again instead of refusing a now-stale pair
                stale = "price_per_instance_hour" if "price_per_gpu_hour" in changes else "price_per_gpu_hour"
                merged[stale] = None
            cleaned = self._clean_or_refuse(spec, merged)
            existing = self._find_duplicate(spec, cleaned, exclude_id=int(quote_id))
            if existing is not None:
                raise UserError(f"this change would make {spec.label} #{quote_id} the same as #{existing}")
            assignments = ", ".join(f"{c} = ?" for c in spec.columns)
            self.conn.execute(
                f"UPDATE {spec.table} SET {assignments} WHERE id = ?",
                [cleaned[c] for c in spec.columns] + [quote_id],
            )
            return self._get_quote(spec, quote_id)

        return self._write(work)

    def _delete_quote(self, spec: QuoteTable, quote_id: int) -> dict:
        def work() -> dict:
            row = self._get_quote(spec, quote_id)
            self._refuse_reference(spec, row, "deleted")
            self.conn.execute(f"DELETE FROM {spec.table} WHERE id = ?", [int(quote_id)])
            return row

        return self._write(work)

    def _restore_quote(self, spec: QuoteTable, row: Mapping[str, Any]) -> int:
        """Put back a row returned by delete (undo): same id when it is still free, same created_at."""
        cleaned = self._clean_or_refuse(spec, row)

        def work() -> int:
            columns = ("id", *spec.columns, "origin", "created_at")
            taken = self.conn.execute(f"SELECT 1 FROM {spec.table} WHERE id = ?", [row.get("id")]).fetchone()
            values = [
                None if taken else row.get("id"),
                *(cleaned[c] for c in spec.columns),
                "user",
                row.get("created_at") or utc_now_iso(),
            ]
            sql = (
                f"INSERT INTO {spec.table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"
            )
            return int(self.conn.execute(sql, values).lastrowid)

        return self._write(work)

    def _import_csv(
        self, spec: QuoteTable, path: str | Path, skip_invalid: bool, progress: Progress | None
    ) -> ImportResult:
        parsed = read_quote_csv(path, spec)
        resolver = self.gpu_resolver()
        errors = list(parsed.errors)
        good: list[tuple[int, dict]] = []
        total = len(parsed.rows) + len(parsed.errors)
        for done, (row_number, cells) in enumerate(parsed.rows):
            cleaned, reasons = spec.clean(cells, resolver)
            if reasons:
                errors.extend((row_number, reason) for reason in reasons)
            else:
                good.append((row_number, cleaned))
            if progress and done % 1000 == 0:
                progress("checking", done, total)
        errors.sort(key=lambda item: item[0])
        if errors and not skip_invalid:
            return ImportResult(added=0, errors=errors, refused=True, total_rows=total)

        def work() -> tuple[int, list[tuple[int, str]]]:
            duplicates: list[tuple[int, str]] = []
            first_row_for_key: dict[tuple, int] = {}
            fresh: list[dict] = []
            for row_number, cleaned in good:
                key = dedupe_key(cleaned, spec.dedupe_columns)
                if key in first_row_for_key:
                    duplicates.append((row_number, f"duplicate of row {first_row_for_key[key]}"))
                    continue
                existing = self._find_duplicate(spec, cleaned)
                if existing is not None:
                    duplicates.append((row_number, f"duplicate of {spec.label} #{existing}"))
                    continue
                first_row_for_key[key] = row_number
                fresh.append(cleaned)
            now = utc_now_iso()
            written = 0
            for chunk in iter_chunks(fresh, IMPORT_CHUNK_ROWS):
                self._insert_quotes(spec, chunk, origin="user", created_at=now)
                written += len(chunk)
                if progress:
                    progress("writing", written, len(fresh))
            return written, duplicates

        added, duplicates = self._write(work)
        return ImportResult(added=added, duplicates=duplicates, errors=errors, total_rows=total)

    def _export_csv(self, spec: QuoteTable, path: str | Path, mine_only: bool) -> int:
        where = ["origin = 'user'"] if mine_only else []
        return write_quote_csv(path, spec, self._select_quotes(spec, where, [], "id", None, 0))

    def _quote_filters(
        self, gpu: str | None, provider_column: str, provider: str | None, mine_only: bool
    ) -> tuple[list[str], list[Any]]:
        where: list[str] = []
        params: list[Any] = []
        if gpu:
            gpu_id, reason = self.gpu_resolver().resolve(gpu)
            where.append("gpu = ?")
            params.append(gpu_id if reason is None else gpu.strip().lower())
        if provider:
            where.append(f"{provider_column} = ? COLLATE NOCASE")
            params.append(provider.strip())
        if mine_only:
            where.append("origin = 'user'")
        return where, params

    # ------------------------------------------------------------------------------------------------------------
    # Rental quotes (columns: planner.store.quotes.RENTAL_COLUMNS; prices per hour in `currency`)
    # ------------------------------------------------------------------------------------------------------------

    def validate_rental_quote(self, quote: Mapping[str, Any]) -> list[str]:
        """Reasons the quote cannot be stored; empty when it can. The GUI editor and CSV import share this."""
        return RENTAL.clean(quote, self.gpu_resolver())[1]

    def add_rental_quote(self, quote: Mapping[str, Any]) -> int:
        """Store the user's quote; UserError with every reason when it is invalid or already stored."""
        return self._add_quote(RENTAL, quote)

    def list_rental_quotes(
        self,
        gpu: str | None = None,
        provider: str | None = None,
        kind: str | None = None,
        mine_only: bool = False,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[dict]:
        """Quotes sorted by GPU then price per GPU-hour; each dict has RENTAL_COLUMNS plus id, origin, created_at."""
        where, params = self._quote_filters(gpu, "provider", provider, mine_only)
        if kind:
            where.append("kind = ?")
            params.append(kind.strip().lower())
        return self._select_quotes(RENTAL, where, params, "gpu, price_per_gpu_hour, id", limit, offset)

    def rental_price_summary(
        self, gpu: str | None = None, kinds: Sequence[str] | None = None
    ) -> list[PriceSummary]:
        """Count, lowest, median and highest price per GPU-hour per (gpu, kind, currency, origin), computed in
        SQL (planner/store/prices.py). gpu: a catalog id or None for all; kinds: None for every kind."""
        return price_queries.rental_price_summary(self.conn, gpu, tuple(kinds) if kinds is not None else None)

    def rental_price_median(
        self, gpu: str, kinds: Sequence[str], origin: str, factors: Mapping[str, float]
    ) -> float | None:
        """Median of price_per_gpu_hour x factors[currency] over one GPU's quotes of these kinds and origin
        ("user" | "reference"); quotes in a currency missing from `factors` are left out. None: no quote."""
        return price_queries.rental_price_median(self.conn, gpu, tuple(kinds), origin, factors)

    def cheapest_rental_offers(self, per_group: int = 3, gpus: Sequence[str] | None = None) -> list[dict]:
        """Every reference quote and the `per_group` cheapest user quotes per (gpu, kind, currency), as
        list_rental_quotes rows sorted by GPU then price: a bounded list to pick offers from, at any table size."""
        return _rows_to_dicts(price_queries.QUOTE_COLUMNS)(
            price_queries.cheapest_rental_offers(self.conn, per_group, gpus)
        )

    def count_rental_quotes(self, mine_only: bool = False) -> int:
        sql = "SELECT count(*) FROM rental_quotes" + (" WHERE origin = 'user'" if mine_only else "")
        return int(self.conn.execute(sql).fetchone()[0])

    def get_rental_quote(self, quote_id: int) -> dict:
        return self._get_quote(RENTAL, quote_id)

    def update_rental_quote(self, quote_id: int, changes: Mapping[str, Any]) -> dict:
        return self._update_quote(RENTAL, quote_id, changes)

    def delete_rental_quote(self, quote_id: int) -> dict:
        """Delete the user's quote and return it (for undo); reference rows are refused."""
        return self._delete_quote(RENTAL, quote_id)

    def restore_rental_quote(self, row: Mapping[str, Any]) -> int:
        return self._restore_quote(RENTAL, row)

    def import_rental_csv(
        self, path: str | Path, skip_invalid: bool = False, progress: Progress | None = None
    ) -> ImportResult:
        """Import a rental quote CSV in one transaction: all rows or (with errors and no skip_invalid) none."""
        return self._import_csv(RENTAL, path, skip_invalid, progress)

    def export_rental_csv(self, path: str | Path, mine_only: bool = True) -> int:
        """Write quotes with the import columns; returns the number of rows written."""
        return self._export_csv(RENTAL, path, mine_only)

    # ------------------------------------------------------------------------------------------------------------
    # Purchase quotes (columns: PURCHASE_COLUMNS; `price` is the whole quote for `gpus` GPUs)
    # ------------------------------------------------------------------------------------------------------------

    def validate_purchase_quote(self, quote: Mapping[str, Any]) -> list[str]:
        return PURCHASE.clean(quote, self.gpu_resolver())[1]

    def add_purchase_quote(self, quote: Mapping[str, Any]) -> int:
        return self._add_quote(PURCHASE, quote)

    def list_purchase_quotes(
        self, gpu: str | None = None, vendor: str | None = None, mine_only: bool = False
    ) -> list[dict]:
        where, params = self._quote_filters(gpu, "vendor", vendor, mine_only)
        return self._select_quotes(PURCHASE, where, params, "gpu, price / gpus, id", None, 0)

    def get_purchase_quote(self, quote_id: int) -> dict:
        return self._get_quote(PURCHASE, quote_id)

    def update_purchase_quote(self, quote_id: int, changes: Mapping[str, Any]) -> dict:
        return self._update_quote(PURCHASE, quote_id, changes)

    def delete_purchase_quote(self, quote_id: int) -> dict:
        return self._delete_quote(PURCHASE, quote_id)

    def restore_purchase_quote(self, row: Mapping[str, Any]) -> int:
        return self._restore_quote(PURCHASE, row)

    def import_purchase_csv(
        self, path: str | Path, skip_invalid: bool = False, progress: Progress | None = None
    ) -> ImportResult:
        return self._import_csv(PURCHASE, path, skip_invalid, progress)

    def export_purchase_csv(self, path: str | Path, mine_only: bool = True) -> int:
        return self._export_csv(PURCHASE, path, mine_only)

    # ------------------------------------------------------------------------------------------------------------
    # Machines, GPUs seen, probe runs
    # ------------------------------------------------------------------------------------------------------------

    def save_probe_report(self, report: Any, source: str = "local", label: str | None = None) -> int:
        """Store a validated ProbeReport with its measurements; returns the run id.

        source "local": the run belongs to the machine "this machine" (or `label`); "imported": to a machine named
        `label`, or "<hostname> (imported)". The same report stored twice is refused (UserError naming the run).
        """
        if source not in PROBE_SOURCES:
            raise ValueError(f"source must be one of {PROBE_SOURCES}")
        report_json = report.to_json(indent=None)
        digest = hashlib.sha256(report_json.encode("utf-8")).hexdigest()
        hostname = str(report.machine.get("hostname") or "unknown host")
        label = (label or "").strip() or None
        if label is not None and len(label) > MAX_LABEL_CHARS:  # it names the machine in every history table
            raise UserError(f"the machine label is {len(label):,} characters; the limit is {MAX_LABEL_CHARS}")
        machine_name = label or (LOCAL_MACHINE_NAME if source == "local" else f"{hostname} (imported)")
        bf16 = report.best("matmul", "bf16")
        bandwidth = report.best("memory_bandwidth")
        device_names = [device.get("name", "") for device in report.devices]

        def work() -> int:
            existing = self.conn.execute(
                "SELECT id FROM probe_runs WHERE report_sha256 = ?", [digest]
            ).fetchone()
            if existing:
                raise UserError(f"this probe report is already stored as run #{existing[0]}")
            now = utc_now_iso()
            machine_id = self._machine_id(machine_name, hostname, source, now)
            run_id = self.conn.execute(
                "INSERT INTO probe_runs (machine_id, created_at, saved_at, mode, source, label, report_json, "
                "best_bf16_flop_per_s, memory_bandwidth_bytes_per_s, device_names, report_sha256) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    machine_id,
                    report.created_at,
                    now,
                    report.mode,
                    source,
                    label,
                    report_json,
                    bf16,
                    bandwidth,
                    json.dumps(device_names),
                    digest,
                ],
            ).lastrowid
            self.conn.executemany(
                "INSERT INTO measurements (run_id, device, kind, dtype, peer, value, unit, ok) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    [
                        run_id,
                        device["device"],
                        m["kind"],
                        m.get("dtype"),
                        m.get("peer"),
                        m.get("value"),
                        m["unit"],
                        int(bool(m["ok"])),
                    ]
                    for device in report.devices
                    for m in device["measurements"]
                ],
            )
            self._record_gpus_seen(machine_id, report, now)
            return int(run_id)

        return self._write(work)

    def _machine_id(self, name: str, hostname: str, kind: str, now: str) -> int:
        row = self.conn.execute("SELECT id FROM machines WHERE name = ?", [name]).fetchone()
        if row:
            self.conn.execute("UPDATE machines SET hostname = ? WHERE id = ?", [hostname, row[0]])
            return int(row[0])
        return int(
            self.conn.execute(
                "INSERT INTO machines (name, hostname, kind, created_at) VALUES (?, ?, ?, ?)",
                [name, hostname, kind, now],
            ).lastrowid
        )

    def _record_gpus_seen(self, machine_id: int, report: Any, now: str) -> None:
        seen: dict[str, tuple[str, int | None]] = {}
        for gpu in report.nvml.get("gpus", []):
            uuid = gpu.get("uuid")
            key = uuid if isinstance(uuid, str) and uuid else f"{gpu['index']}:{gpu['name']}"
            memory = gpu.get("memory_total_bytes")
            seen[key] = (
                gpu["name"],
                memory if isinstance(memory, int) and not isinstance(memory, bool) else None,
            )
        if not seen:  # NVML refused: fall back to what torch saw
            for device in report.devices:
                if device["kind"] == "cuda":
                    seen[device.get("uuid") or f"{device['device']}:{device['name']}"] = (
                        device["name"],
                        None,
                    )
        for key, (name, memory) in seen.items():
            self.conn.execute(
                "INSERT INTO gpus_seen (machine_id, gpu_key, name, catalog_id, memory_total_bytes, first_seen, "
                "last_seen) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (machine_id, gpu_key) DO UPDATE SET "
                "name = excluded.name, catalog_id = excluded.catalog_id, "
                "memory_total_bytes = coalesce(excluded.memory_total_bytes, memory_total_bytes), "
                "last_seen = excluded.last_seen",
                [machine_id, key, name, _catalog_id_for(name), memory, now, now],
            )

    def list_probe_runs(self) -> list[dict]:
        """Runs, newest first, with key figures: best_bf16_flop_per_s (FLOP/s), memory_bandwidth_bytes_per_s (B/s),
        devices (names), machine, source ("local" | "imported"), mode, created_at (probe time), saved_at."""
        rows = self.conn.execute(
            "SELECT r.id, m.name, r.machine_id, m.hostname, r.source, r.mode, r.created_at, r.saved_at, r.label, "
            "r.device_names, r.best_bf16_flop_per_s, r.memory_bandwidth_bytes_per_s "
            "FROM probe_runs r JOIN machines m ON m.id = r.machine_id ORDER BY r.created_at DESC, r.id DESC"
        ).fetchall()
        keys = (
            "id",
            "machine",
            "machine_id",
            "hostname",
            "source",
            "mode",
            "created_at",
            "saved_at",
            "label",
            "devices",
            "best_bf16_flop_per_s",
            "memory_bandwidth_bytes_per_s",
        )
        runs = [dict(zip(keys, row, strict=True)) for row in rows]
        for run in runs:
            run["devices"] = json.loads(run["devices"] or "[]")
        return runs

    def get_probe_report(self, run_id: int) -> Any:
        """The stored report as a profiler.report.ProbeReport."""
        from profiler.report import load_report

        row = self.conn.execute("SELECT report_json FROM probe_runs WHERE id = ?", [int(run_id)]).fetchone()
        if not row:
            raise UserError(f"there is no probe run #{run_id}")
        return load_report(row[0])

    def list_measurements(self, run_id: int) -> list[dict]:
        keys = ("device", "kind", "dtype", "peer", "value", "unit", "ok")
        rows = self.conn.execute(
            f"SELECT {', '.join(keys)} FROM measurements WHERE run_id = ? ORDER BY id", [int(run_id)]
        )
        return [dict(zip(keys, row, strict=True), ok=bool(row[-1])) for row in rows]

    def delete_probe_run(self, run_id: int) -> None:
        def work() -> None:
            self.conn.execute("DELETE FROM measurements WHERE run_id = ?", [int(run_id)])
            if self.conn.execute("DELETE FROM probe_runs WHERE id = ?", [int(run_id)]).rowcount == 0:
                raise UserError(f"there is no probe run #{run_id}")

        self._write(work)

    def list_machines(self) -> list[dict]:
        keys = ("id", "name", "hostname", "kind", "created_at")
        return [
            dict(zip(keys, row, strict=True))
            for row in self.conn.execute(f"SELECT {', '.join(keys)} FROM machines ORDER BY id")
        ]

    def list_gpus_seen(self, machine_id: int | None = None) -> list[dict]:
        keys = (
            "id",
            "machine_id",
            "gpu_key",
            "name",
            "catalog_id",
            "memory_total_bytes",
            "first_seen",
            "last_seen",
        )
        sql = f"SELECT {', '.join(keys)} FROM gpus_seen"
        params: list[Any] = []
        if machine_id is not None:
            sql += " WHERE machine_id = ?"
            params.append(int(machine_id))
        return [dict(zip(keys, row, strict=True)) for row in self.conn.execute(sql + " ORDER BY id", params)]

    # ------------------------------------------------------------------------------------------------------------
    # Plans
    # ------------------------------------------------------------------------------------------------------------

    def save_plan(self, name: str, inputs: Mapping[str, Any], results: Mapping[str, Any]) -> int:
        name = _plan_name(name)
        now = utc_now_iso()
        payload = [name, json.dumps(_json_ready(inputs)), json.dumps(_json_ready(results)), now, now]
        return self._write(
            lambda: int(
                self.conn.execute(
                    "INSERT INTO plans (name, inputs_json, results_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                    payload,
                ).lastrowid
            )
        )

    def update_plan(self, plan_id: int, inputs: Mapping[str, Any], results: Mapping[str, Any]) -> None:
        payload = [
            json.dumps(_json_ready(inputs)),
            json.dumps(_json_ready(results)),
            utc_now_iso(),
            int(plan_id),
        ]
        self._write(
            lambda: self._require_changed(
                self.conn.execute(
                    "UPDATE plans SET inputs_json = ?, results_json = ?, updated_at = ? WHERE id = ?", payload
                ),
                plan_id,
            )
        )

    def list_plans(self) -> list[dict]:
        keys = ("id", "name", "created_at", "updated_at")
        rows = self.conn.execute(f"SELECT {', '.join(keys)} FROM plans ORDER BY updated_at DESC, id DESC")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def get_plan(self, plan_id: int) -> dict:
        row = self.conn.execute(
            "SELECT id, name, inputs_json, results_json, created_at, updated_at FROM plans WHERE id = ?",
            [int(plan_id)],
        ).fetchone()
        if not row:
            raise UserError(f"there is no saved plan #{plan_id}")
        return {
            "id": row[0],
            "name": row[1],
            "inputs": json.loads(row[2]),
            "results": json.loads(row[3]),
            "created_at": row[4],
            "updated_at": row[5],
        }

    def rename_plan(self, plan_id: int, name: str) -> None:
        payload = [_plan_name(name), utc_now_iso(), int(plan_id)]
        self._write(
            lambda: self._require_changed(
                self.conn.execute("UPDATE plans SET name = ?, updated_at = ? WHERE id = ?", payload), plan_id
            )
        )

    def delete_plan(self, plan_id: int) -> None:
        self._write(
            lambda: self._require_changed(
                self.conn.execute("DELETE FROM plans WHERE id = ?", [int(plan_id)]), plan_id
            )
        )

    @staticmethod
    def _require_changed(cursor: sqlite3.Cursor, plan_id: int) -> None:
        if cursor.rowcount == 0:
            raise UserError(f"there is no saved plan #{plan_id}")

    # ------------------------------------------------------------------------------------------------------------
    # Settings (JSON values). Keys in use: display_currency ("USD"), exchange_rates ({currency: {to_usd, as_of}}),
    # electricity ({"price_per_kwh": float, "currency": str}), language ("en" | "ru").
    # ------------------------------------------------------------------------------------------------------------

    def get_setting(self, key: str, default: Any = None) -> Any:
        row = self.conn.execute("SELECT value FROM settings WHERE key = ?", [key]).fetchone()
        return json.loads(row[0]) if row else default

    def set_setting(self, key: str, value: Any) -> None:
        encoded = json.dumps(_json_ready(value), allow_nan=False)
        self._write(
            lambda: self.conn.execute(
                "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET "
                "value = excluded.value, updated_at = excluded.updated_at",
                [key, encoded, utc_now_iso()],
            )
        )

    def set_exchange_rate(self, currency: str, to_usd: float, as_of: str) -> None:
        """Record that 1 `currency` = `to_usd` US dollars on date `as_of` (YYYY-MM-DD)."""
        from planner.store.quotes import _currency, _iso_date

        reasons: list[str] = []
        code = _currency(currency, reasons)
        date_text = _iso_date(as_of, "as_of", reasons)
        if (
            isinstance(to_usd, bool)
            or not isinstance(to_usd, (int, float))
            or not math.isfinite(to_usd)
            or to_usd <= 0
        ):
            reasons.append("the exchange rate must be a number > 0")
        if reasons:
            raise UserError("; ".join(reasons))

        def work() -> None:
            rates = dict(self.get_setting("exchange_rates", {}) or {})
            rates[code] = {"to_usd": float(to_usd), "as_of": date_text}
            self.set_setting("exchange_rates", rates)

        self._write(work)

    def get_exchange_rates(self) -> Any:
        """planner.money.ExchangeRates from the stored rates (USD is always 1); as_of is the oldest rate's date."""
        from planner.money import ExchangeRates

        rates = self.get_setting("exchange_rates", {}) or {}
        to_usd = {"USD": 1.0, **{code: float(entry["to_usd"]) for code, entry in rates.items()}}
        dates = [entry["as_of"] for entry in rates.values() if entry.get("as_of")]
        return ExchangeRates(to_usd=to_usd, as_of=min(dates) if dates else "")

    # ------------------------------------------------------------------------------------------------------------
    # The user's own GPU types
    # ------------------------------------------------------------------------------------------------------------

    def add_user_gpu(self, spec: Any, replace: bool = False) -> str:
        """Store a GPU type the catalog lacks (a GpuSpec or a dict of its fields); returns its id."""
        data = _json_ready(spec)
        data["user_defined"] = True
        gpu_id = str(data.get("id") or "").strip()
        if not gpu_id:
            raise UserError("a GPU type needs an id, e.g. 'my-rtx-5090'")
        data["id"] = gpu_id
        _gpu_spec_from_dict(data)  # the catalog's own checks, when it has them
        if gpu_id in _catalog_ids():
            raise UserError(f"{gpu_id} is already in the GPU catalog; choose another id for your GPU type")
        now = utc_now_iso()

        def work() -> str:
            exists = self.conn.execute("SELECT 1 FROM user_gpus WHERE id = ?", [gpu_id]).fetchone()
            if exists and not replace:
                raise UserError(f"you already have a GPU type {gpu_id}")
            self.conn.execute(
                "INSERT INTO user_gpus (id, spec_json, created_at, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) "
                "DO UPDATE SET spec_json = excluded.spec_json, updated_at = excluded.updated_at",
                [gpu_id, json.dumps(data), now, now],
            )
            return gpu_id

        return self._write(work)

    def list_user_gpus(self) -> list[Any]:
        """The user's GPU types as planner.gpus.GpuSpec (plain dicts when planner.gpus is not installed)."""
        rows = self.conn.execute("SELECT spec_json FROM user_gpus ORDER BY id").fetchall()
        return [_gpu_spec_from_dict(json.loads(row[0])) for row in rows]

    def delete_user_gpu(self, gpu_id: str) -> dict:
        def work() -> dict:
            row = self.conn.execute("SELECT spec_json FROM user_gpus WHERE id = ?", [gpu_id]).fetchone()
            if not row:
                raise UserError(f"there is no user GPU type {gpu_id}")
            self.conn.execute("DELETE FROM user_gpus WHERE id = ?", [gpu_id])
            return json.loads(row[0])

        return self._write(work)


def _serialise_public_methods(cls: type) -> type:
    """Make every public method hold the store's lock: GUI worker threads share one connection safely, and a
    read never sees another thread's half-finished transaction."""
    for name, member in list(vars(cls).items()):
        if name.startswith("_") or not callable(member) or isinstance(member, (staticmethod, classmethod)):
            continue

        def locked(self: Store, *args: Any, __method: Callable = member, **kwargs: Any) -> Any:
            with self._lock:
                return __method(self, *args, **kwargs)

        functools.update_wrapper(locked, member)
        setattr(cls, name, locked)
    return cls


_serialise_public_methods(Store)


def _plan_name(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise UserError("a saved plan needs a name")
    if len(name) > 200:
        raise UserError("a plan name is limited to 200 characters")
    return name


def _gpus_module() -> Any:
    try:
        from planner import gpus
    except ModuleNotFoundError as exc:
        if exc.name != "planner.gpus":
            raise
        return None
    return gpus


def _catalog_id_for(nvml_name: str) -> str | None:
    gpus = _gpus_module()
    if gpus is None:
        return None
    spec = gpus.match_nvml_name(nvml_name)
    return spec.id if spec else None


def _catalog_ids() -> set[str]:
    gpus = _gpus_module()
    return set(gpus.load_catalog()) if gpus is not None else set()


def _gpu_spec_from_dict(data: Mapping[str, Any]) -> Any:
    """GpuSpec(**data) with JSON lists turned back into tuples; the dict itself without planner.gpus."""
    gpus = _gpus_module()
    if gpus is None:
        return dict(data)
    names = {f.name for f in dataclasses.fields(gpus.GpuSpec)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise UserError(f"unknown GPU type fields: {', '.join(unknown)}")
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    try:
        return gpus.GpuSpec(**values)
    except TypeError as exc:
        raise UserError(f"incomplete GPU type: {exc}") from None
