"""The physical constants of the performance model: what a GPU achieves of its datasheet figures.

Two kinds, kept apart:

- **Sourced per GPU**: the best measured matmul rate as a fraction of the dense spec (MAMF), the achievable
  device-copy bandwidth, the flash-attention fraction, the integer ALU rate and the small-message collective
  latency. Each has its publication in the comment beside it and in docs/sources.md ("Performance"). A probe
  measurement of the user's own GPU replaces them (planner.perf.calibration).
- **Fitted** (`FittedConstants`): eleven numbers that no datasheet gives, fitted to the published runs of
  planner/catalog/validation.json (`gpu-advisor validate` refits them per cross-validation fold, on the
  training folds only, and prints the shipped values). Each is a physical quantity with a bounded range, never
  a per-case factor.

`device_rates(gpu, precision, ...)` turns these into the rates one estimate uses (`DeviceRates`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from planner.errors import UserError
from planner.gpus import GpuSpec, compute_dtype
from planner.messages import msg
from planner.vocabulary import Confidence

# ------------------------------------------------------------------------------------------ sourced per GPU

# Maximum achievable matmul FLOPS (MAMF) as a fraction of the dense spec, per GPU and dtype class ("16" for
# bf16/fp16, "8" for fp8/int8): stas00/ml-engineering, compute/accelerator/README.md, "Maximum Achievable Matmul
# FLOPS comparison table" (mamf-finder.py, mean of 100 iterations after 50 warm-up; read at the 2026-08-22
# revision). BF16: A100 SXM 271.2/312, A100 PCIe 252.9/312, H100 SXM 794.5/989 ("H200 is the same"), B200
# 1745.0/2250. FP8: H100 SXM 1402.6/1979, H200 SXM 1453.4/1979, B200 3432.5/4500.
MAMF_FRACTION: Mapping[str, Mapping[str, float]] = {
    "a100-sxm-80gb": {"16": 0.869},
    "a100-sxm-40gb": {"16": 0.869},
    "a100-pcie-80gb": {"16": 0.811},
    "a100-pcie-40gb": {"16": 0.811},
    "h100-sxm": {"16": 0.803, "8": 0.709},
    "h200-sxm": {"16": 0.803, "8": 0.734},
    "b200": {"16": 0.776, "8": 0.763},
}
# A GPU the table has no row for: the median of its NVIDIA rows (bf16: 0.869, 0.838, 0.811, 0.803, 0.786,
# 0.776, 0.729 -> 0.803; fp8: 0.776, 0.763, 0.745, 0.734, 0.723, 0.709 -> 0.73). An assumption, labelled so.
DEFAULT_MAMF_FRACTION: Mapping[str, float] = {"16": 0.803, "8": 0.73}

# Device-to-device copy bandwidth as a fraction of the spec (STREAM copy convention, read + write): Azure
# AI-benchmarking-guide (https://github.com/Azure/AI-benchmarking-guide, 2024-06), HBM bandwidth "Copy":
# ND H100 v5 2.90 of 3.35 TB/s, ND A100 v4 1.61 of 2.039 TB/s. Elsewhere the mean of the two (assumption).
COPY_FRACTION: Mapping[str, float] = {"h100-sxm": 0.87, "a100-sxm-80gb": 0.79, "a100-sxm-40gb": 0.79}
DEFAULT_COPY_FRACTION = 0.83

# Flash attention's achieved share of the dense 16-bit peak, forward and backward, per generation.
# Ampere: FlashAttention-2 "reaching 50-73% of the theoretical maximum FLOPs/s on A100" (Dao 2023, arXiv
# 2307.08691, abstract): the forward at the top of that range, the backward (five matmuls, more
# synchronisation) at its bottom. Hopper: FlashAttention-3 "up to 740 TFLOPs/s (75% utilization)" in FP16 while
# "FlashAttention-2 achiev[es] only 35% utilization on H100" (Shah et al. 2024, arXiv 2407.08608, abstract):
# frameworks of the validation set run either, so the forward takes the middle (0.55) and the backward the
# FA2 figure (0.35). Ada and Blackwell: no publication at hand; Ampere's and Hopper's figures (assumption).
ATTENTION_FRACTION: Mapping[str, tuple[float, float]] = {
    "ampere": (0.70, 0.50),
    "ada": (0.70, 0.50),
    "hopper": (0.55, 0.35),
    "blackwell": (0.55, 0.35),
    "older": (0.50, 0.35),
}

# Integer ALU throughput relative to the FP32 (non-tensor) figure of the catalog: GA100 and GH100 SMs carry as
# many INT32 as FP32 cores (NVIDIA A100 Tensor Core GPU Architecture whitepaper 2020, H100 whitepaper 2022);
# on GA10x and AD10x one of the two datapaths runs FP32 or INT32, so INT32 is half the FP32 figure (NVIDIA
# Ampere GA102 whitepaper 2021, Ada whitepaper 2023). Dequantising kernels are integer-bound (unpack, shift).
INT_RATE_OF_FP32: Mapping[str, float] = {"ampere": 1.0, "hopper": 1.0, "blackwell": 1.0, "ada": 0.5}
CONSUMER_AMPERE_CAPABILITY = (8, 6)  # GA10x: the half-rate INT32 datapath of Ada

# Small-message all-reduce latency of 8 GPUs over NVLink/NVSwitch: Azure AI-benchmarking-guide NCCL all-reduce
# at 1 KB, 45 us on 8 x A100 (ND A100 v4) and 26 us on 8 x H100 (ND H100 v5, NVLS). Elsewhere (PCIe, network,
# other GPUs) 45 us (assumption: no faster path than A100 NVLink). Scaled by FittedConstants.latency_scale.
ALLREDUCE_LATENCY_8_GPUS_S: Mapping[str, float] = {"ampere": 45e-6, "hopper": 26e-6, "blackwell": 26e-6}
DEFAULT_ALLREDUCE_LATENCY_S = 45e-6

# Achievable share of a link's one-direction bandwidth in NCCL collectives where no measurement exists: A100
# 8-GPU all-reduce busbw 230 GB/s of 300 GB/s one-direction NVLink = 0.77 (Azure AI-benchmarking-guide, ND A100
# v4); stas00/ml-engineering's network chapter measures 234.89/300 = 78 % on A100.
LINK_EFFICIENCY = 0.77
# GeForce cards have no peer-to-peer: NCCL stages every transfer through host memory, crossing PCIe twice (NCCL
# user guide, NCCL_P2P_DISABLE / NCCL_SHM_DISABLE and its notes on PCI peer-to-peer): half the one-way rate.
NO_P2P_PENALTY = 0.5
# One 400 Gb/s InfiniBand NDR link per GPU (DGX H100: eight ConnectX-7 400 Gb/s ports for eight GPUs).
DEFAULT_INTER_NODE_BYTES_PER_S = 400e9 / 8


def architecture(gpu: GpuSpec) -> str:
    """ampere | ada | hopper | blackwell | older, from the compute capability (consumer Ampere counts as
    "ada" where only the integer datapath matters: see int_rate)."""
    major, minor = gpu.compute_capability
    if major >= 10:
        return "blackwell"
    if major == 9:
        return "hopper"
    if (major, minor) == (8, 9):
        return "ada"
    if major == 8:
        return "ampere"
    return "older"


def dtype_class(dtype: str) -> str:
    return "8" if dtype in ("fp8", "int8") else "16"


# ------------------------------------------------------------------------------------------------ fitted


@dataclass(frozen=True, slots=True)
class FittedConstants:
    """The constants fitted to published runs (planner/catalog/validation.json), with the range each may take.

    gemm_training: achieved share of the MAMF rate in training frameworks' large GEMMs, per generation (eager
      kernels, power-limited sustained clocks, wave and tile quantisation of real shapes): ampere, hopper,
      blackwell (a generation without training data takes the mean of the others);
    gemm_serving: the same share in serving engines' prefill and batched decode GEMMs;
    kv_read: decode attention's KV-cache read rate relative to a streaming copy (paged, per-sequence reads);
    kernel_s: fixed GPU time per kernel (launch, ramp-up and tail), seconds, on a GPU at REFERENCE_CLOCK_MHZ; a GPU
      with a sourced boost clock spends the same cycles (DeviceRates.kernel_scale);
    dequant_ops_per_weight: integer ALU operations a weight-only kernel spends per stored weight (unpack,
      convert, scale, multiply-add), run at the GPU's integer rate and overlapped with the weight reads;
    latency_scale: small-message collective latency relative to nccl-tests' 1 KB all-reduce figures;
    request_overhead_s: host time a request's first token waits beyond its GPU work (runtime set-up, the first
      sampling and copies); it delays the first token, not the other requests' steps;
    ridge_overlap: how much of the shorter of a kernel's compute and memory time is NOT hidden behind the
      longer one (0: the ideal roofline max(c, m); 1: c + m). Kernels near the ridge point reach neither roof;
    overlap_interference: the share of communication hidden behind compute that still slows that compute
      (NCCL's kernels occupy SMs and memory bandwidth while they run beside the GEMMs).
    """

    # The defaults are the unfitted physics (a kernel reaching the measured MAMF or copy rate, nccl-tests'
    # latency as measured, no host overhead, the ideal roofline, a four-instruction dequantisation): the prior
    # a fit starts from, and what a constant keeps when the cases that identify it are held out.
    gemm_training_ampere: float = 1.0
    gemm_training_hopper: float = 1.0
    gemm_training_blackwell: float = 1.0
    gemm_serving: float = 1.0
    kv_read: float = 1.0
    kernel_s: float = 2.0e-6
    dequant_ops_per_weight: float = 4.0
    latency_scale: float = 1.0
    request_overhead_s: float = 1e-5
    ridge_overlap: float = 0.01
    overlap_interference: float = 0.01

    # name -> (low, high): the physical range a fit may move a constant in
    BOUNDS = {
        "gemm_training_ampere": (0.3, 1.0),
        "gemm_training_hopper": (0.3, 1.0),
        "gemm_training_blackwell": (0.3, 1.0),
        "gemm_serving": (0.3, 1.0),
        "kv_read": (0.2, 1.0),
        "kernel_s": (0.5e-6, 20e-6),
        "dequant_ops_per_weight": (2.0, 40.0),
        "latency_scale": (0.2, 2.0),
        "request_overhead_s": (1e-5, 0.02),
        "ridge_overlap": (0.01, 1.0),
        "overlap_interference": (0.01, 1.0),
    }

    def gemm_training(self, generation: str, fitted: frozenset[str] | None = None) -> float:
        """The training GEMM share of `generation`; where it was not fitted (`fitted` names the generations
        that had data), the mean of those that were."""
        own = {"ampere": self.gemm_training_ampere, "hopper": self.gemm_training_hopper,
               "blackwell": self.gemm_training_blackwell}  # fmt: skip
        if generation in own and (fitted is None or generation in fitted):
            return own[generation]
        known = [value for name, value in own.items() if fitted is None or name in fitted]
        return sum(known) / len(known) if known else self.gemm_training_hopper

    def as_dict(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def replace(self, **values: float) -> FittedConstants:
        return dataclasses.replace(self, **values)


# The shipped values: planner.validation_predict.fit_constants on the 87 included cases of validation.json
# (2026-09-16 set; refit 2026-12-01 with issue 16's memory model, which changes the layouts that fit, and again
# with the serving capacity rule of planner.search.serving.fitting_sequences, which adds only a sequence's KV cache
# per running sequence, and four more TensorRT-LLM rows; the training ones again 2026-12-06, when NCCL's latency model entered
# the data-parallel collectives across nodes; all again 2026-12-07, when a kernel's fixed time became cycles at each GPU's
# boost clock; gemm_training_blackwell again 2026-12-07, when Transformer Engine's fp8 GEMM inputs entered the
# activation count and Megatron-Bridge's Llama 3.1 405B B200 layout fitted without full recompute, as it ran; at 1.0,
# its bound, before), rounded to three figures; `gpu-advisor validate --json`
# prints the refit ("fitted") beside these and tests/planner/test_validation.py checks they agree.
# gemm_training_blackwell has two cases, from one source (Megatron-Bridge B200): in cross-validation it falls back
# to the mean of the other generations.
SHIPPED = FittedConstants(
    gemm_training_ampere=0.762,
    gemm_training_hopper=0.717,
    gemm_training_blackwell=0.853,
    gemm_serving=0.809,
    kv_read=0.868,
    kernel_s=9.09e-06,
    dequant_ops_per_weight=6.33,
    latency_scale=0.2,
    request_overhead_s=0.00288,
    ridge_overlap=0.378,
    overlap_interference=0.113,
)


# ------------------------------------------------------------------------------------------------ rates


# The clock kernel_s is stated at: the A100's boost clock (NVIDIA A100 whitepaper, Table 1), the GPU of the
# batch-1 decode cases that identify it (gpt-fast). A kernel's fixed time (its launch's front end, the ramp-up of
# its first wave, its tail and the grid's completion) is counted in GPU cycles, so it scales with the clock.
REFERENCE_CLOCK_MHZ = 1410.0


@dataclass(frozen=True, slots=True)
class DeviceRates:
    """What one GPU achieves for one precision: the rates every operator time is computed from.

    matmul_flops_per_s: best large-GEMM rate (MAMF, or a probe's); attention_*: flash attention fwd / bwd;
    copy_bytes_per_s: streaming device-memory bandwidth; int_ops_per_s: integer ALU rate (dequantisation);
    allreduce_latency_s: small-message all-reduce on 8 GPUs; measured_gemms: (m, n, k) -> FLOP/s a probe
    measured at the model's own shapes; confidence and the assumptions behind each figure.
    """

    gpu_id: str
    generation: str
    dtype: str
    peak_flops_per_s: float
    matmul_flops_per_s: float
    attention_fwd_flops_per_s: float
    attention_bwd_flops_per_s: float
    copy_bytes_per_s: float
    int_ops_per_s: float
    allreduce_latency_s: float
    confidence: Confidence
    assumptions: tuple[str, ...] = ()
    measured_gemms: Mapping[tuple[int, int, int], float] | None = None
    bus_bytes_per_s: float | None = None  # a probe's measured all-reduce bus bandwidth inside the node
    flat_mfu: float | None = None  # a user-set MFU: compute at peak x MFU instead of the operator model
    kernel_scale: float = 1.0  # REFERENCE_CLOCK_MHZ / the GPU's boost clock: kernel_s x this is its time per kernel


class RatesCalibration(Protocol):
    """Measurements that replace sourced rates (planner.perf.calibration.Calibration, which builds on this
    module: device_rates asks it to apply itself rather than importing it)."""

    def applied_to(self, rates: DeviceRates) -> DeviceRates: ...


def device_rates(
    gpu: GpuSpec,
    precision: str,
    *,
    mfu: float | None = None,
    bandwidth_fraction: float | None = None,
    calibration: RatesCalibration | None = None,
) -> DeviceRates:
    """The rates of `gpu` at `precision`: sourced fractions of the datasheet, replaced by a probe's
    measurements (planner.perf.calibration.Calibration) and by what the user set (a flat MFU, a bandwidth
    fraction)."""
    dtype = compute_dtype(precision, gpu)
    peak_tflops = gpu.tflops.get(dtype)
    if peak_tflops is None:
        raise UserError.of(msg("error.no_throughput_figure", gpu=gpu.name, dtype=dtype))
    if mfu is not None and not 0 < mfu <= 1:
        raise UserError.of(msg("error.mfu_range", mfu=mfu))
    if bandwidth_fraction is not None and not 0 < bandwidth_fraction <= 1:
        raise UserError.of(msg("error.bandwidth_fraction_range", fraction=bandwidth_fraction))
    generation = architecture(gpu)
    peak = peak_tflops * 1e12
    mamf = MAMF_FRACTION.get(gpu.id, {}).get(dtype_class(dtype))
    assumptions = []
    if mamf is None:
        mamf = DEFAULT_MAMF_FRACTION[dtype_class(dtype)]
        assumptions.append(
            f"{dtype} matmul at {mamf:.0%} of spec (median of published MAMF rows; assumption)"
        )
    else:
        assumptions.append(f"{dtype} matmul at {mamf:.1%} of spec (MAMF, stas00/ml-engineering)")
    copy = COPY_FRACTION.get(gpu.id)
    if copy is None:
        copy = DEFAULT_COPY_FRACTION
        assumptions.append(f"memory copy at {copy:.0%} of spec (mean of published copy figures; assumption)")
    else:
        assumptions.append(f"memory copy at {copy:.0%} of spec (Azure AI-benchmarking-guide)")
    fwd, bwd = ATTENTION_FRACTION[generation]
    peak16 = gpu.tflops.get("bf16") or gpu.tflops.get("fp16") or peak_tflops
    # fp8 attention runs in 16-bit in the frameworks of the set (Transformer Engine keeps it bf16 by default)
    attention_peak = min(peak, peak16 * 1e12)
    int_rate = gpu.tflops.get("fp32", 0.0) * 1e12 * _int_share(gpu, generation)
    latency = ALLREDUCE_LATENCY_8_GPUS_S.get(generation, DEFAULT_ALLREDUCE_LATENCY_S)
    confidence = Confidence.CATALOG_SPEC
    rates = DeviceRates(
        gpu_id=gpu.id, generation=generation, dtype=dtype, peak_flops_per_s=peak,
        matmul_flops_per_s=peak * mamf, attention_fwd_flops_per_s=attention_peak * fwd,
        attention_bwd_flops_per_s=attention_peak * bwd, copy_bytes_per_s=gpu.memory_bandwidth_bytes_per_s * copy,
        int_ops_per_s=max(int_rate, 1e12), allreduce_latency_s=latency, confidence=confidence,
        assumptions=tuple(assumptions), kernel_scale=kernel_scale(gpu),
    )  # fmt: skip
    if calibration is not None:
        rates = calibration.applied_to(rates)
    if mfu is not None or bandwidth_fraction is not None:
        rates = _user_set(rates, gpu, mfu, bandwidth_fraction)
    return rates


def kernel_scale(gpu: GpuSpec) -> float:
    """How much longer than at REFERENCE_CLOCK_MHZ a kernel's fixed time takes on `gpu` (1 without a sourced
    boost clock)."""
    return REFERENCE_CLOCK_MHZ / gpu.boost_clock_mhz if gpu.boost_clock_mhz else 1.0


def _int_share(gpu: GpuSpec, generation: str) -> float:
    if gpu.compute_capability == CONSUMER_AMPERE_CAPABILITY:
        return 0.5
    return INT_RATE_OF_FP32.get(generation, 1.0)


def _user_set(rates: DeviceRates, gpu: GpuSpec, mfu: float | None, fraction: float | None) -> DeviceRates:
    lines = list(rates.assumptions)
    copy = rates.copy_bytes_per_s
    if fraction is not None:
        copy = gpu.memory_bandwidth_bytes_per_s * fraction
        lines.append(f"memory bandwidth at {fraction:.0%} of spec (user-set)")
    if mfu is not None:
        lines.append(f"compute at MFU {mfu:.2f} of the dense peak (user-set): replaces the operator model")
    confidence = rates.confidence if rates.confidence == Confidence.MEASURED else Confidence.USER_SET
    return dataclasses.replace(
        rates, copy_bytes_per_s=copy, flat_mfu=mfu, confidence=confidence, assumptions=tuple(lines)
    )
