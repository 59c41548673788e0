"""QuoteTableModel: rental or purchase quotes from the store, editable in place, with derived price columns.

The model is a thin adapter: rows are the store's dicts, an edit is validated with the store's own validator
(the same one CSV import uses) and refused with the reasons (``edit_refused``), otherwise written through an
undoable command on the page's QUndoStack. Reference prices shipped with the app are read-only.
Derived columns (price in the display currency, per PFLOP-hour, per TB/s-hour) come from a ``derive`` function
the page supplies, so the model holds no business rules of its own. The model filters and sorts its rows itself
(see QuoteTableModel) so a table of 100,000 quotes never freezes the window.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from PySide6 import QtCore
from PySide6.QtCore import (
    QCoreApplication,
    QDate,
    QLocale,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QFont, QPalette
from PySide6.QtWidgets import QApplication

from desktop import fmt
from desktop.qmodels.base import RIGHT_ALIGNED, SORT_ROLE, FlatTableModel
from desktop.quote_kinds import KIND_NAMES
from desktop.quote_pricing import SYNC_ROWS, Row
from planner.visible_text import pictured_controls

if TYPE_CHECKING:
    from PySide6.QtGui import QUndoStack

    from planner.store import QuoteStore, StoreProtocol

# Qt's marker for pyside6-lupdate (it finds the calls by this name), typed: it returns its text unchanged.
QT_TRANSLATE_NOOP = cast("Callable[[str, str], str]", QtCore.QT_TRANSLATE_NOOP)
ROW_ROLE = Qt.ItemDataRole.UserRole + 2  # the whole row dict
CONTEXT = "QuoteTableModel"


def model_tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


@dataclass(frozen=True)
class Column:
    key: str  # store column, or "derived:<name>"
    header: str  # marked with QT_TRANSLATE_NOOP(CONTEXT, ...)
    # "" (read-only) | text | gpu | kind | interconnect | currency | money | int | float | date | rate (a number
    # that may stay empty: typed as text, so clearing the cell clears the value)
    editor: str = ""
    numeric: bool = False
    tooltip: str = ""

    @property
    def derived(self) -> bool:
        return self.key.startswith("derived:")


RENTAL_COLUMNS = (
    Column("gpu", QT_TRANSLATE_NOOP("QuoteTableModel", "GPU"), "gpu"),
    Column("provider", QT_TRANSLATE_NOOP("QuoteTableModel", "Provider"), "text"),
    Column("kind", QT_TRANSLATE_NOOP("QuoteTableModel", "Kind"), "kind"),
    Column("price_per_gpu_hour", QT_TRANSLATE_NOOP("QuoteTableModel", "Price / GPU-h"), "money", True),
    Column("currency", QT_TRANSLATE_NOOP("QuoteTableModel", "Currency"), "currency"),
    Column("derived:display_price", QT_TRANSLATE_NOOP("QuoteTableModel", "{0} / GPU-h"), "", True,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Price per GPU-hour in the display currency (Settings)")),
    Column("interruptions_per_hour", QT_TRANSLATE_NOOP("QuoteTableModel", "Reclaims / h"), "rate", True,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Spot: how often the provider reclaims an instance, per instance-hour (a number >= 0); "
                             "empty: not stated (the provider's typical rate is assumed)")),
    Column("derived:per_useful_gpu_hour", QT_TRANSLATE_NOOP("QuoteTableModel", "{0} / useful GPU-h"), "", True,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Spot: the price per GPU-hour of progress, counting the work lost "
                             "since the last checkpoint and the restart after each reclaim (a cell's tooltip "
                             "gives its assumptions)")),
    Column("derived:per_pflop_hour", QT_TRANSLATE_NOOP("QuoteTableModel", "{0} / PFLOP-h bf16"), "", True,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Price of one hour of 1 PFLOP/s of dense bf16 matmul")),
    Column("derived:per_tbps_hour", QT_TRANSLATE_NOOP("QuoteTableModel", "{0} / TB/s-h"), "", True,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Price of one hour of 1 TB/s of memory bandwidth")),
    Column("derived:basis", QT_TRANSLATE_NOOP("QuoteTableModel", "Basis"), "", False,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Whether the per-PFLOP and per-TB/s prices use measured figures or the catalog spec")),
    Column("offer", QT_TRANSLATE_NOOP("QuoteTableModel", "Offer"), "text"),
    Column("gpus_per_instance", QT_TRANSLATE_NOOP("QuoteTableModel", "GPUs"), "int", True),
    Column("quoted_on", QT_TRANSLATE_NOOP("QuoteTableModel", "Quoted on"), "date"),
    Column("valid_until", QT_TRANSLATE_NOOP("QuoteTableModel", "Valid until"), "date"),
    Column("region", QT_TRANSLATE_NOOP("QuoteTableModel", "Region"), "text"),
    Column("interconnect", QT_TRANSLATE_NOOP("QuoteTableModel", "Interconnect"), "interconnect"),
    Column("min_term_hours", QT_TRANSLATE_NOOP("QuoteTableModel", "Min. term (h)"), "float", True),
    Column("price_per_instance_hour", QT_TRANSLATE_NOOP("QuoteTableModel", "Price / instance-h"), "money", True),
    Column("source", QT_TRANSLATE_NOOP("QuoteTableModel", "Source"), "text"),
    Column("note", QT_TRANSLATE_NOOP("QuoteTableModel", "Note"), "text"),
)  # fmt: skip

PURCHASE_COLUMNS = (
    Column("gpu", QT_TRANSLATE_NOOP("QuoteTableModel", "GPU"), "gpu"),
    Column("vendor", QT_TRANSLATE_NOOP("QuoteTableModel", "Vendor"), "text"),
    Column("gpus", QT_TRANSLATE_NOOP("QuoteTableModel", "GPUs"), "int", True),
    Column("price", QT_TRANSLATE_NOOP("QuoteTableModel", "Price (total)"), "money", True),
    Column("currency", QT_TRANSLATE_NOOP("QuoteTableModel", "Currency"), "currency"),
    Column("derived:display_price", QT_TRANSLATE_NOOP("QuoteTableModel", "{0} / GPU"), "", True,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Price per GPU in the display currency, before server overhead")),
    Column("derived:per_tflops", QT_TRANSLATE_NOOP("QuoteTableModel", "{0} / bf16 TFLOPS"), "", True,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Price per GPU divided by its dense bf16 TFLOPS")),
    Column("derived:basis", QT_TRANSLATE_NOOP("QuoteTableModel", "Basis"), "", False,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Whether per-TFLOPS uses a measured figure or the catalog spec")),
    Column("quoted_on", QT_TRANSLATE_NOOP("QuoteTableModel", "Quoted on"), "date"),
    Column("server_overhead_fraction", QT_TRANSLATE_NOOP("QuoteTableModel", "Server overhead"), "float", True,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Server, network and rack as a fraction of the GPU price (0.3 = +30%)")),
    Column("power_w", QT_TRANSLATE_NOOP("QuoteTableModel", "Power / GPU (W)"), "float", True),
    Column("source", QT_TRANSLATE_NOOP("QuoteTableModel", "Source"), "text"),
    Column("note", QT_TRANSLATE_NOOP("QuoteTableModel", "Note"), "text"),
)  # fmt: skip

TYPICAL_RATE = QT_TRANSLATE_NOOP("QuoteTableModel", "typical")


def rate_text(rate: float) -> str:
    """A reclaim rate with up to three significant digits and no trailing zeros: 0.01 -> "0.01", 0.000305 ->
    "0.000305" (the locale's decimal mark)."""
    text = fmt.significant(rate, 3)
    point = QLocale().decimalPoint()
    return text.rstrip("0").rstrip(point) if point in text else text


def _rate_tooltip(value: Any, row: Row) -> str | None:
    """What a reclaim rate cell means: the quote's own figure, or the typical rate assumed for a spot quote."""
    from planner.scale import DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR

    translate = QCoreApplication.translate
    if value not in (None, ""):
        return translate("QuoteTableModel", "{0} reclaims per instance-hour, as the quote states").format(
            rate_text(float(value))
        )
    if row.get("kind") != "spot":
        return None
    return translate(
        "QuoteTableModel",
        "Not stated: the provider's typical rate is assumed, {0} reclaims per instance-hour (AWS Spot Instance "
        "Advisor's top band: more than 20% of instances reclaimed a month)",
    ).format(rate_text(DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR))


@dataclass(frozen=True)
class Derived:
    """Derived figures of one quote, already formatted, with sort values and tooltips."""

    texts: dict[str, str]
    sort: dict[str, float]
    tooltips: dict[str, str]


class QuoteKind:
    """The store's repository and the table's columns for one kind of quote ("rental" or "purchase")."""

    def __init__(self, name: str, store: StoreProtocol) -> None:
        self.name = name
        self.columns = RENTAL_COLUMNS if name == "rental" else PURCHASE_COLUMNS
        self.headers = tuple(c.header for c in self.columns)
        self.quotes: QuoteStore[Any] = store.rental_quotes if name == "rental" else store.purchase_quotes
        self.list: Callable[[], Sequence[Row]] = (
            store.rental_quotes.find if name == "rental" else store.purchase_quotes.find
        )
        self.add = self.quotes.add
        self.get = self.quotes.get
        self.update = self.quotes.update
        self.delete = self.quotes.delete
        self.restore = self.quotes.restore
        self.validate = self.quotes.validate
        self.export_csv = self.quotes.export_csv
        self.import_csv = self.quotes.import_csv
        self.store_columns = tuple(c.key for c in self.columns if not c.derived)
        self.provider_key = "provider" if name == "rental" else "vendor"


@dataclass(frozen=True)
class QuoteFilter:
    """What the quote table shows: one GPU, provider (or vendor) text, kind, currency, reference prices or not."""

    gpu: str = ""
    provider: str = ""
    kind: str = ""
    currency: str = ""
    show_reference: bool = True

    @property
    def active(self) -> bool:
        return bool(self.gpu or self.provider or self.kind or self.currency or not self.show_reference)

    def accepts(self, row: Row, provider_key: str) -> bool:
        if not self.show_reference and row.get("origin") == "reference":
            return False
        if self.gpu and row.get("gpu") != self.gpu:
            return False
        if self.provider and self.provider.casefold() not in str(row.get(provider_key) or "").casefold():
            return False
        if self.kind and row.get("kind", self.kind) != self.kind:
            return False
        return not (self.currency and row.get("currency") != self.currency)


SortKey = Callable[[Row], Any]


def arrange_rows(
    rows: list[Row], quote_filter: QuoteFilter, provider_key: str, key: SortKey | None, descending: bool
) -> list[Row]:
    """The rows the table shows, in order: filtered, then sorted by ``key`` (stable; rows whose key is None go
    last in either direction). Pure: runs on a pool thread for big tables."""
    visible = (
        [r for r in rows if quote_filter.accepts(r, provider_key)] if quote_filter.active else list(rows)
    )
    if key is None:
        return visible
    keyed, values, missing = [], [], []
    for row in visible:
        value = key(row)
        if value is None:
            missing.append(row)
        else:
            keyed.append(row)
            values.append(value)
    return [keyed[i] for i in _stable_order(values, descending)] + missing


def _stable_order(values: list[Any], descending: bool) -> list[int]:
    """Indices that sort ``values`` (all numbers or all strings), ties in their original order either way.

    NumPy's argsort of a number or text array runs without holding Python's GIL, unlike list.sort, so a
    background sort of 100,000 quotes does not stall the GUI thread's painting while it runs.
    """
    if not values:
        return []
    try:
        array = np.array(values, dtype=float if isinstance(values[0], (int, float)) else str)
    except (TypeError, ValueError):  # a stray text among numbers: order everything as text, never fail
        array = np.array([str(value) for value in values], dtype=str)
    if not descending:
        return [int(i) for i in np.argsort(array, kind="stable")]
    last = len(values) - 1
    # ascending order of the reversed array, read backwards: descending with ties in their original order
    return [int(i) for i in (last - np.argsort(array[::-1], kind="stable"))[::-1]]


@dataclass(frozen=True)
class Arrangement:
    """The visible rows in order, and each one's position by quote id (built off the GUI thread too)."""

    rows: list[Row]
    positions: dict[Any, int]

    @classmethod
    def of(cls, rows: list[Row]) -> Arrangement:
        return cls(rows, {row["id"]: position for position, row in enumerate(rows)})


def arrangement(rows: list[Row], **spec: Any) -> Arrangement:
    """arrange_rows(rows, **spec) with the positions: everything proportional to the rows, in one pure call."""
    return Arrangement.of(arrange_rows(rows, **spec))


@dataclass(frozen=True)
class QuoteStats:
    """Counts and values over every loaded quote (not only the filtered ones), for the page summary and combos."""

    mine: int
    reference: int
    gpus: frozenset[str]
    currencies: frozenset[str]


def quote_stats(rows: Iterable[Row]) -> QuoteStats:
    mine = reference = 0
    gpus, currencies = set(), set()
    for row in rows:
        if row.get("origin") == "reference":
            reference += 1
        else:
            mine += 1
        gpus.add(row.get("gpu") or "")
        currencies.add(row.get("currency") or "")
    return QuoteStats(mine, reference, frozenset(gpus - {""}), frozenset(currencies - {""}))


@dataclass(frozen=True)
class LoadedQuotes:
    """Every quote of one kind as a background load prepares it for QuoteTableModel.set_rows."""

    by_id: dict[Any, Row]  # in the store's order
    stats: QuoteStats

    @classmethod
    def of(cls, rows: list[Row]) -> LoadedQuotes:
        return cls({row["id"]: row for row in rows}, quote_stats(rows))


class QuoteTableModel(FlatTableModel):
    """Every quote of one kind, filtered and sorted in the model itself (no proxy model).

    A QSortFilterProxyModel asks Python for each cell on every comparison: sorting 100,000 quotes took ~10 s on
    the GUI thread. Here the model arranges its rows with one Python sort over precomputed keys, and hands the
    work to ``background`` (the page's JobRunner) when there are more than SYNC_ROWS quotes; a newer request
    supersedes an older one, and rows edited meanwhile keep their newest values.

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
        self._all: dict[Any, Row] = {}  # id -> row, every loaded quote in the store's order
        self.rows: list[Row] = []  # the visible rows, in display order
        self._positions: dict[Any, int] | None = None  # id -> visible position (built when needed)
        self._derived: dict[Any, Derived] = {}
        self._stats: QuoteStats | None = None
        self.quote_filter = QuoteFilter()
        self.sort_column = -1
        self.sort_order = Qt.SortOrder.AscendingOrder
        self.spec_version = 0  # bumped whenever the filter or the sort changes
        # name of a derived column -> key function (from the page's pricing snapshot); None: unsortable
        self.derived_sort_key: Callable[[str], SortKey | None] | None = None
        # background(work, apply): run work() off the GUI thread, then apply(result) on it; None: synchronous
        self.background: Callable[[Callable[[], Any], Callable[[Any], None]], None] | None = None
        self.pending = False  # a background arrangement is under way
        self._generation = 0
        self._mutations = (
            0  # bumped by every change of the rows; an arrangement made before one is re-checked
        )
        self._inserted_while_pending: list[Any] = []
        self.undo_stack: QUndoStack | None = None  # set by the page; None: edits are written without undo
        self.read_only = False  # while a background import or load writes to the model
        self.display_currency = "USD"  # shown in the derived columns' headers
        self.gpu_names: dict[str, str] = {}  # catalog id -> display name

    # -- loading -----------------------------------------------------------------------------------------------
    def reload(self) -> None:
        """Read every quote from the store on this thread (the page loads big tables in a job instead)."""
        self.set_rows(list(self.kind.list()))

    def set_rows(
        self, rows: list[Row] | LoadedQuotes, arranged: tuple[int, Arrangement] | None = None
    ) -> None:
        """Replace every quote: a list of rows, or LoadedQuotes prepared by a job (then nothing proportional
        to the number of quotes is left for the GUI thread). ``arranged``: (spec_version, visible rows)."""
        if isinstance(rows, LoadedQuotes):
            self._all, self._stats = rows.by_id, rows.stats
        else:
            self._all = {row["id"]: row for row in rows}
            self._stats = None
        self._derived.clear()
        self._mutations += 1
        if arranged is not None and arranged[0] == self.spec_version:
            self._generation += 1
            self._apply(arranged[1], self._generation, reset=True, mutations=self._mutations)
        else:
            self.rearrange(reset=True)

    def stats(self) -> QuoteStats:
        if self._stats is None:
            self._stats = quote_stats(self._all.values())
        return self._stats

    def refresh_derived(self, display_currency: str | None = None) -> None:
        """Recompute the derived columns (display currency, rates or probe runs changed)."""
        if display_currency and display_currency != self.display_currency:
            self.display_currency = display_currency
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(self.columns) - 1)
        self._derived.clear()
        if self.rows:
            first = [i for i, c in enumerate(self.columns) if c.derived]
            self.dataChanged.emit(self.index(0, min(first)), self.index(len(self.rows) - 1, max(first)))
        if 0 <= self.sort_column < len(self.columns) and self.columns[self.sort_column].derived:
            self.rearrange(reset=False)  # converted prices may change the order of mixed currencies

    def reformat(self) -> None:
        """The interface language changed: the derived columns are cached as formatted text ("$2.75" becomes
        "2,75 $"), so drop them and let every cell and header be worded again."""
        self._derived.clear()
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(self.columns) - 1)
        if self.rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, len(self.columns) - 1))

    # -- filtering and sorting ---------------------------------------------------------------------------------
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

    def arranger(self) -> Callable[[list[Row]], Arrangement]:
        """A pure function rows -> Arrangement for the current filter and sort (safe on a pool thread)."""
        return partial(
            arrangement,
            quote_filter=self.quote_filter,
            provider_key=self.kind.provider_key,
            key=self._sort_key(),
            descending=self.sort_order == Qt.SortOrder.DescendingOrder,
        )

    def _sort_key(self) -> SortKey | None:
        if not 0 <= self.sort_column < len(self.columns):
            return None
        column = self.columns[self.sort_column]
        key = column.key
        if column.derived:
            return self.derived_sort_key(key.removeprefix("derived:")) if self.derived_sort_key else None
        if column.editor in ("money", "float", "int", "rate"):
            return lambda row: row.get(key)
        if column.editor == "gpu":
            names = dict(self.gpu_names)
            return lambda row: names.get(str(row.get(key) or ""), str(row.get(key) or "")).casefold()
        if column.editor == "kind":
            order = {kind: position for position, kind in enumerate(KIND_NAMES)}
            return lambda row: order.get(str(row.get(key)), len(order))
        return lambda row: str(row[key]).casefold() if row.get(key) not in (None, "") else None

    def rearrange(self, reset: bool = True) -> None:
        """Filter and sort again: now for small tables, in ``background`` for big ones."""
        self._generation += 1
        generation, mutations = self._generation, self._mutations
        work = self.arranger()
        rows = list(self._all.values())
        if self.background is not None and len(rows) > SYNC_ROWS:
            self.pending = True
            self._inserted_while_pending = []
            self.background(
                lambda: work(rows), lambda result: self._apply(result, generation, reset, mutations)
            )
        else:
            self._apply(work(rows), generation, reset, mutations)

    def _apply(self, arranged: Arrangement, generation: int, reset: bool, mutations: int) -> None:
        if generation != self._generation:
            return  # a newer arrangement was asked for meanwhile
        if mutations == self._mutations:
            rows, positions = arranged.rows, arranged.positions  # nothing changed meanwhile: use it as it is
        else:
            rows, positions = self._current_rows(arranged.rows), None
        self._inserted_while_pending = []
        self.pending = False
        if reset or len(rows) != len(self.rows):
            self.beginResetModel()
            self.rows, self._positions = rows, positions
            self.endResetModel()
        else:
            self._reorder(rows, positions)
        self.arranged.emit()

    def _current_rows(self, arranged: list[Row]) -> list[Row]:
        """Rows were edited, added or deleted while a job arranged them: newest values, none deleted, the
        added ones at the end."""
        current = self._all
        rows = [current[row["id"]] for row in arranged if row["id"] in current]
        listed = {row["id"] for row in rows} if self._inserted_while_pending else set()
        for quote_id in self._inserted_while_pending:
            row = current.get(quote_id)
            if row is not None and quote_id not in listed:
                rows.append(row)
        return rows

    def _reorder(self, rows: list[Row], positions: dict[Any, int] | None) -> None:
        """Same rows, new order: a layout change, so the selection and the current cell follow their quotes."""
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        ids = [self.rows[index.row()]["id"] if 0 <= index.row() < len(self.rows) else None for index in old]
        self.rows, self._positions = rows, positions
        positions = self._position_map()
        new = [
            self.index(positions[quote_id], index.column()) if quote_id in positions else QModelIndex()
            for quote_id, index in zip(ids, old, strict=True)
        ]
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()

    # -- rows in place (add, delete, edit, undo) ---------------------------------------------------------------
    def _position_map(self) -> dict[Any, int]:
        if self._positions is None:
            self._positions = {row["id"]: position for position, row in enumerate(self.rows)}
        return self._positions

    def row_of_id(self, quote_id: Any) -> int:
        """The visible position of a quote, -1 when it is filtered out or gone."""
        return self._position_map().get(quote_id, -1)

    def insert_rows(self, rows: list[Row]) -> None:
        """Stored rows that are new to the model: listed at the end (where a new quote is easy to find)."""
        for row in rows:
            self._all[row["id"]] = row
            self._derived.pop(row["id"], None)
        self._stats = None
        self._mutations += 1
        shown = [r for r in rows if self.quote_filter.accepts(r, self.kind.provider_key)]
        if self.pending:
            self._inserted_while_pending.extend(r["id"] for r in shown)
        shown = [r for r in shown if r["id"] not in self._position_map()]
        if shown:
            self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows) + len(shown) - 1)
            self.rows.extend(shown)
            self._positions = None
            self.endInsertRows()

    def remove_ids(self, ids: list[Any]) -> None:
        for quote_id in ids:
            self._all.pop(quote_id, None)
            self._derived.pop(quote_id, None)
        self._stats = None
        self._mutations += 1
        positions = self._position_map()
        for position in sorted((positions[i] for i in ids if i in positions), reverse=True):
            self.beginRemoveRows(QModelIndex(), position, position)
            del self.rows[position]
            self._positions = None
            self.endRemoveRows()
        self._positions = None

    def replace_row(self, quote_id: Any, row: Row) -> None:
        """An edited row, in place (it does not jump away while being edited; the next sort places it)."""
        if quote_id not in self._all:
            self.insert_rows([row])
            return
        self._all[quote_id] = row
        self._derived.pop(quote_id, None)
        self._stats = None
        self._mutations += 1
        position = self.row_of_id(quote_id)
        if position >= 0:
            self.rows[position] = row
            self.dataChanged.emit(self.index(position, 0), self.index(position, len(self.columns) - 1))

    def column_of(self, key: str) -> int:
        for position, column in enumerate(self.columns):
            if column.key == key:
                return position
        raise KeyError(key)

    def _derived_for(self, position: int) -> Derived | None:
        if self.derive is None:
            return None
        row = self.rows[position]
        derived = self._derived.get(row["id"])
        if derived is None:
            derived = self._derived[row["id"]] = self.derive(row)
        return derived

    # -- Qt model interface ------------------------------------------------------------------------------------
    def row_total(self) -> int:
        return len(self.rows)

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
        return self.rows[position].get("origin") == "reference"

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
        if not index.isValid() or not (0 <= index.row() < len(self.rows)):
            return None
        row = self.rows[index.row()]
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
                return _rate_tooltip(value, row)
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
        row = self.rows[index.row()]
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
        row = self._all.get(quote_id)
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
