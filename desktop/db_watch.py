"""Another window or process changed the database: tell this window's pages, without a restart.

Each window has its own AppContext and its own SQLite connection; a second window, a second `gpu-advisor`
process or the CLI (`gpu-advisor quotes import`) writes through another connection. SQLite's `PRAGMA
data_version` changes exactly when another connection has committed (never for this connection's own writes,
which the pages already announce), so a timer polls it: one pragma, microseconds, no table read. The poll never
waits: when a background job holds the connection it skips that tick (planner.store.Store.others_version). On a
change every "changed" signal of the context fires; the caches behind them (GPU catalog, price book) are dropped
by their own listeners and the pages reload what they show.
"""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QObject, QTimer


class WatchedContext(Protocol):
    """What the watcher reads of a window's desktop.context.AppContext (which starts it, so it is named here by
    what it offers): the store it polls and the "changed" signals it fires."""

    @property
    def store(self) -> Any: ...

    settings_changed: Any
    quotes_changed: Any
    probe_runs_changed: Any
    plans_changed: Any


POLL_MS = 1000  # how soon another window's edit shows here; one pragma a second costs nothing measurable


class DatabaseWatcher(QObject):
    """Polls the context's store for commits of other connections and re-announces them as this window's own."""

    def __init__(self, context: WatchedContext, interval_ms: int = POLL_MS) -> None:
        super().__init__(context if isinstance(context, QObject) else None)  # the context owns it
        self.context = context
        self.changes_seen = 0  # how many outside changes were announced (the tests read it)
        self._version = self._read()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.poll)
        self._timer.start()

    def _read(self) -> int | None:
        read = getattr(self.context.store, "others_version", None)
        if read is None:  # a store without the pragma (a test double): nothing to watch
            return None
        try:
            version = read()
        except (OSError, ValueError):  # the database went away (StoreEnvironmentError is a ValueError): later
            return None
        return int(version) if version is not None else None

    def poll(self) -> None:
        version = self._read()
        if version is None:
            return  # busy or unreadable: ask again on the next tick
        if self._version is None:
            self._version = version
            return
        if version == self._version:
            return
        self._version = version
        self.changes_seen += 1
        context = self.context
        for signal in (context.settings_changed, context.quotes_changed, context.probe_runs_changed,
                       context.plans_changed):  # fmt: skip
            signal.emit()

    def stop(self) -> None:
        self._timer.stop()
