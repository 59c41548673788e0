"""`gpu-probe --model-shapes FILE`: measure what one planned model needs, at its own shapes.

The file (written by `gpu-advisor plan ... --probe-shapes FILE`, schema "gpu-advisor.model-shapes" version 1):

    {"schema": "gpu-advisor.model-shapes", "version": 1, "model": "Llama 3.1 8B",
     "dtypes": ["bf16"], "gemms": [[8192, 6144, 4096], ...],
     "attention": {"batch": 2, "heads": 32, "kv_heads": 8, "seq_len": 4096, "head_dim": 128, "causal": true},
     "collective_sizes": [8192, 65536]}

gemms are (m, n, k) per tensor-parallel rank: the tokens of a micro-batch (or a decode batch) by each
projection's output and input width. The probe times each GEMM per dtype the mamf-finder way (profiler.probe),
flash attention (torch's scaled_dot_product_attention, causal) at the attention shape, and, with
--collectives, all-reduces at the small sizes too (their time is the per-call latency). The measurements go
into the report as kinds "gemm" and "attention" (report version 2; profiler.report).

Stdlib at import time; torch loads inside the measurement functions (gpu-probe's child process only).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from profiler.jsontypes import JSONObject

if TYPE_CHECKING:
    from profiler.probe_settings import Outcome, ProbeSettings
    from profiler.probe_steps import Step

SHAPES_SCHEMA = "gpu-advisor.model-shapes"
SHAPES_VERSION = 1
MAX_SHAPES_BYTES = 1024 * 1024
MAX_GEMMS = 64
MAX_DIMENSION = 1 << 20  # a GEMM side beyond a million is a typo, not a model
MAX_ATTENTION_ELEMENTS = 1 << 31  # batch x heads x seq x head_dim of one attention call
SHAPE_DTYPES = ("fp32", "tf32", "bf16", "fp16", "fp8")
ATTENTION_DTYPES = ("bf16", "fp16")


class ShapesError(ValueError):
    """A model-shapes file that cannot be used: not JSON, wrong schema, a bad field (named)."""


@dataclass(frozen=True)
class AttentionShape:
    batch: int
    heads: int
    kv_heads: int
    seq_len: int
    head_dim: int
    causal: bool = True

    @property
    def flops(self) -> float:
        """QK^T and scores x V: 4 x batch x heads x s^2 x d, half of it with a causal mask (flash attention
        skips the masked blocks)."""
        full = 4.0 * self.batch * self.heads * self.seq_len**2 * self.head_dim
        return full / 2 if self.causal else full


@dataclass(frozen=True)
class ModelShapes:
    model: str
    dtypes: tuple[str, ...]
    gemms: tuple[tuple[int, int, int], ...]
    attention: AttentionShape | None = None
    collective_sizes: tuple[int, ...] = ()


def load_model_shapes(path: str | Path) -> ModelShapes:
    """Read and check a shapes file; ShapesError names the field that is wrong."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ShapesError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if len(raw) > MAX_SHAPES_BYTES:
        raise ShapesError(f"{path}: {len(raw)} bytes; a shapes file is at most {MAX_SHAPES_BYTES}")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ShapesError(f"{path}: not valid JSON ({exc})") from None
    return shapes_from_dict(data)


def shapes_from_dict(data: object) -> ModelShapes:
    if not isinstance(data, dict) or data.get("schema") != SHAPES_SCHEMA:
        raise ShapesError(f"schema: not a GPU Advisor model-shapes file (expected {SHAPES_SCHEMA!r})")
    if data.get("version") != SHAPES_VERSION:
        raise ShapesError(
            f"version: this gpu-probe reads version {SHAPES_VERSION}, got {data.get('version')!r}"
        )
    dtypes = data.get("dtypes")
    if not isinstance(dtypes, list) or not dtypes or any(d not in SHAPE_DTYPES for d in dtypes):
        raise ShapesError(f"dtypes: expected a list of {', '.join(SHAPE_DTYPES)}")
    gemms = data.get("gemms")
    if not isinstance(gemms, list) or len(gemms) > MAX_GEMMS:
        raise ShapesError(f"gemms: expected a list of at most {MAX_GEMMS} [m, n, k]")
    shapes = []
    for i, gemm in enumerate(gemms):
        if not (isinstance(gemm, list) and len(gemm) == 3 and all(_dimension(x) for x in gemm)):
            raise ShapesError(f"gemms[{i}]: expected [m, n, k], whole numbers from 1 to {MAX_DIMENSION}")
        shapes.append((int(gemm[0]), int(gemm[1]), int(gemm[2])))
    sizes = data.get("collective_sizes", [])
    if not isinstance(sizes, list) or not all(_dimension(x) for x in sizes):
        raise ShapesError("collective_sizes: expected a list of byte counts")
    return ModelShapes(
        model=str(data.get("model", ""))[:200],
        dtypes=tuple(str(d) for d in dtypes),
        gemms=tuple(shapes),
        attention=_attention(data.get("attention")),
        collective_sizes=tuple(int(x) for x in sizes),
    )


def _dimension(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_DIMENSION


def _attention(value: object) -> AttentionShape | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ShapesError("attention: expected an object")
    fields = ("batch", "heads", "kv_heads", "seq_len", "head_dim")
    if not all(_dimension(value.get(name)) for name in fields):
        raise ShapesError(f"attention: expected whole numbers {', '.join(fields)}")
    batch, heads, kv_heads, seq_len, head_dim = (int(value[name]) for name in fields)
    shape = AttentionShape(batch, heads, kv_heads, seq_len, head_dim, bool(value.get("causal", True)))
    if shape.heads % shape.kv_heads:
        raise ShapesError("attention: heads must be a multiple of kv_heads")
    if shape.batch * shape.heads * shape.seq_len * shape.head_dim > MAX_ATTENTION_ELEMENTS:
        raise ShapesError("attention: the query tensor is too large for one probe call")
    return shape


# ------------------------------------------------------------------------------------------------ steps


def model_shape_steps(
    device: str, capability: tuple[int, int], shapes: ModelShapes, settings: ProbeSettings
) -> list[Step]:
    """The extra steps of one device (cuda:N or cpu): a GEMM per shape and dtype, attention per 16-bit dtype."""
    from profiler.probe_settings import FP8_MIN_CAPABILITY
    from profiler.probe_steps import Step

    steps = []
    for dtype in shapes.dtypes:
        if device == "cpu" and dtype not in ("fp32", "bf16"):
            continue
        if dtype == "fp8" and tuple(capability) < FP8_MIN_CAPABILITY:
            continue
        for m, n, k in shapes.gemms:
            steps.append(Step(f"{device} gemm {dtype} {m}x{n}x{k}", "gemm", dtype, None,
                              _bound(gemm_at_shape, device, dtype, m, n, k, settings)))  # fmt: skip
    if shapes.attention is not None:
        for dtype in [d for d in shapes.dtypes if d in ATTENTION_DTYPES] or ["bf16"]:
            steps.append(Step(f"{device} attention {dtype}", "attention", dtype, None,
                              _bound(attention_rate, device, dtype, shapes.attention, settings)))  # fmt: skip
    return steps


def _bound(function: Callable[..., Outcome], *args: object) -> Callable[[], Outcome]:
    def measure() -> Outcome:
        return function(*args)

    return measure


def gemm_at_shape(device: str, dtype: str, m: int, n: int, k: int, settings: ProbeSettings) -> Outcome:
    """Median FLOP/s of one (m, k) x (k, n) GEMM: mamf-finder's method on CUDA (L2 flushed between
    repetitions, CUDA events), a median of timed calls on the CPU."""
    from profiler.probe_matmul import mamf_shape
    from profiler.probe_settings import Outcome
    from profiler.probe_timing import cpu_timer, median_trials

    if device.startswith("cuda"):
        stats = mamf_shape(dtype, m, n, k, device, settings, settings.matmul_budget_s)
        value = stats["median_flops_per_s"]
        assert isinstance(value, float)
        return Outcome(value, f"torch GEMM {dtype} at the model's shape, mamf-finder method",
                       {"m": m, "n": n, "k": k, "flops_per_call": "2*m*n*k", "stats": stats})  # fmt: skip
    import torch

    tdtype = torch.float32 if dtype == "fp32" else torch.bfloat16
    a, b = torch.randn(m, k, dtype=tdtype), torch.randn(k, n, dtype=tdtype)
    seconds, details = median_trials(lambda: torch.mm(a, b), cpu_timer, settings, settings.matmul_budget_s)
    return Outcome(2.0 * m * n * k / seconds, f"torch.mm {dtype} on the CPU at the model's shape",
                   {"m": m, "n": n, "k": k, "flops_per_call": "2*m*n*k", **details})  # fmt: skip


def attention_rate(device: str, dtype: str, shape: AttentionShape, settings: ProbeSettings) -> Outcome:
    """FLOP/s of torch's scaled_dot_product_attention (flash attention where the backend has it) at the
    model's attention shape, causal; grouped-query heads are expanded as the kernel needs."""
    import torch
    import torch.nn.functional as functional

    from profiler.probe_settings import Outcome
    from profiler.probe_timing import cpu_timer, cuda_timer, median_trials

    tdtype = torch.float16 if dtype == "fp16" else torch.bfloat16
    where = device if device.startswith("cuda") else "cpu"
    q = torch.randn(shape.batch, shape.heads, shape.seq_len, shape.head_dim, dtype=tdtype, device=where)
    kv_shape = (shape.batch, shape.kv_heads, shape.seq_len, shape.head_dim)
    k = torch.randn(kv_shape, dtype=tdtype, device=where).repeat_interleave(
        shape.heads // shape.kv_heads, dim=1
    )
    v = torch.randn(kv_shape, dtype=tdtype, device=where).repeat_interleave(
        shape.heads // shape.kv_heads, dim=1
    )

    def call() -> object:
        return functional.scaled_dot_product_attention(q, k, v, is_causal=shape.causal)

    if where != "cpu":
        torch.cuda.set_device(where)
    timer = cuda_timer() if where != "cpu" else cpu_timer
    seconds, details = median_trials(call, timer, settings, settings.matmul_budget_s)
    flops = shape.flops
    info: JSONObject = {
        "batch": shape.batch, "heads": shape.heads, "kv_heads": shape.kv_heads, "seq_len": shape.seq_len,
        "head_dim": shape.head_dim, "causal": shape.causal, "flops_per_call": flops, **details,
    }  # fmt: skip
    return Outcome(flops / seconds, "torch scaled_dot_product_attention (forward)", info)
