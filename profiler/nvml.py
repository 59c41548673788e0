"""NVIDIA GPU inventory and live telemetry through NVML (nvidia-ml-py, import name ``pynvml``).

Patterned after nvitop's ``libnvml``: NVML is initialised lazily, every field is read on its own, and a field
NVML refuses (NotSupported on consumer cards, under MIG, in WSL2 or containers; NoPermission; a lost GPU)
becomes ``Unavailable(reason)`` instead of an exception. A machine without the library or the driver gets an
Inventory saying "no NVIDIA GPU" and why; ``read_inventory`` never raises.

The backend is the ``pynvml`` module itself, or, when the environment variable GPU_ADVISOR_FAKE_NVML names a
scenario, the fake in profiler.fake_nvml which has the same function names, constants and NVMLError codes, so
this module runs the same code path for both. pynvml is imported only inside ``open_backend``.

Device order: GPUs are listed in PCI bus id order, which is CUDA's order when CUDA_DEVICE_ORDER=PCI_BUS_ID (the
probe sets it), so ``cuda_index`` here is the N in ``cuda:N`` when CUDA_VISIBLE_DEVICES is not set.

Units: bytes, watts, MHz, degrees Celsius, percent, bytes per second (PCIe throughput; NVML reports KiB/s).
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import Any

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


class NvmlUnavailable(RuntimeError):
    """NVML cannot be used at all (no library, no driver, bindings missing); the message is the reason."""


@dataclass(frozen=True)
class Unavailable:
    """A field NVML refused, with the reason ("not supported on this GPU or driver", "no permission", ...)."""

    reason: str

    def __bool__(self) -> bool:
        return False

    def to_dict(self) -> dict:
        return {"unavailable": self.reason}


def describe_error(error: BaseException) -> str:
    """Words for an NVML error (by its code when it has one)."""
    code = getattr(error, "value", None)
    if code in _ERROR_WORDS:
        return _ERROR_WORDS[code]
    text = str(error) or type(error).__name__
    return f"NVML error {code}: {text}" if code is not None else text


def is_gpu_lost(error: BaseException) -> bool:
    return getattr(error, "value", None) == ERROR_GPU_IS_LOST


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def normalize_bus_id(bus_id: str) -> str:
    """'00000000:3B:00.0' and '0000:3b:00.0' both become '0000:3b:00.0' (domain:bus:device.function)."""
    text = _text(bus_id).strip().lower()
    domain, _, rest = text.partition(":")
    if not rest:
        return text
    return f"{domain[-4:].rjust(4, '0')}:{rest}"


def cuda_driver_version_text(version: int) -> str:
    """NVML's integer CUDA driver version 12040 -> '12.4'."""
    return f"{version // 1000}.{(version % 1000) // 10}"


# --------------------------------------------------------------------------------------------------------------
# Backend and session
# --------------------------------------------------------------------------------------------------------------


def open_backend(scenario: str | None = None) -> Any:
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
    return pynvml


@contextmanager
def nvml_session(backend: Any = None) -> Iterator[Any]:
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


def read_field(nv: Any, function_name: str, *args: Any) -> Any:
    """Call one NVML function; a refusal becomes Unavailable(reason) instead of an exception."""
    function = getattr(nv, function_name, None)
    if function is None:
        return Unavailable(f"{function_name} is not in this nvidia-ml-py version")
    try:
        return function(*args)
    except nv.NVMLError as exc:
        return Unavailable(describe_error(exc))
    except Exception as exc:  # ctypes/argument errors in old bindings: still one field, never the whole read
        return Unavailable(f"{type(exc).__name__}: {exc}")


def _then(value: Any, convert: Callable[[Any], Any]) -> Any:
    return value if isinstance(value, Unavailable) else convert(value)


# --------------------------------------------------------------------------------------------------------------
# Inventory
# --------------------------------------------------------------------------------------------------------------


@dataclass
class GpuInfo:
    """One GPU as NVML describes it. Any field may be Unavailable(reason)."""

    index: int  # NVML's index
    cuda_index: int  # position in PCI bus id order (CUDA's order with CUDA_DEVICE_ORDER=PCI_BUS_ID)
    uuid: Any
    name: Any
    pci_bus_id: Any  # normalised '0000:3b:00.0'
    memory_total_bytes: Any
    memory_used_bytes: Any
    memory_free_bytes: Any
    compute_capability: Any  # (major, minor)
    pcie_gen_current: Any
    pcie_gen_max: Any
    pcie_width_current: Any
    pcie_width_max: Any
    power_limit_w: Any
    max_sm_clock_mhz: Any
    max_mem_clock_mhz: Any
    temperature_c: Any
    ecc: Any  # "enabled" | "disabled"
    mig_mode: Any  # "enabled" | "disabled"
    mig_devices: Any = field(default_factory=list)  # [{"index", "uuid", "memory_total_bytes"}]
    nvlink: Any = field(default_factory=list)  # [{"link", "peer_pci_bus_id", "peer_type"}] active links only
    lost: bool = False

    def to_dict(self) -> dict:
        return {f.name: _json_safe(getattr(self, f.name)) for f in fields(self)}


@dataclass
class Inventory:
    """All GPUs NVML sees. `available` is False (with `reason` starting "no NVIDIA GPU") when there are none."""

    available: bool
    reason: str | None
    driver_version: Any = None
    cuda_driver_version: Any = None
    gpus: list[GpuInfo] = field(default_factory=list)
    topology: dict = field(default_factory=lambda: {"pairs": []})

    def to_dict(self) -> dict:
        return {
            "available": self.available,
            "reason": self.reason,
            "driver_version": _json_safe(self.driver_version),
            "cuda_driver_version": _json_safe(self.cuda_driver_version),
            "gpus": [gpu.to_dict() for gpu in self.gpus],
            "topology": _json_safe(self.topology),
        }


def _json_safe(value: Any) -> Any:
    if isinstance(value, Unavailable):
        return value.to_dict()
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, bytes):
        return _text(value)
    return value


def read_inventory(backend: Any = None) -> Inventory:
    """Everything NVML can tell about this machine's GPUs. Never raises."""
    try:
        nv = backend if backend is not None else open_backend()
        with nvml_session(nv):
            return _read_inventory(nv)
    except NvmlUnavailable as exc:
        return Inventory(available=False, reason=f"no NVIDIA GPU: {exc}")
    except Exception as exc:  # a defect in bindings or driver must not crash the caller; say what happened
        return Inventory(available=False, reason=f"no NVIDIA GPU: NVML failed ({type(exc).__name__}: {exc})")


def _read_inventory(nv: Any) -> Inventory:
    driver = _then(read_field(nv, "nvmlSystemGetDriverVersion"), _text)
    cuda_raw = read_field(nv, "nvmlSystemGetCudaDriverVersion_v2")
    if isinstance(cuda_raw, Unavailable):
        cuda_raw = read_field(nv, "nvmlSystemGetCudaDriverVersion")
    cuda_driver = _then(cuda_raw, cuda_driver_version_text)
    count = read_field(nv, "nvmlDeviceGetCount")
    if isinstance(count, Unavailable):
        return Inventory(False, f"no NVIDIA GPU: cannot count devices ({count.reason})", driver, cuda_driver)
    if count == 0:
        return Inventory(
            False, "no NVIDIA GPU: the driver is loaded but reports 0 devices", driver, cuda_driver
        )

    handles, gpus = [], []
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


def _sort_key(gpu: GpuInfo) -> tuple:
    bus = gpu.pci_bus_id
    return (0, bus, gpu.index) if isinstance(bus, str) else (1, "", gpu.index)


def _enabled_word(value: Any) -> Any:
    """[current, pending] modes or a plain int -> 'enabled'/'disabled' for the current mode."""
    current = value[0] if isinstance(value, (list, tuple)) else value
    return "enabled" if current else "disabled"


def _read_gpu(nv: Any, index: int, handle: Any) -> GpuInfo:
    if isinstance(handle, Unavailable):
        blank = {f.name: handle for f in fields(GpuInfo) if f.name not in ("index", "cuda_index", "lost")}
        blank.update(mig_devices=handle, nvlink=handle)
        return GpuInfo(index=index, cuda_index=index, lost="lost" in handle.reason, **blank)
    memory = read_field(nv, "nvmlDeviceGetMemoryInfo", handle)
    pci = read_field(nv, "nvmlDeviceGetPciInfo", handle)
    info = GpuInfo(
        index=index,
        cuda_index=index,
        uuid=_then(read_field(nv, "nvmlDeviceGetUUID", handle), _text),
        name=_then(read_field(nv, "nvmlDeviceGetName", handle), _text),
        pci_bus_id=_then(pci, lambda p: normalize_bus_id(p.busId)),
        memory_total_bytes=_then(memory, lambda m: int(m.total)),
        memory_used_bytes=_then(memory, lambda m: int(m.used)),
        memory_free_bytes=_then(memory, lambda m: int(m.free)),
        compute_capability=_then(read_field(nv, "nvmlDeviceGetCudaComputeCapability", handle), tuple),
        pcie_gen_current=read_field(nv, "nvmlDeviceGetCurrPcieLinkGeneration", handle),
        pcie_gen_max=read_field(nv, "nvmlDeviceGetMaxPcieLinkGeneration", handle),
        pcie_width_current=read_field(nv, "nvmlDeviceGetCurrPcieLinkWidth", handle),
        pcie_width_max=read_field(nv, "nvmlDeviceGetMaxPcieLinkWidth", handle),
        power_limit_w=_then(
            read_field(nv, "nvmlDeviceGetPowerManagementLimit", handle), lambda mw: mw / 1000.0
        ),
        max_sm_clock_mhz=read_field(nv, "nvmlDeviceGetMaxClockInfo", handle, CLOCK_SM),
        max_mem_clock_mhz=read_field(nv, "nvmlDeviceGetMaxClockInfo", handle, CLOCK_MEM),
        temperature_c=read_field(nv, "nvmlDeviceGetTemperature", handle, TEMPERATURE_GPU),
        ecc=_then(read_field(nv, "nvmlDeviceGetEccMode", handle), _enabled_word),
        mig_mode=_then(read_field(nv, "nvmlDeviceGetMigMode", handle), _enabled_word),
    )
    info.mig_devices = _read_mig_devices(nv, handle) if info.mig_mode == "enabled" else []
    info.nvlink = _read_nvlinks(nv, handle)
    info.lost = any(
        isinstance(v, Unavailable) and v.reason == _ERROR_WORDS[ERROR_GPU_IS_LOST]
        for v in (info.uuid, info.name, memory, pci)
    )
    return info


def _read_mig_devices(nv: Any, handle: Any) -> Any:
    count = read_field(nv, "nvmlDeviceGetMaxMigDeviceCount", handle)
    if isinstance(count, Unavailable):
        return count
    instances = []
    for slot in range(count):
        mig = read_field(nv, "nvmlDeviceGetMigDeviceHandleByIndex", handle, slot)
        if isinstance(mig, Unavailable):  # NOT_FOUND: an empty slot
            continue
        memory = read_field(nv, "nvmlDeviceGetMemoryInfo", mig)
        instances.append(
            {
                "index": slot,
                "uuid": _then(read_field(nv, "nvmlDeviceGetUUID", mig), _text),
                "memory_total_bytes": _then(memory, lambda m: int(m.total)),
            }
        )
    return instances


def _read_nvlinks(nv: Any, handle: Any) -> Any:
    """Active NVLink links with the PCI bus id at the other end (a GPU, or an NVSwitch on HGX boards)."""
    links = []
    for link in range(max(NVLINK_MAX_LINKS, int(getattr(nv, "NVML_NVLINK_MAX_LINKS", 0) or 0))):
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
                "peer_pci_bus_id": _then(remote, lambda p: normalize_bus_id(p.busId)),
                "peer_type": _then(
                    peer_type, lambda t: "switch" if t == NVLINK_DEVICE_TYPE_SWITCH else "gpu"
                ),
            }
        )
    return links


def _p2p_word(nv: Any, a: Any, b: Any, index: int) -> str:
    status = read_field(nv, "nvmlDeviceGetP2PStatus", a, b, index)
    if isinstance(status, Unavailable):
        return f"unknown: {status.reason}"
    return _P2P_STATUS_WORDS.get(status, f"status {status}")


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


def _read_topology(nv: Any, gpus: list[GpuInfo], handles: list[Any]) -> dict:
    """How each pair of GPUs is connected: NVLink (with link count), PCIe switch, host bridge, CPU sockets."""
    pairs = []
    for i in range(len(gpus)):
        for j in range(i + 1, len(gpus)):
            if isinstance(handles[i], Unavailable) or isinstance(handles[j], Unavailable):
                continue
            pairs.append(_read_pair(nv, gpus[i], gpus[j], handles[i], handles[j]))
    return {
        "pairs": pairs,
        "legend": {code: f"{name}: {words}" for name, code, words in TOPOLOGY_LEVELS.values()}
        | {"NV#": "nvlink: # NVLink links (direct or through NVSwitch)"},
    }


def _read_pair(nv: Any, a: GpuInfo, b: GpuInfo, ha: Any, hb: Any) -> dict:
    level = read_field(nv, "nvmlDeviceGetTopologyCommonAncestor", ha, hb)
    p2p_nvlink = _p2p_word(nv, ha, hb, P2P_CAPS_INDEX_NVLINK)
    nvlinks = _nvlinks_between(a, b)
    if isinstance(level, Unavailable):
        pcie_link, code, words = "unknown", "?", f"unknown: {level.reason}"
    else:
        pcie_link, code, words = TOPOLOGY_LEVELS.get(level, ("unknown", "?", f"level {level}"))
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

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "gpu"}


class _GpuLost(Exception):
    pass


class _Track:
    """Per-GPU sampling state: the handle, the ring buffer, which fields NVML refused, whether the GPU is lost."""

    def __init__(self, cuda_index: int, name: str, handle: Any, capacity: int):
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
        backend: Any = None,
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
        self._nv: Any = None
        self._tracks: list[_Track] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._t0 = time.monotonic()
        self.error: str | None = None  # why sampling could not start, if it could not

    # -- lifecycle ---------------------------------------------------------------------------------------------
    def _ensure_open(self) -> bool:
        if self._nv is not None:
            return True
        if self.error is not None:
            return False
        try:
            nv = self._backend if self._backend is not None else open_backend()
            nv.nvmlInit()
        except Exception as exc:
            self.error = f"no NVIDIA GPU: {exc if isinstance(exc, NvmlUnavailable) else describe_error(exc)}"
            return False
        self._nv = nv
        self._tracks = self._discover(nv)
        self._t0 = time.monotonic()
        return True

    def _discover(self, nv: Any) -> list[_Track]:
        count = read_field(nv, "nvmlDeviceGetCount")
        if isinstance(count, Unavailable):
            self.error = f"cannot count devices: {count.reason}"
            return []
        found = []
        for index in range(count):
            handle = read_field(nv, "nvmlDeviceGetHandleByIndex", index)
            pci = read_field(nv, "nvmlDeviceGetPciInfo", handle)
            bus = _then(pci, lambda p: normalize_bus_id(p.busId))
            name = read_field(nv, "nvmlDeviceGetName", handle)
            found.append((bus if isinstance(bus, str) else f"~{index:04d}", index, handle, name))
        found.sort()
        tracks = []
        for cuda_index, (_, index, handle, name) in enumerate(found):
            if self._only is not None and cuda_index not in self._only:
                continue
            label = _text(name) if not isinstance(name, Unavailable) else f"GPU {index}"
            track = _Track(cuda_index, label, handle, self.capacity)
            if isinstance(handle, Unavailable):
                track.lost_reason = handle.reason
            tracks.append(track)
        return tracks

    def start(self) -> TelemetrySampler:
        """Start the background thread (no-op when already running or when NVML is unavailable)."""
        if self._thread is not None and self._thread.is_alive():
            return self
        if not self._ensure_open():
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
            except Exception:
                pass
            self._nv = None

    def __enter__(self) -> TelemetrySampler:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
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
        if not self._ensure_open():
            return []
        new = []
        for track in self._tracks:
            if track.lost_reason is not None:
                continue
            try:
                sample = self._read_sample(track)
            except _GpuLost as lost:
                with self._lock:
                    track.lost_reason = str(lost)
                continue
            with self._lock:
                track.samples.append(sample)
            new.append(sample)
        return new

    def _read(self, track: _Track, metric: str, function_name: str, *args: Any) -> Any:
        if metric in track.refused:
            return None
        function = getattr(self._nv, function_name, None)
        if function is None:
            track.refused[metric] = f"{function_name} is not in this nvidia-ml-py version"
            return None
        try:
            return function(track.handle, *args)
        except self._nv.NVMLError as exc:
            if is_gpu_lost(exc):
                raise _GpuLost(describe_error(exc)) from None
            track.refused[metric] = describe_error(exc)
            return None

    def _read_sample(self, track: _Track) -> Sample:
        t_s = time.monotonic() - self._t0
        util = self._read(track, "utilization_pct", "nvmlDeviceGetUtilizationRates")
        memory = self._read(track, "memory_used_bytes", "nvmlDeviceGetMemoryInfo")
        power = self._read(track, "power_w", "nvmlDeviceGetPowerUsage")
        reasons = self._read(track, "clocks_event_reasons", track.reasons_function)
        if (
            track.refused.get("clocks_event_reasons") in _MISSING_FUNCTION
            and track.reasons_function != _OLD_REASONS
        ):
            # Drivers before 535 only have the older name for the same bit mask; switch to it once.
            track.reasons_function = _OLD_REASONS
            del track.refused["clocks_event_reasons"]
            reasons = self._read(track, "clocks_event_reasons", track.reasons_function)
        tx = rx = None
        if self.include_pcie:
            tx = self._read(track, "pcie_tx_bytes_per_s", "nvmlDeviceGetPcieThroughput", PCIE_UTIL_TX_BYTES)
            rx = self._read(track, "pcie_rx_bytes_per_s", "nvmlDeviceGetPcieThroughput", PCIE_UTIL_RX_BYTES)
        return Sample(
            gpu=track.cuda_index,
            t_s=round(t_s, 4),
            utilization_pct=None if util is None else float(util.gpu),
            memory_used_bytes=None if memory is None else float(memory.used),
            temperature_c=_float(
                self._read(track, "temperature_c", "nvmlDeviceGetTemperature", TEMPERATURE_GPU)
            ),
            power_w=None if power is None else power / 1000.0,  # NVML reports milliwatts
            sm_clock_mhz=_float(self._read(track, "sm_clock_mhz", "nvmlDeviceGetClockInfo", CLOCK_SM)),
            pcie_tx_bytes_per_s=None if tx is None else tx * 1024.0,  # NVML reports KiB/s
            pcie_rx_bytes_per_s=None if rx is None else rx * 1024.0,
            clocks_event_reasons=_float(reasons),
        )

    # -- reading back ------------------------------------------------------------------------------------------
    def samples(self, gpu: int) -> list[Sample]:
        """A copy of one GPU's ring buffer, oldest first."""
        with self._lock:
            for track in self._tracks:
                if track.cuda_index == gpu:
                    return list(track.samples)
        return []

    def snapshot(self) -> dict[int, dict[str, Any]]:
        """Per GPU (cuda_index): {"t_s": array, <metric>: array, ...} as float64 numpy arrays, oldest first.

        Refused readings are NaN. Thread-safe: the buffers are copied under the lock, arrays built outside it.
        """
        import numpy as np  # only the GUI calls this; keeps gpu-probe free of a hard numpy dependency

        with self._lock:
            copies = {track.cuda_index: list(track.samples) for track in self._tracks}
        result = {}
        for gpu, samples in copies.items():
            columns: dict[str, Any] = {"t_s": np.array([s.t_s for s in samples], dtype=np.float64)}
            for metric in METRICS:
                values = [getattr(s, metric) for s in samples]
                columns[metric] = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
            result[gpu] = columns
        return result

    def status(self) -> dict[int, dict[str, Any]]:
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


def _float(value: Any) -> float | None:
    return None if value is None else float(value)
