"""What people call a parallel layout: its sharding family and a short label, as planner.messages.Message
(family_message and layout_label live in planner.messages, which renders a layout in a message's text and must
not import back), and the sharding a layout adds in the names every framework uses (sharding_hint).

The search, the CLI and the messages that quote a layout ("needs 178 GiB per GPU (ZeRO-3/FSDP, TP 2, DP 32,
micro-batch 1, 64 GPUs)") all word it through these functions; the desktop renders the same codes in the
interface language.
"""

from __future__ import annotations

from planner.messages import family_message, layout_label
from planner.vocabulary import Layout, ZeroStage

__all__ = ["family_message", "layout_label", "sharding_hint"]


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
