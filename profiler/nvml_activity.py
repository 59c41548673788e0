"""What else is running on a GPU before it is probed: processes, memory in use and utilisation, read from NVML."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

from profiler.jsontypes import JSONObject, JSONValue
from profiler.nvml import (
    BUSY_UTILIZATION_PCT,
    NvmlBackend,
    NvmlUnavailable,
    Unavailable,
    as_int,
    as_number,
    attr_int,
    first_available,
    nvml_session,
    read_field,
    struct_member,
    then_convert,
)

if TYPE_CHECKING:
    pass


class ProcessUse(TypedDict):
    pid: int
    used_memory_bytes: int | None  # None where NVML cannot say (WDDM on Windows, some containers)


@dataclass(frozen=True)
class Activity:
    """A GPU's state just before it is measured: utilisation, memory in use, the other compute processes.

    `busy` is True when another process computes on it or utilisation is at least BUSY_UTILIZATION_PCT; the
    probe records this beside the figures, because a shared GPU measures low. Fields NVML refused are None
    with the reason in `refused`.
    """

    utilization_pct: float | None
    memory_used_bytes: int | None
    other_processes: list[ProcessUse] | None
    refused: dict[str, str]

    @property
    def busy(self) -> bool:
        if self.other_processes:
            return True
        return self.utilization_pct is not None and self.utilization_pct >= BUSY_UTILIZATION_PCT

    @property
    def reason(self) -> str | None:
        """Why the GPU counts as busy, in words, or None when it is idle."""
        parts = []
        if self.other_processes:
            parts.append(f"{len(self.other_processes)} other compute process(es): "
                         + ", ".join(f"pid {p['pid']}" for p in self.other_processes[:5]))  # fmt: skip
        if self.utilization_pct is not None and self.utilization_pct >= BUSY_UTILIZATION_PCT:
            parts.append(f"utilisation {self.utilization_pct:.0f} %")
        return "; ".join(parts) or None

    def to_dict(self) -> JSONObject:
        processes: JSONValue = (
            None
            if self.other_processes is None
            else [
                {"pid": p["pid"], "used_memory_bytes": p["used_memory_bytes"]} for p in self.other_processes
            ]
        )
        return {
            "utilization_pct": self.utilization_pct,
            "memory_used_bytes": self.memory_used_bytes,
            "other_processes": processes,
            "busy": self.busy,
            "reason": self.reason,
            "refused": dict(self.refused),
        }


def read_activity(
    nvml_index: int, backend: NvmlBackend | None = None, own_pids: set[int] | None = None
) -> Activity:
    """Utilisation, memory used and the compute processes (other than `own_pids`, default this process) on the
    GPU NVML numbers `nvml_index`. Never raises: with NVML gone every field is refused with the reason."""
    own = own_pids if own_pids is not None else {os.getpid()}
    try:
        with nvml_session(backend) as nv:
            return _read_activity(nv, nvml_index, own)
    except NvmlUnavailable as exc:
        reason = str(exc)
    except Exception as exc:  # a broken binding must not stop the probe; the activity is simply unknown
        reason = f"{type(exc).__name__}: {exc}"
    return Activity(None, None, None, {"nvml": reason})


def _read_activity(nv: NvmlBackend, nvml_index: int, own: set[int]) -> Activity:
    refused: dict[str, str] = {}
    handle = read_field(nv, "nvmlDeviceGetHandleByIndex", nvml_index)
    if isinstance(handle, Unavailable):
        return Activity(None, None, None, {"handle": handle.reason})
    utilization = then_convert(
        read_field(nv, "nvmlDeviceGetUtilizationRates", handle), lambda u: as_number(struct_member(u, "gpu"))
    )
    memory = then_convert(read_field(nv, "nvmlDeviceGetMemoryInfo", handle), attr_int("used"))
    # pynvml's nvmlDeviceGetComputeRunningProcesses calls the _v3 symbol, which drivers before R510 lack.
    processes = then_convert(
        first_available(nv, ("nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetComputeRunningProcesses_v2"),
                         handle),
        _process_list,
    )  # fmt: skip
    for name, value in (
        ("utilization_pct", utilization),
        ("memory_used_bytes", memory),
        ("processes", processes),
    ):
        if isinstance(value, Unavailable):
            refused[name] = value.reason
    others = None if isinstance(processes, Unavailable) else [p for p in processes if p["pid"] not in own]
    return Activity(
        None if isinstance(utilization, Unavailable) else utilization,
        None if isinstance(memory, Unavailable) else memory,
        others,
        refused,
    )


def _process_list(value: object) -> list[ProcessUse]:
    if not isinstance(value, (list, tuple)):
        raise TypeError("expected a list of processes")
    found: list[ProcessUse] = []
    for entry in value:
        used = getattr(entry, "usedGpuMemory", None)
        found.append(
            {
                "pid": as_int(struct_member(entry, "pid")),
                "used_memory_bytes": used if isinstance(used, int) else None,
            }
        )
    return found
