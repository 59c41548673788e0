"""How often a training job is interrupted: a rate per GPU-hour, by GPU type, from published large runs.

A synchronous data/tensor/pipeline-parallel job stops when any one of its GPUs, hosts, links or processes
fails, so the job's rate is the sum over its GPUs: gpus x the per-GPU-hour rate (the rate counts every
interruption the job saw, not only GPU faults: Llama 3's 419 include software bugs, network switches, hosts).
Sources and dates: docs/sources.md, "Reliability at scale".
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.gpus import GpuSpec

HOURS_PER_DAY = 24

# Llama 3 405B pre-training (Grattafiori et al., "The Llama 3 Herd of Models", arXiv 2407.21783, July 2024,
# section 3.3.4 and Table 5): a 54-day snapshot on 16,384 H100 80GB GPUs saw 466 job interruptions, 47 planned
# (firmware upgrades, configuration or dataset changes) and 419 unexpected; more than 90 % effective training
# time. The unexpected ones are the failures a run of any size suffers; planned maintenance is the operator's
# choice and is left out of the default.
LLAMA3_GPUS = 16_384
LLAMA3_DAYS = 54
LLAMA3_UNEXPECTED_INTERRUPTIONS = 419
LLAMA3_FAILURES_PER_GPU_HOUR = LLAMA3_UNEXPECTED_INTERRUPTIONS / (LLAMA3_GPUS * LLAMA3_DAYS * HOURS_PER_DAY)

# Meta's research clusters of A100s (Kokolis et al., "Revisiting Reliability in Large-Scale Machine Learning
# Research Clusters", arXiv 2410.21680, October 2024; HPCA 2025): 11 months, 150 million A100 GPU-hours; their
# failure model projects a mean time to failure of 1.8 hours for a 16,384-GPU job (and about 14 minutes for
# 131,072 GPUs: the same rate, 6.5 failures per 1,000 node-days of 8 GPUs).
RSC_PROJECTED_MTTF_HOURS = 1.8
RSC_PROJECTED_GPUS = 16_384
RSC_A100_FAILURES_PER_GPU_HOUR = 1 / (RSC_PROJECTED_MTTF_HOURS * RSC_PROJECTED_GPUS)

_LLAMA3_SOURCE = (
    f"{LLAMA3_UNEXPECTED_INTERRUPTIONS} unexpected interruptions in {LLAMA3_DAYS} days on {LLAMA3_GPUS:,} H100s "
    "(Llama 3, arXiv 2407.21783, section 3.3.4, Table 5)"
)
_RSC_SOURCE = (
    f"{RSC_PROJECTED_MTTF_HOURS:g} h projected mean time to failure of a {RSC_PROJECTED_GPUS:,}-GPU job on "
    "Meta's A100 research clusters (arXiv 2410.21680)"
)


@dataclass(frozen=True, slots=True)
class FailureRate:
    """Interruptions per GPU-hour of a synchronous training job, and where the figure comes from.

    basis: "published" (a run of this GPU type), "borrowed" (no published figure for this type: another type's),
    or "user-set".
    """

    per_gpu_hour: float
    source: str
    basis: str

    @property
    def per_million_gpu_hours(self) -> float:
        return self.per_gpu_hour * 1e6

    def job_mtbf_s(self, gpus: int) -> float:
        """Mean seconds between interruptions of a job on `gpus` GPUs (infinite at rate 0)."""
        rate = self.per_gpu_hour * gpus
        return 3600.0 / rate if rate > 0 else float("inf")

    def describe(self) -> str:
        return f"{self.per_million_gpu_hours:.3g} interruptions per million GPU-hours: {self.source}"


def failure_rate(gpu: GpuSpec, user_per_gpu_hour: float | None = None) -> FailureRate:
    """The job interruption rate per GPU-hour for `gpu`: the user's figure, else a published one for the type.

    Hopper (H100, H200, H800): Llama 3's 419 unexpected interruptions. A100: Meta's research clusters (1.8 h for
    16,384 GPUs). Every other type borrows the Llama 3 figure, the largest published run on current hardware, and
    says so.
    """
    if user_per_gpu_hour is not None:
        return FailureRate(user_per_gpu_hour, "user-set", "user-set")
    major, minor = gpu.compute_capability
    if major == 9:
        return FailureRate(LLAMA3_FAILURES_PER_GPU_HOUR, _LLAMA3_SOURCE, "published")
    if (major, minor) == (8, 0):
        return FailureRate(RSC_A100_FAILURES_PER_GPU_HOUR, _RSC_SOURCE, "published")
    return FailureRate(
        LLAMA3_FAILURES_PER_GPU_HOUR,
        f"no published rate for {gpu.name}; the H100 figure: {_LLAMA3_SOURCE}",
        "borrowed",
    )
