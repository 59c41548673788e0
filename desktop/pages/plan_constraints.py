"""The Plan page's limits on the search: the constraints panel (GPU count, budget, deadline, efficiency) and, in
Expert mode, the strategy panel (pinned ZeRO stage, parallel sizes, LoRA rank). Bound to the one PlanState like
the other input panels (desktop/pages/plan_inputs.py).
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QWidget,
)

from desktop import fmt
from desktop.limit_spins import set_limit
from desktop.pages.plan_inputs import Panel, set_combo_data, wrapping_form
from desktop.plan_state import PlanInputs, PlanState
from desktop.plurals import plurals
from planner.vocabulary import Task


def _count_gpus(spin: QSpinBox | QDoubleSpinBox) -> None:
    """The GPU count's unit in the number's plural form: "1 GPU", "128 GPUs" (desktop/plurals.py)."""
    spin.setSuffix(" " + plurals().gpus(int(spin.value())).split(" ", 1)[-1])


class _OptionalSpin(QWidget):
    """A check box that enables a spin box: unchecked means "no limit" / "planner default"."""

    toggled_value = Signal()

    def __init__(self, spin: QDoubleSpinBox | QSpinBox, parent: QWidget | None = None):
        super().__init__(parent)
        self.check = QCheckBox()
        self.spin = spin
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.check)
        layout.addWidget(self.spin, 1)
        self.spin.setEnabled(False)
        self.check.toggled.connect(self.spin.setEnabled)
        self.check.toggled.connect(lambda _: self.toggled_value.emit())
        self.spin.valueChanged.connect(lambda _: self.toggled_value.emit())

    def value(self) -> float | None:
        return float(self.spin.value()) if self.check.isChecked() else None

    def set_value(self, value: float | None) -> None:
        with QSignalBlocker(self.check), QSignalBlocker(self.spin):
            self.check.setChecked(value is not None)
            self.spin.setEnabled(value is not None)
            if value is not None:
                if isinstance(self.spin, QSpinBox):
                    self.spin.setValue(round(value))
                else:
                    self.spin.setValue(value)


class ConstraintsPanel(Panel):
    """Maximum or exact GPU count, budget, deadline, rank by; MFU and bandwidth-efficiency overrides."""

    def __init__(self, state: PlanState, parent: QWidget | None = None):
        super().__init__(state, parent)
        # ranges: the CLI's rows of planner/limits.py (desktop/limit_spins.py), in this panel's units
        self.max_spin = QSpinBox()
        set_limit(self.max_spin, "max_gpus")
        exact = QSpinBox()
        set_limit(exact, "gpus")
        self.exact = _OptionalSpin(exact)
        budget = QDoubleSpinBox()
        budget.setDecimals(0)
        set_limit(budget, "budget")
        budget.setSingleStep(1000)
        budget.setMinimumWidth(90)  # its size hint allows for 1e12 and would push the row onto two lines
        self.budget = _OptionalSpin(budget)
        deadline = QDoubleSpinBox()
        deadline.setDecimals(1)
        set_limit(deadline, "deadline_days")
        self.deadline = _OptionalSpin(deadline)
        mfu = QDoubleSpinBox()
        mfu.setDecimals(0)
        set_limit(mfu, "mfu", 100)  # percent
        mfu.setValue(40)
        self.mfu = _OptionalSpin(mfu)
        efficiency = QDoubleSpinBox()
        efficiency.setDecimals(0)
        set_limit(efficiency, "bandwidth_fraction", 100)
        efficiency.setValue(80)
        self.efficiency = _OptionalSpin(efficiency)
        for widget in (self.mfu, self.efficiency):  # unticked, the field reads "default 40 %"
            widget.check.toggled.connect(lambda _on, w=widget: self._mark_default(w))
        self.headroom_spin = QSpinBox()
        set_limit(self.headroom_spin, "memory_headroom")  # percent, as --memory-headroom
        self.headroom_spin.setSuffix(" %")
        host_ram = QDoubleSpinBox()
        host_ram.setDecimals(0)
        set_limit(host_ram, "host_ram_gib")  # GiB, as --host-ram-gib
        host_ram.setSingleStep(64)
        host_ram.setValue(2048)
        host_ram.setMinimumWidth(90)
        self.host_ram = _OptionalSpin(host_ram)
        self.rank_combo = QComboBox()
        self.labels = {
            name: QLabel()
            for name in ("max", "exact", "budget", "deadline", "rank", "headroom", "host_ram", "mfu", "eff")
        }
        form = wrapping_form(self)
        form.addRow(self.labels["max"], self.max_spin)
        form.addRow(self.labels["exact"], self.exact)
        form.addRow(self.labels["budget"], self.budget)
        form.addRow(self.labels["deadline"], self.deadline)
        form.addRow(self.labels["rank"], self.rank_combo)
        form.addRow(self.labels["headroom"], self.headroom_spin)
        form.addRow(self.labels["host_ram"], self.host_ram)
        form.addRow(self.labels["mfu"], self.mfu)
        form.addRow(self.labels["eff"], self.efficiency)
        self.max_spin.valueChanged.connect(lambda v: self.state.update(max_gpus=int(v)))
        for spin in (self.max_spin, exact):  # "1 GPU", "128 GPUs"
            spin.valueChanged.connect(lambda _v, s=spin: _count_gpus(s))
        self.exact.toggled_value.connect(self._on_exact)
        self.budget.toggled_value.connect(lambda: self.state.update(budget_amount=self.budget.value()))
        self.deadline.toggled_value.connect(lambda: self.state.update(deadline_days=self.deadline.value()))
        self.mfu.toggled_value.connect(lambda: self.state.update(mfu=_fraction(self.mfu.value())))
        self.efficiency.toggled_value.connect(
            lambda: self.state.update(efficiency=_fraction(self.efficiency.value()))
        )
        self.rank_combo.currentIndexChanged.connect(
            lambda _: self.state.update(rank_by=self.rank_combo.currentData())
        )
        self.headroom_spin.valueChanged.connect(lambda v: self.state.update(memory_headroom=v / 100))
        self.host_ram.toggled_value.connect(lambda: self.state.update(host_ram_gib=self.host_ram.value()))
        self.retranslate()

    def _on_exact(self) -> None:
        value = self.exact.value()
        self.state.update(exact_gpus=None if value is None else int(value))

    def set_defaults(self, mfu: float | None, efficiency: float | None) -> None:
        """Show the planner's defaults (fractions) in the override fields while they are unchecked."""
        for widget, value, label in ((self.mfu, mfu, "mfu"), (self.efficiency, efficiency, "eff")):
            if value is not None and not widget.check.isChecked():
                with QSignalBlocker(widget.spin):
                    widget.spin.setValue(round(value * 100))
            widget.check.setToolTip(
                self.tr("Unchecked: the planner's default ({0})").format(fmt.percent(value))
            )
            widget.setProperty("default_fraction", value)
            self._mark_default(widget)
            del label

    def _mark_default(self, widget: _OptionalSpin) -> None:
        """While an override is off its field shows the planner's default, labelled as such."""
        on = widget.check.isChecked()
        widget.spin.setPrefix("" if on else self.tr("default") + " ")
        default = widget.property("default_fraction")
        if not on and default is not None:
            with QSignalBlocker(widget.spin):
                widget.spin.setValue(round(default * 100))

    def retranslate(self) -> None:
        self.setTitle(self.tr("5. Constraints and assumptions"))
        self.labels["max"].setText(self.tr("At most"))
        self.labels["exact"].setText(self.tr("Exactly"))
        self.labels["budget"].setText(self.tr("Budget"))
        self.labels["deadline"].setText(self.tr("Deadline"))
        self.labels["rank"].setText(self.tr("Rank by"))
        self.labels["headroom"].setText(self.tr("Memory headroom"))
        self.labels["host_ram"].setText(self.tr("Host RAM per node"))
        self.labels["mfu"].setText(self.tr("MFU override"))
        self.labels["eff"].setText(self.tr("Bandwidth efficiency"))
        self.max_spin.setToolTip(
            self.tr("The largest GPU count to consider; the search tries every count up to it")
        )
        self.exact.setToolTip(
            self.tr("Tick to plan exactly this many GPUs (for example the machine you have)")
        )
        self.exact.spin.setToolTip(self.exact.toolTip())
        self.exact.check.setToolTip(self.exact.toolTip())
        self.budget.setToolTip(self.tr("Tick to hide options whose whole run costs more than this"))
        self.budget.spin.setToolTip(self.budget.toolTip())
        self.budget.check.setToolTip(self.budget.toolTip())
        self.deadline.setToolTip(self.tr("Tick to hide options whose run takes longer than this many days"))
        self.deadline.spin.setToolTip(self.deadline.toolTip())
        self.deadline.check.setToolTip(self.deadline.toolTip())
        self.headroom_spin.setToolTip(
            self.tr("Share of each GPU's memory left free for the CUDA context, the allocator and NCCL buffers; "
                    "an option fits when it needs at most the rest (vLLM leaves 10% by default)")
        )  # fmt: skip
        self.host_ram.setToolTip(
            self.tr("Tick to set each node's CPU RAM: offloaded optimizer states and weights must fit in it "
                    "(unticked: twice the node's GPU memory)")
        )  # fmt: skip
        self.host_ram.spin.setToolTip(self.host_ram.toolTip())
        self.host_ram.check.setToolTip(self.host_ram.toolTip())
        self.host_ram.spin.setSuffix(" " + self.tr("GiB"))
        for spin in (self.max_spin, self.exact.spin):
            _count_gpus(spin)
        self.deadline.spin.setSuffix(" " + self.tr("days"))
        self.mfu.spin.setSuffix(" %")
        self.efficiency.spin.setSuffix(" %")
        self._mark_default(self.mfu)
        self._mark_default(self.efficiency)
        self.mfu.setToolTip(
            self.tr("Model FLOPs utilisation: the share of the GPUs' dense peak a training step reaches.")
        )
        self.efficiency.setToolTip(self.tr("Share of peak memory bandwidth reached when decoding (serving)."))
        for widget in (self.mfu, self.efficiency):
            widget.spin.setToolTip(widget.toolTip())
        with QSignalBlocker(self.rank_combo):
            current = self.rank_combo.currentData() or self.state.inputs.rank_by
            self.rank_combo.clear()
            self.rank_combo.addItem(self.tr("fastest"), "time")
            self.rank_combo.addItem(self.tr("cheapest"), "cost")
            self.rank_combo.setToolTip(
                self.tr("Training: fastest run or lowest cost. Serving: lowest latency per token, or the fewest "
                        "GPU-hours (cost) per token that still meets the target speed and users.")
            )  # fmt: skip
            set_combo_data(self.rank_combo, current)

    def set_currency(self, currency: str) -> None:
        prefix, suffix = fmt.money_affixes(currency)  # as every amount on the page reads
        self.budget.spin.setPrefix(prefix)
        self.budget.spin.setSuffix(suffix)

    def sync_rank(self, inputs: PlanInputs) -> None:
        """Show the ranking the state holds (the workload panel switches it with the task)."""
        with QSignalBlocker(self.rank_combo):
            set_combo_data(self.rank_combo, inputs.rank_by)

    def sync_from(self, inputs: PlanInputs) -> None:
        with (
            QSignalBlocker(self.max_spin),
            QSignalBlocker(self.rank_combo),
            QSignalBlocker(self.headroom_spin),
        ):
            self.max_spin.setValue(inputs.max_gpus)
            set_combo_data(self.rank_combo, inputs.rank_by)
            self.headroom_spin.setValue(round(inputs.memory_headroom * 100))
        self.exact.set_value(inputs.exact_gpus)
        self.budget.set_value(inputs.budget_amount)
        self.deadline.set_value(inputs.deadline_days)
        self.host_ram.set_value(inputs.host_ram_gib)
        self.mfu.set_value(None if inputs.mfu is None else inputs.mfu * 100)
        self.efficiency.set_value(None if inputs.efficiency is None else inputs.efficiency * 100)
        self._mark_default(self.mfu)
        self._mark_default(self.efficiency)


# The training runtimes (planner.vocabulary.Runtime) by their product names (not translated).
_RUNTIME_NAMES = {"deepspeed": "DeepSpeed", "fsdp2": "PyTorch FSDP2", "ddp": "PyTorch DDP", "torchtitan": "torchtitan"}


class StrategyPanel(Panel):
    """Expert mode: strategy fields pinned as the CLI's --dp --tp --pp --zero --micro-batch do, and the LoRA rank.

    An unticked field is searched; a ticked one is fixed for every option (an impossible pin leaves nothing
    that fits, and the excluded strategies say why)."""

    def __init__(self, state: PlanState, parent: QWidget | None = None):
        super().__init__(state, parent)
        self.pins: dict[str, _OptionalSpin] = {}
        form = wrapping_form(self)
        self.labels: dict[str, QLabel] = {}
        for name in ("dp", "tp", "pp", "micro_batch"):  # the CLI's --dp --tp --pp --micro-batch rows
            spin = QSpinBox()
            set_limit(spin, name)
            self.pins[name] = _OptionalSpin(spin)
            self.labels[name] = QLabel()
            form.addRow(self.labels[name], self.pins[name])
            self.pins[name].toggled_value.connect(lambda n=name: self._pin(n))
        self.zero_combo = QComboBox()
        self.labels["zero"] = QLabel()
        form.addRow(self.labels["zero"], self.zero_combo)
        self.zero_combo.currentIndexChanged.connect(
            lambda _: self.state.update(pin_zero=self.zero_combo.currentData())
        )
        self.runtime_combo = QComboBox()
        self.labels["runtime"] = QLabel()
        form.addRow(self.labels["runtime"], self.runtime_combo)
        self.runtime_combo.currentIndexChanged.connect(
            lambda _: self.state.update(runtime=self.runtime_combo.currentData())
        )
        self.lora_spin = QSpinBox()
        set_limit(self.lora_spin, "lora_rank")
        self.labels["lora"] = QLabel()
        form.addRow(self.labels["lora"], self.lora_spin)
        self.lora_spin.valueChanged.connect(lambda v: self.state.update(lora_rank=int(v)))
        self.retranslate()

    def _pin(self, name: str) -> None:
        value = self.pins[name].value()
        self.state.update(**{f"pin_{name}": None if value is None else int(value)})

    def retranslate(self) -> None:
        self.setTitle(self.tr("Strategy (expert)"))
        texts = {
            "dp": (self.tr("Data parallel"), self.tr("Tick to fix the data-parallel degree (replicas when serving)")),
            "tp": (self.tr("Tensor parallel"), self.tr("Tick to fix the tensor-parallel degree (GPUs per layer)")),
            "pp": (self.tr("Pipeline parallel"), self.tr("Tick to fix the number of pipeline stages")),
            "micro_batch": (self.tr("Micro-batch"), self.tr("Tick to fix the sequences per GPU per step (training) "
                                                            "or per replica (serving)")),
        }  # fmt: skip
        for name, (label, tip) in texts.items():
            self.labels[name].setText(label)
            for widget in (self.pins[name], self.pins[name].check, self.pins[name].spin):
                widget.setToolTip(tip)
        self.labels["zero"].setText(self.tr("ZeRO stage"))
        self.labels["lora"].setText(self.tr("LoRA rank"))
        self.zero_combo.setToolTip(
            self.tr("Searched, or one ZeRO stage for every option (DeepSpeed ZeRO 0 to 3)")
        )
        self.lora_spin.setToolTip(self.tr("Rank of the LoRA/QLoRA adapters (the CLI's --lora-rank)"))
        with QSignalBlocker(self.zero_combo):
            current = self.zero_combo.currentData() if self.zero_combo.count() else self.state.inputs.pin_zero
            self.zero_combo.clear()
            self.zero_combo.addItem(self.tr("searched"), None)
            for stage in range(4):
                self.zero_combo.addItem(self.tr("ZeRO-{0}").format(stage), stage)
            self._show_zero(current)
        self.labels["runtime"].setText(self.tr("Runtime"))
        self.runtime_combo.setToolTip(self.tr(
            "Chosen per layout (DDP for plain data parallel, else DeepSpeed, else torchtitan), or one training "
            "runtime for every option: its memory layout is counted and its runner exported"
        ))  # fmt: skip
        with QSignalBlocker(self.runtime_combo):
            chosen = (
                self.runtime_combo.currentData() if self.runtime_combo.count() else self.state.inputs.runtime
            )
            self.runtime_combo.clear()
            self.runtime_combo.addItem(self.tr("chosen per layout"), None)
            for runtime, name in _RUNTIME_NAMES.items():
                self.runtime_combo.addItem(name, runtime)
            self._show_runtime(chosen)

    def _show_runtime(self, runtime: str | None) -> None:
        if runtime is None:
            self.runtime_combo.setCurrentIndex(0)
        else:
            set_combo_data(self.runtime_combo, runtime)

    def _show_zero(self, stage: int | None) -> None:
        if stage is None:
            self.zero_combo.setCurrentIndex(0)
        else:
            set_combo_data(self.zero_combo, stage)

    def sync_from(self, inputs: PlanInputs) -> None:
        for name, widget in self.pins.items():
            widget.set_value(getattr(inputs, f"pin_{name}"))
        with QSignalBlocker(self.zero_combo), QSignalBlocker(self.lora_spin), QSignalBlocker(self.runtime_combo):
            self._show_zero(inputs.pin_zero)
            self._show_runtime(inputs.runtime)
            self.lora_spin.setValue(int(inputs.lora_rank))
        self.labels["lora"].setEnabled(inputs.task in (Task.LORA, Task.QLORA))
        self.runtime_combo.setEnabled(inputs.task != Task.INFERENCE)
        self.lora_spin.setEnabled(inputs.task in (Task.LORA, Task.QLORA))


def _fraction(percent: float | None) -> float | None:
    return None if percent is None else percent / 100.0

