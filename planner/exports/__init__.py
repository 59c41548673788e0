"""Exports of one chosen plan option: launch configs for the tools people actually run, and a report.

export_plan() writes six files into a folder:
  report.md               inputs, chosen option, memory breakdown, ranked options, excluded strategies, advice,
                          every assumption and source; embeds chart PNGs when the caller passes them (the GUI does)
  report.pdf              the same text as a small self-contained PDF (pure Python, so the CLI writes it too)
  ds_config.json          DeepSpeed config (https://www.deepspeed.ai/docs/config-json/): ZeRO stage, offload,
                          bf16/fp16, micro-batch, gradient accumulation, train_batch_size = micro x GA x dp
  accelerate_config.yaml  Hugging Face accelerate config: DEEPSPEED, FSDP, MEGATRON_LM, MULTI_GPU or NO
  launch.sh               torchrun (or vLLM for serving) command line with the node and GPU counts
  options.csv             every ranked option, machine-readable (bytes, seconds, money amount + currency)

The rooms: common (the inputs record and what every export reads of an option), configs (DeepSpeed,
accelerate, launch.sh), options_csv, report (the report's sections and report.md), pdf (the PDF writer).
Pure: they build strings from planner.search's frozen results; only export_plan() touches the disk.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from planner.exports.common import (
    ACCELERATE_CONFIG,
    DS_CONFIG,
    EXPORT_FILES,
    LAUNCH_SH,
    OPTIONS_CSV,
    REPORT_MD,
    REPORT_PDF,
    ExportInputs,
)
from planner.exports.configs import accelerate_yaml, deepspeed_config, launch_script
from planner.exports.options_csv import options_csv
from planner.exports.report import report_markdown, report_pdf
from planner.files import write_all_atomically, write_atomically
from planner.search.types import PlanOption, PlanResult

__all__ = ["EXPORT_FILES", "ExportInputs", "export_plan"]


def export_plan(
    result: PlanResult,
    option: PlanOption,
    directory: str | Path,
    inputs: ExportInputs | None = None,
    *,
    chart_pngs: Mapping[str, bytes] | None = None,
) -> list[Path]:
    """Write the six export files for `option` (one of result.options) into `directory`; return their paths.

    inputs: what the user asked for (shown in the report; seq_len and global_batch feed the configs).
    chart_pngs: caption -> PNG bytes (the GUI passes its rendered charts; they are saved next to report.md as
    chart-1.png, ... and embedded in both reports). OSError when the folder cannot be written.
    """
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    given = inputs or ExportInputs()
    chart_files = {}
    for index, (caption, png) in enumerate((chart_pngs or {}).items(), start=1):
        file_name = f"chart-{index}.png"
        write_atomically(folder / file_name, png)
        chart_files[caption] = file_name
    texts = {
        REPORT_MD: report_markdown(result, option, given, chart_files),
        DS_CONFIG: json.dumps(deepspeed_config(option, given), indent=2) + "\n",
        ACCELERATE_CONFIG: accelerate_yaml(option, given),
        LAUNCH_SH: launch_script(option, given),
        OPTIONS_CSV: options_csv(result, given),
    }
    contents: dict[Path, bytes | str] = {
        folder / name: report_pdf(result, option, given, chart_pngs) if name == REPORT_PDF else texts[name]
        for name in EXPORT_FILES
    }
    # All six or none (issue 14 item 6): a full disk half way leaves the previous export as it was.
    write_all_atomically(contents, modes={folder / LAUNCH_SH: 0o755})
    return list(contents)
