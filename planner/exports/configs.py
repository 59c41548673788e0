"""Launch configs for the tools people actually run: DeepSpeed's ds_config.json, Hugging Face accelerate's
config file, and a launch.sh with torchrun (training) or vLLM (serving). Pure: strings and dicts built from a
planner.search.PlanOption and the user's inputs."""

from __future__ import annotations

from collections.abc import Mapping

from planner.exports.common import (
    DS_CONFIG,
    ExportInputs,
    gradient_accumulation_steps,
    nodes_layout,
    one_line_summary,
    precision_of,
    task_of,
)
from planner.search.types import PlanOption
from planner.vocabulary import Layout, Offload, Precision, Recompute, ZeroStage

# A JSON/YAML value of a config file.
ConfigValue = object

# accelerate's mixed_precision values ("no" | "fp16" | "bf16" | "fp8").
_ACCELERATE_PRECISION = {Precision.BF16: "bf16", Precision.FP16: "fp16", Precision.FP8: "fp8"}
# deepspeed.init_inference's dtype names (DtypeEnum in deepspeed/inference/config.py: fp16, fp32, bf16, int8);
# fp8 and int4 weights are loaded by the serving engine's quantisation, the DeepSpeed dtype stays bf16.
_DEEPSPEED_INFERENCE_DTYPE = {Precision.FP16: "fp16", Precision.FP32: "fp32", Precision.BF16: "bf16",
                              Precision.INT8: "int8"}  # fmt: skip
# DeepSpeed's ZeRO defaults written out as integers (its pydantic model declares these fields as int).
_BUCKET_BYTES = 500_000_000
DEFAULT_SERVING_CONTEXT = 4096  # vLLM --max-model-len / DeepSpeed max_tokens when the inputs give no seq_len


# ------------------------------------------------------------------------------------------ ds_config.json


def deepspeed_config(option: PlanOption, inputs: ExportInputs) -> dict[str, ConfigValue]:
    """DeepSpeed config dict for the option, keys as in DeepSpeed's documented config JSON
    (https://www.deepspeed.ai/docs/config-json/).

    Training: train_batch_size must equal train_micro_batch_size_per_gpu x gradient_accumulation_steps x the
    data-parallel size (DeepSpeed checks this at start-up), so the three are written consistently. Parameter
    offload is only valid with ZeRO stage 3. Serving: the config deepspeed.init_inference() takes
    (tensor_parallel.tp_size, dtype).
    """
    precision = precision_of(option, inputs)
    layout = option.layout
    if not task_of(option, inputs).is_training:
        return {
            "tensor_parallel": {"tp_size": layout.tp},
            "dtype": _DEEPSPEED_INFERENCE_DTYPE.get(precision, "bf16"),
            "replace_with_kernel_inject": False,
            "max_tokens": inputs.seq_len or DEFAULT_SERVING_CONTEXT,
        }
    grad_accum = gradient_accumulation_steps(option, inputs)
    config: dict[str, ConfigValue] = {
        "train_batch_size": layout.micro_batch * grad_accum * layout.dp,
        "train_micro_batch_size_per_gpu": layout.micro_batch,
        "gradient_accumulation_steps": grad_accum,
        "gradient_clipping": 1.0,
        "bf16": {"enabled": precision == Precision.BF16},
        "fp16": {"enabled": precision == Precision.FP16},
        "zero_optimization": _zero_section(layout),
        "steps_per_print": 100,
        "wall_clock_breakdown": False,
    }
    if layout.recompute != Recompute.NONE:
        # Read by DeepSpeed's activation-checkpointing API; the model must still wrap its layers in
        # deepspeed.checkpointing.checkpoint (or enable gradient_checkpointing in transformers).
        config["activation_checkpointing"] = {
            "partition_activations": layout.tp > 1,
            "contiguous_memory_optimization": False,
            "cpu_checkpointing": layout.offload == Offload.ALL,
        }
    if layout.tp > 1:
        config["tensor_parallel"] = {"autotp_size": layout.tp}  # DeepSpeed AutoTP training (0.16.4+)
    if layout.pp > 1:
        config["pipeline"] = {
            "stages": layout.pp,
            "partition": "parameters",
            "activation_checkpoint_interval": 1,
        }
    return config


def _zero_section(layout: Layout) -> dict[str, ConfigValue]:
    zero = int(layout.zero)
    section: dict[str, ConfigValue] = {"stage": zero}
    if zero >= ZeroStage.OPTIMIZER:
        section.update(
            {"overlap_comm": True, "contiguous_gradients": True, "reduce_bucket_size": _BUCKET_BYTES}
        )
    if layout.offload in (Offload.OPTIMIZER, Offload.ALL) and zero >= ZeroStage.OPTIMIZER:
        section["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
    if layout.offload == Offload.ALL and zero == ZeroStage.WEIGHTS:
        section["offload_param"] = {"device": "cpu", "pin_memory": True}
    if zero == ZeroStage.WEIGHTS:
        section.update(
            {"stage3_gather_16bit_weights_on_model_save": True, "stage3_prefetch_bucket_size": _BUCKET_BYTES}
        )
    return section


# ---------------------------------------------------------------------------------- accelerate_config.yaml


def accelerate_backend(option: PlanOption) -> str:
    """accelerate's distributed_type for the option.

    TP or PP -> MEGATRON_LM (accelerate's plugin carries both degrees); ZeRO-3 without an optimizer-only offload
    -> FSDP full shard (PyTorch-native, what most accelerate users run); ZeRO-1/2 or optimizer offload ->
    DEEPSPEED with ds_config.json (FSDP has no ZeRO-1 and offloads parameters and optimizer together); plain data
    parallel -> MULTI_GPU; one GPU -> NO.
    """
    layout = option.layout
    if layout.tp > 1 or layout.pp > 1:
        return "MEGATRON_LM"
    if layout.zero == ZeroStage.WEIGHTS and layout.offload != Offload.OPTIMIZER:
        return "FSDP"
    if layout.zero >= ZeroStage.OPTIMIZER or layout.offload != Offload.NONE:
        return "DEEPSPEED"
    return "MULTI_GPU" if option.gpus > 1 else "NO"


def accelerate_config(option: PlanOption, inputs: ExportInputs) -> dict[str, ConfigValue]:
    """The dict `accelerate config` would save for this option (keys as in accelerate's config file)."""
    nodes, per_node = nodes_layout(option)
    layout = option.layout
    backend = accelerate_backend(option)
    config: dict[str, ConfigValue] = {
        "compute_environment": "LOCAL_MACHINE",
        "debug": False,
        "distributed_type": backend,
        "downcast_bf16": "no",
        "machine_rank": 0,
        "main_training_function": "main",
        "mixed_precision": _ACCELERATE_PRECISION.get(precision_of(option, inputs), "no"),
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
        config["deepspeed_config"] = {
            "deepspeed_config_file": DS_CONFIG,
            "zero3_init_flag": layout.zero == ZeroStage.WEIGHTS,
        }
    elif backend == "FSDP":
        config["fsdp_config"] = _fsdp_section(layout)
    elif backend == "MEGATRON_LM":
        config["megatron_lm_config"] = {
            "megatron_lm_tp_degree": layout.tp,
            "megatron_lm_pp_degree": layout.pp,
            "megatron_lm_num_micro_batches": gradient_accumulation_steps(option, inputs),
            "megatron_lm_sequence_parallelism": layout.tp > 1,
            "megatron_lm_recompute_activations": layout.recompute != Recompute.NONE,
            "megatron_lm_use_distributed_optimizer": layout.zero >= ZeroStage.OPTIMIZER,
            "megatron_lm_gradient_clipping": 1.0,
        }
    return config


def _fsdp_section(layout: Layout) -> dict[str, ConfigValue]:
    return {
        "fsdp_version": 1,
        "fsdp_sharding_strategy": "FULL_SHARD",
        "fsdp_offload_params": layout.offload == Offload.ALL,
        "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
        "fsdp_backward_prefetch": "BACKWARD_PRE",
        "fsdp_state_dict_type": "SHARDED_STATE_DICT",
        "fsdp_cpu_ram_efficient_loading": True,
        "fsdp_sync_module_states": True,
        "fsdp_use_orig_params": True,
        "fsdp_activation_checkpointing": layout.recompute != Recompute.NONE,
    }


def _yaml_scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    text = str(value)
    # Quote strings YAML would read as something else ("no" is a boolean in YAML 1.1).
    if text.lower() in {"no", "yes", "on", "off", "true", "false", "null", "~", ""} or any(
        c in text for c in ":#'\""
    ):
        return "'" + text.replace("'", "''") + "'"
    return text


def to_yaml(mapping: Mapping[str, object], indent: int = 0) -> str:
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


def accelerate_yaml(option: PlanOption, inputs: ExportInputs) -> str:
    header = "# accelerate config written by GPU Advisor for: " + one_line_summary(option, inputs) + "\n"
    header += "# run with: accelerate launch --config_file accelerate_config.yaml train.py\n"
    return header + to_yaml(accelerate_config(option, inputs))


# ------------------------------------------------------------------------------------------------ launch.sh


def launch_script(option: PlanOption, inputs: ExportInputs) -> str:
    """A bash script that starts the job on every node: torchrun for training, vLLM for serving.

    torchrun is used even for DeepSpeed runs (deepspeed.initialize reads the torchrun environment), so every
    backend starts the same way; the deepspeed launcher equivalent is given as a comment.
    """
    nodes, per_node = nodes_layout(option)
    lines = [
        "#!/usr/bin/env bash",
        "# Written by GPU Advisor for: " + one_line_summary(option, inputs),
        f"# {nodes} node(s) x {per_node} GPU(s) per node = {nodes * per_node} GPU(s). Run this script on every node",
        "# with NODE_RANK=0..N-1 and MASTER_ADDR set to the first node's address.",
        "set -euo pipefail",
        f"NNODES={nodes}",
        f"NPROC_PER_NODE={per_node}",
        'NODE_RANK="${NODE_RANK:-0}"',
        'MASTER_ADDR="${MASTER_ADDR:-127.0.0.1}"',
        'MASTER_PORT="${MASTER_PORT:-29500}"',
    ]
    if task_of(option, inputs).is_training:
        lines += _torchrun_lines(option, nodes, per_node)
    else:
        lines += _vllm_lines(option, inputs)
    return "\n".join(lines) + "\n"


def _torchrun_lines(option: PlanOption, nodes: int, per_node: int) -> list[str]:
    script_args = '--deepspeed ds_config.json "$@"' if accelerate_backend(option) == "DEEPSPEED" else '"$@"'
    return [
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


def _vllm_lines(option: PlanOption, inputs: ExportInputs) -> list[str]:
    model = inputs.model_path or inputs.model or "MODEL"
    dtype = "float16" if precision_of(option, inputs) == Precision.FP16 else "bfloat16"
    layout = option.layout
    return [
        f'MODEL="${{MODEL:-{model}}}"',
        "",
        "# Serving with vLLM (tensor parallel inside a node, pipeline parallel across nodes).",
        f'vllm serve "$MODEL" --tensor-parallel-size {layout.tp} --pipeline-parallel-size {layout.pp} \\',
        f"  --max-model-len {inputs.seq_len or DEFAULT_SERVING_CONTEXT} --dtype {dtype}",
    ]
