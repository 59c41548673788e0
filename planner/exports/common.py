"""What every export reads of a plan option: the user's inputs as a typed record, the task and precision, the
node layout, gradient accumulation, a one-line summary, and the report's section and table types."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath

from planner.exports.quoting import is_repo_id, repo_id_from_url, safe_local_path
from planner.models import ModelSpec
from planner.money import Money
from planner.search.types import PlanOption
from planner.vocabulary import Offload, Precision, Recompute, Task

# File names, in the order export_plan writes them. Which of the launch files a plan gets depends on what can
# run it (planner.exports.runners): the report says which were written and why the others were not.
REPORT_MD = "report.md"
REPORT_PDF = "report.pdf"
DS_CONFIG = "ds_config.json"
ACCELERATE_CONFIG = "accelerate_config.yaml"
PEFT_CONFIG = "peft_config.json"
TRAIN_PY = "train.py"
LAUNCH_SH = "launch.sh"
OPTIONS_CSV = "options.csv"
EXPORT_FILES = (
    REPORT_MD,
    REPORT_PDF,
    DS_CONFIG,
    ACCELERATE_CONFIG,
    PEFT_CONFIG,
    TRAIN_PY,
    LAUNCH_SH,
    OPTIONS_CSV,
)
# Fields of ExportInputs that feed the exports but are not user inputs shown in the report's Inputs table.
_NOT_SHOWN = frozenset({"model_spec", "reference_prices", "tool_version", "exported_on"})


@dataclass(frozen=True, slots=True)
class ReferencePrice:
    """A stored reference rental price for one GPU type (planner/catalog/reference_prices.csv), used to show
    what a run would cost when the user gave no price; always marked as a reference figure."""

    gpu_id: str
    price_per_gpu_hour: Money
    provider: str
    quoted_on: str
    source: str


# A value the report's Inputs table shows.
InputValue = str | int | float | tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ExportInputs:
    """What the user asked for, as the report shows it (None: not given, the planner's default applies).

    The configs read task, precision, seq_len (serving context), global_batch (sequences, for gradient
    accumulation), model / model_path (the serving command); the rest is shown in the report's Inputs table,
    in this order, and the *_source fields also under "Assumptions and sources".
    """

    model: str | None = None
    model_path: str | None = None
    task: Task | None = None
    precision: Precision | None = None
    seq_len: int | None = None
    global_batch: int | None = None
    tokens: float | None = None
    dataset_tokens: float | None = None
    epochs: float | None = None
    tokens_per_second: float | None = None
    concurrent_users: int | None = None
    hardware: tuple[str, ...] | None = None
    gpu: str | None = None
    max_gpus: int | None = None
    exact_gpus: int | None = None
    budget_amount: float | None = None
    deadline_days: float | None = None
    mfu: float | None = None
    efficiency: float | None = None
    currency: str | None = None
    model_source: str | None = None
    price_source: str | None = None
    calibration_source: str | None = None
    # Not shown as inputs: the model's architecture (family, layers, experts, its config.json source) for the
    # launch files, reference prices for costs when the option has none, and what the report is stamped with.
    model_spec: ModelSpec | None = None
    reference_prices: tuple[ReferencePrice, ...] | None = None
    tool_version: str | None = None
    exported_on: str | None = None  # ISO date

    def __post_init__(self) -> None:
        if self.task is not None:
            object.__setattr__(self, "task", Task.parse(self.task))
        if self.precision is not None:
            object.__setattr__(self, "precision", Precision.parse(self.precision))
        if self.hardware is not None:
            object.__setattr__(self, "hardware", tuple(self.hardware))

    def given(self) -> list[tuple[str, InputValue]]:
        """(field name, value) of every input that was given, in field order."""
        values = (
            (f.name, getattr(self, f.name)) for f in dataclasses.fields(self) if f.name not in _NOT_SHOWN
        )
        return [(name, value) for name, value in values if value is not None]

    def model_reference(self) -> str | None:
        """What the launch files load the model from: a local folder or a Hugging Face repo id, validated.

        In order: model_path; the repo id in the spec's source URL; the folder of a local config.json source;
        the model name when it is a repo id. Names come from config.json `_name_or_path` or folder names and are
        untrusted: a reference with control characters is refused (None; launch.sh then asks for MODEL)."""
        if self.model_path:
            return safe_local_path(self.model_path)
        source = self.model_spec.source if self.model_spec else (self.model_source or "")
        from_url = repo_id_from_url(source)
        if from_url:
            return from_url
        if source.endswith("config.json") and "://" not in source:
            return safe_local_path(str(PurePath(source).parent))
        name = self.model_spec.name if self.model_spec else self.model
        if name and is_repo_id(name):
            return name
        return None

    @property
    def model_family(self) -> str | None:
        return self.model_spec.family if self.model_spec else None


# --------------------------------------------------------------------------------------------------- option


def task_of(option: PlanOption, inputs: ExportInputs) -> Task:
    """The workload task; full fine-tuning when neither the inputs nor the option say."""
    if inputs.task is not None:
        return inputs.task
    return option.workload.task if option.workload is not None else Task.FINETUNE


def precision_of(option: PlanOption, inputs: ExportInputs) -> Precision:
    return inputs.precision if inputs.precision is not None else option.precision


def nodes_layout(option: PlanOption) -> tuple[int, int]:
    """(nodes, GPUs per node) for the option: as few nodes as the GPU type's server holds.

    A count that does not split evenly over full servers is spread evenly over the smallest node count that
    divides it, so every node runs the same number of processes (torchrun requires one --nproc-per-node).
    """
    gpus = max(1, option.gpus)
    if option.nodes >= 1 and gpus % option.nodes == 0:
        return option.nodes, gpus // option.nodes  # the planner's own layout (it times the network with it)
    per_node_max = max(1, option.gpu.gpus_per_node or 8)
    nodes = math.ceil(gpus / per_node_max)
    while gpus % nodes:
        nodes += 1
    return nodes, gpus // nodes


def gradient_accumulation_steps(option: PlanOption, inputs: ExportInputs) -> int:
    """Micro-batches accumulated per optimizer step so that micro x GA x dp covers the global batch.

    The planner's own figure when the option carries one, else the global batch (sequences) of the inputs or
    the workload; serving accumulates nothing (1).
    """
    if option.gradient_accumulation_steps:
        return max(1, option.gradient_accumulation_steps)
    if not task_of(option, inputs).is_training:
        return 1
    layout = option.layout
    global_batch = inputs.global_batch or (option.workload.global_batch if option.workload else None)
    if not global_batch:
        return 1
    return max(1, math.ceil(global_batch / (max(1, layout.micro_batch) * max(1, layout.dp))))


def layout_summary(option: PlanOption) -> str:
    """A short label of the option's layout: "ZeRO-3 DP 64, TP 2, offload optimizer, full recompute"."""
    layout = option.layout
    parts = []
    if layout.zero:
        parts.append(f"ZeRO-{int(layout.zero)} DP {layout.dp}")
    elif layout.dp > 1:
        parts.append(f"DDP {layout.dp}")
    for name, degree in (("TP", layout.tp), ("PP", layout.pp), ("EP", layout.ep)):
        if degree > 1:
            parts.append(f"{name} {degree}")
    if layout.offload != Offload.NONE:
        parts.append(f"offload {layout.offload}")
    if layout.recompute != Recompute.NONE:
        parts.append(f"{layout.recompute} recompute")
    return ", ".join(parts) or "single GPU"


def one_line_summary(option: PlanOption, inputs: ExportInputs) -> str:
    model = inputs.model or "model"
    return f"{model}, {task_of(option, inputs)}, {option.gpus} x {option.gpu.name}, {layout_summary(option)}"


# --------------------------------------------------------------------------------------------------- report


@dataclass(frozen=True, slots=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[object, ...], ...]


@dataclass(frozen=True, slots=True)
class Section:
    """One heading of the report: paragraphs (a list of items when `items`) and tables; report.md and
    report.pdf render the same sections."""

    heading: str
    paragraphs: tuple[str, ...] = ()
    tables: tuple[Table, ...] = ()
    items: bool = False


def cell_text(value: object) -> str:
    """A value as a report cell or input shows it: 2e9 as 2,000,000,000, lists joined, mappings as k=v."""
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"  # 2e9 training tokens read as 2,000,000,000, not 2e+09
        return f"{value:,.6g}"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10_000:
        return f"{value:,}"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def short_gpu_name(name: str) -> str:
    """ "NVIDIA H100 SXM5 80GB" -> "H100 SXM5 80GB" for table rows (the chosen option keeps the full name)."""
    for prefix in ("NVIDIA ", "AMD "):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name
