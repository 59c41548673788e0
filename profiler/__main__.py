"""`gpu-probe`: measure this machine's GPUs (or its CPU) and write a ProbeReport. Needs torch and nvidia-ml-py.

    gpu-probe [--quick|--full] [--json FILE] [--progress] [--device cuda:N|cpu|all] [--collectives]
              [--collectives-backend nccl|gloo]

Exit codes: 0 with a report (also when there is no GPU: the CPU is measured and the report says why there is
no GPU); 2 on bad arguments (one line on stderr); 1 when the probe itself crashed (an "error" event).

--progress prints JSON lines on stdout, the protocol the GUI (desktop/workers.py, ProbeProcess) reads:
    {"event": "start", "devices": [...], "device_info": [{"device", "name", "uuid", "kind", "mig"}], "mode": ...}
    {"event": "progress", "stage": ..., "fraction": 0..1, "device": ...}
    {"event": "result", "device": ..., "measurement": {...}}
    {"event": "done", "report": {...}}
    {"event": "error", "message": ...}
No Qt, no database: copy the profiler folder to a rented machine and run ``python -m profiler``.

Two internal entry points serve the frozen bundle's collectives (profiler/collectives.py explains them):
``gpu-probe --torchrun ARGS`` is torchrun, ``gpu-probe --collectives-worker ARGS`` is one collectives rank.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TextIO

from profiler.jsontypes import JSONObject
from profiler.probe_summary import human_summary
from profiler.report import Collective, Measurement, ProbeReport, write_report_file

DEVICE_PATTERN = re.compile(r"(all|cpu|cuda:\d+)")  # fullmatch: "cpu\n" is not cpu


class _BadArguments(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _BadArguments(message)


def _device(text: str) -> str:
    if not DEVICE_PATTERN.fullmatch(text):
        raise argparse.ArgumentTypeError(f"--device must be all, cpu or cuda:N (N = 0, 1, ...), not {text!r}")
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="gpu-probe",
        description="Measure memory bandwidth, host/peer links and matmul FLOPS of this machine's GPUs "
        "(or of its CPU when there is no GPU) and write a GPU Advisor probe report.",
    )
    speed = parser.add_mutually_exclusive_group()
    speed.add_argument(
        "--quick", dest="mode", action="store_const", const="quick", help="about 15 s per device (default)"
    )
    speed.add_argument(
        "--full", dest="mode", action="store_const", const="full", help="about 60 s per device"
    )
    parser.add_argument("--json", metavar="FILE", help="write the report to FILE ('-' for stdout)")
    parser.add_argument(
        "--progress", action="store_true", help="print JSON lines (start/progress/result/done)"
    )
    parser.add_argument("--device", type=_device, default="all", help="all (default), cpu, or cuda:N")
    parser.add_argument(
        "--collectives",
        action="store_true",
        help="also measure NCCL all-reduce/all-gather/reduce-scatter across all GPUs",
    )
    parser.add_argument(
        "--collectives-backend",
        choices=("nccl", "gloo"),
        default="nccl",
        help="nccl (default: one rank per GPU) or gloo (two CPU ranks: checks the torchrun path without GPUs)",
    )
    parser.add_argument(
        "--model-shapes", metavar="FILE", default=None,
        help="also time the GEMMs, attention and small collectives of one model (a file written by "
        "gpu-advisor plan --probe-shapes); the report is then version 2",
    )  # fmt: skip
    parser.set_defaults(mode="quick")
    return parser


class _Lines:
    """JSON-lines writer for --progress; flushes each line so the GUI sees it at once."""

    def __init__(self, stream: TextIO, enabled: bool):
        self.stream, self.enabled = stream, enabled

    def __call__(self, event: Mapping[str, object]) -> None:
        if self.enabled:
            self.stream.write(json.dumps(event, allow_nan=False) + "\n")
            self.stream.flush()


def _cuda_device_count() -> int:
    torch = sys.modules.get("torch")  # the probe has imported it by now (or it is not installed)
    try:
        return torch.cuda.device_count() if torch is not None and torch.cuda.is_available() else 0
    except Exception:
        return 0


def _unwritable(path: str | None) -> str | None:
    """Why the report file cannot be written (missing folder, no permission), or None when it can."""
    if not path or path == "-":
        return None
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"no such folder {folder}"
    if os.path.isdir(path):
        return "it is a folder"
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        return "permission denied"
    return None


COLLECTIVES_TIMEOUT_S = {"quick": 600.0, "full": 1800.0}


def run_collectives_subprocess(
    gpu_count: int, mode: str, backend: str = "nccl", extra_sizes: tuple[int, ...] = ()
) -> list[Collective]:
    """Run profiler.collectives under torchrun: NCCL on all local GPUs, or gloo on two CPU ranks.

    In the frozen bundle torchrun is gpu-probe's own --torchrun entry point (a frozen executable cannot run
    ``-m torch.distributed.run``); raises CollectivesFailed with the worker's error line.
    """
    from profiler.collectives import failed_entries, run_torchrun

    if backend == "nccl" and gpu_count < 2:
        return failed_entries(
            "nccl",
            max(gpu_count, 1),
            f"collectives need at least 2 CUDA GPUs; this machine has {gpu_count}. To check the path on CPU: "
            "gpu-probe --collectives --collectives-backend gloo",
        )
    nproc = gpu_count if backend == "nccl" else 2
    if backend == "nccl":
        sizes = "1M,16M,256M" if mode == "quick" else "1M,4M,16M,64M,256M,1G"
    else:
        sizes = "64K,1M"
    if extra_sizes:  # a model's small messages (latency-bound: their time is the per-call latency)
        sizes = ",".join([*(str(size) for size in sorted(set(extra_sizes))), sizes])
    probe_exe = [sys.executable] if getattr(sys, "frozen", False) else None
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "collectives.json")
        worker_args = ["--backend", backend, "--sizes", sizes]
        return run_torchrun(nproc, worker_args, out, COLLECTIVES_TIMEOUT_S[mode], probe_exe)




def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # the real entry point: Ctrl-C and closed pipes handled before anything else runs
        from profiler.early_interrupt import exit_on_ctrl_c

        exit_on_ctrl_c("gpu-probe")  # while profiler.exits is imported
        from profiler.exits import run_entry

        return run_entry("gpu-probe", lambda: _dispatch(sys.argv[1:]))
    return _dispatch(argv)


def _dispatch(argv: Sequence[str]) -> int:
    args = list(argv)
    if args[:1] == ["--torchrun"]:  # the frozen bundle's torchrun (profiler/collectives.py)
        from profiler.collectives import torchrun_main

        return torchrun_main(args[1:])
    if args[:1] == ["--collectives-worker"]:  # one rank of the frozen bundle's collectives
        from profiler.collectives import main as collectives_main

        return collectives_main(args[1:])
    try:
        with _stop_on_sigterm():
            return _main(args)
    except KeyboardInterrupt:  # Ctrl-C: one line and exit 128 + SIGINT, not a traceback from inside torch
        print("gpu-probe: interrupted; no report written", file=sys.stderr)
        return 130


@contextmanager
def _stop_on_sigterm() -> Iterator[None]:
    """While gpu-probe runs, SIGTERM (the GUI's Cancel, a timeout) raises SystemExit, so the finally blocks run:
    a torchrun started for --collectives is stopped with its ranks instead of being left holding the GPUs."""
    import signal

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread (gpu-probe called from another program's thread)
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _main(argv: Sequence[str] | None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except _BadArguments as exc:
        print(f"gpu-probe: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help
        return int(exc.code or 0)

    problem = _unwritable(args.json)
    if problem:  # say so now, not after a minute of probing
        print(f"gpu-probe: cannot write {args.json}: {problem}", file=sys.stderr)
        return 2
    emit = _Lines(sys.stdout, args.progress)
    from profiler import probe
    from profiler.model_shapes import ShapesError, load_model_shapes

    shapes = None
    if args.model_shapes:
        try:
            shapes = load_model_shapes(args.model_shapes)
        except ShapesError as exc:
            print(f"gpu-probe: {exc}", file=sys.stderr)
            return 2

    try:
        started: list[str] = []

        def on_plan(devices: list[str]) -> None:
            started.extend(devices)

        def on_devices(info: list[JSONObject]) -> None:
            emit({"event": "start", "devices": list(started), "device_info": list(info), "mode": args.mode})

        def on_progress(stage: str, fraction: float, device: str, measurement: Measurement | None) -> None:
            if not started:  # inventory and torch start-up come before the device list is known
                return
            if measurement is not None:
                emit({"event": "result", "device": device, "measurement": measurement})
            emit({"event": "progress", "stage": stage, "fraction": round(fraction, 4), "device": device})

        report = probe.run_probe(
            args.mode, args.device, progress=on_progress, on_plan=on_plan, on_devices=on_devices, shapes=shapes
        )
        if args.collectives:
            gpu_count = _cuda_device_count()  # all local GPUs, whichever --device was probed
            backend = args.collectives_backend
            try:
                extra = shapes.collective_sizes if shapes is not None else ()
                entries = run_collectives_subprocess(gpu_count, args.mode, backend, extra)
            except Exception as exc:  # a failed collectives run still leaves the device measurements
                from profiler.collectives import failed_entries

                entries = failed_entries(backend, gpu_count if backend == "nccl" else 2, str(exc))
            data = report.to_dict()
            data["collectives"] = entries
            report = ProbeReport.from_dict(data)
    except Exception as exc:  # the probe must not die silently: tell the GUI, exit 1
        emit({"event": "error", "message": f"{type(exc).__name__}: {exc}"})
        print(f"gpu-probe: probe failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1

    if args.json and args.json != "-":
        try:
            write_report_file(args.json, report.to_json())
        except OSError as exc:
            emit({"event": "error", "message": f"cannot write {args.json}: {exc.strerror or exc}"})
            print(f"gpu-probe: cannot write {args.json}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    if args.progress:
        emit({"event": "done", "report": report.to_dict()})
    elif args.json == "-":
        sys.stdout.write(report.to_json() + "\n")
    else:
        print(human_summary(report))
        if args.json:
            print(f"report written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
