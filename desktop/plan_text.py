"""The Plan page's words: pure text builders from the plan state and the resolved call to HTML and plain text.

No widgets and no state of their own: each function takes what it words (the PlanState, the PlanCall, an
option) and returns a string in the interface language (QCoreApplication.translate, context "PlanPage", so
the translations are the Plan page's), with numbers through desktop.fmt. The view (desktop/pages/plan.py)
puts the strings into its labels; tests call these directly.

The headline always names the planner's best fitting option (PlanState.best), never the selected row; the
selected row has its own line. "Nothing fits" is said only when no option of the result fits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from desktop import fmt
from desktop.messages import advice_lines, excluded_rows, note_lines
from desktop.plan_request import PlanCall, render_note
from desktop.plan_scale_text import goodput_summary
from desktop.plurals import plurals
from desktop.qmodels.plan_options import option_strategy_text

if TYPE_CHECKING:
    from desktop.plan_state import PlanInputs, PlanState
    from planner.models import ModelSpec
    from planner.search import PlanOption, PlanResult
    from planner.uncertainty import ErrorBand

translate = QCoreApplication.translate


def escape(text: object) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def time_band(option: object) -> ErrorBand | None:
    """The option's cross-validated time band, when the planner gives one (PlanOption.time_band)."""
    return getattr(option, "time_band", None)


def _what(option: PlanOption) -> str:
    return translate("PlanPage", "{0} × {1}").format(option.gpus, escape(option.gpu.name))


def served_users(option: PlanOption) -> int:
    """Sequences decoded at once over all replicas: replicas x sequences per replica (at most)."""
    per_replica = option.batch_per_replica or option.layout.micro_batch
    return int(option.layout.dp) * int(per_replica or 1)


def option_summary(option: PlanOption, training: bool, users: int | None) -> str:
    """One option in words: GPUs, strategy, memory against the usable memory, time (with its band) and cost."""
    memory = translate("PlanPage", "{0} of {1} per GPU").format(
        fmt.gib(option.memory.total_bytes), fmt.gib(option.gpu.memory_bytes)
    )
    strategy = escape(option_strategy_text(option))
    if not option.fits:
        does_not_fit = translate("PlanPage", "Does not fit")
        return f"<span style='color:#cf222e'>{does_not_fit}</span>: {_what(option)}, {strategy}, {memory}"
    band = time_band(option)
    if training:
        # with losses (failures, checkpoints, restarts), as the planner ranks and the CLI's goodput line says
        timing = translate("PlanPage", "finishes in {0}").format(
            fmt.with_band(option.effective_wall_time_s, band, fmt.duration)
        )
        if option.goodput is not None:
            timing += ", " + goodput_summary(option)
        accumulation = option.gradient_accumulation_steps or 1
        strategy += ", " + translate("PlanPage", "micro-batch {0}, {1}").format(
            option.layout.micro_batch, plurals().accumulation_steps(accumulation)
        )
        if option.runtime is not None:
            strategy += ", " + translate("PlanPage", "runtime {0}").format(option.runtime)
    else:
        replicas, per_replica = option.layout.dp, option.batch_per_replica or 1
        users_text = fmt.integer(users if users is not None else served_users(option))
        throughput = fmt.with_band(
            option.tokens_per_s, band.inverse() if band else None, lambda v: fmt.number(v, 0)
        )
        timing = translate("PlanPage",
            "{0} tokens/s for {1} users ({2} × up to {3} per replica), first token after {4} (a {6}-token "
            "prompt's prefill, the wait for a slot and the request overhead), then {5} per token"
        ).format(
            throughput, users_text, replicas, per_replica, fmt.duration(option.ttft_s),
            fmt.duration(option.tpot_s or option.step_time_s), fmt.integer(option.workload.prompt_len if option.workload is not None else 0),
        )  # fmt: skip
    cost = ""
    effective_cost = option.effective_cost
    if effective_cost is not None and training:
        cost = ", " + translate("PlanPage", "costs {0}").format(
            fmt.with_band(effective_cost.amount, band, _money(effective_cost.currency))
        )
    elif option.cost_per_million_tokens is not None:
        cost = ", " + translate("PlanPage", "{0} per 1M tokens").format(
            fmt.money_obj(option.cost_per_million_tokens)
        )
    fits = translate("PlanPage", "fits")
    return (
        f"{_what(option)}, {strategy} — <span style='color:#1a7f37'>{fits}</span> ({memory}), {timing}{cost}"
    )


def _money(currency: str) -> Callable[[float | None], str]:
    """A formatter of amounts in `currency`, for fmt.with_band."""
    return lambda amount: fmt.money(amount, currency)


def headline_html(state: PlanState) -> str:
    """The planner's answer in one paragraph: the best fitting option, an error, or that nothing fits."""
    if state.error:
        return "<b>" + translate("PlanPage", "No plan yet.") + "</b> " + escape(state.error)
    if state.result is None:
        return "<b>" + translate("PlanPage", "Planning…") + "</b>"
    best = state.best
    if best is None:
        return (
            "<b>"
            + translate("PlanPage", "Nothing fits these limits.")
            + "</b> "
            + translate("PlanPage", "See the advice below.")
        )
    inputs = state.inputs
    users = None if inputs.is_training else inputs.concurrent_users
    summary = option_summary(best, inputs.is_training, users)
    best_text = translate("PlanPage", "Best")
    return f"<b>{best_text}:</b> {summary}"


def selected_html(state: PlanState) -> str:
    """What the selected row is, when it is not the best one ("" when the best is selected)."""
    option, best = state.selected_option, state.best
    if option is None or option is best:
        return ""
    inputs = state.inputs
    users = None if inputs.is_training else inputs.concurrent_users
    row = translate("PlanPage", "Selected, row {0}:").format(state.selected + 1)
    return f"<b>{row}</b> {option_summary(option, inputs.is_training, users)}"


def limits_text(inputs: PlanInputs, result: PlanResult | None, currency: str) -> str:
    """How many fitting options the budget and the deadline hid, and the nearest one each hid, in words."""
    if result is None or (inputs.budget_amount is None and inputs.deadline_days is None):
        return ""
    fitting = [o for o in result.frontier if o.fits]
    parts = []
    if inputs.budget_amount is not None:
        # the planner holds the budget and the deadline against the figures with losses (planner.search.ranking)
        costs = {id(o): o.effective_cost for o in fitting}
        over = [o for o in fitting if (c := costs[id(o)]) is not None and c.amount > inputs.budget_amount]
        if over:
            cheapest = min(over, key=lambda o: getattr(costs[id(o)], "amount", 0.0))
            parts.append(
                translate("PlanPage", "{0} over the budget of {1} (the cheapest of them costs {2} on {3} × {4})").format(
                    len(over), fmt.money(inputs.budget_amount, currency), fmt.money_obj(costs[id(cheapest)]),
                    cheapest.gpus, cheapest.gpu.name,
                )
            )  # fmt: skip
        unpriced = [o for o in fitting if o.cost is None]
        if unpriced and inputs.is_training:
            parts.append(
                translate("PlanPage", "the budget cannot check {0} without a price").format(len(unpriced))
            )
    if inputs.deadline_days is not None:
        deadline_s = inputs.deadline_days * 86400
        late = [o for o in fitting if (o.effective_wall_time_s or 0.0) > deadline_s]
        if late:
            fastest = min(late, key=lambda o: o.effective_wall_time_s or 0.0)
            parts.append(
                translate("PlanPage", "{0} past the deadline of {1} (the fastest of them takes {2} on {3} × {4})").format(
                    len(late), fmt.duration(deadline_s), fmt.duration(fastest.effective_wall_time_s), fastest.gpus,
                    fastest.gpu.name,
                )
            )  # fmt: skip
    if not parts:
        return ""
    return translate("PlanPage", "Options hidden by your limits: {0}.").format("; ".join(parts))


def advice_html(state: PlanState, call: PlanCall | None) -> str:
    """The planner's advice, where each price came from, the call's notes and the selected option's notes."""
    lines = advice_lines(state.result)  # the planner's messages, in the interface language
    if call is not None:
        names = {gpu.id: gpu.name for gpu in call.gpus}
        for gpu_id, source in call.price_sources.items():
            lines.append(
                translate("PlanPage", "Price for {0}: {1}").format(
                    names.get(gpu_id, gpu_id), render_note(source)
                )
            )
        lines += [render_note(note) for note in call.notes]
    option = state.selected_option
    if option is not None:
        lines += note_lines(option)
    if not lines:
        return ""
    return "<ul>" + "".join(f"<li>{escape(line)}</li>" for line in lines) + "</ul>"


def excluded_html(result: PlanResult | None) -> str:
    excluded = list(result.excluded) if result is not None else []
    if not excluded:
        return "<p>" + translate("PlanPage", "Nothing was excluded.") + "</p>"
    rows = "".join(f"<li><b>{escape(what)}</b>: {escape(why)}</li>" for what, why in excluded_rows(excluded))
    return f"<ul>{rows}</ul>"


def model_summary(model: ModelSpec) -> str:
    """ "Llama 3.1 70B: 70.6 billion parameters, 80 layers, context 131,072 tokens"."""
    parts = [
        translate("PlanPage", "{0}: {1} billion parameters").format(
            getattr(model, "display_name", model.name), fmt.number(model.total_params / 1e9, 1)
        )
    ]
    if model.is_moe:
        parts.append(
            translate("PlanPage", "{0} billion active").format(fmt.number(model.active_params / 1e9, 1))
        )
    if getattr(model, "unbounded_context", False):  # a pure state-space stack: no attention, no positions
        parts.append(translate("PlanPage", "{0} layers, no context limit (no attention layers)").format(model.layers))
    else:
        parts.append(
            translate("PlanPage", "{0} layers, context {1} tokens").format(
                model.layers, fmt.integer(model.max_context)
            )
        )
    return ", ".join(parts)


def step_prompts() -> Sequence[str]:
    """The guided flow's five questions, in words a newcomer understands."""
    return (
        translate(
            "PlanPage",
            "What will the model do: serve users, or train (from scratch, fully, or with adapters)?",
        ),
        translate(
            "PlanPage",
            "Which model? Pick a preset, give a size in billions of parameters, or open its config.",
        ),
        translate(
            "PlanPage",
            "How long are the sequences and how large the batch? How much to train, or how fast to serve?",
        ),
        translate(
            "PlanPage",
            "Which GPUs may it run on? Measured machines, catalog GPUs or offers you have quotes for.",
        ),
        translate(
            "PlanPage",
            "Any limits: GPU count, budget, deadline? The results on the right follow every answer.",
        ),
    )


def document_title(state: PlanState) -> str:
    name = state.plan_name or translate("PlanPage", "Unsaved plan")
    return f"{name}{' *' if state.dirty else ''}"
