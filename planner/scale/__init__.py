"""Planning at scale: failures, checkpoints and restarts (goodput), and spot capacity.

Pure functions over frozen dataclasses (no I/O); sources and dates in docs/sources.md, "Reliability at scale".
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from planner.gpus import GpuSpec
from planner.scale.checkpoints import (
    DETECTION_S,
    RESCHEDULE_S,
    STORAGES,
    CheckpointCost,
    Storage,
    checkpoint_bytes,
    checkpoint_cost,
    storage,
)
from planner.scale.failures import FailureRate, failure_rate
from planner.scale.goodput import (
    Goodput,
    Resilience,
    daly_interval_s,
    goodput,
    wall_time_ratio,
    young_interval_s,
)
from planner.scale.serving import ReplicaFailure, replica_failure
from planner.scale.spot import (
    DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR,
    SPOT_RATE_SOURCE,
    SpotComparison,
    compare_spot,
    spot_overhead,
)


def job_goodput(
    gpu: GpuSpec,
    gpus: int,
    nodes: int,
    state_bytes: int,
    resilience: Resilience,
    work_s: float | None = None,
) -> Goodput | None:
    """The goodput term of a training job on `gpus` x `gpu` over `nodes` nodes with a `state_bytes` checkpoint
    (None when the user turned failures off and the job is not on spot)."""
    return JobFailures.of(gpu, resilience).goodput(gpus, nodes, state_bytes, work_s)


@dataclass(frozen=True, slots=True)
class JobFailures:
    """What job_goodput reads of a GPU type and the user's resilience settings, worked out once for a search that
    asks for many jobs on that type: the failure rate per GPU-hour and its description, the spot reclaim rate per
    node, and the checkpoint storage (None when neither failures nor spot interrupt a job: no goodput term, and
    the storage is never asked, as job_goodput never asked it then)."""

    per_gpu_hour: float
    failure_source: str
    spot_per_node_hour: float
    where: Storage | None
    resilience: Resilience

    @classmethod
    def of(cls, gpu: GpuSpec, resilience: Resilience) -> JobFailures:
        rate = failure_rate(gpu, resilience.failures_per_gpu_hour)
        spot = resilience.spot_interruptions_per_node_hour
        # a job has at least one node, so nodes x spot is 0 exactly when spot is (both rates are finite, >= 0)
        interrupted = rate.per_gpu_hour != 0 or spot != 0
        where = (
            storage(resilience.storage, resilience.checkpoint_bytes_per_s_per_gpu) if interrupted else None
        )
        return cls(rate.per_gpu_hour, rate.describe(), spot, where, resilience)

    def goodput(self, gpus: int, nodes: int, state_bytes: int, work_s: float | None = None) -> Goodput | None:
        """job_goodput of a job on `gpus` GPUs over `nodes` nodes with a `state_bytes` checkpoint."""
        spot = self.spot_per_node_hour * nodes
        if self.where is None or (self.per_gpu_hour == 0 and spot == 0):
            return None
        cost = checkpoint_cost(state_bytes, gpus, self.where, self.resilience.restart_s)
        return goodput(
            cost, self.per_gpu_hour * gpus, self.failure_source, spot_interruptions_per_hour=spot,
            interval_s=self.resilience.checkpoint_interval_s, work_s=work_s, gpus=gpus,
        )  # fmt: skip


def spot_against_on_demand(
    gpu: GpuSpec,
    gpus: int,
    nodes: int,
    state_bytes: int,
    resilience: Resilience,
    spot_price: float,
    on_demand_price: float,
) -> SpotComparison:
    """Spot (at the resilience's reclaim rate) against on demand for this job, and the largest job on whole nodes
    of the same size at which spot still pays. Prices per GPU-hour in one currency."""
    per_node = max(1, gpus // max(1, nodes))
    on_demand = dataclasses.replace(resilience, spot_interruptions_per_node_hour=0.0)

    def fractions(count: int) -> tuple[float, float]:
        size = count * per_node
        base = job_goodput(gpu, size, count, state_bytes, on_demand)
        spot = job_goodput(gpu, size, count, state_bytes, resilience)
        return (base.effective_fraction if base else 1.0, spot.effective_fraction if spot else 1.0)

    return compare_spot(spot_price, on_demand_price, fractions, nodes)


def spot_overhead_of_job(
    gpu: GpuSpec,
    gpus: int,
    spot_interruptions_per_node_hour: float,
    checkpoint_write_s: float,
    restart_s: float,
    gpus_per_node: int | None = None,
) -> tuple[float, str]:
    """Extra billed hours per useful hour of a `gpus`-GPU job on spot against on demand (both suffer the GPU
    type's published failures; spot adds nodes x the reclaim rate), and the sentence saying how it was found."""
    per_node = gpus_per_node or gpu.gpus_per_node
    nodes = -(-gpus // per_node)
    where = Storage("user-set", 1.0, None, "user-set")
    cost = CheckpointCost(0, where, checkpoint_write_s, restart_s, "user-set")
    rate = failure_rate(gpu)
    on_demand = goodput(cost, rate.per_gpu_hour * gpus, rate.describe())
    spot_rate = spot_interruptions_per_node_hour * nodes
    spot = goodput(cost, rate.per_gpu_hour * gpus, rate.describe(), spot_interruptions_per_hour=spot_rate)
    overhead = spot_overhead(on_demand, spot)
    basis = (
        f"{spot_interruptions_per_node_hour:.3g} reclaims per instance-hour x {nodes} node(s); each loses the work "
        f"since the last checkpoint ({checkpoint_write_s / 60:.3g} min to write, Daly's interval) and a "
        f"{restart_s / 60:.3g} min restart: spot {spot.effective_fraction:.1%} effective time against "
        f"{on_demand.effective_fraction:.1%} on demand"
    )
    return overhead, basis


__all__ = [
    "DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR",
    "DETECTION_S",
    "RESCHEDULE_S",
    "SPOT_RATE_SOURCE",
    "STORAGES",
    "CheckpointCost",
    "FailureRate",
    "Goodput",
    "JobFailures",
    "ReplicaFailure",
    "Resilience",
    "SpotComparison",
    "Storage",
    "checkpoint_bytes",
    "checkpoint_cost",
    "compare_spot",
    "spot_against_on_demand",
    "spot_overhead_of_job",
    "daly_interval_s",
    "failure_rate",
    "goodput",
    "job_goodput",
    "replica_failure",
    "spot_overhead",
    "storage",
    "wall_time_ratio",
    "young_interval_s",
]
