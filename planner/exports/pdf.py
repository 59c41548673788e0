"""report.pdf: a small self-contained PDF 1.4 writer (pure Python, so the CLI writes it too).

render_pdf lays the report's sections (planner.exports.common.Section) onto A4 pages in Helvetica: headings,
wrapped paragraphs, bullet lists, ruled tables (header repeated on each page) and 8-bit RGB/greyscale PNGs,
with a footer and a correct cross-reference table (ISO 32000-1, section 7.5).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from planner.exports.common import Section, cell_text

_PAGE_W, _PAGE_H, _MARGIN = 595.0, 842.0, 48.0  # A4 in points
_TEXT_W = _PAGE_W - 2 * _MARGIN
_BOTTOM = _MARGIN + 14.0  # the lowest text line; the footer sits below it

# Glyph widths (1/1000 em) of two of PDF's standard 14 fonts for ASCII 32..126, from Adobe's Core14 AFM files
# Helvetica.afm and Helvetica-Bold.afm (Helvetica-Oblique has Helvetica's widths). Text is laid out with them,
# so wrapped lines and table columns end where they are meant to instead of running off the page.
_HELVETICA = (
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
)  # fmt: skip
_HELVETICA_BOLD = (
    278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611,
    975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556,
    333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611,
    611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,
)  # fmt: skip
# WinAnsi characters beyond ASCII that the report uses (same widths in both fonts); anything else: 556.
_EXTRA_WIDTHS = {"•": 350, "–": 556, "—": 1000, "×": 584, "·": 278, "…": 1000, "’": 222, "‘": 222, "“": 333,
                 "”": 333, "°": 400, "±": 584, "µ": 556, "é": 556, "è": 556, "ü": 556, "ö": 556, "ä": 556}  # fmt: skip
_FONTS = {  # resource name -> (base font, widths)
    "F1": ("Helvetica", _HELVETICA),
    "F2": ("Helvetica-Bold", _HELVETICA_BOLD),
    "F3": ("Helvetica-Oblique", _HELVETICA),
}

# The standard fonts only have WinAnsi (cp1252) glyphs: common symbols get ASCII stand-ins and Cyrillic is
# transliterated (a Russian model or plan name stays readable) instead of turning into question marks.
_SUBSTITUTES = {"≈": "~", "≤": "<=", "≥": ">=", "→": "->", "←": "<-", "−": "-", "≠": "!=", "∞": "inf",
                "₽": "RUB", "✓": "yes", "✗": "no", "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2011": "-"}  # fmt: skip
_CYRILLIC = dict(zip(
    "абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
    ["a", "b", "v", "g", "d", "e", "e", "zh", "z", "i", "y", "k", "l", "m", "n", "o", "p", "r", "s", "t",
     "u", "f", "kh", "ts", "ch", "sh", "shch", "", "y", "", "e", "yu", "ya"],
    strict=True,
))  # fmt: skip


def pdf_safe(text: str) -> str:
    """text with every character the standard PDF fonts cannot show replaced by a readable stand-in."""
    out = []
    for char in str(text):
        if char in _SUBSTITUTES:
            out.append(_SUBSTITUTES[char])
        elif char.lower() in _CYRILLIC:
            latin = _CYRILLIC[char.lower()]
            out.append(latin.capitalize() if char.isupper() else latin)
        else:
            try:
                char.encode("cp1252")
                out.append(char)
            except UnicodeEncodeError:
                out.append("?")
    return "".join(out)


def text_width(text: str, font: str = "F1", size: float = 10.0) -> float:
    """Width in points of `text` (already pdf_safe) set in one of the report's fonts at `size` points."""
    return sum(_char_units(char, _FONTS[font][1]) for char in text) * size / 1000.0


def _char_units(char: str, widths: Sequence[int]) -> int:
    code = ord(char)
    return widths[code - 32] if 32 <= code <= 126 else _EXTRA_WIDTHS.get(char, 556)


def _fitting_prefix(word: str, width: float, font: str, size: float) -> int:
    """How many leading characters of `word` fit in `width` points (at least 1), in one pass over the word:
    measuring every shorter prefix again was quadratic, and a 5,000-character model name took minutes."""
    widths, limit, total = _FONTS[font][1], width * 1000.0 / size, 0
    for count, char in enumerate(word):
        total += _char_units(char, widths)
        if total > limit:
            return max(1, count)
    return len(word)


def _pdf_text(text: str) -> bytes:
    """A PDF literal string in WinAnsi (cp1252)."""
    raw = pdf_safe(text).encode("cp1252", errors="replace")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def wrap_text(text: str, width: float, font: str = "F1", size: float = 10.0) -> list[str]:
    """Greedy word wrap to `width` points; a word longer than a line is split between characters."""
    lines: list[str] = []
    current = ""
    for word in pdf_safe(text).split():
        while text_width(word, font, size) > width:
            if current:
                lines.append(current)
                current = ""
            cut = _fitting_prefix(word, width, font, size)
            lines.append(word[:cut])
            word = word[cut:]
        candidate = f"{current} {word}" if current else word
        if current and text_width(candidate, font, size) > width:
            lines.append(current)
            current = word
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines or [""]


def _looks_numeric(cells: Sequence[str]) -> bool:
    """A column of figures ("68.1 GiB", "2,587.75 USD", "12") is right-aligned so the digits line up."""
    filled = [c for c in cells if c and c != "n/a"]
    return bool(filled) and sum(c[:1].isdigit() for c in filled) >= 0.6 * len(filled)


def fit_columns(natural: Sequence[float], minimum: Sequence[float], width: float) -> list[float]:
    """Column widths (points) that fill at most `width`: only the widest columns give way, all down to one common
    cap (so a long strategy text wraps before a short GPU name does); none goes below its minimum width."""
    if sum(natural) <= width:
        return list(natural)

    def widths_at(cap: float) -> list[float]:
        return [max(low, min(want, cap)) for want, low in zip(natural, minimum, strict=True)]

    low_cap, high_cap = 0.0, max(natural)
    for _ in range(40):  # bisection on the cap: 40 halvings reach far below a point
        cap = (low_cap + high_cap) / 2
        if sum(widths_at(cap)) <= width:
            low_cap = cap
        else:
            high_cap = cap
    return widths_at(low_cap)


class _PdfLayout:
    """Lays headings, wrapped paragraphs, bullet lists, ruled tables and images onto A4 pages."""

    def __init__(self) -> None:
        self.pages: list[list[bytes]] = [[]]
        self.images: list[tuple[str, _Png]] = []  # (resource name, image)
        self.page_images: list[list[str]] = [[]]
        self.y = _PAGE_H - _MARGIN

    # -- primitives ----------------------------------------------------------------------------------------------
    def new_page(self) -> None:
        self.pages.append([])
        self.page_images.append([])
        self.y = _PAGE_H - _MARGIN

    def ensure(self, height: float) -> bool:
        """Start a new page unless `height` points fit above the bottom margin; True when a page was started."""
        if self.y - height < _BOTTOM:
            self.new_page()
            return True
        return False

    def text(
        self, x: float, y: float, text: str, font: str = "F1", size: float = 10.0, grey: float = 0.0
    ) -> None:
        colour = f"{grey:.2f} g " if grey else ""
        self.pages[-1].append(
            f"{colour}BT /{font} {size:g} Tf {x:.1f} {y:.1f} Td ".encode()
            + _pdf_text(text)
            + b" Tj ET"
            + (b" 0 g" if grey else b"")
        )

    def fill(self, x: float, y: float, w: float, h: float, grey: float) -> None:
        self.pages[-1].append(f"q {grey:.2f} g {x:.1f} {y:.1f} {w:.1f} {h:.1f} re f Q".encode())

    def rule(self, x1: float, x2: float, y: float, grey: float = 0.6, width: float = 0.5) -> None:
        self.pages[-1].append(
            f"q {grey:.2f} G {width:g} w {x1:.1f} {y:.1f} m {x2:.1f} {y:.1f} l S Q".encode()
        )

    def gap(self, height: float) -> None:
        self.y -= height

    # -- blocks --------------------------------------------------------------------------------------------------
    def heading(self, text: str, size: float = 13.0) -> None:
        self.ensure(size * 1.6 + 40)  # keep a heading with the first lines under it
        self.y -= size * 1.25
        self.text(_MARGIN, self.y, text, "F2", size)
        self.y -= 4
        self.rule(_MARGIN, _PAGE_W - _MARGIN, self.y, grey=0.75)
        self.y -= 5

    def paragraph(self, text: str, font: str = "F1", size: float = 9.5, grey: float = 0.0,
                  bullet: bool = False) -> None:  # fmt: skip
        indent = 11.0 if bullet else 0.0
        leading = size * 1.32
        for index, line in enumerate(wrap_text(text, _TEXT_W - indent, font, size)):
            self.ensure(leading)
            self.y -= leading
            if bullet and index == 0:
                self.text(_MARGIN + 2, self.y, "•", font, size, grey)
            self.text(_MARGIN + indent, self.y, line, font, size, grey)
        self.y -= 2 if bullet else 3

    def table(self, header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
        """A ruled table: bold header on grey, zebra rows, wrapped cells, figures right-aligned; the header is
        repeated at the top of each page the table continues on."""
        texts = [[pdf_safe(str(c)) for c in header]] + [[pdf_safe(cell_text(c)) for c in row] for row in rows]
        columns = list(zip(*texts, strict=True))
        for size in (8.0, 7.0, 6.5):
            pad = 3.5 if size >= 8 else 2.5
            natural = [max(text_width(c, "F2" if i == 0 else "F1", size) for i, c in enumerate(col)) + 2 * pad
                       for col in columns]  # fmt: skip
            minimum = [max(min(max((text_width(w, "F1", size) for c in col[1:] for w in c.split()), default=0), 60.0),
                           max((text_width(w, "F2", size) for w in col[0].split()), default=0)) + 2 * pad
                       for col in columns]  # fmt: skip
            widths = fit_columns(natural, minimum, _TEXT_W)
            if sum(widths) <= _TEXT_W + 0.5:
                break
        # Figures line up on the right in tables of many columns; a two-column table (item, value) stays left.
        numeric = [len(columns) > 2 and _looks_numeric(col[1:]) for col in columns]
        leading = size * 1.25
        x_of = [_MARGIN + sum(widths[:i]) for i in range(len(widths))]
        table_w = sum(widths)

        def draw_row(cells: Sequence[str], index: int) -> None:
            font = "F2" if index == 0 else "F1"
            wrapped = [wrap_text(c, w - 2 * pad, font, size) for c, w in zip(cells, widths, strict=True)]
            height = max(len(lines) for lines in wrapped) * leading + 3
            if self.ensure(height) and index > 0:
                draw_row(texts[0], 0)  # the header again on the new page
            top = self.y
            if index == 0:
                self.fill(_MARGIN, top - height, table_w, height, 0.88)
            elif index % 2 == 0:
                self.fill(_MARGIN, top - height, table_w, height, 0.96)
            for column, lines in enumerate(wrapped):
                for number, line in enumerate(lines):
                    y = top - (number + 1) * leading + 0.5
                    x = x_of[column] + pad
                    if numeric[column] and index > 0:
                        x = x_of[column] + widths[column] - pad - text_width(line, font, size)
                    self.text(x, y, line, font, size)
            self.y = top - height
            if index == 0:
                self.rule(_MARGIN, _MARGIN + table_w, self.y, grey=0.45)

        for index, cells in enumerate(texts):
            draw_row(cells, index)
        self.rule(_MARGIN, _MARGIN + table_w, self.y, grey=0.45)
        self.y -= 6

    def image(self, png: bytes, caption: str) -> bool:
        info = _png_info(png)
        if info is None:
            return False
        scale = min(1.0, _TEXT_W / info.width, 330.0 / info.height)
        w, h = info.width * scale, info.height * scale
        self.ensure(h + 20)
        self.y -= h + 4
        name = f"Im{len(self.images) + 1}"
        self.images.append((name, info))
        self.page_images[-1].append(name)
        self.pages[-1].append(f"q {w:.1f} 0 0 {h:.1f} {_MARGIN:.1f} {self.y:.1f} cm /{name} Do Q".encode())
        self.y -= 11
        self.text(_MARGIN, self.y, caption, "F3", 8.5, grey=0.35)
        self.y -= 8
        return True

    def footer(self, title: str) -> None:
        """Page numbers at the foot of every page (added once the page count is known)."""
        total = len(self.pages)
        for number, commands in enumerate(self.pages, start=1):
            label = pdf_safe(f"{title} - page {number} of {total}")
            x = _PAGE_W - _MARGIN - text_width(label, "F1", 7.5)
            commands.append(f"q {_MARGIN:.1f} {_MARGIN - 2:.1f} m {_PAGE_W - _MARGIN:.1f} {_MARGIN - 2:.1f} l "
                            f"0.8 G 0.4 w S Q".encode())  # fmt: skip
            commands.append(
                f"0.45 g BT /F1 7.5 Tf {x:.1f} {_MARGIN - 12:.1f} Td ".encode()
                + _pdf_text(label)
                + b" Tj ET 0 g"
            )


@dataclass(frozen=True, slots=True)
class _Png:
    """What PDF needs of a PNG: its size, colour channels and the concatenated IDAT (zlib) data."""

    width: int
    height: int
    colors: int
    data: bytes


def _png_info(png: bytes) -> _Png | None:
    """Width, height, colour and the concatenated IDAT data of a PNG that PDF can show as is.

    PDF's FlateDecode with PNG predictors reads PNG's IDAT stream directly for 8-bit greyscale or RGB images
    without interlacing; anything else (alpha, palette) returns None and the caller keeps the text only.
    """
    if not png.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    pos, idat, size = 8, [], None
    while pos + 8 <= len(png):
        length, kind = struct.unpack(">I4s", png[pos : pos + 8])
        data = png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", data)
            if depth != 8 or colour not in (0, 2) or interlace:
                return None
            size = (width, height, 3 if colour == 2 else 1)
        elif kind == b"IDAT":
            idat.append(data)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if size is None or not idat:
        return None
    return _Png(*size, b"".join(idat))


def _pdf_bytes(layout: _PdfLayout, title: str) -> bytes:
    """Serialise pages, fonts and images into a PDF 1.4 file with a correct cross-reference table."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog_id = add(b"")  # filled once the page tree id is known
    pages_id = add(b"")
    fonts = {
        name: add(f"<< /Type /Font /Subtype /Type1 /BaseFont /{base} /Encoding /WinAnsiEncoding >>".encode())
        for name, (base, _) in _FONTS.items()
    }
    image_ids = {}
    for name, info in layout.images:
        params = f"/Predictor 15 /Colors {info.colors} /BitsPerComponent 8 /Columns {info.width}"
        space = "/DeviceRGB" if info.colors == 3 else "/DeviceGray"
        head = (
            f"<< /Type /XObject /Subtype /Image /Width {info.width} /Height {info.height} "
            f"/ColorSpace {space} /BitsPerComponent 8 /Filter /FlateDecode /DecodeParms << {params} >> "
            f"/Length {len(info.data)} >>\nstream\n"
        ).encode()
        image_ids[name] = add(head + info.data + b"\nendstream")
    font_refs = " ".join(f"/{k} {v} 0 R" for k, v in fonts.items())
    page_ids = []
    for commands, names in zip(layout.pages, layout.page_images, strict=False):
        content = zlib.compress(b"\n".join(commands))
        content_id = add(
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(content) + content + b"\nendstream"
        )
        xobjects = " ".join(f"/{n} {image_ids[n]} 0 R" for n in names)
        resources = (
            f"<< /Font << {font_refs} >>" + (f" /XObject << {xobjects} >>" if xobjects else "") + " >>"
        )
        page_ids.append(
            add(
                f"<< /Type /Page /Parent {pages_id} 0 R /MediaBox [0 0 {_PAGE_W:g} {_PAGE_H:g}] "
                f"/Resources {resources} /Contents {content_id} 0 R >>".encode()
            )
        )
    kids = " ".join(f"{p} 0 R" for p in page_ids)
    objects[pages_id - 1] = f"<< /Type /Pages /Kids [{kids}] /Count {len(page_ids)} >>".encode()
    objects[catalog_id - 1] = f"<< /Type /Catalog /Pages {pages_id} 0 R >>".encode()
    info_id = add(b"<< /Producer (GPU Advisor) /Title " + _pdf_text(title) + b" >>")

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref_at = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\n" % (len(objects) + 1, catalog_id, info_id)
    out += b"startxref\n%d\n%%%%EOF\n" % xref_at
    return bytes(out)


def render_pdf(
    title: str,
    summary: str,
    sections: Sequence[Section],
    images: Mapping[str, Mapping[str, bytes]] | None = None,
) -> bytes:
    """The PDF of `sections` under `title` and `summary`; images: heading -> {caption: PNG bytes} shown after
    that section (PNGs PDF cannot show as they are -- alpha, palette -- are left out, the text stays)."""
    layout = _PdfLayout()
    layout.y -= 18
    layout.text(_MARGIN, layout.y, title, "F2", 18)
    layout.y -= 6
    layout.paragraph(summary, size=10.5, grey=0.25)
    for section in sections:
        layout.gap(6)
        layout.heading(section.heading)
        for paragraph in section.paragraphs:
            layout.paragraph(paragraph, bullet=section.items)
        for table in section.tables:
            layout.table(table.header, table.rows)
        for caption, png in (images or {}).get(section.heading, {}).items():
            layout.image(png, caption)
    layout.footer(title)
    return _pdf_bytes(layout, title)
