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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeAlias, TypedDict, TypeVar

if TYPE_CHECKING:
    pass

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
NVLINK_MAX_LINKS = (
    18  # NVML_NVLINK_MAX_LINKS was 18 up to Hopper; newer headers say 36 (probed until refused)
)
NVLINK_DEVICE_TYPE_SWITCH = 2
# A GPU counts as busy before a measurement when another process computes on it or its utilisation is at least
# this (mamf-finder's siblings_idle uses the same 10 % line between idle and computing).
BUSY_UTILIZATION_PCT = 10.0

ERROR_WORDS = {
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

P2P_STATUS_WORDS = {
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
    if isinstance(code, int) and code in ERROR_WORDS:
        return ERROR_WORDS[code]
    text = str(error) or type(error).__name__
    return f"NVML error {code}: {text}" if code is not None else text


def is_gpu_lost(error: BaseException) -> bool:
    return getattr(error, "value", None) == ERROR_GPU_IS_LOST


def nvml_text(value: object) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def normalize_bus_id(bus_id: object) -> str:
    """'00000000:3B:00.0' and '0000:3b:00.0' both become '0000:3b:00.0' (domain:bus:device.function)."""
    text = nvml_text(bus_id).strip().lower()
    domain, _, rest = text.partition(":")
    if not rest:
        return text
    return f"{domain[-4:].rjust(4, '0')}:{rest}"


def cuda_driver_version_text(version: object) -> str:
    """NVML's integer CUDA driver version 12040 -> '12.4'."""
    number = as_int(version)
    return f"{number // 1000}.{(number % 1000) // 10}"


def as_int(value: object) -> int:
    """An integer NVML returned (ctypes c_uint values arrive as int); anything else is a defect in the binding."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer from NVML, got {type(value).__name__}")
    return value


def as_number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"expected a number from NVML, got {type(value).__name__}")
    return float(value)


def struct_member(struct: object, name: str) -> object:
    """A field of an NVML ctypes structure (pynvml has no type information, so every read is checked)."""
    return getattr(struct, name)


def bus_id_of(pci: object) -> str:
    return normalize_bus_id(struct_member(pci, "busId"))


def attr_int(name: str) -> Callable[[object], int]:
    """Read an integer field of an NVML structure (memory.total, pci.busId's siblings, attributes...)."""
    return lambda struct: as_int(struct_member(struct, name))


def int_pair(value: object) -> tuple[int, int]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise TypeError("expected (major, minor)")
    return as_int(value[0]), as_int(value[1])


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


def then_convert(value: object, convert: Callable[[object], T]) -> T | Unavailable:
    """convert(value) unless NVML refused it; a value of an unexpected shape is refused with the reason."""
    if isinstance(value, Unavailable):
        return value
    try:
        return convert(value)
    except (TypeError, ValueError, AttributeError) as exc:
        return Unavailable(f"unexpected NVML value: {exc}")


def first_available(nv: NvmlBackend, names: tuple[str, ...], *args: object) -> object:
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
    return value.reason == ERROR_WORDS[ERROR_FUNCTION_NOT_FOUND] or value.reason.endswith(
        "is not in this nvidia-ml-py version"
    )
