"""The Plan page: a guided flow (Next/Back) or one expert page, both bound to one PlanState; live results.

Inputs (left) write into desktop.plan_state.PlanState; every change schedules a re-plan through a short
throttle timer (slider drags coalesce into at most one plan per THROTTLE_MS). A plan runs synchronously while
resolving the inputs and planner.search.plan() stay fast (together under SYNC_LIMIT_MS), otherwise on the
JobRunner with "latest request wins" (older results are dropped); the first plan, and the first after quotes or
settings change (price summaries read again), always run there. Results (right): a plain-language headline, the
ranked options table, the selected option's memory against capacity, time and cost against GPU count, excluded
strategies with reasons, and advice. Saved plans: save, save as, open/rename/delete; the window title shows the
open plan and an asterisk for unsaved changes; confirm_close() asks before anything is lost.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop import fmt
from desktop.charts.plan_charts import MemoryBarChart, ScalingChart, render_png
from desktop.messages import advice_lines, excluded_rows, note_lines
from desktop.pages.base import Page
from desktop.pages.plan_inputs import ConstraintsPanel, HardwarePanel, ModelPanel, ShapePanel, WorkloadPanel
from desktop.plan_request import (
    Note,
    PageInputError,
    PlanCall,
    Text,
    build_and_run,
    error_note,
    family_name,
    family_series,
    hardware_sources,
    is_model_error,
    price_book_of,
    render_note,
    scaling_series,
    table_options,
)
from desktop.plan_state import PlanInputs, PlanState
from desktop.qmodels.plan_options import PlanOptionsModel, option_strategy_text
from planner.errors import UserError
from planner.exports import ExportInputs
from planner.vocabulary import Precision, Task

if TYPE_CHECKING:
    from collections.abc import Sequence

    from desktop.context import AppContext
    from planner.models import ModelSpec
    from planner.search import PlanOption, PlanResult

THROTTLE_MS = 30  # slider drags re-plan at most this often
_NOTHING_TO_EXPORT = str(
    QT_TRANSLATE_NOOP("PlanPage", "no option that fits is selected: change the inputs until one fits, then export it")
)
# The strategy column is as wide as a common three-axis layout; longer ones (with offload or recompute) wrap
# after a comma onto a second line.
STRATEGY_SAMPLE = "ZeRO-1 × 16, TP 8, PP 8"
INPUTS_WIDTH = 320  # the input column (pixels); at a 1280-pixel window the whole options table fits beside it
SYNC_LIMIT_MS = 40.0
SERIES_DELAY_MS = 250  # the per-strategy scaling searches start once the inputs rest this long  # plan() faster than this runs on the GUI thread; slower searches go to the JobRunner

# The demo state for --screenshots: Llama 3.1 70B, full fine-tune, H100 SXM and A100 80GB, 2B tokens.
EXAMPLE_INPUTS = PlanInputs(
    task=Task.FINETUNE,
    model_kind="preset",
    preset="llama-3.1-70b",
    precision=Precision.BF16,
    seq_len=4096,
    global_batch=256,
    tokens_mode="tokens",
    train_tokens=2e9,
    hardware=("catalog:h100-sxm", "catalog:a100-sxm-80gb"),
    max_gpus=128,
)


class PlanStateAdapter(QObject):
    """Re-emits PlanState notifications as a Qt signal (changed(str): inputs|result|selection|document)."""

    changed = Signal(str)

    def __init__(self, state: PlanState, parent: QObject | None = None):
        super().__init__(parent)
        self.state = state
        state.subscribe(self.changed.emit)


class ResultsPanel(QWidget):
    """Headline, options table, memory bar, scaling chart, advice and excluded strategies."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.headline = QLabel()
        self.headline.setWordWrap(True)
        self.headline.setTextFormat(Qt.TextFormat.RichText)
        self.headline.setObjectName("planHeadline")
        # What the budget and deadline took out of the ranking (those options are not in the table).
        self.limits = QLabel()
        self.limits.setWordWrap(True)
        self.limits.setObjectName("planLimits")
        self.limits.setStyleSheet("color: #9a6700;")
        self.limits.hide()
        self.model = PlanOptionsModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(True)  # a long strategy wraps onto a second line instead of widening the table
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        self.memory_chart = MemoryBarChart()
        self.memory_chart.setMinimumHeight(90)
        self.memory_title = QLabel()
        self.scaling_chart = ScalingChart()
        self.scaling_chart.setMinimumHeight(180)
        self.scaling_title = QLabel()
        self.advice = QTextBrowser()
        self.advice.setOpenLinks(False)
        self.excluded = QTextBrowser()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.advice, "")
        self.tabs.addTab(self.excluded, "")

        memory_box = QWidget()
        memory_layout = QVBoxLayout(memory_box)
        memory_layout.setContentsMargins(0, 0, 0, 0)
        memory_layout.setSpacing(2)
        memory_layout.addWidget(self.memory_title)
        memory_layout.addWidget(self.memory_chart, 1)
        scaling_box = QWidget()
        scaling_layout = QVBoxLayout(scaling_box)
        scaling_layout.setContentsMargins(0, 0, 0, 0)
        scaling_layout.addWidget(self.scaling_title)
        scaling_layout.addWidget(self.scaling_chart, 1)
        lower = QSplitter(Qt.Orientation.Horizontal)
        lower.addWidget(scaling_box)
        lower.addWidget(self.tabs)
        lower.setStretchFactor(0, 1)
        lower.setSizes([640, 300])
        vertical = QSplitter(Qt.Orientation.Vertical)
        vertical.addWidget(self.table)
        vertical.addWidget(memory_box)
        vertical.addWidget(lower)
        vertical.setStretchFactor(0, 1)
        vertical.setStretchFactor(2, 1)
        vertical.setSizes([280, 120, 370])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.headline)
        layout.addWidget(self.limits)
        layout.addWidget(vertical, 1)
        self.retranslate()

    def show_options(self, options: Sequence[PlanOption], training: bool) -> None:
        """Fill the table; columns fit their contents except the strategy, which wraps beyond STRATEGY_SAMPLE."""
        self.model.set_options(options, training)
        self.table.resizeColumnsToContents()
        strategy = self.model.column_of("strategy")
        width = self.table.fontMetrics().horizontalAdvance(STRATEGY_SAMPLE) + 12  # + cell padding
        if strategy >= 0 and self.table.columnWidth(strategy) > width:
            self.table.setColumnWidth(strategy, width)
        self.table.resizeRowsToContents()

    def retranslate(self) -> None:
        self.tabs.setTabText(0, self.tr("Advice"))
        self.tabs.setTabText(1, self.tr("Excluded strategies"))
        self.memory_title.setText("<b>" + self.tr("Memory per GPU, selected option") + "</b>")
        self.scaling_title.setText(
            "<b>" + self.tr("Time and cost against GPU count (selected GPU type)") + "</b>"
        )
        self.memory_chart.retranslate()
        self.scaling_chart.retranslate()


class PlanPage(Page):
    """See the module docstring. Signals: planned() after a result (or error) is drawn."""

    page_id = "plan"
    planned = Signal()  # a result (or an error) is drawn: table, headline, memory bar, first scaling curve
    scaling_ready = Signal()  # the per-strategy scaling curves for the selected GPU type are drawn

    def __init__(self, context: AppContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self.state = PlanState()
        self.adapter = PlanStateAdapter(self.state, self)
        self.call: PlanCall | None = None
        self._error_about_model = False  # the shown error is about the model input (also shown under it)
        self._error_note: Note | None = None  # what the shown error says, to word it again in another language
        self._closed = False
        self._generation = 0
        # Unknown until the first search: that one runs in the background so the window opens at once.
        self._last_search_ms = float("inf")
        # Resolving the inputs (model, price summaries): cheap once the caches are warm, unknown before.
        self._last_build_ms = float("inf")
        self.last_redraw_ms = 0.0
        self._series_key: tuple | None = None  # (generation, gpu id) of the curves drawn or on their way
        self._series: dict = {}
        self._series_gpu = ""
        self._series_job = None
        self._series_timer = QTimer(self)
        self._series_timer.setSingleShot(True)
        self._series_timer.setInterval(SERIES_DELAY_MS)
        self._series_timer.timeout.connect(self._start_series_job)
        self._throttle = QTimer(self)
        self._throttle.setSingleShot(True)
        self._throttle.setInterval(THROTTLE_MS)
        self._throttle.timeout.connect(self.replan)

        self.workload = WorkloadPanel(self.state)
        self.model_panel = ModelPanel(self.state)
        self.shape = ShapePanel(self.state)
        self.hardware = HardwarePanel(self.state)
        self.constraints = ConstraintsPanel(self.state)
        self.panels = [self.workload, self.model_panel, self.shape, self.hardware, self.constraints]
        self.results = ResultsPanel()

        self._build_layout()
        self._refresh_hardware()
        self._show_defaults()
        self.sync_widgets()
        self.adapter.changed.connect(self._on_state_changed)
        self.results.table.selectionModel().currentRowChanged.connect(
            lambda current, _: self.state.select(current.row())
        )
        context.quotes_changed.connect(self._on_sources_changed)
        context.probe_runs_changed.connect(self._on_sources_changed)
        context.settings_changed.connect(self._on_sources_changed)
        self.retranslate()
        self.set_mode("guided")
        self.replan()

    # -- layout ----------------------------------------------------------------------------------------------
    def _build_layout(self) -> None:
        self.guided_button, self.expert_button = QToolButton(), QToolButton()
        self.mode_group = QButtonGroup(self)
        for button in (self.guided_button, self.expert_button):
            button.setCheckable(True)
            button.setAutoRaise(False)
            self.mode_group.addButton(button)
        self.guided_button.clicked.connect(lambda: self.set_mode("guided"))
        self.expert_button.clicked.connect(lambda: self.set_mode("expert"))
        self.doc_label = QLabel()
        self.new_button, self.open_button = QPushButton(), QPushButton()
        self.save_button, self.save_as_button, self.export_button = (
            QPushButton(),
            QPushButton(),
            QPushButton(),
        )
        self.new_button.clicked.connect(self.new_plan)
        self.open_button.clicked.connect(self.show_saved_plans)
        self.save_button.clicked.connect(lambda: self.save())
        self.save_as_button.clicked.connect(lambda: self.save_as())
        self.export_button.clicked.connect(lambda: self.export_dialog())
        top = QHBoxLayout()
        top.addWidget(self.guided_button)
        top.addWidget(self.expert_button)
        top.addSpacing(12)
        top.addWidget(self.doc_label, 1)
        for button in (
            self.new_button,
            self.open_button,
            self.save_button,
            self.save_as_button,
            self.export_button,
        ):
            top.addWidget(button)

        inputs = QWidget()
        inputs_layout = QVBoxLayout(inputs)
        inputs_layout.setContentsMargins(0, 0, 4, 0)
        for panel in self.panels:
            inputs_layout.addWidget(panel)
        inputs_layout.addStretch(1)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setWidget(inputs)
        self.scroll.setMinimumWidth(INPUTS_WIDTH)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.step_label = QLabel()
        self.back_button, self.next_button = QPushButton(), QPushButton()
        self.back_button.clicked.connect(lambda: self.go_step(self.step - 1))
        self.next_button.clicked.connect(self._next)
        # Guided mode: the question of the current step above its panel, in words a newcomer understands.
        self.step_prompt = QLabel()
        self.step_prompt.setWordWrap(True)
        self.step_prompt.setObjectName("stepPrompt")
        self.nav = QWidget()
        nav_layout = QHBoxLayout(self.nav)
        nav_layout.setContentsMargins(0, 0, 0, 0)
        nav_layout.addWidget(self.step_label, 1)
        nav_layout.addWidget(self.back_button)
        nav_layout.addWidget(self.next_button)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.step_prompt)
        left_layout.addWidget(self.scroll, 1)
        left_layout.addWidget(self.nav)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.results)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([INPUTS_WIDTH, 900])
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #cf222e;")
        self.error_label.hide()
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.error_label)
        layout.addWidget(self.splitter, 1)
        self.step = 0
        self.mode = "guided"

    def title(self) -> str:
        return self.tr("Plan")

    def retranslate(self) -> None:
        self.guided_button.setText(self.tr("Guided"))
        self.expert_button.setText(self.tr("Expert"))
        self.guided_button.setToolTip(self.tr("One question at a time, with Next and Back"))
        self.expert_button.setToolTip(self.tr("Every input on one page"))
        self.new_button.setText(self.tr("New"))
        self.open_button.setText(self.tr("Saved plans…"))
        self.save_button.setText(self.tr("Save"))
        self.save_as_button.setText(self.tr("Save as…"))
        self.export_button.setText(self.tr("Export…"))
        self.export_button.setToolTip(
            self.tr(
                "Write report.md, report.pdf, ds_config.json, accelerate_config.yaml, launch.sh and options.csv"
            )
        )
        self.back_button.setText(self.tr("< &Back"))
        self.back_button.setToolTip(self.tr("Previous question (Alt+B)"))
        for panel in self.panels:
            panel.retranslate()
        self.results.retranslate()
        self._update_nav()
        self._update_document_label()
        if self.call is not None:
            # a language switch: the model summary is worded again; price sources, notes and the planner's
            # texts are rendered by _draw_results from the messages the plan keeps (nothing is planned again)
            self._describe_model(self.call.model)
        if self.state.error is not None and self._error_note is not None:
            self.state.error = render_note(self._error_note)
        self._draw_results()

    # -- guided / expert ---------------------------------------------------------------------------------------
    def set_mode(self, mode: str) -> None:
        self.mode = mode
        with QSignalBlocker(self.mode_group):
            (self.guided_button if mode == "guided" else self.expert_button).setChecked(True)
        self.nav.setVisible(mode == "guided")
        self.step_prompt.setVisible(mode == "guided")
        self.go_step(self.step if mode == "guided" else 0)

    def go_step(self, step: int) -> None:
        """Show one question (guided) and move the keyboard focus to its first field."""
        self.step = max(0, min(step, len(self.panels) - 1))
        for index, panel in enumerate(self.panels):
            panel.setVisible(self.mode == "expert" or index == self.step)
        self._update_nav()
        if self.mode == "guided" and self.isVisible():
            first = _first_focusable(self.panels[self.step])
            if first is not None:
                first.setFocus(Qt.FocusReason.TabFocusReason)
                self.scroll.ensureWidgetVisible(first)

    def _next(self) -> None:
        """Next question; after the last one, the results: the advice tab opens and the options table has focus."""
        if self.step < len(self.panels) - 1:
            self.go_step(self.step + 1)
            return
        self.results.tabs.setCurrentIndex(0)
        self.results.table.setFocus(Qt.FocusReason.TabFocusReason)

    def _update_nav(self) -> None:
        last = self.step == len(self.panels) - 1
        self.back_button.setEnabled(self.step > 0)
        self.next_button.setEnabled(True)
        self.next_button.setText(self.tr("See the &advice") if last else self.tr("&Next >"))
        self.next_button.setToolTip(
            self.tr("The options, charts and advice are on the right (Alt+A)")
            if last
            else self.tr("Next question (Alt+N)")
        )
        self.step_label.setText(self.tr("Step {0} of {1}").format(self.step + 1, len(self.panels)))
        prompts = (
            self.tr("What will the model do: serve users, or train (from scratch, fully, or with adapters)?"),
            self.tr("Which model? Pick a preset, give a size in billions of parameters, or open its config."),
            self.tr(
                "How long are the sequences and how large the batch? How much to train, or how fast to serve?"
            ),
            self.tr(
                "Which GPUs may it run on? Measured machines, catalog GPUs or offers you have quotes for."
            ),
            self.tr("Any limits: GPU count, budget, deadline? The results on the right follow every answer."),
        )
        self.step_prompt.setText(
            "<b>" + self.tr("Step {0} of {1}").format(self.step + 1, len(self.panels)) + ":</b> "
            + _escape(prompts[self.step])
        )  # fmt: skip

    # -- state -> widgets --------------------------------------------------------------------------------------
    def sync_widgets(self) -> None:
        ticked_offers = [key for key in self.state.inputs.hardware if key.startswith("quote:")]
        if any(self.hardware.item_for(key) is None for key in ticked_offers):
            self._refresh_hardware()  # an offer the list leaves out (not among the cheapest) is ticked: list it
        for panel in self.panels:
            panel.sync_from(self.state.inputs)
        self.constraints.set_currency(self.context.display_currency())

    def _show_defaults(self) -> None:
        from planner.perf import DEFAULT_BANDWIDTH_FRACTION, DEFAULT_MFU

        self.constraints.set_defaults(DEFAULT_MFU, DEFAULT_BANDWIDTH_FRACTION)

    def _refresh_hardware(self) -> None:
        """Fill the Hardware list: runs, catalog GPUs and a bounded list of offers (with the ticked ones)."""
        store = self.context.store
        groups = hardware_sources(self.context.gpu_catalog(), store, self.tr, keep=self.state.inputs.hardware)
        try:
            stored_quotes = store.rental_quotes.count()
        except (sqlite3.Error, UserError):  # the count is only a caption: the listed offers stand in for it
            stored_quotes = len(groups["quote"])
        self.hardware.set_sources(
            {group: [(s.key, s.label, s.tooltip) for s in rows] for group, rows in groups.items()},
            totals={"quote": stored_quotes},
        )

    def _on_sources_changed(self) -> None:
        self._last_build_ms = float("inf")  # the price summaries are read again: plan in the background
        self._refresh_hardware()
        self.constraints.set_currency(self.context.display_currency())
        self._throttle.start()

    def _on_state_changed(self, what: str) -> None:
        if what == "inputs":
            if self.shape.training_box.isVisible() != self.state.inputs.is_training:
                self.shape.sync_from(self.state.inputs)
            self.workload.sync_from(self.state.inputs)
            self.constraints.sync_rank(self.state.inputs)
            if not self._throttle.isActive():
                self._throttle.start()
        elif what in ("result", "selection"):
            self._draw_results()
        elif what == "document":
            self._update_document_label()

    # -- planning ------------------------------------------------------------------------------------------------
    def replan(self) -> None:
        """Plan the current inputs now (the throttle timer calls this; tests may too)."""
        from planner.errors import UserError

        self._throttle.stop()
        if self._closed:
            return
        self._generation += 1
        generation = self._generation
        self._change_started = time.perf_counter()
        request = (
            self.state.inputs,
            self.context.gpu_catalog(),
            self.context.store,
            self.context.display_currency(),
            self.context.exchange_rates(),
            price_book_of(self.context),  # price summaries, kept until the store changes
        )
        if self._last_search_ms + self._last_build_ms < SYNC_LIMIT_MS:
            try:
                call, result, self._last_build_ms = build_and_run(*request)
            except UserError as exc:
                self._fail(generation, error_note(exc), about_model=is_model_error(exc))
                return
            self._accept(generation, call, result)
        else:  # slow search or cold price summaries: all of it on a pool thread, the latest request wins
            job = self.context.jobs.run(
                build_and_run,
                *request,
                on_done=lambda answer, g=generation: self._accept_built(g, *answer),
                on_error=lambda message, g=generation: self._fail(
                    g, message if job.error is None else error_note(job.error), about_model=is_model_error(job.error)
                ),
                name="plan",
            )

    def _accept_built(self, generation: int, call: PlanCall, result: PlanResult, build_ms: float) -> None:
        if generation == self._generation:
            self._last_build_ms = build_ms
        self._accept(generation, call, result)

    def _accept(self, generation: int, call: PlanCall, result: PlanResult) -> None:
        if generation != self._generation:
            return  # a newer request is on its way: latest request wins
        self._last_search_ms = float(getattr(result, "search_ms", 0.0) or 0.0)
        self.call = call
        self._series_key, self._series = None, {}
        self._describe_model(call.model)
        self.state.set_result(result)

    def _fail(self, generation: int, message: Note, about_model: bool = False) -> None:
        """The plan failed: `message` (a planner Message, a desktop Text or words) is kept to be worded again
        after a language switch."""
        if generation != self._generation:
            return
        self.call = None
        self._error_about_model = about_model
        self._error_note = message
        self.state.set_error(render_note(message))

    def _describe_model(self, model: ModelSpec) -> None:
        billions = model.total_params / 1e9
        parts = [
            self.tr("{0}: {1} billion parameters").format(
                getattr(model, "display_name", model.name), fmt.number(billions, 1)
            )
        ]
        if getattr(model, "is_moe", False):
            parts.append(self.tr("{0} billion active").format(fmt.number(model.active_params / 1e9, 1)))
        parts.append(
            self.tr("{0} layers, context {1} tokens").format(model.layers, fmt.integer(model.max_context))
        )
        self.model_panel.set_summary(", ".join(parts))

    # -- drawing -------------------------------------------------------------------------------------------------
    def _draw_results(self) -> None:
        started = time.perf_counter()
        state, results = self.state, self.results
        training = state.inputs.is_training
        error = state.error or ""
        self.error_label.setVisible(bool(error))
        self.error_label.setText(self.tr("Cannot plan this: {0}").format(error) if error else "")
        if error and self._error_about_model:  # decided from the error itself, not its (translated) words
            self.model_panel.set_summary(error, error=True)
        options = table_options(state.result) if state.result is not None else ()
        results.show_options(options, training)
        if options and 0 <= state.selected < len(options):
            with QSignalBlocker(results.table.selectionModel()):
                results.table.selectRow(state.selected)
        option = state.selected_option if state.selected < len(options) else None
        results.headline.setText(self._headline(option))
        limits = self._limits_text()
        results.limits.setText(limits)
        results.limits.setVisible(bool(limits))
        if option is not None:
            terms = [(term, value) for term, value in option.memory.as_dict().items() if term != "total"]
            results.memory_chart.set_data(terms, option.gpu.memory_bytes)
            self._draw_scaling(option)
        else:
            results.memory_chart.clear()
            results.scaling_chart.set_series({}, self.context.display_currency())
        self._publish_option(option)
        self.export_button.setEnabled(option is not None and option.fits)
        results.advice.setHtml(self._advice_html())
        results.excluded.setHtml(self._excluded_html())
        self.last_redraw_ms = (time.perf_counter() - started) * 1000.0
        self.planned.emit()

    def _draw_scaling(self, option: PlanOption) -> None:
        """Per-strategy curves for the option's GPU type: drawn now if known, else fetched in the background.

        Until they arrive the chart shows the main search's best layout per GPU count (one line).
        """
        training = self.state.inputs.is_training
        currency = self.call.currency if self.call else self.context.display_currency()
        key = (self._generation, option.gpu.id)
        selected = (family_name(option, training), option.gpus) if option.fits else None
        if self._series_key == key and self._series:
            series = self._series
        else:
            best: dict[int, tuple[int, float, float | None]] = {}
            result = self.state.result
            lines = scaling_series(result, option.gpu.id, training).values() if result is not None else ()
            for line in lines:
                for point in line:
                    if point[0] not in best or point[1] < best[point[0]][1]:
                        best[point[0]] = point
            series = {self.tr("best layout"): sorted(best.values())}
            selected = (self.tr("best layout"), option.gpus) if option.fits else None
            if self._series_key != key and self.call is not None:
                self._series_key = key
                self._series_gpu = option.gpu.id
                self._series_timer.start()  # after a short pause: a slider drag does not queue searches
        self.results.scaling_chart.set_series(series, currency, selected, "wall" if training else "step")

    def _start_series_job(self) -> None:
        """Search each ZeRO stage for the scaling chart, cancelling a search for older inputs first."""
        if self._series_job is not None and self._series_job.running:
            self._series_job.cancel()
        if self.call is None or self._series_key is None or self._closed:
            return
        key = self._series_key
        self._series_job = self.context.jobs.run(
            family_series,
            self.call,
            self._series_gpu,
            on_done=lambda curves, k=key: self._accept_series(k, curves),
            on_error=lambda _message: None,  # the one-line chart stays; the table has the numbers
            name="scaling curves",
        )

    def _accept_series(self, key: tuple, curves: dict) -> None:
        if key != self._series_key:
            return  # a newer plan or another GPU type was selected meanwhile
        self._series = curves or {}
        option = self.state.selected_option
        if option is not None and self._series:
            self._draw_scaling(option)
        self.scaling_ready.emit()

    def _publish_option(self, option: PlanOption | None) -> None:
        """Tell Rent or buy which option is chosen (only when it changed)."""
        if option is not self.context.plan_option:
            self.context.plan_option = option
            self.context.plan_option_changed.emit(option)

    def _headline(self, option: PlanOption | None) -> str:
        if self.state.error:
            return "<b>" + self.tr("No plan yet.") + "</b> " + _escape(self.state.error)
        if option is None:
            return "<b>" + self.tr("Nothing fits these limits.") + "</b> " + self.tr("See the advice below.")
        training = self.state.inputs.is_training
        memory = self.tr("{0} of {1} per GPU").format(
            fmt.gib(option.memory.total_bytes), fmt.gib(option.gpu.memory_bytes)
        )
        what = self.tr("{0} × {1}").format(option.gpus, _escape(option.gpu.name))
        if not option.fits:
            does_not_fit = self.tr("Does not fit")
            return (
                f"<b><span style='color:#cf222e'>{does_not_fit}</span>: {what}</b>, "
                f"{_escape(option_strategy_text(option))}, {memory}"
            )
        if training:
            timing = self.tr("finishes in {0}").format(fmt.duration(option.wall_time_s))
        else:
            timing = self.tr("{0} tokens/s for {1} users, first token after {2}, then {3} per token").format(
                fmt.number(option.tokens_per_s, 0),
                fmt.integer(self.state.inputs.concurrent_users),
                fmt.duration(option.ttft_s),
                fmt.duration(option.tpot_s or option.step_time_s),
            )
        cost = ""
        if option.cost is not None and training:
            cost = ", " + self.tr("costs {0}").format(fmt.money_obj(option.cost))
        elif option.cost_per_million_tokens is not None:
            cost = ", " + self.tr("{0} per 1M tokens").format(fmt.money_obj(option.cost_per_million_tokens))
        best, fits = self.tr("Best"), self.tr("fits")
        return (
            f"<b>{best}: {what}</b>, {_escape(option_strategy_text(option))} — "
            f"<span style='color:#1a7f37'>{fits}</span> ({memory}), {timing}{cost}"
        )

    def _limits_text(self) -> str:
        """How many fitting options the budget and the deadline hid, and the nearest one each hid, in words."""
        inputs, result = self.state.inputs, self.state.result
        if result is None or (inputs.budget_amount is None and inputs.deadline_days is None):
            return ""
        fitting = [o for o in getattr(result, "frontier", ()) or () if o.fits]
        parts = []
        if inputs.budget_amount is not None:
            currency = self.call.currency if self.call else inputs.budget_currency
            over = [o for o in fitting if o.cost is not None and o.cost.amount > inputs.budget_amount]
            if over:
                cheapest = min(over, key=lambda o: o.cost.amount)
                parts.append(
                    self.tr("{0} over the budget of {1} (the cheapest of them costs {2} on {3} × {4})").format(
                        len(over), fmt.money(inputs.budget_amount, currency), fmt.money_obj(cheapest.cost),
                        cheapest.gpus, cheapest.gpu.name,
                    )
                )  # fmt: skip
            unpriced = [o for o in fitting if o.cost is None]
            if unpriced and inputs.is_training:
                parts.append(self.tr("the budget cannot check {0} without a price").format(len(unpriced)))
        if inputs.deadline_days is not None:
            deadline_s = inputs.deadline_days * 86400
            late = [o for o in fitting if o.wall_time_s is not None and o.wall_time_s > deadline_s]
            if late:
                fastest = min(late, key=lambda o: o.wall_time_s)
                parts.append(
                    self.tr("{0} past the deadline of {1} (the fastest of them takes {2} on {3} × {4})").format(
                        len(late), fmt.duration(deadline_s), fmt.duration(fastest.wall_time_s), fastest.gpus,
                        fastest.gpu.name,
                    )
                )  # fmt: skip
        if not parts:
            return ""
        return self.tr("Options hidden by your limits: {0}.").format("; ".join(parts))

    def _advice_html(self) -> str:
        lines = advice_lines(self.state.result)  # the planner's messages, in the interface language
        if self.call is not None:
            names = {gpu.id: gpu.name for gpu in self.call.gpus}
            for gpu_id, source in self.call.price_sources.items():
                lines.append(self.tr("Price for {0}: {1}").format(names.get(gpu_id, gpu_id), render_note(source)))
            lines += [render_note(note) for note in self.call.notes]
        option = self.state.selected_option
        if option is not None:
            lines += note_lines(option)
        if not lines:
            return ""
        return "<ul>" + "".join(f"<li>{_escape(str(line))}</li>" for line in lines) + "</ul>"

    def _excluded_html(self) -> str:
        excluded = list(getattr(self.state.result, "excluded", ()) or ())
        if not excluded:
            return "<p>" + self.tr("Nothing was excluded.") + "</p>"
        rows = "".join(
            f"<li><b>{_escape(what)}</b>: {_escape(why)}</li>" for what, why in excluded_rows(excluded)
        )
        return f"<ul>{rows}</ul>"

    # -- document: saved plans -----------------------------------------------------------------------------------
    def _update_document_label(self) -> None:
        name = self.state.plan_name or self.tr("Unsaved plan")
        marker = " *" if self.state.dirty else ""
        self.doc_label.setText(f"<b>{_escape(name)}</b>{marker}")
        self.context.document_title_changed.emit(
            f"{name}{marker}" if (self.state.plan_name or self.state.dirty) else ""
        )

    def document_title(self) -> str:
        name = self.state.plan_name or self.tr("Unsaved plan")
        return f"{name}{' *' if self.state.dirty else ''}"

    def results_summary(self) -> dict:
        """What a saved plan keeps of the results (the inputs re-plan on open): the chosen option, in JSON units."""
        option = self.state.selected_option
        if option is None:
            return {"error": self.state.error}
        summary = option.as_dict() if hasattr(option, "as_dict") else {}
        summary["search_ms"] = getattr(self.state.result, "search_ms", None)
        return {"selected": summary, "selected_index": self.state.selected}

    def save(self, name: str | None = None) -> bool:
        """Save the open plan (asks for a name the first time). True when saved."""
        if self.state.plan_id is None:
            return self.save_as(name)
        self.context.store.plans.update(
            self.state.plan_id, self.state.inputs.to_dict(), self.results_summary()
        )
        self.state.mark_saved(self.state.plan_id, self.state.plan_name)
        self.context.plans_changed.emit()
        self.context.show_status(self.tr("Saved plan “{0}”").format(self.state.plan_name))
        return True

    def save_as(self, name: str | None = None) -> bool:
        if name is None:
            suggestion = self.state.plan_name or self._suggested_name()
            name, ok = QInputDialog.getText(
                self, self.tr("Save plan"), self.tr("Plan name:"), text=suggestion
            )
            if not ok:
                return False
        name = name.strip()
        if not name:
            return False
        plan_id = self.context.store.plans.save(name, self.state.inputs.to_dict(), self.results_summary())
        self.state.mark_saved(plan_id, name)
        self.context.plans_changed.emit()
        self.context.show_status(self.tr("Saved plan “{0}”").format(name))
        return True

    def _suggested_name(self) -> str:
        inputs = self.state.inputs
        model = self.call.model.name if self.call else inputs.model_text
        return f"{model} {inputs.task}"

    def open_plan(self, plan_id: int) -> None:
        """Load a saved plan's inputs (re-planned now, with today's prices and calibration)."""
        plan = self.context.store.plans.get(plan_id)
        self.state.replace_inputs(PlanInputs.from_dict(plan["inputs"]), dirty=False)
        self.state.mark_saved(int(plan["id"]), plan["name"])
        self.sync_widgets()
        self.replan()
        index = (plan.get("results") or {}).get("selected_index")
        if isinstance(index, int):
            self.state.select(index)

    def new_plan(self) -> None:
        if not self.confirm_close():
            return
        self.state.replace_inputs(PlanInputs(), dirty=False)
        self.state.mark_new()
        self.sync_widgets()
        self.replan()

    def show_saved_plans(self) -> None:
        from desktop.pages.saved_plans import SavedPlansDialog

        dialog = SavedPlansDialog(self.context, self.state.plan_id, self)
        self.context.plans_changed.connect(self._on_plans_changed)
        try:
            if dialog.exec() and dialog.chosen_id is not None and self.confirm_close():
                self.open_plan(dialog.chosen_id)
        finally:
            self.context.plans_changed.disconnect(self._on_plans_changed)

    def _on_plans_changed(self) -> None:
        """The open plan may have been renamed or deleted in the dialog."""
        if self.state.plan_id is None:
            return
        names = {int(p["id"]): p["name"] for p in self.context.store.plans.all()}
        if self.state.plan_id not in names:
            self.state.plan_id, self.state.plan_name, self.state.dirty = None, "", True
            self._update_document_label()
        elif names[self.state.plan_id] != self.state.plan_name:
            self.state.plan_name = names[self.state.plan_id]
            self._update_document_label()

    def confirm_close(self) -> bool:
        """Ask Save / Discard / Cancel when the plan has unsaved changes; False keeps the window open."""
        if not self.state.dirty:
            return True
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(self.tr("Unsaved plan"))
        box.setText(
            self.tr("The plan “{0}” has unsaved changes.").format(
                self.state.plan_name or self.tr("Unsaved plan")
            )
        )
        box.setInformativeText(self.tr("Save them before closing?"))
        box.setStandardButtons(
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel
        )
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        answer = box.exec()
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        if answer == QMessageBox.StandardButton.Discard:
            self.state.dirty = False
            self._update_document_label()
            return True
        return False

    # -- exports -------------------------------------------------------------------------------------------------
    def export_inputs(self) -> ExportInputs:
        """The inputs as the report shows them (planner.exports reads seq_len, global_batch, task, precision)."""
        inputs, call = self.state.inputs, self.call
        training, dataset = inputs.is_training, inputs.tokens_mode == "dataset"
        # what the user ticked, as the Hardware list words it ("AWS · H100 · $6.88/GPU-h"), not internal keys
        items = {key: self.hardware.item_for(key) for key in inputs.hardware}
        sources = call.price_sources if call is not None else {}
        return ExportInputs(
            model=call.model.name if call else inputs.model_text, task=inputs.task, precision=inputs.precision,
            seq_len=inputs.seq_len, global_batch=inputs.global_batch,
            tokens=inputs.training_tokens if training else None,
            dataset_tokens=inputs.dataset_tokens if training and dataset else None,
            epochs=inputs.epochs if training and dataset else None,
            tokens_per_second=None if training else inputs.tokens_per_second,
            concurrent_users=None if training else inputs.concurrent_users,
            hardware=tuple(item.text(0) if item is not None else key for key, item in items.items()),
            max_gpus=inputs.max_gpus, exact_gpus=inputs.exact_gpus, budget_amount=inputs.budget_amount,
            deadline_days=inputs.deadline_days, mfu=inputs.mfu, efficiency=inputs.efficiency,
            currency=call.currency if call else None, model_source=call.model.source if call else None,
            price_source="; ".join(f"{k}: {render_note(v)}" for k, v in sources.items()) or None,
            model_spec=call.model if call else None,
        )  # fmt: skip

    def chart_images(self) -> dict[str, bytes]:
        return {
            self.tr("Memory per GPU of the chosen option"): render_png(self.results.memory_chart),
            self.tr("Time and cost against GPU count"): render_png(self.results.scaling_chart),
        }

    def export_to(self, directory: str | Path) -> list[Path]:
        """Write the six export files for the selected option into directory (and the chart PNGs)."""
        from planner.exports import export_plan

        option, result = self.state.selected_option, self.state.result
        if option is None or result is None or not option.fits:
            # launch configs for a layout that runs out of memory would only fail on the cluster
            raise PageInputError(Text("PlanPage", _NOTHING_TO_EXPORT))
        return export_plan(result, option, directory, self.export_inputs(), chart_pngs=self.chart_images())

    def export_dialog(self) -> None:
        directory = QFileDialog.getExistingDirectory(self, self.tr("Export the selected option to a folder"))
        if not directory:
            return
        from planner.errors import UserError

        try:
            files = self.export_to(directory)
        except (OSError, UserError) as exc:  # a read-only folder, a full disk, nothing that fits: say so
            QMessageBox.warning(self, self.tr("Export failed"), render_note(error_note(exc)))
            return
        self.context.show_status(self.tr("Exported %n file(s) to {0}", "", len(files)).format(directory))

    def shutdown(self) -> None:
        """The window is closing: stop re-planning (the store closes after this)."""
        self._closed = True
        self._throttle.stop()
        self._series_timer.stop()
        if self._series_job is not None and self._series_job.running:
            self._series_job.cancel()
        self._generation += 1  # results still on their way are dropped

    # -- screenshots ---------------------------------------------------------------------------------------------
    def load_example(self) -> None:
        self.state.replace_inputs(EXAMPLE_INPUTS, dirty=False)
        self.state.mark_saved(None, self.tr("Example: Llama 3.1 70B full fine-tune"))
        self.sync_widgets()
        self.set_mode("expert")
        self.replan()


def _first_focusable(panel: QWidget) -> QWidget | None:
    """The first enabled, visible input of a panel in tab order (where the keyboard starts on that step)."""
    widget = panel.nextInFocusChain()
    while widget is not None and widget is not panel:
        if (
            panel.isAncestorOf(widget)
            and widget.isEnabled()
            and widget.isVisibleTo(panel)
            and widget.focusPolicy() & Qt.FocusPolicy.TabFocus
        ):
            return widget
        widget = widget.nextInFocusChain()
    return None


def _escape(text: str) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
