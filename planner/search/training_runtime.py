"""The runtime a training option runs in where none is pinned: the search's fastest layout at a GPU count is
estimated exactly in every runtime that can run it (planner.memory.runtimes.candidate_runtimes: DeepSpeed or
FSDP2 for ZeRO-2/3 data parallel, DDP or DeepSpeed's ZeRO-0 for plain data parallel, DeepSpeed AutoTP or
torchtitan for tensor parallel without a pipeline), each with its own per-GPU peak (planner.memory), step time
(its gradient reduction, planner.perf.gradient_reduction) and checkpoint (the goodput term, planner.scale), and
the one that fits and is best for the objective is the option's. At one GPU count and GPU type every objective
ranks alike: the cost is the price x the GPUs x the effective wall time, and the cost per token the same over
the tokens (planner.search.ranking.rank_key), so the option with the most useful tokens per second is best for
time, cost and cost per token; a tie goes to the default runtime (chosen_runtime's order). The search itself
sizes and times every layout in the default runtime (its memory fits are shared across GPU types and its
activation classes kept apart: planner.search.training), so a layout that only another runtime fits is not
found; every option shows each runtime weighed for it (PlanOption.runtime_candidates, a note)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from planner.messages import Message, msg
from planner.search.ranking import rank_key
from planner.search.types import PlanOption, RuntimeCandidate
from planner.vocabulary import RankBy


def choose_runtime(weighed: Sequence[tuple[str, PlanOption | None, RuntimeCandidate]]) -> PlanOption | None:
    """The option of the best runtime that fits among `weighed` (each runtime's option, None where its layout
    is refused or does not fit, and its RuntimeCandidate, in the order weighed: the default first), with every
    candidate attached and, where there was a choice, a note naming it; None where none fits."""
    fitting = [(runtime, option) for runtime, option, _ in weighed if option is not None]
    if not fitting:
        return None
    runtime, best = min(fitting, key=lambda pair: rank_key(pair[1], RankBy.TIME))  # the first of a tie
    candidates = tuple(
        dataclasses.replace(candidate, chosen=name == runtime) for name, _, candidate in weighed
    )
    notes = best.note_messages
    if len(candidates) > 1:
        notes = (*notes, runtime_choice_message(runtime, candidates))
    return dataclasses.replace(best, runtime_candidates=candidates, note_messages=notes)


def runtime_choice_message(runtime: str, candidates: Sequence[RuntimeCandidate]) -> Message:
    """The note that says which runtime an option runs in and what each weighed one would have taken."""
    parts = []
    for candidate in candidates:
        if candidate.per_gpu_bytes is None:
            parts.append(msg("option.runtime_candidate_refused", runtime=candidate.runtime))
        elif not candidate.fits:
            parts.append(msg(
                "option.runtime_candidate_too_big", runtime=candidate.runtime,
                need_bytes=candidate.per_gpu_bytes,
            ))  # fmt: skip
        else:
            parts.append(msg(
                "option.runtime_candidate", runtime=candidate.runtime, need_bytes=candidate.per_gpu_bytes,
                step_time_s=candidate.step_time_s, useful_tokens_per_s=candidate.useful_tokens_per_s,
            ))  # fmt: skip
    return msg("option.runtime_choice", runtime=runtime, candidates=tuple(parts))
