"""Rental price look-ups answered in SQL: per-group summaries, a median across currencies, the cheapest offers.

The desktop pages need a handful of figures per GPU type (the median on-demand, spot and reserved price, the
cheapest and dearest quote, how many quotes), not every stored quote: with 100,000 quotes, listing them all and
converting each one in Python took seconds. These queries read only what they return, from the index on
(gpu, kind, currency, origin, price_per_gpu_hour) that migration 4 created: a group's prices are one index
range in price order, so each answer costs milliseconds at any table size.

Prices are per GPU-hour in each quote's own currency; the caller converts. Where a figure mixes currencies
(rental_price_median), the caller passes the factor that turns each currency into its display currency, so
the ordering and the middle value are those of the converted prices, exactly as if every quote had been
converted first. Functions take the open sqlite3 connection; store.rental_quotes (quote_repository.py) calls
them holding the store's lock.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planner.store.quotes import KINDS
from planner.store.rows import RENTAL_ROW_COLUMNS

QUOTE_COLUMNS = RENTAL_ROW_COLUMNS
GROUP_COLUMNS = ("gpu", "kind", "currency", "origin")  # one PriceSummary per distinct combination


@dataclass(frozen=True)
class PriceSummary:
    """The rental quotes of one (GPU, kind, currency, origin) group; prices per GPU-hour in `currency`.

    origin: "user" (the user's own quotes) or "reference" (shipped with the app). median_per_gpu_hour is the
    middle price, or the mean of the two middle prices when `count` is even.
    """

    gpu: str
    kind: str
    currency: str
    origin: str
    count: int
    min_per_gpu_hour: float
    median_per_gpu_hour: float
    max_per_gpu_hour: float


def _in_list(values: Sequence[str]) -> str:
    return ", ".join("?" for _ in values)


def _filters(gpu: str | None, kinds: Sequence[str] | None) -> tuple[str, list[str]]:
    where: list[str] = []
    params: list[str] = []
    if gpu is not None:
        where.append("gpu = ?")
        params.append(gpu)
    if kinds is not None:
        where.append(f"kind IN ({_in_list(kinds)})")
        params.extend(kinds)
    return (" WHERE " + " AND ".join(where)) if where else "", params


def rental_price_summary(
    conn: sqlite3.Connection, gpu: str | None = None, kinds: Sequence[str] | None = None
) -> list[PriceSummary]:
    """Count, lowest, median and highest price per (gpu, kind, currency, origin), sorted by those four.

    gpu: a catalog id (None: every GPU); kinds: quote kinds to include (None: all). SQLite has no median:
    each row is numbered within its group in price order, and the middle one (odd count) or the middle two
    (even count) are averaged. With a GPU given this reads that GPU's index range only.
    """
    if kinds is not None and not kinds:
        return []
    where, params = _filters(gpu, kinds)
    sql = (
        f"SELECT {', '.join(GROUP_COLUMNS)}, max(n), min(price), "
        "avg(CASE WHEN position IN ((n + 1) / 2, (n + 2) / 2) THEN price END), max(price) FROM ("
        f"  SELECT {', '.join(GROUP_COLUMNS)}, price_per_gpu_hour AS price,"
        "    row_number() OVER (PARTITION BY gpu, kind, currency, origin ORDER BY price_per_gpu_hour, id)"
        "      AS position,"
        "    count(*) OVER (PARTITION BY gpu, kind, currency, origin) AS n"
        f"  FROM rental_quotes{where}"
        ") GROUP BY gpu, kind, currency, origin ORDER BY gpu, kind, currency, origin"
    )
    return [PriceSummary(*row) for row in conn.execute(sql, params)]


def rental_price_median(
    conn: sqlite3.Connection,
    gpu: str,
    kinds: Sequence[str],
    origin: str,
    factors: Mapping[str, float],
) -> float | None:
    """The median of price_per_gpu_hour x factors[currency] over one GPU's quotes of `kinds` and `origin`.

    factors: currency -> multiplier into one target currency (1.0 for the target itself); quotes in other
    currencies are left out (the caller reports the missing rate). None when no quote is left. The products
    are the same float multiplications planner.money.convert does, so the result equals converting every
    quote and taking the median in Python, without fetching the rows.
    """
    factors = {code: float(factor) for code, factor in factors.items()}
    if not kinds or not factors:
        return None
    if not all(math.isfinite(f) and f > 0 for f in factors.values()):
        raise ValueError(f"conversion factors must be finite and > 0, got {factors!r}")
    cases = " ".join("WHEN ? THEN ?" for _ in factors)
    case_params = [value for pair in factors.items() for value in pair]
    sql = (
        "SELECT avg(converted) FROM ("
        "  SELECT converted, row_number() OVER (ORDER BY converted, id) AS position,"
        "    count(*) OVER () AS n FROM ("
        f"    SELECT id, price_per_gpu_hour * (CASE currency {cases} END) AS converted"
        f"    FROM rental_quotes WHERE gpu = ? AND origin = ? AND kind IN ({_in_list(kinds)})"
        f"      AND currency IN ({_in_list(list(factors))}))"
        ") WHERE position IN ((n + 1) / 2, (n + 2) / 2)"
    )
    params = [*case_params, gpu, origin, *kinds, *factors]
    (median,) = conn.execute(sql, params).fetchone()
    return None if median is None else float(median)


def _gpus_with_quotes(conn: sqlite3.Connection) -> list[str]:
    """Distinct GPU ids, one index seek each (a skip scan of idx_rental_quotes_gpu_price, not a table scan)."""
    sql = (
        "WITH RECURSIVE seen(gpu) AS (SELECT min(gpu) FROM rental_quotes UNION ALL "
        "SELECT (SELECT min(gpu) FROM rental_quotes WHERE gpu > seen.gpu) FROM seen "
        "WHERE seen.gpu IS NOT NULL) "
        "SELECT gpu FROM seen WHERE gpu IS NOT NULL"
    )
    return [row[0] for row in conn.execute(sql)]


def _currencies_of(conn: sqlite3.Connection, gpu: str, kind: str) -> list[str]:
    """The currencies of one GPU's quotes of one kind: one index seek per currency found, plus one."""
    found: list[str] = []
    sql = "SELECT min(currency) FROM rental_quotes WHERE gpu = ? AND kind = ? AND currency > ?"
    while True:
        (currency,) = conn.execute(sql, [gpu, kind, found[-1] if found else ""]).fetchone()
        if currency is None:
            return found
        found.append(currency)


def cheapest_rental_offers(
    conn: sqlite3.Connection, per_group: int, gpus: Iterable[str] | None = None
) -> list[tuple[Any, ...]]:
    """Every reference quote plus the `per_group` cheapest of the user's quotes per (gpu, kind, currency).

    Rows are tuples in QUOTE_COLUMNS order, sorted by gpu, price per GPU-hour, id. Reference rows are the
    shipped price points (a few dozen at most) and are always all there. gpus: restrict to these ids (None:
    every GPU with a quote). Each group is one index seek that reads `per_group` entries (an empty group reads
    none), so the answer costs about the same for 1,000 or 1,000,000 stored quotes.
    """
    if per_group < 1:
        raise ValueError("per_group must be at least 1")
    # Reference rows are exactly the seeded ones (seed.seed_reference_prices sets seed_key; user rows have
    # none), so the partial index on seed_key finds them without reading the user's rows.
    rows = conn.execute(
        f"SELECT {', '.join(QUOTE_COLUMNS)} FROM rental_quotes "
        "WHERE seed_key IS NOT NULL AND origin = 'reference'"
    ).fetchall()
    position = {name: index for index, name in enumerate(QUOTE_COLUMNS)}
    gpu_at, price_at, id_at = position["gpu"], position["price_per_gpu_hour"], position["id"]
    wanted = _gpus_with_quotes(conn) if gpus is None else list(dict.fromkeys(gpus))
    if gpus is not None:
        rows = [row for row in rows if row[gpu_at] in wanted]
    sql = (
        f"SELECT {', '.join(QUOTE_COLUMNS)} FROM rental_quotes "
        "WHERE gpu = ? AND kind = ? AND currency = ? AND origin = 'user' "
        "ORDER BY price_per_gpu_hour, id LIMIT ?"
    )
    for gpu in wanted:
        for kind in KINDS:
            for currency in _currencies_of(conn, gpu, kind):
                rows.extend(conn.execute(sql, [gpu, kind, currency, int(per_group)]))
    rows.sort(key=lambda row: (row[gpu_at], row[price_at], row[id_at]))
    return rows
