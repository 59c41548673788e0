"""Schema history. MIGRATIONS[n] turns a version-n database into version n+1; PRAGMA user_version records n.

Rules (they keep old databases opening forever):
- never edit a migration that has shipped; add a new one at the end;
- each migration runs in the same transaction as its user_version bump, so a crash leaves the old version;
- a migration keeps every row: it adds tables, columns and indexes, and fills new columns from old data.
tests/fixtures/make_store_fixtures.py builds a fixture database at every earlier version from these same
functions, and tests/planner/test_store_migrations.py checks that upgrading each one keeps every row.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

from planner.errors import UserError
from planner.messages import msg
from planner.store.database import Database
from planner.store.errors import SQLITE_ERROR, primary_code

if (
    TYPE_CHECKING
):  # imported where a migration runs: opening an up-to-date database needs none (schema_check.py)
    import sqlite_utils


def _v1_initial(db: sqlite_utils.Database) -> None:
    """Version 1: machines, GPUs seen, probe runs with measurements, rental and purchase quotes, settings."""
    db.table("settings").create({"key": str, "value": str, "updated_at": str}, pk="key", not_null={"value"})
    db.table("machines").create(
        {"id": int, "name": str, "hostname": str, "kind": str, "created_at": str},
        pk="id",
        not_null={"name", "kind", "created_at"},
    )
    db.table("machines").create_index(["name"], unique=True)
    db.table("probe_runs").create(
        {
            "id": int,
            "machine_id": int,
            "created_at": str,  # when the probe ran (from the report)
            "saved_at": str,  # when it entered this database
            "mode": str,
            "source": str,  # "local" | "imported"
            "label": str,
            "report_json": str,  # the whole validated ProbeReport, verbatim
        },
        pk="id",
        foreign_keys=[("machine_id", "machines", "id")],
        not_null={"machine_id", "created_at", "saved_at", "mode", "source", "report_json"},
    )
    db.table("measurements").create(
        {
            "id": int,
            "run_id": int,
            "device": str,
            "kind": str,
            "dtype": str,
            "value": float,
            "unit": str,
            "ok": int,
        },
        pk="id",
        foreign_keys=[("run_id", "probe_runs", "id")],
        not_null={"run_id", "device", "kind", "unit", "ok"},
    )
    db.table("measurements").create_index(["run_id"])
    db.table("gpus_seen").create(
        {
            "id": int,
            "machine_id": int,
            "gpu_key": str,  # NVML uuid, or "<index>:<name>" when the uuid was refused
            "name": str,
            "catalog_id": str,
            "memory_total_bytes": int,
            "first_seen": str,
            "last_seen": str,
        },
        pk="id",
        foreign_keys=[("machine_id", "machines", "id")],
        not_null={"machine_id", "gpu_key", "name", "first_seen", "last_seen"},
    )
    db.table("gpus_seen").create_index(["machine_id", "gpu_key"], unique=True)
    text_default = {"offer": "", "region": "", "source": "", "note": ""}
    db.table("rental_quotes").create(
        {
            "id": int,
            "provider": str,
            "offer": str,
            "gpu": str,
            "gpus_per_instance": int,
            "price_per_gpu_hour": float,
            "price_per_instance_hour": float,
            "currency": str,
            "kind": str,
            "region": str,
            "quoted_on": str,
            "source": str,
            "note": str,
            "origin": str,  # "reference" (shipped with the app) | "user"
            "seed_key": str,  # stable id of a reference row; NULL for the user's own
            "created_at": str,
        },
        pk="id",
        not_null={
            "provider",
            "gpu",
            "gpus_per_instance",
            "price_per_gpu_hour",
            "price_per_instance_hour",
            "currency",
            "kind",
            "quoted_on",
            "origin",
            "created_at",
            *text_default,
        },
        defaults=text_default,
    )
    db.table("purchase_quotes").create(
        {
            "id": int,
            "vendor": str,
            "gpu": str,
            "gpus": int,
            "price": float,  # the whole quote, for `gpus` GPUs
            "currency": str,
            "quoted_on": str,
            "source": str,
            "note": str,
            "origin": str,
            "seed_key": str,
            "created_at": str,
        },
        pk="id",
        not_null={
            "vendor",
            "gpu",
            "gpus",
            "price",
            "currency",
            "quoted_on",
            "origin",
            "created_at",
            "source",
            "note",
        },
        defaults={"source": "", "note": ""},
    )
    # Reference rows are seeded once per key; the partial unique index makes a double seed impossible.
    for table in ("rental_quotes", "purchase_quotes"):
        db.execute(
            f"CREATE UNIQUE INDEX idx_{table}_seed_key ON {table}(seed_key) WHERE seed_key IS NOT NULL"
        )


def _v2_quote_details_user_gpus(db: sqlite_utils.Database) -> None:
    """Version 2: interconnect/minimum term/validity on rentals, overhead and power on purchases, user GPU types,
    measurement peers, and the key figures of each probe run kept next to it (back-filled for old runs)."""
    rentals = db.table("rental_quotes")
    rentals.add_column("interconnect", str, not_null_default="")
    rentals.add_column("min_term_hours", float)
    rentals.add_column("valid_until", str, not_null_default="")
    purchases = db.table("purchase_quotes")
    purchases.add_column("server_overhead_fraction", float)
    purchases.add_column("power_w", float)
    db.table("measurements").add_column("peer", str)
    runs = db.table("probe_runs")
    runs.add_column("best_bf16_flop_per_s", float)
    runs.add_column("memory_bandwidth_bytes_per_s", float)
    runs.add_column("device_names", str, not_null_default="[]")
    _backfill_key_figures(db)
    db.table("user_gpus").create(
        {"id": str, "spec_json": str, "created_at": str, "updated_at": str},
        pk="id",
        not_null={"spec_json", "created_at", "updated_at"},
    )


def _backfill_key_figures(db: sqlite_utils.Database) -> None:
    """Compute each existing run's key figures from its measurements and report (no row is dropped)."""
    run_ids = [row[0] for row in db.execute("SELECT id FROM probe_runs").fetchall()]
    for run_id in run_ids:
        bf16, bandwidth = db.execute(
            "SELECT (SELECT max(value) FROM measurements WHERE run_id = ? AND ok = 1 AND kind = 'matmul' "
            "AND dtype = 'bf16'), (SELECT max(value) FROM measurements WHERE run_id = ? AND ok = 1 "
            "AND kind = 'memory_bandwidth')",
            [run_id, run_id],
        ).fetchone()
        report_json = db.execute("SELECT report_json FROM probe_runs WHERE id = ?", [run_id]).fetchone()[0]
        try:
            names = [device.get("name", "") for device in json.loads(report_json).get("devices", [])]
        except (ValueError, AttributeError):
            names = []
        db.execute(
            "UPDATE probe_runs SET best_bf16_flop_per_s = ?, memory_bandwidth_bytes_per_s = ?, device_names = ? "
            "WHERE id = ?",
            [bf16, bandwidth, json.dumps(names), run_id],
        )


def _v3_plans_and_indexes(db: sqlite_utils.Database) -> None:
    """Version 3: saved plans, a content hash so one report is not stored twice, and indexes for fast lists."""
    db.table("plans").create(
        {
            "id": int,
            "name": str,
            "inputs_json": str,
            "results_json": str,
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
        not_null={"name", "inputs_json", "results_json", "created_at", "updated_at"},
    )
    db.table("probe_runs").add_column("report_sha256", str)
    for run_id, report_json in db.execute("SELECT id, report_json FROM probe_runs").fetchall():
        digest = hashlib.sha256(report_json.encode("utf-8")).hexdigest()
        db.execute("UPDATE probe_runs SET report_sha256 = ? WHERE id = ?", [digest, run_id])
    db.table("probe_runs").create_index(["report_sha256"])
    # The quote list is filtered by GPU, provider and kind and sorted by GPU then price (100,000 rows < 100 ms).
    db.execute("CREATE INDEX idx_rental_quotes_gpu_price ON rental_quotes(gpu, price_per_gpu_hour)")
    db.execute("CREATE INDEX idx_rental_quotes_provider ON rental_quotes(provider COLLATE NOCASE)")
    db.execute("CREATE INDEX idx_rental_quotes_kind ON rental_quotes(kind)")
    db.execute("CREATE INDEX idx_rental_quotes_dedupe ON rental_quotes(gpu, quoted_on, price_per_gpu_hour)")
    db.execute("CREATE INDEX idx_purchase_quotes_gpu ON purchase_quotes(gpu, quoted_on)")
    db.execute("CREATE INDEX idx_measurements_kind ON measurements(kind, dtype)")


def _v4_price_group_index(db: sqlite_utils.Database) -> None:
    """Version 4: an index that answers per-GPU price summaries and the cheapest offers (planner/store/prices.py)
    from the index alone. Ordered like a PriceSummary group, then by price: a group's count, lowest, middle and
    highest price and its N cheapest quotes are one short index range each, whatever the table holds. (With
    100,000 quotes all on demand, so that most kind/currency groups are empty, the cheapest offers of every group
    took 650 ms through the (gpu, price) index, which must read a GPU's every row to prove a group empty; 2 ms
    with this one.)"""
    db.execute(
        "CREATE INDEX idx_rental_quotes_price_groups "
        "ON rental_quotes(gpu, kind, currency, origin, price_per_gpu_hour)"
    )


def _v5_quote_interruption_rate(db: sqlite_utils.Database) -> None:
    """Version 5: the interruption rate a spot or preemptible rental quote carries (reclaims per instance-hour;
    NULL: not stated, so the planner takes a provider's typical figure, planner.scale.spot)."""
    db.table("rental_quotes").add_column("interruptions_per_hour", float)


def _v6_full_dedupe_indexes(db: sqlite_utils.Database) -> None:
    """Version 6: an index over each quote table's whole identity (its dedupe columns, text compared without
    letter case as the duplicate check compares it), so that finding a duplicate is one index look-up whatever
    the table holds. The version-3 rental index (gpu, quoted_on, price) left SQLite to pick the provider index,
    and a quote file of one provider made a 1,000,000-row import quadratic (issue 30 item 7)."""
    db.execute("DROP INDEX IF EXISTS idx_rental_quotes_dedupe")
    db.execute(
        "CREATE INDEX idx_rental_quotes_identity ON rental_quotes(provider COLLATE NOCASE, offer COLLATE NOCASE, "
        "gpu COLLATE NOCASE, kind COLLATE NOCASE, region COLLATE NOCASE, price_per_gpu_hour, "
        "currency COLLATE NOCASE, quoted_on COLLATE NOCASE)"
    )
    db.execute(
        "CREATE INDEX idx_purchase_quotes_identity ON purchase_quotes(vendor COLLATE NOCASE, gpu COLLATE NOCASE, "
        "gpus, price, currency COLLATE NOCASE, quoted_on COLLATE NOCASE)"
    )


Migration = Callable[["sqlite_utils.Database"], None]
MIGRATIONS: list[Migration] = [
    _v1_initial,
    _v2_quote_details_user_gpus,
    _v3_plans_and_indexes,
    _v4_price_group_index,
    _v5_quote_interruption_rate,
    _v6_full_dedupe_indexes,
]
LATEST_VERSION = len(MIGRATIONS)


def migrate(db: Database) -> None:
    """Upgrade the database to LATEST_VERSION, one migration per write transaction (a crash keeps the last
    finished version; another process upgrading at the same time is seen under the write lock)."""

    def version() -> int:
        return int(db.conn.execute("PRAGMA user_version").fetchone()[0])

    def step() -> None:
        current = version()  # re-read under the write lock: another process may have upgraded
        if current < LATEST_VERSION:
            import sqlite_utils

            try:
                MIGRATIONS[current](sqlite_utils.Database(db.conn, execute_plugins=False))
            except sqlite3.OperationalError as exc:
                # the file holds objects its version does not (a table or index of a later version): the
                # transaction rolls back, so the file stays as it was
                if primary_code(exc) != SQLITE_ERROR:
                    raise
                raise UserError.of(
                    msg("error.db_cannot_upgrade", path=str(db.path), version=current, detail=str(exc))
                ) from None
            db.conn.execute(f"PRAGMA user_version = {int(current) + 1}")

    with db.guard():
        while version() < LATEST_VERSION:
            db.write(step)
