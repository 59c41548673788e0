"""The configs a launch reads: DeepSpeed's ds_config.json, accelerate's config file and peft's adapter settings.
Pure: dicts and strings built from a planner.search.PlanOption and the user's inputs. Which of them a plan gets
is decided in planner.exports.runners; the keys are the ones DeepSpeed 0.19 / accelerate 1.15 / peft 0.21 read
(tests/exports loads every file with the real library)."""

from __future__ import annotations

from planner.exports.common import (
    DS_CONFIG,
    ExportInputs,
    gradient_accumulation_steps,
    nodes_layout,
    one_line_summary,
    precision_of,
    task_of,
)
from planner.exports.learning_rate import peak_learning_rate
from planner.exports.quoting import comment_text, to_yaml
from planner.exports.runners import VERSIONS
from planner.memory.config import DEFAULT_LORA_TARGETS
from planner.memory.deepspeed_states import DEEPSPEED_SUB_GROUP_ELEMENTS, deepspeed_bucket_elements
from planner.memory.runtimes import AUTOEP_PRESETS
from planner.models import lora_target_modules
from planner.search.types import PlanOption
from planner.vocabulary import Layout, Offload, Precision, Task, ZeroStage

# A JSON/YAML value of a config file.
ConfigValue = object

# accelerate's mixed_precision values ("no" | "fp16" | "bf16" | "fp8").
_ACCELERATE_PRECISION = {Precision.BF16: "bf16", Precision.FP16: "fp16", Precision.FP8: "fp8"}
# DeepSpeed's ZeRO defaults written out as integers (its pydantic model declares these fields as int).
# DeepSpeed's bucket sizes in elements where the model is unknown: its defaults (reduce_bucket_size 5e8,
# stage3_prefetch_bucket_size 5e7; deepspeed/runtime/zero/config.py). With the model, hidden x hidden and 0.9 of
# it (planner.memory.deepspeed_states.deepspeed_bucket_elements), as the memory model counts them.
_DEFAULT_REDUCE_BUCKET = 500_000_000
_DEFAULT_PREFETCH_BUCKET = 50_000_000
# AdamW as DeepSpeed builds it from the config (FusedAdam on GPU, DeepSpeedCPUAdam when the optimizer is
# offloaded); betas (0.9, 0.95), eps 1e-8 and weight decay 0.1 as in the Llama 2 paper (Touvron et al. 2023,
# section 2.2); the peak learning rate is the task's (planner.exports.learning_rate; train.py's --lr wins).
_ADAMW = {"betas": [0.9, 0.95], "eps": 1e-8, "weight_decay": 0.1}


# ------------------------------------------------------------------------------------------ ds_config.json


def deepspeed_config(option: PlanOption, inputs: ExportInputs) -> dict[str, ConfigValue]:
    """ds_config.json for a training option, keys as DeepSpeed 0.19 reads them.

    Batch: micro-batch and gradient accumulation are written; train_batch_size (= micro x GA x data-parallel
    size) only without AutoTP, because DeepSpeed checks it against micro x GA x every rank of the world when
    the data-parallel group comes from AutoTP's mesh (deepspeed/runtime/config.py _batch_assertion), which a
    TP plan would fail; without it DeepSpeed derives the figure itself.
    Optimizer: an AdamW section, which DeepSpeed needs to build DeepSpeedCPUAdam for offloaded optimizer
    states (a torch.optim optimizer passed in fails with ZeRORuntimeException under offload).
    Recompute is not a DeepSpeed config key for Hugging Face models: train.py turns on gradient checkpointing.
    """
    precision = precision_of(option, inputs)
    layout = option.layout
    grad_accum = gradient_accumulation_steps(option, inputs)
    config: dict[str, ConfigValue] = {
        "train_micro_batch_size_per_gpu": layout.micro_batch,
        "gradient_accumulation_steps": grad_accum,
    }
    if layout.tp == 1:
        config["train_batch_size"] = layout.micro_batch * grad_accum * layout.dp
    config.update({
        "gradient_clipping": 1.0,
        "bf16": {"enabled": precision in (Precision.BF16, Precision.FP8)},
        "fp16": {"enabled": precision == Precision.FP16},
        "optimizer": {"type": "AdamW", "params": _adamw_params(layout, _peak_lr(option, inputs))},
        "zero_optimization": _zero_section(layout, inputs.model_spec.hidden if inputs.model_spec else None),
        "steps_per_print": 100,
        "wall_clock_breakdown": False,
    })  # fmt: skip
    if layout.tp > 1:
        config["tensor_parallel"] = {"autotp_size": layout.tp}  # DeepSpeed AutoTP training
    if layout.ep > 1:
        config["expert_parallel"] = _expert_section(layout, inputs.model_family)
    return config


def _peak_lr(option: PlanOption, inputs: ExportInputs) -> float:
    spec = inputs.model_spec
    return peak_learning_rate(task_of(option, inputs), spec.total_params if spec else 0)[0]


def _adamw_params(layout: Layout, lr: float) -> dict[str, ConfigValue]:
    """AdamW's settings. Without offload, "torch_adam" makes DeepSpeed use torch.optim.AdamW (foreach kernels)
    instead of its FusedAdam, which it would otherwise JIT-compile with nvcc on the first run (DeepSpeed's
    config docs, optimizer parameters), with "fused" passed on to it: its fused kernel makes no temporaries the
    size of the rank's fp32 partition in the step (the single-tensor and foreach paths hold one or two), as
    the memory model counts the step; with offload DeepSpeed's DeepSpeedCPUAdam runs the step on the CPU."""
    params: dict[str, ConfigValue] = {"lr": lr, **_ADAMW}
    if layout.offload == Offload.NONE:
        params["torch_adam"] = True
        params["fused"] = True
    return params


def _zero_section(layout: Layout, hidden: int | None) -> dict[str, ConfigValue]:
    zero = int(layout.zero)
    section: dict[str, ConfigValue] = {"stage": zero}
    reduce_bucket = _DEFAULT_REDUCE_BUCKET if hidden is None else deepspeed_bucket_elements(hidden)
    prefetch_bucket = _DEFAULT_PREFETCH_BUCKET if hidden is None else int(0.9 * reduce_bucket)
    if zero >= ZeroStage.OPTIMIZER:
        section.update(
            {"overlap_comm": True, "contiguous_gradients": True, "reduce_bucket_size": reduce_bucket}
        )
    if layout.offload in (Offload.OPTIMIZER, Offload.ALL):
        section["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
    if layout.offload == Offload.ALL:
        section["offload_param"] = {"device": "cpu", "pin_memory": True}
    if zero == ZeroStage.WEIGHTS:
        section.update(
            {
                "stage3_gather_16bit_weights_on_model_save": True,
                "stage3_prefetch_bucket_size": prefetch_bucket,
                # the fp32 gradient is made one sub-group at a time in the optimizer step (the memory model's)
                "sub_group_size": DEEPSPEED_SUB_GROUP_ELEMENTS,
            }
        )
        if hidden is not None:
            # DeepSpeed keeps up to 1e9 gathered parameters resident by default (stage3_max_live_parameters), and
            # keeps those reused within 1e9 (stage3_max_reuse_distance): a model below that stays gathered from
            # its forward to its backward. One bucket's worth releases each module after use, so only the
            # module in use and the prefetched bucket are gathered, as the memory model counts them
            section["stage3_max_live_parameters"] = reduce_bucket
            section["stage3_max_reuse_distance"] = reduce_bucket
    return section


def _expert_section(layout: Layout, family: str | None) -> dict[str, ConfigValue]:
    """DeepSpeed AutoEP: the MoE layers of a Hugging Face model are replaced by expert-parallel ones."""
    section: dict[str, ConfigValue] = {"enabled": True, "autoep_size": layout.ep}
    if family in AUTOEP_PRESETS:
        section["preset_model"] = family
    return section


# ---------------------------------------------------------------------------------- accelerate_config.yaml


def accelerate_backend(option: PlanOption) -> str:
    """accelerate's distributed_type: DEEPSPEED with ds_config.json for ZeRO / offload / EP plans, MULTI_GPU
    (torch DDP) for plain data parallel, NO for one GPU. TP and PP plans get no accelerate config
    (planner.exports.runners says why)."""
    layout = option.layout
    if layout.zero >= ZeroStage.OPTIMIZER or layout.offload != Offload.NONE or layout.ep > 1:
        return "DEEPSPEED"
    return "MULTI_GPU" if option.gpus > 1 else "NO"


def accelerate_config(option: PlanOption, inputs: ExportInputs) -> dict[str, ConfigValue]:
    """The dict `accelerate config` would save for this option (accelerate 1.15's config file keys).

    With DEEPSPEED the precision, batch and ZeRO settings live in ds_config.json only: accelerate refuses a
    `mixed_precision` beside `deepspeed_config_file`. Multi-node runs get the first node's address from
    launch.sh (--main_process_ip "$MASTER_ADDR"), never a placeholder in this file.
    """
    nodes, per_node = nodes_layout(option)
    backend = accelerate_backend(option)
    config: dict[str, ConfigValue] = {
        "compute_environment": "LOCAL_MACHINE",
        "debug": False,
        "distributed_type": backend,
        "downcast_bf16": "no",
        "machine_rank": 0,
        "main_training_function": "main",
    }
    if backend == "DEEPSPEED":
        deepspeed: dict[str, ConfigValue] = {
            "deepspeed_config_file": DS_CONFIG,
            "zero3_init_flag": option.layout.zero == ZeroStage.WEIGHTS,
        }
        config["deepspeed_config"] = deepspeed
        if nodes > 1:
            # "standard": each node's `accelerate launch` starts torchrun with --nnodes / --node_rank and the
            # nodes meet at the first one; without it accelerate hands the job to DeepSpeed's pdsh launcher,
            # which needs a hostfile and ssh (accelerate/utils/launch.py prepare_deepspeed_cmd_env)
            deepspeed["deepspeed_multinode_launcher"] = "standard"
    else:
        config["mixed_precision"] = _ACCELERATE_PRECISION.get(precision_of(option, inputs), "no")
    config.update({
        "num_machines": nodes,
        "num_processes": nodes * per_node,
        "rdzv_backend": "static",
        "same_network": True,
        "use_cpu": False,
    })  # fmt: skip
    return config


def accelerate_yaml(option: PlanOption, inputs: ExportInputs) -> str:
    header = (
        f"# accelerate {VERSIONS['accelerate']} config written by GPU Advisor for: "
        f"{comment_text(one_line_summary(option, inputs))}\n"
        "# run through launch.sh with RUNNER=accelerate (it passes the node rank and the first node's address)\n"
    )
    return header + to_yaml(accelerate_config(option, inputs))


# ---------------------------------------------------------------------------------------- peft_config.json


def peft_config(option: PlanOption, inputs: ExportInputs) -> dict[str, ConfigValue]:
    """peft_config.json for LoRA / QLoRA: LoraConfig's keyword arguments (peft 0.21) and, for QLoRA,
    transformers' BitsAndBytesConfig arguments (NF4 with double quantization, Dettmers et al. 2023, the QLoRA
    paper's setting). lora_alpha = 2 x rank is a common starting point; dropout 0.05 as in the QLoRA paper's
    small-model runs. train.py builds both objects from this file."""
    task = task_of(option, inputs)
    rank = option.workload.lora_rank if option.workload else 16
    config: dict[str, ConfigValue] = {
        "targets": f"peft {VERSIONS['peft']}, transformers {VERSIONS['transformers']}, "
        f"bitsandbytes {VERSIONS['bitsandbytes']}",
        "lora": {
            "r": rank,
            "lora_alpha": 2 * rank,
            "lora_dropout": 0.05,
            "target_modules": lora_target_modules(inputs.model_family, DEFAULT_LORA_TARGETS),
            "bias": "none",
            "task_type": "CAUSAL_LM",
        },
    }
    if task == Task.QLORA:
        compute = "fp16" if precision_of(option, inputs) == Precision.FP16 else "bf16"
        bnb: dict[str, ConfigValue] = {
            "load_in_4bit": True,
            "bnb_4bit_quant_type": "nf4",
            "bnb_4bit_use_double_quant": True,
            "bnb_4bit_compute_dtype": compute,
        }
        if option.layout.zero == ZeroStage.WEIGHTS:
            # ZeRO-3 shards the 4-bit weights as tensors of this dtype (transformers' DeepSpeed/FSDP QLoRA recipe).
            bnb["bnb_4bit_quant_storage"] = compute
        config["bitsandbytes"] = bnb
    return config
