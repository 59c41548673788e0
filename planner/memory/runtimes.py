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
rest (pipeline parallel, AutoEP without a preset). The training search then weighs the other runtimes that can
run its chosen layouts (candidate_runtimes; planner.search.training_runtime) and keeps the best that fits.
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
        return _TORCHTITAN_ADAPTERS
    if offload == Offload.OPTIMIZER:
        return (
            "torchtitan's CPU offload moves parameters, gradients and optimizer state together; it has no "
            "optimizer-only offload"
        )
    return ""


_FSDP2_QLORA = "train.py's FSDP2 runner does not shard bitsandbytes 4-bit weights (QLoRA)"
_TORCHTITAN_ADAPTERS = "torchtitan trains full models, not LoRA / QLoRA adapters"


def task_refusal(runtime: str, task: str) -> str:
    """Why `runtime` cannot run any layout of `task` ("" where some layout may run): the plan refuses such a
    pinned pair up front, in one line, rather than searching layouts none of which it could export."""
    if runtime == Runtime.FSDP2 and task == Task.QLORA:
        return _FSDP2_QLORA
    if runtime == Runtime.TORCHTITAN and Task(task).is_adapter:
        return _TORCHTITAN_ADAPTERS
    return ""


def fsdp2_refusal(tp: int, pp: int, ep: int, zero: int, offload: str, task: str) -> str:
    """Why FSDP2 alone (fully_shard, no model parallelism) cannot run the layout ("" where it can)."""
    if task == Task.QLORA:
        return _FSDP2_QLORA
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


@functools.lru_cache(maxsize=4096)
def candidate_runtimes(
    task: str, tp: int, pp: int, ep: int, zero: int, offload: str, family: str | None
) -> tuple[Runtime, ...]:
    """The runtimes the training search weighs for a layout where none is pinned (planner.search.
    training_runtime), the default (chosen_runtime) first: beside it, each other runtime that can run the layout
    and whose exported step peaks as planned for such layouts (tests/exports/test_peak_as_planned.py): FSDP2 for
    ZeRO-2/3 data parallel (full training and LoRA), and torchtitan for tensor / expert parallel layouts that
    DeepSpeed runs (torchtitan cannot step on a CPU, so its peak is not measured, but its FSDP2 units and
    Megatron-style weights are the ones measured and traced; for data parallel alone FSDP2 is the same
    fully_shard and is weighed instead). DeepSpeed's ZeRO-0 is not weighed against DDP: its exported step
    measured 262.8 MB against 236.6 MB planned (0.900, at the 10% edge; tests/exports' 13M Llama, 2 ranks).
    Empty where no runtime can run the layout, or for inference."""
    default = chosen_runtime(None, task, tp, pp, ep, zero, offload, family)
    if default is None:
        return ()
    found = [default]
    model_parallel = tp > 1 or pp > 1 or ep > 1
    for runtime in (Runtime.DEEPSPEED, Runtime.FSDP2, Runtime.TORCHTITAN):
        if runtime in found or runtime_refusal(runtime, task, tp, pp, ep, zero, offload, family):
            continue
        if runtime == Runtime.DEEPSPEED and default == Runtime.DDP:
            continue
        if runtime == Runtime.TORCHTITAN and not model_parallel:
            continue
        found.append(runtime)
    return tuple(found)


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
