"""The Plan page's input panels: workload, model, shape, hardware (constraints and strategy: plan_constraints.py).

Each panel is a QGroupBox bound to the one PlanState (desktop/plan_state.py): a widget change calls
state.update(field=value); sync_from(inputs) sets the widgets from the state with signals blocked (loading a
saved plan or the example). Panels never plan; the page re-plans when the state says "inputs".
The same panel objects serve the guided flow (one at a time, Next/Back) and the expert page (all stacked).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractButton,
    QButtonGroup,
    QComboBox,
    QCompleter,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSlider,
    QSpinBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop import dialogs, fmt
from desktop.limit_spins import set_limit
from desktop.message_templates import QT_TRANSLATE_NOOP
from desktop.pages.plan_serving_inputs import ServingInputs
from desktop.plan_request import Text
from desktop.plan_state import PlanInputs, PlanState
from planner.memory import MAX_SEQ_LEN
from planner.vocabulary import Precision, Task

_SEQ_LEN_REFUSED = QT_TRANSLATE_NOOP(
    "ShapePanel", "The sequence length must be a whole number of tokens from 1 to {1}, not “{0}”: no plan until it is."
)


def parse_whole_number(text: str) -> int | None:
    """A whole number as people type it, with group separators ("4,096", "4 096", "4096"); None otherwise."""
    digits = "".join(ch for ch in text if ch not in " ,'’\u00a0\u202f")
    return int(digits) if digits.isascii() and digits.isdigit() else None


# Model size slider: log scale from 0.1 to 1,000 billion parameters in 400 steps.
SIZE_MIN_B, SIZE_MAX_B, SIZE_STEPS = 0.1, 1000.0, 400
SEQ_LENS = (512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072)


def size_to_slider(billions: float) -> int:
    billions = min(max(billions, SIZE_MIN_B), SIZE_MAX_B)
    span = math.log10(SIZE_MAX_B) - math.log10(SIZE_MIN_B)
    return round((math.log10(billions) - math.log10(SIZE_MIN_B)) / span * SIZE_STEPS)


def slider_to_size(position: int) -> float:
    span = math.log10(SIZE_MAX_B) - math.log10(SIZE_MIN_B)
    value = 10 ** (math.log10(SIZE_MIN_B) + position / SIZE_STEPS * span)
    return float(f"{value:.2g}") if value < 10 else round(value)


def set_combo_data(combo: QComboBox, value: Any) -> None:
    index = combo.findData(value)
    if index >= 0:
        combo.setCurrentIndex(index)


def wrapping_form(parent: QWidget) -> QFormLayout:
    """A form whose too-long rows put the field under its label instead of being clipped.

    Russian labels run about 30% longer than English ones; in the narrow input column they would otherwise
    push the fields out of sight."""
    form = QFormLayout(parent)
    form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
    return form



class TrimmedSpin(QDoubleSpinBox):
    """A figure without trailing zeros after its decimal separator: "2 B tokens", "0.125 B tokens" ("2,000 млрд
    токенов" read as two thousand)."""

    def textFromValue(self, value: float) -> str:  # noqa: N802 (Qt override)
        text = super().textFromValue(value)
        point = self.locale().decimalPoint()
        return text.rstrip("0").rstrip(point) if point in text else text

class Panel(QGroupBox):
    """A group box bound to the plan state."""

    def __init__(self, state: PlanState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state

    def retranslate(self) -> None:
        raise NotImplementedError

    def sync_from(self, inputs: PlanInputs) -> None:
        raise NotImplementedError


class WorkloadPanel(Panel):
    TASKS = tuple(Task)
    # The precision combo's order: the common training/serving formats first, fp32 last.
    PRECISIONS = (
        Precision.BF16,
        Precision.FP16,
        Precision.FP8,
        Precision.INT8,
        Precision.INT4,
        Precision.FP32,
    )

    def __init__(self, state: PlanState, parent: QWidget | None = None):
        super().__init__(state, parent)
        self.task_combo = QComboBox()
        self.precision_combo = QComboBox()
        for precision in self.PRECISIONS:
            self.precision_combo.addItem(precision.value, precision.value)
        self.task_hint = QLabel()
        self.task_hint.setWordWrap(True)
        self.task_hint.setObjectName("hint")
        form = wrapping_form(self)
        self.task_label, self.precision_label = QLabel(), QLabel()
        form.addRow(self.task_label, self.task_combo)
        form.addRow(self.precision_label, self.precision_combo)
        form.addRow(self.task_hint)
        self.task_combo.currentIndexChanged.connect(self._on_task)
        self.precision_combo.currentIndexChanged.connect(
            lambda _: self.state.update(precision=self.precision_combo.currentData())
        )
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(self.tr("1. Workload"))
        self.task_label.setText(self.tr("Task"))
        self.precision_label.setText(self.tr("Precision"))
        self.task_combo.setToolTip(
            self.tr("Serve the model to users, or train it: from scratch, all weights, or adapters")
        )
        self.precision_combo.setToolTip(
            self.tr("Number format of the weights and the compute (bf16 for training; int8/int4 for serving)")
        )
        names = {
            "inference": self.tr("Serve / inference"),
            "pretrain": self.tr("Pretraining"),
            "finetune": self.tr("Full fine-tune"),
            "lora": self.tr("LoRA fine-tune"),
            "qlora": self.tr("QLoRA fine-tune (4-bit base)"),
        }
        with QSignalBlocker(self.task_combo):
            current = self.task_combo.currentData() or self.state.inputs.task
            self.task_combo.clear()
            for task in self.TASKS:
                self.task_combo.addItem(names[task], task.value)
            set_combo_data(self.task_combo, current)
        self._update_hint()

    def _on_task(self, _index: int) -> None:
        """A new task; switching between serving and training also switches what "best" means.

        Serving asks how few GPUs meet the target speed and users (ranked cheapest per token: the GPU count then
        follows the target), training how soon the run is done (ranked fastest). The Rank-by field shows it and
        stays the user's to change.
        """
        task = self.task_combo.currentData()
        changes: dict[str, Any] = {"task": task}
        if (task == "inference") != (self.state.inputs.task == "inference"):
            changes["rank_by"] = "cost" if task == "inference" else "time"
        self.state.update(**changes)

    def _update_hint(self) -> None:
        hints = {
            "inference": self.tr(
                "Weights and KV cache only; speed is limited by memory bandwidth when decoding."
            ),
            "pretrain": self.tr(
                "All weights train: weights, gradients and optimizer states (16 bytes per parameter)."
            ),
            "finetune": self.tr(
                "All weights train: weights, gradients and optimizer states (16 bytes per parameter)."
            ),
            "lora": self.tr(
                "The base model is frozen; small adapters train. Needs about the inference memory."
            ),
            "qlora": self.tr("The frozen base is stored in 4 bits (NF4); adapters train in bf16."),
        }
        self.task_hint.setText(hints.get(self.state.inputs.task, ""))

    def sync_from(self, inputs: PlanInputs) -> None:
        with QSignalBlocker(self.task_combo), QSignalBlocker(self.precision_combo):
            set_combo_data(self.task_combo, inputs.task)
            set_combo_data(self.precision_combo, inputs.precision)
        self._update_hint()


class ModelPanel(Panel):
    """A preset (searchable), a size in billions (slider + field) or a local config.json / model folder."""

    def __init__(self, state: PlanState, parent: QWidget | None = None):
        super().__init__(state, parent)
        self.preset_radio, self.size_radio, self.path_radio = QRadioButton(), QRadioButton(), QRadioButton()
        self.kind_group = QButtonGroup(self)
        for kind, radio in (
            ("preset", self.preset_radio),
            ("size", self.size_radio),
            ("path", self.path_radio),
        ):
            self.kind_group.addButton(radio)
            radio.setProperty("kind", kind)
        self.preset_combo = QComboBox()
        self.preset_combo.setEditable(True)
        self.preset_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self._fill_presets()
        completer = QCompleter(self.preset_combo.model(), self.preset_combo)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.preset_combo.setCompleter(completer)
        self.size_slider = QSlider(Qt.Orientation.Horizontal)
        self.size_slider.setRange(0, SIZE_STEPS)
        self.size_spin = QDoubleSpinBox()
        self.size_spin.setDecimals(1)
        set_limit(self.size_spin, "model_billions")  # the slider covers SIZE_MIN_B..SIZE_MAX_B of it
        self.path_edit = QLineEdit()
        self.file_button, self.folder_button = QPushButton(), QPushButton()
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setObjectName("hint")

        layout = wrapping_form(self)
        layout.addRow(self.preset_radio, self.preset_combo)
        layout.addRow(self.size_radio, self.size_spin)
        layout.addRow("", self.size_slider)
        layout.addRow(self.path_radio, self.path_edit)
        buttons = QHBoxLayout()
        buttons.addWidget(self.file_button)
        buttons.addWidget(self.folder_button)
        buttons.addStretch(1)
        layout.addRow("", buttons)
        layout.addRow(self.summary)

        self.kind_group.buttonToggled.connect(self._on_kind)
        self.preset_combo.activated.connect(self._on_preset)
        preset_line = self.preset_combo.lineEdit()
        if preset_line is not None:
            preset_line.editingFinished.connect(self._on_preset_text)
        self.size_slider.valueChanged.connect(self._on_slider)
        self.size_spin.valueChanged.connect(self._on_spin)
        self.path_edit.editingFinished.connect(self._on_path_edited)
        self.file_button.clicked.connect(self._browse_file)
        self.folder_button.clicked.connect(self._browse_folder)
        self.retranslate()

    def _fill_presets(self) -> None:
        try:
            from planner.models import list_presets

            presets = list_presets()
        except (
            OSError,
            ValueError,
            KeyError,
            TypeError,
        ):  # a missing or broken catalog (file, JSON, record):
            presets = []  # sizes and files still work
        self._preset_labels: list[tuple[str, float]] = []  # (name, billions of parameters) per combo item
        for spec in presets:
            preset_id = getattr(spec, "id", None) or spec.name
            label = getattr(spec, "display_name", None) or spec.name
            self._preset_labels.append((label, spec.total_params / 1e9))
            self.preset_combo.addItem(label, preset_id)

    def retranslate(self) -> None:
        self.setTitle(self.tr("2. Model"))
        for index, (label, billions) in enumerate(getattr(self, "_preset_labels", [])):
            # "Llama 3.1 70B (70.6 B)" / "(70,6 млрд)": the size in the locale's numbers
            self.preset_combo.setItemText(
                index, self.tr("{0} ({1} B)").format(label, fmt.number(billions, 1))
            )
        self.preset_radio.setText(self.tr("Preset"))
        self.size_radio.setText(self.tr("Size"))
        self.path_radio.setText(self.tr("Local"))
        self.size_spin.setSuffix(" " + self.tr("billion parameters"))
        self.path_edit.setPlaceholderText(self.tr("config.json or a model folder"))
        self.file_button.setText(self.tr("File…"))
        self.folder_button.setText(self.tr("Folder…"))
        line = self.preset_combo.lineEdit()
        if line is not None:
            line.setPlaceholderText(self.tr("type to search presets"))
        tips = (
            (self.preset_radio, self.tr("A model from the shipped catalog (exact architecture numbers)")),
            (self.preset_combo, self.tr("Type part of a name to search the presets")),
            (self.size_radio, self.tr("A Llama-like model of this many billion parameters")),
            (self.size_spin, self.tr("Parameters in billions; the slider covers 0.1 to 1,000")),
            (self.size_slider, self.tr("Parameters in billions, on a log scale")),
            (self.path_radio, self.tr("A config.json or a model folder on this computer (read offline)")),
            (
                self.path_edit,
                self.tr("The path of a config.json or of a folder with config.json and safetensors"),
            ),
            (self.file_button, self.tr("Choose a config.json")),
            (self.folder_button, self.tr("Choose a model folder (config.json + safetensors)")),
        )
        for widget, tip in tips:
            widget.setToolTip(tip)

    def set_summary(self, text: str, error: bool = False) -> None:
        self.summary.setText(text)
        self.summary.setStyleSheet("color: #cf222e;" if error else "")

    def _on_kind(self, button: QAbstractButton, checked: bool) -> None:
        if checked:
            self.state.update(model_kind=button.property("kind"))

    def _on_preset(self, index: int) -> None:
        preset = self.preset_combo.itemData(index)
        if preset:
            with QSignalBlocker(self.kind_group):
                self.preset_radio.setChecked(True)
            self.state.update(model_kind="preset", preset=preset)

    def _on_preset_text(self) -> None:
        index = self.preset_combo.findText(self.preset_combo.currentText(), Qt.MatchFlag.MatchContains)
        if index >= 0:
            self._on_preset(index)

    def _on_slider(self, position: int) -> None:
        billions = slider_to_size(position)
        with QSignalBlocker(self.size_spin):
            self.size_spin.setValue(billions)
        self._set_size(billions)

    def _on_spin(self, billions: float) -> None:
        with QSignalBlocker(self.size_slider):
            self.size_slider.setValue(size_to_slider(billions))
        self._set_size(billions)

    def _set_size(self, billions: float) -> None:
        with QSignalBlocker(self.kind_group):
            self.size_radio.setChecked(True)
        self.state.update(model_kind="size", size_billions=float(billions))

    def _browse_file(self) -> None:
        path = dialogs.open_file(self, "model", self.tr("Model config.json"), self.tr("JSON files (*.json)"))
        if path:
            self._set_path(path)

    def _browse_folder(self) -> None:
        path = dialogs.folder(self, "model", self.tr("Model folder (config.json + safetensors)"))
        if path:
            self._set_path(path)

    def _on_path_edited(self) -> None:
        """A typed path chooses the local model; leaving the field untouched or empty keeps the model chosen
        (focus passing through an empty field must not swap a preset for "no model")."""
        path = self.path_edit.text().strip()
        typed = self.path_edit.isModified()
        self.path_edit.setModified(False)
        if not path or not typed:
            return
        self._set_path(path)

    def _set_path(self, path: str) -> None:
        self.path_edit.setText(path)
        with QSignalBlocker(self.kind_group):
            self.path_radio.setChecked(True)
        self.state.update(model_kind="path", model_path=path)

    def sync_from(self, inputs: PlanInputs) -> None:
        blockers = [
            QSignalBlocker(w) for w in (self.kind_group, self.preset_combo, self.size_slider, self.size_spin)
        ]
        {"preset": self.preset_radio, "size": self.size_radio, "path": self.path_radio}[
            inputs.model_kind
        ].setChecked(True)
        set_combo_data(self.preset_combo, inputs.preset)
        self.size_spin.setValue(inputs.size_billions)
        self.size_slider.setValue(size_to_slider(inputs.size_billions))
        self.path_edit.setText(inputs.model_path)
        del blockers


class ShapePanel(Panel):
    """Sequence length and batch; training tokens (or dataset x epochs); serving target and users.
    problem_changed(): a typed sequence length became refused or fine again (seq_problem says why)."""

    problem_changed = Signal()

    def __init__(self, state: PlanState, parent: QWidget | None = None):
        super().__init__(state, parent)
        self.seq_combo = QComboBox()
        self.seq_combo.setEditable(True)
        for length in SEQ_LENS:
            self.seq_combo.addItem(fmt.integer(length), length)
        self.batch_spin = QSpinBox()
        set_limit(self.batch_spin, "batch")  # ranges: the CLI's rows of planner/limits.py
        self.tokens_radio, self.dataset_radio = QRadioButton(), QRadioButton()
        self.tokens_group = QButtonGroup(self)
        self.tokens_group.addButton(self.tokens_radio)
        self.tokens_group.addButton(self.dataset_radio)
        self.tokens_spin = TrimmedSpin()
        self.tokens_spin.setDecimals(3)
        set_limit(self.tokens_spin, "tokens", 1e-9)  # billions of tokens
        self.dataset_spin = TrimmedSpin()
        self.dataset_spin.setDecimals(3)
        set_limit(self.dataset_spin, "tokens", 1e-9)
        self.epochs_spin = QDoubleSpinBox()
        self.epochs_spin.setDecimals(1)
        set_limit(self.epochs_spin, "epochs")
        self.serving = ServingInputs(state)  # prompt, output, users or rate, the targets
        self.tps_spin, self.users_spin = self.serving.tps_spin, self.serving.users_spin

        self.labels = {name: QLabel() for name in ("seq", "batch")}
        self.seq_problem: Text | None = None  # why the typed sequence length is refused; None when it is fine
        self.seq_error = QLabel()
        self.seq_error.setWordWrap(True)
        self.seq_error.setStyleSheet("color: #cf222e;")
        self.seq_error.hide()
        form = wrapping_form(self)
        self.form = form
        form.addRow(self.labels["seq"], self.seq_combo)
        form.addRow(self.seq_error)
        form.addRow(self.labels["batch"], self.batch_spin)
        self.training_box = QWidget()
        training = wrapping_form(self.training_box)
        training.setContentsMargins(0, 0, 0, 0)
        training.addRow(self.tokens_radio, self.tokens_spin)
        training.addRow(self.dataset_radio, self.dataset_spin)
        self.times_label = QLabel("×")
        training.addRow(self.times_label, self.epochs_spin)
        form.addRow(self.training_box)
        self.serving_box = self.serving
        form.addRow(self.serving_box)

        self.seq_combo.currentIndexChanged.connect(self._on_seq_index)
        seq_line = self.seq_combo.lineEdit()
        if seq_line is not None:
            seq_line.editingFinished.connect(self._on_seq_text)
        self.batch_spin.valueChanged.connect(lambda v: self.state.update(global_batch=int(v)))
        self.tokens_group.buttonToggled.connect(self._on_tokens_mode)
        self.tokens_spin.valueChanged.connect(lambda v: self.state.update(train_tokens=v * 1e9))
        self.dataset_spin.valueChanged.connect(lambda v: self.state.update(dataset_tokens=v * 1e9))
        self.epochs_spin.valueChanged.connect(lambda v: self.state.update(epochs=float(v)))
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(self.tr("3. Shape"))
        self.serving.retranslate()
        problem = getattr(self, "seq_problem", None)  # None while __init__ builds the panel
        if problem is not None:
            self.seq_error.setText(problem.render())
        training = self.state.inputs.is_training
        self.labels["seq"].setText(
            self.tr("Sequence length (tokens)") if training else self.tr("Context (tokens)")
        )
        self.labels["batch"].setText(self.tr("Global batch (sequences)"))
        self.tokens_radio.setText(self.tr("Tokens to train"))
        self.dataset_radio.setText(self.tr("Dataset size"))
        self.times_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.tokens_spin.setSuffix(" " + self.tr("B tokens"))
        self.dataset_spin.setSuffix(" " + self.tr("B tokens"))
        self.epochs_spin.setSuffix(" " + self.tr("epochs"))
        self.batch_spin.setSuffix(" " + self.tr("seq"))
        tips = (
            (self.seq_combo, self.tr("Tokens per sequence (training) or the longest context a user reaches, "
                                     "prompt and answer together (serving)")),
            (self.batch_spin, self.tr("Sequences per optimizer step over all GPUs; micro-batches and gradient "
                                      "accumulation split it (training)")),
            (self.tokens_radio, self.tr("Give the tokens the whole run trains on")),
            (self.tokens_spin, self.tr("Tokens the whole run trains on, in billions")),
            (self.dataset_radio, self.tr("Give the dataset size and the number of epochs")),
            (self.dataset_spin, self.tr("Tokens in one pass over the dataset, in billions")),
            (self.epochs_spin, self.tr("Passes over the dataset")),
        )  # fmt: skip
        for widget, tip in tips:
            widget.setToolTip(tip)

    def _on_seq_index(self, index: int) -> None:
        value = self.seq_combo.itemData(index)
        if value:
            self._set_seq_problem(None)
            self.state.update(seq_len=int(value))

    def _on_seq_text(self) -> None:
        """A typed length: a whole number of tokens ("4096", "4,096", "4 096"); anything else is refused where it
        was typed (red frame, the reason under the panel) and the page shows no plan for the old length."""
        typed = self.seq_combo.currentText().strip()
        length = parse_whole_number(typed)
        if length is None or not 1 <= length <= MAX_SEQ_LEN:
            self._set_seq_problem(Text("ShapePanel", _SEQ_LEN_REFUSED, (typed, fmt.integer(MAX_SEQ_LEN))))
            return
        self._set_seq_problem(None)
        if not self.state.update(seq_len=length):
            self.problem_changed.emit()  # the same length as before: the page plans it again all the same

    def _set_seq_problem(self, problem: Text | None) -> None:
        changed = (problem is None) != (self.seq_problem is None) or problem != self.seq_problem
        self.seq_problem = problem
        self.seq_combo.setStyleSheet("QComboBox { border: 1px solid #cf222e; }" if problem is not None else "")
        self.seq_error.setText(problem.render() if problem is not None else "")
        self.seq_error.setVisible(problem is not None)
        if changed:
            self.problem_changed.emit()

    def _on_tokens_mode(self, button: QAbstractButton, checked: bool) -> None:
        if checked:
            self.state.update(tokens_mode="dataset" if button is self.dataset_radio else "tokens")

    def sync_from(self, inputs: PlanInputs) -> None:
        widgets = (self.seq_combo, self.batch_spin, self.tokens_group, self.tokens_spin, self.dataset_spin,
                   self.epochs_spin)  # fmt: skip
        blockers = [QSignalBlocker(w) for w in widgets]
        self._set_seq_problem(None)  # a saved plan, the example or New: the length shown is the state's
        index = self.seq_combo.findData(inputs.seq_len)
        if index >= 0:
            self.seq_combo.setCurrentIndex(index)
        else:
            self.seq_combo.setEditText(fmt.integer(inputs.seq_len))
        self.batch_spin.setValue(inputs.global_batch)
        (self.dataset_radio if inputs.tokens_mode == "dataset" else self.tokens_radio).setChecked(True)
        self.tokens_spin.setValue(inputs.train_tokens / 1e9)
        self.dataset_spin.setValue(inputs.dataset_tokens / 1e9)
        self.epochs_spin.setValue(inputs.epochs)
        del blockers
        self.serving.sync_from(inputs)
        self.training_box.setVisible(inputs.is_training)
        self.serving_box.setVisible(not inputs.is_training)
        # serving states its context as prompt + output, and has no global batch
        self.form.setRowVisible(self.seq_combo, inputs.is_training)
        self.form.setRowVisible(self.batch_spin, inputs.is_training)
        self.retranslate()


class HardwarePanel(Panel):
    """Checkable hardware sources: this machine (measured), imported machines, catalog GPUs, quoted offers."""

    GROUPS = ("local", "imported", "catalog", "quote")

    def __init__(self, state: PlanState, parent: QWidget | None = None):
        super().__init__(state, parent)
        self.filter_edit = QLineEdit()
        self.filter_edit.setClearButtonEnabled(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(True)
        self.tree.setMinimumHeight(150)
        self.tree.setWordWrap(True)  # a measured machine's row: its GPUs over the machine and the date (two lines)
        self.groups: dict[str, QTreeWidgetItem] = {}
        self._totals: dict[str, int] = {}
        for group in self.GROUPS:
            item = QTreeWidgetItem(self.tree)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled)
            item.setExpanded(group in ("local", "catalog"))
            self.groups[group] = item
        layout = QVBoxLayout(self)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.tree)
        self.tree.itemChanged.connect(self._on_item_changed)
        self.filter_edit.textChanged.connect(self._apply_filter)
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(self.tr("4. Hardware"))
        self.filter_edit.setPlaceholderText(self.tr("filter GPUs and offers"))
        self.filter_edit.setToolTip(self.tr("Show only the rows whose name contains this text"))
        self.tree.setToolTip(
            self.tr("Tick what the plan may run on: a measured machine (its probe figures, at most its GPUs), "
                    "a catalog GPU (datasheet figures) or a quoted offer (its price)")
        )  # fmt: skip
        names = {
            "local": self.tr("This machine (measured)"),
            "imported": self.tr("Imported machines (measured)"),
            "catalog": self.tr("Catalog GPUs (spec sheet)"),
            "quote": self.tr("Quoted offers (with their price)"),
        }
        for group, item in self.groups.items():
            count = item.childCount()
            none = self.tr("none")
            total = self._totals.get(group, count)
            if total > count:  # a bounded list (the offers): say how much of the whole it is, and why
                item.setText(0, self.tr("{0} ({1} of {2})").format(names[group], count, fmt.integer(total)))
                item.setToolTip(
                    0,
                    self.tr(
                        "Only the cheapest of your quotes per GPU type, kind and currency are listed here, "
                        "with every reference quote and the offers the plan uses; the Quotes page lists all {0}."
                    ).format(fmt.integer(total)),
                )
            else:
                item.setText(0, f"{names[group]} ({count})" if count else f"{names[group]} — {none}")
                item.setToolTip(0, "")

    def set_sources(
        self,
        sources: dict[str, Iterable[tuple[str, str, str]]],
        totals: dict[str, int] | None = None,
    ) -> None:
        """sources: group -> (key, label, tooltip) rows; keeps the state's checked keys checked.

        totals: group -> how many rows exist where the list shows only some (the header says "12 of 100,015").
        """
        self._totals = dict(totals or {})
        checked = set(self.state.inputs.hardware)
        with QSignalBlocker(self.tree):
            for group, item in self.groups.items():
                item.takeChildren()
                for key, label, tooltip in sources.get(group, ()):
                    child = QTreeWidgetItem(item, [label])
                    child.setData(0, Qt.ItemDataRole.UserRole, key)
                    child.setToolTip(0, tooltip)
                    child.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
                    child.setCheckState(
                        0, Qt.CheckState.Checked if key in checked else Qt.CheckState.Unchecked
                    )
                    if key in checked:
                        item.setExpanded(True)
        self.retranslate()
        self._apply_filter(self.filter_edit.text())

    def checked_keys(self) -> tuple[str, ...]:
        keys = []
        for item in self.groups.values():
            for index in range(item.childCount()):
                child = item.child(index)
                if child.checkState(0) == Qt.CheckState.Checked:
                    keys.append(child.data(0, Qt.ItemDataRole.UserRole))
        return tuple(keys)

    def item_for(self, key: str) -> QTreeWidgetItem | None:
        for item in self.groups.values():
            for index in range(item.childCount()):
                if item.child(index).data(0, Qt.ItemDataRole.UserRole) == key:
                    return item.child(index)
        return None

    def _on_item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        if item.parent() is not None:
            self.state.update(hardware=self.checked_keys())

    def _apply_filter(self, text: str) -> None:
        needle = text.strip().lower()
        for item in self.groups.values():
            for index in range(item.childCount()):
                child = item.child(index)
                child.setHidden(bool(needle) and needle not in child.text(0).lower())

    def sync_from(self, inputs: PlanInputs) -> None:
        wanted = set(inputs.hardware)
        with QSignalBlocker(self.tree):
            for item in self.groups.values():
                for index in range(item.childCount()):
                    child = item.child(index)
                    on = child.data(0, Qt.ItemDataRole.UserRole) in wanted
                    child.setCheckState(0, Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)


__all__ = ["HardwarePanel", "ModelPanel", "ShapePanel", "WorkloadPanel"]
