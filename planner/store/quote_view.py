"""A window onto one quote table in SQL: the GUI's quote table filters, sorts and counts here, never in Python.

The desktop's quote table (desktop/qmodels/quotes.py) holds the ids of the visible quotes in display order (8
bytes a quote) and reads the rows of the part on screen by id, a page at a time; everything proportional to the
table runs here, as SQL: the filter, the sort (store columns, and the derived prices: converted to the display
currency, per useful GPU-hour of a spot quote, per PFLOP-hour, per TB/s-hour, per TFLOPS, as SQL expressions over
the display's exchange factors and each GPU's throughput, passed in as VALUES tables), the page's counts and the
price chart's quantiles (window functions). A million quotes never become a million Python objects.

The order and the chart run on a read-only connection of their own (WAL: it reads while the store's connection
writes), so a sort of a million quotes on a worker thread never holds the store's lock the GUI thread reads
pages through. Every value comes in as a parameter; table and column names come from QuoteTable constants.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner.store.database import Database
from planner.store.quotes import RENTAL, QuoteTable

# The order each table is listed in by find() (and the table shows when no column is sorted); ties of a sort keep it.
STORE_ORDER = {"rental_quotes": "q.gpu, q.price_per_gpu_hour, q.id", "purchase_quotes": "q.gpu, q.price / q.gpus, q.id"}
ORDER_CHUNK_ROWS = 10_000  # ids read from SQLite at once while the order is built


@dataclass(frozen=True)
class ViewFilter:
    """What the table shows: one GPU id, provider (vendor) text contained (case-folded), one kind (rental only),
    one currency, reference prices or not. Empty: no filter."""

    gpu: str = ""
    provider: str = ""
    kind: str = ""
    currency: str = ""
    show_reference: bool = True


@dataclass(frozen=True)
class ViewPricing:
    """The display's figures the derived prices are computed from (desktop.quote_pricing.Pricing, as values).

    factors: source currency (upper case) -> display-currency units per unit; bf16_flops (FLOP/s) and bandwidth
    (bytes/s) per GPU id, only the figures that exist; basis_rank: GPU id -> 0 measured, 1 partly, 2 spec (absent:
    3, no spec); spot_fraction(gpu, gpus per instance, stated reclaims per instance-hour or None) -> the extra
    billed hours per useful hour of a spot quote (None: spot cannot run it, or no such GPU)."""

    factors: Mapping[str, float] = field(default_factory=dict)
    bf16_flops: Mapping[str, float] = field(default_factory=dict)
    bandwidth: Mapping[str, float] = field(default_factory=dict)
    basis_rank: Mapping[str, int] = field(default_factory=dict)
    spot_fraction: Callable[[str, int, float | None], float | None] | None = None


@dataclass(frozen=True)
class ViewSort:
    """key: "" (the store's order), a stored column or "derived:<name>"; how: "number" | "text" | "gpu" (by
    display name) | "kind" (in `kinds` order) | "derived". Rows without a value go last either way; ties keep
    the store's order."""

    key: str = ""
    how: str = "text"
    descending: bool = False
    kinds: tuple[str, ...] = ()


@dataclass(frozen=True)
class ViewQuery:
    filter: ViewFilter = ViewFilter()
    sort: ViewSort = ViewSort()
    pricing: ViewPricing = ViewPricing()
    names: Mapping[str, str] = field(default_factory=dict)  # GPU id -> display name (sort by GPU, chart groups)


@dataclass(frozen=True)
class ViewStats:
    """Over every quote of the table (not only the filtered ones): yours, reference, GPU ids, currencies."""

    mine: int
    reference: int
    gpus: frozenset[str]
    currencies: frozenset[str]


@dataclass(frozen=True)
class ChartPick:
    group: str  # the GPU's display name
    reference: bool
    price: float  # in the display currency
    who: str  # provider or vendor
    quoted_on: str


@dataclass(frozen=True)
class ViewChart:
    picks: list[ChartPick]
    left_out: int  # visible quotes without a display price (no exchange rate)
    total: int  # visible quotes with one


def _casefold(value: object) -> str | None:
    return None if value is None else str(value).casefold()


def _values(name: str, columns: Sequence[str], rows: Sequence[Sequence[object]]) -> tuple[str, list[object]]:
    """A VALUES common table expression (an empty one selects nothing)."""
    head = f"{name}({', '.join(columns)})"
    if not rows:
        return f"{head} AS (SELECT {', '.join('NULL' for _ in columns)} WHERE 0)", []
    one = "(" + ", ".join("?" for _ in columns) + ")"
    return f"{head} AS (VALUES {', '.join(one for _ in rows)})", [value for row in rows for value in row]


class QuoteView:
    """The SQL of one quote table's window (a repository's `view`)."""

    def __init__(self, db: Database, spec: QuoteTable, row_columns: tuple[str, ...]) -> None:
        self._db, self.spec, self._row_columns = db, spec, row_columns
        self.provider_column = "provider" if spec is RENTAL else "vendor"

    # -- the SQL ------------------------------------------------------------------------------------------------
    def _unit_amount(self) -> str:
        """Price per GPU-hour (rental) or per GPU (purchase) in the quote's currency, as Pricing.unit_amount."""
        if self.spec is RENTAL:
            return "q.price_per_gpu_hour"
        return "(q.price * 1.0) / max(coalesce(nullif(q.gpus, 0), 1), 1)"

    def _derived(self) -> dict[str, str]:
        """Each derived column as Pricing.derived_values computes it (NULL where it has none)."""
        price = f"({self._unit_amount()}) * r.factor"
        values = {"display_price": price, "basis": "coalesce(b.rank, 3)"}
        if self.spec is RENTAL:
            values["per_useful_gpu_hour"] = (
                f"CASE WHEN q.kind = 'spot' AND b.gpu IS NOT NULL THEN {price} * "
                "(1 + spot_fraction(q.gpu, q.gpus_per_instance, q.interruptions_per_hour)) END"
            )
            values["per_pflop_hour"] = f"{price} / (b.bf16 / 1e15)"
            values["per_tbps_hour"] = f"{price} / (b.bandwidth / 1e12)"
        else:
            values["per_tflops"] = f"{price} / (b.bf16 / 1e12)"
        return values

    def _from(self, query: ViewQuery) -> tuple[str, str, list[object]]:
        """(WITH ..., FROM ... WHERE ..., parameters) of the visible quotes."""
        pricing, sort = query.pricing, query.sort
        gpus = sorted(set(pricing.bf16_flops) | set(pricing.bandwidth) | set(pricing.basis_rank))
        ctes = [
            _values("r", ("currency", "factor"), sorted(pricing.factors.items())),
            _values("b", ("gpu", "bf16", "bandwidth", "rank"), [
                (gpu, pricing.bf16_flops.get(gpu) or None, pricing.bandwidth.get(gpu) or None,
                 pricing.basis_rank.get(gpu, 3)) for gpu in gpus
            ]),
            _values("n", ("gpu", "name"), sorted(query.names.items())),
            _values("k", ("kind", "position"), [(kind, i) for i, kind in enumerate(sort.kinds)]),
        ]  # fmt: skip
        params = [value for _sql, values in ctes for value in values]
        where, filter_params = self._where(query.filter)
        sql_from = (
            f"FROM {self.spec.table} q LEFT JOIN r ON r.currency = upper(q.currency) "
            "LEFT JOIN b ON b.gpu = q.gpu LEFT JOIN n ON n.gpu = q.gpu"
        )
        if self.spec is RENTAL:
            sql_from += " LEFT JOIN k ON k.kind = q.kind"
        if where:
            sql_from += " WHERE " + " AND ".join(where)
        return "WITH " + ", ".join(sql for sql, _values in ctes), sql_from, params + filter_params

    def _where(self, view_filter: ViewFilter) -> tuple[list[str], list[object]]:
        """The filter, as desktop's QuoteFilter.accepts says it for one row."""
        where: list[str] = []
        params: list[object] = []
        if not view_filter.show_reference:
            where.append("q.origin IS NOT 'reference'")
        if view_filter.gpu:
            where.append("q.gpu = ?")
            params.append(view_filter.gpu)
        if view_filter.provider:
            where.append(f"instr(casefold(coalesce(q.{self.provider_column}, '')), ?) > 0")
            params.append(view_filter.provider.casefold())
        if view_filter.kind and self.spec is RENTAL:
            where.append("q.kind = ?")
            params.append(view_filter.kind)
        if view_filter.currency:
            where.append("q.currency = ?")
            params.append(view_filter.currency)
        return where, params

    def _sort_key(self, sort: ViewSort) -> str | None:
        if not sort.key:
            return None
        if sort.key.startswith("derived:"):
            return self._derived().get(sort.key.removeprefix("derived:"), "NULL")
        column = sort.key
        if column not in self.spec.columns:
            raise ValueError(f"not a column of {self.spec.table}: {column}")
        if sort.how == "number":
            return f"q.{column}"
        if sort.how == "gpu":
            return "casefold(coalesce(n.name, q.gpu, ''))"
        if sort.how == "kind":
            return f"coalesce(k.position, {len(sort.kinds)})"
        return f"CASE WHEN q.{column} IS NULL OR q.{column} = '' THEN NULL ELSE casefold(q.{column}) END"

    # -- connections ----------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _reader(self, pricing: ViewPricing) -> Iterator[sqlite3.Connection]:
        """A read-only connection of its own (the store's lock stays free), or the store's connection under its
        lock where the file cannot be opened twice; the SQL functions the queries call are registered on it."""
        conn: sqlite3.Connection | None = None
        try:
            uri = Path(self._db.path).resolve().as_uri() + "?mode=ro"
            conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
            conn.execute("PRAGMA busy_timeout = 5000")
            conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        except (sqlite3.Error, OSError, ValueError):
            if conn is not None:
                conn.close()
            conn = None
        spot = _cached_spot(pricing.spot_fraction)
        if conn is not None:
            try:
                _register(conn, spot)
                yield conn
            finally:
                conn.close()
            return
        with self._db.guard() as shared:
            _register(shared, spot)
            yield shared

    # -- what the table asks ------------------------------------------------------------------------------------
    def ordered_ids(self, query: ViewQuery, progress: Callable[[float], None] | None = None) -> array[int]:
        """The ids of the visible quotes in display order (8 bytes each), read in chunks."""
        with_sql, from_sql, params = self._from(query)
        key = self._sort_key(query.sort)
        order = STORE_ORDER[self.spec.table]
        if key is not None:
            direction = "DESC" if query.sort.descending else "ASC"
            order = f"(sort_key IS NULL), sort_key {direction}, {order}"
        sql = f"{with_sql} SELECT q.id, {key or 'NULL'} AS sort_key {from_sql} ORDER BY {order}"
        ids: array[int] = array("q")
        with self._reader(query.pricing) as conn:
            table = self.spec.table
            total = max(int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]), 1)
            cursor = conn.execute(sql, params)
            while chunk := cursor.fetchmany(ORDER_CHUNK_ROWS):
                ids.extend(row[0] for row in chunk)
                if progress is not None:
                    progress(min(len(ids) / total, 1.0))
        return ids

    def stats(self) -> ViewStats:
        """Counts and values over the whole table, by SQL aggregates (GPU ids through their index)."""
        table = self.spec.table
        with self._reader(ViewPricing()) as conn:
            reference, total = conn.execute(
                f"SELECT coalesce(sum(origin = 'reference'), 0), count(*) FROM {table}"
            ).fetchone()
            gpus = {row[0] for row in conn.execute(f"SELECT DISTINCT gpu FROM {table}")}
            currencies = {row[0] for row in conn.execute(f"SELECT DISTINCT currency FROM {table}")}
        return ViewStats(
            int(total) - int(reference), int(reference),
            frozenset(str(g) for g in gpus if g), frozenset(str(c) for c in currencies if c),
        )  # fmt: skip

    def rows(self, ids: Sequence[int]) -> list[Any]:
        """The rows of these ids as find() gives them, in the order asked (an id gone since is left out)."""
        if not ids:
            return []
        table = self.spec.table
        sql = f"SELECT {', '.join(self._row_columns)} FROM {table} WHERE id IN (SELECT value FROM json_each(?))"
        with self._db.guard() as conn:
            found = list(conn.execute(sql, [json.dumps([int(i) for i in ids])]))
        by_id = {row[0]: row for row in found}
        return [by_id[i] for i in ids if i in by_id]

    def chart(self, query: ViewQuery, per_group: int) -> ViewChart:
        """The price chart of the visible quotes: per (GPU name, origin) every quote when it has at most
        `per_group`, else that many evenly spaced price quantiles, cheapest and dearest included (positions as
        desktop.quote_pricing's _quantiles picks them), with the counts of quotes left out and drawn."""
        with_sql, from_sql, params = self._from(query)
        price = self._derived()["display_price"]
        visible = (
            f"{with_sql}, v AS (SELECT coalesce(n.name, q.gpu, '') AS grp, q.origin = 'reference' AS ref, "
            f"{price} AS price, coalesce(nullif(q.{self.provider_column}, ''), '') AS who, "
            f"coalesce(q.quoted_on, '') AS quoted_on, q.id AS id {from_sql})"
        )
        with self._reader(query.pricing) as conn:
            groups = list(conn.execute(
                f"{visible} SELECT grp, ref, count(*) FROM v WHERE price IS NOT NULL GROUP BY grp, ref", params
            ))  # fmt: skip
            left_out = int(conn.execute(f"{visible} SELECT count(*) FROM v WHERE price IS NULL", params).fetchone()[0])
            wanted = [
                f"{grp}\x1f{int(ref)}\x1f{position}"
                for grp, ref, count in groups
                for position in quantile_positions(int(count), per_group)
            ]
            picked = conn.execute(
                f"{visible}, p AS (SELECT grp, ref, price, who, quoted_on, row_number() OVER "
                "(PARTITION BY grp, ref ORDER BY price, id) - 1 AS position FROM v WHERE price IS NOT NULL) "
                "SELECT grp, ref, price, who, quoted_on FROM p "
                "WHERE grp || char(31) || ref || char(31) || position IN (SELECT value FROM json_each(?))",
                [*params, json.dumps(wanted)],
            )
            picks = [ChartPick(str(g), bool(r), float(p), str(w), str(d)) for g, r, p, w, d in picked]
        return ViewChart(picks, left_out, sum(int(count) for _g, _r, count in groups))


def quantile_positions(count: int, limit: int) -> range | list[int]:
    """Positions (0-based, in price order) of `limit` evenly spaced quantiles of `count` prices; all of them
    when there are at most `limit`."""
    if count <= limit:
        return range(count)
    last = count - 1
    return sorted({round(i * last / (limit - 1)) for i in range(limit)})


def _cached_spot(
    spot_fraction: Callable[[str, int, float | None], float | None] | None,
) -> Callable[[object, object, object], float | None]:
    """spot_fraction as an SQL function of (gpu, gpus_per_instance, interruptions_per_hour), each distinct
    argument triple computed once (a million spot quotes share a few)."""
    cache: dict[tuple[object, object, object], float | None] = {}

    def fraction(gpu: object, gpus: object, rate: object) -> float | None:
        if spot_fraction is None:
            return None
        key = (gpu, gpus, rate)
        if key not in cache:
            count = max(int(gpus or 1), 1) if isinstance(gpus, (int, float)) else 1
            stated = float(rate) if isinstance(rate, (int, float)) else None
            cache[key] = spot_fraction(str(gpu or ""), count, stated)
        return cache[key]

    return fraction


def _register(conn: sqlite3.Connection, spot: Callable[[object, object, object], float | None]) -> None:
    conn.create_function("casefold", 1, _casefold, deterministic=True)
    conn.create_function("spot_fraction", 3, spot, deterministic=True)
