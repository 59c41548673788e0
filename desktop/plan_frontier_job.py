"""The Plan page's throughput-against-latency chart (serving): the frontier of the selected option's GPU type,
timed on a pool thread after the plan is drawn (planner.search.serving_frontier: every tp at 1, 2, 4, ... users;
tens of engine-model loads), so the GUI thread only draws it. An answer for a plan or a GPU type no longer shown is
dropped (latest request wins, by the plan's generation and the GPU id)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject

if TYPE_CHECKING:
    from desktop.charts.frontier_chart import FrontierChart
    from desktop.plan_request import PlanCall
    from desktop.workers import Job, JobRunner
    from planner.search import PlanOption
    from planner.search.serving_frontier import FrontierPoint


def frontier_points(call: PlanCall, gpu_id: str) -> tuple[FrontierPoint, ...]:
    """planner.search.serving_frontier for the call's GPU type `gpu_id` (pure; runs on a pool thread)."""
    from planner.search.serving_frontier import serving_frontier

    gpu = next((g for g in call.gpus if g.id == gpu_id), None)
    if gpu is None:
        return ()
    return serving_frontier(call.model, call.workload, gpu, call.constraints, call.calibration.get(gpu_id))


class FrontierJob(QObject):
    """Keeps the chart in step with the plan: show(generation, call, option) after each draw."""

    def __init__(self, jobs: JobRunner, chart: FrontierChart, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.jobs, self.chart = jobs, chart
        self._job: Job | None = None
        self._key: tuple[int, str] | None = None  # (generation, GPU id) asked for
        self._points: tuple[int, str, tuple[FrontierPoint, ...]] | None = None  # the last answer and its key

    @property
    def pending(self) -> bool:
        return self._job is not None and self._job.running

    def show(self, generation: int, call: PlanCall | None, option: PlanOption | None) -> None:
        workload = call.workload if call is not None else None
        if call is None or workload is None or workload.is_training or option is None or not option.fits:
            self.stop()
            self.chart.show_message(QCoreApplication.translate(
                "FrontierChart", "Serving plans only: throughput against latency of the selected GPU type"
            ))  # fmt: skip
            return
        key = (generation, option.gpu.id)
        if self._points is not None and self._points[:2] == key:
            self._draw(option, workload.tpot_target_s, self._points[2])
            return
        if key == self._key and self.pending:
            return
        self.stop()
        self._key = key
        self.chart.show_message(QCoreApplication.translate("FrontierChart", "Timing the layouts…"))

        def done(points: tuple[FrontierPoint, ...]) -> None:
            if self._key != key:
                return  # another plan or GPU type was asked for meanwhile
            self._points = (*key, points)
            self._draw(option, workload.tpot_target_s, points)

        def failed(_message: str) -> None:
            """Cancelled for a newer plan, or a failure: the table has the numbers."""

        self._job = self.jobs.run(frontier_points, call, option.gpu.id, on_done=done, on_error=failed,
                                  name="serving frontier")  # fmt: skip

    def _draw(self, option: PlanOption, target_tpot_s: float | None, points: tuple[FrontierPoint, ...]) -> None:
        if not points:
            self.chart.show_message(
                QCoreApplication.translate("FrontierChart", "No layout of this GPU type fits one replica")
            )
            return
        per_gpu = option.tokens_per_s / max(1, option.gpus)
        selected = (option.per_user_tokens_per_s, per_gpu) if option.per_user_tokens_per_s else None
        self.chart.set_points(points, target_tpot_s, selected, option.gpu.name)

    def stop(self) -> None:
        self._key = None
        if self._job is not None and self._job.running:
            self._job.cancel()
