"""Goodput: the share of a training run's wall time that makes progress, once failures, checkpoints and restarts
are counted, and the optimal checkpoint interval.

A synchronous job on `gpus` GPUs is interrupted at rate gpus x the per-GPU-hour failure rate (planner.scale.
failures) plus, on spot capacity, nodes x the reclaim rate per instance-hour (any reclaimed node stops the job).
With mean time between interruptions M, a checkpoint write of delta seconds every tau seconds of work and a
restart of R seconds, Daly's model of the expected wall time for T_s seconds of failure-free work is

    T_w = M e^(R/M) (e^((tau + delta)/M) - 1) T_s / tau

(J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps", Future Generation
Computer Systems 22(3), 2006, eq. 15), and the interval that minimises it is Daly's higher-order optimum
(eq. 37), which reduces to Young's sqrt(2 delta M) for a short write (J. W. Young, "A first order approximation
to the optimum checkpoint interval", CACM 17(9), 1974). The effective fraction T_s / T_w does not depend on T_s,
so it applies to throughput as well as to a whole run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from planner.errors import UserError
from planner.messages import msg
from planner.scale.checkpoints import CheckpointCost


@dataclass(frozen=True, slots=True)
class Resilience:
    """What the user says about failures and checkpoints (None: the published default).

    failures_per_gpu_hour: job interruptions per GPU-hour (0 turns the goodput term off); storage: "nvme" | "pfs";
    checkpoint_bytes_per_s_per_gpu: the user's storage write rate per GPU (overrides storage); restart_s: detection
    + rescheduling + reload; checkpoint_interval_s: a fixed interval instead of Daly's optimum;
    spot_interruptions_per_node_hour: reclaims per instance-hour on spot capacity (0: not spot).
    """

    failures_per_gpu_hour: float | None = None
    storage: str = "pfs"
    checkpoint_bytes_per_s_per_gpu: float | None = None
    restart_s: float | None = None
    checkpoint_interval_s: float | None = None
    spot_interruptions_per_node_hour: float = 0.0

    def __post_init__(self) -> None:
        for what, value in (
            ("failure rate", self.failures_per_gpu_hour), ("restart time", self.restart_s),
            ("spot interruption rate", self.spot_interruptions_per_node_hour),
        ):  # fmt: skip
            if value is not None and not (math.isfinite(value) and value >= 0):
                raise UserError.of(msg("error.must_not_be_negative", what=what))
        if self.checkpoint_interval_s is not None and not self.checkpoint_interval_s > 0:
            raise UserError.of(
                msg("error.must_be_positive", what="checkpoint interval", value=self.checkpoint_interval_s)
            )


def daly_interval_s(write_s: float, mtbf_s: float) -> float:
    """Daly's higher-order optimum checkpoint interval (seconds of work between checkpoints), eq. 37."""
    if write_s <= 0:
        return 0.0
    if write_s >= 2 * mtbf_s:
        return mtbf_s
    ratio = write_s / (2 * mtbf_s)
    return math.sqrt(2 * write_s * mtbf_s) * (1 + math.sqrt(ratio) / 3 + ratio / 9) - write_s


def young_interval_s(write_s: float, mtbf_s: float) -> float:
    """Young's first-order optimum sqrt(2 delta M)."""
    return math.sqrt(2 * write_s * mtbf_s)


def wall_time_ratio(interval_s: float, write_s: float, restart_s: float, mtbf_s: float) -> float:
    """T_w / T_s of Daly's model (1 without interruptions)."""
    if math.isinf(mtbf_s):
        return 1.0
    try:
        if interval_s <= 0:  # continuous checkpoints: free ones lose only restarts
            return math.exp(restart_s / mtbf_s) if write_s <= 0 else math.inf
        return (
            mtbf_s * math.exp(restart_s / mtbf_s) * math.expm1((interval_s + write_s) / mtbf_s) / interval_s
        )
    except OverflowError:  # restarts or intervals of many MTBFs: the job never finishes (time fraction 0)
        return math.inf


# What a run's wall time and GPU-hours with losses count, and what no term of the model counts (a published
# figure that includes the second list, a model card's "total GPU time", is longer than a plan by them): the JSON's
# "whole_run" (docs/cli.md), as the CLI's line under the goodput term says it.
WHOLE_RUN_COUNTS = ("steady_steps", "failures", "checkpoint_writes", "restarts", "rework")
WHOLE_RUN_NOT_COUNTED = ("evaluation", "data_loading_stalls", "other_stages", "ablations", "queueing")


@dataclass(frozen=True, slots=True)
class Goodput:
    """The goodput term of one training option.

    effective_fraction: useful share of wall time; interruptions_per_hour: the job's rate (failures + spot);
    job_mtbf_s: mean seconds between them; interval_s: seconds of work between checkpoints (Daly's optimum or
    the user's); lost shares of the wall time, summing to 1 - effective_fraction: checkpoint writes, restarts, and
    rework (work redone since the last checkpoint). wall_time_s / gpu_hours / expected_interruptions: the whole
    run with failures (None without a token count).
    """

    effective_fraction: float
    failures_per_hour: float
    spot_interruptions_per_hour: float
    job_mtbf_s: float
    checkpoint: CheckpointCost
    interval_s: float | None
    interval_basis: str
    checkpoint_share: float
    restart_share: float
    rework_share: float
    wall_time_s: float | None
    gpu_hours: float | None
    expected_interruptions: float | None
    failure_source: str

    @property
    def interruptions_per_hour(self) -> float:
        return self.failures_per_hour + self.spot_interruptions_per_hour

    def as_dict(self) -> dict[str, object]:
        """The JSON shape of an option's "goodput" (docs/cli.md, `gpu-advisor plan --json`)."""
        return {
            "effective_fraction": self.effective_fraction,
            "interruptions_per_hour": self.interruptions_per_hour,
            "failures_per_hour": self.failures_per_hour,
            "spot_interruptions_per_hour": self.spot_interruptions_per_hour,
            "job_mtbf_s": None if math.isinf(self.job_mtbf_s) else self.job_mtbf_s,
            "expected_interruptions": self.expected_interruptions,
            "wall_time_s": self.wall_time_s,
            "gpu_hours": self.gpu_hours,
            "checkpoint_bytes": self.checkpoint.bytes,
            "checkpoint_storage": self.checkpoint.storage.name,
            "checkpoint_write_s": self.checkpoint.write_s,
            "checkpoint_interval_s": self.interval_s,
            "checkpoint_interval_basis": self.interval_basis,
            "restart_s": self.checkpoint.restart_s,
            "lost_shares": {
                "checkpoints": self.checkpoint_share, "restarts": self.restart_share, "rework": self.rework_share,
            },
            "failure_source": self.failure_source,
            "restart_source": self.checkpoint.restart_source,
            "storage_source": self.checkpoint.storage.source,
            "whole_run": {"counts": list(WHOLE_RUN_COUNTS), "not_counted": list(WHOLE_RUN_NOT_COUNTED)},
        }  # fmt: skip


def goodput(
    checkpoint: CheckpointCost,
    failures_per_hour: float,
    failure_source: str,
    *,
    spot_interruptions_per_hour: float = 0.0,
    interval_s: float | None = None,
    work_s: float | None = None,
    gpus: int = 1,
) -> Goodput:
    """The goodput of a job interrupted `failures_per_hour` + `spot_interruptions_per_hour` times an hour.

    interval_s: the user's checkpoint interval (None: Daly's optimum); work_s: failure-free seconds of the whole
    run (None: only the fraction); gpus: to turn the wall time into GPU-hours.
    """
    rate = failures_per_hour + spot_interruptions_per_hour
    mtbf = 3600.0 / rate if rate > 0 else math.inf
    write, restart = checkpoint.write_s, checkpoint.restart_s
    if math.isinf(mtbf):
        chosen: float | None = interval_s
        basis = "user-set" if interval_s is not None else "none needed"
        ratio = 1.0 if interval_s is None else 1 + write / interval_s
    else:
        chosen = interval_s if interval_s is not None else daly_interval_s(write, mtbf)
        basis = "user-set" if interval_s is not None else "Daly optimum"
        ratio = wall_time_ratio(chosen, write, restart, mtbf)
    shares = _lost_shares(chosen, write, restart, mtbf, ratio)
    wall = work_s * ratio if work_s is not None else None
    return Goodput(
        effective_fraction=1 / ratio, failures_per_hour=failures_per_hour,
        spot_interruptions_per_hour=spot_interruptions_per_hour, job_mtbf_s=mtbf, checkpoint=checkpoint,
        interval_s=chosen, interval_basis=basis, checkpoint_share=shares[0], restart_share=shares[1],
        rework_share=shares[2],        wall_time_s=wall, gpu_hours=wall * gpus / 3600 if wall is not None else None,
        expected_interruptions=wall * rate / 3600 if wall is not None else None, failure_source=failure_source,
    )  # fmt: skip


def _lost_shares(
    interval_s: float | None, write_s: float, restart_s: float, mtbf_s: float, ratio: float
) -> tuple[float, float, float]:
    """Shares of the wall time lost to checkpoint writes, restarts and rework, summing to 1 - 1 / ratio.

    Daly's ratio is a product of three factors: writes (1 + delta / tau), rework (M (e^(L/M) - 1) / L with
    L = tau + delta: work lost since the last checkpoint) and restarts (e^(R/M)); the lost share is split in
    proportion to their logarithms, so the three parts add up exactly.
    """
    if not interval_s or ratio <= 1:
        return 0.0, 0.0, 0.0
    writes = math.log1p(write_s / interval_s)
    if math.isinf(mtbf_s):
        rework = restarts = 0.0
    else:
        segment = interval_s + write_s
        lost_segments = segment / mtbf_s  # log(M (e^x - 1) / L) = x + log(M / L) once e^x - 1 is e^x (x > 50)
        rework = (lost_segments + math.log(mtbf_s / segment) if lost_segments > 50
                  else math.log(mtbf_s * math.expm1(lost_segments) / segment))  # fmt: skip
        restarts = restart_s / mtbf_s
    total = writes + rework + restarts
    lost = 1 - 1 / ratio
    return lost * writes / total, lost * restarts / total, lost * rework / total
