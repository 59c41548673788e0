"""The device check's in-process measurement checks: CUDA events against wall clock, copy sizes against L2, cold and warm matmuls, fp8 accumulation, TF32 restored, NN against TN layouts, host copies per NUMA node."""

from __future__ import annotations

import functools
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from profiler.device_check_context import MIB, Context
from profiler.jsontypes import JSONObject, JSONValue


def _sync_time(run: Callable[[], object], reps: int) -> float:
    """Seconds per call, perf_counter around the calls with a synchronize before and after."""
    import torch

    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(reps):
        run()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / reps


def _event_time(run: Callable[[], object], reps: int) -> float:
    from profiler.probe_timing import cuda_timer

    return cuda_timer()(run, reps)


def _sm_clock(nvml_index: int) -> float | None:
    from profiler.nvml import CLOCK_SM, nvml_session, read_field

    with nvml_session() as nv:
        handle = read_field(nv, "nvmlDeviceGetHandleByIndex", nvml_index)
        value = read_field(nv, "nvmlDeviceGetClockInfo", handle, CLOCK_SM)
    return float(value) if isinstance(value, (int, float)) else None


def _nvml_index(cuda_index: int) -> int:
    from profiler.nvml_inventory import read_inventory

    gpu = read_inventory().gpu(cuda_index)
    return gpu.index if gpu is not None else cuda_index


def numa_cpus(root: Path = Path("/sys/devices/system/node")) -> dict[int, list[int]]:
    """NUMA node -> its CPUs, from sysfs (Linux); {} elsewhere."""
    nodes: dict[int, list[int]] = {}
    for folder in sorted(root.glob("node[0-9]*")):
        try:
            text = (folder / "cpulist").read_text(encoding="ascii").strip()
        except OSError:
            continue
        nodes[int(folder.name[4:])] = parse_cpu_list(text)
    return nodes


def parse_cpu_list(text: str) -> list[int]:
    """'0-3,8,10-11' -> [0, 1, 2, 3, 8, 10, 11] (the sysfs cpulist format)."""
    cpus: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        first, _, last = part.partition("-")
        cpus.extend(range(int(first), int(last or first) + 1))
    return cpus


def check_event_vs_wall(context: Context) -> JSONObject:
    from profiler.probe_matmul import make_gemm

    gemm = make_gemm("bf16", 8192, 8192, 8192, "cuda:0")
    tiny = make_gemm("bf16", 256, 256, 256, "cuda:0")
    for _ in range(20):
        gemm.op()
    rows: JSONObject = {}
    for label, item, reps in (("8192^3", gemm, 20), ("256^3 (launch-bound)", tiny, 2000)):
        event_s, wall_s = _event_time(item.op, reps), _sync_time(item.op, reps)
        rows[label] = {"event_s": event_s, "wall_s": wall_s, "wall_over_event": wall_s / event_s}
    big = rows["8192^3"]
    assert isinstance(big, dict)
    return {"headline": f"8192^3 bf16: wall/event = {big['wall_over_event']:.3f}", "timings": rows}


def check_copy_sizes(context: Context) -> JSONObject:
    import torch

    from profiler.probe_bandwidth import min_bandwidth_bytes

    l2 = int(torch.cuda.get_device_properties(0).L2_cache_size)
    free = int(torch.cuda.mem_get_info(0)[0])
    rows: list[JSONValue] = []
    for size in (16 * MIB, 64 * MIB, 4 * l2 // MIB * MIB, 256 * MIB, 1024 * MIB, 4096 * MIB):
        if 2 * size > free // 2:
            continue
        src = torch.empty(size, dtype=torch.uint8, device="cuda:0").fill_(1)
        dst = torch.empty_like(src)
        for _ in range(5):
            dst.copy_(src)
        seconds = _event_time(functools.partial(dst.copy_, src), 20)
        rows.append(
            {
                "bytes": size,
                "read_plus_write_bytes_per_s": 2 * size / seconds,
                "below_floor": size < min_bandwidth_bytes(l2),
            }
        )
        del src, dst
        torch.cuda.empty_cache()
    return {
        "headline": f"L2 {l2 // MIB} MiB; floor {min_bandwidth_bytes(l2) // MIB} MiB",
        "l2_bytes": l2,
        "sizes": rows,
    }


def check_cold_warm_matmul(context: Context) -> JSONObject:
    import torch

    from profiler.probe_matmul import make_gemm

    gemm = make_gemm("bf16", 8192, 8192, 8192, "cuda:0")
    index = _nvml_index(0)
    torch.cuda.synchronize()
    time.sleep(2.0)  # idle: the SM clock drops back
    idle_clock = _sm_clock(index)
    cold = [_event_time(gemm.op, 1) for _ in range(5)]
    started = time.perf_counter()
    while time.perf_counter() - started < 1.0:
        gemm.op()
    warm = [_event_time(gemm.op, 1) for _ in range(20)]
    loaded_clock = _sm_clock(index)
    flops = 2.0 * 8192**3
    return {
        "headline": f"cold {flops / cold[0] / 1e12:.0f} -> warm {flops / statistics.median(warm) / 1e12:.0f} TFLOPS; "
        f"SM clock idle {idle_clock} MHz, loaded {loaded_clock} MHz",
        "cold_tflops": [flops / t / 1e12 for t in cold],
        "warm_median_tflops": flops / statistics.median(warm) / 1e12,
        "sm_clock_idle_mhz": idle_clock,
        "sm_clock_loaded_mhz": loaded_clock,
    }


def check_fp8_accumulation(context: Context) -> JSONObject:
    import torch

    from profiler.probe_matmul import make_gemm, mamf_shape
    from profiler.probe_settings import QUICK

    major, minor = torch.cuda.get_device_capability(0)
    if (major, minor) < (8, 9):
        return {"headline": f"compute capability {major}.{minor}: no fp8", "supported": False}
    rows: JSONObject = {}
    for fast in (False, True):
        stats = mamf_shape("fp8", 8192, 8192, 8192, "cuda:0", replace(QUICK, fp8_fast_accum=fast), 1.0)
        small = make_gemm("fp8", 1024, 1024, 4096, "cuda:0", fast_accum=fast)
        small.op()
        reference = small.a.float() @ small.b.float()
        error = float(((small.out.float() - reference).abs().max() / reference.abs().max()).item())
        median = stats["median_flops_per_s"]
        rows["fast" if fast else "fp32_accumulate"] = {
            "median_tflops": median / 1e12 if isinstance(median, float) else None,
            "max_relative_error": error,
        }
    return {"headline": json.dumps(rows), "supported": True, "results": rows}


def check_tf32_restored(context: Context) -> JSONObject:
    import torch

    from profiler.probe_matmul import cuda_matmul
    from profiler.probe_settings import QUICK

    matmul = torch.backends.cuda.matmul
    before = matmul.fp32_precision
    settings = replace(QUICK, cuda_matmul_shapes=((4096, 4096, 4096),), matmul_budget_s=0.5)
    tf32 = cuda_matmul(0, "tf32", torch.cuda.get_device_capability(0), settings)
    fp32 = cuda_matmul(0, "fp32", torch.cuda.get_device_capability(0), settings)
    after = matmul.fp32_precision
    return {
        "headline": f"before {before!r}, after {after!r}: {'restored' if before == after else 'NOT RESTORED'}; "
        f"tf32 {tf32.value / 1e12:.0f} vs fp32 {fp32.value / 1e12:.0f} TFLOPS",
        "restored": before == after,
        "tf32_tflops": tf32.value / 1e12,
        "fp32_tflops": fp32.value / 1e12,
    }


def check_nn_vs_tn_and_flush(context: Context) -> JSONObject:
    import torch

    from profiler.probe_settings import L2_FLUSH_BYTES

    n = 8192
    a = torch.randn(n, n, device="cuda:0", dtype=torch.bfloat16)
    b_nn = torch.randn(n, n, device="cuda:0", dtype=torch.bfloat16)
    b_tn = torch.randn(n, n, device="cuda:0", dtype=torch.bfloat16).t()
    out = torch.empty(n, n, device="cuda:0", dtype=torch.bfloat16)
    flush = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda:0")
    rows: JSONObject = {}
    for layout, b in (("NN", b_nn), ("TN", b_tn)):
        for flushed in (False, True):
            times = []
            for _ in range(30):
                if flushed:
                    flush.zero_()
                times.append(_event_time(functools.partial(torch.mm, a, b, out=out), 1))
            rows[f"{layout}{' flushed' if flushed else ''}"] = (
                2.0 * n**3 / statistics.median(times[5:]) / 1e12
            )
    return {"headline": ", ".join(f"{k} {v:.0f}" for k, v in rows.items()) + " TFLOPS", "tflops": rows}


def check_h2d_per_numa(context: Context) -> JSONObject:
    import torch

    from profiler.nvml_inventory import read_inventory
    from profiler.probe_bandwidth import near_cpus

    nodes = numa_cpus()
    gpu = read_inventory().gpu(0)
    nearest = gpu.numa_node if gpu is not None and isinstance(gpu.numa_node, int) else None
    size = 256 * MIB
    device = torch.empty(size, dtype=torch.uint8, device="cuda:0")
    rows: dict[str, float] = {}
    for node, cpus in (nodes or {-1: []}).items():
        with near_cpus(cpus):
            host = torch.empty(size, dtype=torch.uint8, pin_memory=True).fill_(1)
            for _ in range(3):
                device.copy_(host, non_blocking=True)
            seconds = _event_time(functools.partial(device.copy_, host, non_blocking=True), 10)
            del host
            torch._C._host_emptyCache()
        rows[str(node)] = size / seconds
    return {
        "headline": ", ".join(f"node {k}: {v / 1e9:.1f} GB/s" for k, v in rows.items())
        + f" (GPU 0 nearest: {nearest})",
        "h2d_bytes_per_s_by_node": dict(rows),
        "gpu0_numa_node": nearest,
    }
