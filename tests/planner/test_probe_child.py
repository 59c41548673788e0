"""`gpu-advisor probe`'s time limits (issue 30, item 5), with real child processes: the parent stops reading
when the report is in even though a grandchild keeps the pipe open (it held it 90 s before), a child that stops
printing is killed with its whole process group, and nothing it started outlives the command."""

from __future__ import annotations

import os
import sys
import textwrap
import time
from pathlib import Path

import pytest

from planner.cli import main
from planner.cli.probe_child import run_probe_child
from planner.errors import UserError

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")]

REPO = Path(__file__).resolve().parents[2]

# A child that speaks gpu-probe's --progress protocol, starts a grandchild that inherits its stdout and sleeps
# for a minute, writes its pid to PIDFILE, and then either finishes (writes the report, "done") or hangs.
CHILD = textwrap.dedent(
    """
    import json, subprocess, sys, time
    sys.path.insert(0, {repo!r})
    from pathlib import Path
    from tests.fixtures.store_reports import write_report

    grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    Path({pidfile!r}).write_text(str(grandchild.pid))
    print(json.dumps({{"event": "progress", "stage": "matmul", "fraction": 0.5, "device": "cpu"}}), flush=True)
    if {hang!r}:
        time.sleep(120)
    args = sys.argv[1:]
    target = Path(args[args.index("--json") + 1])
    write_report(target, hostname="this-host", bf16_flop_per_s=1.5e12)
    print(json.dumps({{"event": "done", "report": json.loads(target.read_text())}}), flush=True)
    """
)


def child_command(tmp_path: Path, hang: bool) -> tuple[list[str], Path]:
    pidfile = tmp_path / "grandchild.pid"
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(repo=str(REPO), pidfile=str(pidfile), hang=hang))
    return [sys.executable, str(script)], pidfile


def gone(pid: int, within_s: float = 5.0) -> bool:
    """True once `pid` no longer runs (exited, or a zombie waiting for its new parent to reap it)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


def test_the_parent_stops_reading_when_the_report_is_in_and_ends_the_grandchild(
    tmp_path, monkeypatch, capsys
):
    command, pidfile = child_command(tmp_path, hang=False)
    monkeypatch.setenv("GPU_ADVISOR_PROBE_CMD", " ".join(command))
    started = time.monotonic()
    assert main(["probe", "--quick", "--no-save"]) == 0
    assert time.monotonic() - started < 30  # the grandchild holds the pipe for 60 s
    out = capsys.readouterr().out
    assert "GPU Advisor probe (quick)" in out  # the summary, made from the report the child wrote
    assert gone(int(pidfile.read_text()))


def test_a_child_that_stops_printing_is_killed_with_its_process_group(tmp_path):
    command, pidfile = child_command(tmp_path, hang=True)
    report = tmp_path / "report.json"
    started = time.monotonic()
    with pytest.raises(UserError) as stalled:
        run_probe_child([*command, "--quick", "--json", str(report), "--progress"], stall_s=2.0)
    assert time.monotonic() - started < 30  # the child would hang for 120 s
    assert stalled.value.message.code == "error.probe_stalled"
    assert "printed nothing for 2 s" in str(stalled.value) and "\n" not in str(stalled.value)
    assert gone(int(pidfile.read_text()))
    assert not report.exists()


def test_a_child_that_exits_without_the_protocol_is_not_waited_for_past_its_exit(tmp_path):
    script = tmp_path / "plain.py"
    script.write_text(
        "import subprocess, sys\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print('a summary line')\n"
    )
    started = time.monotonic()
    outcome = run_probe_child([sys.executable, str(script)])
    assert time.monotonic() - started < 30
    assert outcome.returncode == 0 and outcome.other_lines == ["a summary line\n"] and not outcome.done
