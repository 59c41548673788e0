"""planner.perf against hand arithmetic and published measurements: FLOP counts, collectives, schedules, the
GEMM roofline, decode, serving with its prefill, weight formats, QLoRA, calibration from probe reports."""

from __future__ import annotations

import dataclasses

import pytest

from planner import perf
from planner.errors import UserError
from planner.gpus import get_gpu
from planner.models import get_preset, param_counts
from planner.perf.compute import gemm_seconds, layer_shape
from planner.vocabulary import Layout, Offload, Recompute, ZeroStage
from profiler.report import ProbeReport
from tests.profiler.conftest import sample_report_dict

# Constants with no fixed costs and ideal overlap: what a hand calculation of the pure roofline assumes.
IDEAL = perf.FittedConstants(
    gemm_training_ampere=1.0, gemm_training_hopper=1.0, gemm_training_blackwell=1.0, gemm_serving=1.0,
    kv_read=1.0, kernel_s=0.0, dequant_ops_per_weight=4.0, latency_scale=1.0, request_overhead_s=0.0,
    ridge_overlap=0.0, overlap_interference=0.0,
)  # fmt: skip


def test_six_pd_plus_attention_by_hand():
    # A 7B-class model: 6.5e9 matmul parameters, 32 layers, 4096 wide, 4096-token sequences.
    # 6 x 6.5e9 = 3.9e10; attention 12 x 32 x 4096 x 4096 = 6,442,450,944 -> 45,442,450,944 FLOPs per token.
    flops = perf.training_flops_per_token(6.5e9, 32, 4096, 4096)
    assert flops == pytest.approx(3.9e10 + 6_442_450_944)
    full = perf.training_flops_per_token(6.5e9, 32, 4096, 4096, "full")
    assert full == pytest.approx(8 * 6.5e9 + 16 * 32 * 4096 * 4096)
    lora = perf.training_flops_per_token(6.5e9, 32, 4096, 4096, adapters_only=True)
    assert lora == pytest.approx(4 * 6.5e9 + 6_442_450_944)


def test_matches_narayanan_exactly_on_a_gpt_shape():
    # GPT-3 175B: L 96, h 12288, V 50257, s 2048, batch 1536 (Narayanan et al. 2021, Table 1 row).
    layers, hidden, vocab, seq, batch = 96, 12288, 50257, 2048, 1536
    matmul_params = 12 * layers * hidden**2 + vocab * hidden
    ours = perf.training_flops_per_token(matmul_params, layers, seq, hidden) * batch * seq
    theirs = perf.narayanan_flops_per_step(batch, seq, layers, hidden, vocab)
    assert ours == pytest.approx(theirs, rel=1e-12)


def test_model_numbers_use_active_parameters_for_moe():
    mixtral = perf.model_numbers(get_preset("mixtral-8x7b"))
    # Mixtral 8x7B: 46.7B total, 12.9B active (Mistral AI announcement).
    assert mixtral.total_params == pytest.approx(46.7e9, rel=0.01)
    assert mixtral.active_params == pytest.approx(12.9e9, rel=0.01)


def test_collectives_by_hand():
    # Ring all-reduce of 1 GB over 8 ranks at 100 GB/s: 2 x 7/8 x 1e9 / 1e11 = 17.5 ms.
    assert perf.allreduce_time_s(1e9, 8, 100e9) == pytest.approx(0.0175)
    assert perf.allgather_time_s(1e9, 8, 100e9) == pytest.approx(0.00875)
    assert perf.allreduce_time_s(1e9, 1, 100e9) == 0


def test_pipeline_schedules_by_hand():
    # 1F1B, p 4, m 12: idle (p-1)/(m+p-1) = 3/15 of the step; interleaved with v 4: 3/(48+3).
    assert perf.pipeline_bubble_fraction(4, 12) == pytest.approx(3 / 15)
    assert perf.pipeline_bubble_fraction(4, 12, 4) == pytest.approx(3 / 51)
    assert perf.Schedule(4, 12, 4).bubble_over_busy == pytest.approx(3 / 48)
    # in flight on the first stage: p micro-batches, x (1 + (p-1)/(v p)) interleaved (Narayanan et al., 2.2.2)
    assert perf.Schedule(4, 12).in_flight_microbatches == 4
    assert perf.Schedule(4, 12, 4).in_flight_microbatches == pytest.approx(4 * (1 + 3 / 16))


def test_links_and_latency_by_hand():
    h100 = get_gpu("h100-sxm")
    rates = perf.device_rates(h100, "bf16")
    # Measured 8-GPU busbw (Azure AI-benchmarking-guide, NCCL all-reduce): 480 GB/s inside the NVSwitch domain;
    # latency: the 1 KB all-reduce's 26 us at 8 GPUs, (3 + log2 2) / 6 of it at 2.
    inside = perf.group_link(h100, rates, 8, 8, 8, 50e9, 1.0)
    assert inside.bus_bytes_per_s == 480e9 and inside.latency_s == pytest.approx(26e-6)
    assert perf.group_link(h100, rates, 2, 2, 8, 50e9, 1.0).latency_s == pytest.approx(26e-6 * 4 / 6)
    across = perf.group_link(h100, rates, 16, 16, 8, 50e9, 1.0)
    assert across.bus_bytes_per_s == pytest.approx(50e9 * 0.77) and across.kind == "network"
    rtx = get_gpu("rtx-4090")  # PCIe 4 x16, no peer-to-peer: 32 GB/s one way x 0.77 x 0.5
    assert perf.intra_node_bus_bytes_per_s(rtx, 2) == pytest.approx(32e9 * 0.77 * 0.5)


def test_gemm_roofline_by_hand():
    h100 = get_gpu("h100-sxm")
    rates = perf.device_rates(h100, "bf16")
    # MAMF: 80.3 % of 989.4 TFLOPS (stas00/ml-engineering); copy: 87 % of 3.35 TB/s (Azure).
    assert rates.matmul_flops_per_s == pytest.approx(0.803 * 989.4e12)
    assert rates.copy_bytes_per_s == pytest.approx(0.87 * 3.35e12)
    big = gemm_seconds(8192, 8192, 8192, rates, 1.0, 0.0)
    assert big == pytest.approx(2 * 8192**3 / (0.803 * 989.4e12))
    # batch 1: a GEMV reads the 8192 x 8192 16-bit weights (and two 8192-vectors): memory-bound
    gemv = gemm_seconds(1, 8192, 8192, rates, 1.0, 0.0)
    assert gemv == pytest.approx((8192 * 8192 * 2 + 2 * 8192 * 2) / (0.87 * 3.35e12))
    # near the ridge the shorter roof is partly exposed: max + ridge x min
    mid = gemm_seconds(256, 8192, 8192, rates, 1.0, 5e-6, ridge=0.5)
    compute, memory = (
        2 * 256 * 8192**2 / (0.803 * 989.4e12),
        (8192**2 * 2 + 2 * 256 * 8192 * 2) / (0.87 * 3.35e12),
    )
    assert mid == pytest.approx(max(compute, memory) + 0.5 * min(compute, memory) + 5e-6)
    # int4 weights at batch 1: 4.25 bits read, or the integer ALU's dequantisation, whichever is longer
    a100 = perf.device_rates(get_gpu("a100-sxm-80gb"), "int4")
    int4 = gemm_seconds(1, 8192, 8192, a100, 1.0, 0.0, weight_bits=4.25, integer_weights=True, dequant_ops=16)
    memory4 = (8192**2 * 4.25 / 8 + 2 * 8192 * 2) / (0.79 * 2.039e12)
    alu = 8192**2 * 16 / 19.5e12  # GA100: INT32 at the FP32 rate
    assert int4 == pytest.approx(max(memory4, alu))


def test_batch1_decode_reads_every_matmul_weight_once():
    # Llama-2-7B in bf16 on one H100: a decode step streams the matmul weights (all parameters less the
    # embedding table, which is looked up, and the norms): 6,738,415,616 - 32000 x 4096 - 65 x 4096 =
    # 6,607,077,376 weights x 2 bytes at 0.87 x 3.35 TB/s = 4.534 ms, plus kilobytes of activations.
    model = get_preset("llama-2-7b")
    counts = param_counts(model)
    assert counts.total == 6_738_415_616
    replica = perf.Replica(model, get_gpu("h100-sxm"), perf.device_rates(get_gpu("h100-sxm"), "bf16"),
                           engine=perf.ENGINES["tensorrt-llm"], constants=IDEAL)  # fmt: skip
    step = perf.step_seconds(replica, 1, 1)
    assert step == pytest.approx(6_607_077_376 * 2 / (0.87 * 3.35e12), rel=0.01)


def test_serving_counts_the_prefill_and_matches_the_published_static_batch():
    # TensorRT-LLM v0.6.1 (docs/source/performance.md): Llama-2-7B fp16 on one A100 SXM 80GB, static batch 384,
    # 128-token prompts and outputs: 5,586 output tokens/s. Prefill of 384 x 128 tokens costs as many FLOPs as
    # the 128 decode steps do, so it must take a visible share of the time.
    model, a100 = get_preset("llama-2-7b"), get_gpu("a100-sxm-80gb")
    replica = perf.Replica(model, a100, perf.device_rates(a100, "fp16"), engine=perf.ENGINES["tensorrt-llm"])
    static = perf.static_batching(replica, 384, 128, 128)
    assert static.output_tokens_per_s == pytest.approx(5586, rel=0.25)
    decode_only = 384 / static.tpot_s
    assert static.output_tokens_per_s < 0.85 * decode_only
    assert 0.15 < static.prefill_share < 0.6
    # continuous batching at 384 users: every user decodes, prompts are prefilled in chunks between steps
    load = perf.continuous_batching(replica, 384, 128, 128)
    assert load.concurrency == 384 and load.queued == 0
    # a request's host overhead delays its first token but overlaps the other requests' steps
    assert load.output_tokens_per_s == pytest.approx(384 * 128 / load.request_s, rel=0.01)
    assert load.per_user_tokens_per_s == pytest.approx(1 / load.tpot_s)


def test_engine_batch_limit_queues_users():
    # vLLM's max_num_seqs is 256 by default: 384 users on one replica leave 128 waiting for a slot.
    model, a100 = get_preset("llama-2-7b"), get_gpu("a100-sxm-80gb")
    replica = perf.Replica(model, a100, perf.device_rates(a100, "fp16"), engine=perf.ENGINES["vllm"])
    load = perf.serve(replica, 384, 128, 128)
    assert load.concurrency == 256 and load.queued == 128
    assert load.ttft_s > load.request_s / 3  # the wait for a slot dominates the first token


def test_static_batching_loss_by_hand():
    model, a100 = get_preset("llama-2-7b"), get_gpu("a100-sxm-80gb")
    replica = perf.Replica(model, a100, perf.device_rates(a100, "fp16"), engine=perf.ENGINES["tensorrt-llm"])
    equal = perf.static_batching_loss(replica, 64, 128, [128] * 8)
    assert equal.lost_fraction == 0
    spread = perf.static_batching_loss(replica, 64, 128, [1, 127])  # mean 64, longest 127
    assert spread.lost_fraction == pytest.approx(1 - 64 / 127)
    assert spread.continuous_tokens_per_s > spread.static_tokens_per_s
    assert perf.uniform_output_lengths(128)[0] == 1 and perf.uniform_output_lengths(128)[-1] == 255


def test_weight_formats_carry_their_real_bits():
    # GGUF block layouts (ggml-common.h): Q8_0 34 bytes per 32 weights, Q4_0 18 bytes per 32; GPTQ/AWQ int4 with
    # an fp16 scale and zero per 128 weights: 4 + 32/128.
    assert perf.weight_format("q8_0", "int8").bits_per_weight == 34 * 8 / 32
    assert perf.weight_format("q4_0", "int4").bits_per_weight == 18 * 8 / 32
    assert perf.weight_format("awq", "int4").bits_per_weight == 4 + 32 / 128
    assert (
        perf.weight_format(None, "fp8").bits_per_weight == 8 and not perf.weight_format(None, "fp8").integer
    )
    with pytest.raises(UserError):
        perf.weight_format("q3_fancy", "int4")
    # EXL2 (turboderp/exllamav2 README): any average bitrate from 2 to 8 bits per weight, dequantised by its kernels
    exl2 = perf.weight_format("exl2-2.5", "int4")
    assert exl2.bits_per_weight == 2.5 and exl2.integer
    for outside in ("exl2-1.5", "exl2-9", "exl2-fast", "exl2"):
        with pytest.raises(UserError, match="exl2"):
            perf.weight_format(outside, "int4")


def _batch1_tokens_per_s(preset: str, fmt: str, tp: int = 1) -> float:
    a100 = get_gpu("a100-sxm-80gb")
    replica = perf.Replica(get_preset(preset), a100, perf.device_rates(a100, "bf16"), tp=tp,
                           weights=perf.weight_format(fmt, "bf16"), engine=perf.ENGINES["gpt-fast"])  # fmt: skip
    return perf.single_stream(replica, 5, 128).output_tokens_per_s


def test_quantised_decode_pays_its_dequantisation():
    # gpt-fast README (A100 80GB, batch 1): Llama-2-7B 104.9 tokens/s in bf16, 196.8 in int4 (group 32): 1.88 x,
    # far from the 16 / 5 = 3.2 x fewer bytes: the GEMV kernels spend integer work on every weight.
    bf16, int4 = _batch1_tokens_per_s("llama-2-7b", "bf16"), _batch1_tokens_per_s("llama-2-7b", "int4-g32")
    assert bf16 == pytest.approx(104.9, rel=0.25) and int4 == pytest.approx(196.8, rel=0.25)
    assert 1.4 < int4 / bf16 < 2.6


def test_tensor_parallel_decode_pays_two_all_reduces_per_layer():
    # gpt-fast README: Llama-2-7B bf16 batch 1, 104.9 tokens/s on one A100, 328.4 on 8 (3.1 x, not 8 x): each
    # layer's two all-reduces of a few KB cost their latency.
    one, eight = _batch1_tokens_per_s("llama-2-7b", "bf16"), _batch1_tokens_per_s("llama-2-7b", "bf16", tp=8)
    assert eight == pytest.approx(328.4, rel=0.25)
    assert 2.0 < eight / one < 5.0


def _mpt7b_step(gpu_id: str) -> perf.StepTime:
    # MPT-7B (llm-foundry benchmark config: 32 layers, 4096 wide, ffn 16384, vocabulary 50368), 8 GPUs, FSDP
    # FULL_SHARD, micro-batch 6, 2048 tokens, global batch 48 (H100 row) / 96 (A100 row).
    model = get_preset("llama-2-7b")
    mpt = dataclasses.replace(model, name="MPT-7b", ffn=16384, gated_mlp=False, vocab=50368, tied_embeddings=True,
                              norm="layernorm")  # fmt: skip
    gpu = get_gpu(gpu_id)
    batch = 48 if gpu_id == "h100-sxm" else 96
    return perf.training_step_time(perf.model_numbers(mpt), gpu, Layout(dp=8, zero=3, micro_batch=6),
                                   seq_len=2048, global_batch=batch, rates=perf.device_rates(gpu, "bf16"))  # fmt: skip


def test_a100_and_h100_mfu_differ_for_physical_reasons():
    # llm-foundry benchmarks: MPT-7B on 8 GPUs with FSDP reaches 64.2 % MFU on A100 80GB, 46.4 % on H100.
    a100, h100 = _mpt7b_step("a100-sxm-80gb"), _mpt7b_step("h100-sxm")
    assert a100.mfu == pytest.approx(0.642, rel=0.15) and h100.mfu == pytest.approx(0.464, rel=0.2)
    assert a100.mfu > h100.mfu + 0.05

    # Why: the H100's matmul ceiling is a smaller share of its spec (MAMF 80.3 % vs 86.9 %), its flash attention
    # kernels reach less of it, and its memory bandwidth grew 1.6 x while its tensor rate grew 3.2 x: attention
    # and memory-bound ops take a larger share of the step.
    def share(step: perf.StepTime) -> float:
        parts = step.breakdown
        return (parts["attention_s"] + parts["memory_bound_s"] + parts["loss_s"]) / step.step_time_s

    assert share(h100) > share(a100)


def test_full_recompute_repeats_the_forward_gemms():
    model, a100 = get_preset("llama-2-7b"), get_gpu("a100-sxm-80gb")
    numbers, rates = perf.model_numbers(model), perf.device_rates(a100, "bf16")

    def step(recompute: str) -> perf.StepTime:
        layout = Layout(dp=8, zero=3, recompute=recompute, micro_batch=4)
        return perf.training_step_time(numbers, a100, layout, seq_len=4096, global_batch=64, rates=rates)

    # forward 1 + backward 2 (activation and weight gradients) = 3 GEMM passes; full recompute adds a forward
    # for the layers but not for the LM head (it is not checkpointed): just under 4/3
    ratio = step("full").breakdown["gemm_s"] / step("none").breakdown["gemm_s"]
    assert 1.25 < ratio < 4 / 3


def test_qlora_is_slower_than_lora_by_its_dequantisation():
    # bitsandbytes dequantises every NF4 weight to 16 bits before each use (forward and activation gradient):
    # reading 4.127 / 8 bytes and writing 2 per weight, at the copy bandwidth, twice per micro-batch.
    model, a100 = get_preset("llama-2-7b"), get_gpu("a100-sxm-80gb")
    numbers, rates = perf.model_numbers(model), perf.device_rates(a100, "bf16")
    layout = Layout(micro_batch=4)

    def step(task: str) -> perf.StepTime:
        return perf.training_step_time(numbers, a100, layout, seq_len=2048, global_batch=16, rates=rates, task=task,
                                       constants=IDEAL)  # fmt: skip

    lora, qlora = step("lora"), step("qlora")
    assert qlora.step_time_s > lora.step_time_s
    weights = 32 * layer_shape(model, 1).dense_weights
    by_hand = 4 * 2 * weights * (4.127 / 8 + 2) / (0.79 * 2.039e12)  # 4 micro-batches x 2 uses
    assert qlora.breakdown["dequantise_s"] == pytest.approx(by_hand, rel=0.1)


def test_fsdp_gathers_hide_behind_compute_until_the_network_is_slow():
    model, h100 = get_preset("llama-2-7b"), get_gpu("h100-sxm")
    numbers, rates = perf.model_numbers(model), perf.device_rates(h100, "bf16")
    layout = Layout(dp=64, zero=3, micro_batch=8)

    def dp_seconds(network: float) -> float:
        step = perf.training_step_time(numbers, h100, layout, seq_len=4096, global_batch=512, rates=rates,
                                       inter_node_bytes_per_s=network, constants=IDEAL)  # fmt: skip
        return step.dp_comm_s

    # One micro-batch of 8 x 4096 tokens: 6 x 6.7e9 x 32768 = 1.3e15 FLOPs, about 1.7 s at 794 TFLOPS. Its ZeRO-3
    # traffic at 400 Gb/s per GPU: 3 x 13.5 GB x 63/64 / (50 GB/s x 0.77) = 1.04 s, hidden behind it but for the
    # first gather and the last reduction (2/3 of a layer's share, 1.04 / 32 x 2/3 = 22 ms); at 1 GB/s, 52 s of
    # traffic cannot hide
    assert dp_seconds(50e9) == pytest.approx(1.04 / 32 * 2 / 3, rel=0.1)
    assert dp_seconds(1e9) > 45


def test_user_set_rates_and_calibration_from_a_probe_report():
    h100 = get_gpu("h100-sxm")
    spec = perf.device_rates(h100, "bf16")
    assert spec.confidence == "catalog spec"
    assert perf.device_rates(h100, "bf16", mfu=0.5).confidence == "user-set"
    # The sample report measured 790 TFLOPS bf16 and 2.9 TB/s on an "NVIDIA H100 80GB HBM3".
    report = ProbeReport.from_dict(sample_report_dict())
    calibration = perf.calibration_from_report(report)
    assert set(calibration) == {"h100-sxm"}
    measured = perf.device_rates(h100, "bf16", calibration=calibration["h100-sxm"])
    assert measured.confidence == "measured"
    assert measured.matmul_flops_per_s == pytest.approx(790e12)
    assert measured.copy_bytes_per_s == pytest.approx(2.9e12)
    with pytest.raises(UserError):
        perf.device_rates(h100, "bf16", mfu=1.5)
    with pytest.raises(UserError):
        perf.device_rates(get_gpu("a100-sxm-80gb"), "fp8")


def test_a_mig_slice_is_scaled_to_the_whole_gpu_or_skipped():
    data = sample_report_dict()
    device = data["devices"][0]
    device["mig"] = {"uuid": "MIG-1", "profile": "3g.40gb", "compute_fraction": 3 / 7, "memory_fraction": 0.5}
    scaled = perf.calibration_from_report(ProbeReport.from_dict(data))["h100-sxm"]
    # the slice measured 790 TFLOPS and 2.9 TB/s on 3/7 of the SMs and half the memory
    assert scaled.tflops["bf16"] == pytest.approx(790 * 7 / 3)
    assert scaled.memory_bandwidth_bytes_per_s == pytest.approx(2.9e12 * 2)
    device["mig"] = {"uuid": "MIG-1", "profile": "1g.10gb"}
    assert perf.calibration_from_report(ProbeReport.from_dict(data)) == {}


def test_model_shape_measurements_replace_the_sourced_rates():
    h100 = get_gpu("h100-sxm")
    calibration = perf.Calibration(
        tflops={"bf16": 700.0}, memory_bandwidth_bytes_per_s=3.0e12, gemms={("bf16", 8192, 8192, 8192): 650e12},
        attention_tflops={"bf16": 400.0}, allreduce_latency_s=30e-6, allreduce_busbw_bytes_per_s=450e9,
    )  # fmt: skip
    rates = perf.device_rates(h100, "bf16", calibration=calibration)
    assert rates.confidence == "measured"
    # the measured shape's own rate, not MAMF x share
    assert gemm_seconds(8192, 8192, 8192, rates, 0.5, 0.0) == pytest.approx(2 * 8192**3 / 650e12)
    assert rates.attention_fwd_flops_per_s == pytest.approx(400e12)
    link = perf.group_link(h100, rates, 8, 8, 8, 50e9, 1.0)
    assert link.bus_bytes_per_s == 450e9 and link.latency_s == pytest.approx(30e-6)


def test_max_concurrent_sequences_by_hand():
    # 80 GiB card, 20 GiB used with one sequence whose KV is 1 GiB: (80 - 19) / 1 = 61 sequences.
    gib = 2**30
    assert perf.max_concurrent_sequences(80 * gib, 20 * gib, 1 * gib) == 61
    assert perf.max_concurrent_sequences(10 * gib, 20 * gib, 1 * gib) == 0
    # TensorRT-LLM's benchmarks give the KV cache 0.95 of the free memory: 0.95 x 61 GiB = 57.95 -> 57 sequences.
    assert perf.max_concurrent_sequences(80 * gib, 20 * gib, 1 * gib, 0.95) == 57


def _step_layouts() -> list[Layout]:
    """Layouts over every part of a step: tp / pp / ep, micro-batches, recompute, ZeRO 0-3, offload, virtual
    stages, one GPU and thousands."""
    layouts = []
    for tp, pp, ep in ((1, 1, 1), (2, 1, 2), (8, 4, 1), (4, 8, 8), (1, 2, 4)):
        for dp, zero, offload in ((1, 0, "none"), (8, 1, "none"), (64, 2, "optimizer"), (16, 3, "none"),
                                  (256, 0, "none")):  # fmt: skip
            for micro_batch, recompute in ((1, "none"), (2, "selective"), (4, "full")):
                virtual = 2 if pp > 1 and micro_batch == 2 else 1
                layouts.append(Layout(
                    dp=dp, tp=tp, pp=pp, ep=ep, zero=ZeroStage(zero), offload=Offload(offload),
                    micro_batch=micro_batch, recompute=Recompute(recompute), virtual_stages=virtual,
                ))  # fmt: skip
    return layouts


def test_step_models_sharing_work_time_every_layout_as_fresh_ones():
    # The GPU types of one search share one SharedWork (the GEMMs' FLOPs and bytes), and each StepModel keeps
    # one context per micro-batch shape: timing many layouts through them, in any order, must give bit for bit
    # what a fresh StepModel of its own gives for each layout alone.
    model = get_preset("mixtral-8x7b")
    numbers = perf.model_numbers(model)
    shared = perf.SharedWork(model, 4096)
    layouts = _step_layouts()
    for gpu_id in ("h100-sxm", "a100-sxm-80gb", "h200-sxm", "l40s"):
        gpu = get_gpu(gpu_id)
        rates = perf.device_rates(gpu, "bf16")
        kept = perf.StepModel(numbers, gpu, seq_len=4096, global_batch=1024, rates=rates, shared_work=shared)
        for layout in layouts + layouts[::-1]:  # the second pass reads what the first kept
            fresh = perf.StepModel(numbers, gpu, seq_len=4096, global_batch=1024, rates=rates)
            assert kept.seconds(layout) == fresh.seconds(layout)
            assert kept.step(layout) == perf.training_step_time(
                numbers, gpu, layout, seq_len=4096, global_batch=1024, rates=rates
            )


def test_shared_work_serves_one_model_and_sequence_length():
    model = get_preset("llama-2-7b")
    shared = perf.SharedWork(model, 4096)
    h100 = get_gpu("h100-sxm")
    rates = perf.device_rates(h100, "bf16")
    with pytest.raises(ValueError):
        perf.StepModel(
            perf.model_numbers(model), h100, seq_len=2048, global_batch=8, rates=rates, shared_work=shared
        )
    with pytest.raises(ValueError):
        other = perf.model_numbers(get_preset("mixtral-8x7b"))
        perf.StepModel(other, h100, seq_len=4096, global_batch=8, rates=rates, shared_work=shared)


@pytest.mark.parametrize("preset", ["llama-2-7b", "mixtral-8x7b"])
def test_layer_gemm_work_times_as_gemm_seconds(preset):
    # The shared work converted at a GPU's rate is layer_gemms_seconds' figure exactly, and a 2 x 4096 x 4096
    # GEMM of 2048 rows is 2 x 2048 x 4096 x 4096 FLOPs and (4096 x 4096 + 2048 x 4096 x 2) x 2 bytes by hand.
    from planner.perf.compute import gemm_work, layer_gemm_work, layer_gemms_seconds

    assert gemm_work(2048, 4096, 4096) == (2.0 * 2048 * 4096 * 4096, (4096 * 4096 + 2048 * 4096 * 2) * 2.0)
    model = get_preset(preset)
    for gpu_id in ("h100-sxm", "l40s"):
        rates = perf.device_rates(get_gpu(gpu_id), "bf16")
        for tp, ep, tokens in ((1, 1, 4096.0), (4, 2, 8192.0), (8, 8, 1024.0)):
            shape = layer_shape(model, tp, ep)
            for moe in (False, True) if model.is_moe else (False,):
                expected = layer_gemms_seconds(shape, tokens, rates, 0.7, 5e-6, moe=moe, ridge=0.3)
                work = layer_gemm_work(shape, tokens, moe=moe)
                assert (
                    work.seconds(rates.matmul_flops_per_s * 0.7, rates.copy_bytes_per_s, 5e-6, 0.3)
                    == expected
                )


def test_a_kernels_fixed_time_is_the_same_cycles_at_each_gpus_boost_clock():
    # NVIDIA's architecture whitepapers: A100 1,410 MHz (A100 whitepaper, Table 1), RTX 4090 2,520 MHz (Ada
    # whitepaper), H100 SXM5 1,980 MHz. kernel_s is stated at the A100's clock, so the same cycles take
    # 1410 / 2520 = 0.560 of it on the 4090 and 1410 / 1980 = 0.712 on the H100; a GPU whose clock is not sourced
    # keeps the A100 figure.
    from planner.gpus import builtin_gpus

    assert perf.device_rates(get_gpu("a100-sxm-80gb"), "bf16").kernel_scale == 1.0
    assert perf.device_rates(get_gpu("rtx-4090"), "bf16").kernel_scale == pytest.approx(0.5595, abs=1e-4)
    assert perf.device_rates(get_gpu("h100-sxm"), "fp8").kernel_scale == pytest.approx(0.7121, abs=1e-4)
    assert perf.device_rates(get_gpu("l40s"), "bf16").kernel_scale == 1.0
    clocked = [gpu for gpu in builtin_gpus() if gpu.boost_clock_mhz]
    assert len(clocked) >= 7
    for gpu in clocked:  # each stated clock has its source and the source's date
        assert "whitepaper" in gpu.sources["boost_clock"] and gpu.source_dates["boost_clock"], gpu.id
