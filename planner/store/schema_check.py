"""Checking that an existing database is what its version says it is, before anything reads or writes it.

A GPU Advisor database can be edited by other tools (an SQLite browser, a script, a half-restored backup). What
such an edit can leave behind, and what the check refuses, each in one line that says what to do, the file left
unchanged (nothing is written before the check passes):
- a version this program never wrote (PRAGMA user_version below 0: only our migrations set it);
- a table or a column that the version promises but that is missing (dropped, renamed);
- a cell of the wrong type (binary data or text where a number belongs, a number or binary data where text
  belongs): SQLite stores any value in any column, so the declared type proves nothing;
- a JSON column (a setting, a saved plan, a user GPU type, a probe report) that is not JSON.

What the version promises comes from running the same migrations (migrations.py) on an empty in-memory database.
For the latest version its result is kept below (LATEST_SCHEMA), so opening an up-to-date database imports no
sqlite_utils (0.4 s of start-up, 1-2 s more where pandas is installed: sqlite_utils imports it);
tests/planner/test_store_damaged.py runs the migrations and checks LATEST_SCHEMA against them. The type check is one scan per table inside SQLite
(about 40 ms per 100,000 quotes); it names the first bad row, so the user can fix or delete that one row. It is
skipped for a file GPU Advisor itself last checked and closed (checked_stamp.py).
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from planner.errors import UserError
from planner.messages import msg

if TYPE_CHECKING:
    import sqlite_utils

# Columns that hold JSON text (read back with json.loads).
JSON_COLUMNS = {
    "settings": ("value",),
    "plans": ("inputs_json", "results_json"),
    "user_gpus": ("spec_json",),
    "probe_runs": ("report_json", "device_names"),
}


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    declared: str  # TEXT, INTEGER, FLOAT
    not_null: bool


Schema = Mapping[str, tuple[Column, ...]]  # table -> its columns

# What every migration in migrations.py creates, as `expected_schema` reads it back: "column:TYPE", "!" for NOT
# NULL. A new migration changes it (the test named in the module docstring prints the new value).
LATEST_SCHEMA = {
    "settings": "key:TEXT value:TEXT! updated_at:TEXT",
    "machines": "id:INTEGER name:TEXT! hostname:TEXT kind:TEXT! created_at:TEXT!",
    "probe_runs": "id:INTEGER machine_id:INTEGER! created_at:TEXT! saved_at:TEXT! mode:TEXT! source:TEXT! label:TEXT "
    "report_json:TEXT! best_bf16_flop_per_s:REAL memory_bandwidth_bytes_per_s:REAL device_names:TEXT! "
    "report_sha256:TEXT",
    "measurements": "id:INTEGER run_id:INTEGER! device:TEXT! kind:TEXT! dtype:TEXT value:REAL unit:TEXT! ok:INTEGER! "
    "peer:TEXT",
    "gpus_seen": "id:INTEGER machine_id:INTEGER! gpu_key:TEXT! name:TEXT! catalog_id:TEXT memory_total_bytes:INTEGER "
    "first_seen:TEXT! last_seen:TEXT!",
    "rental_quotes": "id:INTEGER provider:TEXT! offer:TEXT! gpu:TEXT! gpus_per_instance:INTEGER! "
    "price_per_gpu_hour:REAL! price_per_instance_hour:REAL! currency:TEXT! kind:TEXT! region:TEXT! quoted_on:TEXT! "
    "source:TEXT! note:TEXT! origin:TEXT! seed_key:TEXT created_at:TEXT! interconnect:TEXT! min_term_hours:REAL "
    "valid_until:TEXT! interruptions_per_hour:REAL",
    "purchase_quotes": "id:INTEGER vendor:TEXT! gpu:TEXT! gpus:INTEGER! price:REAL! currency:TEXT! quoted_on:TEXT! "
    "source:TEXT! note:TEXT! origin:TEXT! seed_key:TEXT created_at:TEXT! server_overhead_fraction:REAL power_w:REAL",
    "user_gpus": "id:TEXT spec_json:TEXT! created_at:TEXT! updated_at:TEXT!",
    "plans": "id:INTEGER name:TEXT! inputs_json:TEXT! results_json:TEXT! created_at:TEXT! updated_at:TEXT!",
}


def latest_schema() -> Schema:
    """LATEST_SCHEMA as the Columns `expected_schema` gives."""
    return {
        table: tuple(
            Column(name, declared.rstrip("!"), declared.endswith("!"))
            for name, declared in (column.split(":") for column in spec.split())
        )
        for table, spec in LATEST_SCHEMA.items()
    }


@functools.cache
def expected_schema(version: int, migrations: tuple[Callable[[sqlite_utils.Database], None], ...]) -> Schema:
    """The tables and columns that migrations[:version] create, read from an in-memory database."""
    import sqlite_utils  # only here: see the module docstring

    conn = sqlite3.connect(":memory:")
    try:
        tables = sqlite_utils.Database(conn, execute_plugins=False)
        for migration in migrations[:version]:
            migration(tables)
        return read_schema(conn)
    finally:
        conn.close()


def read_schema(conn: sqlite3.Connection) -> dict[str, tuple[Column, ...]]:
    names = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {
        name: tuple(
            Column(str(column), str(declared).upper(), bool(not_null))
            for _cid, column, declared, not_null, _default, _pk in conn.execute(
                "SELECT * FROM pragma_table_info(?)", [name]
            )
        )
        for name in names
        if not name.startswith("sqlite_")
    }


def check_database(
    conn: sqlite3.Connection,
    path: Path,
    migrations: tuple[Callable[[sqlite_utils.Database], None], ...],
    every_cell: bool = True,
) -> None:
    """Refuse (UserError, nothing written) a database whose version, tables, columns or (every_cell) cells are
    not what GPU Advisor wrote. A new database (version 0, no tables) passes."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version < 0:
        raise UserError.of(msg("error.db_bad_version", path=str(path), version=version))
    if version == 0:
        return
    version = min(version, len(migrations))
    expected = latest_schema() if version == len(migrations) else expected_schema(version, migrations)
    present = read_schema(conn)
    for table, columns in expected.items():
        if table not in present:
            raise UserError.of(msg("error.db_missing_table", path=str(path), table=table, version=version))
        have = {column.name for column in present[table]}
        for column in columns:
            if column.name not in have:
                raise UserError.of(
                    msg(
                        "error.db_missing_column",
                        path=str(path),
                        table=table,
                        column=column.name,
                        version=version,
                    )
                )
    for table, columns in expected.items():
        if every_cell:
            _check_cells(conn, path, table, columns)


def _check_cells(conn: sqlite3.Connection, path: Path, table: str, columns: tuple[Column, ...]) -> None:
    """One scan of `table` for the first row with a cell of the wrong type, or JSON text that is not JSON."""
    json_columns = JSON_COLUMNS.get(table, ())
    conditions = [_cell_is_bad(column, column.name in json_columns) for column in columns]
    conditions = [condition for condition in conditions if condition]
    if not conditions:
        return
    # names from GPU Advisor's own migrations (expected_schema), never from the file; quoted all the same
    quoted_table = _quoted(table)
    bad = conn.execute(
        f"SELECT rowid, {', '.join(_quoted(c.name) for c in columns)} FROM {quoted_table} "
        f"WHERE {' OR '.join(conditions)} LIMIT 1"
    ).fetchone()
    if bad is None:
        return
    row_id, *cells = bad
    named = list(zip(columns, cells, strict=True))
    at_fault = [
        (column, cell)
        for column, cell in named
        if _python_cell_is_bad(column, column.name in json_columns, cell)
    ]
    # else JSON that Python reads but SQLite's json_valid refuses (NaN, Infinity): the first JSON column
    column, cell = (at_fault or [(column, cell) for column, cell in named if column.name in json_columns])[0]
    found = conn.execute("SELECT upper(typeof(?))", [cell]).fetchone()[0]
    raise UserError.of(
        msg(
            "error.db_bad_cell",
            path=str(path),
            table=table,
            row=int(row_id),
            column=column.name,
            found=found,
            expected="JSON" if column.name in json_columns else column.declared,
        )
    )


def _cell_is_bad(column: Column, is_json: bool) -> str:
    """An SQL condition true when the column's cell has the wrong type ('' when any value will do).

    Written as comparisons, which SQLite evaluates faster than typeof(): in its sort order numbers come before
    text and text before binary data, so `x >= ''` holds for text and binary data and `x >= x''` for binary data
    only (NULL compares to nothing). A TEXT column converts any number written to it into text (its affinity),
    so what can go wrong there is binary data; in a number column, text or binary data."""
    name = _quoted(column.name)
    if column.declared == "TEXT":
        condition = f"{name} >= x''"
    elif column.declared in ("INTEGER", "FLOAT", "REAL"):
        condition = f"{name} >= ''"
    else:
        return ""
    if is_json:
        condition += f" OR ({name} IS NOT NULL AND NOT json_valid({name}))"
    return f"({condition})"


def _python_cell_is_bad(column: Column, is_json: bool, cell: object) -> bool:
    """_cell_is_bad for a value read back (bytes: binary data; str: text), to name the column at fault."""
    if column.declared == "TEXT" and isinstance(cell, bytes):
        return True
    if column.declared in ("INTEGER", "FLOAT", "REAL") and isinstance(cell, (str, bytes)):
        return True
    if is_json and isinstance(cell, str):
        try:
            json.loads(cell)
        except ValueError:
            return True
    return False


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
