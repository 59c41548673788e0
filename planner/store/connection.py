"""Opening the SQLite file safely: where it lives, corrupt files moved aside, pragmas, and retried writes.

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
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar

from planner.errors import UserError

SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 5000
# A writer that still cannot get the lock after this long is shown a clear "busy" message instead.
WRITE_RETRY_DEADLINE_S = 60.0
# sqlite3 result codes (https://www.sqlite.org/rescode.html) that mean "this file is not a usable database".
SQLITE_CORRUPT = 11
SQLITE_NOTADB = 26
SQLITE_BUSY = 5
SQLITE_LOCKED = 6

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
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def looks_like_sqlite(path: Path) -> bool:
    """True for a missing or empty file (SQLite creates it) or one that starts with the SQLite header."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return True
    return head == b"" or head == SQLITE_HEADER


def is_corruption(exc: sqlite3.DatabaseError) -> bool:
    """A DatabaseError that says the file is damaged or not a database (as opposed to locked or read-only)."""
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11+
    if code is not None:
        return code & 0xFF in (SQLITE_CORRUPT, SQLITE_NOTADB)
    text = str(exc).lower()
    return "not a database" in text or "malformed" in text or "corrupt" in text


def is_busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (SQLITE_BUSY, SQLITE_LOCKED)
    text = str(exc).lower()
    return "locked" in text or "busy" in text


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


def connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit) that any thread of this process may use."""
    try:
        conn = sqlite3.connect(
            str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
    except sqlite3.OperationalError as exc:
        raise UserError(f"cannot open the database {path}: {exc}") from None
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def check_readable(conn: sqlite3.Connection) -> int:
    """Read the schema version and check the pages; raises sqlite3.DatabaseError for a damaged file."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    verdict = conn.execute("PRAGMA quick_check(1)").fetchone()[0]
    if verdict != "ok":
        raise sqlite3.DatabaseError(f"database disk image is malformed ({verdict})")
    return int(version)


def configure(conn: sqlite3.Connection) -> None:
    """Pragmas that change the file (WAL) or only this connection (foreign keys, fsync policy)."""
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":  # e.g. a network file system; still correct, only less concurrent
        conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = FULL")


def run_in_write_transaction(conn: sqlite3.Connection, work: Callable[[], T]) -> T:
    """Run `work` inside BEGIN IMMEDIATE ... COMMIT, retrying the whole transaction while another process writes.

    `work` must only touch the database (it may run more than once). Any exception rolls everything back.
    """
    delay_s = 0.02
    deadline = time.monotonic() + WRITE_RETRY_DEADLINE_S
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
                raise _environment_error(exc) from None
            if time.monotonic() > deadline:
                raise UserError(
                    "the database is busy: another GPU Advisor window or command has been writing to it for "
                    f"over {WRITE_RETRY_DEADLINE_S:.0f} s; try again when it has finished"
                ) from None
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


def _environment_error(exc: sqlite3.OperationalError) -> Exception:
    """A full disk or a read-only file is the user's environment, not a bug: say so in one line."""
    text = str(exc).lower()
    if "disk is full" in text or "readonly" in text or "read-only" in text or "unable to open" in text:
        return UserError(f"cannot write the database: {exc}")
    return exc
