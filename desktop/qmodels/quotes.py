"""QuoteTableModel: rental or purchase quotes from the store, editable in place, with derived price columns.

The model is a thin adapter: rows are the store's dicts, an edit is validated with the store's own validator
(the same one CSV import uses) and refused with the reasons (``edit_refused``), otherwise written through an
undoable command on the page's QUndoStack. Reference prices shipped with the app are read-only.
Derived columns (price in the display currency, per PFLOP-hour, per TB/s-hour) come from a ``derive`` function
the page supplies, so the model holds no business rules of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QCoreApplication,
    QDate,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QFont, QPalette
from PySide6.QtWidgets import QApplication

from desktop import fmt

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
ROW_ROLE = Qt.ItemDataRole.UserRole + 2  # the whole row dict
CONTEXT = "QuoteTableModel"


def _tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


@dataclass(frozen=True)
class Column:
    key: str  # store column, or "derived:<name>"
    header: str  # marked with QT_TRANSLATE_NOOP(CONTEXT, ...)
    editor: str = (
        ""  # "" (read-only) | text | gpu | kind | interconnect | currency | money | int | float | date
    )
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

# Kinds of quotes and their translated names (data strings: marked here, translated when shown).
KIND_NAMES = {
    "on-demand": QT_TRANSLATE_NOOP("QuoteTableModel", "on-demand"),
    "spot": QT_TRANSLATE_NOOP("QuoteTableModel", "spot"),
    "reserved-1y": QT_TRANSLATE_NOOP("QuoteTableModel", "reserved 1 year"),
    "reserved-3y": QT_TRANSLATE_NOOP("QuoteTableModel", "reserved 3 years"),
    "committed": QT_TRANSLATE_NOOP("QuoteTableModel", "committed"),
}


@dataclass(frozen=True)
class Derived:
    """Derived figures of one quote, already formatted, with sort values and tooltips."""

    texts: dict[str, str]
    sort: dict[str, float]
    tooltips: dict[str, str]


class QuoteKind:
    """The store functions and columns for one quote table ("rental" or "purchase")."""

    def __init__(self, name: str, store: Any):
        self.name = name
        self.columns = RENTAL_COLUMNS if name == "rental" else PURCHASE_COLUMNS
        prefix = f"{name}_quote"
        self.list = lambda: getattr(store, f"list_{name}_quotes")()
        self.add = getattr(store, f"add_{prefix}")
        self.update = getattr(store, f"update_{prefix}")
        self.delete = getattr(store, f"delete_{prefix}")
        self.restore = getattr(store, f"restore_{prefix}")
        self.validate = getattr(store, f"validate_{prefix}")
        self.store_columns = tuple(c.key for c in self.columns if not c.derived)
        self.provider_key = "provider" if name == "rental" else "vendor"


class QuoteTableModel(QAbstractTableModel):
    """Signals: edit_refused(reason) when a value is refused; edited() after any write (for quotes_changed)."""

    edit_refused = Signal(str)
    edited = Signal()

    def __init__(self, kind: QuoteKind, derive: Callable[[dict], Derived] | None = None, parent=None):
        super().__init__(parent)
        self.kind = kind
        self.columns = kind.columns
        self.derive = derive
        self.rows: list[dict] = []
        self._derived: list[Derived | None] = []
        self.undo_stack = None  # set by the page; None: edits are written without undo
        self.read_only = False  # while a background import writes to the store
        self.display_currency = "USD"  # shown in the derived columns' headers

    # -- loading -----------------------------------------------------------------------------------------------
    def reload(self) -> None:
        self.beginResetModel()
        self.rows = list(self.kind.list())
        self._derived = [None] * len(self.rows)
        self.endResetModel()

    def refresh_derived(self, display_currency: str | None = None) -> None:
        """Recompute the derived columns (display currency, rates or probe runs changed)."""
        if display_currency and display_currency != self.display_currency:
            self.display_currency = display_currency
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(self.columns) - 1)
        self._derived = [None] * len(self.rows)
        if self.rows:
            first = [i for i, c in enumerate(self.columns) if c.derived]
            self.dataChanged.emit(self.index(0, min(first)), self.index(len(self.rows) - 1, max(first)))

    def row_of_id(self, quote_id: Any) -> int:
        for position, row in enumerate(self.rows):
            if row.get("id") == quote_id:
                return position
        return -1

    def replace_row(self, quote_id: Any, row: dict) -> None:
        position = self.row_of_id(quote_id)
        if position < 0:
            self.reload()
            return
        self.rows[position] = row
        self._derived[position] = None
        self.dataChanged.emit(self.index(position, 0), self.index(position, len(self.columns) - 1))

    def column_of(self, key: str) -> int:
        for position, column in enumerate(self.columns):
            if column.key == key:
                return position
        raise KeyError(key)

    def _derived_for(self, position: int) -> Derived | None:
        if self.derive is None:
            return None
        if self._derived[position] is None:
            self._derived[position] = self.derive(self.rows[position])
        return self._derived[position]

    # -- Qt model interface ------------------------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation != Qt.Orientation.Horizontal or not (0 <= section < len(self.columns)):
            return None
        column = self.columns[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return _tr(column.header).format(self.display_currency)
        if role == Qt.ItemDataRole.ToolTipRole and column.tooltip:
            return _tr(column.tooltip)
        return None

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

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not (0 <= index.row() < len(self.rows)):
            return None
        row = self.rows[index.row()]
        column = self.columns[index.column()]
        if column.derived:
            return self._derived_data(index.row(), column.key.removeprefix("derived:"), role)
        value = row.get(column.key)
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(column, value, row)
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
            if column.key in ("source", "note") and value:
                return str(value)
            return None
        if role == Qt.ItemDataRole.FontRole and self.is_reference(index.row()):
            font = QFont()
            font.setItalic(True)
            return font
        if role == Qt.ItemDataRole.ForegroundRole and self.is_reference(index.row()):
            return QBrush(QApplication.palette().color(QPalette.ColorRole.PlaceholderText))
        if role == Qt.ItemDataRole.TextAlignmentRole and column.numeric:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _display(self, column: Column, value: Any, row: dict) -> str:
        if value is None or value == "":
            return ""
        if column.key == "kind":
            return _tr(KIND_NAMES[value]) if value in KIND_NAMES else str(value)
        if column.editor == "money":
            return fmt.money(float(value), str(row.get("currency") or ""))
        if column.key == "server_overhead_fraction":
            return fmt.percent(float(value))
        if column.editor == "float":
            return fmt.significant(float(value), 4)
        if column.editor == "int":
            return fmt.integer(int(value))
        if column.editor == "date":
            return fmt.date(str(value))
        if column.editor == "gpu":
            return self._gpu_name(str(value))
        return str(value)

    gpu_names: dict[str, str] = {}

    def _gpu_name(self, gpu_id: str) -> str:
        return self.gpu_names.get(gpu_id, gpu_id)

    def _derived_data(self, position: int, name: str, role: int):
        derived = self._derived_for(position)
        if derived is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return derived.texts.get(name, "")
        if role == SORT_ROLE:
            return derived.sort.get(name, float("inf"))
        if role == Qt.ItemDataRole.ToolTipRole:
            return derived.tooltips.get(name) or None
        if role == Qt.ItemDataRole.TextAlignmentRole and name != "basis":
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

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

    def proposed(self, row: dict, changes: dict) -> dict:
        """The row as the store would see it after ``changes`` (a changed price re-derives the other price)."""
        merged = {key: row.get(key) for key in self.kind.store_columns}
        merged.update(changes)
        if self.kind.name == "rental" and ("price_per_gpu_hour" in changes) != (
            "price_per_instance_hour" in changes
        ):
            stale = "price_per_instance_hour" if "price_per_gpu_hour" in changes else "price_per_gpu_hour"
            merged[stale] = None
        return merged

    def apply_change(self, quote_id: Any, changes: dict) -> bool:
        """Validate and write ``changes`` to one quote (undoable). False, with edit_refused, when refused."""
        position = self.row_of_id(quote_id)
        if position < 0:
            return False
        row = self.rows[position]
        reasons = self.kind.validate(self.proposed(row, changes))
        if reasons:
            self.edit_refused.emit("; ".join(reasons))
            return False
        old = {key: row.get(key) for key in changes}
        from desktop.undo import EditQuoteCommand

        command = EditQuoteCommand(self, quote_id, old, changes)
        if not command.apply(changes):
            return False
        if self.undo_stack is not None:
            self.undo_stack.push(command)  # already applied: the first redo() is skipped
        return True

    def write(self, quote_id: Any, changes: dict) -> bool:
        """Write through the store and refresh the row; refusals (e.g. a duplicate) go to edit_refused."""
        try:
            updated = self.kind.update(quote_id, changes)
        except Exception as exc:
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
    if column.editor in ("money", "float", "int"):
        if value in ("", None):
            return None
        if isinstance(value, str):
            return value.strip()  # let the validator explain what is wrong with the text
        return int(value) if column.editor == "int" and float(value).is_integer() else value
    if isinstance(value, str):
        return value.strip()
    return value


class QuoteFilterProxy(QSortFilterProxyModel):
    """Sort by the raw values; filter by GPU, provider/vendor text, kind, currency and origin."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self.gpu = ""
        self.provider = ""
        self.kind = ""
        self.currency = ""
        self.show_reference = True

    def set_filter(self, **values: Any) -> None:
        for key, value in values.items():
            if not hasattr(self, key):
                raise AttributeError(key)
            setattr(self, key, value)
        self.beginFilterChange()
        self.endFilterChange()

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:  # noqa: N802
        model = self.sourceModel()
        row = model.rows[source_row]
        if not self.show_reference and row.get("origin") == "reference":
            return False
        if self.gpu and row.get("gpu") != self.gpu:
            return False
        provider = str(row.get(model.kind.provider_key) or "")
        if self.provider and self.provider.casefold() not in provider.casefold():
            return False
        if self.kind and row.get("kind", self.kind) != self.kind:
            return False
        return not (self.currency and row.get("currency") != self.currency)
