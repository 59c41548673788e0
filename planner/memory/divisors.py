"""How a parallel layout divides one model's memory: the tensor, pipeline, data and expert parallel degrees and the ZeRO stage as divisors."""

from __future__ import annotations

from dataclasses import dataclass

from planner.models import ModelSpec
from planner.vocabulary import Layout


@dataclass(frozen=True, slots=True)
class Divisors:
    """How one layout divides the model among the ranks (from tp and ep; dp is read where it is used).

    expert_divisor: expert tensor parallel 1 when ep > 1 (each expert whole on one rank, Megatron-Core's
    recommendation for fine-grained MoE); with ep 1 experts are split over tp like every other matrix.
    """

    tp: int
    expert_divisor: int
    kv_heads_per_rank: int


def divisors_of(model: ModelSpec, layout: Layout) -> Divisors:
    expert_divisor = layout.ep if layout.ep > 1 else layout.tp
    return Divisors(layout.tp, expert_divisor, max(1, model.kv_heads // layout.tp))
