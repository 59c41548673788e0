"""Calibration: a probe's measurements of the user's own GPU replace the sourced fractions of the datasheet.

What a probe report can give (profiler.report; gpu-probe, and `gpu-probe --model-shapes FILE` for the last
three): the best matmul rate per dtype (the GPU's MAMF), the device-copy bandwidth, GEMMs at the chosen model's
own shapes per dtype, the flash-attention rate, and the collectives' small-message latency and bus bandwidth.

A MIG slice measures a share of the GPU, not the GPU: its figures are scaled up by the slice's compute and
memory fractions (the report's `mig` entry); a slice whose fractions are unknown is skipped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol

from planner.gpus import GpuSpec, match_nvml_name
from planner.messages import msg
from planner.perf.efficiencies import ATTENTION_FRACTION, DeviceRates
from planner.vocabulary import Confidence

if TYPE_CHECKING:
    from planner.models import ModelSpec

MATMUL_DTYPES = ("fp32", "tf32", "bf16", "fp16", "fp8")
# Collective results at or below this size are latency-bound: their time is the per-call latency.
LATENCY_MESSAGE_BYTES = 64 * 1024
# Collective results at or above this size are bandwidth-bound: their busbw is the link's.
BANDWIDTH_MESSAGE_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Calibration:
    """Rates measured on one GPU type that replace "spec x sourced fraction".

    tflops: achieved dense TFLOPS per dtype (a probe's best matmul); memory_bandwidth_bytes_per_s: achieved
    device-copy bandwidth; gemms: (dtype, m, n, k) -> FLOP/s at the model's own shapes; attention_tflops: flash
    attention forward TFLOPS per dtype; allreduce_latency_s and allreduce_busbw_bytes_per_s: the node's
    all-reduce at small and large messages; source: "measured" (a probe) or "user-set" (typed by the user).
    """

    tflops: Mapping[str, float]
    memory_bandwidth_bytes_per_s: float
    source: Confidence = Confidence.MEASURED
    note: str = ""
    gemms: Mapping[tuple[str, int, int, int], float] = field(default_factory=dict)
    attention_tflops: Mapping[str, float] = field(default_factory=dict)
    allreduce_latency_s: float | None = None
    allreduce_busbw_bytes_per_s: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "source", Confidence.parse(self.source, msg("choice.calibration_source")))
        object.__setattr__(self, "tflops", MappingProxyType(dict(self.tflops)))
        object.__setattr__(self, "gemms", MappingProxyType(dict(self.gemms)))
        object.__setattr__(self, "attention_tflops", MappingProxyType(dict(self.attention_tflops)))

    def applied_to(self, rates: DeviceRates) -> DeviceRates:
        """`rates` with every figure measured here in place of the sourced one (apply_calibration)."""
        return apply_calibration(rates, self)


def apply_calibration(rates: DeviceRates, calibration: Calibration) -> DeviceRates:
    """`rates` with every figure the calibration measured in place of the sourced one."""
    lines = list(rates.assumptions)
    changes: dict[str, object] = {}
    measured = calibration.tflops.get(rates.dtype)
    if measured:
        changes["matmul_flops_per_s"] = measured * 1e12
        lines.append(f"{rates.dtype} matmul {measured:.0f} TFLOPS ({calibration.source})")
    if calibration.memory_bandwidth_bytes_per_s > 0:
        changes["copy_bytes_per_s"] = calibration.memory_bandwidth_bytes_per_s
        lines.append(
            f"memory bandwidth {calibration.memory_bandwidth_bytes_per_s / 1e9:.0f} GB/s ({calibration.source})"
        )
    attention = calibration.attention_tflops.get(rates.dtype) or calibration.attention_tflops.get("bf16")
    if attention:
        fwd, bwd = ATTENTION_FRACTION[rates.generation]
        changes["attention_fwd_flops_per_s"] = attention * 1e12
        changes["attention_bwd_flops_per_s"] = attention * 1e12 * bwd / fwd
        lines.append(f"flash attention {attention:.0f} TFLOPS forward ({calibration.source})")
    shapes = {
        (m, n, k): value for (dtype, m, n, k), value in calibration.gemms.items() if dtype == rates.dtype
    }
    if shapes:
        changes["measured_gemms"] = MappingProxyType(shapes)
        lines.append(f"{len(shapes)} GEMMs at the model's shapes ({calibration.source})")
    if calibration.allreduce_latency_s:
        # the measured latency is used as the 8-GPU figure; FittedConstants.latency_scale still applies to it
        changes["allreduce_latency_s"] = calibration.allreduce_latency_s
        lines.append(
            f"all-reduce latency {calibration.allreduce_latency_s * 1e6:.0f} us ({calibration.source})"
        )
    if calibration.allreduce_busbw_bytes_per_s:
        changes["bus_bytes_per_s"] = calibration.allreduce_busbw_bytes_per_s
        lines.append(
            f"all-reduce bus bandwidth {calibration.allreduce_busbw_bytes_per_s / 1e9:.0f} GB/s ({calibration.source})"
        )
    if not changes:
        return rates
    return dataclasses.replace(rates, confidence=calibration.source, assumptions=tuple(lines), **changes)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------ reports


class ProbeMeasurements(Protocol):
    """What calibration reads of a probe report (profiler.report.ProbeReport has it): its devices, each a
    mapping with "kind", "name", "device", "measurements" (and "mig" for a MIG slice), and its collectives."""

    @property
    def devices(self) -> Sequence[Mapping[str, object]]: ...


def calibration_from_report(
    report: ProbeMeasurements, extra_gpus: Iterable[GpuSpec] = ()
) -> dict[str, Calibration]:
    """gpu id -> Calibration for each CUDA device of a probe report whose name matches a catalog GPU; devices
    of the same type keep the best figures. MIG slices are scaled to the whole GPU by their fractions, or
    skipped when the report does not give them."""
    found: dict[str, Calibration] = {}
    extra = tuple(extra_gpus)
    collectives = _collective_figures(report)
    for device in report.devices:
        if device.get("kind") != "cuda":
            continue
        name = str(device.get("name", ""))
        gpu = match_nvml_name(name, extra)
        if gpu is None:
            continue
        scale = _mig_scale(device.get("mig"))
        if scale is None:
            continue
        measured = _device_calibration(report, device, f"probe of {name}", scale, collectives)
        if measured is not None:
            found[gpu.id] = _best_of(found.get(gpu.id), measured)
    return found


def _mig_scale(mig: object) -> tuple[float, float] | None:
    """(compute, memory) factors that turn a device's figures into the whole GPU's: (1, 1) for a whole GPU,
    1 / fraction for a MIG slice, None for a slice whose fractions are unknown."""
    if not isinstance(mig, Mapping):
        return (1.0, 1.0)
    compute, memory = mig.get("compute_fraction"), mig.get("memory_fraction")
    if (
        not isinstance(compute, int | float)
        or not isinstance(memory, int | float)
        or compute <= 0
        or memory <= 0
    ):
        return None
    return (1.0 / float(compute), 1.0 / float(memory))


def _device_calibration(
    report: ProbeMeasurements,
    device: Mapping[str, object],
    note: str,
    scale: tuple[float, float],
    collectives: tuple[float | None, float | None],
) -> Calibration | None:
    """The best matmul TFLOPS per dtype, the copy bandwidth and the model-shape kernels one device measured
    (None: nothing measured)."""
    compute, memory = scale
    tflops = {}
    for dtype in MATMUL_DTYPES:
        value = _best(device, "matmul", dtype)
        if value:
            tflops[dtype] = value * compute / 1e12
    bandwidth = (_best(device, "memory_bandwidth", None) or 0.0) * memory
    gemms: dict[tuple[str, int, int, int], float] = {}
    attention: dict[str, float] = {}
    for measurement in _measurements(device):
        details, raw, kind_dtype = (
            measurement.get("details"),
            measurement.get("value"),
            measurement.get("dtype"),
        )
        if not measurement.get("ok") or not isinstance(raw, int | float) or not isinstance(details, Mapping):
            continue
        if not isinstance(kind_dtype, str):
            continue
        rate = float(raw) * compute
        if measurement.get("kind") == "gemm":
            m, n, k = details.get("m"), details.get("n"), details.get("k")
            if isinstance(m, int) and isinstance(n, int) and isinstance(k, int):
                key = (kind_dtype, m, n, k)
                gemms[key] = max(gemms.get(key, 0.0), rate)
        elif measurement.get("kind") == "attention":
            attention[kind_dtype] = max(attention.get(kind_dtype, 0.0), rate / 1e12)
    if not tflops and not bandwidth and not gemms and not attention:
        return None
    latency, busbw = collectives
    if compute != 1.0:
        latency, busbw = None, None  # a slice's collectives say nothing of the whole GPU's links
    note = note + (" (a MIG slice, scaled to the whole GPU)" if compute != 1.0 else "")
    return Calibration(tflops, bandwidth, Confidence.MEASURED, note, gemms, attention, latency, busbw)


def _best(device: Mapping[str, object], kind: str, dtype: str | None) -> float | None:
    """Highest ok value of `kind` (and `dtype`, None: any) this device measured. Read from the device's own
    list, not looked up in the whole report: a report of 20,000 devices once made each plan take minutes
    (issue 14 item 3), one scan of every device per device."""
    values = [float(raw) for m in _measurements(device)
              if m.get("ok") and m.get("kind") == kind and (dtype is None or m.get("dtype") == dtype)
              and isinstance(raw := m.get("value"), int | float) and not isinstance(raw, bool)]  # fmt: skip
    return max(values) if values else None


def _measurements(device: Mapping[str, object]) -> list[Mapping[str, object]]:
    rows = device.get("measurements")
    if not isinstance(rows, list):
        return []
    return [row for row in rows if isinstance(row, Mapping)]


def _collective_figures(report: ProbeMeasurements) -> tuple[float | None, float | None]:
    """(latency, bus bandwidth) of the report's single-node all-reduce: the time of its smallest message (at or
    under 64 KiB) and the busbw of its largest (at or over 256 MiB); None where not measured."""
    entries = getattr(report, "collectives", None)
    if not isinstance(entries, list):
        return None, None
    latency: float | None = None
    busbw: float | None = None
    for entry in entries:
        if not isinstance(entry, Mapping) or entry.get("op") != "all_reduce" or entry.get("nnodes", 1) != 1:
            continue
        if entry.get("ok") is False or str(entry.get("backend")) != "nccl":
            continue
        for row in entry.get("results") or []:
            if not isinstance(row, Mapping):
                continue
            size, time_s, bus = row.get("size_bytes"), row.get("time_s"), row.get("busbw_bytes_per_s")
            if (
                not isinstance(size, int)
                or not isinstance(time_s, int | float)
                or not isinstance(bus, int | float)
            ):
                continue
            if size <= LATENCY_MESSAGE_BYTES and time_s > 0:
                latency = float(time_s) if latency is None else min(latency, float(time_s))
            if size >= BANDWIDTH_MESSAGE_BYTES and bus > 0:
                busbw = float(bus) if busbw is None else max(busbw, float(bus))
    return latency, busbw


def _best_of(previous: Calibration | None, current: Calibration) -> Calibration:
    """Two devices of one GPU type: each figure at its best (the note names the later device)."""
    if previous is None:
        return current
    dtypes = {**previous.tflops, **current.tflops}
    tflops = {k: max(current.tflops.get(k, 0.0), previous.tflops.get(k, 0.0)) for k in dtypes}
    bandwidth = max(current.memory_bandwidth_bytes_per_s, previous.memory_bandwidth_bytes_per_s)
    gemms = dict(previous.gemms)
    for shape, rate in current.gemms.items():
        gemms[shape] = max(rate, gemms.get(shape, 0.0))
    attention = dict(previous.attention_tflops)
    for name, rate in current.attention_tflops.items():
        attention[name] = max(rate, attention.get(name, 0.0))
    return Calibration(
        tflops, bandwidth, Confidence.MEASURED, current.note, gemms, attention,
        current.allreduce_latency_s or previous.allreduce_latency_s,
        current.allreduce_busbw_bytes_per_s or previous.allreduce_busbw_bytes_per_s,
    )  # fmt: skip


# ------------------------------------------------------------------------------------------------ shapes file

SHAPES_SCHEMA = "gpu-advisor.model-shapes"  # read by gpu-probe --model-shapes (profiler/model_shapes.py)
SHAPES_VERSION = 1
# Small all-reduce sizes whose time is the per-call latency (the decode all-reduces of a layer are kilobytes).
LATENCY_SIZES_BYTES = (8 * 1024, 64 * 1024)


def probe_shapes(
    model: ModelSpec, tp: int, tokens: int, sequences: int, seq_len: int, dtype: str, ep: int = 1
) -> dict[str, object]:
    """The `gpu-probe --model-shapes` document for one planned layout: the per-rank GEMMs of one layer and the
    LM head at `tokens` rows (a micro-batch's tokens, or a decode batch), the attention of `sequences`
    sequences of `seq_len` tokens per rank, in the compute dtype."""
    from planner.perf.compute import layer_shape

    shape = layer_shape(model, tp, ep)
    h = shape.hidden
    projections = [(shape.attn_in, True), (shape.attn_out, False)]
    if model.is_moe:
        projections += [(shape.expert_in, True), (shape.expert_out, False)]
    if shape.mlp_in:
        projections += [(shape.mlp_in, True), (shape.mlp_out, False)]
    gemms = []
    for elements, into in projections:
        width = round(elements / h)
        gemm = [tokens, width, h] if into else [tokens, h, width]
        if width > 0 and gemm not in gemms:
            gemms.append(gemm)
    gemms.append([tokens, shape.vocab_shard, h])
    head_dim = (model.qk_nope_head_dim + model.qk_rope_head_dim) if model.uses_mla else model.head_dim
    kv_heads = max(1, model.kv_heads // tp) if not model.uses_mla else max(1, model.heads // tp)
    return {
        "schema": SHAPES_SCHEMA,
        "version": SHAPES_VERSION,
        "model": model.display_name,
        "dtypes": [dtype],
        "gemms": gemms,
        "attention": {
            "batch": max(1, sequences),
            "heads": max(1, model.heads // tp),
            "kv_heads": kv_heads,
            "seq_len": seq_len,
            "head_dim": head_dim,
            "causal": True,
        },  # fmt: skip
        "collective_sizes": list(LATENCY_SIZES_BYTES),
    }
