"""The ranked options table: a thin Qt model over planner.search.PlanResult.options.

Display text goes through desktop.fmt (units on every number, QLocale formatting); the sort role carries raw
numbers (bytes, seconds, amounts) so sorting by a column sorts by value, not by text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from desktop import fmt
from desktop.message_templates import QT_TRANSLATE_NOOP  # typed: returns its text
from desktop.qmodels.base import RIGHT_ALIGNED, SORT_ROLE, CellMemo, FlatTableModel
from planner.vocabulary import Confidence

if TYPE_CHECKING:
    from PySide6.QtCore import QObject

    from planner.money import Money
    from planner.search import PlanOption
    from planner.vocabulary import Layout

CONTEXT = "PlanOptionsModel"
MISSED_COLOR = QColor("#cf222e")  # the red of the page's refusals

# (key, header) in column order. The option column reads "128 × H100 SXM5 80GB" (GPU × count in one cell, so
# the cost columns fit beside it at a 1280-pixel window); two-line headers keep the figure columns narrow.
COLUMNS = (
    ("rank", QT_TRANSLATE_NOOP("PlanOptionsModel", "#")),
    ("option", QT_TRANSLATE_NOOP("PlanOptionsModel", "GPUs")),
    ("strategy", QT_TRANSLATE_NOOP("PlanOptionsModel", "Strategy")),
    ("memory", QT_TRANSLATE_NOOP("PlanOptionsModel", "Memory\nper GPU")),
    ("time", QT_TRANSLATE_NOOP("PlanOptionsModel", "Run\ntime")),
    ("gpu_hours", QT_TRANSLATE_NOOP("PlanOptionsModel", "GPU-\nhours")),
    ("cost", QT_TRANSLATE_NOOP("PlanOptionsModel", "Cost")),
    ("per_million", QT_TRANSLATE_NOOP("PlanOptionsModel", "Cost per\n1M tokens")),
    ("confidence", QT_TRANSLATE_NOOP("PlanOptionsModel", "Basis")),
)
# Serving has no run to time or price as a whole: latency (time to first token, time per output token), the
# throughput over all users and the sequences decoded at once take those places.
SERVING_COLUMNS = (
    ("rank", QT_TRANSLATE_NOOP("PlanOptionsModel", "#")),
    ("option", QT_TRANSLATE_NOOP("PlanOptionsModel", "GPUs")),
    ("strategy", QT_TRANSLATE_NOOP("PlanOptionsModel", "Strategy")),
    ("memory", QT_TRANSLATE_NOOP("PlanOptionsModel", "Memory\nper GPU")),
    ("ttft", QT_TRANSLATE_NOOP("PlanOptionsModel", "First token\n(prefill + wait)")),
    ("tpot", QT_TRANSLATE_NOOP("PlanOptionsModel", "Per\ntoken")),
    ("tokens_per_s", QT_TRANSLATE_NOOP("PlanOptionsModel", "Tokens/s\n(all users)")),
    ("per_million", QT_TRANSLATE_NOOP("PlanOptionsModel", "Cost per\n1M tokens")),
    ("confidence", QT_TRANSLATE_NOOP("PlanOptionsModel", "Basis")),
)
COLUMN_KEYS = tuple(key for key, _ in COLUMNS)
_HEADERS = tuple(header for _, header in COLUMNS)
_SERVING_HEADERS = tuple(header for _, header in SERVING_COLUMNS)

_CONFIDENCE = {
    Confidence.MEASURED: QT_TRANSLATE_NOOP("PlanOptionsModel", "measured"),
    Confidence.CATALOG_SPEC: QT_TRANSLATE_NOOP("PlanOptionsModel", "datasheet"),
    Confidence.USER_SET: QT_TRANSLATE_NOOP("PlanOptionsModel", "user-set"),
}


def _tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


def misses_targets(option: PlanOption) -> bool:
    """A serving option that misses its TTFT, TPOT or tokens/s target (planner.search.PlanOption)."""
    return bool(getattr(option, "misses_targets", False))


def latency_text(option: PlanOption, key: str) -> str:
    """The TTFT ("ttft") or TPOT ("tpot") cell: the figure, and under it the figure the target is held against
    beside the target, ✓ met or ✗ missed ("p90 412 ms ✓ ≤ 500 ms"; TPOT: "✓ ≤ 20 ms")."""
    workload = getattr(option, "workload", None)
    latency = getattr(option, "latency", None)
    if key == "ttft":
        shown = fmt.duration(getattr(option, "ttft_s", None))
        target = getattr(workload, "ttft_target_s", None)
        held = getattr(latency, "ttft_p90_s", None)
    else:
        shown = fmt.duration(getattr(option, "tpot_s", None) or getattr(option, "step_time_s", None))
        target = getattr(workload, "tpot_target_s", None)
        held = getattr(option, "tpot_s", None)
    if target is None or held is None:
        return shown
    met = held <= target * (1 + 1e-9)
    if met:
        line = QCoreApplication.translate("PlanOptionsModel", "✓ ≤ {0}").format(fmt.duration(target))
    else:
        line = QCoreApplication.translate("PlanOptionsModel", "✗ > {0}").format(fmt.duration(target))
    if key == "ttft":
        line = QCoreApplication.translate("PlanOptionsModel", "p90 {0}").format(fmt.duration(held)) + " " + line
    return shown + "\n" + line


def strategy_text(strategy: Layout | None) -> str:
    """A short translated label: "ZeRO-3 × 64, TP 2, offload: optimizer, full recompute"."""
    if strategy is None:
        return ""
    zero = int(getattr(strategy, "zero", 0) or 0)
    dp = int(getattr(strategy, "dp", 1) or 1)
    parts = []
    if zero:
        parts.append(QCoreApplication.translate("PlanOptionsModel", "ZeRO-{0} × {1}").format(zero, dp))
    elif dp > 1:
        parts.append(QCoreApplication.translate("PlanOptionsModel", "DDP × {0}").format(dp))
    for name, label in (("tp", "TP {0}"), ("pp", "PP {0}"), ("ep", "EP {0}")):
        value = int(getattr(strategy, name, 1) or 1)
        if value > 1:
            parts.append(_tr(label).format(value))
    offload = str(getattr(strategy, "offload", "none") or "none")
    if offload == "optimizer":
        parts.append(QCoreApplication.translate("PlanOptionsModel", "offload optimizer"))
    elif offload == "all":
        parts.append(QCoreApplication.translate("PlanOptionsModel", "offload all"))
    recompute = str(getattr(strategy, "recompute", "none") or "none")
    if recompute == "full":
        parts.append(QCoreApplication.translate("PlanOptionsModel", "full recompute"))
    elif recompute == "selective":
        parts.append(QCoreApplication.translate("PlanOptionsModel", "selective recompute"))
    return ", ".join(parts) or QCoreApplication.translate("PlanOptionsModel", "single GPU")


def serving_strategy_text(strategy: Layout | None) -> str:
    """A serving layout in serving words: "3 replicas, TP 2" (replicas, not data-parallel training ranks)."""
    if strategy is None:
        return ""
    parts = []
    replicas = int(getattr(strategy, "dp", 1) or 1)
    if replicas > 1:
        parts.append(QCoreApplication.translate("PlanOptionsModel", "{0} replicas").format(replicas))  # n > 1
    for name, label in (("tp", "TP {0}"), ("pp", "PP {0}"), ("ep", "EP {0}")):
        value = int(getattr(strategy, name, 1) or 1)
        if value > 1:
            parts.append(_tr(label).format(value))
    return ", ".join(parts) or QCoreApplication.translate("PlanOptionsModel", "single GPU")


def option_strategy_text(option: PlanOption) -> str:
    """The strategy as the table and headline show it: training layouts, or replicas for serving."""
    if option.workload is not None and not option.workload.is_training:
        return serving_strategy_text(option.layout)
    return strategy_text(option.layout)


def short_gpu_name(name: str) -> str:
    """ "NVIDIA H100 SXM5 80GB" -> "H100 SXM5 80GB": the vendor prefix repeats on every row."""
    for prefix in ("NVIDIA ", "AMD "):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def option_time_s(option: PlanOption, training: bool) -> float | None:
    """The time the table shows: the whole run for training with losses (failures, checkpoints, restarts: the
    time the planner ranks by), seconds per step for serving."""
    value = getattr(option, "effective_wall_time_s", None) if training else getattr(option, "step_time_s", None)
    return None if value is None else float(value)


def option_gpu_hours(option: PlanOption) -> float | None:
    """GPU-hours with losses (training; the same as without for serving, which has no goodput term)."""
    return getattr(option, "effective_gpu_hours", None)


def option_cost(option: PlanOption) -> Money | None:
    """The run's cost with losses, as the planner ranks and holds it against the budget."""
    return getattr(option, "effective_cost", None)


class PlanOptionsModel(FlatTableModel):
    """Rows = options in the planner's rank order; columns = COLUMNS (training) or SERVING_COLUMNS."""

    CONTEXT = "PlanOptionsModel"

    def __init__(
        self, parent: QObject | None = None, money_text: Callable[[Money | None], str] | None = None
    ):
        super().__init__(parent)
        self._cells = CellMemo()  # every cell worked out once per reset (a redraw asks each many times)
        self._options: tuple[PlanOption, ...] = ()
        self._training = True
        self._money_text = money_text or (lambda money: fmt.money_obj(money))

    def set_options(self, options: Sequence[PlanOption], training: bool) -> None:
        self.beginResetModel()
        self._cells.clear()
        self._options = tuple(options)
        self._training = training
        self.endResetModel()

    def option(self, row: int) -> PlanOption | None:
        return self._options[row] if 0 <= row < len(self._options) else None

    @property
    def columns(self) -> tuple[tuple[str, str], ...]:
        """(key, untranslated header) of the columns shown now: training or serving."""
        return COLUMNS if self._training else SERVING_COLUMNS

    def column_of(self, key: str) -> int:
        """The column index of a key ("cost", "ttft", ...), -1 when the current kind of plan has no such column."""
        keys = [k for k, _ in self.columns]
        return keys.index(key) if key in keys else -1

    # -- QAbstractTableModel -------------------------------------------------------------------------------------
    def row_total(self) -> int:
        return len(self._options)

    def column_headers(self) -> tuple[str, ...]:
        return _HEADERS if self._training else _SERVING_HEADERS

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Vertical and role == Qt.ItemDataRole.DisplayRole:
            return str(section + 1)  # the rank
        return super().headerData(section, orientation, role)

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        return self._cells.get(index, role, self._data)

    def _data(self, index: QModelIndex | QPersistentModelIndex, role: int) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._options)):
            return None
        option = self._options[index.row()]
        if not 0 <= index.column() < len(self.columns):
            return None
        key = self.columns[index.column()][0]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(option, key, index.row())
        if role == SORT_ROLE:
            return self._sort_value(option, key, index.row())
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(option, key)
        if role == Qt.ItemDataRole.TextAlignmentRole and key not in ("option", "strategy", "confidence"):
            return RIGHT_ALIGNED
        if role == Qt.ItemDataRole.ForegroundRole and misses_targets(option):
            return MISSED_COLOR  # the whole row of an option that misses a serving target
        return None

    def _display(self, option: PlanOption, key: str, row: int) -> str:
        gpu = getattr(option, "gpu", None)
        if key == "rank":
            return str(row + 1)
        if key == "option":
            return QCoreApplication.translate("PlanOptionsModel", "{0} × {1}").format(
                fmt.integer(getattr(option, "gpus", None)), short_gpu_name(str(getattr(gpu, "name", "")))
            )
        if key in ("ttft", "tpot"):
            return latency_text(option, key)
        band = getattr(option, "time_band", None)  # planner.uncertainty.ErrorBand, when the planner gives one
        if key == "tokens_per_s":  # the header names the unit; throughput scales with 1 / time
            inverse = band.inverse() if band is not None else None
            return fmt.with_band(option.tokens_per_s, inverse, lambda v: fmt.number(v, 0), compact=True)
        if key == "strategy":
            # No-break spaces inside each part ("TP 4"): a long layout wraps only after a comma.
            parts = option_strategy_text(option).split(", ")
            return ", ".join(part.replace(" ", "\u00a0") for part in parts)
        if key == "memory":
            return fmt.gib(_memory_total(option))
        if key == "time":
            return fmt.with_band(option_time_s(option, self._training), band, fmt.duration, compact=True)
        if key == "gpu_hours":
            hours = option_gpu_hours(option)  # the header names the unit
            # GPU-hours and cost carry the time's band (they scale with it): its tooltip says so, and the cell
            # stays narrow enough for the table to fit the default window
            return "" if hours is None else fmt.significant(hours, 3)
        if key == "cost":
            return self._money_text(option_cost(option))
        if key == "per_million":
            return self._money_text(getattr(option, "cost_per_million_tokens", None))
        if key == "confidence":
            label = _CONFIDENCE.get(option.confidence)
            return _tr(str(label)) if label is not None else str(option.confidence)
        return ""

    def _sort_value(self, option: PlanOption, key: str, row: int) -> object:
        if key == "rank":
            return row
        if key == "memory":
            return _memory_total(option)
        if key == "time":
            return option_time_s(option, self._training) or 0.0
        if key in ("cost", "per_million"):
            money = option_cost(option) if key == "cost" else getattr(option, "cost_per_million_tokens", None)
            return float(getattr(money, "amount", 0.0) or 0.0)
        if key == "option":
            name = str(getattr(getattr(option, "gpu", None), "name", ""))
            return f"{name} {int(getattr(option, 'gpus', 0) or 0):07d}"  # by GPU type, then by count
        if key in ("ttft", "tokens_per_s"):
            name = {"ttft": "ttft_s", "tokens_per_s": "tokens_per_s"}[key]
            return float(getattr(option, name, 0.0) or 0.0)
        if key == "tpot":
            return float(getattr(option, "tpot_s", None) or getattr(option, "step_time_s", 0.0) or 0.0)
        if key == "gpu_hours":
            return float(option_gpu_hours(option) or 0.0)
        return self._display(option, key, row)

    def _tooltip(self, option: PlanOption, key: str) -> str | None:
        if key == "option":
            return str(getattr(getattr(option, "gpu", None), "name", ""))
        if key == "strategy":
            batch = getattr(option, "batch_per_replica", None)
            workload = getattr(option, "workload", None)
            if batch and workload is not None and not getattr(workload, "is_training", True):
                from desktop.plurals import plurals

                return plurals().users_per_replica(int(batch))
            if workload is not None and workload.is_training:
                from desktop.plurals import plurals

                steps = plurals().accumulation_steps(option.gradient_accumulation_steps or 1)
                return QCoreApplication.translate("PlanOptionsModel", "micro-batch {0}, {1}").format(
                    option.layout.micro_batch, steps
                )
        if key == "ttft":
            workload = getattr(option, "workload", None)
            prompt = getattr(workload, "prompt_len", None)
            return QCoreApplication.translate(
                "PlanOptionsModel",
                "Time to first token (TTFT) of a {0}-token prompt: the wait for a free slot, the prompt's prefill "
                "and the engine's per-request overhead",
            ).format(fmt.integer(prompt) if prompt else "?")
        if key == "tpot":
            return QCoreApplication.translate(
                "PlanOptionsModel", "Time per output token (TPOT) while decoding: the pace each user sees"
            )
        if key == "memory":
            capacity = getattr(getattr(option, "gpu", None), "memory_bytes", None)
            return QCoreApplication.translate("PlanOptionsModel", "{0} of {1} per GPU").format(
                fmt.gib(_memory_total(option)), fmt.gib(capacity)
            )
        if key == "confidence":
            return QCoreApplication.translate(
                "PlanOptionsModel",
                "measured: from a probe run of this GPU; datasheet: from the vendor's datasheet",
            )
        band = getattr(option, "time_band", None)
        parts = []
        if band is not None and key in ("time", "gpu_hours", "cost", "tokens_per_s"):
            parts.append(fmt.band(band.inverse() if key == "tokens_per_s" else band))
        if self._training and key in ("time", "gpu_hours", "cost") and getattr(option, "goodput", None) is not None:
            parts.append(self._failure_free(option, key))
        return "\n".join(parts) or None

    def _failure_free(self, option: PlanOption, key: str) -> str:
        """What a with-losses cell would read without failures, and the effective time between the two."""
        if key == "time":
            plain = fmt.duration(option.wall_time_s)
        elif key == "gpu_hours":
            plain = fmt.significant(option.gpu_hours, 3)
        else:
            plain = self._money_text(option.cost)
        return QCoreApplication.translate(
            "PlanOptionsModel", "With losses from failures, checkpoints and restarts ({0} effective time); "
            "failure-free: {1}"
        ).format(fmt.percent(option.effective_fraction, 1), plain)  # fmt: skip


def _memory_total(option: PlanOption) -> int:
    memory = getattr(option, "memory", None)
    total = getattr(memory, "total_bytes", None)
    return int(total or 0)
