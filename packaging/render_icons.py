"""Render assets/icons/gpu-advisor.svg to PNG sizes and a Windows .ico, with Qt (no other image tools needed).

    QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/render_icons.py

The rendered files are committed, so neither the app nor the build needs the SVG renderer; rerun this after
editing the SVG.
"""

from __future__ import annotations

import sys
from pathlib import Path

ICON_DIR = Path(__file__).resolve().parent.parent / "assets" / "icons"
SVG = ICON_DIR / "gpu-advisor.svg"
PNG_SIZES_PX = (16, 24, 32, 48, 64, 128, 256, 512)
# Windows Explorer picks from these; 256 is the largest an .ico entry may hold.
ICO_SIZES_PX = (16, 24, 32, 48, 64, 128, 256)


def render(renderer, size_px: int):
    """One square ARGB image of the SVG at size_px x size_px."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter

    image = QImage(size_px, size_px, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    return image


def write_ico(images: list, path: Path) -> None:
    """A multi-size .ico with PNG-compressed entries (valid since Windows Vista)."""
    import struct

    from PySide6.QtCore import QBuffer, QIODevice

    blobs = []
    for image in images:
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        image.save(buffer, "PNG")
        blobs.append(bytes(buffer.data()))
    header = struct.pack("<HHH", 0, 1, len(images))
    offset = 6 + 16 * len(images)
    entries = b""
    for image, blob in zip(images, blobs, strict=True):
        side = image.width() if image.width() < 256 else 0  # 0 means 256 in the ICONDIRENTRY
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(blob), offset)
        offset += len(blob)
    path.write_bytes(header + entries + b"".join(blobs))


def main() -> int:
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 - QImage/QPainter need it
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        print(f"cannot read {SVG}", file=sys.stderr)
        return 1
    for size_px in PNG_SIZES_PX:
        render(renderer, size_px).save(str(ICON_DIR / f"gpu-advisor-{size_px}.png"))
    write_ico([render(renderer, size_px) for size_px in ICO_SIZES_PX], ICON_DIR / "gpu-advisor.ico")
    print(f"wrote {len(PNG_SIZES_PX)} PNGs and gpu-advisor.ico to {ICON_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
