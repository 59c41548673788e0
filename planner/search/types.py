"""What the strategy search takes and gives: the workload, the limits, one ranked option, what was left out,
and the whole result (frozen dataclasses; `as_dict` is the `gpu-advisor plan --json` shape)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from planner.gpus import GpuSpec
from planner.limits import LIMITS
from planner.messages import Message, render_all_en
from planner.money import Money
from planner.perf.communication import Fabric
from planner.scale.goodput import Resilience
from planner.uncertainty import ErrorBand
from planner.vocabulary import Confidence, Layout, Optimizer, Precision, RankBy, Runtime, Task

if TYPE_CHECKING:  # annotations only: planner.memory and planner.perf are imported where estimates are made
    from planner.memory import MemoryBreakdown
    from planner.perf import BatchingLoss
    from planner.scale import Goodput, ReplicaFailure

DEFAULT_MAX_GPUS = 4096
# Share of each GPU's memory a plan leaves free: the CUDA context, the caching allocator's fragmentation and
# NCCL's buffers live there. vLLM reserves the same by default (gpu_memory_utilization=0.9, vLLM engine
# arguments, docs.vllm.ai, 2025); docs/sources.md, "Memory headroom".
DEFAULT_MEMORY_HEADROOM = 0.10
MAX_MEMORY_HEADROOM = LIMITS["memory_headroom"].high / 100  # planner/limits.py's row is in percent

# A strategy field a user may pin (Constraints.pinned): the Layout fields, with plain values or members.
PinValue = int | str


@dataclass(frozen=True, slots=True)
class Workload:
    """What to run.

    task: inference | pretrain | finetune (also "train") | lora | qlora (text is parsed into a Task).
    seq_len: tokens per sequence (training) or the context a serving sequence may reach (prompt + output).
    global_batch: sequences per optimizer step (training).
    tokens: training tokens for the whole run; for inference, output tokens to serve (for cost; optional).
    tokens_per_second: serving target, output tokens per second over all users (optional).
    concurrent_users: serving: sequences decoded at the same time (optional; default: as many as fit).
    output_len: serving: tokens generated per request (the prompt is seq_len - output_len).
    mfu: a flat model-FLOPs utilisation to assume instead of the operator model's compute (None: the
      operator model, planner.perf).
    bandwidth_fraction: achievable fraction of peak memory bandwidth (None: the GPU's measured copy fraction).
    comm_overlap: fraction of data-parallel communication hidden behind compute (None: the overlap model:
      buckets behind the backward, prefetched ZeRO-3 gathers).
    dataset_tokens: tokens in one epoch, for the cost per epoch (optional).
    engine: serving engine profile (vllm | tensorrt-llm | llama.cpp | gpt-fast; None: vllm), planner.perf.ENGINES.
    weight_format: serving weight format (bf16, fp8, int8, int4-g128 = AWQ/GPTQ, int4-g32, q8_0, q4_0, q4_k_m;
      None: the precision's own), planner.perf.FORMATS; it sets the weights' memory as well as their speed.
    request_rate: serving: requests per second over all replicas, Poisson arrivals (instead of concurrent
      users; optional).
    ttft_target_s: serving: the time to first token every option must keep at its 90th percentile (optional).
    tpot_target_s: serving: the mean time per output token every option must keep (optional).
    runtime: training: the runtime every option must run in (deepspeed | fsdp2 | ddp | torchtitan; None: the
      search chooses one per layout, planner.memory.runtimes).
    """

    task: Task = Task.PRETRAIN
    seq_len: int = 4096
    global_batch: int = 1024
    tokens: float | None = None
    tokens_per_second: float | None = None
    concurrent_users: int | None = None
    precision: Precision = Precision.BF16
    kv_precision: Precision | None = None
    optimizer: Optimizer = Optimizer.ADAMW
    output_len: int = 256
    mfu: float | None = None
    bandwidth_fraction: float | None = None
    comm_overlap: float | None = None
    lora_rank: int = 16
    dataset_tokens: float | None = None
    engine: str | None = None
    weight_format: str | None = None
    request_rate: float | None = None
    ttft_target_s: float | None = None
    tpot_target_s: float | None = None
    runtime: Runtime | None = None

    def __post_init__(self) -> None:
        """Choices given as text ("train", "bf16") become their vocabulary members; UserError if unknown."""
        object.__setattr__(self, "task", Task.parse(self.task))
        object.__setattr__(self, "precision", Precision.parse(self.precision))
        if self.kv_precision is not None:
            object.__setattr__(self, "kv_precision", Precision.parse(self.kv_precision))
        object.__setattr__(self, "optimizer", Optimizer.parse(self.optimizer))
        if self.runtime is not None:
            object.__setattr__(self, "runtime", Runtime.parse(self.runtime))

    @property
    def is_training(self) -> bool:
        return self.task.is_training

    @property
    def tokens_per_step(self) -> int:
        return self.global_batch * self.seq_len

    @property
    def prompt_len(self) -> int:
        return max(1, self.seq_len - self.output_len)

    @property
    def has_latency_targets(self) -> bool:
        return self.ttft_target_s is not None or self.tpot_target_s is not None


@dataclass(frozen=True, slots=True)
class Constraints:
    """Limits on the search.

    max_gpus: largest GPU count to consider; gpus: an exact count (overrides max_gpus); budget: most money the
    run may cost; deadline_s: longest wall time; pinned: strategy fields the user fixed ({"zero": 3, "tp": 8},
    names from Layout.FIELDS); gpus_per_node: override the GPU type's typical node size;
    inter_node_bytes_per_s: network per GPU (None: planner.perf.DEFAULT_INTER_NODE_BYTES_PER_S, one 400 Gb/s
    InfiniBand link per GPU); memory_headroom: share of each GPU's memory left free (0..0.9), so an option
    fits when its per-GPU total is at most memory_bytes x (1 - memory_headroom); resilience: failures,
    checkpoints, restarts and spot reclaims for the goodput term of training options (planner.scale; default:
    the published failure rate of each GPU type, a parallel file system, Daly's optimum interval, on-demand).
    host_ram_bytes: CPU RAM per node, which training states offloaded to the host share (None: twice the node's
    GPU memory, planner.memory.host_ram). pod_gpus / oversubscription: a fat tree's non-blocking pods and the N of
    its 1:N above them (None / 1: one non-blocking fabric; planner.perf.communication.Fabric), training only.
    """

    max_gpus: int = DEFAULT_MAX_GPUS
    gpus: int | None = None
    budget: Money | None = None
    deadline_s: float | None = None
    pinned: Mapping[str, PinValue] = field(default_factory=dict)
    gpus_per_node: int | None = None
    inter_node_bytes_per_s: float | None = None
    memory_headroom: float = DEFAULT_MEMORY_HEADROOM
    resilience: Resilience = field(default_factory=Resilience)
    host_ram_bytes: int | None = None
    pod_gpus: int | None = None
    oversubscription: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "pinned", MappingProxyType(dict(self.pinned)))

    @property
    def fabric(self) -> Fabric:
        """The network above the nodes the training search times its collectives on."""
        return Fabric(self.pod_gpus or 0, self.oversubscription)

    def usable_bytes(self, gpu: GpuSpec) -> int:
        """What a plan may fill of one GPU: its memory less the headroom."""
        return int(gpu.memory_bytes * (1.0 - self.memory_headroom))


@dataclass(frozen=True, slots=True)
class Pools:
    """Prefill and decode pools: replicas x tp GPUs each (pp 1), and the KV transfer of one prompt."""

    prefill_replicas: int
    prefill_tp: int
    decode_replicas: int
    decode_tp: int
    transfer_s: float

    @property
    def gpus(self) -> int:
        return self.prefill_replicas * self.prefill_tp + self.decode_replicas * self.decode_tp

    def as_dict(self) -> dict[str, object]:
        return {
            "prefill_replicas": self.prefill_replicas, "prefill_tp": self.prefill_tp,
            "decode_replicas": self.decode_replicas, "decode_tp": self.decode_tp, "kv_transfer_s": self.transfer_s,
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class ServingLatency:
    """A serving option's latency figures and how it stands against the targets.

    ttft_p50_s / ttft_p90_s: time to first token percentiles (queue + prefill + host); prefill_s: the prefill
    phase alone; queue_s: mean wait before it; itl_p90_s: 90th-percentile time between tokens (a step carrying
    a prompt chunk); request_rate: requests per second over all replicas; overloaded: arrivals beyond what
    the replicas finish; miss: the worst ratio of figure to target (TTFT p90 / target, mean TPOT / target,
    tokens/s target / tokens/s); at most 1 meets every target; None without targets.
    """

    ttft_p50_s: float
    ttft_p90_s: float
    prefill_s: float
    queue_s: float
    itl_p90_s: float
    request_rate: float
    overloaded: bool = False
    miss: float | None = None
    pools: Pools | None = None  # disaggregated prefill / decode pools; None: every replica does both

    @property
    def meets(self) -> bool:
        return self.miss is None or self.miss <= 1.0 + 1e-9

    def as_dict(self) -> dict[str, object]:
        return {
            "ttft_p50_s": _finite(self.ttft_p50_s), "ttft_p90_s": _finite(self.ttft_p90_s),
            "prefill_s": self.prefill_s, "queue_s": _finite(self.queue_s), "itl_p90_s": self.itl_p90_s,
            "request_rate": self.request_rate, "overloaded": self.overloaded, "miss": _finite(self.miss),
            "meets_targets": self.meets, "disaggregated": self.pools.as_dict() if self.pools is not None else None,
        }  # fmt: skip


def _finite(value: float | None) -> float | None:
    """JSON has no infinity: an unbounded wait is null (with "overloaded": true)."""
    return None if value is None or math.isinf(value) else value


@dataclass(frozen=True, slots=True)
class RuntimeCandidate:
    """One runtime a training option's layout was weighed in (planner.search.training_runtime): its per-GPU
    bytes (None: the memory model refuses the layout in it), whether it fits the GPU and the node's CPU RAM, its
    step time and useful tokens per second (the throughput less the goodput term's losses, which every objective
    ranks by at one GPU count), and whether it is the option's runtime."""

    runtime: str
    per_gpu_bytes: int | None
    fits: bool
    step_time_s: float
    useful_tokens_per_s: float
    chosen: bool

    def as_dict(self) -> dict[str, object]:
        return {
            "runtime": self.runtime,
            "chosen": self.chosen,
            "fits": self.fits,
            "per_gpu_bytes": self.per_gpu_bytes,
            "step_time_s": self.step_time_s,
            "useful_tokens_per_s": self.useful_tokens_per_s,
        }


@dataclass(frozen=True, slots=True)
class PlanOption:
    """One ranked answer: a GPU type, a count, a layout, and what it costs in memory, time and money.

    step_time_s: one optimizer step (training) or one decode step = time per output token (inference).
    tokens_per_s: training tokens per second, or output tokens per second over all replicas (inference).
    wall_time_s: the whole run (training tokens / throughput; inference: tokens to serve) or None.
    time_breakdown: seconds per step by cause (compute, pipeline bubble, tp/dp/ep communication, offload).
    gradient_accumulation_steps: micro-batches per optimizer step the training search timed (None: not
    planned, as for serving; JSON then says 1).
    time_band: the cross-validated error band of this option's class (planner.perf.bands): the true step time,
      wall time, GPU-hours and cost lie within estimate x (1 + low_fraction) .. x (1 + high_fraction) for the
      share `coverage` of published runs of the class; throughputs take its inverse (tokens/s scale like 1 / time).
      None when no class has enough published cases. JSON: "time_band" with "low_fraction", "high_fraction",
      "cases", "basis", "coverage", "confidence", and the ranges "wall_time_s_range", "cost_range",
      "tokens_per_s_range".
    per_user_tokens_per_s: serving: tokens per second one user sees while its request decodes (1 / TPOT).
    concurrent_users: serving: users decoded at once per replica at this load (the stated users spread over
      the replicas, capped by what fits and the engine's batch limit).
    engine: serving: the engine profile the figures assume.
    mfu: training: model FLOPs (6 x parameters + attention, no recompute) per second over the dense peak.
    prefill_share: serving: the share of step time spent on prompts (chunked prefill of arriving requests).
    static_batching: serving: static against continuous batching for output lengths spread evenly around the
      workload's (planner.perf.static_batching_loss); JSON "static_batching" with "lost_fraction",
      "static_tokens_per_s", "continuous_tokens_per_s", "output_lengths".
    latency: serving: TTFT percentiles, the queue, the 90th-percentile inter-token latency and the option
      against the latency and throughput targets (ServingLatency); JSON "latency".
    headroom_margin_bytes: training: set on a tight option, one that fits only inside the memory headroom
      (planner.search.tight): the GPU's memory less what the option needs; None when it fits within the
      headroom. JSON "headroom_margin_bytes".
    runtime_candidates: training: every runtime the layout was weighed in, the chosen one among them
      (RuntimeCandidate; one where the runtime is pinned or only one can run the layout). JSON
      "runtime_candidates".
    """

    gpu: GpuSpec
    gpus: int
    layout: Layout
    memory: MemoryBreakdown
    fits: bool
    step_time_s: float
    tokens_per_s: float
    wall_time_s: float | None
    gpu_hours: float | None
    cost: Money | None
    cost_per_million_tokens: Money | None
    confidence: Confidence
    workload: Workload | None = None
    precision: Precision = Precision.BF16
    nodes: int = 1
    gradient_accumulation_steps: int | None = None
    time_breakdown: Mapping[str, float] = field(default_factory=dict)
    ttft_s: float | None = None
    tpot_s: float | None = None
    max_concurrent_sequences: int | None = None
    batch_per_replica: int | None = None
    assumptions: tuple[str, ...] = ()
    note_messages: tuple[Message, ...] = ()  # said once, as planner.messages codes; `notes` is their English
    time_band: ErrorBand | None = None
    per_user_tokens_per_s: float | None = None
    concurrent_users: int | None = None
    engine: str | None = None
    mfu: float | None = None
    prefill_share: float | None = None
    static_batching: BatchingLoss | None = None
    goodput: Goodput | None = None
    replica_failure: ReplicaFailure | None = None
    latency: ServingLatency | None = None
    headroom_margin_bytes: int | None = None
    runtime_candidates: tuple[RuntimeCandidate, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "confidence", Confidence.parse(self.confidence))
        object.__setattr__(self, "precision", Precision.parse(self.precision))

    @property
    def notes(self) -> tuple[str, ...]:
        """The notes in English (the CLI, JSON, reports)."""
        return render_all_en(self.note_messages)

    @property
    def per_gpu_bytes(self) -> dict[str, int]:
        return self.memory.as_dict()

    @property
    def effective_fraction(self) -> float:
        """Useful share of the wall time (1 without a goodput term)."""
        return self.goodput.effective_fraction if self.goodput is not None else 1.0

    @property
    def effective_wall_time_s(self) -> float | None:
        return self.wall_time_s / self.effective_fraction if self.wall_time_s is not None else None

    @property
    def effective_gpu_hours(self) -> float | None:
        return self.gpu_hours / self.effective_fraction if self.gpu_hours is not None else None

    @property
    def effective_cost(self) -> Money | None:
        """The run's cost with lost work and restarts billed like every other hour."""
        return self.cost * (1 / self.effective_fraction) if self.cost is not None else None

    def goodput_dict(self) -> dict[str, object] | None:
        if self.goodput is None:
            return None
        cost = self.effective_cost
        return {**self.goodput.as_dict(), "cost": cost.as_dict() if cost is not None else None}

    @property
    def runtime(self) -> str | None:
        """The training runtime whose memory the option counts and its export runs by default (deepspeed, fsdp2,
        ddp, torchtitan; planner.memory.runtimes); None for serving or a layout no runtime can run."""
        return self.memory.runtime or None

    def ranges(self) -> dict[str, list[float] | None]:
        """[low, high] of the wall time, cost and tokens/s under the time band (None where no band or figure)."""
        band = self.time_band
        if band is None:
            return {"wall_time_s_range": None, "cost_range": None, "tokens_per_s_range": None}
        inverse = band.inverse()
        return {
            "wall_time_s_range": list(band.bounds(self.wall_time_s))
            if self.wall_time_s is not None
            else None,
            "cost_range": list(band.bounds(self.cost.amount)) if self.cost is not None else None,
            "tokens_per_s_range": list(inverse.bounds(self.tokens_per_s)),
        }

    def as_dict(self) -> dict[str, object]:
        """The JSON shape of `gpu-advisor plan --json` (docs/cli.md, "gpu-advisor gpus, plan, rentbuy")."""
        return {
            "gpu": self.gpu.id,
            "gpu_name": self.gpu.name,
            "gpus": self.gpus,
            "nodes": self.nodes,
            "strategy": self.layout.as_dict(),
            "fits": self.fits,
            "per_gpu_bytes": self.per_gpu_bytes,
            "gpu_memory_bytes": self.gpu.memory_bytes,
            "step_time_s": self.step_time_s,
            "tokens_per_s": self.tokens_per_s,
            "wall_time_s": self.wall_time_s,
            "gpu_hours": self.gpu_hours,
            "cost": self.cost.as_dict() if self.cost else None,
            "cost_per_million_tokens": self.cost_per_million_tokens.as_dict()
            if self.cost_per_million_tokens
            else None,
            "confidence": self.confidence.value,
            "precision": self.precision.value,
            "runtime": self.runtime,
            "runtime_candidates": [candidate.as_dict() for candidate in self.runtime_candidates],
            "gradient_accumulation_steps": self.gradient_accumulation_steps or 1,
            "time_breakdown_s": dict(self.time_breakdown),
            "ttft_s": self.ttft_s,
            "tpot_s": self.tpot_s,
            "max_concurrent_sequences": self.max_concurrent_sequences,
            "batch_per_replica": self.batch_per_replica,
            "notes": list(self.notes),
            "time_band": self.time_band.as_dict() if self.time_band else None,
            **self.ranges(),
            "per_user_tokens_per_s": self.per_user_tokens_per_s,
            "concurrent_users": self.concurrent_users,
            "engine": self.engine,
            "mfu": self.mfu,
            "prefill_share": self.prefill_share,
            "static_batching": _batching_dict(self.static_batching),
            "goodput": self.goodput_dict(),
            "replica_failure": self.replica_failure.as_dict() if self.replica_failure is not None else None,
            "latency": self.latency.as_dict() if self.latency is not None else None,
            "headroom_margin_bytes": self.headroom_margin_bytes,
        }

    @property
    def misses_targets(self) -> bool:
        return self.latency is not None and not self.latency.meets


def _batching_dict(loss: BatchingLoss | None) -> dict[str, object] | None:
    if loss is None:
        return None
    return {
        "lost_fraction": loss.lost_fraction,
        "static_tokens_per_s": loss.static_tokens_per_s,
        "continuous_tokens_per_s": loss.continuous_tokens_per_s,
        "output_lengths": {
            "mean": loss.mean_output_len,
            "max": loss.max_output_len,
            "spread": "uniform 1 .. 2 x mean",
        },
    }


@dataclass(frozen=True, slots=True)
class Excluded:
    """A strategy family (or GPU/precision) the search left out, and why, in plain words: each said once, as a
    planner.messages.Message (the GUI renders it in its language); `family` and `reason` are their English text
    (the CLI, JSON)."""

    family_message: Message
    reason_message: Message

    @classmethod
    def of(cls, family: Message, reason: Message) -> Excluded:
        return cls(family, reason)

    @property
    def family(self) -> str:
        return self.family_message.text

    @property
    def reason(self) -> str:
        return self.reason_message.text

    def as_dict(self) -> dict[str, str]:
        return {"family": self.family, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class PlanResult:
    """Ranked options (best first), what was excluded and why, advice, and how long the search took.

    frontier: the best option per (GPU type, GPU count) that fits, sorted by GPU count (for charts).
    assumptions: every default the numbers rest on, with its source.
    """

    options: tuple[PlanOption, ...]
    excluded: tuple[Excluded, ...]
    search_ms: float
    frontier: tuple[PlanOption, ...] = ()
    assumptions: tuple[str, ...] = ()
    rank_by: RankBy = RankBy.TIME
    advice_messages: tuple[
        Message, ...
    ] = ()  # said once, as planner.messages codes; `advice` is their English

    def __post_init__(self) -> None:
        object.__setattr__(self, "rank_by", RankBy.parse(self.rank_by))

    @property
    def advice(self) -> tuple[str, ...]:
        """The advice in English (the CLI, JSON, reports)."""
        return render_all_en(self.advice_messages)

    def as_dict(self) -> dict[str, object]:
        return {
            "options": [option.as_dict() for option in self.options],
            "excluded": [item.as_dict() for item in self.excluded],
            "search_ms": self.search_ms,
            "advice": list(self.advice),
            "assumptions": list(self.assumptions),
            "rank_by": self.rank_by.value,
        }
