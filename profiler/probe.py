"""The torch probe: memory bandwidth, host and peer links, matmul FLOPS per dtype, on each GPU or on the CPU.

Methods (details go into every measurement's "method" and "details"):
- Matmul: the mamf-finder method (stas00/ml-engineering, "Maximum Achievable Matmul FLOPS"): several aligned
  shapes, warm-up, each trial timed with CUDA events (a perf_counter on the CPU), the median trial per shape,
  and the best of those medians. FLOPs per matmul = 2*m*n*k. fp32 runs with TF32 off; tf32 with it on; fp8
  (float8_e4m3fn through torch._scaled_mm, bf16 output) only where compute capability >= 8.9, otherwise the
  measurement is recorded as failed with that reason.
- Device memory bandwidth: a large device-to-device copy (torch copy_ -> cudaMemcpyAsync), median of trials.
  Bytes are counted once per direction of traffic: a copy of S bytes reads S and writes S bytes, so it counts
  2*S (the STREAM "copy" convention; nvbandwidth also counts each byte once per direction it moves). This is
  the figure comparable to the spec sheet's memory bandwidth. details carry both S and the counted bytes.
- Host links: pinned host memory to device and back (nvbandwidth's host_to_device / device_to_host copy-engine
  copies), S bytes counted once: one direction over PCIe/NVLink-C2C.
- Peer links: device i to device j copy where CUDA allows peer access, S counted once (unidirectional).
- CPU path (no usable GPU): the same large-copy bandwidth (read + write counted) and fp32/bf16 matmul FLOPS
  with torch on the CPU, timed with time.perf_counter.

Telemetry: while a GPU is probed a TelemetrySampler reads its SM clock, power, temperature and clock-event
reasons every 0.1 s into the device's "telemetry", so a throttled card explains a low number.

Each measurement is independent: an out-of-memory or CUDA error marks that one failed with its reason and the
others go on. torch and pynvml are imported only inside functions.
"""

from __future__ import annotations

import os
import platform
import socket
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from profiler import report as report_module
from profiler.nvml import Inventory, TelemetrySampler, read_inventory

MIB = 1024 * 1024
MATMUL_DTYPES_CUDA = ("fp32", "tf32", "bf16", "fp16", "fp8")
MATMUL_DTYPES_CPU = ("fp32", "bf16")
FP8_MIN_CAPABILITY = (8, 9)

# progress(stage, fraction 0..1, device id, measurement dict or None)
ProgressCallback = Callable[[str, float, str, "dict | None"], None]


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
    warmup: int = 2
    trial_target_s: float = 0.02  # repetitions per trial are chosen so one trial lasts about this long
    telemetry_interval_s: float = 0.1


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
    details: dict = field(default_factory=dict)


# --------------------------------------------------------------------------------------------------------------
# Timing: medians of trials within a time budget
# --------------------------------------------------------------------------------------------------------------


def _cpu_timer(run: Callable[[], Any], reps: int) -> float:
    """Seconds per repetition of `run`, wall clock."""
    start = time.perf_counter()
    for _ in range(reps):
        run()
    return (time.perf_counter() - start) / reps


def _cuda_timer(torch: Any) -> Callable[[Callable[[], Any], int], float]:
    """Seconds per repetition, timed with CUDA events on the current stream (no host launch gaps counted)."""

    def timer(run: Callable[[], Any], reps: int) -> float:
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            run()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1000.0 / reps  # elapsed_time is in milliseconds

    return timer


def median_trials(
    run: Callable[[], Any],
    timer: Callable[[Callable[[], Any], int], float],
    settings: ProbeSettings,
    budget_s: float,
) -> tuple[float, dict]:
    """Warm up, then time trials until the budget is spent (at least min_trials). Returns (median s, details).

    Each trial repeats `run` enough times to last about settings.trial_target_s, so the timer's resolution and
    launch overhead do not dominate short operations.
    """
    started = time.perf_counter()
    for _ in range(settings.warmup):
        timer(run, 1)
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
        "trials": len(trials),
        "reps_per_trial": reps,
        "median_s": median,
        "min_s": min(trials),
        "max_s": max(trials),
    }


# --------------------------------------------------------------------------------------------------------------
# CPU measurements
# --------------------------------------------------------------------------------------------------------------


def _torch_dtype(torch: Any, dtype: str) -> Any:
    return {"fp32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[
        dtype
    ]


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
    return Outcome(2 * size / median_s, "torch.Tensor.copy_ on CPU, perf_counter, median of trials", details)


def _copy_details(size: int, counted: int) -> dict:
    return {
        "bytes_copied": size,
        "bytes_counted": counted,
        "counting": "read + write (2 x bytes copied)" if counted == 2 * size else "bytes copied, once",
    }


def cpu_matmul(dtype: str, settings: ProbeSettings, budget_s: float | None = None) -> Outcome:
    """Best median FLOP/s of torch.mm on the CPU over settings.cpu_matmul_shapes (2*m*n*k FLOPs each)."""
    import torch

    return _matmul_over_shapes(
        torch,
        dtype,
        settings.cpu_matmul_shapes,
        device="cpu",
        timer=_cpu_timer,
        settings=settings,
        budget_s=settings.matmul_budget_s if budget_s is None else budget_s,
        method="torch.mm on CPU, mamf-finder method (warm-up, median per shape, best shape), perf_counter",
    )


def _matmul_over_shapes(
    torch: Any,
    dtype: str,
    shapes: tuple[tuple[int, int, int], ...],
    device: str,
    timer: Callable,
    settings: ProbeSettings,
    budget_s: float,
    method: str,
) -> Outcome:
    per_shape = []
    best_value, best_shape = 0.0, None
    for m, n, k in shapes:
        run = _matmul_runner(torch, dtype, m, n, k, device)
        median_s, details = median_trials(run, timer, settings, budget_s / len(shapes))
        flops = 2.0 * m * n * k / median_s
        per_shape.append({"m": m, "n": n, "k": k, "flops_per_s": flops, **details})
        if flops > best_value:
            best_value, best_shape = flops, (m, n, k)
        del run
    return Outcome(
        best_value,
        method,
        {"best_shape": list(best_shape or ()), "shapes": per_shape, "flops_per_matmul": "2*m*n*k"},
    )


def _matmul_runner(torch: Any, dtype: str, m: int, n: int, k: int, device: str) -> Callable[[], Any]:
    """A closure doing one (m x k) @ (k x n) product in `dtype`, writing into a preallocated output."""
    if dtype == "fp8":
        return _fp8_runner(torch, m, n, k, device)
    tdtype = _torch_dtype(torch, dtype)
    a = torch.randn(m, k, device=device, dtype=torch.float32).to(tdtype)
    b = torch.randn(k, n, device=device, dtype=torch.float32).to(tdtype)
    out = torch.empty(m, n, device=device, dtype=tdtype)
    return lambda: torch.mm(a, b, out=out)


def _fp8_runner(torch: Any, m: int, n: int, k: int, device: str) -> Callable[[], Any]:
    """float8_e4m3fn x float8_e4m3fn -> bf16 through torch._scaled_mm (cuBLASLt needs mat2 column-major)."""
    if not hasattr(torch, "float8_e4m3fn") or not hasattr(torch, "_scaled_mm"):
        raise RuntimeError(f"this torch ({torch.__version__}) has no float8 matmul (torch._scaled_mm)")
    a = torch.randn(m, k, device=device).to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device=device).to(torch.float8_e4m3fn).t()  # (k, n), column-major
    one = torch.tensor(1.0, device=device, dtype=torch.float32)

    def run() -> Any:
        result = torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        return result[0] if isinstance(result, tuple) else result  # torch < 2.4 also returned amax

    return run


# --------------------------------------------------------------------------------------------------------------
# CUDA measurements (exercised on real GPUs; on a machine without one these paths are never reached)
# --------------------------------------------------------------------------------------------------------------


def _fit_bytes(torch: Any, index: int, wanted: int, copies: int) -> int:
    """Shrink a buffer so `copies` of it use at most a quarter of the free device memory."""
    try:
        free, _total = torch.cuda.mem_get_info(index)
    except Exception:  # old drivers / MIG: just try the wanted size; an OOM is reported on that measurement
        return wanted
    return int(max(16 * MIB, min(wanted, free // (4 * copies))) // MIB * MIB)


def cuda_memory_bandwidth(index: int, settings: ProbeSettings) -> Outcome:
    """Device-to-device copy on cuda:index; read + write counted (2*S per copy), CUDA events, median."""
    import torch

    size = _fit_bytes(torch, index, settings.cuda_copy_bytes, copies=2)
    src = torch.empty(size, dtype=torch.uint8, device=f"cuda:{index}").fill_(1)
    dst = torch.empty_like(src)
    median_s, details = median_trials(
        lambda: dst.copy_(src), _cuda_timer(torch), settings, settings.bandwidth_budget_s
    )
    details.update(_copy_details(size, counted=2 * size))
    return Outcome(
        2 * size / median_s,
        "device-to-device torch copy_ (cudaMemcpyAsync), CUDA events, median of trials (nvbandwidth-style)",
        details,
    )


def cuda_host_bandwidth(index: int, direction: str, settings: ProbeSettings) -> Outcome:
    """Host-to-device ('h2d') or device-to-host ('d2h') copy from/to pinned memory; S counted once."""
    import torch

    size = _fit_bytes(torch, index, settings.cuda_host_copy_bytes, copies=1)
    device_buffer = torch.empty(size, dtype=torch.uint8, device=f"cuda:{index}")
    pinned, pin_error = True, None
    try:
        host = torch.empty(size, dtype=torch.uint8, pin_memory=True)
    except (
        RuntimeError
    ) as exc:  # containers with a low memlock limit refuse to pin; pageable is still a figure
        pinned, pin_error = False, _reason(exc)
        host = torch.empty(size, dtype=torch.uint8)
    host.fill_(1)
    if direction == "h2d":
        run = lambda: device_buffer.copy_(host, non_blocking=True)  # noqa: E731
    else:
        run = lambda: host.copy_(device_buffer, non_blocking=True)  # noqa: E731
    median_s, details = median_trials(run, _cuda_timer(torch), settings, settings.bandwidth_budget_s)
    details.update(_copy_details(size, counted=size), pinned=pinned)
    if pin_error:
        details["pin_error"] = pin_error
    what = "host-to-device" if direction == "h2d" else "device-to-host"
    memory = "pinned" if pinned else "pageable (pinning refused)"
    return Outcome(size / median_s, f"{what} copy from {memory} host memory, CUDA events, median", details)


def cuda_p2p_bandwidth(src_index: int, dst_index: int, settings: ProbeSettings) -> Outcome:
    """Copy from cuda:src to cuda:dst (peer access), S counted once; wall clock around synchronize on both."""
    import torch

    if not torch.cuda.can_device_access_peer(src_index, dst_index):
        raise RuntimeError(
            f"CUDA reports no peer access from cuda:{src_index} to cuda:{dst_index} "
            "(no GPUDirect P2P here: copies between them go through host memory)"
        )
    size = min(
        _fit_bytes(torch, src_index, settings.cuda_host_copy_bytes, 1),
        _fit_bytes(torch, dst_index, settings.cuda_host_copy_bytes, 1),
    )
    src = torch.empty(size, dtype=torch.uint8, device=f"cuda:{src_index}").fill_(1)
    dst = torch.empty(size, dtype=torch.uint8, device=f"cuda:{dst_index}")

    def timer(run: Callable[[], Any], reps: int) -> float:
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
    details.update(_copy_details(size, counted=size))
    return Outcome(
        size / median_s,
        "peer copy (torch copy_ between devices), synchronize + perf_counter, median",
        details,
    )


def cuda_matmul(index: int, dtype: str, capability: tuple[int, int], settings: ProbeSettings) -> Outcome:
    """Best median FLOP/s of a matmul in `dtype` on cuda:index (mamf-finder method, CUDA events)."""
    import torch

    if dtype == "fp8" and tuple(capability) < FP8_MIN_CAPABILITY:
        raise RuntimeError(
            f"fp8 matmul needs compute capability >= 8.9; this GPU is {capability[0]}.{capability[1]}"
        )
    with _tf32(torch, enabled=dtype == "tf32"):
        outcome = _matmul_over_shapes(
            torch,
            dtype,
            settings.cuda_matmul_shapes,
            device=f"cuda:{index}",
            timer=_cuda_timer(torch),
            settings=settings,
            budget_s=settings.matmul_budget_s,
            method=("torch._scaled_mm float8_e4m3fn -> bf16" if dtype == "fp8" else f"torch.mm {dtype}")
            + ", mamf-finder method: warm-up, CUDA events, median per shape, best shape",
        )
    outcome.details["tf32"] = dtype == "tf32"
    torch.cuda.empty_cache()
    return outcome


class _tf32:
    """Context manager: TF32 tensor cores on or off for fp32 matmuls, restored afterwards."""

    def __init__(self, torch: Any, enabled: bool):
        self.matmul = torch.backends.cuda.matmul
        self.enabled = enabled
        self.new_api = hasattr(self.matmul, "fp32_precision")  # torch >= 2.9 (allow_tf32 is deprecated there)

    def __enter__(self) -> None:
        if self.new_api:
            self.saved = self.matmul.fp32_precision
            self.matmul.fp32_precision = "tf32" if self.enabled else "ieee"
        else:
            self.saved = self.matmul.allow_tf32
            self.matmul.allow_tf32 = self.enabled

    def __exit__(self, *exc: Any) -> None:
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
    return f"{name}: {text[:300]}"


def run_step(step: Step) -> dict:
    """Run one measurement; any exception becomes a failed measurement with its reason (the rest go on)."""
    started_at = report_module.utc_now_iso()
    t0 = time.perf_counter()
    try:
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
        except Exception:
            pass


def cpu_steps(settings: ProbeSettings) -> list[Step]:
    steps = [
        Step("cpu memory bandwidth", "memory_bandwidth", None, None, _bind("cpu_memory_bandwidth", settings))
    ]
    for dtype in MATMUL_DTYPES_CPU:
        steps.append(Step(f"cpu matmul {dtype}", "matmul", dtype, None, _bind("cpu_matmul", dtype, settings)))
    return steps


def cuda_steps(
    index: int, capability: tuple[int, int], peers: list[int], settings: ProbeSettings
) -> list[Step]:
    dev = f"cuda:{index}"
    steps = [
        Step(
            f"{dev} memory bandwidth",
            "memory_bandwidth",
            None,
            None,
            _bind("cuda_memory_bandwidth", index, settings),
        ),
        Step(
            f"{dev} host to device",
            "h2d_bandwidth",
            None,
            None,
            _bind("cuda_host_bandwidth", index, "h2d", settings),
        ),
        Step(
            f"{dev} device to host",
            "d2h_bandwidth",
            None,
            None,
            _bind("cuda_host_bandwidth", index, "d2h", settings),
        ),
    ]
    for peer in peers:
        steps.append(
            Step(
                f"{dev} to cuda:{peer}",
                "p2p_bandwidth",
                None,
                f"cuda:{peer}",
                _bind("cuda_p2p_bandwidth", index, peer, settings),
            )
        )
    for dtype in MATMUL_DTYPES_CUDA:
        steps.append(
            Step(
                f"{dev} matmul {dtype}",
                "matmul",
                dtype,
                None,
                _bind("cuda_matmul", index, dtype, capability, settings),
            )
        )
    return steps


def _bind(function_name: str, *args: Any) -> Callable[[], Outcome]:
    """Look the measurement function up by name when the step runs, so a test can monkeypatch one of them."""
    return lambda: globals()[function_name](*args)


def failed_steps(device: str, reason: str) -> list[dict]:
    """The rows for a device that cannot be probed at all, each failed with the same reason."""
    kinds = [("memory_bandwidth", None), ("matmul", "fp32"), ("matmul", "bf16")]
    return [
        report_module.measurement_dict(
            kind, dtype=dtype, ok=False, error=reason, method=f"{device} not probed"
        )
        for kind, dtype in kinds
    ]


# --------------------------------------------------------------------------------------------------------------
# Machine description
# --------------------------------------------------------------------------------------------------------------


def machine_info(torch: Any = None) -> dict:
    """Host facts for the report: OS, CPU model, logical CPUs, RAM bytes, Python/torch/CUDA versions."""
    return {
        "hostname": socket.gethostname(),
        "os": platform.platform(),
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "ram_bytes": _ram_bytes(),
        "python": platform.python_version(),
        "torch": getattr(torch, "__version__", None) if torch is not None else None,
        "cuda": getattr(getattr(torch, "version", None), "cuda", None) if torch is not None else None,
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
# The whole probe
# --------------------------------------------------------------------------------------------------------------


@dataclass
class _Plan:
    device: str
    kind: str
    name: str
    uuid: str | None
    steps: list[Step]
    nvml_gpu: int | None = None  # cuda_index in the NVML inventory, for telemetry
    failure: str | None = None  # set when the device cannot be probed at all


def _import_torch() -> tuple[Any, str | None]:
    # NVML and CUDA must number GPUs the same way; set before torch initialises CUDA.
    os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
    try:
        import torch
    except ImportError as exc:
        return None, f"torch is not installed here ({exc}); pip install torch"
    return torch, None


def _cuda_state(torch: Any) -> tuple[int, str | None]:
    """(number of usable CUDA devices, reason when zero)."""
    if torch is None:
        return 0, "torch is not installed"
    try:
        if not torch.cuda.is_available():
            built = getattr(torch.version, "cuda", None)
            return (
                0,
                "torch has no CUDA support (CPU build)" if not built else "CUDA is not available to torch",
            )
        return torch.cuda.device_count(), None
    except Exception as exc:
        return 0, f"CUDA initialisation failed: {_reason(exc)}"


def _uuid_key(text: Any) -> str:
    value = str(text).strip().lower()
    for prefix in ("gpu-", "mig-"):
        if value.startswith(prefix):
            value = value[len(prefix) :]
    return value


def _match_nvml(torch: Any, index: int, inventory: Inventory) -> tuple[int | None, str | None]:
    """The NVML GPU (cuda_index) behind torch's cuda:index, matched by UUID, else by PCI bus id order."""
    props = torch.cuda.get_device_properties(index)
    uuid = getattr(props, "uuid", None)
    if uuid is not None:
        for gpu in inventory.gpus:
            if isinstance(gpu.uuid, str) and _uuid_key(gpu.uuid) == _uuid_key(uuid):
                return gpu.cuda_index, gpu.uuid
    if not os.environ.get("CUDA_VISIBLE_DEVICES") and index < len(inventory.gpus):
        gpu = inventory.gpus[index]  # both in PCI bus id order (CUDA_DEVICE_ORDER=PCI_BUS_ID)
        return gpu.cuda_index, gpu.uuid if isinstance(gpu.uuid, str) else None
    return None, (str(uuid) if uuid is not None else None)


def plan_devices(
    device: str, settings: ProbeSettings, torch: Any, torch_error: str | None, inventory: Inventory
) -> list[_Plan]:
    """Which devices to probe for --device all|cpu|cuda:N, with their steps (or why they cannot be probed)."""
    count, cuda_reason = _cuda_state(torch)
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
    plans = []
    for index in indices:
        props = torch.cuda.get_device_properties(index)
        capability = (props.major, props.minor)
        peers = [j for j in range(count) if j != index]
        nvml_gpu, uuid = _match_nvml(torch, index, inventory)
        plans.append(
            _Plan(
                f"cuda:{index}",
                "cuda",
                props.name,
                uuid,
                cuda_steps(index, capability, peers, settings),
                nvml_gpu,
            )
        )
    return plans


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
            failure=why,
        )
        for gpu in inventory.gpus
    ]


def _probe_device(plan: _Plan, settings: ProbeSettings, report: Callable[[str, dict | None], None]) -> dict:
    """Run a device's steps, calling report(stage, None) before and report(stage, measurement) after each."""
    entry = {"device": plan.device, "name": plan.name, "uuid": plan.uuid, "kind": plan.kind}
    if plan.failure:
        entry.update(measurements=failed_steps(plan.device, plan.failure), telemetry=[])
        report(f"{plan.device} not probed", entry["measurements"][0])
        return entry
    sampler = None
    if plan.kind == "cuda" and plan.nvml_gpu is not None:
        sampler = TelemetrySampler(
            interval_s=settings.telemetry_interval_s,
            capacity=10_000,
            include_pcie=False,
            gpus=[plan.nvml_gpu],
        )
        sampler.start()
    measurements = []
    try:
        for step in plan.steps:
            report(step.stage, None)
            with _cuda_device_context(plan):
                measurement = run_step(step)
            if plan.kind == "cuda":
                _release_cuda_memory()  # the next step (or a collectives run after us) gets the memory back
            measurements.append(measurement)
            report(step.stage, measurement)
    finally:
        if sampler is not None:
            sampler.stop()
    entry["measurements"] = measurements
    entry["telemetry"] = [s.to_dict() for s in sampler.samples(plan.nvml_gpu)] if sampler is not None else []
    return entry


class _NullContext:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def _cuda_device_context(plan: _Plan) -> Any:
    """Make plan's GPU current so events, streams and allocations land on it."""
    if plan.kind != "cuda":
        return _NullContext()
    import torch

    return torch.cuda.device(int(plan.device.split(":", 1)[1]))


def run_probe(
    mode: str = "quick",
    device: str = "all",
    progress: ProgressCallback | None = None,
    settings: ProbeSettings | None = None,
    inventory: Inventory | None = None,
    on_plan: Callable[[list[str]], None] | None = None,
) -> report_module.ProbeReport:
    """Probe this machine and return a validated ProbeReport. Never raises for hardware problems.

    device: "all" (every CUDA device, or the CPU when there is none), "cpu", or "cuda:N".
    progress(stage, fraction, device, measurement) is called before each measurement (measurement None) and
    after it (with the measurement dict); fraction runs from 0 to 1 over the whole probe. on_plan(device ids)
    is called once torch has started and the devices to probe are known.
    """
    settings = settings or settings_for(mode)
    if settings.mode != mode:
        settings = replace(settings, mode=mode)
    emit = progress or (lambda *args: None)
    emit("reading NVML inventory", 0.0, device, None)
    inventory = inventory if inventory is not None else read_inventory()
    emit("starting torch", 0.02, device, None)
    torch, torch_error = _import_torch()
    plans = plan_devices(device, settings, torch, torch_error, inventory)
    if on_plan is not None:
        on_plan([p.device for p in plans])
    total = sum(len(p.steps) if not p.failure else 1 for p in plans)
    done = 0
    devices = []
    for plan in plans:

        def report(stage: str, measurement: dict | None, plan: _Plan = plan) -> None:
            nonlocal done
            if measurement is not None:
                done += 1
            emit(stage, 0.05 + 0.95 * done / total, plan.device, measurement)

        devices.append(_probe_device(plan, settings, report))
    data = report_module.new_report_dict(mode, machine_info(torch), inventory.to_dict(), devices)
    return report_module.ProbeReport.from_dict(data)
