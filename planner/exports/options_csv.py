"""options.csv: every ranked option, machine-readable (bytes, seconds, money amount + currency)."""

from __future__ import annotations

import csv
import io

from planner.exports.common import ExportInputs, gradient_accumulation_steps, nodes_layout, task_of
from planner.search.types import PlanOption, PlanResult

OPTIONS_CSV_COLUMNS = (
    "rank", "gpu_id", "gpu_name", "gpus", "nodes", "dp", "tp", "pp", "ep", "zero", "recompute", "offload",
    "micro_batch", "virtual_stages", "gradient_accumulation_steps", "fits", "memory_per_gpu_bytes", "gpu_memory_bytes",
    "step_time_s", "tokens_per_s", "wall_time_s", "gpu_hours", "cost_amount", "cost_currency",
    "cost_per_million_tokens_amount", "cost_per_million_tokens_currency", "confidence",
)  # fmt: skip


def option_row(rank: int, option: PlanOption, inputs: ExportInputs) -> dict[str, object]:
    """One options.csv row: machine units (bytes, seconds, amounts with their currency)."""
    nodes, _ = nodes_layout(option)
    cost, per_million = option.cost, option.cost_per_million_tokens
    training = task_of(option, inputs).is_training
    return {
        "rank": rank,
        "gpu_id": option.gpu.id,
        "gpu_name": option.gpu.name,
        "gpus": option.gpus,
        "nodes": nodes,
        **option.layout.as_dict(),
        "gradient_accumulation_steps": gradient_accumulation_steps(option, inputs) if training else "",
        "fits": option.fits,
        "memory_per_gpu_bytes": option.memory.total_bytes,
        "gpu_memory_bytes": option.gpu.memory_bytes,
        "step_time_s": option.step_time_s,
        "tokens_per_s": option.tokens_per_s,
        "wall_time_s": option.wall_time_s,
        "gpu_hours": option.gpu_hours,
        "cost_amount": cost.amount if cost is not None else "",
        "cost_currency": cost.currency if cost is not None else "",
        "cost_per_million_tokens_amount": per_million.amount if per_million is not None else "",
        "cost_per_million_tokens_currency": per_million.currency if per_million is not None else "",
        "confidence": option.confidence.value,
    }


def options_csv(result: PlanResult, inputs: ExportInputs) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=OPTIONS_CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for rank, option in enumerate(result.options, start=1):
        row = option_row(rank, option, inputs)
        writer.writerow({key: ("" if value is None else value) for key, value in row.items()})
    return buffer.getvalue()
