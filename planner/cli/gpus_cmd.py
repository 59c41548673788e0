"""`gpu-advisor gpus [--json]`: the GPU catalog, the user's own GPU types, and the GPUs detected here."""

from __future__ import annotations

import argparse
from typing import Any

from planner.cli import print_json
from planner.gpus import GIB, GpuSpec, builtin_gpus, match_nvml_name


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "gpus",
        help="GPU catalog plus the GPUs detected here",
        description="The GPU catalog (each id works with --gpu), your own GPU types, and the GPUs NVML finds here.",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run_gpus)


def user_gpus() -> list[GpuSpec]:
    """The user's GPU types from the store (none when the store cannot be opened)."""
    try:
        from planner.cli.store_access import open_store
    except ModuleNotFoundError:
        return []
    store = open_store()
    try:
        return store.user_gpus.all()
    finally:
        store.close()


def detected_gpus(extra: list[GpuSpec]) -> tuple[list[dict[str, Any]], str | None]:
    """(local GPUs as dicts with the matching catalog id or None, reason when NVML found nothing)."""
    try:
        from profiler.nvml import read_inventory
    except ModuleNotFoundError:
        return [], "GPU detection is not available in this build"
    inventory = read_inventory()
    if not inventory.available:
        return [], inventory.reason
    found = []
    for info in inventory.gpus:
        name = info.name if isinstance(info.name, str) else None
        memory = info.memory_total_bytes if isinstance(info.memory_total_bytes, int) else None
        match = match_nvml_name(name, extra) if name else None
        found.append(
            {"index": info.index, "name": name, "memory_bytes": memory, "id": match.id if match else None}
        )
    return found, None


def reference_price(gpu: GpuSpec) -> dict[str, Any] | None:
    """The catalog's purchase price per GPU as JSON money, {"amount", "currency"} (None when none is public)."""
    return None if gpu.purchase_usd is None else {"amount": gpu.purchase_usd, "currency": "USD"}


def gpu_rows(extra: list[GpuSpec], detected: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Catalog and user entries (each with `detected` and the local indices), then local GPUs the catalog lacks."""
    rows = []
    for gpu in [*builtin_gpus(), *extra]:
        here = [d["index"] for d in detected if d["id"] == gpu.id]
        rows.append({**gpu.as_dict(), "purchase_price": reference_price(gpu), "detected": bool(here),
                     "detected_indices": here})  # fmt: skip
    for device in detected:
        if device["id"] is None:
            rows.append({
                "id": None, "name": device["name"], "vendor": "NVIDIA", "memory_bytes": device["memory_bytes"],
                "purchase_price": None, "detected": True, "detected_indices": [device["index"]], "user_defined": False,
                "note": "not in the catalog: add it as your own GPU type to plan with it",
            })  # fmt: skip
    return rows


def run_gpus(args: argparse.Namespace) -> int:
    extra = user_gpus()
    detected, reason = detected_gpus(extra)
    rows = gpu_rows(extra, detected)
    if args.json:
        print_json(rows)
        return 0
    print(f"{'id':<16} {'name':<36} {'memory':>10} {'bandwidth':>11} {'bf16 TFLOPS':>12} {'CC':>5}  here")
    for row in rows:
        memory = f"{row['memory_bytes'] / GIB:.1f} GiB" if row.get("memory_bytes") else "?"
        bandwidth = row.get("memory_bandwidth_bytes_per_s")
        bandwidth_text = f"{bandwidth / 1e9:,.0f} GB/s" if bandwidth else "?"
        bf16 = (row.get("tflops") or {}).get("bf16") or (row.get("tflops") or {}).get("fp16")
        cc = row.get("compute_capability")
        here = "detected" if row["detected"] else ""
        if row.get("user_defined"):
            here = (here + " yours").strip()
        print(
            f"{row['id'] or '-':<16} {row['name'] or '?':<36.36} {memory:>10} {bandwidth_text:>11} "
            f"{(f'{bf16:,.0f}' if bf16 else '-'):>12} {('.'.join(map(str, cc)) if cc else '-'):>5}  {here}"
        )
    if reason:
        print(f"\nNo local GPUs listed: {reason}")
    print("\nTFLOPS are dense; GeForce figures use fp32 accumulate. Sources: `gpu-advisor gpus --json`.")
    return 0
