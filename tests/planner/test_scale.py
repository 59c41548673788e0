"""Planning at scale (planner.scale): failure rates, checkpoint costs, Young/Daly intervals, goodput, spot.

Expectations are published figures (Llama 3's 54-day snapshot, AWS's interruption band) and hand calculations
of the formulas in the papers the module cites (Young 1974, Daly 2006)."""

from __future__ import annotations

import math

import pytest

from planner.errors import UserError
from planner.gpus import get_gpu
from planner.models import resolve_model
from planner.scale import (
    DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR,
    CheckpointCost,
    Resilience,
    Storage,
    checkpoint_bytes,
    checkpoint_cost,
    compare_spot,
    daly_interval_s,
    failure_rate,
    goodput,
    job_goodput,
    replica_failure,
    spot_against_on_demand,
    spot_overhead_of_job,
    storage,
    wall_time_ratio,
    young_interval_s,
)
from planner.search import Constraints, Workload, plan

H100 = get_gpu("h100-sxm")
A100 = get_gpu("a100-sxm-80gb")
HOUR = 3600.0


def fixed_cost(write_s: float, restart_s: float) -> CheckpointCost:
    return CheckpointCost(0, Storage("test", 1.0, None, "test"), write_s, restart_s, "test")


# ------------------------------------------------------------------------------------------- failure rates


def test_h100_rate_is_llama3_unexpected_interruptions_per_gpu_hour():
    # 419 unexpected interruptions / (16,384 GPUs x 54 days x 24 h) = 1.973e-5 per GPU-hour
    rate = failure_rate(H100)
    assert rate.per_gpu_hour == pytest.approx(419 / (16384 * 54 * 24))
    assert rate.basis == "published" and "2407.21783" in rate.source
    assert rate.job_mtbf_s(16384) / HOUR == pytest.approx(54 * 24 / 419)  # 3.09 h between interruptions


def test_a100_rate_from_meta_research_clusters_and_user_rate_wins():
    # 1.8 h projected MTTF for a 16,384-GPU job: 1 / (1.8 x 16,384) per GPU-hour
    assert failure_rate(A100).per_gpu_hour == pytest.approx(1 / (1.8 * 16384))
    assert failure_rate(get_gpu("l4")).basis == "borrowed"
    user = failure_rate(H100, 1e-4)
    assert (user.per_gpu_hour, user.basis) == (1e-4, "user-set")


# ------------------------------------------------------------------------------------------- checkpoints


def test_checkpoint_of_mixed_precision_adam_is_14_bytes_per_parameter():
    # bf16 weights (2) + fp32 master (4) + Adam m, v (4 + 4); gradients are not saved
    assert checkpoint_bytes(7_000_000_000, 2.0, 12.0) == 98_000_000_000


def test_parallel_file_system_is_capped_at_its_aggregate_rate():
    pfs = storage("pfs")
    assert pfs.job_bytes_per_s(16384) == 2e12  # 16,384 x 50 GB/s would be 819 TB/s: the 2 TB/s cap binds
    assert pfs.job_bytes_per_s(8) == 8 * 50e9
    assert storage("nvme").job_bytes_per_s(16384) == 16384 * 3.5e9
    assert storage("pfs", 1e9).job_bytes_per_s(100) == 100e9  # the user's rate per GPU, no cap
    with pytest.raises(UserError):
        storage("tape")


def test_default_restart_is_nccl_timeout_plus_rescheduling_plus_reading_back():
    cost = checkpoint_cost(4_000_000_000_000, 16384, storage("pfs"))
    assert cost.write_s == pytest.approx(2.0)  # 4 TB at 2 TB/s
    assert cost.restart_s == pytest.approx(600 + 300 + 2.0)
    assert checkpoint_cost(10, 8, storage("pfs"), user_restart_s=60).restart_s == 60


# ------------------------------------------------------------------------------------------- Young / Daly


def test_young_and_daly_intervals_by_hand():
    # delta = 60 s, M = 1 h: Young sqrt(2 x 60 x 3600) = 657.3 s; Daly's eq. 37 with delta / 2M = 1/120
    assert young_interval_s(60, 3600) == pytest.approx(657.267, abs=1e-3)
    daly = math.sqrt(2 * 60 * 3600) * (1 + math.sqrt(1 / 120) / 3 + (1 / 120) / 9) - 60
    assert daly_interval_s(60, 3600) == pytest.approx(daly)
    assert daly == pytest.approx(617.9, abs=0.1)
    assert daly_interval_s(8000, 3600) == 3600  # a write longer than 2 M: checkpoint every M


def test_daly_wall_time_by_hand_and_its_interval_is_the_minimum():
    # tau = 600 s, delta = 60 s, R = 300 s, M = 3600 s: T_w / T_s = M e^(R/M) (e^((tau+delta)/M) - 1) / tau
    expected = 3600 * math.exp(300 / 3600) * (math.exp(660 / 3600) - 1) / 600
    assert wall_time_ratio(600, 60, 300, 3600) == pytest.approx(expected)
    assert expected == pytest.approx(1.3122, abs=1e-3)  # 6 x 0.20122 x 1.08690
    best = daly_interval_s(60, 3600)
    at_best = wall_time_ratio(best, 60, 300, 3600)
    for other in (0.5 * best, 0.8 * best, 1.25 * best, 2 * best):
        assert wall_time_ratio(other, 60, 300, 3600) > at_best
    assert wall_time_ratio(600, 60, 300, math.inf) == 1.0


def test_goodput_terms_add_up_and_expected_interruptions_follow_the_wall_time():
    term = goodput(
        fixed_cost(60, 300), failures_per_hour=1.0, failure_source="test", work_s=100 * HOUR, gpus=8
    )
    lost = term.checkpoint_share + term.restart_share + term.rework_share
    assert lost == pytest.approx(1 - term.effective_fraction)
    assert term.wall_time_s == pytest.approx(100 * HOUR / term.effective_fraction)
    assert term.expected_interruptions == pytest.approx(term.wall_time_s / HOUR)  # one an hour
    assert term.gpu_hours == pytest.approx(8 * term.wall_time_s / HOUR)
    assert term.interval_basis == "Daly optimum"
    fixed = goodput(fixed_cost(60, 300), 1.0, "test", interval_s=600)
    assert fixed.effective_fraction == pytest.approx(1 / wall_time_ratio(600, 60, 300, 3600))


def test_resilience_refuses_negative_figures():
    with pytest.raises(UserError):
        Resilience(failures_per_gpu_hour=-1)
    with pytest.raises(UserError):
        Resilience(checkpoint_interval_s=0)
    assert job_goodput(H100, 8, 1, 10**9, Resilience(failures_per_gpu_hour=0)) is None


# ------------------------------------------------------------------------------------------- the Llama 3 target


def test_llama3_405b_on_16384_h100s_reproduces_the_published_snapshot():
    """arXiv 2407.21783, section 3.3.4: 419 unexpected interruptions in 54 days on 16,384 H100s, more than 90 %
    effective training time. Inputs: the published rate, a parallel file system (Tectonic's 2 TB/s), Daly's
    interval, the default 15-min restart."""
    model = resolve_model("llama-3.1-405b")
    result = plan(model, Workload(task="pretrain", seq_len=8192, global_batch=2048, tokens=15.6e12), H100,
                  Constraints(gpus=16384), top=1)  # fmt: skip
    term = result.options[0].goodput
    assert term is not None
    layout = result.options[0].layout
    # bf16 weights + fp32 master + m, v: Megatron-style tensor parallel or DeepSpeed's 16-bit training
    assert (layout.tp > 1 and layout.zero <= 1) or result.options[0].memory.runtime == "deepspeed"
    assert term.checkpoint.bytes == pytest.approx(14 * 405.85e9, rel=0.01)  # 5.7 TB, written in 2.8 s
    assert 0.87 <= term.effective_fraction <= 0.95  # "over 90 %", within a few points
    over_54_days = term.interruptions_per_hour * 54 * 24
    assert over_54_days == pytest.approx(419, rel=0.2)


# ------------------------------------------------------------------------------------------- in the search


def test_training_options_carry_goodput_and_limits_count_it():
    model = resolve_model("llama-3.1-8b")
    workload = Workload(task="pretrain", tokens=1e11)
    option = plan(model, workload, H100, Constraints(gpus=1024), top=1).options[0]
    term = option.goodput
    assert term is not None and term.effective_fraction < 1
    assert option.effective_wall_time_s == pytest.approx(option.wall_time_s / term.effective_fraction)
    assert option.as_dict()["goodput"]["wall_time_s"] == pytest.approx(option.effective_wall_time_s)
    # a deadline between the failure-free and the real wall time is missed
    deadline = (option.wall_time_s + option.effective_wall_time_s) / 2
    missed = plan(model, workload, H100, Constraints(gpus=1024, deadline_s=deadline), top=1)
    assert not missed.options
    off = plan(model, workload, H100, Constraints(gpus=1024, resilience=Resilience(failures_per_gpu_hour=0)))
    assert off.options[0].goodput is None and off.options[0].as_dict()["goodput"] is None


def test_serving_options_have_no_goodput_term():
    result = plan(resolve_model("llama-3.1-8b"), Workload(task="inference", seq_len=2048), H100, top=1)
    assert result.options[0].goodput is None and result.options[0].as_dict()["goodput"] is None


# ------------------------------------------------------------------------------------------- spot


def test_default_spot_rate_is_awss_top_band():
    # 20 % of instances interrupted in a month of 730.5 h: 1 - e^(-730.5 rate) = 0.2
    assert 1 - math.exp(-DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR * 730.5) == pytest.approx(0.2)


def test_spot_break_even_by_hand():
    # spot at half price; the spot job keeps 1 - 0.1 n of its time on n nodes: it pays while 0.5 / (1 - 0.1 n) < 1,
    # i.e. up to 4 nodes
    comparison = compare_spot(0.5, 1.0, lambda n: (1.0, 1 - 0.1 * n), nodes=2)
    assert comparison.pays and comparison.break_even_nodes == 4
    assert comparison.spot_per_useful_gpu_hour == pytest.approx(0.5 / 0.8)
    never = compare_spot(0.99, 1.0, lambda n: (1.0, 0.5), nodes=1)
    assert not never.pays and never.break_even_nodes == 0
    always = compare_spot(0.5, 1.0, lambda n: (1.0, 1.0), nodes=1)
    assert always.break_even_nodes is None


def test_spot_stops_paying_for_large_jobs_that_lose_every_node():
    resilience = Resilience(spot_interruptions_per_node_hour=0.05)
    small = spot_against_on_demand(H100, 8, 1, 10**12, resilience, spot_price=2.0, on_demand_price=3.0)
    assert small.pays and small.break_even_nodes is not None and small.break_even_nodes > 1
    large = spot_against_on_demand(
        H100, 8 * 4096, 4096, 10**12, resilience, spot_price=2.0, on_demand_price=3.0
    )
    assert not large.pays and large.break_even_nodes == small.break_even_nodes
    assert large.spot_fraction < small.spot_fraction


def test_spot_overhead_grows_with_the_interruption_rate_and_vanishes_without_it():
    assert spot_overhead_of_job(H100, 64, 0.0, 60, 900)[0] == pytest.approx(0.0)
    low, high = (spot_overhead_of_job(H100, 64, rate, 60, 900)[0] for rate in (0.005, 0.05))
    assert 0 < low < high
    # 8 nodes x 0.05 = 0.4 reclaims an hour on top of 64 x 1.97e-5 failures: a 15-min restart alone costs
    # e^(900 x 0.4013 / 3600) - 1 = 10.5 % more than on demand's restarts, and rework adds more
    assert high > 0.105


# ------------------------------------------------------------------------------------------- serving replicas


def test_replica_failure_by_hand():
    # 8-GPU replicas at 0.01 failures per GPU-hour: 0.08 an hour each; down 1 h per failure: u = 0.08 / 1.08
    failure = replica_failure(H100, 4, 8, 10**11, 1000.0, storage("pfs"),
                              Resilience(failures_per_gpu_hour=0.01, restart_s=3600), target_tokens_per_s=800)  # fmt: skip
    assert failure is not None
    assert failure.failures_per_day == pytest.approx(4 * 0.08 * 24)
    assert failure.down_share == pytest.approx(0.08 / 1.08)
    assert failure.any_down_share == pytest.approx(1 - (1 - 0.08 / 1.08) ** 4)
    assert failure.tokens_per_s_one_down == pytest.approx(750) and failure.meets_target_one_down is False
    assert failure.expected_tokens_per_s == pytest.approx(1000 * (1 - 0.08 / 1.08))
    # the default restart reads the weights back: 100 GB over 8 x 50 GB/s
    default = replica_failure(H100, 4, 8, 10**11, 1000.0, storage("pfs"), Resilience())
    assert default is not None and default.restart_s == pytest.approx(900 + 10**11 / 400e9)
    assert default.meets_target_one_down is None
    assert (
        replica_failure(H100, 4, 8, 10**11, 1000.0, storage("pfs"), Resilience(failures_per_gpu_hour=0))
        is None
    )


def test_serving_options_carry_the_replica_failure_term():
    workload = Workload(task="inference", seq_len=2048, tokens_per_second=5000, concurrent_users=256)
    option = plan(resolve_model("llama-3.1-8b"), workload, H100, top=1).options[0]
    failure = option.replica_failure
    assert failure is not None and failure.replicas == option.layout.dp
    assert failure.replica_gpus == option.layout.tp * option.layout.pp
    assert failure.tokens_per_s_one_down == pytest.approx(
        option.tokens_per_s * (failure.replicas - 1) / failure.replicas
    )
    assert option.as_dict()["replica_failure"]["meets_target_one_down"] == (
        failure.tokens_per_s_one_down >= 5000
    )


def test_failures_off_ask_no_storage_and_spot_alone_interrupts():
    """With failures off and no spot there is no goodput term, and the storage is never asked (a bad checkpoint
    rate stays unread, as before JobFailures existed); spot reclaims alone interrupt the job: then the storage
    is asked, and a bad rate is the user's error."""
    bad_rate = {"checkpoint_bytes_per_s_per_gpu": -1.0}
    assert job_goodput(H100, 8, 1, 10**9, Resilience(failures_per_gpu_hour=0, **bad_rate)) is None
    spot = Resilience(failures_per_gpu_hour=0, spot_interruptions_per_node_hour=0.5)
    term = job_goodput(H100, 16, 2, 10**9, spot)
    assert term is not None
    assert term.failures_per_hour == 0 and term.spot_interruptions_per_hour == pytest.approx(
        1.0
    )  # 2 nodes x 0.5
    assert term.job_mtbf_s == pytest.approx(3600.0)
    with pytest.raises(UserError):
        job_goodput(H100, 16, 2, 10**9, Resilience(failures_per_gpu_hour=0, spot_interruptions_per_node_hour=0.5,
                                                   **bad_rate))  # fmt: skip
