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

import os
import platform
import socket
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from profiler import report as report_module
from profiler.jsontypes import JSONObject, JSONValue
from profiler.model_shapes import ModelShapes, model_shape_steps
from profiler.nvml import GpuInfo, Inventory, MigDevice, TelemetrySampler, read_activity, read_inventory
from profiler.report import Device, Machine, Measurement

if TYPE_CHECKING:
    import torch

MIB = 1024 * 1024
MATMUL_DTYPES_CUDA = ("fp32", "tf32", "bf16", "fp16", "fp8")
MATMUL_DTYPES_CPU = ("fp32", "bf16")
FP8_MIN_CAPABILITY = (8, 9)
# mamf-finder zeroes a 256 MiB buffer between repetitions to flush the cache: the largest L2/LLC of recent
# accelerators (B200's L2 is 126 MiB), and the floor below which a bandwidth buffer could be served from L2.
L2_FLUSH_BYTES = 256 * MIB
MIN_BANDWIDTH_BYTES = 256 * MIB
L2_MULTIPLE = 4  # a bandwidth buffer must be at least 4 x the L2 size

# progress(stage, fraction 0..1, device id, measurement dict or None)
ProgressCallback = Callable[[str, float, str, "Measurement | None"], None]
Timer = Callable[[Callable[[], object], int], float]


@dataclass(frozen=True)
class ProbeSettings:
    """Sizes and time budgets for one mode. Budgets are per measurement, in seconds (warm-up included)."""

    mode: str
    cuda_copy_bytes: int
    cuda_host_copy_bytes: int
    cuda_matmul_shapes: tuple[tuple[int, int, int], ...]
    cpu_copy_bytes: int
    cpu_matmul_shapes: tuple[tuple[int, int, int], ...]
    bandwidth_budget_s: float
    matmul_budget_s: float
    p2p_budget_s: float
    min_trials: int = 3
    max_trials: int = 50
    warmup: int = 2  # at least this many warm-up calls ...
    warmup_s: float = 0.2  # ... lasting at least this long, so the clocks have ramped up before timing starts
    trial_target_s: float = 0.02  # repetitions per trial are chosen so one trial lasts about this long
    telemetry_interval_s: float = 0.1
    fp8_fast_accum: bool = False  # torch._scaled_mm use_fast_accum (cuBLASLt fast accumulation)


QUICK = ProbeSettings(
    mode="quick",
    cuda_copy_bytes=512 * MIB,  # far above any L2 (50 MiB on H100, 126 MiB on B200)
    cuda_host_copy_bytes=256 * MIB,
    cuda_matmul_shapes=((4096, 4096, 4096), (8192, 8192, 8192)),
    cpu_copy_bytes=128 * MIB,  # far above a desktop CPU's last-level cache
    cpu_matmul_shapes=((512, 512, 512), (1024, 1024, 1024)),
    bandwidth_budget_s=0.6,
    matmul_budget_s=1.0,
    p2p_budget_s=0.3,
)

FULL = ProbeSettings(
    mode="full",
    cuda_copy_bytes=2048 * MIB,
    cuda_host_copy_bytes=1024 * MIB,
    cuda_matmul_shapes=(
        (4096, 4096, 4096),
        (6144, 6144, 6144),
        (8192, 8192, 8192),
        (8192, 8192, 16384),
        (12288, 12288, 12288),
    ),
    cpu_copy_bytes=512 * MIB,
    cpu_matmul_shapes=((512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048)),
    bandwidth_budget_s=3.0,
    matmul_budget_s=6.0,
    p2p_budget_s=1.5,
    min_trials=5,
    max_trials=200,
    warmup=3,
    trial_target_s=0.05,
)


def settings_for(mode: str) -> ProbeSettings:
    if mode not in ("quick", "full"):
        raise ValueError(f"mode must be 'quick' or 'full', not {mode!r}")
    return QUICK if mode == "quick" else FULL


@dataclass
class Outcome:
    """What a measurement function returns: the value (B/s or FLOP/s), how it was measured, the numbers behind."""

    value: float
    method: str
    details: JSONObject = field(default_factory=dict)


class Refused(RuntimeError):
    """A measurement that would not mean what it says (a buffer that fits in L2, a corrupted peer copy)."""


# --------------------------------------------------------------------------------------------------------------
# Timing: medians of trials within a time budget
# --------------------------------------------------------------------------------------------------------------


def _cpu_timer(run: Callable[[], object], reps: int) -> float:
    """Seconds per repetition of `run`, wall clock."""
    start = time.perf_counter()
    for _ in range(reps):
        run()
    return (time.perf_counter() - start) / reps


def _event() -> torch.cuda.Event:
    import torch

    return torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]  # torch leaves it unannotated


def _cuda_timer() -> Timer:
    """Seconds per repetition, timed with CUDA events on the current stream (no host launch gaps counted)."""

    def timer(run: Callable[[], object], reps: int) -> float:
        start, end = _event(), _event()
        start.record()
        for _ in range(reps):
            run()
        end.record()
        end.synchronize()
        return float(start.elapsed_time(end)) / 1000.0 / reps  # elapsed_time is in milliseconds

    return timer


def warm_up(run: Callable[[], object], timer: Timer, settings: ProbeSettings) -> JSONObject:
    """Call `run` at least settings.warmup times and for at least settings.warmup_s (clocks ramp up, caches and
    cuBLAS heuristics settle); returns what the warm-up did, for the details."""
    started = time.perf_counter()
    calls = 0
    while calls < settings.warmup or time.perf_counter() - started < settings.warmup_s:
        timer(run, 1)
        calls += 1
    return {"warmup_calls": calls, "warmup_s": time.perf_counter() - started}


def median_trials(
    run: Callable[[], object],
    timer: Timer,
    settings: ProbeSettings,
    budget_s: float,
) -> tuple[float, JSONObject]:
    """Warm up, then time trials until the budget is spent (at least min_trials). Returns (median s, details).

    Each trial repeats `run` enough times to last about settings.trial_target_s, so the timer's resolution and
    launch overhead do not dominate short operations.
    """
    started = time.perf_counter()
    warm = warm_up(run, timer, settings)
    one = max(timer(run, 1), 1e-7)
    reps = int(min(1000, max(1, settings.trial_target_s / one)))
    trials: list[float] = []
    deadline = started + budget_s
    while len(trials) < settings.max_trials:
        trials.append(timer(run, reps))
        if len(trials) >= settings.min_trials and time.perf_counter() >= deadline:
            break
    median = statistics.median(trials)
    return median, {
        **warm,
        "trials": len(trials),
        "reps_per_trial": reps,
        "median_s": median,
        "min_s": min(trials),
        "max_s": max(trials),
    }


# --------------------------------------------------------------------------------------------------------------
# CPU measurements
# --------------------------------------------------------------------------------------------------------------


def _torch_dtype(dtype: str) -> torch.dtype:
    import torch

    return {"fp32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[
        dtype
    ]


COPY_COUNTING = (
    "read + write: 2 x bytes copied (the STREAM copy convention; nvbandwidth counts the bytes copied once, "
    "i.e. half this figure)"
)
ONCE_COUNTING = "bytes copied, once (one direction over the link, as nvbandwidth counts)"


def _copy_details(size: int, counted: int) -> JSONObject:
    return {
        "bytes_copied": size,
        "bytes_counted": counted,
        "counting": COPY_COUNTING if counted == 2 * size else ONCE_COUNTING,
    }


def cpu_memory_bandwidth(settings: ProbeSettings, budget_s: float | None = None) -> Outcome:
    """Bytes per second of a large float32 tensor copy on the CPU, read + write counted (2*S per copy)."""
    import torch

    elements = max(1, settings.cpu_copy_bytes // 4)
    src = torch.ones(elements, dtype=torch.float32)
    dst = torch.empty_like(src)
    size = elements * 4
    median_s, details = median_trials(
        lambda: dst.copy_(src),
        _cpu_timer,
        settings,
        settings.bandwidth_budget_s if budget_s is None else budget_s,
    )
    details.update(_copy_details(size, counted=2 * size), threads=torch.get_num_threads())
    return Outcome(
        2 * size / median_s,
        "torch.Tensor.copy_ on CPU, read + write counted, perf_counter, median of trials",
        details,
    )


def cpu_matmul(dtype: str, settings: ProbeSettings, budget_s: float | None = None) -> Outcome:
    """Best median FLOP/s of torch.mm on the CPU over settings.cpu_matmul_shapes (2*m*n*k FLOPs each)."""
    per_shape: list[JSONValue] = []
    best_value, best_shape = 0.0, (0, 0, 0)
    budget = settings.matmul_budget_s if budget_s is None else budget_s
    for m, n, k in settings.cpu_matmul_shapes:
        run = _cpu_matmul_runner(dtype, m, n, k)
        median_s, details = median_trials(run, _cpu_timer, settings, budget / len(settings.cpu_matmul_shapes))
        flops = 2.0 * m * n * k / median_s
        per_shape.append({"m": m, "n": n, "k": k, "flops_per_s": flops, **details})
        if flops > best_value:
            best_value, best_shape = flops, (m, n, k)
    return Outcome(
        best_value,
        "torch.mm on CPU, mamf-finder shapes (warm-up, median per shape, best shape), perf_counter",
        {"best_shape": list(best_shape), "shapes": per_shape, "flops_per_matmul": "2*m*n*k"},
    )


def _cpu_matmul_runner(dtype: str, m: int, n: int, k: int) -> Callable[[], object]:
    """One (m x k) @ (k x n) product in `dtype` on the CPU, writing into a preallocated output."""
    import torch

    tdtype = _torch_dtype(dtype)
    a = torch.randn(m, k, dtype=torch.float32).to(tdtype)
    b = torch.randn(k, n, dtype=torch.float32).to(tdtype)
    out = torch.empty(m, n, dtype=tdtype)
    return lambda: torch.mm(a, b, out=out)


# --------------------------------------------------------------------------------------------------------------
# Sizes that mean what they say
# --------------------------------------------------------------------------------------------------------------


def min_bandwidth_bytes(l2_bytes: int | None) -> int:
    """The smallest buffer a bandwidth figure may use: max(4 x L2, 256 MiB), so the L2 cannot serve it."""
    return max(L2_MULTIPLE * (l2_bytes or 0), MIN_BANDWIDTH_BYTES)


def bandwidth_buffer_bytes(wanted: int, copies: int, free_bytes: int | None, l2_bytes: int | None) -> int:
    """The buffer size for a bandwidth measurement with `copies` such buffers on the device.

    At least min_bandwidth_bytes(l2_bytes) (grown to it when `wanted` is smaller), at most half the free memory
    for all copies together; raises Refused naming the sizes when the floor does not fit.
    """
    floor = min_bandwidth_bytes(l2_bytes)
    size = max(wanted, floor)
    if free_bytes is not None:
        size = min(size, free_bytes // (2 * copies))
    size = size // MIB * MIB
    if size < floor:
        l2_text = f"{(l2_bytes or 0) // MIB} MiB L2 cache"
        raise Refused(
            f"not measured: a bandwidth buffer must be at least {floor // MIB} MiB (max of 4 x the {l2_text} "
            f"and 256 MiB) so the cache cannot serve it, and only {(free_bytes or 0) // MIB} MiB of device "
            f"memory is free for {copies} such buffer(s)"
        )
    return size


def _device_budget(index: int, wanted: int, copies: int) -> tuple[int, JSONObject]:
    """bandwidth_buffer_bytes for cuda:index, with the free memory and L2 size CUDA reports."""
    import torch

    l2 = int(getattr(torch.cuda.get_device_properties(index), "L2_cache_size", 0) or 0) or None
    try:
        free: int | None = int(torch.cuda.mem_get_info(index)[0])
    except RuntimeError:  # old drivers / MIG without the query: try the wanted size; an OOM says so later
        free = None
    size = bandwidth_buffer_bytes(wanted, copies, free, l2)
    return size, {"l2_cache_bytes": l2, "min_buffer_bytes": min_bandwidth_bytes(l2)}


# --------------------------------------------------------------------------------------------------------------
# CUDA measurements (exercised on real GPUs; on a machine without one these paths are never reached)
# --------------------------------------------------------------------------------------------------------------


def cuda_memory_bandwidth(index: int, settings: ProbeSettings) -> Outcome:
    """Device-to-device copy on cuda:index; read + write counted (2*S per copy), CUDA events, median."""
    import torch

    size, sizing = _device_budget(index, settings.cuda_copy_bytes, copies=2)
    src = torch.empty(size, dtype=torch.uint8, device=f"cuda:{index}").fill_(1)
    dst = torch.empty_like(src)
    median_s, details = median_trials(
        lambda: dst.copy_(src), _cuda_timer(), settings, settings.bandwidth_budget_s
    )
    details.update(_copy_details(size, counted=2 * size), **sizing)
    return Outcome(
        2 * size / median_s,
        "device-to-device torch copy_ (cudaMemcpyAsync), read + write counted (STREAM copy), CUDA events, median",
        details,
    )


def cpu_set_text(cpus: list[int]) -> str:
    """[0, 1, 2, 3, 8, 9] -> "0-3,8-9" (the form taskset and /sys use)."""
    ranges: list[str] = []
    for cpu in sorted(set(cpus)):
        if ranges and int(ranges[-1].split("-")[-1]) == cpu - 1:
            ranges[-1] = f"{ranges[-1].split('-')[0]}-{cpu}"
        else:
            ranges.append(str(cpu))
    return ",".join(ranges)


@contextmanager
def near_cpus(cpus: list[int]) -> Iterator[JSONObject]:
    """Run the block on the CPUs nearest the GPU (the calling thread's affinity), restored afterwards.

    Pinned host pages are placed by first touch, on the NUMA node of the thread that allocates them; nvbandwidth
    sets the same affinity before its host buffers. Yields what was done, for the measurement's details.
    """
    if not hasattr(os, "sched_setaffinity") or not hasattr(os, "sched_getaffinity"):
        yield {"cpu_affinity": "not set: this OS has no sched_setaffinity"}
        return
    before = os.sched_getaffinity(0)
    wanted = set(cpus) & before
    if not wanted:
        reason = "NVML gave no CPU set" if not cpus else "none of the GPU's CPUs is allowed to this process"
        yield {"cpu_affinity": f"not set: {reason}"}
        return
    os.sched_setaffinity(0, wanted)
    try:
        yield {"cpu_affinity": cpu_set_text(sorted(wanted))}
    finally:
        os.sched_setaffinity(0, before)


def _empty_host_cache() -> None:
    """Give pinned host blocks back to the OS (torch caches them), so the next allocation is placed afresh."""
    import torch

    empty = getattr(torch._C, "_host_emptyCache", None)
    if callable(empty):
        empty()


def cuda_host_bandwidth(
    index: int, direction: str, settings: ProbeSettings, cpus: list[int] | None = None
) -> Outcome:
    """Host-to-device ('h2d') or device-to-host ('d2h') copy from/to pinned memory; S counted once.

    The thread runs on `cpus` (the GPU's NVML CPU set) while the host buffer is allocated and copied.
    """
    size, sizing = _device_budget(index, settings.cuda_host_copy_bytes, copies=1)
    with near_cpus(cpus or []) as affinity:
        median_s, details = _time_host_copy(index, size, direction, settings)
        _empty_host_cache()  # the pinned buffer is gone now; give its pages back before the next GPU's turn
    details.update(_copy_details(size, counted=size), **affinity, **sizing)
    pinned = details.get("pinned") is True
    what = "host-to-device" if direction == "h2d" else "device-to-host"
    memory = "pinned" if pinned else "pageable (pinning refused)"
    return Outcome(size / median_s, f"{what} copy from {memory} host memory, CUDA events, median", details)


def _time_host_copy(
    index: int, size: int, direction: str, settings: ProbeSettings
) -> tuple[float, JSONObject]:
    """Median seconds of one host<->device copy of `size` bytes; the buffers are freed when this returns."""
    import torch

    device_buffer = torch.empty(size, dtype=torch.uint8, device=f"cuda:{index}")
    pinned, pin_error = True, None
    try:
        host = torch.empty(size, dtype=torch.uint8, pin_memory=True)
    except RuntimeError as exc:  # containers with a low memlock limit refuse to pin; pageable is a figure
        pinned, pin_error = False, _reason(exc)
        host = torch.empty(size, dtype=torch.uint8)
    host.fill_(1)
    if direction == "h2d":
        run: Callable[[], object] = lambda: device_buffer.copy_(host, non_blocking=True)  # noqa: E731
    else:
        run = lambda: host.copy_(device_buffer, non_blocking=True)  # noqa: E731
    median_s, details = median_trials(run, _cuda_timer(), settings, settings.bandwidth_budget_s)
    details["pinned"] = pinned
    if pin_error:
        details["pin_error"] = pin_error
    return median_s, details


def checksum(tensor: torch.Tensor) -> int:
    """A position-sensitive checksum of a uint8 tensor whose size is a multiple of 8 KiB: its 8-byte words summed
    per 8 KiB block, the block sums weighted by block number (int64 arithmetic wraps the same on every device)."""
    import torch

    words = tensor.view(torch.int64).view(-1, 1024)
    sums = words.sum(dim=1)
    weights = torch.arange(1, sums.numel() + 1, dtype=torch.int64, device=tensor.device)
    return int((sums * weights).sum().item())


def cuda_p2p_bandwidth(src_index: int, dst_index: int, settings: ProbeSettings) -> Outcome:
    """Copy from cuda:src to cuda:dst (peer access), S counted once; wall clock around synchronize on both;
    the last copy is verified by checksum on both devices (a link that corrupts data is refused)."""
    import torch

    if not torch.cuda.can_device_access_peer(src_index, dst_index):
        raise RuntimeError(
            f"CUDA reports no peer access from cuda:{src_index} to cuda:{dst_index} "
            "(no GPUDirect P2P here: copies between them go through host memory)"
        )
    size_src, sizing = _device_budget(src_index, settings.cuda_host_copy_bytes, 1)
    size = min(size_src, _device_budget(dst_index, settings.cuda_host_copy_bytes, 1)[0])
    src = torch.randint(0, 256, (size,), dtype=torch.uint8, device=f"cuda:{src_index}")
    dst = torch.empty(size, dtype=torch.uint8, device=f"cuda:{dst_index}")

    def timer(run: Callable[[], object], reps: int) -> float:
        # Events belong to one device; a cross-device copy is bracketed by synchronising both instead.
        torch.cuda.synchronize(src_index)
        torch.cuda.synchronize(dst_index)
        start = time.perf_counter()
        for _ in range(reps):
            run()
        torch.cuda.synchronize(src_index)
        torch.cuda.synchronize(dst_index)
        return (time.perf_counter() - start) / reps

    median_s, details = median_trials(
        lambda: dst.copy_(src, non_blocking=True), timer, settings, settings.p2p_budget_s
    )
    expected, got = checksum(src), checksum(dst)
    if expected != got:
        raise Refused(
            f"the peer copy cuda:{src_index} -> cuda:{dst_index} corrupted data: checksum {got:#x} on the "
            f"destination, {expected:#x} on the source"
        )
    details.update(
        _copy_details(size, counted=size), verified="checksum of destination equals source", **sizing
    )
    return Outcome(
        size / median_s,
        "peer copy (torch copy_ between devices), synchronize + perf_counter, median, verified by checksum",
        details,
    )


def cuda_matmul(index: int, dtype: str, capability: tuple[int, int], settings: ProbeSettings) -> Outcome:
    """Best median FLOP/s of a matmul in `dtype` on cuda:index (mamf-finder v4 method, CUDA events)."""
    import torch

    if dtype == "fp8" and tuple(capability) < FP8_MIN_CAPABILITY:
        raise RuntimeError(
            f"fp8 matmul needs compute capability >= 8.9; this GPU is {capability[0]}.{capability[1]}"
        )
    device = f"cuda:{index}"
    per_shape: list[JSONValue] = []
    best_value, best_shape = 0.0, (0, 0, 0)
    with _tf32(enabled=dtype == "tf32"):
        for m, n, k in settings.cuda_matmul_shapes:
            stats = mamf_shape(
                dtype, m, n, k, device, settings, settings.matmul_budget_s / len(settings.cuda_matmul_shapes)
            )
            per_shape.append(stats)
            median = stats["median_flops_per_s"]
            if isinstance(median, float) and median > best_value:
                best_value, best_shape = median, (m, n, k)
            torch.cuda.empty_cache()
    details: JSONObject = {
        "best_shape": list(best_shape),
        "shapes": per_shape,
        "flops_per_matmul": "2*m*n*k",
        "tf32": dtype == "tf32",
        "b_layout": "B transposed: built (n, k) row-major and viewed as (k, n), the TN GEMM (mamf-finder)",
        "between_repetitions": f"{L2_FLUSH_BYTES // MIB} MiB L2 flush (zero_) and C reset from a random "
        "copy, outside the timed events",
        "statistic": "median of repetitions per shape (mean and max per shape in shapes), best shape",
    }
    if dtype == "fp8":
        details.update(fp8_details(settings.fp8_fast_accum))
    what = "torch._scaled_mm float8_e4m3fn -> bf16" if dtype == "fp8" else f"torch.mm {dtype}"
    method = f"{what}, mamf-finder v4 method: TN layout, L2 flush and C reset, CUDA events per repetition"
    return Outcome(best_value, method, details)


def fp8_details(fast_accum: bool) -> JSONObject:
    """How an fp8 matmul was configured: what the figure depends on besides the hardware."""
    return {
        "fp8_format": "float8_e4m3fn (both operands)",
        "scales": "per-tensor, 1.0",
        "out_dtype": "bf16",
        "use_fast_accum": fast_accum,
        "accumulation": "fast accumulation (cuBLASLt FAST_ACCUM: no periodic promotion to fp32)"
        if fast_accum
        else "fp32 accumulation (torch._scaled_mm default, use_fast_accum=False)",
    }


def mamf_shape(
    dtype: str, m: int, n: int, k: int, device: str, settings: ProbeSettings, budget_s: float
) -> JSONObject:
    """One shape, the mamf-finder way: per-repetition CUDA events around the matmul alone, with the L2 flushed and
    C reset before each; repetitions queued and synchronised once. Returns mean/median/max FLOP/s and times."""
    import torch

    gemm = make_gemm(dtype, m, n, k, device, settings.fp8_fast_accum)
    op = gemm.op
    flush = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.int32, device=device)

    def prepared() -> None:
        flush.zero_()
        gemm.out.copy_(gemm.fresh)

    def one_repetition() -> None:
        prepared()
        op()

    warm = warm_up(one_repetition, _cuda_timer(), settings)
    started = time.perf_counter()
    torch.cuda.synchronize(device)
    single = max(_cuda_timer()(op, 1), 1e-6)
    count = int(min(settings.max_trials * 4, max(settings.min_trials * 4, budget_s / (single * 3))))
    starts = [_event() for _ in range(count)]
    ends = [_event() for _ in range(count)]
    for start, end in zip(starts, ends, strict=True):
        prepared()
        start.record()
        op()
        end.record()
    torch.cuda.synchronize(device)
    times = [float(s.elapsed_time(e)) / 1000.0 for s, e in zip(starts, ends, strict=True)]
    flops = 2.0 * m * n * k
    return {
        "m": m,
        "n": n,
        "k": k,
        **warm,
        "repetitions": count,
        "mean_flops_per_s": flops / statistics.fmean(times),
        "median_flops_per_s": flops / statistics.median(times),
        "max_flops_per_s": flops / min(times),
        "median_s": statistics.median(times),
        "timed_s": time.perf_counter() - started,
    }


@dataclass(frozen=True)
class Gemm:
    """One matmul set up the mamf-finder way: op() computes a @ b into out; b is (k, n) column-major (built as
    (n, k) row-major and transposed: the TN layout); fresh is what out is reset from between repetitions."""

    op: Callable[[], object]
    a: torch.Tensor
    b: torch.Tensor
    out: torch.Tensor
    fresh: torch.Tensor


def make_gemm(dtype: str, m: int, n: int, k: int, device: str, fast_accum: bool = False) -> Gemm:
    """The operands and the call for one (m, k) x (k, n) matmul in `dtype` on `device`."""
    import torch

    if dtype == "fp8":
        if not hasattr(torch, "float8_e4m3fn") or not hasattr(torch, "_scaled_mm"):
            raise RuntimeError(f"this torch ({torch.__version__}) has no float8 matmul (torch._scaled_mm)")
        a8 = torch.randn(m, k, device=device).to(torch.float8_e4m3fn)
        b8 = (
            torch.randn(n, k, device=device).to(torch.float8_e4m3fn).t()
        )  # (k, n) column-major: cuBLASLt's need
        one = torch.tensor(1.0, device=device, dtype=torch.float32)
        out8 = torch.empty(m, n, device=device, dtype=torch.bfloat16)

        def fp8_op() -> object:
            return torch._scaled_mm(
                a8,
                b8,
                scale_a=one,
                scale_b=one,
                out_dtype=torch.bfloat16,
                use_fast_accum=fast_accum,
                out=out8,
            )

        return Gemm(fp8_op, a8, b8, out8, torch.randn(m, n, device=device).to(torch.bfloat16))
    tdtype = _torch_dtype(dtype)
    a = torch.randn(m, k, device=device, dtype=torch.float32).to(tdtype)
    b = torch.randn(n, k, device=device, dtype=torch.float32).to(tdtype).t()
    out = torch.empty(m, n, device=device, dtype=tdtype)
    return Gemm(lambda: torch.mm(a, b, out=out), a, b, out, torch.randn(m, n, device=device).to(tdtype))


class _tf32:
    """Context manager: TF32 tensor cores on or off for fp32 matmuls, restored afterwards."""

    def __init__(self, enabled: bool):
        import torch

        self.matmul = torch.backends.cuda.matmul
        self.enabled = enabled
        self.new_api = hasattr(self.matmul, "fp32_precision")  # torch >= 2.9 (allow_tf32 is deprecated there)
        self.saved: object = None

    def __enter__(self) -> None:
        if self.new_api:
            self.saved = self.matmul.fp32_precision
            self.matmul.fp32_precision = "tf32" if self.enabled else "ieee"
        else:
            self.saved = self.matmul.allow_tf32
            self.matmul.allow_tf32 = self.enabled

    def __exit__(self, *exc: object) -> None:
        if self.new_api:
            self.matmul.fp32_precision = self.saved
        else:
            self.matmul.allow_tf32 = self.saved


# --------------------------------------------------------------------------------------------------------------
# Steps, failures, devices
# --------------------------------------------------------------------------------------------------------------


@dataclass
class Step:
    """One planned measurement: its report fields and the function that measures it."""

    stage: str
    kind: str
    dtype: str | None
    peer: str | None
    measure: Callable[[], Outcome]


def _reason(exc: BaseException) -> str:
    """One line saying why a measurement failed (OOM and CUDA errors named as such)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    name = type(exc).__name__
    if name == "OutOfMemoryError" or "out of memory" in text.lower():
        return f"out of memory: {text[:300]}"
    if isinstance(exc, ImportError):
        return f"torch is not installed here ({text}); pip install torch"
    if isinstance(exc, Refused):
        return text[:400]
    return f"{name}: {text[:300]}"


def run_step(step: Step, context: Callable[[], AbstractContextManager[object]] = nullcontext) -> Measurement:
    """Run one measurement inside `context` (the device's); any exception, the context's own included, becomes
    a failed measurement with its reason (the rest go on)."""
    started_at = report_module.utc_now_iso()
    t0 = time.perf_counter()
    try:
        with context():
            outcome = step.measure()
    except Exception as exc:  # each measurement is independent: record why and carry on
        _release_cuda_memory()
        return report_module.measurement_dict(
            step.kind,
            dtype=step.dtype,
            peer=step.peer,
            ok=False,
            error=_reason(exc),
            method=step.stage,
            started_at=started_at,
            duration_s=time.perf_counter() - t0,
        )
    return report_module.measurement_dict(
        step.kind,
        dtype=step.dtype,
        peer=step.peer,
        value=outcome.value,
        method=outcome.method,
        started_at=started_at,
        duration_s=time.perf_counter() - t0,
        details=outcome.details,
    )


def _release_cuda_memory() -> None:
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            if torch.cuda.is_initialized():
                torch.cuda.empty_cache()
        except Exception:  # a sticky CUDA error fails here too; the next step reports it with its own reason
            pass


def cpu_steps(settings: ProbeSettings) -> list[Step]:
    steps = [
        Step("cpu memory bandwidth", "memory_bandwidth", None, None, _bind("cpu_memory_bandwidth", settings))
    ]
    for dtype in MATMUL_DTYPES_CPU:
        steps.append(Step(f"cpu matmul {dtype}", "matmul", dtype, None, _bind("cpu_matmul", dtype, settings)))
    return steps


def cuda_steps(
    index: int,
    capability: tuple[int, int],
    peers: list[int],
    settings: ProbeSettings,
    cpus: list[int] | None = None,
) -> list[Step]:
    dev = f"cuda:{index}"
    steps = [
        Step(f"{dev} memory bandwidth", "memory_bandwidth", None, None,
             _bind("cuda_memory_bandwidth", index, settings)),
        Step(f"{dev} host to device", "h2d_bandwidth", None, None,
             _bind("cuda_host_bandwidth", index, "h2d", settings, cpus)),
        Step(f"{dev} device to host", "d2h_bandwidth", None, None,
             _bind("cuda_host_bandwidth", index, "d2h", settings, cpus)),
    ]  # fmt: skip
    for peer in peers:
        steps.append(
            Step(f"{dev} to cuda:{peer}", "p2p_bandwidth", None, f"cuda:{peer}",
                 _bind("cuda_p2p_bandwidth", index, peer, settings))
        )  # fmt: skip
    for dtype in MATMUL_DTYPES_CUDA:
        steps.append(
            Step(f"{dev} matmul {dtype}", "matmul", dtype, None,
                 _bind("cuda_matmul", index, dtype, capability, settings))
        )  # fmt: skip
    return steps


def _bind(function_name: str, *args: object) -> Callable[[], Outcome]:
    """Look the measurement function up by name when the step runs, so a test can monkeypatch one of them."""

    def measure() -> Outcome:
        outcome = globals()[function_name](*args)
        if not isinstance(outcome, Outcome):
            raise TypeError(f"{function_name} returned {type(outcome).__name__}, not an Outcome")
        return outcome

    return measure


def failed_steps(device: str, reason: str) -> list[Measurement]:
    """The rows for a device that cannot be probed at all, each failed with the same reason."""
    kinds = [("memory_bandwidth", None), ("matmul", "fp32"), ("matmul", "bf16")]
    return [
        report_module.measurement_dict(
            kind, dtype=dtype, ok=False, error=reason[:900], method=f"{device} not probed"
        )
        for kind, dtype in kinds
    ]


# --------------------------------------------------------------------------------------------------------------
# Machine description
# --------------------------------------------------------------------------------------------------------------


def machine_info() -> Machine:
    """Host facts for the report: OS, CPU model, logical CPUs, RAM bytes, Python/torch/CUDA versions (torch's
    when this process has imported it)."""
    torch = sys.modules.get("torch")
    version = getattr(torch, "__version__", None)
    cuda = getattr(getattr(torch, "version", None), "cuda", None)
    return {
        "hostname": socket.gethostname()[:253],
        "os": platform.platform(),
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "ram_bytes": _ram_bytes(),
        "python": platform.python_version(),
        "torch": str(version) if version is not None else None,
        "cuda": str(cuda) if cuda is not None else None,
    }


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def _ram_bytes() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        pass
    if sys.platform == "win32":
        import ctypes

        class MemoryStatus(ctypes.Structure):
            _fields_ = [
                ("dwLength", ctypes.c_ulong),
                ("dwMemoryLoad", ctypes.c_ulong),
                ("ullTotalPhys", ctypes.c_ulonglong),
                ("ullAvailPhys", ctypes.c_ulonglong),
                ("ullTotalPageFile", ctypes.c_ulonglong),
                ("ullAvailPageFile", ctypes.c_ulonglong),
                ("ullTotalVirtual", ctypes.c_ulonglong),
                ("ullAvailVirtual", ctypes.c_ulonglong),
                ("ullAvailExtendedVirtual", ctypes.c_ulonglong),
            ]

        status = MemoryStatus()
        status.dwLength = ctypes.sizeof(MemoryStatus)
        if ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):
            return int(status.ullTotalPhys)
    return None


# --------------------------------------------------------------------------------------------------------------
# Which devices: CUDA's view matched to NVML's
# --------------------------------------------------------------------------------------------------------------


@dataclass
class _Plan:
    device: str
    kind: str
    name: str
    uuid: str | None
    steps: list[Step]
    nvml_gpu: GpuInfo | None = None  # the GPU (the parent, for a MIG slice) in the NVML inventory
    mig: JSONObject | None = None  # the MIG slice this device is, with its share of the GPU
    failure: str | None = None  # set when the device cannot be probed at all


def _import_torch() -> tuple[object | None, str | None]:
    # NVML and CUDA must number GPUs the same way; set before torch initialises CUDA.
    os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
    try:
        import torch
    except ImportError as exc:
        return None, f"torch is not installed here ({exc}); pip install torch"
    return torch, None


def _warning_text(caught: list[warnings.WarningMessage]) -> str:
    """The distinct warnings torch raised while starting CUDA, one line each, without torch's source location."""
    lines: list[str] = []
    for item in caught:
        text = str(item.message).strip().split(" (Triggered internally at")[0].strip()
        if text and text not in lines:
            lines.append(" ".join(text.split())[:400])
    return "; ".join(lines)


def cuda_state() -> tuple[int, str | None]:
    """(number of usable CUDA devices, reason when zero). The warnings torch raises while it asks the driver
    (e.g. "Error 802: system not yet initialized" when an HGX board's fabric manager is stopped) are the real
    reason, so they go into it."""
    torch = sys.modules.get("torch")
    if torch is None:
        return 0, "torch is not installed"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            available = bool(torch.cuda.is_available())
            count = int(torch.cuda.device_count()) if available else 0
        except Exception as exc:  # any error from the driver means "no CUDA here"; say which
            said = _warning_text(caught)
            return 0, f"CUDA initialisation failed: {_reason(exc)}" + (f" ({said})" if said else "")
    said = _warning_text(caught)
    if count:
        return count, None
    if not getattr(torch.version, "cuda", None):
        return 0, "torch has no CUDA support (CPU build)" + (f": {said}" if said else "")
    return 0, "CUDA is not available to torch" + (f": {said}" if said else "")


def uuid_key(text: object) -> str:
    """A UUID as a comparable key: lower case, without NVML's "GPU-"/"MIG-" prefix (CUDA gives the bare hex)."""
    value = str(text).strip().lower()
    for prefix in ("gpu-", "mig-"):
        if value.startswith(prefix):
            value = value[len(prefix) :]
    return value


@dataclass(frozen=True)
class NvmlMatch:
    """The NVML side of one CUDA device: the GPU, the MIG slice when the device is one, its UUID."""

    gpu: GpuInfo | None
    mig: MigDevice | None
    uuid: str | None


def match_nvml(cuda_uuid: object, index: int, inventory: Inventory) -> NvmlMatch:
    """The NVML GPU (or MIG slice) behind torch's cuda:index: by UUID (GPU UUIDs, then MIG device UUIDs), else
    by PCI bus order when no CUDA_VISIBLE_DEVICES reorders the devices."""
    if cuda_uuid is not None:
        key = uuid_key(cuda_uuid)
        for gpu in inventory.gpus:
            if isinstance(gpu.uuid, str) and uuid_key(gpu.uuid) == key:
                return NvmlMatch(gpu, None, gpu.uuid)
        for gpu in inventory.gpus:
            for mig in gpu.mig_devices if isinstance(gpu.mig_devices, list) else []:
                if isinstance(mig["uuid"], str) and uuid_key(mig["uuid"]) == key:
                    return NvmlMatch(gpu, mig, mig["uuid"])
    if not os.environ.get("CUDA_VISIBLE_DEVICES") and index < len(inventory.gpus):
        gpu = inventory.gpus[index]  # both in PCI bus id order (CUDA_DEVICE_ORDER=PCI_BUS_ID)
        return NvmlMatch(gpu, None, gpu.uuid if isinstance(gpu.uuid, str) else None)
    return NvmlMatch(None, None, str(cuda_uuid) if cuda_uuid is not None else None)


def mig_share(gpu: GpuInfo, mig: MigDevice) -> JSONObject:
    """A MIG slice's description and its share of the whole GPU: compute slices / the GPU's slices (7 on A100,
    H100), memory / the GPU's memory. The catalog's whole-GPU spec times these is what the slice can reach."""
    slices = mig["compute_slices"]
    total = gpu.mig_slices_total
    if not isinstance(slices, int) and isinstance(mig["profile"], str):
        slices = int(mig["profile"].split("g", 1)[0])  # "3g.40gb": 3 compute slices
    memory, whole = mig["memory_total_bytes"], gpu.memory_total_bytes
    return {
        "uuid": mig["uuid"] if isinstance(mig["uuid"], str) else "",
        "profile": mig["profile"],
        "name": mig["name"] if isinstance(mig["name"], str) else None,
        "parent_uuid": gpu.uuid if isinstance(gpu.uuid, str) else None,
        "parent_name": gpu.name if isinstance(gpu.name, str) else None,
        "gpu_instance_id": mig["gpu_instance_id"] if isinstance(mig["gpu_instance_id"], int) else None,
        "compute_instance_id": mig["compute_instance_id"]
        if isinstance(mig["compute_instance_id"], int)
        else None,
        "compute_slices": slices if isinstance(slices, int) else None,
        "gpu_slices": total if isinstance(total, int) else None,
        "compute_fraction": slices / total
        if isinstance(slices, int) and isinstance(total, int) and 0 < slices <= total
        else None,
        "memory_fraction": memory / whole
        if isinstance(memory, int) and isinstance(whole, int) and 0 < memory <= whole
        else None,
    }


def plan_devices(
    device: str, settings: ProbeSettings, torch_error: str | None, inventory: Inventory
) -> list[_Plan]:
    """Which devices to probe for --device all|cpu|cuda:N, with their steps (or why they cannot be probed)."""
    count, cuda_reason = cuda_state() if torch_error is None else (0, torch_error)
    if device == "cpu" or (device == "all" and count == 0):
        plan = _Plan("cpu", "cpu", _cpu_model(), None, cpu_steps(settings))
        if torch_error:
            plan.failure = torch_error
        unusable = _unusable_nvml_gpus(inventory, cuda_reason) if device == "all" else []
        return [plan, *unusable]
    if device == "all":
        indices = list(range(count))
    else:
        index = int(device.split(":", 1)[1])
        if index >= count:
            why = cuda_reason or f"this machine has {count} CUDA device(s)"
            return [_Plan(device, "cuda", device, None, [], failure=f"{device} is not available: {why}")]
        indices = [index]
    plans = [_plan_cuda_device(index, count, settings, inventory) for index in indices]
    if device == "all":
        plans += _unseen_mig_slices(inventory, plans)
    return plans


def _plan_cuda_device(index: int, count: int, settings: ProbeSettings, inventory: Inventory) -> _Plan:
    """cuda:index's plan; a device whose properties or NVML match cannot be read is not probed, with why."""
    import torch

    dev = f"cuda:{index}"
    try:
        props = torch.cuda.get_device_properties(index)
        match = match_nvml(getattr(props, "uuid", None), index, inventory)
    except Exception as exc:  # a sticky CUDA error or a driver fault on this device: the others go on
        return _Plan(dev, "cuda", dev, None, [], failure=f"cannot read {dev}'s properties: {_reason(exc)}")
    cpus = (
        match.gpu.cpu_affinity if match.gpu is not None and isinstance(match.gpu.cpu_affinity, list) else []
    )
    peers = [j for j in range(count) if j != index]
    plan = _Plan(dev, "cuda", str(props.name), match.uuid,
                 cuda_steps(index, (props.major, props.minor), peers, settings, cpus), match.gpu)  # fmt: skip
    if match.gpu is not None and match.mig is not None:
        plan.mig = mig_share(match.gpu, match.mig)
        if isinstance(match.mig["name"], str):
            plan.name = match.mig["name"]
    return plan


def _unseen_mig_slices(inventory: Inventory, plans: list[_Plan]) -> list[_Plan]:
    """A not-measured entry for each MIG slice NVML lists that no CUDA device of this process is."""
    seen = {uuid_key(plan.uuid) for plan in plans if plan.uuid}
    unseen = []
    for gpu in inventory.gpus:
        for mig in gpu.mig_devices if isinstance(gpu.mig_devices, list) else []:
            uuid = mig["uuid"]
            if not isinstance(uuid, str) or uuid_key(uuid) in seen:
                continue
            name = mig["name"] if isinstance(mig["name"], str) else f"MIG {mig['profile'] or 'slice'}"
            why = (f"MIG slice {mig['profile'] or '?'} ({uuid}) of GPU {gpu.cuda_index} was not shown to this "
                   f"process by CUDA; measure it with CUDA_VISIBLE_DEVICES={uuid} gpu-probe")  # fmt: skip
            unseen.append(_Plan(uuid, "cuda", name, uuid, [], gpu, mig_share(gpu, mig), failure=why))
    return unseen


def _unusable_nvml_gpus(inventory: Inventory, cuda_reason: str | None) -> list[_Plan]:
    """A failed entry for each GPU NVML lists but torch cannot run on (a CPU build of torch, a broken CUDA), so
    the report says why those GPUs have no figures instead of silently measuring only the CPU."""
    why = f"NVML lists this GPU but torch cannot use it: {cuda_reason or 'torch sees no CUDA device'}"
    return [
        _Plan(
            f"cuda:{gpu.cuda_index}",
            "cuda",
            gpu.name if isinstance(gpu.name, str) else f"cuda:{gpu.cuda_index}",
            gpu.uuid if isinstance(gpu.uuid, str) else None,
            [],
            gpu,
            failure=why,
        )
        for gpu in inventory.gpus
    ]


# --------------------------------------------------------------------------------------------------------------
# The whole probe
# --------------------------------------------------------------------------------------------------------------


def _device_context(plan: _Plan) -> Callable[[], AbstractContextManager[object]]:
    """A factory of the context that makes plan's GPU current (events, streams and allocations land on it)."""
    if plan.kind != "cuda":
        return nullcontext

    def context() -> AbstractContextManager[object]:
        import torch

        return torch.cuda.device(int(plan.device.split(":", 1)[1]))

    return context


def _device_info(plan: _Plan) -> JSONObject:
    info: JSONObject = {"device": plan.device, "name": plan.name, "uuid": plan.uuid, "kind": plan.kind}
    if plan.mig is not None:
        info["mig"] = plan.mig
    return info


def _new_entry(plan: _Plan) -> Device:
    entry: Device = {
        "device": plan.device, "name": plan.name, "uuid": plan.uuid, "kind": plan.kind,
        "measurements": [], "telemetry": [],
    }  # fmt: skip
    if plan.mig is not None:
        entry["mig"] = plan.mig
    return entry


def _probe_device(
    plan: _Plan, settings: ProbeSettings, report: Callable[[str, Measurement | None], None]
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
                _release_cuda_memory()  # the next step (or a collectives run after us) gets the memory back
            entry["measurements"].append(measurement)
            report(step.stage, measurement)
    finally:
        if sampler is not None:
            sampler.stop()
    if sampler is not None and plan.nvml_gpu is not None:
        entry["telemetry"] = [s.to_dict() for s in sampler.samples(plan.nvml_gpu.cuda_index)]
    return entry


def _probe_device_or_say_why(
    plan: _Plan, settings: ProbeSettings, report: Callable[[str, Measurement | None], None]
) -> Device:
    """_probe_device, with any failure around the steps (the sampler, NVML) turned into not-probed rows, so the
    probe always writes its report."""
    try:
        return _probe_device(plan, settings, report)
    except Exception as exc:  # the report must be written whatever one device does
        entry = _new_entry(plan)
        entry["measurements"] = failed_steps(
            plan.device, f"the probe failed on {plan.device}: {_reason(exc)}"
        )
        report(f"{plan.device} failed", entry["measurements"][0])
        return entry


def _capability(plan: _Plan) -> tuple[int, int]:
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
    _torch, torch_error = _import_torch()
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

        def report(stage: str, measurement: Measurement | None, plan: _Plan = plan) -> None:
            nonlocal done
            if measurement is not None:
                done += 1
            emit(stage, 0.05 + 0.95 * done / total, plan.device, measurement)

        devices.append(_probe_device_or_say_why(plan, settings, report))
    data = report_module.new_report_dict(mode, machine_info(), inventory.to_dict(), devices)
    return report_module.ProbeReport.from_dict(data)
