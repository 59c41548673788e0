"""Serving at scale: what a replica failure does to a deployment of identical replicas.

A replica of tp x pp GPUs stops when one of them fails (the per-GPU-hour rate of planner.scale.failures) and is
back after a restart: the hang is detected, the replica rescheduled and its weights read back
(planner.scale.checkpoints' detection and rescheduling times). Each replica is down a share u = lambda R /
(1 + lambda R) of the time (an alternating renewal process: up for 1 / lambda on average, down for R). With one
replica down the others carry the load: (replicas - 1) / replicas of the capacity, held against the target.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.gpus import GpuSpec
from planner.scale.checkpoints import DETECTION_S, RESCHEDULE_S, Storage
from planner.scale.failures import failure_rate
from planner.scale.goodput import Resilience

HOURS_PER_DAY = 24.0


@dataclass(frozen=True, slots=True)
class ReplicaFailure:
    """One replica failing: how often, for how long, and the capacity left against the target.

    failures_per_day: over all replicas; down_share: of one replica's time; any_down_share: the share of time at
    least one replica is down; tokens_per_s_one_down: the deployment's output tokens/s with one replica down;
    meets_target_one_down: None without a target.
    """

    replicas: int
    replica_gpus: int
    failures_per_day: float
    restart_s: float
    down_share: float
    any_down_share: float
    expected_tokens_per_s: float
    tokens_per_s_one_down: float
    meets_target_one_down: bool | None
    failure_source: str

    def as_dict(self) -> dict[str, object]:
        return {
            "replicas": self.replicas, "replica_gpus": self.replica_gpus, "failures_per_day": self.failures_per_day,
            "restart_s": self.restart_s, "down_share": self.down_share, "any_down_share": self.any_down_share,
            "expected_tokens_per_s": self.expected_tokens_per_s, "tokens_per_s_one_down": self.tokens_per_s_one_down,
            "meets_target_one_down": self.meets_target_one_down, "failure_source": self.failure_source,
        }  # fmt: skip


def replica_failure(
    gpu: GpuSpec,
    replicas: int,
    replica_gpus: int,
    weights_bytes: int,
    tokens_per_s: float,
    where: Storage,
    resilience: Resilience,
    target_tokens_per_s: float | None = None,
) -> ReplicaFailure | None:
    """The failure figures of `replicas` replicas of `replica_gpus` GPUs each serving `tokens_per_s` in all
    (None when the user turned failures off)."""
    rate = failure_rate(gpu, resilience.failures_per_gpu_hour)
    if rate.per_gpu_hour == 0:
        return None
    per_replica_per_s = rate.per_gpu_hour * replica_gpus / 3600
    if resilience.restart_s is not None:
        restart = resilience.restart_s
    else:
        restart = DETECTION_S + RESCHEDULE_S + weights_bytes / where.job_bytes_per_s(replica_gpus)
    down = per_replica_per_s * restart / (1 + per_replica_per_s * restart)
    one_down = tokens_per_s * (replicas - 1) / replicas
    meets = None if target_tokens_per_s is None else one_down >= target_tokens_per_s
    return ReplicaFailure(
        replicas=replicas, replica_gpus=replica_gpus,
        failures_per_day=per_replica_per_s * 3600 * HOURS_PER_DAY * replicas, restart_s=restart, down_share=down,
        any_down_share=1 - (1 - down) ** replicas, expected_tokens_per_s=tokens_per_s * (1 - down),
        tokens_per_s_one_down=one_down, meets_target_one_down=meets, failure_source=rate.describe(),
    )  # fmt: skip
