"""The Plan page's words for planning at scale: the goodput block of a training option and the mixed-pool table.

Pure text builders like desktop/plan_text.py (context "PlanPage", numbers through desktop.fmt): each figure of
the planner's goodput term (planner.scale.Goodput, the same term `gpu-advisor plan --json` prints as an option's
"goodput") becomes a row with its unit and the assumption it rests on, worded in the interface language from
the planner's constants (the failure rate's published run, the storage profile, the restart's parts) rather than
from the planner's English source sentences. The mixed pool's ways, reason and explanations are the planner's
Messages (PoolChoice.label, PoolComparison.reason, PoolChoice.explanation) rendered in the interface
language by desktop.messages.render, GPU ids shown by their names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from desktop import fmt
from desktop.messages import render
from desktop.plurals import plurals
from planner.messages import Message
from planner.resolver import spot_comparison_of
from planner.scale import DETECTION_S, RESCHEDULE_S, Resilience, failure_rate
from planner.scale.checkpoints import (
    NVME_BYTES_PER_S_PER_GPU,
    PFS_AGGREGATE_BYTES_PER_S,
    PFS_CLIENT_BYTES_PER_S_PER_GPU,
)
from planner.scale.failures import (
    LLAMA3_DAYS,
    LLAMA3_FAILURES_PER_GPU_HOUR,
    LLAMA3_GPUS,
    LLAMA3_UNEXPECTED_INTERRUPTIONS,
    RSC_A100_FAILURES_PER_GPU_HOUR,
    RSC_PROJECTED_GPUS,
    RSC_PROJECTED_MTTF_HOURS,
)
from planner.scale.spot import MAX_NODES_SEARCHED, SPOT_MONTHLY_INTERRUPTED_SHARE

if TYPE_CHECKING:
    from collections.abc import Mapping

    from desktop.plan_request import PlanCall, SpotAnswer
    from planner.gpus import GpuSpec
    from planner.scale import Goodput, SpotComparison
    from planner.search import PlanOption
    from planner.search.pools import PoolChoice, PoolComparison


translate = QCoreApplication.translate  # with the context written at each call, so lupdate finds the texts


def _escape(text: object) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@dataclass(frozen=True, slots=True)
class FigureRow:
    """One shown figure: its name, its value with the unit, what it rests on, and the raw value under the key
    `gpu-advisor plan --json` gives it in an option's "goodput" (seconds, bytes, fractions, an amount)."""

    key: str
    label: str
    value: str
    basis: str
    raw: float | None


# -- goodput ---------------------------------------------------------------------------------------------------


def failure_basis(gpu: GpuSpec, resilience: Resilience) -> str:
    """Where the failure rate comes from, in words: the user's figure, or the published run it is taken from."""
    rate = failure_rate(gpu, resilience.failures_per_gpu_hour)
    per_million = fmt.significant(rate.per_million_gpu_hours, 3)
    if rate.basis == "user-set":
        return translate("PlanPage", "{0} interruptions per million GPU-hours, set by you").format(per_million)
    if rate.per_gpu_hour == RSC_A100_FAILURES_PER_GPU_HOUR:
        source = translate("PlanPage", "{0} h projected mean time to failure of a {1}-GPU job on Meta's A100 research clusters "
            "(arXiv 2410.21680)"
        ).format(fmt.number(RSC_PROJECTED_MTTF_HOURS, 1), fmt.integer(RSC_PROJECTED_GPUS))
    else:
        source = translate("PlanPage", "{0} unexpected interruptions in {1} days on {2} H100s (Llama 3, arXiv 2407.21783, section 3.3.4)"
        ).format(LLAMA3_UNEXPECTED_INTERRUPTIONS, LLAMA3_DAYS, fmt.integer(LLAMA3_GPUS))
    if rate.basis == "borrowed" and rate.per_gpu_hour == LLAMA3_FAILURES_PER_GPU_HOUR:
        return translate("PlanPage", "{0} interruptions per million GPU-hours: no published rate for {1}, the H100 figure: {2}").format(
            per_million, gpu.name, source
        )  # fmt: skip
    return translate("PlanPage", "{0} interruptions per million GPU-hours: {1}").format(per_million, source)


def storage_basis(term: Goodput) -> str:
    """The storage the checkpoint is written to and its rate, in words."""
    where = term.checkpoint.storage
    if where.name == "nvme":
        return translate("PlanPage", "local NVMe, one drive per GPU at {0} (DGX H100 layout; PM1733 / 7450 datasheets)").format(
            fmt.bandwidth(NVME_BYTES_PER_S_PER_GPU, 1)
        )
    if where.name == "pfs":
        return translate("PlanPage", "parallel file system, {0} sustained in all (Llama 3's Tectonic, arXiv 2407.21783 section 3.3.1), "
            "at most {1} per GPU"
        ).format(fmt.bandwidth(PFS_AGGREGATE_BYTES_PER_S), fmt.bandwidth(PFS_CLIENT_BYTES_PER_S_PER_GPU))
    return translate("PlanPage", "your storage, {0} per GPU").format(fmt.bandwidth(where.bytes_per_s_per_gpu, 1))


def restart_basis(term: Goodput) -> str:
    if term.checkpoint.restart_source == "user-set":
        return translate("PlanPage", "set by you")
    return translate("PlanPage", "{0} NCCL timeout (PyTorch default) + {1} rescheduling and start-up (TrainMover, arXiv 2412.12636) + "
        "reading the checkpoint back"
    ).format(fmt.duration(DETECTION_S), fmt.duration(RESCHEDULE_S))


def interval_basis(term: Goodput) -> str:
    return {
        "Daly optimum": translate("PlanPage", "Daly's optimum for this write time and rate (FGCS 22(3), 2006)"),
        "user-set": translate("PlanPage", "set by you"),
    }.get(term.interval_basis, translate("PlanPage", "no interruptions: no checkpoint needed"))


def goodput_rows(option: PlanOption, resilience: Resilience) -> list[FigureRow]:
    """The goodput term of a training option as rows (empty without one: serving, or failures turned off)."""
    term = option.goodput
    if term is None:
        return []
    fraction = term.effective_fraction
    failure_free = translate("PlanPage", "failure-free {0} ÷ effective time")
    rate = translate("PlanPage", "{0} an hour, one every {1}").format(
        fmt.significant(term.interruptions_per_hour, 3), fmt.duration(term.job_mtbf_s)
    )
    spot = ""
    if term.spot_interruptions_per_hour:
        spot = "; " + translate("PlanPage", "spot reclaims {0} an hour").format(fmt.significant(term.spot_interruptions_per_hour, 3))
    cost = option.effective_cost
    rows = [
        FigureRow("effective_fraction", translate("PlanPage", "Effective training time"), translate("PlanPage", "{0} of the wall time").format(
            fmt.percent(fraction, 1)), translate("PlanPage", "Daly's model of failures, checkpoints and restarts"), fraction),
        FigureRow("expected_interruptions", translate("PlanPage", "Interruptions expected"),
                  fmt.significant(term.expected_interruptions, 3) if term.expected_interruptions is not None else "–",
                  translate("PlanPage", "over the run, at the rate below"), term.expected_interruptions),
        FigureRow("interruptions_per_hour", translate("PlanPage", "Interruption rate"), rate,
                  failure_basis(option.gpu, resilience) + spot, term.interruptions_per_hour),
        FigureRow("wall_time_s", translate("PlanPage", "Wall time with losses"), fmt.duration(option.effective_wall_time_s),
                  failure_free.format(fmt.duration(option.wall_time_s)), option.effective_wall_time_s),
        FigureRow("gpu_hours", translate("PlanPage", "GPU-hours with losses"), translate("PlanPage", "{0} GPU-h").format(
            fmt.significant(option.effective_gpu_hours, 3)),
            failure_free.format(translate("PlanPage", "{0} GPU-h").format(fmt.significant(option.gpu_hours, 3))),
            option.effective_gpu_hours),
        FigureRow("cost", translate("PlanPage", "Cost with losses"), fmt.money_obj(cost) if cost is not None else translate("PlanPage", "no price"),
                  failure_free.format(fmt.money_obj(option.cost)) if option.cost is not None else "",
                  cost.amount if cost is not None else None),
        FigureRow("lost_restarts", translate("PlanPage", "Lost to restarts"), translate("PlanPage", "{0} of the wall time").format(
            fmt.percent(term.restart_share, 2)), translate("PlanPage", "detection, rescheduling and reload after each interruption"),
            term.restart_share),
        FigureRow("lost_checkpoints", translate("PlanPage", "Lost to checkpoint writes"), translate("PlanPage", "{0} of the wall time").format(
            fmt.percent(term.checkpoint_share, 2)), translate("PlanPage", "training waits while the checkpoint is written"),
            term.checkpoint_share),
        FigureRow("lost_rework", translate("PlanPage", "Lost to rework"), translate("PlanPage", "{0} of the wall time").format(
            fmt.percent(term.rework_share, 2)), translate("PlanPage", "work since the last checkpoint, redone after an interruption"),
            term.rework_share),
        FigureRow("checkpoint_bytes", translate("PlanPage", "Checkpoint size"), fmt.bytes_(term.checkpoint.bytes),
                  translate("PlanPage", "trainable weights and their optimizer state, sharded over {0} GPUs").format(option.gpus),
                  float(term.checkpoint.bytes)),
        FigureRow("checkpoint_write_s", translate("PlanPage", "Checkpoint write time"), fmt.duration(term.checkpoint.write_s),
                  storage_basis(term), term.checkpoint.write_s),
        FigureRow("checkpoint_interval_s", translate("PlanPage", "Checkpoint interval"),
                  translate("PlanPage", "every {0} of work").format(fmt.duration(term.interval_s)) if term.interval_s else translate("PlanPage", "never"),
                  interval_basis(term), term.interval_s),
        FigureRow("restart_s", translate("PlanPage", "Restart time"), fmt.duration(term.checkpoint.restart_s), restart_basis(term),
                  term.checkpoint.restart_s),
    ]  # fmt: skip
    return rows


def goodput_html(option: PlanOption | None, resilience: Resilience) -> str:
    """The goodput block of the selected option: a table of figures with units and assumptions."""
    if option is None:
        return "<p>" + translate("PlanPage", "No option is selected.") + "</p>"
    if option.workload is not None and not option.workload.is_training:
        return "<p>" + translate("PlanPage", "Goodput is a term of training runs; serving replicas fail one at a time.") + "</p>"
    rows = goodput_rows(option, resilience)
    if not rows:
        return "<p>" + translate("PlanPage", "Failures are turned off (0 per million GPU-hours): no goodput term.") + "</p>"
    title = translate("PlanPage", "Goodput of {0} × {1}").format(option.gpus, _escape(option.gpu.name))
    body = "".join(
        f"<tr><td>{_escape(row.label)}</td><td align='right' nowrap><b>{_escape(row.value)}</b></td>"
        f"<td style='color:#57606a'>{_escape(row.basis)}</td></tr>"
        for row in rows
    )
    included = ""
    if option.effective_wall_time_s is not None:  # a whole run: what its wall time and GPU-hours count
        included = "<p style='color:#57606a'>" + _escape(whole_run_includes()) + "</p>"
    return f"<p><b>{title}</b></p><table cellspacing='0' cellpadding='2'>{body}</table>{included}"


def whole_run_includes() -> str:
    """What a whole run's wall time and GPU-hours with losses count and what they leave out (planner.scale.goodput
    WHOLE_RUN_COUNTS / WHOLE_RUN_NOT_COUNTED; the CLI's line under the goodput term)."""
    return translate(
        "PlanPage",
        "The wall time and GPU-hours with losses count the steady steps at this layout (compute, the "
        "tensor/pipeline/data-parallel communication the step exposes, the optimizer) and the losses above "
        "(failures, checkpoint writes, restarts, rework). Not counted: evaluation, data-loading stalls, other "
        "stages (long-context, post-training), ablations and queueing.",
    )


def goodput_summary(option: PlanOption) -> str:
    """ "97.3% effective time": the headline's word on the goodput term ("" without one)."""
    if option.goodput is None:
        return ""
    return translate("PlanPage", "{0} effective time").format(fmt.percent(option.goodput.effective_fraction, 1))


# -- spot against on demand -------------------------------------------------------------------------------------


def spot_rate_basis(spot: SpotAnswer) -> str:
    """Where the reclaim rate a spot plan takes comes from, in words."""
    if spot.basis == "user-set":
        return translate("PlanPage", "set by you")
    if spot.basis == "quote":
        return translate("PlanPage", "as the spot quotes state it")
    return translate("PlanPage", "no quote states a rate: AWS Spot Instance Advisor's top band, over {0} of instances "
                     "interrupted a month").format(fmt.percent(SPOT_MONTHLY_INTERRUPTED_SHARE))  # fmt: skip


def spot_rows(option: PlanOption, comparison: SpotComparison, spot: SpotAnswer, currency: str) -> list[FigureRow]:
    """Spot against on demand for one option as rows, under the keys of `plan --json`'s "spot"."""
    per_gpu_hour = translate("PlanPage", "{0}/GPU-h")
    spot_price = comparison.spot_per_useful_gpu_hour * comparison.spot_fraction
    on_demand_price = comparison.on_demand_per_useful_gpu_hour * comparison.on_demand_fraction
    of_wall = translate("PlanPage", "{0} of the wall time")
    nodes = translate("PlanPage", "the job's failures and the reclaims of its {0}: every reclaimed node stops the whole job").format(
        plurals().nodes(option.nodes))  # fmt: skip
    pays = translate("PlanPage", "yes") if comparison.pays else translate("PlanPage", "no")
    return [
        FigureRow("spot_interruptions_per_node_hour", translate("PlanPage", "Spot reclaim rate"),
                  translate("PlanPage", "{0} per node-hour").format(fmt.significant(spot.rate_per_node_hour, 2)),
                  spot_rate_basis(spot), spot.rate_per_node_hour),
        FigureRow("spot_per_useful_gpu_hour", translate("PlanPage", "Spot per useful GPU-hour"),
                  per_gpu_hour.format(fmt.money(comparison.spot_per_useful_gpu_hour, currency)),
                  translate("PlanPage", "spot price {0} ÷ {1} effective time").format(
                      per_gpu_hour.format(fmt.money(spot_price, currency)), fmt.percent(comparison.spot_fraction, 1)),
                  comparison.spot_per_useful_gpu_hour),
        FigureRow("on_demand_per_useful_gpu_hour", translate("PlanPage", "On demand per useful GPU-hour"),
                  per_gpu_hour.format(fmt.money(comparison.on_demand_per_useful_gpu_hour, currency)),
                  translate("PlanPage", "on-demand price {0} ÷ {1} effective time").format(
                      per_gpu_hour.format(fmt.money(on_demand_price, currency)),
                      fmt.percent(comparison.on_demand_fraction, 1)), comparison.on_demand_per_useful_gpu_hour),
        FigureRow("spot_effective_fraction", translate("PlanPage", "Effective time on spot"),
                  of_wall.format(fmt.percent(comparison.spot_fraction, 1)), nodes, comparison.spot_fraction),
        FigureRow("on_demand_effective_fraction", translate("PlanPage", "Effective time on demand"),
                  of_wall.format(fmt.percent(comparison.on_demand_fraction, 1)),
                  translate("PlanPage", "the job's failures only"), comparison.on_demand_fraction),
        FigureRow("spot_pays", translate("PlanPage", "Spot pays for this job"), pays,
                  translate("PlanPage", "spot is cheaper per useful GPU-hour"), float(comparison.pays)),
        FigureRow("break_even_nodes", translate("PlanPage", "Largest job at which spot pays"), break_even_text(comparison),
                  translate("PlanPage", "the same job on more or fewer nodes of {0} GPUs").format(
                      max(1, option.gpus // max(1, option.nodes))),
                  float(comparison.break_even_nodes) if comparison.break_even_nodes is not None else None),
    ]  # fmt: skip


def break_even_text(comparison: SpotComparison) -> str:
    if comparison.break_even_nodes is None:
        return translate("PlanPage", "any size")
    return plurals().nodes(comparison.break_even_nodes)


def spot_verdict(comparison: SpotComparison) -> str:
    """ "Spot stops paying above 12 nodes", or that it pays at every size, or not even on one node."""
    if comparison.break_even_nodes is None:
        return translate("PlanPage", "Spot pays at every job size up to {0} nodes.").format(fmt.integer(MAX_NODES_SEARCHED))
    if comparison.break_even_nodes == 0:
        return translate("PlanPage", "Spot does not pay even on one node: on-demand capacity is cheaper per useful GPU-hour.")
    return translate("PlanPage", "Spot stops paying above {0}: a larger job loses more to reclaims than spot saves.").format(
        plurals().nodes(comparison.break_even_nodes))  # fmt: skip


def spot_html(option: PlanOption, call: PlanCall, spot: SpotAnswer) -> str:
    """Spot against on demand for the selected option (the comparison `plan --price-from-quotes --spot` makes
    for its top option), or why there is none."""
    head = "<p><a name='spot'></a><b>" + _escape(translate("PlanPage", "Spot against on demand")) + "</b></p>"
    comparison = spot_comparison_of(option, call, spot.on_demand_prices)
    if comparison is None:
        return head + "<p>" + _escape(spot_missing(option, call, spot)) + "</p>"
    rows = spot_rows(option, comparison, spot, call.currency)
    body = "".join(
        f"<tr><td>{_escape(row.label)}</td><td align='right' nowrap><b>{_escape(row.value)}</b></td>"
        f"<td style='color:#57606a'>{_escape(row.basis)}</td></tr>"
        for row in rows
    )
    return f"{head}<table cellspacing='0' cellpadding='2'>{body}</table><p><b>{_escape(spot_verdict(comparison))}</b></p>"


def spot_missing(option: PlanOption, call: PlanCall, spot: SpotAnswer) -> str:
    """Why the selected option is not compared with on demand."""
    if option.goodput is None:
        return translate("PlanPage", "No goodput term (failures off, or serving): spot is not compared with on demand.")
    if option.gpu.id not in call.prices:
        return translate("PlanPage", "No spot price for {0}: add a spot quote on the Quotes page to compare spot with on demand.").format(
            option.gpu.name)  # fmt: skip
    return translate("PlanPage", "No on-demand price for {0} in {1}: spot is not compared.").format(
        option.gpu.name, call.currency)


# -- mixed pools -----------------------------------------------------------------------------------------------


def named(message: Message, names: Mapping[str, str]) -> str:
    """A planner Message about the pool in the interface language (desktop.messages.render), every GPU id in it
    (the "gpu" value, in nested messages too) shown by its display name."""
    return render(_with_names(message, names))


def _with_names(message: Message, names: Mapping[str, str]) -> Message:
    params: dict[str, object] = {}
    for key, value in message.params.items():
        if key == "gpu" and isinstance(value, str):
            value = names.get(value, value)
        elif isinstance(value, Message):
            value = _with_names(value, names)
        elif isinstance(value, tuple) and all(isinstance(item, Message) for item in value):
            value = tuple(_with_names(item, names) for item in value)
        params[key] = value
    return Message(message.code, params)


def choice_name(choice: PoolChoice, names: Mapping[str, str]) -> str:
    """The planner's name of the way (PoolChoice.label): "the whole pool", "H100 SXM5 80GB alone", ..."""
    return named(choice.label, names)


def _capital(text: str) -> str:
    """A planner clause ("the whole pool ...") at the start of a sentence."""
    return text[:1].upper() + text[1:]


def _sentence(text: str) -> str:
    """A planner clause as a sentence: a capital first letter and a full stop."""
    return _capital(text) + ("" if text.endswith(".") else ".")


def choice_details(choice: PoolChoice, names: Mapping[str, str], stages: bool = True) -> list[str]:
    """What a way does beyond its row, a line each: the planner's explanation (the pipeline's step, separate
    jobs' other GPUs) and, with `stages`, every pipeline stage's type, layers, memory and shape."""
    lines = [_sentence(named(choice.explanation, names))] if choice.explanation is not None else []
    found = choice.pipeline
    if found is None or not stages:
        return lines
    for stage in found.stages:
        parts = [translate("PlanPage", "{0} layers").format(stage.layers)]
        if stage.has_embedding:
            parts.append(translate("PlanPage", "the embedding"))
        if stage.has_head:
            parts.append(translate("PlanPage", "the LM head"))
        lines.append(translate("PlanPage", "Stage {0}: {1} × {2}, {3}, {4} per GPU of {5} (TP {6} × PP {7})").format(
            stage.index + 1, found.layout.tp, names.get(stage.gpu_id, stage.gpu_id), ", ".join(parts),
            fmt.bytes_(stage.need_bytes), fmt.bytes_(stage.capacity_bytes), found.layout.tp, found.layout.pp))  # fmt: skip
    return lines


def choice_gpus(choice: PoolChoice, names: Mapping[str, str]) -> str:
    return " + ".join(f"{count} × {names.get(gpu_id, gpu_id)}" for gpu_id, count in choice.gpus.items())


def pool_reason(comparison: PoolComparison, names: Mapping[str, str]) -> str:
    """Why the best way wins, with the figure it wins by: the planner's reason in the interface language."""
    return _sentence(named(comparison.reason, names))


def pool_details_html(comparison: PoolComparison, names: Mapping[str, str]) -> str:
    """Under the table: what the ways with more to say do (the pipeline's stages, separate jobs), and the mixed
    ways that do not fit, each with the planner's reason."""
    items = []
    for choice in comparison.choices:
        lines = choice_details(choice, names, stages=False)  # the stages are in the row's tooltip
        if lines:
            head = _escape(_capital(choice_name(choice, names)))
            items.append(f"<b>{head}:</b> " + "<br>".join(_escape(line) for line in lines))
    for miss in comparison.not_fitting:
        way = named(Message(f"pool.name.{miss.name}"), names)
        items.append("<b>" + _escape(translate("PlanPage", "{0}: does not fit.").format(_capital(way)))
                     + "</b> " + _escape(_sentence(named(miss.reason, names))))  # fmt: skip
    return "<br>".join(items)


def pool_headline_html(comparison: PoolComparison, names: Mapping[str, str], training: bool) -> str:
    """The pool's answer: the best way with its time and cost, and why it wins."""
    if not comparison.choices:
        return "<b>" + _escape(pool_reason(comparison, names)) + "</b>"
    best = comparison.choices[0]
    figures = [fmt.duration(best.wall_time_s)] if best.wall_time_s is not None else []
    if best.cost is not None:
        figures.append(fmt.money_obj(best.cost))
    head = translate("PlanPage", "Best on the pool: {0} ({1})").format(choice_name(best, names), choice_gpus(best, names))
    if figures:
        head += ", " + ", ".join(figures)
    return f"<b>{_escape(head)}.</b> {_escape(pool_reason(comparison, names))}"


def pool_ceiling_text(comparison: PoolComparison, training: bool) -> str:
    """The bounds (training): no way beats the types run perfectly (ideal_sum_tokens_per_s; the pipeline may beat
    the types' own plans added up, which bound the pooled data-parallel job and are what separate jobs do)."""
    if not training or not comparison.choices:
        return ""
    ideal = translate("PlanPage", "Run perfectly (every GPU doing only its layers at its type's fastest pace: no bubble, "
                      "communication, LM head or optimizer), the types would do {0} tokens/s: no way beats it.")  # fmt: skip
    own = translate("PlanPage", "Their own plans add up to {0} tokens/s (separate jobs together): the whole pool as one "
                    "data-parallel job never beats it.")  # fmt: skip
    return " ".join((ideal.format(fmt.number(comparison.ideal_sum_tokens_per_s, 0)),
                     own.format(fmt.number(comparison.perfect_sum_tokens_per_s, 0))))  # fmt: skip
