"""NVIDIA GPU inventory and live telemetry through NVML (nvidia-ml-py, import name ``pynvml``).

Patterned after nvitop's ``libnvml``: NVML is initialised lazily, every field is read on its own, and a field
NVML refuses (NotSupported on consumer cards, under MIG, in WSL2 or containers; NoPermission; a lost GPU; a
function an older driver does not have, FunctionNotFound) becomes ``Unavailable(reason)`` instead of an
exception. A machine without the library or the driver gets an Inventory saying "no NVIDIA GPU" and why;
``read_inventory`` never raises.

The backend is the ``pynvml`` module itself, or, when the environment variable GPU_ADVISOR_FAKE_NVML names a
scenario, the fake in profiler.fake_nvml which has the same function names, constants and NVMLError codes, so
this module runs the same code path for both. pynvml is imported only inside ``open_backend``.

Device order: GPUs are listed in PCI bus id order, which is CUDA's order when CUDA_DEVICE_ORDER=PCI_BUS_ID (the
probe sets it), so ``cuda_index`` here is the N in ``cuda:N`` when CUDA_VISIBLE_DEVICES is not set.

Besides the static inventory the probe asks, per GPU: the CPUs nearest to it (nvmlDeviceGetCpuAffinity, so the
host-copy buffers are allocated on the GPU's own socket), its NUMA node, the MIG slices with their instance ids
and sizes, and just before measuring it, the other processes computing on it and its utilisation
(``read_activity``), so a busy GPU is flagged instead of silently measuring low.

Units: bytes, watts, MHz, degrees Celsius, percent, bytes per second (PCIe throughput; NVML reports KiB/s).
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Protocol, TypeAlias, TypedDict, TypeVar

from profiler.jsontypes import JSONObject, JSONValue

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

FAKE_ENV = "GPU_ADVISOR_FAKE_NVML"

# NVML return codes (nvml.h); the same numbers in pynvml and the fake backend.
ERROR_UNINITIALIZED = 1
ERROR_INVALID_ARGUMENT = 2
ERROR_NOT_SUPPORTED = 3
ERROR_NO_PERMISSION = 4
ERROR_NOT_FOUND = 6
ERROR_DRIVER_NOT_LOADED = 9
ERROR_LIBRARY_NOT_FOUND = 12
ERROR_FUNCTION_NOT_FOUND = 13
ERROR_GPU_IS_LOST = 15
ERROR_LIB_RM_VERSION_MISMATCH = 18

# Constants passed to NVML. Written out because pynvml 12.x/13.x defines NVML_P2P_CAPS_INDEX_READ as the tuple
# (0,) (a stray comma in its source), which ctypes would refuse.
TEMPERATURE_GPU = 0
CLOCK_SM = 1
CLOCK_MEM = 2
PCIE_UTIL_TX_BYTES = 0
PCIE_UTIL_RX_BYTES = 1
P2P_CAPS_INDEX_READ = 0
P2P_CAPS_INDEX_NVLINK = 2
P2P_STATUS_OK = 0
NVLINK_MAX_LINKS = (
    18  # NVML_NVLINK_MAX_LINKS was 18 up to Hopper; newer headers say 36 (probed until refused)
)
NVLINK_DEVICE_TYPE_SWITCH = 2
# A GPU counts as busy before a measurement when another process computes on it or its utilisation is at least
# this (mamf-finder's siblings_idle uses the same 10 % line between idle and computing).
BUSY_UTILIZATION_PCT = 10.0

_ERROR_WORDS = {
    ERROR_UNINITIALIZED: "NVML not initialised",
    ERROR_INVALID_ARGUMENT: "invalid argument",
    ERROR_NOT_SUPPORTED: "not supported on this GPU or driver",
    ERROR_NO_PERMISSION: "no permission",
    ERROR_NOT_FOUND: "not found",
    ERROR_DRIVER_NOT_LOADED: "NVIDIA driver not loaded",
    ERROR_LIBRARY_NOT_FOUND: "NVML library not found (libnvidia-ml.so.1 / nvml.dll)",
    ERROR_FUNCTION_NOT_FOUND: "function not in this driver's NVML",
    ERROR_GPU_IS_LOST: "GPU is lost (fell off the bus or hung)",
    ERROR_LIB_RM_VERSION_MISMATCH: "NVML/driver version mismatch (reboot after a driver update)",
}

_P2P_STATUS_WORDS = {
    0: "ok",
    1: "chipset not supported",
    2: "GPU not supported",
    3: "IOH topology not supported",
    4: "disabled by registry key",
    5: "not supported",
    6: "unknown",
}

# nvmlDeviceGetTopologyCommonAncestor levels, named as `nvidia-smi topo -m` does, with what they mean.
TOPOLOGY_LEVELS = {
    0: ("same_board", "BOARD", "same multi-GPU board"),
    10: ("pcie_switch", "PIX", "same PCIe switch"),
    20: ("pcie_switches", "PXB", "several PCIe switches, no host bridge"),
    30: ("host_bridge", "PHB", "same PCIe host bridge (CPU)"),
    40: ("numa_node", "NODE", "same CPU socket, across host bridges"),
    50: ("cross_socket", "SYS", "across CPU sockets (QPI/UPI/xGMI)"),
}

T = TypeVar("T")


class NvmlUnavailable(RuntimeError):
    """NVML cannot be used at all (no library, no driver, bindings missing); the message is the reason."""


class NvmlBackend(Protocol):
    """What this module needs of pynvml (or the fake): start, stop and the error class. Every other function is
    looked up by name (read_field), so one an old driver or old bindings lack is a refused field, not a crash."""

    @property
    def NVMLError(self) -> type[Exception]: ...  # noqa: N802 (pynvml's name)

    def nvmlInit(self) -> None: ...  # noqa: N802

    def nvmlShutdown(self) -> None: ...  # noqa: N802


@dataclass(frozen=True)
class Unavailable:
    """A field NVML refused, with the reason ("not supported on this GPU or driver", "no permission", ...)."""

    reason: str

    def __bool__(self) -> bool:
        return False

    def to_dict(self) -> dict[str, str]:
        return {"unavailable": self.reason}


MaybeStr: TypeAlias = str | Unavailable
MaybeInt: TypeAlias = int | Unavailable
MaybeFloat: TypeAlias = float | Unavailable


class MigDevice(TypedDict):
    """One MIG device (a compute instance inside a GPU instance) as NVML describes it through its MIG handle."""

    index: int  # slot passed to nvmlDeviceGetMigDeviceHandleByIndex
    uuid: MaybeStr  # "MIG-<uuid>" (drivers >= 470); CUDA reports the same 16 bytes for the MIG device
    name: MaybeStr  # e.g. "NVIDIA A100-SXM4-80GB MIG 3g.40gb"
    profile: str | None  # "3g.40gb", read from the name
    memory_total_bytes: MaybeInt
    gpu_instance_id: MaybeInt
    compute_instance_id: MaybeInt
    multiprocessor_count: MaybeInt  # SMs of this compute instance (nvmlDeviceGetAttributes)
    compute_slices: MaybeInt  # computeInstanceSliceCount: this device's share of the GPU's compute slices


class NvLink(TypedDict):
    link: int
    peer_pci_bus_id: MaybeStr
    peer_type: MaybeStr  # "gpu" | "switch"


def describe_error(error: BaseException) -> str:
    """Words for an NVML error (by its code when it has one)."""
    code = getattr(error, "value", None)
    if isinstance(code, int) and code in _ERROR_WORDS:
        return _ERROR_WORDS[code]
    text = str(error) or type(error).__name__
    return f"NVML error {code}: {text}" if code is not None else text


def is_gpu_lost(error: BaseException) -> bool:
    return getattr(error, "value", None) == ERROR_GPU_IS_LOST


def _text(value: object) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def normalize_bus_id(bus_id: object) -> str:
    """'00000000:3B:00.0' and '0000:3b:00.0' both become '0000:3b:00.0' (domain:bus:device.function)."""
    text = _text(bus_id).strip().lower()
    domain, _, rest = text.partition(":")
    if not rest:
        return text
    return f"{domain[-4:].rjust(4, '0')}:{rest}"


def cuda_driver_version_text(version: object) -> str:
    """NVML's integer CUDA driver version 12040 -> '12.4'."""
    number = _as_int(version)
    return f"{number // 1000}.{(number % 1000) // 10}"


def _as_int(value: object) -> int:
    """An integer NVML returned (ctypes c_uint values arrive as int); anything else is a defect in the binding."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer from NVML, got {type(value).__name__}")
    return value


def _as_number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"expected a number from NVML, got {type(value).__name__}")
    return float(value)


def _member(struct: object, name: str) -> object:
    """A field of an NVML ctypes structure (pynvml has no type information, so every read is checked)."""
    return getattr(struct, name)


def _bus_id(pci: object) -> str:
    return normalize_bus_id(_member(pci, "busId"))


def _attr_int(name: str) -> Callable[[object], int]:
    """Read an integer field of an NVML structure (memory.total, pci.busId's siblings, attributes...)."""
    return lambda struct: _as_int(_member(struct, name))


def _pair(value: object) -> tuple[int, int]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise TypeError("expected (major, minor)")
    return _as_int(value[0]), _as_int(value[1])


# --------------------------------------------------------------------------------------------------------------
# Backend and session
# --------------------------------------------------------------------------------------------------------------


def open_backend(scenario: str | None = None) -> NvmlBackend:
    """The pynvml module, or a fake NVML when GPU_ADVISOR_FAKE_NVML (or `scenario`) names a scenario.

    Raises NvmlUnavailable when the bindings are not installed or the scenario is unknown.
    """
    name = (scenario if scenario is not None else os.environ.get(FAKE_ENV, "")).strip()
    if name:
        from profiler.fake_nvml import SCENARIOS, FakeNvml

        if name not in SCENARIOS:
            raise NvmlUnavailable(f"unknown fake NVML scenario {name!r} (one of: {', '.join(SCENARIOS)})")
        return FakeNvml(name)
    try:
        import pynvml
    except ImportError:
        raise NvmlUnavailable("the NVML bindings are not installed (pip install nvidia-ml-py)") from None
    backend: NvmlBackend = pynvml
    return backend


@contextmanager
def nvml_session(backend: NvmlBackend | None = None) -> Iterator[NvmlBackend]:
    """Initialise NVML for the duration of a block (NVML counts init/shutdown pairs, so nesting is fine).

    Raises NvmlUnavailable with the reason when NVML cannot start.
    """
    nv = backend if backend is not None else open_backend()
    try:
        nv.nvmlInit()
    except Exception as exc:  # NVMLError or OSError from the loader: both mean "no usable NVML here"
        raise NvmlUnavailable(describe_error(exc)) from None
    try:
        yield nv
    finally:
        try:
            nv.nvmlShutdown()
        except Exception:  # shutting down a broken NVML must not hide the caller's result
            pass


def read_field(nv: NvmlBackend, function_name: str, *args: object) -> object:
    """Call one NVML function; a refusal becomes Unavailable(reason) instead of an exception."""
    function = getattr(nv, function_name, None)
    if function is None:
        return Unavailable(f"{function_name} is not in this nvidia-ml-py version")
    try:
        result: object = function(*args)
    except nv.NVMLError as exc:
        return Unavailable(describe_error(exc))
    except Exception as exc:  # ctypes/argument errors in old bindings: still one field, never the whole read
        return Unavailable(f"{type(exc).__name__}: {exc}")
    return result


def _then(value: object, convert: Callable[[object], T]) -> T | Unavailable:
    """convert(value) unless NVML refused it; a value of an unexpected shape is refused with the reason."""
    if isinstance(value, Unavailable):
        return value
    try:
        return convert(value)
    except (TypeError, ValueError, AttributeError) as exc:
        return Unavailable(f"unexpected NVML value: {exc}")


def _first_available(nv: NvmlBackend, names: tuple[str, ...], *args: object) -> object:
    """The first of several spellings of one NVML call that this driver has (newest first).

    A driver older than a function answers FunctionNotFound (pynvml) or the bindings lack it; the next, older
    name is then asked. The refusal of the last one is returned when none works.
    """
    result: object = Unavailable("no function to ask")
    for name in names:
        result = read_field(nv, name, *args)
        if not (isinstance(result, Unavailable) and _is_missing_function(result)):
            return result
    return result


def _is_missing_function(value: Unavailable) -> bool:
    return value.reason == _ERROR_WORDS[ERROR_FUNCTION_NOT_FOUND] or value.reason.endswith(
        "is not in this nvidia-ml-py version"
    )


# --------------------------------------------------------------------------------------------------------------
# Inventory
# --------------------------------------------------------------------------------------------------------------


@dataclass
class GpuInfo:
    """One GPU as NVML describes it. Any field may be Unavailable(reason)."""

    index: int  # NVML's index
    cuda_index: int  # position in PCI bus id order (CUDA's order with CUDA_DEVICE_ORDER=PCI_BUS_ID)
    uuid: MaybeStr
    name: MaybeStr
    pci_bus_id: MaybeStr  # normalised '0000:3b:00.0'
    memory_total_bytes: MaybeInt
    memory_used_bytes: MaybeInt
    memory_free_bytes: MaybeInt
    compute_capability: tuple[int, int] | Unavailable
    pcie_gen_current: MaybeInt
    pcie_gen_max: MaybeInt
    pcie_width_current: MaybeInt
    pcie_width_max: MaybeInt
    power_limit_w: MaybeFloat
    max_sm_clock_mhz: MaybeInt
    max_mem_clock_mhz: MaybeInt
    temperature_c: MaybeInt
    ecc: MaybeStr  # "enabled" | "disabled"
    mig_mode: MaybeStr  # "enabled" | "disabled"
    mig_devices: list[MigDevice] | Unavailable = field(default_factory=list)
    mig_slices_total: MaybeInt = Unavailable("MIG is off")  # nvmlDeviceGetMaxMigDeviceCount: 7 on A100/H100
    nvlink: list[NvLink] | Unavailable = field(default_factory=list)  # active links only
    cpu_affinity: list[int] | Unavailable = field(default_factory=list)  # logical CPUs nearest this GPU
    numa_node: MaybeInt = Unavailable("not read")
    lost: bool = False

    def to_dict(self) -> JSONObject:
        return {f.name: _json_safe(getattr(self, f.name)) for f in fields(self)}


@dataclass
class Inventory:
    """All GPUs NVML sees. `available` is False (with `reason` starting "no NVIDIA GPU") when there are none."""

    available: bool
    reason: str | None
    driver_version: MaybeStr | None = None
    cuda_driver_version: MaybeStr | None = None
    gpus: list[GpuInfo] = field(default_factory=list)
    topology: JSONObject = field(default_factory=lambda: {"pairs": []})

    def to_dict(self) -> JSONObject:
        return {
            "available": self.available,
            "reason": self.reason,
            "driver_version": _json_safe(self.driver_version),
            "cuda_driver_version": _json_safe(self.cuda_driver_version),
            "gpus": [gpu.to_dict() for gpu in self.gpus],
            "topology": self.topology,
        }

    def gpu(self, cuda_index: int) -> GpuInfo | None:
        """The GPU at this position in PCI bus order (cuda:N without CUDA_VISIBLE_DEVICES), if any."""
        return next((gpu for gpu in self.gpus if gpu.cuda_index == cuda_index), None)


def _json_safe(value: object) -> JSONValue:
    if isinstance(value, Unavailable):
        return {"unavailable": value.reason}
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, bytes):
        return _text(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def read_inventory(backend: NvmlBackend | None = None) -> Inventory:
    """Everything NVML can tell about this machine's GPUs. Never raises."""
    try:
        nv = backend if backend is not None else open_backend()
        with nvml_session(nv):
            return _read_inventory(nv)
    except NvmlUnavailable as exc:
        return Inventory(available=False, reason=f"no NVIDIA GPU: {exc}")
    except Exception as exc:  # a defect in bindings or driver must not crash the caller; say what happened
        return Inventory(available=False, reason=f"no NVIDIA GPU: NVML failed ({type(exc).__name__}: {exc})")


def _read_inventory(nv: NvmlBackend) -> Inventory:
    driver = _then(read_field(nv, "nvmlSystemGetDriverVersion"), _text)
    cuda_raw = _first_available(nv, ("nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"))
    cuda_driver = _then(cuda_raw, cuda_driver_version_text)
    count = _then(read_field(nv, "nvmlDeviceGetCount"), _as_int)
    if isinstance(count, Unavailable):
        return Inventory(False, f"no NVIDIA GPU: cannot count devices ({count.reason})", driver, cuda_driver)
    if count == 0:
        return Inventory(
            False, "no NVIDIA GPU: the driver is loaded but reports 0 devices", driver, cuda_driver
        )

    handles: list[object] = []
    gpus: list[GpuInfo] = []
    for index in range(count):
        handle = read_field(nv, "nvmlDeviceGetHandleByIndex", index)
        handles.append(handle)
        gpus.append(_read_gpu(nv, index, handle))
    order = sorted(range(count), key=lambda i: _sort_key(gpus[i]))
    for cuda_index, i in enumerate(order):
        gpus[i].cuda_index = cuda_index
    gpus_sorted = [gpus[i] for i in order]
    handles_sorted = [handles[i] for i in order]
    topology = _read_topology(nv, gpus_sorted, handles_sorted)
    return Inventory(True, None, driver, cuda_driver, gpus_sorted, topology)


def _sort_key(gpu: GpuInfo) -> tuple[int, str, int]:
    bus = gpu.pci_bus_id
    return (0, bus, gpu.index) if isinstance(bus, str) else (1, "", gpu.index)


def _enabled_word(value: object) -> str:
    """[current, pending] modes or a plain int -> 'enabled'/'disabled' for the current mode."""
    current = value[0] if isinstance(value, (list, tuple)) else value
    return "enabled" if current else "disabled"


def _blank_gpu(index: int, refusal: Unavailable) -> GpuInfo:
    """A GPU whose handle NVML refused (usually lost): every field carries that refusal."""
    return GpuInfo(
        index=index, cuda_index=index, uuid=refusal, name=refusal, pci_bus_id=refusal,
        memory_total_bytes=refusal, memory_used_bytes=refusal, memory_free_bytes=refusal,
        compute_capability=refusal, pcie_gen_current=refusal, pcie_gen_max=refusal,
        pcie_width_current=refusal, pcie_width_max=refusal, power_limit_w=refusal,
        max_sm_clock_mhz=refusal, max_mem_clock_mhz=refusal, temperature_c=refusal, ecc=refusal,
        mig_mode=refusal, mig_devices=refusal, mig_slices_total=refusal, nvlink=refusal,
        cpu_affinity=refusal, numa_node=refusal, lost="lost" in refusal.reason,
    )  # fmt: skip


def _read_gpu(nv: NvmlBackend, index: int, handle: object) -> GpuInfo:
    if isinstance(handle, Unavailable):
        return _blank_gpu(index, handle)
    memory = read_field(nv, "nvmlDeviceGetMemoryInfo", handle)
    pci = read_field(nv, "nvmlDeviceGetPciInfo", handle)
    info = GpuInfo(
        index=index,
        cuda_index=index,
        uuid=_then(read_field(nv, "nvmlDeviceGetUUID", handle), _text),
        name=_then(read_field(nv, "nvmlDeviceGetName", handle), _text),
        pci_bus_id=_then(pci, _bus_id),
        memory_total_bytes=_then(memory, _attr_int("total")),
        memory_used_bytes=_then(memory, _attr_int("used")),
        memory_free_bytes=_then(memory, _attr_int("free")),
        compute_capability=_then(read_field(nv, "nvmlDeviceGetCudaComputeCapability", handle), _pair),
        pcie_gen_current=_then(read_field(nv, "nvmlDeviceGetCurrPcieLinkGeneration", handle), _as_int),
        pcie_gen_max=_then(read_field(nv, "nvmlDeviceGetMaxPcieLinkGeneration", handle), _as_int),
        pcie_width_current=_then(read_field(nv, "nvmlDeviceGetCurrPcieLinkWidth", handle), _as_int),
        pcie_width_max=_then(read_field(nv, "nvmlDeviceGetMaxPcieLinkWidth", handle), _as_int),
        power_limit_w=_then(
            read_field(nv, "nvmlDeviceGetPowerManagementLimit", handle), lambda mw: _as_number(mw) / 1000.0
        ),
        max_sm_clock_mhz=_then(read_field(nv, "nvmlDeviceGetMaxClockInfo", handle, CLOCK_SM), _as_int),
        max_mem_clock_mhz=_then(read_field(nv, "nvmlDeviceGetMaxClockInfo", handle, CLOCK_MEM), _as_int),
        temperature_c=_then(read_field(nv, "nvmlDeviceGetTemperature", handle, TEMPERATURE_GPU), _as_int),
        ecc=_then(read_field(nv, "nvmlDeviceGetEccMode", handle), _enabled_word),
        mig_mode=_then(read_field(nv, "nvmlDeviceGetMigMode", handle), _enabled_word),
    )
    if info.mig_mode == "enabled":
        info.mig_slices_total = _then(read_field(nv, "nvmlDeviceGetMaxMigDeviceCount", handle), _as_int)
        info.mig_devices = _read_mig_devices(nv, handle, info.mig_slices_total)
    info.nvlink = _read_nvlinks(nv, handle)
    info.cpu_affinity = _read_cpu_affinity(nv, handle)
    info.numa_node = _then(read_field(nv, "nvmlDeviceGetNumaNodeId", handle), _as_int)
    info.lost = any(
        isinstance(v, Unavailable) and v.reason == _ERROR_WORDS[ERROR_GPU_IS_LOST]
        for v in (info.uuid, info.name, memory, pci)
    )
    return info


_MIG_PROFILE = re.compile(r"\b(\d+g\.\d+gb(?:\+\w+)?)\b", re.IGNORECASE)


def _read_mig_devices(nv: NvmlBackend, handle: object, slots: MaybeInt) -> list[MigDevice] | Unavailable:
    """Every MIG device (compute instance) of a GPU with MIG on, read through its own MIG handle."""
    if isinstance(slots, Unavailable):
        return slots
    instances: list[MigDevice] = []
    for slot in range(slots):
        mig = read_field(nv, "nvmlDeviceGetMigDeviceHandleByIndex", handle, slot)
        if isinstance(mig, Unavailable):  # NOT_FOUND: an empty slot
            continue
        memory = read_field(nv, "nvmlDeviceGetMemoryInfo", mig)
        attributes = read_field(nv, "nvmlDeviceGetAttributes", mig)
        name = _then(read_field(nv, "nvmlDeviceGetName", mig), _text)
        found = _MIG_PROFILE.search(name) if isinstance(name, str) else None
        instances.append(
            {
                "index": slot,
                "uuid": _then(read_field(nv, "nvmlDeviceGetUUID", mig), _text),
                "name": name,
                "profile": found.group(1).lower() if found else None,
                "memory_total_bytes": _then(memory, _attr_int("total")),
                "gpu_instance_id": _then(read_field(nv, "nvmlDeviceGetGpuInstanceId", mig), _as_int),
                "compute_instance_id": _then(read_field(nv, "nvmlDeviceGetComputeInstanceId", mig), _as_int),
                "multiprocessor_count": _then(attributes, _attr_int("multiprocessorCount")),
                "compute_slices": _then(attributes, _attr_int("computeInstanceSliceCount")),
            }
        )
    return instances


def _read_cpu_affinity(nv: NvmlBackend, handle: object) -> list[int] | Unavailable:
    """The logical CPUs NVML names as nearest to the GPU: nvmlDeviceGetCpuAffinity fills 64-bit masks."""
    # NVML fills as many 64-bit words as it is given: room for 1024 CPUs, or all of this machine's if more.
    words = max(16, -(-(os.cpu_count() or 1) // 64))
    masks = read_field(nv, "nvmlDeviceGetCpuAffinity", handle, words)
    return _then(masks, _cpus_from_masks)


def _cpus_from_masks(masks: object) -> list[int]:
    if not hasattr(masks, "__iter__"):
        raise TypeError("expected an array of CPU masks")
    cpus: list[int] = []
    for word, mask in enumerate(masks):
        value = int(mask)
        cpus.extend(word * 64 + bit for bit in range(64) if value >> bit & 1)
    return cpus


def _read_nvlinks(nv: NvmlBackend, handle: object) -> list[NvLink] | Unavailable:
    """Active NVLink links with the PCI bus id at the other end (a GPU, or an NVSwitch on HGX boards)."""
    links: list[NvLink] = []
    limit = getattr(nv, "NVML_NVLINK_MAX_LINKS", 0)
    for link in range(max(NVLINK_MAX_LINKS, limit if isinstance(limit, int) else 0)):
        state = read_field(nv, "nvmlDeviceGetNvLinkState", handle, link)
        if isinstance(state, Unavailable):
            # The first refusal on link 0 means no NVLink on this GPU; later ones mark the end of its links.
            return state if link == 0 else links
        if not state:
            continue
        remote = read_field(nv, "nvmlDeviceGetNvLinkRemotePciInfo", handle, link)
        peer_type = read_field(nv, "nvmlDeviceGetNvLinkRemoteDeviceType", handle, link)
        links.append(
            {
                "link": link,
                "peer_pci_bus_id": _then(remote, _bus_id),
                "peer_type": _then(
                    peer_type, lambda t: "switch" if t == NVLINK_DEVICE_TYPE_SWITCH else "gpu"
                ),
            }
        )
    return links


def _p2p_word(nv: NvmlBackend, a: object, b: object, index: int) -> str:
    status = read_field(nv, "nvmlDeviceGetP2PStatus", a, b, index)
    if isinstance(status, Unavailable):
        return f"unknown: {status.reason}"
    return (
        _P2P_STATUS_WORDS.get(status, f"status {status}") if isinstance(status, int) else f"status {status}"
    )


def _nvlinks_between(a: GpuInfo, b: GpuInfo) -> int:
    """Direct links from a to b; on NVSwitch boards, the links a and b both have into the switch fabric."""
    if not isinstance(a.nvlink, list) or not isinstance(b.nvlink, list):
        return 0
    direct = sum(1 for link in a.nvlink if link["peer_pci_bus_id"] == b.pci_bus_id)
    if direct:
        return direct
    a_switch = sum(1 for link in a.nvlink if link["peer_type"] == "switch")
    b_switch = sum(1 for link in b.nvlink if link["peer_type"] == "switch")
    return min(a_switch, b_switch)


def _read_topology(nv: NvmlBackend, gpus: list[GpuInfo], handles: list[object]) -> JSONObject:
    """How each pair of GPUs is connected: NVLink (with link count), PCIe switch, host bridge, CPU sockets."""
    pairs: list[JSONValue] = []
    for i in range(len(gpus)):
        for j in range(i + 1, len(gpus)):
            if isinstance(handles[i], Unavailable) or isinstance(handles[j], Unavailable):
                continue
            pairs.append(_read_pair(nv, gpus[i], gpus[j], handles[i], handles[j]))
    legend: JSONObject = {code: f"{name}: {words}" for name, code, words in TOPOLOGY_LEVELS.values()}
    legend["NV#"] = "nvlink: # NVLink links (direct or through NVSwitch)"
    return {"pairs": pairs, "legend": legend}


def _read_pair(nv: NvmlBackend, a: GpuInfo, b: GpuInfo, ha: object, hb: object) -> JSONObject:
    level = read_field(nv, "nvmlDeviceGetTopologyCommonAncestor", ha, hb)
    p2p_nvlink = _p2p_word(nv, ha, hb, P2P_CAPS_INDEX_NVLINK)
    nvlinks = _nvlinks_between(a, b)
    if isinstance(level, Unavailable):
        pcie_link, code, words = "unknown", "?", f"unknown: {level.reason}"
    elif isinstance(level, int) and level in TOPOLOGY_LEVELS:
        pcie_link, code, words = TOPOLOGY_LEVELS[level]
    else:
        pcie_link, code, words = "unknown", "?", f"level {level}"
    if p2p_nvlink == "ok" or nvlinks:
        link, code = "nvlink", f"NV{nvlinks}" if nvlinks else "NV"
        words = f"NVLink ({nvlinks} links)" if nvlinks else "NVLink"
    else:
        link = pcie_link
    return {
        "a": a.cuda_index,
        "b": b.cuda_index,
        "link": link,
        "code": code,
        "description": words,
        "pcie_path": pcie_link,
        "nvlink_count": nvlinks,
        "p2p_read": _p2p_word(nv, ha, hb, P2P_CAPS_INDEX_READ),
        "p2p_nvlink": p2p_nvlink,
    }


# --------------------------------------------------------------------------------------------------------------
# Activity before a measurement: who else computes on the GPU
# --------------------------------------------------------------------------------------------------------------


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
    utilization = _then(
        read_field(nv, "nvmlDeviceGetUtilizationRates", handle), lambda u: _as_number(_member(u, "gpu"))
    )
    memory = _then(read_field(nv, "nvmlDeviceGetMemoryInfo", handle), _attr_int("used"))
    # pynvml's nvmlDeviceGetComputeRunningProcesses calls the _v3 symbol, which drivers before R510 lack.
    processes = _then(
        _first_available(nv, ("nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetComputeRunningProcesses_v2"),
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
                "pid": _as_int(_member(entry, "pid")),
                "used_memory_bytes": used if isinstance(used, int) else None,
            }
        )
    return found


# --------------------------------------------------------------------------------------------------------------
# Live telemetry
# --------------------------------------------------------------------------------------------------------------

METRICS = (
    "utilization_pct",
    "memory_used_bytes",
    "temperature_c",
    "power_w",
    "sm_clock_mhz",
    "pcie_tx_bytes_per_s",
    "pcie_rx_bytes_per_s",
    "clocks_event_reasons",
)


@dataclass(frozen=True)
class Sample:
    """One reading of one GPU; None where NVML refused the field. t_s: seconds since the sampler started."""

    gpu: int  # cuda_index (PCI bus order)
    t_s: float
    utilization_pct: float | None = None
    memory_used_bytes: float | None = None
    temperature_c: float | None = None
    power_w: float | None = None
    sm_clock_mhz: float | None = None
    pcie_tx_bytes_per_s: float | None = None
    pcie_rx_bytes_per_s: float | None = None
    clocks_event_reasons: float | None = None  # bit mask (nvmlClocksEventReasons): why clocks are held down

    def to_dict(self) -> dict[str, float | None]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "gpu"}


class TrackStatus(TypedDict):
    name: str
    lost: bool
    lost_reason: str | None
    refused: dict[str, str]
    samples: int


class _GpuLost(Exception):
    pass


class _Track:
    """Per-GPU sampling state: the handle, the ring buffer, which fields NVML refused, whether the GPU is lost."""

    def __init__(self, cuda_index: int, name: str, handle: object, capacity: int):
        self.cuda_index = cuda_index
        self.name = name
        self.handle = handle
        self.samples: deque[Sample] = deque(maxlen=capacity)
        self.refused: dict[str, str] = {}
        self.lost_reason: str | None = None
        self.reasons_function = "nvmlDeviceGetCurrentClocksEventReasons"


_OLD_REASONS = "nvmlDeviceGetCurrentClocksThrottleReasons"
_MISSING_FUNCTION = (
    _ERROR_WORDS[ERROR_FUNCTION_NOT_FOUND],
    "nvmlDeviceGetCurrentClocksEventReasons is not in this nvidia-ml-py version",
)


class TelemetrySampler:
    """Samples every GPU at a fixed rate in a background thread into bounded ring buffers.

    `snapshot()` is thread-safe and cheap enough for a GUI timer. A GPU that is lost mid-session is marked lost
    (see `status()`) and the others keep being sampled. Fields NVML refuses are recorded once and not asked
    again. `include_pcie=False` skips the PCIe counters (each costs about 20 ms of NVML time per GPU).
    """

    def __init__(
        self,
        backend: NvmlBackend | None = None,
        interval_s: float = 1.0,
        capacity: int = 600,
        include_pcie: bool = True,
        gpus: list[int] | None = None,
    ):
        if interval_s <= 0 or capacity < 1:
            raise ValueError("interval_s must be > 0 and capacity >= 1")
        self.interval_s = float(interval_s)
        self.capacity = int(capacity)
        self.include_pcie = include_pcie
        self._only = None if gpus is None else set(gpus)
        self._backend = backend
        self._nv: NvmlBackend | None = None
        self._tracks: list[_Track] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._t0 = time.monotonic()
        self.error: str | None = None  # why sampling could not start, if it could not

    # -- lifecycle ---------------------------------------------------------------------------------------------
    def _ensure_open(self) -> NvmlBackend | None:
        if self._nv is not None:
            return self._nv
        if self.error is not None:
            return None
        try:
            nv = self._backend if self._backend is not None else open_backend()
            nv.nvmlInit()
        except Exception as exc:  # NVMLError, OSError from the loader, NvmlUnavailable: no sampling, say why
            self.error = f"no NVIDIA GPU: {exc if isinstance(exc, NvmlUnavailable) else describe_error(exc)}"
            return None
        self._nv = nv
        self._tracks = self._discover(nv)
        self._t0 = time.monotonic()
        return nv

    def _discover(self, nv: NvmlBackend) -> list[_Track]:
        count = _then(read_field(nv, "nvmlDeviceGetCount"), _as_int)
        if isinstance(count, Unavailable):
            self.error = f"cannot count devices: {count.reason}"
            return []
        found: list[tuple[str, int, object, MaybeStr]] = []
        for index in range(count):
            handle = read_field(nv, "nvmlDeviceGetHandleByIndex", index)
            pci = read_field(nv, "nvmlDeviceGetPciInfo", handle)
            bus = _then(pci, _bus_id)
            name = _then(read_field(nv, "nvmlDeviceGetName", handle), _text)
            found.append((bus if isinstance(bus, str) else f"~{index:04d}", index, handle, name))
        found.sort(key=lambda entry: (entry[0], entry[1]))
        tracks = []
        for cuda_index, (_, index, handle, name) in enumerate(found):
            if self._only is not None and cuda_index not in self._only:
                continue
            label = name if isinstance(name, str) else f"GPU {index}"
            track = _Track(cuda_index, label, handle, self.capacity)
            if isinstance(handle, Unavailable):
                track.lost_reason = handle.reason
            tracks.append(track)
        return tracks

    def start(self) -> TelemetrySampler:
        """Start the background thread (no-op when already running or when NVML is unavailable)."""
        if self._thread is not None and self._thread.is_alive():
            return self
        if self._ensure_open() is None:
            return self
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="gpu-telemetry", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop sampling, join the thread and release NVML. The buffers stay readable."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._nv is not None:
            try:
                self._nv.nvmlShutdown()
            except Exception:  # shutting down a broken NVML: the buffers are what matters now
                pass
            self._nv = None

    def __enter__(self) -> TelemetrySampler:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        next_at = time.monotonic()
        while not self._stop.is_set():
            self.sample_once()
            next_at += self.interval_s
            delay = next_at - time.monotonic()
            if delay < 0:  # sampling took longer than the interval: skip ahead instead of bursting
                next_at, delay = time.monotonic(), 0.0
            self._stop.wait(delay)

    # -- sampling ----------------------------------------------------------------------------------------------
    def sample_once(self) -> list[Sample]:
        """Read every GPU that is not lost once; append to the ring buffers and return the new samples."""
        nv = self._ensure_open()
        if nv is None:
            return []
        new = []
        for track in self._tracks:
            if track.lost_reason is not None:
                continue
            try:
                sample = self._read_sample(nv, track)
            except _GpuLost as lost:
                with self._lock:
                    track.lost_reason = str(lost)
                continue
            with self._lock:
                track.samples.append(sample)
            new.append(sample)
        return new

    def _read(self, nv: NvmlBackend, track: _Track, metric: str, function_name: str, *args: object) -> object:
        if metric in track.refused:
            return None
        function = getattr(nv, function_name, None)
        if function is None:
            track.refused[metric] = f"{function_name} is not in this nvidia-ml-py version"
            return None
        try:
            value: object = function(track.handle, *args)
        except nv.NVMLError as exc:
            if is_gpu_lost(exc):
                raise _GpuLost(describe_error(exc)) from None
            track.refused[metric] = describe_error(exc)
            return None
        return value

    def _read_sample(self, nv: NvmlBackend, track: _Track) -> Sample:
        t_s = time.monotonic() - self._t0
        util = self._read(nv, track, "utilization_pct", "nvmlDeviceGetUtilizationRates")
        memory = self._read(nv, track, "memory_used_bytes", "nvmlDeviceGetMemoryInfo")
        power = self._read(nv, track, "power_w", "nvmlDeviceGetPowerUsage")
        reasons = self._read(nv, track, "clocks_event_reasons", track.reasons_function)
        if (
            track.refused.get("clocks_event_reasons") in _MISSING_FUNCTION
            and track.reasons_function != _OLD_REASONS
        ):
            # Drivers before 535 only have the older name for the same bit mask; switch to it once.
            track.reasons_function = _OLD_REASONS
            del track.refused["clocks_event_reasons"]
            reasons = self._read(nv, track, "clocks_event_reasons", track.reasons_function)
        tx = rx = None
        if self.include_pcie:
            tx = self._read(
                nv, track, "pcie_tx_bytes_per_s", "nvmlDeviceGetPcieThroughput", PCIE_UTIL_TX_BYTES
            )
            rx = self._read(
                nv, track, "pcie_rx_bytes_per_s", "nvmlDeviceGetPcieThroughput", PCIE_UTIL_RX_BYTES
            )
        temperature = self._read(nv, track, "temperature_c", "nvmlDeviceGetTemperature", TEMPERATURE_GPU)
        sm_clock = self._read(nv, track, "sm_clock_mhz", "nvmlDeviceGetClockInfo", CLOCK_SM)
        return Sample(
            gpu=track.cuda_index,
            t_s=round(t_s, 4),
            utilization_pct=_scaled(getattr(util, "gpu", None) if util is not None else None),
            memory_used_bytes=_scaled(getattr(memory, "used", None) if memory is not None else None),
            temperature_c=_scaled(temperature),
            power_w=_scaled(power, 1 / 1000.0),  # NVML reports milliwatts
            sm_clock_mhz=_scaled(sm_clock),
            pcie_tx_bytes_per_s=_scaled(tx, 1024.0),  # NVML reports KiB/s
            pcie_rx_bytes_per_s=_scaled(rx, 1024.0),
            clocks_event_reasons=_scaled(reasons),
        )

    # -- reading back ------------------------------------------------------------------------------------------
    def samples(self, gpu: int) -> list[Sample]:
        """A copy of one GPU's ring buffer, oldest first."""
        with self._lock:
            for track in self._tracks:
                if track.cuda_index == gpu:
                    return list(track.samples)
        return []

    def snapshot(self) -> dict[int, dict[str, NDArray[np.float64]]]:
        """Per GPU (cuda_index): {"t_s": array, <metric>: array, ...} as float64 numpy arrays, oldest first.

        Refused readings are NaN. Thread-safe: the buffers are copied under the lock, arrays built outside it.
        """
        import numpy as np  # only the GUI calls this; keeps gpu-probe free of a hard numpy dependency

        with self._lock:
            copies = {track.cuda_index: list(track.samples) for track in self._tracks}
        result: dict[int, dict[str, NDArray[np.float64]]] = {}
        for gpu, samples in copies.items():
            columns = {"t_s": np.array([s.t_s for s in samples], dtype=np.float64)}
            for metric in METRICS:
                values = [getattr(s, metric) for s in samples]
                columns[metric] = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
            result[gpu] = columns
        return result

    def status(self) -> dict[int, TrackStatus]:
        """Per GPU: name, lost (bool), lost_reason, refused fields {metric: reason}, sample count."""
        with self._lock:
            return {
                t.cuda_index: {
                    "name": t.name,
                    "lost": t.lost_reason is not None,
                    "lost_reason": t.lost_reason,
                    "refused": dict(t.refused),
                    "samples": len(t.samples),
                }
                for t in self._tracks
            }

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()


def _scaled(value: object, factor: float = 1.0) -> float | None:
    """A reading as a float in the sampler's unit; None for a refused one (or one of an unexpected type)."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) * factor
