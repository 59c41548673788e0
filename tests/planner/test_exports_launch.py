"""planner.exports launch files without the frameworks: which files each plan family gets, what they say, and
that untrusted names never run (issue 14 item 1). tests/exports runs the same files with the real libraries."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from planner.exports import export_plan
from planner.exports.common import ExportInputs
from planner.exports.configs import accelerate_config, deepspeed_config, peft_config
from planner.exports.launch import launch_script, memory_utilization
from planner.exports.report import report_markdown
from planner.models import get_preset
from planner.money import Money
from planner.vocabulary import Layout, Task
from tests.exports.conftest import option_for, result_of

HOSTILE = [
    "evil/$(touch {marker})",
    "evil/`touch {marker}`",
    "x\ntouch {marker}\n",
    "x'; touch {marker}; echo '",
    'x"; touch {marker}; echo "',
]


def fake_tools(folder: Path) -> dict[str, str]:
    """torchrun / accelerate / vllm / trtllm-serve stand-ins that print the argv they got as JSON."""
    folder.mkdir(exist_ok=True)
    for tool in ("torchrun", "accelerate", "vllm", "trtllm-serve", "llama-server"):
        path = folder / tool
        path.write_text(f"#!{sys.executable}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n")
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}


def run_script(script: Path, env: dict[str, str], **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(script)], env={**env, **extra}, capture_output=True, text=True, timeout=30,
                          cwd=script.parent)  # fmt: skip


def test_a_relative_model_folder_is_written_absolute_so_launch_sh_runs_from_any_folder(tmp_path, monkeypatch):
    """Issue 30: a model path typed relative to the folder the plan ran in broke launch.sh started elsewhere."""
    import dataclasses

    work = tmp_path / "work"
    (work / "models" / "my model").mkdir(parents=True)
    monkeypatch.chdir(work)
    option = option_for(Layout(dp=2, zero=2))
    spec = dataclasses.replace(get_preset("llama-3.1-8b"), source="models/my model/config.json")
    out = tmp_path / "out"
    export_plan(result_of(option), option, out, ExportInputs(model="m", model_spec=spec, task="pretrain"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ran = subprocess.run(["bash", str(out / "launch.sh")], env={**fake_tools(tmp_path / "bin"), "DATA": "synthetic",
                         "STEPS": "1"}, capture_output=True, text=True, timeout=30, cwd=elsewhere)  # fmt: skip
    argv = json.loads(ran.stdout.strip().splitlines()[-1])
    assert argv[argv.index("--model") + 1] == str(work / "models" / "my model")


@pytest.mark.parametrize("template", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_model_names_are_passed_literally_and_never_run(template, tmp_path):
    marker = tmp_path / "PWNED"
    name = template.format(marker=marker)
    option = option_for(Layout(dp=2, zero=2))
    spec = get_preset("llama-3.1-8b")
    import dataclasses

    hostile_spec = dataclasses.replace(spec, name=name, source=name + "/config.json")
    out = tmp_path / "out"
    export_plan(
        result_of(option), option, out, ExportInputs(model=name, model_spec=hostile_spec, task="pretrain")
    )
    script = out / "launch.sh"
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0
    yaml.safe_load((out / "accelerate_config.yaml").read_text())  # the name in its comment breaks nothing
    env = fake_tools(tmp_path / "bin")
    ran = run_script(script, env, DATA="synthetic", STEPS="1")
    assert not marker.exists(), ran.stdout + ran.stderr
    if "\n" in name:
        # a name with control characters is refused as a model reference: launch.sh asks for MODEL
        assert ran.returncode == 2 and "set MODEL" in ran.stderr
    else:
        argv = json.loads(ran.stdout.strip().splitlines()[-1])
        # the config.json's folder, exactly as named, made absolute (launch.sh may start from any folder)
        assert argv[argv.index("--model") + 1] == os.path.abspath(name)
    ran = run_script(
        script, env, DATA="synthetic", STEPS="1", MODEL=name
    )  # and given as MODEL it is one word too
    argv = json.loads(ran.stdout.strip().splitlines()[-1])
    assert argv[argv.index("--model") + 1] == name and not marker.exists()


def test_launch_sh_checks_its_variables_with_one_line_each(tmp_path):
    option = option_for(Layout(dp=16, zero=3), gpus_per_node=8)  # two nodes
    export_plan(
        result_of(option), option, tmp_path / "out", ExportInputs(task="pretrain", model="meta-llama/x")
    )
    script = tmp_path / "out" / "launch.sh"
    env = {k: v for k, v in fake_tools(tmp_path / "bin").items() if k not in ("NODE_RANK", "MASTER_ADDR")}
    for extra, expected in (({}, "set NODE_RANK"), ({"NODE_RANK": "0"}, "set MASTER_ADDR"),
                            ({"NODE_RANK": "0", "MASTER_ADDR": "127.0.0.1"}, "other nodes cannot reach it"),
                            ({"NODE_RANK": "2", "MASTER_ADDR": "10.0.0.1"}, "NODE_RANK must be below 2"),
                            ({"NODE_RANK": "0", "MASTER_ADDR": "10.0.0.1"}, "set STEPS"),
                            ({"NODE_RANK": "0", "MASTER_ADDR": "10.0.0.1", "STEPS": "2"}, "set DATA")):  # fmt: skip
        ran = run_script(script, env, **extra)
        assert ran.returncode == 2 and ran.stderr.count("\n") == 1 and expected in ran.stderr, (
            extra,
            ran.stderr,
        )
    ran = run_script(script, env, NODE_RANK="1", MASTER_ADDR="10.0.0.1", DATA="synthetic", STEPS="3")
    argv = json.loads(ran.stdout)
    assert argv[:5] == ["--nnodes=2", "--nproc-per-node=8", "--node-rank=1", "--master-addr=10.0.0.1",
                        "--master-port=29500"]  # fmt: skip
    assert argv[argv.index("--deepspeed") + 1].endswith("ds_config.json") and "--steps" in argv


@pytest.mark.slow
def test_torchrun_flags_in_launch_sh_exist_in_torchrun_help(tmp_path):
    torchrun = shutil.which("torchrun", path=str(Path(sys.executable).parent))
    assert torchrun, "torch is a test dependency"
    helptext = subprocess.run([torchrun, "--help"], capture_output=True, text=True, timeout=60).stdout
    option = option_for(Layout(dp=2))
    script = launch_script(option, ExportInputs(task="pretrain", model="a/b"))
    flags = set(re.findall(r"torchrun ((?:--[a-z-]+=\S+ ?)+)", script)[0].split())
    assert {"--nnodes=1", "--nproc-per-node=2"} <= flags
    for flag in flags:
        assert flag.split("=")[0] in helptext


# ---------------------------------------------------------------------------------- one file set per family


def test_tensor_parallel_leaves_train_batch_size_to_deepspeed_and_writes_autotp():
    config = deepspeed_config(option_for(Layout(dp=4, tp=2, zero=2)), ExportInputs())
    assert "train_batch_size" not in config and config["tensor_parallel"] == {"autotp_size": 2}
    plain = deepspeed_config(option_for(Layout(dp=4, zero=2)), ExportInputs())
    assert plain["train_batch_size"] == 4 * plain["train_micro_batch_size_per_gpu"] * 2  # dp x micro x GA


def test_offload_configs_carry_an_optimizer_section():
    for offload, keys in (
        ("optimizer", {"offload_optimizer"}),
        ("all", {"offload_optimizer", "offload_param"}),
    ):
        config = deepspeed_config(option_for(Layout(dp=8, zero=3, offload=offload)), ExportInputs())
        assert config["optimizer"]["type"] == "AdamW"
        assert keys <= set(config["zero_optimization"])


def test_expert_parallel_is_written_for_mixtral():
    spec = get_preset("mixtral-8x7b")
    option = option_for(Layout(dp=8, ep=8, zero=1), model="mixtral-8x7b")
    config = deepspeed_config(option, ExportInputs(model_spec=spec))
    assert config["expert_parallel"] == {"enabled": True, "autoep_size": 8, "preset_model": "mixtral"}


def test_pipeline_plans_get_no_deepspeed_or_accelerate_file_and_say_why(tmp_path):
    option = option_for(Layout(dp=2, tp=4, pp=8, zero=1), gpus_per_node=8, model="llama-3.1-70b")
    spec = get_preset("llama-3.1-70b")
    written = export_plan(result_of(option), option, tmp_path, ExportInputs(model_spec=spec, task="pretrain"))
    assert sorted(p.name for p in written) == ["launch.sh", "options.csv", "report.md", "report.pdf"]
    script = (tmp_path / "launch.sh").read_text()
    assert 'RUNNER="${RUNNER:-torchtitan}"' in script and "--config llama3_70b" in script
    assert "--parallelism.tensor_parallel_degree 4 --parallelism.pipeline_parallel_degree 8" in script
    report = (tmp_path / "report.md").read_text()
    assert "| ds_config.json | not written | DeepSpeed's pipeline engine" in report


def test_accelerate_deepspeed_yaml_has_no_mixed_precision_and_tp_gets_none():
    config = accelerate_config(option_for(Layout(dp=8, zero=2)), ExportInputs(precision="bf16"))
    assert config["distributed_type"] == "DEEPSPEED" and "mixed_precision" not in config
    ddp = accelerate_config(option_for(Layout(dp=2)), ExportInputs(precision="bf16"))
    assert (ddp["distributed_type"], ddp["mixed_precision"]) == ("MULTI_GPU", "bf16")


def test_qlora_export_carries_lora_and_bitsandbytes_settings():
    option = option_for(Layout(), task="qlora")
    config = peft_config(option, ExportInputs(task="qlora", model_spec=get_preset("llama-3.1-8b")))
    assert config["lora"]["target_modules"] == ["q_proj", "k_proj", "v_proj", "o_proj"]
    assert config["bitsandbytes"]["bnb_4bit_quant_type"] == "nf4" and config["bitsandbytes"]["load_in_4bit"]
    assert "bitsandbytes" not in peft_config(option_for(Layout(), task="lora"), ExportInputs(task="lora"))


def test_vllm_command_has_repo_id_parallelism_context_and_concurrency(tmp_path):
    option = option_for(Layout(tp=4, pp=1, micro_batch=24), task="inference", model="llama-3.1-70b")
    inputs = ExportInputs(model="Llama 3.1 70B", model_spec=get_preset("llama-3.1-70b"), task="inference",
                          seq_len=8192)  # fmt: skip
    script = launch_script(option, inputs)
    assert "DEFAULT_MODEL=meta-llama/Llama-3.1-70B" in script  # the repo id, not the display name
    expected = f"--tensor-parallel-size 4 --pipeline-parallel-size 1 --max-model-len 8192 --max-num-seqs 24 " \
               f"--gpu-memory-utilization {memory_utilization(option):.2f}"  # fmt: skip
    assert expected in script
    planned = option.memory.total_bytes / option.gpu.memory_bytes
    assert planned < memory_utilization(option) <= min(0.95, planned + 0.04)
    out = tmp_path / "out"
    written = export_plan(result_of(option), option, out, inputs)
    assert "ds_config.json" not in {p.name for p in written}


def test_report_has_date_version_files_and_reference_costs(tmp_path):
    option = option_for(Layout(dp=8, zero=2))
    export_plan(result_of(option), option, tmp_path, ExportInputs(task="pretrain"))
    report = (tmp_path / "report.md").read_text()
    assert re.search(r"Exported on \d{4}-\d\d-\d\d by GPU Advisor \S+", report)
    assert "## Exported files" in report and "launch.sh starts the same layout" not in report
    # no price given: the stored reference prices for H100 SXM, cheapest RunPod 3.49 / h: 8 GPU-h -> 27.92 USD
    assert "## Cost at reference prices" in report and "REFERENCE" in report
    assert "| 3.49 USD | 27.92 USD |" in report
    priced = option_for(Layout(dp=8, zero=2), cost=Money(10.0, "USD"))
    assert "Cost at reference prices" not in report_markdown(result_of(priced), priced, ExportInputs())


# vLLM is not installable on a CPU machine; its 0.33.0 wheel (PyPI) was read instead: vllm/engine/arg_utils.py
# adds these options (lines 977, 991, 1167, 1171, 1209, 1241, 1389, 1754; --dtype choices from ModelDType in
# vllm/config/model.py). trtllm-serve's options: TensorRT-LLM tensorrt_llm/commands/serve.py (click options).
# llama-server's: llama.cpp tools/server/README.md (-m, -c, -np, -ngl, --split-mode none|layer|row).
VLLM_SERVE_OPTIONS = {"--tensor-parallel-size", "--pipeline-parallel-size", "--data-parallel-size",
                      "--max-model-len", "--max-num-seqs", "--gpu-memory-utilization", "--dtype",
                      "--distributed-executor-backend"}  # fmt: skip
# multi-node data parallel and expert parallel: vllm/engine/arg_utils.py of the same wheel (--data-parallel-start-rank,
# -size-local, -address, -rpc-port, --enable-expert-parallel) and vllm/entrypoints/common/cli_args.py (--headless)
VLLM_MULTI_NODE_OPTIONS = {"--enable-expert-parallel", "--data-parallel-size-local", "--data-parallel-address",
                           "--data-parallel-rpc-port", "--data-parallel-start-rank", "--headless", "--port"}  # fmt: skip
VLLM_DTYPES = {"auto", "half", "float16", "bfloat16", "float", "float32"}
TRTLLM_SERVE_OPTIONS = {"--backend", "--tp_size", "--pp_size", "--max_batch_size", "--max_seq_len",
                        "--kv_cache_free_gpu_memory_fraction"}  # fmt: skip
LLAMA_SERVER_OPTIONS = {"-m", "-c", "-np", "-ngl", "--split-mode"}
# SGLang 0.5.23's ServerArgs fields (sglang/srt/arg_groups/fields/parallel.py, model.py, schedule.py, serving.py of
# the wheel; arg_utils.py derives each flag as "--" + the field name with "-" for "_"): model_path, tp_size,
# pp_size, dp_size, attn_dp_size, ep_size, nnodes, node_rank, dist_init_addr, context_length, dtype,
# max_running_requests, mem_fraction_static, port; dtype's choices from fields/model.py.
SGLANG_OPTIONS = {"--model-path", "--tp-size", "--pp-size", "--dp-size", "--attn-dp-size", "--ep-size", "--nnodes",
                  "--node-rank", "--dist-init-addr", "--context-length", "--dtype", "--max-running-requests",
                  "--mem-fraction-static", "--port"}  # fmt: skip
SGLANG_DTYPES = {"auto", "half", "float16", "bfloat16", "float", "float32"}


def _sglang_options(script: str) -> list[str]:
    line = next(text for text in script.splitlines() if "exec python -m sglang.launch_server" in text)
    return [word for word in line.split("sglang.launch_server", 1)[1].split() if word.startswith("-")]


def _options_after(script: str, command: str) -> list[str]:
    line = next(text for text in script.splitlines() if f"exec {command}" in text)
    return [word for word in line.split() if word.startswith("-")]


@pytest.mark.parametrize("layout", [Layout(tp=8, micro_batch=32), Layout(dp=4, tp=2, micro_batch=16),
                                    Layout(tp=8, pp=2, micro_batch=8)], ids=["tp8", "dp4-tp2", "tp8-pp2"])  # fmt: skip
def test_serving_commands_use_only_options_the_engines_define(layout):
    option = option_for(layout, task="inference", model="llama-3.1-70b")
    script = launch_script(option, ExportInputs(task="inference", model_spec=get_preset("llama-3.1-70b")))
    assert set(_options_after(script, "vllm serve")) <= VLLM_SERVE_OPTIONS
    assert re.search(r"--dtype (\S+)", script).group(1) in VLLM_DTYPES
    assert set(_options_after(script, "trtllm-serve")) <= TRTLLM_SERVE_OPTIONS
    if "exec llama-server" in script:
        assert set(_options_after(script, "llama-server")) <= LLAMA_SERVER_OPTIONS
    sglang = _sglang_options(script)
    assert set(sglang) <= SGLANG_OPTIONS and "--model-path" in sglang
    assert re.search(r"launch_server .*--dtype (\S+)", script).group(1) in SGLANG_DTYPES
    if layout.dp > 1:
        assert f"--data-parallel-size {layout.dp}" in script  # the planned replicas, on one 8-GPU node
    if layout.tp * layout.pp > 8:  # one replica spans two nodes: a Ray cluster, llama.cpp refused
        assert "--distributed-executor-backend ray" in script and "ENGINE=llamacpp does not run" in script


@pytest.mark.parametrize(("engine", "nodes_gpus", "expected"), [
    (None, 8, "vllm"), ("vllm", 8, "vllm"), ("tensorrt-llm", 8, "trtllm"), ("llama.cpp", 8, "llamacpp"),
    ("gpt-fast", 8, "vllm"),  # gpt-fast is a benchmark script with no server
    ("llama.cpp", 16, "vllm"),  # llama.cpp serves from one machine; this replica spans two nodes
    ("sglang", 8, "sglang"), ("sglang", 16, "sglang"),
])  # fmt: skip
def test_launch_sh_serves_with_the_engine_the_plan_was_timed_with(engine, nodes_gpus, expected, tmp_path):
    import dataclasses

    layout = Layout(tp=8, micro_batch=4) if nodes_gpus == 8 else Layout(tp=8, pp=2, micro_batch=4)
    option = dataclasses.replace(option_for(layout, task="inference", model="llama-3.1-70b"), engine=engine)
    inputs = ExportInputs(task="inference", model_spec=get_preset("llama-3.1-70b"))
    script = launch_script(option, inputs)
    assert f'ENGINE="${{ENGINE:-{expected}}}"' in script
    export_plan(result_of(option), option, tmp_path, inputs)
    row = next(
        line for line in (tmp_path / "report.md").read_text().splitlines() if line.startswith("| launch.sh")
    )
    assert f"ENGINE={expected} by default" in row
    if expected != {"tensorrt-llm": "trtllm", "llama.cpp": "llamacpp", "sglang": "sglang"}.get(engine or "vllm", "vllm"):
        assert f"the plan's figures assume {engine}" in row  # the report says the engine differs


def test_an_expert_group_across_two_nodes_starts_one_vllm_engine_over_both(tmp_path):
    # vLLM's multi-node data parallel (docs.vllm.ai, Data Parallel Deployment): the first node serves the API with
    # its 8 local ranks, the second runs headless from rank 8, both pointed at the first node's address.
    from planner.gpus import get_gpu
    from planner.search import plan
    from planner.search.types import Constraints, Workload

    workload = Workload(
        task="inference", precision="fp8", seq_len=5000, output_len=1000, concurrent_users=256
    )
    result = plan(get_preset("deepseek-v3"), workload, [get_gpu("h100-sxm")], Constraints(max_gpus=32),
                  rank_by="cost", top=50)  # fmt: skip
    option = next(o for o in result.options if o.layout.ep == 16 and o.layout.tp == 1)
    inputs = ExportInputs(task="inference", model_spec=get_preset("deepseek-v3"), seq_len=6000)
    export_plan(result, option, tmp_path / "out", inputs)
    script = tmp_path / "out" / "launch.sh"
    env = fake_tools(tmp_path / "bin")
    runs = [json.loads(run_script(script, env, NODE_RANK=rank, MASTER_ADDR="10.0.0.1", MODEL="deepseek-ai/DeepSeek-V3")
                       .stdout) for rank in ("0", "1")]  # fmt: skip
    for argv in runs:
        assert argv[:2] == ["serve", "deepseek-ai/DeepSeek-V3"] and "--enable-expert-parallel" in argv
        assert argv[argv.index("--data-parallel-size") + 1] == "16"
        assert argv[argv.index("--data-parallel-size-local") + 1] == "8"
        assert argv[argv.index("--data-parallel-address") + 1] == "10.0.0.1"
        assert {word for word in argv if word.startswith("-")} <= VLLM_SERVE_OPTIONS | VLLM_MULTI_NODE_OPTIONS
    assert "--headless" not in runs[0] and "--data-parallel-start-rank" not in runs[0]
    assert "--headless" in runs[1] and runs[1][runs[1].index("--data-parallel-start-rank") + 1] == "8"


def test_tensor_parallel_ranks_of_an_expert_group_across_two_nodes_start_four_local_ranks_a_node(tmp_path):
    # TP 2 inside an expert group of 8 data-parallel ranks (16 GPUs, 2 nodes): vLLM --tensor-parallel-size 2
    # --data-parallel-size 8 --enable-expert-parallel; each 8-GPU node holds 4 ranks of 2 GPUs, so the first node
    # serves with --data-parallel-size-local 4 and the second starts headless at rank 4 (docs.vllm.ai, Data
    # Parallel Deployment: local size and start rank count data-parallel ranks, not GPUs).
    from planner.gpus import get_gpu
    from planner.search import plan
    from planner.search.types import Constraints, Workload

    workload = Workload(
        task="inference", precision="fp8", seq_len=5000, output_len=1000, concurrent_users=256
    )
    result = plan(get_preset("deepseek-v3"), workload, [get_gpu("h100-sxm")],
                  Constraints(max_gpus=16, pinned={"tp": 2, "ep": 8}), rank_by="cost", top=50)  # fmt: skip
    option = next(o for o in result.options if (o.layout.tp, o.layout.ep) == (2, 8))
    assert option.gpus == 16 and option.nodes == 2
    inputs = ExportInputs(task="inference", model_spec=get_preset("deepseek-v3"), seq_len=6000)
    export_plan(result, option, tmp_path / "out", inputs)
    env = fake_tools(tmp_path / "bin")
    runs = [json.loads(run_script(tmp_path / "out" / "launch.sh", env, NODE_RANK=rank, MASTER_ADDR="10.0.0.1",
                                  MODEL="deepseek-ai/DeepSeek-V3").stdout) for rank in ("0", "1")]  # fmt: skip
    for argv in runs:
        assert argv[argv.index("--tensor-parallel-size") + 1] == "2"
        assert argv[argv.index("--data-parallel-size") + 1] == "8"
        assert argv[argv.index("--data-parallel-size-local") + 1] == "4"
        assert {word for word in argv if word.startswith("-")} <= VLLM_SERVE_OPTIONS | VLLM_MULTI_NODE_OPTIONS
    assert runs[1][runs[1].index("--data-parallel-start-rank") + 1] == "4"


def test_an_expert_group_of_tensor_parallel_ranks_is_one_sglang_engine_with_attention_data_parallel():
    # SGLang's --tp-size counts every GPU of the engine; attention data parallel inside it is --attn-dp-size and the
    # experts' split --ep-size (SGLang 0.5.23 ServerArgs): DeepSeek-V3 TP 2 x EP 4 on 8 H200s is --tp-size 8
    # --attn-dp-size 4 --ep-size 8, what vLLM writes as --tensor-parallel-size 2 --data-parallel-size 4.
    from planner.gpus import get_gpu
    from planner.search import plan
    from planner.search.types import Constraints, Workload

    workload = Workload(task="inference", precision="fp8", seq_len=5000, output_len=1000, concurrent_users=64)
    result = plan(get_preset("deepseek-v3"), workload, [get_gpu("h200")],
                  Constraints(max_gpus=8, pinned={"tp": 2, "ep": 4}), rank_by="cost", top=50)  # fmt: skip
    option = next(o for o in result.options if (o.layout.tp, o.layout.ep) == (2, 4))
    script = launch_script(option, ExportInputs(task="inference", model_spec=get_preset("deepseek-v3")))
    line = next(text for text in script.splitlines() if "exec python -m sglang.launch_server" in text)
    assert "--tp-size 8 --attn-dp-size 4 --ep-size 8" in line
    assert set(_sglang_options(script)) <= SGLANG_OPTIONS
    assert "--tensor-parallel-size 2 --data-parallel-size 4 --enable-expert-parallel" in script


def test_a_quantized_serving_plan_says_which_checkpoint_it_needs():
    import dataclasses

    option = option_for(Layout(tp=2, micro_batch=8), task="inference", model="llama-3.1-70b")
    workload = dataclasses.replace(option.workload, weight_format="int4-g128")
    script = launch_script(dataclasses.replace(option, workload=workload),
                           ExportInputs(task="inference", model_spec=get_preset("llama-3.1-70b")))  # fmt: skip
    assert "the plan assumes int4-g128 weights: MODEL must be a checkpoint quantized so" in script


def test_engines_that_start_one_replica_say_so_when_a_node_holds_several():
    option = option_for(Layout(dp=2, tp=4, micro_batch=16), task="inference", model="llama-3.1-70b")
    script = launch_script(option, ExportInputs(task="inference", model_spec=get_preset("llama-3.1-70b")))
    assert "--data-parallel-size 2" in script  # vLLM starts both replicas
    assert (
        "trtllm-serve starts one replica of 4 GPU(s); the plan's 2 per node need one trtllm-serve each"
        in script
    )
    assert "llama-server runs one replica over the node's GPUs, not 2" in script


# The fast check (torchtitan's own ConfigManager parses the commands in tests/exports/test_torchtitan_parser.py,
# a slow test): the fields of Trainer.Config (torchtitan/trainer.py: hf_assets_path, training, parallelism, checkpoint),
# TrainingConfig and ParallelismConfig (torchtitan/config/configs.py), the checkpointer's Config
# (torchtitan/components/checkpointer/base.py: enable, initial_load_path, initial_load_in_hf) and the transformers
# backend's hf_model (torchtitan/experiments/transformers_modeling_backend/configs.py); --module / --config are
# read by torchtitan/config/manager.py, the config names by each models/*/config_registry.py.
TORCHTITAN_OPTIONS = {
    "--module", "--config", "--hf_assets_path", "--hf_model",
    "--training.local_batch_size", "--training.global_batch_size", "--training.disable_cuda_graphs",
    "--training.seq_len", "--training.steps", "--training.enable_cpu_offload",
    "--parallelism.data_parallel_replicate_degree", "--parallelism.data_parallel_shard_degree",
    "--parallelism.fsdp_reshard_after_forward", "--parallelism.tensor_parallel_degree",
    "--parallelism.pipeline_parallel_degree", "--parallelism.pipeline_parallel_microbatch_size",
    "--parallelism.expert_parallel_degree", "--parallelism.pipeline_parallel_schedule",
    "--parallelism.pipeline_parallel_layers_per_stage",
    "--checkpoint.enable", "--checkpoint.initial_load_path", "--checkpoint.initial_load_in_hf",
}  # fmt: skip
TORCHTITAN_CONFIGS = {"llama3": {"llama3_8b", "llama3_70b", "llama3_405b"}, "deepseek_v3": {"deepseek_v3_671b"},
                      "transformers_modeling_backend": {"transformers_modeling_backend_full"}}  # fmt: skip


@pytest.mark.parametrize(("layout", "task", "model"), [
    (Layout(dp=2, tp=4, pp=8, zero=1), "pretrain", "llama-3.1-70b"),
    (Layout(dp=4, tp=8, pp=2, zero=3, offload="all"), "finetune", "llama-3.1-405b"),
    (Layout(dp=2, tp=2, pp=2, ep=4, zero=1), "pretrain", "mixtral-8x7b"),  # the transformers backend
], ids=["llama3-pretrain", "offload-finetune", "hf-backend"])  # fmt: skip
def test_torchtitan_command_uses_only_options_and_configs_torchtitan_defines(layout, task, model):
    option = option_for(layout, task=task, model=model, gpus_per_node=8)
    script = launch_script(option, ExportInputs(task=task, model_spec=get_preset(model)))
    line = next(text for text in script.splitlines() if "-m torchtitan.train" in text)
    words = line.split()
    assert {word for word in words if word.startswith("--")} <= TORCHTITAN_OPTIONS
    module, config = words[words.index("--module") + 1], words[words.index("--config") + 1]
    assert config in TORCHTITAN_CONFIGS[module]
    degrees = {name: int(words[words.index(f"--parallelism.{name}_parallel_degree") + 1])
               for name in ("tensor", "pipeline", "expert")}  # fmt: skip
    assert degrees == {"tensor": layout.tp, "pipeline": layout.pp, "expert": layout.ep}
    shard = int(words[words.index("--parallelism.data_parallel_shard_degree") + 1])
    replicate = int(words[words.index("--parallelism.data_parallel_replicate_degree") + 1])
    assert shard * replicate == layout.dp  # torchtitan: dp_replicate x dp_shard x tp x pp = world size


def test_a_torchtitan_export_of_an_interleaved_pipeline_says_it_runs_one_stage_per_rank():
    """The command sets no interleaved schedule: the verdict (and so launch.sh's comment and the report) says
    so instead of claiming the planned virtual stages."""
    from planner.exports.runners import Runner, training_verdicts

    def torchtitan(virtual: int) -> tuple[str, ...]:
        layout = Layout(dp=2, tp=4, pp=4, zero=1, virtual_stages=virtual)
        verdicts = training_verdicts(layout, Task.PRETRAIN, "llama", "llama-3.1-70b")
        return next(v for v in verdicts if v.runner == Runner.TORCHTITAN).differs

    assert any("4 virtual stages per pipeline rank" in text for text in torchtitan(4))
    assert not any("virtual stages" in text for text in torchtitan(1))
