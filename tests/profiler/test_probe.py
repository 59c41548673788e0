"""The torch probe on this machine's CPU, for real (tiny sizes), checked against timings done here by hand."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest
import torch

from profiler import probe, probe_bandwidth, probe_matmul, probe_settings, probe_steps, probe_timing
from profiler.nvml_inventory import read_inventory
from profiler.report import ProbeReport

TINY = replace(
    probe_settings.QUICK,
    cpu_copy_bytes=16 * 1024 * 1024,
    cpu_matmul_shapes=((256, 256, 256),),
    bandwidth_budget_s=0.15,
    matmul_budget_s=0.2,
    trial_target_s=0.005,
    warmup_s=0.02,
)


# How close the quick probe's figures are to a long steady-state timing of the same operation is a benchmark
# (`make bench`, tests/bench/bench_probe.py prints the ratios), not a test: on a shared machine any timing
# comparison flakes. The tests hold what does not depend on the machine's load: the counting.


def test_cpu_matmul_counts_two_n_cubed_flops_per_trial_at_its_best_shape():
    outcome = probe_matmul.cpu_matmul("fp32", TINY)
    assert outcome.value > 0
    assert outcome.details["best_shape"] == [256, 256, 256]
    shape = outcome.details["shapes"][0]
    assert shape["flops_per_s"] == pytest.approx(2 * 256**3 / shape["median_s"])
    assert shape["trials"] >= TINY.min_trials


def test_cpu_bandwidth_is_positive_plausible_and_counts_read_plus_write():
    outcome = probe_bandwidth.cpu_memory_bandwidth(TINY)
    # Any machine this runs on copies between 0.5 GB/s and 2 TB/s (DDR4 single channel ~20 GB/s, HBM CPUs ~1 TB/s).
    assert 0.5e9 < outcome.value < 2e12
    details = outcome.details
    assert details["bytes_counted"] == 2 * details["bytes_copied"] == 2 * 16 * 1024 * 1024
    # the figure is the counted bytes over the median time of one copy (median_s is per copy)
    assert outcome.value == pytest.approx(details["bytes_counted"] / details["median_s"])


@pytest.mark.slow
def test_run_probe_on_cpu_builds_a_valid_report_with_progress():
    events = []
    planned = []
    report = probe.run_probe(
        "quick", "all", progress=lambda *e: events.append(e), settings=TINY, on_plan=planned.extend
    )
    assert isinstance(report, ProbeReport)
    assert planned == ["cpu"]
    assert report.nvml["available"] is False
    assert (
        report.nvml["reason"] == "no NVIDIA GPU: the driver is loaded but reports 0 devices"
    )  # conftest: none
    (device,) = report.devices
    assert device["kind"] == "cpu" and device["telemetry"] == []
    kinds = [(m["kind"], m["dtype"]) for m in device["measurements"]]
    assert kinds == [("memory_bandwidth", None), ("matmul", "fp32"), ("matmul", "bf16")]
    assert all(m["ok"] for m in device["measurements"])
    assert report.best("matmul", "bf16") > 0 and report.best("memory_bandwidth") > 0
    fractions = [e[1] for e in events]
    assert fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0)
    results = [e[3] for e in events if e[3] is not None]
    assert [r["kind"] for r in results] == ["memory_bandwidth", "matmul", "matmul"]
    assert report.machine["torch"] == torch.__version__ and report.machine["cpu_count"] >= 1


def test_a_failing_measurement_is_marked_failed_and_the_rest_go_on(monkeypatch):
    def out_of_memory(dtype, settings, budget_s=None):
        if dtype == "fp32":
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return original(dtype, settings, budget_s)

    original = probe_matmul.cpu_matmul
    monkeypatch.setattr(probe_steps, "cpu_matmul", out_of_memory)
    report = probe.run_probe("quick", "cpu", settings=TINY)
    by_dtype = {m["dtype"]: m for m in report.devices[0]["measurements"]}
    assert by_dtype["fp32"]["ok"] is False and by_dtype["fp32"]["value"] is None
    assert by_dtype["fp32"]["error"].startswith("out of memory:")
    assert by_dtype["bf16"]["ok"] is True and by_dtype[None]["ok"] is True


def test_any_exception_in_a_step_becomes_its_reason():
    step = probe_steps.Step("broken", "matmul", "fp16", None, lambda: 1 / 0)
    measurement = probe_steps.run_step(step)
    assert measurement["ok"] is False and measurement["error"] == "ZeroDivisionError: division by zero"
    assert measurement["unit"] == "FLOP/s" and measurement["duration_s"] >= 0


def test_asking_for_a_gpu_that_is_not_there_gives_failed_rows_with_the_reason():
    report = probe.run_probe("quick", "cuda:0", settings=TINY)
    (device,) = report.devices
    assert device["device"] == "cuda:0" and device["kind"] == "cuda"
    assert device["measurements"] and all(not m["ok"] for m in device["measurements"])
    assert (
        "cuda:0 is not available: torch has no CUDA support (CPU build)" == device["measurements"][0]["error"]
    )


def test_fp8_is_refused_below_compute_capability_8_9():
    with pytest.raises(RuntimeError, match=r"compute capability >= 8.9; this GPU is 8.0"):
        probe_matmul.cuda_matmul(0, "fp8", (8, 0), TINY)


def test_median_trials_respects_min_trials_and_counts_reps():
    calls = []
    median_s, details = probe_timing.median_trials(
        lambda: calls.append(1), probe_timing.cpu_timer, TINY, budget_s=0.0
    )
    assert details["trials"] == TINY.min_trials
    assert details["warmup_calls"] >= TINY.warmup
    assert len(calls) == details["warmup_calls"] + 1 + details["trials"] * details["reps_per_trial"]
    assert details["min_s"] <= median_s <= details["max_s"]


def test_warm_up_lasts_at_least_200_ms_by_default():
    # The rule for GPUs (clocks ramp up in the first ~100 ms of load); the default settings keep it.
    assert probe_settings.QUICK.warmup_s >= 0.2 and probe_settings.FULL.warmup_s >= 0.2
    calls = []
    started = time.perf_counter()
    warm = probe_timing.warm_up(lambda: calls.append(1), probe_timing.cpu_timer, probe_settings.QUICK)
    assert time.perf_counter() - started >= 0.2 and warm["warmup_s"] >= 0.2
    assert warm["warmup_calls"] == len(calls) >= probe_settings.QUICK.warmup


@pytest.mark.slow
def test_inventory_is_passed_into_the_report():
    from profiler.fake_nvml import FakeNvml

    inventory = read_inventory(FakeNvml("consumer"))
    report = probe.run_probe("quick", "cpu", settings=TINY, inventory=inventory)
    assert report.nvml["available"] and report.nvml["gpus"][0]["name"] == "NVIDIA GeForce RTX 4090"


def test_settings_budgets_fit_the_promised_times():
    # Quick: under 15 s per device including ~2-3 s of torch and CUDA start-up. GPU steps: 3 bandwidths, up to 7
    # peers, 5 matmul dtypes; each may overrun its budget by about one trial.
    quick_gpu = (
        3 * probe_settings.QUICK.bandwidth_budget_s
        + 7 * probe_settings.QUICK.p2p_budget_s
        + 5 * probe_settings.QUICK.matmul_budget_s
    )
    assert quick_gpu < 10
    full_gpu = (
        3 * probe_settings.FULL.bandwidth_budget_s
        + 7 * probe_settings.FULL.p2p_budget_s
        + 5 * probe_settings.FULL.matmul_budget_s
    )
    assert full_gpu < 55


def test_gpu_orchestration_with_fake_cuda_and_fake_nvml(monkeypatch):
    """Two pretend H100s: steps per device, peers, fp8 gating, UUID matching and NVML telemetry are wired right.

    There is no GPU here, so torch.cuda's queries and the five CUDA measurement functions are replaced by
    stand-ins that record what they were asked; the orchestration around them is the real code.
    """
    import contextlib
    from types import SimpleNamespace

    monkeypatch.setenv("GPU_ADVISOR_FAKE_NVML", "h100x8")
    props = [
        SimpleNamespace(
            name="NVIDIA H100 80GB HBM3", major=9, minor=0, uuid=f"6f0b6c52-0e1d-4a4c-9d1e-00000000000{i}"
        )
        for i in range(2)
    ]
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i: props[i])
    monkeypatch.setattr(torch.cuda, "device", lambda i: contextlib.nullcontext())
    asked = []

    def pretend(name, value):
        def measure(*args):
            asked.append((name, tuple(a for a in args if not isinstance(a, probe_settings.ProbeSettings))))
            time.sleep(0.02)  # long enough for the 5 ms telemetry sampler to read the GPU
            return probe_settings.Outcome(value, f"pretend {name}", {})

        return measure

    for name, value in [
        ("cuda_memory_bandwidth", 2.9e12),
        ("cuda_host_bandwidth", 5.0e10),
        ("cuda_p2p_bandwidth", 3.7e11),
        ("cuda_matmul", 7.9e14),
    ]:
        monkeypatch.setattr(probe_steps, name, pretend(name, value))

    settings = replace(TINY, telemetry_interval_s=0.005)
    report = probe.run_probe("quick", "all", settings=settings)
    assert [d["device"] for d in report.devices] == ["cuda:0", "cuda:1"]
    cuda1 = report.devices[1]
    assert cuda1["uuid"] == "GPU-6f0b6c52-0e1d-4a4c-9d1e-000000000001"  # matched to NVML by UUID
    kinds = [(m["kind"], m["dtype"], m["peer"]) for m in cuda1["measurements"]]
    assert kinds == [
        ("memory_bandwidth", None, None),
        ("h2d_bandwidth", None, None),
        ("d2h_bandwidth", None, None),
        ("p2p_bandwidth", None, "cuda:0"),
        ("matmul", "fp32", None),
        ("matmul", "tf32", None),
        ("matmul", "bf16", None),
        ("matmul", "fp16", None),
        ("matmul", "fp8", None),
    ]
    # cuda:1 is NVML GPU 1, behind CPU socket 0 in the fake HGX board: its host copies run on CPUs 0-47.
    assert ("cuda_host_bandwidth", (1, "d2h", list(range(48)))) in asked
    assert ("cuda_p2p_bandwidth", (1, 0)) in asked
    assert ("cuda_matmul", (0, "fp8", (9, 0))) in asked
    telemetry = cuda1["telemetry"]
    assert telemetry and all(
        700 >= t["power_w"] >= 71 for t in telemetry
    )  # the fake H100: idle 71 W, limit 700 W
    assert report.best("matmul", "bf16", "cuda:0") == 7.9e14
    assert report.nvml["available"] and len(report.nvml["gpus"]) == 8


def test_tf32_switch_is_restored():
    matmul = torch.backends.cuda.matmul
    before = matmul.fp32_precision
    with probe_matmul._tf32(enabled=True):
        assert matmul.fp32_precision == "tf32"
    with probe_matmul._tf32(enabled=False):
        assert matmul.fp32_precision == "ieee"
    assert matmul.fp32_precision == before


def test_failure_reasons_name_out_of_memory():
    assert probe_settings.failure_reason(
        RuntimeError("CUDA out of memory. Tried to allocate 20.00 GiB\nmore")
    ).startswith("out of memory: CUDA out of memory.")
    assert probe_settings.failure_reason(ValueError("")) == "ValueError: ValueError"
