"""QuoteTableModel: rental or purchase quotes from the store, editable in place, with derived price columns.

The model is a thin adapter: an edit is validated with the store's own validator (the same one CSV import uses)
and refused with the reasons (``edit_refused``), otherwise written through an undoable command on the page's
QUndoStack. Reference prices shipped with the app are read-only. Derived columns (price in the display currency,
per useful GPU-hour, per PFLOP-hour, per TB/s-hour) come from a ``derive`` function the page supplies, so the
model holds no business rules of its own.

A window over SQLite, never the whole table: the store filters and sorts (by stored or derived columns, as SQL
expressions over the page's pricing snapshot) and counts in SQL (planner/store/quote_view.py), the model keeps
the visible ids in order (8 bytes a quote) and reads the rows on screen a page at a time
(desktop/qmodels/quote_window.py). Columns, kinds and the filter live in desktop/qmodels/quote_columns.py.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore
from PySide6.QtCore import QCoreApplication, QDate, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QFont, QPalette
from PySide6.QtWidgets import QApplication

from desktop import fmt
from desktop.qmodels.base import RIGHT_ALIGNED, SORT_ROLE, FlatTableModel
from desktop.qmodels.quote_columns import (
    PURCHASE_COLUMNS,
    RENTAL_COLUMNS,
    ROW_ROLE,
    TYPICAL_RATE,
    Column,
    Derived,
    QuoteFilter,
    QuoteKind,
    model_tr,
    rate_text,
    rate_tooltip,
)
from desktop.qmodels.quote_window import Arranged, RowsView, RowWindow, view_pricing
from desktop.quote_kinds import KIND_NAMES
from desktop.quote_pricing import SYNC_ROWS, LoadProgress, Pricing, Row
from planner.store import ViewQuery, ViewSort, ViewStats
from planner.visible_text import pictured_controls

if TYPE_CHECKING:
    from PySide6.QtGui import QUndoStack

__all__ = [
    "KIND_NAMES",
    "PURCHASE_COLUMNS",
    "RENTAL_COLUMNS",
    "ROW_ROLE",
    "SORT_ROLE",
    "Arranged",
    "Column",
    "Derived",
    "QuoteFilter",
    "QuoteKind",
    "QuoteTableModel",
    "Row",
    "model_tr",
    "rate_text",
]

DERIVED_HELD = 10_000  # derived figures kept (rows shown lately); beyond it they are worked out again


class QuoteTableModel(FlatTableModel):
    """The quotes of one kind, filtered and sorted by the store in SQL (no proxy model, no row held twice).

    An arrangement (load, sort, filter) asks the store for the visible ids in order: now for small tables, in
    ``background`` (the page's JobRunner) for tables of more than SYNC_ROWS quotes, so the GUI thread never sorts a
    million rows; a newer request supersedes an older one, and quotes added or deleted meanwhile are kept or left
    out. Rows on screen are read by id a page at a time (RowWindow), so edits show their newest values.

    Signals: edit_refused(reason) when a value is refused; edited() after any write (for quotes_changed);
    arranged() when the visible rows were re-sorted or re-filtered (also after a background arrangement).
    """

    CONTEXT = "QuoteTableModel"
    edit_refused = Signal(str)
    edited = Signal()
    arranged = Signal()

    def __init__(
        self,
        kind: QuoteKind,
        derive: Callable[[Row], Derived] | None = None,
        parent: QtCore.QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.kind = kind
        self.columns = kind.columns
        self.derive = derive
        self.window = RowWindow(kind.quotes)  # the visible ids in display order, and the rows on screen
        self.rows = RowsView(self.window)  # the visible rows as a sequence (read through the window)
        self._derived: dict[Any, Derived] = {}
        self._stats: ViewStats | None = None
        self.quote_filter = QuoteFilter()
        self.sort_column = -1
        self.sort_order = Qt.SortOrder.AscendingOrder
        self.spec_version = 0  # bumped whenever the filter or the sort changes
        # the page's pricing snapshot, which derived columns sort by (None: they sort as missing)
        self.pricing: Callable[[], Pricing] | None = None
        # background(work, apply): run work() off the GUI thread, then apply(result) on it; None: synchronous
        self.background: Callable[[Callable[[], Any], Callable[[Any], None]], None] | None = None
        self.pending = False  # a background arrangement is under way
        self._loaded = False  # set_view came once: before it a sort or filter only records itself
        self._generation = 0
        self._mutations = 0  # bumped by every change of the rows; an arrangement made before one is re-checked
        self._inserted_while_pending: list[int] = []
        self._removed_while_pending: set[int] = set()
        self.undo_stack: QUndoStack | None = None  # set by the page; None: edits are written without undo
        self.read_only = False  # while a background import or load writes to the model
        self.display_currency = "USD"  # shown in the derived columns' headers
        self.gpu_names: dict[str, str] = {}  # catalog id -> display name

    # -- loading -----------------------------------------------------------------------------------------------
    def reload(self) -> None:
        """Arrange the table again from the store on this thread, with its counts (the page loads big tables in
        a job instead: arranger(with_stats=True), then set_view)."""
        self.set_view(self.arranger(with_stats=True)(None), self.spec_version)

    def set_view(self, arranged: Arranged, version: int | None = None) -> None:
        """A fresh arrangement of the whole table (a load); ``version``: the spec_version it was made for (an
        older one is arranged again)."""
        if arranged.stats is not None:
            self._stats = arranged.stats
        self._loaded = True
        self._derived.clear()
        self._mutations += 1
        if version is not None and version == self.spec_version:
            self._generation += 1
            self._apply(arranged, self._generation, reset=True, mutations=self._mutations)
        else:
            self.rearrange(reset=True)

    def stats(self) -> ViewStats:
        """Counts over every quote of the table; before the first load none (a load brings them: a count of a
        million quotes is never made on the GUI thread)."""
        if self._stats is None:
            return ViewStats(0, 0, frozenset(), frozenset())
        return self._stats

    def _count_in(self, rows: Sequence[Row], sign: int) -> None:
        """Keep the counts current as rows come (+1) or go (-1) without counting the table again."""
        stats = self._stats
        if stats is None:
            return
        reference = sum(1 for row in rows if row.get("origin") == "reference")
        gpus = stats.gpus | {str(row["gpu"]) for row in rows if row.get("gpu")} if sign > 0 else stats.gpus
        currencies = stats.currencies
        if sign > 0:
            currencies = currencies | {str(row["currency"]) for row in rows if row.get("currency")}
        self._stats = ViewStats(
            max(stats.mine + sign * (len(rows) - reference), 0),
            max(stats.reference + sign * reference, 0),
            gpus,
            currencies,
        )

    def refresh_derived(self, display_currency: str | None = None) -> None:
        """Recompute the derived columns (display currency, rates or probe runs changed)."""
        if display_currency and display_currency != self.display_currency:
            self.display_currency = display_currency
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(self.columns) - 1)
        self._derived.clear()
        if len(self.window):
            first = [i for i, c in enumerate(self.columns) if c.derived]
            self.dataChanged.emit(self.index(0, min(first)), self.index(len(self.window) - 1, max(first)))
        if 0 <= self.sort_column < len(self.columns) and self.columns[self.sort_column].derived:
            self.rearrange(reset=False)  # converted prices may change the order of mixed currencies

    def reformat(self) -> None:
        """The interface language changed: the derived columns are cached as formatted text ("$2.75" becomes
        "2,75 $"), so drop them and let every cell and header be worded again."""
        self._derived.clear()
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(self.columns) - 1)
        if len(self.window):
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.window) - 1, len(self.columns) - 1))

    # -- filtering and sorting (in SQL) ------------------------------------------------------------------------
    def set_filter(self, **values: Any) -> None:
        """Show only the quotes matching ``values`` (QuoteFilter fields)."""
        self.quote_filter = replace(self.quote_filter, **values)
        self.spec_version += 1
        self.rearrange(reset=True)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Qt calls this when a header is clicked (QTableView.setSortingEnabled)."""
        if (column, order) == (self.sort_column, self.sort_order):
            return  # QTableView.sortByColumn asks twice (directly and through the header's indicator)
        self.sort_column, self.sort_order = column, order
        self.spec_version += 1
        self.rearrange(reset=False)

    def view_query(self) -> ViewQuery:
        """The current filter and sort, with the pricing snapshot, as the store's SQL takes them."""
        sort = ViewSort()
        if 0 <= self.sort_column < len(self.columns):
            column = self.columns[self.sort_column]
            how = "derived" if column.derived else "text"
            if column.editor in ("money", "float", "int", "rate"):
                how = "number"
            elif column.editor in ("gpu", "kind"):
                how = column.editor
            descending = self.sort_order == Qt.SortOrder.DescendingOrder
            sort = ViewSort(column.key, how, descending, tuple(KIND_NAMES))
        pricing = self.pricing() if self.pricing is not None else None
        return ViewQuery(self.quote_filter.view(), sort, view_pricing(pricing), dict(self.gpu_names))

    def arranger(self, with_stats: bool = False) -> Callable[[LoadProgress | None], Arranged]:
        """A function (progress or None) -> Arranged for the current filter and sort, safe on a pool thread:
        the store answers it in SQL on a connection of its own."""
        query, quotes = self.view_query(), self.kind.quotes

        def work(progress: LoadProgress | None) -> Arranged:
            report = None if progress is None else (lambda fraction: progress(fraction, "loading"))
            ids = quotes.view_ids(query, report)
            return Arranged(ids, quotes.view_stats() if with_stats else None)

        return work

    def rearrange(self, reset: bool = True) -> None:
        """Filter and sort again: now for small tables, in ``background`` for big ones (before the first load
        nothing: the load arranges by the spec as it then is)."""
        if not self._loaded:
            return
        self._generation += 1
        generation, mutations = self._generation, self._mutations
        work = self.arranger()
        stats = self._stats
        total = self.kind.quotes.count() if stats is None else max(stats.mine + stats.reference, len(self.window))
        if self.background is not None and total > SYNC_ROWS:
            self.pending = True
            self._inserted_while_pending, self._removed_while_pending = [], set()
            self.background(
                lambda: work(None), lambda result: self._apply(result, generation, reset, mutations)
            )
        else:
            self._apply(work(None), generation, reset, mutations)

    def _apply(self, arranged: Arranged, generation: int, reset: bool, mutations: int) -> None:
        if generation != self._generation:
            return  # a newer arrangement was asked for meanwhile
        ids = arranged.ids if isinstance(arranged.ids, array) else array("q", arranged.ids)
        if mutations != self._mutations:  # quotes came or went while the store arranged them
            if self._removed_while_pending:
                gone = self._removed_while_pending
                ids = array("q", (quote_id for quote_id in ids if quote_id not in gone))
            ids.extend(quote_id for quote_id in self._inserted_while_pending if quote_id not in ids)
        self._inserted_while_pending, self._removed_while_pending = [], set()
        self.pending = False
        if reset or len(ids) != len(self.window):
            self.beginResetModel()
            self.window.set_ids(ids)
            self.endResetModel()
        else:
            self._reorder(ids)
        self.arranged.emit()

    def _reorder(self, ids: array[int]) -> None:
        """Same rows, new order: a layout change, so the selection and the current cell follow their quotes."""
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        size = len(self.window)
        old_ids = [self.window.id_at(index.row()) if 0 <= index.row() < size else None for index in old]
        self.window.set_ids(ids)
        positions = self.window.positions_of({quote_id for quote_id in old_ids if quote_id is not None})
        new = [
            self.index(positions[quote_id], index.column()) if quote_id in positions else QModelIndex()
            for quote_id, index in zip(old_ids, old, strict=True)
        ]
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()

    # -- rows in place (add, delete, edit, undo) ---------------------------------------------------------------
    def row_of_id(self, quote_id: Any) -> int:
        """The visible position of a quote, -1 when it is filtered out or gone."""
        return self.window.position_of(quote_id)

    def row_of(self, quote_id: Any) -> Row | None:
        """The stored row of a quote (held on screen, or read by id), None when it is gone."""
        held = self.window.held_row(quote_id)
        if held is not None and held.get("created_at") is not None:
            return held
        found = self.kind.quotes.rows_by_ids([int(quote_id)])
        return found[0] if found else None

    def insert_rows(self, rows: list[Row]) -> None:
        """Stored rows that are new to the model: listed at the end (where a new quote is easy to find)."""
        for row in rows:
            self._derived.pop(row["id"], None)
        self._count_in(rows, +1)
        self._mutations += 1
        self._show_at_end(rows)

    def _show_at_end(self, rows: Sequence[Row]) -> None:
        shown = [r["id"] for r in rows if self.quote_filter.accepts(r, self.kind.provider_key)]
        if self.pending:
            self._inserted_while_pending.extend(shown)
        shown = [quote_id for quote_id in shown if self.window.position_of(quote_id) < 0]
        if shown:
            self.beginInsertRows(QModelIndex(), len(self.window), len(self.window) + len(shown) - 1)
            self.window.append(shown)
            self.endInsertRows()

    def remove_ids(self, ids: list[Any]) -> None:
        """Deleted quotes (the user's own: reference prices cannot be deleted) leave the table."""
        for quote_id in ids:
            self._derived.pop(quote_id, None)
        self._count_in([{"origin": "user"} for _ in ids], -1)
        self._mutations += 1
        if self.pending:
            self._removed_while_pending.update(int(quote_id) for quote_id in ids)
        positions = self.window.positions_of({int(quote_id) for quote_id in ids})
        for position in sorted(positions.values(), reverse=True):
            self.beginRemoveRows(QModelIndex(), position, position)
            self.window.remove_at(position)
            self.endRemoveRows()

    def replace_row(self, quote_id: Any, row: Row) -> None:
        """An edited row, in place (it does not jump away while being edited; the next sort places it)."""
        self._derived.pop(quote_id, None)
        if row.get("gpu") or row.get("currency"):  # a new GPU or currency joins the filters' choices
            stats = self._stats
            if stats is not None:
                self._stats = replace(
                    stats,
                    gpus=stats.gpus | ({str(row["gpu"])} if row.get("gpu") else set()),
                    currencies=stats.currencies | ({str(row["currency"])} if row.get("currency") else set()),
                )
        self._mutations += 1
        position = self.row_of_id(quote_id)
        if position < 0:
            self._show_at_end([row])
            return
        self.window.replace(position, row)
        self.dataChanged.emit(self.index(position, 0), self.index(position, len(self.columns) - 1))

    def column_of(self, key: str) -> int:
        for position, column in enumerate(self.columns):
            if column.key == key:
                return position
        raise KeyError(key)

    def _derived_for(self, position: int) -> Derived | None:
        if self.derive is None:
            return None
        row = self.window.row_at(position)
        derived = self._derived.get(row["id"])
        if derived is None:
            if len(self._derived) >= DERIVED_HELD:
                self._derived.clear()  # bounded like the pages: the rows on screen are worked out again
            derived = self._derived[row["id"]] = self.derive(row)
        return derived

    # -- Qt model interface ------------------------------------------------------------------------------------
    def row_total(self) -> int:
        return len(self.window)

    def column_headers(self) -> tuple[str, ...]:
        return self.kind.headers

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:  # noqa: N802
        """Headers name the display currency ("{0} / GPU-h") and explain the derived columns in a tooltip."""
        if orientation != Qt.Orientation.Horizontal or not (0 <= section < len(self.columns)):
            return None
        column = self.columns[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return model_tr(column.header).format(self.display_currency)
        if role == Qt.ItemDataRole.ToolTipRole and column.tooltip:
            return model_tr(column.tooltip)
        return None

    def field_title(self, key: str) -> str:
        """A stored field as its column header reads ("Price / GPU-h"), for the Edit menu's Undo and Redo."""
        for column in self.columns:
            if column.key == key:
                return " ".join(model_tr(column.header).format(self.display_currency).split())
        return key

    def is_reference(self, position: int) -> bool:
        return self.window.row_at(position).get("origin") == "reference"

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        column = self.columns[index.column()]
        if column.editor and not column.derived and not self.read_only and not self.is_reference(index.row()):
            flags |= Qt.ItemFlag.ItemIsEditable
        return flags

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self.window)):
            return None
        row = self.window.row_at(index.row())
        column = self.columns[index.column()]
        if column.derived:
            return self._derived_data(index.row(), column.key.removeprefix("derived:"), role)
        value = row.get(column.key)
        if role == Qt.ItemDataRole.DisplayRole:
            shown = self._display(column, value, row)
            return pictured_controls(shown) if isinstance(shown, str) else shown  # a provider's ESC shows as ␛
        if role == Qt.ItemDataRole.EditRole:
            if column.editor == "date":
                return QDate.fromString(str(value), "yyyy-MM-dd") if value else QDate()
            return value if value is not None else ""
        if role == SORT_ROLE:
            return value if isinstance(value, (int, float)) else str(value or "").casefold()
        if role == ROW_ROLE:
            return row
        if role == Qt.ItemDataRole.ToolTipRole:
            if self.is_reference(index.row()):
                return QCoreApplication.translate(
                    "QuoteTableModel",
                    "Reference price shipped with GPU Advisor (read-only; duplicate it to edit): {0}",
                ).format(row.get("source") or "")
            if column.editor == "text" and value:
                return str(value)  # free text may be elided in its column
            if column.editor == "rate":
                return rate_tooltip(value, row)
            return None
        if role == Qt.ItemDataRole.FontRole and self.is_reference(index.row()):
            font = QFont()
            font.setItalic(True)
            return font
        if role == Qt.ItemDataRole.ForegroundRole and self.is_reference(index.row()):
            return QBrush(QApplication.palette().color(QPalette.ColorRole.PlaceholderText))
        if role == Qt.ItemDataRole.TextAlignmentRole and column.numeric:
            return RIGHT_ALIGNED
        return None

    def _display(self, column: Column, value: Any, row: Row) -> str:
        if column.editor == "rate" and value in (None, "") and row.get("kind") == "spot":
            return model_tr(TYPICAL_RATE)  # not stated: planning assumes the provider's typical rate
        if value is None or value == "":
            return ""
        if column.key == "kind":
            return model_tr(KIND_NAMES[value]) if value in KIND_NAMES else str(value)
        if column.editor == "money":
            return fmt.money(float(value), str(row.get("currency") or ""))
        if column.key == "server_overhead_fraction":
            return fmt.percent(float(value))
        if column.editor == "float":
            return fmt.significant(float(value), 4)
        if column.editor == "rate":
            return rate_text(float(value))
        if column.editor == "int":
            return fmt.integer(int(value))
        if column.editor == "date":
            return fmt.date(str(value))
        if column.editor == "gpu":
            return self.gpu_names.get(str(value), str(value))
        return str(value)

    def _derived_data(self, position: int, name: str, role: int) -> Any:
        if role not in (
            Qt.ItemDataRole.DisplayRole,
            SORT_ROLE,
            Qt.ItemDataRole.ToolTipRole,
            Qt.ItemDataRole.TextAlignmentRole,
        ):
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return None if name == "basis" else RIGHT_ALIGNED
        derived = self._derived_for(position)
        if derived is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return derived.texts.get(name, "")
        if role == SORT_ROLE:
            return derived.sort.get(name, float("inf"))
        return derived.tooltips.get(name) or None

    # -- editing -----------------------------------------------------------------------------------------------
    def setData(
        self, index: QModelIndex | QPersistentModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole
    ) -> bool:  # noqa: N802
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        if not (self.flags(index) & Qt.ItemFlag.ItemIsEditable):
            return False
        column = self.columns[index.column()]
        row = self.window.row_at(index.row())
        new_value = _from_editor(column, value)
        if new_value == row.get(column.key) or (
            new_value in ("", None) and row.get(column.key) in ("", None)
        ):
            return False
        return self.apply_change(row["id"], {column.key: new_value})

    def proposed(self, row: Row, changes: Mapping[str, object]) -> dict[str, object]:
        """The row as the store would see it after ``changes`` (a changed price re-derives the other price)."""
        merged = {key: row.get(key) for key in self.kind.store_columns}
        merged.update(changes)
        if self.kind.name == "rental" and ("price_per_gpu_hour" in changes) != (
            "price_per_instance_hour" in changes
        ):
            stale = "price_per_instance_hour" if "price_per_gpu_hour" in changes else "price_per_gpu_hour"
            merged[stale] = None
        return merged

    def apply_change(self, quote_id: Any, changes: dict[str, object]) -> bool:
        """Validate and write ``changes`` to one quote (undoable). False, with edit_refused, when refused."""
        row = self.row_of(quote_id)
        if row is None:
            return False
        reasons = self.kind.validate(self.proposed(row, changes))
        if reasons:
            from desktop.messages import render

            self.edit_refused.emit("; ".join(render(reason) for reason in reasons))
            return False
        old = {key: row.get(key) for key in changes}
        from desktop.undo import EditQuoteCommand

        names = [self.field_title(key) for key in changes if not key.startswith("price_per_instance")]
        command = EditQuoteCommand(
            self, quote_id, old, changes, names or [self.field_title(next(iter(changes)))]
        )
        if not command.apply(changes):
            return False
        if self.undo_stack is not None:
            self.undo_stack.push(command)  # already applied: the first redo() is skipped
        return True

    def write(self, quote_id: Any, changes: Mapping[str, object]) -> bool:
        """Write through the store and refresh the row; refusals (e.g. a duplicate) go to edit_refused."""
        try:
            updated = self.kind.update(quote_id, changes)
        except Exception as exc:  # called from setData and undo (Qt virtuals): nothing may escape; show why
            from desktop.workers import describe_error

            self.edit_refused.emit(describe_error(exc))
            return False
        self.replace_row(quote_id, updated)
        self.edited.emit()
        return True


def _from_editor(column: Column, value: Any) -> Any:
    """An editor's value -> the store's type (QDate -> ISO text, blanks -> None for numbers)."""
    if isinstance(value, QDate):
        return value.toString("yyyy-MM-dd") if value.isValid() else ""
    if column.editor in ("money", "float", "int", "rate"):
        if value in ("", None):
            return None
        if isinstance(value, str):
            return value.strip()  # let the validator explain what is wrong with the text
        return int(value) if column.editor == "int" and float(value).is_integer() else value
    if isinstance(value, str):
        return value.strip()
    return value
