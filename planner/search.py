"""Strategy search: which GPU, how many, with which sharding, how long, at what price.

plan() enumerates GPU counts and parallel layouts (dp x tp x pp x ep, ZeRO stage, recompute, micro-batch,
offload), prunes what does not divide or fit, times what is left with planner.perf, prices it, and ranks it.
Excluded strategy families come back with the reason in plain words ("DDP: needs 1.0 TiB per GPU, has 80 GiB").

Pure: frozen dataclasses in, a frozen PlanResult out. The memory model is planner.memory (per GPU, bytes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from operator import itemgetter
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from planner.errors import UserError
from planner.gpus import GpuSpec
from planner.messages import Message, msg, render_all_en
from planner.messages import format_bytes as format_bytes  # re-exported: the CLI and tests use it from here
from planner.money import Money

if TYPE_CHECKING:  # the memory types are only annotations here; planner.memory is imported where it is used
    from planner.memory import MemoryBreakdown

TASKS = ("inference", "pretrain", "finetune", "train", "lora", "qlora")
TRAINING_TASKS = ("pretrain", "finetune", "train", "lora", "qlora")
RANK_BY = ("time", "cost", "cost_per_token")
RECOMPUTE = ("none", "selective", "full")
OFFLOAD = ("none", "optimizer", "all")
STRATEGY_FIELDS = ("dp", "tp", "pp", "ep", "zero", "recompute", "offload", "micro_batch")
DEFAULT_MAX_GPUS = 4096


@dataclass(frozen=True)
class Workload:
    """What to run.

    task: "inference" | "pretrain" | "finetune" (also "train") | "lora" | "qlora".
    seq_len: tokens per sequence (training) or the context a serving sequence may reach (prompt + output).
    global_batch: sequences per optimizer step (training).
    tokens: training tokens for the whole run; for inference, output tokens to serve (for cost; optional).
    tokens_per_second: serving target, output tokens per second over all users (optional).
    concurrent_users: serving: sequences decoded at the same time (optional; default: as many as fit).
    output_len: serving: tokens generated per request (the prompt is seq_len - output_len).
    mfu: model-FLOPs utilisation to assume (None: planner.perf.DEFAULT_MFU, sourced there).
    bandwidth_fraction: achievable fraction of peak memory bandwidth in decode (None: perf default).
    comm_overlap: fraction of data-parallel communication hidden behind compute (None: perf default).
    dataset_tokens: tokens in one epoch, for the cost per epoch (optional).
    """

    task: str = "pretrain"
    seq_len: int = 4096
    global_batch: int = 1024
    tokens: float | None = None
    tokens_per_second: float | None = None
    concurrent_users: int | None = None
    precision: str = "bf16"
    kv_precision: str | None = None
    optimizer: str = "adamw"
    output_len: int = 256
    mfu: float | None = None
    bandwidth_fraction: float | None = None
    comm_overlap: float | None = None
    lora_rank: int = 16
    dataset_tokens: float | None = None

    @property
    def is_training(self) -> bool:
        return self.task in TRAINING_TASKS

    @property
    def memory_task(self) -> str:
        """The task name planner.memory expects."""
        return "train" if self.task in ("pretrain", "finetune", "train") else self.task

    @property
    def tokens_per_step(self) -> int:
        return self.global_batch * self.seq_len

    @property
    def prompt_len(self) -> int:
        return max(1, self.seq_len - self.output_len)


@dataclass(frozen=True)
class Constraints:
    """Limits on the search.

    max_gpus: largest GPU count to consider; gpus: an exact count (overrides max_gpus); budget: most money the
    run may cost; deadline_s: longest wall time; pinned: strategy fields the user fixed ({"zero": 3, "tp": 8});
    gpus_per_node: override the GPU type's typical node size; inter_node_bytes_per_s: network per GPU
    (None: planner.perf.DEFAULT_INTER_NODE_BYTES_PER_S, one 400 Gb/s InfiniBand link per GPU).
    """

    max_gpus: int = DEFAULT_MAX_GPUS
    gpus: int | None = None
    budget: Money | None = None
    deadline_s: float | None = None
    pinned: Mapping[str, Any] = field(default_factory=dict)
    gpus_per_node: int | None = None
    inter_node_bytes_per_s: float | None = None


@dataclass(frozen=True)
class Strategy:
    """A parallel layout: dp x tp x pp x ep GPUs (ep splits experts inside the dp group), ZeRO stage,
    recompute ("none" | "selective" | "full"), offload ("none" | "optimizer" | "all"), micro-batch (sequences)."""

    dp: int = 1
    tp: int = 1
    pp: int = 1
    ep: int = 1
    zero: int = 0
    recompute: str = "none"
    offload: str = "none"
    micro_batch: int = 1

    @property
    def gpus(self) -> int:
        """GPUs the layout occupies: expert parallelism reuses the data-parallel ranks."""
        return self.dp * self.tp * self.pp

    @property
    def family(self) -> str:
        """The sharding family people name: DDP, ZeRO-1/2, ZeRO-3/FSDP, with offload if any."""
        return self.family_message.text

    @property
    def family_message(self) -> Message:
        """`family` as a planner.messages.Message (codes "family.*")."""
        if self.zero == 0:
            name = msg("family.ddp")
        elif self.zero == 3:
            name = msg("family.zero3")
        else:
            name = msg("family.zero", zero=self.zero)
        if self.offload != "none":
            return msg(f"family.{self.offload}_offload", family=name)  # optimizer | all
        return name

    @property
    def label(self) -> str:
        """Short description for people: "ZeRO-1, TP 8, PP 2, DP 32, selective recompute, micro-batch 1"."""
        parts = [self.family]
        for name, value in (("TP", self.tp), ("PP", self.pp), ("EP", self.ep)):
            if value > 1:
                parts.append(f"{name} {value}")
        parts.append(f"DP {self.dp}")
        if self.recompute != "none":
            parts.append(f"{self.recompute} recompute")
        parts.append(f"micro-batch {self.micro_batch}")
        return ", ".join(parts)

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in STRATEGY_FIELDS}


@dataclass(frozen=True)
class PlanOption:
    """One ranked answer: a GPU type, a count, a layout, and what it costs in memory, time and money.

    step_time_s: one optimizer step (training) or one decode step = time per output token (inference).
    tokens_per_s: training tokens per second, or output tokens per second over all replicas (inference).
    wall_time_s: the whole run (training tokens / throughput; inference: tokens to serve) or None.
    time_breakdown: seconds per step by cause (compute, pipeline bubble, tp/dp/ep communication, offload).
    """

    gpu: GpuSpec
    gpus: int
    strategy: Strategy
    memory: MemoryBreakdown
    fits: bool
    step_time_s: float
    tokens_per_s: float
    wall_time_s: float | None
    gpu_hours: float | None
    cost: Money | None
    cost_per_million_tokens: Money | None
    confidence: str
    workload: Workload | None = None
    precision: str = "bf16"
    nodes: int = 1
    gradient_accumulation_steps: int = 1
    time_breakdown: Mapping[str, float] = field(default_factory=dict)
    ttft_s: float | None = None
    tpot_s: float | None = None
    max_concurrent_sequences: int | None = None
    batch_per_replica: int | None = None
    assumptions: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # English (CLI, JSON); note_messages says the same as planner.messages codes
    note_messages: tuple[Message, ...] = ()

    @property
    def per_gpu_bytes(self) -> dict:
        return self.memory.as_dict()

    @property
    def memory_per_gpu_bytes(self) -> int:
        return self.memory.total_bytes

    def as_dict(self) -> dict:
        """The JSON shape of `gpu-advisor plan --json` (issue 3 item 5), plus extra keys."""
        return {
            "gpu": self.gpu.id,
            "gpu_name": self.gpu.name,
            "gpus": self.gpus,
            "nodes": self.nodes,
            "strategy": self.strategy.as_dict(),
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
            "confidence": self.confidence,
            "precision": self.precision,
            "gradient_accumulation_steps": self.gradient_accumulation_steps,
            "time_breakdown_s": dict(self.time_breakdown),
            "ttft_s": self.ttft_s,
            "tpot_s": self.tpot_s,
            "max_concurrent_sequences": self.max_concurrent_sequences,
            "batch_per_replica": self.batch_per_replica,
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class Excluded:
    """A strategy family (or GPU/precision) the search left out, and why, in plain words.

    family and reason are English; family_message and reason_message are the same as planner.messages.Message
    objects (None where only the text is known). Build from messages with Excluded.of().
    """

    family: str
    reason: str
    family_message: Message | None = None
    reason_message: Message | None = None

    @classmethod
    def of(cls, family: Message, reason: Message) -> Excluded:
        return cls(family.text, reason.text, family, reason)

    def as_dict(self) -> dict:
        return {"family": self.family, "reason": self.reason}


@dataclass(frozen=True)
class PlanResult:
    """Ranked options (best first), what was excluded and why, advice, and how long the search took.

    frontier: the best option per (GPU type, GPU count) that fits, sorted by GPU count (for charts).
    assumptions: every default the numbers rest on, with its source.
    """

    options: tuple[PlanOption, ...]
    excluded: tuple[Excluded, ...]
    search_ms: float
    advice: tuple[str, ...] = ()  # English (CLI, JSON); advice_messages says the same as Message objects
    frontier: tuple[PlanOption, ...] = ()
    assumptions: tuple[str, ...] = ()
    rank_by: str = "time"
    advice_messages: tuple[Message, ...] = ()

    def as_dict(self) -> dict:
        return {
            "options": [option.as_dict() for option in self.options],
            "excluded": [item.as_dict() for item in self.excluded],
            "search_ms": self.search_ms,
            "advice": list(self.advice),
            "assumptions": list(self.assumptions),
            "rank_by": self.rank_by,
        }


def _frozen(mapping: Mapping | None) -> Mapping:
    return MappingProxyType(dict(mapping or {}))


# ------------------------------------------------------------------------------------------------ enumeration

MICRO_BATCHES = (1, 2, 4, 8)
MAX_PIPELINE = 32  # Llama 3 405B trained with pp 16 (arXiv 2407.21783); deeper is rarely worth it
# Serving without a stated number of users: decode this many sequences at once per replica (if they fit).
DEFAULT_SERVING_BATCH = 32


def _powers_of_two(limit: int) -> list[int]:
    values, value = [], 1
    while value <= limit:
        values.append(value)
        value *= 2
    return values


def _nice_node_counts(limit: int) -> list[int]:
    """1..8 nodes, then 12, 16, 24, 32, 48, 64, ... (x1 and x1.5 per doubling): charts need shape, not every N."""
    counts = set(range(1, min(limit, 8) + 1))
    value = 8
    while value <= limit:
        counts.update((value, value * 3 // 2))
        value *= 2
    return sorted(n for n in counts if n <= limit)


def pipeline_depths(layers: int, limit: int = MAX_PIPELINE) -> list[int]:
    """Pipeline depths the training search tries: 1, 2, 4, ... and 3, 5, 7 times a power of two, up to `limit`
    stages and one layer per stage.

    GPU counts of 3, 5, 6, 7, 12, 24 ... nodes hold an odd factor that dp x tp x pp must absorb: with power-of-
    two depths only, such a count could not reach the model-parallel degree its neighbours reach, needed full
    recompute there, and cost curves zig-zagged with GPU count. Uneven stages are fine (DeepSpeed partitions by
    parameters, Megatron-Core and TorchTitan take uneven splits); planner.perf charges the fullest stage.
    """
    top = min(limit, layers)
    depths = {odd * power for odd in (1, 3, 5, 7) for power in _powers_of_two(top) if odd * power <= top}
    return sorted(depths)


def candidate_gpu_counts(max_gpus: int, gpus_per_node: int, exact: int | None = None) -> tuple[int, ...]:
    """GPU counts worth timing: powers of two and whole nodes (1..8, 12, 16, 24, ...) up to max_gpus.

    An exact count is searched alone. Between these points the time curve is smooth, so charts lose nothing.
    """
    if exact is not None:
        return (exact,)
    counts = set(_powers_of_two(max_gpus))
    counts.update(n * gpus_per_node for n in _nice_node_counts(max_gpus // max(1, gpus_per_node)))
    return tuple(sorted(counts))


def _allowed(name: str, values: list, pinned: Mapping[str, Any]) -> list:
    """The values to try for a strategy field: the pinned value alone when the user fixed it."""
    if name in pinned and pinned[name] is not None:
        return [pinned[name]]
    return values


class _Memory:
    """estimate_memory for the search: full breakdowns (cached) for the options shown, and bare per-GPU totals
    through planner.memory.MemoryTotals, which reuses the work shared by layouts that differ only in dp, ZeRO
    stage and offload (the search asks for thousands of totals)."""

    def __init__(self, model, workload: Workload):
        from planner.memory import MemoryConfig, MemoryTotals, estimate_memory

        self._estimate = estimate_memory
        self._config = MemoryConfig
        self._model = model
        self._base = {
            "task": workload.memory_task,
            "precision": workload.precision,
            "kv_precision": workload.kv_precision,
            "optimizer": workload.optimizer,
            "seq_len": workload.seq_len,
            "lora_rank": workload.lora_rank,
        }
        self._breakdowns: dict[tuple, Any] = {}
        self._totals = MemoryTotals(model, MemoryConfig(**self._base))

    def breakdown(self, **layout):
        """MemoryBreakdown for `layout` (MemoryConfig fields), or None for an impossible layout."""
        key = tuple(sorted(layout.items()))
        if key not in self._breakdowns:
            try:
                self._breakdowns[key] = self._estimate(self._model, self._config(**self._base, **layout))
            except UserError:
                self._breakdowns[key] = None
        return self._breakdowns[key]

    def total(
        self, tp=1, pp=1, ep=1, dp=1, zero=0, offload="none", recompute="none", micro_batch=1
    ) -> int | None:
        """Per-GPU bytes of a layout (MemoryConfig's defaults for what is not given), or None if impossible."""
        return self._totals.total(tp, pp, ep, dp, zero, offload, recompute, micro_batch)


# ------------------------------------------------------------------------------------------------ plan


def _validate(workload: Workload, constraints: Constraints, rank_by: str, top: int) -> None:
    problem = _input_problem(workload, constraints, rank_by, top)
    if problem is not None:
        raise UserError.of(problem)


def _input_problem(workload: Workload, constraints: Constraints, rank_by: str, top: int) -> Message | None:
    """The first thing wrong with the inputs (a planner.messages.Message "error.*"), or None."""
    if workload.task not in TASKS:
        return msg("error.unknown_task", task=workload.task, choices=", ".join(TASKS))
    if workload.seq_len < 1 or workload.global_batch < 1:
        return msg("error.seq_and_batch_positive")
    if workload.tokens is not None and workload.tokens <= 0:
        return msg("error.tokens_positive")
    if workload.tokens_per_second is not None and workload.tokens_per_second <= 0:
        return msg("error.tokens_per_s_positive")
    if workload.concurrent_users is not None and workload.concurrent_users < 1:
        return msg("error.users_positive")
    if not workload.is_training and workload.output_len >= workload.seq_len:
        return msg(
            "error.output_longer_than_sequence", output_len=workload.output_len, seq_len=workload.seq_len
        )
    if constraints.gpus is not None and constraints.gpus < 1:
        return msg("error.gpus_positive")
    if constraints.max_gpus < 1:
        return msg("error.max_gpus_positive")
    if constraints.deadline_s is not None and constraints.deadline_s <= 0:
        return msg("error.deadline_positive")
    unknown = set(constraints.pinned) - set(STRATEGY_FIELDS)
    if unknown:
        return msg("error.cannot_pin", fields=sorted(unknown), choices=", ".join(STRATEGY_FIELDS))
    if rank_by not in RANK_BY:
        return msg("error.unknown_rank_by", choices=", ".join(RANK_BY), rank_by=rank_by)
    if top < 1:
        return msg("error.top_positive")
    return None


def plan(
    model,
    workload: Workload,
    gpus,
    constraints: Constraints | None = None,
    *,
    prices: Mapping[str, Money] | None = None,
    calibration: Mapping[str, Any] | None = None,
    rank_by: str = "time",
    top: int = 10,
) -> PlanResult:
    """Search GPU counts and parallel layouts for `model` running `workload` on each GPU type in `gpus`.

    prices: GPU id -> price per GPU-hour (Money); calibration: GPU id -> planner.perf.Calibration (measured
    rates). Returns the `top` options by `rank_by` ("time" | "cost" | "cost_per_token"), the best per GPU count
    as `frontier`, excluded families with reasons, and advice.
    """
    from time import perf_counter

    from planner import perf

    started = perf_counter()
    constraints = constraints or Constraints()
    gpu_list = [gpus] if isinstance(gpus, GpuSpec) else list(gpus)
    if not gpu_list:
        raise UserError.of(msg("error.no_gpu_type"))
    _validate(workload, constraints, rank_by, top)
    numbers = perf.model_numbers(model, workload.lora_rank)
    memory = _Memory(model, workload)
    prices = prices or {}
    calibration = calibration or {}
    options: list[PlanOption] = []
    excluded: list[Excluded] = []
    advice: list[Message] = []
    assumptions: list[str] = []
    for gpu in gpu_list:
        refusal = _precision_refusal(gpu, workload)
        if refusal is not None:
            family = msg("excluded.family.precision_on_gpu", precision=workload.precision, gpu_id=gpu.id)
            excluded.append(Excluded.of(family, refusal))
            continue
        rates = perf.effective_rates(
            gpu,
            workload.precision,
            mfu=workload.mfu,
            bandwidth_fraction=workload.bandwidth_fraction,
            calibration=calibration.get(gpu.id),
        )
        for line in rates.assumptions:
            if line not in assumptions:
                assumptions.append(line)
        search = _TrainingSearch if workload.is_training else _InferenceSearch
        found = search(model, workload, gpu, constraints, memory, numbers, rates, prices.get(gpu.id)).run()
        options.extend(found.options)
        excluded.extend(found.excluded)
        advice.extend(found.advice)
    assumptions.extend(_shared_assumptions(workload, constraints))
    frontier = tuple(sorted(options, key=lambda o: (o.gpu.id, o.gpus)))
    within = [o for o in options if _meets(o, constraints)]
    if options and not within:
        advice.append(_constraint_advice(options, constraints, rank_by))
    ranked = sorted(within, key=lambda o: _rank_key(o, rank_by))
    advice_messages = tuple(dict(zip(render_all_en(advice), advice, strict=True)).values())  # each text once
    return PlanResult(
        options=tuple(ranked[:top]),
        excluded=tuple(excluded),
        search_ms=(perf_counter() - started) * 1000,
        advice=render_all_en(advice_messages),
        frontier=frontier,
        assumptions=tuple(assumptions),
        rank_by=rank_by,
        advice_messages=advice_messages,
    )


def _precision_refusal(gpu: GpuSpec, workload: Workload) -> Message | None:
    from planner.gpus import precision_refusal_message

    precision = (
        "bf16" if workload.task == "qlora" and workload.precision in ("int4", "int8") else workload.precision
    )
    return precision_refusal_message(gpu, precision)


def _shared_assumptions(workload: Workload, constraints: Constraints) -> list[str]:
    from planner import perf

    lines = []
    if workload.is_training:
        overlap = perf.DEFAULT_COMM_OVERLAP if workload.comm_overlap is None else workload.comm_overlap
        lines.append(
            f"data-parallel communication {overlap:.0%} hidden behind compute; tensor-parallel never hidden"
        )
        lines.append(
            "FLOPs per token: 6 x matmul params + attention 12 x layers x seq x width (Narayanan et al. 2021); "
            "8 x with full recompute; LoRA/QLoRA 4 x"
        )
        lines.append("ranks ordered tensor, data, pipeline: tensor parallel stays inside an NVLink domain")
        lines.append(
            "pipeline parallel only with ZeRO stage 0 or 1 (DeepSpeed's pipeline engine refuses ZeRO-2/3; "
            "Megatron-LM's distributed optimizer is ZeRO-1)"
        )
    else:
        lines.append("decode reads the weights and the batch's KV cache once per token (roofline)")
        lines.append(
            "serving batch: the stated concurrent users, else up to "
            f"{DEFAULT_SERVING_BATCH} sequences per replica that fit"
        )
    lines.append(
        perf.INTER_NODE_SOURCE
        if constraints.inter_node_bytes_per_s is None
        else f"inter-node {constraints.inter_node_bytes_per_s / 1e9:g} GB/s per GPU (user-set)"
    )
    lines.append(perf.offload_assumption())
    return lines


def _meets(option: PlanOption, constraints: Constraints) -> bool:
    if constraints.deadline_s is not None and option.wall_time_s is not None:
        if option.wall_time_s > constraints.deadline_s:
            return False
    if constraints.budget is not None and option.cost is not None:
        if option.cost.currency != constraints.budget.currency:
            raise UserError.of(
                msg(
                    "error.budget_currency",
                    budget_currency=constraints.budget.currency,
                    price_currency=option.cost.currency,
                )
            )
        if option.cost.amount > constraints.budget.amount:
            return False
    return True


def _constraint_advice(options: list[PlanOption], constraints: Constraints, rank_by: str) -> Message:
    fastest = min(options, key=lambda o: _rank_key(o, "time"))
    cheapest = min(options, key=lambda o: _rank_key(o, "cost"))
    sentences = []
    if fastest.wall_time_s is not None:
        sentences.append(
            msg("advice.fastest", wall_time_s=fastest.wall_time_s, gpus=fastest.gpus, gpu=fastest.gpu.name)
        )
    if cheapest.cost is not None:
        sentences.append(
            msg("advice.cheapest", cost=cheapest.cost, gpus=cheapest.gpus, gpu=cheapest.gpu.name)
        )
    return msg("advice.limits_not_met", sentences=tuple(sentences))


def _rank_key(option: PlanOption, rank_by: str) -> tuple:
    """Smaller is better. Time: the run's wall time (or time per token); cost: money, else GPU-hours per token."""
    per_token_time = 1.0 / option.tokens_per_s if option.tokens_per_s else float("inf")
    if option.workload is not None and not option.workload.is_training:
        per_token_time = option.tpot_s or per_token_time
    gpu_seconds_per_token = option.gpus / option.tokens_per_s if option.tokens_per_s else float("inf")
    if rank_by == "time":
        return (per_token_time, option.gpus)
    money = option.cost_per_million_tokens.amount if option.cost_per_million_tokens else None
    primary = money if money is not None else gpu_seconds_per_token
    return (primary, per_token_time, option.gpus)


class _Found:
    def __init__(self) -> None:
        self.options: list[PlanOption] = []
        self.excluded: list[Excluded] = []
        self.advice: list[Message] = []


def _nodes(gpus: int, per_node: int) -> int:
    return -(-gpus // per_node)


def _price_option(price: Money | None, gpus: int, tokens_per_s: float, wall_time_s: float | None):
    """(gpu_hours, cost, cost per million tokens) for a count and throughput at `price` per GPU-hour."""
    gpu_hours = gpus * wall_time_s / 3600 if wall_time_s is not None else None
    if price is None:
        return gpu_hours, None, None
    per_million = price * (gpus / 3600 / tokens_per_s * 1e6) if tokens_per_s > 0 else None
    cost = price * gpu_hours if gpu_hours is not None else None
    return gpu_hours, cost, per_million


# ------------------------------------------------------------------------------------------------ training


# Pipeline parallel runs with ZeRO stage 0 or 1 only. DeepSpeed's PipelineEngine asserts it
# (deepspeed/runtime/pipe/engine.py: "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism"); Megatron-LM's
# distributed optimizer shards only the optimizer states (ZeRO-1); TorchTitan combines FSDP2 with PP but by default
# does not reshard parameters after forward under PP (torchtitan/distributed/fsdp.py, to avoid an all-gather per
# micro-batch), so each stage keeps whole parameters, which the ZeRO-3 memory model here would understate.
PIPELINE_MAX_ZERO = 1
# The excluded-strategy family that stands for every layout with tensor or pipeline parallelism.
TP_PP_FAMILY = "tensor/pipeline parallel"
PIPELINE_ZERO_REASON = msg("excluded.pipeline_needs_zero01").text

# Candidates are (offloaded, activation rank, is ZeRO-3, zero, offload, (recompute, micro-batch)); they are
# ranked by activation rank first, then by kind.
_CANDIDATE_ORDER = itemgetter(1, 0, 2, 3)


class _GpuSearch:
    """What the training and the serving search share: the inputs for one GPU type and what was found."""

    def __init__(self, model, workload, gpu, constraints, memory, numbers, rates, price):
        self.model, self.workload, self.gpu = model, workload, gpu
        self.constraints, self.memory, self.numbers, self.rates, self.price = (
            constraints, memory, numbers, rates, price,
        )  # fmt: skip
        self.pinned = dict(constraints.pinned)
        self.per_node = constraints.gpus_per_node or gpu.gpus_per_node
        self.max_gpus = constraints.gpus or constraints.max_gpus
        self.capacity = gpu.memory_bytes
        self.found = _Found()

    def _tensor_parallel_sizes(self) -> list[int]:
        """Powers of two within one node that divide the attention heads (each GPU gets whole heads)."""
        sizes = [t for t in _powers_of_two(self.per_node) if self.model.heads % t == 0]
        return _allowed("tp", sizes, self.pinned)


class _TrainingSearch(_GpuSearch):
    """Training: for every layout (tp, pp, ep) fit memory as a + b/dp per sharding family from two exact
    estimates, add the activation variant's delta, and time only the layouts that fit; the chosen options are
    re-estimated exactly."""

    def __init__(self, *inputs):
        super().__init__(*inputs)
        self.counts = candidate_gpu_counts(self.max_gpus, self.per_node, self.constraints.gpus)
        self.best: dict[int, tuple[tuple, Strategy, Any]] = {}  # count -> (key, strategy, StepTime)
        self.family_need: dict[str, tuple[float, Strategy]] = {}
        self.smallest_need: tuple[float, Strategy] | None = None
        self.states = self._states()  # (zero, offload) pairs to try at every layout without a pipeline
        # With a pipeline only ZeRO-0/1 (see PIPELINE_MAX_ZERO); True once a pipelined layout was skipped for it.
        self.pipeline_states = [state for state in self.states if state[0] <= PIPELINE_MAX_ZERO]
        self.skipped_pipeline = False

    # -- enumeration ---------------------------------------------------------------------------------------
    def _layouts(self):
        model = self.model
        tps = self._tensor_parallel_sizes()
        pps = _allowed("pp", pipeline_depths(model.layers), self.pinned)
        # Expert parallel: 1, 4, 16, 64 and all experts when that is at most 64 (DeepSeek-V3 trained with EP 64,
        # arXiv 2412.19437); finer steps add search time, not insight.
        experts = [1]
        if model.is_moe:
            steps = (1, 4, 16, 64, model.experts)
            experts = sorted({e for e in steps if e <= min(64, model.experts) and model.experts % e == 0})
        eps = _allowed("ep", experts, self.pinned)
        for tp in tps:
            for pp in pps:
                for ep in eps:
                    yield tp, pp, ep

    def _states(self) -> list[tuple[int, str]]:
        zeros = _allowed("zero", [0, 1, 2, 3], self.pinned)
        offloads = _allowed("offload", list(OFFLOAD), self.pinned)
        states = []
        for zero in zeros:
            for offload in offloads:
                # Optimizer offload with ZeRO-2/3 (ZeRO-Offload's pairing), parameter offload with ZeRO-3 only.
                if (
                    offload == "none"
                    or (offload == "optimizer" and zero >= 2)
                    or (offload == "all" and zero == 3)
                ):
                    states.append((zero, offload))
        return states

    def _activations(self, pp: int):
        """(recompute, micro-batch) in order of preference: least recompute first; with a pipeline the smallest
        micro-batch (more micro-batches, smaller bubble), without one the largest (bigger kernels)."""
        # Selective recompute only drops the attention-score matrix, which flash attention never stores
        # (planner.memory): it saves no memory here, so the search tries it only when pinned.
        recomputes = _allowed("recompute", ["none", "full"], self.pinned)
        batches = _allowed("micro_batch", list(MICRO_BATCHES), self.pinned)
        batches = sorted(batches) if pp > 1 else sorted(batches, reverse=True)
        return [(r, mb) for r in recomputes for mb in batches]

    def _dps(self, tp: int, pp: int, ep: int) -> list[int]:
        from math import gcd

        base = ep // gcd(ep, tp)  # ep must divide dp x tp
        dps = []
        for count in self.counts:
            if count % (tp * pp):
                continue
            dp = count // (tp * pp)
            if dp % base or dp > self.workload.global_batch:
                continue
            if "dp" in self.pinned and self.pinned["dp"] is not None and dp != self.pinned["dp"]:
                continue
            dps.append(dp)
        return dps

    # -- memory fit ------------------------------------------------------------------------------------------
    def _layout(self, tp, pp, ep, dp, zero, offload, recompute, micro_batch) -> dict:
        return {"tp": tp, "pp": pp, "ep": ep, "dp": dp, "zero": zero, "offload": offload,
                "recompute": recompute, "micro_batch": micro_batch}  # fmt: skip

    def _fit_states(self, tp, pp, ep, base, reference, with_dp_one, states):
        """[(zero, offload, a, b, at_one)]: per-GPU bytes = a + b / dp at the reference activation variant, from
        two exact estimates; at_one is the exact figure at dp 1 (one rank has no shards or communicator; inf
        where impossible, None when dp 1 is not searched)."""
        total = self.memory.total
        fits = []
        low, high = (2 * base, 4 * base) if base == 1 else (base, 2 * base)
        for zero, offload in states:
            t_low = total(tp, pp, ep, low, zero, offload, *reference)
            t_high = total(tp, pp, ep, high, zero, offload, *reference)
            if t_low is None or t_high is None:
                continue
            b = (t_low - t_high) / (1 / low - 1 / high)
            at_one = None
            if with_dp_one:
                at_one = total(tp, pp, ep, 1, zero, offload, *reference)
                at_one = float("inf") if at_one is None else at_one
            fits.append((zero, offload, t_low - b / low, b, at_one))
        return fits

    @staticmethod
    def _need(fit, dp, delta) -> float:
        """Per-GPU bytes at `dp` for a state fit plus an activation variant's delta (dp 1: the exact figure)."""
        _zero, _offload, a, b, at_one = fit
        if dp == 1:
            return at_one + delta
        return a + b / dp + delta

    def run(self) -> _Found:
        from math import gcd

        from planner import perf

        for tp, pp, ep in self._layouts():
            dps = self._dps(tp, pp, ep)
            if not dps:
                continue
            base = ep // gcd(ep, tp)
            activations = self._activations(pp)
            reference = activations[0]
            states = self.states if pp == 1 else self.pipeline_states
            if not states:
                self.skipped_pipeline = True
                continue
            fits = self._fit_states(tp, pp, ep, base, reference, 1 in dps, states)
            if not fits:
                continue
            first_state = fits[0][:2]
            ref_total = self.memory.total(tp, pp, ep, 2 * base, *first_state, *reference)
            deltas = self._activation_deltas(tp, pp, ep, 2 * base, first_state, activations, ref_total)
            if not deltas:
                continue
            self._record_needs(tp, pp, ep, dps, fits, deltas)
            ranked_deltas = [
                (rank, activation, delta) for rank, (activation, delta) in enumerate(deltas.items())
            ]
            for dp in dps:
                self._consider(perf, tp, pp, ep, dp, fits, ranked_deltas)
        self._finish()
        return self.found

    def _activation_deltas(self, tp, pp, ep, dp, state, activations, ref_total):
        """(recompute, micro-batch) -> bytes above the reference variant. Activations grow linearly with the
        micro-batch, so two exact estimates per recompute mode give every micro-batch."""
        if ref_total is None:
            return {}
        at: dict[tuple, int | None] = {}

        def total(recompute, micro_batch):
            if (recompute, micro_batch) not in at:
                at[(recompute, micro_batch)] = self.memory.total(
                    tp, pp, ep, dp, *state, recompute, micro_batch
                )
            return at[(recompute, micro_batch)]

        deltas = {}
        for recompute, micro_batch in activations:
            one, two = total(recompute, 1), total(recompute, 2)
            if one is None or two is None:
                continue
            deltas[(recompute, micro_batch)] = one + (micro_batch - 1) * (two - one) - ref_total
        return deltas

    def _record_needs(self, tp, pp, ep, dps, fits, deltas):
        """Smallest per-GPU need per family (at the largest dp and lightest activations), for excluded reasons."""
        dp = max(dps)
        lightest = min(deltas, key=deltas.get)
        for fit in fits:
            zero, offload = fit[:2]
            need = self._need(fit, dp, deltas[lightest])
            strategy = Strategy(dp, tp, pp, ep, zero, lightest[0], offload, lightest[1])
            family = strategy.family if tp == 1 and pp == 1 else TP_PP_FAMILY
            if family not in self.family_need or need < self.family_need[family][0]:
                self.family_need[family] = (need, strategy)
            if self.smallest_need is None or need < self.smallest_need[0]:
                self.smallest_need = (need, strategy)

    def _consider(self, perf, tp, pp, ep, dp, fits, ranked_deltas):
        """Pick the fastest fitting (zero, offload, recompute, micro-batch) at this layout and dp.

        ranked_deltas: [(rank, (recompute, micro-batch), bytes above the reference variant)], preferred first.
        """
        global_batch = self.workload.global_batch
        capacity = self.capacity
        allowed = [item for item in ranked_deltas if item[1][1] * dp <= global_batch]
        candidates = []
        for zero, offload, a, b, at_one in fits:
            states_bytes = at_one if dp == 1 else a + b / dp
            for rank, activation, delta in allowed:
                if states_bytes + delta <= capacity:
                    candidates.append((offload != "none", rank, zero == 3, zero, offload, activation))
                    break
        if not candidates:
            return
        # ZeRO-0/1/2 share one communication volume; ZeRO-3 costs 1.5x; offload adds transfers; recompute adds
        # compute. A candidate no lighter in activations and no cheaper in kind than another is never faster:
        # time only the rest and let the clock decide.
        candidates.sort(key=_CANDIDATE_ORDER)  # stable: equal keys keep the order of self.states
        shortlist = []
        for candidate in candidates:
            offloaded, rank, zero3 = candidate[0], candidate[1], candidate[2]
            for kept in shortlist:
                if kept[1] <= rank and kept[0] <= offloaded and kept[2] <= zero3:
                    break  # dominated
            else:
                shortlist.append(candidate)
        count = dp * tp * pp
        workload = self.workload
        for _offloaded, _rank, _z3, zero, offload, (recompute, micro_batch) in shortlist:
            step = perf.training_step_time(
                self.numbers, self.gpu, perf.TrainingLayout(dp, tp, pp, ep, zero, recompute, offload, micro_batch),
                seq_len=workload.seq_len, global_batch=global_batch, rates=self.rates,
                task=workload.task, precision=workload.precision,
                comm_overlap=workload.comm_overlap, gpus_per_node=self.per_node,
                inter_node_bytes_per_s=self.constraints.inter_node_bytes_per_s,
            )  # fmt: skip
            key = (step.step_time_s, zero, offload != "none", pp, tp)
            best = self.best.get(count)
            if best is None or key < best[0]:
                self.best[count] = (
                    key,
                    Strategy(dp, tp, pp, ep, zero, recompute, offload, micro_batch),
                    step,
                )

    # -- results -------------------------------------------------------------------------------------------
    def _finish(self) -> None:
        workload = self.workload
        for count in sorted(self.best):
            _key, strategy, step = self.best[count]
            breakdown = self.memory.breakdown(**self._layout(
                strategy.tp, strategy.pp, strategy.ep, strategy.dp, strategy.zero, strategy.offload,
                strategy.recompute, strategy.micro_batch))  # fmt: skip
            if breakdown is None or breakdown.total_bytes > self.capacity:
                continue  # the a + b/dp fit was optimistic here; the exact estimate decides
            tokens_per_s = step.tokens_per_s
            wall = workload.tokens / tokens_per_s if workload.tokens else None
            gpu_hours, cost, per_million = _price_option(self.price, count, tokens_per_s, wall)
            notes = list(breakdown.note_messages)
            effective_batch = strategy.dp * strategy.micro_batch * step.microbatches
            if effective_batch != workload.global_batch:
                notes.append(msg(
                    "option.global_batch_differs", effective_batch=effective_batch, dp=strategy.dp,
                    micro_batch=strategy.micro_batch, accumulation_steps=step.microbatches,
                    global_batch=workload.global_batch,
                ))  # fmt: skip
            self.found.options.append(PlanOption(
                gpu=self.gpu, gpus=count, strategy=strategy, memory=breakdown, fits=True,
                step_time_s=step.step_time_s, tokens_per_s=tokens_per_s, wall_time_s=wall, gpu_hours=gpu_hours,
                cost=cost, cost_per_million_tokens=per_million, confidence=step.confidence, workload=workload,
                precision=workload.precision, nodes=_nodes(count, self.per_node),
                gradient_accumulation_steps=step.microbatches, time_breakdown=step.breakdown,
                assumptions=step.assumptions, notes=render_all_en(notes), note_messages=tuple(notes),
            ))  # fmt: skip
        self._exclusions()

    def _exclusions(self) -> None:
        gpu, capacity = self.gpu, self.capacity
        fitting = {o.strategy.family if o.strategy.tp == 1 and o.strategy.pp == 1 else TP_PP_FAMILY
                   for o in self.found.options}  # fmt: skip
        if self.constraints.gpus:
            upto = msg("where.exact_gpus", gpus=self.constraints.gpus)
        else:
            upto = msg("where.up_to_gpus", gpus=max(self.counts))
        for family, (need, strategy) in self.family_need.items():
            if family in fitting or need <= capacity:
                continue
            sizes = {"need_bytes": need, "capacity_bytes": capacity, "gpu": gpu.name}
            if family == TP_PP_FAMILY:
                reason = msg("excluded.needs_memory_layout", strategy=strategy, gpus=strategy.gpus, **sizes)
            else:
                reason = msg("excluded.needs_memory", **sizes)
            self.found.excluded.append(Excluded.of(excluded_family_message(family, strategy), reason))
        if self.skipped_pipeline:
            if "zero" in self.pinned:
                family = msg("excluded.family.zero_with_pipeline", zero=self.pinned["zero"])
            else:  # a pinned offload that needs ZeRO-2/3 left no state a pipeline can run with
                family = msg("excluded.family.pipeline")
            self.found.excluded.append(Excluded.of(family, msg("excluded.pipeline_needs_zero01")))
        if not self.best and self.constraints.gpus and not self.family_need and not self.skipped_pipeline:
            gpus = self.constraints.gpus
            reason = msg(
                "excluded.no_layout_divides", gpus=gpus, model=self.model.name, heads=self.model.heads
            )
            self.found.excluded.append(Excluded.of(msg("excluded.family.gpu_count", gpus=gpus), reason))
        self._advice(upto)

    def _advice(self, upto: Message) -> None:
        gpu, capacity = self.gpu, self.capacity
        states = self.memory.breakdown(**self._layout(1, 1, 1, 1, 0, "none", "none", 1))
        state_bytes = states.model_state_bytes if states is not None else None
        options = self.found.options
        if options and "DDP" not in {
            o.strategy.family for o in options if o.strategy.tp == o.strategy.pp == 1
        }:
            best = min(options, key=lambda o: _rank_key(o, "time"))
            if state_bytes is not None and state_bytes > capacity:
                self.found.advice.append(msg(
                    "advice.ddp_cannot_work", gpu=gpu.name, state_bytes=state_bytes, capacity_bytes=capacity,
                    hint=_sharding_hint(best.strategy), strategy=best.strategy,
                ))  # fmt: skip
        if not options:
            need = self.smallest_need
            where = {"upto": upto, "gpu": gpu.name, "capacity_bytes": capacity}
            if need is None:
                self.found.advice.append(msg("advice.nothing_fits_training", **where))
            else:
                self.found.advice.append(
                    msg(
                        "advice.nothing_fits_training_lightest", strategy=need[1], need_bytes=need[0], **where
                    )
                )


def excluded_family_message(family: str, strategy: Strategy) -> Message:
    """excluded_family_label as a Message; `strategy` is the family's lightest layout (family_need)."""
    if family == TP_PP_FAMILY:
        return msg("excluded.family.tensor_pipeline")
    return msg("excluded.family.data_parallel_only", family=strategy.family_message)


def excluded_family_label(family: str) -> str:
    """What an excluded family stands for, in words that cannot contradict the options shown beside it.

    Needs are recorded per family only for pure data-parallel layouts (TP 1, PP 1); every layout with tensor or
    pipeline parallelism is one more family, "tensor/pipeline parallel". So "ZeRO-2" alone would read as if
    ZeRO-2 could not work while an option uses ZeRO-2 + TP 4: the label says "without tensor/pipeline parallel".
    """
    if family == TP_PP_FAMILY:
        return family
    return f"{family} without tensor/pipeline parallel"


def _sharding_hint(strategy: Strategy) -> str:
    parts = []
    if strategy.zero == 3:
        parts.append("ZeRO-3/FSDP")
    if strategy.tp > 1:
        parts.append(f"TP {strategy.tp}")
    if strategy.pp > 1:
        parts.append(f"PP {strategy.pp}")
    if strategy.zero in (1, 2):
        parts.append(f"ZeRO-{strategy.zero}")
    return " + ".join(parts) or "ZeRO-3/FSDP"


# ------------------------------------------------------------------------------------------------ inference


class _InferenceSearch(_GpuSearch):
    """Serving: one option per replica layout (tp x pp) that fits; replicas to meet the users or the tokens/s
    target; the batch per replica is the stated users or what fits (at most DEFAULT_SERVING_BATCH)."""

    def __init__(self, *inputs):
        super().__init__(*inputs)
        self.smallest: tuple[int, int, int] | None = None  # (bytes at batch 1, tp, pp)
        # (GPUs the users or tokens/s target need, tp, pp, bytes per GPU at batch 1) where the model fits
        self.short_of_gpus: tuple[int, int, int, int] | None = None

    def _layouts(self):
        model = self.model
        tps = self._tensor_parallel_sizes()
        pps = _allowed("pp", _powers_of_two(min(16, model.layers)), self.pinned)
        return [(tp, pp) for tp in tps for pp in pps if tp * pp <= self.max_gpus]

    def run(self) -> _Found:
        from planner import perf

        workload, numbers = self.workload, self.numbers
        kv_per_token = self._kv_bytes_per_token()
        weights_total = None
        for tp, pp in self._layouts():
            one = self.memory.breakdown(micro_batch=1, tp=tp, pp=pp)
            two = self.memory.total(micro_batch=2, tp=tp, pp=pp)
            if one is None or two is None:
                continue
            if self.smallest is None or one.total_bytes < self.smallest[0]:
                self.smallest = (one.total_bytes, tp, pp)
            if one.total_bytes > self.capacity:
                continue
            weights_total = one.weights.bytes * tp * pp
            max_seqs = perf.max_concurrent_sequences(self.capacity, one.total_bytes, two - one.total_bytes)
            users = workload.concurrent_users
            batch = min(max_seqs, users if users else DEFAULT_SERVING_BATCH)
            batch = self.pinned.get("micro_batch") or batch
            if batch < 1 or batch > max_seqs:
                continue
            timing = perf.inference_time(
                numbers, self.gpu, tp=tp, pp=pp, batch=batch, prompt_len=workload.prompt_len,
                output_len=workload.output_len, weight_bytes_total=weights_total,
                kv_bytes_per_token_total=kv_per_token, rates=self.rates, gpus_per_node=self.per_node,
                inter_node_bytes_per_s=self.constraints.inter_node_bytes_per_s,
            )  # fmt: skip
            replicas = self._replicas(tp, pp, batch, timing.tokens_per_s)
            if replicas is None:
                # it fits, but the users or the tokens/s target need more replicas than the GPUs allowed
                gpus_needed = self._needed(batch, timing.tokens_per_s) * tp * pp
                if self.short_of_gpus is None or gpus_needed < self.short_of_gpus[0]:
                    self.short_of_gpus = (gpus_needed, tp, pp, one.total_bytes)
                continue
            self._add(tp, pp, batch, max_seqs, replicas, timing)
        if not self.found.options:
            self._nothing_fits()
        return self.found

    def _kv_bytes_per_token(self) -> float:
        from planner.memory import MemoryConfig, kv_element_bytes

        config = MemoryConfig(task="inference", precision=self.workload.precision,
                              kv_precision=self.workload.kv_precision)  # fmt: skip
        return self.model.kv_bytes_per_token(kv_element_bytes(config))

    def _needed(self, batch: int, tokens_per_s: float) -> int:
        """Replicas the users and the tokens/s target need (at least the pinned dp)."""
        import math

        workload = self.workload
        needed = 1
        if workload.concurrent_users:
            needed = max(needed, math.ceil(workload.concurrent_users / batch))
        if workload.tokens_per_second:
            needed = max(needed, math.ceil(workload.tokens_per_second / tokens_per_s))
        if "dp" in self.pinned and self.pinned["dp"]:
            needed = max(needed, int(self.pinned["dp"]))
        return needed

    def _replicas(self, tp: int, pp: int, batch: int, tokens_per_s: float) -> int | None:
        """Replicas needed for the users and the tokens/s target; None if that exceeds the GPU limit."""
        needed = self._needed(batch, tokens_per_s)
        if self.constraints.gpus is not None:
            if self.constraints.gpus % (tp * pp):
                return None
            exact = self.constraints.gpus // (tp * pp)
            return exact if exact >= needed else None
        return needed if needed * tp * pp <= self.max_gpus else None

    def _add(self, tp, pp, batch, max_seqs, replicas, timing) -> None:
        workload = self.workload
        count = replicas * tp * pp
        breakdown = self.memory.breakdown(micro_batch=batch, tp=tp, pp=pp)
        if breakdown is None or breakdown.total_bytes > self.capacity:
            return
        tokens_per_s = timing.tokens_per_s * replicas
        wall = workload.tokens / tokens_per_s if workload.tokens else None
        gpu_hours, cost, per_million = _price_option(self.price, count, tokens_per_s, wall)
        notes = list(breakdown.note_messages)
        bound = (
            "option.decode_compute_bound"
            if timing.decode_bound == "compute"
            else "option.decode_memory_bound"
        )
        notes.append(msg(bound, batch=batch))
        if workload.tokens_per_second and tokens_per_s < workload.tokens_per_second:
            notes.append(msg("option.misses_target", target_tokens_per_second=workload.tokens_per_second))
        self.found.options.append(PlanOption(
            gpu=self.gpu, gpus=count, strategy=Strategy(dp=replicas, tp=tp, pp=pp, micro_batch=batch),
            memory=breakdown, fits=True, step_time_s=timing.tpot_s, tokens_per_s=tokens_per_s, wall_time_s=wall,
            gpu_hours=gpu_hours, cost=cost, cost_per_million_tokens=per_million, confidence=timing.confidence,
            workload=workload, precision=workload.precision, nodes=_nodes(count, self.per_node),
            time_breakdown={"ttft_s": timing.ttft_s, "tpot_s": timing.tpot_s}, ttft_s=timing.ttft_s,
            tpot_s=timing.tpot_s, max_concurrent_sequences=max_seqs, batch_per_replica=batch,
            assumptions=timing.assumptions, notes=render_all_en(notes), note_messages=tuple(notes),
        ))  # fmt: skip

    def _nothing_fits(self) -> None:
        """Say what would work: int4 weights, offload, or more GPUs (with the numbers)."""
        gpu, capacity, workload = self.gpu, self.capacity, self.workload
        limit = self.constraints.gpus or self.max_gpus
        one = self.memory.total(micro_batch=1, tp=1, pp=1)
        need = self.smallest[0] if self.smallest else one
        where = (
            msg("where.gpus", gpus=limit, gpu=gpu.name) if limit > 1 else msg("where.one_gpu", gpu=gpu.name)
        )
        family = msg("excluded.family.inference", precision=workload.precision)
        if self.short_of_gpus is not None:
            gpus_needed, tp, pp, per_gpu = self.short_of_gpus
            layout = {"tp": tp, "pp": pp, "gpus_needed": gpus_needed, "gpu": gpu.name}
            reason = msg(
                "excluded.serving_load_needs_more_gpus", per_gpu_bytes=per_gpu, limit=limit, **layout
            )
            self.found.excluded.append(Excluded.of(family, reason))
            self.found.advice.append(
                msg("advice.serving_load_needs_more_gpus", model=self.model.name, **layout)
            )
            return
        if need is None:
            self.found.excluded.append(Excluded.of(family, msg("excluded.no_serving_layout", where=where)))
            return
        reason = msg("excluded.serving_needs_memory", need_bytes=need, where=where, capacity_bytes=capacity)
        self.found.excluded.append(Excluded.of(family, reason))
        self.found.advice.append(msg(
            "advice.serving_does_not_fit", model=self.model.name, precision=workload.precision, where=where,
            need_bytes=need, capacity_bytes=capacity, ideas=self._ideas(one),
        ))  # fmt: skip

    def _ideas(self, one: int | None) -> tuple[Message, ...]:
        """What would run the model: int4 weights, offloading the weights to CPU RAM, more GPUs (with numbers).

        one: bytes per GPU on a single GPU at batch 1 (None where that layout is impossible)."""
        gpu, capacity, workload = self.gpu, self.capacity, self.workload
        ideas = []
        if workload.precision not in ("int4",):
            int4 = _Memory(self.model, _replace(workload, precision="int4")).total(micro_batch=1, tp=1, pp=1)
            if int4 is not None:
                gpus_int4 = _gpus_to_fit(int4, capacity)
                if gpus_int4 == 1:
                    ideas.append(msg("idea.int4_fits_one_gpu", int4_bytes=int4))
                else:
                    ideas.append(msg("idea.int4_needs_gpus", int4_bytes=int4, gpus=gpus_int4))
        if one is not None:
            streamed = one - capacity
            ideas.append(msg(
                "idea.offload_weights", streamed_bytes=streamed,
                token_time_s=streamed / (gpu.pcie_bytes_per_s / 2),
            ))  # fmt: skip
            ideas.append(msg("idea.more_gpus", gpus=_gpus_to_fit(one, capacity), gpu=gpu.name))
        return tuple(ideas)


def _gpus_to_fit(total_bytes: float, capacity: int) -> int:
    """The power of two of GPUs whose combined memory holds `total_bytes` with 10% to spare (rough)."""
    import math

    needed = max(1, math.ceil(total_bytes * 1.1 / capacity))
    return 1 << (needed - 1).bit_length()


def _replace(workload: Workload, **changes) -> Workload:
    import dataclasses

    return dataclasses.replace(workload, **changes)
