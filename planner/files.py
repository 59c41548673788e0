"""Reading the files a user names, and writing the files the app saves, without hanging or destroying anything.

Reading (`read_user_file`): only a regular file is read, and only up to a size bound. A FIFO would block the
open() forever, /dev/zero and /dev/urandom never end, a folder or a socket is not data: each is refused in one
line naming the path and what it is. The file is opened with O_NONBLOCK (so opening a FIFO returns at once)
and checked with fstat on the open descriptor (so a swap between the check and the read cannot slip a device
in).

Writing (`write_atomically`): the data goes to a temporary file next to the target, is flushed to disk, and
then renamed over the target (os.replace, atomic on POSIX and Windows). A full disk, a file-size limit or a
killed process leaves the old file as it was, never a truncated one. An existing target that is not a
regular file (a FIFO, a device, a folder) is refused rather than replaced.

Both raise UserError (planner.messages codes error.not_regular_file, error.file_too_large,
error.file_unreadable, error.cannot_write), so the CLI prints one line and the GUI shows one message.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import BinaryIO

from planner.errors import UserError
from planner.messages import Message, msg

Payload = bytes | str | Iterable[bytes]  # what the atomic writers write: bytes, UTF-8 text or pieces of bytes


def file_kind(mode: int) -> Message:
    """What a non-regular file is, in words (for the refusal)."""
    kinds = ((stat.S_ISDIR, "folder"), (stat.S_ISFIFO, "fifo"), (stat.S_ISCHR, "device"), (stat.S_ISBLK, "device"),
             (stat.S_ISSOCK, "socket"))  # fmt: skip
    return msg(f"file_kind.{next((name for test, name in kinds if test(mode)), 'special')}")


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def open_regular_file(path: str | os.PathLike[str]) -> BinaryIO:
    """The regular file at `path`, open for binary reading; UserError for a missing file, a FIFO, a device, a
    folder, a symlink loop or a name too long. Opened non-blocking (a FIFO without a writer returns at once)
    and checked on the open descriptor (so nothing can be swapped in between the check and the read)."""
    name = os.fspath(path)
    try:
        descriptor = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise UserError.of(msg("error.file_missing", path=name)) from None
    except OSError as exc:  # a symlink loop, a name too long, no permission
        raise UserError.of(msg("error.file_unreadable", path=name, reason=_reason(exc))) from None
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        raise UserError.of(msg("error.not_regular_file", path=name, kind=file_kind(mode)))
    return os.fdopen(descriptor, "rb")


def read_user_file(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """The bytes of the regular file at `path`, at most `max_bytes` of them; UserError for anything else."""
    name = os.fspath(path)
    with open_regular_file(path) as handle:
        info = os.fstat(handle.fileno())
        if info.st_size > max_bytes:
            raise UserError.of(msg("error.file_too_large", path=name, size=info.st_size, limit=max_bytes))
        try:
            data = handle.read(max_bytes + 1)
        except OSError as exc:
            raise UserError.of(msg("error.file_unreadable", path=name, reason=_reason(exc))) from None
    if len(data) > max_bytes:  # it grew while we read it
        raise UserError.of(msg("error.file_too_large", path=name, size=len(data), limit=max_bytes))
    return data


def refuse_special_target(path: Path) -> None:
    """UserError when `path` exists and is not a regular file (writing to a FIFO blocks; to a device, harms)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UserError.of(msg("error.cannot_write", path=str(path), reason=_reason(exc))) from None
    if not stat.S_ISREG(mode):
        raise UserError.of(msg("error.not_regular_file", path=str(path), kind=file_kind(mode)))


def refuse_overwrite(paths: Iterable[Path], *, force: bool, folder: Path | None = None) -> None:
    """UserError when one of `paths` exists and `force` is off: the user's files are never replaced without a
    word (issue 30). `folder`: the paths are files an export writes into it (the message names the folder)."""
    if force:
        return
    existing = [path for path in paths if path.exists() or path.is_symlink()]
    if not existing:
        return
    if folder is None:
        raise UserError.of(msg("error.would_overwrite", path=str(existing[0])))
    raise UserError.of(
        msg("error.export_would_overwrite", folder=str(folder), count=len(existing), name=existing[0].name)
    )


def write_atomically(path: str | os.PathLike[str], data: Payload, *, mode: int | None = None) -> Path:
    """Write `data` (text is UTF-8; pieces of bytes are written as they come, e.g. a million-row export streamed
    from the database) to `path` through a temporary file and a rename; the old file survives any failure. `mode`: permission bits for the new file (default: those of the file it replaces, else 0o644)."""
    target = Path(path)
    write_all_atomically({target: data}, modes={target: mode} if mode is not None else None)
    return target


def write_all_atomically(files: Mapping[Path, Payload], *, modes: Mapping[Path, int] | None = None) -> None:
    """Write several files as one: every file is written and flushed to a temporary file first, and only when
    all of them are complete are they renamed over their targets. A failure on the way (a full disk in the
    third file) leaves every old file as it was and removes the temporary files."""
    for target in files:
        refuse_special_target(target)
    staged: dict[Path, str] = {}
    try:
        for target, data in files.items():
            staged[target] = _stage(target, data, (modes or {}).get(target))
        for target, temporary in staged.items():
            os.replace(temporary, target)
            staged[target] = ""
    except OSError as exc:
        failed = exc.filename or next(iter(files), "")
        raise UserError.of(msg("error.cannot_write", path=str(failed), reason=_reason(exc))) from None
    finally:
        for temporary in staged.values():
            if temporary:
                with contextlib.suppress(OSError):  # already gone: must not hide the first error
                    os.unlink(temporary)


def _stage(target: Path, data: Payload, mode: int | None) -> str:
    """A complete, flushed temporary copy of `data` next to `target` (same folder: the rename stays atomic)."""
    pieces = [data.encode("utf-8")] if isinstance(data, str) else [data] if isinstance(data, bytes) else data
    try:
        keep = stat.S_IMODE(target.stat().st_mode)
    except OSError:
        keep = 0o644
    descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name[:100]}.", suffix=".partial",
                                             dir=str(target.parent) or ".")  # fmt: skip
    try:
        with os.fdopen(descriptor, "wb") as handle:
            for piece in pieces:
                handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, keep if mode is None else mode)
    except BaseException as exc:  # a streamed payload may fail on its own (a database error, Ctrl-C)
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            exc.filename = str(target)  # the file the user named, not the temporary one
        raise
    return temporary
