"""Opening the SQLite file safely: where it lives, corrupt files moved aside, pragmas, and retried writes.

`open_connection` is the whole opening sequence Store.open runs: check the location, refuse a file that is not
SQLite (a typo such as --db quotes.csv: the file is left alone), move a damaged SQLite file aside (never
deleting it), open a database on read-only media read-only, refuse a newer or foreign database without writing
a byte, then set the pragmas. Every SQLite environment error on the way is a StoreEnvironmentError (planner/store/errors.py).

Why each setting:
- WAL journal: readers never block the writer and the writer never blocks readers (the GUI lists quotes while
  the CLI imports), and a process killed mid-write leaves the last committed state intact.
- busy_timeout plus a retry loop around BEGIN IMMEDIATE: two processes that write at once wait for each other
  instead of failing with "database is locked". BEGIN IMMEDIATE takes the write lock up front, so a transaction
  that read first never has to upgrade its lock (the upgrade is what fails instantly in WAL mode).
- synchronous=FULL: a committed quote survives a power cut, not only a crashed process; commits are rare and
  small, so the fsync per commit costs nothing a person notices.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from planner.errors import UserError
from planner.files import open_regular_file
from planner.messages import msg
from planner.store.checked_stamp import unchanged_since_check
from planner.store.errors import busy_error, environment_errors_explained, is_busy, is_corruption

SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 5000
# A writer that still cannot get the lock after this long is shown a clear "busy" message instead. A writer
# behind a long import (a million quotes: minutes) waits, and says so once it has waited WAIT_NOTICE_AFTER_S.
WRITE_RETRY_DEADLINE_S = 900.0
WAIT_NOTICE_AFTER_S = 1.0

T = TypeVar("T")


def default_db_path() -> Path:
    """GPU_ADVISOR_DB when set (the CLI's --db sets it), else <user data dir>/gpu-advisor.sqlite."""
    configured = os.environ.get("GPU_ADVISOR_DB")
    if configured:
        return Path(configured).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("gpu-advisor", appauthor=False)) / "gpu-advisor.sqlite"


def utc_now_iso() -> str:
    """Current time as ISO-8601 UTC with a trailing Z, second precision."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def looks_like_sqlite(path: Path) -> bool:
    """True for a missing or empty file (SQLite creates it) or one that starts with the SQLite header.

    UserError for a path that is not a regular file (a FIFO would block the open forever, a device is no
    database); the file is opened non-blocking and checked on the open descriptor."""
    if not path.exists():
        return True
    with open_regular_file(path) as handle:
        head = handle.read(len(SQLITE_HEADER))
    return head == b"" or head == SQLITE_HEADER


def is_read_only(path: Path) -> bool:
    """An existing database this process may not write (read-only media, folder or file): it is opened
    read-only so that every read still works, and only a write is refused (error.db_read_only)."""
    return path.exists() and not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK))


def move_aside(path: Path) -> Path:
    """Rename a damaged database (and its -wal/-shm companions) to <name>.corrupt-<timestamp>; delete nothing."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    counter = 1
    while target.exists():
        counter += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{counter}")
    os.replace(path, target)
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            os.replace(companion, target.with_name(target.name + suffix))
    return target


def open_connection(path: Path, latest_version: int) -> tuple[sqlite3.Connection, Path | None, bool]:
    """A configured connection to the database at `path`, where a damaged file was moved (or None), and whether
    the file is the one GPU Advisor last checked and closed (checked_stamp.py: its pages were not read again).

    Refuses (UserError, file untouched) a folder, a database written by a newer GPU Advisor (user_version
    above `latest_version`) and another program's database.
    """
    _prepare_location(path)
    if not _looks_like_sqlite(path):  # a typo such as --db quotes.csv: the user's file is left as it is
        raise UserError.of(msg("error.db_not_sqlite", path=str(path)))
    read_only = is_read_only(path)
    recovered = None
    trusted = unchanged_since_check(path)
    with environment_errors_explained(path):
        conn = connect(path, read_only=read_only)
        if is_damaged(conn, every_page=not trusted):
            conn.close()
            recovered = _move_damaged_aside(path)
            read_only = False
            trusted = False
            conn = connect(path)
        try:
            retry_while_busy(lambda: refuse_foreign(conn, path, latest_version))
            retry_while_busy(lambda: configure(conn, read_only=read_only))
        except BaseException:
            conn.close()
            raise
    return conn, recovered, trusted


def _prepare_location(path: Path) -> None:
    if path.is_dir():
        raise UserError.of(msg("error.db_is_folder", path=str(path)))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise UserError.of(
            msg("error.db_cannot_create_folder", folder=str(path.parent), reason=reason)
        ) from None


def _looks_like_sqlite(path: Path) -> bool:
    try:
        return looks_like_sqlite(path)
    except OSError as exc:  # e.g. a file this user may not read
        raise UserError.of(
            msg("error.db_unreadable", path=str(path), reason=exc.strerror or str(exc))
        ) from None


def _move_damaged_aside(path: Path) -> Path:
    """move_aside, with a file that cannot be renamed (read-only folder or media, /proc) as a UserError: the
    file is left as it was, and the GUI shows one line instead of crashing on an OSError."""
    try:
        return move_aside(path)
    except OSError as exc:
        raise UserError.of(
            msg("error.db_cannot_move_aside", path=str(path), reason=exc.strerror or str(exc))
        ) from None


def connect(path: Path, *, read_only: bool = False) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit) that any thread of this process may use.

    read_only: SQLite's mode=ro. Where no -wal file is left (every clean close removes it) the file is also
    opened immutable: in a read-only folder SQLite could not create the -shm file a WAL reader needs."""
    target: str = str(path)
    if read_only:
        from urllib.parse import quote

        immutable = "" if path.with_name(path.name + "-wal").exists() else "&immutable=1"
        target = f"file:{quote(str(path.resolve()))}?mode=ro{immutable}"
    conn = sqlite3.connect(
        target, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False, uri=read_only
    )
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def is_damaged(conn: sqlite3.Connection, every_page: bool = True) -> bool:
    """Whether the file is damaged or not a database: reads the schema and (every_page) checks every page. Other
    errors (locked, unreadable) are raised, to be reported as what they are."""
    try:
        conn.execute("PRAGMA user_version").fetchone()
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        verdict = conn.execute("PRAGMA quick_check(1)").fetchone()[0] if every_page else "ok"
    except sqlite3.DatabaseError as exc:
        if is_corruption(exc):
            return True
        raise
    return bool(verdict != "ok")


def refuse_foreign(conn: sqlite3.Connection, path: Path, latest_version: int) -> None:
    """Refuse, without writing a byte, a database from a newer GPU Advisor or from another program.

    The version and the tables are read in one read transaction: another process may be creating this
    database right now, and tables seen without its version would look like another program's.
    """
    conn.execute("BEGIN")
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]
    finally:
        conn.execute("ROLLBACK")  # read only: nothing to keep
    if version > latest_version:
        raise UserError.of(msg("error.db_newer", path=str(path), version=version, latest=latest_version))
    if version == 0 and tables:
        raise UserError.of(msg("error.db_foreign", path=str(path)))


def configure(conn: sqlite3.Connection, *, read_only: bool = False) -> None:
    """Pragmas that change the file (WAL) or only this connection (foreign keys, fsync policy)."""
    if read_only:  # the journal mode is the file's: a read-only connection may not change it
        conn.execute("PRAGMA foreign_keys = ON")
        return
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":  # e.g. a network file system; still correct, only less concurrent
        conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = FULL")


def run_in_write_transaction(
    conn: sqlite3.Connection, path: Path, work: Callable[[], T], on_wait: Callable[[], None] | None = None
) -> T:
    """Run `work` inside BEGIN IMMEDIATE ... COMMIT, retrying the whole transaction while another process writes.

    `work` must only touch the database (it may run more than once). Any exception rolls everything back. A
    writer that waits past WRITE_RETRY_DEADLINE_S gets a StoreEnvironmentError ("busy"); any other SQLite error
    is raised as it is, for the caller to classify. `on_wait` is called once, when the writer has waited
    WAIT_NOTICE_AFTER_S (the CLI says on stderr that it waits, instead of a minute of silence).
    """
    delay_s = 0.02
    started = time.monotonic()
    noticed = on_wait is None
    while True:
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = work()
                conn.execute("COMMIT")
                return result
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        except sqlite3.OperationalError as exc:
            if not is_busy(exc):
                raise
            waited_s = time.monotonic() - started
            if waited_s > WRITE_RETRY_DEADLINE_S:
                raise busy_error(path, waited_s) from None
            if not noticed and waited_s >= WAIT_NOTICE_AFTER_S and on_wait is not None:
                noticed = True
                on_wait()
            time.sleep(delay_s)
            delay_s = min(delay_s * 2, 0.25)


def retry_while_busy(work: Callable[[], T]) -> T:
    """Run `work` (reads or idempotent pragmas), retrying while another process holds a lock it needs.

    Two processes opening a new database at the same moment (the GUI and a CLI command) meet here: switching
    to WAL needs an exclusive lock, and SQLite may answer "database is locked" at once instead of waiting.
    """
    delay_s = 0.02
    deadline = time.monotonic() + WRITE_RETRY_DEADLINE_S
    while True:
        try:
            return work()
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() > deadline:
                raise
            time.sleep(delay_s)
            delay_s = min(delay_s * 2, 0.25)
