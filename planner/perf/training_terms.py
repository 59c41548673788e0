"""The terms of a training step's time that StepModel and its per-shape StepContext share: the options a
framework decides (TrainingOptions), the step's breakdown (StepTime), one micro-batch by part (MicroBatch),
one layer's seconds (LayerTerms), the GPU-independent GEMM work of one search (SharedWork), and the CPU-offload
term."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from planner.gpus import GpuSpec
from planner.models import ModelSpec
from planner.perf.compute import (
    GemmWork,
    LayerGemmWork,
    LayerShape,
    layer_gemm_work,
    sized_gemm_work,
)
from planner.perf.efficiencies import (
    LINK_EFFICIENCY,
)
from planner.perf.flops import ModelNumbers
from planner.vocabulary import Layout, Offload

ACTIVATION_BYTES = 2.0
GRADIENT_BYTES = 2.0  # gradients reduced in bf16 (FSDP mixed precision, Megatron with bf16 reduce)
NF4_BITS = 4.127  # QLoRA NF4 with double quantisation (Dettmers et al. 2023, arXiv 2305.14314, section 3)

# CPU Adam throughput per GPU's share of the host (parameters updated per second) for optimizer offload.
# Assumption (order of magnitude of DeepSpeed's CPU-Adam on a server socket shared by 8 GPUs; Ren et al.,
# "ZeRO-Offload", arXiv 2101.06840).
CPU_ADAM_PARAMS_PER_S = 1.0e9
# Share of data-parallel gradient communication a user may state as hidden (Workload.comm_overlap): when set,
# it replaces the overlap model below.


@dataclass(frozen=True, slots=True)
class TrainingOptions:
    """What a layout does not say but a framework decides.

    virtual_stages: model chunks per pipeline rank (interleaved 1F1B); context_parallel: ranks one sequence is
    split over (they are data-parallel ranks of the layout: layout.dp counts them); sequence_parallel: the norm
    and residual region split over tp (None: on whenever tp > 1, as Megatron-Core and NeMo run it);
    tp_comm_overlap: tensor-parallel collectives overlapped with the GEMMs (Megatron-Core --tp-comm-overlap);
    optimizer: adamw | adamw8bit | sgd; lora_rank: adapter rank (LoRA / QLoRA); flash_attention: False for
    frameworks without it (scores materialised, planner.perf.compute.unfused_attention_seconds);
    ep_per_node_dispatch: MoE tokens sent once per node and forwarded over NVLink (DeepEP); ep_comm_overlap: the
    expert all-to-all run behind another micro-batch's compute (planner.perf.expert_parallel); runtime: the
    runtime whose data-parallel gradient reduction is timed (planner.perf.gradient_reduction): "" none named (the
    runtime-neutral reduction the validation cases are timed with), "auto" the one the plan search chooses for each
    layout (planner.memory.runtimes.chosen_runtime), or a pinned Runtime value; moe_capacity_factor: None for
    dropless routing (every runtime the plans export: DeepSpeed AutoEP, torchtitan), else the capacity factor C of
    a token-dropping runtime, whose experts run padded to C x their mean load (planner.perf.expert_parallel).
    """

    virtual_stages: int = 1
    context_parallel: int = 1
    sequence_parallel: bool | None = None
    tp_comm_overlap: bool = False
    optimizer: str = "adamw"
    lora_rank: int = 16
    flash_attention: bool = True
    ep_per_node_dispatch: bool = False
    ep_comm_overlap: bool = False
    runtime: str = ""
    moe_capacity_factor: float | None = None


DEFAULT_OPTIONS = TrainingOptions()


@dataclass(frozen=True, slots=True)
class StepTime:
    """Seconds per optimizer step, by cause, and the tokens per second and MFU that follow.

    compute_s: micro-batches x (forward + backward + recompute) of the fullest stage; bubble_s: pipeline idle;
    tp/dp/ep/cp_comm_s: exposed communication; optimizer_s: the optimizer step; offload_s: CPU offload.
    breakdown: the same and the parts of compute (GEMMs, attention, memory-bound ops, loss), seconds per step.
    """

    compute_s: float
    bubble_s: float
    tp_comm_s: float
    dp_comm_s: float
    ep_comm_s: float
    offload_s: float
    flops_per_step: float
    tokens_per_step: int
    microbatches: int
    confidence: str
    assumptions: tuple[str, ...] = ()
    breakdown: Mapping[str, float] = field(default_factory=dict)
    optimizer_s: float = 0.0
    cp_comm_s: float = 0.0
    gpus: int = 1
    peak_flops_per_s: float = 0.0

    @property
    def step_time_s(self) -> float:
        return (
            self.compute_s
            + self.bubble_s
            + self.tp_comm_s
            + self.dp_comm_s
            + self.ep_comm_s
            + self.cp_comm_s
            + self.optimizer_s
            + self.offload_s
        )

    @property
    def tokens_per_s(self) -> float:
        return self.tokens_per_step / self.step_time_s

    @property
    def mfu(self) -> float:
        """Model FLOPs (6 x matmul parameters + attention, no recompute) per second over the dense peak."""
        if not self.peak_flops_per_s:
            return 0.0
        return self.flops_per_step / (self.step_time_s * self.gpus * self.peak_flops_per_s)


@dataclass(frozen=True, slots=True)
class MicroBatch:
    """One micro-batch on the fullest stage, seconds by part."""

    gemm_s: float
    attention_s: float
    memory_s: float
    loss_s: float
    dequant_s: float
    forward_s: float
    backward_s: float
    tp_s: float
    ep_s: float
    cp_s: float
    fsdp_s: float
    # the sums, worked out once (the search reads total_s of one micro-batch at every dp it times)
    compute_s: float = field(init=False)
    total_s: float = field(init=False)

    def __post_init__(self) -> None:
        compute = self.gemm_s + self.attention_s + self.memory_s + self.loss_s + self.dequant_s
        object.__setattr__(self, "compute_s", compute)
        object.__setattr__(self, "total_s", compute + self.tp_s + self.ep_s + self.cp_s + self.fsdp_s)


@dataclass(frozen=True, slots=True)
class LayerTerms:
    """Forward seconds of one layer (dense and MoE GEMMs, attention, memory-bound ops), the LM head and the
    loss, and the attention backward, for one micro-batch: they depend on tp, ep, the micro-batch and cp only,
    so every pipeline depth and recompute mode scales the same terms by its stage's layers."""

    dense_gemm_s: float
    moe_gemm_s: float
    head_s: float
    attention_forward_s: float
    attention_backward_s: float
    memory_s: float
    loss_s: float


class LayerWork(NamedTuple):
    dense: LayerGemmWork
    moe: LayerGemmWork | None  # None: a model without MoE layers
    head: GemmWork


class SharedWork:
    """The GPU-independent work of one layer for one micro-batch at (tp, ep, micro-batch, context-parallel
    ranks): its GEMMs' FLOPs and bytes (planner.perf.compute.layer_gemm_work) and the LM head's. The StepModels
    of one search (one per GPU type, the same model and sequence length) share one: each converts the work to
    seconds at its own rates, with the arithmetic gemm_seconds uses (compute.work_seconds), so a StepModel
    with a shared one times every layout exactly as one with its own."""

    def __init__(self, model: ModelSpec, seq_len: int):
        self.model, self.seq_len = model, seq_len
        self.layers: dict[tuple[int, int, int, int, float], LayerWork] = {}

    def layer(
        self,
        tp: int,
        ep: int,
        micro_batch: int,
        cp: int,
        shape: LayerShape,
        tokens: float,
        expert_load: float = 1.0,
    ) -> LayerWork:
        """The work at (tp, ep, micro-batch, cp), of `shape` (layer_shape at tp, ep) and `tokens` rows; the routed
        experts' rows times expert_load (the busiest rank's share, planner.perf.expert_parallel)."""
        key = (tp, ep, micro_batch, cp, expert_load)
        found = self.layers.get(key)
        if found is None:
            moe = (
                layer_gemm_work(shape, tokens, moe=True, expert_load=expert_load)
                if self.model.moe_layers
                else None
            )
            head = sized_gemm_work(tokens, shape.vocab_shard, shape.hidden)
            found = self.layers[key] = LayerWork(layer_gemm_work(shape, tokens, moe=False), moe, head)
        return found


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
