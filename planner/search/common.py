"""What the training and the serving search share: the inputs for one GPU type, the memory estimates, what
was found, and the price of an option."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from planner.gpus import GpuSpec
from planner.memory import MemoryBreakdown, MemoryConfig, MemoryTotals, SharedShapes
from planner.memory.config import with_layout
from planner.memory.element_bytes import (
    MASTER_BYTES,
    MEGATRON_WEIGHT_BYTES,
    megatron_style,
    optimizer_bytes,
    training_weight_bytes,
)
from planner.memory.runtimes import master_weights_beside_16_bit
from planner.messages import Message
from planner.models import ModelSpec
from planner.money import Money
from planner.perf import ModelNumbers, Rates, weight_format
from planner.scale import Goodput, JobFailures, checkpoint_bytes
from planner.search.enumeration import allowed, pinned_count, powers_of_two
from planner.search.types import Constraints, Excluded, PlanOption, Workload
from planner.vocabulary import Layout, Precision, Runtime, Task

# (zero, offload, recompute, micro_batch, dps) -> each dp's total (SearchMemory.layout_totals)
LayoutTotals = Callable[[int, str, str, int, Sequence[int]], list[int | None]]
# (zero, offload, recompute, micro_batch, dp) -> the host RAM per GPU of offloaded states (SearchMemory.layout_host)
LayoutHost = Callable[[int, str, str, int, int], float | None]


class SearchMemory:
    """estimate_memory for the search: full breakdowns (cached) for the options shown, and bare per-GPU totals
    through planner.memory.MemoryTotals, which reuses the work shared by layouts that differ only in dp, ZeRO
    stage and offload (the search asks for thousands of totals; totals() a layout's at several dps at once).

    Tensor-parallel layouts are estimated with sequence parallelism, the way Megatron-Core, NeMo and
    torchtitan run TP (Korthikanti et al. 2022, arXiv 2205.05198: the norm and dropout activations split over
    the tp ranks); planner.perf times them the same way (TrainingOptions.sequence_parallel)."""

    def __init__(
        self, model: ModelSpec, workload: Workload, flash_attention: bool = True, te_fp8_inputs: bool = False
    ):
        self._model = model
        self._base = MemoryConfig(
            task=workload.task,
            precision=workload.precision,
            kv_precision=workload.kv_precision,
            optimizer=workload.optimizer,
            seq_len=workload.seq_len,
            lora_rank=workload.lora_rank,
            flash_attention=flash_attention,
            # the global batch is reached by accumulating micro-batches: the gradients stay beside the next
            # micro-batch's activations (planner.memory: gradient_accumulation > 1 holds both), and every state's
            # figure is one to which an activation variant's bytes add (addable_peak)
            gradient_accumulation=2,
            addable_peak=True,
            weight_bits=_serving_weight_bits(workload),
            runtime=workload.runtime if workload.task.is_training else None,
            te_fp8_inputs=te_fp8_inputs,
        )
        self._sequence_parallel = workload.task.is_training
        self._breakdowns: dict[tuple[Layout, int | None, Runtime | None], MemoryBreakdown | None] = {}
        self._totals: dict[tuple[bool, int | None, int, Runtime | None], MemoryTotals] = {}
        # the configs of a runtime other than the base's (the runtimes an option's layout is weighed in)
        self._runtime_configs: dict[tuple[MemoryConfig, Runtime], MemoryConfig] = {}
        self._shared_shapes = (
            SharedShapes()
        )  # the configs differ only in sequence parallel and in-flight batches
        self._known: dict[Layout, int | None] = {}  # totals asked before (every GPU type asks the same ones)
        self._configs: dict[tuple[bool, int, int], MemoryConfig] = {}  # by (tp > 1, pp, virtual stages)
        self._configs_of_choices: dict[
            tuple[bool, int | None], MemoryConfig
        ] = {}  # by (sequence parallel, in flight)
        self._totals_of_shapes: dict[tuple[bool, int, int], MemoryTotals] = {}  # as _configs, for totals()
        # What the training search's GPU types of one plan() call share (planner.search.training): per-layout
        # memory fits, the layouts and their (layout, dp) pair table, the GEMM work (perf.SharedWork). Each
        # depends on the model, workload and layout (and node size) only, never on the GPU; nothing outlives
        # the call.
        self.shared_by_gpu_types: dict[tuple[object, ...], object] = {}

    def config(self, layout: Layout, runtime: Runtime | None = None) -> MemoryConfig:
        """The MemoryConfig this search estimates `layout` with (in `runtime` where given, else the workload's
        pinned one or, with none, the one chosen per layout: planner.memory.runtimes)."""
        return with_layout(self._config(layout, runtime), layout)

    def _config(self, layout: Layout, runtime: Runtime | None = None) -> MemoryConfig:
        config = self._config_of(layout.tp, layout.pp, layout.virtual_stages)
        if runtime is None or runtime == config.runtime:
            return config
        key = (config, runtime)
        found = self._runtime_configs.get(key)
        if found is None:
            found = self._runtime_configs[key] = dataclasses.replace(config, runtime=runtime)
        return found

    def _config_of(self, tp: int, pp: int, virtual_stages: int) -> MemoryConfig:
        """Sequence parallel with tensor parallel; interleaved 1F1B holds more micro-batches in flight on the
        first stage: pp (1 + (pp - 1) / (pp v)) (Narayanan et al. 2021, section 2.2.2; MemoryConfig.virtual_stages)."""
        key = (tp > 1, pp, virtual_stages)
        config = self._configs.get(key)
        if config is None:
            virtual = virtual_stages if pp > 1 else 1
            choices = (self._sequence_parallel and tp > 1, virtual)  # what the configs differ in
            config = self._configs_of_choices.get(choices)
            if config is None:
                config = self._configs_of_choices[choices] = dataclasses.replace(
                    self._base, sequence_parallel=choices[0], virtual_stages=virtual
                )
            self._configs[key] = config
        return config

    def breakdown(
        self, layout: Layout, accumulation: int | None = None, runtime: Runtime | None = None
    ) -> MemoryBreakdown | None:
        """The MemoryBreakdown of `layout` (with `accumulation` micro-batches per step where given, else counted
        as accumulating; in `runtime` where given, else as config() says), or None for an impossible layout
        (or one `runtime` cannot run)."""
        key = (layout, accumulation, runtime)
        if key not in self._breakdowns:
            totals = self._memory_totals_of(self._config(layout, runtime))
            self._breakdowns[key] = totals.breakdown(layout, accumulation)
        return self._breakdowns[key]

    def total(self, layout: Layout) -> int | None:
        """Per-GPU bytes of a layout, or None if impossible."""
        if layout in self._known:
            return self._known[layout]
        self._known[layout] = found = self._total(layout)
        return found

    def _total(self, layout: Layout) -> int | None:
        return self._memory_totals(layout).total(layout)

    def totals(
        self,
        shape: tuple[int, int, int, int],
        zero: int,
        offload: str,
        recompute: str,
        micro_batch: int,
        dps: Sequence[int],
    ) -> list[int | None]:
        """[total(layout at dp) for dp in dps] of the layout with model-parallel shape (tp, pp, ep, virtual
        stages), this sharding state and activation variant, without building a Layout per dp (MemoryTotals.totals).
        Not kept in the cache of total(): the training search keeps what it works out (shared_by_gpu_types)."""
        return self.layout_totals(shape)(zero, offload, recompute, micro_batch, dps)

    def layout_totals(self, shape: tuple[int, int, int, int]) -> LayoutTotals:
        """totals() of one model-parallel shape (tp, pp, ep, virtual stages) as a function of the sharding state,
        activation variant and dps: its MemoryTotals looked up once for the many totals a layout's sizing asks."""
        tp, pp, ep, virtual = shape
        key = (tp > 1, pp, virtual)
        memory_totals = self._totals_of_shapes.get(key)
        if memory_totals is None:
            memory_totals = self._totals_of_shapes[key] = self._memory_totals_of(
                self._config_of(tp, pp, virtual)
            )
        return functools.partial(memory_totals.totals, tp, pp, ep)

    def layout_host(self, shape: tuple[int, int, int, int]) -> LayoutHost:
        """(zero, offload, recompute, micro-batch, dp) -> the CPU RAM per GPU of that layout's offloaded states
        (MemoryTotals.host_totals; None where refused)."""
        tp, pp, ep, virtual = shape
        memory_totals = self._memory_totals_of(self._config_of(tp, pp, virtual))
        return functools.partial(memory_totals.host_totals, tp, pp, ep)

    def activation_class(self, shape: tuple[int, int, int, int]) -> Callable[[int, str], bool]:
        """(zero, offload) -> whether the shape's totals at that sharding state count 16-bit compute activations
        (MemoryTotals.sixteen_bit_compute): states of one class share variant deltas (planner.search.training)."""
        tp, pp, ep, virtual = shape
        memory_totals = self._memory_totals_of(self._config_of(tp, pp, virtual))
        return functools.partial(memory_totals.sixteen_bit_compute, tp, pp, ep)

    def _memory_totals(self, layout: Layout) -> MemoryTotals:
        return self._memory_totals_of(self._config(layout))

    def _memory_totals_of(self, config: MemoryConfig) -> MemoryTotals:
        key = (config.sequence_parallel, config.inflight_microbatches, config.virtual_stages, config.runtime)
        if key not in self._totals:
            self._totals[key] = MemoryTotals(self._model, config, self._shared_shapes)
        return self._totals[key]


@dataclass(frozen=True, slots=True)
class SearchInputs:
    """Everything one GPU type's search reads: the model and workload, the GPU and limits, the shared memory
    estimates, the model's figures for the time model, the GPU's rates and its price per GPU-hour."""

    model: ModelSpec
    workload: Workload
    gpu: GpuSpec
    constraints: Constraints
    memory: SearchMemory
    numbers: ModelNumbers
    rates: Rates
    price: Money | None


@dataclass(slots=True)
class Found:
    """What one GPU type's search found (filled while it runs); needed: serving layouts that meet the targets
    only with more GPUs than allowed."""

    options: list[PlanOption] = field(default_factory=list)
    excluded: list[Excluded] = field(default_factory=list)
    advice: list[Message] = field(default_factory=list)
    needed: list[NeededLayout] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class NeededLayout:
    """A serving layout (tp x pp replicas) that meets the targets on `gpus` GPUs of `gpu`, beyond the limit."""

    gpus: int
    gpu: GpuSpec
    tp: int
    pp: int
    ep: int = 1


class GpuSearch:
    """The base of the training and the serving search: the inputs for one GPU type and what was found."""

    def __init__(self, inputs: SearchInputs):
        self.inputs = inputs
        self.model, self.workload, self.gpu = inputs.model, inputs.workload, inputs.gpu
        self.constraints, self.memory = inputs.constraints, inputs.memory
        self.pinned = dict(inputs.constraints.pinned)
        self.per_node = inputs.constraints.gpus_per_node or inputs.gpu.gpus_per_node
        self.max_gpus = inputs.constraints.gpus or inputs.constraints.max_gpus
        self.capacity = inputs.constraints.usable_bytes(inputs.gpu)  # memory less the headroom
        self.found = Found()
        self._failures: JobFailures | None = None  # built by the first goodput() asked
        self._checkpoints: dict[bool, int] = {}  # checkpoint_bytes by megatron_style

    def run(self) -> Found:
        raise NotImplementedError

    def tensor_parallel_sizes(self) -> list[int]:
        """Powers of two within one node that divide the attention heads (each GPU gets whole heads)."""
        sizes = [t for t in powers_of_two(self.per_node) if self.model.heads % t == 0]
        return allowed("tp", sizes, self.pinned, pinned_count)

    def nodes(self, gpus: int) -> int:
        """Servers `gpus` GPUs fill at this search's node size."""
        return -(-gpus // self.per_node)

    def checkpoint_bytes(self, layout: Layout | None = None, runtime: Runtime | None = None) -> int:
        """One checkpoint of this workload (job_checkpoint_bytes) as `layout`'s training holds it (in `runtime`
        where given)."""
        megatron = layout is not None and master_weights_beside_16_bit(
            self.model, self.memory.config(layout, runtime)
        )
        found = self._checkpoints.get(megatron)  # all that the layout changes (job_checkpoint_bytes)
        if found is None:
            found = self._checkpoints[megatron] = _checkpoint_bytes(
                self.workload, self.inputs.numbers, megatron
            )
        return found

    def goodput(
        self, gpus: int, work_s: float | None, layout: Layout | None = None, runtime: Runtime | None = None
    ) -> Goodput | None:
        """The goodput term of a training job on `gpus` GPUs (failures, checkpoints, restarts, spot)."""
        if self._failures is None:  # the GPU type's failure rate and the storage, once per search
            self._failures = JobFailures.of(self.gpu, self.constraints.resilience)
        checkpoint = self.checkpoint_bytes(layout, runtime)
        return self._failures.goodput(gpus, self.nodes(gpus), checkpoint, work_s)


def job_checkpoint_bytes(workload: Workload, numbers: ModelNumbers, config: MemoryConfig | None) -> int:
    """One checkpoint: the trainable weights and their optimizer state as the layout's training holds them
    (planner.memory): autocast / FSDP2 fp32 weights + AdamW m, v (4 + 8 bytes/param); Megatron-style
    tensor/pipeline parallel 16-bit weights + fp32 master + m, v (2 + 12). LoRA and QLoRA save the adapters
    only. config: the layout's memory configuration (None: no layout, autocast's figures)."""
    return _checkpoint_bytes(workload, numbers, config is not None and megatron_style(config))


def _checkpoint_bytes(workload: Workload, numbers: ModelNumbers, megatron: bool) -> int:
    """job_checkpoint_bytes of a layout that keeps 16-bit weights beside fp32 masters (Megatron-style or
    DeepSpeed: master_weights_beside_16_bit) or not."""
    adapters = workload.task in (Task.LORA, Task.QLORA)
    trainable = numbers.lora_params if adapters else numbers.total_params
    precision = Precision.BF16 if workload.task == Task.QLORA else workload.precision
    weight, state = training_weight_bytes(precision), optimizer_bytes(workload.optimizer, precision)
    if megatron:
        weight, state = MEGATRON_WEIGHT_BYTES, MASTER_BYTES + optimizer_bytes(workload.optimizer, precision)
    return checkpoint_bytes(trainable, weight, state)


def price_option(
    price: Money | None, gpus: int, tokens_per_s: float, wall_time_s: float | None
) -> tuple[float | None, Money | None, Money | None]:
    """(gpu_hours, cost, cost per million tokens) for a count and throughput at `price` per GPU-hour."""
    gpu_hours = gpus * wall_time_s / 3600 if wall_time_s is not None else None
    if price is None:
        return gpu_hours, None, None
    per_million = price * (gpus / 3600 / tokens_per_s * 1e6) if tokens_per_s > 0 else None
    cost = price * gpu_hours if gpu_hours is not None else None
    return gpu_hours, cost, per_million


def _serving_weight_bits(workload: Workload) -> float | None:
    """The serving weight format's real bits per weight (it changes memory as well as speed), or None."""
    if workload.is_training or workload.weight_format is None:
        return None
    return weight_format(workload.weight_format, str(workload.precision)).bits_per_weight
