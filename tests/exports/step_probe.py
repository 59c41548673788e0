"""Runs an exported train.py unchanged and reports what the libraries set up, one line per rank:
`GPU_ADVISOR_PROBE {...}`. launch.sh starts it in train.py's place (TRAIN_SCRIPT=this file, EXPORT_DIR=the
export folder); it wraps train.py's own functions, so the run is the exported one:

- load_model: the elements each rank holds right after the model is built (deepspeed.zero.Init leaves every
  parameter's data empty and keeps a 1/dp shard in ds_tensor), hooks that count the decoder layers' forward
  calls and the calls made in eval mode (non-reentrant checkpointing runs each checkpointed layer's forward
  again in the backward pass), LoRA's dropout modules as they run, and the bitsandbytes 4-bit layers;
- deepspeed.initialize: the engine's own view of its configuration;
- lr_schedule: the scheduler built on the real optimizer, read after the run;
- with GPU_ADVISOR_PEAK=1, the peak of the bytes the run's tensors hold from the model's build to the end of the
  step, counted at torch's dispatcher (tests/exports/storage_peak.py): `peak_bytes`, and each phase's own
  (`phase_peaks`: "build" the model, "setup" the runtime, "step" the training loop but the scheduled optimizer's
  step(), "optimizer step" that).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

sys.path.insert(0, os.environ["EXPORT_DIR"])
import train  # noqa: E402  (the exported train.py)

PROBE: dict[str, Any] = {"rank": int(os.environ.get("RANK", "0")), "layer_calls": 0, "layer_calls_in_eval": 0,
                         "lora_dropout_calls": []}  # fmt: skip
SCHEDULERS: list[Any] = []
PEAK: list[Any] = []  # the StoragePeak of a GPU_ADVISOR_PEAK=1 run, whose phase the wrappers below set
_load_model, _lr_schedule = train.load_model, train.lr_schedule


def _count_layer_call(module: Any, _inputs: Any) -> None:
    PROBE["layer_calls"] += 1
    PROBE["layer_calls_in_eval"] += 0 if module.training else 1


def _record_dropout(module: Any, _inputs: Any) -> None:
    PROBE["lora_dropout_calls"].append({"type": type(module).__name__, "p": getattr(module, "p", None),
                                        "training": module.training})  # fmt: skip


def _phase(name: str) -> None:
    for peak in PEAK:
        peak.phase = name


def load_model(args: Any, peft_config: dict[str, Any]) -> Any:
    _phase("build")
    model = _load_model(args, peft_config)
    _phase("setup")
    PROBE["elements_at_load"] = sum(int(p.data.numel()) for p in model.parameters())
    PROBE["devices_at_load"] = sorted({p.device.type for p in model.parameters()})
    PROBE["training_at_load"] = bool(model.training)
    four_bit = []
    for name, module in model.named_modules():
        if type(module).__name__.endswith("DecoderLayer"):
            module.register_forward_pre_hook(_count_layer_call)
        if name.endswith("lora_dropout.default"):
            module.register_forward_pre_hook(_record_dropout)
        if type(module).__name__ == "Linear4bit" and type(module).__module__.startswith("bitsandbytes"):
            four_bit.append({"name": name, "weight_class": type(module.weight).__name__,
                             "weight_dtype": str(module.weight.dtype), "quant_type": module.weight.quant_type})  # fmt: skip
    PROBE["four_bit_layers"] = four_bit
    return model


def lr_schedule(args: Any) -> Any:
    build = _lr_schedule(args)

    def recorded(optimizer: Any) -> Any:
        scheduler = build(optimizer)
        SCHEDULERS.append(scheduler)
        _phase("step")  # every runner builds the schedule last (DeepSpeed inside deepspeed.initialize)
        _phased_step(optimizer)
        return scheduler

    return recorded


def _phased_step(optimizer: Any) -> None:
    """The scheduled optimizer's step() counted as the phase "optimizer step" (its own peak in phase_peaks), the
    rest of the loop as "step": where in the step the peak falls (FSDP2's, say, before the optimizer step). Under
    DeepSpeed this is the wrapped torch optimizer's step, after ZeRO's own gradient work."""
    step = optimizer.step

    def phased(*args: Any, **kwargs: Any) -> Any:
        _phase("optimizer step")
        try:
            return step(*args, **kwargs)
        finally:
            _phase("step")

    optimizer.step = phased


def _on_cpu(offload: Any) -> bool:
    return offload is not None and offload.device == "cpu"  # OffloadDeviceEnum is a str enum


def _probe_deepspeed() -> None:
    try:
        import deepspeed
    except ImportError:
        return
    initialize = deepspeed.initialize

    def recorded(*args: Any, **kwargs: Any) -> Any:
        engine, *rest = initialize(*args, **kwargs)
        _phase("step")
        basic = getattr(engine.optimizer, "optimizer", engine.optimizer)
        PROBE["engine"] = {
            "zero_stage": engine.zero_optimization_stage(),
            "offload_optimizer": _on_cpu(engine.zero_offload_optimizer()),
            "offload_param": _on_cpu(engine.zero_offload_param()),
            "micro_batch": engine.train_micro_batch_size_per_gpu(),
            "gradient_accumulation": engine.gradient_accumulation_steps(),
            "bf16": engine.bfloat16_enabled(),
            "optimizer": type(basic).__name__,
        }  # fmt: skip
        return (engine, *rest)

    deepspeed.initialize = recorded


def _probe_fully_shard() -> None:
    """FSDP2's fully_shard as train.py calls it: per unit, its reshard and mixed-precision policy."""
    import torch.distributed.fsdp as fsdp

    shard = fsdp.fully_shard
    PROBE["fully_shard"] = []

    def recorded(module: Any, **kwargs: Any) -> Any:
        policy = kwargs.get("mp_policy")
        PROBE["fully_shard"].append({
            "reshard_after_forward": kwargs.get("reshard_after_forward"),
            "param_dtype": str(getattr(policy, "param_dtype", None)),
            "reduce_dtype": str(getattr(policy, "reduce_dtype", None)),
            "offload": type(kwargs.get("offload_policy")).__name__ == "CPUOffloadPolicy",
        })  # fmt: skip
        return shard(module, **kwargs)

    fsdp.fully_shard = recorded


def _leave_out_gloo_copies(peak: Any) -> None:
    """gloo's reduce-scatter clones its whole input, all-reduces the clone and copies this rank's chunk out
    (torch/csrc/distributed/c10d/ProcessGroupGloo.cpp reduce_scatter_tensor_coalesced); NCCL's writes the output
    directly (ncclReduceScatter), with nothing but its own buffers, which the plan counts as NCCL's. The clone,
    made on the calling thread where the tracker sees it, is left out: FSDP2's end-of-backward reduce-scatter of
    the root unit made it 41 MB here, a quarter of the step's peak. (gloo's all-gather works on its own thread.)"""
    import torch.distributed as dist
    import torch.distributed.distributed_c10d as c10d

    for module in (dist, c10d):
        for name in ("reduce_scatter_single", "reduce_scatter_tensor"):
            if hasattr(module, name):
                setattr(module, name, peak.ignored(getattr(module, name)))


def main() -> int:
    train.load_model, train.lr_schedule = load_model, lr_schedule
    _probe_deepspeed()
    _probe_fully_shard()
    if os.environ.get("GPU_ADVISOR_PEAK") == "1":
        from tests.exports.storage_peak import StoragePeak

        with StoragePeak() as peak:
            PEAK.append(peak)
            _leave_out_gloo_copies(peak)
            code = train.main()
        PROBE["peak_bytes"], PROBE["phase_peaks"] = peak.peak_bytes, peak.phase_peaks
    else:
        code = train.main()
    if SCHEDULERS:
        PROBE["lr_after"] = float(SCHEDULERS[-1].get_last_lr()[0])
        PROBE["optimizer_lr_after"] = float(SCHEDULERS[-1].optimizer.param_groups[0]["lr"])
        SCHEDULERS.clear()  # the optimizer goes with train.py's other objects, as in a run without the probe
    # one write, on a line of its own: another rank's print() writes its text and its newline apart
    sys.stdout.write("\nGPU_ADVISOR_PROBE " + json.dumps(PROBE, sort_keys=True) + "\n")
    sys.stdout.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())
