"""`plan --export` with a hostile model name (config.json `_name_or_path`, or the model folder's name): what a
user downloads from a hub must never become shell or YAML when they run the exported files.

Generated names (any text) are never executed: launch.sh must pass `bash -n` and keep the line structure of the
same export with a plain name; accelerate_config.yaml and ds_config.json must parse to the same keys and
numbers. Only names from a fixed grammar whose one command is `touch FUZZ_MARKER` are executed: launch.sh runs
with bash in its own folder, PATH holding no-op stand-ins for torchrun / vllm / deepspeed / accelerate and the
real `touch`, and the marker file must never appear.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.harness import Violation, explorer, fuzz_settings, run_in_process
from tests.fuzz.sandbox import write_model_folder
from tests.fuzz.strategies import LLAMA, MARKER, hostile_text

pytestmark = pytest.mark.slow

COUNTER = itertools.count()
TASKS = ("finetune", "inference")  # torchrun (training) and vllm serve (serving) scripts
LAUNCHERS = ("torchrun", "vllm", "deepspeed", "accelerate", "python", "python3")
BENIGN = "plain-model-name"
BASH = shutil.which("bash") or "/bin/bash"

# The fixed grammar for names that are run: letters and digits around one injection of `touch FUZZ_MARKER`.
PAYLOAD = f"touch {MARKER}"
INJECTIONS = (
    "$({})", "`{}`", "\n{}\n", "\r\n{}\r\n", '";{};"', "'\n{}\n'", "\n{} #", '"\n{}\n"', "$(\n{}\n)", "\\\n{}",
    "${{IFS}}$({})", "';{};'",
)  # fmt: skip
word = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789"), max_size=8)
injected_name = st.builds(lambda p, i, s: p + i.format(PAYLOAD) + s, word, st.sampled_from(INJECTIONS), word)


def export(folder: Path, model: Path, task: str, out: Path):
    argv = ["plan", "--model", str(model), "--gpu", "h100-sxm", "--gpus", "8", "--task", task,
            "--export", str(out), "--json"]  # fmt: skip
    return run_in_process(argv, "plan --export (launch.sh, YAML)", wants_json=True)


def flat(value: object, prefix: str = "") -> dict[str, object]:
    """{"a.b": leaf} for a parsed YAML/JSON document (string leaves kept apart: they may carry the name)."""
    if isinstance(value, dict):
        out: dict[str, object] = {}
        for key, inner in value.items():
            out.update(flat(inner, f"{prefix}{key}."))
        return out
    return {prefix: "<text>" if isinstance(value, str) else value}


def structure_problems(out: Path, baseline: Path) -> list[Violation]:
    """What the name changed in the exported files, compared with the same export under a plain name."""
    problems = []
    checked = subprocess.run([BASH, "-n", str(out / "launch.sh")], capture_output=True, text=True, timeout=30)
    if checked.returncode != 0:
        problems.append(Violation("export-shell", f"launch.sh is not valid bash: {checked.stderr.strip()[:200]}"))
    lines = (out / "launch.sh").read_text().count("\n")
    expected = (baseline / "launch.sh").read_text().count("\n")
    if lines != expected:
        problems.append(Violation("export-shell", f"the name added {lines - expected} line(s) to launch.sh"))
    files = sorted(path.name for path in out.iterdir())
    if files != sorted(path.name for path in baseline.iterdir()):
        problems.append(Violation("export-files", f"the name changed which files were written: {files}"))
        return problems
    try:
        if not (baseline / "accelerate_config.yaml").exists():  # a plan accelerate does not run gets none
            raise FileNotFoundError
        config = flat(yaml.safe_load((out / "accelerate_config.yaml").read_text()))
        if config != flat(yaml.safe_load((baseline / "accelerate_config.yaml").read_text())):
            problems.append(Violation("export-yaml", "the name changed accelerate_config.yaml's keys or values"))
    except FileNotFoundError:
        pass
    except yaml.YAMLError as exc:
        problems.append(Violation("export-yaml", f"accelerate_config.yaml does not parse: {str(exc)[:120]}"))
    if not (baseline / "ds_config.json").exists():  # serving and pipeline plans get no DeepSpeed config
        return problems
    try:
        if flat(json.loads((out / "ds_config.json").read_text())) != flat(
            json.loads((baseline / "ds_config.json").read_text())
        ):
            problems.append(Violation("export-yaml", "the name changed ds_config.json"))
    except ValueError as exc:
        problems.append(Violation("export-yaml", f"ds_config.json does not parse: {exc}"))
    return problems


def fake_launchers(folder: Path) -> Path:
    """A PATH folder: no-op torchrun, vllm, deepspeed, accelerate, python; the real touch (for the marker)."""
    bin_dir = folder / "fakebin"
    bin_dir.mkdir(exist_ok=True)
    for name in LAUNCHERS:
        stub = bin_dir / name
        stub.write_text("#!/bin/sh\nexit 0\n")
        stub.chmod(0o755)
    touch = shutil.which("touch")
    assert touch, "the marker check needs touch(1)"
    if not (bin_dir / "touch").exists():
        (bin_dir / "touch").symlink_to(touch)
    return bin_dir


def run_launch_script(out: Path, bin_dir: Path) -> list[Violation]:
    """Run the exported launch.sh (its one command a no-op stand-in) and look for the marker file."""
    env = {"PATH": str(bin_dir), "HOME": str(out), "LC_ALL": "C.UTF-8"}
    subprocess.run([BASH, str(out / "launch.sh")], cwd=out, env=env, capture_output=True, timeout=30,
                   stdin=subprocess.DEVNULL, check=False)  # fmt: skip
    created = sorted(p.name for p in out.iterdir() if p.name.startswith(MARKER))  # "FUZZ_MARKER\r" too
    return [Violation("export-shell", f"running launch.sh ran the model name's command: {created}")] if created else []


@pytest.fixture
def baselines(sandbox):
    """The export of each task under a plain name, to compare the hostile exports with."""
    made = {}
    for task in TASKS:
        model = write_model_folder(sandbox / f"baseline-{task}", {**LLAMA, "_name_or_path": BENIGN})
        out = sandbox / f"baseline-{task}-export"
        assert export(sandbox, model, task, out).code == 0
        made[task] = out
    return made


def can_be_folder_name(name: str) -> bool:
    return name not in ("", ".", "..") and "/" not in name and len(name.encode("utf-8", "surrogateescape")) <= 255


def place_name(sandbox: Path, name: str, in_folder_name: bool) -> tuple[Path, Path]:
    """(model folder, folder to delete afterwards): `name` as the config's _name_or_path, or (where a file
    system allows that name) as the model folder's own name."""
    container = sandbox / f"models-{next(COUNTER)}"
    if in_folder_name and can_be_folder_name(name):
        config = {key: value for key, value in LLAMA.items() if key != "_name_or_path"}
        return write_model_folder(container / name, config), container
    return write_model_folder(container / "model", {**LLAMA, "_name_or_path": name}), container


def test_generated_names_never_change_the_exported_files(sandbox, baselines):
    fuzz = explorer("plan --export (launch.sh, YAML)")

    @fuzz_settings(1.0)
    @given(st.one_of(hostile_text, injected_name), st.sampled_from(TASKS), st.booleans())
    def explore(name, task, in_folder_name):
        model, container = place_name(sandbox, name, in_folder_name)
        out = sandbox / f"export-{next(COUNTER)}"
        run = export(sandbox, model, task, out)
        extra = structure_problems(out, baselines[task]) if run.code == 0 else []
        fuzz.check(run, extra)
        shutil.rmtree(container, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)

    explore()
    fuzz.finish()


def test_injected_names_never_run_from_launch_sh(sandbox, baselines):
    fuzz = explorer("plan --export (launch.sh, YAML)")
    bin_dir = fake_launchers(sandbox)

    @fuzz_settings(1.0)
    @given(injected_name, st.sampled_from(TASKS), st.booleans())
    def explore(name, task, in_folder_name):
        model, container = place_name(sandbox, name, in_folder_name)
        out = sandbox / f"export-{next(COUNTER)}"
        run = export(sandbox, model, task, out)
        extra = []
        if run.code == 0:
            extra = structure_problems(out, baselines[task]) + run_launch_script(out, bin_dir)
        fuzz.check(run, extra)
        shutil.rmtree(container, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)

    explore()
    fuzz.finish()
