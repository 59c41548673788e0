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
- time t: average over the timed iterations on each rank, then the slowest rank (max over ranks). nccl-tests'
  default (-a 1) averages over ranks instead, so its busbw can read higher than ours on an uneven fabric; the
  slowest rank is what a training step waits for.
- algbw = S / t;  busbw = algbw x 2(n-1)/n for all_reduce, x (n-1)/n for all_gather and reduce_scatter.
  busbw is comparable across rank counts and to the hardware's link bandwidth.

gloo on CPU: all_gather_into_tensor is used when the backend has it, else the list form of all_gather (same
bytes moved). When the backend has no reduce_scatter (gloo in many torch versions), that op is recorded with
ok=false and the reason; it is not emulated with an all-reduce, which would move a different amount of data.
torch is imported only inside functions.

Launching (``gpu-probe --collectives``, ``run_torchrun``): from a source tree torchrun is
``python -m torch.distributed.run``; in the frozen bundle ``sys.executable`` is gpu-probe itself, so the bundle
hands off to torchrun's own entry point (``gpu-probe --torchrun ...`` calls torch.distributed.run.main) and the
workers run as ``gpu-probe --collectives-worker ...`` (torchrun's --no-python). When a run fails, the line that
says why is the worker's (an NCCL WARN line, or the root-cause rank's exception), not torchrun's "=====" banner.
torchrun starts each worker in a new session, so on a timeout terminating torchrun is not enough: torchrun is
asked to stop (it forwards SIGTERM to its workers), then every process group below it is killed, so hung NCCL
ranks do not keep the GPUs.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from profiler.child_command import isolated_module_command
from profiler.report import Collective, CollectiveResult, ProbeReport, write_report_file

if TYPE_CHECKING:
    import torch
    import torch.distributed

OPS = ("all_reduce", "all_gather", "reduce_scatter")
ELEMENT_BYTES = 4  # float32
DEFAULT_SIZES = {
    "nccl": [2**20, 2**22, 2**24, 2**26, 2**28, 2**30],  # 1 MiB .. 1 GiB
    "gloo": [2**16, 2**18, 2**20, 2**22],  # 64 KiB .. 4 MiB: CPU sockets are slow
}
TIME_CONVENTION = (
    "average over the timed iterations on each rank, then the slowest rank (max over ranks); nccl-tests' "
    "default (-a 1) averages over ranks instead"
)
# The internal entry points of the frozen gpu-probe (see the module docstring); never shown in --help.
TORCHRUN_FLAG = "--torchrun"
WORKER_FLAG = "--collectives-worker"
WORKER_FAILED = "gpu-probe collectives rank {rank} failed: {reason}"


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
    except (ValueError, OverflowError):
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (examples: 65536, 64K, 1M, 1G)") from None
    if size <= 0:
        raise argparse.ArgumentTypeError(f"size must be positive: {text!r}")
    return size


class _Runner:
    """Builds the tensors and the call for one collective at one size, on this rank's device."""

    def __init__(self, op: str, size: int, world: int, device: torch.device):
        import torch

        self.op = op
        elements = size // ELEMENT_BYTES
        chunk = elements // world
        self.buffer = self.input = self.output = torch.empty(0)
        self.outputs: list[torch.Tensor] = []
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
        import torch.distributed as dist

        if self.op == "all_reduce":
            dist.all_reduce(self.buffer)
        elif self.op == "all_gather":
            if self.method == "dist.all_gather_into_tensor":
                _newest(dist, "all_gather_single", "all_gather_into_tensor")(self.output, self.input)
            else:
                dist.all_gather(self.outputs, self.input)
        else:
            _newest(dist, "reduce_scatter_single", "reduce_scatter_tensor")(self.output, self.input)


def _newest(dist: object, new_name: str, old_name: str) -> Callable[[torch.Tensor, torch.Tensor], object]:
    """torch 2.10+ renamed the single-tensor collectives (the old names warn); same arguments either way."""
    function = getattr(dist, new_name, None) or getattr(dist, old_name)
    if not callable(function):
        raise AttributeError(f"torch.distributed has neither {new_name} nor {old_name}")
    return function  # type: ignore[no-any-return]  # torch.distributed's functions, checked callable above


def _synchronize(device: torch.device) -> None:
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _time_op(runner: _Runner, device: torch.device, warmup: int, iters: int) -> float:
    """Average seconds per call on this rank (wall clock between synchronisations), then max over ranks."""
    import torch
    import torch.distributed as dist

    for _ in range(warmup):
        runner()
    _synchronize(device)
    dist.barrier()
    start = time.perf_counter()
    for _ in range(iters):
        runner()
    _synchronize(device)
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
    progress: Callable[[str, int, CollectiveResult], None] | None = None,
) -> list[Collective]:
    """Run every op over every size in an initialised process group; returns the report's collectives list."""
    import torch
    import torch.distributed as dist

    world = dist.get_world_size()
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", world) or world)
    nnodes = max(1, world // max(1, local_world))
    device = torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else torch.device("cpu")
    entries: list[Collective] = []
    for op in ops:
        entry: Collective = {
            "op": op, "backend": backend, "world_size": world, "nnodes": nnodes, "results": [], "ok": True,
            "error": None,
            "details": {"dtype": "fp32", "bus_factor": bus_factor(op, world), "time": TIME_CONVENTION,
                        "size": _SIZE_MEANING[op], "warmup": warmup, "iters": iters},
        }  # fmt: skip
        first = _Runner(op, aligned_size(min(sizes), world), world, device)
        reason = _probe_support(first, op)
        if reason is not None:
            entry["ok"] = False
            entry["error"] = f"{backend} cannot run {op} in torch {torch.__version__}: {reason}"
            entries.append(entry)
            continue
        entry["details"]["method"] = first.method
        for size in sizes:
            size = aligned_size(size, world)
            runner = _Runner(op, size, world, device)
            runner.method = first.method
            time_s = _time_op(runner, device, warmup, iters)
            algbw = size / time_s
            result: CollectiveResult = {
                "size_bytes": size, "time_s": time_s, "algbw_bytes_per_s": algbw,
                "busbw_bytes_per_s": algbw * bus_factor(op, world),
            }  # fmt: skip
            entry["results"].append(result)
            if progress is not None:
                progress(op, size, result)
            del runner
        entries.append(entry)
    return entries


_SIZE_MEANING = {
    "all_reduce": "bytes each rank reduces",
    "all_gather": "bytes of the gathered output (world_size x each rank's chunk)",
    "reduce_scatter": "bytes of each rank's input (world_size x each rank's output chunk)",
}


def build_report(entries: list[Collective]) -> ProbeReport:
    """A valid ProbeReport (mode 'collectives') around the collectives entries, with rank 0's machine facts."""
    from profiler import report
    from profiler.machine_info import machine_info
    from profiler.nvml_inventory import read_inventory

    data = report.new_report_dict("collectives", machine_info(), read_inventory().to_dict(), [], entries)
    return report.ProbeReport.from_dict(data)


def failed_entries(backend: str, world_size: int, reason: str) -> list[Collective]:
    """One not-measured entry per op, each with the same reason (the report says why there are no figures)."""
    return [
        {"op": op, "backend": backend, "world_size": world_size, "nnodes": 1, "results": [], "ok": False,
         "error": reason[:900]}
        for op in OPS
    ]  # fmt: skip


# --------------------------------------------------------------------------------------------------------------
# Launching under torchrun, from a source tree or the frozen bundle
# --------------------------------------------------------------------------------------------------------------


def torchrun_command(
    nproc: int, worker_args: Sequence[str], probe_exe: Sequence[str] | None = None
) -> list[str]:
    """The command that runs the collectives on `nproc` local ranks.

    probe_exe None: this Python runs torchrun as a module and torchrun runs profiler.collectives with this Python
    (--no-python), both isolated from the current folder.
    probe_exe given (the frozen gpu-probe, [sys.executable]): gpu-probe hands off to torchrun's entry point and
    torchrun runs gpu-probe again as the worker (--no-python), since a frozen executable has no ``-m``.
    """
    launch = ["--standalone", "--nproc-per-node", str(nproc)]
    if probe_exe is None:
        # both torchrun and its ranks isolated from the current folder (profiler/child_command.py)
        worker = isolated_module_command("profiler.collectives", worker_args)
        return [*isolated_module_command("torch.distributed.run", launch), "--no-python", *worker]
    return [*probe_exe, TORCHRUN_FLAG, *launch, "--no-python", *probe_exe, WORKER_FLAG, *worker_args]


def torchrun_main(argv: Sequence[str]) -> int:
    """torchrun inside the frozen gpu-probe: torch.distributed.run.main with these arguments."""
    from torch.distributed.run import main as torchrun

    try:
        torchrun(list(argv))
    except SystemExit as exc:  # torchrun's own argument errors and exit codes
        return exc.code if isinstance(exc.code, int) else 1
    except Exception as exc:  # ChildFailedError: torchrun printed the failures; exit non-zero like torchrun
        print(f"torchrun: {type(exc).__name__}", file=sys.stderr)
        return 1
    return 0


@dataclass(frozen=True)
class Supervised:
    """How a supervised child ended: exit code (None when it was stopped), the tail of its output, what was killed."""

    returncode: int | None
    output: str
    timed_out: bool
    killed: tuple[int, ...] = ()


def run_supervised(
    command: Sequence[str],
    env: dict[str, str] | None,
    timeout_s: float,
    grace_s: float = 10.0,
    max_output_lines: int = 4000,
) -> Supervised:
    """Run `command` with its output captured (stdout and stderr together, the last lines kept) and a timeout.

    On the timeout the child is asked to stop (SIGTERM: torchrun forwards it to its workers), given `grace_s`,
    then every process below it is killed with its process group (workers that started their own session
    included), and finally the child itself.
    """
    process = subprocess.Popen(
        list(command), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        text=True, errors="replace", start_new_session=os.name == "posix",
    )  # fmt: skip
    lines: deque[str] = deque(maxlen=max_output_lines)
    reader = threading.Thread(target=_collect, args=(process, lines), daemon=True)
    reader.start()
    try:
        returncode = process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        killed = stop_tree(process, grace_s)
        reader.join(timeout=5)
        return Supervised(None, "".join(lines), True, killed)
    except BaseException:  # Ctrl-C or SIGTERM to gpu-probe: its torchrun and the ranks go with it
        stop_tree(process, grace_s)
        raise
    reader.join(timeout=5)
    return Supervised(returncode, "".join(lines), False)


def _collect(process: subprocess.Popen[str], lines: deque[str]) -> None:
    if process.stdout is not None:
        for line in process.stdout:
            lines.append(line)


def stop_tree(process: subprocess.Popen[str], grace_s: float) -> tuple[int, ...]:
    """Terminate `process`, wait up to grace_s, then SIGKILL every descendant's process group and pid, and the
    process. Returns the pids found below it (each was killed, or had already gone)."""
    below = descendants(process.pid)
    if os.name != "posix":
        subprocess.run(["taskkill", "/T", "/F", "/PID", str(process.pid)], capture_output=True, check=False)
        process.wait()
        return tuple(below)
    process.terminate()
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        pass
    below |= descendants(process.pid)  # workers torchrun started while it was stopping
    own_group = os.getpgrp()
    for pid in sorted(below):
        _kill_group_and_pid(pid, own_group)
    if process.poll() is None:
        _kill_group_and_pid(process.pid, own_group)
    process.wait()
    return tuple(sorted(below))


def _kill_group_and_pid(pid: int, own_group: int) -> None:
    try:
        group = os.getpgid(pid)
    except ProcessLookupError:
        return
    try:
        if group != own_group:
            os.killpg(group, signal.SIGKILL)
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:  # it went away between the two calls
        pass


def has_exited(pid: int) -> bool:
    """True when `pid` is gone (a zombie waiting for its new parent to reap it counts as gone). Linux /proc."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def descendants(pid: int) -> set[int]:
    """Every process below `pid` (children, grandchildren, ...), from /proc or `ps` (POSIX)."""
    children: dict[int, list[int]] = {}
    for child, parent in _parent_links():
        children.setdefault(parent, []).append(child)
    found: set[int] = set()
    stack = [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def _parent_links() -> list[tuple[int, int]]:
    """(pid, parent pid) of every process this user can see."""
    links: list[tuple[int, int]] = []
    if os.path.isdir("/proc"):
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", encoding="utf-8", errors="replace") as handle:
                    stat = handle.read()
            except OSError:  # gone in the meantime
                continue
            fields = stat.rsplit(")", 1)[-1].split()  # the command name may hold spaces and parentheses
            if len(fields) > 1:
                links.append((int(name), int(fields[1])))
        return links
    listing = subprocess.run(["ps", "-A", "-o", "pid=,ppid="], capture_output=True, text=True, check=False)
    for row in listing.stdout.splitlines():
        parts = row.split()
        if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
            links.append((int(parts[0]), int(parts[1])))
    return links


# The lines that say why a torchrun run failed, most specific first.
_NCCL_WARN = re.compile(r"NCCL WARN\s*(.+)")
_WORKER_LINE = re.compile(r"gpu-probe collectives rank (\d+) failed: (.+)")
_EXCEPTION = re.compile(
    r"^(?:\[rank(\d+)\]:\s*)?((?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit)(?::\s*.*)?)$"
)
_ROOT_RANK = re.compile(r"^\s*rank\s*:\s*(\d+)")
_ROOT_EXIT = re.compile(r"^\s*exitcode\s*:\s*(-?\d+)(.*)$")
_TORCHRUN_OWN = ("ChildFailedError", "SignalException", "torch.distributed.elastic")


def worker_error_line(output: str) -> str | None:
    """The line of a failed torchrun run's output that says why: the first NCCL WARN, else the failing worker's
    own message, else the exception of the rank torchrun names as the root cause (or of any rank), else the
    root cause's exit code. torchrun's "=====" banner and its ChildFailedError traceback are skipped."""
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line).strip() for line in output.splitlines()]
    for line in lines:
        found = _NCCL_WARN.search(line)
        if found:
            return f"NCCL WARN {found.group(1).strip()}"[:400]
    for line in lines:
        worker = _WORKER_LINE.search(line)
        if worker:
            return f"rank {worker.group(1)}: {worker.group(2).strip()}"[:400]
    root_rank, root_exit = _root_cause(lines)
    exceptions = [(m.group(1), m.group(2)) for m in map(_EXCEPTION.match, lines) if m]
    exceptions = [(rank, text) for rank, text in exceptions if not text.startswith(_TORCHRUN_OWN)]
    for rank, text in exceptions:
        if root_rank is not None and rank == root_rank:
            return f"rank {rank}: {text}"[:400]
    if exceptions:
        rank, text = exceptions[0]
        return (f"rank {rank}: {text}" if rank is not None else text)[:400]
    if root_exit is not None:
        who = f"rank {root_rank}" if root_rank is not None else "a worker"
        return f"{who} exited with code {root_exit}"[:400]
    meaningful = [line for line in lines if line and not set(line) <= set("=-*")]
    return meaningful[-1][:400] if meaningful else None


def _root_cause(lines: list[str]) -> tuple[str | None, str | None]:
    """(rank, exit code and signal) of torchrun's "Root Cause (first observed failure)" section, if any."""
    try:
        start = next(i for i, line in enumerate(lines) if line.startswith("Root Cause"))
    except StopIteration:
        return None, None
    rank = exit_code = None
    for line in lines[start : start + 12]:
        if rank is None and (found := _ROOT_RANK.match(line)):
            rank = found.group(1)
        if exit_code is None and (found := _ROOT_EXIT.match(line)):
            exit_code = (found.group(1) + " " + found.group(2).strip()).strip()
    return rank, exit_code


class CollectivesFailed(RuntimeError):
    """The torchrun run failed or timed out; the message is the one line that says why."""


def run_torchrun(
    nproc: int,
    worker_args: Sequence[str],
    out_json: str,
    timeout_s: float,
    probe_exe: Sequence[str] | None = None,
    grace_s: float = 10.0,
) -> list[Collective]:
    """Run the collectives under torchrun and return the entries rank 0 wrote to out_json.

    Raises CollectivesFailed with the worker's error line (or, on the timeout, what was stopped).
    """
    from profiler.report import ReportError, load_report

    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env.setdefault("NCCL_DEBUG", "WARN")  # NCCL then prints the WARN line that explains a failure
    if probe_exe is None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))
    command = torchrun_command(nproc, [*worker_args, "--json", out_json], probe_exe)
    outcome = run_supervised(command, env, timeout_s, grace_s)
    if outcome.timed_out:
        raise CollectivesFailed(
            f"torchrun collectives did not finish within {timeout_s:.0f} s; stopped torchrun and "
            f"{len(outcome.killed)} process(es) below it"
            + (f" (last words: {worker_error_line(outcome.output)})" if outcome.output.strip() else "")
        )
    if outcome.returncode != 0 or not os.path.exists(out_json):
        line = worker_error_line(outcome.output) or "no output"
        raise CollectivesFailed(f"torchrun collectives failed (exit {outcome.returncode}): {line}")
    try:
        return load_report(out_json).collectives
    except ReportError as exc:
        raise CollectivesFailed(f"torchrun collectives wrote an unusable report: {exc}") from None


# --------------------------------------------------------------------------------------------------------------
# The worker
# --------------------------------------------------------------------------------------------------------------


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


def _format_table(entries: list[Collective]) -> str:
    lines = [f"{'op':<15}{'size':>14}{'time':>12}{'algbw':>12}{'busbw':>12}   (time: slowest rank)"]
    for entry in entries:
        if not entry.get("ok", True):
            lines.append(f"{entry['op']:<15}  not measured: {entry.get('error')}")
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
    try:
        return _run_worker(args)
    except Exception as exc:
        # One line the parent (run_torchrun) recognises, then the traceback torchrun shows as well.
        reason = f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:300]
        print(
            WORKER_FAILED.format(rank=os.environ.get("RANK", "?"), reason=reason), file=sys.stderr, flush=True
        )
        raise


def _run_worker(args: argparse.Namespace) -> int:
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
                write_report_file(args.json, report.to_json())
        dist.barrier()
    finally:
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
