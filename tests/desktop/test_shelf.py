"""Widgets made ahead (desktop/shelf.py): a window left idle builds what the Plan and Rent-or-buy pages take, and
those pages then show and draw them as their own; the hidden Hardware page stops redrawing its telemetry."""

from __future__ import annotations

import desktop.shelf as shelf


def test_an_idle_window_builds_the_plan_and_rent_buy_widgets_ahead_and_the_pages_show_them(open_window, qtbot):
    window = open_window("h100x8")  # the Hardware page first: pyqtgraph is loaded by its telemetry chart
    from desktop.charts.rentbuy_chart import RentBuyChart
    from desktop.pages.plan_inputs import WorkloadPanel
    from desktop.pages.plan_results import ResultsPanel
    from desktop.pages.plan_scale_inputs import PoolPanel

    # the idle work after the window shows makes them, one per idle turn. The queue can be empty between two
    # stages of that work (where pyqtgraph and the planner were imported by an earlier window, the steps are
    # queued only once the first turns ran), so the wait is for the widgets themselves
    wanted = {ResultsPanel, RentBuyChart, WorkloadPanel, PoolPanel}
    qtbot.waitUntil(lambda: window.context.charts_loaded and wanted <= set(shelf._ready) and not shelf.stocking(),
                    timeout=30_000)  # fmt: skip
    panel, chart = shelf._ready[ResultsPanel], shelf._ready[RentBuyChart]
    workload, pool = shelf._ready[WorkloadPanel], shelf._ready[PoolPanel]
    assert not panel.isVisible() and not chart.isVisible()  # held hidden in the window until taken
    assert workload.state is pool.state  # the input panels share the state the page will take

    window.show_page("plan")
    page = window.page("plan")
    assert page.results is panel and ResultsPanel not in shelf._ready  # taken, not built again
    assert page.workload is workload and page.pool_panel is pool and page.state is workload.state
    assert workload.isVisible() and not shelf._states  # shown in the page's input column; the state is the page's
    page.load_example()
    qtbot.waitUntil(lambda: page.state.result is not None and page.state.best is not None, timeout=60_000)
    qtbot.waitUntil(lambda: page.results.scaling_chart.isVisible(), timeout=5_000)
    assert page.results.memory_chart.isVisible() and page.results.memory_chart.width() > 200
    drawn = page.results.memory_chart.chart_data()  # the example's selected option is drawn on the taken chart
    option = page.state.selected_option
    assert drawn["total_gib"] > 1 and drawn["capacity_gib"] == option.gpu.memory_bytes / 2**30

    window.show_page("rent_buy")
    rent_buy = window.page("rent_buy")
    assert rent_buy.chart is chart
    qtbot.waitUntil(lambda: chart.isVisible() and chart.height() > 100, timeout=5_000)
    page.state.dirty = False


def test_the_hidden_hardware_page_does_not_redraw_telemetry_and_catches_up_when_shown(open_window, qtbot):
    window = open_window("h100x8")
    hardware = window.page("hardware")
    qtbot.waitUntil(lambda: hardware._telemetry_timer.isActive(), timeout=10_000)
    drawn = []
    original = hardware.telemetry.update_from_snapshot
    hardware.telemetry.update_from_snapshot = lambda snapshot: (drawn.append(1), original(snapshot))
    window.show_page("settings")
    hardware.refresh_telemetry()
    assert drawn == []  # hidden: no redraw
    window.show_page("hardware")
    assert drawn  # shown again: the window drawn at once
