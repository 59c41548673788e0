"""Opening a file GPU Advisor last checked and closed skips the whole-file checks (issue 30: a listing of a million
quotes waited ~3 s for them), and every change another program makes brings them back
(planner/store/checked_stamp.py).

The stamp is recorded only for a file whose last change has settled; a large file waits for that at close, a small
one does not. These tests make every file "large" (WAIT_FOR_STAMP_MIN_BYTES = 0) so that the stamp is recorded
right before each outside change: the change comes within milliseconds of the close, as fast as it ever can.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from planner.errors import UserError
from planner.store import Store, checked_stamp
from tests.fixtures.quotes import LAMBDA_H100
from tests.planner.test_store_damaged import DAMAGE


@pytest.fixture(autouse=True)
def every_file_waits_for_its_stamp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checked_stamp, "WAIT_FOR_STAMP_MIN_BYTES", 0)


def closed_cleanly(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.sqlite"
    with Store.open(path) as store:
        store.rental_quotes.add(LAMBDA_H100)
    assert checked_stamp.stamp_path(path).is_file()
    return path


def test_a_file_closed_cleanly_opens_without_the_whole_file_checks_and_keeps_its_rows(tmp_path: Path) -> None:
    path = closed_cleanly(tmp_path)
    with Store.open(path) as store:
        assert store.opened_unchanged
        assert store.rental_quotes.count(mine_only=True) == 1
        store.rental_quotes.add(
            {**LAMBDA_H100, "offer": "second"}
        )  # this session's own write keeps the trust
    with Store.open(path) as store:
        assert store.opened_unchanged
        assert store.rental_quotes.count(mine_only=True) == 2


def test_a_new_file_and_a_file_without_a_stamp_are_checked_whole(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    with Store.open(path) as store:
        assert not store.opened_unchanged
    checked_stamp.stamp_path(path).unlink()
    with Store.open(path) as store:
        assert not store.opened_unchanged


@pytest.mark.parametrize(("statement", "code", "says"), DAMAGE, ids=[d[1] + ":" + d[0][:30] for d in DAMAGE])
def test_damage_made_right_after_a_clean_close_is_still_refused(tmp_path, statement, code, says) -> None:
    path = closed_cleanly(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute(statement)
    conn.commit()
    conn.close()
    with pytest.raises(UserError) as refused:
        Store.open(path)
    assert refused.value.message.code == code and says in str(refused.value)


def test_a_cell_changed_with_the_times_put_back_is_still_refused(tmp_path: Path) -> None:
    """A program can set the modification time back (touch -d, cp -p); the status-change time it cannot."""
    path = closed_cleanly(tmp_path)
    before = os.stat(path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE rental_quotes SET price_per_gpu_hour = 'cheap' WHERE origin = 'user'")
    conn.commit()
    conn.close()
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_size == before.st_size
    with pytest.raises(UserError) as refused:
        Store.open(path)
    assert refused.value.message.code == "error.db_bad_cell"


def test_a_damaged_page_written_in_place_right_after_a_clean_close_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    with Store.open(path) as store:
        for i in range(300):
            store.rental_quotes.add({**LAMBDA_H100, "offer": f"node-{i}", "note": "x" * 200})
    data = bytearray(path.read_bytes())
    middle = (len(data) // 4096 // 2) * 4096
    data[middle : middle + 4096] = b"\x0d" + b"\xee" * 4095  # a leaf page header pointing nowhere
    with open(path, "r+b") as handle:  # same file, same size
        handle.write(bytes(data))
    with Store.open(path) as store:
        assert store.recovered_from is not None


def test_a_commit_of_another_connection_during_a_session_leaves_the_file_to_be_checked(
    tmp_path: Path,
) -> None:
    path = closed_cleanly(tmp_path)
    with Store.open(path) as store:
        assert store.opened_unchanged
        other = sqlite3.connect(path)
        other.execute("UPDATE rental_quotes SET provider = x'00ff' WHERE origin = 'user'")
        other.commit()
        other.close()
    with pytest.raises(UserError) as refused:
        Store.open(path)
    assert refused.value.message.code == "error.db_bad_cell"


def test_a_write_ahead_log_with_commits_in_it_means_check(tmp_path: Path) -> None:
    path = closed_cleanly(tmp_path)
    other = sqlite3.connect(path)  # stays open: its commit stays in the log, the file itself unchanged
    other.execute("PRAGMA wal_autocheckpoint = 0")
    other.execute("UPDATE rental_quotes SET provider = x'00ff' WHERE origin = 'user'")
    other.commit()
    try:
        assert os.stat(path.with_name(path.name + "-wal")).st_size > 0
        with pytest.raises(UserError) as refused:
            Store.open(path)
        assert refused.value.message.code == "error.db_bad_cell"
    finally:
        other.close()


@pytest.mark.parametrize(
    "planted",
    ["not json", "[]", '{"dev": 1}', "null", "x" * 10_000, "fifo", "folder"],
)
def test_a_stamp_file_that_is_not_one_means_check_and_never_blocks(tmp_path: Path, planted: str) -> None:
    path = closed_cleanly(tmp_path)
    stamp = checked_stamp.stamp_path(path)
    stamp.unlink()
    if planted == "fifo":
        os.mkfifo(stamp)
    elif planted == "folder":
        stamp.mkdir()
    else:
        stamp.write_text(planted)
    with Store.open(path) as store:
        assert not store.opened_unchanged
        assert store.rental_quotes.count(mine_only=True) == 1
