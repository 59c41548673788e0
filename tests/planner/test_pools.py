"""Mixed GPU pools (planner.search.pools): the targets of issue 18 as properties, and the CLI's --pool."""

from __future__ import annotations

import json

import pytest

from planner.cli import main
from planner.errors import UserError
from planner.gpus import get_gpu
from planner.models import resolve_model
from planner.money import Money
from planner.search import Constraints, Workload, plan
from planner.search.pools import PoolPart, compare_pool, pooled_choice

A100, H100, L40S = get_gpu("a100-sxm-80gb"), get_gpu("h100-sxm"), get_gpu("l40s")
MODEL = resolve_model("llama-3.1-70b")
WORK = Workload(task="pretrain", tokens=1e12)


@pytest.mark.parametrize(
    "parts", [((A100, 64), (H100, 32)), ((A100, 16), (H100, 128)), ((H100, 64), (L40S, 64))]
)
def test_a_pooled_job_never_beats_the_sum_of_its_parts(parts):
    comparison = compare_pool(MODEL, WORK, [PoolPart(gpu, count) for gpu, count in parts])
    pooled = [choice for choice in comparison.choices if choice.name == "pool"]
    for choice in pooled:
        assert choice.tokens_per_s <= comparison.perfect_sum_tokens_per_s
        # nor the sum of its own plans (the common layout each type runs in the pool)
        assert choice.tokens_per_s <= sum(option.tokens_per_s for option in choice.plans) * (1 + 1e-12)
    names = [choice.name for choice in comparison.choices]
    assert names[0] == comparison.best
    useful = [choice.useful_tokens_per_s for choice in comparison.choices]
    assert useful == sorted(useful, reverse=True)


def test_a_zero_count_reduces_to_the_single_type_answer():
    comparison = compare_pool(MODEL, WORK, [PoolPart(A100, 0), PoolPart(H100, 32)])
    alone = plan(MODEL, WORK, H100, Constraints(max_gpus=32), top=1).options[0]
    assert [choice.name for choice in comparison.choices] == ["alone:h100-sxm"]
    (choice,) = comparison.choices
    assert choice.tokens_per_s == alone.tokens_per_s and choice.wall_time_s == alone.effective_wall_time_s
    # and a pool of one plan is that plan: B / (B / r) + d = the planned step
    assert pooled_choice([alone], WORK, Constraints()).tokens_per_s == pytest.approx(alone.tokens_per_s)


def test_pooled_step_by_hand_and_cost_bills_every_gpu():
    prices = {A100.id: Money(1.5), H100.id: Money(2.5)}
    comparison = compare_pool(MODEL, WORK, [PoolPart(A100, 64), PoolPart(H100, 32)], prices=prices)
    pool = next(choice for choice in comparison.choices if choice.name == "pool")
    a, h = pool.plans
    tokens = WORK.tokens_per_step
    compute_a = a.step_time_s - a.time_breakdown["dp_comm_s"]
    compute_h = h.step_time_s - h.time_breakdown["dp_comm_s"]
    step = tokens / (tokens / compute_a + tokens / compute_h) + max(a.time_breakdown["dp_comm_s"],
                                                                    h.time_breakdown["dp_comm_s"])  # fmt: skip
    assert pool.tokens_per_s == pytest.approx(tokens / step)
    assert pool.wall_time_s == pytest.approx(1e12 / (pool.tokens_per_s * pool.effective_fraction))
    assert pool.cost.amount == pytest.approx((64 * 1.5 + 32 * 2.5) * pool.wall_time_s / 3600)
    # one model-parallel shape and sharding over the pool
    assert (a.layout.tp, a.layout.pp, a.layout.zero, a.layout.offload) == (
        h.layout.tp, h.layout.pp, h.layout.zero, h.layout.offload)  # fmt: skip


def test_serving_replicas_over_a_pool_add_up_and_lose_the_largest_replica():
    workload = Workload(task="inference", seq_len=2048, concurrent_users=256, tokens_per_second=5000)
    comparison = compare_pool(MODEL, workload, [PoolPart(A100, 32), PoolPart(H100, 16)])
    pool = next(choice for choice in comparison.choices if choice.name == "pool")
    assert pool.gpus == {A100.id: 32, H100.id: 16}  # every GPU of the pool serves
    assert pool.tokens_per_s == pytest.approx(sum(option.tokens_per_s for option in pool.plans))
    largest = max(option.tokens_per_s / option.layout.dp for option in pool.plans)
    assert pool.tokens_per_s_one_down == pytest.approx(pool.tokens_per_s - largest)
    assert pool.meets_target == (pool.tokens_per_s >= 5000)
    assert pool.meets_target_one_down == (pool.tokens_per_s_one_down >= 5000)
    # the users are split between the types: together they hold at least the stated 256
    assert sum(option.concurrent_users * option.layout.dp for option in pool.plans) >= 256
    single = compare_pool(MODEL, workload, [PoolPart(A100, 0), PoolPart(H100, 16)])
    assert [choice.name for choice in single.choices] == ["alone:h100-sxm"]
    # why the winner wins, said once as a Message (the CLI prints its English, the GUI renders it), by hand
    best, runner = comparison.choices[:2]
    down = best.tokens_per_s_one_down
    target = ", enough for the target" if down >= 5000 else ", short of the target"
    assert comparison.reason.code == "pool.reason.serving_more"
    assert comparison.reason.text == (
        f"{'the whole pool' if best.name == 'pool' else best.name.split(':')[1] + ' alone'}"
        f" serves {best.tokens_per_s / runner.tokens_per_s:.2f}x what "
        f"{'the whole pool' if runner.name == 'pool' else runner.name.split(':')[1] + ' alone'}"
        f" does; with its largest replica down it serves {down:,.0f} tokens/s{target}"
    )
    assert single.reason.code == "pool.reason.serving_only" and single.reason.text.startswith(
        "h100-sxm alone is the only way that fits; with its largest replica down it serves"
    )


def test_no_count_is_refused():
    with pytest.raises(UserError):
        compare_pool(MODEL, WORK, [PoolPart(H100, 0)])


@pytest.mark.slow
def test_cli_pool_json(capsys):
    code = main(["plan", "--model", "llama-3.1-70b", "--pool", "a100-sxm-80gb:64,h100-sxm:32", "--tokens", "1e12",
                 "--price-per-gpu-hour", "2", "--spec-only", "--json"])  # fmt: skip
    payload = json.loads(capsys.readouterr().out)
    assert code == 0
    pool = payload["pool"]
    assert pool["best"] == pool["choices"][0]["name"] and pool["reason"]
    # the default is every way (`--pool-ways all`), the Plan page's rows; no note asks for more ways
    assert {choice["name"] for choice in pool["choices"]} == {"pool", "pipeline", "separate", "alone:a100-sxm-80gb",
                                                             "alone:h100-sxm"}  # fmt: skip
    assert not any("--pool-ways" in note for note in payload["notes"])


def test_cli_pool_errors(capsys):
    for argv in (
        ["--pool", "h100-sxm:x"],
        ["--pool", "h100-sxm:0"],
        ["--pool", "nosuchgpu:8"],
        [],
        ["--gpu", "h100-sxm", "--pool", "h100-sxm:8"],
    ):
        assert main(["plan", "--model", "llama-3.1-70b", "--tokens", "1e12", *argv]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
