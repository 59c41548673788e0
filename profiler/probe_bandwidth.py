"""Copy bandwidth: CPU memory, GPU memory, host to device and back (pinned, per NUMA node) and peer to peer, with buffers sized to defeat L2."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from profiler.jsontypes import JSONObject
from profiler.probe_settings import (
    L2_MULTIPLE,
    MIB,
    MIN_BANDWIDTH_BYTES,
    Outcome,
    ProbeSettings,
    Refused,
    failure_reason,
)
from profiler.probe_timing import cpu_timer, cuda_timer, median_trials

if TYPE_CHECKING:
    import torch

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
        cpu_timer,
        settings,
        settings.bandwidth_budget_s if budget_s is None else budget_s,
    )
    details.update(_copy_details(size, counted=2 * size), threads=torch.get_num_threads())
    return Outcome(
        2 * size / median_s,
        "torch.Tensor.copy_ on CPU, read + write counted, perf_counter, median of trials",
        details,
    )


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


def cuda_memory_bandwidth(index: int, settings: ProbeSettings) -> Outcome:
    """Device-to-device copy on cuda:index; read + write counted (2*S per copy), CUDA events, median."""
    import torch

    size, sizing = _device_budget(index, settings.cuda_copy_bytes, copies=2)
    src = torch.empty(size, dtype=torch.uint8, device=f"cuda:{index}").fill_(1)
    dst = torch.empty_like(src)
    median_s, details = median_trials(
        lambda: dst.copy_(src), cuda_timer(), settings, settings.bandwidth_budget_s
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
        pinned, pin_error = False, failure_reason(exc)
        host = torch.empty(size, dtype=torch.uint8)
    host.fill_(1)
    if direction == "h2d":
        run: Callable[[], object] = lambda: device_buffer.copy_(host, non_blocking=True)  # noqa: E731
    else:
        run = lambda: host.copy_(device_buffer, non_blocking=True)  # noqa: E731
    median_s, details = median_trials(run, cuda_timer(), settings, settings.bandwidth_budget_s)
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
