"""What one checkpoint weighs and how long it takes to write, to read back, and to restart a job.

A checkpoint holds the training weights and the optimizer state (Megatron-LM's and torch.distributed.checkpoint's
layout: bf16 weights, fp32 master copy, Adam m and v = 14 bytes per trainable parameter; gradients are not
saved). Every rank writes its own shard at the same time, so the write runs at the storage's aggregate rate:
gpus x the rate one GPU's share of its node can write, capped by what the storage system serves in total.
Sources and dates: docs/sources.md, "Reliability at scale".
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.errors import UserError
from planner.messages import msg

# Local NVMe: a DGX H100 carries 8 x 3.84 TB NVMe U.2 data drives, one per GPU (NVIDIA DGX H100 User Guide, 2023,
# "Hardware Overview"); a PCIe Gen4 U.2 data-centre SSD of that class writes sequentially at about 3.5 GB/s
# (Samsung PM1733 datasheet, 2020: 3,800 MB/s sequential write at 3.84 TB; Micron 7450 PRO datasheet, 2022:
# 3,500-5,300 MB/s). Each GPU's rank writes its shard to its own drive.
NVME_BYTES_PER_S_PER_GPU = 3.5e9
# Parallel file system: Llama 3's Tectonic deployment served 16,384 H100s with "a sustainable throughput of
# 2 TB/s and a peak throughput of 7 TB/s" (arXiv 2407.21783, July 2024, section 3.3.1, Storage). Each GPU's
# client is limited by its share of the network (planner.perf's default: one 400 Gb/s link per GPU).
PFS_AGGREGATE_BYTES_PER_S = 2e12
PFS_CLIENT_BYTES_PER_S_PER_GPU = 400e9 / 8

# A restart after an unexpected interruption: the hang is noticed, the job is rescheduled and re-initialised,
# and the last checkpoint is read back. Detection: a rank that hangs in a collective is declared dead after
# torch.distributed's ProcessGroupNCCL timeout, 10 minutes by default since PyTorch 2.2 (pytorch/pytorch PR
# 110947, October 2023). Rescheduling, process start, communicator set-up and warm-up: TrainMover (Lao et al.,
# arXiv 2412.12636, December 2024) measures checkpoint-restart downtimes of several minutes on 1,024 GPUs, up to
# about 70 x its own seconds-level downtime; 5 minutes is taken here.
DETECTION_S = 600.0
RESCHEDULE_S = 300.0

STORAGES = ("nvme", "pfs")


@dataclass(frozen=True, slots=True)
class Storage:
    """Where checkpoints go: the rate per GPU and the cap over the whole job (None: no cap), and the source."""

    name: str
    bytes_per_s_per_gpu: float
    aggregate_bytes_per_s: float | None
    source: str

    def job_bytes_per_s(self, gpus: int) -> float:
        """Write (and read) rate of a job whose `gpus` ranks each write their shard at once."""
        rate = gpus * self.bytes_per_s_per_gpu
        return rate if self.aggregate_bytes_per_s is None else min(rate, self.aggregate_bytes_per_s)


def storage(name: str = "pfs", user_bytes_per_s_per_gpu: float | None = None) -> Storage:
    """The storage profile `name` ("nvme" | "pfs"), or the user's own rate per GPU (no cap)."""
    if user_bytes_per_s_per_gpu is not None:
        if not user_bytes_per_s_per_gpu > 0:
            raise UserError.of(
                msg("error.must_be_positive", what="checkpoint bandwidth", value=user_bytes_per_s_per_gpu)
            )
        return Storage("user-set", user_bytes_per_s_per_gpu, None, "user-set")
    if name == "nvme":
        return Storage(
            "nvme", NVME_BYTES_PER_S_PER_GPU, None,
            "local NVMe, one U.2 drive per GPU at 3.5 GB/s (DGX H100 layout; PM1733 / 7450 datasheets)",
        )  # fmt: skip
    if name == "pfs":
        return Storage(
            "pfs", PFS_CLIENT_BYTES_PER_S_PER_GPU, PFS_AGGREGATE_BYTES_PER_S,
            "parallel file system, 2 TB/s sustained in all (Llama 3's Tectonic, arXiv 2407.21783 section 3.3.1), "
            "at most 50 GB/s per GPU",
        )  # fmt: skip
    raise UserError.of(
        msg("error.unknown_choice", what="checkpoint storage", text=name, choices=", ".join(STORAGES))
    )


def checkpoint_bytes(trainable_params: int, weight_bytes: float, optimizer_bytes: float) -> int:
    """Bytes of one whole checkpoint: the trainable weights and their optimizer state (frozen weights of
    LoRA/QLoRA are not saved: they are the base model on disk)."""
    return round(trainable_params * (weight_bytes + optimizer_bytes))


@dataclass(frozen=True, slots=True)
class CheckpointCost:
    """Seconds to write one checkpoint, and to restart from one (detection + rescheduling + reading it back)."""

    bytes: int
    storage: Storage
    write_s: float
    restart_s: float
    restart_source: str


def checkpoint_cost(
    bytes_: int, gpus: int, where: Storage, user_restart_s: float | None = None
) -> CheckpointCost:
    """Write and restart times of a `bytes_` checkpoint sharded over `gpus` ranks on `where`."""
    rate = where.job_bytes_per_s(gpus)
    write_s = bytes_ / rate
    if user_restart_s is not None:
        return CheckpointCost(bytes_, where, write_s, user_restart_s, "user-set")
    restart_s = DETECTION_S + RESCHEDULE_S + write_s  # reading back runs at the write rate
    source = (
        f"restart {restart_s / 60:.1f} min = {DETECTION_S / 60:g} min NCCL timeout (PyTorch default) + "
        f"{RESCHEDULE_S / 60:g} min rescheduling and start-up (TrainMover, arXiv 2412.12636) + reading the checkpoint"
    )
    return CheckpointCost(bytes_, where, write_s, restart_s, source)
