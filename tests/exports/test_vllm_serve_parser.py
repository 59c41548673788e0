"""The `vllm serve` lines of exported launch.sh files, parsed by vLLM 0.33's own argument parser.

vLLM is installed without its dependencies (`make test` installs it with --no-deps beside the `vllm-parser`
extra: what `vllm serve`'s parser imports; its torch pin would replace the CPU torch): the parser then runs on a
CPU machine with VLLM_TARGET_DEVICE=cpu. The parse runs in a child process so that vLLM's import and its
environment stay out of the test process. An option vLLM does not define makes argparse exit 2, which fails
the test; every planned figure is read back from the parsed namespace.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys

import pytest

from planner.exports.common import ExportInputs
from planner.exports.launch import launch_script, memory_utilization
from planner.models import get_preset
from planner.vocabulary import Layout
from tests.exports.conftest import option_for

pytestmark = pytest.mark.slow

# The parser `vllm serve` builds (vllm/entrypoints/cli/main.py: the serve subcommand on a FlexibleArgumentParser)
# and the subcommand's own check of the parsed arguments.
PARSE = """
import json, sys
import vllm.entrypoints.cli.serve as serve
from vllm.utils.argparse_utils import FlexibleArgumentParser

parser = FlexibleArgumentParser()
subparsers = parser.add_subparsers(dest="subparser")
(command,) = serve.cmd_init()
command.subparser_init(subparsers)
out = []
for argv in json.loads(sys.stdin.read()):
    args = parser.parse_args(argv)
    command.validate(args)
    values = {key: vars(args).get(key) for key in json.loads(sys.argv[1])}
    transfer = values.get("kv_transfer_config")
    if transfer is not None:  # a KVTransferConfig: its connector and role
        values["kv_transfer_config"] = [transfer.kv_connector, transfer.kv_role]
    out.append(values)
print(json.dumps(out))
"""
READ_BACK = ["model_tag", "tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size", "max_model_len",
             "enable_expert_parallel",
             "max_num_seqs", "gpu_memory_utilization", "dtype", "distributed_executor_backend",
             "kv_transfer_config"]  # fmt: skip


def vllm_argv(script: str, marker: str = "exec vllm serve") -> list[str]:
    """The words after `vllm` on the line with `marker`, with the model variable given a value."""
    line = next(text for text in script.splitlines() if marker in text)
    words = shlex.split(line.replace('"$MODEL"', "meta-llama/Llama-3.1-70B").rstrip(";"))
    return words[words.index("vllm") + 1:]


def _parse(argvs: list[list[str]]) -> list[dict[str, object]]:
    env = {**os.environ, "VLLM_TARGET_DEVICE": "cpu", "VLLM_LOGGING_LEVEL": "ERROR"}
    done = subprocess.run([sys.executable, "-c", PARSE, json.dumps(READ_BACK)], input=json.dumps(argvs),
                          capture_output=True, text=True, env=env, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


LAYOUTS = [Layout(tp=8, micro_batch=32), Layout(dp=4, tp=2, micro_batch=16), Layout(tp=8, pp=2, micro_batch=8),
           Layout(tp=1, micro_batch=256)]  # fmt: skip


def test_vllm_parses_every_exported_serve_line_with_the_planned_figures():
    options = [option_for(layout, task="inference", model="llama-3.1-70b") for layout in LAYOUTS]
    inputs = ExportInputs(task="inference", model_spec=get_preset("llama-3.1-70b"), seq_len=8192)
    argvs = [vllm_argv(launch_script(option, inputs)) for option in options]
    parsed = _parse(argvs)
    for layout, option, args in zip(LAYOUTS, options, parsed, strict=True):
        assert args["model_tag"] == "meta-llama/Llama-3.1-70B"
        assert (args["tensor_parallel_size"], args["pipeline_parallel_size"]) == (layout.tp, layout.pp)
        assert args["max_model_len"] == 8192 and args["max_num_seqs"] == layout.micro_batch
        assert args["gpu_memory_utilization"] == pytest.approx(memory_utilization(option))
        assert args["dtype"] == "bfloat16"
        replicas_on_a_node = layout.dp if layout.tp * layout.pp <= 8 else 1
        assert args["data_parallel_size"] == replicas_on_a_node
        spans_nodes = layout.tp * layout.pp > 8
        assert (args["distributed_executor_backend"] == "ray") == spans_nodes


def test_vllm_parses_both_pools_of_a_disaggregated_plan():
    """A plan that chose disaggregated pools (70B fp8, 5,000-token prompts at 6.4 requests/s, TPOT <= 15 ms):
    launch.sh's ROLE=prefill and ROLE=decode lines start each pool's tp with vLLM's NIXL KV connector."""
    from planner.gpus import get_gpu
    from planner.search import plan
    from planner.search.types import Constraints, Workload

    workload = Workload(task="inference", precision="fp8", seq_len=5500, output_len=500, request_rate=6.4,
                        ttft_target_s=1.0, tpot_target_s=0.015)  # type: ignore[arg-type]
    spec = get_preset("llama-3.1-70b")
    option = plan(spec, workload, [get_gpu("h100-sxm")], Constraints(max_gpus=64)).options[0]
    pools = option.latency.pools
    assert pools is not None
    script = launch_script(option, ExportInputs(task="inference", model_spec=spec, seq_len=5500))
    prefill, decode = _parse([vllm_argv(script, "prefill) exec vllm"), vllm_argv(script, "decode) exec vllm")])
    assert prefill["tensor_parallel_size"] == pools.prefill_tp and decode["tensor_parallel_size"] == pools.decode_tp
    assert decode["max_num_seqs"] == option.batch_per_replica and prefill["max_num_seqs"] == 1
    assert decode["gpu_memory_utilization"] == pytest.approx(memory_utilization(option))
    assert prefill["gpu_memory_utilization"] == 0.92  # vLLM 0.33's default: the plan's memory is a decode replica's
    for args in (prefill, decode):
        assert args["kv_transfer_config"] == ["NixlConnector", "kv_both"]
        assert args["max_model_len"] == 5500 and args["pipeline_parallel_size"] == 1


def test_vllm_parses_an_expert_parallel_plan_with_data_parallel_attention():
    """DeepSeek-V3 in fp8 for 512 users on up to 8 H200: the search chooses one expert-parallel group of 8 GPUs
    (MLA's latent KV is whole on every GPU under tensor parallelism, so TP 8 holds an eighth of the sequences
    data-parallel attention does; vLLM's and SGLang's DeepSeek recipes serve it so). launch.sh starts one vLLM
    engine with --data-parallel-size 8 --enable-expert-parallel, max-num-seqs per rank."""
    import math

    from planner.gpus import get_gpu
    from planner.search import plan
    from planner.search.types import Constraints, Workload

    spec = get_preset("deepseek-v3")
    workload = Workload(task="inference", precision="fp8", seq_len=4000, output_len=1000,
                        concurrent_users=512)  # type: ignore[arg-type]
    option = plan(spec, workload, [get_gpu("h200")], Constraints(max_gpus=8), rank_by="cost").options[0]
    layout = option.layout
    assert (layout.tp, layout.ep, option.gpus) == (1, 8, 8)
    script = launch_script(option, ExportInputs(task="inference", model_spec=spec, seq_len=4000))
    assert "ENGINE=\"${ENGINE:-vllm}\"" in script
    (args,) = _parse([vllm_argv(script)])
    assert args["tensor_parallel_size"] == 1 and args["data_parallel_size"] == 8
    assert args["enable_expert_parallel"] is True
    assert args["max_num_seqs"] == math.ceil(option.batch_per_replica / 8)


def test_vllm_parses_two_expert_parallel_groups_on_one_node():
    """Mixtral 8x7B pinned to EP 4 on 8 H100: two groups of 4 GPUs on the node, each its own engine and port."""
    from planner.gpus import get_gpu
    from planner.search import plan
    from planner.search.types import Constraints, Workload

    spec = get_preset("mixtral-8x7b")
    workload = Workload(task="inference", seq_len=3000, output_len=1000, concurrent_users=256)  # type: ignore[arg-type]
    option = plan(spec, workload, [get_gpu("h100-sxm")], Constraints(gpus=8, pinned={"ep": 4})).options[0]
    assert (option.layout.ep, option.layout.dp, option.gpus) == (4, 2, 8)
    script = launch_script(option, ExportInputs(task="inference", model_spec=spec, seq_len=3000))
    line = next(text for text in script.splitlines() if 'vllm serve "$MODEL"' in text)
    assert line.strip().endswith("--port $((8000 + g)) &") and "for g in $(seq 0 1)" in script
    argv = shlex.split(line.replace('"$MODEL"', "mistralai/Mixtral-8x7B-v0.1").replace("--port $((8000 + g)) &", ""))
    (args,) = _parse([argv[argv.index("vllm") + 1:]])
    assert args["data_parallel_size"] == 4 and args["enable_expert_parallel"] is True
    assert "CUDA_VISIBLE_DEVICES=$(seq -s, $((g * 4)) $((g * 4 + 3)))" in script
