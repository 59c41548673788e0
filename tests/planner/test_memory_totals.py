"""MemoryTotals (the search's fast path) against estimate_memory (the reference path).

The strategy search asks for thousands of per-GPU totals; MemoryTotals reuses what layouts differing only in
dp, ZeRO stage and offload share. It must give exactly estimate_memory's total_bytes, and refuse (None)
exactly the layouts estimate_memory refuses with a UserError, including silly values a user can pin.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.errors import UserError
from planner.memory import MemoryConfig, MemoryTotals, estimate_memory, estimate_total_bytes
from planner.models import generic_model, get_preset
from planner.vocabulary import Layout

MODELS = {
    "dense": get_preset("llama-3.1-70b"),
    "moe": get_preset("mixtral-8x7b"),
    "mla": get_preset("deepseek-v3"),
    "four-norms": get_preset("gemma-2-9b"),
    "generic": generic_model(1.3),
}
TASKS = [("train", "bf16"), ("train", "fp32"), ("train", "int4"), ("lora", "bf16"), ("qlora", "bf16"),
         ("inference", "bf16"), ("inference", "int4")]  # fmt: skip


def _reference_total(model, config: MemoryConfig) -> int | None:
    try:
        return estimate_memory(model, config).total_bytes
    except UserError:
        return None


def _reference_breakdown(model, config: MemoryConfig):
    try:
        return estimate_memory(model, config)
    except UserError:
        return None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    model_name=st.sampled_from(sorted(MODELS)),
    task=st.sampled_from(TASKS),
    flash=st.booleans(),
    sequence_parallel=st.booleans(),
    optimizer=st.sampled_from(["adamw", "adamw8bit", "sgd"]),
    tp=st.sampled_from([1, 2, 3, 4, 8, 16]),
    pp=st.sampled_from([1, 2, 4, 7, 32, 200]),
    ep=st.sampled_from([1, 2, 4, 8, 64]),
    # includes values validate_layout refuses: 0, True, a stage 4, unknown offload and recompute modes
    dp=st.sampled_from([0, 1, 2, 3, 16, 1024, True]),
    zero=st.sampled_from([0, 1, 2, 3, 4, True]),
    offload=st.sampled_from(["none", "optimizer", "all", "disk"]),
    recompute=st.sampled_from(["none", "selective", "full", "sometimes"]),
    micro_batch=st.sampled_from([1, 2, 8, 0]),
    runtime=st.sampled_from([None, "deepspeed", "fsdp2", "ddp", "torchtitan"]),
)
@pytest.mark.slow
def test_totals_equal_the_full_estimate(
    model_name,
    task,
    flash,
    sequence_parallel,
    optimizer,
    tp,
    pp,
    ep,
    dp,
    zero,
    offload,
    recompute,
    micro_batch,
    runtime,
):
    model = MODELS[model_name]
    base = MemoryConfig(task=task[0], precision=task[1], flash_attention=flash,
                        sequence_parallel=sequence_parallel, optimizer=optimizer, seq_len=2048,
                        runtime=runtime)  # fmt: skip
    totals = MemoryTotals(model, base)
    layout = Layout(dp=dp, tp=tp, pp=pp, ep=ep, zero=zero, recompute=recompute, offload=offload,
                    micro_batch=micro_batch)  # fmt: skip
    config = dataclasses.replace(base, layout=layout)
    expected = _reference_total(model, config)
    # twice: the second call reads the cached per-shape numbers
    assert totals.total(layout) == expected
    assert totals.total(layout) == expected
    # the breakdown on the cached parts is estimate_memory's, word for word (None where it refuses)
    assert totals.breakdown(layout) == _reference_breakdown(model, config)
    if expected is not None:
        assert estimate_total_bytes(model, config) == expected


def test_one_shape_serves_every_state_exactly():
    """The cached shape of (tp, pp, ep, recompute, micro-batch) is reused across dp, ZeRO stage and offload."""
    model = MODELS["moe"]
    base = MemoryConfig(task="train", seq_len=4096)
    totals = MemoryTotals(model, base)
    for dp in (1, 2, 4, 8, 64):
        for zero, offload in ((0, "none"), (1, "none"), (2, "optimizer"), (3, "none"), (3, "all")):
            layout = Layout(dp=dp, tp=2, pp=4, ep=4, zero=zero, offload=offload)
            assert totals.total(layout) == _reference_total(model, dataclasses.replace(base, layout=layout))
            assert totals.breakdown(layout) == _reference_breakdown(
                model, dataclasses.replace(base, layout=layout)
            )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    model_name=st.sampled_from(sorted(MODELS)),
    task=st.sampled_from(TASKS),
    # the second config's in-flight micro-batches include counts validate_layout refuses (0, above MAX_DEGREE)
    inflight=st.lists(st.sampled_from([None, 1, 3, 8, 0, 10**9]), min_size=2, max_size=2),
    sequence_parallel=st.lists(st.booleans(), min_size=2, max_size=2),
    shapes=st.lists(
        st.tuples(st.sampled_from([1, 2, 3, 8]), st.sampled_from([1, 2, 7, 200]), st.sampled_from([1, 4, 8])),
        min_size=1,
        max_size=6,
    ),
    dp=st.sampled_from([1, 2, 16]),
    zero=st.sampled_from([0, 1, 3]),
    micro_batch=st.sampled_from([1, 4]),
)
@pytest.mark.slow
def test_totals_sharing_shapes_equal_the_full_estimate(
    model_name, task, inflight, sequence_parallel, shapes, dp, zero, micro_batch
):
    """Two MemoryTotals sharing their (tp, pp, ep) parts (SharedShapes: what a search's configs, which differ
    only in sequence parallel and in-flight micro-batches, have in common) give each config's own estimate_memory
    total and refuse exactly what it refuses, whichever config met a shape first."""
    from planner.memory import SharedShapes

    model = MODELS[model_name]
    shared = SharedShapes()
    bases = [MemoryConfig(task=task[0], precision=task[1], seq_len=2048, sequence_parallel=sp,
                          inflight_microbatches=count) for sp, count in zip(sequence_parallel, inflight, strict=True)]  # fmt: skip
    totals = [MemoryTotals(model, base, shared) for base in bases]
    for tp, pp, ep in shapes:
        for base, at in zip(bases, totals, strict=True):
            layout = Layout(dp=dp, tp=tp, pp=pp, ep=ep, zero=zero, micro_batch=micro_batch)
            assert at.total(layout) == _reference_total(model, dataclasses.replace(base, layout=layout))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    model_name=st.sampled_from(sorted(MODELS)),
    task=st.sampled_from(TASKS),
    flash=st.booleans(),
    sequence_parallel=st.booleans(),
    accumulation=st.sampled_from([1, 2]),
    inflight=st.sampled_from([None, 3]),
    tp=st.sampled_from([1, 2, 3, 8]),
    pp=st.sampled_from([1, 2, 7, 200]),
    ep=st.sampled_from([1, 4, 8]),
    # several dps at once, repeated ones and values validate_layout refuses among them
    dps=st.lists(st.sampled_from([1, 2, 3, 4, 8, 16, 1024, 0, True, 10**7]), min_size=1, max_size=5),
    zero=st.sampled_from([0, 1, 2, 3, 4]),
    offload=st.sampled_from(["none", "optimizer", "all", "disk"]),
    recompute=st.sampled_from(["none", "selective", "full", "sometimes"]),
    micro_batch=st.sampled_from([1, 2, 8, 0]),
)
@pytest.mark.slow
def test_totals_at_several_dps_equal_the_full_estimate_at_each(
    model_name,
    task,
    flash,
    sequence_parallel,
    accumulation,
    inflight,
    tp,
    pp,
    ep,
    dps,
    zero,
    offload,
    recompute,
    micro_batch,
):
    """MemoryTotals.totals (one layout at several dps, without a Layout per dp) gives estimate_memory's total at
    each dp, None where it refuses the layout, whatever was asked before (a second MemoryTotals asks layouts one
    by one first)."""
    model = MODELS[model_name]
    base = MemoryConfig(task=task[0], precision=task[1], flash_attention=flash, sequence_parallel=sequence_parallel,
                        seq_len=2048, gradient_accumulation=accumulation, inflight_microbatches=inflight)  # fmt: skip
    expected = [
        _reference_total(model, dataclasses.replace(base, layout=Layout(
            dp=dp, tp=tp, pp=pp, ep=ep, zero=zero, recompute=recompute, offload=offload, micro_batch=micro_batch
        )))
        for dp in dps
    ]  # fmt: skip
    assert (
        MemoryTotals(model, base).totals(tp, pp, ep, zero, offload, recompute, micro_batch, dps) == expected
    )
    one_by_one = MemoryTotals(model, base)
    for dp in dps:
        layout = Layout(dp=dp, tp=tp, pp=pp, ep=ep, zero=zero, recompute=recompute, offload=offload,
                        micro_batch=micro_batch)  # fmt: skip
        one_by_one.total(layout)
    assert one_by_one.totals(tp, pp, ep, zero, offload, recompute, micro_batch, dps) == expected


@pytest.mark.parametrize("runtime", ["deepspeed", "fsdp2", "ddp", "torchtitan"])
def test_a_pinned_runtime_refuses_what_it_cannot_run_as_estimate_memory_does(runtime):
    """A pinned runtime refuses the states it cannot run (FSDP2: ZeRO-0/1 and optimizer-only offload; DDP: any
    sharding), in the fast path exactly as estimate_memory refuses them, and counts the others in its layout."""
    model = MODELS["dense"]
    base = MemoryConfig(task="train", seq_len=4096, gradient_accumulation=2, runtime=runtime)
    totals = MemoryTotals(model, base)
    dps = (1, 2, 8)
    allowed = 0
    for zero, offload in ((0, "none"), (1, "none"), (2, "none"), (2, "optimizer"), (3, "none"), (3, "all")):
        found = totals.totals(1, 1, 1, zero, offload, "full", 1, dps)
        configs = [dataclasses.replace(base, layout=Layout(dp=dp, zero=zero, recompute="full", offload=offload))
                   for dp in dps]  # fmt: skip
        assert found == [_reference_total(model, config) for config in configs]
        if found[-1] is not None:
            allowed += 1
            assert estimate_memory(model, configs[-1]).runtime == runtime
    assert allowed == {"deepspeed": 6, "fsdp2": 3, "ddp": 1, "torchtitan": 5}[runtime]


def test_totals_of_a_layout_at_every_state_and_several_dps():
    """The search's questions for one MoE layout (tp 2, pp 4, ep 4): each state at the dps it fits from, exactly
    estimate_memory's totals; dp 1 is refused (ep must divide dp x tp), as estimate_memory refuses it, and
    optimizer-only offload with a pipeline everywhere (no runtime runs it: DeepSpeed has no PP here, torchtitan
    offloads everything or nothing)."""
    model = MODELS["moe"]
    base = MemoryConfig(task="train", seq_len=4096, gradient_accumulation=2, sequence_parallel=True)
    totals = MemoryTotals(model, base)
    dps = (1, 2, 4, 8, 64)
    for zero, offload in ((0, "none"), (1, "none"), (2, "optimizer"), (3, "none"), (3, "all")):
        for recompute, micro_batch in (("none", 1), ("full", 2)):
            found = totals.totals(2, 4, 4, zero, offload, recompute, micro_batch, dps)
            expected = [
                _reference_total(model, dataclasses.replace(base, layout=Layout(
                    dp=dp, tp=2, pp=4, ep=4, zero=zero, recompute=recompute, offload=offload, micro_batch=micro_batch
                )))
                for dp in dps
            ]  # fmt: skip
            assert found == expected
            if offload == "optimizer":
                assert found == [None] * len(dps)
            else:
                assert found[0] is None and None not in found[1:]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    model_name=st.sampled_from(["dense", "moe"]),
    task=st.sampled_from(["pretrain", "lora", "inference"]),
    shape=st.tuples(
        st.sampled_from([1, 2, 8]),
        st.sampled_from([1, 4, 7]),
        st.sampled_from([1, 4]),
        st.sampled_from([1, 2]),
    ),  # fmt: skip
    state=st.sampled_from([(0, "none"), (1, "none"), (2, "optimizer"), (3, "all")]),
    variant=st.sampled_from([("none", 1), ("full", 2)]),
    dps=st.lists(st.sampled_from([1, 2, 4, 16, 64]), min_size=1, max_size=4),
)
@pytest.mark.slow
def test_search_memory_totals_equal_its_totals_one_layout_at_a_time(
    model_name, task, shape, state, variant, dps
):
    """SearchMemory.totals (the training search's memory sizing, without a Layout per dp) gives what
    SearchMemory.total gives each layout: its config (sequence parallel with tp, interleaved stages in flight)
    and estimate_memory's total or None."""
    from planner.search.common import SearchMemory
    from planner.search.types import Workload

    model = MODELS[model_name]
    workload = Workload(task=task, seq_len=2048)
    tp, pp, ep, virtual = shape
    (zero, offload), (recompute, micro_batch) = state, variant
    at_once = SearchMemory(model, workload).totals(shape, zero, offload, recompute, micro_batch, dps)
    memory = SearchMemory(model, workload)
    layouts = [Layout(dp=dp, tp=tp, pp=pp, ep=ep, zero=zero, recompute=recompute, offload=offload,
                      micro_batch=micro_batch, virtual_stages=virtual) for dp in dps]  # fmt: skip
    assert at_once == [memory.total(layout) for layout in layouts]
    assert at_once == [_reference_total(model, memory.config(layout)) for layout in layouts]


def test_the_base_configs_own_layout_is_ignored():
    """total(layout) is estimate_memory at `layout`, whatever layout the base config carries (even one that
    validate_layout refuses: dp True, tp 3, an unknown recompute mode)."""
    model = MODELS["dense"]
    base = MemoryConfig(task="train", seq_len=2048, layout=Layout(dp=True, tp=3, recompute="sometimes"))
    totals = MemoryTotals(model, base)
    for layout in (Layout(dp=8, tp=8, zero=1), Layout(dp=4, pp=4, recompute="full", micro_batch=2)):
        expected = _reference_total(model, dataclasses.replace(base, layout=layout))
        assert expected is not None
        assert totals.total(layout) == expected
        assert totals.totals(layout.tp, layout.pp, layout.ep, layout.zero, layout.offload, layout.recompute,
                             layout.micro_batch, (layout.dp,)) == [expected]  # fmt: skip


@pytest.mark.parametrize("model_name", ["dense", "moe"])
def test_one_layout_totals_asked_as_a_search_sizes_a_layout(model_name):
    """SearchMemory.layout_totals (one lookup for a layout's many totals) asked what the training search's
    sizing asks, in its order -- each state at a few dps with the reference variant, then one dp per variant --
    gives estimate_memory's total (or None) for each, whatever it worked out before."""
    from planner.search.common import SearchMemory
    from planner.search.types import Workload

    model = MODELS[model_name]
    memory = SearchMemory(model, Workload(task="pretrain", seq_len=2048))
    possible = 0
    for shape in ((2, 4, 4, 2), (1, 1, 1, 1), (8, 2, 1, 1)):
        totals = memory.layout_totals(shape)
        tp, pp, ep, virtual = shape
        asks = [(state, ("none", 1), (2, 4, 1)) for state in ((0, "none"), (1, "none"), (3, "optimizer"))]
        asks += [((0, "none"), variant, (2,)) for variant in (("none", 2), ("full", 1), ("full", 2))]
        for (zero, offload), (recompute, micro_batch), dps in asks:
            layouts = [Layout(dp=dp, tp=tp, pp=pp, ep=ep, zero=zero, offload=offload, recompute=recompute,
                              micro_batch=micro_batch, virtual_stages=virtual) for dp in dps]  # fmt: skip
            expected = [_reference_total(model, memory.config(layout)) for layout in layouts]
            assert totals(zero, offload, recompute, micro_batch, dps) == expected
            possible += sum(total is not None for total in expected)
    assert possible > 20  # most of these layouts are possible: the comparison is not of refusals alone
