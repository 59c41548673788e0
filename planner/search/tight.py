"""Training options that fit only inside the memory headroom: shown as tight, with their margin, not dropped.

The headroom (Constraints.memory_headroom, 10 % by default) is kept free for what the memory model does not
count: the CUDA context, the caching allocator's fragmentation and NCCL's buffers. Published runs sometimes use
layouts that leave less than that (issue 27: Llama 3's 405B layout, for one). When nothing fits within the
headroom on a GPU type, the training search runs again with the whole memory; what fits then is shown, each
option marked tight with the bytes it leaves free, rather than the plan answering "nothing fits". When
something fits within the headroom, the plan is unchanged (a tight option never displaces a safe one).
"""

from __future__ import annotations

import dataclasses

from planner.messages import msg
from planner.search.common import Found, SearchInputs
from planner.search.training import TrainingSearch
from planner.search.types import PlanOption


def with_tight_options(inputs: SearchInputs, found: Found) -> Found:
    """`found` (a training search within the headroom) when it has options or no headroom was kept; else the
    options of the search over the whole memory, each marked tight, with `found`'s exclusions (why nothing fits
    within the headroom) and its advice plus a line saying every option shown is tight."""
    headroom = inputs.constraints.memory_headroom
    if found.options or headroom <= 0:
        return found
    whole = dataclasses.replace(
        inputs, constraints=dataclasses.replace(inputs.constraints, memory_headroom=0.0)
    )
    tight = TrainingSearch(whole).run()
    if not tight.options:
        return found
    within = inputs.constraints.usable_bytes(inputs.gpu)
    advice = msg(
        "advice.only_tight_options", gpu=inputs.gpu.name, headroom_percent=headroom * 100,
        capacity_bytes=within, memory_bytes=inputs.gpu.memory_bytes,
    )  # fmt: skip
    return Found(
        options=[mark_tight(option, headroom) for option in tight.options],
        excluded=found.excluded,
        advice=[*found.advice, advice],
        needed=found.needed,
    )


def mark_tight(option: PlanOption, headroom: float) -> PlanOption:
    """`option` with its margin (the GPU's memory less what the option needs) and a note saying it is tight."""
    need = option.memory.total_bytes
    margin = option.gpu.memory_bytes - need
    note = msg(
        "option.tight_headroom", need_bytes=need, memory_bytes=option.gpu.memory_bytes, margin_bytes=margin,
        headroom_percent=headroom * 100,
    )  # fmt: skip
    return dataclasses.replace(
        option, headroom_margin_bytes=margin, note_messages=(note, *option.note_messages)
    )
