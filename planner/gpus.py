"""The GPU catalog: what each GPU type can hold and compute, with the source and date of every figure.

Data lives in planner/catalog/gpus.json (package data, read once and cached). Users can add their own GPU types:
the store keeps them and passes them in as `extra`, so every lookup takes an `extra` iterable of GpuSpec.

Units: memory in bytes (what the card exposes, binary), bandwidths in bytes per second, TFLOPS dense (10^12
FLOP/s; sparse figures are 2x), power in watts, prices in US dollars.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Any

from planner.errors import UserError
from planner.messages import Message, msg

MIB = 1024**2
GIB = 1024**3

# Dtypes a GpuSpec.tflops may list. "int8" is integer tensor TOPS.
TFLOPS_DTYPES = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp4", "int8")

# Minimum NVIDIA compute capability per tensor-core precision: bf16 and tf32 tensor cores arrived with Ampere,
# CC 8.0 (NVIDIA A100 Tensor Core GPU Architecture whitepaper, 2020); fp8 needs Ada (8.9) or Hopper (9.0)
# (NVIDIA Transformer Engine documentation, "FP8 support"); fp4 tensor cores are Blackwell's, CC 10.0 (NVIDIA
# Blackwell Architecture Technical Brief, 2024). CUDA C++ Programming Guide, "Compute Capabilities".
MIN_COMPUTE_CAPABILITY = {"bf16": (8, 0), "tf32": (8, 0), "fp8": (8, 9), "fp4": (10, 0)}

# Weight-only storage formats: the matmuls run in fp16/bf16 after dequantisation (GPTQ, AWQ, bitsandbytes),
# so they run wherever fp16 runs.
WEIGHT_ONLY_FORMATS = ("int8", "int4")


@dataclass(frozen=True)
class GpuSpec:
    """One GPU type. Figures are per GPU; `sources` maps a figure group to its document, `source_dates` to a date."""

    id: str
    name: str
    vendor: str
    memory_bytes: int
    memory_bandwidth_bytes_per_s: float
    tflops: Mapping[str, float]
    tdp_w: float
    compute_capability: tuple[int, int]
    nvlink_bytes_per_s: float
    pcie_bytes_per_s: float
    gpus_per_node: int
    purchase_usd: float | None
    nvml_names: tuple[str, ...]
    sources: Mapping[str, str]
    source_date: str
    user_defined: bool = False
    # GPUs that reach each other over the scale-up link at full rate (8 behind an NVSwitch, 2 on a bridge, 1 none).
    nvlink_domain: int = 1
    scale_up_link: str = "none"
    # Whether peer-to-peer (GPUDirect) works; GeForce cards route NCCL through the host.
    p2p: bool = True
    # Measured 8-GPU NCCL all-reduce bus bandwidth where a public measurement exists (0 = none).
    allreduce_busbw_bytes_per_s: float = 0.0
    memory_vendor_gb: float | None = None
    detectable: bool = True
    notes: tuple[str, ...] = ()
    source_dates: Mapping[str, str] = field(default_factory=dict)
    # the GPU's boost clock (MHz) as its architecture whitepaper states it; None where none is sourced
    boost_clock_mhz: float | None = None

    def peak_tflops(self, dtype: str) -> float | None:
        """Dense peak TFLOPS for a tensor dtype, or None if this GPU has no such figure."""
        return self.tflops.get(dtype)

    def as_dict(self) -> dict[str, object]:
        """JSON-safe view (bytes as int, bandwidths in bytes per second)."""
        return {
            "id": self.id,
            "name": self.name,
            "vendor": self.vendor,
            "memory_bytes": self.memory_bytes,
            "memory_vendor_gb": self.memory_vendor_gb,
            "memory_bandwidth_bytes_per_s": self.memory_bandwidth_bytes_per_s,
            "tflops": dict(self.tflops),
            "tdp_w": self.tdp_w,
            "boost_clock_mhz": self.boost_clock_mhz,
            "compute_capability": list(self.compute_capability) if self.vendor == "NVIDIA" else None,
            "nvlink_bytes_per_s": self.nvlink_bytes_per_s,
            "nvlink_domain": self.nvlink_domain,
            "scale_up_link": self.scale_up_link,
            "pcie_bytes_per_s": self.pcie_bytes_per_s,
            "gpus_per_node": self.gpus_per_node,
            "purchase_usd": self.purchase_usd,
            "nvml_names": list(self.nvml_names),
            "detectable": self.detectable,
            "user_defined": self.user_defined,
            "sources": dict(self.sources),
            "source_dates": dict(self.source_dates),
            "source_date": self.source_date,
            "notes": list(self.notes),
        }


def _spec_from_entry(entry: Mapping[str, Any]) -> GpuSpec:  # Any: one record of gpus.json
    cc = entry.get("compute_capability")
    notes = tuple(
        entry[k] for k in ("memory_basis", "tflops_note", "bandwidth_note", "tdp_note") if entry.get(k)
    )
    dates = entry.get("source_dates", {})
    return GpuSpec(
        id=entry["id"],
        name=entry["name"],
        vendor=entry["vendor"],
        memory_bytes=int(entry["memory_mib"]) * MIB,
        memory_bandwidth_bytes_per_s=float(entry["memory_bandwidth_bytes_per_s"]),
        tflops=MappingProxyType({k: float(v) for k, v in entry["tflops"].items()}),
        tdp_w=float(entry["tdp_w"]),
        compute_capability=(int(cc[0]), int(cc[1])) if cc else (0, 0),
        nvlink_bytes_per_s=float(entry["nvlink_bytes_per_s"]),
        pcie_bytes_per_s=float(entry["pcie_bytes_per_s"]),
        gpus_per_node=int(entry["gpus_per_node"]),
        purchase_usd=entry.get("purchase_usd"),
        nvml_names=tuple(entry.get("nvml_names", ())),
        sources=MappingProxyType(dict(entry["sources"])),
        source_date=max(dates.values()) if dates else "",
        nvlink_domain=int(entry.get("nvlink_domain", 1)),
        scale_up_link=entry.get("scale_up_link", "none"),
        p2p=bool(entry.get("p2p", True)),
        allreduce_busbw_bytes_per_s=float(entry.get("allreduce_busbw_bytes_per_s", 0.0)),
        memory_vendor_gb=entry.get("memory_vendor_gb"),
        detectable=bool(entry.get("detectable", True)),
        notes=notes,
        source_dates=MappingProxyType(dict(dates)),
        boost_clock_mhz=float(entry["boost_clock_mhz"]) if entry.get("boost_clock_mhz") else None,
    )


@lru_cache(maxsize=1)
def _builtin() -> tuple[GpuSpec, ...]:
    text = resources.files("planner.catalog").joinpath("gpus.json").read_text(encoding="utf-8")
    return tuple(_spec_from_entry(entry) for entry in json.loads(text)["gpus"])


def builtin_gpus() -> tuple[GpuSpec, ...]:
    """The shipped catalog, in file order."""
    return _builtin()


def load_catalog(extra: Iterable[GpuSpec] = ()) -> dict[str, GpuSpec]:
    """id -> GpuSpec for the shipped catalog plus user-defined types (a user type with a catalog id wins)."""
    catalog = {gpu.id: gpu for gpu in _builtin()}
    for gpu in extra:
        catalog[gpu.id] = gpu
    return catalog


def _normalise(text: str) -> str:
    """Lower case, punctuation and spaces folded: "H100 SXM" and "h100-sxm" compare equal."""
    text = text.lower().replace("nvidia", "").replace("geforce", "")
    return re.sub(r"[^a-z0-9]+", "", text)


def get_gpu(id_or_name: str, extra: Iterable[GpuSpec] = ()) -> GpuSpec:
    """Find a GPU by id ("h100-sxm"), name ("NVIDIA H100 SXM5 80GB") or NVML name, case-insensitively.

    Raises UserError naming close matches when nothing matches exactly.
    """
    catalog = load_catalog(extra)
    wanted = _normalise(id_or_name or "")
    if not wanted:
        raise UserError.of(msg("error.no_gpu_given"))
    for gpu in catalog.values():
        keys = {_normalise(gpu.id), _normalise(gpu.name), *(_normalise(n) for n in gpu.nvml_names)}
        if wanted in keys:
            return gpu
    close = _suggestions(wanted, catalog)
    if close:
        raise UserError.of(msg("error.unknown_gpu_close", text=id_or_name, ids=", ".join(close)))
    raise UserError.of(msg("error.unknown_gpu", text=id_or_name))


def _suggestions(wanted: str, catalog: Mapping[str, GpuSpec]) -> list[str]:
    """Up to five catalog ids close to what the user typed."""
    by_key = {}
    for gpu in catalog.values():
        by_key[_normalise(gpu.id)] = gpu.id
        by_key[_normalise(gpu.name)] = gpu.id
    close = difflib.get_close_matches(wanted, list(by_key), n=6, cutoff=0.5)
    contains = [key for key in by_key if wanted in key or key in wanted]
    return list(dict.fromkeys(by_key[key] for key in [*contains, *close]))[:5]


def match_nvml_name(nvml_name: str, extra: Iterable[GpuSpec] = ()) -> GpuSpec | None:
    """The catalog entry for a name NVML reports ("NVIDIA H100 80GB HBM3" -> h100-sxm), or None."""
    wanted = _normalise(nvml_name or "")
    if not wanted:
        return None
    for gpu in load_catalog(extra).values():
        if wanted in {_normalise(n) for n in gpu.nvml_names}:
            return gpu
    return None


def supports_precision(gpu: GpuSpec, precision: str) -> bool:
    """Whether `gpu` can run `precision` ("fp32", "tf32", "bf16", "fp16", "fp8", "fp4", "int8", "int4").

    fp8/fp4/bf16/tf32 need tensor-core support (NVIDIA: a minimum compute capability AND a catalog figure);
    int8/int4 here are weight-only storage formats whose matmuls run in 16-bit, so they need fp16 or bf16.
    """
    if precision == "fp32":
        return True
    if precision in WEIGHT_ONLY_FORMATS:
        return "fp16" in gpu.tflops or "bf16" in gpu.tflops
    if precision not in gpu.tflops:
        return False
    minimum = MIN_COMPUTE_CAPABILITY.get(precision)
    if gpu.vendor == "NVIDIA" and minimum and gpu.compute_capability != (0, 0):
        return gpu.compute_capability >= minimum
    return True


def precision_refusal(gpu: GpuSpec, precision: str) -> str:
    """A plain sentence why `gpu` cannot run `precision` (empty when it can)."""
    refusal = precision_refusal_message(gpu, precision)
    return "" if refusal is None else refusal.text


def precision_refusal_message(gpu: GpuSpec, precision: str) -> Message | None:
    """precision_refusal as a planner.messages.Message (None when the GPU can run `precision`)."""
    if supports_precision(gpu, precision):
        return None
    minimum = MIN_COMPUTE_CAPABILITY.get(precision)
    if gpu.vendor == "NVIDIA" and minimum:
        return msg(
            "gpu.precision_needs_capability",
            gpu=gpu.name,
            capability=".".join(map(str, gpu.compute_capability)),
            precision=precision,
            needed_capability=".".join(map(str, minimum)),
        )
    return msg("gpu.no_precision_support", gpu=gpu.name, precision=precision)


def compute_dtype(precision: str, gpu: GpuSpec | None = None) -> str:
    """The tensor dtype whose TFLOPS figure applies to a training/inference precision.

    Weight-only formats (int8, int4) dequantise to 16-bit for the matmul: bf16 where the GPU has it, else fp16.
    """
    if precision in WEIGHT_ONLY_FORMATS:
        if gpu is not None and "bf16" not in gpu.tflops:
            return "fp16"
        return "bf16"
    return precision


def check_user_gpu(spec: GpuSpec) -> None:
    """The checks a user-defined GPU type passes before the store keeps it: a positive, finite memory size and
    bandwidth, and at least one TFLOPS figure, each for a dtype the catalog knows and positive and finite."""
    sizes = (spec.memory_bytes, spec.memory_bandwidth_bytes_per_s)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < math.inf for v in sizes):
        raise UserError.of(msg("error.gpu_type_sizes"))
    unknown = set(spec.tflops) - set(TFLOPS_DTYPES)
    if unknown:
        raise UserError.of(
            msg("error.gpu_type_dtypes", dtypes=sorted(unknown), choices=", ".join(TFLOPS_DTYPES))
        )
    figures = list(spec.tflops.values())
    if not figures or not all(isinstance(v, (int, float)) and 0 < v < math.inf for v in figures):
        raise UserError.of(msg("error.gpu_type_tflops"))
