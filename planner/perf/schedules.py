"""Pipeline schedules: the bubble of 1F1B and of interleaved 1F1B, and the micro-batches each stage holds.

Narayanan et al. 2021 (arXiv 2104.04473), section 2.2: with p stages and m micro-batches per step, 1F1B (and
GPipe) idle for (p - 1) micro-batch times of a stage, a bubble fraction (p - 1) / m of the ideal time; with v
model chunks per rank (interleaved 1F1B) the bubble shrinks to (p - 1) / (v m), at v times the point-to-point
sends. In flight, 1F1B holds at most p micro-batches' activations on the first stage (the memory model's
concern); interleaving raises that by (1 + (p - 1) / (v p)) (the same paper, section 2.2.2).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Schedule:
    """1F1B when virtual_stages is 1, interleaved 1F1B otherwise."""

    stages: int
    microbatches: int
    virtual_stages: int = 1

    @property
    def name(self) -> str:
        return "1F1B" if self.virtual_stages <= 1 else f"interleaved 1F1B (v={self.virtual_stages})"

    @property
    def bubble_over_busy(self) -> float:
        """Idle time over the ideal (busy) time: (p - 1) / (v m)."""
        if self.stages <= 1:
            return 0.0
        return (self.stages - 1) / (self.virtual_stages * self.microbatches)

    @property
    def p2p_transfers_on_critical_path(self) -> int:
        """Sends a micro-batch's activations (forward) and gradients (backward) make through the stages that
        nothing hides: fill and drain, 2 (p - 1) per chunk round."""
        if self.stages <= 1:
            return 0
        return 2 * (self.stages - 1) * self.virtual_stages

    @property
    def in_flight_microbatches(self) -> float:
        """Micro-batches whose activations the first stage holds at the peak."""
        if self.stages <= 1:
            return 1.0
        held = min(self.stages, self.microbatches)
        if self.virtual_stages > 1:
            return held * (1 + (self.stages - 1) / (self.virtual_stages * self.stages))
        return float(held)


def pipeline_bubble_fraction(pp: int, microbatches: int, virtual_stages: int = 1) -> float:
    """Idle share of a whole step of a 1F1B pipeline: (p-1) / (v m + p - 1) (Narayanan et al. 2021)."""
    if pp <= 1:
        return 0.0
    return (pp - 1) / (virtual_stages * max(1, microbatches) + pp - 1)
