"""The memory model's inputs and outputs: one configuration (MemoryConfig, with its Layout), the per-GPU
breakdown (MemoryBreakdown of MemoryTerms), and the documented constants the arithmetic uses."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from operator import attrgetter

from planner.limits import LIMITS
from planner.messages import Message, render_all_en
from planner.vocabulary import Layout, LoraTarget, Optimizer, Precision, Runtime, Task

# CUDA context plus loaded kernels: Hugging Face "Model training anatomy" measured 1,343 MB (nvidia-smi MiB)
# on a V100 right after initialising torch. Lazy module loading (CUDA >= 11.7) often brings it nearer 500 MiB;
# we keep the measured, conservative figure.
CUDA_CONTEXT_BYTES = 1343 * 2**20
# PyTorch's caching allocator reserves more than it hands out (fragmentation, rounding to 512-byte blocks and
# 2 MiB segments), mostly for tensors that come and go each step (gradients, activations, KV blocks). 5% of
# those is our assumption, not a measurement; PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True narrows it.
ALLOCATOR_MARGIN_FRACTION = 0.05
# NCCL: NCCL_BUFFSIZE defaults to 4 MiB per channel and direction (NCCL environment-variable docs); with
# 16 channels, 2 ring neighbours, send and receive: 4 MiB x 16 x 2 x 2 = 256 MiB per communicator.
NCCL_BYTES_PER_COMMUNICATOR = 4 * 2**20 * 16 * 2 * 2
# Weight storage in bits per value. int4: group-128 quantisation with an fp16 scale and an fp16 zero point per
# group adds 32/128 bits (GPTQ/AWQ style), 4.25 bits. int8 and fp8: per-channel or per-tensor scales, negligible.
WEIGHT_BITS: dict[str, float] = {
    "fp32": 32.0,
    "bf16": 16.0,
    "fp16": 16.0,
    "fp8": 8.0,
    "int8": 8.0,
    "int4": 4.25,
}
# QLoRA NF4 with double quantisation: 4 bits + 0.127 bits of quantisation constants per parameter
# (Dettmers et al. 2023, arXiv 2305.14314, section 3: "reduces ... from 0.5 bits to 0.127 bits per parameter").
NF4_BITS = 4.127
# Logits are materialised in fp32 for the softmax cross-entropy (s x b x V values on the last stage).
LOGITS_BYTES_PER_VALUE = 4
# Flash attention keeps one fp32 log-sum-exp per head and token for its backward pass.
LSE_BYTES = 4
# Router probabilities of an MoE layer are kept in fp32.
ROUTER_BYTES_PER_VALUE = 4

# A layout's bounds are the input limits' (planner/limits.py, the one table), for the same quantities.
MAX_DEGREE = int(LIMITS["dp"].high)
MAX_GPUS = int(LIMITS["gpus"].high)
MAX_MICRO_BATCH = int(LIMITS["micro_batch"].high)
MAX_SEQ_LEN = int(LIMITS["seq_len"].high)
MAX_LORA_RANK = int(LIMITS["lora_rank"].high)

DEFAULT_LORA_TARGETS = (LoraTarget.Q, LoraTarget.K, LoraTarget.V, LoraTarget.O)


@dataclass(frozen=True, slots=True)
class MemoryConfig:
    """One explicit configuration: the parallel layout plus what the GPUs hold. Sizes are counts (sequences,
    tokens, GPUs); layout.micro_batch is sequences per GPU per step (inference: concurrent sequences per
    replica). Values are checked (and text such as "train" parsed) by layout_notes / estimate_memory."""

    task: Task = Task.PRETRAIN
    precision: Precision = Precision.BF16
    kv_precision: Precision | None = None  # None: the weights' precision, or 16 bit for int formats
    optimizer: Optimizer = Optimizer.ADAMW
    layout: Layout = field(default_factory=Layout)
    seq_len: int = 4096  # tokens per sequence (inference: prompt + generated tokens held in the KV cache)
    flash_attention: bool = True
    lora_rank: int = 16
    lora_targets: tuple[LoraTarget, ...] = DEFAULT_LORA_TARGETS
    inflight_microbatches: int | None = None  # None: pp (1F1B first stage)
    # interleaved 1F1B: model chunks per pipeline rank; the first stage holds pp (1 + (pp - 1) / (pp v))
    # micro-batches of its layers (planner.memory.stage_activations.inflight_at)
    virtual_stages: int = 1
    sequence_parallel: bool = False
    # micro-batches per optimizer step: with more than one the gradients stay beside the next one's activations
    gradient_accumulation: int = 1
    # the training search's count (planner.search.common): where a runtime's peak is the larger of two moments
    # (DeepSpeed: the backward, or the optimizer step with its fp32 gradients) both are counted at once, an upper
    # bound to which an activation variant's bytes add; options are shown with it False, exactly
    addable_peak: bool = False
    # serving: the stored weight format's bits per weight (planner.perf.formats: int4-g128 4.25, q4_k_m 4.85);
    # None: the precision's own (WEIGHT_BITS)
    weight_bits: float | None = None
    # training: the runtime whose memory layout is counted (planner.memory.runtimes); None: the one the search
    # chooses for each layout (chosen_runtime). A pinned runtime that cannot run the layout is a UserError.
    runtime: Runtime | None = None
    # fp8 training in Transformer Engine (Megatron-Core): its fp8 GEMMs save the fp8 cast of their input for the
    # weight gradient, 1 byte per value (planner.memory.activations.FP8_GEMM_INPUT_BYTES); False: the 16-bit input,
    # as torchao's Float8Linear (torchtitan) saves it
    te_fp8_inputs: bool = False


# MemoryConfig's fields in their order: every one is an init field without a __post_init__, so passing each
# field's value in order builds what dataclasses.replace builds by name (with_layout).
_CONFIG_FIELDS = tuple(item.name for item in fields(MemoryConfig))
assert all(item.init for item in fields(MemoryConfig)) and not hasattr(MemoryConfig, "__post_init__")
_LAYOUT_AT = _CONFIG_FIELDS.index("layout")
_config_values = attrgetter(*_CONFIG_FIELDS)


def with_layout(config: MemoryConfig, layout: Layout) -> MemoryConfig:
    """dataclasses.replace(config, layout=layout), about twice as fast (replace looks every field up by name and
    checks its kind first): searches build one config per option they report."""
    if type(config) is not MemoryConfig:  # a subclass may have fields of its own
        return replace(config, layout=layout)
    values = list(_config_values(config))
    values[_LAYOUT_AT] = layout
    return MemoryConfig(*values)


@dataclass(frozen=True, slots=True)
class MemoryTerm:
    bytes: int
    assumption: str


TERMS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")


@dataclass(frozen=True, slots=True)
class MemoryBreakdown:
    """Bytes per GPU by category, each with its assumption; the GPU is the fullest pipeline stage."""

    weights: MemoryTerm
    gradients: MemoryTerm
    optimizer: MemoryTerm
    activations: MemoryTerm
    kv_cache: MemoryTerm
    overhead: MemoryTerm
    pipeline_stage: int = 0  # which stage these figures describe (0-based)
    host_offload_bytes: int = 0  # bytes this GPU's rank keeps in CPU RAM because of --offload
    # Part of weights that is FSDP2's (ZeRO-2/3) gathered units and communication buffers (0 below ZeRO-2). The
    # ZeRO paper's 16P/N figures leave it out: compare them with model_state_bytes - zero3_gathered_bytes.
    zero3_gathered_bytes: int = 0
    # What the figures rest on, said once as planner.messages codes "memory.*"; `notes` is their English text.
    note_messages: tuple[Message, ...] = ()
    # Gradients and activations never held at once (one backward per step: activations peak at its start,
    # gradients at the optimizer step): total_bytes is the sum of the terms less this, the step's peak.
    not_concurrent_bytes: int = 0
    # "backward", "end of backward" (FSDP2's root unit reduce-scattering every gradient: planner.memory.stages) or
    # "optimizer step" for training, "forward" for inference
    peak_phase: str = ""
    runtime: str = ""  # the runtime the figures are counted for (planner.memory.runtimes); "" for inference

    TERMS = TERMS

    def terms(self) -> tuple[tuple[str, MemoryTerm], ...]:
        """(name, term) in TERMS order."""
        return (
            ("weights", self.weights),
            ("gradients", self.gradients),
            ("optimizer", self.optimizer),
            ("activations", self.activations),
            ("kv_cache", self.kv_cache),
            ("overhead", self.overhead),
        )

    @property
    def notes(self) -> tuple[str, ...]:
        """The notes in English (the CLI, JSON, reports)."""
        return render_all_en(self.note_messages)

    @property
    def total_bytes(self) -> int:
        """The step's peak per GPU: the terms' sum less what is never held at the same time."""
        return sum(term.bytes for _, term in self.terms()) - self.not_concurrent_bytes

    @property
    def model_state_bytes(self) -> int:
        """Weights + gradients + optimizer state."""
        return self.weights.bytes + self.gradients.bytes + self.optimizer.bytes

    def as_dict(self) -> dict[str, int]:
        result = {name: term.bytes for name, term in self.terms()}
        result["total"] = self.total_bytes
        return result

    def at_peak(self) -> dict[str, int]:
        """The terms as held at the step's peak (they sum to total_bytes): what is never held at once comes off
        the gradients first when the peak is in the backward pass (they are not all there yet), off the
        activations first when it is the optimizer step or FSDP2's end of the backward (they are gone). For a chart
        of the peak."""
        values = {name: term.bytes for name, term in self.terms()}
        left = self.not_concurrent_bytes
        order = (
            ("activations", "gradients")
            if self.peak_phase in ("optimizer step", "end of backward")
            else ("gradients", "activations")
        )
        for name in order:
            taken = min(left, values[name])
            values[name] -= taken
            left -= taken
        return values

    def assumptions(self) -> dict[str, str]:
        return {name: term.assumption for name, term in self.terms()}
