"""Rent or buy, driven through its widgets: live recomputation, the break-even marker, pre-filling.

Hand calculation used below (a month is 365.25 / 12 = 30.4375 days, a twelfth of a Julian year):
  busy hours per GPU-month = 24 h x 30.4375 d x utilisation; at 50%: 365.25 h, at 100%: 730.5 h
  running cost per busy hour = 0.7 kW x PUE 1.4 x 0.12 $/kWh = 0.1176 $
  break-even months = capex per GPU / (busy hours x (rent - running cost))
    = 25,000 / (365.25 x (3.00 - 0.1176)) = 23.75 months at 50%,  11.87 months at 100%.
Reference prices (planner/catalog/reference_prices.csv, H100 SXM on-demand): 1.30, 2.75, 3.25, 3.49, 3.90,
6.88, 12.29 $/GPU-h -> median 3.49 $/GPU-h; purchase quotes 25,000 and 30,000 $ -> median 27,500 $.
"""

from __future__ import annotations

import pytest


@pytest.fixture
def page(rent_buy):
    return rent_buy


def set_hand_inputs(page, qtbot, utilisation: float) -> None:
    page.follow_plan.setChecked(False)
    page.gpus_spin.setValue(8)
    page.purchase_spin.setValue(25_000)
    page.overhead_spin.setValue(0)
    page.power_spin.setValue(700)
    page.pue_spin.setValue(1.4)
    page.electricity_spin.setValue(0.12)
    page.maintenance_spin.setValue(0)
    page.resale_spin.setValue(0)
    page.on_demand_spin.setValue(3.00)
    page.hours_slider.slider.setValue(24)
    with qtbot.waitSignal(page.recomputed, timeout=5000):
        page.utilization_slider.slider.setValue(round(utilisation * 100))


def test_break_even_marker_matches_the_hand_calculation(page, qtbot):
    set_hand_inputs(page, qtbot, 0.5)
    marker = page.chart.break_even_line
    assert marker.isVisible()
    assert marker.value() == pytest.approx(23.75, abs=0.01)
    assert page.chart.chart_data()["break_even_months"]["on_demand"] == pytest.approx(23.75, abs=0.01)
    assert "23.7" in page.headline.text() or "23.8" in page.headline.text()


def test_more_utilisation_moves_break_even_earlier(page, qtbot):
    set_hand_inputs(page, qtbot, 0.5)
    at_half = page.chart.break_even_line.value()
    with qtbot.waitSignal(page.recomputed, timeout=5000):
        page.utilization_slider.slider.setValue(100)
    at_full = page.chart.break_even_line.value()
    assert at_full == pytest.approx(11.87, abs=0.01)
    assert at_full < at_half
    with qtbot.waitSignal(page.recomputed, timeout=5000):
        page.utilization_slider.slider.setValue(20)
    # 25,000 / (146.1 x (3.00 - 0.1176)) = 59.4 months: later, and after the 36-month horizon, so the chart draws
    # no break-even line (its lines do not cross); the headline still says the month
    assert page.result.break_even_months == pytest.approx(59.4, abs=0.1) and page.result.break_even_months > at_half
    assert not page.chart.break_even_line.isVisible()


def test_dearer_rent_also_moves_break_even_earlier(page, qtbot):
    set_hand_inputs(page, qtbot, 0.5)
    before = page.chart.break_even_line.value()
    with qtbot.waitSignal(page.recomputed, timeout=5000):
        page.on_demand_spin.setValue(6.00)
    # 25,000 / (365.25 x (6.00 - 0.1176)) = 11.64 months
    assert page.chart.break_even_line.value() == pytest.approx(11.64, abs=0.01)
    assert page.chart.break_even_line.value() < before


def test_slider_burst_recomputes_once(page, qtbot):
    set_hand_inputs(page, qtbot, 0.5)
    count = []
    page.recomputed.connect(lambda: count.append(1))
    for value in range(30, 90):
        page.utilization_slider.slider.setValue(value)
    qtbot.waitUntil(lambda: bool(count), timeout=5000)
    qtbot.wait(50)
    assert len(count) == 1
    assert page.result.inputs.utilization == pytest.approx(0.89)


def test_prefilled_from_reference_quotes_and_the_plan(page, context, qtbot):
    from planner.gpus import get_gpu

    class Option:  # what the Plan page publishes: a PlanOption's gpu and gpus
        gpu = get_gpu("h100-sxm")
        gpus = 64

    page.follow_plan.setChecked(True)
    with qtbot.waitSignal(page.recomputed, timeout=5000):
        context.plan_option = Option()  # as the Plan page publishes its selection
        context.plan_option_changed.emit(context.plan_option)
    assert page.gpu_combo.currentData() == "h100-sxm"
    assert page.gpus_spin.value() == 64
    assert page.on_demand_spin.value() == pytest.approx(3.49)
    assert page.purchase_spin.value() == pytest.approx(27_500)
    assert page.power_spin.value() == pytest.approx(700)  # H100 SXM TDP, catalog
    assert page.result.inputs.gpus == 64
    # No spot or reserved quote is stored: those lines are absent rather than invented.
    assert "spot" not in page.result.series and "reserved" not in page.result.series
    assert "64 × NVIDIA H100" in page.from_plan_label.text()
    page.follow_plan.setChecked(False)
    assert "tick the box" in page.from_plan_label.text()


def test_spot_share_draws_a_mixed_line_between_on_demand_and_spot(page, qtbot):
    set_hand_inputs(page, qtbot, 0.5)
    page.spot_spin.setValue(1.00)
    # 0.1 reclaims per node-hour cost a one-node job 8.4% more hours (test_rent_buy_spot.py checks the figure by
    # hand): the mix at half is (3.00 + 1.084) / 2 = 2.042 $/h, so buying crosses it at
    # 25,000 / (365.25 x (2.042 - 0.1176)) = 35.6 months, inside the 36-month horizon.
    page.spot_rate_edit.setText("0.1")
    with qtbot.waitSignal(page.recomputed, timeout=5000):
        page.spot_share_slider.slider.setValue(50)
    series = page.chart.chart_data()["series"]
    month = 12
    assert series["rent_mix"][month] == pytest.approx(
        (series["on_demand"][month] + series["spot"][month]) / 2
    )
    assert page.chart.chart_data()["break_even_months"]["rent_mix"] == pytest.approx(35.6, abs=0.1)


def test_bad_input_shows_reason_not_crash(page, qtbot):
    set_hand_inputs(page, qtbot, 0.5)
    with qtbot.waitSignal(page.recomputed, timeout=5000):
        page.hybrid_spin.setValue(0)
        page.gpus_spin.setValue(1)
    assert page.result is not None
    assert page.title() == "Rent or buy"
    page.retranslate()
    assert page.result is not None


def test_fewer_hours_per_day_move_break_even_later(page, qtbot):
    # 12 h/day at 100% is as many busy hours as 24 h at 50%: 25,000 / (365.25 x 2.8824) = 23.75 months.
    set_hand_inputs(page, qtbot, 1.0)
    at_full_day = page.chart.break_even_line.value()
    with qtbot.waitSignal(page.recomputed, timeout=5000):
        page.hours_slider.slider.setValue(12)
    assert page.chart.break_even_line.value() == pytest.approx(23.75, abs=0.01)
    assert page.chart.break_even_line.value() > at_full_day


def add_quote(context, kind: str, price: float) -> None:
    context.store.rental_quotes.add({"provider": "Test cloud", "offer": f"H100 {kind}", "gpu": "h100-sxm",
                                    "price_per_gpu_hour": price, "currency": "USD", "kind": kind,
                                    "quoted_on": "2026-09-01", "source": "test"})  # fmt: skip
    context.quotes_changed.emit()


def test_spot_and_reserved_lines_appear_with_their_quotes(page, context, qtbot):
    set_hand_inputs(page, qtbot, 0.5)
    assert set(page.chart.chart_data()["series"]) == {"on_demand", "buy", "hybrid"}  # no quote, no line
    add_quote(context, "spot", 2.10)
    add_quote(context, "reserved-1y", 2.45)
    page.spot_rate_edit.setText("0")  # no reclaims: spot costs its price per useful hour, no more
    set_hand_inputs(page, qtbot, 0.5)  # the new quotes refilled the prices: the hand figures again
    data = page.chart.chart_data()
    assert {"on_demand", "spot", "reserved", "buy", "hybrid"} <= set(data["series"])
    assert page.spot_spin.value() == pytest.approx(2.10) and page.reserved_spin.value() == pytest.approx(2.45)
    # Spot rents busy hours at 2.10 (never reclaimed here):
    # 25,000 / (365.25 x (2.10 - 0.1176)) = 34.53 months, later than on demand (cheaper renting).
    assert data["break_even_months"]["spot"] == pytest.approx(34.53, abs=0.05)
    # Reserved pays all 730.5 h a month at 2.45 while buying costs 0.1176 per busy hour (365.25 h):
    # 25,000 / (730.5 x 2.45 - 365.25 x 0.1176) = 25,000 / 1,746.77 = 14.31 months.
    assert data["break_even_months"]["reserved"] == pytest.approx(14.31, abs=0.05)
    assert data["break_even_months"]["on_demand"] == pytest.approx(23.75, abs=0.01)
    figures = page.figures.text()
    assert "renting spot" in figures and "renting reserved" in figures


def test_resale_alone_tipping_the_balance_is_said_as_such(page, context, qtbot):
    add_quote(context, "spot", 2.10)
    page.spot_rate_edit.setText("0")  # never reclaimed: spot costs 2.10 per useful hour
    set_hand_inputs(page, qtbot, 0.5)
    page.resale_spin.setValue(50)
    with qtbot.waitSignal(page.recomputed, timeout=5000):
        page.horizon_slider.slider.setValue(30)
    data = page.chart.chart_data()
    # Spot crosses buying at 34.53 months (see above): after a 30-month horizon, so no break-even month ...
    assert data["break_even_months"]["spot"] is None
    # ... yet over the horizon buying wins once half the purchase comes back at the end:
    # buy 8 x 25,000 x (1 - 0.5) + 8 x 0.1176 x 365.25 x 30 = 110,309; spot 8 x 2.10 x 365.25 x 30 = 184,086.
    assert page.result.totals["buy"].amount == pytest.approx(110_309, rel=0.01)
    assert page.result.totals["spot"].amount == pytest.approx(184_086, rel=0.01)
    figures = page.figures.text()
    assert "buying cheaper only at the end, counting the resale" in figures
    assert "buying never cheaper" not in figures


def test_editing_the_gpu_or_count_by_hand_stops_following_the_plan(page, context, qtbot):
    from planner.gpus import get_gpu

    class Option:
        gpu = get_gpu("h100-sxm")
        gpus = 64

    page.follow_plan.setChecked(True)
    context.plan_option = Option()
    context.plan_option_changed.emit(context.plan_option)
    assert page.gpus_spin.value() == 64 and page.follow_plan.isChecked()
    page.gpus_spin.setValue(16)  # the user's own count ...
    assert not page.follow_plan.isChecked()
    Option.gpus = 128
    context.plan_option_changed.emit(context.plan_option)  # ... is not overwritten by the next plan
    assert page.gpus_spin.value() == 16
    assert "tick the box" in page.from_plan_label.text()


def test_following_a_plan_of_one_offer_selects_its_gpu_type(page, context, qtbot):
    from desktop.plan_request import offer_spec
    from planner.gpus import get_gpu

    class Option:  # the Plan page compared two offers of one GPU type; this one is AWS's
        gpu = offer_spec(get_gpu("a100-sxm-80gb"), {"id": 7, "provider": "AWS"})
        gpus = 16

    page.follow_plan.setChecked(True)
    context.plan_option = Option()
    context.plan_option_changed.emit(context.plan_option)
    assert page.gpu_combo.currentData() == "a100-sxm-80gb" and page.gpus_spin.value() == 16
    assert page.follow_plan.isChecked()
