"""planner.exports: the six files written for a chosen plan option.

Expectations come from the tools' own documented rules, written out here:
- DeepSpeed config JSON (https://www.deepspeed.ai/docs/config-json/): train_batch_size must equal
  train_micro_batch_size_per_gpu x gradient_accumulation_steps x data-parallel size; zero_optimization.stage;
  offload_optimizer / offload_param take {"device": "cpu"}; offload_param only exists for stage 3;
  bf16.enabled / fp16.enabled.
- accelerate's config file (what `accelerate config` writes): distributed_type, num_machines, num_processes,
  mixed_precision, and an fsdp_config / deepspeed_config / megatron_lm_config section for that backend.
- torchrun: --nnodes and --nproc-per-node; processes = nodes x per node.
- PDF 1.4 (ISO 32000-1 section 7.5): header "%PDF-1.x", objects, an xref table whose byte offsets point at
  "N 0 obj", a trailer with /Size and /Root, "startxref" + the xref offset, and "%%EOF".
"""

from __future__ import annotations

import csv
import json
import re
import struct
import zlib

import pytest
import yaml

from planner.exports import EXPORT_FILES, ExportInputs, export_plan
from planner.exports.common import nodes_layout
from planner.exports.configs import accelerate_config, deepspeed_config, launch_script
from planner.exports.report import report_pdf
from planner.gpus import get_gpu
from planner.memory import MemoryConfig, estimate_memory
from planner.models import get_preset
from planner.money import Money
from planner.search import PlanOption, PlanResult
from planner.vocabulary import Layout

GIB = 2**30


def make_option(gpu_id: str, strategy: Layout, *, task="finetune", precision="bf16", grad_accum=1, nodes=None,
                seq_len=4096, cost=None, fits=True):  # fmt: skip
    """A PlanOption with a real memory breakdown (planner.memory) for the given layout."""
    gpu = get_gpu(gpu_id)
    model = get_preset("llama-3.1-70b")
    memory = estimate_memory(
        model, MemoryConfig(task=task, precision=precision, layout=strategy, seq_len=seq_len)
    )
    gpus = strategy.dp * strategy.tp * strategy.pp
    return PlanOption(
        gpu=gpu,
        gpus=gpus,
        layout=strategy,
        memory=memory,
        fits=fits,
        step_time_s=12.5,
        tokens_per_s=80_000.0,
        wall_time_s=25_000.0,
        gpu_hours=gpus * 25_000.0 / 3600,
        cost=cost,
        cost_per_million_tokens=None,
        confidence="catalog spec",
        precision=precision,
        nodes=nodes if nodes is not None else max(1, gpus // gpu.gpus_per_node),
        gradient_accumulation_steps=grad_accum,
    )


def result_of(*options) -> PlanResult:
    return PlanResult(options=tuple(options), excluded=(), search_ms=1.0, advice=("needs ZeRO-3",))


# ------------------------------------------------------------------------------------------ ds_config.json


def test_zero3_offload_config_has_documented_keys_and_consistent_batch():
    # 64 GPUs = dp 64; micro-batch 2; the planner chose 2 accumulation steps: 2 x 2 x 64 = 256 sequences.
    option = make_option("h100-sxm", Layout(dp=64, zero=3, offload="all", micro_batch=2, recompute="full"),
                         grad_accum=2)  # fmt: skip
    config = deepspeed_config(option, ExportInputs(task="finetune", precision="bf16"))
    assert config["train_micro_batch_size_per_gpu"] == 2
    assert config["gradient_accumulation_steps"] == 2
    assert config["train_batch_size"] == 256
    assert config["zero_optimization"]["stage"] == 3
    assert config["zero_optimization"]["offload_optimizer"]["device"] == "cpu"
    assert config["zero_optimization"]["offload_param"]["device"] == "cpu"
    assert config["bf16"] == {"enabled": True}
    assert config["fp16"] == {"enabled": False}


def test_zero2_has_no_parameter_offload_and_fp16_switches_precision():
    # DeepSpeed: offload_param is only valid with stage 3; with ZeRO-2 only the optimizer can move to the CPU.
    option = make_option(
        "a100-sxm-80gb", Layout(dp=8, zero=2, offload="optimizer", micro_batch=1), precision="fp16"
    )
    config = deepspeed_config(option, ExportInputs(task="finetune", precision="fp16"))
    assert config["zero_optimization"]["stage"] == 2
    assert config["zero_optimization"]["offload_optimizer"] == {"device": "cpu", "pin_memory": True}
    assert "offload_param" not in config["zero_optimization"]
    assert config["fp16"]["enabled"] is True and config["bf16"]["enabled"] is False


def test_gradient_accumulation_from_global_batch_when_the_option_has_none():
    # An option the training search did not time (no accumulation figure of its own): 1024 sequences over
    # dp 16 x micro-batch 4 = 64 per step -> 16 accumulation steps.
    option = make_option("h100-sxm", Layout(dp=16, zero=1, micro_batch=4), task="pretrain", grad_accum=None)
    config = deepspeed_config(option, ExportInputs(task="pretrain", global_batch=1024))
    assert config["gradient_accumulation_steps"] == 16
    assert config["train_batch_size"] == 4 * 16 * 16


def test_tensor_parallel_batch_counts_only_data_parallel_ranks():
    # 64 GPUs as TP 8 x DP 8: DeepSpeed's train_batch_size counts data-parallel ranks only -> 1 x 4 x 8 = 32.
    option = make_option("h100-sxm", Layout(dp=8, tp=8, zero=1, micro_batch=1), grad_accum=4)
    config = deepspeed_config(option, ExportInputs(task="pretrain"))
    assert config["train_batch_size"] == 32
    assert config["tensor_parallel"] == {"autotp_size": 8}


def test_inference_config_is_deepspeed_inference_shape():
    option = make_option("h100-sxm", Layout(tp=2), task="inference")
    config = deepspeed_config(option, ExportInputs(task="inference", precision="bf16", seq_len=8192))
    assert config["tensor_parallel"] == {"tp_size": 2}
    assert config["dtype"] == "bf16"
    assert "zero_optimization" not in config


# ---------------------------------------------------------------------------------- accelerate_config.yaml


@pytest.mark.parametrize(
    ("strategy", "backend", "section"),
    [
        (Layout(dp=64, zero=3, micro_batch=1), "FSDP", "fsdp_config"),
        (Layout(dp=64, zero=3, offload="optimizer", micro_batch=1), "DEEPSPEED", "deepspeed_config"),
        (Layout(dp=64, zero=1, micro_batch=1), "DEEPSPEED", "deepspeed_config"),
        (Layout(dp=8, tp=8, micro_batch=1), "MEGATRON_LM", "megatron_lm_config"),
        (Layout(dp=64, micro_batch=1), "MULTI_GPU", None),
    ],
)
def test_accelerate_yaml_loads_and_names_the_backend(strategy, backend, section, tmp_path):
    option = make_option("h100-sxm", strategy)
    export_plan(
        result_of(option), option, tmp_path, ExportInputs(task="finetune", precision="bf16", model="llama")
    )
    config = yaml.safe_load((tmp_path / "accelerate_config.yaml").read_text())
    assert config["distributed_type"] == backend
    # 64 H100 SXM in 8-GPU servers: 8 machines, 64 processes.
    assert config["num_machines"] == 8
    assert config["num_processes"] == 64
    assert config["mixed_precision"] == "bf16"  # a string, not YAML's boolean reading of an unquoted word
    if section:
        assert isinstance(config[section], dict)
    if backend == "FSDP":
        assert config["fsdp_config"]["fsdp_sharding_strategy"] == "FULL_SHARD"
    if backend == "DEEPSPEED":
        assert config["deepspeed_config"]["deepspeed_config_file"] == "ds_config.json"
    if backend == "MEGATRON_LM":
        assert config["megatron_lm_config"]["megatron_lm_tp_degree"] == 8


def test_single_gpu_accelerate_is_no_distribution():
    option = make_option("h100-sxm", Layout(dp=1), task="lora")
    config = accelerate_config(option, ExportInputs(task="lora", precision="bf16"))
    assert config["distributed_type"] == "NO"
    assert (config["num_machines"], config["num_processes"]) == (1, 1)


# ------------------------------------------------------------------------------------------------ launch.sh


def test_launch_script_torchrun_node_and_gpu_counts():
    option = make_option("h100-sxm", Layout(dp=64, zero=3, micro_batch=1), nodes=8)
    script = launch_script(option, ExportInputs(task="finetune"))
    assert script.startswith("#!/usr/bin/env bash\n")
    assert re.search(r"^torchrun --nnodes=8 --nproc-per-node=8 ", script, re.M)
    assert re.search(r"deepspeed --num_nodes 8 --num_gpus 8", script)


def test_launch_script_spreads_an_uneven_count_evenly():
    # 12 GPUs of an 8-GPU server type: 2 nodes x 6, not 8 + 4 (torchrun takes one --nproc-per-node).
    option = make_option("h100-sxm", Layout(dp=12), task="pretrain", nodes=2)
    assert nodes_layout(option) == (2, 6)
    assert "--nnodes=2 --nproc-per-node=6" in launch_script(option, ExportInputs(task="pretrain"))


def test_serving_launch_uses_vllm_with_tensor_parallel():
    option = make_option("h100-sxm", Layout(tp=4), task="inference", nodes=1)
    script = launch_script(
        option, ExportInputs(task="inference", model="meta-llama/Llama-3.1-70B", seq_len=8192)
    )
    assert (
        "vllm serve" in script and "--tensor-parallel-size 4" in script and "--max-model-len 8192" in script
    )


# ------------------------------------------------------------------------------------- all six files, csv


def test_export_plan_writes_six_files_and_options_csv(tmp_path):
    chosen = make_option("h100-sxm", Layout(dp=64, zero=3, micro_batch=1, recompute="full"),
                         cost=Money(12_345.0, "USD"), grad_accum=4)  # fmt: skip
    other = make_option("a100-sxm-80gb", Layout(dp=64, zero=3, offload="optimizer", micro_batch=1))
    written = export_plan(
        result_of(chosen, other),
        chosen,
        tmp_path / "out",
        ExportInputs(task="finetune", model="Llama 3.1 70B"),
    )
    assert [p.name for p in written] == list(EXPORT_FILES)
    assert all(p.stat().st_size > 0 for p in written)
    assert (tmp_path / "out" / "launch.sh").stat().st_mode & 0o111  # executable
    rows = list(csv.DictReader((tmp_path / "out" / "options.csv").open()))
    assert [r["gpu_id"] for r in rows] == ["h100-sxm", "a100-sxm-80gb"]
    assert rows[0]["zero"] == "3" and rows[0]["gpus"] == "64" and rows[0]["nodes"] == "8"
    assert int(rows[0]["memory_per_gpu_bytes"]) == chosen.memory.total_bytes
    assert float(rows[0]["cost_amount"]) == 12_345.0 and rows[0]["cost_currency"] == "USD"
    assert rows[1]["offload"] == "optimizer"
    ds = json.loads((tmp_path / "out" / "ds_config.json").read_text())
    assert ds["zero_optimization"]["stage"] == 3
    report = (tmp_path / "out" / "report.md").read_text()
    assert "## Memory per GPU" in report and "## Assumptions and sources" in report
    assert "ZeRO-3" in report and "needs ZeRO-3" in report
    # Every memory term's assumption is in the report.
    assert chosen.memory.weights.assumption in report


# ------------------------------------------------------------------------------------------------ report.pdf


def parse_pdf(data: bytes) -> dict:
    """A structural check of a PDF without a PDF library: header, xref offsets, trailer, startxref, EOF."""
    assert data.startswith(b"%PDF-1.")
    assert data.rstrip().endswith(b"%%EOF")
    startxref = int(re.search(rb"startxref\s+(\d+)\s+%%EOF\s*$", data).group(1))
    assert data[startxref : startxref + 4] == b"xref"
    header = re.match(rb"xref\s+0 (\d+)\s+", data[startxref:])
    count = int(header.group(1))
    table = data[startxref + header.end() :].split(b"\n")[:count]
    assert table[0].startswith(b"0000000000 65535 f")
    for number, line in enumerate(table[1:], start=1):
        offset = int(line[:10])
        assert data[offset:].startswith(b"%d 0 obj" % number), f"xref entry {number} points elsewhere"
    trailer = data[data.index(b"trailer", startxref) :]
    assert b"/Size %d" % count in trailer and b"/Root" in trailer
    pages = re.findall(rb"/Type /Page\b", data)
    text = b""
    for match in re.finditer(rb"/Filter /FlateDecode >>\nstream\n", data):
        length = int(re.search(rb"/Length (\d+)", data[max(0, match.start() - 60) : match.start()]).group(1))
        text += zlib.decompress(data[match.end() : match.end() + length])
    return {"objects": count - 1, "pages": len(pages), "content": text}


def _rgb_png(width: int, height: int) -> bytes:
    raw = b"".join(b"\x00" + bytes([200, 30, 30]) * width for _ in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    )


def test_report_pdf_is_structurally_valid_and_carries_the_numbers():
    chosen = make_option("h100-sxm", Layout(dp=64, zero=3, micro_batch=1))
    data = report_pdf(result_of(chosen), chosen, ExportInputs(task="finetune", model="Llama 3.1 70B"),
                      {"memory chart": _rgb_png(40, 20)})  # fmt: skip
    parsed = parse_pdf(data)
    assert parsed["pages"] >= 1
    assert b"GPU Advisor plan report" in parsed["content"]
    assert b"Memory per GPU" in parsed["content"]
    assert b"/Subtype /Image /Width 40 /Height 20" in data  # the chart went in as an image
    assert b"/Predictor 15" in data


def test_report_pdf_skips_images_pdf_cannot_show_directly():
    # An RGBA PNG (colour type 6) would need its alpha split off; the report keeps the text instead.
    rgba = _rgb_png(4, 4).replace(
        struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0), struct.pack(">IIBBBBB", 4, 4, 8, 6, 0, 0, 0)
    )
    chosen = make_option("h100-sxm", Layout(dp=8, zero=3, micro_batch=1))
    data = report_pdf(result_of(chosen), chosen, ExportInputs(task="finetune"), {"chart": rgba})
    assert b"/Subtype /Image" not in data
    parse_pdf(data)


def test_long_report_flows_onto_more_pages():
    options = [make_option("h100-sxm", Layout(dp=8 * (i + 1), zero=3, micro_batch=1)) for i in range(8)]
    result = PlanResult(
        options=tuple(options),
        excluded=(),
        search_ms=1.0,
        advice=tuple(f"advice line {i}" for i in range(80)),
    )
    parsed = parse_pdf(report_pdf(result, options[0], ExportInputs(task="finetune")))
    assert parsed["pages"] >= 2


def test_cli_plan_export_writes_six_files_with_the_chosen_zero_stage(tmp_path, capsys):
    from planner.cli import main

    out = tmp_path / "out"
    code = main(["plan", "--model", "llama-3.1-70b", "--task", "finetune", "--gpu", "h100-sxm", "--gpus", "64",
                 "--tokens", "2e9", "--batch", "256", "--export", str(out), "--json"])  # fmt: skip
    assert code == 0
    top = json.loads(capsys.readouterr().out)["options"][0]
    assert sorted(p.name for p in out.iterdir()) == sorted(EXPORT_FILES)
    ds = json.loads((out / "ds_config.json").read_text())
    assert ds["zero_optimization"]["stage"] == top["strategy"]["zero"]
    assert (
        ds["train_batch_size"]
        == ds["train_micro_batch_size_per_gpu"] * ds["gradient_accumulation_steps"] * top["strategy"]["dp"]
    )
    assert ds["train_batch_size"] == 256  # the --batch asked for, in sequences
    parse_pdf((out / "report.pdf").read_bytes())


# ------------------------------------------------------------------------- the tools' own config schemas
# DeepSpeed 0.19.8 (sdist from PyPI, read for these sets; DeepSpeed is not a dependency). Its ZeRO, offload and
# tensor-parallel sections are pydantic models with extra="forbid" (deepspeed/runtime/config_utils.py), so an
# unknown key there stops training at start-up; the sets are the models' field names plus their aliases.
DEEPSPEED_TOP_LEVEL = {  # deepspeed/runtime/constants.py, activation_checkpointing/config.py, config.py
    "train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "gradient_clipping",
    "steps_per_print", "wall_clock_breakdown", "bf16", "fp16", "zero_optimization", "activation_checkpointing",
    "tensor_parallel", "pipeline", "optimizer", "scheduler", "prescale_gradients", "communication_data_type",
}  # fmt: skip
DEEPSPEED_ZERO = {  # deepspeed/runtime/zero/config.py: DeepSpeedZeroConfig
    "allgather_bucket_size", "allgather_partitions", "allgather_sequential", "compute_grad_norm",
    "contiguous_gradients", "cpu_offload", "cpu_offload_param", "cpu_offload_use_pin_memory", "elastic_checkpoint",
    "enable_sanity_checks", "gather_16bit_weights_on_model_save", "ignore_unused_parameters", "leaf_module",
    "legacy_stage1", "load_from_fp32_weights", "log_trace_cache_warnings", "max_live_parameters",
    "max_reuse_distance", "memory_efficient_linear", "model_persistence_threshold", "module_granularity_threshold",
    "offload_optimizer", "offload_param", "overlap_comm", "override_module_apply", "param_persistence_threshold",
    "parameter_alignment", "pipeline_loading_checkpoint", "prefetch_bucket_size", "reduce_bucket_size",
    "reduce_scatter", "round_robin_gradients", "save_muon_momentum_buffer_in_memory", "stage",
    "stage3_allgather_sequential", "stage3_gather_16bit_weights_on_model_save",
    "stage3_gather_fp16_weights_on_model_save", "stage3_max_live_parameters", "stage3_max_reuse_distance",
    "stage3_model_persistence_threshold", "stage3_module_granularity_threshold",
    "stage3_param_persistence_threshold", "stage3_prefetch_bucket_size", "stage3_use_all_reduce_for_fetch_params",
    "sub_group_size", "use_all_reduce_for_fetch_params", "use_multi_rank_bucket_allreduce", "zenflow",
    "zero_hpz_partition_size", "zero_quantized_gradients", "zero_quantized_nontrainable_weights",
    "zero_quantized_weights",
}  # fmt: skip
DEEPSPEED_OFFLOAD_OPTIMIZER = {"buffer_count", "cpuadam_cores_perc", "device", "fast_init", "nvme_path", "pin_memory",
                               "pipeline_read", "pipeline_write", "ratio", "super_offload"}  # fmt: skip
DEEPSPEED_OFFLOAD_PARAM = {"buffer_count", "buffer_size", "device", "max_in_cpu", "nvme_path", "pin_memory"}
DEEPSPEED_ACTIVATION_CHECKPOINTING = {"partition_activations", "number_checkpoints", "contiguous_memory_optimization",
                                      "synchronize_checkpoint_boundary", "profile", "cpu_checkpointing"}  # fmt: skip
DEEPSPEED_PIPELINE = {
    "stages",
    "partition",
    "seed_layers",
    "activation_checkpoint_interval",
    "pipe_partitioned",
    "grad_partitioned",
}  # fmt: skip  (runtime/config.py: get_pipeline_config defaults)
DEEPSPEED_TP_TRAINING = {"autotp_size", "dtype", "injection_policy_tuple", "keep_module_on_host", "kernel_inject",
                         "partition_config", "preset_model", "replace_with_kernel_inject", "tensor_parallel", "tp",
                         "tp_overlap_comm", "vocab_parallel_ce_backend", "vocab_parallel_lm_head"}  # fmt: skip
DEEPSPEED_INFERENCE = {"dtype", "tensor_parallel", "tp", "replace_with_kernel_inject", "kernel_inject", "max_tokens",
                       "max_out_tokens", "min_tokens", "enable_cuda_graph", "checkpoint", "quant", "moe"}  # fmt: skip
DEEPSPEED_INFERENCE_TP = {"enabled", "tp_size", "tp_grain_size", "mpu", "tp_group"}
DEEPSPEED_INFERENCE_DTYPES = {
    "fp16",
    "float16",
    "half",
    "fp32",
    "float32",
    "float",
    "bf16",
    "bfloat16",
    "int8",
}

# accelerate 1.15.0: ClusterConfig.from_yaml_file raises on any top-level key that is not a field of ClusterConfig
# (commands/config/config_args.py); section keys are the `accelerate launch` options of the same name.
ACCELERATE_TOP_LEVEL = {
    "compute_environment", "distributed_type", "mixed_precision", "use_cpu", "debug", "num_processes",
    "machine_rank", "num_machines", "gpu_ids", "main_process_ip", "main_process_port", "rdzv_backend",
    "same_network", "main_training_function", "enable_cpu_affinity", "fp8_config", "deepspeed_config",
    "fsdp_config", "parallelism_config", "megatron_lm_config", "mpirun_config", "downcast_bf16", "dynamo_config",
}  # fmt: skip
ACCELERATE_FSDP = {
    "fsdp_activation_checkpointing", "fsdp_auto_wrap_policy", "fsdp_backward_prefetch",
    "fsdp_cpu_ram_efficient_loading", "fsdp_forward_prefetch", "fsdp_min_num_params", "fsdp_offload_params",
    "fsdp_reshard_after_forward", "fsdp_sharding_strategy", "fsdp_state_dict_type", "fsdp_sync_module_states",
    "fsdp_transformer_layer_cls_to_wrap", "fsdp_use_orig_params", "fsdp_version",
}  # fmt: skip
ACCELERATE_DEEPSPEED = {"deepspeed_config_file", "zero3_init_flag", "deepspeed_hostfile", "deepspeed_multinode_launcher",
                        "zero_stage", "offload_optimizer_device", "offload_param_device", "gradient_accumulation_steps",
                        "gradient_clipping"}  # fmt: skip
ACCELERATE_MEGATRON = {"megatron_lm_tp_degree", "megatron_lm_pp_degree", "megatron_lm_num_micro_batches",
                       "megatron_lm_sequence_parallelism", "megatron_lm_recompute_activations",
                       "megatron_lm_use_distributed_optimizer", "megatron_lm_gradient_clipping"}  # fmt: skip
ACCELERATE_DISTRIBUTED_TYPES = {"NO", "MULTI_GPU", "DEEPSPEED", "FSDP", "MEGATRON_LM"}
ACCELERATE_PRECISIONS = {"no", "fp16", "bf16", "fp8"}

LAYOUTS = [
    Layout(dp=64, micro_batch=1),
    Layout(dp=64, zero=1, micro_batch=2),
    Layout(dp=32, zero=2, offload="optimizer", micro_batch=1),
    Layout(dp=64, zero=3, micro_batch=1, recompute="selective"),
    Layout(dp=64, zero=3, offload="all", micro_batch=1, recompute="full"),
    Layout(dp=8, tp=8, zero=1, micro_batch=1),
    Layout(dp=2, tp=4, pp=8, zero=1, micro_batch=1),
]


@pytest.mark.parametrize("strategy", LAYOUTS, ids=lambda s: f"zero{s.zero}-tp{s.tp}-pp{s.pp}-{s.offload}")
def test_ds_config_uses_only_keys_deepspeed_accepts(strategy, tmp_path):
    option = make_option("h100-sxm", strategy, grad_accum=2)
    export_plan(result_of(option), option, tmp_path, ExportInputs(task="finetune", precision="bf16"))
    config = json.loads((tmp_path / "ds_config.json").read_text())
    assert set(config) <= DEEPSPEED_TOP_LEVEL
    zero = config["zero_optimization"]
    assert set(zero) <= DEEPSPEED_ZERO and zero["stage"] == strategy.zero
    assert set(zero.get("offload_optimizer", {})) <= DEEPSPEED_OFFLOAD_OPTIMIZER
    assert set(zero.get("offload_param", {})) <= DEEPSPEED_OFFLOAD_PARAM
    # pydantic declares the bucket sizes as int: write integers, not 5e8 floats.
    assert all(isinstance(v, int) for k, v in zero.items() if k.endswith("bucket_size"))
    assert set(config.get("activation_checkpointing", {})) <= DEEPSPEED_ACTIVATION_CHECKPOINTING
    assert set(config.get("pipeline", {})) <= DEEPSPEED_PIPELINE
    assert set(config.get("tensor_parallel", {})) <= DEEPSPEED_TP_TRAINING
    assert ("pipeline" in config) == (strategy.pp > 1)
    assert config.get("pipeline", {}).get("stages", 1) == strategy.pp
    assert ("activation_checkpointing" in config) == (strategy.recompute != "none")
    assert config["bf16"]["enabled"] is True and config["fp16"]["enabled"] is False


@pytest.mark.parametrize(("precision", "dtype"), [("bf16", "bf16"), ("fp16", "fp16"), ("int8", "int8")])
def test_inference_ds_config_uses_deepspeed_inference_keys(precision, dtype):
    option = make_option("h100-sxm", Layout(tp=4), task="inference", precision=precision)
    config = deepspeed_config(option, ExportInputs(task="inference", precision=precision, seq_len=8192))
    assert set(config) <= DEEPSPEED_INFERENCE
    assert (
        set(config["tensor_parallel"]) <= DEEPSPEED_INFERENCE_TP and config["tensor_parallel"]["tp_size"] == 4
    )
    assert config["dtype"] in DEEPSPEED_INFERENCE_DTYPES and config["dtype"] == dtype


@pytest.mark.parametrize("strategy", LAYOUTS, ids=lambda s: f"zero{s.zero}-tp{s.tp}-pp{s.pp}-{s.offload}")
def test_accelerate_config_uses_only_keys_accelerate_loads(strategy, tmp_path):
    option = make_option("h100-sxm", strategy)
    export_plan(result_of(option), option, tmp_path, ExportInputs(task="finetune", precision="bf16"))
    config = yaml.safe_load((tmp_path / "accelerate_config.yaml").read_text())
    assert set(config) <= ACCELERATE_TOP_LEVEL
    assert config["distributed_type"] in ACCELERATE_DISTRIBUTED_TYPES
    assert config["mixed_precision"] in ACCELERATE_PRECISIONS
    assert config["machine_rank"] == 0 and config["main_training_function"] == "main"
    gpus = strategy.dp * strategy.tp * strategy.pp
    assert config["num_processes"] == gpus  # every GPU is one process, spread over num_machines servers
    assert config["num_machines"] == -(-gpus // 8)  # H100 SXM: 8 GPUs per server
    assert set(config.get("fsdp_config", {})) <= ACCELERATE_FSDP
    assert set(config.get("deepspeed_config", {})) <= ACCELERATE_DEEPSPEED
    assert set(config.get("megatron_lm_config", {})) <= ACCELERATE_MEGATRON
    if "fsdp_config" in config:
        assert config["fsdp_config"]["fsdp_sharding_strategy"] == "FULL_SHARD"  # ZeRO-3 = FSDP full shard
        assert config["fsdp_config"]["fsdp_offload_params"] == (strategy.offload == "all")


def test_pdf_tables_stay_inside_the_page_and_keep_every_column():
    # The ranked-options table has 11 columns; every header must start and (at the widest glyph, 1 em per
    # character: an upper bound for Helvetica-Bold) end inside the right margin of an A4 page (595 pt, 48 pt margin).
    options = [make_option("h100-sxm", Layout(dp=8 * (i + 1), zero=3, offload="optimizer", micro_batch=1),
                           cost=Money(1234.5 + i, "USD")) for i in range(3)]  # fmt: skip
    data = report_pdf(result_of(*options), options[0], ExportInputs(task="finetune", model="Llama 3.1 70B"))
    content = parse_pdf(data)["content"].decode("latin-1")
    runs = [(float(x), float(size), text) for size, x, _y, text in
            re.findall(r"/F\d ([\d.]+) Tf ([\d.]+) ([\d.]+) Td \((.*?)\) Tj", content)]  # fmt: skip
    assert runs and all(48 - 0.1 <= x <= 595 - 48 for x, _, _ in runs)
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
    drawn = {text: (x, size) for x, size, text in runs if text in header}
    assert set(drawn) == set(header)
    for text, (x, size) in drawn.items():
        assert x + len(text) * size <= 595 - 48 + 0.5, text
    for amount in ("1,234.50 USD", "1,235.50 USD", "1,236.50 USD"):  # the Cost column of each row
        assert amount in content


def test_pdf_text_outside_winansi_gets_readable_stand_ins():
    from planner.exports.pdf import pdf_safe

    assert pdf_safe("≈ 3.25 ₽") == "~ 3.25 RUB"
    assert pdf_safe("Модель 70B") == "Model 70B"
    assert pdf_safe("ZeRO-3 × 64 — fits") == "ZeRO-3 × 64 — fits"  # both are WinAnsi characters


# ------------------------------------------------------------------------------------------------ error bands


def test_report_shows_the_chosen_options_own_error_band_beside_its_figures():
    """Hand-built bands: the chosen option's time band -12% .. +15% over 23 runs applies to its step time, wall
    time, GPU-hours and cost; its throughput scales with 1 / time: 1/1.15 - 1 = -13%, 1/0.88 - 1 = +14%.
    Another option's band (-30% .. +40%, 5 runs) must not be what the chosen option shows."""
    import dataclasses

    from planner.exports.report import report_markdown
    from planner.uncertainty import ErrorBand

    chosen = dataclasses.replace(
        make_option("h100-sxm", Layout(dp=64, zero=3, micro_batch=1), cost=Money(12_345.0, "USD")),
        time_band=ErrorBand(-0.12, 0.15, 23, "training/hopper/multi-node"),
    )
    other = dataclasses.replace(
        make_option("a100-sxm-80gb", Layout(dp=64, zero=3, micro_batch=1)),
        time_band=ErrorBand(-0.30, 0.40, 5, "training/ampere/multi-node"),
    )
    report = report_markdown(result_of(other, chosen), chosen, ExportInputs(task="finetune", model="Llama"))
    rows = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in report.splitlines()
            if line.startswith("| ") and line.count("|") == 3}  # fmt: skip
    own = "(-12% .. +15%, from 23 published runs)"
    for item in ("Step time", "Wall time", "GPU-hours", "Cost"):
        assert rows[item].endswith(own), (item, rows[item])
    assert rows["Step time"].startswith("12.5 s")
    assert rows["Throughput"] == "80,000 tokens/s (-13% .. +14%, from 23 published runs)"
    assert rows["Cost per 1M tokens"] == "no price"  # no figure, so no band
    assert "from 5 published runs" not in report


def test_report_without_a_band_shows_the_figures_alone():
    from planner.exports.report import report_markdown

    option = make_option("h100-sxm", Layout(dp=8, zero=3, micro_batch=1))
    report = report_markdown(result_of(option), option, ExportInputs(task="finetune", model="Llama"))
    assert "published runs" not in report
