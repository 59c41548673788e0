"""`gpu-advisor gpus [--json]`: the GPU catalog, the user's own GPU types, and the GPUs detected here."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from planner.cli import SUMMARIES, print_json
from planner.gpus import GpuSpec, builtin_gpus, match_nvml_name
from planner.messages import format_bytes


@dataclass(frozen=True, slots=True)
class DetectedGpu:
    """A GPU NVML found here: its index, name and memory (None where NVML gave none) and the catalog id it
    matches (None: not in the catalog)."""

    index: int
    name: str | None
    memory_bytes: int | None
    id: str | None


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "gpus",
        help=SUMMARIES["gpus"],
        description="The GPU catalog (each id works with --gpu), your own GPU types, and the GPUs NVML finds here.",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run_gpus)


def user_gpus() -> list[GpuSpec]:
    """The user's GPU types from the store."""
    from planner.cli.store_access import open_store

    store = open_store()
    try:
        return store.user_gpus.all()
    finally:
        store.close()


def detected_gpus(extra: list[GpuSpec]) -> tuple[list[DetectedGpu], str | None]:
    """(local GPUs with the matching catalog id or None, reason when NVML found nothing)."""
    from profiler.nvml_inventory import read_inventory

    inventory = read_inventory()
    if not inventory.available:
        return [], inventory.reason
    found = []
    for info in inventory.gpus:
        name = info.name if isinstance(info.name, str) else None
        memory = info.memory_total_bytes if isinstance(info.memory_total_bytes, int) else None
        match = match_nvml_name(name, extra) if name else None
        found.append(DetectedGpu(info.index, name, memory, match.id if match else None))
    return found, None


def reference_price(gpu: GpuSpec) -> dict[str, object] | None:
    """The catalog's purchase price per GPU as JSON money, {"amount", "currency"} (None when none is public)."""
    return None if gpu.purchase_usd is None else {"amount": gpu.purchase_usd, "currency": "USD"}


def gpu_rows(extra: list[GpuSpec], detected: list[DetectedGpu]) -> list[dict[str, object]]:
    """Catalog and user entries (each with `detected` and the local indices), then local GPUs the catalog lacks."""
    rows: list[dict[str, object]] = []
    for gpu in [*builtin_gpus(), *extra]:
        here = [d.index for d in detected if d.id == gpu.id]
        rows.append({**gpu.as_dict(), "purchase_price": reference_price(gpu), "detected": bool(here),
                     "detected_indices": here})  # fmt: skip
    for device in detected:
        if device.id is None:
            rows.append({
                "id": None, "name": device.name, "vendor": "NVIDIA", "memory_bytes": device.memory_bytes,
                "purchase_price": None, "detected": True, "detected_indices": [device.index], "user_defined": False,
                "note": "not in the catalog: add it as your own GPU type to plan with it",
            })  # fmt: skip
    return rows


def _memory_text(memory_bytes: int | None) -> str:
    return format_bytes(memory_bytes, unit="GiB", decimals=1) if memory_bytes else "?"


def _catalog_line(gpu: GpuSpec, detected: list[DetectedGpu]) -> str:
    here = "detected" if any(d.id == gpu.id for d in detected) else ""
    if gpu.user_defined:
        here = (here + " yours").strip()
    bandwidth = gpu.memory_bandwidth_bytes_per_s
    bandwidth_text = f"{bandwidth / 1e9:,.0f} GB/s" if bandwidth else "?"
    bf16 = gpu.tflops.get("bf16") or gpu.tflops.get("fp16")
    cc = ".".join(map(str, gpu.compute_capability)) if gpu.vendor == "NVIDIA" else "-"
    return (
        f"{gpu.id:<16} {gpu.name:<36.36} {_memory_text(gpu.memory_bytes):>10} {bandwidth_text:>11} "
        f"{(f'{bf16:,.0f}' if bf16 else '-'):>12} {cc:>5}  {here}"
    )


def run_gpus(args: argparse.Namespace) -> int:
    extra = user_gpus()
    detected, reason = detected_gpus(extra)
    if args.json:
        print_json(gpu_rows(extra, detected))
        return 0
    print(f"{'id':<16} {'name':<36} {'memory':>10} {'bandwidth':>11} {'bf16 TFLOPS':>12} {'CC':>5}  here")
    for gpu in [*builtin_gpus(), *extra]:
        print(_catalog_line(gpu, detected))
    for device in detected:
        if device.id is None:
            print(f"{'-':<16} {device.name or '?':<36.36} {_memory_text(device.memory_bytes):>10} {'?':>11} "
                  f"{'-':>12} {'-':>5}  detected")  # fmt: skip
    if reason:
        print(f"\nNo local GPUs listed: {reason}")
    print("\nTFLOPS are dense; GeForce figures use fp32 accumulate. Sources: `gpu-advisor gpus --json`.")
    return 0
