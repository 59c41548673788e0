"""The Plan page's view: a guided flow (Next/Back) or one expert page, both bound to one PlanState; live results.

Three rooms share the Plan page's work:
- this module, the view: widgets, layout, guided navigation, saved plans and exports;
- desktop/plan_scheduler.py (no Qt): when to plan, inline or in the background, and which answer to keep
  ("latest request wins"), and which scaling curves are stale;
- desktop/plan_text.py (pure text builders): the headline, the selected row, the limits line, the advice and
  the excluded strategies, worded from the state and the call.

Inputs (left) write into desktop.plan_state.PlanState; every change schedules a re-plan through a short throttle
timer (slider drags coalesce). The call is built by desktop.plan_request (planner.resolver, the same resolution
as the CLI) and planned by planner.search.plan(). Results (right): a headline naming the best option, the
selected row, the ranked options table (training time, GPU-hours and cost with losses, as the planner ranks)
with the selected option's goodput term and the mixed pool's comparison (planner.search.pools.compare_pool, as
`plan --pool`) in tabs beside it, the selected option's memory against capacity, time and cost against GPU
count, excluded strategies with reasons, and advice. The message strip above the table has a fixed height,
so a headline, an error or a limits line that appears never moves the table under the pointer.
"""

from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop import plan_scale_text, plan_text
from desktop.pages.page_widgets import fit_to_contents_width
from desktop.pages.plan_constraints import ConstraintsPanel, StrategyPanel
from desktop.pages.plan_document import PlanDocumentPage
from desktop.pages.plan_inputs import HardwarePanel, ModelPanel, ShapePanel, WorkloadPanel
from desktop.pages.plan_results import ResultsPanel
from desktop.pages.plan_scale_inputs import PoolPanel, ResiliencePanel
from desktop.pages.trace_memory import install_trace_action
from desktop.plan_frontier_job import FrontierJob
from desktop.plan_pool_job import PoolComparisonJob
from desktop.plan_request import (
    Note,
    PlanCall,
    PoolAnswer,
    SpotAnswer,
    best_per_count,
    build_and_run,
    error_note,
    family_name,
    family_points,
    family_series,
    hardware_sources,
    is_model_error,
    overlay_points,
    price_book_of,
    render_note,
)
from desktop.plan_scheduler import SERIES_DELAY_MS, THROTTLE_MS, ReplanScheduler, Series, SeriesSlot
from desktop.plan_state import PlanInputs, PlanState
from desktop.qmodels.plan_options import short_gpu_name
from desktop.shelf import take, take_bound, take_state
from desktop.workers import Job
from planner.errors import UserError
from planner.vocabulary import Precision, Task

if TYPE_CHECKING:
    from collections.abc import Callable

    from desktop.context import AppContext
    from planner.search import PlanOption, PlanResult

INPUTS_WIDTH = 340  # the input column (pixels); at a 1280-pixel window the whole options table fits beside it
MODE_KEY = "plan/mode"  # Guided or Expert, remembered between sessions
MODES = ("guided", "expert")

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
    pool=(("a100-sxm-80gb", 64), ("h100-sxm", 32)),  # the mixed pool of issue 18's example
)


class PlanStateAdapter(QObject):
    """Re-emits PlanState notifications as a Qt signal (changed(str): inputs|result|selection|document)."""

    changed = Signal(str)

    def __init__(self, state: PlanState, parent: QObject | None = None):
        super().__init__(parent)
        self.state = state
        state.subscribe(self.changed.emit)


class PlanPage(PlanDocumentPage):
    """See the module docstring. Signals: planned() after a result (or error) is drawn."""

    page_id = "plan"
    planned = Signal()  # a result (or an error) is drawn: table, headline, memory bar (the scaling chart next turn)
    scaling_ready = Signal()  # the per-strategy scaling curves for the selected GPU type are drawn
    pool_ready = Signal()  # the mixed pool's comparison of the shown plan is drawn (it follows the plan)

    def __init__(self, context: AppContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self.state = take_state(PlanState)  # the one the input panels built ahead are bound to, if any
        self.adapter = PlanStateAdapter(self.state, self)
        self.call: PlanCall | None = None
        self.scheduler = ReplanScheduler()
        self.series = SeriesSlot()
        self._error_about_model = False  # the shown error is about the model input (also shown under it)
        self._error_note: Note | None = (
            None  # what the shown error says, to word it again in another language
        )
        self.last_redraw_ms = 0.0
        self._series_gpu = ""
        self._shown_curves: tuple[tuple[object, ...], Series] | None = None  # (what about, curves) last drawn
        self._series_job: Job | None = None
        self._series_timer = QTimer(self)
        self._series_timer.setSingleShot(True)
        self._series_timer.setInterval(SERIES_DELAY_MS)
        self._series_timer.timeout.connect(self._start_series_job)
        # Re-planning: the first change plans on the next event-loop turn (one user action may change several
        # inputs in one turn); changes within THROTTLE_MS after a plan wait for its end and plan once together,
        # so a slider drag re-plans live, at most every THROTTLE_MS.
        self._soon = QTimer(self)
        self._soon.setSingleShot(True)
        self._soon.setInterval(0)
        self._soon.timeout.connect(self.replan)
        self._throttle = QTimer(self)  # the cool-down after a plan
        self._throttle.setSingleShot(True)
        self._throttle.setInterval(THROTTLE_MS)
        self._throttle.timeout.connect(self._after_cooldown)
        self._replan_pending = False
        self._plan_job: tuple[Job | None, int] = (None, 0)  # the last background plan and its generation
        self._last_kind: tuple[object, ...] | None = None  # what the last plan was of (_plan_kind)

        self.step = 0  # the guided question shown
        self.mode = "guided"
        # each panel built ahead in an idle moment if it could be (desktop/shelf.py)
        self.workload = take_bound(WorkloadPanel, self.state)
        self.model_panel = take_bound(ModelPanel, self.state)
        self.shape = take_bound(ShapePanel, self.state)
        self.hardware = take_bound(HardwarePanel, self.state)
        self.constraints = take_bound(ConstraintsPanel, self.state)
        self.strategy = take_bound(StrategyPanel, self.state)  # Expert mode only: pinned strategy fields, LoRA rank
        self.resilience = take_bound(ResiliencePanel, self.state)  # Expert mode only: failures, checkpoints (goodput)
        self.pool_panel = take_bound(PoolPanel, self.state)  # Expert mode only: a mixed GPU pool (plan --pool)
        self.expert_panels = [self.strategy, self.resilience, self.pool_panel]
        self.pool: PoolAnswer | None = None  # the pool comparison of the shown plan
        self.pool_job = PoolComparisonJob(context.jobs, self)
        self.pool_job.answered.connect(self._accept_pool)
        self.spot: SpotAnswer | None = None  # a spot plan's on-demand side (spot against on demand)
        self.panels = [self.workload, self.model_panel, self.shape, self.hardware, self.constraints]
        self.results = take(ResultsPanel)  # built ahead in an idle moment if it could be (desktop/shelf.py)
        self.frontier_job = FrontierJob(context.jobs, self.results.frontier, self)

        self._build_layout()
        self.pool_panel.set_catalog(list(context.gpu_catalog().values()))
        self._refresh_hardware()
        self._show_defaults()
        self.sync_widgets()
        self.adapter.changed.connect(self._on_state_changed)
        self.shape.problem_changed.connect(self.replan)  # refused: the old result goes; fine again: plan it
        self.results.table.selectionModel().currentRowChanged.connect(
            lambda current, _: self.state.select(current.row())
        )
        context.quotes_changed.connect(self._on_sources_changed)
        context.probe_runs_changed.connect(self._on_sources_changed)
        context.settings_changed.connect(self._on_sources_changed)
        self.retranslate()
        self.set_mode(self._remembered_mode(), remember=False)
        self.replan()

    # -- layout ----------------------------------------------------------------------------------------------
    def _build_layout(self) -> None:
        self.guided_button, self.expert_button = QToolButton(), QToolButton()
        self.mode_group = QButtonGroup(self)
        for button in (self.guided_button, self.expert_button):
            button.setCheckable(True)
            button.setAutoRaise(False)
            button.setAutoExclusive(True)  # the arrows reach the other mode (set_mode takes it out of the Tab chain)
            self.mode_group.addButton(button)
        self.guided_button.clicked.connect(lambda: self.set_mode("guided"))
        self.expert_button.clicked.connect(lambda: self.set_mode("expert"))
        self.doc_label = QLabel()
        self.new_button, self.open_button = QPushButton(), QPushButton()
        self.save_button, self.save_as_button = QPushButton(), QPushButton()
        self.export_button = QPushButton()
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
        for push in (
            self.new_button,
            self.open_button,
            self.save_button,
            self.save_as_button,
            self.export_button,
        ):
            top.addWidget(push)
        # beside the memory bar it checks (desktop/pages/trace_memory.py); the top bar has no room left
        self.trace_button = install_trace_action(self, self.results.memory_header)
        QWidget.setTabOrder(self.results.table, self.trace_button)  # Tab goes as the eye does: table, then Trace

        inputs = QWidget()
        inputs_layout = QVBoxLayout(inputs)
        inputs_layout.setContentsMargins(0, 0, 4, 0)
        for panel in [*self.panels, *self.expert_panels]:
            inputs_layout.addWidget(panel)
        inputs_layout.addStretch(1)
        self.inputs_scroll = QScrollArea()
        self.inputs_scroll.setWidgetResizable(True)
        self.inputs_scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes to the fields (each scrolled into view)
        self.inputs_scroll.setWidget(inputs)
        self.inputs_scroll.setMinimumWidth(INPUTS_WIDTH)
        self.inputs_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
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
        left_layout.addWidget(self.inputs_scroll, 1)
        left_layout.addWidget(self.nav)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.results)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([INPUTS_WIDTH, 900])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.splitter, 1)

    def retranslate(self) -> None:
        self.guided_button.setText(self.tr("Guided"))
        self.expert_button.setText(self.tr("Expert"))
        self.guided_button.setToolTip(self.tr("One question at a time, with Next and Back"))
        self.expert_button.setToolTip(self.tr("Every input on one page, and the strategy fields you may pin"))
        self.new_button.setText(self.tr("New"))
        self.new_button.setToolTip(self.tr("Start a new plan from the defaults"))
        self.open_button.setText(self.tr("Saved plans…"))
        self.open_button.setToolTip(self.tr("Open, rename or delete a saved plan"))
        self.save_button.setText(self.tr("Save"))
        self.save_button.setToolTip(self.tr("Save the inputs of this plan"))
        self.save_as_button.setText(self.tr("Save as…"))
        self.save_as_button.setToolTip(self.tr("Save the inputs under a new name"))
        self.export_button.setText(self.tr("Export…"))
        self.trace_button.retranslate()
        self.export_button.setToolTip(
            self.tr(
                "Write report.md, report.pdf, ds_config.json, accelerate_config.yaml, launch.sh and options.csv"
            )
        )
        self.back_button.setText(self.tr("< &Back"))
        self.back_button.setToolTip(self.tr("Previous question (Alt+B)"))
        for panel in [*self.panels, *self.expert_panels]:
            panel.retranslate()
        self.results.retranslate()
        self._update_nav()
        self._update_document_label()
        self._fit_inputs_width()  # the words of another language are wider or narrower
        if self.call is not None:
            # a language switch: the model summary is worded again; price sources, notes and the planner's
            # texts are rendered by _draw_results from the messages the plan keeps (nothing is planned again)
            self.model_panel.set_summary(plan_text.model_summary(self.call.model))
        if self.state.error is not None and self._error_note is not None:
            self.state.error = render_note(self._error_note)
        self._draw_results()

    # -- guided / expert ---------------------------------------------------------------------------------------
    def _remembered_mode(self) -> str:
        mode = str(self.context.qsettings().value(MODE_KEY, "guided") or "guided")
        return mode if mode in MODES else "guided"

    def set_mode(self, mode: str, remember: bool = True) -> None:
        self.mode = mode
        with QSignalBlocker(self.mode_group):
            (self.guided_button if mode == "guided" else self.expert_button).setChecked(True)
        for button in (self.guided_button, self.expert_button):  # one Tab stop, the checked mode, as radio buttons
            button.setFocusPolicy(Qt.FocusPolicy.StrongFocus if button.isChecked() else Qt.FocusPolicy.ClickFocus)
        self.nav.setVisible(mode == "guided")
        self.step_prompt.setVisible(mode == "guided")
        for panel in self.expert_panels:
            panel.setVisible(mode == "expert")
        if remember:
            settings = self.context.qsettings()
            settings.setValue(MODE_KEY, mode)
            settings.sync()
        self.go_step(self.step if mode == "guided" else 0)
        self._fit_inputs_width()

    def _fit_inputs_width(self) -> None:
        """The input column as wide as its widest panel needs (the Expert panels, Russian words)."""
        fit_to_contents_width(self.inputs_scroll, INPUTS_WIDTH)

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
                self.inputs_scroll.ensureWidgetVisible(first)

    def _next(self) -> None:
        """Next question; after the last one, the results: the advice tab opens and the options table has focus."""
        if self.step < len(self.panels) - 1:
            self.go_step(self.step + 1)
            return
        self.results.tabs.setCurrentIndex(0)
        self.results.views.setCurrentWidget(self.results.table)
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
        step = self.tr("Step {0} of {1}").format(self.step + 1, len(self.panels))
        self.step_label.setText(step)
        prompt = plan_text.escape(plan_text.step_prompts()[self.step])
        self.step_prompt.setText(f"<b>{step}:</b> {prompt}")

    # -- state -> widgets --------------------------------------------------------------------------------------
    def sync_widgets(self) -> None:
        ticked_offers = [key for key in self.state.inputs.hardware if key.startswith("quote:")]
        if any(self.hardware.item_for(key) is None for key in ticked_offers):
            self._refresh_hardware()  # an offer the list leaves out (not among the cheapest) is ticked: list it
        for panel in [*self.panels, *self.expert_panels]:
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
        except UserError:  # the count is only a caption: the listed offers stand in for it
            stored_quotes = len(groups["quote"])
        self.hardware.set_sources(
            {group: [(s.key, s.label, s.tooltip) for s in rows] for group, rows in groups.items()},
            totals={"quote": stored_quotes},
        )

    def _on_sources_changed(self) -> None:
        self.scheduler.sources_changed()  # the price summaries are read again: plan in the background
        self.pool_panel.set_catalog(list(self.context.gpu_catalog().values()))
        self._refresh_hardware()
        self.constraints.set_currency(self.context.display_currency())
        self._request_replan()

    def _on_state_changed(self, what: str) -> None:
        if what == "inputs":
            if self.shape.training_box.isHidden() == self.state.inputs.is_training:  # the kind of plan changed
                self.shape.sync_from(self.state.inputs)
            self.workload.sync_from(self.state.inputs)
            self.constraints.sync_rank(self.state.inputs)
            self.strategy.sync_from(self.state.inputs)
            self.resilience.setEnabled(self.state.inputs.is_training)
            self._request_replan()
        elif what in ("result", "selection"):
            self._draw_results()
        elif what == "document":
            self._update_document_label()

    # -- planning ------------------------------------------------------------------------------------------------
    def _request_replan(self) -> None:
        if self._throttle.isActive():
            self._replan_pending = True  # planned together when the cool-down ends
        elif not self._soon.isActive():
            self._soon.start()

    def _after_cooldown(self) -> None:
        if self._replan_pending:
            self.replan()

    def _deferrable(self) -> bool:
        """A background plan of the same model, task and hardware is on its way and still the newest request:
        these inputs (numbers changed only) wait for it to be drawn rather than drop it."""
        job, generation = self._plan_job
        return (job is not None and job.running and self.scheduler.is_current(generation)
                and not self.scheduler.runs_inline() and self.shape.seq_problem is None
                and _plan_kind(self.state.inputs) == self._last_kind)  # fmt: skip

    def replan(self) -> None:
        """Plan the current inputs now (the re-plan timers call this; tests may too)."""
        self._soon.stop()
        self._replan_pending = False
        self._throttle.start()
        if self._deferrable():
            # one background plan at a time: the one on its way is drawn, then these inputs are planned (a newer
            # request would drop it, and a drag whose plans each outlast a step would draw nothing until it rests)
            self._replan_pending = True
            return
        generation = self.scheduler.request()
        if generation is None:
            return
        kind = _plan_kind(self.state.inputs)
        if kind != self._last_kind:
            self.scheduler.cost_unknown()  # another model, task or hardware: the last timings say nothing
            self._last_kind = kind
        if self.shape.seq_problem is not None:  # a refused input: no plan for the length it replaced
            self._fail(generation, self.shape.seq_problem)
            return
        request = (
            self.state.inputs,
            self.context.gpu_catalog(),
            self.context.store,
            self.context.display_currency(),
            self.context.exchange_rates(),
            price_book_of(self.context),  # price summaries, kept until the store changes
        )
        if self.scheduler.runs_inline():
            try:
                answer = build_and_run(*request)
            except UserError as exc:
                self._fail(generation, error_note(exc), about_model=is_model_error(exc))
                return
            self._accept_built(generation, *answer)
            return

        # slow search or cold price summaries: all of it on a pool thread, the latest request wins
        def done(answer: tuple[PlanCall, PlanResult, float, SpotAnswer | None]) -> None:
            self._accept_built(generation, *answer)
            self._plan_deferred()

        def failed(message: str) -> None:
            error = job.error
            self._fail(generation, message if error is None else error_note(error), is_model_error(error))
            self._plan_deferred()

        job: Job = self.context.jobs.run(build_and_run, *request, on_done=done, on_error=failed, name="plan")
        self._plan_job = (job, generation)

    def _plan_deferred(self) -> None:
        """A background plan came back: plan the inputs that changed while it was on its way."""
        if self._replan_pending and not self._throttle.isActive():
            self.replan()

    def _accept_built(
        self,
        generation: int,
        call: PlanCall,
        result: PlanResult,
        build_ms: float,
        spot: SpotAnswer | None = None,
    ) -> None:
        self.scheduler.built(generation, build_ms)
        if not self.scheduler.is_current(generation):
            return  # a newer request is on its way: latest request wins
        self.scheduler.searched(generation, float(result.search_ms))
        self.call, self.spot = call, spot
        self._ask_pool(generation)
        self.series.reset()
        self.model_panel.set_summary(plan_text.model_summary(call.model))
        self.state.set_result(result)

    def _ask_pool(self, generation: int) -> None:
        """The mixed pool's comparison for these inputs, after the plan is drawn (desktop/plan_pool_job.py); the
        tab keeps the last one meanwhile, or says there is no pool."""
        inputs = self.state.inputs
        if not inputs.pool_counts:
            self.pool_job.stop()
            self.pool = None
            return
        context = self.context
        self.pool_job.request(generation, (inputs, context.gpu_catalog(), context.store, context.display_currency(),
                                           context.exchange_rates(), price_book_of(context)))  # fmt: skip

    def _accept_pool(self, generation: int, answer: PoolAnswer | None) -> None:
        if not self.scheduler.is_current(generation):
            return  # the inputs changed since: their own comparison follows
        self.pool = answer
        names = {gpu_id: short_gpu_name(gpu.name) for gpu_id, gpu in self.context.gpu_catalog().items()}
        self.results.pool.show_answer(answer, names, self.state.inputs.is_training)
        self.pool_ready.emit()

    def _fail(self, generation: int, message: Note, about_model: bool = False) -> None:
        """The plan failed: `message` (a planner Message, a desktop Text or words) is kept to be worded again
        after a language switch."""
        if not self.scheduler.is_current(generation):
            return
        self.call, self.pool, self.spot = None, None, None
        self.pool_job.stop()
        self._error_about_model = about_model
        self._error_note = message
        self.state.set_error(render_note(message))

    # -- drawing -------------------------------------------------------------------------------------------------
    def _draw_results(self) -> None:
        started = time.perf_counter()
        state, results = self.state, self.results
        training = state.inputs.is_training
        if (
            state.error and self._error_about_model
        ):  # decided from the error itself, not its (translated) words
            self.model_panel.set_summary(state.error, error=True)
        options = state.shown_options
        results.show_options(options, training)
        if options and 0 <= state.selected < len(options):
            with QSignalBlocker(results.table.selectionModel()):
                results.table.selectRow(state.selected)
        currency = self.call.currency if self.call else self.context.display_currency()
        results.messages.show_texts(
            plan_text.headline_html(state),
            plan_text.selected_html(state),
            plan_text.limits_text(state.inputs, state.result, currency),
        )
        option = state.selected_option
        if option is not None:
            terms = list(option.memory.at_peak().items())  # the terms as held at the step's peak
            usable = self.call.constraints.usable_bytes(option.gpu) if self.call else option.gpu.memory_bytes
            results.memory_chart.set_data(terms, option.gpu.memory_bytes, usable)
        else:
            results.memory_chart.clear()
        if state.best is not None and option is not None:
            self._draw_scaling(option)
        else:  # nothing fits: no axes left over from an earlier plan
            results.scaling_chart.clear(self.tr("Nothing fits: no times or costs to draw"))
        self._publish_option(option if option is not None and option.fits else None)
        self.frontier_job.show(self.scheduler.generation, self.call, option)
        self.export_button.setEnabled(option is not None and option.fits)
        results.advice.setHtml(plan_text.advice_html(state, self.call))
        results.excluded.setHtml(plan_text.excluded_html(state.result))
        resilience = self.call.constraints.resilience if self.call is not None else None
        goodput = plan_scale_text.goodput_html(option, resilience) if resilience is not None else ""
        if self.call is not None and self.spot is not None and option is not None:
            goodput += plan_scale_text.spot_html(option, self.call, self.spot)
        results.goodput.setHtml(goodput)
        names = {gpu_id: short_gpu_name(gpu.name) for gpu_id, gpu in self.context.gpu_catalog().items()}
        results.pool.show_answer(self.pool, names, training)
        self.last_redraw_ms = (time.perf_counter() - started) * 1000.0
        self.scheduler.drawn(self.last_redraw_ms)
        self.planned.emit()

    def _draw_scaling(self, option: PlanOption) -> None:
        """Per-strategy curves for the option's GPU type: drawn now if known, else fetched in the background.

        Until they arrive the chart keeps the curves it shows for the same model, task and GPU type, with the new
        plan's own points put in (they are exact: the plan's best option at a count is its family's best there),
        so an input change moves points instead of swapping the lines for one and back (no flicker). With nothing
        to keep, the main search's best layout per GPU count stands in (one line).
        """
        training = self.state.inputs.is_training
        currency = self.call.currency if self.call else self.context.display_currency()
        generation, gpu_id = self.scheduler.generation, option.gpu.id
        selected = (family_name(option, training), option.gpus) if option.fits else None
        series = self.series.ready(generation, gpu_id)
        kind = self._curves_kind(gpu_id)
        if series is not None:
            self._shown_curves = (kind, series)
        else:
            result = self.state.result
            fresh = family_points(result, gpu_id, training) if result is not None else {}
            if self._shown_curves is not None and self._shown_curves[0] == kind:
                series = overlay_points(self._shown_curves[1], fresh)
            else:
                name = self.tr("best layout")
                series = {name: best_per_count(fresh)}
                selected = (name, option.gpus) if option.fits else None
            if self.call is not None and self.series.wants(generation, gpu_id):
                self._series_gpu = gpu_id
                self._series_timer.start()  # after a short pause: a slider drag does not queue searches
        band = plan_text.time_band(option) if option.fits else None
        self.results.scaling_chart.set_series(
            series, currency, selected, "wall" if training else "step", band
        )

    def _curves_kind(self, gpu_id: str) -> tuple[object, ...]:
        """What a set of scaling curves is about: curves of another model, task, precision or GPU type are not
        kept on screen while new ones are searched."""
        inputs = self.state.inputs
        model = self.call.model.name if self.call is not None else inputs.model_text
        return (gpu_id, model, inputs.task, inputs.precision)

    def _start_series_job(self) -> None:
        """Search each ZeRO stage for the scaling chart, cancelling a search for older inputs first."""
        if self._series_job is not None and self._series_job.running:
            self._series_job.cancel()
        key = self.series.key
        if self.call is None or key is None or self.scheduler.closed:
            return

        def done(curves: Series) -> None:
            self._accept_series(key, curves)

        def failed(_message: str) -> None:
            """The one-line chart stays; the table has the numbers."""

        self._series_job = self.context.jobs.run(
            family_series, self.call, self._series_gpu, on_done=done, on_error=failed, name="scaling curves"
        )

    def _accept_series(self, key: tuple[int, str], curves: Series) -> None:
        if not self.series.accept(key, curves or {}):
            return  # a newer plan or another GPU type was selected meanwhile
        option = self.state.selected_option
        if option is not None and self.series.curves and self.state.best is not None:
            self._draw_scaling(option)  # drawn on the next turns (ScalingChart._redraw: new lines a family a turn)
        self.scaling_ready.emit()

    def _publish_option(self, option: PlanOption | None) -> None:
        """Tell Rent or buy which option is chosen (only when it changed)."""
        if option is not self.context.plan_option:
            self.context.plan_option = option
            self.context.plan_option_changed.emit(option)

    def shutdown(self) -> None:
        """The window is closing: stop re-planning (the store closes after this)."""
        self.scheduler.close()  # results still on their way are dropped
        self.pool_job.stop()
        self.frontier_job.stop()
        self._soon.stop()
        self._throttle.stop()
        self._series_timer.stop()
        if self._series_job is not None and self._series_job.running:
            self._series_job.cancel()

    # -- screenshots ---------------------------------------------------------------------------------------------
    def load_example(self) -> None:
        self.state.replace_inputs(EXAMPLE_INPUTS, dirty=False)
        self.state.mark_saved(None, self.tr("Example: Llama 3.1 70B full fine-tune"))
        self.sync_widgets()
        self.set_mode("expert", remember=False)
        self.replan()

    def screenshot_views(self) -> dict[str, Callable[[], None]]:
        """The result tabs a screenshot of the Plan page cannot show at once (desktop.app.take_screenshots)."""
        views = self.results.views
        return {
            "goodput": lambda: views.setCurrentWidget(self.results.goodput),
            "pool": self._show_pool_for_screenshot,
            "spot": self._show_spot_example,  # last: it plans the example again, on spot
        }

    def _show_spot_example(self) -> None:
        """The example on spot capacity (priced by the spot quotes), the Goodput tab at its spot comparison."""
        goodput = self.results.goodput

        def scroll() -> None:  # once the spot plan is drawn (setHtml scrolls back to the top)
            self.planned.disconnect(scroll)
            goodput.scrollToAnchor("spot")

        self.results.views.setCurrentWidget(goodput)
        self.planned.connect(scroll)
        self.state.replace_inputs(
            dataclasses.replace(self.state.inputs, spot=True), dirty=False
        )  # still the example
        self.sync_widgets()
        self.replan()

    def _show_pool_for_screenshot(self) -> None:
        """The Mixed pool tab with room for every way's row and the words under them (the user drags the same)."""
        self.results.views.setCurrentWidget(self.results.pool)
        total = sum(self.results.vertical.sizes())
        self.results.vertical.setSizes([total * 68 // 100, total * 13 // 100, total * 19 // 100])


def _plan_kind(inputs: PlanInputs) -> tuple[object, ...]:
    """The inputs that change what a plan costs to make (a new model to read, other GPU types and prices);
    numbers such as the batch or the token count do not."""
    return (inputs.model_kind, inputs.preset, inputs.model_path, inputs.task,
            inputs.precision, inputs.hardware, inputs.spot)  # fmt: skip


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
