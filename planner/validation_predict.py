"""The performance model's predictions of the validation cases, and the fit of its constants.

A training case is timed at its stated layout; fields the source does not state (ZeRO stage, recompute, the
micro-batch, the tp x pp split of a stated product) are completed the way a user's plan completes them: every
candidate that fits the GPU's memory (planner.memory) is timed and the fastest is kept. The completion is done
once per case with the sourced constants before any fit (`SHIPPED` is never consulted for it), so a fold's fit
cannot choose layouts. A serving case runs the engine model at the stated batch or, for in-flight batching at
an unbounded request rate, at as many sequences as fit the memory the engine leaves for the KV cache.

The fit: each fitted constant moves inside its physical bounds (FittedConstants.BOUNDS) to minimise the sum of
squared log errors over the cases it affects; coordinate descent by golden-section search, two sweeps.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence

from planner.gpus import GpuSpec
from planner.models import ModelSpec
from planner.perf import (
    ENGINES,
    FittedConstants,
    Replica,
    ServingLoad,
    TrainingOptions,
    continuous_batching,
    device_rates,
    model_numbers,
    static_batching,
    tensorrt_llm_release,
    training_step_time,
    weight_format,
)
from planner.perf.efficiencies import architecture
from planner.scale import Resilience, job_goodput
from planner.search.common import SearchMemory, job_checkpoint_bytes
from planner.search.serving import fitting_sequences
from planner.search.training_fits import VIRTUAL_STAGES
from planner.search.types import Workload
from planner.validation import Figures, predicted_metric
from planner.validation_cases import Case, CaseInputs, TrainingInputs
from planner.vocabulary import Layout, Precision, Recompute, Task, ZeroStage

# The constants fitted on training cases and on serving cases (each touches only its own kind).
TRAINING_CONSTANTS = (
    "gemm_training_ampere",
    "gemm_training_hopper",
    "gemm_training_blackwell",
    "overlap_interference",
)
SERVING_CONSTANTS = (
    "gemm_serving",
    "kv_read",
    "kernel_s",
    "dequant_ops_per_weight",
    "latency_scale",
    "request_overhead_s",
    "ridge_overlap",
)
FIT_SWEEPS = 2
GOLDEN_STEPS = 18
# Prior constants for completing layouts: the middle of each bound (no fit involved).
PRIOR = FittedConstants()
MICRO_BATCHES = (1, 2, 4, 8, 16)
# The share of the memory left after weights and workspace that the in-flight benchmarks of the set gave the KV
# cache: TensorRT-LLM perf-overview (v0.17 and v1.0), whose tables trtllm-bench measured: "In majority of cases, we
# also use a higher KV cache percentage by setting `--kv_cache_free_gpu_mem_fraction 0.95` ... than the default
# setting of `0.90`". A benchmark that does not state it (NVIDIA NIM's, AIPerf against a prebuilt engine) runs the
# engine's default: 0.90 (TensorRT-LLM docs, "How to Change KV Cache Behavior", free_gpu_memory_fraction).
BENCHMARK_KV_SHARE = {"tensorrt-llm": 0.95}
BENCHMARK_KV_SHARE_TOOL = "trtllm-bench"  # the tool of the pages that state BENCHMARK_KV_SHARE
ENGINE_DEFAULT_KV_SHARE = {"tensorrt-llm": 0.90}


def predict(case: Case, constants: FittedConstants) -> Figures:
    """The performance model's figures for one included case at `constants`."""
    inputs = case.inputs
    assert inputs is not None
    if case.is_training:
        return _training(case, inputs, constants)
    return _serving(case, inputs, constants)


# ------------------------------------------------------------------------------------------------ training


def _training(case: Case, inputs: CaseInputs, constants: FittedConstants) -> Figures:
    layout = completed_layout(case)
    step = case_step(case, inputs, layout, constants)
    tokens_per_s, described = step.tokens_per_s, _describe(layout)
    if case.kind == "training_run":  # a whole run: the steady step and the time failures and checkpoints take
        effective = whole_run_goodput(inputs, layout)
        tokens_per_s *= effective
        described += f", goodput {effective:.3f} (failures, checkpoints, restarts)"
    return Figures(tokens_per_s=tokens_per_s, step_time_s=step.step_time_s, layout=described)


def whole_run_goodput(inputs: CaseInputs, layout: Layout) -> float:
    """The share of a whole run's wall time spent on steady steps: the goodput term a plan shows
    (planner.scale.job_goodput at the default resilience: the GPU type's published failure rate, Daly's checkpoint
    interval, the checkpoint that layout's training saves written to a parallel file system, the restart time)."""
    training = inputs.training
    assert training is not None
    workload = Workload(task=Task.PRETRAIN, seq_len=training.seq_len, global_batch=training.global_batch,
                        precision=inputs.precision)  # fmt: skip
    memory = SearchMemory(inputs.model, workload, flash_attention=training.flash_attention)
    state = job_checkpoint_bytes(workload, model_numbers(inputs.model), memory.config(layout))
    nodes = math.ceil(inputs.gpus / inputs.gpus_per_node)
    term = job_goodput(inputs.gpu, inputs.gpus, nodes, state, Resilience())
    return term.effective_fraction if term is not None else 1.0


def _options(case: Case, inputs: CaseInputs) -> TrainingOptions:
    training = inputs.training
    assert training is not None
    return TrainingOptions(
        virtual_stages=training.virtual_stages,
        context_parallel=training.context_parallel,
        tp_comm_overlap=training.tp_comm_overlap,
        flash_attention=training.flash_attention,
        ep_per_node_dispatch=training.ep_per_node_dispatch,
        ep_comm_overlap=training.ep_comm_overlap,
    )


def case_step(case: Case, inputs: CaseInputs, layout: Layout, constants: FittedConstants):  # type: ignore[no-untyped-def]
    """The step time of a training case at a layout and a set of constants (the stated options of its source)."""
    training = inputs.training
    assert training is not None
    rates = device_rates(inputs.gpu, inputs.precision)
    return training_step_time(
        model_numbers(inputs.model), inputs.gpu, layout, seq_len=training.seq_len,
        global_batch=training.global_batch, rates=rates, precision=inputs.precision,
        gpus_per_node=inputs.gpus_per_node, options=_options(case, inputs), constants=constants,
    )  # fmt: skip


_LAYOUTS: dict[str, Layout] = {}
_FITS: dict[str, int] = {}


def completed_layout(case: Case) -> Layout:
    """The stated layout, its unstated fields completed by the fastest candidate that fits (prior constants;
    computed once per case)."""
    if case.id not in _LAYOUTS:
        _LAYOUTS[case.id] = _complete(case)
    return _LAYOUTS[case.id]


def _complete(case: Case) -> Layout:
    inputs = case.inputs
    assert inputs is not None and inputs.training is not None
    best: tuple[float, Layout] | None = None
    capacity = inputs.gpu.memory_bytes
    # a context-parallel rank holds the activations of seq / cp tokens of each sequence
    tokens_per_rank = max(1, inputs.training.seq_len // inputs.training.context_parallel)
    memory = SearchMemory(inputs.model, Workload(task=Task.PRETRAIN, seq_len=tokens_per_rank,
                                                 global_batch=inputs.training.global_batch,
                                                 precision=inputs.precision),
                          flash_attention=inputs.training.flash_attention,
                          te_fp8_inputs=inputs.training.te_fp8_inputs)  # fmt: skip
    for layout in _candidates(inputs):
        need = memory.total(layout)
        if need is None or need > capacity:
            continue
        seconds = case_step(case, inputs, layout, PRIOR).step_time_s
        if best is None or seconds < best[0]:
            best = (seconds, layout)
    if best is None:  # nothing fits by the memory model: time the lightest stated candidate anyway
        lightest = min(_candidates(inputs), key=lambda lay: memory.total(lay) or math.inf)
        return lightest
    return best[1]


def _candidates(inputs: CaseInputs) -> Iterator[Layout]:
    training = inputs.training
    assert training is not None
    pins = training.pinned
    gpus = inputs.gpus
    splits: list[tuple[int, int]]
    if training.model_parallel:
        splits = [(tp, training.model_parallel // tp) for tp in (1, 2, 4, 8)
                  if training.model_parallel % tp == 0 and inputs.model.heads % tp == 0]  # fmt: skip
    else:
        splits = [(int(pins.get("tp", 1)), int(pins.get("pp", 1)))]
    for tp, pp in splits:
        if pp > inputs.model.layers or gpus % (tp * pp):
            continue
        dp = int(pins.get("dp", gpus // (tp * pp)))
        zeros = [ZeroStage(int(pins["zero"]))] if "zero" in pins else list(ZeroStage)
        recomputes = [Recompute.parse(pins["recompute"])] if "recompute" in pins else list(Recompute)
        batches = [int(pins["micro_batch"])] if "micro_batch" in pins else list(MICRO_BATCHES)
        virtuals = _virtual_stages(training, pp, inputs.model.layers)
        for zero, virtual in itertools.product(zeros, virtuals):
            if pp > 1 and zero > ZeroStage.OPTIMIZER and "zero" not in pins:
                continue
            for recompute in recomputes:
                for micro in batches:
                    if micro * dp // max(1, training.context_parallel) > training.global_batch:
                        continue
                    yield Layout(dp=dp, tp=tp, pp=pp, ep=int(pins.get("ep", 1)), zero=zero,
                                 recompute=recompute, micro_batch=micro, virtual_stages=virtual)  # fmt: skip


def _virtual_stages(training: TrainingInputs, pp: int, layers: int) -> list[int]:
    """The interleaved chunks per pipeline rank a candidate takes where the source states an interleaved schedule
    without its count: the plan search's interleaved options that leave a chunk a layer (the memory check then counts
    the interleaved schedule's extra in-flight micro-batches). A stated count stays out of the layout (timed through
    TrainingOptions, memory checked as 1F1B). With Transformer Engine's fp8 GEMM inputs counted
    (MemoryConfig.te_fp8_inputs) Megatron-Bridge's Llama 3 70B and 405B H100 fp8 layouts fit at their v 5 and 8
    without recompute (74.1 and 77.1 GiB of 79.7), as they ran; its 405B B200 layout at v 8 needs 180.0 GiB of
    179.1, so counting a stated v would still send it to full recompute."""
    if pp <= 1 or not training.interleaved:
        return [1]
    return [v for v in VIRTUAL_STAGES if v > 1 and layers >= pp * v] or [1]


def _describe(layout: Layout) -> str:
    interleaved = f" v {layout.virtual_stages}" if layout.virtual_stages > 1 else ""
    return (
        f"dp {layout.dp} tp {layout.tp} pp {layout.pp}{interleaved} zero {int(layout.zero)} "
        f"{layout.recompute} recompute mb {layout.micro_batch}"
    )


# ------------------------------------------------------------------------------------------------ serving


def serving_load(case: Case, constants: FittedConstants) -> tuple[Replica, ServingLoad]:
    """A serving case's replica and what it delivers at the case's load (the stated batch; for in-flight
    batching the stated concurrency of users in a closed loop, or as many sequences as fit)."""
    inputs = case.inputs
    assert inputs is not None and inputs.serving is not None
    serving = inputs.serving
    replica = _replica(inputs, constants)
    p, o = serving.prompt_len, serving.output_len
    if serving.scheduling == "inflight":
        fit = _sequences_that_fit(case, inputs)
        users = serving.batch or max(1, fit)  # the stated concurrency (closed loop), else as many as fit
        return replica, continuous_batching(replica, users, p, o, max_sequences=fit)
    return replica, static_batching(replica, serving.batch or 1, p, o)


def _serving(case: Case, inputs: CaseInputs, constants: FittedConstants) -> Figures:
    serving = inputs.serving
    assert serving is not None
    _, load = serving_load(case, constants)
    per_user = load.output_tokens_per_s if load.concurrency == 1 else load.per_user_tokens_per_s
    return Figures(
        output_tokens_per_s=load.output_tokens_per_s,
        per_user_tokens_per_s=per_user,
        tpot_s=load.tpot_s,
        ttft_s=load.ttft_s,
        layout=f"tp {serving.tp}, {load.scheduling} batch {load.concurrency}",
    )


def _replica(inputs: CaseInputs, constants: FittedConstants) -> Replica:
    serving = inputs.serving
    assert serving is not None
    precision = _compute_precision(inputs)
    rates = device_rates(inputs.gpu, precision)
    fmt = weight_format(serving.weight_format, precision)
    engine = ENGINES.get(serving.engine, ENGINES["tensorrt-llm"])
    if engine.name == "tensorrt-llm" and serving.release is not None:
        engine = tensorrt_llm_release(serving.release)
    return Replica(
        model=inputs.model, gpu=inputs.gpu, rates=rates, tp=serving.tp, weights=fmt,
        kv_bytes=1.0 if inputs.precision == Precision.FP8 else 2.0, engine=engine,
        gpus_per_node=inputs.gpus_per_node, constants=constants,
    )  # fmt: skip


def _compute_precision(inputs: CaseInputs) -> str:
    return str(inputs.precision)


def engine_sequences_that_fit(
    model: ModelSpec, gpu: GpuSpec, tp: int, tokens: int, precision: Precision, kv_precision: Precision | None,
    kv_share: float = 1.0,
) -> int:  # fmt: skip
    """Sequences of `tokens` (prompt + output) that fit one tp-way replica on the whole of `gpu`'s memory, by the
    serving search's rule (planner.search.serving.fitting_sequences)."""
    workload = Workload(task=Task.INFERENCE, seq_len=tokens, precision=precision, kv_precision=kv_precision)
    fit = fitting_sequences(SearchMemory(model, workload), tp, 1, gpu.memory_bytes, kv_share)
    return fit[1] if fit else 0


def _fit_cache(inputs: CaseInputs) -> int:
    """Sequences of the case's length that fit, with the share of free memory its benchmark gave the KV cache
    (BENCHMARK_KV_SHARE where its tool states it, else the engine's default); an fp8 case keeps an fp8 KV cache (what TensorRT-LLM's FP8 builds do)."""
    serving = inputs.serving
    assert serving is not None
    kv = Precision.FP8 if inputs.precision == Precision.FP8 else None
    if BENCHMARK_KV_SHARE_TOOL in serving.framework:
        share = BENCHMARK_KV_SHARE.get(serving.engine, 1.0)
    else:
        share = ENGINE_DEFAULT_KV_SHARE.get(serving.engine, 1.0)
    tokens = serving.prompt_len + serving.output_len
    return max(
        1,
        engine_sequences_that_fit(inputs.model, inputs.gpu, serving.tp, tokens, inputs.precision, kv, share),
    )


def _sequences_that_fit(case: Case, inputs: CaseInputs) -> int:
    """Sequences of the case's length whose KV cache fits the memory the engine leaves for it (once per case)."""
    if case.id not in _FITS:
        _FITS[case.id] = _fit_cache(inputs)
    return _FITS[case.id]


# ------------------------------------------------------------------------------------------------ fit


def fit_constants(cases: Sequence[Case], start: FittedConstants = PRIOR) -> FittedConstants:
    """The constants that minimise the squared log error over `cases`, each inside its bounds and over the cases
    that identify it (IDENTIFIES); a constant with no such case keeps its value in `start` (the unfitted prior),
    and a training generation without cases takes the mean of the fitted ones (FittedConstants.gemm_training)."""
    chosen = [case for case in cases if case.inputs is not None]
    constants = start
    fitted_generations: list[str] = []
    for _ in range(FIT_SWEEPS):
        for name in (*TRAINING_CONSTANTS, *SERVING_CONSTANTS):
            subset = [case for case in chosen if IDENTIFIES[name](case)]
            if subset:
                constants = _fit_one(constants, name, subset)
                if name.startswith("gemm_training_") and name not in fitted_generations:
                    fitted_generations.append(name)
    generations = [name for name in TRAINING_CONSTANTS if name.startswith("gemm_training_")]
    if fitted_generations and len(fitted_generations) < len(generations):
        mean = sum(getattr(constants, name) for name in fitted_generations) / len(fitted_generations)
        for name in generations:
            if name not in fitted_generations:
                constants = constants.replace(**{name: mean})
    return constants


def _generation_is(generation: str) -> Callable[[Case], bool]:
    def test(case: Case) -> bool:
        return case.is_training and case.inputs is not None and architecture(case.inputs.gpu) == generation

    return test


def _integer_weights(case: Case) -> bool:
    inputs = case.inputs
    return (
        inputs is not None
        and inputs.serving is not None
        and weight_format(inputs.serving.weight_format, str(inputs.precision)).integer
    )


def _single_stream(tensor_parallel: bool) -> Callable[[Case], bool]:
    """Batch-1 decode cases with (or without) tensor parallelism: where fixed per-kernel and per-collective
    times are a visible share of a token's time."""

    def test(case: Case) -> bool:
        inputs = case.inputs
        if case.kind != "decode_latency" or inputs is None or inputs.serving is None:
            return False
        return (inputs.serving.tp > 1) == tensor_parallel

    return test


def _batched_serving(case: Case) -> bool:
    return case.kind in ("serving_throughput", "ttft", "tpot")


def _first_token(case: Case) -> bool:
    return case.kind == "ttft"


# constant -> which cases carry information on it
IDENTIFIES: dict[str, Callable[[Case], bool]] = {
    "gemm_training_ampere": _generation_is("ampere"),
    "gemm_training_hopper": _generation_is("hopper"),
    "gemm_training_blackwell": _generation_is("blackwell"),
    "overlap_interference": lambda case: case.is_training,
    "gemm_serving": _batched_serving,
    "kv_read": _batched_serving,
    "kernel_s": _single_stream(tensor_parallel=False),
    "dequant_ops_per_weight": _integer_weights,
    "latency_scale": _single_stream(tensor_parallel=True),
    "request_overhead_s": _first_token,
    "ridge_overlap": _batched_serving,
}


def _fit_one(constants: FittedConstants, name: str, cases: Sequence[Case]) -> FittedConstants:
    if not cases:
        return constants
    low, high = FittedConstants.BOUNDS[name]

    def loss(value: float) -> float:
        trial = constants.replace(**{name: value})
        return squared_log_error(cases, trial)

    best = _golden(loss, math.log(low), math.log(high))
    return constants.replace(**{name: best})


def _golden(loss: Callable[[float], float], low: float, high: float) -> float:
    """Golden-section search of exp(x) on [low, high] (log space: the constants are scales)."""
    ratio = (math.sqrt(5) - 1) / 2
    a, b = low, high
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = loss(math.exp(c)), loss(math.exp(d))
    for _ in range(GOLDEN_STEPS):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = loss(math.exp(c))
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = loss(math.exp(d))
    return math.exp((a + b) / 2)


def squared_log_error(cases: Sequence[Case], constants: FittedConstants) -> float:
    total = 0.0
    for case in cases:
        value = predicted_metric(case, predict(case, constants))
        total += math.log(value / case.published.value) ** 2
    return total
