"""Shared pieces of the export tests: a tiny model on disk and plan options of a given layout shape."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from planner.gpus import get_gpu
from planner.memory import MemoryConfig, estimate_memory
from planner.models import get_preset
from planner.search import PlanOption, PlanResult
from planner.search.types import Workload
from planner.vocabulary import Layout

TINY = {"vocab_size": 128, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 64,
        "rms_norm_eps": 1e-5, "tie_word_embeddings": False}  # fmt: skip


def tiny_model_folder(root: Path, model_type: str = "llama") -> Path:
    """A config.json-only model folder (train.py --init random builds it; 2 layers of 32 features)."""
    folder = root / f"tiny-{model_type}"
    folder.mkdir(parents=True, exist_ok=True)
    config = {"model_type": model_type, "architectures": [], **TINY}
    if model_type == "llama":
        config["architectures"] = ["LlamaForCausalLM"]
    if model_type == "mixtral":
        config.update({"architectures": ["MixtralForCausalLM"], "num_local_experts": 4, "num_experts_per_tok": 2})
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def option_for(layout: Layout, *, task: str = "pretrain", gpu_id: str = "h100-sxm", model: str = "llama-3.1-8b",
               grad_accum: int = 2, cost=None, gpus_per_node: int | None = None) -> PlanOption:  # fmt: skip
    """A PlanOption of `layout` with a real memory breakdown of `model` (a preset or a config.json path)."""
    spec = get_preset(model)
    memory = estimate_memory(spec, MemoryConfig(task=task, layout=layout, seq_len=64))
    gpu = get_gpu(gpu_id)
    if gpus_per_node:
        gpu = dataclasses.replace(gpu, gpus_per_node=gpus_per_node)
    gpus = layout.gpus
    workload = Workload(task=task, seq_len=64, global_batch=layout.dp * layout.micro_batch * grad_accum)
    return PlanOption(
        gpu=gpu, gpus=gpus, layout=layout, memory=memory, fits=True, step_time_s=1.0, tokens_per_s=1000.0,
        wall_time_s=3600.0 if task != "inference" else None, gpu_hours=gpus * 1.0, cost=cost,
        cost_per_million_tokens=None, confidence="catalog spec", workload=workload,
        nodes=max(1, -(-gpus // gpu.gpus_per_node)), gradient_accumulation_steps=grad_accum,
        batch_per_replica=layout.micro_batch if task == "inference" else None,
    )  # fmt: skip


def result_of(*options: PlanOption) -> PlanResult:
    return PlanResult(options=tuple(options), excluded=(), search_ms=1.0)


@pytest.fixture
def tiny_llama(tmp_path: Path) -> Path:
    return tiny_model_folder(tmp_path)
