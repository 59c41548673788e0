"""The torch probe: memory bandwidth, host and peer links, matmul FLOPS per dtype, on each GPU or on the CPU.

Methods (details go into every measurement's "method" and "details"):
- Matmul on a GPU: the mamf-finder method (stas00/ml-engineering, compute/accelerator/benchmarks/mamf-finder.py,
  benchmark version 4): A is (m, k) row-major and B is built (n, k) row-major and transposed, the "TN" layout
  cuBLAS runs fastest; between repetitions a 256 MiB buffer is zeroed (flushing the L2 cache) and C is reset
  from a random copy, both outside the timed window; every repetition has its own pair of CUDA events on the
  current stream; after a warm-up of at least 200 ms the shape's mean, median and max FLOP/s are recorded, and
  the value is the best median over the shapes. FLOPs per matmul = 2*m*n*k. fp32 runs with TF32 off; tf32 with
  it on (restored afterwards); fp8 (float8_e4m3fn through torch._scaled_mm, per-tensor scales of 1, bf16 output,
  fp32 accumulation unless settings.fp8_fast_accum) only where compute capability >= 8.9.
- Device memory bandwidth: a large device-to-device copy (torch copy_ -> cudaMemcpyAsync), median of trials. A
  copy of S bytes reads S and writes S, and it is counted as 2*S (read + write, the STREAM "copy" convention).
  nvbandwidth counts the S bytes copied once, so its device-local figure for the same copy is half of ours.
  details carry both S and the counted bytes. The buffer must not fit in the L2 cache: a bandwidth row whose
  buffer is below max(4 x L2 size, 256 MiB) is refused (failed, with the reason) rather than reported high.
- Host links: pinned host memory to device and back (nvbandwidth's host_to_device / device_to_host copy-engine
  copies), S bytes counted once: one direction over PCIe/NVLink-C2C. As nvbandwidth does, the probing thread
  is first pinned to the CPUs NVML names as nearest to the GPU (so the pinned pages land on the GPU's own NUMA
  node, not across the socket link of a dual-socket board), and the pinned-memory cache is emptied after each
  host copy, so the next GPU's buffers are allocated afresh under its own affinity.
- Peer links: device i to device j copy where CUDA allows peer access, S counted once (unidirectional); the
  copy is verified afterwards (checksum of the destination against the source), as nvbandwidth verifies.
- CPU path (no usable GPU): the same large-copy bandwidth (read + write counted) and fp32/bf16 matmul FLOPS
  with torch on the CPU, timed with time.perf_counter, median of trials.

Before each GPU is measured its utilisation and the other processes computing on it are read from NVML and
stored as the device's "activity"; a busy GPU (another process, or utilisation >= 10 %) is flagged there, since
its figures are then low for a reason that has nothing to do with the hardware.

Telemetry: while a GPU is probed a TelemetrySampler reads its SM clock, power, temperature and clock-event
reasons every 0.1 s into the device's "telemetry", so a throttled card explains a low number.

MIG: a CUDA device whose UUID is one of NVML's MIG device UUIDs is that MIG slice: the device entry names the
slice (profile, GPU and compute instance ids) and its share of the whole GPU, so a 3g.40gb slice is compared
with 3/7 of the card's compute and about half its memory. Slices NVML lists but CUDA did not show to this
process are listed as not measured, with how to measure them.

Each measurement is independent: an out-of-memory or CUDA error marks that one failed with its reason and the
others go on; a device whose properties cannot even be read is listed as not probed, with the reason, and the
probe still writes its report. torch and pynvml are imported only inside functions.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace

from profiler import report as report_module
from profiler.jsontypes import JSONObject
from profiler.machine_info import machine_info
from profiler.model_shapes import ModelShapes, model_shape_steps
from profiler.nvml_activity import read_activity
from profiler.nvml_inventory import Inventory, read_inventory
from profiler.probe_devices import DevicePlan, import_torch, plan_devices
from profiler.probe_settings import ProbeSettings, failure_reason, settings_for
from profiler.probe_steps import failed_steps, release_cuda_memory, run_step
from profiler.report import Device, Measurement
from profiler.telemetry import TelemetrySampler

# progress(stage, fraction 0..1, device id, measurement dict or None)
ProgressCallback = Callable[[str, float, str, "Measurement | None"], None]


# --------------------------------------------------------------------------------------------------------------
# The whole probe
# --------------------------------------------------------------------------------------------------------------


def _device_context(plan: DevicePlan) -> Callable[[], AbstractContextManager[object]]:
    """A factory of the context that makes plan's GPU current (events, streams and allocations land on it)."""
    if plan.kind != "cuda":
        return nullcontext

    def context() -> AbstractContextManager[object]:
        import torch

        return torch.cuda.device(int(plan.device.split(":", 1)[1]))

    return context


def _device_info(plan: DevicePlan) -> JSONObject:
    info: JSONObject = {"device": plan.device, "name": plan.name, "uuid": plan.uuid, "kind": plan.kind}
    if plan.mig is not None:
        info["mig"] = plan.mig
    return info


def _new_entry(plan: DevicePlan) -> Device:
    entry: Device = {
        "device": plan.device, "name": plan.name, "uuid": plan.uuid, "kind": plan.kind,
        "measurements": [], "telemetry": [],
    }  # fmt: skip
    if plan.mig is not None:
        entry["mig"] = plan.mig
    return entry


def _probe_device(
    plan: DevicePlan, settings: ProbeSettings, report: Callable[[str, Measurement | None], None]
) -> Device:
    """Run a device's steps, calling report(stage, None) before and report(stage, measurement) after each."""
    entry = _new_entry(plan)
    if plan.failure:
        entry["measurements"] = failed_steps(plan.device, plan.failure)
        report(f"{plan.device} not probed", entry["measurements"][0])
        return entry
    if plan.kind == "cuda" and plan.nvml_gpu is not None:
        entry["activity"] = read_activity(plan.nvml_gpu.index).to_dict()
    sampler = None
    if plan.kind == "cuda" and plan.nvml_gpu is not None:
        sampler = TelemetrySampler(
            interval_s=settings.telemetry_interval_s, capacity=10_000, include_pcie=False,
            gpus=[plan.nvml_gpu.cuda_index],
        )  # fmt: skip
        sampler.start()
    try:
        for step in plan.steps:
            report(step.stage, None)
            measurement = run_step(step, _device_context(plan))
            if plan.kind == "cuda":
                release_cuda_memory()  # the next step (or a collectives run after us) gets the memory back
            entry["measurements"].append(measurement)
            report(step.stage, measurement)
    finally:
        if sampler is not None:
            sampler.stop()
    if sampler is not None and plan.nvml_gpu is not None:
        entry["telemetry"] = [s.to_dict() for s in sampler.samples(plan.nvml_gpu.cuda_index)]
    return entry


def _probe_device_or_say_why(
    plan: DevicePlan, settings: ProbeSettings, report: Callable[[str, Measurement | None], None]
) -> Device:
    """_probe_device, with any failure around the steps (the sampler, NVML) turned into not-probed rows, so the
    probe always writes its report."""
    try:
        return _probe_device(plan, settings, report)
    except Exception as exc:  # the report must be written whatever one device does
        entry = _new_entry(plan)
        entry["measurements"] = failed_steps(
            plan.device, f"the probe failed on {plan.device}: {failure_reason(exc)}"
        )
        report(f"{plan.device} failed", entry["measurements"][0])
        return entry


def _capability(plan: DevicePlan) -> tuple[int, int]:
    """The compute capability of a plan's CUDA device ((0, 0) for the CPU)."""
    if plan.kind != "cuda":
        return (0, 0)
    import torch

    props = torch.cuda.get_device_properties(int(plan.device.split(":", 1)[1]))
    return (props.major, props.minor)


def run_probe(
    mode: str = "quick",
    device: str = "all",
    progress: ProgressCallback | None = None,
    settings: ProbeSettings | None = None,
    inventory: Inventory | None = None,
    on_plan: Callable[[list[str]], None] | None = None,
    on_devices: Callable[[list[JSONObject]], None] | None = None,
    shapes: ModelShapes | None = None,
) -> report_module.ProbeReport:
    """Probe this machine and return a validated ProbeReport. Never raises for hardware problems.

    device: "all" (every CUDA device, or the CPU when there is none), "cpu", or "cuda:N".
    progress(stage, fraction, device, measurement) is called before each measurement (measurement None) and
    after it (with the measurement dict); fraction runs from 0 to 1 over the whole probe. on_plan(device ids)
    is called once torch has started and the devices to probe are known, then on_devices(one dict per device:
    device, name, uuid, kind and, for a MIG slice, mig with its share of the GPU). shapes: a model's GEMM and
    attention shapes (gpu-probe --model-shapes) measured on each device after the standard steps.
    """
    settings = settings or settings_for(mode)
    if settings.mode != mode:
        settings = replace(settings, mode=mode)
    emit: ProgressCallback = progress or (lambda *args: None)
    emit("reading NVML inventory", 0.0, device, None)
    inventory = inventory if inventory is not None else read_inventory()
    emit("starting torch", 0.02, device, None)
    _torch, torch_error = import_torch()
    plans = plan_devices(device, settings, torch_error, inventory)
    if shapes is not None:
        for plan in plans:
            if not plan.failure:
                plan.steps.extend(model_shape_steps(plan.device, _capability(plan), shapes, settings))
    if on_plan is not None:
        on_plan([p.device for p in plans])
    if on_devices is not None:
        on_devices([_device_info(p) for p in plans])
    total = sum(len(p.steps) if not p.failure else 1 for p in plans)
    done = 0
    devices: list[Device] = []
    for plan in plans:

        def report(stage: str, measurement: Measurement | None, plan: DevicePlan = plan) -> None:
            nonlocal done
            if measurement is not None:
                done += 1
            emit(stage, 0.05 + 0.95 * done / total, plan.device, measurement)

        devices.append(_probe_device_or_say_why(plan, settings, report))
    data = report_module.new_report_dict(mode, machine_info(), inventory.to_dict(), devices)
    return report_module.ProbeReport.from_dict(data)
