"""The Plan page's re-plan scheduler, without Qt: generations, latest request wins, inline or background."""

from __future__ import annotations

from desktop.plan_scheduler import SYNC_LIMIT_MS, ReplanScheduler, SeriesSlot


def test_the_first_plan_runs_in_the_background_then_quick_ones_inline():
    scheduler = ReplanScheduler()
    first = scheduler.request()
    assert first == 1 and not scheduler.runs_inline()  # timings unknown: never block the window
    scheduler.built(first, 5.0)
    scheduler.searched(first, 10.0)
    assert scheduler.runs_inline()  # 15 ms < SYNC_LIMIT_MS
    second = scheduler.request()
    scheduler.searched(second, SYNC_LIMIT_MS)  # a slow search sends the next plan to the job runner
    assert not scheduler.runs_inline()


def test_the_redraw_counts_in_the_inline_budget():
    """Planning inline stalls the GUI thread for the build, the search and the redraw together: a quick search
    whose answer takes long to draw goes to the background (SYNC_LIMIT_MS is the whole turn's budget)."""
    scheduler = ReplanScheduler()
    generation = scheduler.request()
    scheduler.built(generation, 5.0)
    scheduler.searched(generation, 10.0)
    scheduler.drawn(10.0)
    assert scheduler.runs_inline()  # 5 + 10 + 10 = 25 ms, and the layout and paint after it: within 50 ms
    scheduler.drawn(SYNC_LIMIT_MS - 10.0)  # 5 + 10 + 20 = 35 ms: with the layout and paint, over the budget
    assert not scheduler.runs_inline()


def test_the_latest_request_wins():
    scheduler = ReplanScheduler()
    older, newer = scheduler.request(), scheduler.request()
    assert not scheduler.is_current(older) and scheduler.is_current(newer)
    scheduler.built(older, 1.0)  # an old answer's timing is not the current one's
    assert scheduler.last_build_ms == float("inf")


def test_changed_sources_and_closing():
    scheduler = ReplanScheduler()
    generation = scheduler.request()
    scheduler.built(generation, 1.0)
    scheduler.searched(generation, 1.0)
    scheduler.sources_changed()  # price summaries are read again: back to the background
    assert not scheduler.runs_inline()
    scheduler.close()
    assert not scheduler.is_current(generation) and scheduler.request() is None


def test_series_slot_drops_curves_for_an_older_plan_or_another_gpu():
    slot = SeriesSlot()
    assert slot.wants(3, "h100-sxm") and not slot.wants(3, "h100-sxm")  # asked once, then on its way
    assert slot.ready(3, "h100-sxm") is None
    assert not slot.accept((2, "h100-sxm"), {"DDP": [(8, 1.0, 2.0)]})  # an older plan's curves
    assert slot.accept((3, "h100-sxm"), {"DDP": [(8, 1.0, 2.0)]})
    assert slot.ready(3, "h100-sxm") == {"DDP": [(8, 1.0, 2.0)]}
    assert slot.wants(3, "a100-sxm-80gb") and slot.ready(3, "h100-sxm") is None  # another GPU type
