"""Collective bus bandwidth through torch.distributed: all-reduce, all-gather, reduce-scatter.

Run one process per GPU (NCCL) or a few CPU processes (gloo) under torchrun:

    torchrun --nproc-per-node 8 -m profiler.collectives --backend nccl --json out.json
    torchrun --nnodes 2 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint HOST:29500 \\
        -m profiler.collectives --backend nccl --json out.json
    torchrun --nproc-per-node 2 -m profiler.collectives --backend gloo --json out.json   # CPU, for a check

Rank 0 writes a ProbeReport (mode "collectives", no device measurements, the "collectives" section filled).

Conventions are those of nccl-tests (doc/PERFORMANCE.md), with float32 elements:
- size S: all_reduce, the buffer each rank reduces; all_gather, the gathered output (n x each rank's chunk);
  reduce_scatter, the input each rank holds (n x each rank's output chunk).
- time t: average over the timed iterations on each rank, then the slowest rank (max over ranks).
- algbw = S / t;  busbw = algbw x 2(n-1)/n for all_reduce, x (n-1)/n for all_gather and reduce_scatter.
  busbw is comparable across rank counts and to the hardware's link bandwidth.

gloo on CPU: all_gather_into_tensor is used when the backend has it, else the list form of all_gather (same
bytes moved). When the backend has no reduce_scatter (gloo in many torch versions), that op is recorded with
ok=false and the reason; it is not emulated with an all-reduce, which would move a different amount of data.
torch is imported only inside functions.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

OPS = ("all_reduce", "all_gather", "reduce_scatter")
ELEMENT_BYTES = 4  # float32
DEFAULT_SIZES = {
    "nccl": [2**20, 2**22, 2**24, 2**26, 2**28, 2**30],  # 1 MiB .. 1 GiB
    "gloo": [2**16, 2**18, 2**20, 2**22],  # 64 KiB .. 4 MiB: CPU sockets are slow
}


def bus_factor(op: str, world_size: int) -> float:
    """nccl-tests busbw / algbw factor: 2(n-1)/n for all-reduce, (n-1)/n for all-gather and reduce-scatter."""
    n = world_size
    if op == "all_reduce":
        return 2.0 * (n - 1) / n
    if op in ("all_gather", "reduce_scatter"):
        return (n - 1) / n
    raise ValueError(f"unknown collective {op!r}")


def aligned_size(size_bytes: int, world_size: int) -> int:
    """Round a size down to whole float32 elements divisible by the rank count (at least one per rank)."""
    unit = ELEMENT_BYTES * world_size
    return max(unit, size_bytes // unit * unit)


def parse_size(text: str) -> int:
    """'4096', '64K', '1M', '1G' (binary multiples) -> bytes."""
    value = text.strip().upper().removesuffix("B").removesuffix("I")
    multiplier = 1
    for suffix, factor in (("K", 2**10), ("M", 2**20), ("G", 2**30)):
        if value.endswith(suffix):
            value, multiplier = value[:-1], factor
            break
    try:
        size = int(float(value) * multiplier)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (examples: 65536, 64K, 1M, 1G)") from None
    if size <= 0:
        raise argparse.ArgumentTypeError(f"size must be positive: {text!r}")
    return size


class _Runner:
    """Builds the tensors and the call for one collective at one size, on this rank's device."""

    def __init__(self, torch: Any, dist: Any, op: str, size: int, world: int, device: Any):
        self.torch, self.dist, self.op = torch, dist, op
        elements = size // ELEMENT_BYTES
        chunk = elements // world
        self.method = ""
        if op == "all_reduce":
            self.buffer = torch.ones(elements, dtype=torch.float32, device=device)
            self.method = "dist.all_reduce(SUM)"
        elif op == "all_gather":
            self.input = torch.ones(chunk, dtype=torch.float32, device=device)
            self.output = torch.empty(chunk * world, dtype=torch.float32, device=device)
            self.outputs = list(self.output.chunk(world))
            self.method = "dist.all_gather_into_tensor"
        else:
            self.input = torch.ones(chunk * world, dtype=torch.float32, device=device)
            self.output = torch.empty(chunk, dtype=torch.float32, device=device)
            self.method = "dist.reduce_scatter_tensor(SUM)"

    def __call__(self) -> None:
        dist = self.dist
        if self.op == "all_reduce":
            dist.all_reduce(self.buffer)
        elif self.op == "all_gather":
            if self.method == "dist.all_gather_into_tensor":
                _newest(dist, "all_gather_single", "all_gather_into_tensor")(self.output, self.input)
            else:
                dist.all_gather(self.outputs, self.input)
        else:
            _newest(dist, "reduce_scatter_single", "reduce_scatter_tensor")(self.output, self.input)


def _newest(dist: Any, new_name: str, old_name: str) -> Any:
    """torch 2.10+ renamed the single-tensor collectives (the old names warn); same arguments either way."""
    return getattr(dist, new_name, None) or getattr(dist, old_name)


def _synchronize(torch: Any, device: Any) -> None:
    if getattr(device, "type", "cpu") == "cuda":
        torch.cuda.synchronize(device)


def _time_op(torch: Any, dist: Any, runner: _Runner, device: Any, warmup: int, iters: int) -> float:
    """Average seconds per call on this rank (wall clock between synchronisations), then max over ranks."""
    for _ in range(warmup):
        runner()
    _synchronize(torch, device)
    dist.barrier()
    start = time.perf_counter()
    for _ in range(iters):
        runner()
    _synchronize(torch, device)
    elapsed = (time.perf_counter() - start) / iters
    slowest = torch.tensor([elapsed], dtype=torch.float64, device=device)
    dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
    return float(slowest.item())


def _probe_support(runner: _Runner, op: str) -> str | None:
    """Call once to learn whether the backend has this op; falls back to list all_gather. Reason if not."""
    try:
        runner()
        return None
    except (RuntimeError, NotImplementedError, AttributeError) as exc:
        if op == "all_gather" and runner.method == "dist.all_gather_into_tensor":
            runner.method = "dist.all_gather (list of tensors)"
            return _probe_support(runner, op)
        return f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"[:300]


def measure_collectives(
    backend: str,
    sizes: Sequence[int],
    ops: Sequence[str] = OPS,
    warmup: int = 5,
    iters: int = 20,
    progress: Any = None,
) -> list[dict]:
    """Run every op over every size in an initialised process group; returns the report's collectives list."""
    import torch
    import torch.distributed as dist

    world = dist.get_world_size()
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", world) or world)
    nnodes = max(1, world // max(1, local_world))
    device = torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else torch.device("cpu")
    entries = []
    for op in ops:
        entry = {
            "op": op,
            "backend": backend,
            "world_size": world,
            "nnodes": nnodes,
            "results": [],
            "ok": True,
            "error": None,
            "details": {
                "dtype": "fp32",
                "bus_factor": bus_factor(op, world),
                "time": "average over iterations per rank, max over ranks",
                "size": _SIZE_MEANING[op],
                "warmup": warmup,
                "iters": iters,
            },
        }
        first = _Runner(torch, dist, op, aligned_size(min(sizes), world), world, device)
        reason = _probe_support(first, op)
        if reason is not None:
            entry.update(ok=False, error=f"{backend} cannot run {op} in torch {torch.__version__}: {reason}")
            entries.append(entry)
            continue
        entry["details"]["method"] = first.method
        for size in sizes:
            size = aligned_size(size, world)
            runner = _Runner(torch, dist, op, size, world, device)
            runner.method = first.method
            time_s = _time_op(torch, dist, runner, device, warmup, iters)
            algbw = size / time_s
            entry["results"].append(
                {
                    "size_bytes": size,
                    "time_s": time_s,
                    "algbw_bytes_per_s": algbw,
                    "busbw_bytes_per_s": algbw * bus_factor(op, world),
                }
            )
            if progress is not None:
                progress(op, size, entry["results"][-1])
            del runner
        entries.append(entry)
    return entries


_SIZE_MEANING = {
    "all_reduce": "bytes each rank reduces",
    "all_gather": "bytes of the gathered output (world_size x each rank's chunk)",
    "reduce_scatter": "bytes of each rank's input (world_size x each rank's output chunk)",
}


def build_report(entries: list[dict]) -> Any:
    """A valid ProbeReport (mode 'collectives') around the collectives entries, with rank 0's machine facts."""
    from profiler import report
    from profiler.nvml import read_inventory
    from profiler.probe import machine_info

    torch = sys.modules.get("torch")
    data = report.new_report_dict("collectives", machine_info(torch), read_inventory().to_dict(), [], entries)
    return report.ProbeReport.from_dict(data)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m profiler.collectives",
        description="Collective bus bandwidth (nccl-tests conventions); run under torchrun.",
    )
    parser.add_argument("--backend", choices=("nccl", "gloo"), required=True)
    parser.add_argument("--json", metavar="FILE", help="rank 0 writes the ProbeReport here")
    parser.add_argument("--sizes", type=lambda t: [parse_size(x) for x in t.split(",") if x.strip()])
    parser.add_argument(
        "--ops", type=lambda t: [x.strip() for x in t.split(",") if x.strip()], default=list(OPS)
    )
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--timeout-s", type=float, default=300.0, help="give up on a hung collective")
    return parser


def _format_table(entries: list[dict]) -> str:
    lines = [f"{'op':<15}{'size':>14}{'time':>12}{'algbw':>12}{'busbw':>12}"]
    for entry in entries:
        if not entry["ok"]:
            lines.append(f"{entry['op']:<15}  not measured: {entry['error']}")
            continue
        for r in entry["results"]:
            lines.append(
                f"{entry['op']:<15}{r['size_bytes']:>12} B{r['time_s'] * 1e6:>9.1f} us"
                f"{r['algbw_bytes_per_s'] / 1e9:>7.2f} GB/s{r['busbw_bytes_per_s'] / 1e9:>7.2f} GB/s"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    unknown = [op for op in args.ops if op not in OPS]
    if unknown:
        print(
            f"collectives: unknown op(s) {', '.join(unknown)}; choose from {', '.join(OPS)}", file=sys.stderr
        )
        return 2
    if "RANK" not in os.environ or "WORLD_SIZE" not in os.environ:
        print(
            "collectives: run me under torchrun, e.g. torchrun --nproc-per-node 2 -m profiler.collectives "
            "--backend gloo --json out.json",
            file=sys.stderr,
        )
        return 2
    os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
    import torch
    import torch.distributed as dist

    timeout = timedelta(seconds=args.timeout_s)
    if args.backend == "nccl":
        if not torch.cuda.is_available():
            print("collectives: the nccl backend needs CUDA GPUs; use --backend gloo on CPU", file=sys.stderr)
            return 2
        local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local_rank)
        try:  # binding the group to this rank's GPU (torch >= 2.3) lets barrier() use the right device
            dist.init_process_group("nccl", timeout=timeout, device_id=torch.device("cuda", local_rank))
        except TypeError:
            dist.init_process_group("nccl", timeout=timeout)
    else:
        dist.init_process_group("gloo", timeout=timeout)
    try:
        sizes = sorted(set(args.sizes or DEFAULT_SIZES[args.backend]))
        entries = measure_collectives(args.backend, sizes, args.ops, args.warmup, args.iters)
        if dist.get_rank() == 0:
            report = build_report(entries)
            print(_format_table(entries))
            if args.json:
                with open(args.json, "w", encoding="utf-8") as handle:
                    handle.write(report.to_json())
        dist.barrier()
    finally:
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
