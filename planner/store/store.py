"""The Store: the one owner of the SQLite ledger in a process (GUI or CLI), and the unit of its repositories.

A Store holds one connection (WAL journal, busy timeout, one lock; planner/store/database.py) and exposes one
repository per aggregate over it: ``store.rental_quotes``, ``store.purchase_quotes``, ``store.probe_runs``,
``store.plans``, ``store.settings``, ``store.user_gpus``. Opening creates, upgrades (migrations.py) and seeds
(seed.py) the database as needed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from planner.store.connection import default_db_path, is_read_only, open_connection
from planner.store.database import Database
from planner.store.errors import environment_errors_explained
from planner.store.migrations import LATEST_VERSION, MIGRATIONS, migrate
from planner.store.plans import Plans
from planner.store.probe_runs import ProbeRuns
from planner.store.quote_repository import PurchaseQuotes, RentalQuotes
from planner.store.schema_check import check_database
from planner.store.seed import seed_reference_prices
from planner.store.settings import Settings
from planner.store.user_gpus import UserGpus

if TYPE_CHECKING:
    from planner.store.protocols import StoreProtocol


class Store:
    """The ledger. Create with Store.open(); close() when done (or use it as a context manager)."""

    def __init__(self, db: Database, recovered_from: Path | None = None) -> None:
        self._db = db
        self.recovered_from = recovered_from  # where a damaged database was moved, or None
        # True when the file was the one GPU Advisor last checked and closed, so that its every page and cell
        # were not read again on open (planner/store/checked_stamp.py)
        self.opened_unchanged = False
        self.user_gpus = UserGpus(db)
        self.rental_quotes = RentalQuotes(db, self.user_gpus.resolver)
        self.purchase_quotes = PurchaseQuotes(db, self.user_gpus.resolver)
        self.probe_runs = ProbeRuns(db, self.user_gpus.all)
        self.plans = Plans(db)
        self.settings = Settings(db)

    @classmethod
    def open(cls, path: str | Path | None = None, on_wait: Callable[[], None] | None = None) -> Store:
        """Open (creating, upgrading and seeding as needed) the database at `path`, GPU_ADVISOR_DB or the user data
        folder. A damaged SQLite file is moved aside (see .recovered_from); a file that is not SQLite, another
        program's database, a newer schema and a database whose tables, columns or cells are not what its version
        says (planner/store/schema_check.py) are refused, untouched. A read-only file is opened read-only."""
        path = Path(path).expanduser() if path else default_db_path()
        conn, recovered, unchanged = open_connection(path, LATEST_VERSION)
        db = Database(conn, path)
        db.on_wait = on_wait  # before the seeding below, whose write may wait too
        try:
            with environment_errors_explained(path):
                check_database(conn, path, tuple(MIGRATIONS), every_cell=not unchanged)
            migrate(db)
            seed_reference_prices(db)
            if not is_read_only(path):  # from here on, a commit of another connection is unchecked
                db.checked_data_version = db.data_version()
        except BaseException:
            db.close()
            raise
        store = cls(db, recovered)
        store.opened_unchanged = unchanged
        return store

    @property
    def path(self) -> Path:
        return self._db.path

    @property
    def conn(self) -> sqlite3.Connection:
        """The connection itself, for tests and diagnostics (pragmas, query plans); code goes through the
        repositories."""
        return self._db.conn

    @property
    def schema_version(self) -> int:
        with self._db.guard() as conn:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])

    def data_stamp(self) -> tuple[int, int]:
        """A value that changes whenever the database changes: rows this connection changed, and SQLite's
        data_version (bumped by every commit of another connection, e.g. a CLI import). Caches of query
        results compare it to know they are still current; it costs one pragma, no table read."""
        with self._db.guard() as conn:
            return conn.total_changes, self._db.data_version()

    def others_version(self) -> int | None:
        """SQLite's data_version: it changes when another connection (another window, another process, the CLI)
        commits, never for this connection's own writes; None when another thread is using the connection right
        now (the caller asks again later instead of waiting)."""
        _free, version = self._db.try_read(
            lambda conn: int(conn.execute("PRAGMA data_version").fetchone()[0])
        )
        return version

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


if TYPE_CHECKING:

    def _implements_the_protocol(store: Store) -> StoreProtocol:
        return store  # mypy checks here that Store has every member of StoreProtocol
