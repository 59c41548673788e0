"""Undoable quote edits (QUndoStack commands): edit a field, add quotes, delete quotes.

Each command is applied once by the caller *before* it is pushed (so a refused write never reaches the
stack); the stack's first redo() call is therefore skipped. Undo of a delete puts the very same rows back
(the store's restore keeps their ids), so redo after undo deletes the same ids again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QUndoCommand

from desktop.plurals import plurals
from desktop.quote_pricing import Row

if TYPE_CHECKING:
    from planner.store.rows import ImportBatch


class QuoteRows(Protocol):
    """What the commands do to the quotes table (desktop.qmodels.quotes.QuoteTableModel, which pushes them, so
    it is named here by what it offers): write a quote's fields, put stored rows back or take them out, say it
    changed. `kind` is its QuoteKind (the store's restore, get and delete for that kind of quote)."""

    kind: Any
    edited: Any  # a Qt signal

    def write(self, quote_id: Any, changes: Mapping[str, object]) -> bool: ...

    def insert_rows(self, rows: list[Row]) -> None: ...

    def remove_ids(self, ids: list[Any]) -> None: ...


class BatchQuotes(Protocol):
    """The store's side of an import's undo (planner.store.quote_repository.QuoteRepository)."""

    def set_aside(self, batch: ImportBatch) -> int: ...

    def bring_back(self, batch: ImportBatch) -> ImportBatch: ...


def _tr(text: str) -> str:
    return QCoreApplication.translate("QuoteCommands", text)


class _AppliedOnce(QUndoCommand):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._skip_first_redo = True

    def redo(self) -> None:
        if self._skip_first_redo:
            self._skip_first_redo = False
            return
        self.do()

    def do(self) -> None:
        raise NotImplementedError


class EditQuoteCommand(_AppliedOnce):
    """An edit of some fields of one quote; `names` are the fields as people read them (column headers), so
    the Edit menu says "Undo edit of Price / GPU-h", never the stored field's name."""

    def __init__(
        self,
        model: QuoteRows,
        quote_id: Any,
        old: Mapping[str, object],
        new: Mapping[str, object],
        names: Sequence[str] = (),
    ) -> None:
        label = ", ".join(names) or QCoreApplication.translate("QuoteCommands", "a quote")
        super().__init__(QCoreApplication.translate("QuoteCommands", "edit of {0}").format(label))
        self.model, self.quote_id, self.old, self.new = model, quote_id, dict(old), dict(new)

    def apply(self, changes: Mapping[str, object]) -> bool:
        return self.model.write(self.quote_id, changes)

    def do(self) -> None:
        self.apply(self.new)

    def undo(self) -> None:
        self.apply(self.old)


class AddQuotesCommand(_AppliedOnce):
    """``rows`` are the stored rows (with ids) that were just added."""

    def __init__(self, model: QuoteRows, rows: Sequence[Row], text: str | None = None) -> None:
        super().__init__(text or plurals().adding_quotes(len(rows)))
        self.model, self.rows = model, [dict(r) for r in rows]

    def do(self) -> None:
        _restore(self.model, self.rows)

    def undo(self) -> None:
        _delete(self.model, self.rows)


# background(work, then): run work() off the GUI thread, one at a time in the order asked, then then() on it
Background = Callable[[Callable[[], object], Callable[[], object]], None]


class ImportBatchCommand(_AppliedOnce):
    """A CSV import, undone and redone by its batch (planner.store.ImportBatch): the store sets the rows aside and
    brings them back in SQL, so the stack holds three values, never the rows (a million-row import stays in
    bounded memory). `changed` reloads the tables.

    With `background` the SQL runs off the GUI thread (a million rows: seconds): undo and redo return at once, and
    `changed` is called when the store is done. `background` must run its works one at a time in the order they
    were asked for (an undo then a redo), so each work reads the batch the previous one left."""

    def __init__(
        self,
        quotes: BatchQuotes,
        batch: ImportBatch,
        changed: Callable[[], object],
        text: str,
        background: Background | None = None,
    ) -> None:
        super().__init__(text)
        self.quotes, self.batch, self.changed = quotes, batch, changed
        self.background = background

    def do(self) -> None:
        self._run(self._bring_back)

    def undo(self) -> None:
        self._run(lambda: self.quotes.set_aside(self.batch))

    def _bring_back(self) -> None:
        self.batch = self.quotes.bring_back(self.batch)  # on the worker: the next work in line reads it

    def _run(self, work: Callable[[], object]) -> None:
        if self.background is None:
            work()
            self.changed()
        else:
            self.background(work, self.changed)


class DeleteQuotesCommand(_AppliedOnce):
    """``rows`` are the rows the store returned when deleting them."""

    def __init__(self, model: QuoteRows, rows: Sequence[Row]) -> None:
        super().__init__(plurals().deleting_quotes(len(rows)))
        self.model, self.rows = model, [dict(r) for r in rows]

    def do(self) -> None:
        _delete(self.model, self.rows)

    def undo(self) -> None:
        _restore(self.model, self.rows)


# The model is updated row by row (not reloaded from the store): with 100,000 quotes a reload takes a second.
def _restore(model: QuoteRows, rows: list[dict[str, Any]]) -> None:
    for row in rows:
        row["id"] = model.kind.restore(row)
    model.insert_rows([model.kind.get(row["id"]) for row in rows])
    model.edited.emit()


def _delete(model: QuoteRows, rows: list[dict[str, Any]]) -> None:
    for row in rows:
        model.kind.delete(row["id"])
    model.remove_ids([row["id"] for row in rows])
    model.edited.emit()
