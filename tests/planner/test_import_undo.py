"""Undo of a quote CSV import by its batch (issue 30 item 7): the import says which rows it added (ids and its
created_at), the store sets exactly those aside and brings them back in SQL, and nothing proportional to the rows
is held in Python while it does (the GUI's undo stack used to keep every imported row)."""

from __future__ import annotations

import tracemalloc

import pytest

from planner.store import Store

HEADER = "provider,gpu,price_per_gpu_hour,currency,kind,quoted_on\n"


def write_csv(path, rows: int, provider: str = "Batch") -> None:
    with path.open("w", encoding="utf-8") as handle:
        handle.write(HEADER)
        for i in range(rows):  # distinct prices: no row is a duplicate of another
            handle.write(f"{provider} {i},h100-sxm,{1 + i / 1e6:.6f},USD,on-demand,2026-09-01\n")


@pytest.fixture
def store(tmp_path):
    opened = Store.open(tmp_path / "undo.sqlite")
    yield opened
    opened.close()


def snapshot(store: Store) -> list[tuple]:
    return [tuple(row.values()) for row in store.rental_quotes.find()]


def test_an_import_is_set_aside_and_brought_back_exactly(store, tmp_path):
    before_id = store.rental_quotes.add({"provider": "Mine before", "gpu": "a100-sxm-80gb", "price_per_gpu_hour": 1.5,
                                         "currency": "USD", "quoted_on": "2026-08-01"})  # fmt: skip
    before = snapshot(store)  # the reference prices and the user's own quote
    write_csv(tmp_path / "q.csv", 50)
    result = store.rental_quotes.import_csv(tmp_path / "q.csv")
    assert result.added == 50 and result.batch is not None
    batch = result.batch
    assert batch.last_id - batch.first_id + 1 == 50 and batch.first_id > before_id
    imported = snapshot(store)
    assert len(imported) == len(before) + 50

    assert store.rental_quotes.set_aside(batch) == 50
    assert (
        snapshot(store) == before
    )  # exactly the import went: the user's earlier quote and the references stay
    assert store.rental_quotes.bring_back(batch) == batch  # ids free: the same ids
    assert snapshot(store) == imported  # every field back, created_at included


def test_a_quote_added_after_the_undo_keeps_its_id_and_survives_the_next_undo(store, tmp_path):
    write_csv(tmp_path / "q.csv", 20)
    batch = store.rental_quotes.import_csv(tmp_path / "q.csv").batch
    assert batch is not None
    store.rental_quotes.set_aside(batch)
    # SQLite gives the next quote the lowest free id above the table's last: the batch's own first id
    newcomer = store.rental_quotes.add({"provider": "Typed after undo", "gpu": "h100-sxm", "price_per_gpu_hour": 3.0,
                                        "currency": "USD", "quoted_on": "2026-09-02"})  # fmt: skip
    assert batch.first_id <= newcomer <= batch.last_id
    moved = store.rental_quotes.bring_back(batch)  # redo: the batch follows the table's last id, in one block
    assert moved.first_id > newcomer and moved.last_id - moved.first_id == batch.last_id - batch.first_id
    providers = [store.rental_quotes.get(i)["provider"] for i in range(moved.first_id, moved.last_id + 1)]
    assert providers == [f"Batch {i}" for i in range(20)]  # the file's order kept
    assert store.rental_quotes.set_aside(moved) == 20  # undo again: the batch, not the newcomer
    assert store.rental_quotes.get(newcomer)["provider"] == "Typed after undo"
    assert store.rental_quotes.count(mine_only=True) == 1


def test_undo_of_a_big_import_holds_no_rows_in_python(store, tmp_path):
    """100,000 rows as Python dicts take about 100 MB (the old undo kept them all); by batch, the Python heap's
    peak while setting them aside and bringing them back stays under 1 MB."""
    write_csv(tmp_path / "big.csv", 100_000)
    result = store.rental_quotes.import_csv(tmp_path / "big.csv")
    assert result.added == 100_000 and result.batch is not None
    mine = store.rental_quotes.count(mine_only=True)
    tracemalloc.start()
    try:
        assert store.rental_quotes.set_aside(result.batch) == 100_000
        assert store.rental_quotes.count(mine_only=True) == mine - 100_000
        back = store.rental_quotes.bring_back(result.batch)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert back == result.batch and store.rental_quotes.count(mine_only=True) == mine
    assert peak < 1_000_000, f"{peak:,} bytes"


def test_a_refused_import_has_no_batch(store, tmp_path):
    (tmp_path / "bad.csv").write_text(
        HEADER + "X,h100-sxm,not a price,USD,on-demand,2026-09-01\n", encoding="utf-8"
    )
    result = store.rental_quotes.import_csv(tmp_path / "bad.csv")
    assert result.refused and result.added == 0 and result.batch is None
