"""Quote CSV files, read one row at a time and written as the rows come, in bounded memory (issue 30 item 7: a
1,000,000-row file took 2.3 GB when it was read whole). The cell conventions are planner.store.quotes'.

`stream_quote_csv` yields each data row as (spreadsheet row number, column -> cell) or, for a row refused as a
whole (wrong width, an ambiguous dot-grouped number in a semicolon CSV), (row number, the reason). File-level
problems (missing, a folder, a FIFO, too big, not UTF-8, a bad header, no rows) are UserErrors, raised as soon
as they are met: before the first row for the header, where they occur for a byte that is not UTF-8.
`write_quote_csv` writes rows from any iterable (an export streams them from the database) all or nothing.
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import BinaryIO

from planner.errors import UserError
from planner.files import open_regular_file, write_atomically
from planner.messages import Message, msg
from planner.store.quotes import (
    MAX_CSV_BYTES,
    MAX_NAMED_COLUMNS,
    RENTAL,
    QuoteTable,
    guard_formula,
    unguard_formula,
)

CsvRow = tuple[int, dict[str, str] | Message]  # (spreadsheet row number, the cells or why the row is refused)
WRITE_CHUNK_ROWS = 2000  # rows an export encodes before it writes them


def open_quote_csv(path: Path) -> BinaryIO:
    """The CSV file open for binary reading; UserError for a missing file, a folder, a special file, a file
    over MAX_CSV_BYTES."""
    if _is_folder(path):
        raise UserError.of(msg("error.csv_is_folder", path=str(path)))
    handle = open_regular_file(path)  # a FIFO or a device is refused, not read forever
    size = os.fstat(handle.fileno()).st_size
    if size > MAX_CSV_BYTES:
        handle.close()
        raise UserError.of(msg("error.csv_too_big", name=path.name, size=size, limit=MAX_CSV_BYTES))
    return handle


def _is_folder(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # a name too long: open_regular_file says so
        return False


def stream_quote_csv(path: str | Path, spec: QuoteTable, handle: BinaryIO | None = None) -> Iterator[CsvRow]:
    """The rows of the CSV at `path` one by one (see the module docstring). `handle`: the file already open
    (open_quote_csv), e.g. to follow the import's progress through handle.tell()."""
    path = Path(path)
    name = path.name
    binary = handle if handle is not None else open_quote_csv(path)
    with binary:
        text = io.TextIOWrapper(binary, encoding="utf-8-sig", newline="")
        reader = None
        try:
            first_line = text.readline()
            if not first_line.strip() and not _has_text(text):
                raise UserError.of(msg("error.csv_empty", name=name, columns=", ".join(spec.columns)))
            delimiter = ";" if first_line.count(";") > first_line.count(",") else ","
            reader = csv.reader(itertools.chain([first_line], text), delimiter=delimiter)
            header = [cell.strip().lower() for cell in next(reader)]
            _check_header(header, spec, name)
            width = len(header)
            any_row = False
            for row_number, cells in enumerate(reader, start=2):
                if not any(cell.strip() for cell in cells):
                    continue  # blank line
                any_row = True
                if len(cells) > width and any(cell.strip() for cell in cells[width:]):
                    yield row_number, msg("csv.row_width", cells=len(cells), columns=width)
                    continue
                cells = cells + [""] * (width - len(cells))
                row = {column: unguard_formula(cell) if column in spec.text_columns else cell
                       for column, cell in zip(header, cells, strict=True)}  # fmt: skip
                ambiguous = _dot_grouped_numbers(row, spec) if delimiter == ";" else []
                yield row_number, ambiguous[0] if ambiguous else row
        except UnicodeDecodeError:
            byte, line = _first_bad_byte(path)  # the text layer decodes ahead: find the byte's own line
            raise UserError.of(
                msg("error.csv_not_utf8", name=name, byte=f"0x{byte:02x}", line=line)
            ) from None
        except csv.Error as exc:
            line = reader.line_num if reader is not None else 1
            raise UserError.of(msg("error.csv_unreadable", name=name, line=line, detail=str(exc))) from None
        finally:
            text.detach()  # `binary` is closed by its own with-block
    if not any_row:
        raise UserError.of(msg("error.csv_no_rows", name=name, quotes=spec.plural))


def _first_bad_byte(path: Path) -> tuple[int, int]:
    """(the first byte that is not UTF-8, its line number), reading the file again in pieces."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    lines = 1
    with open_regular_file(path) as handle:
        while piece := handle.read(1 << 20):
            pending = decoder.getstate()[0]
            try:
                decoder.decode(piece)
            except UnicodeDecodeError as exc:
                data = pending + piece
                return data[exc.start], lines + data.count(b"\n", 0, exc.start)
            lines += piece.count(b"\n")
    return 0, lines


def _has_text(text: io.TextIOWrapper) -> bool:
    """Whether anything but white space follows (read in bounded pieces: a file of blanks is not held)."""
    while piece := text.read(1 << 16):
        if piece.strip():
            return True
    return False


_DOT_THOUSANDS_RE = re.compile(r"^-?\d{1,3}\.\d{3}$")


def _dot_grouped_numbers(row: Mapping[str, str], spec: QuoteTable) -> list[Message]:
    """In a semicolon CSV (saved where the comma is the decimal mark), "1.000" is one thousand to the person who
    typed it but 1.0 to float(): refused as ambiguous rather than read 1000x too small."""
    return [msg("quote.ambiguous_number", field=column, value=repr(cell.strip()))
            for column, cell in row.items()
            if column not in spec.text_columns and _DOT_THOUSANDS_RE.match(cell.strip())]  # fmt: skip


def _check_header(header: list[str], spec: QuoteTable, name: str) -> None:
    """UserError (one short line, whatever the header's width) naming missing, unknown and repeated columns."""
    counts = Counter(header)  # linear: a 200,000-column header is checked in milliseconds
    duplicated = sorted(column for column, seen in counts.items() if seen > 1 and column)
    missing = sorted(spec.required_header - counts.keys())
    known = set(spec.columns)
    unknown = [column for column in counts if column not in known]
    problems: list[Message] = []
    if missing:
        problems.append(msg("csv.missing_columns", columns=", ".join(missing)))
    if unknown:
        problems.append(msg("csv.unknown_columns", columns=_some(repr(c[:40]) for c in unknown)))
    if duplicated:
        shown = _some(c[:40] if c.isprintable() else repr(c[:40]) for c in duplicated)
        problems.append(msg("csv.repeated_columns", columns=shown))
    if (
        spec is RENTAL
        and not missing
        and not {"price_per_gpu_hour", "price_per_instance_hour"} & counts.keys()
    ):
        problems.append(msg("csv.missing_price_column"))
    if problems:
        raise UserError.of(msg("error.csv_header", name=name, problems=tuple(problems),
                               columns=", ".join(spec.columns)))  # fmt: skip


def _some(names: Iterable[str]) -> str:
    """The first MAX_NAMED_COLUMNS names, then "and N more", so that an error stays one readable line."""
    names = list(names)
    shown = ", ".join(names[:MAX_NAMED_COLUMNS])
    rest = len(names) - MAX_NAMED_COLUMNS
    return f"{shown} and {rest:,} more" if rest > 0 else shown


def _cell(value: object, is_text: bool) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer() and not is_text:
        return str(int(value)) if abs(value) < 1e15 else repr(value)
    if isinstance(value, float):
        return repr(value)
    text = str(value)
    return guard_formula(text) if is_text else text


def write_quote_csv(path: str | Path, spec: QuoteTable, rows: Iterable[Mapping[str, object]]) -> int:
    """Write the rows with the table's columns in order (UTF-8 with a byte-order mark, for spreadsheets)."""
    count = 0

    def pieces() -> Iterator[bytes]:
        nonlocal count
        buffer = io.StringIO(newline="")
        writer = csv.writer(buffer)
        writer.writerow(spec.columns)
        yield buffer.getvalue().encode("utf-8-sig")
        remaining = iter(rows)
        while chunk := list(itertools.islice(remaining, WRITE_CHUNK_ROWS)):
            buffer.seek(0)
            buffer.truncate()
            writer.writerows(
                [_cell(row.get(c), c in spec.text_columns) for c in spec.columns] for row in chunk
            )
            count += len(chunk)
            yield buffer.getvalue().encode("utf-8")

    # All or nothing (issue 14 item 6): a full disk half way leaves last week's export as it was.
    write_atomically(Path(path), pieces())
    return count
