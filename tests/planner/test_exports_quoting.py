"""Untrusted text in exported files (issue 14 item 1), as properties over any text hypothesis makes: a shell
word that bash hands back byte for byte, a YAML scalar that PyYAML (what accelerate reads its config with)
reads back unchanged, a comment that stays one comment line, and a model path from a hostile config.json that
reaches train.py as one literal argument or is refused. Every launch.sh family also passes `bash -n`."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
from pathlib import PurePosixPath

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from planner.exports import export_plan
from planner.exports.common import ExportInputs
from planner.exports.launch import launch_script
from planner.exports.quoting import comment_text, sh, yaml_scalar
from planner.models import get_preset
from planner.vocabulary import Layout
from tests.exports.conftest import option_for, result_of
from tests.planner.test_exports_launch import fake_tools, run_script

# Any text bash can receive as an argument: no NUL (C strings end there) and no lone surrogates (they have no
# UTF-8 bytes, so no process receives them; the model reader refuses them before an export is written).
SHELL_TEXT = st.text(
    alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=60
)


def _bash(script: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["bash", "-c", script], capture_output=True, timeout=30)


@settings(max_examples=60, deadline=None)
@given(st.lists(SHELL_TEXT, min_size=1, max_size=8), SHELL_TEXT)
def test_shell_words_come_back_byte_for_byte_and_comments_stay_comments(words, comment):
    script = f"# {comment_text(comment)}\nprintf '%s\\0' {' '.join(sh(word) for word in words)}\n"
    ran = _bash(script)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split(b"\0")[:-1] == [word.encode("utf-8", "surrogateescape") for word in words]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60), st.text(max_size=60))
def test_yaml_scalars_and_comments_read_back_unchanged(text, comment):
    document = f"# {comment_text(comment)}\nkey: {yaml_scalar(text)}\nafter: 1\n"
    assert yaml.safe_load(document) == {"key": text, "after": 1}
    assert yaml_scalar(text).isascii()


def test_a_character_outside_the_bmp_is_one_yaml_escape():
    # json.dumps would write the surrogate pair \ud83d\ude00, which PyYAML reads as two lone surrogates
    assert yaml_scalar("model-\U0001f600") == '"model-\\U0001f600"'
    assert yaml.safe_load("k: " + yaml_scalar("model-\U0001f600"))["k"] == "model-\U0001f600"


# Ways a name could try to run a command in a shell script; hypothesis puts any text around them.
INJECTIONS = ("$(touch {marker})", "`touch {marker}`", "\ntouch {marker}\n", "'; touch {marker}; echo '",
              '"; touch {marker}; echo "', "${{IFS}}$(touch {marker})", ";touch {marker}", "|touch {marker}",
              "&& touch {marker} #", "\\'$(touch {marker})")  # fmt: skip
NAME_TEXT = st.text(
    alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=20
)


@settings(max_examples=30, deadline=None)
@given(NAME_TEXT, st.sampled_from(INJECTIONS), NAME_TEXT)
@example("", "$(touch {marker})", "/")  # a folder name ending in "/": found by CI
@pytest.mark.slow
def test_a_hostile_config_json_folder_reaches_train_py_literally_or_is_refused(tmp_path_factory, prefix,
                                                                               injection, suffix):  # fmt: skip
    tmp_path = tmp_path_factory.mktemp("hostile")
    marker = tmp_path / "PWNED"
    name = prefix + injection.format(marker=marker) + suffix
    option = option_for(Layout(dp=2, zero=2))
    spec = dataclasses.replace(get_preset("llama-3.1-8b"), name=name, source=f"{name}/config.json")
    out = tmp_path / "out"
    export_plan(result_of(option), option, out, ExportInputs(model=name, model_spec=spec, task="pretrain"))
    ran = run_script(out / "launch.sh", fake_tools(tmp_path / "bin"), DATA="synthetic", STEPS="1")
    assert not marker.exists(), ran.stdout + ran.stderr
    if ran.returncode == 2:  # control characters: refused as a model reference, launch.sh asks for MODEL
        assert "set MODEL" in ran.stderr and ran.stderr.count("\n") == 1
    else:
        argv = json.loads(ran.stdout.strip().splitlines()[-1])
        # the folder of `{name}/config.json` as a path, made absolute against the folder the export was written
        # from (so launch.sh runs from anywhere): a trailing "/" or a "/./" in the name names the same folder
        expected = PurePosixPath(os.path.abspath(os.path.expanduser(name)))
        assert PurePosixPath(argv[argv.index("--model") + 1]) == expected
    assert yaml.safe_load((out / "accelerate_config.yaml").read_text())["distributed_type"] == "DEEPSPEED"


FAMILIES = {
    "ddp": (Layout(dp=8), "pretrain", "llama-3.1-8b"),
    "zero1": (Layout(dp=16, zero=1), "pretrain", "llama-3.1-8b"),
    "zero3-offload-all-2-nodes": (Layout(dp=16, zero=3, offload="all"), "finetune", "llama-3.1-70b"),
    "offload-optimizer": (Layout(dp=8, zero=2, offload="optimizer"), "finetune", "llama-3.1-70b"),
    "tp": (Layout(dp=2, tp=4, zero=1), "pretrain", "llama-3.1-70b"),
    "tp-pp": (Layout(dp=2, tp=4, pp=4, zero=1), "pretrain", "llama-3.1-70b"),
    "ep": (Layout(dp=8, ep=8, zero=1), "pretrain", "mixtral-8x7b"),
    "lora": (Layout(dp=2), "lora", "llama-3.1-8b"),
    "qlora": (Layout(dp=2, zero=3), "qlora", "llama-3.1-70b"),
    "inference": (Layout(tp=8, micro_batch=32), "inference", "llama-3.1-70b"),
    "inference-2-nodes": (Layout(tp=8, pp=2, micro_batch=8), "inference", "llama-3.1-405b"),
}


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_launch_sh_is_valid_bash(family, tmp_path):
    layout, task, model = FAMILIES[family]
    script = tmp_path / "launch.sh"
    option = option_for(layout, task=task, model=model)
    script.write_text(launch_script(option, ExportInputs(task=task, model_spec=get_preset(model))))
    checked = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr
