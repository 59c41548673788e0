"""Issue 19 on CPU: what the first run on a real NVIDIA GPU needs, exercised without one.

torch's CUDA queries are replaced where a GPU would answer (is_available, device_count, get_device_properties);
NVML answers through the fake backend, which speaks real NVML's function names, shapes and error codes. The
measurement code that only a GPU can run (CUDA events, pinned copies) is not reached here; its pure parts
(buffer sizing, affinity, checksums, the TN layout, fp8 settings) are run for real on the CPU.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from dataclasses import replace
from types import SimpleNamespace

import pytest
import torch

from profiler import probe, probe_bandwidth, probe_matmul, probe_settings, probe_steps
from profiler.fake_nvml import FakeNvml
from profiler.nvml import Unavailable
from profiler.nvml_activity import read_activity
from profiler.nvml_inventory import read_inventory
from profiler.report import ProbeReport
from tests.profiler.test_probe import TINY

MIB = 1024 * 1024
# What torch 2.x prints when the driver answers cudaGetDeviceCount with error 802 (an HGX board whose NVIDIA
# fabric manager is not running): the text of c10/cuda/CUDAFunctions.cpp's warning.
ERROR_802_WARNING = (
    "CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before "
    "calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized "
    "(Triggered internally at /pytorch/c10/cuda/CUDAFunctions.cpp:109.)"
)


def pretend_gpus(monkeypatch, props: list[SimpleNamespace], value: float = 1e12) -> list[tuple]:
    """torch.cuda answers for these devices; every CUDA measurement function records its call and returns
    `value`. Returns the list the calls are recorded in."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: len(props))

    def properties(index):
        found = props[index]
        if isinstance(found, Exception):
            raise found
        return found

    monkeypatch.setattr(torch.cuda, "get_device_properties", properties)
    monkeypatch.setattr(torch.cuda, "device", lambda i: contextlib.nullcontext())
    asked: list[tuple] = []
    for name in ("cuda_memory_bandwidth", "cuda_host_bandwidth", "cuda_p2p_bandwidth", "cuda_matmul"):

        def measure(*args, name=name):
            asked.append((name, tuple(a for a in args if not isinstance(a, probe_settings.ProbeSettings))))
            return probe_settings.Outcome(value, f"pretend {name}", {})

        monkeypatch.setattr(probe_steps, name, measure)
    return asked


def h100(index: int) -> SimpleNamespace:
    return SimpleNamespace(
        name="NVIDIA H100 80GB HBM3", major=9, minor=0, uuid=f"6f0b6c52-0e1d-4a4c-9d1e-00000000000{index}"
    )


# ---------------------------------------------------------------------------------------------------------------
# 3. The real CUDA start-up error reaches the user; a device that fails is listed, the report is written
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_error_802_from_cuda_start_up_is_the_reason_the_gpus_are_not_measured(monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_FAKE_NVML", "h100x8")

    def is_available():  # what torch does when cudaGetDeviceCount fails: a warning, then False
        warnings.warn(ERROR_802_WARNING, UserWarning, stacklevel=1)
        return False

    monkeypatch.setattr(torch.cuda, "is_available", is_available)
    monkeypatch.setattr(torch.version, "cuda", "12.8")  # a CUDA build of torch
    report = probe.run_probe("quick", "all", settings=TINY)
    gpus = [d for d in report.devices if d["kind"] == "cuda"]
    assert len(gpus) == 8
    error = gpus[0]["measurements"][0]["error"]
    assert "CUDA is not available to torch: CUDA initialization: Unexpected error" in error
    assert "Error 802: system not yet initialized" in error
    assert "Triggered internally" not in error  # torch's source location is not the user's business


def test_a_device_whose_properties_cannot_be_read_is_listed_and_the_others_are_measured(monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_FAKE_NVML", "h100x8")
    sticky = RuntimeError(
        "CUDA error: an illegal memory access was encountered\nCUDA kernel errors might be ..."
    )
    pretend_gpus(monkeypatch, [h100(0), sticky])
    report = probe.run_probe("quick", "all", settings=replace(TINY, telemetry_interval_s=1.0))
    assert isinstance(report, ProbeReport)
    by_device = {d["device"]: d for d in report.devices}
    assert all(m["ok"] for m in by_device["cuda:0"]["measurements"])
    failed = by_device["cuda:1"]["measurements"]
    assert failed and not any(m["ok"] for m in failed)
    assert failed[0]["error"] == (
        "cannot read cuda:1's properties: RuntimeError: CUDA error: an illegal memory access was encountered"
    )


def test_a_device_context_that_raises_fails_each_step_and_the_report_is_still_written(monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_FAKE_NVML", "h100x8")
    pretend_gpus(monkeypatch, [h100(0)])

    def broken_device(index):
        raise RuntimeError("CUDA error: unspecified launch failure")

    monkeypatch.setattr(torch.cuda, "device", broken_device)
    report = probe.run_probe("quick", "all", settings=replace(TINY, telemetry_interval_s=1.0))
    (device,) = report.devices
    assert device["measurements"] and all(
        m["error"] == "RuntimeError: CUDA error: unspecified launch failure" for m in device["measurements"]
    )


# ---------------------------------------------------------------------------------------------------------------
# 4. Measurements that mean what they say
# ---------------------------------------------------------------------------------------------------------------


def test_bandwidth_buffers_are_at_least_four_l2_sizes_and_256_mib():
    # H100: 50 MiB L2 -> floor max(200, 256) = 256 MiB; a 512 MiB copy with 80 GB free keeps its size.
    assert probe_bandwidth.bandwidth_buffer_bytes(512 * MIB, 2, 80 * 1024 * MIB, 50 * MIB) == 512 * MIB
    # B200: 126 MiB L2 -> floor 504 MiB; a 256 MiB host copy is grown to it.
    assert probe_bandwidth.bandwidth_buffer_bytes(256 * MIB, 1, 180 * 1024 * MIB, 126 * MIB) == 504 * MIB
    # A full GPU: 900 MiB free for two buffers allows 225 MiB each (half the free memory), under the floor.
    with pytest.raises(
        probe_settings.Refused, match=r"at least 256 MiB .* only 900 MiB of device memory is free"
    ):
        probe_bandwidth.bandwidth_buffer_bytes(512 * MIB, 2, 900 * MIB, 50 * MIB)
    assert probe_bandwidth.min_bandwidth_bytes(None) == 256 * MIB


def test_a_refused_bandwidth_row_is_failed_with_the_reason():
    def too_small():
        raise probe_settings.Refused("not measured: a bandwidth buffer must be at least 256 MiB")

    row = probe_steps.run_step(
        probe_steps.Step("cuda:0 memory bandwidth", "memory_bandwidth", None, None, too_small)
    )
    assert row["ok"] is False and row["value"] is None
    assert row["error"] == "not measured: a bandwidth buffer must be at least 256 MiB"


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="CPU affinity is a Linux call")
def test_host_copies_run_on_the_gpu_cpu_set_and_the_affinity_is_restored():
    before = os.sched_getaffinity(0)
    cpu = min(before)
    with probe_bandwidth.near_cpus([cpu, 100_000]) as details:  # a CPU this machine lacks is left out
        assert os.sched_getaffinity(0) == {cpu}
        assert details == {"cpu_affinity": str(cpu)}
    assert os.sched_getaffinity(0) == before
    with probe_bandwidth.near_cpus([]) as details:
        assert details["cpu_affinity"].startswith("not set") and os.sched_getaffinity(0) == before
    assert probe_bandwidth.cpu_set_text([0, 1, 2, 3, 8, 9, 11]) == "0-3,8-9,11"


def test_host_copies_of_each_gpu_are_pinned_to_its_own_socket(monkeypatch):
    """The fake HGX board puts GPUs 0-3 behind socket 0 (CPUs 0-47) and 4-7 behind socket 1 (CPUs 48-95)."""
    monkeypatch.setenv("GPU_ADVISOR_FAKE_NVML", "h100x8")
    asked = pretend_gpus(monkeypatch, [h100(i) for i in range(8)])
    probe.run_probe("quick", "all", settings=replace(TINY, telemetry_interval_s=1.0))
    assert ("cuda_host_bandwidth", (3, "h2d", list(range(48)))) in asked
    assert ("cuda_host_bandwidth", (4, "h2d", list(range(48, 96)))) in asked


def test_a_busy_gpu_is_flagged_before_it_is_measured(monkeypatch, capsys):
    from profiler.probe_summary import human_summary as _human_summary

    monkeypatch.setenv("GPU_ADVISOR_FAKE_NVML", "busy")
    pretend_gpus(monkeypatch, [h100(0)])
    report = probe.run_probe("quick", "all", settings=replace(TINY, telemetry_interval_s=1.0))
    activity = report.devices[0]["activity"]
    assert activity["busy"] is True and activity["utilization_pct"] == 97
    assert activity["other_processes"] == [{"pid": 4242, "used_memory_bytes": 30 * 1024 * MIB}]
    assert activity["reason"] == "1 other compute process(es): pid 4242; utilisation 97 %"
    assert report.busy_devices() == [("cuda:0", activity["reason"])]
    assert "cuda:0: was busy when measured (1 other compute process(es): pid 4242" in _human_summary(report)


def test_this_process_does_not_count_as_another_and_an_idle_gpu_is_not_busy():
    busy = read_activity(0, FakeNvml("busy"), own_pids={4242})
    assert busy.other_processes == [] and busy.busy  # utilisation 97 % still counts
    idle = read_activity(0, FakeNvml("consumer"))
    assert idle.other_processes == [] and idle.utilization_pct is not None
    assert idle.busy == (idle.utilization_pct >= 10)


def test_the_matmul_is_tn_b_transposed_and_computes_a_times_b():
    gemm = probe_matmul.make_gemm("fp32", 64, 32, 48, "cpu")
    assert gemm.a.shape == (64, 48) and gemm.a.is_contiguous()
    assert gemm.b.shape == (48, 32) and gemm.b.stride() == (1, 48)  # column-major (k, n): built (n, k), .t()
    gemm.op()
    expected = gemm.a.double() @ gemm.b.contiguous().double()
    assert torch.allclose(gemm.out.double(), expected, atol=1e-4)
    assert gemm.fresh.shape == gemm.out.shape and not torch.equal(gemm.fresh, gemm.out)


def test_fp8_matmul_uses_bf16_output_and_records_its_accumulation():
    gemm = probe_matmul.make_gemm(
        "fp8", 32, 16, 64, "cpu", fast_accum=False
    )  # torch 2.13 runs _scaled_mm on CPU too
    assert gemm.a.dtype == torch.float8_e4m3fn and gemm.b.stride() == (1, 64)
    gemm.op()
    assert gemm.out.dtype == torch.bfloat16
    exact = gemm.a.float() @ gemm.b.float()
    assert torch.allclose(gemm.out.float(), exact, rtol=0.02, atol=0.1)  # bf16 output: 8 mantissa bits
    assert probe_matmul.fp8_details(False)["use_fast_accum"] is False
    assert "fp32 accumulation" in probe_matmul.fp8_details(False)["accumulation"]
    assert (
        probe_matmul.fp8_details(True)["use_fast_accum"] is True
        and probe_settings.QUICK.fp8_fast_accum is False
    )


def test_copy_bandwidth_says_it_counts_read_and_write():
    outcome = probe_bandwidth.cpu_memory_bandwidth(TINY)
    assert outcome.details["bytes_counted"] == 2 * outcome.details["bytes_copied"]
    assert outcome.details["counting"].startswith(
        "read + write: 2 x bytes copied (the STREAM copy convention"
    )
    assert "read + write counted" in outcome.method


# ---------------------------------------------------------------------------------------------------------------
# 6. Peer copies are verified
# ---------------------------------------------------------------------------------------------------------------


def test_checksum_catches_a_flipped_byte_and_a_swapped_block():
    data = torch.zeros(4 * 8192, dtype=torch.uint8)
    assert probe_bandwidth.checksum(data) == 0
    data[8192] = 1  # block 2 (weight 2), first 8-byte word = 1 (little endian)
    assert probe_bandwidth.checksum(data) == 2
    source = torch.randint(0, 256, (8 * 8192,), dtype=torch.uint8, generator=torch.Generator().manual_seed(1))
    copy = source.clone()
    assert probe_bandwidth.checksum(copy) == probe_bandwidth.checksum(source)
    copy[5] ^= 0x10
    assert probe_bandwidth.checksum(copy) != probe_bandwidth.checksum(source)
    swapped = torch.cat([source[8192:16384], source[:8192], source[16384:]])
    assert probe_bandwidth.checksum(swapped) != probe_bandwidth.checksum(
        source
    )  # same bytes, blocks in another order


# ---------------------------------------------------------------------------------------------------------------
# 5. MIG: CUDA's MIG UUID matched to NVML's MIG devices; the slice named, its share of the GPU; unseen slices
# ---------------------------------------------------------------------------------------------------------------


def test_nvml_describes_each_mig_slice_through_its_mig_handle():
    (gpu,) = read_inventory(FakeNvml("mig")).gpus
    assert gpu.mig_slices_total == 7
    first = gpu.mig_devices[0]
    assert first["uuid"] == "MIG-3g40gb00-0000-4000-8000-000000000001"
    assert first["name"] == "NVIDIA A100-SXM4-80GB MIG 3g.40gb" and first["profile"] == "3g.40gb"
    assert (first["gpu_instance_id"], first["compute_instance_id"]) == (2, 0)
    assert (first["multiprocessor_count"], first["compute_slices"]) == (42, 3)
    assert [m["profile"] for m in gpu.mig_devices] == ["3g.40gb", "2g.20gb", "1g.10gb"]


def test_a_cuda_mig_device_is_named_compared_with_its_share_and_the_other_slices_listed(monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_FAKE_NVML", "mig")
    # CUDA reports a MIG device's UUID as the bare 16 bytes of NVML's "MIG-<uuid>".
    slice_props = SimpleNamespace(name="NVIDIA A100-SXM4-80GB MIG 3g.40gb", major=8, minor=0,
                                  uuid="3g40gb00-0000-4000-8000-000000000001")  # fmt: skip
    pretend_gpus(monkeypatch, [slice_props])
    report = probe.run_probe("quick", "all", settings=replace(TINY, telemetry_interval_s=1.0))
    seen, *unseen = report.devices
    assert seen["device"] == "cuda:0" and seen["uuid"] == "MIG-3g40gb00-0000-4000-8000-000000000001"
    assert seen["name"] == "NVIDIA A100-SXM4-80GB MIG 3g.40gb"
    mig = seen["mig"]
    assert mig["profile"] == "3g.40gb" and mig["parent_name"] == "NVIDIA A100-SXM4-80GB"
    assert mig["compute_fraction"] == pytest.approx(3 / 7)  # 3 of the A100's 7 compute slices
    assert mig["memory_fraction"] == pytest.approx(
        40192 / 81920
    )  # its memory over the card's (MiB, nvidia-smi)
    assert all(m["ok"] for m in seen["measurements"])
    assert [d["device"] for d in unseen] == [
        "MIG-2g20gb00-0000-4000-8000-000000000002",
        "MIG-1g10gb00-0000-4000-8000-000000000003",
    ]
    error = unseen[0]["measurements"][0]["error"]
    assert "MIG slice 2g.20gb" in error and "was not shown to this process by CUDA" in error
    assert "CUDA_VISIBLE_DEVICES=MIG-2g20gb00-0000-4000-8000-000000000002 gpu-probe" in error
    assert unseen[0]["mig"]["compute_fraction"] == pytest.approx(2 / 7)


def test_a_whole_gpu_query_on_a_mig_handle_is_refused_as_nvml_does():
    fake = FakeNvml("mig")
    fake.nvmlInit()
    parent = fake.nvmlDeviceGetHandleByIndex(0)
    slot = fake.nvmlDeviceGetMigDeviceHandleByIndex(parent, 0)
    assert fake.nvmlDeviceIsMigDeviceHandle(slot) == 1 and fake.nvmlDeviceIsMigDeviceHandle(parent) == 0
    assert fake.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(slot) == parent
    with pytest.raises(fake.NVMLError) as refused:
        fake.nvmlDeviceGetPowerUsage(slot)
    assert refused.value.value == 3  # NVML_ERROR_NOT_SUPPORTED
    with pytest.raises(fake.NVMLError) as empty:
        fake.nvmlDeviceGetMigDeviceHandleByIndex(parent, 5)
    assert empty.value.value == 6  # NVML_ERROR_NOT_FOUND: an empty slot
    with pytest.raises(fake.NVMLError) as whole:
        fake.nvmlDeviceGetAttributes(parent)
    assert whole.value.value == 3


# ---------------------------------------------------------------------------------------------------------------
# A driver before 535: missing functions are FunctionNotFound, and every read falls back or is refused
# ---------------------------------------------------------------------------------------------------------------


def test_a_driver_470_inventory_reads_with_the_missing_functions_refused():
    import pynvml

    fake = FakeNvml("driver470")
    fake.nvmlInit()
    with pytest.raises(pynvml.NVMLError_FunctionNotFound):
        fake.nvmlDeviceGetNumaNodeId(fake.nvmlDeviceGetHandleByIndex(0))
    fake.nvmlShutdown()
    inventory = read_inventory(FakeNvml("driver470"))
    assert inventory.driver_version == "470.182.03" and inventory.cuda_driver_version == "11.4"
    first = inventory.gpus[0]
    assert first.name == "Tesla V100-SXM2-32GB" and first.compute_capability == (7, 0)
    assert first.numa_node == Unavailable("function not in this driver's NVML")
    assert isinstance(first.mig_mode, Unavailable) and "not supported" in first.mig_mode.reason
    assert first.cpu_affinity == list(range(48))  # nvmlDeviceGetCpuAffinity is old enough
    assert inventory.topology["pairs"][0]["code"] == "NV2"


def test_a_driver_470_falls_back_to_the_old_process_list_and_throttle_reasons():
    from profiler.telemetry import TelemetrySampler

    activity = read_activity(0, FakeNvml("driver470"))
    assert activity.other_processes == [] and "processes" not in activity.refused  # answered by _v2
    sampler = TelemetrySampler(FakeNvml("driver470"), include_pcie=False)
    samples = sampler.sample_once()
    sampler.stop()
    assert samples and all(s.clocks_event_reasons is not None for s in samples)  # ThrottleReasons answered
    assert "clocks_event_reasons" not in sampler.status()[0]["refused"]


def test_the_probe_on_a_driver_470_machine_writes_a_valid_report(monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_FAKE_NVML", "driver470")
    props = [SimpleNamespace(name="Tesla V100-SXM2-32GB", major=7, minor=0,
                             uuid=f"0100e470-0000-4000-8000-00000000000{i}") for i in range(2)]  # fmt: skip
    pretend_gpus(monkeypatch, props)
    report = probe.run_probe("quick", "all", settings=replace(TINY, telemetry_interval_s=0.01))
    assert [d["uuid"] for d in report.devices] == [
        f"GPU-0100e470-0000-4000-8000-00000000000{i}" for i in range(2)
    ]
    activity = report.devices[0]["activity"]
    assert activity["other_processes"] == [] and "processes" not in activity["refused"]
