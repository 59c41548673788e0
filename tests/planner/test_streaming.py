"""Quote imports, listings and exports stream (issue 30, item 7): a listing is produced row by row, an import
checks and writes a chunk at a time (duplicates across chunks still named by their row, each found by one index
look-up), an import result lists the first reasons and counts them all, an export writes rows as they come and
still all or nothing, and a writer behind a long import says that it waits instead of failing after a minute of
silence. Time and peak memory at 1,000,000 rows are `make bench`'s (tests/bench/bench_streaming.py), not here."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator

import pytest

from planner.cli import main
from planner.errors import UserError
from planner.store import Store, default_db_path
from planner.store.quote_csv import write_quote_csv
from planner.store.quote_import import IMPORT_CHUNK_ROWS
from planner.store.quotes import PURCHASE, RENTAL
from tests.fixtures.quotes import LAMBDA_H100
from tests.planner.test_store import rental_csv


def test_a_listing_is_an_iterator_over_the_same_rows_find_returns(tmp_path):
    with Store.open(tmp_path / "ledger.sqlite") as store:
        for i in range(5):
            store.rental_quotes.add({**LAMBDA_H100, "offer": f"node-{i}"})
        streamed = store.rental_quotes.stream(mine_only=True)
        assert isinstance(streamed, Iterator) and not isinstance(streamed, list)
        assert list(streamed) == store.rental_quotes.find(mine_only=True)
        assert list(store.purchase_quotes.stream()) == store.purchase_quotes.find()


def test_the_streamed_json_listing_is_the_document_it_was(capsys, tmp_path):
    db = str(tmp_path / "ledger.sqlite")
    with Store.open(db) as store:
        store.rental_quotes.add(LAMBDA_H100)
        expected = [row["id"] for row in store.rental_quotes.find()]
    assert main(["--db", db, "quotes", "list", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["kind"] == "rental" and [q["id"] for q in document["quotes"]] == expected
    assert main(["--db", db, "quotes", "list", "--purchase", "--mine", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"kind": "purchase", "quotes": []}


def test_a_duplicate_of_a_row_in_an_earlier_chunk_is_named_by_its_row(tmp_path):
    rows = [{**LAMBDA_H100, "offer": f"node-{i}"} for i in range(IMPORT_CHUNK_ROWS + 10)]
    rows.append({**LAMBDA_H100, "offer": "node-3"})  # a copy of spreadsheet row 5, written in the first chunk
    with Store.open(tmp_path / "ledger.sqlite") as store:
        result = store.rental_quotes.import_csv(rental_csv(tmp_path / "q.csv", rows))
        assert result.added == IMPORT_CHUNK_ROWS + 10
        ((row, reason),) = result.duplicates
        assert (row, reason.text) == (len(rows) + 1, "duplicate of row 5")


def test_an_import_refused_for_a_bad_row_in_a_late_chunk_writes_nothing(tmp_path):
    rows = [{**LAMBDA_H100, "offer": f"node-{i}"} for i in range(IMPORT_CHUNK_ROWS * 2)]
    rows.append({**LAMBDA_H100, "offer": "bad", "price_per_gpu_hour": "-1"})
    with Store.open(tmp_path / "ledger.sqlite") as store:
        before = store.rental_quotes.count()
        result = store.rental_quotes.import_csv(rental_csv(tmp_path / "q.csv", rows))
        assert result.refused and result.added == 0 and store.rental_quotes.count() == before


def test_a_writer_behind_another_writer_says_it_waits_and_then_writes(capsys, monkeypatch):
    import planner.store.connection as connection

    # SQLite's own busy wait (5 s) comes first; shortened, so that the retry loop's notice shows within 2 s
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_MS", 100)
    Store.open().close()
    other = sqlite3.connect(str(default_db_path()), isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another process's long import holds the write lock for 2 s
    releaser = threading.Timer(2.0, lambda: other.execute("ROLLBACK"))
    releaser.start()
    started = time.monotonic()
    try:
        code = main(["quotes", "add", "--provider", "Lambda", "--gpu", "h100-sxm", "--price", "2.99"])
    finally:
        releaser.join()
        other.close()
    captured = capsys.readouterr()
    assert code == 0 and time.monotonic() - started >= 1.5
    assert captured.err.startswith("gpu-advisor: waiting: another GPU Advisor window or command is writing")


@pytest.mark.parametrize("spec", [RENTAL, PURCHASE], ids=lambda spec: spec.table)
def test_a_duplicate_is_found_through_the_identity_index_not_a_scan(tmp_path, spec):
    """SQLite's own query plan for the duplicate look-up: a search of the whole identity, whatever the file's
    providers (through the provider index alone a one-provider file of a million rows was quadratic)."""
    with Store.open(tmp_path / "ledger.sqlite") as store:
        conditions = " AND ".join(
            f"{c} = ? COLLATE NOCASE" if c in spec.text_columns else f"{c} = ?" for c in spec.dedupe_columns
        )
        sql = f"EXPLAIN QUERY PLAN SELECT id FROM {spec.table} WHERE {conditions} LIMIT 1"
        (plan,) = [row[3] for row in store.conn.execute(sql, [None] * len(spec.dedupe_columns))]
    searched = ", ".join(f"{c}=?" for c in spec.dedupe_columns).replace(", ", " AND ")
    assert plan == f"SEARCH {spec.table} USING COVERING INDEX idx_{spec.table}_identity ({searched})"


@pytest.mark.parametrize("skip_invalid", [True, False])
def test_duplicates_looked_up_a_chunk_at_a_time_are_named_as_row_by_row(tmp_path, monkeypatch, skip_invalid):
    """issue 30 item 3: the table look-up runs once per chunk (3 rows here); each duplicate is still named as
    when rows were looked up one by one: a stored quote (any letter case), a row of the same chunk, a row of an
    earlier chunk, and before a bad row that refuses the import, the duplicates of the rows above it."""
    import planner.store.quote_import as quote_import

    monkeypatch.setattr(quote_import, "IMPORT_CHUNK_ROWS", 3)
    node = [{**LAMBDA_H100, "offer": f"node-{i}"} for i in range(4)]
    rows = [
        node[0],                                   # row 2: new
        {**LAMBDA_H100, "provider": "LAMBDA", "offer": "stored"},  # row 3: the stored quote, other case
        node[0],                                   # row 4: row 2, same chunk
        node[1],                                   # row 5: new (second chunk)
        node[0],                                   # row 6: row 2, an earlier chunk
        {**LAMBDA_H100, "offer": "Stored"},        # row 7: the stored quote again
        node[1],                                   # row 8: row 5 (third chunk)
        {**LAMBDA_H100, "offer": "bad", "price_per_gpu_hour": "-1"},  # row 9: bad
        node[2],                                   # row 10: new
    ]  # fmt: skip
    with Store.open(tmp_path / "ledger.sqlite") as store:
        stored = store.rental_quotes.add({**LAMBDA_H100, "offer": "stored"})
        result = store.rental_quotes.import_csv(rental_csv(tmp_path / "q.csv", rows), skip_invalid=skip_invalid)
        named = [(row, reason.text) for row, reason in result.duplicates]
        assert named == [
            (3, f"duplicate of rental quote #{stored}"), (4, "duplicate of row 2"), (6, "duplicate of row 2"),
            (7, f"duplicate of rental quote #{stored}"), (8, "duplicate of row 5"),
        ]  # fmt: skip
        assert (result.added, result.refused) == ((3, False) if skip_invalid else (0, True))
        assert store.rental_quotes.count(mine_only=True) == (4 if skip_invalid else 1)


@pytest.mark.parametrize("spec", [RENTAL, PURCHASE], ids=lambda spec: spec.table)
def test_a_chunks_duplicates_are_found_through_the_identity_index(tmp_path, spec):
    """The per-chunk look-up searches the identity index once per row of the chunk, never scans the table."""
    from planner.store.quote_import import duplicates_query

    with Store.open(tmp_path / "ledger.sqlite") as store:
        plan = [row[3] for row in store.conn.execute("EXPLAIN QUERY PLAN " + duplicates_query(spec), ["[]"])]
    assert any(f"SEARCH t USING COVERING INDEX idx_{spec.table}_identity" in step for step in plan), plan
    assert not any(step.startswith("SCAN t") for step in plan), plan


def test_an_import_lists_the_first_reasons_and_counts_every_row(tmp_path, monkeypatch, capsys):
    import planner.store.quote_import as quote_import

    monkeypatch.setattr(quote_import, "REPORTED_ROWS_MAX", 3)
    good = [{**LAMBDA_H100, "offer": f"node-{i}"} for i in range(4)]
    bad = [{**LAMBDA_H100, "offer": f"bad-{i}", "price_per_gpu_hour": "-1"} for i in range(5)]
    path = rental_csv(tmp_path / "q.csv", good + good + bad)  # rows 2-5 new, 6-9 their copies, 10-14 bad
    db = str(tmp_path / "ledger.sqlite")
    with Store.open(db) as store:
        result = store.rental_quotes.import_csv(path, skip_invalid=True)
    assert (result.added, result.duplicate_rows, result.bad_rows, result.total_rows) == (4, 4, 5, 13)
    assert [row for row, _ in result.duplicates] == [6, 7, 8]
    assert [row for row, _ in result.errors] == [10, 11, 12]
    assert main(["--db", db, "quotes", "import", str(path), "--skip-invalid"]) == 0
    out, err = capsys.readouterr()
    assert (
        "row 12: " in err
        and "row 13" not in err
        and err.endswith("... and 2 more row(s) like these, not listed\n")
    )
    assert "... and 5 more row(s) like these, not listed" in out  # all 8 rows are duplicates now: 3 listed
    assert out.endswith("imported 0 rental quote(s) from " + str(path) + "; 8 duplicate(s) not added; "
                        "5 bad row(s) skipped (listed on stderr)\n")  # fmt: skip


def test_an_export_writes_rows_as_they_come_and_a_failure_half_way_keeps_the_old_file(tmp_path):
    target = tmp_path / "quotes.csv"
    target.write_text("last week's export\n", encoding="utf-8")

    def rows() -> Iterator[dict[str, object]]:
        for i in range(5000):
            if i == 4500:
                raise sqlite3.OperationalError("disk I/O error")  # the database fails half way through
            yield {**LAMBDA_H100, "offer": f"node-{i}"}

    with pytest.raises(sqlite3.OperationalError):
        write_quote_csv(target, RENTAL, rows())
    assert target.read_text(encoding="utf-8") == "last week's export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["quotes.csv"]  # no temporary file left behind
    assert (
        write_quote_csv(target, RENTAL, ({**LAMBDA_H100, "offer": f"node-{i}"} for i in range(4500))) == 4500
    )
    with Store.open(tmp_path / "ledger.sqlite") as store:
        result = store.rental_quotes.import_csv(target)
        assert (result.added, result.bad_rows) == (4500, 0)
        with pytest.raises(UserError, match="database"):
            store.rental_quotes.export_csv(store.path)  # the database file itself is never the target
