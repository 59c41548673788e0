"""Hardware page: the GPUs in this machine, live telemetry, the probe (quick/full) and the probe history.

Nothing here waits on hardware: NVML is read by a background job (AppContext.load_inventory), telemetry is
sampled by profiler.nvml.TelemetrySampler's own thread and only *read* by a 1 Hz QTimer, and the probe runs
as a child process (desktop.workers.ProbeProcess) whose crash, hang or garbage output is reported here.
Results arrive in batches and are added to the table and the chart together (one insertion, one redraw, one
column fit per batch, coalesced over RESULT_FLUSH_MS), so a burst of results never freezes the window.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import QSortFilterProxyModel, Qt, QTimer
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop import dialogs, fmt
from desktop.nvml_words import translated
from desktop.pages.base import Page
from desktop.pages.page_widgets import ChartHolder, banner, make_table, show_banner
from desktop.pages.probe_compare import CompareDialog, load_two_reports
from desktop.qmodels.gpu_inventory import GpuInventoryModel, cpu_info
from desktop.qmodels.probe_history import ProbeHistoryModel, history_row
from desktop.qmodels.probe_results import (
    ProbeResultsModel,
    ResultRow,
    short_label,
    spec_value,
)
from desktop.workers import ProbeProcess
from planner.errors import UserError

if TYPE_CHECKING:
    from desktop.charts.probe_chart import ProbeSpecChart
    from desktop.charts.telemetry import TelemetryChart
    from planner.store import Measurement, StoreProtocol
    from profiler.report import ProbeReport


TELEMETRY_INTERVAL_MS = 1000
RESULT_FLUSH_MS = 50  # results arriving within this are shown together


class EmptyState(QFrame):
    """What the page says when there is no NVIDIA GPU: why, and what the person can do instead (buttons)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setObjectName("noGpuState")
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.import_button = QPushButton(self)
        self.probe_button = QPushButton(self)
        buttons = QVBoxLayout()
        buttons.addWidget(self.import_button)
        buttons.addWidget(self.probe_button)
        buttons.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.addWidget(self.label, 1)
        layout.addLayout(buttons)
        self.hide()

    def text(self) -> str:
        return self.label.text()


class HardwarePage(Page):
    page_id = "hardware"

    def __init__(self, context: Any, parent: QWidget | None = None):
        super().__init__(context, parent)
        self.sampler: Any = None
        self.probe = ProbeProcess(self)
        self._device_names: dict[str, str] = {}
        self._device_mig: dict[str, dict[str, object]] = {}  # device -> its MIG share, for a MIG slice
        self._pending_results: list[dict[str, object]] = []
        self._probe_warnings: list[str] = []
        self._result_timer = QTimer(self)
        self._result_timer.setSingleShot(True)
        self._result_timer.setInterval(RESULT_FLUSH_MS)
        self._result_timer.timeout.connect(self._flush_results)
        self._example = False
        self._telemetry: TelemetryChart | None = None  # built once pyqtgraph is in (context.when_charts_loaded)
        self._partial_telemetry: TelemetryChart | None = None  # its plots added one per idle turn
        self._probe_chart: ProbeSpecChart | None = None
        self._charts_asked = False
        self._telemetry_gpus: dict[int, str] = {}  # what the telemetry chart shows once built
        self._build()
        self._connect()
        self.retranslate()
        self._telemetry_timer = QTimer(self)
        self._telemetry_timer.setInterval(TELEMETRY_INTERVAL_MS)
        self._telemetry_timer.timeout.connect(self.refresh_telemetry)
        context.when_store_open(self.refresh_history)  # at once, or once the window is up and the database opened
        if context.inventory_ready:
            self.set_inventory(context.inventory)

    # -- layout ------------------------------------------------------------------------------------------------
    def _build(self) -> None:
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.import_button = QPushButton(self)
        self.import_button.clicked.connect(self.import_report_dialog)
        header = QHBoxLayout()
        header.addWidget(self.summary, 1)
        header.addWidget(self.import_button)

        self.empty_state = EmptyState(self)
        self.empty_state.import_button.clicked.connect(self.import_report_dialog)
        self.empty_state.probe_button.clicked.connect(lambda: self.start_probe("quick"))
        self.message = banner(self)

        self.inventory_model = GpuInventoryModel(self)
        self.gpu_table = make_table(self.inventory_model, self)
        self.gpu_table.setObjectName("gpuTable")

        self.tabs = QTabWidget(self)
        self.telemetry_holder = ChartHolder()  # the telemetry chart goes in here (_build_telemetry_chart)
        self.telemetry_note = QLabel(self)
        self.telemetry_note.setWordWrap(True)
        # Without a GPU the tab explains itself instead of showing four empty plots.
        self.telemetry_placeholder = QLabel(self)
        self.telemetry_placeholder.setObjectName("telemetryPlaceholder")
        self.telemetry_placeholder.setWordWrap(True)
        self.telemetry_placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.telemetry_placeholder.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.telemetry_stack = QStackedWidget(self)
        self.telemetry_stack.addWidget(self.telemetry_holder)
        self.telemetry_stack.addWidget(self.telemetry_placeholder)
        telemetry_tab = QWidget()
        telemetry_layout = QVBoxLayout(telemetry_tab)
        telemetry_layout.addWidget(self.telemetry_note)
        telemetry_layout.addWidget(self.telemetry_stack, 1)
        self.tabs.addTab(telemetry_tab, "")
        self.tabs.addTab(self._build_probe_tab(), "")
        self.tabs.addTab(self._build_history_tab(), "")

        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.gpu_table)
        splitter.addWidget(self.tabs)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 5)
        splitter.setChildrenCollapsible(False)
        self.splitter = splitter

        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(self.empty_state)
        layout.addWidget(self.message)
        layout.addWidget(splitter, 1)

    def _build_probe_tab(self) -> QWidget:
        tab = QWidget()
        self.quick_button = QPushButton(tab)
        self.full_button = QPushButton(tab)
        self.cancel_button = QPushButton(tab)
        self.cancel_button.setEnabled(False)
        self.quick_button.clicked.connect(lambda: self.start_probe("quick"))
        self.full_button.clicked.connect(lambda: self.start_probe("full"))
        self.cancel_button.clicked.connect(self.cancel_probe)
        self.progress = QProgressBar(tab)
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.setTextVisible(False)
        self.stage_label = QLabel(tab)
        self.probe_message = banner(tab)
        controls = QHBoxLayout()
        controls.addWidget(self.quick_button)
        controls.addWidget(self.full_button)
        controls.addWidget(self.cancel_button)
        controls.addWidget(self.progress, 1)
        self.results_model = ProbeResultsModel(self)
        self.results_table = make_table(self.results_model, tab)
        self.results_table.setObjectName("probeResults")
        self.probe_chart_holder = ChartHolder()  # the probe chart goes in here (_build_probe_chart)
        split = QSplitter(Qt.Orientation.Horizontal, tab)
        self.probe_split = split
        split.addWidget(self.results_table)
        split.addWidget(self.probe_chart_holder)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setSizes([520, 560])
        self.results_table.horizontalHeader().setStretchLastSection(False)
        layout = QVBoxLayout(tab)
        layout.addLayout(controls)
        layout.addWidget(self.stage_label)
        layout.addWidget(self.probe_message)
        layout.addWidget(split, 1)
        return tab

    def _build_history_tab(self) -> QWidget:
        tab = QWidget()
        self.history_model = ProbeHistoryModel(self)
        self.history_table = make_table(self.history_model, tab)
        self.history_table.setObjectName("probeHistory")
        self.history_table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.history_table.selectionModel().selectionChanged.connect(self._update_compare_button)
        self.compare_button = QPushButton(tab)
        self.compare_button.setEnabled(False)
        self.compare_button.clicked.connect(self.compare_selected)
        self.history_hint = QLabel(tab)
        row = QHBoxLayout()
        row.addWidget(self.history_hint, 1)
        row.addWidget(self.compare_button)
        layout = QVBoxLayout(tab)
        layout.addLayout(row)
        layout.addWidget(self.history_table, 1)
        return tab

    def _connect(self) -> None:
        self.context.inventory_changed.connect(self.set_inventory)
        self.context.probe_runs_changed.connect(self.refresh_history)
        self.probe.started.connect(self._on_probe_started)
        self.probe.progress.connect(self._on_probe_progress)
        self.probe.results.connect(self._on_probe_results)
        self.probe.warning.connect(self._on_probe_warning)
        self.probe.finished.connect(self._on_probe_finished)
        self.probe.failed.connect(self._on_probe_failed)

    # -- page interface ----------------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.import_button.setText(self.tr("Import probe report…"))
        self.import_button.setToolTip(self.tr("Add a report made by gpu-probe on another machine"))
        self.tabs.setTabText(0, self.tr("Live telemetry"))
        self.tabs.setTabText(1, self.tr("Probe"))
        self.tabs.setTabText(2, self.tr("Probe history"))
        self.quick_button.setText(self.tr("Run quick probe"))
        self.quick_button.setToolTip(
            self.tr("About a minute: memory bandwidth, host links and bf16/fp32 matmul")
        )
        self.full_button.setText(self.tr("Run full probe"))
        self.full_button.setToolTip(
            self.tr("Several minutes: every dtype, several matrix shapes, peer links")
        )
        self.cancel_button.setText(self.tr("Cancel"))
        self.compare_button.setText(self.tr("Compare selected"))
        self.history_hint.setText(
            self.tr("Runs of this machine and imported reports. Select two to compare.")
        )
        self.empty_state.import_button.setText(self.tr("Import probe report…"))
        self.empty_state.probe_button.setText(self.tr("Measure the CPU"))
        self.empty_state.probe_button.setToolTip(self.tr("Run the quick probe on this machine's CPU"))
        self.telemetry_placeholder.setText(
            self.tr(
                "<p style='font-size:large'><b>No GPU to watch</b></p><p>Utilisation, memory, temperature and "
                "power are read from NVIDIA GPUs through the driver (NVML), once a second. This machine has "
                "none that NVML can see.</p>"
            )
        )
        for chart in (self._telemetry or self._partial_telemetry, self._probe_chart):  # half-built too
            chart.retranslate() if chart is not None else None
        self._redraw_probe_chart()
        if self.context.inventory is not None:
            self._set_telemetry_note(bool(getattr(self, "_telemetry_live", False)))
        self._update_probe_availability()
        self._update_summary()
        if not self.probe.running:
            self.stage_label.setText(
                self.tr("The probe runs in a separate process; the window stays responsive.")
            )

    def load_example(self) -> None:
        """Screenshots: a finished example probe, two example history runs and five minutes of telemetry."""
        from desktop.examples import add_example_probe_runs, example_report

        self._example = True
        add_example_probe_runs(self.context)
        report = example_report()
        self.results_model.clear()
        self.probe_chart.clear()
        self._device_names = {d["device"]: d["name"] for d in report["devices"]}
        self._add_results(
            [{"device": d["device"], "measurement": m} for d in report["devices"] for m in d["measurements"]]
        )
        self.progress.setValue(1000)
        self.stage_label.setText(self.tr("Example run (not a measurement of this machine)"))
        gpus = getattr(self.context.inventory, "gpus", None) or []
        if gpus:
            self._set_telemetry_gpus({gpu.cuda_index: f"GPU {gpu.cuda_index}" for gpu in gpus})
            self._show_example_telemetry(set(self.telemetry.lost))
        self.tabs.setCurrentIndex(0 if gpus else 1)

    def _show_example_telemetry(self, lost: set[int]) -> None:
        """Five minutes of example curves scaled to each GPU; a lost GPU's end a minute before now."""
        from desktop.examples import example_telemetry

        gpus = getattr(self.context.inventory, "gpus", None) or []
        snapshot = example_telemetry(
            len(gpus),
            memory_bytes=[_number(gpu.memory_total_bytes) for gpu in gpus],
            power_limit_w=[_number(gpu.power_limit_w) for gpu in gpus],
        )
        for gpu in lost & set(snapshot):
            columns = snapshot[gpu]
            keep = columns["t_s"] <= columns["t_s"][-1] - 60
            snapshot[gpu] = {name: values[keep] for name, values in columns.items()}
        self.telemetry.update_from_snapshot(snapshot)

    # -- inventory and telemetry -------------------------------------------------------------------------------
    def set_inventory(self, inventory: Any) -> None:
        self.inventory_model.set_inventory(inventory)
        self.gpu_table.resizeColumnsToContents()
        self._fit_gpu_table()
        self._update_summary()
        self._start_sampler(inventory)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if self.inventory_model.rowCount():  # the columns fit the new width (see _fit_gpu_table)
            self.gpu_table.resizeColumnsToContents()
            self._fit_gpu_table()

    def _fit_gpu_table(self) -> None:
        """Room for up to 8 rows, fewer (at least 2) where the tabs below would get less than they need; the tabs
        take the rest. When the columns are a few pixels wider than the view, the widest one (the GPU's name,
        whole in its tooltip) gives them up, so every column is in view without scrolling sideways."""
        room, row = sum(self.splitter.sizes()) - self.tabs.minimumSizeHint().height(), self.gpu_table.rowHeight(0)
        fit = max(2, (room - 2 * row) // row) if row > 0 and sum(self.splitter.sizes()) > 0 else 8
        rows = min(max(self.inventory_model.rowCount(), 1), 8, fit)
        table = self.gpu_table
        header = table.horizontalHeader()
        overflow = header.length() - table.viewport().width()
        widest = max(range(header.count()), key=header.sectionSize, default=-1)
        if 0 < overflow <= header.sectionSize(widest) // 5:
            header.resizeSection(widest, header.sectionSize(widest) - overflow)
        height = (
            table.horizontalHeader().sizeHint().height()
            + rows * table.verticalHeader().defaultSectionSize()
            + 2 * table.frameWidth()
            + 2
        )
        if table.horizontalHeader().length() > table.viewport().width():  # a horizontal scroll bar will show
            height += table.horizontalScrollBar().sizeHint().height()
        total = max(sum(self.splitter.sizes()), height + 300)
        self.splitter.setSizes([height, total - height])

    def _update_summary(self) -> None:
        context = self.context
        inventory = context.inventory
        if inventory is None:
            text = context.inventory_error or self.tr("Reading the GPUs through NVML…")
            self.summary.setText(text)
            self.empty_state.hide()
            self.import_button.show()
            return
        gpus = list(getattr(inventory, "gpus", None) or [])
        if gpus:
            driver = inventory.driver_version if isinstance(inventory.driver_version, str) else self.tr("n/a")
            cuda = (
                inventory.cuda_driver_version
                if isinstance(inventory.cuda_driver_version, str)
                else self.tr("n/a")
            )
            lost = sum(1 for row in range(len(gpus)) if self.inventory_model.is_lost(row))
            count = str(len(gpus)) if not lost else self.tr("{0} ({1} lost)").format(len(gpus), lost)
            self.summary.setText(
                self.tr("NVIDIA GPUs: {0} · driver {1} · CUDA {2}").format(count, driver, cuda)
            )
            self.empty_state.hide()
            self.import_button.show()
            return
        cpu = cpu_info()
        self.summary.setText(self.tr("CPU only: {0}").format(cpu["name"]))
        reason = str(getattr(inventory, "reason", "") or context.inventory_error or "")
        import html  # here: its entity table is 10-15 ms of start-up

        reason = html.escape(translated(reason.removeprefix("no NVIDIA GPU: ").rstrip(".")))
        from desktop.probe_command import probe_availability

        can_probe = probe_availability().available
        if can_probe:
            text = self.tr(
                "<b>No NVIDIA GPU</b>: {0}.<br>The probe can still measure this machine's CPU (Measure the "
                "CPU), and you can import a report made by gpu-probe on another machine (Import probe "
                "report…) to plan with its numbers."
            ).format(reason)
        else:
            text = self.tr(
                "<b>No NVIDIA GPU</b>: {0}.<br>The probe cannot run in this installation (the Probe tab says "
                "why), so import a report made by gpu-probe on another machine (Import probe report…) to plan "
                "with its numbers."
            ).format(reason)
        self.empty_state.label.setText(text)
        self.import_button.hide()  # the empty state offers it, next to the reason
        self.empty_state.probe_button.setVisible(can_probe)
        self.empty_state.probe_button.setEnabled(not self.probe.running)
        self.empty_state.show()

    def _set_telemetry_note(self, live: bool) -> None:
        self._telemetry_live = live
        self.telemetry_note.setVisible(live)  # without a GPU the placeholder below says it all
        if live:
            self.telemetry_note.setText(self.tr("Sampled once a second; the last five minutes are shown."))
        else:
            self.telemetry_note.setText(
                self.tr("Live telemetry needs an NVIDIA GPU; there is none to sample here.")
            )

    def _redraw_probe_chart(self) -> None:
        """The chart's figures formatted again (after a language switch they follow the new locale)."""
        if self._probe_chart is None:
            return  # drawn from the table's rows when it is built
        items = []
        for row in self.results_model.rows:
            fraction = row.fraction_of_spec
            if fraction is not None and math.isfinite(fraction):
                label = short_label(row.device, row.measurement)
                measured = fmt.measurement(row.value, str(row.measurement.get("unit", "")))
                items.append((label, fraction * 100, measured))
        self._probe_chart.set_items(items)

    # -- charts: built after the window shows --------------------------------------------------------------------
    @property
    def telemetry(self) -> TelemetryChart:
        """The live telemetry chart (built now if it was not yet: tests, screenshots)."""
        self._build_telemetry_chart()
        return cast("TelemetryChart", self._telemetry)

    @property
    def probe_chart(self) -> ProbeSpecChart:
        """The probe's chart against the datasheet (built now if it was not yet)."""
        self._build_probe_chart()
        return cast("ProbeSpecChart", self._probe_chart)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        if not self._charts_asked:  # the first show: the charts once pyqtgraph is in, one per turn
            self._charts_asked = True
            self.context.when_charts_loaded(lambda: self._build_telemetry_chart(step=True))
            self.context.when_charts_loaded(self._build_probe_chart)
        if self._telemetry_timer.isActive():  # the curves of the seconds this page was hidden
            self.refresh_telemetry()

    def _build_telemetry_chart(self, step: bool = False) -> None:
        """The chart now, or with `step` one plot per idle turn (desktop.shelf.later), shown with all four."""
        if self._telemetry is not None:
            return
        from desktop.charts.telemetry import TelemetryChart
        from desktop.shelf import later

        chart = self._partial_telemetry = self._partial_telemetry or TelemetryChart(self.telemetry_holder, False)
        if step and not chart.add_plot():
            return later(self, lambda: self._build_telemetry_chart(step=True))
        while not chart.add_plot():
            pass
        self._telemetry = chart
        self.telemetry_holder.put(self._telemetry)
        self._telemetry.set_gpus(self._telemetry_gpus)
        if self.sampler is not None and not self._example:
            self.refresh_telemetry()

    def _build_probe_chart(self) -> None:
        if self._probe_chart is not None:
            return
        from desktop.charts.probe_chart import ProbeSpecChart

        self._probe_chart = ProbeSpecChart(self.probe_chart_holder)
        self.probe_chart_holder.put(self._probe_chart)
        self._redraw_probe_chart()

    def _set_telemetry_gpus(self, names: dict[int, str]) -> None:
        self._telemetry_gpus = names
        self._telemetry.set_gpus(names) if self._telemetry is not None else None

    def _start_sampler(self, inventory: Any) -> None:
        self.stop_sampler()
        gpus = list(getattr(inventory, "gpus", None) or [])
        live = [gpu for gpu in gpus if not getattr(gpu, "lost", False)]
        self.telemetry_stack.setCurrentWidget(self.telemetry_holder if live else self.telemetry_placeholder)
        self._set_telemetry_note(bool(live))
        if not live:
            self._set_telemetry_gpus({})
            if self.tabs.currentIndex() == 0:
                self.tabs.setCurrentIndex(1)  # the probe still measures the CPU
            return
        self._set_telemetry_gpus({gpu.cuda_index: f"GPU {gpu.cuda_index}" for gpu in gpus})
        from profiler.telemetry import TelemetrySampler

        sampler = TelemetrySampler(interval_s=TELEMETRY_INTERVAL_MS / 1000, capacity=600, include_pcie=False)
        self.sampler = sampler
        # start() initialises NVML (slow on some machines): do it on a pool thread, then read on the GUI thread
        self.context.jobs.run(
            sampler.start, on_done=lambda _s: self._telemetry_timer.start(), name="start telemetry"
        )

    def refresh_telemetry(self) -> None:
        """Timer slot: copy the ring buffers (cheap, thread-safe) and redraw; mark GPUs that were lost."""
        if self.sampler is None or self._telemetry is None:
            return  # the chart, once built, asks again
        # the screenshots' example curves stay; lost GPUs are still marked. Not drawn while another page is shown
        # (32 curves redrawn each second on the GUI thread for no one): showEvent draws the window at once
        if not self._example and self.isVisible():
            self.telemetry.update_from_snapshot(self.sampler.snapshot())
        status = self.sampler.status()
        lost = {gpu: str(info["lost_reason"]) for gpu, info in status.items() if info["lost"]}
        refused = {gpu: dict(info.get("refused") or {}) for gpu, info in status.items()}
        self.telemetry.set_status(lost, refused)
        newly_lost = [gpu for gpu, reason in lost.items() if self.inventory_model.mark_lost(gpu, reason)]
        if newly_lost:
            self.gpu_table.resizeColumnToContents(0)
            self._update_summary()
            if self._example:  # the example curves of a lost GPU end where it was lost, as live ones do
                self._show_example_telemetry(set(lost))
        if lost:
            self.telemetry_note.setText(
                self.tr("Lost during sampling (the others continue): {0}").format(
                    "; ".join(f"GPU {gpu}: {reason}" for gpu, reason in sorted(lost.items()))
                )
            )

    def stop_sampler(self) -> None:
        self._telemetry_timer.stop() if hasattr(self, "_telemetry_timer") else None
        if self.sampler is not None:
            self.sampler.stop()
            self.sampler = None

    def shutdown(self) -> None:
        self.stop_sampler()
        self.probe.wait_killed()

    # -- probe -------------------------------------------------------------------------------------------------
    def _update_probe_availability(self) -> None:
        from desktop.probe_command import probe_availability

        availability = probe_availability()
        for button in (self.quick_button, self.full_button, self.empty_state.probe_button):
            button.setEnabled(availability.available and not self.probe.running)
        if not availability.available:
            show_banner(self.probe_message, availability.translated_reason())

    def start_probe(self, mode: str) -> None:
        self.results_model.clear()
        if self._probe_chart is not None:
            self._probe_chart.clear()
        show_banner(self.probe_message, "")
        self._device_names = {}
        self._device_mig = {}
        self._pending_results = []
        self._probe_warnings = []
        self._example = False
        self.progress.setValue(0)
        self.stage_label.setText(self.tr("Starting the probe…"))
        self.tabs.setCurrentIndex(1)
        self.probe.start(mode)
        self.quick_button.setEnabled(False)
        self.full_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.context.show_status(self.tr("Probe started ({0})").format(mode))

    def cancel_probe(self) -> None:
        self.stage_label.setText(self.tr("Cancelling…"))
        self.probe.cancel()

    def _device_name(self, device: str) -> str:
        if device in self._device_names:
            return self._device_names[device]
        if device.startswith("cuda:"):
            for gpu in getattr(self.context.inventory, "gpus", None) or []:
                if f"cuda:{gpu.cuda_index}" == device and isinstance(gpu.name, str):
                    return str(gpu.name)
        if device == "cpu":
            return str(cpu_info()["name"])
        return ""

    def _spec_for(self, device_name: str) -> Any:
        return self.context.match_gpu(device_name) if device_name else None

    def _on_probe_started(self, devices: list[Any]) -> None:
        """The child's device list (profiler.protocol.DeviceInfo, validated): names and MIG shares."""
        for info in devices:
            if info.name:
                self._device_names[info.device] = info.name
            if info.mig:
                self._device_mig[info.device] = dict(info.mig)
        self.stage_label.setText(self.tr("Probing devices: {0}…").format(len(devices) or 1))

    def _on_probe_progress(self, stage: str, fraction: float) -> None:
        self.progress.setValue(int(round(fraction * 1000)))
        self.stage_label.setText(self.tr("{0} — {1}").format(stage, fmt.percent(fraction)))

    def _on_probe_results(self, events: list[dict[str, object]]) -> None:
        """A batch of validated results from the child: shown together after RESULT_FLUSH_MS."""
        self._pending_results.extend(events)
        if not self._result_timer.isActive():
            self._result_timer.start()

    def _flush_results(self) -> None:
        self._result_timer.stop()
        events, self._pending_results = self._pending_results, []
        self._add_results(events)

    def _add_results(self, events: list[dict[str, object]]) -> None:
        """Rows for the table and bars for the chart: one insertion, one redraw, one column fit for all."""
        if not events:
            return
        rows, bars = [], []
        specs: dict[str, Any] = {}
        for event in events:
            device = str(event.get("device") or "")
            measurement = event["measurement"]
            assert isinstance(measurement, dict)  # profiler.protocol validated it
            name = self._device_name(device)
            if device not in specs:
                specs[device] = self._spec_for(name) if device != "cpu" else None
            row = ResultRow(device, name, measurement, spec_value(specs[device], measurement,
                                                                  self._device_mig.get(device)))
            rows.append(row)
            fraction = row.fraction_of_spec
            if fraction is not None and math.isfinite(fraction):
                unit = str(measurement.get("unit", ""))
                bars.append(
                    (short_label(device, measurement), fraction * 100, fmt.measurement(row.value, unit))
                )
        self.results_model.add_rows(rows)
        if self._probe_chart is not None:  # else it draws the table's rows when it is built
            self._probe_chart.add_many(bars)
        self.fit_results_table()

    def fit_results_table(self) -> None:
        """Every column as wide as its contents, and the table as wide as its columns (up to 60% of the tab),
        so no column is cut off while results arrive."""
        table = self.results_table
        table.resizeColumnsToContents()
        header = table.horizontalHeader()
        needed = header.length() + table.verticalScrollBar().sizeHint().width() + 2 * table.frameWidth() + 4
        total = sum(self.probe_split.sizes()) or self.probe_split.width()
        if total > 0:
            width = min(needed, int(total * 0.6))
            self.probe_split.setSizes([width, max(0, total - width)])

    def _on_probe_warning(self, message: str) -> None:
        """Something the run went on despite (an ignored line, a report kept after a failed exit)."""
        if message not in self._probe_warnings:
            self._probe_warnings.append(message)
        show_banner(self.probe_message, "\n".join(self._probe_warnings))

    def _on_probe_finished(self, report: dict[str, Any]) -> None:
        self._flush_results()
        for device, why in _busy_devices(report):
            self._on_probe_warning(
                self.tr(
                    "{0} was busy when it was measured ({1}); its figures are lower than the hardware can do."
                ).format(device, why)
            )
        self.progress.setValue(1000)
        self.stage_label.setText(self.tr("Saving the results…"))
        self.context.jobs.run(
            _save_report, self.context.store, report, "local",
            on_done=self._on_report_saved, on_error=self._on_save_failed, name="save probe report",
        )  # fmt: skip

    def _on_report_saved(self, _run_id: Any) -> None:
        self._probe_ended()
        self.stage_label.setText(
            self.tr("Done: %n measurement(s) saved to the probe history.", "", self.results_model.rowCount())
        )
        self.context.probe_runs_changed.emit()
        self.context.show_status(self.tr("Probe finished and saved"))

    def _on_save_failed(self, message: str) -> None:
        self._probe_ended()
        self.stage_label.setText(self.tr("The probe finished but its report was not saved."))
        show_banner(self.probe_message, message, error=True)

    def _on_probe_failed(self, message: str) -> None:
        self._flush_results()
        self._probe_ended()
        cancelled = message == self.tr("Cancelled") or message == "Cancelled"
        self.stage_label.setText(self.tr("Cancelled.") if cancelled else self.tr("The probe did not finish."))
        if not cancelled:
            show_banner(self.probe_message, message, error=True)
        self.context.show_status(message)

    def _probe_ended(self) -> None:
        self.cancel_button.setEnabled(False)
        self._update_probe_availability()

    # -- history -----------------------------------------------------------------------------------------------
    def refresh_history(self) -> None:
        try:
            runs = self.context.store.probe_runs.all()
        except Exception as exc:  # show the reason instead of an empty table
            from desktop.workers import describe_error

            show_banner(self.message, describe_error(exc), error=True)
            runs = []
        self.history_model.set_rows(
            [history_row(run, self.context.match_gpu, self._measurements(run.id)) for run in runs]
        )
        self.history_table.resizeColumnsToContents()
        self._update_compare_button()

    def _measurements(self, run_id: int) -> list[Measurement] | None:
        """A run's measurements (which device measured what), or None when the store cannot say."""
        try:
            return self.context.store.probe_runs.measurements(run_id)
        except UserError:
            return None

    def selected_run_ids(self) -> list[int]:
        """The selected runs, oldest first (so "second / first" in the comparison reads as later vs earlier)."""
        proxy = self.history_table.model()
        assert isinstance(proxy, QSortFilterProxyModel)  # make_table puts one between view and model
        rows = {
            proxy.mapToSource(index).row() for index in self.history_table.selectionModel().selectedRows()
        }
        rows_by_date = sorted(rows, key=lambda row: (self.history_model.rows[row].created_at, row))
        return [self.history_model.run_id(row) for row in rows_by_date]

    def _update_compare_button(self) -> None:
        self.compare_button.setEnabled(len(self.selected_run_ids()) == 2)

    def compare_selected(self) -> None:
        ids = self.selected_run_ids()
        if len(ids) != 2:
            return
        self.context.jobs.run(
            load_two_reports, self.context.store, ids[0], ids[1],
            on_done=self._show_comparison, on_error=lambda m: show_banner(self.message, m, error=True),
            name="load reports to compare",
        )  # fmt: skip

    def _show_comparison(self, reports: tuple[ProbeReport, ProbeReport]) -> None:
        dialog = CompareDialog(reports[0], reports[1], self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.compare_dialog = dialog
        dialog.open()

    # -- import ------------------------------------------------------------------------------------------------
    def import_report_dialog(self) -> None:
        path = dialogs.open_file(
            self,
            "probe-report",
            self.tr("Import probe report"),
            self.tr("Probe reports (*.json);;All files (*)"),
        )
        if path:
            self.import_report(path)

    def import_report(self, path: str) -> None:
        show_banner(self.message, "")
        self.context.show_status(self.tr("Importing {0}…").format(path))
        self.context.jobs.run(
            _import_report, self.context.store, path,
            on_done=self._on_imported, on_error=self._on_import_failed, name="import probe report",
        )  # fmt: skip

    def _on_imported(self, _run_id: Any) -> None:
        self.context.probe_runs_changed.emit()
        self.tabs.setCurrentIndex(2)
        self.context.show_status(self.tr("Probe report imported"))

    def _on_import_failed(self, message: str) -> None:
        show_banner(self.message, self.tr("The report was not imported: {0}").format(message), error=True)
        self.context.show_status(self.tr("Import failed"))


def _busy_devices(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(device, why) for each device of a (validated) report that was busy when it was measured."""
    found = []
    for device in report.get("devices") or []:
        activity = device.get("activity") if isinstance(device, dict) else None
        if isinstance(activity, dict) and activity.get("busy") is True:
            found.append((str(device.get("device")), str(activity.get("reason") or "")))
    return found


def _number(value: Any) -> float | None:
    """An inventory figure, or None where NVML refused it (profiler.nvml.Unavailable)."""
    return float(value) if isinstance(value, (int, float)) else None


# Background functions (pool thread; no widgets).
def _save_report(store: StoreProtocol, report: dict[str, Any], source: str) -> int:
    from profiler.report import ProbeReport

    return store.probe_runs.save(ProbeReport.from_dict(report), source=source)


def _import_report(store: StoreProtocol, path: str) -> int:
    from profiler.report import load_report

    return store.probe_runs.save(load_report(path), source="imported")
