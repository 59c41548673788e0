"""When the Plan page plans, and which answer it keeps: the re-plan scheduler, without Qt.

Every input change asks for a plan; the page's throttle timer coalesces a slider drag into one request per
THROTTLE_MS and then calls ReplanScheduler.request(). Each request gets a generation number; an answer is
accepted only if its generation is still the newest ("latest request wins": a slow background plan that comes
back after a newer one started is dropped). A request runs inline (on the GUI thread) while the last build,
search and redraw together took under SYNC_LIMIT_MS (the GUI thread's stall budget less the layout and paint
that follow in the same turn: the whole turn must stay within 50 ms), otherwise on the job runner; the first plan, the first after the quotes, probe
runs or settings change (price summaries read again) and the first with a new mixed pool (its comparison not
timed yet) always run in the background. While a background plan is on its way the view asks for no second one
(`deferred`): it draws the one on its way and then plans the inputs of that moment, so a slider drag whose
plans go to the background still redraws live instead of every answer being overtaken by a newer request.

The per-strategy scaling curves (one search per ZeRO stage) are a second, slower job: SeriesSlot remembers for
which (generation, GPU type) the curves drawn or on their way were asked, so a re-plan or another GPU type
makes older curves stale. The view owns the timers and the job runner; this module only decides.
"""

from __future__ import annotations

from dataclasses import dataclass, field

THROTTLE_MS = 30  # slider drags re-plan at most this often
# build + search + redraw faster than this runs on the GUI thread; slower ones go to the job runner. The
# GUI-thread stall budget of issue 29 is 50 ms a turn of the event loop; the same turn also lays out and paints
# what the redraw changed (15-20 ms measured on the Plan page, offscreen), so a plan runs inline only while the
# rest fits in the remaining 30 ms.
STALL_BUDGET_MS = 50.0
LAYOUT_AND_PAINT_MS = 20.0
SYNC_LIMIT_MS = STALL_BUDGET_MS - LAYOUT_AND_PAINT_MS
SERIES_DELAY_MS = 250  # the per-strategy scaling searches start once the inputs rest this long

Series = dict[str, list[tuple[int, float, float | None]]]


@dataclass(slots=True)
class ReplanScheduler:
    """Generations, the inline-or-background choice, and the timings it rests on."""

    sync_limit_ms: float = SYNC_LIMIT_MS
    generation: int = 0
    closed: bool = False
    # Unknown until the first search: that one runs in the background so the window opens at once.
    last_search_ms: float = float("inf")
    last_build_ms: float = float("inf")  # resolving the inputs (model, price summaries)
    last_draw_ms: float = 0.0  # drawing the last answer (headline, table, charts) on the GUI thread

    def request(self) -> int | None:
        """A new plan is asked for: its generation, or None once the page is closed."""
        if self.closed:
            return None
        self.generation += 1
        return self.generation

    def runs_inline(self) -> bool:
        """Plan on the GUI thread: the last build, search and redraw were quick enough together."""
        return self.last_search_ms + self.last_build_ms + self.last_draw_ms < self.sync_limit_ms

    def is_current(self, generation: int) -> bool:
        return not self.closed and generation == self.generation

    def built(self, generation: int, build_ms: float) -> None:
        if generation == self.generation:
            self.last_build_ms = build_ms

    def searched(self, generation: int, search_ms: float) -> None:
        if generation == self.generation:
            self.last_search_ms = search_ms

    def drawn(self, draw_ms: float) -> None:
        """An answer was drawn in `draw_ms` (GUI thread): the next inline plan would add it to its stall."""
        self.last_draw_ms = draw_ms

    def sources_changed(self) -> None:
        """Quotes, runs or settings changed: the price summaries are read again, so plan in the background."""
        self.cost_unknown()

    def cost_unknown(self) -> None:
        """The next plan does work the timings do not cover (a mixed pool added or changed: its comparison is
        timed with the build): plan it in the background."""
        self.last_build_ms = float("inf")

    def close(self) -> None:
        """The window is closing: no more plans, and answers still on their way are dropped."""
        self.closed = True
        self.generation += 1


@dataclass(slots=True)
class SeriesSlot:
    """The scaling curves of one (generation, GPU type): asked, arrived, or stale."""

    key: tuple[int, str] | None = None
    curves: Series = field(default_factory=dict)

    def wants(self, generation: int, gpu_id: str) -> bool:
        """True when the curves for this plan and GPU type are neither drawn nor on their way: ask for them."""
        if self.key == (generation, gpu_id):
            return False
        self.key, self.curves = (generation, gpu_id), {}
        return True

    def ready(self, generation: int, gpu_id: str) -> Series | None:
        """The curves for this plan and GPU type when they have arrived."""
        return self.curves if self.key == (generation, gpu_id) and self.curves else None

    def accept(self, key: tuple[int, str], curves: Series) -> bool:
        """Curves arrived for `key`; False (dropped) when a newer plan or another GPU type was asked since."""
        if key != self.key:
            return False
        self.curves = dict(curves)
        return True

    def reset(self) -> None:
        self.key, self.curves = None, {}
