"""Rent or buy, spot: the spot line and the spot share follow the reclaim rate (typed, from the spot quotes, or the
provider's typical one) through planner.costs.spot_line, the page says when spot stops paying, and the numbers
are the CLI's (`gpu-advisor rentbuy ... --json`) for the same inputs.

Hand calculation (Daly 2006, eq. 15, at Young's interval tau = sqrt(2 delta M), as in test_quotes_spot.py): a job
on n nodes of 8 H100s is interrupted 8n x 419 / (16,384 x 54 x 24 h) times an hour on demand (Llama 3's failures,
arXiv 2407.21783, section 3.3.4) and r x n more on spot; each interruption costs the work since the last
checkpoint (delta = 60 s to write) and a 900 s restart. Spot bills ratio_spot / ratio_on_demand times the hours
of on demand for the same work. At 8 GPUs, 50% of 24 h (365.25 busy hours per GPU-month) and 36 months, spot at
2.10 $/GPU-h costs 8 x 365.25 x 36 x 2.10 = 220,903 $ unreclaimed, x 1.0292 at r = 0.02 and x 1.0844 at r = 0.1.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

LLAMA3_FAILURES_PER_GPU_HOUR = 419 / (16_384 * 54 * 24)
BUSY_GPU_HOURS_36_MONTHS = 8 * 365.25 * 36  # 8 GPUs at 50% of 730.5 h a month


def daly_ratio(interruptions_per_hour: float, write_s: float = 60.0, restart_s: float = 900.0) -> float:
    mtbf = 3600.0 / interruptions_per_hour
    tau = math.sqrt(2 * write_s * mtbf)
    return mtbf * math.exp(restart_s / mtbf) * math.expm1((tau + write_s) / mtbf) / tau


def hand_overhead(nodes: int, rate: float, write_s: float = 60.0, restart_s: float = 900.0) -> float:
    failures = 8 * nodes * LLAMA3_FAILURES_PER_GPU_HOUR
    return daly_ratio(failures + nodes * rate, write_s, restart_s) / daly_ratio(failures, write_s, restart_s) - 1


@pytest.fixture
def page(rent_buy):
    return rent_buy


def set_inputs(page, qtbot, rate: str, gpus: int = 8) -> None:
    """The hand inputs: 8 x H100 at 50% of 24 h for 36 months, 3.00 on demand, 2.10 spot; `rate` typed."""
    page.follow_plan.setChecked(False)
    page.gpus_spin.setValue(gpus)
    page.purchase_spin.setValue(25_000)
    page.overhead_spin.setValue(0)
    page.power_spin.setValue(700)
    page.pue_spin.setValue(1.4)
    page.electricity_spin.setValue(0.12)
    page.maintenance_spin.setValue(0)
    page.resale_spin.setValue(0)
    page.on_demand_spin.setValue(3.00)
    page.spot_spin.setValue(2.10)
    page.checkpoint_spin.setValue(1.0)
    page.restart_spin.setValue(15.0)
    page.hours_slider.slider.setValue(24)
    page.horizon_slider.slider.setValue(36)
    page.utilization_slider.slider.setValue(50)
    with qtbot.waitSignal(page.recomputed, timeout=5000):
        page.spot_rate_edit.setText(rate)


def add_spot_quote(context, gpu: str, rate: float | None, price: float = 2.10) -> None:
    context.store.rental_quotes.add({"provider": "Spot cloud", "offer": f"{gpu} spot {rate}", "gpu": gpu,
                                    "gpus_per_instance": 8, "price_per_gpu_hour": price, "currency": "USD",
                                    "kind": "spot", "quoted_on": "2026-09-01", "interruptions_per_hour": rate})  # fmt: skip
    context.quotes_changed.emit()


def test_the_spot_line_and_the_spot_share_follow_the_reclaim_rate(page, qtbot):
    totals, mixes = {}, {}
    page.spot_share_slider.set_value(0.3)
    for rate in ("0", "0.02", "0.1"):
        set_inputs(page, qtbot, rate)
        totals[rate] = page.result.totals["spot"].amount
        mixes[rate] = page.chart_series()[0]["rent_mix"][-1]
        expected_rate = 2.10 * (1 + hand_overhead(1, float(rate)))
        assert totals[rate] == pytest.approx(BUSY_GPU_HOURS_36_MONTHS * expected_rate, rel=1e-4)
        # the mix line: 70% of the hours on demand at 3.00, 30% on spot at its cost per useful hour
        assert mixes[rate] == pytest.approx(BUSY_GPU_HOURS_36_MONTHS * (0.7 * 3.00 + 0.3 * expected_rate), rel=1e-4)
    assert totals["0"] == pytest.approx(220_903.2, abs=0.1)  # never reclaimed: the sticker price
    assert totals["0.02"] == pytest.approx(220_903.2 * 1.0292, rel=1e-3)  # +2.9% hours
    assert totals["0.1"] == pytest.approx(220_903.2 * 1.0844, rel=1e-3)  # +8.4% hours
    assert totals["0"] < totals["0.02"] < totals["0.1"] and mixes["0"] < mixes["0.02"] < mixes["0.1"]
    assert page.result.totals["on_demand"].amount == pytest.approx(BUSY_GPU_HOURS_36_MONTHS * 3.00)  # untouched


def test_the_page_says_up_to_which_job_size_spot_pays(page, qtbot):
    set_inputs(page, qtbot, "0.02")
    # By hand: the largest job (nodes of 8) whose spot hours, at 2.10, still cost less than on demand at 3.00.
    hand = max(n for n in range(1, 400) if 2.10 * (1 + hand_overhead(n, 0.02)) < 3.00)
    comparison = page.spot.comparison
    assert abs(comparison.break_even_nodes - hand) <= 1  # Daly's optimum interval against Young's: a node at most
    assert comparison.pays and comparison.spot_per_useful_gpu_hour == pytest.approx(
        2.10 * (1 + hand_overhead(1, 0.02)), rel=1e-4
    )
    figures = page.figures.text()
    assert f"spot pays for jobs up to {comparison.break_even_nodes:,} node" in figures
    assert "0.02 reclaims per node-hour (typed)" in figures
    # ten times the reclaims: spot stops paying at a smaller job
    set_inputs(page, qtbot, "0.2")
    assert page.spot.comparison.break_even_nodes < comparison.break_even_nodes
    hand_busy = max((n for n in range(1, 400) if 2.10 * (1 + hand_overhead(n, 0.2)) < 3.00), default=0)
    assert abs(page.spot.comparison.break_even_nodes - hand_busy) <= 1


def test_a_bad_rate_is_explained_and_nothing_typed_is_lost(page, qtbot):
    set_inputs(page, qtbot, "0.02")
    for typed, reason in (("-0.5", "the spot interruption rate (reclaims per node-hour) must not be negative"),
                          ("often", "the spot reclaim rate must be a number of reclaims per node-hour (0.02), got 'often'"),
                          ("1e9", "is absurdly large"), ("200", "spot cannot run it")):  # fmt: skip
        with qtbot.waitSignal(page.recomputed, timeout=5000):
            page.spot_rate_edit.setText(typed)
        assert page.result is None and reason in page.headline.text(), typed
        assert page.spot_rate_edit.text() == typed  # kept as typed, framed in red
        assert "border" in page.spot_rate_edit.styleSheet()
        assert page.on_demand_spin.value() == pytest.approx(3.00) and page.spot_spin.value() == pytest.approx(2.10)
    with qtbot.waitSignal(page.recomputed, timeout=5000):
        page.spot_rate_edit.setText("0,02")  # a decimal comma, as typed in Russian
    assert page.result is not None and page.spot.interruptions_per_node_hour == pytest.approx(0.02)
    assert page.spot_rate_edit.styleSheet() == ""


@pytest.mark.slow  # keeps make test-fast under a minute; make test runs it
def test_an_empty_rate_takes_the_shown_gpus_spot_quotes_else_the_typical_rate(page, context, qtbot):
    set_inputs(page, qtbot, "")
    assert page.spot.interruptions_per_node_hour == pytest.approx(-math.log(0.8) / 730.5)  # AWS's top band
    assert "(typical)" in page.spot_rate_edit.placeholderText()
    add_spot_quote(context, "a100-sxm-80gb", 0.5)  # another GPU's quote: not this GPU's rate
    add_spot_quote(context, "h100-sxm", 0.01)
    add_spot_quote(context, "h100-sxm", 0.03)
    add_spot_quote(context, "h100-sxm", None)  # states none: not counted
    set_inputs(page, qtbot, "")
    assert page.spot.interruptions_per_node_hour == pytest.approx(0.02)  # median of 0.01 and 0.03
    assert page.spot_rate_edit.placeholderText() == "0.02 (from quotes)"
    assert "median of 2 spot quote" in page.figures.text()


@pytest.mark.slow  # runs the CLI in a child process
def test_the_gui_and_the_cli_give_the_same_numbers(page, qtbot):
    set_inputs(page, qtbot, "0.02", gpus=16)
    page.checkpoint_spin.setValue(2.0)
    page.hybrid_spin.setValue(8)
    with qtbot.waitSignal(page.recomputed, timeout=5000):
        page.restart_spin.setValue(10.0)
    gui = page.result
    argv = ["rentbuy", "--gpu", "h100-sxm", "--gpus", "16", "--rent-per-gpu-hour", "3.00", "--purchase-per-gpu",
            "25000", "--spot-per-gpu-hour", "2.10", "--spot-interruptions-per-node-hour", "0.02",
            "--checkpoint-write-minutes", "2", "--restart-minutes", "10", "--power-w", "700", "--pue", "1.4",
            "--electricity-per-kwh", "0.12", "--utilization", "0.5", "--years", "3", "--owned-gpus", "8",
            "--overhead-fraction", "0", "--maintenance-fraction", "0", "--resale-fraction", "0", "--json"]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from desktop.entry import main; sys.exit(main())", *argv],
        capture_output=True, text=True, timeout=60, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    cli = json.loads(done.stdout)
    names = {"rent": "on_demand", "spot": "spot", "buy": "buy", "hybrid": "hybrid"}
    assert set(cli["totals"]) == set(names)
    for name, key in names.items():
        assert cli["totals"][name]["amount"] == pytest.approx(gui.totals[key].amount, rel=1e-9), name
        assert cli["monthly"][name] == pytest.approx(list(gui.series[key]), rel=1e-9), name
    assert cli["break_even_months"] == pytest.approx(gui.break_even_months, rel=1e-9)
    spot = cli["spot"]
    assert spot["overhead_fraction"] == pytest.approx(page.spot.overhead_fraction, rel=1e-12)
    assert spot["nodes"] == page.spot.nodes == 2 and spot["restart_s"] == 600 and spot["checkpoint_write_s"] == 120
    assert spot["break_even_nodes"] == page.spot.comparison.break_even_nodes
    assert spot["spot_pays"] is page.spot.comparison.pays is True
    assert spot["spot_per_useful_gpu_hour"]["amount"] == pytest.approx(page.spot.comparison.spot_per_useful_gpu_hour)
    # and both are the hand figure: 2 nodes, 120 s checkpoints, 600 s restarts
    assert spot["overhead_fraction"] == pytest.approx(hand_overhead(2, 0.02, 120.0, 600.0), rel=1e-3)


@pytest.mark.slow  # keeps make test-fast under a minute; make test runs it
def test_following_a_plan_on_a_chosen_spot_quote_takes_that_quotes_rate(page, context, qtbot):
    from planner.gpus import get_gpu
    from planner.resolver import offer_spec

    add_spot_quote(context, "h100-sxm", 0.01)
    add_spot_quote(context, "h100-sxm", 0.03)  # the other spot quotes' median would be 0.02
    chosen = context.store.rental_quotes.find(gpu="h100-sxm", kind="spot")[-1]
    assert chosen["interruptions_per_hour"] == pytest.approx(0.03)

    class Option:  # the Plan page planned on that one spot offer
        gpu = offer_spec(get_gpu("h100-sxm"), chosen)
        gpus = 16

    page.follow_plan.setChecked(True)
    page.spot_rate_edit.setText("")
    with qtbot.waitSignal(page.recomputed, timeout=5000):
        context.plan_option = Option()
        context.plan_option_changed.emit(context.plan_option)
    assert page.spot.interruptions_per_node_hour == pytest.approx(0.03) and page.spot.nodes == 2
    assert "(the plan's chosen spot quote)" in page.figures.text()
    page.follow_plan.setChecked(False)  # not following: the shown GPU's quotes again
    qtbot.waitUntil(lambda: page.spot is not None and page.spot.interruptions_per_node_hour == pytest.approx(0.02))


def test_a_job_above_the_break_even_size_is_told_spot_does_not_pay_for_it(page, qtbot):
    set_inputs(page, qtbot, "0.2", gpus=8 * 40)  # 40 nodes: above the 3 nodes up to which spot pays at 0.2/h
    comparison = page.spot.comparison
    assert not comparison.pays and 0 < comparison.break_even_nodes < 40
    # by hand: 40 nodes at 0.2 reclaims per node-hour cost far more than the 43% spot saves at 2.10 against 3.00
    assert 2.10 * (1 + hand_overhead(40, 0.2)) > 3.00
    assert page.result.totals["spot"].amount > page.result.totals["on_demand"].amount
    figures = page.figures.text()
    assert "spot does not pay for this job; spot pays for jobs up to" in figures


def test_unticking_follow_forgets_the_plans_job(page, context, qtbot):
    from planner.gpus import get_gpu

    class Option:  # a plan's option with its job's GPU-hours
        gpu = get_gpu("h100-sxm")
        gpus = 16
        gpu_hours = 100.0

    page.follow_plan.setChecked(True)
    context.plan_option = Option()
    context.plan_option_changed.emit(context.plan_option)
    assert page._job() == (16, 100.0) and not page.utilization_slider.isEnabled()
    page.follow_plan.setChecked(False)
    assert page._job() is None and page.utilization_slider.isEnabled()
    assert "No plan's job followed" in page.job_label.text()
