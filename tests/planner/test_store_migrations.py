"""Upgrading a database made by every earlier schema version keeps every row (fixtures: tests/fixtures/)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from planner.store import LATEST_VERSION, Store
from planner.store.seed import reference_rows

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EARLIER_VERSIONS = list(range(1, LATEST_VERSION))


def snapshot(path: Path) -> dict[str, list[dict]]:
    """Every row of every table, as plain dicts."""
    conn = sqlite3.connect(str(path))
    conn.row_factory = sqlite3.Row
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: [dict(r) for r in conn.execute(f'SELECT * FROM "{t}" ORDER BY rowid')] for t in tables}
    finally:
        conn.close()


def test_there_is_a_fixture_for_every_earlier_version():
    for version in EARLIER_VERSIONS:
        path = FIXTURES / f"store_v{version}.sqlite"
        assert path.exists(), (
            f"add a fixture for version {version}: python -m tests.fixtures.make_store_fixtures"
        )
        conn = sqlite3.connect(str(path))
        assert conn.execute("PRAGMA user_version").fetchone()[0] == version
        conn.close()


@pytest.fixture(params=EARLIER_VERSIONS, ids=lambda v: f"v{v}")
def upgraded(request, tmp_path):
    """(rows before, store after) for a copy of the fixture at one earlier version."""
    copy = tmp_path / "old.sqlite"
    shutil.copyfile(FIXTURES / f"store_v{request.param}.sqlite", copy)
    before = snapshot(copy)
    with Store.open(copy) as store:
        yield request.param, before, store


def shipped_citations() -> dict[str, tuple[str, str]]:
    """seed key -> (source, note) as planner/catalog/reference_prices.csv cites it today."""
    return {row["key"]: (row["source"], row["note"]) for row in reference_rows()}


def test_every_row_survives_with_its_values(upgraded):
    _, before, store = upgraded
    assert store.schema_version == LATEST_VERSION
    after = snapshot(store.path)
    # An empty table would make the survival check below vacuous: every fixture fills every table it had.
    assert all(before.values()), [table for table, rows in before.items() if not rows]
    citations = shipped_citations()
    for table, rows in before.items():
        kept = {row["id"] if "id" in row else row["key"]: row for row in after[table]}
        for row in rows:
            key = row["id"] if "id" in row else row["key"]
            assert key in kept, (table, key)
            expected = dict(row)
            if row.get("origin") == "reference" and row.get("seed_key") in citations:
                # a shipped reference row cites what the shipped file cites now (seed.py); nothing else changes
                expected["source"], expected["note"] = citations[row["seed_key"]]
            assert {c: kept[key][c] for c in row} == expected, (table, key)


def test_reference_rows_the_app_no_longer_ships_keep_their_citation(upgraded):
    _, before, store = upgraded
    citations = shipped_citations()
    old = [
        r for r in before["rental_quotes"] if r["origin"] == "reference" and r["seed_key"] not in citations
    ]
    assert [r["seed_key"] for r in old] == ["runpod-2026-03-h100-sxm-old"]
    (kept,) = [r for r in store.rental_quotes.find(provider="RunPod") if r["id"] == old[0]["id"]]
    assert (kept["source"], kept["note"]) == (old[0]["source"], old[0]["note"])


def test_user_rows_stay_user_rows_and_reference_rows_are_completed_not_doubled(upgraded):
    _, before, store = upgraded
    user_before = [r for r in before["rental_quotes"] if r["origin"] == "user"]
    mine = store.rental_quotes.find(mine_only=True)
    assert {(r["id"], r["provider"], r["note"]) for r in mine} == {
        (r["id"], r["provider"], r["note"]) for r in user_before
    }
    assert len(mine) == len(user_before) == 3
    seed_keys = [
        r[0] for r in store.conn.execute("SELECT seed_key FROM rental_quotes WHERE seed_key IS NOT NULL")
    ]
    assert len(seed_keys) == len(set(seed_keys))
    shipped = {row["key"] for row in reference_rows() if row["record"] == "rental"}
    assert shipped <= set(seed_keys)
    assert "runpod-2026-03-h100-sxm-old" in seed_keys  # an older reference snapshot is kept as history
    # Selectel's RUB quote and its Russian note come through untouched.
    selectel = [r for r in mine if r["provider"] == "Selectel"][0]
    assert (selectel["price_per_gpu_hour"], selectel["currency"], selectel["note"]) == (
        250.0,
        "RUB",
        "цена со скидкой",
    )


def test_probe_run_key_figures_are_backfilled(upgraded):
    _, _, store = upgraded
    (run,) = store.probe_runs.all()
    # The fixture's measurements: bf16 matmul 7.1e14 FLOP/s and a 2.9e12 B/s memory copy on one H100.
    assert run.best_bf16_flop_per_s == 7.1e14
    assert run.memory_bandwidth_bytes_per_s == 2.9e12
    assert run.devices == ("NVIDIA H100 80GB HBM3",)
    assert store.probe_runs.report(run.id).best("matmul", "bf16") == 7.1e14
    sha = store.conn.execute("SELECT report_sha256 FROM probe_runs").fetchone()[0]
    assert sha and len(sha) == 64


def test_settings_and_new_features_work_after_upgrade(upgraded):
    version, _, store = upgraded
    assert store.settings.get("display_currency") == "EUR"
    assert store.settings.exchange_rates().to_usd["EUR"] == 1.08
    plan_id = store.plans.save("after upgrade", {"a": 1}, {"b": 2})
    assert store.plans.get(plan_id)["results"] == {"b": 2}
    if version >= 2:
        assert [gpu.id for gpu in store.user_gpus.all()] == ["my-rtx-5090"]
        lambda_row = store.rental_quotes.find(provider="Lambda", mine_only=True)[0]
        assert (lambda_row["interconnect"], lambda_row["min_term_hours"]) == ("nvlink", 720.0)
    else:
        assert store.user_gpus.all() == []
        lambda_row = store.rental_quotes.find(provider="Lambda", mine_only=True)[0]
        assert (lambda_row["interconnect"], lambda_row["min_term_hours"], lambda_row["valid_until"]) == (
            "",
            None,
            "",
        )


def test_quotes_from_before_version_5_have_no_interruption_rate_and_take_one(upgraded):
    version, _, store = upgraded
    quotes = store.rental_quotes.find(mine_only=True)
    # not stated before version 5 (None, not zero); the version-5 fixture's spot quote states 0.05
    stated = 0.05 if version >= 5 else None
    rates = {quote["provider"]: quote["interruptions_per_hour"] for quote in quotes}
    assert rates == {"Lambda": None, "Selectel": None, "Vast.ai": stated}
    row_id = quotes[0]["id"]
    store.rental_quotes.update(row_id, {"kind": "spot", "interruptions_per_hour": 0.01})
    assert store.rental_quotes.get(row_id)["interruptions_per_hour"] == 0.01
