"""The Plan page's inputs for planning at scale (Expert mode): failures and checkpoints, and a mixed GPU pool.

Bound to the one PlanState like the panels of desktop/pages/plan_inputs.py. ResiliencePanel sets what the CLI's
--failures-per-million-gpu-hours, --checkpoint-storage, --checkpoint-gb-per-s and --checkpoint-interval-minutes
set (unticked: the planner's default), and --spot with --spot-interruptions-per-node-hour (a typed rate: blank
takes the spot quotes' rate, else the default; a typo is said under it and kept); PoolPanel holds the rows of `plan --pool ID:COUNT,...`: a GPU type and a
count each. A count is typed, so a typo is possible: it is said in a line under the rows, the text stays in its
field and the plan keeps the last valid pool until it is fixed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from desktop import fmt
from desktop.limit_spins import set_limit
from desktop.pages.plan_inputs import Panel, set_combo_data, wrapping_form
from desktop.plan_state import CHECKPOINT_STORAGES, PlanInputs, PlanState
from desktop.qmodels.plan_options import short_gpu_name
from planner.limits import LIMITS
from planner.resolver import MAX_INTERRUPTIONS_PER_NODE_HOUR
from planner.scale import DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR

if TYPE_CHECKING:
    from planner.gpus import GpuSpec

# The most GPUs of one type a pool row takes: the CLI's --pool limit (the "gpus" row of planner/limits.py).
MAX_POOL_GPUS = int(LIMITS["gpus"].high)


class DefaultOrValue(QWidget):
    """A check box and a spin box: unticked, the spin box is off and reads what the planner assumes instead
    ("published per GPU type"); ticked, it holds the user's figure."""

    changed = Signal()

    def __init__(self, limit: str, decimals: int, start: float, parent: QWidget | None = None):
        super().__init__(parent)
        self.check = QCheckBox()
        self.spin = QDoubleSpinBox()
        self.spin.setDecimals(decimals)
        set_limit(self.spin, limit)  # the CLI's row of planner/limits.py; unticked, one below it is the default
        self.spin.setMinimumWidth(60)  # its size hint allows for the range's widest figure and the suffix
        self.spin.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._range = (self.spin.minimum(), self.spin.maximum())
        self._start = start
        self._default_text = ""
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.check)
        layout.addWidget(self.spin, 1)
        self.check.toggled.connect(self._on_toggled)
        self.spin.valueChanged.connect(lambda _: self.changed.emit() if self.check.isChecked() else None)
        self._show(None)

    def set_default_text(self, text: str) -> None:
        self._default_text = text
        # wide enough for the default's words (plus the arrows): the form puts a field that is not under its label
        self.spin.setMinimumWidth(max(60, self.spin.fontMetrics().horizontalAdvance(text) + 36))
        if not self.check.isChecked():
            self.spin.setSpecialValueText(text)

    def value(self) -> float | None:
        return float(self.spin.value()) if self.check.isChecked() else None

    def set_value(self, value: float | None) -> None:
        with QSignalBlocker(self.check), QSignalBlocker(self.spin):
            self.check.setChecked(value is not None)
            self._show(value)

    def _on_toggled(self, on: bool) -> None:
        with QSignalBlocker(self.spin):
            self._show(self._start if on else None)
        self.changed.emit()

    def _show(self, value: float | None) -> None:
        """Unticked: below the range, where the spin box shows the default's words; ticked: the figure."""
        low, high = self._range
        self.spin.setEnabled(value is not None)
        if value is None:
            self.spin.setRange(low - 1, high)
            self.spin.setSpecialValueText(self._default_text)
            self.spin.setValue(low - 1)
        else:
            self.spin.setSpecialValueText("")
            self.spin.setRange(low, high)
            self.spin.setValue(value)


class ResiliencePanel(Panel):
    """Failures and checkpoints of a training run: the goodput term's inputs (planner.scale.Resilience)."""

    def __init__(self, state: PlanState, parent: QWidget | None = None):
        super().__init__(state, parent)
        self.failures = DefaultOrValue("failures_per_million_gpu_hours", 2, 19.7)  # ticked, it starts at the H100 figure (Llama 3)
        self.storage_combo = QComboBox()
        self.rate = DefaultOrValue("checkpoint_gb_per_s", 2, 5.0)
        self.interval = DefaultOrValue("checkpoint_interval_minutes", 0, 60)
        self.spot = QCheckBox()
        self.spot_rate = QLineEdit()
        self.labels = {name: QLabel() for name in ("failures", "storage", "rate", "interval", "spot_rate")}
        self.spot_message = QLabel()
        self.spot_message.setWordWrap(True)
        self.spot_message.setStyleSheet("color: #cf222e;")
        self.spot_message.setVisible(False)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setObjectName("hint")
        form = wrapping_form(self)
        form.addRow(self.labels["failures"], self.failures)
        form.addRow(self.labels["storage"], self.storage_combo)
        form.addRow(self.labels["rate"], self.rate)
        form.addRow(self.labels["interval"], self.interval)
        form.addRow(self.spot)
        form.addRow(self.labels["spot_rate"], self.spot_rate)
        form.addRow(self.spot_message)
        form.addRow(self.hint)
        for name, widget in (("failures", self.failures), ("rate", self.rate), ("interval", self.interval)):
            self.labels[name].setBuddy(widget.check)
        self.labels["storage"].setBuddy(self.storage_combo)
        self.labels["spot_rate"].setBuddy(self.spot_rate)
        self.spot.toggled.connect(self._on_spot)
        self.spot_rate.textEdited.connect(lambda _t: self._commit_spot_rate())
        self.failures.changed.connect(
            lambda: self.state.update(failures_per_million_gpu_hours=self.failures.value())
        )
        self.rate.changed.connect(self._on_rate)
        self.interval.changed.connect(
            lambda: self.state.update(checkpoint_interval_minutes=self.interval.value())
        )
        self.storage_combo.currentIndexChanged.connect(
            lambda _: self.state.update(checkpoint_storage=self.storage_combo.currentData())
        )
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(self.tr("Failures and checkpoints (training)"))
        self.labels["failures"].setText(self.tr("Failure rate"))
        self.labels["storage"].setText(self.tr("Checkpoint storage"))
        self.labels["rate"].setText(self.tr("Checkpoint write rate"))
        self.labels["interval"].setText(self.tr("Checkpoint interval"))
        self.failures.set_default_text(self.tr("published"))
        self.rate.set_default_text(self.tr("the storage's"))
        self.interval.set_default_text(self.tr("optimal (Daly)"))
        self.failures.spin.setSuffix(" " + self.tr("per million GPU-hours"))
        self.rate.spin.setSuffix(" " + self.tr("GB/s per GPU"))
        self.interval.spin.setSuffix(" " + self.tr("min"))
        self.spot.setText(self.tr("Spot capacity"))  # what it means: its tooltip (a check box does not wrap)
        self.labels["spot_rate"].setText(self.tr("Reclaims per node-hour"))
        self.spot_rate.setPlaceholderText(self.tr("the quote's, else {0}").format(
            fmt.significant(DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR, 2)))  # fmt: skip
        self._check_spot_rate()
        self.hint.setText(
            self.tr("Unticked: the published failure rate of each GPU type (Llama 3 for H100, Meta's clusters for "
                    "A100), the storage's own write rate and Daly's optimal interval. 0 failures turns the goodput "
                    "term off.")
        )  # fmt: skip
        tips = (
            (self.failures, self.tr("Job interruptions per million GPU-hours (the CLI's "
                                    "--failures-per-million-gpu-hours); tick to set your own")),
            (self.storage_combo, self.tr("Where checkpoints are written (the CLI's --checkpoint-storage)")),
            (self.rate, self.tr("Checkpoint write rate per GPU in GB/s; overrides the storage "
                                "(the CLI's --checkpoint-gb-per-s)")),
            (self.interval, self.tr("Minutes of work between checkpoints (the CLI's --checkpoint-interval-minutes); "
                                    "unticked: Daly's optimum")),
            (self.spot, self.tr("Plan on spot capacity: spot quotes price the plan, every reclaimed node stops the "
                                "job, and the Goodput tab compares spot with on demand (the CLI's --spot)")),
            (self.spot_rate, self.tr("Spot reclaims per node (instance) per hour (the CLI's "
                                     "--spot-interruptions-per-node-hour); blank: the rate the spot quotes state, "
                                     "else AWS Spot Instance Advisor's top band")),
        )  # fmt: skip
        for widget, tip in tips:
            widget.setToolTip(tip)
            for part in (getattr(widget, "check", None), getattr(widget, "spin", None)):
                if part is not None:
                    part.setToolTip(tip)
        names = {"pfs": self.tr("parallel file system"), "nvme": self.tr("local NVMe")}
        with QSignalBlocker(self.storage_combo):
            current = self.storage_combo.currentData() or self.state.inputs.checkpoint_storage
            self.storage_combo.clear()
            for storage in CHECKPOINT_STORAGES:
                self.storage_combo.addItem(names[storage], storage)
            set_combo_data(self.storage_combo, current)

    def _on_rate(self) -> None:
        """The user's write rate replaces the storage profile: the profile's choice is off while it is set."""
        rate = self.rate.value()
        self.storage_combo.setEnabled(rate is None)
        self.state.update(checkpoint_gb_per_s=rate)

    def _on_spot(self, on: bool) -> None:
        self.spot_rate.setEnabled(on)
        self.state.update(spot=on)

    def _check_spot_rate(self) -> tuple[bool, float | None]:
        """(valid, rate): blank is valid (the quote's rate, else the default); a typo is said and kept."""
        rate = parse_rate(self.spot_rate.text())
        valid = rate is not None or not self.spot_rate.text().strip()
        if not valid:
            self.spot_message.setText(
                self.tr("Reclaims per node-hour is a number from 0 to {0} (blank: the quote's rate); fix “{1}”. The "
                        "plan keeps the last valid rate meanwhile.").format(
                    fmt.number(MAX_INTERRUPTIONS_PER_NODE_HOUR, 0), self.spot_rate.text())
            )  # fmt: skip
        self.spot_rate.setStyleSheet("" if valid else "border: 1px solid #cf222e;")
        self.spot_message.setVisible(not valid)
        return valid, rate

    def _commit_spot_rate(self) -> None:
        valid, rate = self._check_spot_rate()
        if valid:
            self.state.update(spot_interruptions_per_node_hour=rate)

    def sync_from(self, inputs: PlanInputs) -> None:
        with QSignalBlocker(self.spot):
            self.spot.setChecked(inputs.spot)
        self.spot_rate.setEnabled(inputs.spot)
        rate = inputs.spot_interruptions_per_node_hour
        self.spot_rate.setText("" if rate is None else f"{rate:.6g}")  # no thousands separator to misread
        self._check_spot_rate()
        self.failures.set_value(inputs.failures_per_million_gpu_hours)
        self.rate.set_value(inputs.checkpoint_gb_per_s)
        self.interval.set_value(inputs.checkpoint_interval_minutes)
        with QSignalBlocker(self.storage_combo):
            set_combo_data(self.storage_combo, inputs.checkpoint_storage)
        self.setEnabled(inputs.is_training)
        self.storage_combo.setEnabled(inputs.checkpoint_gb_per_s is None)


def parse_rate(text: str) -> float | None:
    """A typed reclaim rate: a finite number from 0 to MAX_INTERRUPTIONS_PER_NODE_HOUR ("0.02", "0,02",
    "2e-2"), else None (blank too)."""
    cleaned = text.strip().replace(",", ".").replace("\u00a0", "").replace(" ", "")
    try:
        value = float(cleaned)
    except ValueError:
        return None
    if not cleaned.isascii() or not math.isfinite(value) or not 0 <= value <= MAX_INTERRUPTIONS_PER_NODE_HOUR:
        return None
    return value


def parse_count(text: str) -> int | None:
    """A typed GPU count: a whole number from 0 to MAX_POOL_GPUS (thousands separators allowed), else None."""
    digits = text.strip()
    for separator in (",", " ", "\u00a0", "\u202f"):  # "1,024", "1 024" and the Russian locale's spaces
        digits = digits.replace(separator, "")
    if not digits.isdigit() or not digits.isascii():
        return None
    value = int(digits)
    return value if value <= MAX_POOL_GPUS else None


class _PoolRow:
    """One row of the pool: a GPU type, its count, and a button that removes the row."""

    def __init__(self, gpus: Sequence[GpuSpec], gpu_id: str, count: str):
        self.combo = QComboBox()
        # as wide as the column allows, not as the longest GPU name: the input column has a fixed width
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.combo.setMinimumContentsLength(8)
        for gpu in gpus:
            self.combo.addItem(short_gpu_name(gpu.name), gpu.id)
            self.combo.setItemData(self.combo.count() - 1, gpu.name, Qt.ItemDataRole.ToolTipRole)
        set_combo_data(self.combo, gpu_id)
        self.count = QLineEdit(count)
        self.count.setMaximumWidth(64)
        self.remove = QPushButton()

    @property
    def gpu_id(self) -> str:
        return str(self.combo.currentData() or "")

    def widgets(self) -> tuple[QWidget, ...]:
        return self.combo, self.count, self.remove


def _tab_stop_before(widget: QWidget) -> QWidget | None:
    """The last widget Tab stops at before ``widget`` and its children (None while it is not in a window)."""
    candidate = widget.previousInFocusChain()
    for _ in range(10_000):
        if candidate is None or candidate is widget:
            return None
        if candidate.focusPolicy() & Qt.FocusPolicy.TabFocus and not widget.isAncestorOf(candidate):
            return candidate
        candidate = candidate.previousInFocusChain()
    return None


class PoolPanel(Panel):
    """A mixed pool you have or can rent (64 × A100 80GB + 32 × H100): each type alone against the whole pool,
    the comparison `gpu-advisor plan --pool` makes. A type at 0 GPUs is absent."""

    def __init__(self, state: PlanState, parent: QWidget | None = None):
        super().__init__(state, parent)
        self._gpus: list[GpuSpec] = []
        self.rows: list[_PoolRow] = []
        self.grid = QGridLayout()
        self.grid.setColumnStretch(0, 1)
        self.add_button = QPushButton()
        self.add_button.clicked.connect(self.add_row)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #cf222e;")
        self.message.setVisible(False)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setObjectName("hint")
        layout = QVBoxLayout(self)
        layout.addLayout(self.grid)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        layout.addWidget(self.message)
        layout.addWidget(self.hint)
        self.retranslate()

    def set_catalog(self, gpus: Sequence[GpuSpec]) -> None:
        """The GPU types a row may choose (the catalog, largest memory first)."""
        self._gpus = sorted(gpus, key=lambda gpu: (-gpu.memory_bytes, gpu.name))
        self._rebuild([(row.gpu_id, row.count.text()) for row in self.rows])

    def retranslate(self) -> None:
        self.setTitle(self.tr("Mixed pool"))
        self.add_button.setText(self.tr("Add a GPU type"))
        self.add_button.setToolTip(self.tr("Add a row: a GPU type and how many of it the pool has"))
        self.hint.setText(
            self.tr("What you have or can rent, say 64 × A100 80GB + 32 × H100: each type alone is compared with "
                    "the whole pool as one job (the Mixed pool tab on the right). A type at 0 is left out.")
        )  # fmt: skip
        for row in self.rows:
            self._word_row(row)
        self._check()

    def _word_row(self, row: _PoolRow) -> None:
        name = row.combo.currentText()
        row.remove.setText(self.tr("Remove"))
        row.remove.setToolTip(self.tr("Remove {0} from the pool").format(name))
        row.remove.setAccessibleName(self.tr("Remove {0} from the pool").format(name))
        row.count.setPlaceholderText(self.tr("GPUs"))
        row.count.setToolTip(self.tr("How many {0} the pool has (a whole number, 0 or more)").format(name))
        row.count.setAccessibleName(self.tr("Count of {0}").format(name))
        row.combo.setToolTip(self.tr("GPU type of this row"))

    def add_row(self) -> None:
        used = {row.gpu_id for row in self.rows}
        free = next((gpu.id for gpu in self._gpus if gpu.id not in used), self._gpus[0].id if self._gpus else "")
        self._rebuild([*((row.gpu_id, row.count.text()) for row in self.rows), (free, "0")])
        self.rows[-1].count.setFocus()
        self.rows[-1].count.selectAll()
        self._commit()

    def _remove(self, row: _PoolRow) -> None:
        if row not in self.rows:  # a click queued before the rows were laid out again
            return
        index = self.rows.index(row)
        kept = [(r.gpu_id, r.count.text()) for r in self.rows if r is not row]
        self._rebuild(kept)
        focus = self.rows[min(index, len(self.rows) - 1)].count if self.rows else self.add_button
        focus.setFocus()
        self._commit()

    def _rebuild(self, rows: Sequence[tuple[str, str]]) -> None:
        """Lay the rows out again (the typed texts, valid or not, are kept)."""
        for row in self.rows:
            for widget in row.widgets():
                self.grid.removeWidget(widget)
                widget.deleteLater()
        self.rows = []
        for index, (gpu_id, count) in enumerate(rows):
            row = _PoolRow(self._gpus, gpu_id, count)
            for column, widget in enumerate(row.widgets()):
                self.grid.addWidget(widget, index, column)
            row.combo.currentIndexChanged.connect(lambda _i, r=row: self._on_type(r))
            row.count.textEdited.connect(lambda _t: self._commit())
            row.remove.clicked.connect(lambda _c=False, r=row: self._remove(r))
            self._word_row(row)
            self.rows.append(row)
        self._order_tabs()

    def _order_tabs(self) -> None:
        """Tab goes row by row (type, count, Remove), then to Add, where the panel stands in the column (rows made
        after the page are put after the panel itself, not at the end of the window's chain)."""
        chain: list[QWidget] = [w for row in self.rows for w in row.widgets()] + [self.add_button]
        before = _tab_stop_before(self)
        for first, second in zip([before, *chain] if before is not None else chain, chain, strict=False):
            QWidget.setTabOrder(first, second)

    def _on_type(self, row: _PoolRow) -> None:
        self._word_row(row)
        self._commit()

    def _check(self) -> list[tuple[str, int]] | None:
        """The rows as (GPU id, count), or None (and the message shown) while a count is not a whole number."""
        rows: list[tuple[str, int]] = []
        bad = []
        for row in self.rows:
            count = parse_count(row.count.text())
            if count is None:
                bad.append(self.tr("{0}: “{1}”").format(row.combo.currentText(), row.count.text()))
                row.count.setStyleSheet("border: 1px solid #cf222e;")
            else:
                row.count.setStyleSheet("")
                rows.append((row.gpu_id, count))
        if bad:
            self.message.setText(
                self.tr("A count is a whole number of GPUs from 0 to {0}; fix {1}. The plan keeps the last valid "
                        "pool meanwhile.").format(f"{MAX_POOL_GPUS:,}", "; ".join(bad))
            )  # fmt: skip
        self.message.setVisible(bool(bad))
        return None if bad else rows

    def _commit(self) -> None:
        rows = self._check()
        if rows is not None:
            self.state.update(pool=tuple(rows))

    def sync_from(self, inputs: PlanInputs) -> None:
        """The state's pool rows (a saved plan, the example, a new plan); what was typed is replaced."""
        self._rebuild([(gpu_id, str(count)) for gpu_id, count in inputs.pool])
        self._check()
