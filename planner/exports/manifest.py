"""Which files an export writes for a plan, what each one runs, with which framework and version, and where it
differs from the plan; the report's "Exported files" table and export_plan both read this."""

from __future__ import annotations

from dataclasses import dataclass

from planner.exports.common import (
    ACCELERATE_CONFIG,
    DS_CONFIG,
    LAUNCH_SH,
    OPTIONS_CSV,
    PEFT_CONFIG,
    REPORT_MD,
    REPORT_PDF,
    TRAIN_PY,
    ExportInputs,
    precision_of,
    task_of,
)
from planner.exports.configs import accelerate_backend
from planner.exports.launch import serving_verdicts_for, training_verdicts_for
from planner.exports.runners import FRAMEWORK_OF, VERSIONS, Runner, Verdict, default_runner
from planner.search.types import PlanOption
from planner.vocabulary import Precision, Recompute, Task


@dataclass(frozen=True, slots=True)
class ExportedFile:
    name: str
    written: bool
    runs: str
    framework: str
    differs: str = ""


def export_manifest(option: PlanOption, inputs: ExportInputs) -> tuple[ExportedFile, ...]:
    if task_of(option, inputs).is_training:
        return _training_files(option, inputs)
    return _serving_files(option)


def _common_differences(option: PlanOption, inputs: ExportInputs) -> list[str]:
    differs = []
    precision = precision_of(option, inputs)
    if precision == Precision.FP8:
        differs.append("fp8 matmuls need Transformer Engine: the configs train in bf16")
    if option.layout.recompute == Recompute.SELECTIVE:
        differs.append("selective recompute: transformers checkpoints whole layers only; with SDPA the "
                       "attention scores it would drop are never stored")  # fmt: skip
    return differs


def _training_files(option: PlanOption, inputs: ExportInputs) -> tuple[ExportedFile, ...]:
    verdicts = {v.runner: v for v in training_verdicts_for(option, inputs)}
    ordered = training_verdicts_for(option, inputs)
    default = default_runner(ordered)
    task = task_of(option, inputs)
    common = "; ".join(_common_differences(option, inputs))
    deepspeed, accelerate = verdicts[Runner.DEEPSPEED], verdicts[Runner.ACCELERATE]
    files = [_report(REPORT_MD), _report(REPORT_PDF)]
    files.append(_config_file(DS_CONFIG, deepspeed, "ZeRO, offload, AutoTP / AutoEP, batch and optimizer",
                              f"DeepSpeed {VERSIONS['deepspeed']}", common))  # fmt: skip
    files.append(_config_file(
        ACCELERATE_CONFIG, accelerate, f"accelerate launch, {accelerate_backend(option)}",
        f"accelerate {VERSIONS['accelerate']}", common,
    ))  # fmt: skip
    if task.is_adapter:
        files.append(ExportedFile(
            PEFT_CONFIG, True, "LoRA adapter" + (" on a 4-bit NF4 base (bitsandbytes)" if task == Task.QLORA else ""),
            f"peft {VERSIONS['peft']}, transformers {VERSIONS['transformers']}"
            + (f", bitsandbytes {VERSIONS['bitsandbytes']}" if task == Task.QLORA else ""),
        ))  # fmt: skip
    trains = any(verdicts[r].runs for r in (Runner.DEEPSPEED, Runner.ACCELERATE, Runner.DDP, Runner.FSDP2))
    files.append(ExportedFile(
        TRAIN_PY, trains, "the training loop launch.sh starts for deepspeed / accelerate / ddp" if trains
        else "not needed: no runner that uses it runs this plan",
        f"transformers {VERSIONS['transformers']}, torch {VERSIONS['torch']}",
    ))  # fmt: skip
    runnable = [v for v in ordered if v.runs]
    files.append(ExportedFile(
        LAUNCH_SH, True,
        f"RUNNER={default} by default" + (f" (also {', '.join(v.runner for v in runnable[1:])})"
                                          if len(runnable) > 1 else "") if default
        else "nothing: no supported runner expresses this layout; it exits with the reasons",
        FRAMEWORK_OF[default] if default else "-",
        "; ".join(filter(None, [*verdicts[default].differs, common])) if default else "",
    ))  # fmt: skip
    files.append(_report(OPTIONS_CSV, "every ranked option, machine-readable"))
    return tuple(files)


def _serving_files(option: PlanOption) -> tuple[ExportedFile, ...]:
    verdicts = serving_verdicts_for(option)
    runnable = [v for v in verdicts if v.runs]
    engines = f"ENGINE={runnable[0].runner} by default; also " + ", ".join(
        f"ENGINE={v.runner}" for v in runnable[1:]
    )
    files = [_report(REPORT_MD), _report(REPORT_PDF)]
    for name, why in ((DS_CONFIG, "serving runs in vLLM / TensorRT-LLM / llama.cpp, not DeepSpeed"),
                      (ACCELERATE_CONFIG, "accelerate does not serve models"),
                      (TRAIN_PY, "nothing to train")):  # fmt: skip
        files.append(ExportedFile(name, False, why, "-"))
    files.append(ExportedFile(
        LAUNCH_SH, True, f"serving with the plan's parallelism, context and concurrency ({engines})",
        f"{FRAMEWORK_OF[Runner.VLLM]}; {FRAMEWORK_OF[Runner.TRTLLM]}; {FRAMEWORK_OF[Runner.LLAMACPP]}",
        "; ".join(f"{v.runner}: {d}" for v in runnable for d in v.differs),
    ))  # fmt: skip
    files.append(_report(OPTIONS_CSV, "every ranked option, machine-readable"))
    return tuple(files)


def _report(name: str, runs: str = "the plan, its inputs, sources and these files") -> ExportedFile:
    return ExportedFile(name, True, runs, "-")


def _config_file(name: str, verdict: Verdict, runs: str, framework: str, differs: str) -> ExportedFile:
    if verdict.runs:
        return ExportedFile(name, True, runs, framework, differs)
    return ExportedFile(name, False, verdict.reason, framework)


def written_names(option: PlanOption, inputs: ExportInputs) -> list[str]:
    return [item.name for item in export_manifest(option, inputs) if item.written]
