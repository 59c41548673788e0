"""`gpu-advisor memory ...`: the per-GPU memory breakdown of one explicit configuration."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from planner.cli import SUMMARIES, print_json
from planner.memory import MemoryBreakdown, MemoryConfig, estimate_memory
from planner.messages import format_bytes
from planner.models import ModelSpec, resolve_model
from planner.vocabulary import Layout, LoraTarget, Offload, Optimizer, Precision, Recompute, Runtime, Task

if TYPE_CHECKING:  # profiler.nvml is imported only when --gpu local asks for it
    from profiler.nvml_inventory import GpuInfo

# What the --task flag accepts: every Task spelling ("train" is the documented one for full training).
TASK_CHOICES = Task.choices()


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "memory",
        help=SUMMARIES["memory"],
        description="Per-GPU memory (weights, gradients, optimizer, activations, KV cache, overhead) in bytes.",
    )
    parser.add_argument(
        "--model",
        required=True,
        help="preset id (see `models`), a size such as 7b, a config.json or a model folder",
    )
    parser.add_argument("--task", default="train", choices=TASK_CHOICES)
    parser.add_argument("--precision", default="bf16", choices=Precision.values())
    parser.add_argument(
        "--kv-precision",
        default=None,
        choices=Precision.values(),
        help="KV-cache precision (default: weights')",
    )
    parser.add_argument("--optimizer", default="adamw", choices=Optimizer.values())
    parser.add_argument(
        "--batch",
        type=int,
        default=1,
        help="micro-batch: sequences per GPU per step (inference: concurrent sequences)",
    )
    parser.add_argument(
        "--seq-len",
        type=int,
        default=None,
        help="tokens per sequence (default: 4096, or the model's context if shorter)",
    )
    parser.add_argument("--dp", type=int, default=1, help="data-parallel degree")
    parser.add_argument("--tp", type=int, default=1, help="tensor-parallel degree")
    parser.add_argument("--pp", type=int, default=1, help="pipeline-parallel degree")
    parser.add_argument("--ep", type=int, default=1, help="expert-parallel degree (MoE models)")
    parser.add_argument(
        "--zero", type=int, default=0, choices=[0, 1, 2, 3], help="ZeRO stage (3 = FSDP full shard)"
    )
    parser.add_argument(
        "--recompute", default="none", choices=Recompute.values(), help="activation recompute"
    )
    parser.add_argument(
        "--offload",
        default="none",
        choices=Offload.values(),
        help="CPU offload of optimizer state or of everything",
    )
    parser.add_argument(
        "--runtime",
        default=None,
        choices=Runtime.values(),
        help="training runtime whose memory layout is counted (default: the one the planner chooses)",
    )
    parser.add_argument("--lora-rank", type=int, default=16)
    parser.add_argument(
        "--lora-targets",
        default="q,k,v,o",
        help=f"comma-separated modules to adapt, from {','.join(LoraTarget.values())}",
    )
    parser.add_argument(
        "--no-flash-attention", action="store_true", help="unfused attention that stores the score matrix"
    )
    parser.add_argument(
        "--sequence-parallel", action="store_true", help="Megatron sequence parallel (with --tp)"
    )
    parser.add_argument(
        "--inflight",
        type=int,
        default=None,
        help="pipeline micro-batches in flight on the first stage (default: pp)",
    )
    parser.add_argument(
        "--gpu", default=None, help='catalog GPU id (see `gpus`) or "local" for the GPUs in this machine'
    )
    parser.add_argument(
        "--trace",
        action="store_true",
        help="also run the real Hugging Face model on fake tensors (a config.json or model folder; needs the trace "
        "extra) and show analytic and traced figures side by side",
    )
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(handler=run_memory)


def config_from_args(args: argparse.Namespace) -> MemoryConfig:
    """The configuration the flags describe; the targets are checked by estimate_memory (UserError)."""
    targets = tuple(LoraTarget.parse(t.strip()) for t in args.lora_targets.split(",") if t.strip())
    layout = Layout(
        dp=args.dp, tp=args.tp, pp=args.pp, ep=args.ep, zero=args.zero, recompute=Recompute.parse(args.recompute),
        offload=Offload.parse(args.offload), micro_batch=args.batch,
    )  # fmt: skip
    return MemoryConfig(
        task=Task.parse(args.task),
        precision=Precision.parse(args.precision),
        kv_precision=None if args.kv_precision is None else Precision.parse(args.kv_precision),
        optimizer=Optimizer.parse(args.optimizer),
        layout=layout,
        seq_len=args.seq_len if args.seq_len is not None else 4096,
        flash_attention=not args.no_flash_attention,
        lora_rank=args.lora_rank,
        lora_targets=targets,
        inflight_microbatches=args.inflight,
        sequence_parallel=args.sequence_parallel,
        runtime=None if args.runtime is None else Runtime.parse(args.runtime),
    )


def config_json(config: MemoryConfig, task_text: str) -> dict[str, object]:
    """The --json "config": every setting flat, as the flags name them (the task as the user spelled it)."""
    layout = config.layout
    return {
        "task": task_text,
        "precision": config.precision.value,
        "kv_precision": None if config.kv_precision is None else config.kv_precision.value,
        "optimizer": config.optimizer.value,
        "micro_batch": layout.micro_batch,
        "seq_len": config.seq_len,
        "dp": layout.dp,
        "tp": layout.tp,
        "pp": layout.pp,
        "ep": layout.ep,
        "zero": int(layout.zero),
        "recompute": str(layout.recompute),
        "offload": str(layout.offload),
        "flash_attention": config.flash_attention,
        "lora_rank": config.lora_rank,
        "lora_targets": [str(target) for target in config.lora_targets],
        "inflight_microbatches": config.inflight_microbatches,
        "sequence_parallel": config.sequence_parallel,
        "runtime": None if config.runtime is None else config.runtime.value,
    }


def gpu_capacity(gpu_arg: str, precision: str) -> tuple[str | None, int | None, list[str]]:
    """(GPU name, memory bytes per GPU, notes) for --gpu: a catalog id, or "local" read through NVML."""
    if gpu_arg.strip().lower() == "local":
        return _local_capacity()
    from planner.gpus import get_gpu, precision_refusal

    gpu = get_gpu(gpu_arg)
    notes = []
    refusal = precision_refusal(gpu, precision)
    if refusal:
        notes.append(refusal)
    return gpu.name, gpu.memory_bytes, notes


def _local_capacity() -> tuple[str | None, int | None, list[str]]:
    from profiler.nvml_inventory import read_inventory

    inventory = read_inventory()
    if not inventory.available or not inventory.gpus:
        reason = inventory.reason or "no NVIDIA GPU found"
        return None, None, [f"cannot say whether it fits here: {reason}"]
    usable = [_usable_bytes(gpu) for gpu in inventory.gpus]
    sizes = [size for size in usable if size is not None]
    if not sizes:
        return None, None, ["cannot say whether it fits here: NVML reports no memory size for these GPUs"]
    smallest = min(range(len(usable)), key=lambda i: _size_or_max(usable[i]))
    name = inventory.gpus[smallest].name
    name = name if isinstance(name, str) else "local GPU"
    notes = [f"this machine has {len(inventory.gpus)} GPU(s); compared with the smallest, {name}"]
    for gpu in inventory.gpus:
        if _mig_sizes(gpu):
            notes.append(
                f"MIG is on for GPU {gpu.index}: a process sees one of its {len(_mig_sizes(gpu))} instance(s), "
                f"so the largest instance ({format_bytes(max(_mig_sizes(gpu)), unit='GiB', decimals=1)}) counts, "
                "not the whole card"
            )
    return name, min(sizes), notes


def _mig_sizes(gpu: GpuInfo) -> list[int]:
    """Memory in bytes of each MIG instance of an NVML GPU ([] when MIG is off or NVML gives no sizes)."""
    if gpu.mig_mode != "enabled" or not isinstance(gpu.mig_devices, list):
        return []
    sizes = (d.get("memory_total_bytes") for d in gpu.mig_devices)
    return [size for size in sizes if isinstance(size, int) and not isinstance(size, bool)]


def _usable_bytes(gpu: GpuInfo) -> int | None:
    """What one CUDA process can allocate on this GPU: the whole card, or with MIG on, its largest instance."""
    mig = _mig_sizes(gpu)
    if mig:
        return max(mig)
    return gpu.memory_total_bytes if isinstance(gpu.memory_total_bytes, int) else None


def _size_or_max(value: int | None) -> int:
    return value if isinstance(value, int) else 2**62


def result_json(
    model: ModelSpec,
    config: MemoryConfig,
    task_text: str,
    breakdown: MemoryBreakdown,
    fits: bool | None,
    gpu_name: str | None,
    notes: list[str],
) -> dict[str, object]:
    return {
        "model": {
            "name": model.display_name,
            "params": model.total_params,
            "active_params": model.active_params,
        },
        "config": config_json(config, task_text),
        "per_gpu_bytes": breakdown.as_dict(),
        "fits": fits,
        "gpu": gpu_name,
        "notes": notes,
        "assumptions": breakdown.assumptions(),
        "pipeline_stage": breakdown.pipeline_stage,
        "host_offload_bytes": breakdown.host_offload_bytes,
        "peak": {"phase": breakdown.peak_phase, "not_concurrent_bytes": breakdown.not_concurrent_bytes},
        "runtime": breakdown.runtime or None,
    }


def run_memory(args: argparse.Namespace) -> int:
    model = resolve_model(args.model)
    if args.seq_len is None:  # the default never exceeds the model's context (gpt2: 1024 positions)
        args.seq_len = min(4096, model.max_context)
    config = config_from_args(args)
    breakdown = estimate_memory(model, config)
    notes = list(breakdown.notes)
    fits = gpu_name = capacity = None
    if args.gpu:
        gpu_name, capacity, gpu_notes = gpu_capacity(args.gpu, config.precision)
        notes.extend(gpu_notes)
        if capacity is not None:
            fits = breakdown.total_bytes <= capacity
    trace = _trace(model, config, breakdown) if args.trace else None  # before any output: a failure exits 2
    if args.json:
        document = result_json(model, config, args.task, breakdown, fits, gpu_name, notes)
        if trace is not None:
            document["trace"] = trace
        print_json(document)
        return 0
    print_table(model, config, args.task, breakdown, (fits, gpu_name, capacity), notes)
    if trace is not None:
        print()
        print_trace(model, trace)
    return 0


def print_table(
    model: ModelSpec,
    config: MemoryConfig,
    task_text: str,
    breakdown: MemoryBreakdown,
    verdict_on: tuple[bool | None, str | None, int | None],
    notes: list[str],
) -> None:
    """The breakdown as docs/cli.md shows it; verdict_on: (fits, GPU name, bytes per GPU) when --gpu was given."""
    fits, gpu_name, capacity = verdict_on
    layout = config.layout
    active = (
        "" if model.active_params == model.total_params else f", {model.active_params / 1e9:.2f} B active"
    )
    print(f"{model.display_name}: {model.total_params / 1e9:.2f} B parameters{active}")
    degrees = f"dp {layout.dp} x tp {layout.tp} x pp {layout.pp}" + (
        f", ep {layout.ep}" if layout.ep > 1 else ""
    )
    print(
        f"{task_text}, {config.precision}, micro-batch {layout.micro_batch} x {config.seq_len:,} tokens, {degrees}"
        + (f", ZeRO-{int(layout.zero)}" if layout.zero else "")
        + (f", offload {layout.offload}" if layout.offload != Offload.NONE else "")
        + (f", runtime {breakdown.runtime}" if breakdown.runtime else "")
    )
    print()
    width = max(len(format_bytes(breakdown.total_bytes, unit="GiB", decimals=2)), 10)
    print(f"{'per GPU':<12} {'memory':>{width}}  assumption")
    print(f"{'-' * 12} {'-' * width}  {'-' * 10}")
    for name, term in breakdown.terms():
        print(f"{name:<12} {format_bytes(term.bytes, unit='GiB', decimals=2):>{width}}  {term.assumption}")
    if breakdown.not_concurrent_bytes:
        held_apart = format_bytes(-breakdown.not_concurrent_bytes, unit="GiB", decimals=2)
        print(
            f"{'not at once':<12} {held_apart:>{width}}  gradients and activations are never held together "
            f"(one backward per step): the total is the step's peak, at the {breakdown.peak_phase}"
        )
    print(f"{'-' * 12} {'-' * width}")
    print(f"{'total':<12} {format_bytes(breakdown.total_bytes, unit='GiB', decimals=2):>{width}}")
    if gpu_name is not None and capacity is not None:
        verdict = "fits" if fits else "does NOT fit"
        print(f"\n{verdict} on {gpu_name} ({format_bytes(capacity, unit='GiB', decimals=2)} per GPU)")
    elif gpu_name is None and capacity is None and notes and any("cannot say" in n for n in notes):
        print("\nfits: unknown")
    if notes:
        print("\nnotes:")
        for note in notes:
            print(f"  - {note}")


def _trace(model: ModelSpec, config: MemoryConfig, breakdown: MemoryBreakdown) -> dict[str, object]:
    """The `--json` "trace" object: the tracing child's result beside the analytic figures (UserError if it fails)."""
    from planner.cli.memory_trace_run import run_trace
    from planner.memory.trace import comparison, trace_arguments

    traced, wall_s = run_trace(trace_arguments(model, config))
    return {
        "wall_s": round(wall_s, 1),
        "traced": {k: v for k, v in traced.items() if k != "timeline"},
        "timeline": traced.get("timeline", []),
        "comparison": comparison(breakdown, traced),
    }


def print_trace(model: ModelSpec, trace: dict[str, object]) -> None:
    """The analytic and traced figures side by side, each row with why they differ."""
    rows = trace["comparison"]
    assert isinstance(rows, dict)
    print(f"{model.display_name}: analytic against traced (fake tensors, {trace['wall_s']} s)")
    print(f"{'term':<12} {'analytic':>12} {'traced':>12} {'ratio':>7}  why")
    for name, row in rows.items():
        analytic, traced_bytes, ratio = row["analytic_bytes"], row["traced_bytes"], row["ratio"]
        assert isinstance(analytic, int) and isinstance(traced_bytes, int)
        print(
            f"{name:<12} {format_bytes(analytic, unit='GiB', decimals=2):>12} "
            f"{format_bytes(traced_bytes, unit='GiB', decimals=2):>12} "
            f"{f'{ratio:.3f}' if ratio is not None else '-':>7}  {row['why']}"
        )
