"""Skipping the whole-file checks on open when the file is the one GPU Advisor last checked and closed.

Opening a database checks every page (PRAGMA quick_check) and every cell (schema_check.py): O(rows), about 3 s at
a million quotes, before a listing could print its first line (issue 30). Those two checks look for what another
program (an SQLite browser, a script, a disk error, a restored backup) did to the file; a file nothing but GPU
Advisor has touched since its last clean check need not be read whole again.

The proof is a stamp of the file kept next to it (".<name>.checked": device, inode, size, modification and
status-change times in nanoseconds). It is written when a Store closes after a session in which the file was
checked (or trusted) at open and no other connection committed (PRAGMA data_version unchanged), with every change
checkpointed into the file (an empty write-ahead log) and the write lock held, so no SQLite writer can slip in
between. On open the checks are skipped only when the write-ahead log is absent or empty and the file's stamp is
the recorded one. Any later write changes the stamp: SQLite writes reach the file only through the log and a
checkpoint, and any write sets the modification time; the status-change time cannot be set back by a program.

A write within the same clock tick as the recorded one would keep the times, so a stamp is recorded only once the
file's last change is older than a tick (RACY_NS; a file system with whole-second times: COARSE_RACY_NS): a large
file waits out the rest of the tick at close, a small one (whose check costs less than the wait) is checked again
at its next open. A missing, unreadable, foreign or malformed stamp file means "check"; nothing here ever refuses.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
from pathlib import Path

STAMP_FIELDS = ("dev", "ino", "size", "mtime_ns", "ctime_ns")
# Linux file times come from a clock that ticks every 1-10 ms (CONFIG_HZ 100-1000); NTFS and APFS keep 100 ns
# or finer. A file system that stores whole seconds (FAT: 2 s) is recognised by times without a fraction.
RACY_NS = 50_000_000
COARSE_RACY_NS = 3_000_000_000
# Below this size the whole check costs about what waiting out RACY_NS would (quick_check reads ~0.5 GB/s).
WAIT_FOR_STAMP_MIN_BYTES = 8 << 20
MAX_STAMP_FILE_BYTES = 4096


def stamp_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.checked")


def file_stamp(path: Path) -> dict[str, int] | None:
    """The file's identity and times, or None when it cannot be read (missing, not a regular file)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return {
        "dev": info.st_dev,
        "ino": info.st_ino,
        "size": info.st_size,
        "mtime_ns": info.st_mtime_ns,
        "ctime_ns": info.st_ctime_ns,
    }


def log_is_empty(path: Path) -> bool:
    """True when the write-ahead log is absent or holds nothing (no commit waits to be checkpointed)."""
    try:
        return os.stat(path.with_name(path.name + "-wal")).st_size == 0
    except FileNotFoundError:
        return True
    except OSError:
        return False


def recorded_stamp(path: Path) -> dict[str, int] | None:
    """The stamp recorded for `path`, or None when there is none or it is not one this module wrote."""
    try:
        descriptor = os.open(stamp_path(path), os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return None
    try:
        with os.fdopen(descriptor, "rb") as handle:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):  # a FIFO or device planted under the name
                return None
            data = json.loads(handle.read(MAX_STAMP_FILE_BYTES + 1)[:MAX_STAMP_FILE_BYTES] or b"null")
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or set(data) != set(STAMP_FIELDS):
        return None
    if not all(type(data[field]) is int for field in STAMP_FIELDS):
        return None
    return {field: int(data[field]) for field in STAMP_FIELDS}


def unchanged_since_check(path: Path) -> bool:
    """Whether the whole-file checks may be skipped: the log is empty and the file is as last recorded."""
    if not log_is_empty(path):
        return False
    recorded = recorded_stamp(path)
    return recorded is not None and recorded == file_stamp(path)


def _racy_ns(stamp: dict[str, int]) -> int:
    coarse = stamp["mtime_ns"] % 1_000_000_000 == 0 and stamp["ctime_ns"] % 1_000_000_000 == 0
    return COARSE_RACY_NS if coarse else RACY_NS


def _settled(path: Path) -> dict[str, int] | None:
    """The file's stamp once its last change is older than a clock tick (waiting for it when the file is large
    enough that the wait costs less than checking it again), or None when it would not be settled."""
    stamp = file_stamp(path)
    if stamp is None:
        return None
    racy = _racy_ns(stamp)
    age = time.time_ns() - max(stamp["mtime_ns"], stamp["ctime_ns"])
    if age < 0:  # a time in the future (clock change, a copied file): never settled
        return None
    if age < racy:
        if racy > RACY_NS or stamp["size"] < WAIT_FOR_STAMP_MIN_BYTES:
            return None
        time.sleep((racy - age) / 1e9)
        if file_stamp(path) != stamp:
            return None
    return stamp


def record_clean_close(conn: sqlite3.Connection, path: Path, checked_data_version: int | None) -> bool:
    """At the end of a session: record the file's stamp when everything in it was checked or written by this
    connection (no other connection committed since `checked_data_version` was read, right after the open's
    checks). Called just before the connection closes; never raises for the file system. True: recorded."""
    if checked_data_version is None or conn.in_transaction:
        return False
    try:
        conn.execute("PRAGMA busy_timeout = 0")  # closing: never wait behind a reader or another writer
        busy, _log, _moved = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy:
            return False
        conn.execute("BEGIN IMMEDIATE")  # no other SQLite writer until the stamp is taken
    except sqlite3.Error:
        return False
    try:
        if int(conn.execute("PRAGMA data_version").fetchone()[0]) != checked_data_version:
            return False
        if not log_is_empty(path):
            return False
        stamp = _settled(path)
        if stamp is None:
            return False
        return _write(path, stamp)
    except sqlite3.Error:
        return False
    finally:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass


def _write(path: Path, stamp: dict[str, int]) -> bool:
    target = stamp_path(path)
    temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(json.dumps(stamp), encoding="utf-8")
        os.replace(temporary, target)
    except OSError:  # a read-only folder, a full disk: the next open checks the file again
        try:
            temporary.unlink(missing_ok=True)
        except OSError:
            pass
        return False
    return True
