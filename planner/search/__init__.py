"""Strategy search: which GPU, how many, with which sharding, how long, at what price.

plan() enumerates GPU counts and parallel layouts (dp x tp x pp x ep, ZeRO stage, recompute, micro-batch,
offload), prunes what does not divide or fit, times what is left with planner.perf, prices it, and ranks it.
Excluded strategy families come back with the reason in plain words ("DDP: needs 1.0 TiB per GPU, has 80 GiB").

Pure: frozen dataclasses in, a frozen PlanResult out. The rooms: types (what goes in and out), enumeration
(the candidates), common (what both searches share), training and serving (the two searches), ranking, and
plan (the entry point). The memory model is planner.memory (per GPU, bytes), the time model planner.perf.
"""

from planner.search.plan import plan
from planner.search.types import (
    DEFAULT_MAX_GPUS,
    DEFAULT_MEMORY_HEADROOM,
    Constraints,
    Excluded,
    PlanOption,
    PlanResult,
    Workload,
)

__all__ = [
    "DEFAULT_MAX_GPUS",
    "DEFAULT_MEMORY_HEADROOM",
    "Constraints",
    "Excluded",
    "PlanOption",
    "PlanResult",
    "Workload",
    "plan",
]
