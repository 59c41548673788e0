"""QApplication and main(): placeholder until the desktop issue fills it."""

from __future__ import annotations


def main(argv: list[str]) -> int:
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication.instance() or QApplication(["gpu-advisor"])
    window = QMainWindow()
    window.setWindowTitle("GPU Advisor")
    window.resize(1200, 800)
    window.show()
    return app.exec()
