"""Plan -> export -> one real step: the planner (planner.search.plan) picks the layout of a tiny model, the
export is written from that option, and the exported launch.sh runs the exported train.py unchanged under
tests/exports/step_probe.py, which reports what DeepSpeed, transformers, peft, bitsandbytes and torch set up.
Each test asserts those reports against the plan (CPU, gloo, world size 1-2)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planner.exports import export_plan
from planner.exports.common import ExportInputs
from planner.gpus import get_gpu
from planner.models import load_hf_config
from planner.search import Constraints, plan
from planner.search.types import PlanOption, Workload
from tests.exports.conftest import TINY, tiny_model_folder
from tests.exports.test_real_libraries import PORTS

pytestmark = pytest.mark.slow
PROBE = Path(__file__).with_name("step_probe.py")
SEQ_LEN = 16


def planned_export(tmp_path: Path, task: str, gpus: int, pinned: dict[str, object], model: Path | None = None,
                   runtime: str | None = None) -> tuple[PlanOption, Path]:  # fmt: skip
    """The planner's best option for the tiny Llama on `gpus` H100s with `pinned` layout fields (and runtime),
    exported."""
    config = tiny_model_folder(tmp_path) / "config.json"
    spec = load_hf_config(config)
    workload = Workload(task=task, seq_len=SEQ_LEN, global_batch=4 * gpus, tokens=4 * gpus * SEQ_LEN,
                        runtime=runtime)  # fmt: skip
    result = plan(spec, workload, get_gpu("h100-sxm"), Constraints(gpus=gpus, pinned=pinned))
    option = result.options[0]
    folder = tmp_path / "export"
    inputs = ExportInputs(task=task, model_spec=spec, model_path=str(model or config.parent), seq_len=SEQ_LEN)
    export_plan(result, option, folder, inputs)
    return option, folder


def run_probed(folder: Path, **env: str) -> tuple[str, list[dict]]:
    environment = {**os.environ, "DS_ACCELERATOR": "cpu", "OMP_NUM_THREADS": "1", "DATA": "synthetic",
                   "MASTER_PORT": str(next(PORTS)), "TRAIN_SCRIPT": str(PROBE), "EXPORT_DIR": str(folder),
                   "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
                   "TORCH_EXTENSIONS_DIR": str(Path(sys.prefix) / "torch_extensions"),
                   "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}", **env}  # fmt: skip
    ran = subprocess.run(["bash", str(folder / "launch.sh")], env=environment, capture_output=True, text=True,
                         timeout=900)  # fmt: skip
    output = ran.stdout + ran.stderr
    assert ran.returncode == 0, output[-4000:]
    probes = [json.loads(line.split(" ", 1)[1]) for line in ran.stdout.splitlines()
              if line.startswith("GPU_ADVISOR_PROBE ")]  # fmt: skip
    assert len(probes) == ran.stdout.count("GPU_ADVISOR_PROBE "), output[-4000:]
    return output, sorted(probes, key=lambda item: item["rank"])


def expected_lr(peak: float, warmup: int, steps: int, min_ratio: float, after: int) -> float:
    """The schedule by hand: linear warmup (step k of the warmup at (k + 1) / warmup of the peak), then a
    cosine from the peak to min_ratio x peak at the last step. `after` optimizer steps have run."""
    if after < warmup:
        return peak * (after + 1) / warmup
    progress = min(1.0, (after - warmup) / max(1, steps - 1 - warmup))
    return peak * (min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * progress)))


def test_zero3_full_recompute_pretrain_runs_as_planned(tmp_path):
    option, folder = planned_export(tmp_path, "pretrain", 2, {"zero": 3, "recompute": "full"})
    layout = option.layout
    _, probes = run_probed(folder)
    assert len(probes) == layout.dp == 2
    micro, accumulation = layout.micro_batch, option.gradient_accumulation_steps or 1
    for probe in probes:
        engine = probe["engine"]
        assert (engine["zero_stage"], engine["micro_batch"], engine["gradient_accumulation"]) == \
            (3, micro, accumulation)  # fmt: skip
        assert engine["bf16"]
        # built inside deepspeed.zero.Init: not one element of the model held whole on any rank at load
        assert probe["elements_at_load"] == 0
        assert probe["training_at_load"] and probe["layer_calls_in_eval"] == 0
        # full recompute: each of the 2 layers runs its forward twice per micro-batch (once more in backward)
        assert probe["layer_calls"] == TINY["num_hidden_layers"] * accumulation * 2
        # 1 step of warmup (3% of the 1-step run, rounded up): the step ran at the peak, Llama 2's 3e-4 for a
        # small model; then the schedule is at its last step's floor, 10% of the peak
        assert probe["lr_after"] == pytest.approx(expected_lr(3e-4, 1, 1, 0.1, after=1))


def test_fsdp2_zero3_pretrain_runs_as_planned(tmp_path):
    """A plan pinned to FSDP2: launch.sh runs train.py's fsdp2 runner by default, which shards each decoder
    layer with the plan's reshard and precision (the root kept gathered), builds the model on the meta device (no rank holds
    it whole), recomputes the planned layers and steps the schedule."""
    option, folder = planned_export(tmp_path, "pretrain", 2, {"zero": 3, "recompute": "full"}, runtime="fsdp2")
    layout = option.layout
    assert option.runtime == "fsdp2" and (layout.dp, layout.zero) == (2, 3)
    assert 'RUNNER="${RUNNER:-fsdp2}"' in (folder / "launch.sh").read_text(encoding="utf-8")
    output, probes = run_probed(folder)
    assert len(probes) == 2
    accumulation = option.gradient_accumulation_steps or 1
    layouts = [json.loads(line.split(" ", 1)[1]) for line in output.splitlines()
               if line.startswith("GPU_ADVISOR_LAYOUT ")]  # fmt: skip
    total = load_hf_config(tiny_model_folder(tmp_path) / "config.json").total_params
    # each rank holds about half of the parameters (FSDP2 pads an odd dim-0 on the last rank)
    assert len(layouts) == 2 and sum(item["local_param_elements"] for item in layouts) == total
    for probe in probes:
        assert probe["devices_at_load"] == ["meta"] and probe["training_at_load"]
        units = probe["fully_shard"]
        assert len(units) == TINY["num_hidden_layers"] + 1  # every decoder layer, then the root
        planned = {"reshard_after_forward": True, "param_dtype": "torch.bfloat16", "reduce_dtype": "torch.float32",
                   "offload": False}  # fmt: skip
        assert all(unit == planned for unit in units[:-1])
        # the root stays gathered from its forward to its backward (torch's fully_shard docs advise False for the
        # root: resharding it would gather it again at the loss); the plan's FSDP2 figure counts it so
        assert units[-1] == {**planned, "reshard_after_forward": False}
        assert probe["layer_calls"] == TINY["num_hidden_layers"] * accumulation * 2  # full recompute
        assert probe["layer_calls_in_eval"] == 0
        assert probe["lr_after"] == pytest.approx(expected_lr(3e-4, 1, 1, 0.1, after=1))


def _saved_tiny(tmp_path: Path) -> Path:
    """The tiny Llama with weights on disk, for fine-tuning from pretrained weights."""
    from transformers import AutoConfig, AutoModelForCausalLM

    folder = tmp_path / "tiny-pretrained"
    AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(tiny_model_folder(tmp_path))).save_pretrained(folder)
    return folder


def test_lora_trains_with_its_dropout_active_in_training_mode(tmp_path):
    option, folder = planned_export(tmp_path, "lora", 1, {"recompute": "none"}, model=_saved_tiny(tmp_path))
    _, (probe,) = run_probed(folder)
    accumulation = option.gradient_accumulation_steps or 1
    assert probe["training_at_load"] and probe["layer_calls_in_eval"] == 0
    assert probe["layer_calls"] == TINY["num_hidden_layers"] * accumulation  # no recompute planned: none ran
    # peft's lora_dropout on q, k, v, o of both layers, each a torch Dropout(0.05) that ran in training mode
    calls = probe["lora_dropout_calls"]
    assert len(calls) == 4 * TINY["num_hidden_layers"] * accumulation
    assert all(call == {"type": "Dropout", "p": 0.05, "training": True} for call in calls)
    # QLoRA paper's peak for a model below 20B parameters
    assert probe["lr_after"] == pytest.approx(expected_lr(2e-4, 1, 1, 0.1, after=1))


def test_fsdp2_zero2_lora_from_pretrained_weights_runs_as_planned(tmp_path):
    """LoRA under FSDP2 ZeRO-2 (parameters kept gathered after forward): the pretrained base is loaded, sharded
    with the adapter inside its layers, and the adapter's dropout runs in training mode on both ranks."""
    option, folder = planned_export(tmp_path, "lora", 2, {"zero": 2, "recompute": "none"},
                                    model=_saved_tiny(tmp_path), runtime="fsdp2")  # fmt: skip
    assert option.runtime == "fsdp2" and option.layout.zero == 2
    _, probes = run_probed(folder)
    accumulation = option.gradient_accumulation_steps or 1
    assert len(probes) == 2
    for probe in probes:
        assert [unit["reshard_after_forward"] for unit in probe["fully_shard"]] == [False] * 3
        assert probe["layer_calls"] == TINY["num_hidden_layers"] * accumulation  # no recompute planned
        calls = probe["lora_dropout_calls"]
        assert calls and all(call == {"type": "Dropout", "p": 0.05, "training": True} for call in calls)
        assert probe["lr_after"] == pytest.approx(expected_lr(2e-4, 1, 1, 0.1, after=1))


def test_qlora_loads_the_base_in_4_bits_and_steps_on_cpu(tmp_path):
    """bitsandbytes 0.50 runs 4-bit layers on the CPU: the exported peft_config.json loads every decoder
    linear as an NF4 Linear4bit (Params4bit packed two weights per uint8) and one step trains the adapter."""
    _, folder = planned_export(tmp_path, "qlora", 1, {"recompute": "none"}, model=_saved_tiny(tmp_path))
    output, (probe,) = run_probed(folder)
    four_bit = probe["four_bit_layers"]
    # 7 linears per layer (q, k, v, o, gate, up, down); the LM head stays in 16 bits (transformers skips it)
    assert len(four_bit) == 7 * TINY["num_hidden_layers"]
    assert {(layer["weight_class"], layer["weight_dtype"], layer["quant_type"]) for layer in four_bit} == \
        {("Params4bit", "torch.uint8", "nf4")}  # fmt: skip
    assert probe["training_at_load"] and all(call["training"] for call in probe["lora_dropout_calls"])
    assert "[train.py] done: 1 step(s)" in output


def test_pretrain_ddp_steps_the_schedule_over_accumulated_micro_batches(tmp_path):
    """RUNNER=ddp of a plain data-parallel plan with 3 steps: warmup 1 step (3% of 3, rounded up), then the
    cosine; the optimizer's learning rate after the run is the schedule's at step 3."""
    option, folder = planned_export(tmp_path, "pretrain", 2, {"zero": 0, "recompute": "none"})
    assert option.layout.dp == 2 and option.layout.zero == 0
    _, probes = run_probed(folder, RUNNER="ddp", STEPS="3")
    accumulation = option.gradient_accumulation_steps or 1
    for probe in probes:
        assert probe["training_at_load"] and probe["layer_calls"] == TINY["num_hidden_layers"] * accumulation * 3
        assert probe["optimizer_lr_after"] == pytest.approx(expected_lr(3e-4, 1, 3, 0.1, after=3))


def test_multi_node_accelerate_deepspeed_joins_one_torchrun_job(tmp_path):
    """accelerate's own launcher (the code `accelerate launch` runs) turns the exported yaml and launch.sh's
    flags into one torchrun job over both nodes: --nnodes 2, this node's rank, the first node's address. Without
    deepspeed_multinode_launcher it would build a pdsh `deepspeed --hostfile` command instead."""
    import shlex

    from accelerate.commands.launch import _validate_launch_command, launch_command_parser
    from accelerate.utils.launch import prepare_deepspeed_cmd_env

    # tp 1 pinned: the tiny model's best 16-GPU layout may split it (NCCL's latency across nodes, f6c553c), and
    # accelerate runs no tensor-parallel plan; this test is about the two nodes joining one job
    option, folder = planned_export(tmp_path, "pretrain", 16, {"zero": 2, "recompute": "none", "tp": 1})
    assert option.nodes == 2 and option.layout.dp == 16
    line = next(text for text in (folder / "launch.sh").read_text().splitlines() if "accelerate launch" in text)
    words = shlex.split(line.replace('"$HERE/', f'"{folder}/').replace('"$NODE_RANK"', "1")
                        .replace('"$MASTER_ADDR"', "10.0.0.1").replace('"$MASTER_PORT"', "29500")
                        .replace('"$TRAIN_SCRIPT"', "train.py"))  # fmt: skip
    args = launch_command_parser().parse_args(words[words.index("launch") + 1 :])
    args, defaults, _ = _validate_launch_command(args)
    assert args.use_deepspeed
    # as accelerate's launch_command does before it calls deepspeed_launcher
    args.deepspeed_fields_from_accelerate_config = ",".join(defaults.deepspeed_config)
    command, _ = prepare_deepspeed_cmd_env(args)
    assert command is None  # torchrun, not a `deepspeed --hostfile` command
    assert (args.nnodes, args.node_rank, args.nproc_per_node) == ("2", 1, "8")
    # the rendezvous at the first node (accelerate writes it as torchrun's --rdzv-endpoint here)
    assert getattr(args, "rdzv_endpoint", None) == "10.0.0.1:29500" or \
        (getattr(args, "master_addr", None), getattr(args, "master_port", None)) == ("10.0.0.1", "29500")
