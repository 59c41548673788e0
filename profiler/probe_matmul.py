"""Matrix-multiply throughput: CPU and CUDA matmuls per dtype (fp32, tf32, bf16, fp16, fp8), the shape search of mamf-finder, and the TF32 switch restored after."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from profiler.jsontypes import JSONObject, JSONValue
from profiler.probe_settings import FP8_MIN_CAPABILITY, L2_FLUSH_BYTES, MIB, Outcome, ProbeSettings
from profiler.probe_timing import cpu_timer, cuda_event, cuda_timer, median_trials, warm_up

if TYPE_CHECKING:
    import torch


def _torch_dtype(dtype: str) -> torch.dtype:
    import torch

    return {"fp32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[
        dtype
    ]


def cpu_matmul(dtype: str, settings: ProbeSettings, budget_s: float | None = None) -> Outcome:
    """Best median FLOP/s of torch.mm on the CPU over settings.cpu_matmul_shapes (2*m*n*k FLOPs each)."""
    per_shape: list[JSONValue] = []
    best_value, best_shape = 0.0, (0, 0, 0)
    budget = settings.matmul_budget_s if budget_s is None else budget_s
    for m, n, k in settings.cpu_matmul_shapes:
        run = _cpu_matmul_runner(dtype, m, n, k)
        median_s, details = median_trials(run, cpu_timer, settings, budget / len(settings.cpu_matmul_shapes))
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

    warm = warm_up(one_repetition, cuda_timer(), settings)
    started = time.perf_counter()
    torch.cuda.synchronize(device)
    single = max(cuda_timer()(op, 1), 1e-6)
    count = int(min(settings.max_trials * 4, max(settings.min_trials * 4, budget_s / (single * 3))))
    starts = [cuda_event() for _ in range(count)]
    ends = [cuda_event() for _ in range(count)]
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
