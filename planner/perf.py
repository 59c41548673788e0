"""Throughput and time: FLOPs per step, compute time, communication, pipeline bubble, inference rooflines.

Every function is pure, over numbers or frozen specs; units are in the names (flops, bytes, seconds, bytes per
second). Each default below carries the source it comes from; the user can override all of them.

Confidence labels (planner.vocabulary.Confidence): a result is "measured" when a probe measured this GPU type
(planner.perf.Calibration with source "measured"), "user-set" when the user typed the rates or the MFU, and
"catalog spec" otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol

from planner.errors import UserError
from planner.gpus import GpuSpec, compute_dtype, match_nvml_name
from planner.messages import msg
from planner.vocabulary import Confidence, Layout, Offload, Recompute, Task, ZeroStage

if TYPE_CHECKING:
    from planner.models import ModelSpec

# --------------------------------------------------------------------------------------------------- defaults

# Model-FLOPs utilisation of the dense peak. Llama 3 405B trained at 38-43% BF16 MFU on 8-16K H100s
# (Dubey et al. 2024, arXiv 2407.21783, Table 4); Korthikanti et al. 2022 (arXiv 2205.05198) report 42.1% with
# full recompute and 54.2% with sequence parallel + selective recompute on 2,240 A100s; PaLM 46.2%.
# 0.40 sits at the low end of large tuned runs; small runs and PCIe boxes do worse, so the user can change it.
DEFAULT_MFU = 0.40
MFU_SOURCE = (
    "MFU 0.40: Llama 3 405B 38-43% (arXiv 2407.21783 Table 4); Korthikanti et al. 42-54% (arXiv 2205.05198)"
)

# Decode reaches roughly 70-85% of peak memory bandwidth in real engines: a streaming copy kernel is the ceiling
# (the probe measures it per GPU), and serving engines' decode kernels sit a little below it (docs/sources.md,
# "Performance": decode bandwidth fraction). An assumption the user can override (--bandwidth-fraction).
DEFAULT_BANDWIDTH_FRACTION = 0.80
BANDWIDTH_SOURCE = (
    "decode at 0.80 of peak memory bandwidth: real engines reach about 70-85% (docs/sources.md, Performance)"
)

# A matmul probe reaches about 87% (A100, 271 of 312 TFLOPS) and 80% (H100, 794 of 989) of the dense spec
# (stas00/ml-engineering, compute/accelerator: "Maximum Achievable Matmul FLOPS" table, measured with
# mamf-finder.py). A measured matmul rate is converted to the MFU scale by dividing by this typical fraction: a
# card that measures at the typical fraction gets exactly the default.
TYPICAL_MATMUL_FRACTION_OF_SPEC = 0.83

# Share of data-parallel gradient communication hidden behind backward compute (PyTorch DDP and ZeRO bucket and
# overlap it). Assumption: half exposed is a conservative middle; tensor-parallel all-reduces are never hidden.
DEFAULT_COMM_OVERLAP = 0.5

# One 400 Gb/s InfiniBand NDR link per GPU (DGX H100: eight ConnectX-7 400 Gb/s ports for eight GPUs):
# 50 GB/s per GPU per direction.
DEFAULT_INTER_NODE_BYTES_PER_S = 400e9 / 8
INTER_NODE_SOURCE = (
    "inter-node: one 400 Gb/s InfiniBand link per GPU (DGX H100 design), 50 GB/s per direction"
)

# Achievable share of a link's one-direction bandwidth in NCCL collectives where no measurement exists:
# A100 8-GPU all-reduce busbw 230 GB/s of 300 GB/s one-direction NVLink = 0.77 (Azure AI-benchmarking-guide,
# https://github.com/Azure/AI-benchmarking-guide, NCCL all-reduce results). Used for NVLink, PCIe and the
# network alike.
LINK_EFFICIENCY = 0.77
# GeForce cards have no peer-to-peer: NCCL's SHM transport stages every transfer through host memory, so data
# crosses PCIe twice (NCCL user guide, "Environment variables": NCCL_P2P_DISABLE / NCCL_SHM_DISABLE, and its
# troubleshooting notes on PCI peer-to-peer); half the one-way PCIe rate.
NO_P2P_PENALTY = 0.5

# Fixed cost per collective call (launch + synchronisation). Assumption of the order nccl-tests shows for small
# messages: about 10 us inside an NVLink domain, 25 us over PCIe or the network. Matters for decode, where each
# layer's all-reduce moves only kilobytes.
COLLECTIVE_LATENCY_NVLINK_S = 10e-6
COLLECTIVE_LATENCY_OTHER_S = 25e-6

# CPU Adam throughput per GPU's share of the host (parameters updated per second) for optimizer offload.
# Assumption (order of magnitude of DeepSpeed's CPU-Adam on a modern server socket shared by 8 GPUs).
CPU_ADAM_PARAMS_PER_S = 1.0e9

BYTES_PER_ELEMENT = {"fp32": 4.0, "tf32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5}


# ------------------------------------------------------------------------------------------------ calibration


@dataclass(frozen=True, slots=True)
class Calibration:
    """Rates for one GPU type that replace "spec x default fraction".

    tflops: achieved dense TFLOPS per dtype (a probe's best matmul); memory_bandwidth_bytes_per_s: achieved
    device memory bandwidth; source: "measured" (a probe) or "user-set" (typed by the user).
    """

    tflops: Mapping[str, float]
    memory_bandwidth_bytes_per_s: float
    source: Confidence = Confidence.MEASURED
    note: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "source", Confidence.parse(self.source, msg("choice.calibration_source")))
        object.__setattr__(self, "tflops", MappingProxyType(dict(self.tflops)))


class ProbeMeasurements(Protocol):
    """What calibration reads of a probe report (profiler.report.ProbeReport has it): its devices, each a
    mapping with "kind", "name" and "device", and the best measured value of a kind, dtype and device."""

    @property
    def devices(self) -> Sequence[Mapping[str, object]]: ...

    def best(self, kind: str, dtype: str | None = None, device: str | None = None) -> float | None: ...


MATMUL_DTYPES = ("fp32", "tf32", "bf16", "fp16", "fp8")


def calibration_from_report(
    report: ProbeMeasurements, extra_gpus: Iterable[GpuSpec] = ()
) -> dict[str, Calibration]:
    """gpu id -> Calibration for each CUDA device of a probe report whose name matches a catalog GPU; devices
    of the same type keep the best figures."""
    found: dict[str, Calibration] = {}
    extra = tuple(extra_gpus)
    for device in report.devices:
        if device.get("kind") != "cuda":
            continue
        name = str(device.get("name", ""))
        gpu = match_nvml_name(name, extra)
        if gpu is None:
            continue
        measured = _device_calibration(report, str(device.get("device")), f"probe of {name}")
        if measured is not None:
            found[gpu.id] = _best_of(found.get(gpu.id), measured)
    return found


def _device_calibration(report: ProbeMeasurements, device: str, note: str) -> Calibration | None:
    """The best matmul TFLOPS per dtype and memory bandwidth one device measured (None: nothing measured)."""
    tflops = {}
    for dtype in MATMUL_DTYPES:
        value = report.best("matmul", dtype, device=device)
        if value:
            tflops[dtype] = value / 1e12
    bandwidth = report.best("memory_bandwidth", None, device=device) or 0.0
    if not tflops and not bandwidth:
        return None
    return Calibration(tflops, bandwidth, Confidence.MEASURED, note)


def _best_of(previous: Calibration | None, current: Calibration) -> Calibration:
    """Two devices of one GPU type: each figure at its best (the note names the later device)."""
    if previous is None:
        return current
    dtypes = {**previous.tflops, **current.tflops}
    tflops = {k: max(current.tflops.get(k, 0.0), previous.tflops.get(k, 0.0)) for k in dtypes}
    bandwidth = max(current.memory_bandwidth_bytes_per_s, previous.memory_bandwidth_bytes_per_s)
    return Calibration(tflops, bandwidth, Confidence.MEASURED, current.note)


@dataclass(frozen=True, slots=True)
class Rates:
    """The rates a time estimate uses for one GPU, and where they come from."""

    flops_per_s: float  # achievable model FLOP/s per GPU (peak x MFU, or measured scaled the same way)
    bandwidth_bytes_per_s: float  # achievable memory bandwidth per GPU (decode)
    peak_flops_per_s: float
    confidence: Confidence
    assumptions: tuple[str, ...] = ()


def effective_rates(
    gpu: GpuSpec,
    precision: str,
    *,
    mfu: float | None = None,
    bandwidth_fraction: float | None = None,
    calibration: Calibration | None = None,
) -> Rates:
    """Achievable FLOP/s and bandwidth per GPU for `precision` on `gpu`.

    Catalog: dense peak x MFU and peak bandwidth x achievable fraction. Measured: the probe's matmul rate x
    MFU / TYPICAL_MATMUL_FRACTION_OF_SPEC (a card measuring at the typical fraction lands on the default) and
    the probe's bandwidth as it is (a copy kernel reaches what decode reaches). A user-set MFU or fraction turns
    the label to "user-set" unless a measurement backs the rates.
    """
    dtype = compute_dtype(precision, gpu)
    peak_tflops = gpu.tflops.get(dtype)
    if peak_tflops is None:
        raise UserError.of(msg("error.no_throughput_figure", gpu=gpu.name, dtype=dtype))
    if mfu is not None and not 0 < mfu <= 1:
        raise UserError.of(msg("error.mfu_range", mfu=mfu))
    if bandwidth_fraction is not None and not 0 < bandwidth_fraction <= 1:
        raise UserError.of(msg("error.bandwidth_fraction_range", fraction=bandwidth_fraction))
    user_set = mfu is not None or bandwidth_fraction is not None
    mfu_value = DEFAULT_MFU if mfu is None else mfu
    fraction = DEFAULT_BANDWIDTH_FRACTION if bandwidth_fraction is None else bandwidth_fraction
    assumptions = [MFU_SOURCE if mfu is None else f"MFU {mfu_value:.2f} (user-set)"]
    flops = peak_tflops * 1e12 * mfu_value
    bandwidth = gpu.memory_bandwidth_bytes_per_s * fraction
    confidence = Confidence.USER_SET if user_set else Confidence.CATALOG_SPEC
    measured_tflops = calibration.tflops.get(dtype) if calibration else None
    if calibration and measured_tflops:
        flops = measured_tflops * 1e12 * mfu_value / TYPICAL_MATMUL_FRACTION_OF_SPEC
        assumptions.append(
            f"{dtype} matmul {measured_tflops:.0f} TFLOPS ({calibration.source}) x MFU / "
            f"{TYPICAL_MATMUL_FRACTION_OF_SPEC} typical matmul fraction of spec"
        )
        confidence = calibration.source
    if calibration and calibration.memory_bandwidth_bytes_per_s > 0:
        bandwidth = calibration.memory_bandwidth_bytes_per_s
        assumptions.append(f"memory bandwidth {bandwidth / 1e9:.0f} GB/s ({calibration.source})")
        confidence = calibration.source
    else:
        assumptions.append(
            BANDWIDTH_SOURCE if bandwidth_fraction is None else f"bandwidth fraction {fraction} (user-set)"
        )
    return Rates(flops, bandwidth, peak_tflops * 1e12, confidence, tuple(assumptions))


# ------------------------------------------------------------------------------------------------ training FLOPs


@dataclass(frozen=True, slots=True)
class ModelNumbers:
    """Per-model figures the time model needs, computed once per search (counts, not bytes).

    matmul_params: active parameters that do a matmul per token (the input embedding is a lookup, not a matmul;
    a tied embedding still works as the output head). attention_width: heads x query/key head dim.
    """

    total_params: int
    active_params: int
    matmul_params: int
    expert_params: int  # routed-expert parameters, all layers (sharded by ep)
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    attention_width: int
    vocab: int
    experts_per_token: int
    moe_layers: int
    lora_params: int


def model_numbers(model: ModelSpec, lora_rank: int = 16) -> ModelNumbers:
    """Figures from a planner.models.ModelSpec (param_counts for the exact split)."""
    from planner.models import param_counts

    counts = param_counts(model)
    active = model.active_params
    embedding_lookup = 0 if model.tied_embeddings else counts.embedding
    head_dim = (model.qk_nope_head_dim + model.qk_rope_head_dim) if model.uses_mla else model.head_dim
    expert_params = model.moe_layers * model.experts * counts.routed_expert if model.is_moe else 0
    q_width = model.heads * (model.head_dim or head_dim)
    kv_width = model.kv_heads * (model.head_dim or head_dim)
    # LoRA on q, k, v, o: r x (d_in + d_out) per adapted matrix (Hu et al. 2021, arXiv 2106.09685, section 4.1).
    lora_per_layer = lora_rank * ((model.hidden + q_width) * 2 + (model.hidden + kv_width) * 2)
    return ModelNumbers(
        total_params=model.total_params,
        active_params=active,
        matmul_params=max(1, active - embedding_lookup),
        expert_params=expert_params,
        layers=model.layers,
        hidden=model.hidden,
        heads=model.heads,
        kv_heads=model.kv_heads,
        attention_width=model.heads * head_dim,
        vocab=model.vocab,
        experts_per_token=max(1, model.experts_per_token),
        moe_layers=model.moe_layers,
        lora_params=model.layers * lora_per_layer,
    )


# FLOPs per (parameter x token) by pass: forward 2, backward 4 (activation grads 2 + weight grads 2).
FORWARD_FLOPS_PER_PARAM = 2
BACKWARD_FLOPS_PER_PARAM = 4


def training_flops_per_token(
    matmul_params: float,
    layers: int,
    seq_len: int,
    attention_width: int,
    recompute: Recompute = Recompute.NONE,
    adapters_only: bool = False,
) -> float:
    """Executed FLOPs per trained token: 6 x P (2 forward + 4 backward) plus attention 12 x L x s x width.

    The attention term is QK^T and scores x V (2 x 2 x s x width per layer forward, 3x with backward), the
    s/(6h) term of Narayanan et al. 2021. Full recompute repeats the forward: 8 x P (+ 16 L s width);
    selective recompute repeats only the attention scores. LoRA/QLoRA (adapters_only) skip the frozen weights'
    gradients: 4 x P (2 forward + 2 activation-gradient), the attention backward still runs.
    """
    recompute = Recompute.parse(recompute)
    attention_forward = 4 * layers * seq_len * attention_width
    backward_per_param = 2 if adapters_only else BACKWARD_FLOPS_PER_PARAM
    flops = (FORWARD_FLOPS_PER_PARAM + backward_per_param) * matmul_params + 3 * attention_forward
    if recompute == Recompute.FULL:
        flops += FORWARD_FLOPS_PER_PARAM * matmul_params + attention_forward
    elif recompute == Recompute.SELECTIVE:
        flops += attention_forward
    return float(flops)


def narayanan_flops_per_step(batch: int, seq_len: int, layers: int, hidden: int, vocab: int) -> float:
    """Narayanan et al. 2021 (arXiv 2104.04473) dense GPT form, no recompute: 72 B s L h^2 (1 + s/6h + V/12Lh).

    A cross-check for training_flops_per_token on a GPT-shaped model (ffn = 4h, no GQA, tied embeddings).
    """
    return (
        72.0
        * batch
        * seq_len
        * layers
        * hidden**2
        * (1 + seq_len / (6 * hidden) + vocab / (12 * layers * hidden))
    )


# -------------------------------------------------------------------------------------------- communication


def allreduce_time_s(size_bytes: float, ranks: int, bus_bytes_per_s: float, latency_s: float = 0.0) -> float:
    """Ring all-reduce: each rank sends and receives 2(n-1)/n x S (nccl-tests doc/PERFORMANCE.md)."""
    if ranks <= 1 or size_bytes <= 0:
        return 0.0
    return 2 * (ranks - 1) / ranks * size_bytes / bus_bytes_per_s + latency_s


def allgather_time_s(size_bytes: float, ranks: int, bus_bytes_per_s: float, latency_s: float = 0.0) -> float:
    """All-gather or reduce-scatter of a full buffer of S bytes: (n-1)/n x S per rank (nccl-tests)."""
    if ranks <= 1 or size_bytes <= 0:
        return 0.0
    return (ranks - 1) / ranks * size_bytes / bus_bytes_per_s + latency_s


reduce_scatter_time_s = allgather_time_s


def alltoall_time_s(size_bytes: float, ranks: int, bus_bytes_per_s: float, latency_s: float = 0.0) -> float:
    """All-to-all of S bytes per rank: (n-1)/n x S leaves each rank (MoE token dispatch and combine)."""
    return allgather_time_s(size_bytes, ranks, bus_bytes_per_s, latency_s)


def intra_node_bus_bytes_per_s(gpu: GpuSpec, group: int) -> float:
    """Achievable collective bandwidth per GPU for `group` GPUs inside one node.

    NVLink when the whole group sits in one NVLink domain: the published 8-GPU all-reduce busbw where the
    catalog has one, else LINK_EFFICIENCY x one-direction NVLink. Otherwise PCIe (one direction), halved for
    cards without peer-to-peer.
    """
    if gpu.nvlink_bytes_per_s > 0 and group <= gpu.nvlink_domain:
        if gpu.allreduce_busbw_bytes_per_s > 0:
            return gpu.allreduce_busbw_bytes_per_s
        return gpu.nvlink_bytes_per_s / 2 * LINK_EFFICIENCY
    pcie = gpu.pcie_bytes_per_s / 2 * LINK_EFFICIENCY
    return pcie if gpu.p2p else pcie * NO_P2P_PENALTY


def group_bus_bytes_per_s(
    gpu: GpuSpec, group: int, span_gpus: int, gpus_per_node: int, inter_node_bytes_per_s: float
) -> tuple[float, float]:
    """(bus bandwidth, per-call latency) for a group of `group` ranks spread over `span_gpus` consecutive GPUs.

    A group inside one node uses the node's links; one that crosses nodes is limited by the network per GPU.
    """
    if span_gpus <= gpus_per_node:
        inside_nvlink = gpu.nvlink_bytes_per_s > 0 and span_gpus <= gpu.nvlink_domain
        latency = COLLECTIVE_LATENCY_NVLINK_S if inside_nvlink else COLLECTIVE_LATENCY_OTHER_S
        return intra_node_bus_bytes_per_s(gpu, span_gpus), latency
    network = inter_node_bytes_per_s * LINK_EFFICIENCY
    return min(network, intra_node_bus_bytes_per_s(gpu, gpus_per_node)), COLLECTIVE_LATENCY_OTHER_S


def pipeline_bubble_fraction(pp: int, microbatches: int) -> float:
    """Idle share of a 1F1B/GPipe pipeline: (p-1)/(m+p-1) (Narayanan et al. 2021)."""
    if pp <= 1:
        return 0.0
    return (pp - 1) / (microbatches + pp - 1)


# ------------------------------------------------------------------------------------------------ step time


@dataclass(frozen=True, slots=True)
class StepTime:
    """Seconds per optimizer step, by cause, and the tokens per second that follow."""

    compute_s: float
    bubble_s: float
    tp_comm_s: float
    dp_comm_s: float
    ep_comm_s: float
    offload_s: float
    flops_per_step: float
    tokens_per_step: int
    microbatches: int
    confidence: Confidence
    assumptions: tuple[str, ...] = ()
    breakdown: Mapping[str, float] = field(default_factory=dict)

    @property
    def step_time_s(self) -> float:
        return (
            self.compute_s + self.bubble_s + self.tp_comm_s + self.dp_comm_s + self.ep_comm_s + self.offload_s
        )

    @property
    def tokens_per_s(self) -> float:
        return self.tokens_per_step / self.step_time_s


def training_step_time(
    numbers: ModelNumbers,
    gpu: GpuSpec,
    layout: Layout,
    *,
    seq_len: int,
    global_batch: int,
    rates: Rates,
    task: Task = Task.PRETRAIN,
    precision: str = "bf16",
    comm_overlap: float | None = None,
    gpus_per_node: int | None = None,
    inter_node_bytes_per_s: float | None = None,
) -> StepTime:
    """Seconds for one optimizer step of `global_batch` sequences of `seq_len` tokens on dp x tp x pp GPUs.

    compute: executed FLOPs / (GPUs x achievable FLOP/s); bubble: compute x (p-1)/m; tensor parallel: 4
    all-reduces of b x s x h 16-bit activations per layer per micro-batch (6 with full recompute), never hidden;
    data parallel: gradient all-reduce 2(n-1)/n x S (ZeRO-1/2 reduce-scatter + all-gather: the same volume;
    ZeRO-3 adds a parameter all-gather: 1.5x), (1 - overlap) exposed; expert parallel: 4 all-to-alls per MoE
    layer per micro-batch; offload: PCIe transfers and CPU Adam per step.
    """
    overlap = DEFAULT_COMM_OVERLAP if comm_overlap is None else comm_overlap
    if not 0 <= overlap <= 1:
        raise UserError.of(msg("error.comm_overlap_range", overlap=overlap))
    per_node = gpus_per_node or gpu.gpus_per_node
    network = inter_node_bytes_per_s or DEFAULT_INTER_NODE_BYTES_PER_S
    gpus = layout.gpus
    adapters_only = Task.parse(task).is_adapter
    tokens_per_step = global_batch * seq_len
    flops_per_token = training_flops_per_token(
        numbers.matmul_params,
        numbers.layers,
        seq_len,
        numbers.attention_width,
        layout.recompute,
        adapters_only,
    )
    flops_per_step = flops_per_token * tokens_per_step
    # A pipeline runs at the pace of its fullest stage: ceil(L / p) layers where L / p would be even.
    stage_layers = math.ceil(numbers.layers / layout.pp)
    imbalance = stage_layers * layout.pp / numbers.layers if layout.pp > 1 else 1.0
    compute_s = flops_per_step / (gpus * rates.flops_per_s) * imbalance
    microbatches = max(1, global_batch // (layout.dp * layout.micro_batch))
    bubble_s = compute_s * (layout.pp - 1) / microbatches if layout.pp > 1 else 0.0
    activation_bytes = BYTES_PER_ELEMENT.get(precision if precision in ("fp32",) else "bf16", 2.0)

    # Tensor parallel: innermost ranks (stride 1).
    tp_comm_s = 0.0
    if layout.tp > 1:
        bw, latency = group_bus_bytes_per_s(gpu, layout.tp, layout.tp, per_node, network)
        message = layout.micro_batch * seq_len * numbers.hidden * activation_bytes
        calls = 4 + (2 if layout.recompute == Recompute.FULL else 0)
        per_microbatch = (
            (stage_layers if layout.pp > 1 else numbers.layers)
            * calls
            * allreduce_time_s(message, layout.tp, bw, latency)
        )
        tp_comm_s = microbatches * per_microbatch

    # Data parallel: ranks at stride tp; the gradients each rank holds belong to its tp x pp shard.
    dp_comm_s = 0.0
    if layout.dp > 1:
        bw, latency = group_bus_bytes_per_s(gpu, layout.dp, layout.dp * layout.tp, per_node, network)
        trainable = numbers.lora_params if adapters_only else numbers.total_params
        expert_share = 0 if adapters_only else numbers.expert_params * (1 - 1 / layout.ep)
        grad_bytes = (
            (trainable - expert_share) / (layout.tp * layout.pp) * (4.0 if precision == "fp32" else 2.0)
        )
        volume = 1.5 if layout.zero == ZeroStage.WEIGHTS else 1.0
        dp_comm_s = (1 - overlap) * volume * allreduce_time_s(grad_bytes, layout.dp, bw, latency)

    # Expert parallel: token dispatch and combine, forward and backward.
    ep_comm_s = 0.0
    if layout.ep > 1 and numbers.moe_layers:
        bw, latency = group_bus_bytes_per_s(gpu, layout.ep, layout.ep * layout.tp, per_node, network)
        message = layout.micro_batch * seq_len * numbers.hidden * activation_bytes * numbers.experts_per_token
        per_microbatch = (
            (numbers.moe_layers / layout.pp) * 4 * alltoall_time_s(message, layout.ep, bw, latency)
        )
        ep_comm_s = microbatches * per_microbatch

    offload_s = offload_time_s(numbers, gpu, layout, microbatches, adapters_only)
    breakdown = {
        "compute_s": compute_s,
        "pipeline_bubble_s": bubble_s,
        "tp_comm_s": tp_comm_s,
        "dp_comm_s": dp_comm_s,
        "ep_comm_s": ep_comm_s,
        "offload_s": offload_s,
    }
    return StepTime(
        compute_s=compute_s,
        bubble_s=bubble_s,
        tp_comm_s=tp_comm_s,
        dp_comm_s=dp_comm_s,
        ep_comm_s=ep_comm_s,
        offload_s=offload_s,
        flops_per_step=flops_per_step,
        tokens_per_step=tokens_per_step,
        microbatches=microbatches,
        confidence=rates.confidence,
        assumptions=rates.assumptions,
        breakdown=MappingProxyType(breakdown),
    )


def offload_time_s(
    numbers: ModelNumbers,
    gpu: GpuSpec,
    layout: Layout,
    microbatches: int,
    adapters_only: bool = False,
) -> float:
    """Exposed seconds per step that CPU offload adds (ZeRO-Offload / ZeRO-Infinity style).

    optimizer: 16-bit gradients go down and 16-bit parameters come back over PCIe (one direction each, the
    two overlap), plus CPU Adam over this rank's shard. all: parameters also stream up for every forward and
    backward of every micro-batch.
    """
    if layout.offload == Offload.NONE:
        return 0.0
    trainable = numbers.lora_params if adapters_only else numbers.total_params
    shard = trainable / (layout.tp * layout.pp * (layout.dp if layout.zero >= 1 else 1))
    pcie = gpu.pcie_bytes_per_s / 2 * LINK_EFFICIENCY
    seconds = shard * 2 / pcie + shard / CPU_ADAM_PARAMS_PER_S
    if layout.offload == Offload.ALL:
        params_per_rank = numbers.total_params / (layout.tp * layout.pp)
        seconds += microbatches * 2 * params_per_rank * 2 / pcie
    return seconds


def offload_assumption() -> str:
    return (
        f"offload: PCIe at {LINK_EFFICIENCY} of one direction; CPU Adam {CPU_ADAM_PARAMS_PER_S:.0e} parameters/s "
        "per GPU (assumption)"
    )


# ------------------------------------------------------------------------------------------------ inference


@dataclass(frozen=True, slots=True)
class InferenceTime:
    """Serving figures for one replica (tp x pp GPUs) at `batch` concurrent sequences."""

    batch: int
    ttft_s: float  # time to first token for one prompt (prefill)
    tpot_s: float  # time per output token (one decode step of the whole batch)
    tokens_per_s: float  # output tokens per second of the replica (batch / tpot)
    decode_bound: str  # "memory bandwidth" | "compute"
    confidence: Confidence
    assumptions: tuple[str, ...] = ()


def decode_time_per_token_s(
    weight_bytes_per_gpu: float,
    kv_bytes_read_per_gpu: float,
    bandwidth_bytes_per_s: float,
    flops_per_gpu: float = 0.0,
    achievable_flops_per_s: float = math.inf,
) -> float:
    """One decode step: the larger of reading weights + KV once (roofline) and the matmul FLOPs, in seconds."""
    memory_s = (weight_bytes_per_gpu + kv_bytes_read_per_gpu) / bandwidth_bytes_per_s
    return max(memory_s, flops_per_gpu / achievable_flops_per_s)


def prefill_flops(active_params: float, layers: int, attention_width: int, prompt_len: int) -> float:
    """Forward FLOPs of one prompt: 2 x P per token plus attention 4 x L x s x width per token (causal: /2)."""
    attention_per_token = 4 * layers * attention_width * prompt_len / 2
    return prompt_len * (2 * active_params + attention_per_token)


def inference_time(
    numbers: ModelNumbers,
    gpu: GpuSpec,
    *,
    tp: int,
    pp: int,
    batch: int,
    prompt_len: int,
    output_len: int,
    weight_bytes_total: float,
    kv_bytes_per_token_total: float,
    rates: Rates,
    gpus_per_node: int | None = None,
    inter_node_bytes_per_s: float | None = None,
) -> InferenceTime:
    """TTFT, TPOT and tokens/s of one replica.

    Decode: every step reads this GPU's weights and the KV cache of the whole batch at the mean context
    (prompt + half the output) at the achievable bandwidth, or is compute-bound at 2 x active params x batch
    FLOPs, whichever is slower; pipeline stages run one after another for a token; tensor parallel adds 2
    all-reduces per layer of batch x h 16-bit values (latency-bound). Prefill: compute-bound at the
    achievable FLOP/s, and never faster than one read of the weights.
    """
    if batch < 1:
        raise UserError.of(msg("error.batch_positive"))
    gpus = tp * pp
    per_node = gpus_per_node or gpu.gpus_per_node
    network = inter_node_bytes_per_s or DEFAULT_INTER_NODE_BYTES_PER_S
    weights_per_gpu = weight_bytes_total / gpus
    mean_context = prompt_len + output_len / 2
    kv_per_gpu = batch * mean_context * kv_bytes_per_token_total / gpus
    decode_flops_per_gpu = 2 * numbers.active_params * batch / gpus
    stage_s = decode_time_per_token_s(weights_per_gpu, kv_per_gpu, rates.bandwidth_bytes_per_s,
                                      decode_flops_per_gpu, rates.flops_per_s)  # fmt: skip
    memory_s = (weights_per_gpu + kv_per_gpu) / rates.bandwidth_bytes_per_s
    bound = "memory bandwidth" if memory_s >= decode_flops_per_gpu / rates.flops_per_s else "compute"
    tp_s = 0.0
    if tp > 1:
        bw, latency = group_bus_bytes_per_s(gpu, tp, tp, per_node, network)
        message = batch * numbers.hidden * 2
        tp_s = 2 * (numbers.layers / pp) * allreduce_time_s(message, tp, bw, latency)
    pp_s = 0.0
    if pp > 1:
        _bw, latency = group_bus_bytes_per_s(gpu, 2, tp * pp, per_node, network)
        pp_s = (pp - 1) * latency
    # Stages process a token one after another; each stage holds 1/pp of the layers (and of the bytes).
    tpot = pp * (stage_s + tp_s) + pp_s
    # One prompt visits the stages in turn, so only tp GPUs compute at any moment.
    prefill_s = prefill_flops(numbers.active_params, numbers.layers, numbers.attention_width, prompt_len) / (
        tp * rates.flops_per_s
    )
    ttft = max(prefill_s, weights_per_gpu * pp / rates.bandwidth_bytes_per_s) + pp * tp_s + pp_s
    return InferenceTime(
        batch=batch,
        ttft_s=ttft,
        tpot_s=tpot,
        tokens_per_s=batch / tpot,
        decode_bound=bound,
        confidence=rates.confidence,
        assumptions=rates.assumptions,
    )


def max_concurrent_sequences(
    memory_bytes: int, bytes_at_one_sequence: int, kv_bytes_per_sequence: float
) -> int:
    """How many sequences' KV caches fit: (GPU memory - everything but one sequence's KV) / KV per sequence."""
    if kv_bytes_per_sequence <= 0:
        return 0
    free = memory_bytes - (bytes_at_one_sequence - kv_bytes_per_sequence)
    return max(0, int(free // kv_bytes_per_sequence))
