"""What `gpu-advisor plan` prints: the options table with each option's detail lines (error band, MFU, goodput,
serving load, latency against the targets, replica failures, static batching), the pool comparison, the spot
note, and the --json payload."""

from __future__ import annotations

from planner.exports.runners import runtime_framework
from planner.layout_text import layout_label
from planner.messages import format_bytes, format_duration
from planner.money import Money, format_money
from planner.perf.engines import SPECULATIVE_DECODING_NOTE
from planner.scale import Goodput, SpotComparison
from planner.search import PlanOption, PlanResult, Workload
from planner.search.pools import PoolComparison


def result_json(
    result: PlanResult, notes: list[str], spot: SpotComparison | None = None
) -> dict[str, object]:
    payload = result.as_dict()
    payload["notes"] = notes
    payload["spot"] = spot.as_dict() if spot is not None else None
    return payload


def _duration(seconds: float | None) -> str:
    return format_duration(seconds, missing="-")


def print_result(result: PlanResult, workload: Workload, notes: list[str]) -> None:
    training = workload.is_training
    step_name = "step" if training else "per token"
    runtime_head = f" {'runtime':<10}" if training else ""
    print(f"{'#':>2}  {'GPUs':>5} {'GPU':<14} {'strategy':<58}{runtime_head} {'memory/GPU':>11} {step_name:>9} "
          f"{'tokens/s':>11} {'wall':>10} {'GPU-h':>9} {'cost':>12}  confidence")  # fmt: skip
    for rank, option in enumerate(result.options, 1):
        layout = option.layout
        label = layout_label(layout).text if training else serving_label(option)
        cost = format_money(option.cost) if option.cost else "-"
        if option.cost is None and option.cost_per_million_tokens is not None:
            cost = f"{format_money(option.cost_per_million_tokens)}/1M tok"
        hours = f"{option.gpu_hours:,.0f}" if option.gpu_hours is not None else "-"
        runtime = f" {option.runtime or '-':<10}" if training else ""
        print(
            f"{rank:>2}  {option.gpus:>5} {option.gpu.id:<14} {label:<58.58}{runtime} "
            f"{format_bytes(option.memory.total_bytes):>11} {_duration(option.step_time_s):>9} "
            f"{option.tokens_per_s:>11,.0f} {_duration(option.wall_time_s):>10} {hours:>9} {cost:>12}  "
            f"{option.confidence}"
        )
        if not training:
            print(f"      time to first token {_duration(option.ttft_s)}, up to {option.max_concurrent_sequences} "
                  f"sequences fit per replica")  # fmt: skip
        for line in option_details(option):
            print(f"      {line}")
    if not result.options:
        print("No option fits.")
    for item in result.excluded:
        print(f"excluded: {item.family}: {item.reason}")
    for line in result.advice:
        print(f"advice: {line}")
    for line in notes:
        print(f"note: {line}")
    print(f"searched in {result.search_ms:.0f} ms; assumptions: " + "; ".join(result.assumptions[:3]))


def option_details(option: PlanOption) -> list[str]:
    """The lines under an option: its error band on time, tokens/s and cost, and the serving load figures."""
    lines = []
    band = option.time_band
    if band is not None:
        ranges = option.ranges()
        parts = []
        if option.wall_time_s is not None and ranges["wall_time_s_range"]:
            low, high = ranges["wall_time_s_range"]
            parts.append(f"wall {_duration(low)} .. {_duration(high)}")
        if ranges["tokens_per_s_range"]:
            low, high = ranges["tokens_per_s_range"]
            parts.append(f"tokens/s {low:,.0f} .. {high:,.0f}")
        if option.cost is not None and ranges["cost_range"]:
            low, high = ranges["cost_range"]
            parts.append(f"cost {format_money(Money(low, option.cost.currency))} .. "
                         f"{format_money(Money(high, option.cost.currency))}")  # fmt: skip
        parts_text = ", ".join(parts)
        lines.append(f"band: {parts_text} (time {band.low_fraction:+.0%} .. {band.high_fraction:+.0%}, "
                     f"from {band.cases} published {band.basis} runs, {band.confidence})")  # fmt: skip
    lines.extend(note.text for note in option.note_messages if note.code == "option.tight_headroom")
    if option.runtime is not None:
        reduction = [note.text for note in option.note_messages if note.code.startswith("option.gradient_reduction")]
        lines.append(f"runtime {option.runtime}: {runtime_framework(option.runtime)}")
        lines.extend(note.text for note in option.note_messages if note.code == "option.runtime_choice")
        lines.extend(reduction)
    if option.mfu is not None:
        lines.append(f"MFU {option.mfu:.0%} of the dense peak")
    if option.goodput is not None:
        lines.extend(goodput_lines(option, option.goodput))
    if option.per_user_tokens_per_s is not None:
        users = option.concurrent_users or option.batch_per_replica or 0
        queued = max(0, users - (option.batch_per_replica or users))
        wait = f", {queued} queued" if queued else ""
        lines.append(
            f"per user {option.per_user_tokens_per_s:,.1f} tokens/s (TPOT {_duration(option.tpot_s)}); aggregate "
            f"{option.tokens_per_s:,.0f} tokens/s over {option.layout.dp} replica(s) x {users} users "
            f"({option.batch_per_replica} decoding at once{wait}); prefill "
            f"{(option.prefill_share or 0.0):.0%} of step time; engine {option.engine}; {SPECULATIVE_DECODING_NOTE}"
        )
    if option.latency is not None:
        lines.append(latency_line(option))
    failure = option.replica_failure
    if failure is not None:
        target = ""
        if failure.meets_target_one_down is not None:
            target = ": meets the target" if failure.meets_target_one_down else ": misses the target"
        lines.append(
            f"replica failures: {failure.failures_per_day:.3g} a day over {failure.replicas} replica(s) of "
            f"{failure.replica_gpus} GPU(s), each down {_duration(failure.restart_s)} ({failure.down_share * 100:.2g}% of "
            f"its time; some replica down {failure.any_down_share:.1%}); with one down "
            f"{failure.tokens_per_s_one_down:,.0f} tokens/s{target}"
        )
    static = option.static_batching
    if static is not None:
        lines.append(
            f"static batching would lose {static.lost_fraction:.0%} of decode slots to the output-length spread "
            f"(1 .. {static.max_output_len} tokens): {static.static_tokens_per_s:,.0f} vs "
            f"{static.continuous_tokens_per_s:,.0f} tokens/s continuous per replica"
        )
    return lines


def serving_label(option: PlanOption) -> str:
    """A serving option's layout: replicas of tp x pp, or the two pools of a disaggregated one."""
    layout = option.layout
    pools = option.latency.pools if option.latency is not None else None
    if pools is not None:
        return (f"prefill {pools.prefill_replicas} x TP {pools.prefill_tp} + decode {pools.decode_replicas} x TP "
                f"{pools.decode_tp}, batch {option.batch_per_replica}")  # fmt: skip
    return f"TP {layout.tp}, PP {layout.pp}, {layout.dp} replica(s), batch {option.batch_per_replica}"


def latency_line(option: PlanOption) -> str:
    """TTFT p50 / p90 (prefill and queue), TPOT and the p90 inter-token latency, and the targets' verdict."""
    latency = option.latency
    assert latency is not None
    workload = option.workload
    if latency.overloaded:
        ttft = "TTFT unbounded (requests arrive faster than the replicas finish them)"
    else:
        ttft = (f"TTFT p50 {_duration(latency.ttft_p50_s)}, p90 {_duration(latency.ttft_p90_s)} (prefill "
                f"{_duration(latency.prefill_s)}, queue {_duration(latency.queue_s)})")  # fmt: skip
    text = f"{ttft}; TPOT {_duration(option.tpot_s)}, inter-token p90 {_duration(latency.itl_p90_s)}"
    if latency.pools is not None:
        text += f"; KV cache to the decode pool in {_duration(latency.pools.transfer_s)}"
    if latency.request_rate:
        text += f"; {latency.request_rate:,.3g} requests/s"
    if workload is not None and (workload.has_latency_targets or workload.tokens_per_second):
        targets = []
        if workload.ttft_target_s is not None:
            targets.append(f"TTFT p90 <= {_duration(workload.ttft_target_s)}")
        if workload.tpot_target_s is not None:
            targets.append(f"TPOT <= {_duration(workload.tpot_target_s)}")
        if workload.tokens_per_second:
            targets.append(f">= {workload.tokens_per_second:,.0f} tokens/s")
        verdict = "meets" if latency.meets else f"MISSES (x{latency.miss:.2f} of the worst target)"
        text += f"; targets {', '.join(targets)}: {verdict}"
    return text


def goodput_lines(option: PlanOption, term: Goodput) -> list[str]:
    """The goodput term in two lines: the effective time and the run with losses, then the checkpoint figures."""
    run = []
    if term.expected_interruptions is not None:
        run.append(f"{term.expected_interruptions:,.0f} interruptions expected")
    if option.effective_wall_time_s is not None:
        run.append(f"wall {_duration(option.effective_wall_time_s)}")
    if option.effective_gpu_hours is not None:
        run.append(f"{option.effective_gpu_hours:,.0f} GPU-h")
    if option.effective_cost is not None:
        run.append(format_money(option.effective_cost))
    spot = f", spot {term.spot_interruptions_per_hour:.3g}/h" if term.spot_interruptions_per_hour else ""
    head = (
        f"goodput {term.effective_fraction:.1%} effective time (one interruption every {_duration(term.job_mtbf_s)}: "
        f"failures {term.failures_per_hour:.3g}/h{spot})"
    )
    if run:
        head += ": with losses " + ", ".join(run)
    checkpoint = term.checkpoint
    interval = _duration(term.interval_s) if term.interval_s is not None else "never"
    lines = [
        head,
        f"checkpoint {format_bytes(checkpoint.bytes)} written in {_duration(checkpoint.write_s)} "
        f"({checkpoint.storage.name}) every {interval} of work ({term.interval_basis}), restart "
        f"{_duration(checkpoint.restart_s)}; lost: restarts {term.restart_share:.1%}, checkpoints "
        f"{term.checkpoint_share:.1%}, rework {term.rework_share:.1%}",
    ]
    if run:
        lines.append(WHOLE_RUN_INCLUDES)
    return lines


# What a whole run's wall time and GPU-hours with losses count, and what no term of the model counts (issue 27):
# a published figure that includes these (a model card's "total GPU time") is longer than the plan by them.
WHOLE_RUN_INCLUDES = (
    "the run with losses counts: the steady steps at this layout (compute, the tensor/pipeline/data-parallel "
    "communication the step exposes, the optimizer) and the losses above (failures, checkpoint writes, restarts, "
    "rework); not counted: evaluation, data-loading stalls, other stages (long-context, post-training), ablations "
    "and queueing"
)


def print_pool(comparison: PoolComparison, notes: list[str], serving: bool = False) -> None:
    """The pool comparison: one line per way to run the job, fastest first, and why the first wins."""
    share = "uptime" if serving else "goodput"
    extra = f" {'one down':>10} {'target':>7}" if serving else ""
    print(
        f"{'way':<24} {'GPUs':<34} {'TP x PP':>7} {'tokens/s':>11} {share:>8} {'wall':>10} {'cost':>14}{extra}"
    )
    for choice in comparison.choices:
        gpus = " + ".join(f"{count} x {gpu}" for gpu, count in choice.gpus.items())
        cost = format_money(choice.cost) if choice.cost else "-"
        line = (f"{choice.name:<24} {gpus:<34.34} {f'{choice.tp} x {choice.pp}':>7} {choice.tokens_per_s:>11,.0f} "
                f"{choice.effective_fraction:>8.1%} {_duration(choice.wall_time_s):>10} {cost:>14}")  # fmt: skip
        if serving:
            target = {None: "-", True: "met", False: "missed"}[choice.meets_target]
            line += f" {choice.tokens_per_s_one_down or 0:>10,.0f} {target:>7}"
        print(line)
    for choice in comparison.choices:
        if choice.explanation is not None:
            print(f"{choice.name}: {choice.explanation.text}")
    for miss in comparison.not_fitting:
        print(f"{miss.name}: {miss.reason.text}")
    print(f"best: {comparison.best or '-'}: {comparison.reason.text}")
    if not serving and comparison.choices:
        print(f"the types' own plans add up to {comparison.perfect_sum_tokens_per_s:,.0f} tokens/s: no pooled "
              "data-parallel job beats it; run perfectly (every GPU on its layers alone: no bubble, communication "
              f"or LM head) the types would do {comparison.ideal_sum_tokens_per_s:,.0f} tokens/s: no mixed way "
              "beats that")  # fmt: skip
    for line in notes:
        print(f"note: {line}")


def spot_pays_limit(break_even_nodes: int | None, nodes: str) -> str:
    """How large a job spot still pays for, in English: `nodes` names the unit ("nodes", "nodes of 8 GPUs")."""
    if break_even_nodes is None:
        return "at every job size"
    if break_even_nodes == 0:
        return "not even on one node"
    return f"up to {break_even_nodes:,} {nodes} per job"


def spot_note(spot: SpotComparison, currency: str) -> str:
    verdict = "spot pays" if spot.pays else "spot does not pay"
    limit = spot_pays_limit(spot.break_even_nodes, "nodes")
    return (
        f"{verdict} for option 1: {format_money(Money(spot.spot_per_useful_gpu_hour, currency))} against "
        f"{format_money(Money(spot.on_demand_per_useful_gpu_hour, currency))} per useful GPU-hour on demand "
        f"({spot.spot_fraction:.1%} vs {spot.on_demand_fraction:.1%} effective time); "
        f"spot pays {limit} (each reclaimed node stops the whole job)"
    )
