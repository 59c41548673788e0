"""Ctrl-C and closed pipes at any moment (issue 30 item 4): `gpu-advisor` and `gpu-probe` exit 130 with one line
when interrupted, wherever they are (start-up imports included), and never print a traceback when stdout or
stderr is closed or its reader has gone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
COMMANDS = {
    "gpu-advisor": [str(BIN / "gpu-advisor"), "plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--json"],
    "gpu-probe": [str(BIN / "gpu-probe"), "--quick", "--device", "cpu"],
}
# From inside start-up (imports) to well into the work; every one must end the same way.
DELAYS_S = (0.15, 0.3, 0.45, 0.7, 1.0, 1.5)


def interrupted_after(command: list[str], delay_s: float, tmp_path: Path) -> tuple[int, str]:
    env = dict(os.environ, GPU_ADVISOR_FAKE_NVML="nolib", GPU_ADVISOR_DB=str(tmp_path / "db.sqlite"))
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    time.sleep(delay_s)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    return process.returncode, err.decode("utf-8", "replace")


@pytest.mark.slow
@pytest.mark.parametrize("program", sorted(COMMANDS))
def test_ctrl_c_at_any_moment_is_exit_130_and_one_line(program, tmp_path):
    for delay_s in DELAYS_S:
        code, err = interrupted_after(COMMANDS[program], delay_s, tmp_path)
        if code == 0:  # finished before the signal came (a fast plan): nothing to check at this delay
            continue
        if code == -signal.SIGINT and err == "":
            # the signal came before CPython installed its own SIGINT handler (interpreter start-up, reached late
            # on a loaded machine): the process dies of the signal itself, silently, and a shell reports 130 too
            continue
        assert code == 130, (delay_s, code, err)
        assert err.count("\n") == 1 and "interrupted" in err and "Traceback" not in err, (delay_s, err)


@pytest.mark.slow
@pytest.mark.parametrize("closed", ["stdout", "stderr", "both"])
def test_gpu_probe_with_a_closed_stream_never_tracebacks(closed, tmp_path):
    streams = {"stdout": "1", "stderr": "2", "both": "12"}[closed]
    close = " ".join(f"{fd}>&-" for fd in streams)
    probe = COMMANDS["gpu-probe"]
    for args in (["--help"], probe[1:], ["--device", "cpu\n"]):
        command = " ".join(map(_quote, [probe[0], *args]))
        completed = subprocess.run(["bash", "-c", f"{command} {close} 2>{tmp_path / 'err'}" if "2" not in streams
                                    else f"{command} {close}"], capture_output=True, timeout=120,
                                   env=dict(os.environ, GPU_ADVISOR_FAKE_NVML="nolib"), check=False)  # fmt: skip
        err = (tmp_path / "err").read_text() if "2" not in streams else completed.stderr.decode()
        assert completed.returncode in (0, 2), (args, completed.returncode, err)
        assert "Traceback" not in err and "Exception ignored" not in err, (args, err)


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


@pytest.mark.slow
def test_gpu_probe_refuses_a_device_with_a_newline_in_one_line():
    completed = subprocess.run([COMMANDS["gpu-probe"][0], "--device", "cpu\n"], capture_output=True, text=True,
                               timeout=120, check=False)  # fmt: skip
    assert completed.returncode == 2
    assert completed.stderr.count("\n") == 1 and "--device" in completed.stderr


def test_ctrl_c_that_python_cannot_raise_still_ends_the_run_in_one_line():
    """Ctrl-C handled inside a weakref callback (the import system's module locks run one at every import) is an
    "Exception ignored" that Python prints and goes past; the fuzzing harness caught `plan` interrupted 50 ms in
    that way, running on with a traceback. A callback that raises KeyboardInterrupt stands in for the signal's
    timing: the run ends with exit 130 and the one line, nothing after it runs."""
    script = (
        "import sys, weakref\n"
        "from profiler.exits import run_entry\n"
        "class Held: pass\n"
        "def interrupt(_):\n"
        "    raise KeyboardInterrupt\n"
        "def body():\n"
        "    held = Held()\n"
        "    ref = weakref.ref(held, interrupt)\n"
        "    del held\n"
        "    print('went on', file=sys.stderr)\n"
        "    return 0\n"
        "sys.exit(run_entry('gpu-advisor', body))\n"
    )
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=root,
                          env=dict(os.environ, PYTHONPATH=str(root)))  # fmt: skip
    assert done.returncode == 130
    assert done.stderr == "gpu-advisor: interrupted\n"
