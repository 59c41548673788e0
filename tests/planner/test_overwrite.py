"""No writer of the CLI replaces a file the user already has without --force (issue 30, item 6): the refusal is
one line with exit code 2, it comes before any work, and the file is left byte for byte as it was."""

from __future__ import annotations

import pytest

from planner.cli import main

PLAN = ["plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--top", "1"]


def refused_and_kept(capsys, argv: list[str], kept) -> str:
    before = kept.read_bytes()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--force" in err and "left unchanged" in err
    assert kept.read_bytes() == before
    return err


def test_plan_export_into_a_folder_holding_an_exported_file_needs_force(capsys, tmp_path):
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")  # a file no export writes is never in the way
    assert main([*PLAN, "--export", str(folder)]) == 0
    capsys.readouterr()
    launch = folder / "launch.sh"
    launch.write_text("# my edited launch script\n")
    err = refused_and_kept(capsys, [*PLAN, "--export", str(folder)], launch)
    assert "file(s) an export writes" in err
    assert main([*PLAN, "--export", str(folder), "--force"]) == 0
    assert (
        launch.read_text() != "# my edited launch script\n" and (folder / "notes.txt").read_text() == "mine"
    )


@pytest.mark.parametrize(
    "argv",
    [
        [*PLAN, "--probe-shapes", "{file}"],
        ["quotes", "export", "{file}"],
        ["validate", "--write-bands", "{file}"],
        ["probe", "--no-save", "--json", "{file}"],
    ],
    ids=["plan --probe-shapes", "quotes export", "validate --write-bands", "probe --json"],
)
def test_each_file_writer_refuses_an_existing_file_without_force(capsys, tmp_path, monkeypatch, argv):
    monkeypatch.setenv("GPU_ADVISOR_PROBE_CMD", str(tmp_path / "no-such-probe"))  # the refusal comes first
    kept = tmp_path / "mine.json"
    kept.write_text('{"mine": true}\n')
    err = refused_and_kept(capsys, [a.format(file=kept) for a in argv], kept)
    assert err.startswith(f"gpu-advisor: {kept} exists")


def test_quotes_export_with_force_replaces_the_file(capsys, tmp_path):
    kept = tmp_path / "quotes.csv"
    kept.write_text("old")
    assert main(["quotes", "export", str(kept), "--all", "--force"]) == 0
    assert kept.read_text(encoding="utf-8-sig").startswith("provider,")  # a BOM, for spreadsheets
