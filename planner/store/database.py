"""The unit every repository works through: one connection, one lock, one write transaction at a time.

GUI worker threads and the GUI thread share one connection, so every repository method holds the lock for
the whole call (the `guarded` decorator): a read never sees another thread's half-finished transaction, and two
threads never interleave statements. Writes run in one BEGIN IMMEDIATE transaction retried while another
process holds the write lock; a write inside a write joins the outer transaction. SQLite environment errors
become StoreEnvironmentError on the way out (planner/store/errors.py); bugs pass unchanged.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar

from planner.store.checked_stamp import record_clean_close
from planner.store.connection import run_in_write_transaction
from planner.store.errors import environment_errors_explained

T = TypeVar("T")
P = ParamSpec("P")


class Database:
    """The open connection of one Store, with the lock every access holds."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self._lock = threading.RLock()
        self._in_write = False
        self.on_wait: Callable[[], None] | None = None  # called once when a write waits for another process
        # PRAGMA data_version right after the open's checks (None: read-only or not yet checked); close() records
        # the file as checked when no other connection has committed since (checked_stamp.py)
        self.checked_data_version: int | None = None

    @contextmanager
    def guard(self) -> Iterator[sqlite3.Connection]:
        """Hold the lock; explain SQLite environment errors raised inside."""
        with self._lock, environment_errors_explained(self.path):
            yield self.conn

    def write(self, work: Callable[[], T]) -> T:
        """Run `work` in one write transaction (a nested call joins the outer one)."""
        with self.guard():
            if self._in_write:
                return work()
            self._in_write = True
            try:
                return run_in_write_transaction(self.conn, self.path, work, self.on_wait)
            finally:
                self._in_write = False

    def try_read(self, work: Callable[[sqlite3.Connection], T]) -> tuple[bool, T | None]:
        """(True, work(conn)) when the connection is free now, else (False, None) without waiting: a poll from
        the GUI thread must never wait behind another thread's long import."""
        if not self._lock.acquire(blocking=False):
            return False, None
        try:
            with self.guard() as conn:
                return True, work(conn)
        finally:
            self._lock.release()

    def data_version(self) -> int:
        """SQLite's data_version: it changes when another connection commits, never for this one's writes."""
        with self._lock:
            return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            record_clean_close(self.conn, self.path, self.checked_data_version)
            self.checked_data_version = None
            self.conn.close()


class Repository:
    """Base of the per-aggregate repositories: they share their Store's Database."""

    def __init__(self, db: Database) -> None:
        self._db = db

    @property
    def _conn(self) -> sqlite3.Connection:
        return self._db.conn


R = TypeVar("R", bound=Repository)


def guarded(method: Callable[Concatenate[R, P], T]) -> Callable[Concatenate[R, P], T]:
    """Run a repository method under its Database's guard (the lock, environment errors explained)."""

    @functools.wraps(method)
    def run(self: R, /, *args: P.args, **kwargs: P.kwargs) -> T:
        with self._db.guard():
            return method(self, *args, **kwargs)

    return run
