"""The per-family table of issue 26: for every plan family the planner picks the layout, the export is written
from that option, and then either the exported launch.sh runs the exported train.py unchanged for two optimizer
steps on CPU (gloo, world size 1-2, under tests/exports/step_probe.py with GPU_ADVISOR_PEAK=1), or, where a step
cannot run on a CPU (torchtitan's pipelines, vLLM), the exported command is parsed by the runtime's own parser
(torchtitan's ConfigManager, `vllm serve`'s argument parser). One Markdown row per family: the runtime, what
was planned, what the library reports it set up, the plan's peak per GPU without the overhead term (CUDA
context, allocator margin, NCCL), the measured peak of the largest rank and their ratio.

    make family-table                       # every family (about 15-20 minutes on two cores)
    .venv/bin/python -m tests.exports.family_table zero3 lora-deepspeed   # some of them

Nothing here is asserted: tests/exports/test_peak_as_planned.py, test_runs_as_planned.py,
test_torchtitan_parser.py and test_vllm_serve_parser.py hold the checks; this prints the table the issue's
"Shows" asks for, so that a reader sees every family side by side.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from planner.exports import export_plan
from planner.exports.common import ExportInputs
from planner.gpus import get_gpu
from planner.models import get_preset, load_hf_config
from planner.search import Constraints, plan
from planner.search.types import PlanOption, Workload
from planner.vocabulary import Task
from tests.exports.test_peak_as_planned import CONFIG, SEQ_LEN, planned_peak
from tests.exports.test_runs_as_planned import run_probed

# a Mixtral of the 13M Llama's shape (4 experts of 344 features, 2 per token) for DeepSpeed AutoEP
MIXTRAL = {**CONFIG, "model_type": "mixtral", "architectures": ["MixtralForCausalLM"], "intermediate_size": 344,
           "num_local_experts": 4, "num_experts_per_tok": 2}  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Family:
    name: str
    task: str
    gpus: int
    pinned: dict[str, object]
    runtime: str | None = None
    precision: str = "bf16"
    config: dict[str, object] = dataclasses.field(default_factory=lambda: CONFIG)
    runner: str | None = None  # launch.sh's RUNNER where the family's own is not its default
    parse: str | None = None  # "torchtitan" or "vllm": parsed, not run (a preset model at full size)


def _one(**pinned: object) -> dict[str, object]:
    return {"recompute": "none", "micro_batch": 1, **pinned}


FAMILIES = [
    Family("ddp", "pretrain", 2, _one(zero=0), "ddp", runner="ddp"),
    Family("zero1", "pretrain", 2, _one(zero=1), "deepspeed"),
    Family("zero2", "pretrain", 2, _one(zero=2), "deepspeed"),
    Family("zero3", "pretrain", 2, _one(zero=3), "deepspeed"),
    Family("zero3-recompute", "pretrain", 2, _one(zero=3, recompute="full", micro_batch=2), "deepspeed"),
    Family("zero3-offload", "pretrain", 2, _one(zero=3, offload="optimizer"), "deepspeed"),
    Family("fsdp2", "pretrain", 2, _one(zero=3), "fsdp2"),
    Family("tp", "pretrain", 2, _one(tp=2, zero=1), "deepspeed"),
    Family("ep", "pretrain", 2, _one(ep=2, zero=1), "deepspeed", config=MIXTRAL),
    Family("full-finetune", "finetune", 2, _one(zero=2), "deepspeed"),
    Family("fp32-zero2", "pretrain", 2, _one(zero=2), "deepspeed", precision="fp32"),
    Family("lora-ddp", "lora", 1, _one(), "ddp", runner="ddp"),
    Family("lora-deepspeed", "lora", 2, _one(zero=2), "deepspeed"),
    Family("qlora-ddp", "qlora", 1, _one(), "ddp", runner="ddp"),
    Family("qlora-deepspeed", "qlora", 2, _one(zero=2), "deepspeed"),
    Family("pp", "pretrain", 32, {"tp": 1, "pp": 4, "zero": 0, "recompute": "none"}, parse="torchtitan"),
    Family("pp-recompute", "pretrain", 32, {"tp": 1, "pp": 4, "zero": 0, "recompute": "full"}, parse="torchtitan"),
    Family("tp-pp-dp", "pretrain", 16, {"tp": 2, "pp": 2, "zero": 1}, parse="torchtitan"),
    Family("serving", "inference", 8, {"tp": 8}, parse="vllm"),
]


def _plan(family: Family, folder: Path) -> tuple[PlanOption, Path]:
    """The planner's best option for the family (the 13M model, or a preset where it is only parsed), exported."""
    if family.parse:
        spec = get_preset("llama-3.1-8b")
        workload = Workload(task=family.task, seq_len=4096, global_batch=256, runtime=family.runtime)
        inputs = ExportInputs(task=family.task, model_spec=spec, seq_len=4096)
    else:
        model = folder / "model"
        model.mkdir(parents=True, exist_ok=True)
        (model / "config.json").write_text(json.dumps(family.config), encoding="utf-8")
        spec = load_hf_config(model / "config.json")
        if Task(family.task) != Task.PRETRAIN:  # fine-tuning reads a checkpoint
            model = _weights(family.config, folder / "weights")
        batch = family.gpus * int(family.pinned["micro_batch"])  # type: ignore[call-overload]
        workload = Workload(task=family.task, seq_len=SEQ_LEN, global_batch=batch, tokens=batch * SEQ_LEN,
                            runtime=family.runtime, precision=family.precision)  # fmt: skip
        inputs = ExportInputs(task=family.task, model_spec=spec, model_path=str(model), seq_len=SEQ_LEN)
    result = plan(spec, workload, get_gpu("h100-sxm"), Constraints(gpus=family.gpus, pinned=family.pinned))
    if not result.options:
        raise SystemExit(f"{family.name}: no option ({[item.reason for item in result.excluded]})")
    option = result.options[0]
    export = folder / "export"
    export_plan(result, option, export, inputs)
    return option, export


def _weights(config: dict[str, object], folder: Path) -> Path:
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    settings = {key: value for key, value in config.items() if key != "architectures"}
    built = AutoConfig.for_model(str(settings.pop("model_type")), **settings)
    # saved in bf16, as published checkpoints are: from_pretrained keeps the checkpoint's dtype (transformers 5)
    AutoModelForCausalLM.from_config(built).to(torch.bfloat16).save_pretrained(folder)
    return folder


def _setup(probes: list[dict[str, Any]], output: str) -> str:
    """What the libraries report they set up, from rank 0's probe and the layout lines."""
    probe = probes[0]
    parts = [f"{len(probes)} rank(s)"]
    engine = probe.get("engine")
    if engine:
        offload = [kind for kind in ("optimizer", "param") if engine[f"offload_{kind}"]]
        parts.append(f"DeepSpeed ZeRO-{engine['zero_stage']}, micro {engine['micro_batch']} x accumulation "
                     f"{engine['gradient_accumulation']}, bf16 {engine['bf16']}, {engine['optimizer']}"
                     + (f", offload {'+'.join(offload)}" if offload else ""))  # fmt: skip
    units = probe.get("fully_shard") or []
    if units:
        parts.append(f"fully_shard x {len(units)} (reshard {units[0]['reshard_after_forward']}, "
                     f"compute {units[0]['param_dtype'].removeprefix('torch.')})")  # fmt: skip
    layouts = [json.loads(line.split(" ", 1)[1]) for line in output.splitlines()
               if line.startswith("GPU_ADVISOR_LAYOUT ")]  # fmt: skip
    if layouts:
        parts.append(f"{layouts[0]['local_param_elements']:,} params on rank 0")
    parts.append(f"{probe['layer_calls']} layer calls over 2 steps")
    if probe.get("four_bit_layers"):
        parts.append(f"{len(probe['four_bit_layers'])} NF4 layers")
    dropout = probe.get("lora_dropout_calls") or []
    if dropout:
        parts.append(f"LoRA dropout {dropout[0]['p']} in training mode {all(c['training'] for c in dropout)}")
    return "; ".join(parts)


def _run(family: Family, option: PlanOption, export: Path) -> tuple[str, int, int]:
    env = {"RUNNER": family.runner} if family.runner else {}
    output, probes = run_probed(export, GPU_ADVISOR_PEAK="1", STEPS="2", **env)
    # a checkpoint is read into host RAM on every rank; the plan counts the GPU's (from the runtime's setup on)
    phases = ("setup", "step", "optimizer step")
    if Task(family.task) == Task.PRETRAIN:
        phases = ("build", *phases)
    measured = max(max(probe["phase_peaks"].get(phase, 0) for phase in phases) for probe in probes)
    # on a CPU the offloaded states are the same process's memory: planned GPU + host
    expected = planned_peak(option) + option.memory.host_offload_bytes
    return _setup(probes, output), expected, measured


_TORCHTITAN = """
import json, sys
from torchtitan.config import ConfigManager
config = ConfigManager().parse_args(json.loads(sys.stdin.read()))
p, t, ac = config.parallelism, config.training, config.activation_checkpoint
print(json.dumps(f"torchtitan ConfigManager: dp shard {p.data_parallel_shard_degree} x replicate "
                 f"{p.data_parallel_replicate_degree}, tp {p.tensor_parallel_degree}, pp {p.pipeline_parallel_degree}"
                 f" ({p.pipeline_parallel_schedule}, micro-batch {p.pipeline_parallel_microbatch_size}), local batch "
                 f"{t.local_batch_size}, activation checkpoint {type(ac).__qualname__.removesuffix('.Config')}"))
"""
_VLLM = """
import json, sys
import vllm.entrypoints.cli.serve as serve
from vllm.utils.argparse_utils import FlexibleArgumentParser
parser = FlexibleArgumentParser()
(command,) = serve.cmd_init()
command.subparser_init(parser.add_subparsers(dest="subparser"))
args = parser.parse_args(json.loads(sys.stdin.read()))
command.validate(args)
print(json.dumps(f"vllm serve parser: tp {args.tensor_parallel_size}, pp {args.pipeline_parallel_size}, dp "
                 f"{args.data_parallel_size}, max_num_seqs {args.max_num_seqs}, max_model_len {args.max_model_len}, "
                 f"gpu_memory_utilization {args.gpu_memory_utilization:.3f}"))
"""


def _parsed(family: Family, export: Path) -> str:
    import os
    import shlex

    from tests.exports.test_torchtitan_parser import torchtitan_argv
    from tests.exports.test_vllm_serve_parser import vllm_argv

    script = (export / "launch.sh").read_text(encoding="utf-8")
    if family.parse == "torchtitan":
        argv, code, env = torchtitan_argv(script), _TORCHTITAN, dict(os.environ)
    else:
        argv, code = vllm_argv(script), _VLLM
        env = {**os.environ, "VLLM_TARGET_DEVICE": "cpu", "VLLM_LOGGING_LEVEL": "ERROR"}
    done = subprocess.run([sys.executable, "-c", code], input=json.dumps(argv), capture_output=True, text=True,
                          env=env, timeout=600)  # fmt: skip
    if done.returncode:
        return f"refused by the parser: {shlex.quote(done.stderr.strip().splitlines()[-1])}"
    return str(json.loads(done.stdout.strip().splitlines()[-1]))


def _planned_text(option: PlanOption) -> str:
    layout = option.layout
    parts = [f"dp {layout.dp}"] + [f"{name} {getattr(layout, name)}" for name in ("tp", "pp", "ep")
                                   if getattr(layout, name) > 1]  # fmt: skip
    parts += [f"ZeRO-{int(layout.zero)}", f"micro {layout.micro_batch} x accumulation "
              f"{option.gradient_accumulation_steps or 1}", f"recompute {layout.recompute}", str(option.precision)]  # fmt: skip
    if layout.offload != "none":
        parts.append(f"offload {layout.offload}")
    return ", ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Issue 26's per-family table (plan -> export -> run or parse)")
    parser.add_argument("families", nargs="*", help=f"some of: {', '.join(f.name for f in FAMILIES)}")
    chosen = parser.parse_args(argv).families
    unknown = set(chosen) - {family.name for family in FAMILIES}
    if unknown:
        parser.error(f"unknown families: {', '.join(sorted(unknown))}")
    print("| family | runtime | planned | what the library set up | planned peak | measured peak | ratio |")
    print("|---|---|---|---|---|---|---|")
    for family in FAMILIES:
        if chosen and family.name not in chosen:
            continue
        with tempfile.TemporaryDirectory() as folder:
            option, export = _plan(family, Path(folder))
            runtime = option.runtime or "vllm"
            if family.parse:
                row = [_parsed(family, export), "-", "not run on CPU", "-"]
            else:
                setup, expected, measured = _run(family, option, export)
                row = [setup, f"{expected / 1e6:,.1f} MB", f"{measured / 1e6:,.1f} MB", f"{expected / measured:.3f}"]
        print(f"| {family.name} | {runtime} | {_planned_text(option)} | " + " | ".join(row) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
