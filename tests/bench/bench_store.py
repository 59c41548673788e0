"""`make bench` (store): list and filter 100,000 quotes (target < 100 ms), import a 10,000-row CSV.

Everything happens in a temporary folder; the user's database is never opened. Figures are medians of a few
repeats, in milliseconds; the list timings include turning rows into dicts, as the GUI and CLI receive them.
"""

from __future__ import annotations

import csv
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from planner.store import KINDS, RENTAL_COLUMNS, Store

QUOTES = 100_000
IMPORT_ROWS = 10_000
TARGET_LIST_MS = 100.0
GPUS = (
    "h100-sxm",
    "h200-sxm",
    "a100-sxm-80gb",
    "a100-pcie-80gb",
    "l40s",
    "l4",
    "rtx-4090",
    "rtx-3090",
    "rtx-6000-ada",
    "rtx-pro-6000",
    "b200",
    "h100-pcie",
    "a10",
    "t4",
)
PROVIDERS = [f"provider-{i:02d}" for i in range(50)]


def write_csv(path: Path, rows: int, offset: int = 0) -> Path:
    """Quotes spread over 14 GPU types, 50 providers and every kind, like a long-running price log."""
    with open(path, "w", encoding="utf-8", newline="") as handle:
        # by column name: a column added to the quote sheet (interruptions_per_hour) must not shift the others
        writer = csv.DictWriter(handle, fieldnames=RENTAL_COLUMNS, restval="")
        writer.writeheader()
        for i in range(offset, offset + rows):
            gpus = (1, 2, 4, 8)[i % 4]
            writer.writerow({
                "provider": PROVIDERS[i % len(PROVIDERS)], "offer": f"offer-{i}", "gpu": GPUS[i % len(GPUS)],
                "gpus_per_instance": gpus, "price_per_gpu_hour": f"{0.2 + (i % 997) / 100:.2f}",
                "currency": ("USD", "EUR", "RUB")[i % 3], "kind": KINDS[i % len(KINDS)], "region": f"region-{i % 7}",
                "quoted_on": f"2026-{1 + i % 9:02d}-{1 + i % 28:02d}",
            })  # fmt: skip
    return path


def median_ms(action: Callable[[], object], repeats: int = 5) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = action()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), result


def _fetch_all_as_tuples(store: Store) -> int:
    """The full listing's query, rows left as tuples (the floor under list_rental_quotes)."""
    columns = ("id", *RENTAL_COLUMNS, "origin", "created_at")
    sql = f"SELECT {', '.join(columns)} FROM rental_quotes ORDER BY gpu, price_per_gpu_hour, id"
    return len(store.conn.execute(sql).fetchall())


def run() -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-store-") as folder:
        folder_path = Path(folder)
        with Store.open(folder_path / "import.sqlite") as store:
            source = write_csv(folder_path / "ten-thousand.csv", IMPORT_ROWS)
            started = time.perf_counter()
            imported = store.rental_quotes.import_csv(source)
            import_ms = (time.perf_counter() - started) * 1000
        with Store.open(folder_path / "big.sqlite") as store:
            store.rental_quotes.import_csv(write_csv(folder_path / "big.csv", QUOTES))
            total = store.rental_quotes.count()
            by_gpu_ms, by_gpu = median_ms(lambda: store.rental_quotes.find(gpu="h100-sxm"))
            by_gpu_provider_ms, by_both = median_ms(
                lambda: store.rental_quotes.find(gpu="h100-sxm", provider="provider-10")
            )
            by_kind_ms, _ = median_ms(lambda: store.rental_quotes.find(kind="spot", limit=500))
            page_ms, _ = median_ms(lambda: store.rental_quotes.find(limit=500))
            full_ms, everything = median_ms(lambda: store.rental_quotes.find(), repeats=3)
            tuples_ms, _ = median_ms(lambda: _fetch_all_as_tuples(store), repeats=3)
            count_ms, _ = median_ms(store.rental_quotes.count)
    return {
        "quotes_in_table": total,
        "list_filter_gpu_ms": round(by_gpu_ms, 1),
        "list_filter_gpu_rows": len(by_gpu),
        "list_filter_gpu_and_provider_ms": round(by_gpu_provider_ms, 1),
        "list_filter_gpu_and_provider_rows": len(by_both),
        "list_filter_kind_first_500_ms": round(by_kind_ms, 1),
        "list_first_page_500_ms": round(page_ms, 1),
        "list_all_rows_ms": round(full_ms, 1),
        "list_all_rows": len(everything),
        "fetch_all_rows_as_tuples_ms": round(tuples_ms, 1),
        "count_ms": round(count_ms, 2),
        "target_list_ms": TARGET_LIST_MS,
        "import_10000_rows_ms": round(import_ms, 1),
        "import_10000_rows_added": imported.added,
        "notes": "list_all_rows_ms materialises every row as a dict (the desktop quotes table and the Plan page's "
        "price lookup list everything); fetch_all_rows_as_tuples_ms is the same query through the sqlite3 cursor "
        "with no dicts at all, the floor for any full listing: Python's sqlite3 creates one object per value "
        "(100,000 rows x 18 columns)",
    }
