"""Which runtime a training layout runs in: what each runtime can express (the reason it cannot, in English, for
the export's verdicts) and the one the search chooses when none is pinned.

The rules come from the frameworks' own sources (the versions planner.exports.runners names):
- DeepSpeed 0.19 (deepspeed/runtime/engine.py): ZeRO 0-3 with optimizer / parameter offload, AutoTP, AutoEP
  for the presets below (deepspeed/module_inject/auto_ep_presets/registry.py; auto_ep_folding.py refuses offload
  with AutoEP + AutoTP). Its pipeline engine needs the model rebuilt as a PipelineModule, so no PP here.
- PyTorch DDP: plain data parallel only (ZeRO 0, no TP/PP/EP, no offload).
- PyTorch FSDP2 (torch.distributed.fsdp.fully_shard): ZeRO-3 (reshard_after_forward=True) or ZeRO-2 (False);
  its CPUOffloadPolicy moves parameters, gradients and optimizer state together (no optimizer-only offload).
- torchtitan 0.3 (FSDP2 x TP x PP x EP): full training only, the same offload rule as FSDP2.

The search's choice where none is pinned: DDP for plain data parallel (what the memory model has always counted
for ZeRO-0: autocast), DeepSpeed for whatever else it runs (train.py's default runner), torchtitan for the
rest (pipeline parallel, AutoEP without a preset). FSDP2 alone is chosen only when pinned.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from planner.memory.element_bytes import deepspeed_layout, megatron_style
from planner.vocabulary import Offload, Runtime, Task

if TYPE_CHECKING:
    from planner.memory.config import MemoryConfig
    from planner.models import ModelSpec

# DeepSpeed 0.19 AutoEP presets, keyed by the Hugging Face model_type (ModelSpec.family).
AUTOEP_PRESETS = ("mixtral", "qwen3_moe", "qwen3_5_moe", "deepseek_v2", "deepseek_v3", "minimax_m3")

# Tried in this order when no runtime is pinned: the first that can express the layout is chosen.
_PREFERENCE = (Runtime.DDP, Runtime.DEEPSPEED, Runtime.TORCHTITAN)


def deepspeed_refusal(tp: int, pp: int, ep: int, offload: str, task: str, family: str | None) -> str:
    """Why DeepSpeed cannot run the layout ("" where it can)."""
    if pp > 1:
        return (
            f"DeepSpeed's pipeline engine needs the model rebuilt as a PipelineModule and cannot be combined "
            f"with AutoTP; PP {pp} is run by torchtitan here"
        )
    if ep > 1:
        if family is not None and family not in AUTOEP_PRESETS:
            return (
                f"DeepSpeed AutoEP has no preset for {family} models (presets: {', '.join(AUTOEP_PRESETS)})"
            )
        if tp > 1 and offload != Offload.NONE:
            return "DeepSpeed refuses ZeRO offload with AutoEP + AutoTP folding"
    if task == Task.QLORA and tp > 1:
        return "AutoTP cannot split bitsandbytes 4-bit weights (QLoRA)"
    return ""


def ddp_refusal(tp: int, pp: int, ep: int, zero: int, offload: str) -> str:
    """Why torch DDP cannot run the layout ("" where it can)."""
    if tp > 1 or pp > 1 or ep > 1:
        return "DDP replicates the whole model on every GPU (no TP, PP or EP)"
    if zero != 0 or offload != Offload.NONE:
        offloaded = f" with {offload} offload" if offload != Offload.NONE else ""
        return f"DDP shards and offloads nothing; the plan is ZeRO-{int(zero)}{offloaded}"
    return ""


def torchtitan_refusal(offload: str, task: str) -> str:
    """Why torchtitan cannot run the layout ("" where it can)."""
    if Task(task).is_adapter:
        return "torchtitan trains full models, not LoRA / QLoRA adapters"
    if offload == Offload.OPTIMIZER:
        return (
            "torchtitan's CPU offload moves parameters, gradients and optimizer state together; it has no "
            "optimizer-only offload"
        )
    return ""


def fsdp2_refusal(tp: int, pp: int, ep: int, zero: int, offload: str, task: str) -> str:
    """Why FSDP2 alone (fully_shard, no model parallelism) cannot run the layout ("" where it can)."""
    if task == Task.QLORA:
        return "train.py's FSDP2 runner does not shard bitsandbytes 4-bit weights (QLoRA)"
    if tp > 1 or pp > 1 or ep > 1:
        return "FSDP2 alone shards data parallel only; TP, PP and EP plans run in torchtitan"
    if zero < 2:
        return (
            f"FSDP2 shards parameters, gradients and optimizer state together (ZeRO-2/3); the plan is "
            f"ZeRO-{int(zero)}"
        )
    if offload == Offload.OPTIMIZER:
        return "FSDP2's CPUOffloadPolicy moves parameters, gradients and optimizer state together"
    return ""


@functools.lru_cache(maxsize=4096)
def runtime_refusal(
    runtime: str, task: str, tp: int, pp: int, ep: int, zero: int, offload: str, family: str | None
) -> str:
    """Why `runtime` cannot run this training layout ("" where it can). Cached: searches ask per layout."""
    if runtime == Runtime.DEEPSPEED:
        return deepspeed_refusal(tp, pp, ep, offload, task, family)
    if runtime == Runtime.DDP:
        return ddp_refusal(tp, pp, ep, zero, offload)
    if runtime == Runtime.FSDP2:
        return fsdp2_refusal(tp, pp, ep, zero, offload, task)
    return torchtitan_refusal(offload, task)


@functools.lru_cache(maxsize=4096)
def chosen_runtime(
    pinned: str | None, task: str, tp: int, pp: int, ep: int, zero: int, offload: str, family: str | None
) -> Runtime | None:
    """The runtime of a training layout: `pinned` where it can run it, else the first of DDP, DeepSpeed and
    torchtitan that can; None for inference or where none can (the pinned one cannot, or an adapter plan that
    only torchtitan could lay out)."""
    if not Task(task).is_training:
        return None
    candidates = _PREFERENCE if pinned is None else (Runtime(pinned),)
    for runtime in candidates:
        if not runtime_refusal(runtime, task, tp, pp, ep, zero, offload, family):
            return runtime
    return None


def no_runtime_reason(
    task: str, tp: int, pp: int, ep: int, zero: int, offload: str, family: str | None
) -> str:
    """Why no runtime the search chooses from can run this training layout, each one's reason ("" where one
    can): LoRA / QLoRA with pipeline parallel, for one, which DeepSpeed runs without PP and torchtitan without
    adapters."""
    if chosen_runtime(None, task, tp, pp, ep, zero, offload, family) is not None:
        return ""
    return "; ".join(
        f"{runtime}: {runtime_refusal(runtime, task, tp, pp, ep, zero, offload, family)}"
        for runtime in _PREFERENCE
    )


def layout_runtime(model: ModelSpec, config: MemoryConfig) -> Runtime | None:
    """The runtime of config's layout (chosen_runtime; None for inference or where none can run it)."""
    layout = config.layout
    return chosen_runtime(
        config.runtime,
        config.task,
        layout.tp,
        layout.pp,
        layout.ep,
        layout.zero,
        layout.offload,
        model.family,
    )


def master_weights_beside_16_bit(model: ModelSpec, config: MemoryConfig) -> bool:
    """The layout trains 16-bit weights beside fp32 master weights (what its checkpoint holds: 2 + 12 bytes
    per parameter with AdamW): Megatron-style tensor / pipeline parallel, or DeepSpeed's 16-bit training."""
    if megatron_style(config):
        return True
    return deepspeed_layout(config) and layout_runtime(model, config) == Runtime.DEEPSPEED
