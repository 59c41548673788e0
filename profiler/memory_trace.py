"""Exact memory of one training step or one generate call, by running the real Hugging Face model on fake tensors.

``python -m profiler.memory_trace --config config.json --task train ...`` builds the model that transformers
builds from a local config.json, inside torch's FakeTensorMode (tensors with shapes, dtypes and devices but no
storage: a 70B model "allocates" nothing), runs one real step -- forward, backward and a fused AdamW step for
training (mixed precision by autocast, LoRA adapters through peft, activation checkpointing on or off), or a
prefill with a KV cache plus one decoded token for inference -- and accounts every tensor torch creates with
torch.distributed._tools.mem_tracker.MemTracker (TorchTitan's scripts/estimate/estimation.py does the same for
its own models). With --dp N and --zero 2/3 the model is sharded with FSDP2 ``fully_shard`` (each decoder layer
one unit, the root the rest) over a fake process group of N ranks, and the figures are rank 0's. --tp, --pp and
--ep give one rank of a model-parallel layout (profiler/trace_parallel.py): TorchTitan's tensor-parallel plan over
the fake group (a 2-D (dp, tp) mesh with FSDP2), one pipeline stage's module holding 1F1B's in-flight
micro-batches (the first and the last stage are traced, the fuller one reported), num_experts / ep experts per MoE
layer. torch.distributed.pipelining is not used: a stage's memory is its own module's step with the received hidden
states as input and a gradient of their shape from the next stage.

It prints JSON lines on stdout: {"event": "progress", "stage": ..., "elapsed_s": ...} while it works and one
{"event": "result", "result": {...}} (or {"event": "error", "message": ...}) at the end; --real runs the same
step on real CPU tensors (the tests compare the two). torch, transformers and peft are imported only here, in
this child process: the GUI and the planner never import them.

Categories (bytes): parameters (sharded ones under FSDP2), gathered_parameters (FSDP2's unsharded compute copies),
buffers, gradients (sharded under FSDP2), gathered_gradients (FSDP2's unsharded ones before reduce-scatter),
optimizer (state and what the optimizer step allocates), activations (tensors made in the forward pass: what
autograd saves, the logits, the KV cache), temporaries (tensors made in the backward pass: gradients of
activations), communication (FSDP2's all-gather and reduce-scatter buffers), other (the inputs). ``at_peak`` is each category at the moment of
the step's peak, ``max`` each category at its own maximum, ``timeline`` the total after each sampled operator.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from profiler.jsontypes import JSONObject, JSONValue
from profiler.trace_accounting import (
    Accounting,
    dtensor_propagation_untracked,
    no_hooks_on_frozen,
    recording_tracker,
    thin_timeline,
)
from profiler.trace_model import (
    TraceError,
    add_lora,
    build_causal_lm,
    decoder_layers,
    dtype_of,
    read_config,
)
from profiler.trace_request import TraceRequest, fsdp_sharded, group_size
from profiler.trace_setup import (
    autocast_for,
    current_rank,
    device_meshes,
    fake_process_group,
    new_optimizers,
    random_tokens,
    real_process_group,
    shard_model,
    trainable_parameters,
    under_torchrun,
    warm_optimizers,
)

if TYPE_CHECKING:
    import torch
    from torch import nn

SCHEMA = "gpu-advisor.memory-trace"
VERSION = 1
TASKS = ("pretrain", "finetune", "lora", "inference")
PRECISIONS = ("fp32", "bf16", "fp16")
TIMELINE_POINTS = 400  # samples kept of the step's timeline


# --------------------------------------------------------------------------------------------------------------
# The step
# --------------------------------------------------------------------------------------------------------------

Progress = Callable[[str], None]


@dataclass(frozen=True)
class StagePlan:
    """The part of the model this rank runs: the pipeline stage (index of pp, its layers) and its micro-batches
    in flight; a whole model is stage 0 of 1 with one micro-batch."""

    index: int = 0
    pp: int = 1
    first_layer: int = 0
    end_layer: int = 0
    inflight: int = 1
    experts_per_rank: int = 0  # expert parallel: the experts each MoE layer keeps on this rank

    @property
    def first(self) -> bool:
        return self.index == 0

    @property
    def last(self) -> bool:
        return self.index == self.pp - 1


def _stage_input(model: nn.Module, request: TraceRequest, stage: StagePlan, tokens: torch.Tensor, mesh: Any,
                 sharded: bool) -> dict[str, Any]:  # fmt: skip
    """The model's inputs on this stage: the token ids on the first, else the hidden states received from the
    previous stage (the residual stream's dtype, requiring their gradient; sequence-sharded under sequence
    parallel)."""
    import torch

    if stage.first:
        return {"input_ids": tokens}
    hidden = int(getattr(model, "config").hidden_size)  # noqa: B009  (a transformers model's config)
    training = request.task != "inference"
    dtype = (
        dtype_of(request.precision) if sharded or request.task in ("lora", "inference") else dtype_of("fp32")
    )
    length = tokens.shape[1]
    received: torch.Tensor
    if request.sequence_parallel and mesh is not None:
        from torch.distributed.tensor import DTensor, Shard

        local = torch.randn(tokens.shape[0], length // request.tp, hidden, dtype=dtype, device=request.device)
        received = DTensor.from_local(local, mesh, [Shard(1)], run_check=False)
    else:
        received = torch.randn(tokens.shape[0], length, hidden, dtype=dtype, device=request.device)
    return {"inputs_embeds": received.requires_grad_(training)}


def _stage_forward(model: nn.Module, stage: StagePlan, tokens: torch.Tensor, inputs: dict[str, Any]) -> Any:
    """The loss on the last stage; elsewhere the hidden states sent on (the LM head is an identity there)."""
    if stage.last:
        return model(**inputs, labels=tokens).loss
    return model(**inputs).logits


def _stage_backward(output: Any) -> None:
    """backward from the loss, or from the gradient the next stage sends (the output's shape and dtype)."""
    import torch

    if output.dim() == 0:
        output.backward()
    else:
        torch.autograd.backward(output, torch.ones_like(output))


def _loss_parallel(tp_mesh: Any, stage: StagePlan) -> contextlib.AbstractContextManager[Any]:
    """torch's loss_parallel where the LM head's logits are vocabulary-sharded DTensors."""
    if tp_mesh is None or not stage.last:
        return contextlib.nullcontext()
    from torch.distributed.tensor.parallel import loss_parallel

    return loss_parallel()


def _run_training(model: nn.Module, request: TraceRequest, vocab: int, sharded: bool, progress: Progress,
                  stage: StagePlan, tp_mesh: Any) -> Accounting:  # fmt: skip
    """One step: the stage's in-flight micro-batches forward (1F1B's steady state holds them all), their
    backwards in order, the optimizer step."""
    model.train()
    optimizers = new_optimizers(model)
    progress("creating optimizer state")
    warm_optimizers(optimizers)
    tokens = random_tokens(vocab, request.batch, request.seq_len, request.device)
    inputs = [_stage_input(model, request, stage, tokens, tp_mesh, sharded) for _ in range(stage.inflight)]
    received = [value for batch in inputs for value in batch.values() if value is not tokens]
    accounting = Accounting()
    tracker = recording_tracker(model if sharded else None, optimizers[0], accounting)
    _reset_cuda_peak(request)
    no_hooks_on_frozen(tracker, model)
    if sharded:
        tracker.track_inputs((tokens, *received))
    else:
        tracker.track_external(model, *optimizers, tokens, *received)
    with tracker, _loss_parallel(tp_mesh, stage):
        outputs: list[Any] = []
        for number in range(stage.inflight):
            progress("forward" if stage.inflight == 1 else f"forward, micro-batch {number + 1}")
            if number:
                tracker.reset_mod_stats()  # per-module statistics only: MemTracker follows one call per module
            with autocast_for(request, sharded):
                outputs.append(_stage_forward(model, stage, tokens, inputs[number]))
        tracker.phase = "backward"
        for number in range(stage.inflight):
            progress("backward" if stage.inflight == 1 else f"backward, micro-batch {number + 1}")
            _stage_backward(outputs[number])
            outputs[number] = None  # its graph is freed; the other micro-batches' stay
        del outputs
        progress("optimizer step")
        for optimizer in optimizers:
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
    return accounting


def _reset_cuda_peak(request: TraceRequest) -> None:
    """Start torch.cuda's peak counters at the step (the weights and optimizer state already count as allocated)."""
    if request.device == "cuda":
        import torch

        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()


def cuda_memory() -> JSONObject:
    """torch.cuda's own figures for the step: the allocator's peak of allocated, active and reserved bytes."""
    import torch

    torch.cuda.synchronize()
    stats = torch.cuda.memory_stats()
    return {
        "max_memory_allocated_bytes": int(torch.cuda.max_memory_allocated()),
        "active_bytes_peak": int(stats.get("active_bytes.all.peak", 0)),
        "reserved_bytes_peak": int(stats.get("reserved_bytes.all.peak", 0)),
        "num_alloc_retries": int(stats.get("num_alloc_retries", 0)),
    }


def _cache_bytes(cache: Any) -> int:
    """Bytes of a transformers Cache's key and value tensors."""
    import torch

    total = 0
    for layer in getattr(cache, "layers", []):
        for name in ("keys", "values", "compressed_kv", "k_pe"):
            tensor = getattr(layer, name, None)
            if isinstance(tensor, torch.Tensor):
                total += tensor.untyped_storage().nbytes()
    return total


def _run_inference(model: nn.Module, request: TraceRequest, vocab: int, progress: Progress, stage: StagePlan,
                   tp_mesh: Any) -> tuple[Accounting, int]:  # fmt: skip
    """Prefill of batch x seq_len tokens with a KV cache (last-position logits, as generate asks), then decode;
    a later pipeline stage receives the hidden states of the prompt and then of each new token."""
    import torch
    from transformers import DynamicCache

    model.eval()
    prompt_len = max(1, request.seq_len - request.new_tokens)
    tokens = random_tokens(vocab, request.batch, prompt_len, request.device)
    prompt = _stage_input(model, request, stage, tokens, tp_mesh, False)
    accounting = Accounting()
    tracker = recording_tracker(None, None, accounting)
    _reset_cuda_peak(request)
    tracker.track_external(model, *prompt.values())
    cache_bytes = 0
    progress("prefill")
    with tracker, torch.no_grad():
        cache = DynamicCache(config=getattr(model, "config", None))
        out = model(**prompt, past_key_values=cache, use_cache=True, logits_to_keep=1)
        for index in range(request.new_tokens):
            tracker.phase = "decode"
            tracker.reset_mod_stats()  # per-module statistics only (one call each); the step's peak stays
            progress(f"decode token {index + 1}")
            if stage.first and tp_mesh is None:
                step: dict[str, Any] = {"input_ids": out.logits[:, -1:].argmax(-1)}
            elif stage.first:  # vocabulary-sharded logits: the next token's id does not change the memory
                step = {"input_ids": tokens[:, -1:]}
            else:
                step = _stage_input(model, request, stage, tokens[:, :1], tp_mesh, False)
            out = model(**step, past_key_values=out.past_key_values, use_cache=True)
        cache_bytes = _cache_bytes(out.past_key_values)
    return accounting, cache_bytes


def _check(request: TraceRequest) -> None:
    if request.task not in TASKS:
        raise TraceError(
            f"task must be one of {', '.join(TASKS)} (QLoRA's 4-bit kernels need CUDA: trace lora)"
        )
    if request.precision not in PRECISIONS:
        raise TraceError(f"precision must be one of {', '.join(PRECISIONS)} for a trace")
    for name in ("batch", "seq_len", "dp", "lora_rank", "tp", "pp", "ep"):
        value = getattr(request, name)
        if not isinstance(value, int) or value <= 0:
            raise TraceError(f"{name} must be a positive whole number, got {value!r}")
    if request.zero not in (0, 1, 2, 3):
        raise TraceError(f"zero must be 0, 1, 2 or 3, got {request.zero!r}")
    if request.attention not in ("sdpa", "eager"):
        raise TraceError("attention must be sdpa or eager")
    if request.device not in ("cpu", "cuda") or (request.device == "cuda" and request.fake):
        raise TraceError("device must be cpu, or cuda with real tensors (--real)")
    if not -1 <= request.stage < request.pp:
        raise TraceError(f"stage must be -1 (first and last) or 0 to {request.pp - 1}, got {request.stage!r}")
    if request.task == "lora" and request.tp > 1:
        raise TraceError("LoRA is traced without tensor parallel (peft's adapters on DTensor layers are not)")
    if request.sequence_parallel and request.seq_len % request.tp:
        raise TraceError(
            f"sequence parallel needs tp {request.tp} to divide the sequence ({request.seq_len})"
        )


def trace(request: TraceRequest, progress: Progress = lambda stage: None) -> JSONObject:
    """Run the step `request` describes and return its memory accounting (see the module docstring); with pp > 1
    and stage -1 the first and the last stage are traced and the fuller one is returned, both under "stages"."""
    _check(request)
    data = read_config(request.config)
    started = time.monotonic()
    ranks = group_size(request)
    group: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    if ranks > 1:
        group = real_process_group(ranks) if under_torchrun(request) else fake_process_group(ranks)
    indices = [request.stage] if request.stage >= 0 else sorted({0, request.pp - 1})
    with group, dtensor_propagation_untracked():
        dp_mesh, tp_mesh = device_meshes(request)
        results = [
            _stage_trace(request, data, index, dp_mesh, tp_mesh, progress, started) for index in indices
        ]
    fullest = max(results, key=lambda result: int(str(result["peak_bytes"])))
    if request.pp > 1:
        fullest["stages"] = [
            {key: result[key] for key in ("stage", "peak_bytes", "peak_phase", "at_peak")}
            for result in results
        ]
    fullest["seconds"] = round(time.monotonic() - started, 2)
    return fullest


def _stage_trace(request: TraceRequest, data: dict[str, Any], index: int, dp_mesh: Any, tp_mesh: Any,
                 progress: Progress, started: float) -> JSONObject:  # fmt: skip
    """One stage's step in its own FakeTensorMode (fake tensors of one stage never meet another's)."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode

    fake = FakeTensorMode(allow_non_fake_inputs=False) if request.fake else contextlib.nullcontext()
    torch.manual_seed(0)
    with fake:
        return _traced(request, data, index, (dp_mesh, tp_mesh), progress, started)


def _traced(request: TraceRequest, data: dict[str, Any], index: int, meshes: tuple[Any, Any],
            progress: Progress, started: float) -> JSONObject:  # fmt: skip
    """The step itself (inside the fake process group and FakeTensorMode when asked)."""
    training = request.task != "inference"
    dp_mesh, tp_mesh = meshes
    sharded = dp_mesh is not None
    # Training keeps fp32 weights (autocast or FSDP2's policy casts them); LoRA's frozen base and inference hold
    # the weights in the chosen dtype.
    weights = request.precision if request.task in ("lora", "inference") else "fp32"
    progress(
        "building the model" if request.pp == 1 else f"building pipeline stage {index + 1} of {request.pp}"
    )
    model: Any = build_causal_lm(
        data, weights, request.attention, request.fake, request.device
    )  # transformers'
    vocab = int(model.config.vocab_size)
    parameter_count = sum(p.numel() for p in model.parameters())
    stage = _split(model, request, index, tp_mesh)
    if request.task == "lora":
        model = add_lora(
            model, data["model_type"], request.lora_rank, request.lora_targets, request.lora_modules
        )
    if training and request.recompute:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if sharded:
        progress(f"sharding over {request.dp} fake ranks")
        with _outside_fake_mode():  # FSDP2 + TP builds a (dp, tp) DeviceMesh: rank arithmetic on real tensors
            model = shard_model(model, request, dp_mesh)
    trainable = sum(_local_numel(p) for p in trainable_parameters(model)) if training else 0
    kv_cache_bytes = 0
    if training:
        accounting = _run_training(model, request, vocab, sharded, progress, stage, tp_mesh)
    else:
        accounting, kv_cache_bytes = _run_inference(model, request, vocab, progress, stage, tp_mesh)
    result = _result(
        request, data, accounting, parameter_count, trainable, kv_cache_bytes, time.monotonic() - started
    )
    result["stage"] = asdict(stage)
    if stage.experts_per_rank:
        result["experts_per_rank"] = stage.experts_per_rank
    result["local_parameter_count"] = sum(_local_numel(p) for p in model.parameters())
    if request.device == "cuda":
        result["cuda"] = cuda_memory()
    return result


def _outside_fake_mode() -> contextlib.AbstractContextManager[Any]:
    """FakeTensorMode set aside (fake tensors still dispatch to their own mode)."""
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    return unset_fake_temporarily()


def _local_numel(tensor: torch.Tensor) -> int:
    """Elements this rank holds: a DTensor's local shard, a plain tensor's own."""
    local = getattr(tensor, "_local_tensor", tensor)
    return int(local.numel())


def _split(
    model: Any, request: TraceRequest, index: int, tp_mesh: Any
) -> StagePlan:  # Any: a transformers model
    """This rank's part of the model, in place: its pipeline stage, its experts, its tensor-parallel shards."""
    from profiler import trace_parallel

    try:
        layers = len(decoder_layers(model))
        start, end = 0, layers
        if request.pp > 1:
            if request.pp > layers:
                raise TraceError(f"pp {request.pp} is more than the model's {layers} layers")
            start, end = trace_parallel.keep_stage(model, request.pp, index)
        experts = trace_parallel.keep_local_experts(model, request.ep) if request.ep > 1 else 0
        if tp_mesh is not None:
            trace_parallel.check_tensor_parallel(model, decoder_layers(model), request.tp)
            tied = _tied(model)
            trace_parallel.tensor_parallel(model, tp_mesh, request.sequence_parallel)
            if tied:  # parallelize_module swaps each module's weight: share the sharded embedding again
                model.lm_head.weight = model.get_input_embeddings().weight
    except trace_parallel.ParallelError as exc:
        raise TraceError(str(exc)) from None
    inflight = 1
    if request.task != "inference" and request.pp > 1:
        inflight = trace_parallel.inflight_microbatches(request.pp, index, request.inflight)
    return StagePlan(index, request.pp, start, end, inflight, experts)


def _tied(model: nn.Module) -> bool:
    head, embedding = getattr(model, "lm_head", None), model.get_input_embeddings()  # type: ignore[operator]
    return head is not None and getattr(head, "weight", None) is getattr(embedding, "weight", 0)


def _result(request: TraceRequest, data: dict[str, Any], accounting: Accounting, parameter_count: int,
            trainable: int, kv_cache_bytes: int, seconds: float) -> JSONObject:  # fmt: skip
    at_peak: JSONObject = dict(accounting.at_peak)
    maxima: JSONObject = dict(accounting.maxima)
    result: JSONObject = {
        "schema": SCHEMA,
        "version": VERSION,
        "request": {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(request).items()},
        "model_type": data["model_type"],
        "fake_tensors": request.fake,
        "parameter_count": parameter_count,
        "trainable_parameter_count": trainable,
        "rank": current_rank(),
        "world_size": group_size(request),
        "sharded": fsdp_sharded(request),
        "peak_bytes": accounting.peak_bytes,
        "peak_phase": accounting.peak_phase,
        "at_peak": at_peak,
        "max": maxima,
        "activations_until_first_gradient_bytes": accounting.working,
        "kv_cache_bytes": kv_cache_bytes,
        "operators": accounting.ops,
        "timeline": thin_timeline(accounting.samples, TIMELINE_POINTS),
        "seconds": round(seconds, 2),
    }
    if request.task != "inference" and request.zero == 1 and request.dp > 1:
        # ZeRO-1 (DeepSpeed) partitions the optimizer state evenly over the data-parallel ranks.
        result["zero1_optimizer_bytes_per_rank"] = math.ceil(accounting.maxima["optimizer"] / request.dp)
    return result


def generate_on_gpu(request: TraceRequest, progress: Progress = lambda stage: None) -> JSONObject:
    """transformers' generate() on cuda:0 (greedy, exactly new_tokens tokens after a seq_len - new_tokens prompt):
    torch.cuda's peak and the decode rate, timed as the difference between a long and a one-token generate."""
    import torch

    if request.device != "cuda" or request.fake or request.task != "inference":
        raise TraceError(
            "generate runs inference with real tensors on cuda (--task inference --real --device cuda)"
        )
    if request.new_tokens < 2:
        raise TraceError("generate needs at least 2 new tokens to time the decode")
    data = read_config(request.config)
    progress("building the model on the GPU")
    model: Any = build_causal_lm(data, request.precision, request.attention, fake=False, device="cuda").eval()
    prompt = random_tokens(
        int(model.config.vocab_size), request.batch, max(1, request.seq_len - request.new_tokens), "cuda"
    )

    def run(tokens: int) -> float:
        torch.cuda.synchronize()
        started = time.perf_counter()
        with torch.no_grad():
            model.generate(prompt, max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False,
                           attention_mask=torch.ones_like(prompt), pad_token_id=0)  # fmt: skip
        torch.cuda.synchronize()
        return time.perf_counter() - started

    progress("warm-up")
    run(2)
    torch.cuda.reset_peak_memory_stats()
    progress(f"generate {request.new_tokens} tokens")
    long_s = run(request.new_tokens)
    memory = cuda_memory()
    short_s = run(1)
    decode_s = max(long_s - short_s, 1e-9) / (request.new_tokens - 1)
    return {
        "schema": SCHEMA, "version": VERSION, "model_type": data["model_type"],
        "parameter_count": sum(p.numel() for p in model.parameters()), "cuda": memory,
        "generate_s": round(long_s, 4), "prefill_and_one_token_s": round(short_s, 4),
        "decode_s_per_token": decode_s, "decode_tokens_per_s": request.batch / decode_s,
        "request": {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(request).items()},
    }  # fmt: skip


def run_cases(path: str, generate: bool, progress: Progress = lambda stage: None) -> JSONObject:
    """Each request of a JSON list (TraceRequest fields) in turn, in this process (the device check starts one
    child per kind of run, not one per model); a failing case records its error and the others go on."""
    import gc

    try:
        raw = Path(path).read_text(encoding="utf-8")
        entries = json.loads(raw)
    except (OSError, ValueError) as exc:
        raise TraceError(f"cannot read the cases {path}: {exc}") from None
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise TraceError(f"{path}: a JSON list of requests is expected")
    results: list[JSONValue] = []
    for index, entry in enumerate(entries):
        progress(f"case {index + 1} of {len(entries)}")
        try:
            fields = {**entry, "lora_targets": tuple(entry.get("lora_targets", ("q", "k", "v", "o"))),
                      "lora_modules": tuple(entry.get("lora_modules", ()))}  # fmt: skip
            request = TraceRequest(**fields)
            results.append(generate_on_gpu(request, progress) if generate else trace(request, progress))
        except (TraceError, TypeError, RuntimeError, ValueError) as exc:  # one case's failure (an OOM too)
            results.append({"error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:400]}"})
        gc.collect()
        _empty_cuda_cache()
    return {"cases": results}


def _empty_cuda_cache() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.empty_cache()


# --------------------------------------------------------------------------------------------------------------
# The child process's command line
# --------------------------------------------------------------------------------------------------------------


def _emit(event: JSONObject) -> None:
    if current_rank() != 0:  # under torchrun only rank 0 speaks
        return
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m profiler.memory_trace", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--config", default=None, help="a config.json or a folder holding one")
    parser.add_argument("--task", default="pretrain", choices=TASKS)
    parser.add_argument("--precision", default="bf16", choices=PRECISIONS)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--seq-len", type=int, default=1024)
    parser.add_argument("--recompute", action="store_true", help="activation checkpointing of every layer")
    parser.add_argument("--attention", default="sdpa", choices=("sdpa", "eager"))
    parser.add_argument("--lora-rank", type=int, default=16)
    parser.add_argument("--lora-targets", default="q,k,v,o")
    parser.add_argument(
        "--lora-modules", default="", help="peft's target_modules, comma-separated (the planner's)"
    )
    parser.add_argument("--dp", type=int, default=1)
    parser.add_argument("--zero", type=int, default=0, choices=(0, 1, 2, 3))
    parser.add_argument("--tp", type=int, default=1, help="tensor-parallel ranks (TorchTitan's plan)")
    parser.add_argument("--pp", type=int, default=1, help="pipeline stages (one stage traced)")
    parser.add_argument("--ep", type=int, default=1, help="expert-parallel ranks (num_experts / ep per rank)")
    parser.add_argument("--sequence-parallel", action="store_true", help="with --tp: sequence-sharded norms")
    parser.add_argument("--inflight", type=int, default=0, help="pipeline micro-batches held (0: 1F1B's)")
    parser.add_argument("--stage", type=int, default=-1, help="pipeline stage traced (-1: first and last)")
    parser.add_argument(
        "--real", action="store_true", help="real CPU tensors instead of fake ones (small models)"
    )
    parser.add_argument("--new-tokens", type=int, default=1)
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="cuda: with --real only")
    parser.add_argument(
        "--cases",
        default=None,
        help="a JSON file with a list of requests (TraceRequest fields) run one after another in this process; "
        'the result is {"cases": [result or {"error": ...}, ...]}',
    )
    parser.add_argument(
        "--generate", action="store_true",
        help="inference on a GPU: transformers' generate() measured by torch.cuda, with decode tokens/s",
    )  # fmt: skip
    return parser


def request_from_args(args: argparse.Namespace) -> TraceRequest:
    targets = tuple(t.strip() for t in args.lora_targets.split(",") if t.strip())
    modules = tuple(m.strip() for m in args.lora_modules.split(",") if m.strip())
    return TraceRequest(
        config=args.config, task=args.task, precision=args.precision, batch=args.batch, seq_len=args.seq_len,
        recompute=args.recompute, attention=args.attention, lora_rank=args.lora_rank, lora_targets=targets,
        lora_modules=modules,
        dp=args.dp, zero=args.zero, fake=not args.real, new_tokens=args.new_tokens, device=args.device,
        tp=args.tp, pp=args.pp, ep=args.ep, sequence_parallel=args.sequence_parallel, inflight=args.inflight,
        stage=args.stage,
    )  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    started = time.monotonic()

    def progress(stage: str) -> None:
        _emit({"event": "progress", "stage": stage, "elapsed_s": round(time.monotonic() - started, 2)})

    progress("importing torch and transformers")
    try:
        if args.cases:
            result = run_cases(args.cases, args.generate, progress)
        elif not args.config:
            raise TraceError("--config (or --cases) is required")
        else:
            request = request_from_args(args)
            result = generate_on_gpu(request, progress) if args.generate else trace(request, progress)
    except TraceError as exc:
        _emit({"event": "error", "message": str(exc)})
        return 2
    except ImportError as exc:
        _emit(
            {
                "event": "error",
                "message": f"{exc.name or exc}: install the trace extra (pip install -e '.[trace]')",
            }
        )
        return 2
    except Exception as exc:  # the parent shows one line; whatever transformers or torch raised ends up here
        _emit({"event": "error", "message": f"{type(exc).__name__}: {' '.join(str(exc).split())[:800]}"})
        return 1
    _emit({"event": "result", "result": result})
    return 0


if __name__ == "__main__":
    sys.exit(main())
