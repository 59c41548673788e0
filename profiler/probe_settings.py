"""The probe's modes (quick, full): buffer sizes, matmul shapes and time budgets; what a measurement returns."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from profiler.jsontypes import JSONObject

MIB = 1024 * 1024


MATMUL_DTYPES_CUDA = ("fp32", "tf32", "bf16", "fp16", "fp8")


MATMUL_DTYPES_CPU = ("fp32", "bf16")


FP8_MIN_CAPABILITY = (8, 9)


# mamf-finder zeroes a 256 MiB buffer between repetitions to flush the cache: the largest L2/LLC of recent
# accelerators (B200's L2 is 126 MiB), and the floor below which a bandwidth buffer could be served from L2.
L2_FLUSH_BYTES = 256 * MIB


MIN_BANDWIDTH_BYTES = 256 * MIB


L2_MULTIPLE = 4  # a bandwidth buffer must be at least 4 x the L2 size


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


def failure_reason(exc: BaseException) -> str:
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
