"""Exports of one chosen plan option: launch files for the frameworks that run it as planned, and a report.

export_plan() writes into a folder (which launch files a plan gets: planner.exports.manifest):
  report.md, report.pdf   summary with date and tool version, inputs, chosen option, memory breakdown, costs (at
                          stored reference prices when the user gave none, marked so), what each exported file
                          runs with which framework and version and where it differs from the plan, ranked
                          options, excluded strategies, advice, assumptions and sources
  ds_config.json          DeepSpeed 0.19: ZeRO stage, offload, AutoTP, AutoEP, batch, AdamW (training plans
                          DeepSpeed runs)
  accelerate_config.yaml  accelerate 1.15: DEEPSPEED with ds_config.json, MULTI_GPU or NO
  peft_config.json        peft 0.21 LoraConfig (+ bitsandbytes 4-bit settings for QLoRA)
  train.py                the training script template launch.sh starts (planner/exports/templates/train.py)
  launch.sh               RUNNER=deepspeed | accelerate | ddp | torchtitan (training) or ENGINE=vllm | trtllm |
                          llamacpp (serving), checking its variables before it starts anything
  options.csv             every ranked option, machine-readable (bytes, seconds, money amount + currency)

The rooms: common (inputs, file names), quoting (shell/YAML safety for untrusted names), runners (which
framework runs which layout, versions), configs (DeepSpeed, accelerate, peft), launch (launch.sh), manifest
(which files, what they run), options_csv, report, pdf. Pure: strings built from planner.search's frozen
results; only export_plan() touches the disk (and reads the shipped template and reference prices).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
from collections.abc import Mapping
from importlib import metadata, resources
from pathlib import Path

from planner.exports.common import (
    ACCELERATE_CONFIG,
    DS_CONFIG,
    EXPORT_FILES,
    LAUNCH_SH,
    OPTIONS_CSV,
    PEFT_CONFIG,
    REPORT_MD,
    REPORT_PDF,
    TRAIN_PY,
    ExportInputs,
)
from planner.exports.configs import accelerate_yaml, deepspeed_config, peft_config
from planner.exports.launch import launch_script
from planner.exports.manifest import written_names
from planner.exports.options_csv import options_csv
from planner.exports.reference_prices import shipped_reference_prices
from planner.exports.report import report_markdown, report_pdf
from planner.files import write_all_atomically, write_atomically
from planner.search.types import PlanOption, PlanResult

__all__ = ["EXPORT_FILES", "ExportInputs", "export_plan", "train_template"]


def train_template() -> str:
    """The train.py template shipped in the package (planner/exports/templates/train.py)."""
    return resources.files("planner.exports").joinpath("templates", TRAIN_PY).read_text(encoding="utf-8")


def _stamped(inputs: ExportInputs, option: PlanOption) -> ExportInputs:
    """The inputs with today's date, the tool's version and, when the option has no price, the shipped
    reference prices for its GPU (the caller's values win)."""
    references = inputs.reference_prices
    if references is None and option.cost is None:
        references = shipped_reference_prices(option.gpu.id)
    return dataclasses.replace(
        inputs,
        exported_on=inputs.exported_on or datetime.date.today().isoformat(),
        tool_version=inputs.tool_version or _tool_version(),
        reference_prices=references,
    )


def _tool_version() -> str:
    try:
        return metadata.version("gpu-advisor")
    except metadata.PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown version"


def export_plan(
    result: PlanResult,
    option: PlanOption,
    directory: str | Path,
    inputs: ExportInputs | None = None,
    *,
    chart_pngs: Mapping[str, bytes] | None = None,
) -> list[Path]:
    """Write the export files for `option` (one of result.options) into `directory`; return their paths.

    Which launch files are written depends on what runs the plan (the report lists every file with the
    reason for any left out). inputs: what the user asked for (shown in the report; seq_len, global_batch and
    model_spec feed the launch files). chart_pngs: caption -> PNG bytes (the GUI passes its rendered charts;
    saved next to report.md as chart-1.png, ... and embedded in both reports). OSError when the folder cannot
    be written.
    """
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    given = _stamped(inputs or ExportInputs(), option)
    chart_files = {}
    for index, (caption, png) in enumerate((chart_pngs or {}).items(), start=1):
        file_name = f"chart-{index}.png"
        write_atomically(folder / file_name, png)
        chart_files[caption] = file_name
    makers = {
        REPORT_MD: lambda: report_markdown(result, option, given, chart_files).encode(),
        REPORT_PDF: lambda: report_pdf(result, option, given, chart_pngs),
        DS_CONFIG: lambda: (json.dumps(deepspeed_config(option, given), indent=2) + "\n").encode(),
        ACCELERATE_CONFIG: lambda: accelerate_yaml(option, given).encode(),
        PEFT_CONFIG: lambda: (json.dumps(peft_config(option, given), indent=2) + "\n").encode(),
        TRAIN_PY: lambda: train_template().encode(),
        LAUNCH_SH: lambda: launch_script(option, given).encode(),
        OPTIONS_CSV: lambda: options_csv(result, given).encode(),
    }
    contents: dict[Path, bytes | str] = {
        folder / name: makers[name]() for name in written_names(option, given)
    }
    executable = {folder / name: 0o755 for name in (LAUNCH_SH, TRAIN_PY) if folder / name in contents}
    # All files or none (issue 14 item 6): a full disk half way leaves the previous export as it was.
    write_all_atomically(contents, modes=executable)
    return list(contents)
