"""The torchtitan commands of exported launch.sh files, parsed by torchtitan 0.3's own ConfigManager.

torchtitan is installed without its dependencies (`make test` installs it with --no-deps beside the
`torchtitan-parser` extra: what its config registry and ConfigManager import). The parse runs in a child
process, so torchtitan's imports stay out of the test process. ConfigManager loads the config the export names
(--module / --config), applies every override with tyro (an unknown flag is an error, which fails the test)
and validates the result; each planned figure is read back from the parsed config. The plans come from the
planner (planner.search.plan) with the layout fields pinned.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest

from planner.exports.common import ExportInputs, gradient_accumulation_steps
from planner.exports.launch import launch_script
from planner.gpus import get_gpu
from planner.models import get_preset
from planner.search import Constraints, plan
from planner.search.types import PlanOption, Workload
from planner.vocabulary import ZeroStage

pytestmark = pytest.mark.slow

PARSE = """
import json, sys
from torchtitan.config import ConfigManager

out = []
for argv in json.loads(sys.stdin.read()):
    config = ConfigManager().parse_args(argv)
    p, t = config.parallelism, config.training
    out.append({
        "replicate": p.data_parallel_replicate_degree, "shard": p.data_parallel_shard_degree,
        "tp": p.tensor_parallel_degree, "pp": p.pipeline_parallel_degree, "ep": p.expert_parallel_degree,
        "pp_microbatch": p.pipeline_parallel_microbatch_size, "reshard": p.fsdp_reshard_after_forward,
        "schedule": p.pipeline_parallel_schedule, "layers_per_stage": p.pipeline_parallel_layers_per_stage,
        "local_batch": t.local_batch_size, "global_batch": t.global_batch_size, "seq_len": t.seq_len,
        "steps": t.steps, "cpu_offload": t.enable_cpu_offload, "hf_assets": config.hf_assets_path,
        "recompute": type(config.activation_checkpoint).__qualname__,
        "hf_model": getattr(config, "hf_model", None),
        "checkpoint": [config.checkpoint.enable, config.checkpoint.initial_load_path,
                       config.checkpoint.initial_load_in_hf],
    })
print(json.dumps(out))
"""
VALUES = {'"$STEPS"': "100", '"$HF_ASSETS_PATH"': "/assets", '"$HF_CHECKPOINT"': "/weights",
          '"$MODEL"': "/model", '"$@"': ""}  # fmt: skip


# what torchtitan's ConfigManager builds for each planned recompute (torchtitan/distributed/activation_checkpoint.py)
RECOMPUTE_POLICY = {"none": "NoneType", "selective": "SelectiveAC.Config", "full": "FullAC.Config"}


def torchtitan_argv(script: str) -> list[str]:
    """The words after `-m torchtitan.train` on the exported line, with the variables given values."""
    line = next(text for text in script.splitlines() if "-m torchtitan.train" in text)
    for variable, value in VALUES.items():
        line = line.replace(variable, value)
    words = shlex.split(line)
    return words[words.index("torchtitan.train") + 1:]


def _parse(argvs: list[list[str]]) -> list[dict[str, object]]:
    done = subprocess.run([sys.executable, "-c", PARSE], input=json.dumps(argvs), capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _planned(
    task: str, gpus: int, pinned: dict[str, object], runtime: str | None = None, model: str = "llama-3.1-8b"
) -> PlanOption:
    workload = Workload(task=task, seq_len=4096, global_batch=256, runtime=runtime)
    result = plan(get_preset(model), workload, get_gpu("h100-sxm"), Constraints(gpus=gpus, pinned=pinned))
    assert result.options, [item.reason for item in result.excluded]
    return result.options[0]


def test_torchtitan_parses_every_exported_command_with_the_planned_figures():
    options = [
        _planned("pretrain", 16, {"tp": 2, "pp": 2, "zero": 1, "recompute": "none"}),  # a pipeline: torchtitan
        _planned("pretrain", 8, {"tp": 2, "pp": 1, "zero": 2}, runtime="torchtitan"),
        _planned("finetune", 8, {"tp": 1, "pp": 1, "zero": 3, "offload": "all"}, runtime="torchtitan"),
        _planned("pretrain", 32, {"tp": 1, "pp": 4, "zero": 0, "recompute": "full"}),
        # interleaved 1F1B: 4 x 2 virtual stages of 32 / 8 = 4 layers each
        _planned("pretrain", 32, {"tp": 1, "pp": 4, "virtual_stages": 2, "zero": 0, "recompute": "none"}),
        # no torchtitan config of its own: the transformers backend (experiments/transformers_modeling_backend)
        _planned("pretrain", 32, {"tp": 2, "pp": 2, "ep": 4, "zero": 1}, model="mixtral-8x7b"),
    ]
    models = ["llama-3.1-8b"] * 5 + ["mixtral-8x7b"]
    inputs = [ExportInputs(task=option.workload.task, model_spec=get_preset(model), seq_len=4096)
              for option, model in zip(options, models, strict=True)]  # fmt: skip
    for option in options:
        assert option.runtime == "torchtitan"
    assert options[4].layout.virtual_stages == 2
    parsed = _parse([torchtitan_argv(launch_script(o, i)) for o, i in zip(options, inputs, strict=True)])
    for option, export, config in zip(options, inputs, parsed, strict=True):
        layout = option.layout
        accumulation = gradient_accumulation_steps(option, export)
        sharded = layout.zero != ZeroStage.NONE
        assert (config["tp"], config["pp"], config["ep"]) == (layout.tp, layout.pp, layout.ep)
        assert config["shard"] == (layout.dp if sharded else 1)
        assert config["replicate"] == (1 if sharded else layout.dp)
        assert config["seq_len"] == 4096 and config["steps"] == 100 and config["hf_assets"] == "/assets"
        # torchtitan's step: local_batch_size sequences per rank, global_batch_size / (local x dp) accumulation
        # steps; with a pipeline the local batch is split into micro-batches of pp_microbatch sequences
        sequences = layout.micro_batch * accumulation
        global_batch = config["global_batch"] if config["global_batch"] > 0 else config["local_batch"] * layout.dp
        assert global_batch == sequences * layout.dp
        if layout.pp > 1:
            assert config["pp_microbatch"] == layout.micro_batch
            virtual = layout.virtual_stages
            assert config["schedule"] == ("Interleaved1F1B" if virtual > 1 else "1F1B")
            assert config["layers_per_stage"] == (32 // (layout.pp * virtual) if virtual > 1 else None)
        else:
            assert config["local_batch"] == layout.micro_batch
        assert config["reshard"] == ("never" if layout.zero in (1, 2) else "default")
        assert config["cpu_offload"] == (layout.offload == "all")
        # the planned recompute, not the config's default (selective): torchtitan's own policy classes
        assert config["recompute"] == RECOMPUTE_POLICY[layout.recompute]
        assert config["hf_model"] == ("/model" if export.model_spec.id == "mixtral-8x7b" else None)
        assert config["checkpoint"] == ([True, "/weights", True] if option.workload.task == "finetune"
                                        else [False, None, False])  # fmt: skip
