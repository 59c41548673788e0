"""Special files wherever `gpu-advisor` accepts a path: a FIFO, an endless device, a folder, a socket, a symlink
loop, a dangling symlink. Each case runs as a child process with a timeout (a hang is a recorded failure) and a
memory ceiling (reading /dev/zero without bound ends as MemoryError instead of eating the machine).

Devices are only ever reached through a symlink inside the sandbox, and only where the command reads: a store
that moves a "damaged" --db aside then renames the link, never /dev/zero itself; nothing is ever written
through a device link.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from tests.fuzz.harness import Violation, explorer, moved_aside, run_children
from tests.fuzz.sandbox import fake_probe_command, populate, write_model_folder
from tests.fuzz.strategies import LLAMA

pytestmark = pytest.mark.slow

SPECIAL_TIMEOUT_S = 10.0  # a FIFO never answers; every other case answers in about a second


def make_special(path: Path, kind: str) -> None:
    """Create a special file of `kind` at `path` (its folder exists)."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind in ("dev-zero", "dev-urandom", "dev-null"):
        path.symlink_to("/dev/" + kind.removeprefix("dev-"))
    elif kind == "directory":
        path.mkdir()
    elif kind == "symlink-loop":
        partner = path.with_name(path.name + ".loop")
        path.symlink_to(partner.name)
        partner.symlink_to(path.name)
    elif kind == "dangling-symlink":
        path.symlink_to(path.name + ".missing")
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(str(path))
        server.close()  # the socket file stays; opening it fails with ENXIO
    else:
        raise ValueError(kind)


READ_KINDS = ("fifo", "dev-zero", "dev-urandom", "dev-null", "directory", "symlink-loop", "dangling-symlink", "socket")
WRITE_KINDS = ("fifo", "directory", "symlink-loop", "socket")  # never a device link where the command writes
# place -> (argv with "{}" for the special path, where the special file goes inside the case folder, kinds)
PLACES = {
    "--db": (["--db", "{}", "quotes", "list"], "target", READ_KINDS),
    "quotes import (rental CSV)": (["quotes", "import", "{}"], "target", READ_KINDS),
    "quotes import --purchase": (["quotes", "import", "--purchase", "{}"], "target", READ_KINDS),
    "probe import (report)": (["probe", "import", "{}"], "target", READ_KINDS),
    "--model (config.json path)": (["memory", "--model", "{}"], "target", READ_KINDS),
    "--model folder: config.json": (["memory", "--model", "{folder}"], "config.json", READ_KINDS),
    "--model folder: *.safetensors": (["memory", "--model", "{folder}"], "model.safetensors", READ_KINDS),
    "quotes export (target)": (["quotes", "export", "{}"], "target", WRITE_KINDS),
    "plan --export (folder)": (["plan", "--model", "7b", "--gpu", "h100-sxm", "--gpus", "8", "--export", "{}"],
                               "target", WRITE_KINDS),
    "probe --json (report file)": (["probe", "--no-save", "--json", "{}"], "target", WRITE_KINDS),
}  # fmt: skip


def cases(sandbox: Path) -> list[tuple[str, str, list[str], Path]]:
    """(place, kind, argv, case folder) for every place and kind, each in a folder of its own."""
    built = []
    for number, (place, (template, where, kinds)) in enumerate(PLACES.items()):
        for kind in kinds:
            folder = sandbox / f"case-{number}-{kind}"
            model = folder / "m"
            if where in ("config.json", "model.safetensors"):
                write_model_folder(model, LLAMA)
                if where == "config.json":
                    (model / "config.json").unlink()
                make_special(model / where, kind)
            else:
                folder.mkdir()
                make_special(folder / where, kind)
            argv = [a.replace("{}", str(folder / where)).replace("{folder}", str(model)) for a in template]
            built.append((place, kind, argv, folder))
    return built


def test_special_files_wherever_a_path_is_accepted(sandbox, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_PROBE_CMD", fake_probe_command())
    populate(sandbox)
    built = cases(sandbox)
    jobs = [(argv, f"special files: {place}", {"cwd": folder, "timeout_s": SPECIAL_TIMEOUT_S})
            for place, _, argv, folder in built]  # fmt: skip
    runs = run_children(jobs, parallel=8)
    failures = []
    for (place, kind, _, folder), run in zip(built, runs, strict=True):
        fuzz = explorer(run.entry)
        extra = [Violation("moved-aside", p.name) for p in moved_aside(folder)]
        try:
            fuzz.check(run, extra)
            fuzz.finish()
        except AssertionError as exc:
            failures.append(f"[{place} / {kind}] {exc}")
    assert not failures, "\n\n".join(failures)
