"""The mixed-pool table: a thin Qt model over planner.search.pools.PoolComparison.choices, best first.

One row per way to run the job on the pool (each type alone, the whole pool as one data-parallel job, the
pipeline over the types and separate jobs or, when serving, all replicas), named by the planner
(PoolChoice.label) and in the planner's order (useful tokens per second, fastest first), so row 0 is the way
the pool's headline names. Time and cost are those with losses (failures, checkpoints, restarts), as
`gpu-advisor plan --pool` prints them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from desktop import fmt
from desktop.message_templates import QT_TRANSLATE_NOOP  # typed: returns its text
from desktop.plan_scale_text import choice_details, choice_name
from desktop.qmodels.base import RIGHT_ALIGNED, SORT_ROLE, CellMemo, FlatTableModel

if TYPE_CHECKING:
    from PySide6.QtCore import QObject

    from planner.search.pools import PoolChoice, PoolComparison

COLUMNS = (
    ("way", QT_TRANSLATE_NOOP("PoolChoicesModel", "Way")),
    ("gpus", QT_TRANSLATE_NOOP("PoolChoicesModel", "GPUs")),
    ("shape", QT_TRANSLATE_NOOP("PoolChoicesModel", "TP × PP")),
    ("tokens_per_s", QT_TRANSLATE_NOOP("PoolChoicesModel", "Tokens/s")),
    ("effective", QT_TRANSLATE_NOOP("PoolChoicesModel", "Effective\ntime")),
    ("time", QT_TRANSLATE_NOOP("PoolChoicesModel", "Run time\nwith losses")),
    ("cost", QT_TRANSLATE_NOOP("PoolChoicesModel", "Cost\nwith losses")),
)
COLUMN_KEYS = tuple(key for key, _ in COLUMNS)


class PoolChoicesModel(FlatTableModel):
    """Rows = the comparison's choices, best first; names through `names` (GPU id -> display name)."""

    CONTEXT = "PoolChoicesModel"

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._cells = CellMemo()  # every cell worked out once per reset (a redraw asks each many times)
        self._choices: tuple[PoolChoice, ...] = ()
        self._names: Mapping[str, str] = {}

    def set_comparison(self, comparison: PoolComparison | None, names: Mapping[str, str]) -> None:
        self.beginResetModel()
        self._cells.clear()
        self._choices = comparison.choices if comparison is not None else ()
        self._names = dict(names)
        self.endResetModel()

    def choice(self, row: int) -> PoolChoice | None:
        return self._choices[row] if 0 <= row < len(self._choices) else None

    def row_total(self) -> int:
        return len(self._choices)

    def column_headers(self) -> tuple[str, ...]:
        return tuple(header for _, header in COLUMNS)

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        return self._cells.get(index, role, self._data)

    def _data(self, index: QModelIndex | QPersistentModelIndex, role: int) -> Any:
        choice = self.choice(index.row()) if index.isValid() else None
        if choice is None or not 0 <= index.column() < len(COLUMNS):
            return None
        key = COLUMN_KEYS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(choice, key)
        if role == SORT_ROLE:
            return self._sort_value(choice, key)
        if role == Qt.ItemDataRole.FontRole and index.row() == 0:
            font = QFont()
            font.setBold(True)  # the way the headline names
            return font
        if role == Qt.ItemDataRole.ToolTipRole:  # the pipeline's stages, separate jobs' other GPUs
            return "\n".join(choice_details(choice, self._names)) or None
        if role == Qt.ItemDataRole.TextAlignmentRole and key not in ("way", "gpus"):
            return RIGHT_ALIGNED
        return None

    def _display(self, choice: PoolChoice, key: str) -> str:
        if key == "way":
            return choice_name(choice, self._names)
        if key == "gpus":  # one type a line: the column stays as narrow as one type's name
            return "\n".join(f"{count} × {self._names.get(gpu_id, gpu_id)}" for gpu_id, count in choice.gpus.items())
        if key == "shape":
            return f"{choice.tp} × {choice.pp}"
        if key == "tokens_per_s":
            return fmt.number(choice.tokens_per_s, 0)
        if key == "effective":
            return fmt.percent(choice.effective_fraction, 1)
        if key == "time":
            return fmt.duration(choice.wall_time_s) if choice.wall_time_s is not None else "–"
        if key == "cost":
            return fmt.money_obj(choice.cost) if choice.cost is not None else "–"
        return ""

    def _sort_value(self, choice: PoolChoice, key: str) -> object:
        values: dict[str, object] = {
            "tokens_per_s": choice.tokens_per_s, "effective": choice.effective_fraction,
            "time": choice.wall_time_s or 0.0, "cost": choice.cost.amount if choice.cost is not None else 0.0,
        }  # fmt: skip
        return values.get(key, self._display(choice, key))
