"""planner.break_even: the month owning has paid for itself against each way of renting, by hand."""

from __future__ import annotations

import pytest

from planner.break_even import break_even_months_by_rent, months_to_break_even, rent_per_gpu_month
from planner.costs import HOURS_PER_MONTH, RentBuyInputs, rent_vs_buy


def test_months_to_break_even_is_capex_over_the_monthly_margin():
    # 100 upfront, owning runs 10 a month, renting 30 a month: equal after 100 / (30 - 10) = 5 months.
    assert months_to_break_even(100.0, 30.0, 10.0) == pytest.approx(5.0)
    assert months_to_break_even(100.0, 5.0, 10.0) is None  # renting is cheaper than running an owned GPU
    assert months_to_break_even(10_000.0, 11.0, 10.0) is None  # 10,000 months: beyond 20 years


def _inputs(**changes: object) -> RentBuyInputs:
    base: dict[str, object] = dict(
        gpus=8, purchase_per_gpu=25_000.0, rent_on_demand_per_gpu_hour=3.0, rent_spot_per_gpu_hour=1.0,
        rent_reserved_per_gpu_hour=2.0, currency="USD", infra_overhead_fraction=0.0, power_w_per_gpu=700.0,
        pue=1.4, electricity_per_kwh=0.12, hours_per_day=24.0, utilization=0.5, horizon_months=36,
        resale_fraction=0.0, maintenance_fraction_per_year=0.0, spot_overhead_fraction=0.1,
    )  # fmt: skip
    base.update(changes)
    return RentBuyInputs(**base)  # type: ignore[arg-type]


def test_each_way_of_renting_by_hand():
    inputs = _inputs()
    used = HOURS_PER_MONTH * 0.5  # 365.25 busy hours a month
    power = 0.7 * 1.4 * 0.12  # 0.1176 per busy hour
    owned = used * power
    months = break_even_months_by_rent(inputs, spot_share=0.5)
    assert months["on_demand"] == pytest.approx(25_000 / (used * 3.0 - owned))  # 23.3 months
    assert months["spot"] == pytest.approx(25_000 / (used * 1.1 - owned))  # spot with its 10% overhead
    assert months["reserved"] == pytest.approx(
        25_000 / (HOURS_PER_MONTH * 2.0 - owned)
    )  # billed around the clock
    assert months["rent_mix"] == pytest.approx(25_000 / (used * (1.5 + 0.55) - owned))
    assert rent_per_gpu_month(inputs, "rent_mix", 0.5) == pytest.approx(used * 2.05)
    # rent_vs_buy's own on-demand break-even is the same arithmetic
    assert rent_vs_buy(inputs).break_even_months == pytest.approx(months["on_demand"])


def test_the_break_even_is_where_the_cumulative_lines_cross():
    """The chart's lines cross at the break-even month: interpolate the monthly series rent_vs_buy draws."""
    result = rent_vs_buy(_inputs())
    buy, rent = result.series["buy"], result.series["reserved"]
    month = break_even_months_by_rent(result.inputs)["reserved"]
    assert month is not None and month < 36
    whole = int(month)
    gap_before, gap_after = buy[whole] - rent[whole], buy[whole + 1] - rent[whole + 1]
    assert gap_before > 0 >= gap_after
    assert whole + gap_before / (gap_before - gap_after) == pytest.approx(month)


def test_within_the_horizon_a_later_crossing_is_none():
    months = break_even_months_by_rent(_inputs(), within_horizon=True)
    assert months["spot"] is None  # 69.7 months, after the 36-month horizon
    assert months["reserved"] == pytest.approx(
        break_even_months_by_rent(_inputs())["reserved"]
    )  # 17.6: inside


def test_no_purchase_price_no_break_even_and_no_mix_without_a_share():
    assert break_even_months_by_rent(_inputs(purchase_per_gpu=None)) == {}
    assert "rent_mix" not in break_even_months_by_rent(_inputs(), spot_share=0.0)
    assert "spot" not in break_even_months_by_rent(_inputs(rent_spot_per_gpu_hour=None), spot_share=0.5)
