"""Run cost and rent vs buy: published cost statements (quoted with each test) reproduced from stated inputs."""

from __future__ import annotations

import pytest

from planner.costs import (
    HOURS_PER_MONTH,
    RentBuyInputs,
    break_even_gpu_hours,
    hours_to_months,
    rent_vs_buy,
    run_cost,
    spot_overhead_fraction,
)
from planner.errors import UserError
from planner.money import Money


def test_case_study_70b_on_128_gpus_for_24_days():
    # "a 70B model on 128 GPUs for 24 days cost about $276,480, i.e. $3.75/GPU-hour": 128 x 24 x 24 = 73,728 h.
    cost = run_cost(128 * 24 * 24, Money(3.75, "USD"), tokens=2e12, dataset_tokens=1e12)
    assert cost.total == Money(276_480, "USD")
    assert cost.per_million_tokens.amount == pytest.approx(276_480 / 2e6)
    assert cost.per_epoch.amount == pytest.approx(138_240)


def test_spot_charges_lost_work_and_restarts():
    # 0.05 interruptions/h, each losing half of a 2 h checkpoint interval plus a 0.25 h restart: 0.05 x 1.25 = 6.25%.
    assert spot_overhead_fraction(0.05, 0.25, 2.0) == pytest.approx(0.0625)
    cost = run_cost(1000, Money(2.0), spot=True, interruptions_per_hour=0.05, restart_overhead_h=0.25,
                    checkpoint_interval_h=2.0, wall_time_s=3600)  # fmt: skip
    assert cost.billed_gpu_hours == pytest.approx(1062.5)
    assert cost.total.amount == pytest.approx(2125.0)
    assert cost.wall_time_s == pytest.approx(3825.0)


def test_owning_pays_off_after_about_7100_gpu_hours_at_2_25():
    # Claim: at $2.25/h rent, owning pays off after about 7,100 GPU-hours (about 3.5 years at 8 h per working day).
    # Inputs that make it true: $16,000 per GPU-equivalent, running cost left out (the claim divides capex by rent):
    # 16,000 / 2.25 = 7,111 h; 8 h x 5/7 x 30.44 days = 173.9 h a month -> 40.9 months = 3.4 years.
    inputs = RentBuyInputs(gpus=1, purchase_per_gpu=16_000, rent_on_demand_per_gpu_hour=2.25, power_w_per_gpu=0,
                           hours_per_day=8, days_per_week=5, horizon_months=60)  # fmt: skip
    result = rent_vs_buy(inputs)
    assert result.break_even_gpu_hours == pytest.approx(7111.1, abs=0.1)
    assert 7000 <= result.break_even_gpu_hours <= 7200
    assert 3.3 <= result.break_even_months / 12 <= 3.6
    assert hours_to_months(7111.1, 8, 5) == pytest.approx(result.break_even_months, rel=1e-4)


def test_owning_an_h100_pays_off_after_about_14_months_of_continuous_use():
    # Claim: owning an H100 pays off after about 14 months of continuous use. Inputs: $27,500 (midpoint of
    # $25-30k), rent $2.80/h, 700 W x PUE 1.3 x $0.12/kWh = $0.1092/h running.
    # 27,500 / (2.80 - 0.1092) = 10,220 h; / 730.5 h a month = 13.99 months.
    inputs = RentBuyInputs(gpus=1, purchase_per_gpu=27_500, rent_on_demand_per_gpu_hour=2.80, power_w_per_gpu=700,
                           pue=1.3, electricity_per_kwh=0.12, horizon_months=36)  # fmt: skip
    result = rent_vs_buy(inputs)
    assert result.break_even_gpu_hours == pytest.approx(27_500 / (2.80 - 0.7 * 1.3 * 0.12), rel=1e-9)
    assert result.break_even_months == pytest.approx(14.0, abs=0.5)
    # The cumulative series cross there: month 13 renting is still cheaper, month 15 owning is.
    assert result.series["on_demand"][13] < result.series["buy"][13]
    assert result.series["on_demand"][15] > result.series["buy"][15]


@pytest.mark.parametrize(
    ("horizon", "rent", "low", "high"),
    [
        (
            36,
            2.80,
            0.35,
            0.45,
        ),  # specialised cloud price, 3-year horizon: (27,500/36) / (730.5 x 2.69) = 38.9%
        (24, 2.80, 0.55, 0.62),  # 2 years: (27,500/24) / (730.5 x 2.69) = 58.3%
        (
            12,
            6.88,
            0.40,
            0.50,
        ),  # hyperscaler price (AWS p5 per GPU), 1 year: 2,291.7 / (730.5 x 6.77) = 46.3%
    ],
)
def test_owning_wins_above_about_40_to_60_percent_utilisation(horizon, rent, low, high):
    # Claim: owning wins above about 40-60% sustained utilisation over 12-36 months.
    inputs = RentBuyInputs(gpus=8, purchase_per_gpu=27_500, rent_on_demand_per_gpu_hour=rent, power_w_per_gpu=700,
                           pue=1.3, electricity_per_kwh=0.12, horizon_months=horizon)  # fmt: skip
    result = rent_vs_buy(inputs)
    expected = (27_500 / horizon) / (HOURS_PER_MONTH * (rent - 0.1092))
    assert result.break_even_utilization == pytest.approx(expected, rel=1e-3)
    assert low <= result.break_even_utilization <= high
    # Below the break-even utilisation renting is cheaper over the horizon, above it owning is.
    below = rent_vs_buy(_with(inputs, utilization=result.break_even_utilization * 0.9))
    above = rent_vs_buy(_with(inputs, utilization=min(1.0, result.break_even_utilization * 1.1)))
    assert below.totals["on_demand"].amount < below.totals["buy"].amount
    assert above.totals["on_demand"].amount > above.totals["buy"].amount


def _with(inputs, **changes):
    import dataclasses

    return dataclasses.replace(inputs, **changes)


def test_series_shapes_hybrid_and_recommendation():
    inputs = RentBuyInputs(gpus=8, purchase_per_gpu=27_500, rent_on_demand_per_gpu_hour=2.80,
                           rent_spot_per_gpu_hour=1.60, rent_reserved_per_gpu_hour=2.10, utilization=0.6,
                           resale_fraction=0.2, horizon_months=36)  # fmt: skip
    result = rent_vs_buy(inputs)
    assert set(result.series) == {"on_demand", "spot", "reserved", "buy", "hybrid"}
    assert all(len(values) == 37 for values in result.series.values())
    assert result.series["on_demand"][0] == 0
    assert result.series["buy"][0] == 8 * 27_500  # capex on day 0
    rent = result.series["on_demand"]
    assert all(later >= earlier for earlier, later in zip(rent, rent[1:], strict=False))
    # Resale comes back at the end: 20% of 8 x 27,500.
    monthly_power = 8 * 0.6 * HOURS_PER_MONTH * 0.7 * 1.4 * 0.12
    assert result.series["buy"][-1] == pytest.approx(220_000 + 36 * monthly_power - 44_000)
    # Hybrid owns 4 GPUs busy all schedule (8 x 0.6 = 4.8 GPUs of demand) and rents the remaining 0.8 GPU.
    assert result.hybrid_owned_gpus == 4
    burst = (8 * 0.6 - 4) * HOURS_PER_MONTH * 2.80
    own_month = 4 * HOURS_PER_MONTH * 0.7 * 1.4 * 0.12
    assert result.series["hybrid"][12] == pytest.approx(4 * 27_500 + 12 * (own_month + burst))
    assert result.cheapest in result.totals
    assert "GPU-hours" in result.recommendation and "%" in result.recommendation
    payload = result.as_dict()
    assert set(payload["totals"]) >= {"rent", "buy", "hybrid"}
    assert payload["monthly"]["month"] == list(range(37))


def test_never_pays_off_when_rent_is_below_running_cost():
    assert break_even_gpu_hours(10_000, 0.10, 0.20) is None
    result = rent_vs_buy(RentBuyInputs(gpus=1, rent_on_demand_per_gpu_hour=0.05, power_w_per_gpu=700))
    assert result.break_even_gpu_hours is None and "never" in result.recommendation


@pytest.mark.parametrize(
    "changes", [{"gpus": 0}, {"utilization": 0}, {"utilization": 1.5}, {"pue": 0.9}, {"hours_per_day": 25},
                {"horizon_months": 0}, {"resale_fraction": 2}, {"purchase_per_gpu": -1}],
)  # fmt: skip
def test_invalid_inputs_are_user_errors(changes):
    with pytest.raises(UserError):
        rent_vs_buy(RentBuyInputs(**changes))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        # PUE (The Green Grid): facility power / IT power, 1.0 at best; Uptime Institute's 2023 survey average is
        # 1.58 and old server rooms reach about 2.5, so 3.0 (the GUI's limit too) bounds any real facility.
        ({"pue": 3.5}, "PUE must be between 1.0 and 3.0"),
        ({"pue": 0.9}, "PUE must be between 1.0 and 3.0"),
        # The largest GPU modules draw about 1,200-1,400 W (GB200/B300 class); 5,000 W per GPU is a typo.
        ({"power_w_per_gpu": 7000}, "the power per GPU must be between 0 and 5000 W"),
        ({"power_w_per_gpu": -1}, "the power per GPU must be between 0 and 5000 W"),
    ],
)
def test_pue_and_power_outside_physical_ranges_are_refused_saying_the_range(changes, message):
    with pytest.raises(UserError, match=message):
        rent_vs_buy(RentBuyInputs(**changes))


def test_pue_and_power_at_the_edges_of_their_ranges_are_accepted():
    # Power 0 W leaves electricity out (as the 7,100 GPU-hour claim above does); 3.0 and 5000 W are the limits.
    for changes in ({"pue": 1.0}, {"pue": 3.0}, {"power_w_per_gpu": 0}, {"power_w_per_gpu": 5000}):
        assert rent_vs_buy(RentBuyInputs(**changes)).break_even_gpu_hours is not None


# -- rent or buy from a plan: runs per month, whole job-sized groups, no purchase price ----------------------


def test_utilisation_from_runs_is_the_job_gpu_hours_over_the_schedule():
    from planner.costs import utilisation_from_runs

    # 25 min on 64 GPUs = 26.67 GPU-hours; 20 runs a month on those 64 GPUs around the clock (730.5 h each):
    # 533.3 / 46,752 = 1.14%.
    assert utilisation_from_runs(64, 64 * 25 / 60, 20) == pytest.approx(20 * 64 * 25 / 60 / (64 * 730.5))
    # 8 h x 5 days is 8 x 5 / 7 x 30.4375 = 173.9 h a month per GPU: a 100 GPU-hour job twice a month on 4 GPUs
    assert utilisation_from_runs(4, 100, 2, hours_per_day=8, days_per_week=5) == pytest.approx(
        200 / (4 * 8 * 5 / 7 * 30.4375)
    )
    # 730.5 h / 25 min = 1,753.2 runs of the job fit a month on its 64 GPUs
    with pytest.raises(UserError, match="at most 1753 do"):
        utilisation_from_runs(64, 64 * 25 / 60, 2000)


def test_hybrid_owns_whole_job_sized_groups():
    # 4 groups of an 8-GPU tensor-parallel job: the hybrid owns half of them (16 GPUs), never a part of a group
    result = rent_vs_buy(RentBuyInputs(gpus=32, job_gpus=8, utilization=0.5))
    assert result.hybrid_owned_gpus == 16
    with pytest.raises(UserError, match="whole groups of 8"):
        rent_vs_buy(RentBuyInputs(gpus=32, job_gpus=8, hybrid_owned_gpus=12))
    # one job needs every GPU: owning part of them runs nothing, so there is no hybrid at all
    single = rent_vs_buy(RentBuyInputs(gpus=64, job_gpus=64, utilization=0.01))
    assert "hybrid" not in single.series and single.hybrid_owned_gpus == 0


def test_without_a_purchase_price_only_renting_is_compared():
    result = rent_vs_buy(RentBuyInputs(gpus=8, purchase_per_gpu=None, rent_spot_per_gpu_hour=1.5))
    assert set(result.series) == {"on_demand", "spot"}
    assert result.break_even_gpu_hours is None and result.break_even_months is None
    assert "No purchase price is known" in result.recommendation
    assert set(result.as_dict()["totals"]) == {"rent", "spot"}
