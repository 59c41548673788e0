"""Which devices to probe: CUDA's view matched to NVML's by UUID (MIG slices included), and a reason for each GPU that cannot be probed."""

from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass

from profiler.jsontypes import JSONObject
from profiler.machine_info import cpu_model_name
from profiler.nvml import MigDevice
from profiler.nvml_inventory import GpuInfo, Inventory
from profiler.probe_settings import ProbeSettings, failure_reason
from profiler.probe_steps import Step, cpu_steps, cuda_steps


@dataclass
class DevicePlan:
    device: str
    kind: str
    name: str
    uuid: str | None
    steps: list[Step]
    nvml_gpu: GpuInfo | None = None  # the GPU (the parent, for a MIG slice) in the NVML inventory
    mig: JSONObject | None = None  # the MIG slice this device is, with its share of the GPU
    failure: str | None = None  # set when the device cannot be probed at all


def import_torch() -> tuple[object | None, str | None]:
    # NVML and CUDA must number GPUs the same way; set before torch initialises CUDA.
    os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
    try:
        import torch
    except ImportError as exc:
        return None, f"torch is not installed here ({exc}); pip install torch"
    return torch, None


def _warning_text(caught: list[warnings.WarningMessage]) -> str:
    """The distinct warnings torch raised while starting CUDA, one line each, without torch's source location."""
    lines: list[str] = []
    for item in caught:
        text = str(item.message).strip().split(" (Triggered internally at")[0].strip()
        if text and text not in lines:
            lines.append(" ".join(text.split())[:400])
    return "; ".join(lines)


def cuda_state() -> tuple[int, str | None]:
    """(number of usable CUDA devices, reason when zero). The warnings torch raises while it asks the driver
    (e.g. "Error 802: system not yet initialized" when an HGX board's fabric manager is stopped) are the real
    reason, so they go into it."""
    torch = sys.modules.get("torch")
    if torch is None:
        return 0, "torch is not installed"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            available = bool(torch.cuda.is_available())
            count = int(torch.cuda.device_count()) if available else 0
        except Exception as exc:  # any error from the driver means "no CUDA here"; say which
            said = _warning_text(caught)
            return 0, f"CUDA initialisation failed: {failure_reason(exc)}" + (f" ({said})" if said else "")
    said = _warning_text(caught)
    if count:
        return count, None
    if not getattr(torch.version, "cuda", None):
        return 0, "torch has no CUDA support (CPU build)" + (f": {said}" if said else "")
    return 0, "CUDA is not available to torch" + (f": {said}" if said else "")


def uuid_key(text: object) -> str:
    """A UUID as a comparable key: lower case, without NVML's "GPU-"/"MIG-" prefix (CUDA gives the bare hex)."""
    value = str(text).strip().lower()
    for prefix in ("gpu-", "mig-"):
        if value.startswith(prefix):
            value = value[len(prefix) :]
    return value


@dataclass(frozen=True)
class NvmlMatch:
    """The NVML side of one CUDA device: the GPU, the MIG slice when the device is one, its UUID."""

    gpu: GpuInfo | None
    mig: MigDevice | None
    uuid: str | None


def match_nvml(cuda_uuid: object, index: int, inventory: Inventory) -> NvmlMatch:
    """The NVML GPU (or MIG slice) behind torch's cuda:index: by UUID (GPU UUIDs, then MIG device UUIDs), else
    by PCI bus order when no CUDA_VISIBLE_DEVICES reorders the devices."""
    if cuda_uuid is not None:
        key = uuid_key(cuda_uuid)
        for gpu in inventory.gpus:
            if isinstance(gpu.uuid, str) and uuid_key(gpu.uuid) == key:
                return NvmlMatch(gpu, None, gpu.uuid)
        for gpu in inventory.gpus:
            for mig in gpu.mig_devices if isinstance(gpu.mig_devices, list) else []:
                if isinstance(mig["uuid"], str) and uuid_key(mig["uuid"]) == key:
                    return NvmlMatch(gpu, mig, mig["uuid"])
    if not os.environ.get("CUDA_VISIBLE_DEVICES") and index < len(inventory.gpus):
        gpu = inventory.gpus[index]  # both in PCI bus id order (CUDA_DEVICE_ORDER=PCI_BUS_ID)
        return NvmlMatch(gpu, None, gpu.uuid if isinstance(gpu.uuid, str) else None)
    return NvmlMatch(None, None, str(cuda_uuid) if cuda_uuid is not None else None)


def mig_share(gpu: GpuInfo, mig: MigDevice) -> JSONObject:
    """A MIG slice's description and its share of the whole GPU: compute slices / the GPU's slices (7 on A100,
    H100), memory / the GPU's memory. The catalog's whole-GPU spec times these is what the slice can reach."""
    slices = mig["compute_slices"]
    total = gpu.mig_slices_total
    if not isinstance(slices, int) and isinstance(mig["profile"], str):
        slices = int(mig["profile"].split("g", 1)[0])  # "3g.40gb": 3 compute slices
    memory, whole = mig["memory_total_bytes"], gpu.memory_total_bytes
    return {
        "uuid": mig["uuid"] if isinstance(mig["uuid"], str) else "",
        "profile": mig["profile"],
        "name": mig["name"] if isinstance(mig["name"], str) else None,
        "parent_uuid": gpu.uuid if isinstance(gpu.uuid, str) else None,
        "parent_name": gpu.name if isinstance(gpu.name, str) else None,
        "gpu_instance_id": mig["gpu_instance_id"] if isinstance(mig["gpu_instance_id"], int) else None,
        "compute_instance_id": mig["compute_instance_id"]
        if isinstance(mig["compute_instance_id"], int)
        else None,
        "compute_slices": slices if isinstance(slices, int) else None,
        "gpu_slices": total if isinstance(total, int) else None,
        "compute_fraction": slices / total
        if isinstance(slices, int) and isinstance(total, int) and 0 < slices <= total
        else None,
        "memory_fraction": memory / whole
        if isinstance(memory, int) and isinstance(whole, int) and 0 < memory <= whole
        else None,
    }


def plan_devices(
    device: str, settings: ProbeSettings, torch_error: str | None, inventory: Inventory
) -> list[DevicePlan]:
    """Which devices to probe for --device all|cpu|cuda:N, with their steps (or why they cannot be probed)."""
    count, cuda_reason = cuda_state() if torch_error is None else (0, torch_error)
    if device == "cpu" or (device == "all" and count == 0):
        plan = DevicePlan("cpu", "cpu", cpu_model_name(), None, cpu_steps(settings))
        if torch_error:
            plan.failure = torch_error
        unusable = _unusable_nvml_gpus(inventory, cuda_reason) if device == "all" else []
        return [plan, *unusable]
    if device == "all":
        indices = list(range(count))
    else:
        index = int(device.split(":", 1)[1])
        if index >= count:
            why = cuda_reason or f"this machine has {count} CUDA device(s)"
            return [DevicePlan(device, "cuda", device, None, [], failure=f"{device} is not available: {why}")]
        indices = [index]
    plans = [_plan_cuda_device(index, count, settings, inventory) for index in indices]
    if device == "all":
        plans += _unseen_mig_slices(inventory, plans)
    return plans


def _plan_cuda_device(index: int, count: int, settings: ProbeSettings, inventory: Inventory) -> DevicePlan:
    """cuda:index's plan; a device whose properties or NVML match cannot be read is not probed, with why."""
    import torch

    dev = f"cuda:{index}"
    try:
        props = torch.cuda.get_device_properties(index)
        match = match_nvml(getattr(props, "uuid", None), index, inventory)
    except Exception as exc:  # a sticky CUDA error or a driver fault on this device: the others go on
        return DevicePlan(
            dev, "cuda", dev, None, [], failure=f"cannot read {dev}'s properties: {failure_reason(exc)}"
        )
    cpus = (
        match.gpu.cpu_affinity if match.gpu is not None and isinstance(match.gpu.cpu_affinity, list) else []
    )
    peers = [j for j in range(count) if j != index]
    plan = DevicePlan(dev, "cuda", str(props.name), match.uuid,
                 cuda_steps(index, (props.major, props.minor), peers, settings, cpus), match.gpu)  # fmt: skip
    if match.gpu is not None and match.mig is not None:
        plan.mig = mig_share(match.gpu, match.mig)
        if isinstance(match.mig["name"], str):
            plan.name = match.mig["name"]
    return plan


def _unseen_mig_slices(inventory: Inventory, plans: list[DevicePlan]) -> list[DevicePlan]:
    """A not-measured entry for each MIG slice NVML lists that no CUDA device of this process is."""
    seen = {uuid_key(plan.uuid) for plan in plans if plan.uuid}
    unseen = []
    for gpu in inventory.gpus:
        for mig in gpu.mig_devices if isinstance(gpu.mig_devices, list) else []:
            uuid = mig["uuid"]
            if not isinstance(uuid, str) or uuid_key(uuid) in seen:
                continue
            name = mig["name"] if isinstance(mig["name"], str) else f"MIG {mig['profile'] or 'slice'}"
            why = (f"MIG slice {mig['profile'] or '?'} ({uuid}) of GPU {gpu.cuda_index} was not shown to this "
                   f"process by CUDA; measure it with CUDA_VISIBLE_DEVICES={uuid} gpu-probe")  # fmt: skip
            unseen.append(DevicePlan(uuid, "cuda", name, uuid, [], gpu, mig_share(gpu, mig), failure=why))
    return unseen


def _unusable_nvml_gpus(inventory: Inventory, cuda_reason: str | None) -> list[DevicePlan]:
    """A failed entry for each GPU NVML lists but torch cannot run on (a CPU build of torch, a broken CUDA), so
    the report says why those GPUs have no figures instead of silently measuring only the CPU."""
    why = f"NVML lists this GPU but torch cannot use it: {cuda_reason or 'torch sees no CUDA device'}"
    return [
        DevicePlan(
            f"cuda:{gpu.cuda_index}",
            "cuda",
            gpu.name if isinstance(gpu.name, str) else f"cuda:{gpu.cuda_index}",
            gpu.uuid if isinstance(gpu.uuid, str) else None,
            [],
            gpu,
            failure=why,
        )
        for gpu in inventory.gpus
    ]
