"""`make device-check` (``python -m profiler.device_check``): everything the probe assumes about a real NVIDIA
GPU, checked on one, in under 10 minutes, into one JSON file and a short summary.

Run it on a rented GPU machine (docs/device-check.md says how). Steps, in order:

  environment         torch, its CUDA build, what CUDA and NVML see, and the warnings CUDA start-up raised
  probe_quick         gpu-probe --quick on every device (on a machine without a GPU: the CPU)
  probe_full          gpu-probe --full on cuda:0
  event_vs_wall       one matmul timed with CUDA events and with perf_counter around synchronize
  copy_sizes          device copy bandwidth from 16 MiB to 4 GiB (below and above the 4 x L2 floor)
  cold_warm_matmul    the first repetitions after 2 s of idle against warmed-up ones, with SM clocks
  fp8_accumulation    fp8 matmul with and without fast accumulation (speed and error against fp32)
  tf32_restored       the TF32 setting after a tf32 measurement is the one before it
  nn_vs_tn_and_flush  bf16 matmul with B row-major (NN) and transposed (TN), with and without the L2 flush
  h2d_per_numa        host-to-device copy with the host buffer on each NUMA node in turn
  busy_gpu            gpu-probe while another process computes on cuda:0: the report must say busy
  sticky_cuda_error   a probe child whose fp16 step triggers a sticky CUDA error: does the report survive
  collectives_gloo    gpu-probe --collectives --collectives-backend gloo (the torchrun path, no GPU needed)
  collectives_nccl    gpu-probe --collectives on all GPUs (needs 2 or more)
  mig                 with MIG on: the probe names the slice it measured and lists the others
  memory              small real models' training steps and generate() calls: torch.cuda.max_memory_allocated
                      against the analytic estimate (gpu-advisor memory) and the trace on fake tensors
                      (profiler.memory_trace), and decode tokens/s against the performance model (gpu-advisor plan)

Every step is isolated: it returns a JSON-able dict, and an exception in one becomes that step's
{"status": "error"} while the others go on. Steps that need a GPU are skipped, with the reason, where there is
none; the script exits 0 either way (2 only for bad arguments).

Adding a step: write ``def check_name(context: Context) -> JSONObject`` and append
``Step("name", check_name, "what it shows", needs_gpus=1, estimate_s=30)`` to STEPS. Return measured numbers
with their units in the key names; raise to fail the step.

When the interpreter running this has a CPU-only torch, the script looks for a CUDA build in the other
Pythons on PATH (python3, python) and re-runs itself there; failing that it says how to install one.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from profiler.jsontypes import JSONObject, JSONValue

MIB = 1024 * 1024
TOTAL_BUDGET_S = 9 * 60 + 30  # the whole check stays under 10 minutes
ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Context:
    """What every step may read: where to write, what the machine has, the results of earlier steps."""

    out_dir: Path
    gpu_count: int
    cuda_reason: str | None
    deadline: float
    results: dict[str, JSONObject] = field(default_factory=dict)

    def remaining_s(self) -> float:
        return self.deadline - time.monotonic()


@dataclass(frozen=True)
class Step:
    name: str
    run: Callable[[Context], JSONObject]
    description: str
    needs_gpus: int = 1  # 0: runs everywhere
    estimate_s: float = 20.0  # skipped when less time than this is left


# --------------------------------------------------------------------------------------------------------------
# Running the steps
# --------------------------------------------------------------------------------------------------------------


def run_steps(steps: Sequence[Step], context: Context) -> dict[str, JSONObject]:
    """Run each step in turn, isolated: {"status": "ok"|"skipped"|"error", "seconds", ...} per step."""
    for step in steps:
        context.results[step.name] = _run_one(step, context)
    return context.results


def _run_one(step: Step, context: Context) -> JSONObject:
    skip = _why_skip(step, context)
    if skip:
        return {"status": "skipped", "reason": skip, "description": step.description}
    started = time.monotonic()
    try:
        outcome = step.run(context)
    except Exception as exc:  # one failing step must not stop the others: record it and go on
        return {
            "status": "error",
            "error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:500]}",
            "traceback_tail": _lines(traceback.format_exc().strip().splitlines()[-6:]),
            "seconds": round(time.monotonic() - started, 2),
            "description": step.description,
        }
    return {
        "status": "ok",
        "seconds": round(time.monotonic() - started, 2),
        "description": step.description,
        **outcome,
    }


def _why_skip(step: Step, context: Context) -> str | None:
    if step.needs_gpus and context.gpu_count < step.needs_gpus:
        have = f"{context.gpu_count} CUDA GPU(s)"
        why = f" ({context.cuda_reason})" if context.cuda_reason and not context.gpu_count else ""
        return f"needs {step.needs_gpus} CUDA GPU(s); this machine has {have}{why}"
    if context.remaining_s() < step.estimate_s:
        return f"the 10-minute budget is spent ({context.remaining_s():.0f} s left, the step takes ~{step.estimate_s:.0f} s)"
    return None


def _lines(items: Sequence[str]) -> list[JSONValue]:
    return list(items)


def summary_lines(results: dict[str, JSONObject]) -> list[str]:
    """One line per step: status, time, and its headline (or why it was skipped / failed)."""
    lines = []
    for name, result in results.items():
        status = str(result.get("status"))
        detail = result.get("headline") or result.get("reason") or result.get("error") or ""
        seconds = result.get("seconds")
        took = f"{seconds:6.1f} s" if isinstance(seconds, (int, float)) else "      -"
        lines.append(f"{name:<20} {status:<8} {took}  {detail}")
    return lines


# --------------------------------------------------------------------------------------------------------------
# Helpers for the steps
# --------------------------------------------------------------------------------------------------------------


def _probe(context: Context, name: str, args: Sequence[str], env: dict[str, str] | None = None,
           timeout_s: float = 300.0) -> JSONObject:  # fmt: skip
    """gpu-probe in a child process (the way the GUI runs it); the report's key figures, or why it failed."""
    from profiler.report import ReportError, load_report

    out = context.out_dir / f"{name}.json"
    command = [sys.executable, "-m", "profiler", *args, "--json", str(out)]
    child_env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )
    child_env.update(env or {})
    started = time.monotonic()
    completed = subprocess.run(command, capture_output=True, text=True, env=child_env,
                               timeout=min(timeout_s, max(30.0, context.remaining_s())), check=False)  # fmt: skip
    result: JSONObject = {
        "command": " ".join(command[2:]),
        "exit_code": completed.returncode,
        "wall_s": round(time.monotonic() - started, 2),
        "stderr_tail": _lines(completed.stderr.strip().splitlines()[-5:]),
        "report_file": str(out),
    }
    try:
        report = load_report(out)
    except ReportError as exc:
        result["report"] = f"no usable report: {exc}"
        return result
    devices: list[JSONValue] = []
    for device in report.devices:
        figures: JSONObject = {}
        for m in device["measurements"]:
            key = (
                m["kind"]
                + (f"_{m['dtype']}" if m["dtype"] else "")
                + (f"_to_{m['peer']}" if m["peer"] else "")
            )
            figures[key] = m["value"] if m["ok"] else f"failed: {m['error']}"
        entry: JSONObject = {"device": device["device"], "name": device["name"], "figures": figures}
        if "activity" in device:
            entry["activity"] = device["activity"]
        if "mig" in device:
            entry["mig"] = device["mig"]
        devices.append(entry)
    result["devices"] = devices
    result["collectives"] = [
        {"op": c["op"], "ok": c.get("ok", True), "error": c.get("error"),
         "best_busbw_bytes_per_s": max((r["busbw_bytes_per_s"] for r in c["results"]), default=None)}
        for c in report.collectives
    ]  # fmt: skip
    return result


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


# --------------------------------------------------------------------------------------------------------------
# The steps
# --------------------------------------------------------------------------------------------------------------


def check_environment(context: Context) -> JSONObject:
    from profiler.nvml_inventory import read_inventory
    from profiler.probe_devices import cuda_state

    try:
        import torch
    except ImportError as exc:
        return {
            "headline": f"torch is not installed in {sys.executable}: {exc}",
            "install_hint": INSTALL_HINT,
        }
    inventory = read_inventory()
    count, reason = cuda_state()
    gpus: list[JSONValue] = [
        {"cuda_index": g.cuda_index, "name": g.name if isinstance(g.name, str) else None,
         "mig_mode": g.mig_mode if isinstance(g.mig_mode, str) else None,
         "numa_node": g.numa_node if isinstance(g.numa_node, int) else None,
         "cpu_affinity": len(g.cpu_affinity) if isinstance(g.cpu_affinity, list) else None}
        for g in inventory.gpus
    ]  # fmt: skip
    return {
        "headline": f"torch {torch.__version__} (CUDA build {torch.version.cuda}), {count} CUDA device(s), "
        f"NVML: {len(inventory.gpus)} GPU(s), driver {inventory.driver_version}",
        "python": sys.executable,
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "cuda_devices": count,
        "cuda_reason": reason,
        "nvml_available": inventory.available,
        "nvml_reason": inventory.reason,
        "driver_version": inventory.driver_version if isinstance(inventory.driver_version, str) else None,
        "nvml_gpus": gpus,
        "install_hint": None if torch.version.cuda else INSTALL_HINT,
    }


INSTALL_HINT = (
    "this torch is a CPU build: install a CUDA build into this environment with "
    "`pip install torch --index-url https://download.pytorch.org/whl/cu128` (pick the cuXY at or below the "
    "driver's CUDA version that nvidia-smi shows), or run the check with a Python that has one: "
    "DEVICE_CHECK_PYTHON=/path/to/python make device-check"
)


def check_probe_quick(context: Context) -> JSONObject:
    result = _probe(context, "probe_quick", ["--quick"])
    devices = result.get("devices")
    count = len(devices) if isinstance(devices, list) else 0
    result["headline"] = f"exit {result['exit_code']} in {result['wall_s']} s, {count} device(s)"
    return result


def check_probe_full(context: Context) -> JSONObject:
    result = _probe(context, "probe_full", ["--full", "--device", "cuda:0"], timeout_s=240)
    result["headline"] = f"exit {result['exit_code']} in {result['wall_s']} s"
    return result


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


BUSY_LOOP = (
    "import torch, time; a = torch.randn(8192, 8192, device='cuda:0', dtype=torch.bfloat16); "
    "end = time.time() + {seconds}; "
    "print('busy', flush=True)\nwhile time.time() < end: a @ a"
)


def check_busy_gpu(context: Context) -> JSONObject:
    load = subprocess.Popen(
        [sys.executable, "-c", BUSY_LOOP.format(seconds=90)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert load.stdout is not None and load.stdout.readline().strip() == "busy"
        time.sleep(1.0)  # utilisation is averaged over the last sample period
        result = _probe(context, "busy_gpu", ["--quick", "--device", "cuda:0"], timeout_s=120)
    finally:
        load.kill()
        load.wait()
    devices = result.get("devices")
    first = devices[0] if isinstance(devices, list) and devices else {}
    activity = first.get("activity") if isinstance(first, dict) else None
    busy = isinstance(activity, dict) and activity.get("busy") is True
    result["flagged_busy"] = busy
    result["headline"] = "flagged busy" if busy else "NOT flagged busy"
    return result


STICKY_CHILD = """
import sys
from profiler import probe_steps
from profiler.__main__ import main
def sticky(index, dtype, capability, settings, _real=probe_steps.cuda_matmul):
    if dtype == "fp16":
        import torch
        torch.zeros(4, device=f"cuda:{index}")[torch.tensor([1 << 20], device=f"cuda:{index}")].sum().item()
    return _real(index, dtype, capability, settings)
probe_steps.cuda_matmul = sticky
sys.exit(main(sys.argv[1:]))
"""


def check_sticky_cuda_error(context: Context) -> JSONObject:
    """A device-side assert (an out-of-range index on the GPU) is sticky: every later CUDA call fails."""
    out = context.out_dir / "sticky.json"
    command = [
        sys.executable,
        "-c",
        STICKY_CHILD,
        "--quick",
        "--device",
        "cuda:0",
        "--progress",
        "--json",
        str(out),
    ]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    completed = subprocess.run(command, capture_output=True, text=True, env=env, timeout=180, check=False)
    lines = completed.stdout.splitlines()
    done = any('"event": "done"' in line for line in lines)
    from profiler.report import ReportError, load_report

    try:
        report = load_report(out)
        failed = [m["dtype"] or m["kind"] for d in report.devices for m in d["measurements"] if not m["ok"]]
        errors = sorted({m["error"] or "" for d in report.devices for m in d["measurements"] if not m["ok"]})[
            :3
        ]
        survived = True
    except ReportError as exc:
        failed, errors, survived = [], [str(exc)], False
    return {
        "headline": f"report {'survived' if survived else 'LOST'}; done line {'sent' if done else 'missing'}; "
        f"exit {completed.returncode}",
        "report_survived": survived,
        "done_line_sent": done,
        "exit_code": completed.returncode,
        "failed_steps": list(failed),
        "errors": list(errors),
        "stderr_tail": _lines(completed.stderr.strip().splitlines()[-4:]),
    }


def check_collectives_gloo(context: Context) -> JSONObject:
    return _collectives(context, "collectives_gloo", ["--collectives-backend", "gloo"], 240)


def check_collectives_nccl(context: Context) -> JSONObject:
    return _collectives(context, "collectives_nccl", [], 400)


def _collectives(context: Context, name: str, extra: list[str], timeout_s: float) -> JSONObject:
    """gpu-probe --collectives after a CPU-only device probe (the devices were measured in probe_quick)."""
    result = _probe(
        context, name, ["--quick", "--device", "cpu", "--collectives", *extra], timeout_s=timeout_s
    )
    result.pop("devices", None)
    entries = result.get("collectives")
    parts = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict):
            best = entry.get("best_busbw_bytes_per_s")
            figure = (
                f"{best / 1e9:.2f} GB/s busbw"
                if isinstance(best, float)
                else f"not measured ({entry.get('error')})"
            )
            parts.append(f"{entry.get('op')} {figure}")
    result["headline"] = f"exit {result['exit_code']}: " + "; ".join(parts)
    return result


def check_mig(context: Context) -> JSONObject:
    from profiler.nvml_inventory import read_inventory

    gpus = [g for g in read_inventory().gpus if g.mig_mode == "enabled"]
    if not gpus:
        return {"headline": "MIG is off on every GPU: nothing to attribute", "mig": False}
    result = _probe(context, "mig", ["--quick"], timeout_s=240)
    devices = result.get("devices")
    named = [d for d in devices if isinstance(d, dict) and "mig" in d] if isinstance(devices, list) else []
    result["headline"] = f"{len(named)} device(s) with a MIG slice named"
    return result


# --------------------------------------------------------------------------------------------------------------
# Memory: a real training step and a generate call on the GPU against the analytic and traced figures
# --------------------------------------------------------------------------------------------------------------

# Small real shapes with random weights (config.json dicts, as transformers reads them); GPT-2 without dropout,
# which the analytic model leaves out. llama-1b has TinyLlama-1.1B's shape, big enough to time decoding.
MEMORY_MODELS: dict[str, JSONObject] = {
    "llama-20m": {"model_type": "llama", "hidden_size": 512, "intermediate_size": 1376, "num_hidden_layers": 4,
                  "num_attention_heads": 8, "num_key_value_heads": 4, "vocab_size": 8000,
                  "max_position_embeddings": 4096},
    "gpt2-17m": {"model_type": "gpt2", "n_embd": 512, "n_head": 8, "n_layer": 4, "vocab_size": 8000,
                 "n_positions": 1024, "resid_pdrop": 0, "embd_pdrop": 0, "attn_pdrop": 0},
    "mixtral-30m": {"model_type": "mixtral", "hidden_size": 512, "intermediate_size": 768, "num_hidden_layers": 4,
                    "num_attention_heads": 8, "num_key_value_heads": 4, "vocab_size": 8000, "num_local_experts": 4,
                    "num_experts_per_tok": 2, "max_position_embeddings": 4096},
    "llama-1b": {"model_type": "llama", "hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 22,
                 "num_attention_heads": 32, "num_key_value_heads": 4, "vocab_size": 32000,
                 "max_position_embeddings": 2048},
}  # fmt: skip
# (model, task, precision, attention, batch, seq_len)
MEMORY_TRAIN_CASES = [
    ("llama-20m", "pretrain", "fp32", "sdpa", 4, 1024),
    ("llama-20m", "pretrain", "bf16", "sdpa", 4, 1024),
    ("gpt2-17m", "pretrain", "bf16", "eager", 4, 1024),
    ("mixtral-30m", "pretrain", "bf16", "sdpa", 4, 1024),
    ("llama-20m", "lora", "bf16", "sdpa", 4, 1024),
    ("gpt2-17m", "lora", "bf16", "eager", 4, 1024),
    ("llama-1b", "pretrain", "bf16", "sdpa", 1, 2048),
]
MEMORY_GENERATE_CASES = [
    ("llama-1b", "bf16", 1, 512, 128),
    ("llama-1b", "bf16", 16, 512, 64),
]  # batch, len, new
# The planner runs as a child (profiler never imports planner: the layer contract): each argv list in the JSON
# file given as argv[1] through planner.cli.main, their --json outputs printed as one JSON list.
PLANNER_CASES = (
    "import contextlib, io, json, sys\n"
    "from planner.cli import main\n"
    "out = []\n"
    "for argv in json.load(open(sys.argv[1])):\n"
    "    buffer = io.StringIO()\n"
    "    with contextlib.redirect_stdout(buffer):\n"
    "        code = main(argv)\n"
    "    out.append(json.loads(buffer.getvalue()) if code == 0 else {'error': f'exit {code}'})\n"
    "print(json.dumps(out))\n"
)
GPU_ID = (
    "import sys; from planner.gpus import match_nvml_name as m; g = m(sys.argv[1]); print(g.id if g else '')"
)


def _child_env() -> dict[str, str]:
    return dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )


def _child_json(command: Sequence[str], timeout_s: float) -> JSONValue:
    """The JSON a child prints: the tracer's result line, or the whole output; raises with the child's words."""
    done = subprocess.run(list(command), capture_output=True, text=True, env=_child_env(), timeout=timeout_s,
                          check=False)  # fmt: skip
    for line in reversed(done.stdout.strip().splitlines()):
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("event") == "result":
            return event.get("result")
        if isinstance(event, dict) and event.get("event") == "error":
            raise RuntimeError(str(event.get("message")))
        if isinstance(event, list):
            return event
    tail = " ".join(done.stderr.strip().splitlines()[-3:])
    raise RuntimeError(f"no JSON from {' '.join(command[1:4])} (exit {done.returncode}): {tail[:400]}")


def _write_json(context: Context, name: str, value: JSONValue) -> Path:
    path = context.out_dir / name
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def _config_paths(context: Context) -> dict[str, str]:
    return {
        name: str(_write_json(context, f"memory-{name}.config.json", data))
        for name, data in MEMORY_MODELS.items()
    }


def _traces(
    context: Context, name: str, cases: list[JSONValue], extra: Sequence[str], timeout_s: float
) -> list[JSONValue]:
    """Run the cases in one tracing child; one result (or {"error"}) per case."""
    path = _write_json(context, name, cases)
    result = _child_json(
        [sys.executable, "-m", "profiler.memory_trace", "--cases", str(path), *extra], timeout_s
    )
    found = result.get("cases") if isinstance(result, dict) else None
    if not isinstance(found, list) or len(found) != len(cases):
        raise RuntimeError(f"the tracer returned {type(found).__name__} for {len(cases)} cases")
    return found


def _planner_runs(
    context: Context, name: str, argvs: list[JSONValue], timeout_s: float = 180
) -> list[JSONValue]:
    path = _write_json(context, name, argvs)
    found = _child_json([sys.executable, "-c", PLANNER_CASES, str(path)], timeout_s)
    if not isinstance(found, list) or len(found) != len(argvs):
        raise RuntimeError("the planner returned no list")
    return found


def _memory_argv(path: str, task: str, precision: str, attention: str, batch: int, seq_len: int) -> JSONValue:
    """gpu-advisor memory --json for the same step."""
    return ["memory", "--model", path, "--task", "train" if task == "pretrain" else task, "--precision", precision,
            "--batch", str(batch), "--seq-len", str(seq_len), "--json",
            *(["--no-flash-attention"] if attention == "eager" else [])]  # fmt: skip


def _analytic_peak(payload: JSONValue) -> int | None:
    """The analytic step peak: per_gpu_bytes total less the overhead (CUDA context, allocator margin, NCCL)."""
    per_gpu = payload.get("per_gpu_bytes") if isinstance(payload, dict) else None
    if not isinstance(per_gpu, dict):
        return None
    total, overhead = per_gpu.get("total"), per_gpu.get("overhead")
    return total - overhead if isinstance(total, int) and isinstance(overhead, int) else None


def _peak(result: JSONValue, device: str) -> int | None:
    """A run's measured peak: torch.cuda.max_memory_allocated on a GPU, MemTracker's peak on a CPU."""
    if not isinstance(result, dict):
        return None
    cuda = result.get("cuda")
    if device == "cuda" and isinstance(cuda, dict):
        value = cuda.get("max_memory_allocated_bytes")
    else:
        value = result.get("peak_bytes")
    return value if isinstance(value, int) else None


def _ratio(value: object, reference: object) -> float | None:
    if isinstance(value, (int, float)) and isinstance(reference, (int, float)) and reference:
        return round(float(value) / float(reference), 3)
    return None


def _error(*results: JSONValue) -> str | None:
    for result in results:
        if isinstance(result, dict) and isinstance(result.get("error"), str):
            return str(result["error"])
    return None


def memory_training_rows(context: Context, device: str = "cuda") -> list[JSONValue]:
    """One row per MEMORY_TRAIN_CASES entry: measured (torch.cuda.max_memory_allocated over the step; on a CPU
    the real step's MemTracker peak), traced (fake tensors) and analytic peak bytes, and their ratios."""
    paths = _config_paths(context)
    requests: list[JSONValue] = [
        {"config": paths[name], "task": task, "precision": precision, "attention": attention, "batch": batch,
         "seq_len": seq_len}
        for name, task, precision, attention, batch, seq_len in MEMORY_TRAIN_CASES
    ]  # fmt: skip
    real = [{**r, "fake": False, "device": device} for r in requests if isinstance(r, dict)]
    measured = _traces(context, "memory-train-real.json", list(real), [], 420)
    traced = _traces(context, "memory-train-fake.json", requests, [], 300)
    argvs = [_memory_argv(paths[c[0]], *c[1:]) for c in MEMORY_TRAIN_CASES]
    analytic = _planner_runs(context, "memory-train-planner.json", argvs)
    rows: list[JSONValue] = []
    for case, m, t, a in zip(MEMORY_TRAIN_CASES, measured, traced, analytic, strict=True):
        name, task, precision, attention, batch, seq_len = case
        peak, traced_peak, analytic_peak = _peak(m, device), _peak(t, "cpu"), _analytic_peak(a)
        cuda = m.get("cuda") if isinstance(m, dict) else None
        rows.append({
            "model": name, "task": task, "precision": precision, "attention": attention, "batch": batch,
            "seq_len": seq_len, "measured_peak_bytes": peak, "traced_peak_bytes": traced_peak,
            "analytic_peak_bytes": analytic_peak, "traced_over_measured": _ratio(traced_peak, peak),
            "analytic_over_measured": _ratio(analytic_peak, peak), "cuda": cuda if isinstance(cuda, dict) else None,
            "error": _error(m, t, a),
        })  # fmt: skip
    return rows


def _gpu_id() -> str:
    import torch

    done = subprocess.run([sys.executable, "-c", GPU_ID, torch.cuda.get_device_name(0)], capture_output=True,
                          text=True, timeout=60, check=False, env=_child_env())  # fmt: skip
    return done.stdout.strip()


def memory_generate_rows(context: Context) -> list[JSONValue]:
    """generate() on cuda:0 per MEMORY_GENERATE_CASES entry: torch.cuda's peak against the analytic inference
    figure and the trace, and the decode rate against the performance model's tokens/s for this GPU (catalog
    figures, --spec-only)."""
    paths, gpu = _config_paths(context), _gpu_id()
    requests: list[JSONValue] = [
        {"config": paths[name], "task": "inference", "precision": precision, "batch": batch, "seq_len": seq_len,
         "new_tokens": new_tokens}
        for name, precision, batch, seq_len, new_tokens in MEMORY_GENERATE_CASES
    ]  # fmt: skip
    real = [{**r, "fake": False, "device": "cuda"} for r in requests if isinstance(r, dict)]
    measured = _traces(context, "memory-generate-real.json", list(real), ["--generate"], 300)
    traced = _traces(context, "memory-generate-fake.json", requests, [], 300)
    argvs: list[JSONValue] = []
    for name, precision, batch, seq_len, new_tokens in MEMORY_GENERATE_CASES:
        argvs.append(_memory_argv(paths[name], "inference", precision, "sdpa", batch, seq_len))
        if gpu:
            argvs.append(["plan", "--model", paths[name], "--task", "inference", "--gpu", gpu, "--gpus", "1",
                          "--batch", str(batch), "--seq-len", str(seq_len), "--output-len", str(new_tokens),
                          "--precision", precision, "--spec-only", "--json"])  # fmt: skip
    planner = iter(_planner_runs(context, "memory-generate-planner.json", argvs))
    rows: list[JSONValue] = []
    for case, m, t in zip(MEMORY_GENERATE_CASES, measured, traced, strict=True):
        name, precision, batch, seq_len, new_tokens = case
        analytic = next(planner)
        plan = next(planner) if gpu else None
        options = plan.get("options") if isinstance(plan, dict) else None
        first = options[0] if isinstance(options, list) and options and isinstance(options[0], dict) else {}
        predicted = first.get("tokens_per_s") if isinstance(first, dict) else None
        decode = m.get("decode_tokens_per_s") if isinstance(m, dict) else None
        peak, traced_peak, analytic_peak = _peak(m, "cuda"), _peak(t, "cpu"), _analytic_peak(analytic)
        rows.append({
            "model": name, "precision": precision, "batch": batch, "seq_len": seq_len, "new_tokens": new_tokens,
            "measured_peak_bytes": peak, "traced_peak_bytes": traced_peak, "analytic_peak_bytes": analytic_peak,
            "analytic_over_measured": _ratio(analytic_peak, peak), "traced_over_measured": _ratio(traced_peak, peak),
            "decode_tokens_per_s": decode, "predicted_tokens_per_s": predicted,
            "predicted_over_measured": _ratio(predicted, decode), "gpu": gpu or None, "error": _error(m, t, analytic),
        })  # fmt: skip
    return rows


def _worst(rows: list[JSONValue], key: str) -> str:
    ratios = [float(v) for r in rows if isinstance(r, dict) and isinstance(v := r.get(key), float)]
    return f"{max(abs(x - 1) for x in ratios):.1%}" if ratios else "-"


def check_memory(context: Context) -> JSONObject:
    """A training step and a generate call of small real models on cuda:0 against planner.memory and the trace."""
    import importlib.util

    missing = [name for name in ("transformers", "peft") if importlib.util.find_spec(name) is None]
    if missing:
        raise RuntimeError(
            f"{', '.join(missing)} not installed for {sys.executable}: "
            f"{sys.executable} -m pip install 'transformers>=5,<6' 'peft>=0.17'"
        )
    training = memory_training_rows(context)
    generate = memory_generate_rows(context)
    speed = [
        r["predicted_over_measured"]
        for r in generate
        if isinstance(r, dict) and r.get("predicted_over_measured")
    ]
    return {
        "headline": f"peak vs torch.cuda: analytic within {_worst(training + generate, 'analytic_over_measured')}, "
        f"traced within {_worst(training + generate, 'traced_over_measured')}; decode tokens/s predicted/measured "
        f"{', '.join(str(x) for x in speed) or '-'}",
        "training": training,
        "generate": generate,
    }


STEPS: list[Step] = [
    Step("environment", check_environment, "torch, CUDA and NVML as this Python sees them", 0, 5),
    Step("probe_quick", check_probe_quick, "gpu-probe --quick on every device", 0, 90),
    Step("probe_full", check_probe_full, "gpu-probe --full on cuda:0", 1, 70),
    Step("event_vs_wall", check_event_vs_wall, "CUDA events against perf_counter + synchronize", 1, 15),
    Step("copy_sizes", check_copy_sizes, "copy bandwidth from 16 MiB to 4 GiB", 1, 20),
    Step("cold_warm_matmul", check_cold_warm_matmul, "cold against warm matmul, SM clocks", 1, 15),
    Step("fp8_accumulation", check_fp8_accumulation, "fp8 with and without fast accumulation", 1, 15),
    Step("tf32_restored", check_tf32_restored, "TF32 setting restored after a tf32 measurement", 1, 10),
    Step(
        "nn_vs_tn_and_flush", check_nn_vs_tn_and_flush, "NN against TN, with and without the L2 flush", 1, 20
    ),
    Step("h2d_per_numa", check_h2d_per_numa, "host-to-device copy from each NUMA node", 1, 20),
    Step("busy_gpu", check_busy_gpu, "the probe while another process computes on cuda:0", 1, 60),
    Step("sticky_cuda_error", check_sticky_cuda_error, "a sticky CUDA error in a probe child", 1, 40),
    Step("collectives_gloo", check_collectives_gloo, "the torchrun path with two gloo ranks", 0, 30),
    Step("collectives_nccl", check_collectives_nccl, "NCCL collectives on all GPUs", 2, 90),
    Step("mig", check_mig, "MIG slice attribution", 1, 40),
    Step(
        "memory", check_memory, "training step and generate(): torch.cuda peaks vs analytic and traced", 1, 30
    ),
]


# --------------------------------------------------------------------------------------------------------------
# Finding a CUDA build of torch, and the command line
# --------------------------------------------------------------------------------------------------------------

PROBE_TORCH = "import json, torch; print(json.dumps([torch.__version__, torch.version.cuda, torch.cuda.is_available()]))"


def torch_build(python: str) -> tuple[str, str | None, bool] | None:
    """(torch version, its CUDA version or None, CUDA available) in that interpreter, or None without torch."""
    try:
        completed = subprocess.run(
            [python, "-c", PROBE_TORCH], capture_output=True, text=True, timeout=120, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    try:
        version, cuda, available = json.loads(completed.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None
    return str(version), (str(cuda) if cuda else None), bool(available)


def find_cuda_python(candidates: Sequence[str]) -> str | None:
    """The first interpreter among `candidates` whose torch has CUDA and sees a GPU."""
    import shutil

    for name in candidates:
        path = shutil.which(name) or (name if os.path.isabs(name) and os.path.exists(name) else None)
        if not path or os.path.realpath(path) == os.path.realpath(sys.executable):
            continue
        build = torch_build(path)
        if build is not None and build[1] and build[2]:
            return path
    return None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m profiler.device_check", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--out", default="device-check.json", help="the JSON file to write (default %(default)s)"
    )
    parser.add_argument("--steps", help="comma-separated step names to run (default: all)")
    parser.add_argument("--no-reexec", action="store_true", help="do not look for a CUDA torch elsewhere")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    wanted = [s.strip() for s in args.steps.split(",")] if args.steps else [s.name for s in STEPS]
    unknown = sorted(set(wanted) - {s.name for s in STEPS})
    if unknown:
        print(f"device-check: unknown step(s) {', '.join(unknown)}; steps: {', '.join(s.name for s in STEPS)}",
              file=sys.stderr)  # fmt: skip
        return 2
    reexec = _reexec_target(args.no_reexec)
    if reexec is not None:
        print(f"device-check: this Python's torch has no CUDA; running under {reexec}", flush=True)
        env = dict(
            os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        )
        rest = list(argv if argv is not None else sys.argv[1:])
        return subprocess.call([reexec, "-m", "profiler.device_check", "--no-reexec", *rest], env=env)
    return _run(args.out, [s for s in STEPS if s.name in wanted])


def _reexec_target(disabled: bool) -> str | None:
    """Another Python with a CUDA torch, when this one has none and a GPU is there to use."""
    if disabled:
        return None
    own = torch_build(sys.executable)
    if own is not None and own[1] and own[2]:
        return None
    explicit = os.environ.get("DEVICE_CHECK_PYTHON", "").strip()
    return find_cuda_python([explicit] if explicit else ["python3", "python"])


def _run(out: str, steps: Sequence[Step]) -> int:
    out_path = Path(out).resolve()
    try:
        out_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"device-check: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
    try:
        import torch  # noqa: F401  (cuda_state reads it from sys.modules)

        from profiler.probe_devices import cuda_state

        gpu_count, reason = cuda_state()
    except ImportError as exc:
        gpu_count, reason = 0, f"torch is not installed ({exc}): {INSTALL_HINT}"
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="device-check-") as folder:
        context = Context(Path(folder), gpu_count, reason, started + TOTAL_BUDGET_S)
        if gpu_count == 0:
            print(f"device-check: no CUDA GPU here ({reason}); the GPU steps are skipped", flush=True)
        results = run_steps(steps, context)
        document: JSONObject = {
            "schema": "gpu-advisor.device-check",
            "version": 1,
            "created_at": _now(),
            "gpu_count": gpu_count,
            "cuda_reason": reason,
            "total_s": round(time.monotonic() - started, 1),
            "steps": {name: result for name, result in results.items()},
        }
        _keep_reports(context.out_dir, out_path)
    out_path.write_text(json.dumps(document, indent=2, default=str) + "\n", encoding="utf-8")
    print("\n".join(summary_lines(results)))
    print(f"device-check: wrote {out_path} in {document['total_s']} s")
    return 0


def _keep_reports(folder: Path, out_path: Path) -> None:
    """Copy the probe reports the steps wrote next to the JSON file (device-check-reports/)."""
    import shutil

    reports = sorted(folder.glob("*.json"))
    if reports:
        target = out_path.with_name(out_path.stem + "-reports")
        target.mkdir(exist_ok=True)
        for report in reports:
            shutil.copy2(report, target / report.name)


def _now() -> str:
    from profiler.report import utc_now_iso

    return utc_now_iso()


if __name__ == "__main__":
    sys.exit(main())
