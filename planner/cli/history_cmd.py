"""`gpu-advisor history [--json]`: stored probe runs with their key figures, newest first;
`gpu-advisor history delete ID [--json]`: remove one stored run and its measurements."""

from __future__ import annotations

import argparse
from typing import Any

from planner.cli import SUMMARIES, print_json
from planner.cli.store_access import open_store, row_id, table
from planner.store import ProbeRun

FLOP_PER_TFLOP = 1e12
BYTES_PER_GB = 1e9  # bandwidth is quoted in decimal GB/s, as vendors do


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("history", help=SUMMARIES["history"])
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(handler=run_history)
    actions = parser.add_subparsers(dest="history_command", metavar="ACTION")
    deleting = actions.add_parser(
        "delete", help="delete one stored probe run (its measurements with it) by id"
    )
    deleting.add_argument("id", type=row_id, help="the run's id, as `gpu-advisor history` lists it")
    deleting.add_argument("--json", action="store_true")
    deleting.set_defaults(handler=run_delete)


def run_json(run: ProbeRun) -> dict[str, Any]:
    """One run for --json: throughput in FLOP/s, bandwidth in bytes per second."""
    return {
        "id": run.id,
        "created_at": run.created_at,
        "saved_at": run.saved_at,
        "machine": run.machine,
        "hostname": run.hostname,
        "source": run.source,
        "mode": run.mode,
        "devices": list(run.devices),
        "best_bf16_flop_per_s": run.best_bf16_flop_per_s,
        "memory_bandwidth_bytes_per_s": run.memory_bandwidth_bytes_per_s,
    }


def _figure(value: float | None, scale: float, unit: str) -> str:
    return "not measured" if value is None else f"{value / scale:,.1f} {unit}"


def run_history(args: argparse.Namespace) -> int:
    with open_store() as store:
        runs = store.probe_runs.all()
    if args.json:
        print_json({"runs": [run_json(run) for run in runs]})
        return 0
    if not runs:
        print("no probe runs stored yet: run `gpu-advisor probe` here, or `gpu-advisor probe import FILE`")
        return 0
    headers = ["run", "date (UTC)", "machine", "source", "mode", "devices", "best bf16", "memory bandwidth"]
    rows = [
        [
            str(run.id),
            run.created_at.replace("T", " ").rstrip("Z"),
            run.machine,
            run.source,
            run.mode,
            ", ".join(run.devices) or "-",
            _figure(run.best_bf16_flop_per_s, FLOP_PER_TFLOP, "TFLOPS"),
            _figure(run.memory_bandwidth_bytes_per_s, BYTES_PER_GB, "GB/s"),
        ]
        for run in runs
    ]
    print(table(headers, rows))
    return 0


def run_delete(args: argparse.Namespace) -> int:
    with open_store() as store:
        deleted = run_json(store.probe_runs.get(args.id))  # UserError "there is no probe run #ID" first
        store.probe_runs.delete(args.id)
    if args.json:
        print_json({"deleted": deleted})
    else:
        print(f"deleted probe run #{args.id}")
    return 0
