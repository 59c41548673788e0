"""Databases another tool damaged (issue 30, item 3): each kind is refused in one line that names what is wrong
and what to do, and the file is left byte for byte as it was.

Each database is a real GPU Advisor database (Store.open) that is then changed the way an SQLite browser or a
script would change it: a negative user_version, a dropped table, a dropped column, binary data or text in a
cell, a settings row that is not JSON, a version number older than the tables it holds.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from planner.cli import main
from planner.errors import UserError
from planner.store import Store
from tests.fixtures.quotes import LAMBDA_H100


def database_changed_by(tmp_path: Path, *statements: str) -> Path:
    path = tmp_path / "ledger.sqlite"
    with Store.open(path) as store:
        store.rental_quotes.add(LAMBDA_H100)
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return path


def digest(path: Path) -> str:
    return "".join(
        hashlib.sha256(file.read_bytes()).hexdigest() for file in sorted(path.parent.glob(path.name + "*"))
    )


DAMAGE = [
    ("PRAGMA user_version = -1", "error.db_bad_version", "version -1"),
    ("DROP TABLE plans", "error.db_missing_table", "lacks the table plans"),
    ("ALTER TABLE rental_quotes DROP COLUMN note", "error.db_missing_column", "lacks the column note"),
    (
        "UPDATE rental_quotes SET provider = x'00ff' WHERE origin = 'user'",
        "error.db_bad_cell",
        "column provider of row",
    ),
    (
        "UPDATE rental_quotes SET price_per_gpu_hour = 'cheap' WHERE origin = 'user'",
        "error.db_bad_cell",
        "holds TEXT where REAL belongs",
    ),
    (
        "INSERT INTO settings VALUES ('display_currency', '{not json', '2026-01-01')",
        "error.db_bad_cell",
        "holds TEXT where JSON belongs",
    ),
    ("PRAGMA user_version = 3", "error.db_cannot_upgrade", "cannot upgrade"),
]


@pytest.mark.parametrize(("statement", "code", "says"), DAMAGE, ids=[d[1] + ":" + d[0][:30] for d in DAMAGE])
def test_a_damaged_database_is_refused_in_one_line_and_left_unchanged(tmp_path, statement, code, says):
    path = database_changed_by(tmp_path, statement)
    before = digest(path)
    with pytest.raises(UserError) as refused:
        Store.open(path)
    assert refused.value.message.code == code
    text = str(refused.value)
    assert says in text and "\n" not in text
    assert "left unchanged" in text and "--db" in text  # what happened to the file, and what to do
    assert digest(path) == before


def test_the_cell_message_names_the_row_to_delete_and_deleting_it_recovers_every_other_row(tmp_path):
    path = database_changed_by(tmp_path, "UPDATE rental_quotes SET provider = x'00ff' WHERE origin = 'user'")
    conn = sqlite3.connect(path)
    bad_id, reference_rows = conn.execute(
        "SELECT (SELECT id FROM rental_quotes WHERE origin = 'user'), "
        "(SELECT count(*) FROM rental_quotes WHERE origin = 'reference')"
    ).fetchone()
    with pytest.raises(UserError) as refused:
        Store.open(path)
    assert f"DELETE FROM rental_quotes WHERE rowid = {bad_id}" in str(refused.value)
    conn.execute(f"DELETE FROM rental_quotes WHERE rowid = {bad_id}")  # the recovery the message gives
    conn.commit()
    conn.close()
    with Store.open(path) as store:
        assert store.rental_quotes.count() == reference_rows


def test_a_setting_of_the_wrong_shape_is_one_line_naming_the_key(tmp_path):
    path = database_changed_by(
        tmp_path, "INSERT INTO settings VALUES ('exchange_rates', '[1, 2]', '2026-01-01')"
    )
    with Store.open(path) as store, pytest.raises(UserError) as refused:
        store.settings.exchange_rates()
    assert refused.value.message.code == "error.db_bad_setting"
    assert "key = 'exchange_rates'" in str(refused.value)


def test_the_cli_prints_one_line_and_exits_2_for_a_damaged_database(tmp_path, capsys):
    path = database_changed_by(tmp_path, "ALTER TABLE rental_quotes DROP COLUMN note")
    assert main(["--db", str(path), "quotes", "list", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "lacks the column note" in captured.err


def test_the_kept_latest_schema_is_what_the_migrations_create() -> None:
    """schema_check.LATEST_SCHEMA (what an up-to-date file is checked against without importing sqlite_utils) is
    what running every migration on an empty database creates; on a new migration this prints the new value."""
    from planner.store.migrations import MIGRATIONS
    from planner.store.schema_check import LATEST_SCHEMA, expected_schema, latest_schema

    migrated = expected_schema(len(MIGRATIONS), tuple(MIGRATIONS))
    written = {
        table: " ".join(f"{c.name}:{c.declared}{'!' if c.not_null else ''}" for c in columns)
        for table, columns in migrated.items()
    }
    assert written == LATEST_SCHEMA, f"LATEST_SCHEMA = {written!r}"
    assert dict(latest_schema()) == dict(migrated)


def test_opening_an_up_to_date_database_imports_no_sqlite_utils(tmp_path: Path) -> None:
    """The desktop opens its database before the window shows: sqlite_utils (and pandas, which it imports where
        installed) stays out of that path once the file is at the latest version (the damaged files above are refused
    through the same path)."""
    import subprocess
    import sys

    path = database_changed_by(tmp_path)
    code = (
        "import sys; from planner.store import Store; Store.open(sys.argv[1]).close(); "
        "print(sorted(m for m in ('sqlite_utils', 'pandas', 'numpy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
