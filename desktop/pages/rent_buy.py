"""Rent or buy: cumulative cost by month of renting (on demand, spot, reserved, a spot mix), buying and a hybrid.

Pre-filled from the Plan page's chosen option (GPU type and count, while "Follow the Plan page" is on) and the
stored quotes (median on-demand, spot and reserved prices; purchase quotes or the catalog's price), converted
into the display currency. Every price belongs to the GPU shown: a change of GPU re-derives all of them, and a
price nobody gave stays empty (no buy or hybrid line then) instead of keeping the previous GPU's. From a plan,
the use is the job's: its GPU-hours times the runs per month the user sets give the utilisation, and the
hybrid owns whole job-sized groups (an 8-GPU tensor-parallel job cannot run on 4 owned GPUs). Every input change
recomputes planner.costs.rent_vs_buy (microseconds) and redraws on the next event-loop turn, so dragging a
slider stays live. The recommendation is written here, translated, from the result's numbers.

Spot: the spot line (and the spot share's mix) costs the spot price x (1 + the extra hours reclaims cost a job on
all the GPUs compared), from planner.costs.spot_line with the reclaim rate typed (else the followed plan's spot
quote's, else the median the shown GPU's spot quotes state, else the provider's typical one), the checkpoint
write and the restart time: the inputs of `gpu-advisor rentbuy --spot-interruptions-per-node-hour`, with the
same numbers. The page says up to which job size spot pays (planner.scale.compare_spot).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from PySide6 import QtCore
from PySide6.QtCore import QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop import fmt, rent_buy_text
from desktop.charts.rentbuy_chart import RentBuyChart
from desktop.limit_spins import set_limit
from desktop.messages import render_error
from desktop.pages.base import Page
from desktop.pages.page_widgets import fit_to_contents_width
from desktop.pages.rent_buy_widgets import LabelledSlider, money_spin
from desktop.plan_request import (
    Note,
    PageInputError,
    Text,
    base_gpu_id,
    price_book_of,
    render_note,
    typical_price,
)
from desktop.qmodels.quotes import rate_text
from desktop.shelf import take
from desktop.spot_rates import chosen_spot_rate, quoted_spot_rate
from planner.break_even import break_even_months_by_rent
from planner.errors import UserError
from planner.resolver import ON_DEMAND, RESERVED

if TYPE_CHECKING:
    from collections.abc import Callable

    from desktop.context import AppContext
    from planner.costs import RentBuyInputs, RentBuyResult, SpotLine
    from planner.gpus import GpuSpec
    from planner.messages import Message
    from planner.money import ExchangeRates
    from planner.search import PlanOption

DEFAULT_SERVER_OVERHEAD = 0.25  # server, network and rack as a share of the GPU price when no quote says
DEFAULT_UTILIZATION = 0.6
DEFAULT_HORIZON_MONTHS = 36
INPUTS_WIDTH = 340  # the input column at least; wider where its words need it (fit_to_contents_width)
DEFAULT_RUNS_PER_MONTH = 4  # a plan's job, run once a week, until the user says how often
# Qt's marker for pyside6-lupdate (it finds the calls by this name), typed: it returns its text unchanged.
QT_TRANSLATE_NOOP = cast("Callable[[str, str], str]", QtCore.QT_TRANSLATE_NOOP)
_RATE_NOT_A_NUMBER = QT_TRANSLATE_NOOP(
    "RentBuyPage", "the spot reclaim rate must be a number of reclaims per node-hour (0.02), got '{0}'"
)


class RentBuyPage(Page):
    """See the module docstring. Signals: recomputed() after the chart and the recommendation are redrawn."""

    page_id = "rent_buy"
    recomputed = Signal()

    def __init__(self, context: AppContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self.result: RentBuyResult | None = None
        self.spot: SpotLine | None = None  # the spot line's overhead and when spot stops paying
        self.quoted_spot_rate: tuple[float | None, int] = (None, 0)  # (median stated rate, quotes stating one)
        self.chosen_spot_rate: float | None = None  # the rate of the spot quote the followed plan runs on
        self._plan_option: PlanOption | None = None
        self.price_sources: dict[str, str] = {}
        self.error: str | None = None
        self.currency = context.display_currency()
        self.notes: list[Note] = []  # rendered when drawn (desktop.plan_request.render_note)
        self._closed = False
        self._redraw_timer = QTimer(self)
        self._redraw_timer.setSingleShot(True)
        self._redraw_timer.setInterval(0)  # coalesce a burst of slider events into one recompute
        self._redraw_timer.timeout.connect(self.recompute)
        self._built = False
        self._build()
        self.retranslate()
        self._built = True
        self.fill_from_plan(context.plan_option, force=True)
        context.plan_option_changed.connect(lambda option: self.fill_from_plan(option))
        context.quotes_changed.connect(self.refill_prices)
        context.settings_changed.connect(self.refill_prices)
        self.recompute()

    # -- construction ------------------------------------------------------------------------------------------
    def _build(self) -> None:
        catalog = self.context.gpu_catalog()
        self.follow_plan = QCheckBox()
        self.follow_plan.setChecked(True)
        self.from_plan_label = QLabel()
        self.from_plan_label.setWordWrap(True)
        self.gpu_combo = QComboBox()
        # Long GPU names are elided rather than widening the input column past the window (the popup shows all).
        self.gpu_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.gpu_combo.setMinimumContentsLength(18)
        for gpu in sorted(catalog.values(), key=lambda g: (-g.memory_bytes, g.name)):
            self.gpu_combo.addItem(gpu.name, gpu.id)
        # ranges: `gpu-advisor rentbuy`'s rows of planner/limits.py (desktop/limit_spins.py), in these units
        self.gpus_spin = QSpinBox()
        set_limit(self.gpus_spin, "gpus")
        self.runs_spin = QDoubleSpinBox()  # the plan's job, this many times a month: sets the utilisation
        self.runs_spin.setDecimals(1)
        set_limit(self.runs_spin, "runs_per_month")
        self.runs_spin.setValue(DEFAULT_RUNS_PER_MONTH)
        self.job_label = QLabel()
        self.job_label.setWordWrap(True)
        self.purchase_spin = money_spin("purchase_per_gpu", 0)
        self.purchase_spin.setSingleStep(500)
        self.overhead_spin = QDoubleSpinBox()
        self.overhead_spin.setDecimals(0)
        set_limit(self.overhead_spin, "overhead_fraction", 100)  # percent
        self.power_spin = QDoubleSpinBox()
        self.power_spin.setDecimals(0)
        set_limit(self.power_spin, "power_w")
        self.pue_spin = QDoubleSpinBox()
        self.pue_spin.setSingleStep(0.05)
        self.pue_spin.setDecimals(2)
        set_limit(self.pue_spin, "pue")
        self.electricity_spin = money_spin("electricity_per_kwh", 3)
        self.electricity_spin.setSingleStep(0.01)
        self.maintenance_spin = QDoubleSpinBox()
        self.maintenance_spin.setDecimals(0)
        set_limit(self.maintenance_spin, "maintenance_fraction", 100)
        self.resale_spin = QDoubleSpinBox()
        self.resale_spin.setDecimals(0)
        set_limit(self.resale_spin, "resale_fraction", 100)
        # Rental prices up to the store's own limit per GPU-hour: 1,400 RUB (about $15) is an ordinary quote, so
        # a field that stopped at 1,000 silently priced it at 1,000 and turned a typed 1400 into 140.
        self.on_demand_spin = money_spin("rent_per_gpu_hour", 2)
        self.spot_spin = money_spin("spot_per_gpu_hour", 2)
        self.reserved_spin = money_spin("reserved_per_gpu_hour", 2)
        # Spot reclaims: the CLI's `rentbuy --spot-interruptions-per-node-hour`, `--checkpoint-write-minutes` and
        # `--restart-minutes`; an empty rate takes the spot quotes' stated one, else the provider's typical one.
        self.spot_rate_edit = QLineEdit()
        self.spot_rate_edit.setClearButtonEnabled(True)
        self.checkpoint_spin = QDoubleSpinBox()
        self.checkpoint_spin.setDecimals(1)
        set_limit(self.checkpoint_spin, "checkpoint_write_minutes")
        self.restart_spin = QDoubleSpinBox()
        self.restart_spin.setDecimals(1)
        set_limit(self.restart_spin, "restart_minutes")
        self.hybrid_spin = QSpinBox()
        set_limit(self.hybrid_spin, "owned_gpus")  # then at most the GPUs compared (_on_count_changed)
        self.hours_slider = LabelledSlider(1, 24)
        self.utilization_slider = LabelledSlider(1, 100, 0.01)
        self.utilization_slider.formatter = lambda value: fmt.percent(value)
        self.horizon_slider = LabelledSlider(6, 120)
        self.spot_share_slider = LabelledSlider(0, 100, 0.01)
        self.spot_share_slider.formatter = lambda value: fmt.percent(value)

        self.labels: dict[str, QLabel] = {}

        def row(form: QFormLayout, key: str, widget: QWidget) -> None:
            self.labels[key] = QLabel()
            self.labels[key].setBuddy(widget)
            form.addRow(self.labels[key], widget)

        self.use_box = QGroupBox()
        use = QFormLayout(self.use_box)
        use.addRow(self.follow_plan)
        use.addRow(self.from_plan_label)
        row(use, "gpu", self.gpu_combo)
        row(use, "gpus", self.gpus_spin)
        use.addRow(self.job_label)
        row(use, "runs", self.runs_spin)
        row(use, "hours", self.hours_slider)
        row(use, "utilization", self.utilization_slider)
        row(use, "horizon", self.horizon_slider)
        self.buy_box = QGroupBox()
        buy = QFormLayout(self.buy_box)
        row(buy, "purchase", self.purchase_spin)
        row(buy, "overhead", self.overhead_spin)
        row(buy, "power", self.power_spin)
        row(buy, "pue", self.pue_spin)
        row(buy, "electricity", self.electricity_spin)
        row(buy, "maintenance", self.maintenance_spin)
        row(buy, "resale", self.resale_spin)
        self.rent_box = QGroupBox()
        rent = QFormLayout(self.rent_box)
        row(rent, "on_demand", self.on_demand_spin)
        row(rent, "spot", self.spot_spin)
        row(rent, "spot_rate", self.spot_rate_edit)
        row(rent, "checkpoint", self.checkpoint_spin)
        row(rent, "restart", self.restart_spin)
        row(rent, "reserved", self.reserved_spin)
        row(rent, "spot_share", self.spot_share_slider)
        row(rent, "hybrid", self.hybrid_spin)

        inputs = QWidget()
        inputs_layout = QVBoxLayout(inputs)
        inputs_layout.setContentsMargins(0, 0, 4, 0)
        for box in (self.use_box, self.buy_box, self.rent_box):
            inputs_layout.addWidget(box)
        inputs_layout.addStretch(1)
        scroll = self.inputs_scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes to the fields (each scrolled into view)
        scroll.setWidget(inputs)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(INPUTS_WIDTH)

        self.headline = QLabel()
        self.headline.setWordWrap(True)
        self.headline.setTextFormat(Qt.TextFormat.RichText)
        self.chart = take(RentBuyChart)  # built ahead in an idle moment if it could be
        self.figures = QLabel()
        self.figures.setWordWrap(True)
        self.figures.setTextFormat(Qt.TextFormat.RichText)
        self.figures.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.figures.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.headline)
        right_layout.addWidget(self.chart, 3)
        right_layout.addWidget(self.figures, 0)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(scroll)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([380, 900])
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

        self.follow_plan.toggled.connect(lambda on: self.fill_from_plan(self.context.plan_option, force=on))
        self.gpu_combo.currentIndexChanged.connect(self._on_gpu_changed)
        self.gpus_spin.valueChanged.connect(self._on_count_changed)
        self.hybrid_spin.valueChanged.connect(self.schedule)
        self.runs_spin.valueChanged.connect(self.schedule)
        for spin in (self.purchase_spin, self.overhead_spin, self.power_spin, self.pue_spin, self.electricity_spin,
                     self.maintenance_spin, self.resale_spin, self.on_demand_spin, self.spot_spin, self.reserved_spin,
                     self.checkpoint_spin, self.restart_spin):  # fmt: skip
            spin.valueChanged.connect(self.schedule)
        self.spot_rate_edit.textChanged.connect(self.schedule)
        for slider in (
            self.hours_slider,
            self.utilization_slider,
            self.horizon_slider,
            self.spot_share_slider,
        ):
            slider.value_changed.connect(self.schedule)
        self._set_defaults()

    def _set_defaults(self) -> None:
        from planner.costs import DEFAULT_PUE, DEFAULT_SPOT_CHECKPOINT_WRITE_S, DEFAULT_SPOT_RESTART_S

        self.checkpoint_spin.setValue(DEFAULT_SPOT_CHECKPOINT_WRITE_S / 60)
        self.restart_spin.setValue(DEFAULT_SPOT_RESTART_S / 60)

        self.hours_slider.set_value(24)
        self.utilization_slider.set_value(DEFAULT_UTILIZATION)
        self.horizon_slider.set_value(DEFAULT_HORIZON_MONTHS)
        self.spot_share_slider.set_value(0.0)
        self.pue_spin.setValue(DEFAULT_PUE)
        self.overhead_spin.setValue(DEFAULT_SERVER_OVERHEAD * 100)
        self.maintenance_spin.setValue(0)
        self.resale_spin.setValue(20)
        with (
            QSignalBlocker(self.gpus_spin),
            QSignalBlocker(self.gpu_combo),
        ):  # defaults, not the user's choice
            self.gpus_spin.setValue(8)
            _select(self.gpu_combo, "h100-sxm")
        self.hybrid_spin.setValue(4)
        self.refill_prices()

    def retranslate(self) -> None:
        self.use_box.setTitle(self.tr("Use"))
        self.buy_box.setTitle(self.tr("Buying"))
        self.rent_box.setTitle(self.tr("Renting"))
        self.follow_plan.setText(self.tr("Follow the Plan page's chosen option"))
        texts = {
            "gpu": self.tr("GPU"),
            "gpus": self.tr("GPUs"),
            "runs": self.tr("Runs per month"),
            "hours": self.tr("Hours per day"),
            "utilization": self.tr("Utilisation"),
            "horizon": self.tr("Horizon (months)"),
            "purchase": self.tr("Price per GPU"),
            "overhead": self.tr("Server overhead"),
            "power": self.tr("Power per GPU"),
            "pue": self.tr("PUE"),
            "electricity": self.tr("Electricity"),
            "maintenance": self.tr("Maintenance per year"),
            "resale": self.tr("Resale at the end"),
            "on_demand": self.tr("On demand"),
            "spot": self.tr("Spot"),
            "spot_rate": self.tr("Spot reclaims / node-h"),
            "checkpoint": self.tr("Checkpoint write"),
            "restart": self.tr("Restart"),
            "reserved": self.tr("Reserved"),
            "spot_share": self.tr("Share on spot"),
            "hybrid": self.tr("Hybrid: GPUs owned"),
        }
        for key, label in self.labels.items():
            label.setText(texts[key])
            field = label.buddy()  # the form's field (a labelled slider's focus is its slider)
            target = field.focusProxy() if field is not None and field.focusProxy() is not None else field
            if target is not None:
                target.setAccessibleName(texts[key])  # what a screen reader says on Tab
        self.hours_slider.formatter = lambda value: self.tr("{0} h").format(fmt.number(value, 0))
        self.horizon_slider.formatter = lambda value: self.tr("{0} mo").format(fmt.number(value, 0))
        for slider in (
            self.hours_slider,
            self.utilization_slider,
            self.horizon_slider,
            self.spot_share_slider,
        ):
            slider.set_value(slider.value())
        for spin in (self.spot_spin, self.reserved_spin, self.on_demand_spin):
            spin.setSpecialValueText(self.tr("no quote"))
        self.purchase_spin.setSpecialValueText(self.tr("no price: type one"))
        self.runs_spin.setSpecialValueText(self.tr("use the utilisation below"))
        tips = (
            (self.follow_plan, self.tr("Take the GPU, the count and the job from the option selected on the Plan page")),
            (self.gpu_combo, self.tr("The GPU type to rent or buy; every price below is this GPU's")),
            (self.gpus_spin, self.tr("GPUs to rent or to buy")),
            (self.runs_spin, self.tr("How often the plan's job runs; with its GPU-hours this sets the utilisation")),
            (self.hours_slider, self.tr("Hours a day the GPUs may work (the schedule)")),
            (self.utilization_slider, self.tr("Busy share of the schedule; set by the runs per month when the plan's job is known")),
            (self.horizon_slider, self.tr("How long the hardware is used before it is sold")),
            (self.purchase_spin, self.tr("Purchase price of one GPU (from your purchase quotes or the catalog)")),
            (self.power_spin, self.tr("Power one busy GPU draws (the TDP is a fair upper figure)")),
            (self.electricity_spin, self.tr("Price of one kWh (Settings holds the default)")),
            (self.maintenance_spin, self.tr("Support, spares and operations per year, as a share of the purchase")),
            (self.resale_spin, self.tr("Share of the purchase price recovered at the end of the horizon")),
            (self.on_demand_spin, self.tr("Rent per GPU-hour on demand (the median of the stored quotes)")),
            (self.spot_spin, self.tr("Rent per GPU-hour on spot instances (interruptible)")),
            (self.reserved_spin, self.tr("Rent per GPU-hour with a reservation, paid around the clock")),
            (self.spot_rate_edit, self.tr("How often a spot node is reclaimed, per node-hour; each reclaim stops the whole job on all the GPUs above. Empty: the rate your spot quotes state, else the provider's typical one")),
            (self.checkpoint_spin, self.tr("Minutes to write one checkpoint; checkpoints come at Daly's optimal interval, and a reclaim loses the work since the last one")),
            (self.restart_spin, self.tr("Minutes from a reclaim until the job runs again (detection, rescheduling, reload)")),
        )  # fmt: skip
        for widget, tip in tips:
            widget.setToolTip(tip)
        self.overhead_spin.setSuffix(" %")
        self.maintenance_spin.setSuffix(" %")
        self.resale_spin.setSuffix(" %")
        self.power_spin.setSuffix(" " + self.tr("W"))
        self.overhead_spin.setToolTip(self.tr("Server, network and rack cost as a share of the GPU price"))
        self.pue_spin.setToolTip(
            self.tr("Power usage effectiveness: facility power / IT power (1.0 = no overhead)")
        )
        self.hybrid_spin.setToolTip(
            self.tr(
                "Owned GPUs take the base load, in whole groups of one job's GPUs; the rest is rented on demand"
            )
        )
        self.spot_share_slider.setToolTip(
            self.tr("Share of rented hours run on spot instances (the 'rent mix' line), at the spot line's cost per useful hour")
        )
        for spin in (self.checkpoint_spin, self.restart_spin):
            spin.setSuffix(" " + self.tr("min"))
        self._show_spot_rate_source()
        self._set_currency_suffixes()
        self._update_from_plan_label()
        self._update_hybrid_range()  # the job line, in the new language
        self._reword_price_sources()
        self.chart.retranslate()
        if self._built:  # while the page is built its first recompute draws it (once: each draw is 10-20 ms)
            self._draw()
        fit_to_contents_width(self.inputs_scroll, INPUTS_WIDTH)  # the words of the new language

    def _reword_price_sources(self) -> None:
        """After a language switch: say again where each price came from, keeping every value the user sees."""
        if not hasattr(self, "price_sources"):
            return  # still building the page
        spins = (self.on_demand_spin, self.spot_spin, self.reserved_spin, self.purchase_spin,
                 self.overhead_spin, self.power_spin, self.electricity_spin)  # fmt: skip
        values = [spin.value() for spin in spins]
        self.refill_prices()
        for spin, value in zip(spins, values, strict=True):
            blocker = QSignalBlocker(spin)
            spin.setValue(value)
            del blocker

    def _set_currency_suffixes(self) -> None:
        """Money in the spin boxes as in the table beside them (desktop.fmt.money_affixes): "$3.49/GPU-h"."""
        prefix, suffix = fmt.money_affixes(self.currency)
        for spin, unit in (
            (self.on_demand_spin, self.tr("/GPU-h")),
            (self.spot_spin, self.tr("/GPU-h")),
            (self.reserved_spin, self.tr("/GPU-h")),
            (self.purchase_spin, ""),
            (self.electricity_spin, self.tr("/kWh")),
        ):
            spin.setPrefix(prefix)
            spin.setSuffix(suffix + unit)

    # -- pre-filling ---------------------------------------------------------------------------------------------
    def fill_from_plan(self, option: PlanOption | None, force: bool = False) -> None:
        """Take GPU type, count and job from the plan's chosen option while following the plan."""
        self._plan_option = option
        self.chosen_spot_rate = chosen_spot_rate(self.context.store, self._plan_option)
        self._show_spot_rate_source()
        if option is not None and self.follow_plan.isChecked():
            with QSignalBlocker(self.gpu_combo), QSignalBlocker(self.gpus_spin):
                _select(self.gpu_combo, base_gpu_id(option.gpu.id))
                self.gpus_spin.setValue(int(option.gpus))
            self.refill_prices()
        self._update_hybrid_range()
        self._update_from_plan_label()
        self.schedule()

    def _job(self) -> tuple[int, float] | None:
        """(GPUs one job needs, GPU-hours per run) of the plan being followed, or None."""
        option = self._plan_option
        if option is None or not self.follow_plan.isChecked():
            return None
        hours = getattr(option, "gpu_hours", None)
        return (int(option.gpus), float(hours)) if hours else None

    def _update_hybrid_range(self) -> None:
        """The hybrid owns whole job-sized groups, never more GPUs than are compared."""
        job = self._job()
        step = job[0] if job is not None else 1
        gpus = int(self.gpus_spin.value())
        with QSignalBlocker(self.hybrid_spin):
            value, maximum = self.hybrid_spin.value(), gpus // step * step
            same_job = step == self.hybrid_spin.singleStep()
            self.hybrid_spin.setSingleStep(step)
            self.hybrid_spin.setMaximum(maximum)
            default = gpus // step // 2 * step if job is not None else max(1, gpus // 2)
            keep = same_job and value % step == 0 and value <= maximum
            self.hybrid_spin.setValue(value if keep else default)
        self.runs_spin.setEnabled(job is not None)
        self.utilization_slider.setEnabled(job is None or self.runs_spin.value() == 0)
        self.job_label.setText(
            self.tr("The plan's job: {0} GPUs at once, {1} GPU-hours a run").format(
                job[0], fmt.significant(job[1], 3)
            )
            if job is not None
            else self.tr("No plan's job followed: the utilisation below is the use.")
        )

    def _update_from_plan_label(self) -> None:
        option = getattr(self, "_plan_option", None)
        if option is None:
            self.from_plan_label.setText(
                self.tr("No plan chosen yet: the Plan page's selected option fills GPU and count.")
            )
        elif self.follow_plan.isChecked():
            self.from_plan_label.setText(
                self.tr("From the plan: {0} × {1}").format(option.gpus, option.gpu.name)
            )
        else:
            self.from_plan_label.setText(
                self.tr("The plan chose {0} × {1}; tick the box above to use it.").format(
                    option.gpus, option.gpu.name
                )
            )

    def _on_gpu_changed(self, _: int) -> None:
        self._stop_following()
        self.refill_prices()
        self.schedule()

    def _on_count_changed(self, _: int) -> None:
        self._stop_following()
        self._update_hybrid_range()
        self.schedule()

    def _stop_following(self) -> None:
        """The user chose a GPU or a count by hand: the next plan change must not overwrite it."""
        if self.follow_plan.isChecked():
            with QSignalBlocker(self.follow_plan):
                self.follow_plan.setChecked(False)
            self._show_spot_rate_source()
            self._update_hybrid_range()
            self._update_from_plan_label()

    def refill_prices(self) -> None:
        """Every price of the chosen GPU, from its stored quotes (display currency) and the catalog.

        All of them are set: a price the quotes and the catalog do not give becomes empty (0, shown as "no
        quote" / "no price"), never the previous GPU's."""
        self.currency = self.context.display_currency()
        self.notes = []
        gpu = self.context.gpu_catalog().get(self.gpu_combo.currentData())
        if gpu is None:
            return
        rates = self.context.exchange_rates()
        # SQL summaries of this GPU type's quotes (milliseconds, then cached), never the quotes themselves
        prices = price_book_of(self.context)  # shared with the Plan page
        found: list[Message] = []  # planner messages about quotes left out (a missing exchange rate)
        on_demand = typical_price(prices, gpu.id, ON_DEMAND, self.currency, rates, found)
        spot = typical_price(prices, gpu.id, ("spot",), self.currency, rates, found)
        reserved = typical_price(prices, gpu.id, RESERVED, self.currency, rates, found)
        self.notes.extend(found)
        self.quoted_spot_rate = quoted_spot_rate(self.context.store, gpu.id)
        self.chosen_spot_rate = chosen_spot_rate(self.context.store, self._plan_option)
        self._show_spot_rate_source()
        purchase, overhead, power, purchase_note = self._purchase(gpu, rates)
        self.price_sources = {
            "on_demand": render_note(on_demand.source)
            if on_demand
            else self.tr("no on-demand quote: type a price"),
            "spot": render_note(spot.source)
            if spot
            else self.tr("no spot quote stored: type a price to compare"),
            "reserved": render_note(reserved.source)
            if reserved
            else self.tr("no reserved quote stored: type a price to compare"),
            "purchase": purchase_note,
        }
        spins = (self.on_demand_spin, self.spot_spin, self.reserved_spin, self.purchase_spin,
                 self.overhead_spin, self.power_spin, self.electricity_spin)  # fmt: skip
        blockers = [QSignalBlocker(spin) for spin in spins]
        # No quote, no line: a price is never invented (0 leaves the series out until the user types one).
        self.on_demand_spin.setValue(on_demand.price.amount if on_demand else 0.0)
        self.spot_spin.setValue(spot.price.amount if spot else 0.0)
        self.reserved_spin.setValue(reserved.price.amount if reserved else 0.0)
        self.purchase_spin.setValue(purchase if purchase is not None else 0.0)
        self.overhead_spin.setValue((overhead if overhead is not None else DEFAULT_SERVER_OVERHEAD) * 100)
        self.power_spin.setValue(power or gpu.tdp_w or 0)
        electricity = self.context.electricity_price()
        converted, problem = self.context.to_display_currency(electricity.amount, electricity.currency)
        if converted is not None:
            self.electricity_spin.setValue(converted.amount)
        elif problem is not None:
            self.notes.append(problem)
        del blockers
        self._set_currency_suffixes()
        self.schedule()

    def _rate_source(self) -> tuple[float, str]:
        """(reclaims per node-hour, where from) an empty rate field stands for: the plan's chosen spot quote, else
        the shown GPU's spot quotes, else the provider's typical rate."""
        from planner.scale import DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR

        if self.chosen_spot_rate is not None and self.follow_plan.isChecked():
            return self.chosen_spot_rate, self.tr("the plan's chosen spot quote")
        rate, count = self.quoted_spot_rate
        if rate is not None:
            return rate, self.tr("median of %n spot quote(s)", "", count)
        return DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR, self.tr(
            "the provider's typical rate, AWS Spot Instance Advisor's top band"
        )

    def _show_spot_rate_source(self) -> None:
        """An empty rate field shows the rate it stands for, and says where it is from."""
        if hasattr(self, "spot_rate_edit"):
            rate, _ = self._rate_source()
            chosen = self.chosen_spot_rate is not None and self.follow_plan.isChecked()
            quoted = chosen or self.quoted_spot_rate[0] is not None
            where = self.tr("from quotes") if quoted else self.tr("typical")
            self.spot_rate_edit.setPlaceholderText(f"{rate_text(rate)} ({where})")

    def rate_in_use(self) -> tuple[float, str]:
        """(reclaims per node-hour, where from): the typed rate, else the one an empty field stands for.
        PageInputError for text that is no number (the planner checks the number itself)."""
        text = self.spot_rate_edit.text().strip()
        if not text:
            return self._rate_source()
        try:
            return float(text.replace(",", ".").replace(" ", "")), self.tr("typed")
        except ValueError:
            raise PageInputError(Text("RentBuyPage", _RATE_NOT_A_NUMBER, (text,))) from None

    def spot_line(self) -> SpotLine | None:
        """planner.costs.spot_line for the spot price shown (None without one); UserError for a bad rate."""
        from planner.costs import spot_line

        gpu = self.context.gpu_catalog().get(self.gpu_combo.currentData())
        spot_price = float(self.spot_spin.value())
        if gpu is None or not spot_price:
            return None
        rate, _ = self.rate_in_use()
        return spot_line(
            gpu, int(self.gpus_spin.value()), rate, self.checkpoint_spin.value() * 60, self.restart_spin.value() * 60,
            spot_price=spot_price, on_demand_price=float(self.on_demand_spin.value()) or None,
        )  # fmt: skip

    def _purchase(
        self, gpu: GpuSpec, rates: ExchangeRates
    ) -> tuple[float | None, float | None, float | None, str]:
        """(price per GPU, server overhead fraction, power W, where from) in the display currency."""
        try:
            quotes = list(self.context.store.purchase_quotes.find(gpu=gpu.id))
        except UserError:  # a database that cannot answer: the catalog price stands in
            quotes = []
        mine = [q for q in quotes if q.get("origin") == "user"] or quotes
        per_gpu = []
        for quote in mine:
            converted, problem = self.context.to_display_currency(
                float(quote["price"]) / int(quote["gpus"] or 1), quote["currency"]
            )
            if converted is None:
                if problem is not None:
                    self.notes.append(problem)
                continue
            per_gpu.append((converted.amount, quote))
        if per_gpu:
            per_gpu.sort(key=lambda item: item[0])
            middle = len(per_gpu) // 2
            amount, quote = per_gpu[middle]
            if len(per_gpu) % 2 == 0:
                amount = (per_gpu[middle - 1][0] + amount) / 2
            vendors = ", ".join(dict.fromkeys(str(q.get("vendor", "")) for _, q in per_gpu))
            note = self.tr("median of %n purchase quote(s): {0}", "", len(per_gpu)).format(vendors)
            return amount, quote.get("server_overhead_fraction"), quote.get("power_w"), note
        if gpu.purchase_usd:
            converted, problem = self.context.to_display_currency(gpu.purchase_usd, "USD")
            if converted is not None:
                return converted.amount, None, None, self.tr("catalog price (see the GPU's sources)")
            if problem is not None:
                self.notes.append(problem)
        return None, None, None, self.tr("no purchase price known for {0}: type one").format(gpu.name)

    # -- computing -----------------------------------------------------------------------------------------------
    def schedule(self, *_: Any) -> None:
        if not self._closed and not self._redraw_timer.isActive():
            self._redraw_timer.start()

    def inputs(self) -> RentBuyInputs:
        """planner.costs.RentBuyInputs from the widgets."""
        from planner.costs import DEFAULT_SPOT_OVERHEAD_FRACTION, RentBuyInputs

        gpus = int(self.gpus_spin.value())
        purchase = float(self.purchase_spin.value())
        job = self._job()
        self.spot = None
        spot = self.spot = self.spot_line()
        return RentBuyInputs(
            spot_overhead_fraction=spot.overhead_fraction if spot else DEFAULT_SPOT_OVERHEAD_FRACTION,
            spot_overhead_basis=spot.basis if spot else "",
            gpus=gpus,
            purchase_per_gpu=purchase or None,  # empty: no purchase price, so buying is not compared
            rent_on_demand_per_gpu_hour=float(self.on_demand_spin.value()),
            rent_spot_per_gpu_hour=float(self.spot_spin.value()) or None,
            rent_reserved_per_gpu_hour=float(self.reserved_spin.value()) or None,
            currency=self.currency,
            infra_overhead_fraction=self.overhead_spin.value() / 100,
            power_w_per_gpu=float(self.power_spin.value()),
            pue=float(self.pue_spin.value()),
            electricity_per_kwh=float(self.electricity_spin.value()),
            hours_per_day=float(self.hours_slider.value()),
            utilization=self._utilisation(gpus, job),
            horizon_months=int(self.horizon_slider.value()),
            resale_fraction=self.resale_spin.value() / 100,
            maintenance_fraction_per_year=self.maintenance_spin.value() / 100,
            hybrid_owned_gpus=min(int(self.hybrid_spin.value()), gpus),
            job_gpus=job[0] if job is not None and job[0] <= gpus else None,
        )

    def _utilisation(self, gpus: int, job: tuple[int, float] | None) -> float:
        """The plan's job x runs per month over the schedule (planner.costs.utilisation_from_runs), shown on
        the slider; without a job (or with runs at 0), the slider's value."""
        from planner.costs import utilisation_from_runs

        runs = float(self.runs_spin.value())
        if job is None or runs <= 0:
            return max(0.01, float(self.utilization_slider.value()))
        busy = utilisation_from_runs(gpus, job[1], runs, float(self.hours_slider.value()))
        self.utilization_slider.set_value(busy)
        return busy

    def recompute(self) -> None:
        from planner.costs import rent_vs_buy
        from planner.errors import UserError

        self._redraw_timer.stop()
        gpu_name = self.gpu_combo.currentText()
        try:
            if self.on_demand_spin.value() <= 0:
                self.result = None
                self.error = self.tr("no on-demand price for {0}: type one to compare").format(gpu_name)
            else:
                self.result, self.error = rent_vs_buy(self.inputs()), None
        except UserError as exc:
            self.result, self.error, self.spot = None, render_error(exc), None
        self._mark_rate_field()
        self._draw()
        self.recomputed.emit()

    def _mark_rate_field(self) -> None:
        """A rate the planner refused is framed in red (its text stays as typed; the headline says why)."""
        refused = self.result is None and bool(self.spot_rate_edit.text().strip()) and self.error is not None
        if refused:
            try:
                self.spot_line()
                refused = False  # the rate is fine: another input was refused
            except UserError:
                pass
        self.spot_rate_edit.setStyleSheet("QLineEdit { border: 1px solid #c0392b; }" if refused else "")

    def chart_series(self) -> tuple[dict[str, list[float]], dict[str, float | None]]:
        """The series drawn (with the spot mix when a share is set) and the break-even month per rent series."""
        result = self.result
        if result is None:
            return {}, {}
        series = {key: list(values) for key, values in result.series.items()}
        share = self.spot_share_slider.value()
        if "spot" in series and 0 < share < 1:
            series["rent_mix"] = [
                (1 - share) * od + share * sp
                for od, sp in zip(series["on_demand"], series["spot"], strict=False)
            ]
        if "buy" not in series:
            return series, {}
        return series, break_even_months_by_rent(result.inputs, share, within_horizon=True)

    def _draw(self) -> None:
        if not hasattr(self, "chart"):
            return
        if self.result is None:
            self.headline.setText(
                "<b>"
                + self.tr("Cannot compare: {0}").format(rent_buy_text.escape(self.error or self.tr("no inputs yet")))
                + "</b>"
            )
            self.chart.set_data({}, {}, self.currency)
            self.figures.setText("")
            return
        self.spot_share_slider.setEnabled("spot" in self.result.series)
        series, break_even = self.chart_series()
        self.chart.set_data(series, break_even, self.currency)
        self.headline.setText(rent_buy_text.recommendation(self))
        self.figures.setText(rent_buy_text.figures_html(self))

    def shutdown(self) -> None:
        """The window is closing: no more recomputing (the store closes after this)."""
        self._redraw_timer.stop()
        self._closed = True

    # -- page interface ------------------------------------------------------------------------------------------
    def load_example(self) -> None:
        """8 x H100 SXM at 60% of 24 h over 3 years, priced from the stored reference quotes."""
        self.follow_plan.setChecked(False)
        with QSignalBlocker(self.gpu_combo), QSignalBlocker(self.gpus_spin):
            _select(self.gpu_combo, "h100-sxm")
            self.gpus_spin.setValue(8)
        self.hybrid_spin.setValue(4)
        self.refill_prices()
        self.hours_slider.set_value(24)
        self.utilization_slider.set_value(0.6)
        self.horizon_slider.set_value(36)
        self.spot_share_slider.set_value(0.3)
        self.recompute()


def _select(combo: QComboBox, data: Any) -> None:
    index = combo.findData(data)
    if index >= 0:
        combo.setCurrentIndex(index)
