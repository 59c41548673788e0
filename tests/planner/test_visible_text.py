"""Text from files never steers a terminal and is visible in the GUI (issue 30 item 1)."""

from __future__ import annotations

import json

from planner.cli import main
from planner.visible_text import escaped_controls, pictured_controls

HOSTILE = (
    "evil\x1b]0;PWNED\x07\x1b[2J\x9b31m\rover\x7f"  # retitle, clear, C1 CSI colour, carriage return, DEL
)
TINY = {"model_type": "llama", "hidden_size": 128, "intermediate_size": 344, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1000}  # fmt: skip


def test_escapes_are_the_json_spelling_and_pictures_the_unicode_ones():
    assert escaped_controls(HOSTILE) == "evil\\u001b]0;PWNED\\u0007\\u001b[2J\\u009b31m\\u000dover\\u007f"
    assert json.loads(f'"{escaped_controls(HOSTILE)}"') == HOSTILE  # still a valid JSON string escape
    assert pictured_controls(HOSTILE) == "evil\u241b]0;PWNED\u2407\u241b[2J\\u009b31m\u240dover\u2421"
    assert escaped_controls("a\tb\nц") == pictured_controls("a\tb\nц") == "a\tb\nц"


def no_controls(text: str) -> bool:
    return not any(ord(c) < 0x20 and c not in "\n\t" or 0x7F <= ord(c) < 0xA0 for c in text)


def test_a_model_name_from_config_json_reaches_stdout_escaped(capsys, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**TINY, "_name_or_path": HOSTILE}), encoding="utf-8")
    assert main(["memory", "--model", str(path)]) == 0
    out = capsys.readouterr().out
    assert no_controls(out) and "evil\\u001b]0;PWNED" in out
    assert main(["memory", "--model", str(path), "--json"]) == 0
    out = capsys.readouterr().out
    assert (
        no_controls(out) and json.loads(out)["model"]["name"] == HOSTILE
    )  # the JSON still says what was read


def test_a_provider_from_the_database_is_listed_escaped(capsys, tmp_path):
    db = str(tmp_path / "q.sqlite")
    assert main(["--db", db, "quotes", "add", "--provider", "Evil\x1b[2J\x9b31m", "--gpu", "h100-sxm",
                 "--price", "2.5", "--quoted-on", "2026-09-10"]) == 0  # fmt: skip
    capsys.readouterr()
    for listing in (["quotes", "list", "--mine"], ["quotes", "list", "--mine", "--json"]):
        assert main(["--db", db, *listing]) == 0
        out = capsys.readouterr().out
        assert no_controls(out) and "Evil\\u001b[2J\\u009b31m" in out
