"""`gpu-advisor probe [--quick|--full] [--json FILE] [--save|--no-save]` and `gpu-advisor probe import FILE`.

The probe itself runs as a child process (gpu-probe: `python -I ... profiler`, profiler/child_command.py), so this
process never imports torch and a driver fault in the probe cannot take it down; probe_child.py holds its time
limits (a stall kills its process group). GPU_ADVISOR_PROBE_CMD (a shell-like command line)
replaces the child command, as it does for the GUI; tests use it to run a fake probe.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from planner.cli import SUMMARIES, print_json
from planner.cli.probe_child import run_probe_child
from planner.cli.store_access import open_store
from planner.errors import UserError
from planner.files import refuse_overwrite, refuse_special_target
from planner.messages import msg
from profiler.child_command import isolated_module_command

if TYPE_CHECKING:
    from profiler.report import ProbeReport

PROBE_CMD_ENV = "GPU_ADVISOR_PROBE_CMD"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "probe",
        help=SUMMARIES["probe"],
        description="Run gpu-probe here and save the report (gpu-advisor probe --quick), or store a report made "
        "on another machine (gpu-advisor probe import FILE).",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--quick", dest="mode", action="store_const", const="quick", help="short probe (default)"
    )
    mode.add_argument("--full", dest="mode", action="store_const", const="full", help="longer, more shapes")
    parser.add_argument("--json", dest="report_file", metavar="FILE", help="also write the report to FILE")
    save = parser.add_mutually_exclusive_group()
    save.add_argument(
        "--save", dest="save", action="store_true", default=True, help="store the run (default)"
    )
    save.add_argument("--no-save", dest="save", action="store_false", help="do not store the run")
    parser.add_argument("--label", help="machine name to store the run under (default: 'this machine')")
    parser.add_argument("--force", action="store_true", help="let --json replace FILE")
    parser.set_defaults(handler=run_probe, mode="quick")
    # `probe` has its own options and one optional sub-action; with required=False both forms parse.
    actions = parser.add_subparsers(dest="probe_action", metavar="import", parser_class=type(parser))
    actions.required = False
    importing = actions.add_parser("import", help="store a report written by gpu-probe on another machine")
    importing.add_argument("file", help="report JSON written by gpu-probe --json")
    importing.add_argument(
        "--label", dest="import_label", help="machine name (default: '<hostname> (imported)')"
    )
    importing.add_argument(
        "--json", dest="json_output", action="store_true", help="print the stored run as JSON"
    )
    importing.set_defaults(handler=run_import)


def probe_command() -> list[str]:
    """The gpu-probe command line: GPU_ADVISOR_PROBE_CMD when set, the bundled gpu-probe in the bundle, else
    this interpreter running profiler isolated from the current folder."""
    configured = os.environ.get(PROBE_CMD_ENV, "").strip()
    if configured:
        return shlex.split(configured, posix=os.name != "nt")
    if getattr(sys, "frozen", False):  # the PyInstaller bundle: gpu-probe sits next to gpu-advisor
        return [
            str(Path(sys.executable).resolve().with_name("gpu-probe.exe" if os.name == "nt" else "gpu-probe"))
        ]
    return isolated_module_command("profiler")


def _load(path: str | Path) -> ProbeReport:
    from profiler.report import ReportError, load_report

    try:
        return load_report(Path(path))
    except ReportError as exc:
        raise UserError.of(msg("error.report_unusable", detail=str(exc))) from None


def check_report_file(path: str | None, force: bool = False) -> None:
    """UserError now, not after the probe, when --json FILE cannot be written (gpu-probe checks it too, but its
    refusal would come back as a second line, "gpu-probe failed")."""
    if not path:
        return
    target = Path(path).expanduser().absolute()
    refuse_special_target(target)  # a FIFO would block the probe's write; a symlink loop can never be written
    if target.is_dir():
        raise UserError.of(msg("error.report_target_folder", path=path))
    if not target.parent.is_dir():
        raise UserError.of(msg("error.report_target_no_folder", path=path, folder=str(target.parent)))
    refuse_overwrite([target], force=force)


def _without_line(text: str, line: str) -> str:
    """`text` less every line equal to `line` (kept as it was otherwise, line endings included)."""
    return "".join(kept for kept in text.splitlines(keepends=True) if kept.rstrip("\r\n") != line)


def run_probe(args: argparse.Namespace) -> int:
    check_report_file(args.report_file, args.force)
    with tempfile.TemporaryDirectory(prefix="gpu-advisor-probe-") as scratch:
        # the child always writes into this run's own empty folder: a FILE left from an earlier run can never be
        # taken for this run's report when the child writes none; it is copied to --json FILE once it loaded
        report_path = Path(scratch) / "report.json"
        command = [*probe_command(), f"--{args.mode}", "--json", str(report_path), "--progress"]
        try:
            outcome = run_probe_child(command)  # progress goes to stderr, which passes through
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise UserError.of(msg("error.probe_cannot_start", command=command[0], reason=reason)) from None
        # the temporary file is deleted below: never send the user looking for it
        sys.stdout.write(_without_line("".join(outcome.other_lines), f"report written to {report_path}"))
        sys.stdout.flush()
        if outcome.returncode != 0:
            raise UserError.of(msg("error.probe_failed", exit_code=outcome.returncode))
        if not report_path.exists():
            raise UserError.of(msg("error.probe_no_report"))
        report = _load(report_path)
        if outcome.done:  # gpu-probe --progress prints no summary: the report it wrote is summarised here
            from profiler.probe_summary import human_summary

            print(human_summary(report))
        if args.report_file:
            shutil.copyfile(report_path, args.report_file)
            print(f"report written to {args.report_file}")
    if not args.save:
        print("probe finished; not saved (--no-save)")
        return 0
    with open_store() as store:
        run_id = store.probe_runs.save(report, source="local", label=args.label)
    print(f"saved probe run #{run_id} for {args.label or 'this machine'}; see `gpu-advisor history`")
    return 0


def run_import(args: argparse.Namespace) -> int:
    report = _load(args.file)
    with open_store() as store:
        run_id = store.probe_runs.save(report, source="imported", label=args.import_label or args.label)
        run = store.probe_runs.get(run_id)
    if args.json_output:
        from planner.cli.history_cmd import run_json

        print_json(run_json(run))
    else:
        print(
            f"imported probe run #{run_id} as machine '{run.machine}' ({', '.join(run.devices) or 'no devices'})"
        )
    return 0
