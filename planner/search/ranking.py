"""How options are ranked and held against the deadline and the budget."""

from __future__ import annotations

from planner.errors import UserError
from planner.messages import Message, msg
from planner.search.types import Constraints, PlanOption
from planner.vocabulary import RankBy


def rank_key(option: PlanOption, rank_by: RankBy) -> tuple[float, ...]:
    """Smaller is better. Time: the run's wall time (or time per token); cost: money, else GPU-hours per token.
    Training counts the goodput term: time and money per useful token (lost work and restarts included)."""
    useful = option.effective_fraction
    useful_rate = (option.tokens_per_s or 0.0) * useful  # 0 when failures leave no useful work at all
    per_token_time = 1.0 / useful_rate if useful_rate > 0 else float("inf")
    if option.workload is not None and not option.workload.is_training:
        per_token_time = option.tpot_s or per_token_time
    gpu_seconds_per_token = option.gpus / useful_rate if useful_rate > 0 else float("inf")
    if rank_by == RankBy.TIME:
        return (per_token_time, option.gpus)
    money = None
    if option.cost_per_million_tokens:
        money = option.cost_per_million_tokens.amount / useful if useful > 0 else float("inf")
    primary = money if money is not None else gpu_seconds_per_token
    return (primary, per_token_time, option.gpus)


def meets(option: PlanOption, constraints: Constraints) -> bool:
    """Whether the option keeps the deadline and the budget, lost work and restarts included (UserError when the
    budget's currency differs)."""
    wall, cost = option.effective_wall_time_s, option.effective_cost
    if constraints.deadline_s is not None and wall is not None:
        if wall > constraints.deadline_s:
            return False
    if constraints.budget is not None and cost is not None:
        if cost.currency != constraints.budget.currency:
            raise UserError.of(
                msg(
                    "error.budget_currency",
                    budget_currency=constraints.budget.currency,
                    price_currency=cost.currency,
                )
            )
        if cost.amount > constraints.budget.amount:
            return False
    return True


def constraint_advice(options: list[PlanOption]) -> Message:
    """What the fastest and the cheapest option would take, when none meets the deadline and budget."""
    fastest = min(options, key=lambda o: rank_key(o, RankBy.TIME))
    cheapest = min(options, key=lambda o: rank_key(o, RankBy.COST))
    sentences = []
    if fastest.effective_wall_time_s is not None:
        sentences.append(
            msg(
                "advice.fastest",
                wall_time_s=fastest.effective_wall_time_s,
                gpus=fastest.gpus,
                gpu=fastest.gpu.name,
            )
        )
    if cheapest.effective_cost is not None:
        sentences.append(
            msg("advice.cheapest", cost=cheapest.effective_cost, gpus=cheapest.gpus, gpu=cheapest.gpu.name)
        )
    return msg("advice.limits_not_met", sentences=tuple(sentences))
