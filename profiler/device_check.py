"""`make device-check` (``python -m profiler.device_check``): everything the probe assumes about a real NVIDIA
GPU, checked on one, in under 10 minutes, into one JSON file and a short summary.

Run it on a rented GPU machine (docs/device-check.md says how). Steps, in order:

  environment         torch, its CUDA build, what CUDA and NVML see, and the warnings CUDA start-up raised
  probe_quick         gpu-probe --quick on every device (on a machine without a GPU: the CPU)
  probe_full          gpu-probe --full on cuda:0
  event_vs_wall       one matmul timed with CUDA events and with perf_counter around synchronize
  copy_sizes          device copy bandwidth from 16 MiB to 4 GiB (below and above the 4 x L2 floor)
  cold_warm_matmul    the first repetitions after 2 s of idle against warmed-up ones, with SM clocks
  fp8_accumulation    fp8 matmul with and without fast accumulation (speed and error against fp32)
  tf32_restored       the TF32 setting after a tf32 measurement is the one before it
  nn_vs_tn_and_flush  bf16 matmul with B row-major (NN) and transposed (TN), with and without the L2 flush
  h2d_per_numa        host-to-device copy with the host buffer on each NUMA node in turn
  busy_gpu            gpu-probe while another process computes on cuda:0: the report must say busy
  sticky_cuda_error   a probe child whose fp16 step triggers a sticky CUDA error: does the report survive
  collectives_gloo    gpu-probe --collectives --collectives-backend gloo (the torchrun path, no GPU needed)
  collectives_nccl    gpu-probe --collectives on all GPUs (needs 2 or more)
  mig                 with MIG on: the probe names the slice it measured and lists the others
  memory              small real models' training steps and generate() calls: torch.cuda.max_memory_allocated
                      against the analytic estimate (gpu-advisor memory) and the trace on fake tensors
                      (profiler.memory_trace), and decode tokens/s against the performance model (gpu-advisor plan)

Every step is isolated: it returns a JSON-able dict, and an exception in one becomes that step's
{"status": "error"} while the others go on. Steps that need a GPU are skipped, with the reason, where there is
none; the script exits 0 either way (2 only for bad arguments).

Adding a step: write ``def check_name(context: Context) -> JSONObject`` and append
``Step("name", check_name, "what it shows", needs_gpus=1, estimate_s=30)`` to STEPS. Return measured numbers
with their units in the key names; raise to fail the step.

When the interpreter running this has a CPU-only torch, the script looks for a CUDA build in the other
Pythons on PATH (python3, python) and re-runs itself there; failing that it says how to install one.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from profiler.device_check_context import ROOT, Context
from profiler.device_check_measures import (
    check_cold_warm_matmul,
    check_copy_sizes,
    check_event_vs_wall,
    check_fp8_accumulation,
    check_h2d_per_numa,
    check_nn_vs_tn_and_flush,
    check_tf32_restored,
)
from profiler.device_check_memory import check_memory
from profiler.jsontypes import JSONObject, JSONValue

TOTAL_BUDGET_S = 9 * 60 + 30  # the whole check stays under 10 minutes


@dataclass(frozen=True)
class Step:
    name: str
    run: Callable[[Context], JSONObject]
    description: str
    needs_gpus: int = 1  # 0: runs everywhere
    estimate_s: float = 20.0  # skipped when less time than this is left


# --------------------------------------------------------------------------------------------------------------
# Running the steps
# --------------------------------------------------------------------------------------------------------------


def run_steps(steps: Sequence[Step], context: Context) -> dict[str, JSONObject]:
    """Run each step in turn, isolated: {"status": "ok"|"skipped"|"error", "seconds", ...} per step."""
    for step in steps:
        context.results[step.name] = _run_one(step, context)
    return context.results


def _run_one(step: Step, context: Context) -> JSONObject:
    skip = _why_skip(step, context)
    if skip:
        return {"status": "skipped", "reason": skip, "description": step.description}
    started = time.monotonic()
    try:
        outcome = step.run(context)
    except Exception as exc:  # one failing step must not stop the others: record it and go on
        return {
            "status": "error",
            "error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:500]}",
            "traceback_tail": _lines(traceback.format_exc().strip().splitlines()[-6:]),
            "seconds": round(time.monotonic() - started, 2),
            "description": step.description,
        }
    return {
        "status": "ok",
        "seconds": round(time.monotonic() - started, 2),
        "description": step.description,
        **outcome,
    }


def _why_skip(step: Step, context: Context) -> str | None:
    if step.needs_gpus and context.gpu_count < step.needs_gpus:
        have = f"{context.gpu_count} CUDA GPU(s)"
        why = f" ({context.cuda_reason})" if context.cuda_reason and not context.gpu_count else ""
        return f"needs {step.needs_gpus} CUDA GPU(s); this machine has {have}{why}"
    if context.remaining_s() < step.estimate_s:
        return f"the 10-minute budget is spent ({context.remaining_s():.0f} s left, the step takes ~{step.estimate_s:.0f} s)"
    return None


def _lines(items: Sequence[str]) -> list[JSONValue]:
    return list(items)


def summary_lines(results: dict[str, JSONObject]) -> list[str]:
    """One line per step: status, time, and its headline (or why it was skipped / failed)."""
    lines = []
    for name, result in results.items():
        status = str(result.get("status"))
        detail = result.get("headline") or result.get("reason") or result.get("error") or ""
        seconds = result.get("seconds")
        took = f"{seconds:6.1f} s" if isinstance(seconds, (int, float)) else "      -"
        lines.append(f"{name:<20} {status:<8} {took}  {detail}")
    return lines


# --------------------------------------------------------------------------------------------------------------
# Helpers for the steps
# --------------------------------------------------------------------------------------------------------------


def _probe(context: Context, name: str, args: Sequence[str], env: dict[str, str] | None = None,
           timeout_s: float = 300.0) -> JSONObject:  # fmt: skip
    """gpu-probe in a child process (the way the GUI runs it); the report's key figures, or why it failed."""
    from profiler.report import ReportError, load_report

    out = context.out_dir / f"{name}.json"
    command = [sys.executable, "-m", "profiler", *args, "--json", str(out)]
    child_env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )
    child_env.update(env or {})
    started = time.monotonic()
    completed = subprocess.run(command, capture_output=True, text=True, env=child_env,
                               timeout=min(timeout_s, max(30.0, context.remaining_s())), check=False)  # fmt: skip
    result: JSONObject = {
        "command": " ".join(command[2:]),
        "exit_code": completed.returncode,
        "wall_s": round(time.monotonic() - started, 2),
        "stderr_tail": _lines(completed.stderr.strip().splitlines()[-5:]),
        "report_file": str(out),
    }
    try:
        report = load_report(out)
    except ReportError as exc:
        result["report"] = f"no usable report: {exc}"
        return result
    devices: list[JSONValue] = []
    for device in report.devices:
        figures: JSONObject = {}
        for m in device["measurements"]:
            key = (
                m["kind"]
                + (f"_{m['dtype']}" if m["dtype"] else "")
                + (f"_to_{m['peer']}" if m["peer"] else "")
            )
            figures[key] = m["value"] if m["ok"] else f"failed: {m['error']}"
        entry: JSONObject = {"device": device["device"], "name": device["name"], "figures": figures}
        if "activity" in device:
            entry["activity"] = device["activity"]
        if "mig" in device:
            entry["mig"] = device["mig"]
        devices.append(entry)
    result["devices"] = devices
    result["collectives"] = [
        {"op": c["op"], "ok": c.get("ok", True), "error": c.get("error"),
         "best_busbw_bytes_per_s": max((r["busbw_bytes_per_s"] for r in c["results"]), default=None)}
        for c in report.collectives
    ]  # fmt: skip
    return result


# --------------------------------------------------------------------------------------------------------------
# The steps
# --------------------------------------------------------------------------------------------------------------


def check_environment(context: Context) -> JSONObject:
    from profiler.nvml_inventory import read_inventory
    from profiler.probe_devices import cuda_state

    try:
        import torch
    except ImportError as exc:
        return {
            "headline": f"torch is not installed in {sys.executable}: {exc}",
            "install_hint": INSTALL_HINT,
        }
    inventory = read_inventory()
    count, reason = cuda_state()
    gpus: list[JSONValue] = [
        {"cuda_index": g.cuda_index, "name": g.name if isinstance(g.name, str) else None,
         "mig_mode": g.mig_mode if isinstance(g.mig_mode, str) else None,
         "numa_node": g.numa_node if isinstance(g.numa_node, int) else None,
         "cpu_affinity": len(g.cpu_affinity) if isinstance(g.cpu_affinity, list) else None}
        for g in inventory.gpus
    ]  # fmt: skip
    return {
        "headline": f"torch {torch.__version__} (CUDA build {torch.version.cuda}), {count} CUDA device(s), "
        f"NVML: {len(inventory.gpus)} GPU(s), driver {inventory.driver_version}",
        "python": sys.executable,
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "cuda_devices": count,
        "cuda_reason": reason,
        "nvml_available": inventory.available,
        "nvml_reason": inventory.reason,
        "driver_version": inventory.driver_version if isinstance(inventory.driver_version, str) else None,
        "nvml_gpus": gpus,
        "install_hint": None if torch.version.cuda else INSTALL_HINT,
    }


INSTALL_HINT = (
    "this torch is a CPU build: install a CUDA build into this environment with "
    "`pip install torch --index-url https://download.pytorch.org/whl/cu128` (pick the cuXY at or below the "
    "driver's CUDA version that nvidia-smi shows), or run the check with a Python that has one: "
    "DEVICE_CHECK_PYTHON=/path/to/python make device-check"
)


def check_probe_quick(context: Context) -> JSONObject:
    result = _probe(context, "probe_quick", ["--quick"])
    devices = result.get("devices")
    count = len(devices) if isinstance(devices, list) else 0
    result["headline"] = f"exit {result['exit_code']} in {result['wall_s']} s, {count} device(s)"
    return result


def check_probe_full(context: Context) -> JSONObject:
    result = _probe(context, "probe_full", ["--full", "--device", "cuda:0"], timeout_s=240)
    result["headline"] = f"exit {result['exit_code']} in {result['wall_s']} s"
    return result


BUSY_LOOP = (
    "import torch, time; a = torch.randn(8192, 8192, device='cuda:0', dtype=torch.bfloat16); "
    "end = time.time() + {seconds}; "
    "print('busy', flush=True)\nwhile time.time() < end: a @ a"
)


def check_busy_gpu(context: Context) -> JSONObject:
    load = subprocess.Popen(
        [sys.executable, "-c", BUSY_LOOP.format(seconds=90)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert load.stdout is not None and load.stdout.readline().strip() == "busy"
        time.sleep(1.0)  # utilisation is averaged over the last sample period
        result = _probe(context, "busy_gpu", ["--quick", "--device", "cuda:0"], timeout_s=120)
    finally:
        load.kill()
        load.wait()
    devices = result.get("devices")
    first = devices[0] if isinstance(devices, list) and devices else {}
    activity = first.get("activity") if isinstance(first, dict) else None
    busy = isinstance(activity, dict) and activity.get("busy") is True
    result["flagged_busy"] = busy
    result["headline"] = "flagged busy" if busy else "NOT flagged busy"
    return result


STICKY_CHILD = """
import sys
from profiler import probe_steps
from profiler.__main__ import main
def sticky(index, dtype, capability, settings, _real=probe_steps.cuda_matmul):
    if dtype == "fp16":
        import torch
        torch.zeros(4, device=f"cuda:{index}")[torch.tensor([1 << 20], device=f"cuda:{index}")].sum().item()
    return _real(index, dtype, capability, settings)
probe_steps.cuda_matmul = sticky
sys.exit(main(sys.argv[1:]))
"""


def check_sticky_cuda_error(context: Context) -> JSONObject:
    """A device-side assert (an out-of-range index on the GPU) is sticky: every later CUDA call fails."""
    out = context.out_dir / "sticky.json"
    command = [
        sys.executable,
        "-c",
        STICKY_CHILD,
        "--quick",
        "--device",
        "cuda:0",
        "--progress",
        "--json",
        str(out),
    ]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    completed = subprocess.run(command, capture_output=True, text=True, env=env, timeout=180, check=False)
    lines = completed.stdout.splitlines()
    done = any('"event": "done"' in line for line in lines)
    from profiler.report import ReportError, load_report

    try:
        report = load_report(out)
        failed = [m["dtype"] or m["kind"] for d in report.devices for m in d["measurements"] if not m["ok"]]
        errors = sorted({m["error"] or "" for d in report.devices for m in d["measurements"] if not m["ok"]})[
            :3
        ]
        survived = True
    except ReportError as exc:
        failed, errors, survived = [], [str(exc)], False
    return {
        "headline": f"report {'survived' if survived else 'LOST'}; done line {'sent' if done else 'missing'}; "
        f"exit {completed.returncode}",
        "report_survived": survived,
        "done_line_sent": done,
        "exit_code": completed.returncode,
        "failed_steps": list(failed),
        "errors": list(errors),
        "stderr_tail": _lines(completed.stderr.strip().splitlines()[-4:]),
    }


def check_collectives_gloo(context: Context) -> JSONObject:
    return _collectives(context, "collectives_gloo", ["--collectives-backend", "gloo"], 240)


def check_collectives_nccl(context: Context) -> JSONObject:
    return _collectives(context, "collectives_nccl", [], 400)


def _collectives(context: Context, name: str, extra: list[str], timeout_s: float) -> JSONObject:
    """gpu-probe --collectives after a CPU-only device probe (the devices were measured in probe_quick)."""
    result = _probe(
        context, name, ["--quick", "--device", "cpu", "--collectives", *extra], timeout_s=timeout_s
    )
    result.pop("devices", None)
    entries = result.get("collectives")
    parts = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict):
            best = entry.get("best_busbw_bytes_per_s")
            figure = (
                f"{best / 1e9:.2f} GB/s busbw"
                if isinstance(best, float)
                else f"not measured ({entry.get('error')})"
            )
            parts.append(f"{entry.get('op')} {figure}")
    result["headline"] = f"exit {result['exit_code']}: " + "; ".join(parts)
    return result


def check_mig(context: Context) -> JSONObject:
    from profiler.nvml_inventory import read_inventory

    gpus = [g for g in read_inventory().gpus if g.mig_mode == "enabled"]
    if not gpus:
        return {"headline": "MIG is off on every GPU: nothing to attribute", "mig": False}
    result = _probe(context, "mig", ["--quick"], timeout_s=240)
    devices = result.get("devices")
    named = [d for d in devices if isinstance(d, dict) and "mig" in d] if isinstance(devices, list) else []
    result["headline"] = f"{len(named)} device(s) with a MIG slice named"
    return result


# --------------------------------------------------------------------------------------------------------------
# Memory: a real training step and a generate call on the GPU against the analytic and traced figures
# --------------------------------------------------------------------------------------------------------------


STEPS: list[Step] = [
    Step("environment", check_environment, "torch, CUDA and NVML as this Python sees them", 0, 5),
    Step("probe_quick", check_probe_quick, "gpu-probe --quick on every device", 0, 90),
    Step("probe_full", check_probe_full, "gpu-probe --full on cuda:0", 1, 70),
    Step("event_vs_wall", check_event_vs_wall, "CUDA events against perf_counter + synchronize", 1, 15),
    Step("copy_sizes", check_copy_sizes, "copy bandwidth from 16 MiB to 4 GiB", 1, 20),
    Step("cold_warm_matmul", check_cold_warm_matmul, "cold against warm matmul, SM clocks", 1, 15),
    Step("fp8_accumulation", check_fp8_accumulation, "fp8 with and without fast accumulation", 1, 15),
    Step("tf32_restored", check_tf32_restored, "TF32 setting restored after a tf32 measurement", 1, 10),
    Step(
        "nn_vs_tn_and_flush", check_nn_vs_tn_and_flush, "NN against TN, with and without the L2 flush", 1, 20
    ),
    Step("h2d_per_numa", check_h2d_per_numa, "host-to-device copy from each NUMA node", 1, 20),
    Step("busy_gpu", check_busy_gpu, "the probe while another process computes on cuda:0", 1, 60),
    Step("sticky_cuda_error", check_sticky_cuda_error, "a sticky CUDA error in a probe child", 1, 40),
    Step("collectives_gloo", check_collectives_gloo, "the torchrun path with two gloo ranks", 0, 30),
    Step("collectives_nccl", check_collectives_nccl, "NCCL collectives on all GPUs", 2, 90),
    Step("mig", check_mig, "MIG slice attribution", 1, 40),
    Step(
        "memory", check_memory, "training step and generate(): torch.cuda peaks vs analytic and traced", 1, 30
    ),
]


# --------------------------------------------------------------------------------------------------------------
# Finding a CUDA build of torch, and the command line
# --------------------------------------------------------------------------------------------------------------

PROBE_TORCH = "import json, torch; print(json.dumps([torch.__version__, torch.version.cuda, torch.cuda.is_available()]))"


def torch_build(python: str) -> tuple[str, str | None, bool] | None:
    """(torch version, its CUDA version or None, CUDA available) in that interpreter, or None without torch."""
    try:
        completed = subprocess.run(
            [python, "-c", PROBE_TORCH], capture_output=True, text=True, timeout=120, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    try:
        version, cuda, available = json.loads(completed.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None
    return str(version), (str(cuda) if cuda else None), bool(available)


def find_cuda_python(candidates: Sequence[str]) -> str | None:
    """The first interpreter among `candidates` whose torch has CUDA and sees a GPU."""
    import shutil

    for name in candidates:
        path = shutil.which(name) or (name if os.path.isabs(name) and os.path.exists(name) else None)
        if not path or os.path.realpath(path) == os.path.realpath(sys.executable):
            continue
        build = torch_build(path)
        if build is not None and build[1] and build[2]:
            return path
    return None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m profiler.device_check", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--out", default="device-check.json", help="the JSON file to write (default %(default)s)"
    )
    parser.add_argument("--steps", help="comma-separated step names to run (default: all)")
    parser.add_argument("--no-reexec", action="store_true", help="do not look for a CUDA torch elsewhere")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    wanted = [s.strip() for s in args.steps.split(",")] if args.steps else [s.name for s in STEPS]
    unknown = sorted(set(wanted) - {s.name for s in STEPS})
    if unknown:
        print(f"device-check: unknown step(s) {', '.join(unknown)}; steps: {', '.join(s.name for s in STEPS)}",
              file=sys.stderr)  # fmt: skip
        return 2
    reexec = _reexec_target(args.no_reexec)
    if reexec is not None:
        print(f"device-check: this Python's torch has no CUDA; running under {reexec}", flush=True)
        env = dict(
            os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        )
        rest = list(argv if argv is not None else sys.argv[1:])
        return subprocess.call([reexec, "-m", "profiler.device_check", "--no-reexec", *rest], env=env)
    return _run(args.out, [s for s in STEPS if s.name in wanted])


def _reexec_target(disabled: bool) -> str | None:
    """Another Python with a CUDA torch, when this one has none and a GPU is there to use."""
    if disabled:
        return None
    own = torch_build(sys.executable)
    if own is not None and own[1] and own[2]:
        return None
    explicit = os.environ.get("DEVICE_CHECK_PYTHON", "").strip()
    return find_cuda_python([explicit] if explicit else ["python3", "python"])


def _run(out: str, steps: Sequence[Step]) -> int:
    out_path = Path(out).resolve()
    try:
        out_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"device-check: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
    try:
        import torch  # noqa: F401  (cuda_state reads it from sys.modules)

        from profiler.probe_devices import cuda_state

        gpu_count, reason = cuda_state()
    except ImportError as exc:
        gpu_count, reason = 0, f"torch is not installed ({exc}): {INSTALL_HINT}"
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="device-check-") as folder:
        context = Context(Path(folder), gpu_count, reason, started + TOTAL_BUDGET_S)
        if gpu_count == 0:
            print(f"device-check: no CUDA GPU here ({reason}); the GPU steps are skipped", flush=True)
        results = run_steps(steps, context)
        document: JSONObject = {
            "schema": "gpu-advisor.device-check",
            "version": 1,
            "created_at": _now(),
            "gpu_count": gpu_count,
            "cuda_reason": reason,
            "total_s": round(time.monotonic() - started, 1),
            "steps": {name: result for name, result in results.items()},
        }
        _keep_reports(context.out_dir, out_path)
    out_path.write_text(json.dumps(document, indent=2, default=str) + "\n", encoding="utf-8")
    print("\n".join(summary_lines(results)))
    print(f"device-check: wrote {out_path} in {document['total_s']} s")
    return 0


def _keep_reports(folder: Path, out_path: Path) -> None:
    """Copy the probe reports the steps wrote next to the JSON file (device-check-reports/)."""
    import shutil

    reports = sorted(folder.glob("*.json"))
    if reports:
        target = out_path.with_name(out_path.stem + "-reports")
        target.mkdir(exist_ok=True)
        for report in reports:
            shutil.copy2(report, target / report.name)


def _now() -> str:
    from profiler.report import utc_now_iso

    return utc_now_iso()


if __name__ == "__main__":
    sys.exit(main())
