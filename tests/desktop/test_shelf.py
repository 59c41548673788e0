"""Widgets made ahead (desktop/shelf.py): a window left idle builds what the Plan and Rent-or-buy pages take, then
those pages themselves, hidden and drawn (desktop/main_window.py, BUILT_AHEAD); a click shows them at once; the hidden
Hardware page stops redrawing its telemetry."""

from __future__ import annotations

import desktop.shelf as shelf


def test_an_idle_window_builds_the_plan_and_rent_buy_pages_ahead_from_the_shelf_and_a_click_shows_them_drawn(
    open_window, qtbot, monkeypatch
):
    made = {}  # what the shelf built, by class name
    shelve = shelf._shelve

    def recording(kind, owner, bound):
        shelve(kind, owner, bound)
        made[kind.__name__] = shelf._ready[kind]

    monkeypatch.setattr(shelf, "_shelve", recording)
    window = open_window("h100x8")  # the Hardware page first: pyqtgraph is loaded by its telemetry chart
    # the idle work after the window shows makes the widgets, one per idle turn, then builds the two pages hidden
    # (they take the widgets) and lays them out at the size the stack will give them
    qtbot.waitUntil(lambda: {"plan", "rent_buy"} <= set(window._built) and not shelf.stocking(), timeout=60_000)
    page, rent_buy = window.page("plan"), window.page("rent_buy")
    assert window.stack.currentWidget() is window.page("hardware") and not page.isVisible()
    assert page.results is made["ResultsPanel"] and rent_buy.chart is made["RentBuyChart"]  # taken, not built again
    assert page.workload is made["WorkloadPanel"] and page.pool_panel is made["PoolPanel"]
    assert page.state is page.workload.state and not shelf._states  # the input panels' state is the page's
    assert page.size() == window.stack.contentsRect().size()  # laid out hidden, as it will be shown
    qtbot.waitUntil(lambda: page.state.result is not None and page.state.best is not None, timeout=60_000)
    from desktop.pages.registry import PAGE_IDS

    # a click in the page list: the page is current at once, and its first frame has its plan, its memory bar
    # and its curves (drawn while it was hidden)
    window.navigation.setCurrentRow(PAGE_IDS.index("plan"))
    assert window.stack.currentWidget() is page and page.isVisible()
    assert page.results.headline.text()
    drawn = page.results.memory_chart.chart_data()
    option = page.state.selected_option
    assert drawn["total_gib"] > 1 and drawn["capacity_gib"] == option.gpu.memory_bytes / 2**30
    scaling = page.results.scaling_chart
    assert scaling.chart_data()["series"] and not scaling.redraw_pending()  # the lines are in, not a turn away
    assert page.results.memory_chart.isVisible() and page.results.memory_chart.width() > 200

    window.navigation.setCurrentRow(PAGE_IDS.index("rent_buy"))
    assert window.stack.currentWidget() is rent_buy and rent_buy.chart.isVisible() and rent_buy.chart.height() > 100
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
