"""FlatTableModel: the plumbing every table model of the app shares (no child rows, translated headers).

Each model only says how many rows it has and which (untranslated) headers its columns carry; the headers are
translated in the model's own context (``CONTEXT``), the one its QT_TRANSLATE_NOOP marks file them under in the
.ts file, so moving the code here leaves every translation where it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt

SORT_ROLE = Qt.ItemDataRole.UserRole + 1  # raw values (bytes, seconds, amounts) so columns sort by value
RIGHT_ALIGNED = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)  # how number cells align


class FlatTableModel(QAbstractTableModel):
    """A table without child rows; subclasses give ``row_total`` and ``column_headers``, and ``data``."""

    CONTEXT = ""  # translation context of the headers: the model's class name in the .ts file

    def row_total(self) -> int:
        raise NotImplementedError

    def column_headers(self) -> Sequence[str]:
        """The untranslated headers of the columns shown now, in column order."""
        raise NotImplementedError

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self.row_total()

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.column_headers())

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        headers = self.column_headers()
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(headers)
        ):
            return QCoreApplication.translate(self.CONTEXT, headers[section])
        return None


class CellMemo:
    """What a model that changes only by a reset answers for each (row, column, role), worked out once.

    A table view asks for every cell's roles again and again: each resize to contents asks for the whole table
    (twice with the rows' heights), each paint for the visible cells, and formatting a number in Python each time
    made a redraw of the Plan page's table 2,000 calls of data(). The model clears the memo when it resets.
    """

    def __init__(self) -> None:
        self._cells: dict[tuple[int, int, int], Any] = {}

    def clear(self) -> None:
        self._cells.clear()

    def get(self, index: QModelIndex | QPersistentModelIndex, role: int, compute: Any) -> Any:
        """The memoized `compute(index, role)`."""
        key = (index.row(), index.column(), int(role))
        if key in self._cells:
            return self._cells[key]
        value = self._cells[key] = compute(index, role)
        return value
