"""The plan report: inputs, the chosen option, its memory breakdown, the ranked options, what was excluded,
advice, launch notes and every assumption with its source, as sections that report.md (here) and report.pdf
(planner.exports.pdf) both render. Durations and sizes go through planner.messages' formatters."""

from __future__ import annotations

from collections.abc import Mapping

from planner.exports import pdf
from planner.exports.common import (
    ExportInputs,
    Section,
    Table,
    cell_text,
    gradient_accumulation_steps,
    layout_summary,
    nodes_layout,
    one_line_summary,
    short_gpu_name,
    task_of,
)
from planner.exports.manifest import ExportedFile, export_manifest
from planner.exports.runners import runtime_framework
from planner.messages import format_bytes, format_duration
from planner.money import Money
from planner.search.types import PlanOption, PlanResult

REPORT_TITLE = "GPU Advisor plan report"
MEMORY_HEADING = "Memory per GPU"  # the charts (memory, scaling) follow this section

# Readable names (with units) for the inputs; other fields are shown by their name.
INPUT_LABELS = {
    "model": "Model",
    "task": "Task",
    "precision": "Precision",
    "seq_len": "Sequence length (tokens)",
    "global_batch": "Global batch (sequences)",
    "tokens": "Tokens to train",
    "dataset_tokens": "Dataset (tokens per epoch)",
    "epochs": "Epochs",
    "tokens_per_second": "Target speed (tokens/s)",
    "concurrent_users": "Concurrent users",
    "hardware": "Hardware choices",
    "gpu": "GPU types",
    "max_gpus": "At most (GPUs)",
    "exact_gpus": "Exactly (GPUs)",
    "budget_amount": "Budget",
    "deadline_days": "Deadline (days)",
    "mfu": "MFU override (fraction of peak)",
    "efficiency": "Bandwidth efficiency override (fraction of peak)",
    "currency": "Currency",
    "model_source": "Model source",
    "price_source": "Price source",
}
_RANKED_HEADER = ("#", "GPU", "Count", "Strategy", "Fits", "Mem/GPU", "Time", "GPU-hours", "Cost", "Per 1M tok",
                  "Conf.")  # fmt: skip


def _money_text(money: Money | None) -> str:
    return "no price" if money is None else f"{money.amount:,.2f} {money.currency}"


def _number(value: float | None, unit: str = "", digits: int = 1) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.{digits}f} {unit}".strip()


def report_sections(result: PlanResult, option: PlanOption, inputs: ExportInputs) -> list[Section]:
    """The report as sections; report.md and report.pdf both render these."""
    sections = [
        _stamp_section(option, inputs),
        Section("Inputs", tables=(Table(("Input", "Value"), _input_rows(inputs)),)),
        _chosen_section(option, inputs),
        _memory_section(option),
    ]
    reference = _reference_cost_section(option, inputs)
    if reference is not None:
        sections.append(reference)
    sections += [
        _files_section(export_manifest(option, inputs)),
        Section("Ranked options", tables=(Table(_RANKED_HEADER, _ranked_rows(result, option, inputs)),)),
    ]
    excluded = tuple((item.family, item.reason) for item in result.excluded)
    if excluded:
        sections.append(Section("Excluded strategies", tables=(Table(("Strategy", "Reason"), excluded),)))
    if result.advice:
        sections.append(Section("Advice", paragraphs=tuple(result.advice), items=True))
    sections.append(
        Section("Assumptions and sources", paragraphs=tuple(_sources(result, option, inputs)), items=True)
    )
    return sections


def _input_rows(inputs: ExportInputs) -> tuple[tuple[object, ...], ...]:
    return tuple(
        (INPUT_LABELS.get(name, name.replace("_", " ")), cell_text(value)) for name, value in inputs.given()
    )


def _chosen_section(option: PlanOption, inputs: ExportInputs) -> Section:
    capacity = option.gpu.memory_bytes
    nodes, per_node = nodes_layout(option)
    band = option.time_band  # the cross-validated error band of the option's class (planner.perf.bands)

    def banded(text: str, inverse: bool = False) -> str:
        """A figure with its band: "5.8 h (-12% .. +15%, from 23 published runs)"; throughputs (1 / time) take
        the inverse band; a figure without a value or an option without a band stands alone."""
        chosen = (band.inverse() if inverse else band) if band is not None else None
        if chosen is None or text in ("n/a", "no price"):
            return text
        low, high = f"{chosen.low_fraction:+.0%}", f"{chosen.high_fraction:+.0%}"
        return f"{text} ({low} .. {high}, from {chosen.cases} published runs)"

    rows: list[tuple[object, ...]] = [
        ("GPU", f"{option.gpu.name} ({format_bytes(capacity, unit='GiB', decimals=1)} each)"),
        ("GPUs", f"{option.gpus} ({nodes} node(s) x {per_node})"),
        ("Strategy", layout_summary(option)),
        ("Micro-batch per GPU", f"{option.layout.micro_batch} sequence(s)"),
        ("Fits in memory", "yes" if option.fits else "NO"),
        (
            "Memory per GPU",
            f"{format_bytes(option.memory.total_bytes, unit='GiB', decimals=1)} of {format_bytes(capacity, unit='GiB', decimals=1)}",
        ),
        ("Step time", banded(format_duration(option.step_time_s))),
        ("Throughput", banded(_number(option.tokens_per_s, "tokens/s", 0), inverse=True)),
        ("Confidence", option.confidence.value),
    ]
    if task_of(option, inputs).is_training:
        rows.insert(4, ("Gradient accumulation", f"{gradient_accumulation_steps(option, inputs)} step(s)"))
        if option.runtime is not None:  # whose memory layout the figures count, and what launch.sh runs first
            rows.insert(3, ("Runtime", f"{option.runtime}: {runtime_framework(option.runtime)}"))
            choice = [note.text for note in option.note_messages if note.code == "option.runtime_choice"]
            if choice:  # every runtime the planner weighed for this layout (planner.search.training_runtime)
                rows.insert(4, ("Runtimes weighed", choice[0]))
        rows += [
            ("Wall time", banded(format_duration(option.wall_time_s))),
            ("GPU-hours", banded(_number(option.gpu_hours, "GPU-h", 0))),
        ]
    rows += [
        ("Cost", banded(_money_text(option.cost))),
        ("Cost per 1M tokens", banded(_money_text(option.cost_per_million_tokens))),
    ]
    rows += _goodput_rows(option)
    return Section(
        "Chosen option", (one_line_summary(option, inputs),), (Table(("Item", "Value"), tuple(rows)),)
    )


def _goodput_rows(option: PlanOption) -> list[tuple[object, ...]]:
    """The goodput term: effective time, the run with losses, and the checkpoint and restart figures."""
    term = option.goodput
    if term is None:
        return []
    checkpoint = term.checkpoint
    interval = format_duration(term.interval_s) if term.interval_s is not None else "none"
    rows: list[tuple[object, ...]] = [
        ("Effective training time", f"{term.effective_fraction:.1%} (one interruption every "
                                    f"{format_duration(term.job_mtbf_s)})"),
        ("Lost to restarts / checkpoints / rework",
         f"{term.restart_share:.1%} / {term.checkpoint_share:.1%} / {term.rework_share:.1%}"),
        ("Checkpoint", f"{format_bytes(checkpoint.bytes)} on {checkpoint.storage.name}, written in "
                       f"{format_duration(checkpoint.write_s)} every {interval} ({term.interval_basis})"),
        ("Restart", format_duration(checkpoint.restart_s)),
    ]  # fmt: skip
    if term.expected_interruptions is not None:
        rows += [
            ("Expected interruptions", _number(term.expected_interruptions, "", 0)),
            ("Wall time with losses", format_duration(option.effective_wall_time_s)),
            ("GPU-hours with losses", _number(option.effective_gpu_hours, "GPU-h", 0)),
            ("Cost with losses", _money_text(option.effective_cost)),
        ]
    return rows


def _memory_section(option: PlanOption) -> Section:
    memory = option.memory
    rows: list[tuple[object, ...]] = [
        (name, format_bytes(term.bytes, unit="GiB", decimals=1), term.assumption)
        for name, term in memory.terms()
    ]
    rows.append(
        (
            "total",
            format_bytes(memory.total_bytes, unit="GiB", decimals=1),
            f"GPU capacity {format_bytes(option.gpu.memory_bytes, unit='GiB', decimals=1)}",
        )
    )
    return Section(MEMORY_HEADING, tuple(memory.notes), (Table(("Term", "Size", "Assumption"), tuple(rows)),))


def _ranked_rows(
    result: PlanResult, option: PlanOption, inputs: ExportInputs
) -> tuple[tuple[object, ...], ...]:
    training = task_of(option, inputs).is_training
    return tuple(
        (
            rank,
            short_gpu_name(other.gpu.name),
            other.gpus,
            layout_summary(other),
            "yes" if other.fits else "no",
            format_bytes(other.memory.total_bytes, unit="GiB", decimals=1),
            format_duration(other.wall_time_s if training else other.step_time_s),
            _number(other.gpu_hours, "", 0),  # the column header names the unit
            _money_text(other.cost),
            _money_text(other.cost_per_million_tokens),
            other.confidence.value,
        )
        for rank, other in enumerate(result.options, start=1)
    )


def _sources(result: PlanResult, option: PlanOption, inputs: ExportInputs) -> list[str]:
    gpu = option.gpu
    sources = [f"{key}: {value}" for key, value in gpu.sources.items()]
    if gpu.source_date:
        sources.append(f"GPU figures dated {gpu.source_date}")
    for name, value in (("model source", inputs.model_source), ("price source", inputs.price_source),
                        ("calibration source", inputs.calibration_source)):  # fmt: skip
        if value:
            sources.append(f"{name}: {value}")
    if option.goodput is not None:
        term = option.goodput
        sources += [f"failure rate: {term.failure_source}", term.checkpoint.restart_source,
                    f"checkpoint storage: {term.checkpoint.storage.source}",
                    "checkpoint interval: Daly 2006 (higher-order optimum), Young 1974 to first order"]  # fmt: skip
    for assumption in (*option.assumptions, *result.assumptions):
        shown = _shipped_citation(assumption)
        if shown not in sources:
            sources.append(shown)
    sources.append(
        "Memory terms follow the ZeRO paper's accounting (Rajbhandari et al. 2020) and Korthikanti et al. 2022 "
        "for activations; time assumes the MFU stated in the inputs or the planner's default."
    )
    return sources


def _stamp_section(option: PlanOption, inputs: ExportInputs) -> Section:
    stamp = "Exported" + (f" on {inputs.exported_on}" if inputs.exported_on else "") + " by GPU Advisor"
    stamp += f" {inputs.tool_version}." if inputs.tool_version else "."
    return Section("Summary", (one_line_summary(option, inputs), stamp))


def _reference_cost_section(option: PlanOption, inputs: ExportInputs) -> Section | None:
    """What the run would cost at the stored reference prices, when the option has no price of the user's."""
    if option.cost is not None or not inputs.reference_prices:
        return None
    rows: list[tuple[object, ...]] = []
    for reference in inputs.reference_prices:
        if reference.gpu_id != option.gpu.id:
            continue
        price = reference.price_per_gpu_hour
        cost = price * option.gpu_hours if option.gpu_hours is not None else None
        per_million = (price * (option.gpus / 3600 / option.tokens_per_s * 1e6)
                       if option.tokens_per_s > 0 else None)  # fmt: skip
        rows.append((reference.provider, reference.quoted_on, _money_text(price), _money_text(cost),
                     _money_text(per_million), reference.source))  # fmt: skip
    if not rows:
        return None
    note = ("No price was given for this GPU, so these costs use GPU Advisor's stored REFERENCE prices "
            "(dated public list prices, not your quotes); add a quote for real figures.")  # fmt: skip
    header = ("Reference", "Quoted on", "Per GPU-hour", "Run cost", "Per 1M tok", "Source")
    return Section("Cost at reference prices", (note,), (Table(header, tuple(rows)),))


def _files_section(files: tuple[ExportedFile, ...]) -> Section:
    """What each exported file runs, with which framework and version, and where it differs from the plan."""
    rows = tuple(
        (item.name, "yes" if item.written else "not written", item.runs, item.framework, item.differs or "-")
        for item in files
    )
    return Section(
        "Exported files",
        ("What each launch file runs follows the named framework's documented rules for this layout (its "
         "sources and versions are in planner/exports/runners.py); a file that could not run this layout as "
         "planned is not written, and the reason is given. GPU Advisor did not run these files: "
         "DATA=synthetic STEPS=1 bash launch.sh is a one-step dry run of the layout on your machines.",),
        (Table(("File", "Written", "What it runs", "Framework", "Differs from the plan"), rows),),
    )  # fmt: skip


def _md_table(table: Table) -> list[str]:
    def cell(value: object) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    header = table.header
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in table.rows]
    return lines


def _shipped_citation(text: str) -> str:
    """Assumptions cite docs/sources.md, which lives in GPU Advisor's source repository and is not installed
    with the package: say so, so a reader of an exported report knows where that list is."""
    return text.replace("docs/sources.md", "docs/sources.md in GPU Advisor's source repository")


def report_markdown(
    result: PlanResult, option: PlanOption, inputs: ExportInputs, chart_files: Mapping[str, str] | None = None
) -> str:
    """report.md text; chart_files maps a caption to a PNG file name in the same folder (embedded as images)."""
    lines = [f"# {REPORT_TITLE}", ""]
    for section in report_sections(result, option, inputs):
        lines += [f"## {section.heading}", ""]
        if section.items:
            lines += [f"- {p}" for p in section.paragraphs] + [""]
        else:
            for paragraph in section.paragraphs:
                lines += [paragraph, ""]
        for table in section.tables:
            lines += _md_table(table) + [""]
        if section.heading == MEMORY_HEADING and chart_files:
            for caption, file_name in chart_files.items():
                lines += [f"![{caption}]({file_name})", ""]
    if not chart_files:
        lines += ["_Charts are included when the report is exported from the desktop app; the tables above "
                  "hold the same numbers._", ""]  # fmt: skip
    return "\n".join(lines)


def report_pdf(
    result: PlanResult,
    option: PlanOption,
    inputs: ExportInputs,
    chart_pngs: Mapping[str, bytes] | None = None,
) -> bytes:
    """report.pdf: the report's sections (Helvetica; ruled tables; bullet lists) plus 8-bit RGB chart PNGs."""
    return pdf.render_pdf(
        REPORT_TITLE,
        one_line_summary(option, inputs),
        report_sections(result, option, inputs),
        images={MEMORY_HEADING: dict(chart_pngs or {})},
    )
