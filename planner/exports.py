"""Exports of one chosen plan option: launch configs for the tools people actually run, and a report.

export_plan() writes six files into a folder:
  report.md               inputs, chosen option, memory breakdown, ranked options, excluded strategies, advice,
                          every assumption and source; embeds chart PNGs when the caller passes them (the GUI does)
  report.pdf              the same text as a small self-contained PDF (pure Python, so the CLI writes it too)
  ds_config.json          DeepSpeed config (https://www.deepspeed.ai/docs/config-json/): ZeRO stage, offload,
                          bf16/fp16, micro-batch, gradient accumulation, train_batch_size = micro x GA x dp
  accelerate_config.yaml  Hugging Face accelerate config: DEEPSPEED, FSDP, MEGATRON_LM, MULTI_GPU or NO
  launch.sh               torchrun (or vLLM for serving) command line with the node and GPU counts
  options.csv             every ranked option, machine-readable (bytes, seconds, money amount + currency)

Pure: the functions here build strings from the planner's frozen results; only export_plan() touches the disk.
The option/result objects are the ones planner.search.plan() returns (PlanOption, PlanResult); they are read by
attribute name, so this module does not import search.py and stays cheap to import.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import struct
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

# File names, in the order export_plan writes them.
REPORT_MD = "report.md"
REPORT_PDF = "report.pdf"
DS_CONFIG = "ds_config.json"
ACCELERATE_CONFIG = "accelerate_config.yaml"
LAUNCH_SH = "launch.sh"
OPTIONS_CSV = "options.csv"
EXPORT_FILES = (REPORT_MD, REPORT_PDF, DS_CONFIG, ACCELERATE_CONFIG, LAUNCH_SH, OPTIONS_CSV)

GIB = 1024**3
TRAINING_TASKS = ("train", "pretrain", "finetune", "lora", "qlora")
# accelerate's mixed_precision values ("no" | "fp16" | "bf16" | "fp8").
_ACCELERATE_PRECISION = {"bf16": "bf16", "fp16": "fp16", "fp8": "fp8"}

OPTIONS_CSV_COLUMNS = (
    "rank", "gpu_id", "gpu_name", "gpus", "nodes", "dp", "tp", "pp", "ep", "zero", "recompute", "offload",
    "micro_batch", "gradient_accumulation_steps", "fits", "memory_per_gpu_bytes", "gpu_memory_bytes",
    "step_time_s", "tokens_per_s", "wall_time_s", "gpu_hours", "cost_amount", "cost_currency",
    "cost_per_million_tokens_amount", "cost_per_million_tokens_currency", "confidence",
)  # fmt: skip


# --------------------------------------------------------------------------------------------------- helpers


def _get(obj: Any, name: str, default: Any = None) -> Any:
    """Attribute or mapping key `name` of obj (results may arrive as dataclasses or as their JSON dicts)."""
    if obj is None:
        return default
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def plain_inputs(inputs: Mapping[str, Any] | None) -> dict[str, Any]:
    """The caller's inputs as a flat, JSON-safe dict (dataclass values such as a Workload are expanded)."""
    flat: dict[str, Any] = {}
    for key, value in (inputs or {}).items():
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            for sub_key, sub_value in dataclasses.asdict(value).items():
                flat.setdefault(sub_key, sub_value)
        elif hasattr(value, "name") and not isinstance(value, (str, int, float, bool)):
            flat[key] = value.name  # a ModelSpec or GpuSpec: its name is what a reader wants
        else:
            flat[key] = value
    return flat


def task_of(option: Any, inputs: Mapping[str, Any]) -> str:
    """The workload task ("inference", "pretrain", "finetune", "lora", "qlora"); "finetune" when unknown."""
    task = inputs.get("task") or _get(_get(option, "workload"), "task")
    return str(task or "finetune")


def is_training(task: str) -> bool:
    return task in TRAINING_TASKS


def precision_of(option: Any, inputs: Mapping[str, Any]) -> str:
    return str(inputs.get("precision") or _get(option, "precision") or "bf16")


def nodes_layout(option: Any) -> tuple[int, int]:
    """(nodes, GPUs per node) for the option: as few nodes as the GPU type's server holds.

    A count that does not split evenly over full servers is spread evenly over the smallest node count that
    divides it, so every node runs the same number of processes (torchrun requires one --nproc-per-node).
    """
    gpus = max(1, int(_get(option, "gpus", 1)))
    planned_nodes = int(_get(option, "nodes", 0) or 0)
    if planned_nodes >= 1 and gpus % planned_nodes == 0:
        return planned_nodes, gpus // planned_nodes  # the planner's own layout (it times the network with it)
    per_node_max = max(1, int(_get(_get(option, "gpu"), "gpus_per_node", 8) or 8))
    nodes = math.ceil(gpus / per_node_max)
    while gpus % nodes:
        nodes += 1
    return nodes, gpus // nodes


def gradient_accumulation_steps(option: Any, inputs: Mapping[str, Any]) -> int:
    """Micro-batches accumulated per optimizer step so that micro x GA x dp covers the global batch.

    Uses the planner's own figure when the option carries one, else global_batch (sequences) from the inputs.
    """
    for owner in (option, _get(option, "strategy")):
        for name in ("gradient_accumulation_steps", "grad_accum", "gradient_accumulation"):
            value = _get(owner, name)
            if value:
                return max(1, int(value))
    strategy = _get(option, "strategy")
    micro = max(1, int(_get(strategy, "micro_batch", 1) or 1))
    dp = max(1, int(_get(strategy, "dp", 1) or 1))
    global_batch = inputs.get("global_batch") or _get(_get(option, "workload"), "global_batch")
    if not global_batch:
        return 1
    return max(1, math.ceil(int(global_batch) / (micro * dp)))


def _strategy_fields(option: Any) -> dict[str, Any]:
    strategy = _get(option, "strategy")
    return {
        "dp": int(_get(strategy, "dp", 1) or 1),
        "tp": int(_get(strategy, "tp", 1) or 1),
        "pp": int(_get(strategy, "pp", 1) or 1),
        "ep": int(_get(strategy, "ep", 1) or 1),
        "zero": int(_get(strategy, "zero", 0) or 0),
        "recompute": str(_get(strategy, "recompute", "none") or "none"),
        "offload": str(_get(strategy, "offload", "none") or "none"),
        "micro_batch": int(_get(strategy, "micro_batch", 1) or 1),
    }


def strategy_label(option: Any) -> str:
    """A short human label: "ZeRO-3 x64, TP 2, offload optimizer, full recompute"."""
    s = _strategy_fields(option)
    parts = []
    if s["zero"]:
        parts.append(f"ZeRO-{s['zero']} DP {s['dp']}")
    elif s["dp"] > 1:
        parts.append(f"DDP {s['dp']}")
    if s["tp"] > 1:
        parts.append(f"TP {s['tp']}")
    if s["pp"] > 1:
        parts.append(f"PP {s['pp']}")
    if s["ep"] > 1:
        parts.append(f"EP {s['ep']}")
    if s["offload"] != "none":
        parts.append(f"offload {s['offload']}")
    if s["recompute"] != "none":
        parts.append(f"{s['recompute']} recompute")
    return ", ".join(parts) or "single GPU"


def _money_amount(money: Any) -> float | None:
    amount = _get(money, "amount")
    return None if amount is None else float(amount)


def _money_text(money: Any) -> str:
    amount = _money_amount(money)
    if amount is None:
        return "no price"
    return f"{amount:,.2f} {_get(money, 'currency', '')}".strip()


def _gib(num_bytes: Any) -> str:
    return "n/a" if num_bytes is None else f"{int(num_bytes) / GIB:,.1f} GiB"


def _duration(seconds: Any) -> str:
    if seconds is None or (isinstance(seconds, float) and not math.isfinite(seconds)):
        return "n/a"
    seconds = float(seconds)
    if seconds < 120:
        return f"{seconds:,.2f} s"
    if seconds < 3 * 3600:
        return f"{seconds / 60:,.1f} min"
    if seconds < 3 * 86400:
        return f"{seconds / 3600:,.1f} h"
    return f"{seconds / 86400:,.1f} days"


def _number(value: Any, unit: str = "", digits: int = 1) -> str:
    if value is None:
        return "n/a"
    return f"{float(value):,.{digits}f} {unit}".strip()


def _memory_terms(option: Any) -> list[tuple[str, int, str]]:
    """(term, bytes, assumption) for each term of the option's per-GPU memory breakdown."""
    memory = _get(option, "memory")
    rows = []
    for term in ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead"):
        value = _get(memory, term)
        if value is None:
            continue
        rows.append((term, int(_get(value, "bytes", 0) or 0), str(_get(value, "assumption", "") or "")))
    return rows


def memory_total_bytes(option: Any) -> int:
    memory = _get(option, "memory")
    total = _get(memory, "total_bytes")
    if total is None:
        total = sum(bytes_ for _, bytes_, _ in _memory_terms(option))
    return int(total)


# ------------------------------------------------------------------------------------------ ds_config.json


def deepspeed_config(option: Any, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """DeepSpeed config dict for the option, keys as in DeepSpeed's documented config JSON.

    Training: train_batch_size must equal train_micro_batch_size_per_gpu x gradient_accumulation_steps x the
    data-parallel size (DeepSpeed checks this at start-up), so the three are written consistently. Parameter
    offload is only valid with ZeRO stage 3. Serving: the config deepspeed.init_inference() takes
    (tensor_parallel.tp_size, dtype).
    """
    task = task_of(option, inputs)
    precision = precision_of(option, inputs)
    s = _strategy_fields(option)
    if not is_training(task):
        return {
            "tensor_parallel": {"tp_size": s["tp"]},
            "dtype": _DEEPSPEED_INFERENCE_DTYPE.get(precision, "bf16"),
            "replace_with_kernel_inject": False,
            "max_tokens": int(inputs.get("seq_len") or 4096),
        }
    grad_accum = gradient_accumulation_steps(option, inputs)
    config: dict[str, Any] = {
        "train_batch_size": s["micro_batch"] * grad_accum * s["dp"],
        "train_micro_batch_size_per_gpu": s["micro_batch"],
        "gradient_accumulation_steps": grad_accum,
        "gradient_clipping": 1.0,
        "bf16": {"enabled": precision == "bf16"},
        "fp16": {"enabled": precision == "fp16"},
        "zero_optimization": _zero_section(s),
        "steps_per_print": 100,
        "wall_clock_breakdown": False,
    }
    if s["recompute"] != "none":
        # Read by DeepSpeed's activation-checkpointing API; the model must still wrap its layers in
        # deepspeed.checkpointing.checkpoint (or enable gradient_checkpointing in transformers).
        config["activation_checkpointing"] = {
            "partition_activations": s["tp"] > 1,
            "contiguous_memory_optimization": False,
            "cpu_checkpointing": s["offload"] == "all",
        }
    if s["tp"] > 1:
        config["tensor_parallel"] = {"autotp_size": s["tp"]}  # DeepSpeed AutoTP training (0.16.4+)
    if s["pp"] > 1:
        config["pipeline"] = {
            "stages": s["pp"],
            "partition": "parameters",
            "activation_checkpoint_interval": 1,
        }
    return config


# deepspeed.init_inference's dtype names (DtypeEnum in deepspeed/inference/config.py: fp16, fp32, bf16, int8);
# fp8 and int4 weights are loaded by the serving engine's quantisation, the DeepSpeed dtype stays bf16.
_DEEPSPEED_INFERENCE_DTYPE = {"fp16": "fp16", "fp32": "fp32", "bf16": "bf16", "int8": "int8"}
# DeepSpeed's ZeRO defaults written out as integers (its pydantic model declares these fields as int).
_BUCKET_BYTES = 500_000_000


def _zero_section(s: Mapping[str, Any]) -> dict[str, Any]:
    section: dict[str, Any] = {"stage": s["zero"]}
    if s["zero"] >= 1:
        section.update(
            {"overlap_comm": True, "contiguous_gradients": True, "reduce_bucket_size": _BUCKET_BYTES}
        )
    if s["offload"] in ("optimizer", "all") and s["zero"] >= 1:
        section["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
    if s["offload"] == "all" and s["zero"] == 3:
        section["offload_param"] = {"device": "cpu", "pin_memory": True}
    if s["zero"] == 3:
        section.update(
            {"stage3_gather_16bit_weights_on_model_save": True, "stage3_prefetch_bucket_size": _BUCKET_BYTES}
        )
    return section


# ---------------------------------------------------------------------------------- accelerate_config.yaml


def accelerate_backend(option: Any, inputs: Mapping[str, Any]) -> str:
    """accelerate's distributed_type for the option.

    TP or PP -> MEGATRON_LM (accelerate's plugin carries both degrees); ZeRO-3 without an optimizer-only offload
    -> FSDP full shard (PyTorch-native, what most accelerate users run); ZeRO-1/2 or optimizer offload ->
    DEEPSPEED with ds_config.json (FSDP has no ZeRO-1 and offloads parameters and optimizer together); plain data
    parallel -> MULTI_GPU; one GPU -> NO.
    """
    s = _strategy_fields(option)
    gpus = int(_get(option, "gpus", 1) or 1)
    if s["tp"] > 1 or s["pp"] > 1:
        return "MEGATRON_LM"
    if s["zero"] == 3 and s["offload"] != "optimizer":
        return "FSDP"
    if s["zero"] >= 1 or s["offload"] != "none":
        return "DEEPSPEED"
    return "MULTI_GPU" if gpus > 1 else "NO"


def accelerate_config(option: Any, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The dict `accelerate config` would save for this option (keys as in accelerate's config file)."""
    nodes, per_node = nodes_layout(option)
    s = _strategy_fields(option)
    backend = accelerate_backend(option, inputs)
    precision = precision_of(option, inputs)
    config: dict[str, Any] = {
        "compute_environment": "LOCAL_MACHINE",
        "debug": False,
        "distributed_type": backend,
        "downcast_bf16": "no",
        "machine_rank": 0,
        "main_training_function": "main",
        "mixed_precision": _ACCELERATE_PRECISION.get(precision, "no"),
        "num_machines": nodes,
        "num_processes": nodes * per_node,
        "rdzv_backend": "static",
        "same_network": True,
        "use_cpu": False,
    }
    if nodes > 1:
        config["main_process_ip"] = "MASTER_NODE_IP"  # replace with the first node's address
        config["main_process_port"] = 29500
    if backend == "DEEPSPEED":
        config["deepspeed_config"] = {"deepspeed_config_file": DS_CONFIG, "zero3_init_flag": s["zero"] == 3}
    elif backend == "FSDP":
        config["fsdp_config"] = {
            "fsdp_version": 1,
            "fsdp_sharding_strategy": "FULL_SHARD",
            "fsdp_offload_params": s["offload"] == "all",
            "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
            "fsdp_backward_prefetch": "BACKWARD_PRE",
            "fsdp_state_dict_type": "SHARDED_STATE_DICT",
            "fsdp_cpu_ram_efficient_loading": True,
            "fsdp_sync_module_states": True,
            "fsdp_use_orig_params": True,
            "fsdp_activation_checkpointing": s["recompute"] != "none",
        }
    elif backend == "MEGATRON_LM":
        config["megatron_lm_config"] = {
            "megatron_lm_tp_degree": s["tp"],
            "megatron_lm_pp_degree": s["pp"],
            "megatron_lm_num_micro_batches": gradient_accumulation_steps(option, inputs),
            "megatron_lm_sequence_parallelism": s["tp"] > 1,
            "megatron_lm_recompute_activations": s["recompute"] != "none",
            "megatron_lm_use_distributed_optimizer": s["zero"] >= 1,
            "megatron_lm_gradient_clipping": 1.0,
        }
    return config


def _yaml_scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value)
    # Quote strings YAML would read as something else ("no" is a boolean in YAML 1.1).
    if text.lower() in {"no", "yes", "on", "off", "true", "false", "null", "~", ""} or any(
        c in text for c in ":#'\""
    ):
        return "'" + text.replace("'", "''") + "'"
    return text


def to_yaml(mapping: Mapping[str, Any], indent: int = 0) -> str:
    """Block-style YAML for a nested mapping of scalars (all accelerate configs need; no pyyaml at runtime)."""
    lines = []
    for key, value in mapping.items():
        pad = "  " * indent
        if isinstance(value, Mapping):
            lines.append(f"{pad}{key}:")
            lines.append(to_yaml(value, indent + 1).rstrip("\n"))
        else:
            lines.append(f"{pad}{key}: {_yaml_scalar(value)}")
    return "\n".join(lines) + "\n"


def accelerate_yaml(option: Any, inputs: Mapping[str, Any]) -> str:
    header = "# accelerate config written by GPU Advisor for: " + _one_line_summary(option, inputs) + "\n"
    header += "# run with: accelerate launch --config_file accelerate_config.yaml train.py\n"
    return header + to_yaml(accelerate_config(option, inputs))


# ------------------------------------------------------------------------------------------------ launch.sh


def launch_script(option: Any, inputs: Mapping[str, Any]) -> str:
    """A bash script that starts the job on every node: torchrun for training, vLLM for serving.

    torchrun is used even for DeepSpeed runs (deepspeed.initialize reads the torchrun environment), so every
    backend starts the same way; the deepspeed launcher equivalent is given as a comment.
    """
    nodes, per_node = nodes_layout(option)
    task = task_of(option, inputs)
    s = _strategy_fields(option)
    lines = [
        "#!/usr/bin/env bash",
        "# Written by GPU Advisor for: " + _one_line_summary(option, inputs),
        f"# {nodes} node(s) x {per_node} GPU(s) per node = {nodes * per_node} GPU(s). Run this script on every node",
        "# with NODE_RANK=0..N-1 and MASTER_ADDR set to the first node's address.",
        "set -euo pipefail",
        f"NNODES={nodes}",
        f"NPROC_PER_NODE={per_node}",
        'NODE_RANK="${NODE_RANK:-0}"',
        'MASTER_ADDR="${MASTER_ADDR:-127.0.0.1}"',
        'MASTER_PORT="${MASTER_PORT:-29500}"',
    ]
    if is_training(task):
        backend = accelerate_backend(option, inputs)
        script_args = '--deepspeed ds_config.json "$@"' if backend == "DEEPSPEED" else '"$@"'
        lines += [
            'TRAIN_SCRIPT="${TRAIN_SCRIPT:-train.py}"',
            "",
            f'torchrun --nnodes={nodes} --nproc-per-node={per_node} --node-rank="$NODE_RANK" \\',
            '  --master-addr="$MASTER_ADDR" --master-port="$MASTER_PORT" \\',
            f'  "$TRAIN_SCRIPT" {script_args}',
            "",
            "# Equivalent with the DeepSpeed launcher (needs a hostfile listing the nodes):",
            f'# deepspeed --num_nodes {nodes} --num_gpus {per_node} --hostfile hostfile "$TRAIN_SCRIPT" '
            "--deepspeed ds_config.json",
            "# Or with accelerate: accelerate launch --config_file accelerate_config.yaml "
            '--machine_rank "$NODE_RANK" "$TRAIN_SCRIPT"',
        ]
    else:
        model = inputs.get("model_path") or inputs.get("model") or "MODEL"
        lines += [
            f'MODEL="${{MODEL:-{model}}}"',
            "",
            "# Serving with vLLM (tensor parallel inside a node, pipeline parallel across nodes).",
            f'vllm serve "$MODEL" --tensor-parallel-size {s["tp"]} --pipeline-parallel-size {s["pp"]} \\',
            f"  --max-model-len {int(inputs.get('seq_len') or 4096)} --dtype "
            f"{'float16' if precision_of(option, inputs) == 'fp16' else 'bfloat16'}",
        ]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------- options.csv


def option_row(rank: int, option: Any, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """One options.csv row: machine units (bytes, seconds, amounts with their currency)."""
    s = _strategy_fields(option)
    gpu = _get(option, "gpu")
    nodes, _ = nodes_layout(option)
    cost = _get(option, "cost")
    per_million = _get(option, "cost_per_million_tokens")
    return {
        "rank": rank,
        "gpu_id": _get(gpu, "id", ""),
        "gpu_name": _get(gpu, "name", ""),
        "gpus": int(_get(option, "gpus", 1)),
        "nodes": nodes,
        **s,
        "gradient_accumulation_steps": gradient_accumulation_steps(option, inputs)
        if is_training(task_of(option, inputs))
        else "",
        "fits": bool(_get(option, "fits", False)),
        "memory_per_gpu_bytes": memory_total_bytes(option),
        "gpu_memory_bytes": _get(gpu, "memory_bytes", ""),
        "step_time_s": _get(option, "step_time_s", ""),
        "tokens_per_s": _get(option, "tokens_per_s", ""),
        "wall_time_s": _get(option, "wall_time_s", ""),
        "gpu_hours": _get(option, "gpu_hours", ""),
        "cost_amount": _money_amount(cost) if cost is not None else "",
        "cost_currency": _get(cost, "currency", ""),
        "cost_per_million_tokens_amount": _money_amount(per_million) if per_million is not None else "",
        "cost_per_million_tokens_currency": _get(per_million, "currency", ""),
        "confidence": _get(option, "confidence", ""),
    }


def options_csv(result: Any, inputs: Mapping[str, Any]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=OPTIONS_CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for rank, option in enumerate(_get(result, "options", ()) or (), start=1):
        writer.writerow(
            {key: ("" if value is None else value) for key, value in option_row(rank, option, inputs).items()}
        )
    return buffer.getvalue()


# ------------------------------------------------------------------------------------------------ report.md


def _short_gpu_name(name: str) -> str:
    """ "NVIDIA H100 SXM5 80GB" -> "H100 SXM5 80GB" for table rows (the chosen option keeps the full name)."""
    for prefix in ("NVIDIA ", "AMD "):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def _one_line_summary(option: Any, inputs: Mapping[str, Any]) -> str:
    gpu = _get(option, "gpu")
    model = inputs.get("model") or "model"
    return (
        f"{model}, {task_of(option, inputs)}, {int(_get(option, 'gpus', 1))} x {_get(gpu, 'name', '?')}, "
        f"{strategy_label(option)}"
    )


def _md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    def cell(value: Any) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return lines


def report_sections(
    result: Any, option: Any, inputs: Mapping[str, Any]
) -> list[tuple[str, list[str], list[tuple[Sequence[str], list[Sequence[Any]]]]]]:
    """The report as (heading, paragraphs, tables) sections; report.md and report.pdf both render these."""
    gpu = _get(option, "gpu")
    task = task_of(option, inputs)
    capacity = _get(gpu, "memory_bytes")
    total = memory_total_bytes(option)
    fits = bool(_get(option, "fits", False))
    sections = []

    input_rows = [(INPUT_LABELS.get(k, k.replace("_", " ")), _input_text(v)) for k, v in inputs.items()]
    sections.append(("Inputs", [], [(("Input", "Value"), input_rows)]))

    nodes, per_node = nodes_layout(option)
    chosen_rows: list[Sequence[Any]] = [
        ("GPU", f"{_get(gpu, 'name', '?')} ({_gib(capacity)} each)"),
        ("GPUs", f"{int(_get(option, 'gpus', 1))} ({nodes} node(s) x {per_node})"),
        ("Strategy", strategy_label(option)),
        ("Micro-batch per GPU", f"{_strategy_fields(option)['micro_batch']} sequence(s)"),
        ("Fits in memory", "yes" if fits else "NO"),
        ("Memory per GPU", f"{_gib(total)} of {_gib(capacity)}"),
        ("Step time", _duration(_get(option, "step_time_s"))),
        ("Throughput", _number(_get(option, "tokens_per_s"), "tokens/s", 0)),
        ("Confidence", _get(option, "confidence", "n/a")),
    ]
    if is_training(task):
        chosen_rows.insert(
            4, ("Gradient accumulation", f"{gradient_accumulation_steps(option, inputs)} step(s)")
        )
        chosen_rows += [
            ("Wall time", _duration(_get(option, "wall_time_s"))),
            ("GPU-hours", _number(_get(option, "gpu_hours"), "GPU-h", 0)),
        ]
    chosen_rows += [
        ("Cost", _money_text(_get(option, "cost"))),
        ("Cost per 1M tokens", _money_text(_get(option, "cost_per_million_tokens"))),
    ]
    sections.append(
        ("Chosen option", [_one_line_summary(option, inputs)], [(("Item", "Value"), chosen_rows)])
    )

    memory_rows: list[Sequence[Any]] = [(term, _gib(b), a) for term, b, a in _memory_terms(option)]
    memory_rows.append(("total", _gib(total), f"GPU capacity {_gib(capacity)}"))
    notes = [str(n) for n in (_get(_get(option, "memory"), "notes", ()) or ())]
    sections.append(("Memory per GPU", notes, [(("Term", "Size", "Assumption"), memory_rows)]))

    option_rows = []
    for rank, other in enumerate(_get(result, "options", ()) or (), start=1):
        option_rows.append(
            (
                rank,
                _short_gpu_name(str(_get(_get(other, "gpu"), "name", "?"))),
                int(_get(other, "gpus", 1)),
                strategy_label(other),
                "yes" if _get(other, "fits") else "no",
                _gib(memory_total_bytes(other)),
                _duration(_get(other, "wall_time_s") if is_training(task) else _get(other, "step_time_s")),
                _number(_get(other, "gpu_hours"), "", 0),  # the column header names the unit
                _money_text(_get(other, "cost")),
                _money_text(_get(other, "cost_per_million_tokens")),
                _get(other, "confidence", ""),
            )
        )
    header = (
        "#",
        "GPU",
        "Count",
        "Strategy",
        "Fits",
        "Mem/GPU",
        "Time",
        "GPU-hours",
        "Cost",
        "Per 1M tok",
        "Conf.",
    )
    sections.append(("Ranked options", [], [(header, option_rows)]))

    excluded = [(_get(e, "family", ""), _get(e, "reason", "")) for e in (_get(result, "excluded", ()) or ())]
    if excluded:
        sections.append(("Excluded strategies", [], [(("Strategy", "Reason"), excluded)]))
    advice = [str(a) for a in (_get(result, "advice", ()) or ())]
    if advice:
        sections.append(("Advice", advice, []))

    sources = [f"{key}: {value}" for key, value in (_get(gpu, "sources", {}) or {}).items()]
    if _get(gpu, "source_date"):
        sources.append(f"GPU figures dated {_get(gpu, 'source_date')}")
    for name in ("model_source", "price_source", "calibration_source"):
        if inputs.get(name):
            sources.append(f"{name.replace('_', ' ')}: {inputs[name]}")
    for assumption in [*(_get(option, "assumptions", ()) or ()), *(_get(result, "assumptions", ()) or ())]:
        if str(assumption) not in sources:
            sources.append(str(assumption))
    sources.append(
        "Memory terms follow the ZeRO paper's accounting (Rajbhandari et al. 2020) and Korthikanti et al. 2022 "
        "for activations; time assumes the MFU stated in the inputs or the planner's default."
    )
    notes = launch_notes(option, inputs)
    if notes:
        sections.append(("Launch notes", notes, []))
    sections.append(("Assumptions and sources", sources, []))
    return sections


def launch_notes(option: Any, inputs: Mapping[str, Any]) -> list[str]:
    """What the exported configs cannot say themselves: which tool runs which layout."""
    s = _strategy_fields(option)
    notes = []
    if not is_training(task_of(option, inputs)):
        notes.append(
            "launch.sh serves with vLLM; ds_config.json is the deepspeed.init_inference() equivalent."
        )
        return notes
    backend = accelerate_backend(option, inputs)
    notes.append(f"accelerate_config.yaml uses {backend}; launch.sh starts the same layout with torchrun.")
    if s["pp"] > 1 and s["zero"] >= 2:
        notes.append(
            f"DeepSpeed's pipeline engine combines only with ZeRO stage 0 or 1, and Megatron-LM's distributed "
            f"optimizer (accelerate_config.yaml) shards only optimizer states (ZeRO-1): PP {s['pp']} with "
            f"ZeRO-{s['zero']} runs there as ZeRO-1 and needs more memory than planned. The planner proposes "
            "pipelines with ZeRO 0/1 only; re-plan with ZeRO-1 or PP 1."
        )
    if s["tp"] > 1:
        notes.append(
            f"Tensor parallel {s['tp']} needs a TP-aware model (Megatron-LM, DeepSpeed AutoTP, or PyTorch DTensor); "
            "keep each TP group inside one node's NVLink domain."
        )
    if s["recompute"] != "none":
        notes.append(
            f"{s['recompute']} activation recompute: enable gradient checkpointing in the training script."
        )
    return notes


# Readable names (with units) for the input keys the desktop app and the CLI pass; other keys are shown as is.
INPUT_LABELS = {
    "model": "Model",
    "task": "Task",
    "precision": "Precision",
    "seq_len": "Sequence length (tokens)",
    "global_batch": "Global batch (sequences)",
    "tokens": "Tokens to train",
    "dataset_tokens": "Dataset (tokens per epoch)",
    "epochs": "Epochs",
    "tokens_per_second": "Target speed (tokens/s)",
    "concurrent_users": "Concurrent users",
    "hardware": "Hardware choices",
    "gpu": "GPU types",
    "max_gpus": "At most (GPUs)",
    "exact_gpus": "Exactly (GPUs)",
    "budget_amount": "Budget",
    "deadline_days": "Deadline (days)",
    "mfu": "MFU override (fraction of peak)",
    "efficiency": "Bandwidth efficiency override (fraction of peak)",
    "currency": "Currency",
    "model_source": "Model source",
    "price_source": "Price source",
}


def _input_text(value: Any) -> str:
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"  # 2e9 training tokens read as 2,000,000,000, not 2e+09
        return f"{value:,.6g}"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10_000:
        return f"{value:,}"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def report_markdown(
    result: Any, option: Any, inputs: Mapping[str, Any], chart_files: Mapping[str, str] | None = None
) -> str:
    """report.md text; chart_files maps a caption to a PNG file name in the same folder (embedded as images)."""
    lines = ["# GPU Advisor plan report", "", _one_line_summary(option, inputs), ""]
    for heading, paragraphs, tables in report_sections(result, option, inputs):
        lines += [f"## {heading}", ""]
        if heading in ("Assumptions and sources", "Launch notes"):
            lines += [f"- {p}" for p in paragraphs] + [""]
        else:
            for paragraph in paragraphs:
                lines += [paragraph, ""]
        for header, rows in tables:
            lines += _md_table(header, rows) + [""]
        if heading == "Memory per GPU" and chart_files:
            for caption, file_name in chart_files.items():
                lines += [f"![{caption}]({file_name})", ""]
    if not chart_files:
        lines += ["_Charts are included when the report is exported from the desktop app; the tables above "
                  "hold the same numbers._", ""]  # fmt: skip
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------ report.pdf

_PAGE_W, _PAGE_H, _MARGIN = 595.0, 842.0, 48.0  # A4 in points
_TEXT_W = _PAGE_W - 2 * _MARGIN
_BOTTOM = _MARGIN + 14.0  # the lowest text line; the footer sits below it

# Glyph widths (1/1000 em) of two of PDF's standard 14 fonts for ASCII 32..126, from Adobe's Core14 AFM files
# Helvetica.afm and Helvetica-Bold.afm (Helvetica-Oblique has Helvetica's widths). Text is laid out with them,
# so wrapped lines and table columns end where they are meant to instead of running off the page.
_HELVETICA = (
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
)  # fmt: skip
_HELVETICA_BOLD = (
    278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611,
    975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556,
    333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611,
    611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,
)  # fmt: skip
# WinAnsi characters beyond ASCII that the report uses (same widths in both fonts); anything else: 556.
_EXTRA_WIDTHS = {"•": 350, "–": 556, "—": 1000, "×": 584, "·": 278, "…": 1000, "’": 222, "‘": 222, "“": 333,
                 "”": 333, "°": 400, "±": 584, "µ": 556, "é": 556, "è": 556, "ü": 556, "ö": 556, "ä": 556}  # fmt: skip
_FONTS = {  # resource name -> (base font, widths)
    "F1": ("Helvetica", _HELVETICA),
    "F2": ("Helvetica-Bold", _HELVETICA_BOLD),
    "F3": ("Helvetica-Oblique", _HELVETICA),
}

# The standard fonts only have WinAnsi (cp1252) glyphs: common symbols get ASCII stand-ins and Cyrillic is
# transliterated (a Russian model or plan name stays readable) instead of turning into question marks.
_SUBSTITUTES = {"≈": "~", "≤": "<=", "≥": ">=", "→": "->", "←": "<-", "−": "-", "≠": "!=", "∞": "inf",
                "₽": "RUB", "✓": "yes", "✗": "no", "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2011": "-"}  # fmt: skip
_CYRILLIC = dict(zip(
    "абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
    ["a", "b", "v", "g", "d", "e", "e", "zh", "z", "i", "y", "k", "l", "m", "n", "o", "p", "r", "s", "t",
     "u", "f", "kh", "ts", "ch", "sh", "shch", "", "y", "", "e", "yu", "ya"],
    strict=True,
))  # fmt: skip


def pdf_safe(text: str) -> str:
    """text with every character the standard PDF fonts cannot show replaced by a readable stand-in."""
    out = []
    for char in str(text):
        if char in _SUBSTITUTES:
            out.append(_SUBSTITUTES[char])
        elif char.lower() in _CYRILLIC:
            latin = _CYRILLIC[char.lower()]
            out.append(latin.capitalize() if char.isupper() else latin)
        else:
            try:
                char.encode("cp1252")
                out.append(char)
            except UnicodeEncodeError:
                out.append("?")
    return "".join(out)


def text_width(text: str, font: str = "F1", size: float = 10.0) -> float:
    """Width in points of `text` (already pdf_safe) set in one of the report's fonts at `size` points."""
    widths = _FONTS[font][1]
    total = 0
    for char in text:
        code = ord(char)
        total += widths[code - 32] if 32 <= code <= 126 else _EXTRA_WIDTHS.get(char, 556)
    return total * size / 1000.0


def _pdf_text(text: str) -> bytes:
    """A PDF literal string in WinAnsi (cp1252)."""
    raw = pdf_safe(text).encode("cp1252", errors="replace")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def wrap_text(text: str, width: float, font: str = "F1", size: float = 10.0) -> list[str]:
    """Greedy word wrap to `width` points; a word longer than a line is split between characters."""
    lines: list[str] = []
    current = ""
    for word in pdf_safe(text).split():
        while text_width(word, font, size) > width:
            if current:
                lines.append(current)
                current = ""
            cut = len(word) - 1
            while cut > 1 and text_width(word[:cut], font, size) > width:
                cut -= 1
            lines.append(word[:cut])
            word = word[cut:]
        candidate = f"{current} {word}" if current else word
        if current and text_width(candidate, font, size) > width:
            lines.append(current)
            current = word
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines or [""]


def _looks_numeric(cells: Sequence[str]) -> bool:
    """A column of figures ("68.1 GiB", "2,587.75 USD", "12") is right-aligned so the digits line up."""
    filled = [c for c in cells if c and c != "n/a"]
    return bool(filled) and sum(c[:1].isdigit() for c in filled) >= 0.6 * len(filled)


def fit_columns(natural: Sequence[float], minimum: Sequence[float], width: float) -> list[float]:
    """Column widths (points) that fill at most `width`: only the widest columns give way, all down to one common
    cap (so a long strategy text wraps before a short GPU name does); none goes below its minimum width."""
    if sum(natural) <= width:
        return list(natural)

    def widths_at(cap: float) -> list[float]:
        return [max(low, min(want, cap)) for want, low in zip(natural, minimum, strict=True)]

    low_cap, high_cap = 0.0, max(natural)
    for _ in range(40):  # bisection on the cap: 40 halvings reach far below a point
        cap = (low_cap + high_cap) / 2
        if sum(widths_at(cap)) <= width:
            low_cap = cap
        else:
            high_cap = cap
    return widths_at(low_cap)


class _PdfLayout:
    """Lays headings, wrapped paragraphs, bullet lists, ruled tables and images onto A4 pages."""

    def __init__(self) -> None:
        self.pages: list[list[bytes]] = [[]]
        self.images: list[tuple[str, bytes, dict[str, Any]]] = []  # (resource name, data, info)
        self.page_images: list[list[str]] = [[]]
        self.y = _PAGE_H - _MARGIN

    # -- primitives ----------------------------------------------------------------------------------------------
    def new_page(self) -> None:
        self.pages.append([])
        self.page_images.append([])
        self.y = _PAGE_H - _MARGIN

    def ensure(self, height: float) -> bool:
        """Start a new page unless `height` points fit above the bottom margin; True when a page was started."""
        if self.y - height < _BOTTOM:
            self.new_page()
            return True
        return False

    def text(self, x: float, y: float, text: str, font: str = "F1", size: float = 10.0, grey: float = 0.0):
        colour = f"{grey:.2f} g " if grey else ""
        self.pages[-1].append(
            f"{colour}BT /{font} {size:g} Tf {x:.1f} {y:.1f} Td ".encode()
            + _pdf_text(text)
            + b" Tj ET"
            + (b" 0 g" if grey else b"")
        )

    def fill(self, x: float, y: float, w: float, h: float, grey: float) -> None:
        self.pages[-1].append(f"q {grey:.2f} g {x:.1f} {y:.1f} {w:.1f} {h:.1f} re f Q".encode())

    def rule(self, x1: float, x2: float, y: float, grey: float = 0.6, width: float = 0.5) -> None:
        self.pages[-1].append(
            f"q {grey:.2f} G {width:g} w {x1:.1f} {y:.1f} m {x2:.1f} {y:.1f} l S Q".encode()
        )

    def gap(self, height: float) -> None:
        self.y -= height

    # -- blocks --------------------------------------------------------------------------------------------------
    def heading(self, text: str, size: float = 13.0) -> None:
        self.ensure(size * 1.6 + 40)  # keep a heading with the first lines under it
        self.y -= size * 1.25
        self.text(_MARGIN, self.y, text, "F2", size)
        self.y -= 4
        self.rule(_MARGIN, _PAGE_W - _MARGIN, self.y, grey=0.75)
        self.y -= 5

    def paragraph(self, text: str, font: str = "F1", size: float = 9.5, grey: float = 0.0,
                  bullet: bool = False) -> None:  # fmt: skip
        indent = 11.0 if bullet else 0.0
        leading = size * 1.32
        for index, line in enumerate(wrap_text(text, _TEXT_W - indent, font, size)):
            self.ensure(leading)
            self.y -= leading
            if bullet and index == 0:
                self.text(_MARGIN + 2, self.y, "•", font, size, grey)
            self.text(_MARGIN + indent, self.y, line, font, size, grey)
        self.y -= 2 if bullet else 3

    def table(self, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """A ruled table: bold header on grey, zebra rows, wrapped cells, figures right-aligned; the header is
        repeated at the top of each page the table continues on."""
        texts = [[pdf_safe(str(c)) for c in header]] + [
            [pdf_safe(_input_text(c)) for c in row] for row in rows
        ]
        columns = list(zip(*texts, strict=True))
        for size in (8.0, 7.0, 6.5):
            pad = 3.5 if size >= 8 else 2.5
            natural = [max(text_width(c, "F2" if i == 0 else "F1", size) for i, c in enumerate(col)) + 2 * pad
                       for col in columns]  # fmt: skip
            minimum = [max(min(max((text_width(w, "F1", size) for c in col[1:] for w in c.split()), default=0), 60.0),
                           max((text_width(w, "F2", size) for w in col[0].split()), default=0)) + 2 * pad
                       for col in columns]  # fmt: skip
            widths = fit_columns(natural, minimum, _TEXT_W)
            if sum(widths) <= _TEXT_W + 0.5:
                break
        # Figures line up on the right in tables of many columns; a two-column table (item, value) stays left.
        numeric = [len(columns) > 2 and _looks_numeric(col[1:]) for col in columns]
        leading = size * 1.25
        x_of = [_MARGIN + sum(widths[:i]) for i in range(len(widths))]
        table_w = sum(widths)

        def draw_row(cells: Sequence[str], index: int) -> None:
            font = "F2" if index == 0 else "F1"
            wrapped = [wrap_text(c, w - 2 * pad, font, size) for c, w in zip(cells, widths, strict=True)]
            height = max(len(lines) for lines in wrapped) * leading + 3
            if self.ensure(height) and index > 0:
                draw_row(texts[0], 0)  # the header again on the new page
            top = self.y
            if index == 0:
                self.fill(_MARGIN, top - height, table_w, height, 0.88)
            elif index % 2 == 0:
                self.fill(_MARGIN, top - height, table_w, height, 0.96)
            for column, lines in enumerate(wrapped):
                for number, line in enumerate(lines):
                    y = top - (number + 1) * leading + 0.5
                    x = x_of[column] + pad
                    if numeric[column] and index > 0:
                        x = x_of[column] + widths[column] - pad - text_width(line, font, size)
                    self.text(x, y, line, font, size)
            self.y = top - height
            if index == 0:
                self.rule(_MARGIN, _MARGIN + table_w, self.y, grey=0.45)

        for index, cells in enumerate(texts):
            draw_row(cells, index)
        self.rule(_MARGIN, _MARGIN + table_w, self.y, grey=0.45)
        self.y -= 6

    def image(self, png: bytes, caption: str) -> bool:
        info = _png_info(png)
        if info is None:
            return False
        scale = min(1.0, _TEXT_W / info["width"], 330.0 / info["height"])
        w, h = info["width"] * scale, info["height"] * scale
        self.ensure(h + 20)
        self.y -= h + 4
        name = f"Im{len(self.images) + 1}"
        self.images.append((name, png, info))
        self.page_images[-1].append(name)
        self.pages[-1].append(f"q {w:.1f} 0 0 {h:.1f} {_MARGIN:.1f} {self.y:.1f} cm /{name} Do Q".encode())
        self.y -= 11
        self.text(_MARGIN, self.y, caption, "F3", 8.5, grey=0.35)
        self.y -= 8
        return True

    def footer(self, title: str) -> None:
        """Page numbers at the foot of every page (added once the page count is known)."""
        total = len(self.pages)
        for number, commands in enumerate(self.pages, start=1):
            label = pdf_safe(f"{title} - page {number} of {total}")
            x = _PAGE_W - _MARGIN - text_width(label, "F1", 7.5)
            commands.append(f"q {_MARGIN:.1f} {_MARGIN - 2:.1f} m {_PAGE_W - _MARGIN:.1f} {_MARGIN - 2:.1f} l "
                            f"0.8 G 0.4 w S Q".encode())  # fmt: skip
            commands.append(
                f"0.45 g BT /F1 7.5 Tf {x:.1f} {_MARGIN - 12:.1f} Td ".encode()
                + _pdf_text(label)
                + b" Tj ET 0 g"
            )


def _png_info(png: bytes) -> dict[str, Any] | None:
    """Width, height, colour and the concatenated IDAT data of a PNG that PDF can show as is.

    PDF's FlateDecode with PNG predictors reads PNG's IDAT stream directly for 8-bit greyscale or RGB images
    without interlacing; anything else (alpha, palette) returns None and the caller keeps the text only.
    """
    if not png.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    pos, idat, info = 8, [], None
    while pos + 8 <= len(png):
        length, kind = struct.unpack(">I4s", png[pos : pos + 8])
        data = png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", data)
            if depth != 8 or colour not in (0, 2) or interlace:
                return None
            info = {"width": width, "height": height, "colors": 3 if colour == 2 else 1}
        elif kind == b"IDAT":
            idat.append(data)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if info is None or not idat:
        return None
    info["data"] = b"".join(idat)
    return info


# Sections whose paragraphs are separate items (shown as bullets) rather than running prose.
_LIST_SECTIONS = ("Advice", "Launch notes", "Assumptions and sources")
REPORT_TITLE = "GPU Advisor plan report"


def report_pdf(
    result: Any, option: Any, inputs: Mapping[str, Any], chart_pngs: Mapping[str, bytes] | None = None
) -> bytes:
    """report.pdf: the report's sections (Helvetica; ruled tables; bullet lists) plus 8-bit RGB chart PNGs."""
    layout = _PdfLayout()
    layout.y -= 18
    layout.text(_MARGIN, layout.y, REPORT_TITLE, "F2", 18)
    layout.y -= 6
    layout.paragraph(_one_line_summary(option, inputs), size=10.5, grey=0.25)
    for heading, paragraphs, tables in report_sections(result, option, inputs):
        layout.gap(6)
        layout.heading(heading)
        for paragraph in paragraphs:
            layout.paragraph(paragraph, bullet=heading in _LIST_SECTIONS)
        for header, rows in tables:
            layout.table(header, rows)
        if heading == "Memory per GPU":
            for caption, png in (chart_pngs or {}).items():
                layout.image(png, caption)
    layout.footer(REPORT_TITLE)
    return _pdf_bytes(layout)


def _pdf_bytes(layout: _PdfLayout) -> bytes:
    """Serialise pages, fonts and images into a PDF 1.4 file with a correct cross-reference table."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog_id = add(b"")  # filled once the page tree id is known
    pages_id = add(b"")
    fonts = {
        name: add(f"<< /Type /Font /Subtype /Type1 /BaseFont /{base} /Encoding /WinAnsiEncoding >>".encode())
        for name, (base, _) in _FONTS.items()
    }
    image_ids = {}
    for name, _, info in layout.images:
        params = f"/Predictor 15 /Colors {info['colors']} /BitsPerComponent 8 /Columns {info['width']}"
        space = "/DeviceRGB" if info["colors"] == 3 else "/DeviceGray"
        head = (
            f"<< /Type /XObject /Subtype /Image /Width {info['width']} /Height {info['height']} "
            f"/ColorSpace {space} /BitsPerComponent 8 /Filter /FlateDecode /DecodeParms << {params} >> "
            f"/Length {len(info['data'])} >>\nstream\n"
        ).encode()
        image_ids[name] = add(head + info["data"] + b"\nendstream")
    font_refs = " ".join(f"/{k} {v} 0 R" for k, v in fonts.items())
    page_ids = []
    for commands, names in zip(layout.pages, layout.page_images, strict=False):
        content = zlib.compress(b"\n".join(commands))
        content_id = add(
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(content) + content + b"\nendstream"
        )
        xobjects = " ".join(f"/{n} {image_ids[n]} 0 R" for n in names)
        resources = (
            f"<< /Font << {font_refs} >>" + (f" /XObject << {xobjects} >>" if xobjects else "") + " >>"
        )
        page_ids.append(
            add(
                f"<< /Type /Page /Parent {pages_id} 0 R /MediaBox [0 0 {_PAGE_W:g} {_PAGE_H:g}] "
                f"/Resources {resources} /Contents {content_id} 0 R >>".encode()
            )
        )
    kids = " ".join(f"{p} 0 R" for p in page_ids)
    objects[pages_id - 1] = f"<< /Type /Pages /Kids [{kids}] /Count {len(page_ids)} >>".encode()
    objects[catalog_id - 1] = f"<< /Type /Catalog /Pages {pages_id} 0 R >>".encode()
    info_id = add(b"<< /Producer (GPU Advisor) /Title (" + REPORT_TITLE.encode() + b") >>")

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref_at = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\n" % (len(objects) + 1, catalog_id, info_id)
    out += b"startxref\n%d\n%%%%EOF\n" % xref_at
    return bytes(out)


# --------------------------------------------------------------------------------------------------- export


def export_plan(
    result: Any,
    option: Any,
    directory: str | Path,
    inputs: Mapping[str, Any] | None = None,
    *,
    chart_pngs: Mapping[str, bytes] | None = None,
) -> list[Path]:
    """Write the six export files for `option` (one of result.options) into `directory`; return their paths.

    inputs: what the user asked for (model, task, precision, seq_len, global_batch in sequences, tokens, ...);
    shown in the report and used for gradient accumulation. chart_pngs: caption -> PNG bytes (the GUI passes
    its rendered charts; they are saved next to report.md as chart-1.png, ... and embedded in both reports).
    """
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    flat = plain_inputs(inputs)
    chart_files = {}
    for index, (caption, png) in enumerate((chart_pngs or {}).items(), start=1):
        file_name = f"chart-{index}.png"
        (folder / file_name).write_bytes(png)
        chart_files[caption] = file_name
    texts = {
        REPORT_MD: report_markdown(result, option, flat, chart_files),
        DS_CONFIG: json.dumps(deepspeed_config(option, flat), indent=2) + "\n",
        ACCELERATE_CONFIG: accelerate_yaml(option, flat),
        LAUNCH_SH: launch_script(option, flat),
        OPTIONS_CSV: options_csv(result, flat),
    }
    written = []
    for name in EXPORT_FILES:
        path = folder / name
        if name == REPORT_PDF:
            path.write_bytes(report_pdf(result, option, flat, chart_pngs))
        else:
            path.write_text(texts[name], encoding="utf-8")
        written.append(path)
    (folder / LAUNCH_SH).chmod(0o755)
    return written
