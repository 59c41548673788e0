"""planner.costs.spot_line (the rent-or-buy spot line from a reclaim rate) and `rentbuy --json`'s "spot".

Hand calculation: Daly 2006 eq. 15 at Young's interval (see tests/desktop/test_quotes_spot.py), H100 failures from
Llama 3 (419 unexpected interruptions in 54 days on 16,384 GPUs, arXiv 2407.21783, section 3.3.4).
"""

from __future__ import annotations

import json
import math

import pytest

from planner.cli import main
from planner.costs import spot_line
from planner.errors import UserError
from planner.gpus import get_gpu

H100 = get_gpu("h100-sxm")
LLAMA3_FAILURES_PER_GPU_HOUR = 419 / (16_384 * 54 * 24)


def daly_ratio(interruptions_per_hour: float, write_s: float = 60.0, restart_s: float = 900.0) -> float:
    mtbf = 3600.0 / interruptions_per_hour
    tau = math.sqrt(2 * write_s * mtbf)
    return mtbf * math.exp(restart_s / mtbf) * math.expm1((tau + write_s) / mtbf) / tau


def hand_overhead(nodes: int, rate: float) -> float:
    failures = 8 * nodes * LLAMA3_FAILURES_PER_GPU_HOUR
    return daly_ratio(failures + nodes * rate) / daly_ratio(failures) - 1


def test_the_overhead_and_the_break_even_job_size_match_the_hand_calculation():
    line = spot_line(H100, 16, 0.05, spot_price=2.00, on_demand_price=3.00)
    assert line.nodes == 2 and line.gpus_per_node == 8
    assert line.overhead_fraction == pytest.approx(hand_overhead(2, 0.05), rel=1e-3)
    assert line.comparison is not None and line.comparison.pays
    assert line.comparison.spot_per_useful_gpu_hour == pytest.approx(
        2.00 * (1 + hand_overhead(2, 0.05)), rel=1e-3
    )
    hand = max(n for n in range(1, 1000) if 2.00 * (1 + hand_overhead(n, 0.05)) < 3.00)
    assert abs(line.comparison.break_even_nodes - hand) <= 1
    # dearer spot pays on fewer nodes; spot above on demand never pays
    dearer = spot_line(H100, 16, 0.05, spot_price=2.80, on_demand_price=3.00).comparison
    assert dearer is not None and dearer.break_even_nodes < line.comparison.break_even_nodes
    never = spot_line(H100, 16, 0.05, spot_price=3.10, on_demand_price=3.00).comparison
    assert never is not None and not never.pays and never.break_even_nodes == 0
    assert spot_line(H100, 16, 0.05).comparison is None  # without prices: only the overhead


@pytest.mark.parametrize(
    ("rate", "write_s", "restart_s", "says"),
    [(-1.0, 60.0, 900.0, "must not be negative"), (math.nan, 60.0, 900.0, "must be a finite number"),
     (0.02, math.inf, 900.0, "must be a finite number"), (1e6, 60.0, 900.0, "absurdly large"),
     (200.0, 60.0, 900.0, "spot cannot run it")],
)  # fmt: skip
def test_impossible_inputs_are_user_errors_never_crashes(rate, write_s, restart_s, says):
    with pytest.raises(UserError, match=says):
        spot_line(H100, 8, rate, write_s, restart_s, spot_price=2.0, on_demand_price=3.0)


def test_the_break_even_search_survives_jobs_that_stall_even_on_demand():
    # A week-long checkpoint: past some size the job's failures alone leave no useful time (an effective fraction
    # of 0 in planner.scale); the search stops there instead of dividing by it.
    line = spot_line(H100, 8, 0.0, 604_800.0, 0.0, spot_price=2.0, on_demand_price=3.0)
    assert line.overhead_fraction == 0.0  # no reclaims: spot loses what on demand loses, no more
    assert line.comparison is not None and line.comparison.pays


RENT = ("rentbuy", "--gpu", "h100-sxm", "--gpus", "16", "--rent-per-gpu-hour", "3.00", "--purchase-per-gpu",
        "25000", "--spot-per-gpu-hour", "2.00", "--json")  # fmt: skip


def test_rentbuy_json_says_when_spot_stops_paying(capsys):
    assert (
        main(list(RENT)) == 0
    )  # no rate: the provider's typical one (3.05e-4 per instance-hour), with a verdict
    typical = json.loads(capsys.readouterr().out)["spot"]
    assert typical["overhead_fraction"] == pytest.approx(hand_overhead(2, -math.log(0.8) / 730.5), rel=1e-3)
    assert main([*RENT, "--spot-interruptions-per-node-hour", "0.05"]) == 0
    spot = json.loads(capsys.readouterr().out)["spot"]
    line = spot_line(H100, 16, 0.05, spot_price=2.00, on_demand_price=3.00)
    assert spot["overhead_fraction"] == pytest.approx(hand_overhead(2, 0.05), rel=1e-3)
    assert spot["spot_pays"] is True and spot["break_even_nodes"] == line.comparison.break_even_nodes
    assert spot["spot_per_useful_gpu_hour"] == {"amount": pytest.approx(line.comparison.spot_per_useful_gpu_hour),
                                                "currency": "USD"}  # fmt: skip
    assert main([*RENT[:-1], "--spot-interruptions-per-node-hour", "0.05"]) == 0
    assert "spot pays up to" in capsys.readouterr().out


def test_rentbuy_with_a_rate_spot_cannot_survive_is_one_line_exit_2(capsys):
    assert main([*RENT, "--spot-interruptions-per-node-hour", "200"]) == 2
    captured = capsys.readouterr()
    assert not captured.out and "spot cannot run it" in captured.err and "Traceback" not in captured.err
    assert len(captured.err.strip().splitlines()) == 1
