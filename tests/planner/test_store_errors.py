"""SQLite errors split in two: the machine's fault (disk full, read-only, locked, damaged) is a
StoreEnvironmentError a person can act on; a fault of the code (bad SQL, a broken constraint) stays a bug.

Every error here is a real one from SQLite, provoked the way it happens in the field: a database that reaches
its size limit (PRAGMA max_page_count stands in for a full disk, and SQLite answers it with the same
SQLITE_FULL), a connection that may not write (PRAGMA query_only: SQLITE_READONLY), another process holding
the write lock (BEGIN IMMEDIATE on a second connection: SQLITE_BUSY), a file that is not a database
(SQLITE_NOTADB). Result codes: https://www.sqlite.org/rescode.html.
"""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

import pytest

from planner.cli import main
from planner.errors import UserError
from planner.store import RENTAL_COLUMNS, Store, StoreEnvironmentError, default_db_path
from planner.store.database import Database
from planner.store.errors import environment_error
from tests.fixtures.quotes import LAMBDA_H100

QUOTE = LAMBDA_H100


@pytest.fixture
def store():
    with Store.open() as opened:
        yield opened


def many_quotes(path: Path, rows: int) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(RENTAL_COLUMNS), extrasaction="ignore")
        writer.writeheader()
        writer.writerows({**QUOTE, "offer": f"node-{i}", "note": "x" * 200} for i in range(rows))
    return path


def test_a_full_disk_is_one_clear_error_and_the_import_writes_nothing(store, tmp_path):
    before = store.rental_quotes.count()
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count = {pages + 2}")  # room for two more pages only
    with pytest.raises(StoreEnvironmentError) as refused:
        store.rental_quotes.import_csv(many_quotes(tmp_path / "big.csv", 2000))
    assert refused.value.sqlite_code == 13  # SQLITE_FULL
    assert refused.value.message.code == "error.db_disk_full"
    assert str(refused.value).startswith(f"cannot write the database {store.path}: the disk is full")
    assert isinstance(refused.value, UserError)  # the CLI prints it as one line with exit code 2
    assert store.rental_quotes.count() == before  # the transaction was rolled back whole


def test_a_database_that_may_not_be_written_says_so(store):
    store.conn.execute("PRAGMA query_only = ON")
    with pytest.raises(StoreEnvironmentError) as refused:
        store.rental_quotes.add(QUOTE)
    assert refused.value.sqlite_code == 8  # SQLITE_READONLY
    assert "read-only" in str(refused.value)
    store.conn.execute("PRAGMA query_only = OFF")
    assert store.rental_quotes.find(mine_only=True) == []  # reading went on working throughout


def test_a_writer_that_never_gets_the_lock_gives_up_with_a_busy_message(store, monkeypatch):
    import planner.store.connection as connection

    monkeypatch.setattr(connection, "WRITE_RETRY_DEADLINE_S", 0.3)
    store.conn.execute("PRAGMA busy_timeout = 20")
    other = sqlite3.connect(str(store.path), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process is writing
    try:
        with pytest.raises(StoreEnvironmentError) as refused:
            store.rental_quotes.add(QUOTE)
        assert refused.value.message.code == "error.db_busy"
        assert "is busy: another GPU Advisor window or command has been writing to it" in str(refused.value)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert store.rental_quotes.get(store.rental_quotes.add(QUOTE))["provider"] == "Lambda"  # free again


def test_the_cli_reports_a_busy_database_in_one_line_with_exit_code_2(capsys, monkeypatch):
    import planner.store.connection as connection

    Store.open().close()  # created and seeded, so opening it again writes nothing
    monkeypatch.setattr(connection, "WRITE_RETRY_DEADLINE_S", 0.3)
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_MS", 20)
    other = sqlite3.connect(str(default_db_path()), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        code = main(["quotes", "add", "--provider", "Lambda", "--gpu", "h100-sxm", "--price", "2.99"])
    finally:
        other.execute("ROLLBACK")
        other.close()
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("gpu-advisor: the database ") and "is busy" in err


def test_a_file_that_is_not_a_database_is_classified_as_damaged(tmp_path):
    notes = tmp_path / "notes.sqlite"
    notes.write_bytes(b"my notes, not a database\n" * 200)
    conn = sqlite3.connect(str(notes))
    try:
        with pytest.raises(sqlite3.DatabaseError) as raised:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    finally:
        conn.close()
    explained = environment_error(raised.value, notes)
    assert explained is not None and explained.sqlite_code == 26  # SQLITE_NOTADB
    assert explained.message.code == "error.db_corrupt" and str(notes) in str(explained)


def test_bugs_are_raised_as_they_are(tmp_path):
    conn = sqlite3.connect(str(tmp_path / "bugs.sqlite"), isolation_level=None, check_same_thread=False)
    conn.execute("CREATE TABLE t (x TEXT NOT NULL)")
    db = Database(conn, tmp_path / "bugs.sqlite")
    with pytest.raises(sqlite3.OperationalError) as syntax:  # SQLITE_ERROR: a typo in our SQL
        with db.guard():
            conn.execute("SELEC 1")
    assert environment_error(syntax.value, db.path) is None
    with pytest.raises(sqlite3.IntegrityError) as constraint:  # SQLITE_CONSTRAINT: a row we built wrong
        db.write(lambda: conn.execute("INSERT INTO t (x) VALUES (NULL)"))
    assert environment_error(constraint.value, db.path) is None
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 0  # and the transaction was rolled back
    with pytest.raises(sqlite3.ProgrammingError):  # the sqlite3 module's own error: a wrong parameter count
        with db.guard():
            conn.execute("SELECT ?", [1, 2])
    db.close()
