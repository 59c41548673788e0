"""Expert-parallel serving with data-parallel attention (vLLM --data-parallel-size N --enable-expert-parallel,
SGLang --enable-dp-attention --ep-size N): memory, KV capacity and the all-to-all, against hand counts from
DeepSeek-V3's published config (256 routed experts of 3 x 7168 x 2048 on 58 MoE layers, 671B parameters in all,
MLA: a 512 + 64 latent per token and layer, 61 layers) and the H200's memory (the catalog's 150.75e9 bytes,
NVIDIA's "141 GB"), of which a plan fills 90 %; the engine's workspace and CUDA context (about 2 GB) are left to
the 10 % tolerance."""

from __future__ import annotations

import pytest

from planner import perf
from planner.gpus import get_gpu
from planner.models import get_preset
from planner.search import plan
from planner.search.types import Constraints, Workload

GB = 1e9
ROUTED = 256 * 58 * 3 * 7168 * 2048  # 653.9e9 routed-expert parameters
TOTAL = 671.03e9
KV_PER_TOKEN_FP8 = (512 + 64) * 61 * 1.0  # bytes: MLA's latent and rope key, every layer, one byte each


def _deepseek(users: int, max_gpus: int, **pins):
    workload = Workload(
        task="inference", precision="fp8", seq_len=5000, output_len=1000, concurrent_users=users
    )
    constraints = Constraints(max_gpus=max_gpus, pinned=pins) if pins else Constraints(max_gpus=max_gpus)
    return plan(get_preset("deepseek-v3"), workload, [get_gpu("h200")], constraints, rank_by="cost", top=50)


def test_an_expert_parallel_rank_holds_an_eighth_of_the_experts_and_everything_else_whole():
    option = _deepseek(64, 8, ep=8).options[0]
    assert (option.layout.tp, option.layout.ep, option.gpus) == (1, 8, 8)
    by_hand = (TOTAL - ROUTED) + ROUTED / 8  # fp8: one byte per parameter
    assert option.memory.weights.bytes == pytest.approx(by_hand, rel=0.03)


def test_data_parallel_attention_holds_more_sequences_than_tensor_parallel_on_mla():
    # TP 8: 671 GB / 8 = 83.9 GB of weights per GPU, and every GPU keeps every sequence's whole latent
    # (5,000 x 35,136 B = 175.7 MB): (150.75 x 0.9 - 83.9) GB / 175.7 MB = 295 sequences on 8 GPUs.
    # EP 8: 100.5 GB of weights per GPU, each GPU its own sequences: (135.7 - 100.5) / 0.1757 = 200 per GPU,
    # 1,600 on 8 GPUs.
    per_sequence = 5000 * KV_PER_TOKEN_FP8
    tp8 = next(o for o in _deepseek(64, 8, tp=8).options if o.layout.tp == 8 and o.layout.pp == 1)
    ep8 = _deepseek(64, 8, ep=8).options[0]
    usable = get_gpu("h200").memory_bytes * 0.9
    assert tp8.max_concurrent_sequences == pytest.approx((usable - TOTAL / 8) / per_sequence, rel=0.1)
    assert ep8.max_concurrent_sequences == pytest.approx(
        8 * (usable - (TOTAL - ROUTED) - ROUTED / 8) / per_sequence, rel=0.15
    )  # its 35 GB free per GPU lose a larger share to the workspace and context than TP 8's 52 GB
    assert ep8.max_concurrent_sequences > 4 * tp8.max_concurrent_sequences
    # 512 users on at most 8 GPUs: only the expert-parallel layout holds them all
    best = _deepseek(512, 8).options[0]
    assert best.layout.ep == 8 and best.gpus == 8 and best.layout.dp * best.batch_per_replica >= 512
    assert not any(o.layout.tp == 8 and o.gpus == 8 and o.layout.dp * o.batch_per_replica >= 512
                   for o in _deepseek(512, 8).options)  # fmt: skip


def test_the_all_to_all_is_counted_per_moe_layer():
    # 64 decode tokens on one rank of EP 8 inside an NVLink node: each token's 8 copies go to the other 7 GPUs
    # with probability 7/8 (7 copies of 7,168 x 2 B leave per token), dispatch and combine on 58 MoE layers; at
    # least the link's per-call latency each time, and at most that plus the bytes at a tenth of NVLink's 450 GB/s.
    model, gpu = get_preset("deepseek-v3"), get_gpu("h200")
    rates = perf.device_rates(gpu, "fp8")
    fmt = perf.weight_format("fp8", "fp8")
    with_ep = perf.Replica(model=model, gpu=gpu, rates=rates, tp=1, ep=8, weights=fmt, kv_bytes=1.0)
    without = perf.Replica(model=model, gpu=gpu, rates=rates, tp=1, ep=1, weights=fmt, kv_bytes=1.0)
    tokens = 64
    difference = perf.step_seconds(with_ep, tokens, tokens * 2000) - perf.step_seconds(
        without, tokens, tokens * 2000
    )
    bytes_out = tokens * 8 * 7 / 8 * 7168 * 2
    calls = 2 * 58
    assert difference < calls * (bytes_out / (0.1 * 450 * GB) + 50e-6)
    # and the rank reads an eighth of the routed experts' weights, which dwarfs the all-to-all at 64 tokens
    assert difference < 0


def deepseek_on_h100(users: int = 256, max_gpus: int = 32):
    workload = Workload(
        task="inference", precision="fp8", seq_len=5000, output_len=1000, concurrent_users=users
    )
    return plan(get_preset("deepseek-v3"), workload, [get_gpu("h100-sxm")], Constraints(max_gpus=max_gpus),
                rank_by="cost", top=50)  # fmt: skip


def test_an_expert_group_wider_than_a_node_holds_what_one_node_cannot():
    # DeepSeek-V3 in fp8 on 80 GB H100s (8 per node): at EP 8 a rank holds 17.1 GB of shared weights and 654 / 8 =
    # 81.7 GB of routed experts, 98.9 GB, more than the GPU; at EP 16 over two nodes 17.1 + 40.9 = 58.0 GB.
    assert (TOTAL - ROUTED) + ROUTED / 8 > get_gpu("h100-sxm").memory_bytes
    options = deepseek_on_h100().options
    assert not any(o.layout.ep * o.layout.tp == 8 for o in options if o.layout.ep > 1)  # no 8-GPU expert group
    ep16 = next(o for o in options if o.layout.ep == 16 and o.layout.tp == 1)
    assert ep16.gpus == 16 and ep16.nodes == 2 and ep16.layout.tp == 1
    assert ep16.memory.weights.bytes == pytest.approx((TOTAL - ROUTED) + ROUTED / 16, rel=0.04)


@pytest.mark.parametrize(("engine", "pools"), [("vllm", True), ("llama.cpp", False)])
def test_pools_only_for_an_engine_that_disaggregates(engine, pools):
    """EngineProfile.disaggregation is read: vLLM runs prefill and decode pools (its KV connectors), llama.cpp's
    server has no such mode, so a plan for it never answers with pools (70B fp8, 5,000-token prompts, 6.4
    requests/s, TPOT <= 15 ms: vLLM's best answer is pools, issue 28's example)."""
    workload = Workload(
        task="inference",
        precision="fp8",
        seq_len=5500,
        output_len=500,
        request_rate=6.4,
        ttft_target_s=1.0,
        tpot_target_s=0.015,
        engine=engine,
    )  # type: ignore[arg-type]
    result = plan(get_preset("llama-3.1-70b"), workload, [get_gpu("h100-sxm")], Constraints(max_gpus=64))
    has_pools = any(o.latency is not None and o.latency.pools is not None for o in result.options)
    assert has_pools == pools
    for option in result.options:  # pools carry an error band like every other serving option
        assert (
            option.time_band is not None
            and option.time_band.low_fraction < 0 < option.time_band.high_fraction
        )


def test_a_request_rate_plan_counts_the_running_sequences_as_its_users():
    """With a request rate there are no stated users: a replica's users are the sequences running at once
    (Little's law), not the default batch a users-plan would start from; nobody is shown queued for a slot."""
    workload = Workload(task="inference", precision="fp8", seq_len=5500, output_len=500, request_rate=6.4)
    result = plan(get_preset("llama-3.1-70b"), workload, [get_gpu("h100-sxm")],
                  Constraints(max_gpus=64, pinned={"tp": 8}))  # fmt: skip
    for option in result.options:
        assert option.concurrent_users == option.batch_per_replica


def test_tensor_parallel_attention_inside_an_expert_group_splits_what_the_ranks_replicate():
    # vLLM --tensor-parallel-size 2 --data-parallel-size 4 --enable-expert-parallel: 4 attention ranks of 2 GPUs,
    # expert parallelism over all 8 (docs.vllm.ai, Expert Parallel Deployment: EP size = TP x DP). By hand per
    # GPU: the 17.1 GB of non-expert weights halved, the 653.9 GB of routed experts in eighths (whole experts).
    option = next(o for o in _deepseek(64, 8, tp=2, ep=4).options if (o.layout.tp, o.layout.ep) == (2, 4))
    assert option.gpus == 8
    assert option.memory.weights.bytes == pytest.approx((TOTAL - ROUTED) / 2 + ROUTED / 8, rel=0.05)
    # A GPU of a TP 2 rank holds the same 32 of the 256 routed experts as a GPU of TP 1 x EP 8, and with the group's
    # 256 decode tokens either way (4 ranks x 64 vs 8 x 32) it dispatches the same 32 tokens: the same all-to-all
    # and expert GEMMs. What differs is small and pulls both ways (half the non-expert weights read; MLA's latent
    # of all 64 of its rank's sequences read, vLLM replicating it under tensor parallelism; the rank's
    # all-reduces): the steps agree within 10 %.
    model, gpu = get_preset("deepseek-v3"), get_gpu("h200")
    rates, fmt = perf.device_rates(gpu, "fp8"), perf.weight_format("fp8", "fp8")
    tp2 = perf.Replica(model=model, gpu=gpu, rates=rates, tp=2, ep=4, weights=fmt, kv_bytes=1.0)
    tp1 = perf.Replica(model=model, gpu=gpu, rates=rates, tp=1, ep=8, weights=fmt, kv_bytes=1.0)
    assert tp2.shape.experts_local == tp1.shape.experts_local == 32
    assert tp2.shape.expert_in == tp1.shape.expert_in  # whole experts: not split by the rank's tp
    assert tp2.shape.attn_in == pytest.approx(tp1.shape.attn_in / 2)
    from planner.perf.serving import expert_alltoall_seconds

    assert expert_alltoall_seconds(tp2, 64) == pytest.approx(expert_alltoall_seconds(tp1, 32))
    assert perf.step_seconds(tp2, 64, 64 * 2000) == pytest.approx(perf.step_seconds(tp1, 32, 32 * 2000), rel=0.1)
