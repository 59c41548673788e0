"""Databases another tool damaged (issue 30 item 3), against the commands that open the ledger.

A fresh seeded ledger gets one generated damage: any user_version (negative, zero, far ahead), a table dropped, a
column dropped, a cell of any type (binary, text, a number, NaN, NULL) written over any column of any table, a
setting whose value is not the JSON the app wrote. Properties: the command exits 0 or 2 with one line, never a
traceback; a refusal leaves the file's bytes as they were (the -wal included); a file that is still SQLite is
never moved aside as corrupt. New tables and columns are damaged as soon as a migration adds them.
"""

from __future__ import annotations

import hashlib
import itertools
import shutil
import sqlite3
from functools import cache
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.fuzz.harness import Violation, explorer, fuzz_settings, moved_aside, run_in_process

pytestmark = pytest.mark.slow

COUNTER = itertools.count()
COMMANDS = (
    ["history", "--json"],
    ["quotes", "list", "--json"],
    ["quotes", "list", "--purchase", "--mine"],
    ["quotes", "add", "--provider", "Fuzz", "--gpu", "h100-sxm", "--price", "2.5", "--json"],
    ["rentbuy", "--gpu", "h100-sxm", "--gpus", "8", "--json"],
    ["plan", "--model", "7b", "--gpu", "h100-sxm", "--gpus", "8", "--task", "finetune", "--json"],
)
SETTING_KEYS = ("display_currency", "exchange_rates", "fuzz/other")


@cache
def seeded_ledger(folder: Path) -> Path:
    """A ledger as the app leaves it (seeded, one quote of the user's), made once per sandbox."""
    path = folder / "seeded.sqlite"
    run_in_process(["--db", str(path), "quotes", "add", "--provider", "Mine", "--gpu", "h100-sxm", "--price", "3"],
                   "seed")  # fmt: skip
    return path


@cache
def schema(path: Path) -> dict[str, tuple[str, ...]]:
    conn = sqlite3.connect(path)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: tuple(r[1] for r in conn.execute(f'PRAGMA table_info("{t}")')) for t in sorted(tables)}
    finally:
        conn.close()


cell_values = st.one_of(
    st.binary(max_size=8), st.text(max_size=8), st.integers(-(2**63), 2**63 - 1), st.floats(), st.none(),
    st.sampled_from(("{", "[1, 2", "null", "1e999", "\x00", "NaN")),
)  # fmt: skip


@st.composite
def damage(draw, tables: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    kind = draw(st.sampled_from(("version", "drop_table", "drop_column", "cell", "setting")))
    table = draw(st.sampled_from(sorted(tables)))
    if kind == "version":
        return kind, str(draw(st.one_of(st.integers(-(2**31), 2**31 - 1), st.sampled_from((-1, 0, 7, 99)))))
    if kind == "drop_table":
        return kind, table
    column = draw(st.sampled_from(tables[table]))
    if kind == "drop_column":
        return kind, table, column
    if kind == "cell":
        return kind, table, column, draw(cell_values)
    return kind, draw(st.sampled_from(SETTING_KEYS)), draw(st.one_of(st.text(max_size=12), cell_values))


def apply(path: Path, change: tuple) -> bool:
    """Damage the file as another tool would; False when SQLite itself refuses that change (nothing done)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        kind = change[0]
        if kind == "version":
            conn.execute(f"PRAGMA user_version = {int(change[1])}")
        elif kind == "drop_table":
            conn.execute(f'DROP TABLE "{change[1]}"')
        elif kind == "drop_column":
            for (index,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? "
                                         "AND sql IS NOT NULL", [change[1]]).fetchall():  # fmt: skip
                conn.execute(f'DROP INDEX "{index}"')  # SQLite drops no column an index uses
            conn.execute(f'ALTER TABLE "{change[1]}" DROP COLUMN "{change[2]}"')
        elif kind == "cell":
            done = conn.execute(f'UPDATE "{change[1]}" SET "{change[2]}" = ? WHERE rowid = (SELECT min(rowid) '
                                f'FROM "{change[1]}")', [change[3]])  # fmt: skip
            return done.rowcount > 0
        else:
            conn.execute("INSERT OR REPLACE INTO settings (key, value, updated_at) VALUES (?, ?, '2026-01-01')",
                         [change[1], change[2]])  # fmt: skip
        return True
    except sqlite3.Error:  # a primary key, NOT NULL, the last column: not a file the app could meet this way
        return False
    finally:
        conn.close()


def fingerprint(path: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(path.parent.glob(path.name + "*"))}


def test_damaged_databases(sandbox):
    fuzz = explorer("damaged databases (store)")
    original = seeded_ledger(sandbox)
    tables = schema(original)

    @fuzz_settings(1.0)
    @given(damage(tables), st.sampled_from(COMMANDS))
    def explore(change, command):
        folder = sandbox / f"case-{next(COUNTER)}"
        folder.mkdir()
        db = folder / "ledger.sqlite"
        shutil.copyfile(original, db)
        assume(apply(db, change))
        before = fingerprint(db)
        run = run_in_process(["--db", str(db), *command], fuzz.entry, wants_json="--json" in command)
        extra = []
        if run.code == 2 and fingerprint(db) != before:
            extra.append(Violation("db-written", f"a refusal changed the damaged file ({change[0]})"))
        if moved_aside(folder):
            extra.append(Violation("moved-aside", f"a SQLite file damaged by {change[0]} was moved aside"))
        fuzz.check(run, extra)
        shutil.rmtree(folder, ignore_errors=True)

    explore()
    fuzz.finish()
