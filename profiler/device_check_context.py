"""What every step of the device check is given: the output folder, the GPUs seen, the Python to run children with, the time left."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from profiler.jsontypes import JSONObject

MIB = 1024 * 1024
ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Context:
    """What every step may read: where to write, what the machine has, the results of earlier steps."""

    out_dir: Path
    gpu_count: int
    cuda_reason: str | None
    deadline: float
    results: dict[str, JSONObject] = field(default_factory=dict)

    def remaining_s(self) -> float:
        return self.deadline - time.monotonic()
