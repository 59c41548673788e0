"""SQLite errors split in two, as qutebrowser's misc/sql.py does (KnownError / BugError).

- Environment errors: the disk is full, the file or its folder is read-only, the file is damaged or not a
  database, another process kept the lock past our retries, the operating system reported an I/O failure.
  Nothing in GPU Advisor is wrong and the user can act on it, so they become StoreEnvironmentError: a UserError
  carrying a planner.messages.Message (the CLI prints one line and exits 2, the GUI shows it in the user's
  language).
- Everything else (an SQL syntax error, a violated constraint, a closed connection, a wrong parameter count) is
  a bug in this package and is raised unchanged, with its traceback.

The split is by SQLite's primary result code (https://www.sqlite.org/rescode.html), which Python 3.11 exposes
as ``sqlite3.Error.sqlite_errorcode`` (extended codes carry the primary code in their low byte); the English
text of the error is only shown, never parsed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from planner.errors import UserError
from planner.messages import Message, msg

# Primary result codes (sqlite3.h). Only the ones this module classifies are named.
SQLITE_ERROR = 1
SQLITE_PERM = 3
SQLITE_BUSY = 5
SQLITE_LOCKED = 6
SQLITE_NOMEM = 7
SQLITE_READONLY = 8
SQLITE_IOERR = 10
SQLITE_CORRUPT = 11
SQLITE_FULL = 13
SQLITE_CANTOPEN = 14
SQLITE_PROTOCOL = 15
SQLITE_NOLFS = 22
SQLITE_NOTADB = 26

# Environment code -> the message code that explains it to the user.
_ENVIRONMENT_MESSAGES = {
    SQLITE_FULL: "error.db_disk_full",
    SQLITE_READONLY: "error.db_read_only",
    SQLITE_PERM: "error.db_read_only",
    SQLITE_CANTOPEN: "error.db_cannot_open",
    SQLITE_CORRUPT: "error.db_corrupt",
    SQLITE_NOTADB: "error.db_corrupt",
    SQLITE_BUSY: "error.db_locked",
    SQLITE_LOCKED: "error.db_locked",
    SQLITE_PROTOCOL: "error.db_locked",
    SQLITE_IOERR: "error.db_io",
    SQLITE_NOLFS: "error.db_io",
    SQLITE_NOMEM: "error.db_io",
}


class StoreEnvironmentError(UserError):
    """The database cannot be used because of the machine it lives on, not because of a bug.

    ``sqlite_code`` is SQLite's primary result code (None for a condition found without an SQLite error, e.g.
    a writer that never got the lock within the retry deadline).
    """

    def __init__(self, message: Message, sqlite_code: int | None = None) -> None:
        super().__init__(message.text, message)
        self.sqlite_code = sqlite_code


def primary_code(exc: sqlite3.Error) -> int | None:
    """SQLite's primary result code of `exc` (None for errors raised by the sqlite3 module itself)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else int(code) & 0xFF


def is_busy(exc: sqlite3.Error) -> bool:
    """Another connection holds a lock this statement needs (worth retrying)."""
    return primary_code(exc) in (SQLITE_BUSY, SQLITE_LOCKED)


def is_corruption(exc: sqlite3.Error) -> bool:
    """The file is damaged or is not a database at all (as opposed to locked or read-only)."""
    return primary_code(exc) in (SQLITE_CORRUPT, SQLITE_NOTADB)


def environment_error(exc: sqlite3.Error, path: Path) -> StoreEnvironmentError | None:
    """The StoreEnvironmentError that explains `exc`, or None when `exc` is a bug."""
    code = primary_code(exc)
    if code is None or code not in _ENVIRONMENT_MESSAGES:
        return None
    return StoreEnvironmentError(msg(_ENVIRONMENT_MESSAGES[code], path=str(path), detail=str(exc)), code)


def busy_error(path: Path, waited_s: float) -> StoreEnvironmentError:
    """A writer gave up after waiting `waited_s` seconds for another process's write lock."""
    return StoreEnvironmentError(msg("error.db_busy", path=str(path), waited_s=waited_s), SQLITE_BUSY)


@contextmanager
def environment_errors_explained(path: Path) -> Iterator[None]:
    """Inside the block, an SQLite environment error becomes a StoreEnvironmentError; bugs pass unchanged."""
    try:
        yield
    except sqlite3.Error as exc:
        explained = environment_error(exc, path)
        if explained is None:
            raise
        raise explained from exc
