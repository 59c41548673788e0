"""planner.perf against hand arithmetic: 6PD, Narayanan's formula, collectives, bubble, decode roofline."""

from __future__ import annotations

import pytest

from planner import perf
from planner.errors import UserError
from planner.gpus import get_gpu
from planner.models import get_preset
from planner.vocabulary import Layout
from profiler.report import ProbeReport
from tests.profiler.conftest import sample_report_dict


def test_six_pd_plus_attention_by_hand():
    # A 7B-class model: 6.5e9 matmul parameters, 32 layers, 4096 wide, 4096-token sequences.
    # 6 x 6.5e9 = 3.9e10; attention 12 x 32 x 4096 x 4096 = 6,442,450,944 -> 45,442,450,944 FLOPs per token.
    flops = perf.training_flops_per_token(6.5e9, 32, 4096, 4096)
    assert flops == pytest.approx(3.9e10 + 6_442_450_944)
    # Full recompute repeats the forward: 8 x P and 16 x L x s x width.
    full = perf.training_flops_per_token(6.5e9, 32, 4096, 4096, "full")
    assert full == pytest.approx(8 * 6.5e9 + 16 * 32 * 4096 * 4096)
    # LoRA: frozen weights get no weight gradients: 4 x P (attention backward still runs).
    lora = perf.training_flops_per_token(6.5e9, 32, 4096, 4096, adapters_only=True)
    assert lora == pytest.approx(4 * 6.5e9 + 6_442_450_944)


def test_matches_narayanan_exactly_on_a_gpt_shape():
    # GPT-3 175B: L 96, h 12288, V 50257, s 2048, batch 1536 (Narayanan et al. 2021, Table 1 row).
    layers, hidden, vocab, seq, batch = 96, 12288, 50257, 2048, 1536
    matmul_params = 12 * layers * hidden**2 + vocab * hidden  # blocks + the (tied) output projection
    ours = perf.training_flops_per_token(matmul_params, layers, seq, hidden) * batch * seq
    theirs = perf.narayanan_flops_per_step(batch, seq, layers, hidden, vocab)
    assert ours == pytest.approx(theirs, rel=1e-12)
    # Magnitude: 6 x 174.6e9 x 3.15e6 tokens = 3.30e18, plus 3% attention and 0.4% logits = 3.38e18.
    assert 3.3e18 < theirs < 3.9e18


def test_model_numbers_use_active_parameters_for_moe():
    mixtral = perf.model_numbers(get_preset("mixtral-8x7b"))
    # Mixtral 8x7B: 46.7B total, 12.9B active (Mistral AI announcement).
    assert mixtral.total_params == pytest.approx(46.7e9, rel=0.01)
    assert mixtral.active_params == pytest.approx(12.9e9, rel=0.01)
    assert mixtral.matmul_params < mixtral.active_params


def test_collectives_by_hand():
    # Ring all-reduce of 1 GB over 8 ranks at 100 GB/s: 2 x 7/8 x 1e9 / 1e11 = 17.5 ms.
    assert perf.allreduce_time_s(1e9, 8, 100e9) == pytest.approx(0.0175)
    # All-gather / reduce-scatter: 7/8 x 1e9 / 1e11 = 8.75 ms.
    assert perf.allgather_time_s(1e9, 8, 100e9) == pytest.approx(0.00875)
    assert perf.allreduce_time_s(1e9, 1, 100e9) == 0


def test_pipeline_bubble():
    assert perf.pipeline_bubble_fraction(4, 12) == pytest.approx(3 / 15)
    assert perf.pipeline_bubble_fraction(1, 12) == 0


def test_link_choice():
    h100 = get_gpu("h100-sxm")
    # Measured 8-GPU busbw (Azure AI-benchmarking-guide, NCCL all-reduce): 480 GB/s inside the NVSwitch domain.
    assert perf.intra_node_bus_bytes_per_s(h100, 8) == 480e9
    bw, _ = perf.group_bus_bytes_per_s(h100, 16, 16, 8, perf.DEFAULT_INTER_NODE_BYTES_PER_S)
    assert bw == pytest.approx(50e9 * perf.LINK_EFFICIENCY)  # across nodes: one 400 Gb/s link per GPU
    rtx = get_gpu("rtx-4090")  # PCIe 4 x16, no peer-to-peer: 32 GB/s one way x 0.77 x 0.5
    assert perf.intra_node_bus_bytes_per_s(rtx, 2) == pytest.approx(32e9 * 0.77 * 0.5)


def test_training_step_time_by_hand():
    h100 = get_gpu("h100-sxm")
    model = get_preset("llama-3.1-70b")
    numbers = perf.model_numbers(model)
    rates = perf.effective_rates(h100, "bf16")
    layout = Layout(dp=64, tp=8, pp=1, ep=1, zero=1, recompute="none", offload="none", micro_batch=1)
    step = perf.training_step_time(numbers, h100, layout, seq_len=4096, global_batch=1024, rates=rates)
    # Compute: (6 x matmul params + 12 x 80 x 4096 x 8192) x 1024 x 4096 tokens / (512 x 989.4e12 x 0.40).
    tokens = 1024 * 4096
    flops = (6 * numbers.matmul_params + 12 * 80 * 4096 * 8192) * tokens
    assert step.compute_s == pytest.approx(flops / (512 * 989.4e12 * 0.40))
    # Tensor parallel: 16 micro-batches x 80 layers x 4 all-reduces of 4096 x 8192 x 2 bytes over 8 GPUs at
    # 480 GB/s plus 10 us each.
    message = 4096 * 8192 * 2
    per_call = 2 * 7 / 8 * message / 480e9 + 10e-6
    assert step.tp_comm_s == pytest.approx(16 * 80 * 4 * per_call)
    # Data parallel (ranks 8 apart: across nodes): half of a 2 x 63/64 x (70.55e9 / 8 x 2 bytes) all-reduce.
    grads = numbers.total_params / 8 * 2
    assert step.dp_comm_s == pytest.approx(0.5 * (2 * 63 / 64 * grads / (50e9 * 0.77) + 25e-6))
    assert step.bubble_s == 0 and step.tokens_per_step == tokens


def test_uneven_pipeline_runs_at_the_pace_of_its_fullest_stage():
    h100 = get_gpu("h100-sxm")
    numbers = perf.model_numbers(get_preset("llama-3.1-70b"))  # 80 layers
    rates = perf.effective_rates(h100, "bf16")

    def step(pp):
        layout = Layout(dp=8, tp=8, pp=pp, ep=1, zero=1, recompute="none", offload="none",
                                     micro_batch=1)  # fmt: skip
        return perf.training_step_time(numbers, h100, layout, seq_len=4096, global_batch=1024, rates=rates)

    # pp 4 splits 80 layers evenly (20 each); pp 3 gives 27, 27, 26 and every micro-batch waits for a 27-layer
    # stage: compute per GPU is (27 x 3 / 80) times the even share. Same work, 3/4 of the GPUs.
    even, uneven = step(4), step(3)
    assert uneven.compute_s == pytest.approx(even.compute_s * 4 / 3 * (27 * 3 / 80))
    # the bubble is compute x (p - 1) / m with m = 1024 / 8 = 128 micro-batches
    assert uneven.bubble_s == pytest.approx(uneven.compute_s * 2 / 128)
    # tensor-parallel all-reduces: 27 layers per micro-batch on the fullest stage, against 20
    assert uneven.tp_comm_s == pytest.approx(even.tp_comm_s * 27 / 20)


def test_decode_roofline_by_hand():
    h100 = get_gpu("h100-sxm")
    model = get_preset("llama-2-7b")
    numbers = perf.model_numbers(model)
    rates = perf.effective_rates(h100, "bf16")
    weights = numbers.total_params * 2
    # Llama-2-7B KV: 2 x 32 layers x 32 heads x 128 x 2 bytes = 524,288 bytes per token.
    kv_per_token = 2 * 32 * 32 * 128 * 2
    timing = perf.inference_time(numbers, h100, tp=1, pp=1, batch=8, prompt_len=2048, output_len=512,
                                 weight_bytes_total=weights, kv_bytes_per_token_total=kv_per_token,
                                 rates=rates)  # fmt: skip
    # One decode step reads the weights and 8 sequences x (2048 + 256) tokens of KV at 0.8 x 3.35 TB/s.
    expected = (weights + 8 * 2304 * kv_per_token) / (0.8 * 3.35e12)
    assert timing.tpot_s == pytest.approx(expected)
    assert timing.tokens_per_s == pytest.approx(8 / expected)
    assert timing.decode_bound == "memory bandwidth"
    # Prefill: 2048 x (2P + 2 x 32 x 4096 x 2048) FLOPs at 0.40 x 989.4 TFLOPS.
    prefill = 2048 * (2 * numbers.active_params + 2 * 32 * 4096 * 2048) / (0.4 * 989.4e12)
    assert timing.ttft_s == pytest.approx(max(prefill, weights / (0.8 * 3.35e12)))


def test_max_concurrent_sequences_by_hand():
    # 80 GiB card, 20 GiB used with one sequence whose KV is 1 GiB: (80 - 19) / 1 = 61 sequences.
    gib = 2**30
    assert perf.max_concurrent_sequences(80 * gib, 20 * gib, 1 * gib) == 61
    assert perf.max_concurrent_sequences(10 * gib, 20 * gib, 1 * gib) == 0


def test_confidence_labels_and_calibration_from_a_probe_report():
    h100 = get_gpu("h100-sxm")
    spec = perf.effective_rates(h100, "bf16")
    assert spec.confidence == "catalog spec"
    assert spec.flops_per_s == pytest.approx(989.4e12 * 0.40)
    assert perf.effective_rates(h100, "bf16", mfu=0.5).confidence == "user-set"
    # The sample report measured 790 TFLOPS bf16 and 2.9 TB/s on an "NVIDIA H100 80GB HBM3".
    report = ProbeReport.from_dict(sample_report_dict())
    calibration = perf.calibration_from_report(report)
    assert set(calibration) == {"h100-sxm"}
    measured = perf.effective_rates(h100, "bf16", calibration=calibration["h100-sxm"])
    assert measured.confidence == "measured"
    assert measured.flops_per_s == pytest.approx(790e12 * 0.40 / 0.83)
    assert measured.bandwidth_bytes_per_s == pytest.approx(2.9e12)
    with pytest.raises(UserError):
        perf.effective_rates(h100, "bf16", mfu=1.5)
    with pytest.raises(UserError):
        perf.effective_rates(get_gpu("a100-sxm-80gb"), "fp8")
