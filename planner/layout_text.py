"""What people call a parallel layout: its sharding family and a short label, as planner.messages.Message.

The search, the CLI and the messages that quote a layout ("needs 178 GiB per GPU (ZeRO-3/FSDP, TP 2, DP 32,
micro-batch 1, 64 GPUs)") all word it through these functions; the desktop renders the same codes in the
interface language.
"""

from __future__ import annotations

from planner.messages import Message, msg
from planner.vocabulary import Layout, Offload, Recompute, ZeroStage


def family_message(layout: Layout) -> Message:
    """The sharding family: DDP, ZeRO-1/2, ZeRO-3/FSDP, with the offload if any (codes "family.*")."""
    if layout.zero == ZeroStage.NONE:
        name = msg("family.ddp")
    elif layout.zero == ZeroStage.WEIGHTS:
        name = msg("family.zero3")
    else:
        name = msg("family.zero", zero=int(layout.zero))
    if layout.offload == Offload.OPTIMIZER:
        return msg("family.optimizer_offload", family=name)
    if layout.offload == Offload.ALL:
        return msg("family.all_offload", family=name)
    return name


def layout_label(layout: Layout) -> Message:
    """A short description: "ZeRO-1, TP 8, PP 2, DP 32, selective recompute, micro-batch 1"."""
    parts = [family_message(layout)]
    for code, degree in (("layout.tp", layout.tp), ("layout.pp", layout.pp), ("layout.ep", layout.ep)):
        if degree > 1:
            parts.append(msg(code, degree=degree))
    parts.append(msg("layout.dp", degree=layout.dp))
    if layout.recompute == Recompute.SELECTIVE:
        parts.append(msg("layout.selective_recompute"))
    elif layout.recompute == Recompute.FULL:
        parts.append(msg("layout.full_recompute"))
    parts.append(msg("layout.micro_batch", micro_batch=layout.micro_batch))
    return msg("layout.label", parts=tuple(parts))


def sharding_hint(layout: Layout) -> str:
    """The sharding a layout adds to plain data parallel, in the names every framework uses ("ZeRO-3/FSDP +
    TP 2"); these are proper names, the same in every language."""
    parts = []
    if layout.zero == ZeroStage.WEIGHTS:
        parts.append("ZeRO-3/FSDP")
    if layout.tp > 1:
        parts.append(f"TP {layout.tp}")
    if layout.pp > 1:
        parts.append(f"PP {layout.pp}")
    if layout.zero in (ZeroStage.OPTIMIZER, ZeroStage.GRADIENTS):
        parts.append(f"ZeRO-{int(layout.zero)}")
    return " + ".join(parts) or "ZeRO-3/FSDP"
