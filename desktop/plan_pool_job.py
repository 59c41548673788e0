"""The Plan page's mixed-pool comparison, searched on a pool thread after the plan itself is drawn.

Comparing a pool (each type alone, the whole pool, a pipeline over the types, separate jobs) costs several
searches, 50-170 ms for the 70B example: with the plan, it kept the headline and the table waiting. Now the plan
is drawn first and the comparison follows in the background, once the inputs have rested COMPARE_DELAY_MS (a
slider drag does not queue comparisons); an older one still running is cancelled, and an answer for inputs that
changed meanwhile is dropped ("latest request wins", by the plan's generation). The Mixed pool tab keeps the last
comparison until the new one arrives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from desktop.plan_request import PoolAnswer, compare_page_pool
from desktop.plan_scheduler import SERIES_DELAY_MS

if TYPE_CHECKING:
    from desktop.workers import Job, JobRunner

COMPARE_DELAY_MS = SERIES_DELAY_MS  # like the scaling curves: start once the inputs rest


class PoolComparisonJob(QObject):
    """answered(generation, PoolAnswer | None): the comparison for the plan of that generation."""

    answered = Signal(int, object)

    def __init__(self, jobs: JobRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.jobs = jobs
        self._job: Job | None = None
        self._wanted: tuple[int, tuple[Any, ...]] | None = None  # (generation, compare_page_pool's arguments)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(COMPARE_DELAY_MS)
        self._timer.timeout.connect(self._start)

    @property
    def pending(self) -> bool:
        """A comparison is asked for or running."""
        return self._wanted is not None or (self._job is not None and self._job.running)

    def request(self, generation: int, arguments: tuple[Any, ...]) -> None:
        """Compare the pool of these inputs (compare_page_pool's arguments) once they rest."""
        self._wanted = (generation, arguments)
        self._timer.start()

    def _start(self) -> None:
        if self._wanted is None:
            return
        self.cancel_running()
        generation, arguments = self._wanted
        self._wanted = None

        def done(answer: PoolAnswer | None) -> None:
            self.answered.emit(generation, answer)

        def failed(_message: str) -> None:
            """Cancelled for newer inputs, or a failure compare_page_pool did not turn into its answer: the
            tab keeps what it shows."""

        self._job = self.jobs.run(compare_page_pool, *arguments, on_done=done, on_error=failed, name="mixed pool")

    def cancel_running(self) -> None:
        if self._job is not None and self._job.running:
            self._job.cancel()

    def stop(self) -> None:
        """No more comparisons (the page is closing, or the plan has no pool)."""
        self._timer.stop()
        self._wanted = None
        self.cancel_running()
