"""The GPU inventory read from NVML: each GPU's name, memory, clocks, PCIe, MIG slices, CPU affinity and NVLinks, and the topology between pairs."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING

from profiler.jsontypes import JSONObject, JSONValue
from profiler.nvml import (
    CLOCK_MEM,
    CLOCK_SM,
    ERROR_GPU_IS_LOST,
    ERROR_WORDS,
    NVLINK_DEVICE_TYPE_SWITCH,
    NVLINK_MAX_LINKS,
    P2P_CAPS_INDEX_NVLINK,
    P2P_CAPS_INDEX_READ,
    P2P_STATUS_WORDS,
    TEMPERATURE_GPU,
    TOPOLOGY_LEVELS,
    MaybeFloat,
    MaybeInt,
    MaybeStr,
    MigDevice,
    NvLink,
    NvmlBackend,
    NvmlUnavailable,
    Unavailable,
    as_int,
    as_number,
    attr_int,
    bus_id_of,
    cuda_driver_version_text,
    first_available,
    int_pair,
    nvml_session,
    nvml_text,
    open_backend,
    read_field,
    then_convert,
)

if TYPE_CHECKING:
    pass


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
        return nvml_text(value)
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
    driver = then_convert(read_field(nv, "nvmlSystemGetDriverVersion"), nvml_text)
    cuda_raw = first_available(nv, ("nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"))
    cuda_driver = then_convert(cuda_raw, cuda_driver_version_text)
    count = then_convert(read_field(nv, "nvmlDeviceGetCount"), as_int)
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
        uuid=then_convert(read_field(nv, "nvmlDeviceGetUUID", handle), nvml_text),
        name=then_convert(read_field(nv, "nvmlDeviceGetName", handle), nvml_text),
        pci_bus_id=then_convert(pci, bus_id_of),
        memory_total_bytes=then_convert(memory, attr_int("total")),
        memory_used_bytes=then_convert(memory, attr_int("used")),
        memory_free_bytes=then_convert(memory, attr_int("free")),
        compute_capability=then_convert(read_field(nv, "nvmlDeviceGetCudaComputeCapability", handle), int_pair),
        pcie_gen_current=then_convert(read_field(nv, "nvmlDeviceGetCurrPcieLinkGeneration", handle), as_int),
        pcie_gen_max=then_convert(read_field(nv, "nvmlDeviceGetMaxPcieLinkGeneration", handle), as_int),
        pcie_width_current=then_convert(read_field(nv, "nvmlDeviceGetCurrPcieLinkWidth", handle), as_int),
        pcie_width_max=then_convert(read_field(nv, "nvmlDeviceGetMaxPcieLinkWidth", handle), as_int),
        power_limit_w=then_convert(
            read_field(nv, "nvmlDeviceGetPowerManagementLimit", handle), lambda mw: as_number(mw) / 1000.0
        ),
        max_sm_clock_mhz=then_convert(read_field(nv, "nvmlDeviceGetMaxClockInfo", handle, CLOCK_SM), as_int),
        max_mem_clock_mhz=then_convert(read_field(nv, "nvmlDeviceGetMaxClockInfo", handle, CLOCK_MEM), as_int),
        temperature_c=then_convert(read_field(nv, "nvmlDeviceGetTemperature", handle, TEMPERATURE_GPU), as_int),
        ecc=then_convert(read_field(nv, "nvmlDeviceGetEccMode", handle), _enabled_word),
        mig_mode=then_convert(read_field(nv, "nvmlDeviceGetMigMode", handle), _enabled_word),
    )
    if info.mig_mode == "enabled":
        info.mig_slices_total = then_convert(read_field(nv, "nvmlDeviceGetMaxMigDeviceCount", handle), as_int)
        info.mig_devices = _read_mig_devices(nv, handle, info.mig_slices_total)
    info.nvlink = _read_nvlinks(nv, handle)
    info.cpu_affinity = _read_cpu_affinity(nv, handle)
    info.numa_node = then_convert(read_field(nv, "nvmlDeviceGetNumaNodeId", handle), as_int)
    info.lost = any(
        isinstance(v, Unavailable) and v.reason == ERROR_WORDS[ERROR_GPU_IS_LOST]
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
        name = then_convert(read_field(nv, "nvmlDeviceGetName", mig), nvml_text)
        found = _MIG_PROFILE.search(name) if isinstance(name, str) else None
        instances.append(
            {
                "index": slot,
                "uuid": then_convert(read_field(nv, "nvmlDeviceGetUUID", mig), nvml_text),
                "name": name,
                "profile": found.group(1).lower() if found else None,
                "memory_total_bytes": then_convert(memory, attr_int("total")),
                "gpu_instance_id": then_convert(read_field(nv, "nvmlDeviceGetGpuInstanceId", mig), as_int),
                "compute_instance_id": then_convert(read_field(nv, "nvmlDeviceGetComputeInstanceId", mig), as_int),
                "multiprocessor_count": then_convert(attributes, attr_int("multiprocessorCount")),
                "compute_slices": then_convert(attributes, attr_int("computeInstanceSliceCount")),
            }
        )
    return instances


def _read_cpu_affinity(nv: NvmlBackend, handle: object) -> list[int] | Unavailable:
    """The logical CPUs NVML names as nearest to the GPU: nvmlDeviceGetCpuAffinity fills 64-bit masks."""
    # NVML fills as many 64-bit words as it is given: room for 1024 CPUs, or all of this machine's if more.
    words = max(16, -(-(os.cpu_count() or 1) // 64))
    masks = read_field(nv, "nvmlDeviceGetCpuAffinity", handle, words)
    return then_convert(masks, _cpus_from_masks)


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
                "peer_pci_bus_id": then_convert(remote, bus_id_of),
                "peer_type": then_convert(
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
        P2P_STATUS_WORDS.get(status, f"status {status}") if isinstance(status, int) else f"status {status}"
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
