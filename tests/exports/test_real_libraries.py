"""The exported files run by the real libraries on CPU (DeepSpeed 0.19.8 with DS_ACCELERATOR=cpu and gloo,
accelerate 1.15, transformers 5.22, peft 0.21, torch 2.13): every plan family's ds_config.json is parsed by
DeepSpeed at its planned size, and the exported launch.sh starts the exported train.py under torchrun at a small
world size with the same layout shape, training one optimizer step of a tiny model. Each rank reports what it
holds (GPU_ADVISOR_LAYOUT), checked against a hand count of the tiny model's parameters.

The first DeepSpeed run on a machine compiles DeepSpeed's CPU ops (shared-memory all-reduce, CPU Adam) into
the virtualenv's torch_extensions folder: a few minutes once; later runs take 15-20 s each.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planner.exports import export_plan
from planner.exports.common import ExportInputs
from planner.exports.configs import deepspeed_config
from planner.models import get_preset
from planner.vocabulary import Layout
from tests.exports.conftest import option_for, result_of, tiny_model_folder

# DeepSpeed, accelerate, transformers and peft come from the exports-test extra, which `make test` installs;
# they are imported inside the tests, so collecting this module (make test-fast) imports none of them.
pytestmark = pytest.mark.slow

# The tiny Llama (tests/exports/conftest.py TINY): embeddings and head 128 x 32 each, final norm 32, and per
# layer q, o 32 x 32, k, v 32 x 16, gate, up, down 32 x 64 and two norms of 32.
TINY_LAYER_LINEAR = 2 * 32 * 32 + 2 * 32 * 16 + 3 * 32 * 64  # 9,216
TINY_LLAMA = 2 * 128 * 32 + 32 + 2 * (TINY_LAYER_LINEAR + 2 * 32)  # 26,784
# The tiny Mixtral: the same attention and norms, a 32 x 4 router and 4 experts of 3 x 32 x 64 per layer.
TINY_EXPERTS_PER_LAYER = 4 * 3 * 32 * 64  # 24,576
TINY_MIXTRAL = 2 * 128 * 32 + 32 + 2 * (2 * 32 * 32 + 2 * 32 * 16 + 2 * 32 + 32 * 4 + TINY_EXPERTS_PER_LAYER)
PORTS = itertools.count(29700 + os.getpid() % 200)


def run_launch(folder: Path, **env: str) -> tuple[str, list[dict[str, int]]]:
    """Run the exported launch.sh (1 step, synthetic data) and return its output and the per-rank layout lines."""
    environment = {**os.environ, "DS_ACCELERATOR": "cpu", "OMP_NUM_THREADS": "1", "DATA": "synthetic",
                   "STEPS": "1", "MASTER_PORT": str(next(PORTS)),
                   # DeepSpeed's JIT-built CPU ops, kept per virtualenv: builds for another torch or another
                   # worktree's venv never share (or wait on) one cache directory
                   "TORCH_EXTENSIONS_DIR": str(Path(sys.prefix) / "torch_extensions"),
                   # torchrun / accelerate of the test environment, as an activated virtualenv has them
                   "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}", **env}  # fmt: skip
    ran = subprocess.run(["bash", str(folder / "launch.sh")], env=environment, capture_output=True, text=True,
                         timeout=900)  # fmt: skip
    output = ran.stdout + ran.stderr
    assert ran.returncode == 0, output[-4000:]
    assert "[train.py] done: 1 step(s)" in output, output[-4000:]
    layouts = [json.loads(line.split(" ", 1)[1]) for line in ran.stdout.splitlines()
               if line.startswith("GPU_ADVISOR_LAYOUT ")]  # fmt: skip
    return output, sorted(layouts, key=lambda item: item["rank"])


def export_scaled(tmp_path: Path, layout: Layout, *, task: str = "pretrain", model: str = "llama-3.1-8b",
                  model_type: str = "llama") -> Path:  # fmt: skip
    option = option_for(layout, task=task, model=model, grad_accum=2)
    folder = tmp_path / "export"
    inputs = ExportInputs(task=task, model_spec=get_preset(model),
                          model_path=str(tiny_model_folder(tmp_path, model_type)), seq_len=16)  # fmt: skip
    export_plan(result_of(option), option, folder, inputs)
    return folder


# ------------------------------------------------------------------ DeepSpeed parses every family at full size


class _DataParallel:
    """The mpu DeepSpeedConfig asks for the data-parallel size, so a config is checked at its planned size."""

    def __init__(self, size: int):
        self.size = size

    def get_data_parallel_world_size(self) -> int:
        return self.size


FAMILIES = {
    "ddp": Layout(dp=64),
    "zero1": Layout(dp=64, zero=1, micro_batch=2),
    "zero2": Layout(dp=64, zero=2),
    "zero3": Layout(dp=64, zero=3, recompute="full"),
    "offload-optimizer": Layout(dp=32, zero=2, offload="optimizer"),
    "offload-all": Layout(dp=64, zero=3, offload="all"),
    "tp": Layout(dp=8, tp=8, zero=1),
    "ep": Layout(dp=8, ep=8, zero=1),
}


@pytest.fixture(scope="module")
def one_process_group():
    """DeepSpeedConfig asks torch.distributed for the rank before it asks the mpu for the data-parallel size."""
    import deepspeed
    import torch.distributed as dist

    saved = dict(os.environ)
    os.environ.update({"RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1",
                       "MASTER_PORT": str(next(PORTS)), "DS_ACCELERATOR": "cpu",
                       "TORCH_EXTENSIONS_DIR": str(Path(sys.prefix) / "torch_extensions")})  # fmt: skip
    deepspeed.init_distributed(dist_backend="gloo")
    yield
    dist.destroy_process_group()
    os.environ.clear()
    os.environ.update(saved)


@pytest.mark.parametrize("family", FAMILIES)
def test_deepspeed_parses_every_exported_config_at_its_planned_size(family, one_process_group):
    from deepspeed.runtime.config import DeepSpeedConfig

    layout = FAMILIES[family]
    model = "mixtral-8x7b" if layout.ep > 1 else "llama-3.1-70b"
    option = option_for(layout, model=model, grad_accum=4)
    config = deepspeed_config(option, ExportInputs(model_spec=get_preset(model)))
    # with AutoTP DeepSpeed takes the data-parallel size from its (dp, tp) mesh; parsed here like that
    parsed = DeepSpeedConfig(config, mpu=_DataParallel(layout.dp))
    assert parsed.zero_optimization_stage == layout.zero
    assert parsed.train_micro_batch_size_per_gpu == layout.micro_batch
    assert parsed.gradient_accumulation_steps == 4
    assert parsed.train_batch_size == layout.micro_batch * 4 * layout.dp
    assert parsed.zero_config.offload_optimizer is not None or layout.offload == "none"
    assert (parsed.tensor_parallel_config.autotp_size or 1) == layout.tp  # 0 = AutoTP off
    assert parsed.expert_parallel_config.enabled == (layout.ep > 1)
    assert parsed.expert_parallel_config.autoep_size == layout.ep
    # no DeepSpeed pipeline section and no activation checkpointing: recompute is train.py's, as planned
    assert "pipeline" not in config and "activation_checkpointing" not in config


# --------------------------------------------------------- launch.sh + train.py + the config, one step on CPU


def test_deepspeed_zero1_dp2_trains_one_step(tmp_path):
    output, layouts = run_launch(export_scaled(tmp_path, Layout(dp=2, zero=1)))
    assert "optimizer AdamW" in output  # torch's AdamW ("torch_adam"): no FusedAdam build
    assert [item["local_param_elements"] for item in layouts] == [TINY_LLAMA, TINY_LLAMA]  # replicated weights
    assert [item["data_parallel_size"] for item in layouts] == [2, 2]
    assert not any(item["gradient_checkpointing"] for item in layouts)  # a "recompute none" plan recomputes nothing


def test_deepspeed_zero2_offload_optimizer_trains_one_step_with_cpu_adam(tmp_path):
    output, _ = run_launch(export_scaled(tmp_path, Layout(dp=2, zero=2, offload="optimizer")))
    assert "ZeRO 2, micro-batch 1, accumulation 2, optimizer DeepSpeedCPUAdam" in output


def test_deepspeed_zero3_offload_all_shards_the_weights(tmp_path):
    _, layouts = run_launch(export_scaled(tmp_path, Layout(dp=2, zero=3, offload="all", recompute="full")))
    assert all(item["gradient_checkpointing"] for item in layouts)  # full recompute: every layer checkpointed
    # ZeRO-3 keeps 1/dp of every parameter per rank (each padded to a multiple of dp)
    assert all(TINY_LLAMA / 2 <= item["local_param_elements"] <= TINY_LLAMA / 2 + 64 for item in layouts)


def test_deepspeed_autotp2_dp2_splits_every_decoder_linear_and_keeps_the_planned_batch(tmp_path):
    _, layouts = run_launch(export_scaled(tmp_path, Layout(dp=2, tp=2, zero=2)))
    # q, k, v, gate, up split by columns, o and down by rows, the LM head by vocabulary: each of the 4 ranks
    # holds half of every layer's linears and half of the 128 x 32 head; embeddings and norms are replicated
    assert [item["local_param_elements"] for item in layouts] == [TINY_LLAMA - TINY_LAYER_LINEAR - 128 * 32 // 2] * 4
    # ranks 0, 1 form one TP group and read the same data: a step is micro 1 x accumulation 2 x dp 2 = 4 distinct
    # sequences, as planned. DeepSpeed's own train_batch_size counts every rank of the world (1 x 2 x 4 = 8),
    # which is why ds_config.json leaves that field out under AutoTP (a written 4 would be refused).
    assert [(item["data_parallel_rank"], item["data_parallel_size"]) for item in layouts] == [(0, 2), (0, 2), (1, 2),
                                                                                            (1, 2)]  # fmt: skip
    assert {item["train_batch_size"] for item in layouts} == {1 * 2 * 4}


def test_deepspeed_autoep2_splits_the_experts_of_a_mixtral(tmp_path):
    folder = export_scaled(tmp_path, Layout(dp=2, ep=2, zero=1), model="mixtral-8x7b", model_type="mixtral")
    _, layouts = run_launch(folder)
    # each rank holds 2 of the 4 experts of each of the 2 layers; everything else is replicated
    assert [item["local_param_elements"] for item in layouts] == [TINY_MIXTRAL - TINY_EXPERTS_PER_LAYER] * 2


def test_torch_ddp_runner_trains_one_step(tmp_path):
    output, layouts = run_launch(export_scaled(tmp_path, Layout(dp=2)), RUNNER="ddp")
    assert "DDP: 2 process(es)" in output
    assert [(item["rank"], item["local_param_elements"]) for item in layouts] == [(0, TINY_LLAMA), (1, TINY_LLAMA)]


def test_accelerate_multi_gpu_yaml_runs_data_parallel_on_every_planned_process(tmp_path):
    """The MULTI_GPU yaml of a plain data-parallel plan: `accelerate launch` starts its 2 processes and
    Accelerator wraps the model in DDP. On a CPU, ACCELERATE_USE_CPU makes that MULTI_CPU (gloo): the same
    launcher and DDP wrap as MULTI_GPU (nccl) on a GPU machine, where the variable is not set."""
    output, layouts = run_launch(export_scaled(tmp_path, Layout(dp=2)), RUNNER="accelerate",
                                 ACCELERATE_USE_CPU="true")  # fmt: skip
    assert "accelerate: MULTI_CPU, 2 process(es)" in output
    assert [(item["data_parallel_rank"], item["world_size"]) for item in layouts] == [(0, 2), (1, 2)]


def test_accelerate_loads_every_family_yaml_with_the_planned_processes(tmp_path):
    """accelerate's own config loader (what `accelerate launch --config_file` calls) accepts every yaml; the
    backend and process count are the plan's, and a DEEPSPEED yaml names ds_config.json and nothing else."""
    from accelerate.commands.config.config_args import load_config_from_file

    families = {"single": (Layout(), "finetune", "NO"), "ddp": (Layout(dp=64), "pretrain", "MULTI_GPU"),
                "zero1": (Layout(dp=64, zero=1), "pretrain", "DEEPSPEED"),
                "zero3-offload-all": (Layout(dp=64, zero=3, offload="all"), "finetune", "DEEPSPEED"),
                "ep": (Layout(dp=8, ep=8, zero=1), "pretrain", "DEEPSPEED"),
                "lora": (Layout(dp=8), "lora", "MULTI_GPU"), "qlora": (Layout(dp=8, zero=3), "qlora", "DEEPSPEED")}  # fmt: skip
    for family, (layout, task, backend) in families.items():
        model = "mixtral-8x7b" if layout.ep > 1 else "llama-3.1-70b"
        option = option_for(layout, task=task, model=model)
        folder = tmp_path / family
        export_plan(result_of(option), option, folder, ExportInputs(task=task, model_spec=get_preset(model)))
        loaded = load_config_from_file(str(folder / "accelerate_config.yaml"))
        assert (loaded.distributed_type.value, loaded.num_processes) == (backend, layout.gpus), family
        assert loaded.num_machines == max(1, layout.gpus // 8), family  # H100 SXM: 8 GPUs per server
        if backend == "DEEPSPEED":
            assert loaded.mixed_precision is None and loaded.deepspeed_config["deepspeed_config_file"] == "ds_config.json"
            assert loaded.deepspeed_config["zero3_init_flag"] == (layout.zero == 3)


def test_accelerate_yaml_is_accepted_by_accelerator_with_deepspeed(tmp_path):
    """Accelerator() loads the exported DEEPSPEED yaml, takes ZeRO-2 from ds_config.json and steps once. One
    process: without an accelerator device accelerate 1.15 picks no process-group backend for DEEPSPEED
    (accelerate/state.py _prepare_backend), so a multi-process accelerate run cannot be formed on a CPU; the
    multi-process layouts are run through RUNNER=deepspeed above."""
    output, _ = run_launch(export_scaled(tmp_path, Layout(zero=2)), RUNNER="accelerate")
    assert "accelerate: DEEPSPEED, 1 process(es)" in output and "ZeRO 2 from the DeepSpeed config" in output


# LoRA rank 16 (the planner's default) on q, k, v, o of the tiny Llama: A is r x in, B is out x r.
TINY_LORA = 2 * (2 * (16 * 32 + 32 * 16) + 2 * (16 * 32 + 16 * 16))  # q, o 32 -> 32; k, v 32 -> 16: 7,168


def test_lora_adapter_trains_through_deepspeed(tmp_path):
    _, layouts = run_launch(export_scaled(tmp_path, Layout(), task="lora"), MODEL=str(_saved_tiny(tmp_path)))
    # peft wrapped the pretrained tiny model: only the adapter trains, the base weights are frozen
    assert [(item["local_param_elements"], item["trainable_param_elements"]) for item in layouts] == \
        [(TINY_LLAMA + TINY_LORA, TINY_LORA)]  # fmt: skip


def _saved_tiny(tmp_path: Path) -> Path:
    """A tiny Llama with weights on disk, for fine-tuning (--init pretrained)."""
    from transformers import AutoConfig, AutoModelForCausalLM

    folder = tmp_path / "tiny-pretrained"
    AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(tiny_model_folder(tmp_path))).save_pretrained(folder)
    return folder


def test_accelerate_launch_flags_in_launch_sh_exist_in_its_help(tmp_path):
    folder = export_scaled(tmp_path, Layout(dp=16, zero=2))
    script = (folder / "launch.sh").read_text()
    line = next(text for text in script.splitlines() if "accelerate launch" in text)
    flags = {word for word in line.split() if word.startswith("--") and not word.startswith("--runner")}
    accelerate = Path(sys.executable).parent / "accelerate"
    helptext = subprocess.run([str(accelerate), "launch", "--help"], capture_output=True, text=True,
                              timeout=120).stdout  # fmt: skip
    train_flags = {"--grad-accum", "--micro-batch"}  # train.py's own, after the script name
    for flag in flags - train_flags:
        assert flag in helptext, flag
