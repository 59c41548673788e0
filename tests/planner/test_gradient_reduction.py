"""Each runtime's data-parallel gradient reduction (planner.perf.gradient_reduction) against hand calculations from
the runtimes' published settings: DDP's 25 MiB buckets of fp32 gradients, DeepSpeed's 16-bit ZeRO-0 all-reduce in
5e8-element buffers after the backward, FSDP2's fp32 reduce-scatter; and a token-dropping MoE's padded capacity
(GShard, DeepSpeed-MoE) against dropless routing."""

from __future__ import annotations

import math

import pytest

from planner.gpus import get_gpu
from planner.models import get_preset
from planner.perf import StepModel, TrainingOptions, device_rates, model_numbers
from planner.perf.expert_parallel import slowest_rank_load
from planner.perf.gradient_reduction import DDP_BUCKET_BYTES, buckets, reduction
from planner.vocabulary import Layout, Runtime, ZeroStage

SEQ = 4096


def _steps(model_id: str, runtime: str, *, comm_overlap: float | None = None, **options: object) -> StepModel:
    model = get_preset(model_id)
    gpu = get_gpu("h100-sxm")
    return StepModel(
        model_numbers(model), gpu, seq_len=SEQ, global_batch=64, rates=device_rates(gpu, "bf16"),
        comm_overlap=comm_overlap, options=TrainingOptions(runtime=runtime, **options),  # type: ignore[arg-type]
    )  # fmt: skip


def test_ddp_buckets_are_25_mib_of_fp32_gradients() -> None:
    # Llama 3.1 8B: 8.03 B parameters x 4 bytes (fp32 gradients under autocast) / 25 MiB (bucket_cap_mb=25)
    params = model_numbers(get_preset("llama-3.1-8b")).total_params
    assert params == pytest.approx(8.03e9, rel=0.01)
    plan = reduction(Runtime.DDP, ZeroStage.NONE, 4096)
    assert DDP_BUCKET_BYTES == 26_214_400
    assert buckets(params * plan.wire_bytes, plan, 32) == math.ceil(params * 4 / 26_214_400)  # 1,226


def test_deepspeed_zero0_all_reduces_after_the_backward_in_half_gigabyte_buffers() -> None:
    # One node of 8 H100: DeepSpeed ZeRO-0 all-reduces the 16-bit gradients after the backward (nothing hidden),
    # in buffers of 5e8 elements; each a ring all-reduce of 2 (n - 1) / n x S over the NVLink bus (nccl-tests'
    # PERFORMANCE.md) plus the link's latency.
    steps = _steps("llama-3.1-8b", "deepspeed")
    layout = Layout(dp=8, zero=ZeroStage.NONE, micro_batch=1)
    link = steps.link(8, 8)
    size = model_numbers(get_preset("llama-3.1-8b")).total_params * 2
    count = math.ceil(size / 1e9)
    expected = count * (2 * 7 / 8 * (size / count) / link.bus_bytes_per_s + link.latency_s)
    assert steps.step(layout).dp_comm_s == pytest.approx(expected, rel=1e-9)


def test_ddp_moves_twice_the_bytes_of_deepspeed_zero2() -> None:
    # With nothing hidden (comm_overlap 0: all exposed), DDP's fp32 gradients in 25 MiB buckets against DeepSpeed's
    # 16-bit ones in hidden x hidden buckets, inside one node (one latency per bucket): bandwidth x 2, plus latency
    steps_ddp = _steps("llama-3.1-8b", "ddp", comm_overlap=0.0)
    steps_ds = _steps("llama-3.1-8b", "deepspeed", comm_overlap=0.0)
    link = steps_ddp.link(8, 8)
    size = model_numbers(get_preset("llama-3.1-8b")).total_params * 2
    ddp = steps_ddp.step(Layout(dp=8, zero=ZeroStage.NONE, micro_batch=1)).dp_comm_s
    ds = steps_ds.step(Layout(dp=8, zero=ZeroStage.GRADIENTS, micro_batch=1)).dp_comm_s
    ring = 2 * 7 / 8 / link.bus_bytes_per_s
    assert ddp == pytest.approx(2 * size * ring + math.ceil(2 * size / DDP_BUCKET_BYTES) * link.latency_s)
    assert ds == pytest.approx(size * ring + math.ceil(size / (4096 * 4096 * 2)) * link.latency_s)


def test_fsdp2_reduces_in_fp32_a_third_more_traffic_than_deepspeed_zero3() -> None:
    # Per micro-batch ZeRO-3 gathers the 16-bit weights twice and reduce-scatters the gradients: DeepSpeed in 16
    # bits (3 gathers' worth), FSDP2 with reduce_dtype fp32 (2 + 2): 4 / 3 with nothing hidden.
    layout = Layout(dp=16, zero=ZeroStage.WEIGHTS, micro_batch=1)
    ds = _steps("llama-3.1-8b", "deepspeed", comm_overlap=0.0).step(layout).dp_comm_s
    fsdp = _steps("llama-3.1-8b", "fsdp2", comm_overlap=0.0).step(layout).dp_comm_s
    assert fsdp / ds == pytest.approx(4 / 3, rel=1e-9)


def test_no_runtime_named_keeps_the_neutral_reduction() -> None:
    # The validation cases name no runtime: 16-bit gradients, whatever the layout (DDP would double them).
    layout = Layout(dp=8, zero=ZeroStage.NONE, micro_batch=1)
    neutral = _steps("llama-3.1-8b", "", comm_overlap=0.0).step(layout).dp_comm_s
    deepspeed = _steps("llama-3.1-8b", "deepspeed", comm_overlap=0.0).step(layout).dp_comm_s
    ddp = _steps("llama-3.1-8b", "ddp", comm_overlap=0.0).step(layout).dp_comm_s
    assert neutral < ddp
    assert deepspeed == pytest.approx(neutral, rel=0.01)  # the same bytes, a few more latencies


def test_the_search_times_each_option_with_its_own_runtime() -> None:
    # "auto": the runtime chosen per layout (planner.memory.runtimes.chosen_runtime) sets the reduction: ZeRO-0
    # without model parallelism runs in DDP, ZeRO-1/2 in DeepSpeed.
    auto = _steps("llama-3.1-8b", "auto", comm_overlap=0.0)
    for zero, runtime in ((ZeroStage.NONE, "ddp"), (ZeroStage.GRADIENTS, "deepspeed")):
        layout = Layout(dp=8, zero=zero, micro_batch=1)
        pinned = _steps("llama-3.1-8b", runtime, comm_overlap=0.0)
        assert auto.step(layout).dp_comm_s == pinned.step(layout).dp_comm_s


def test_a_token_dropping_moe_runs_its_experts_padded_to_the_capacity() -> None:
    # GShard / DeepSpeed-MoE: each expert's buffer holds C x its mean load, so the all-to-all doubles from C 1 to
    # C 2; dropless routing pays the busiest rank's load instead (slowest_rank_load), above C 1.
    layout = Layout(dp=8, ep=8, zero=ZeroStage.OPTIMIZER, micro_batch=1)
    one = _steps("mixtral-8x7b", "", moe_capacity_factor=1.0).step(layout).ep_comm_s
    two = _steps("mixtral-8x7b", "", moe_capacity_factor=2.0).step(layout).ep_comm_s
    dropless = _steps("mixtral-8x7b", "").step(layout).ep_comm_s
    assert two / one == pytest.approx(2.0, rel=1e-9)
    routed = SEQ  # sequence parallel is off at tp 1: every token of the micro-batch is routed on its rank
    assert dropless / one == pytest.approx(slowest_rank_load(routed, 8, 2), rel=1e-9)


def test_each_runtime_says_how_it_reduces_the_gradients():
    from planner.perf.gradient_reduction import reduction_message

    hidden = 4096
    # DDP: fp32 gradients (autocast over fp32 weights), bucket_cap_mb = 25 (PyTorch docs)
    ddp = reduction_message("ddp", 0, hidden, dp=8)
    assert ddp is not None and ddp.code == "option.gradient_reduction.bucketed"
    assert ddp.params["wire_bits"] == 32 and ddp.params["bucket_bytes"] == 25 * 2**20
    assert "32-bit buckets of 25 MiB beside the backward" in ddp.text
    # DeepSpeed ZeRO-1: 16-bit gradients in reduce_bucket_size = hidden x hidden elements (2 bytes each)
    zero1 = reduction_message("deepspeed", 1, hidden, dp=8)
    assert zero1 is not None and zero1.params["bucket_bytes"] == 4096 * 4096 * 2 and zero1.params["wire_bits"] == 16
    # DeepSpeed ZeRO-0: after the backward, 5e8-element 16-bit buffers (MEMORY_OPT_ALLREDUCE_SIZE), 1e9 bytes
    zero0 = reduction_message("deepspeed", 0, hidden, dp=8)
    assert zero0 is not None and zero0.code == "option.gradient_reduction.after_backward"
    assert zero0.params["bucket_bytes"] == 1e9 and "after the backward, nothing hidden" in zero0.text
    # FSDP2 / torchtitan: one fp32 reduce-scatter per block (MixedPrecisionPolicy(reduce_dtype=float32))
    fsdp = reduction_message("torchtitan", 3, hidden, dp=8)
    assert fsdp is not None and fsdp.code == "option.gradient_reduction.per_layer" and fsdp.params["wire_bits"] == 32
    # one data-parallel rank reduces nothing; no runtime, nothing to say
    assert reduction_message("ddp", 0, hidden, dp=1) is None and reduction_message(None, 1, hidden, dp=8) is None
