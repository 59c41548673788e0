"""launch.sh: one bash script that starts the plan on every node, with the runner that runs it as planned.

Training: RUNNER=deepspeed | accelerate | ddp | torchtitan (the default is the first that runs the layout;
the others refuse with the reason). Serving: ENGINE=vllm | trtllm | llamacpp. Every value from the plan is
written in; everything the plan cannot know (the data, the first node's address on a multi-node run) is a
variable the script checks before it starts anything, failing with one line that says what to set.
Untrusted names (the model reference) are shlex-quoted and every comment is one printable line.
"""

from __future__ import annotations

import math

from planner.exports.common import (
    ACCELERATE_CONFIG,
    DS_CONFIG,
    PEFT_CONFIG,
    TRAIN_PY,
    ExportInputs,
    gradient_accumulation_steps,
    nodes_layout,
    one_line_summary,
    precision_of,
    task_of,
)
from planner.exports.configs import accelerate_backend
from planner.exports.learning_rate import (
    MIN_LR_RATIO,
    PRETRAIN_WARMUP_STEPS,
    WARMUP_RATIO,
    peak_learning_rate,
)
from planner.exports.quoting import comment_text, sh
from planner.exports.runners import (
    FRAMEWORK_OF,
    TORCHTITAN_CONFIGS,
    TORCHTITAN_HF_BACKEND,
    Runner,
    Verdict,
    default_runner,
    serving_verdicts,
    training_verdicts,
)
from planner.search.types import PlanOption
from planner.vocabulary import Offload, Precision, Recompute, Task, ZeroStage

# vLLM's multi-node data-parallel RPC port (docs.vllm.ai, Data Parallel Deployment: its examples use 13345)
SGLANG_INIT_PORT = 20000  # the first node's address for torch.distributed's init in SGLang (--dist-init-addr)
DATA_PARALLEL_RPC_PORT = 13345

DEFAULT_SERVING_CONTEXT = 4096  # --max-model-len when the inputs give no seq_len
# vLLM reserves gpu_memory_utilization x the GPU's memory for weights, activations and the KV cache; the plan's
# per-GPU total plus this headroom (CUDA graphs, sampler buffers) is what it is given, at most 0.95.
SERVING_HEADROOM_FRACTION = 0.03
MAX_MEMORY_UTILIZATION = 0.95

_PRELUDE = """set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
die() { echo "launch.sh: $*" >&2; exit 2; }
need() { [ -n "${!1:-}" ] || die "set $1: $2"; }
"""


def training_verdicts_for(option: PlanOption, inputs: ExportInputs) -> list[Verdict]:
    spec = inputs.model_spec
    return training_verdicts(option.layout, task_of(option, inputs), inputs.model_family,
                             spec.id if spec else None, option.runtime)  # fmt: skip


def serving_verdicts_for(option: PlanOption) -> list[Verdict]:
    workload = option.workload
    engine = option.engine or (workload.engine if workload else None)
    return serving_verdicts(option.layout, nodes_layout(option)[0], engine,
                            workload.weight_format if workload else None, replicas_per_node(option))  # fmt: skip


def replicas_per_node(option: PlanOption) -> int:
    """Serving replicas (tp x pp GPUs each, or an expert-parallel group's tp x ep) on one node; 1 when one
    replica spans nodes."""
    replica_gpus = option.layout.tp * option.layout.pp * option.layout.ep
    per_node = nodes_layout(option)[1]
    return max(1, per_node // replica_gpus) if replica_gpus <= per_node else 1


def launch_script(option: PlanOption, inputs: ExportInputs) -> str:
    training = task_of(option, inputs).is_training
    verdicts = training_verdicts_for(option, inputs) if training else serving_verdicts_for(option)
    nodes, per_node = nodes_layout(option)
    header = [
        "#!/usr/bin/env bash",
        "# Written by GPU Advisor"
        + (f" {inputs.tool_version}" if inputs.tool_version else "")
        + (f" on {inputs.exported_on}" if inputs.exported_on else "")
        + " for:",
        "#   " + comment_text(one_line_summary(option, inputs)),
        f"# {nodes} node(s) x {per_node} GPU(s). Run it on every node; each runner below says what it runs:",
    ]
    header += [_verdict_comment(v) for v in verdicts]
    body = [_PRELUDE, *_node_lines(nodes, per_node), *_model_lines(inputs)]
    body += (
        _training_lines(option, inputs, verdicts) if training else _serving_lines(option, inputs, verdicts)
    )
    return "\n".join(header + body) + "\n"


def _verdict_comment(verdict: Verdict) -> str:
    if not verdict.runs:
        return f"#   {verdict.runner}: does not run this plan: {comment_text(verdict.reason)}"
    text = f"#   {verdict.runner}: {FRAMEWORK_OF[verdict.runner]}"
    if verdict.differs:
        text += "; differs: " + comment_text("; ".join(verdict.differs))
    return text


def _node_lines(nodes: int, per_node: int) -> list[str]:
    lines = [f"NNODES={nodes}", f"NPROC_PER_NODE={per_node}", 'MASTER_PORT="${MASTER_PORT:-29500}"']
    if nodes == 1:
        return lines + ["NODE_RANK=0", 'MASTER_ADDR="${MASTER_ADDR:-127.0.0.1}"']
    return lines + [
        f'need NODE_RANK "this node\'s index, 0 on the first node .. {nodes - 1}"',
        'case "$NODE_RANK" in *[!0-9]*) die "NODE_RANK must be a number, got $NODE_RANK";; esac',
        f'[ "$NODE_RANK" -lt {nodes} ] || die "NODE_RANK must be below {nodes}"',
        'need MASTER_ADDR "the first node\'s address, reachable from every node"',
        'case "$MASTER_ADDR" in 127.*|localhost|::1) '
        'die "MASTER_ADDR=$MASTER_ADDR is this machine only: other nodes cannot reach it";; esac',
    ]


def _model_lines(inputs: ExportInputs) -> list[str]:
    reference = inputs.model_reference()
    if reference is None:  # two lines, like a written reference: a name never changes the script's structure
        return [
            "# the plan names no model reference that is safe to write here",
            'need MODEL "a Hugging Face repo id or a local model folder (the plan names none that is safe)"',
        ]
    # shlex-quoted into a plain assignment: bash expands nothing inside the single quotes
    return [f"DEFAULT_MODEL={sh(reference)}", 'MODEL="${MODEL:-$DEFAULT_MODEL}"']


# ------------------------------------------------------------------------------------------------ training


def _training_lines(option: PlanOption, inputs: ExportInputs, verdicts: list[Verdict]) -> list[str]:
    default = default_runner(verdicts)
    layout, task = option.layout, task_of(option, inputs)
    nodes, per_node = nodes_layout(option)
    seq_len = inputs.seq_len or (option.workload.seq_len if option.workload else 4096)
    lines = [
        _steps_line(option, inputs, seq_len),
        'case "$STEPS" in ""|*[!0-9]*) die "STEPS must be a whole number of optimizer steps, got $STEPS";; esac',
        *_schedule_lines(task, inputs),
        *_nccl_lines(nodes),
        f'RUNNER="${{RUNNER:-{default or "none"}}}"',
        'TRAIN_SCRIPT="${TRAIN_SCRIPT:-$HERE/' + TRAIN_PY + '}"',
        f'TORCHRUN=(torchrun --nnodes={nodes} --nproc-per-node={per_node} --node-rank="$NODE_RANK" '
        '--master-addr="$MASTER_ADDR" --master-port="$MASTER_PORT")',
        "# what train.py needs besides the config files (train.py --help): the model, the data and the plan's",
        "# sequence length, recompute, weights (pretraining starts from random weights) and adapter",
        'TRAIN_ARGS=(--model "$MODEL" --data "${DATA:-}" --steps "$STEPS" '
        f"--seq-len {seq_len} --recompute {_recompute(layout.recompute)} "
        f"--init {'random' if task == Task.PRETRAIN else 'pretrained'} "
        '--lr "$LR" --warmup-steps "$WARMUP_STEPS" --min-lr-ratio "$MIN_LR_RATIO"'
        + (f' --peft "$HERE/{PEFT_CONFIG}"' if task.is_adapter else "")
        + ")",
        'case "$RUNNER" in',
    ]
    for verdict in verdicts:
        lines += _runner_case(verdict, option, inputs, seq_len)
    known = " ".join(v.runner.value for v in verdicts if v.runs) or "none"
    lines += [f'  *) die "RUNNER=$RUNNER is not one of: {known}";;', "esac"]
    return lines


def _steps_line(option: PlanOption, inputs: ExportInputs, seq_len: int) -> str:
    """STEPS: the plan's tokens / tokens per optimizer step when the plan has a token count."""
    workload = option.workload
    tokens = inputs.tokens or (workload.tokens if workload else None)
    layout = option.layout
    per_step = layout.micro_batch * gradient_accumulation_steps(option, inputs) * layout.dp * seq_len
    if tokens and per_step:
        return f'STEPS="${{STEPS:-{max(1, math.ceil(tokens / per_step))}}}"'
    return 'need STEPS "optimizer steps to run (the plan states no token count)"'


def _schedule_lines(task: Task, inputs: ExportInputs) -> list[str]:
    """The learning-rate schedule's defaults (planner.exports.learning_rate), each overridable by its variable:
    warmup over 3% of STEPS (at most 2,000 steps when pretraining), then cosine decay to MIN_LR_RATIO x LR."""
    spec = inputs.model_spec
    peak, source = peak_learning_rate(task, spec.total_params if spec else 0)
    percent = round(WARMUP_RATIO * 100)
    warmup = f"(STEPS * {percent} + 99) / 100"
    if task == Task.PRETRAIN:
        warmup = f"({warmup} < {PRETRAIN_WARMUP_STEPS} ? {warmup} : {PRETRAIN_WARMUP_STEPS})"
    return [
        f"# learning rate: peak LR ({comment_text(source)}), linear warmup over WARMUP_STEPS, then cosine decay to",
        "# MIN_LR_RATIO x LR at the last step (Llama 2, Touvron et al. 2023, section 2.2); set any of them to override",
        f'LR="${{LR:-{peak:g}}}"',
        f'WARMUP_STEPS="${{WARMUP_STEPS:-$(( {warmup} ))}}"',
        f'MIN_LR_RATIO="${{MIN_LR_RATIO:-{MIN_LR_RATIO:g}}}"',
    ]


def _nccl_lines(nodes: int) -> list[str]:
    """NCCL's settings, documented where a user looks first (NCCL user guide, "Environment Variables"); the
    defaults are NCCL's own, so only the logging level is set."""
    lines = [
        "# NCCL (docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html): NCCL_DEBUG=INFO prints the rings,",
        "# trees and transports it picked (NVLink, InfiniBand, sockets); leave NCCL_P2P_DISABLE and NCCL_IB_DISABLE",
        "# unset: either one falls back to slower paths than the plan's timings assume",
        'export NCCL_DEBUG="${NCCL_DEBUG:-WARN}"',
    ]
    if nodes > 1:
        lines += [
            "# between nodes: NCCL_SOCKET_IFNAME=<interface> when it picks one the other nodes cannot reach (its",
            "# bootstrap and socket transport), NCCL_IB_HCA=<adapters> to pin the InfiniBand / RoCE adapters, and",
            "# NCCL_IB_GID_INDEX for RoCE; the plan's network figure assumes GPUDirect RDMA over InfiniBand",
        ]
    return lines


def _recompute(recompute: Recompute) -> str:
    return str(Recompute(recompute))


def _runner_case(verdict: Verdict, option: PlanOption, inputs: ExportInputs, seq_len: int) -> list[str]:
    name = verdict.runner.value
    if not verdict.runs:
        return [
            f"  {name}) die {sh(f'RUNNER={name} does not run this plan: {comment_text(verdict.reason)}')};;"
        ]
    layout = option.layout
    check = (
        "    need DATA \"a UTF-8 text file to train on, or 'synthetic' for a dry run of the layout\"\n"
        '    [ -f "$TRAIN_SCRIPT" ] || die "TRAIN_SCRIPT=$TRAIN_SCRIPT is not a file (train.py ships beside this script)"'
    )
    if verdict.runner == Runner.DEEPSPEED:
        command = ('    exec "${TORCHRUN[@]}" "$TRAIN_SCRIPT" --runner deepspeed '
                   f'--deepspeed "$HERE/{DS_CONFIG}" "${{TRAIN_ARGS[@]}}" "$@"')  # fmt: skip
        return [f"  {name})", check, command, "    ;;"]
    if verdict.runner == Runner.ACCELERATE:
        # accelerate reads deepspeed_config_file relative to the working directory, not to the YAML file
        ds_file = (
            f'--deepspeed_config_file "$HERE/{DS_CONFIG}" '
            if accelerate_backend(option) == "DEEPSPEED"
            else ""
        )
        command = (
            f'    exec accelerate launch --config_file "$HERE/{ACCELERATE_CONFIG}" {ds_file}--machine_rank "$NODE_RANK" '
            '--main_process_ip "$MASTER_ADDR" --main_process_port "$MASTER_PORT" "$TRAIN_SCRIPT" '
            f"--runner accelerate --grad-accum {gradient_accumulation_steps(option, inputs)} "
            f'--micro-batch {layout.micro_batch} "${{TRAIN_ARGS[@]}}" "$@"'
        )
        return [f"  {name})", check, command, "    ;;"]
    if verdict.runner == Runner.DDP:
        precision = precision_of(option, inputs)
        autocast = (
            "fp16" if precision == Precision.FP16 else ("fp32" if precision == Precision.FP32 else "bf16")
        )
        command = (
            '    exec "${TORCHRUN[@]}" "$TRAIN_SCRIPT" --runner ddp '
            f"--micro-batch {layout.micro_batch} --grad-accum {gradient_accumulation_steps(option, inputs)} "
            f'--precision {autocast} "${{TRAIN_ARGS[@]}}" "$@"'
        )
        return [f"  {name})", check, command, "    ;;"]
    if verdict.runner == Runner.FSDP2:
        # MixedPrecisionPolicy's param_dtype: the plan's 16-bit compute, or fp32 throughout for an fp32 plan
        precision = precision_of(option, inputs)
        compute = "fp16" if precision == Precision.FP16 else ("fp32" if precision == Precision.FP32 else "bf16")
        command = (
            '    exec "${TORCHRUN[@]}" "$TRAIN_SCRIPT" --runner fsdp2 '
            f"--micro-batch {layout.micro_batch} --grad-accum {gradient_accumulation_steps(option, inputs)} "
            f"--precision {compute}"
            + (" --reshard" if layout.zero == ZeroStage.WEIGHTS else "")
            + (" --offload-all" if layout.offload == Offload.ALL else "")
            + ' "${TRAIN_ARGS[@]}" "$@"'
        )
        return [f"  {name})", check, command, "    ;;"]
    return [f"  {name})", *_torchtitan_lines(option, inputs, seq_len), "    ;;"]  # reads its config's dataset


# torchtitan 0.3's activation checkpointing (torchtitan/distributed/activation_checkpoint.py
# ActivationCheckpointingConfig, tyro subcommands of the trainer's config): its configs default to selective
# (per-op: matmul outputs saved), which the plan's "none" and "full" are not
_TORCHTITAN_RECOMPUTE = {
    Recompute.NONE: "activation-checkpoint:none",
    Recompute.SELECTIVE: "activation-checkpoint:selective",
    Recompute.FULL: "activation-checkpoint:full",
}


def _torchtitan_lines(option: PlanOption, inputs: ExportInputs, seq_len: int) -> list[str]:
    """torchtitan 0.3: `-m torchtitan.train --module M --config C` plus overrides (torchtitan/config/manager.py;
    flag names are the ParallelismConfig / TrainingConfig fields of torchtitan/config/configs.py)."""
    layout = option.layout
    spec = inputs.model_spec
    module, config = TORCHTITAN_CONFIGS.get(spec.id if spec else "", TORCHTITAN_HF_BACKEND)
    sharded = layout.zero != ZeroStage.NONE
    # torchtitan's step: local_batch_size sequences per rank in one forward without a pipeline (global_batch_size
    # / (local x dp) accumulation steps), or split into pipeline micro-batches of pipeline_parallel_microbatch_size
    accumulation = gradient_accumulation_steps(option, inputs)
    local_batch = layout.micro_batch * accumulation if layout.pp > 1 else layout.micro_batch
    flags = [
        f"--module {module}", f"--config {config}",
        f"--parallelism.data_parallel_replicate_degree {1 if sharded else layout.dp}",
        f"--parallelism.data_parallel_shard_degree {layout.dp if sharded else 1}",
        f"--parallelism.tensor_parallel_degree {layout.tp}",
        f"--parallelism.pipeline_parallel_degree {layout.pp}",
        f"--parallelism.expert_parallel_degree {layout.ep}",
        f"--training.local_batch_size {local_batch}",
        f"--training.global_batch_size {layout.micro_batch * accumulation * layout.dp}",
        f"--training.seq_len {seq_len}",
        '--training.steps "$STEPS"',
        '--hf_assets_path "$HF_ASSETS_PATH"',
    ]  # fmt: skip
    if layout.pp > 1:
        flags.append(f"--parallelism.pipeline_parallel_microbatch_size {layout.micro_batch}")
        # the planned schedule: 1F1B, or interleaved 1F1B over pp x virtual stages (torch.distributed.pipelining
        # Interleaved1F1B; torchtitan splits the layers by pipeline_parallel_layers_per_stage)
        virtual = layout.virtual_stages
        flags.append(f"--parallelism.pipeline_parallel_schedule {'Interleaved1F1B' if virtual > 1 else '1F1B'}")
        if virtual > 1 and spec is not None and spec.layers % (layout.pp * virtual) == 0:
            flags.append(f"--parallelism.pipeline_parallel_layers_per_stage {spec.layers // (layout.pp * virtual)}")
        # torchtitan 0.3 refuses CUDA graphs with a pipeline (Trainer.Config validation)
        flags.append("--training.disable_cuda_graphs")
    if layout.zero in (ZeroStage.OPTIMIZER, ZeroStage.GRADIENTS):
        flags.append("--parallelism.fsdp_reshard_after_forward never")
    if layout.offload == Offload.ALL:
        flags.append("--training.enable_cpu_offload")
    if module == TORCHTITAN_HF_BACKEND[0]:
        flags.append('--hf_model "$MODEL"')
    needs = [
        '    need HF_ASSETS_PATH "a folder with the model\'s tokenizer files (torchtitan --hf_assets_path)"'
    ]
    if task_of(option, inputs) != Task.PRETRAIN:  # fine-tuning starts from the model's Hugging Face weights
        flags += ["--checkpoint.enable", '--checkpoint.initial_load_path "$HF_CHECKPOINT"',
                  "--checkpoint.initial_load_in_hf"]  # fmt: skip
        needs.append(
            '    need HF_CHECKPOINT "the folder with the model\'s safetensors weights to fine-tune from"'
        )
    return [
        "    # torchtitan trains on the dataset its config names (override with --dataloader.* flags); DATA is unused",
        *needs,
        '    python -c "import torchtitan" 2>/dev/null || die "torchtitan is not installed (pip install torchtitan==0.3.0)"',
        # the planned recompute, last: a tyro subcommand ends the flags of the config it sits in
        '    exec "${TORCHRUN[@]}" -m torchtitan.train ' + " ".join(flags) + ' "$@" '
        + _TORCHTITAN_RECOMPUTE[Recompute(layout.recompute)],
    ]


# ------------------------------------------------------------------------------------------------- serving


def memory_utilization(option: PlanOption) -> float:
    """The fraction of each GPU's memory the serving engine may take: the plan's per-GPU total (weights, the
    KV cache of the planned sequences, activations) plus headroom, rounded up to 0.01, at most 0.95."""
    planned = option.memory.total_bytes / max(1, option.gpu.memory_bytes)
    return min(MAX_MEMORY_UTILIZATION, math.ceil((planned + SERVING_HEADROOM_FRACTION) * 100) / 100)


def kv_cache_fraction(option: PlanOption) -> float:
    """TensorRT-LLM's --kv_cache_free_gpu_memory_fraction: the share of the memory left after weights and
    buffers that its KV cache takes, so that the planned KV cache fits (rounded up to 0.01, at most 0.95)."""
    memory = option.memory
    free = option.gpu.memory_bytes - (memory.total_bytes - memory.kv_cache.bytes)
    if free <= 0:
        return MAX_MEMORY_UTILIZATION
    return min(MAX_MEMORY_UTILIZATION, max(0.01, math.ceil(memory.kv_cache.bytes / free * 100) / 100))


# vLLM's disaggregated prefill: both instances load the NIXL connector and send / receive KV caches (vLLM docs,
# features/nixl_connector_usage.md); a proxy in front sends each request to a prefill then a decode instance
# (vLLM's examples/online_serving/disaggregated_serving, toy_proxy_server.py).
VLLM_KV_TRANSFER = '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'


def _vllm_pool_lines(option: PlanOption, context: int, dtype: str) -> list[str]:
    """A disaggregated plan's vllm branch: ROLE=prefill or ROLE=decode starts one instance of that pool."""
    assert option.latency is not None and option.latency.pools is not None
    pools = option.latency.pools
    common = f"--pipeline-parallel-size 1 --max-model-len {context} --dtype {dtype} " \
             f"--kv-transfer-config {sh(VLLM_KV_TRANSFER)}"  # fmt: skip
    # the plan's memory is a decode replica's; a prefill instance keeps vLLM's default share of the GPU's memory
    decode_memory = f"--gpu-memory-utilization {memory_utilization(option):.2f}"
    return [
        f"    # disaggregated: {pools.prefill_replicas} prefill instance(s) of TP {pools.prefill_tp} and "
        f"{pools.decode_replicas} decode instance(s) of TP {pools.decode_tp}, a proxy in front (vLLM's "
        "disaggregated_serving example)",
        '    case "${ROLE:-}" in',
        f'      prefill) exec vllm serve "$MODEL" --tensor-parallel-size {pools.prefill_tp} --max-num-seqs 1 {common};;',
        f'      decode) exec vllm serve "$MODEL" --tensor-parallel-size {pools.decode_tp} '
        f"--max-num-seqs {option.batch_per_replica or 1} {decode_memory} {common};;",
        '      *) die "ROLE=prefill or ROLE=decode: this plan runs two pools";;',
        "    esac",
    ]


def _vllm_expert_parallel_lines(option: PlanOption, context: int, dtype: str, groups: int) -> list[str]:
    """An expert-parallel plan: each group of ep ranks of tp GPUs is one vLLM engine with data-parallel attention
    over its ep ranks and the experts split over all tp x ep GPUs (--tensor-parallel-size tp --data-parallel-size ep
    --enable-expert-parallel; docs.vllm.ai, Expert Parallel Deployment); max-num-seqs is per rank. Several groups on a node run side by side, each on its
    own GPUs and port."""
    layout = option.layout
    per_rank = -(-(option.batch_per_replica or layout.micro_batch) // layout.ep)
    serve = (
        f'vllm serve "$MODEL" --tensor-parallel-size {layout.tp} --data-parallel-size {layout.ep} '
        f"--enable-expert-parallel --max-model-len {context} --max-num-seqs {per_rank} "
        f"--gpu-memory-utilization {memory_utilization(option):.2f} --dtype {dtype}"
    )
    width = layout.tp * layout.ep
    per_node = nodes_layout(option)[1]
    if width > per_node:
        return _vllm_expert_parallel_across_nodes(serve, width // per_node, per_node // layout.tp, option.layout.dp)
    if groups <= 1:
        return [f"    exec {serve}"]
    return [
        f"    # {groups} expert-parallel groups of {width} GPUs on this node: one engine each, on its own GPUs and "
        "port; put a load balancer in front",
        f"    for g in $(seq 0 {groups - 1}); do",
        f"      CUDA_VISIBLE_DEVICES=$(seq -s, $((g * {width})) $((g * {width} + {width - 1}))) \\",
        f"        {serve} --port $((8000 + g)) &",
        "    done",
        "    wait",
    ]


def _vllm_expert_parallel_across_nodes(serve: str, nodes: int, per_node: int, groups: int) -> list[str]:
    """An expert-parallel group wider than a node: one vLLM engine over `nodes` nodes (docs.vllm.ai, Data Parallel
    Deployment, multi-node): the first node of the group serves the API with its local ranks (`per_node`
    data-parallel ranks, each of tp GPUs), the others run headless from their start rank, all reaching the first
    over MASTER_ADDR's RPC port."""
    lines = []
    if groups > 1:
        lines.append(
            f"    # {groups} expert-parallel groups of {nodes} nodes each: NODE_RANK {nodes} .. {2 * nodes - 1} "
            "form the second group (its first node its own API server and MASTER_ADDR), and so on"
        )
    rank = f"$((NODE_RANK % {nodes}))"
    common = (
        f'--data-parallel-size-local {per_node} --data-parallel-address "$MASTER_ADDR" '
        f"--data-parallel-rpc-port {DATA_PARALLEL_RPC_PORT}"
    )
    return lines + [
        f"    if [ {rank} -eq 0 ]; then exec {serve} {common}; fi",
        f"    exec {serve} --headless --data-parallel-start-rank $(({rank} * {per_node})) {common}",
    ]


def _serving_lines(option: PlanOption, inputs: ExportInputs, verdicts: list[Verdict]) -> list[str]:
    layout = option.layout
    context = inputs.seq_len or (option.workload.seq_len if option.workload else DEFAULT_SERVING_CONTEXT)
    nodes, per_node = nodes_layout(option)
    sequences = option.batch_per_replica or layout.micro_batch
    dtype = "float16" if precision_of(option, inputs) == Precision.FP16 else "bfloat16"
    replica_gpus = layout.tp * layout.pp * layout.ep
    replicas_here = replicas_per_node(option)
    vllm = (
        f'vllm serve "$MODEL" --tensor-parallel-size {layout.tp} --pipeline-parallel-size {layout.pp} '
        f"--max-model-len {context} --max-num-seqs {sequences} "
        f"--gpu-memory-utilization {memory_utilization(option):.2f} --dtype {dtype}"
    )
    lines = [f'ENGINE="${{ENGINE:-{default_runner(verdicts)}}}"', 'case "$ENGINE" in', "  vllm)"]
    if (
        option.latency is not None and option.latency.pools is not None
    ):  # each pool's instances on their nodes
        lines += _vllm_pool_lines(option, context, dtype)
    elif layout.ep > 1:
        lines += _vllm_expert_parallel_lines(option, context, dtype, replicas_here)
    elif replica_gpus > per_node:  # one replica spans nodes: vLLM runs them as one Ray cluster
        lines += [
            '    if [ "$NODE_RANK" -ne 0 ]; then exec ray start --address="$MASTER_ADDR:6379" --block; fi',
            "    ray start --head --port=6379",
            f"    exec {vllm} --distributed-executor-backend ray",
        ]
    else:
        lines.append(
            f"    exec {vllm}" + (f" --data-parallel-size {replicas_here}" if replicas_here > 1 else "")
        )
    lines += [
        "    ;;",
        "  trtllm)",
        f'    exec trtllm-serve "$MODEL" --backend pytorch --tp_size {layout.tp} --pp_size {layout.pp} '
        f"--max_batch_size {sequences} --max_seq_len {context} "
        f"--kv_cache_free_gpu_memory_fraction {kv_cache_fraction(option):.2f}",
        "    ;;",
    ]
    lines += ["  sglang)", *_sglang_lines(option, context, dtype, replicas_here), "    ;;"]
    llamacpp = next(v for v in verdicts if v.runner == Runner.LLAMACPP)
    if llamacpp.runs:
        split = "row" if layout.tp > 1 else "layer"
        lines += [
            "  llamacpp)",
            '    need GGUF "the model as a GGUF file (llama.cpp reads no safetensors)"',
            # -c is the context of all slots together: each of the -np sequences gets c / np tokens
            f'    exec llama-server -m "$GGUF" -c {context * sequences} -np {sequences} -ngl 999 '
            f"--split-mode {split}",
            "    ;;",
        ]
    else:
        lines.append(f"  llamacpp) die {sh('ENGINE=llamacpp does not run this plan: ' + llamacpp.reason)};;")
    lines += ['  *) die "ENGINE=$ENGINE is not one of: vllm trtllm llamacpp sglang";;', "esac"]
    if replicas_here > 1 and nodes > 1:
        lines.insert(
            0, f"# each node serves {replicas_here} replica(s); put a load balancer in front of the nodes"
        )
    return lines


def _sglang_lines(option: PlanOption, context: int, dtype: str, replicas_here: int) -> list[str]:
    """SGLang's server for the plan (python -m sglang.launch_server; flags of SGLang 0.5.23's ServerArgs,
    sglang/srt/arg_groups/fields/*.py): --tp-size counts every GPU of the engine, so an expert-parallel group of
    ep ranks of tp GPUs is --tp-size tp x ep --attn-dp-size ep (attention data parallel inside the TP group)
    --ep-size tp x ep; the replicas of a node are --dp-size; an engine over several nodes adds --nnodes,
    --node-rank and --dist-init-addr. Disaggregated pools are written for vLLM only."""
    layout = option.layout
    if option.latency is not None and option.latency.pools is not None:
        return ['    die "ENGINE=sglang: launch.sh writes disaggregated pools for vLLM only"']
    sequences = option.batch_per_replica or layout.micro_batch
    if layout.ep > 1:
        width = layout.tp * layout.ep
        parallel = f"--tp-size {width} --attn-dp-size {layout.ep} --ep-size {width}"
    else:
        width = layout.tp * layout.pp
        parallel = f"--tp-size {layout.tp} --pp-size {layout.pp}"
        if replicas_here > 1:
            parallel += f" --dp-size {replicas_here}"
    serve = (
        f'python -m sglang.launch_server --model-path "$MODEL" {parallel} --context-length {context} '
        f"--max-running-requests {sequences} --mem-fraction-static {memory_utilization(option):.2f} --dtype {dtype}"
    )
    per_node = nodes_layout(option)[1]
    if width > per_node:
        nodes = -(-width // per_node)
        serve += (
            f" --nnodes {nodes} --node-rank $((NODE_RANK % {nodes})) "
            f'--dist-init-addr "$MASTER_ADDR:{SGLANG_INIT_PORT}"'
        )
    if layout.ep > 1 and replicas_here > 1 and width <= per_node:  # several expert groups on a node
        return [
            f"    for g in $(seq 0 {replicas_here - 1}); do",
            f"      CUDA_VISIBLE_DEVICES=$(seq -s, $((g * {width})) $((g * {width} + {width - 1}))) \\",
            f"        {serve} --port $((30000 + g)) &",
            "    done",
            "    wait",
        ]
    return [f"    exec {serve}"]
