"""The ledger never loses or corrupts what users entered: damaged files, newer versions, kills, two writers."""

from __future__ import annotations

import csv
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from planner.cli import main
from planner.errors import UserError
from planner.store import LATEST_VERSION, RENTAL_COLUMNS, Store
from planner.store.seed import reference_rows
from tests.fixtures.quotes import LAMBDA_H100

REPO = Path(__file__).resolve().parents[2]


def child_env() -> dict[str, str]:
    """The environment for child processes, read now: the isolation fixture has set GPU_ADVISOR_DB and HOME."""
    assert "GPU_ADVISOR_DB" in os.environ
    return {**os.environ, "PYTHONPATH": str(REPO)}


QUOTE = LAMBDA_H100


def db_path() -> Path:
    return Path(os.environ["GPU_ADVISOR_DB"])


def integrity(path: Path) -> str:
    conn = sqlite3.connect(str(path))
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def user_rows(path: Path) -> int:
    conn = sqlite3.connect(str(path))
    try:
        return conn.execute("SELECT count(*) FROM rental_quotes WHERE origin = 'user'").fetchone()[0]
    finally:
        conn.close()


# ---------------------------------------------------------------------------------------------------------------
# Damaged, foreign and newer files
# ---------------------------------------------------------------------------------------------------------------


def test_non_sqlite_file_is_refused_and_left_as_it_was():
    # issue 14 item 5: `--db my_quotes.csv` (a typo) once renamed the user's CSV and created a database there.
    path = db_path()
    junk = b"these are my notes, not a database\n" * 50
    path.write_bytes(junk)
    with pytest.raises(UserError, match="is not a GPU Advisor database") as refused:
        Store.open()
    assert "\n" not in str(refused.value) and str(path) in str(refused.value)
    assert path.read_bytes() == junk
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name)) == [path.name]


def damaged_database(path: Path) -> bytes:
    """An SQLite file (the header kept) whose schema page is overwritten: what a crash of the disk leaves."""
    with Store.open(path) as store:
        store.rental_quotes.add({**QUOTE, "note": "x" * 200})
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)
    path.write_bytes(bytes(data))
    return bytes(data)


def test_sqlite_file_with_damaged_pages_is_moved_aside():
    path = db_path()
    with Store.open() as store:
        for i in range(300):
            store.rental_quotes.add({**QUOTE, "offer": f"node-{i}", "note": "x" * 200})
    data = bytearray(path.read_bytes())
    assert data[:16] == b"SQLite format 3\x00" and len(data) > 8 * 4096
    data[100:4096] = b"\xff" * (4096 - 100)  # the schema page's b-tree, header kept
    path.write_bytes(bytes(data))
    with Store.open() as store:
        assert store.recovered_from is not None and store.recovered_from.read_bytes() == bytes(data)
        assert store.rental_quotes.count(mine_only=True) == 0


def test_damaged_data_page_is_caught_by_the_check():
    path = db_path()
    with Store.open() as store:
        for i in range(300):
            store.rental_quotes.add({**QUOTE, "offer": f"node-{i}", "note": "x" * 200})
    data = bytearray(path.read_bytes())
    middle = (len(data) // 4096 // 2) * 4096
    data[middle : middle + 4096] = b"\x0d" + b"\xee" * 4095  # a leaf page header pointing nowhere
    path.write_bytes(bytes(data))
    with Store.open() as store:
        assert store.recovered_from is not None
    assert integrity(path) == "ok"


def test_database_from_a_newer_version_is_refused_and_not_modified():
    path = db_path()
    Store.open().close()
    conn = sqlite3.connect(str(path))
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(UserError, match=f"newer GPU Advisor \\(database version {LATEST_VERSION + 1}"):
        Store.open()
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name)) == [path.name]


def test_another_programs_database_is_refused_and_not_modified():
    path = db_path()
    conn = sqlite3.connect(str(path))
    conn.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(UserError, match="database of another program"):
        Store.open()
    assert path.read_bytes() == before


def test_folder_instead_of_file_is_a_clear_error(tmp_path):
    with pytest.raises(UserError, match="is a folder"):
        Store.open(tmp_path)


def test_a_damaged_file_that_cannot_be_moved_aside_is_a_user_error_and_stays_as_it_was(monkeypatch):
    # Read-only media or folder: the rename fails. The GUI calls Store.open directly, so the OSError must become
    # one clear UserError there, not only in the CLI.
    import planner.store.connection as connection

    path = db_path()
    damaged = damaged_database(path)

    def refuse(*_args):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(connection.os, "replace", refuse)
    with pytest.raises(UserError) as refused:
        Store.open()
    message = str(refused.value)
    assert str(path) in message and "could not be moved aside (Permission denied)" in message
    assert "\n" not in message
    assert path.read_bytes() == damaged


def test_cli_says_where_the_damaged_file_went(capsys):
    damaged_database(db_path())
    assert main(["quotes", "list", "--mine"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "could not be read; it was moved to" in err[0] and ".corrupt-" in err[0]


# ---------------------------------------------------------------------------------------------------------------
# A killed import, two writers
# ---------------------------------------------------------------------------------------------------------------


def big_csv(path: Path, rows: int) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        # a sheet written before quotes carried an interruption rate: the rows below have no such cell
        writer.writerow([column for column in RENTAL_COLUMNS if column != "interruptions_per_hour"])
        for i in range(rows):
            writer.writerow(
                [
                    "Provider",
                    f"offer-{i}",
                    "h100-sxm",
                    8,
                    "2.99",
                    "",
                    "USD",
                    "on-demand",
                    "",
                    "",
                    "",
                    "2026-09-10",
                    "",
                    "",
                    "",
                ]
            )
    return path


IMPORTER = textwrap.dedent(
    """
    import sys
    from planner.store import Store

    store = Store.open()

    def progress(stage, done, total):
        if stage == "writing" and done > 0:
            print("writing", flush=True)

    store.rental_quotes.import_csv(sys.argv[1], progress=progress)
    print("committed", flush=True)
    """
)


@pytest.mark.slow
def test_sigkill_during_a_large_import_leaves_it_all_in_or_all_out(tmp_path):
    rows = 100_000
    source = big_csv(tmp_path / "big.csv", rows)
    Store.open().close()
    child = subprocess.Popen(
        [sys.executable, "-c", IMPORTER, str(source)], stdout=subprocess.PIPE, env=child_env()
    )
    assert child.stdout.readline() == b"writing\n"  # the first chunk is inside the open transaction
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    assert integrity(db_path()) == "ok"
    assert user_rows(db_path()) in (0, rows)
    with Store.open() as store:  # and the app carries on with it
        assert store.rental_quotes.count(mine_only=True) in (0, rows)
        store.rental_quotes.add(QUOTE)


WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from planner.store import Store

    name, go = sys.argv[1], Path(sys.argv[2])
    store = Store.open()
    print("ready", flush=True)
    while not go.exists():
        time.sleep(0.005)
    for i in range(200):
        store.rental_quotes.add({"provider": name, "offer": f"offer-{i}", "gpu": "h100-sxm",
                                "price_per_gpu_hour": "2.99", "currency": "USD", "quoted_on": "2026-09-10"})
        if i % 50 == 0:
            store.rental_quotes.find(mine_only=True)  # reads interleaved with writes, as in the GUI
    print("done", flush=True)
    """
)


@pytest.mark.slow
def test_two_processes_writing_at_once_lose_nothing(tmp_path):
    # No database yet: both processes create, migrate and seed it at the same moment, then write.
    assert not db_path().exists()
    go = tmp_path / "go"
    children = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, name, str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=child_env(),
        )
        for name in ("gui", "cli")
    ]
    for child in children:
        assert child.stdout.readline() == b"ready\n"
    go.touch()
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err.decode()
        assert b"locked" not in err and b"busy" not in err
    with Store.open() as store:
        mine = store.rental_quotes.find(mine_only=True)
        references = store.rental_quotes.count() - store.rental_quotes.count(mine_only=True)
    assert len(mine) == 400
    assert references == sum(1 for row in reference_rows() if row["record"] == "rental")  # seeded once
    assert {(row["provider"], row["offer"]) for row in mine} == {
        (name, f"offer-{i}") for name in ("gui", "cli") for i in range(200)
    }
    assert integrity(db_path()) == "ok"
