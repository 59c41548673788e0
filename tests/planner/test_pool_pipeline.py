"""A pipeline over a mixed GPU pool (planner.search.pool_pipeline) and separate jobs: issue 18's invariants as
hand calculations and properties."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner import perf
from planner.cli import main
from planner.gpus import get_gpu
from planner.memory import MemoryConfig, Stage, estimate_total_bytes, split_stages, stage_total_bytes
from planner.models import resolve_model
from planner.search import Constraints, Workload, plan
from planner.search.pool_pipeline import assign_layers, ideal_tokens_per_s
from planner.search.pools import EVERY_WAY, PoolPart, compare_pool
from planner.vocabulary import Layout, Task

A100, H100, A100_40 = get_gpu("a100-sxm-80gb"), get_gpu("h100-sxm"), get_gpu("a100-sxm-40gb")
MODEL = resolve_model("llama-3.1-70b")
WORK = Workload(task="pretrain", tokens=1e12)


@pytest.fixture(scope="module")
def mixed():
    return compare_pool(MODEL, WORK, [PoolPart(A100, 64), PoolPart(H100, 32)], ways=EVERY_WAY)


def _choice(comparison, name):
    return next(choice for choice in comparison.choices if choice.name == name)


# -- the layer split --------------------------------------------------------------------------------------------


def test_layers_split_by_hand():
    # per-layer seconds 1, 1 and 0.5 (the third stage twice as fast), 8 layers: 2 + 2 + 4 keeps every stage at 2 s
    assert assign_layers(8, lambda stage, n: n * (1.0, 1.0, 0.5)[stage], 3) == (2, 2, 4)
    # an LM head of 1 s on the last stage moves layers off it: the slowest stage can be no faster than 3 s
    with_head = assign_layers(
        8, lambda stage, n: n * (1.0, 1.0, 0.5)[stage] + (1.0 if stage == 2 else 0.0), 3
    )
    assert (
        sum(with_head) == 8
        and max(n * c + h for n, c, h in zip(with_head, (1, 1, 0.5), (0, 0, 1), strict=True)) == 3
    )
    # the fast stage's memory holds 2 layers: the slow ones take 3 each (3 s), and caps short of 8 hold no split
    assert assign_layers(8, lambda stage, n: n * (1.0, 1.0, 0.5)[stage], 3, most=(3, 3, 2)) == (3, 3, 2)
    assert assign_layers(8, lambda stage, n: n * (1.0, 1.0, 0.5)[stage], 3, most=(3, 3, 1)) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0.1, 10.0), st.integers(1, 6)), min_size=1, max_size=4), st.floats(0.0, 5.0),
       st.integers(0, 7))  # fmt: skip
def test_the_split_is_the_best_integer_split(stages_drawn, head, extra):
    per_layer = [pace for pace, _ in stages_drawn]
    most = [cap for _, cap in stages_drawn]
    stages = len(per_layer)
    layers = stages + extra

    def cost(stage, n):
        return n * per_layer[stage] + (head if stage == stages - 1 else 0.0)

    for caps in (None, most):
        split = assign_layers(layers, cost, stages, caps)
        # every split with one layer or more per stage (and within the caps), by brute force
        splits = [counts for counts in itertools.product(range(1, layers + 1), repeat=stages)
                  if sum(counts) == layers and (caps is None or all(n <= c for n, c in zip(counts, caps, strict=True)))]  # fmt: skip
        if not splits:
            assert split is None
            continue
        assert split is not None and sum(split) == layers and min(split) >= 1
        best = min(max(cost(s, n) for s, n in enumerate(counts)) for counts in splits)
        assert max(cost(s, n) for s, n in enumerate(split)) == pytest.approx(best)


def test_faster_type_holds_more_layers_and_every_layer_is_placed(mixed):
    pipeline = _choice(mixed, "pipeline").pipeline
    assert sum(stage.layers for stage in pipeline.stages) == MODEL.layers
    a100 = [stage.layers for stage in pipeline.stages if stage.gpu_id == A100.id]
    h100 = [stage.layers for stage in pipeline.stages if stage.gpu_id == H100.id]
    assert a100 and h100 and min(h100) > max(a100)
    assert pipeline.stages[0].has_embedding and pipeline.stages[-1].has_head
    assert all(stage.fits for stage in pipeline.stages)
    # every GPU of a type holds its stages: dp x tp GPUs per stage
    layout = pipeline.layout
    for gpu_id, count in pipeline.gpus.items():
        assert count == layout.dp * layout.tp * sum(stage.gpu_id == gpu_id for stage in pipeline.stages)
    assert layout.pp == len(pipeline.stages) and layout.zero <= 1  # pipeline parallel with ZeRO-0/1 only


# -- the step ---------------------------------------------------------------------------------------------------


def test_pipeline_step_by_hand(mixed):
    choice = _choice(mixed, "pipeline")
    pipeline = choice.pipeline
    busy = [stage.microbatch_s for stage in pipeline.stages]
    # the slowest stage (or a slower boundary send) paces every micro-batch, the others fill and drain once
    pace = max(max(busy), pipeline.boundary_send_s)
    step = pipeline.microbatches * pace + sum(busy) - max(busy) + pipeline.p2p_s + pipeline.dp_comm_s
    step += pipeline.optimizer_s
    tokens = pipeline.layout.dp * pipeline.layout.micro_batch * pipeline.microbatches * WORK.seq_len
    assert tokens == WORK.global_batch * WORK.seq_len  # 1,024 sequences: no sequence lost to rounding
    assert choice.tokens_per_s == pytest.approx(tokens / step)
    assert choice.wall_time_s == pytest.approx(1e12 / (choice.tokens_per_s * choice.effective_fraction))


def test_a_stage_of_the_whole_model_is_the_planned_step():
    # one stage holding every layer and the LM head is the even split's step of pp 1, exactly
    numbers = perf.model_numbers(MODEL)
    model = perf.StepModel(
        numbers, H100, seq_len=4096, global_batch=1024, rates=perf.device_rates(H100, "bf16")
    )
    layout = Layout(dp=1, tp=8, micro_batch=1)
    stage = model.stage_time(layout, MODEL.layers, 0, True, numbers.total_params)
    assert stage.microbatch_s * 1024 + stage.dp_comm_s + stage.optimizer_s == pytest.approx(
        model.seconds(layout)
    )
    # and a stage is linear in its layers: the LM head and the loss on top
    one, two = (model.stage_time(layout, n, 0, False, 0).microbatch_s for n in (1, 2))
    assert two == pytest.approx(2 * one)


# -- memory of uneven stages ------------------------------------------------------------------------------------


def _config(pp, dp=1, tp=4, inflight=None):
    return MemoryConfig(task=Task.PRETRAIN, seq_len=4096, layout=Layout(dp=dp, tp=tp, pp=pp), sequence_parallel=True,
                        inflight_microbatches=inflight or pp, gradient_accumulation=2)  # fmt: skip


def test_stage_memory_by_hand():
    config = _config(pp=6)
    with_embedding = stage_total_bytes(MODEL, config, Stage(0, 9, 0, True, False))
    without = stage_total_bytes(MODEL, config, Stage(0, 9, 0, False, False))
    # Megatron-style bf16 weights (2 bytes), fp32 gradients (4), fp32 master + AdamW m, v (12) per parameter over
    # tp 4, and the allocator's 5% margin on the gradients: 18.2 bytes per embedding parameter
    embedding = MODEL.vocab * MODEL.hidden / 4
    assert with_embedding - without == pytest.approx(embedding * 18.2, abs=8)
    # 1F1B: stage i holds min(p, m) - i micro-batches of activations, so stage 0 holds p - 1 more than the last
    last, second_last = (stage_total_bytes(MODEL, config, Stage(i, 9, 0, False, False)) for i in (5, 4))
    assert without - last == pytest.approx(5 * (second_last - last), abs=8)


def test_even_split_stages_agree_with_the_memory_model():
    config = _config(pp=4)
    stages = split_stages(MODEL, (20, 20, 20, 20))
    assert [s.layers for s in stages] == [20] * 4 and stages[0].has_embedding and stages[-1].has_head
    fullest = max(stage_total_bytes(MODEL, config, stage) for stage in (stages[0], stages[-1]))
    assert fullest == estimate_total_bytes(MODEL, config)
    with pytest.raises(ValueError):
        split_stages(MODEL, (40, 39))


def test_a_stage_that_does_not_fit_is_reported_with_its_reason():
    model = resolve_model("llama-3.1-405b")
    comparison = compare_pool(model, WORK, [PoolPart(A100_40, 8), PoolPart(A100, 8)], ways=EVERY_WAY)
    (miss,) = [m for m in comparison.not_fitting if m.name == "pipeline"]
    assert miss.reason.code == "pool.pipeline.stage_too_big"
    params = miss.reason.params
    assert params["need_bytes"] > params["capacity_bytes"]
    assert params["capacity_bytes"] in (Constraints().usable_bytes(A100_40), Constraints().usable_bytes(A100))
    assert "needs" in miss.reason.text and "pipeline" not in {choice.name for choice in comparison.choices}


@pytest.mark.slow
def test_a_split_by_speed_that_overflows_is_split_again_within_memory():
    # 405B on 128 L40S (48 GB) + 64 H100: by speed alone an H100 stage overflows its 80 GB; split within each
    # stage's memory the pipeline fits, every stage under its own GPU's memory
    model = resolve_model("llama-3.1-405b")
    comparison = compare_pool(
        model, WORK, [PoolPart(get_gpu("l40s"), 128), PoolPart(H100, 64)], ways=EVERY_WAY
    )
    pipeline = _choice(comparison, "pipeline").pipeline
    assert comparison.not_fitting == () and all(stage.fits for stage in pipeline.stages)
    assert sum(stage.layers for stage in pipeline.stages) == model.layers
    assert _choice(comparison, "pipeline").tokens_per_s <= comparison.ideal_sum_tokens_per_s


# -- the invariants of the comparison ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "parts", [((A100, 64), (H100, 32)), ((A100, 16), (H100, 128)), ((A100_40, 32), (H100, 16))]
)
def test_no_mixed_way_beats_its_parts_run_perfectly(parts):
    comparison = compare_pool(MODEL, WORK, [PoolPart(gpu, count) for gpu, count in parts], ways=EVERY_WAY)
    ideal = {gpu.id: ideal_tokens_per_s(MODEL, WORK, gpu, count, Constraints(), {}) for gpu, count in parts}
    assert comparison.ideal_sum_tokens_per_s == pytest.approx(sum(ideal.values()))
    for choice in comparison.choices:
        assert choice.tokens_per_s <= comparison.ideal_sum_tokens_per_s
        if choice.name.startswith("alone:"):  # no plan on one type beats that type run perfectly
            assert choice.tokens_per_s <= ideal[choice.name.split(":", 1)[1]]
    assert "pipeline" in {choice.name for choice in comparison.choices}


def test_separate_jobs_add_up_but_one_run_goes_at_its_own_pace(mixed):
    separate = _choice(mixed, "separate")
    alone = [choice for choice in mixed.choices if choice.name.startswith("alone:")]
    fastest = max(alone, key=lambda choice: choice.useful_tokens_per_s)
    assert separate.aggregate_tokens_per_s == pytest.approx(sum(choice.tokens_per_s for choice in alone))
    assert separate.aggregate_tokens_per_s == pytest.approx(mixed.perfect_sum_tokens_per_s)
    assert (separate.tokens_per_s, separate.wall_time_s) == (fastest.tokens_per_s, fastest.wall_time_s)
    # it ranks as that run, right after it, and the reason compares the winner with another run
    names = [choice.name for choice in mixed.choices]
    assert names.index("separate") == names.index(fastest.name) + 1
    assert "separate" not in mixed.reason.text


def test_the_fastest_way_wins(mixed):
    useful = [choice.useful_tokens_per_s for choice in mixed.choices]
    assert useful == sorted(useful, reverse=True) and mixed.best == mixed.choices[0].name
    assert mixed.reason.code in ("pool.reason.faster", "pool.reason.faster_by_percent", "pool.reason.only")


def test_a_zero_count_reduces_every_way_to_the_single_type_answer():
    comparison = compare_pool(MODEL, WORK, [PoolPart(A100, 0), PoolPart(H100, 32)], ways=EVERY_WAY)
    alone = plan(MODEL, WORK, H100, Constraints(max_gpus=32), top=1).options[0]
    (choice,) = comparison.choices  # no pool, pipeline or separate jobs of one type
    assert choice.name == "alone:h100-sxm" and choice.tokens_per_s == alone.tokens_per_s
    assert comparison.not_fitting == () and comparison.perfect_sum_tokens_per_s == alone.tokens_per_s
    assert comparison.ideal_sum_tokens_per_s == ideal_tokens_per_s(MODEL, WORK, H100, 32, Constraints(), {})
    assert comparison.reason.code == "pool.reason.only"


@pytest.mark.slow
def test_cli_shows_the_pipeline_and_separate_jobs(capsys):
    argv = ["plan", "--model", "llama-3.1-70b", "--pool", "a100-sxm-80gb:64,h100-sxm:32", "--tokens", "1e12",
            "--spec-only", "--pool-ways", "all"]  # fmt: skip
    assert main([*argv, "--json"]) == 0
    pool = json.loads(capsys.readouterr().out)["pool"]
    rows = {choice["name"]: choice for choice in pool["choices"]}
    assert {"pipeline", "separate"} <= set(rows)
    stages = rows["pipeline"]["pipeline"]["stages"]
    assert sum(stage["layers"] for stage in stages) == 80 and all(stage["fits"] for stage in stages)
    assert rows["separate"]["aggregate_tokens_per_s"] == pytest.approx(pool["perfect_sum_tokens_per_s"])
    assert pool["ideal_sum_tokens_per_s"] >= max(choice["tokens_per_s"] for choice in pool["choices"])
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "pipeline: " in text and "separate: " in text and "run perfectly" in text


def test_the_default_ways_are_the_first_versions_rows():
    # callers that name rows "pool" / "alone:<gpu id>" (the desktop) keep those rows unless they ask for more
    comparison = compare_pool(MODEL, WORK, [PoolPart(A100, 64), PoolPart(H100, 32)])
    assert {choice.name for choice in comparison.choices} == {"pool", "alone:a100-sxm-80gb", "alone:h100-sxm"}
    assert comparison.reason.code in (
        "pool.reason.faster",
        "pool.reason.faster_by_percent",
        "pool.reason.only",
    )
    with pytest.raises(ValueError):
        compare_pool(MODEL, WORK, [PoolPart(A100, 64)], ways=("pipline",))


def test_with_a_flat_mfu_layers_go_by_the_datasheet_ratio():
    # a user-set MFU times every stage as its share of the model's FLOPs at peak x MFU: seconds per layer on a
    # type is then 1 / its datasheet bf16 peak, and the split is the min-max one at that ratio (one tp 1 stage)
    model, work = resolve_model("llama-3.1-8b"), Workload(task="pretrain", tokens=1e11, mfu=0.4)
    comparison = compare_pool(model, work, [PoolPart(A100, 8), PoolPart(H100, 8)], Constraints(pinned={"tp": 1}),
                              ways=("alone", "pipeline"))  # fmt: skip
    pipeline = _choice(comparison, "pipeline").pipeline
    per_layer = {}
    for stage in pipeline.stages:
        per_layer.setdefault(stage.gpu_id, set()).add(round(stage.microbatch_s / stage.layers, 12))
    assert all(len(values) == 1 for values in per_layer.values())
    a100, h100 = per_layer[A100.id].pop(), per_layer[H100.id].pop()
    assert a100 / h100 == pytest.approx(H100.peak_tflops("bf16") / A100.peak_tflops("bf16"))  # 989 / 312
    # min-max in whole layers: no stage could give a layer to another and both stay under the slowest
    slowest = max(stage.microbatch_s for stage in pipeline.stages)
    unit = {A100.id: a100, H100.id: h100}
    for stage in pipeline.stages:
        assert stage.microbatch_s + unit[stage.gpu_id] > slowest * (1 - 1e-9)


@pytest.mark.slow
@settings(max_examples=10, deadline=None)
@given(st.sampled_from([A100, A100_40, get_gpu("l40s")]), st.sampled_from([0, 2, 4, 8, 16]),
       st.sampled_from([0, 1, 4, 8, 16]))  # fmt: skip
def test_invariants_over_random_pools(other, others, h100s):
    if others + h100s == 0:
        return
    model = resolve_model("llama-3.1-8b")
    parts = [PoolPart(other, others), PoolPart(H100, h100s)]
    comparison = compare_pool(model, WORK, parts, ways=EVERY_WAY)
    for choice in comparison.choices:
        assert choice.tokens_per_s <= comparison.ideal_sum_tokens_per_s
        if choice.name == "pool":
            assert choice.tokens_per_s <= comparison.perfect_sum_tokens_per_s * (1 + 1e-12)
        if choice.pipeline is not None:
            assert sum(stage.layers for stage in choice.pipeline.stages) == model.layers
            assert all(stage.fits for stage in choice.pipeline.stages)
    if 0 in (others, h100s):  # one type: its own plan, nothing mixed
        assert all(choice.name.startswith("alone:") for choice in comparison.choices)
        assert len(comparison.choices) <= 1 and comparison.not_fitting == ()


@pytest.mark.slow
def test_cli_pool_ways(capsys):
    base = ["plan", "--model", "llama-3.1-8b", "--pool", "a100-sxm-80gb:8,h100-sxm:4", "--tokens", "1e11",
            "--spec-only", "--json"]  # fmt: skip
    assert main([*base, "--pool-ways", "alone,pipeline"]) == 0
    names = {choice["name"] for choice in json.loads(capsys.readouterr().out)["pool"]["choices"]}
    assert names == {"pipeline", "alone:a100-sxm-80gb", "alone:h100-sxm"}
    assert main([*base, "--pool-ways", "alone,pool"]) == 0  # the ways left out are said
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert any(note.startswith("--pool-ways leaves out pipeline, separate") for note in notes)
    assert main([*base, "--pool-ways", "alone,pipline"]) == 2  # a typo: one line, no traceback
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "pipline" in err and "Traceback" not in err


def test_a_close_race_is_told_in_percent_from_the_two_rows(mixed):
    # the reason said "1.00x faster" when the pool and the pipeline were 0.4% apart on the Plan page example
    best, runner = mixed.choices[0], next(c for c in mixed.choices[1:] if c.name != "separate")
    ratio = best.useful_tokens_per_s / runner.useful_tokens_per_s
    assert 1 < ratio < 1.1, "the fixture is a close race: the pipeline and the whole pool"
    assert mixed.reason.code == "pool.reason.faster_by_percent"
    assert f"{100 * (ratio - 1):.1f}% faster than" in mixed.reason.text


@pytest.mark.slow
@pytest.mark.parametrize("h100s", [1, 4, 8, 16])
def test_the_pool_never_beats_the_types_own_plans_with_16_a100(h100s):
    comparison = compare_pool(resolve_model("llama-3.1-8b"), WORK, [PoolPart(A100, 16), PoolPart(H100, h100s)],
                              ways=EVERY_WAY)  # fmt: skip
    pool = next(choice for choice in comparison.choices if choice.name == "pool")
    assert pool.tokens_per_s <= comparison.perfect_sum_tokens_per_s * (1 + 1e-12)
