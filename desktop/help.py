"""Help > User guide (F1): a short guide to the five pages and the questions they answer, in the interface
language. README.md and docs/ hold the long form (installation, the command line, the exports)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

translate = QCoreApplication.translate


def guide_html() -> str:
    """The guide: one heading and a paragraph or two per page, then where the numbers come from."""
    sections = (
        (
            translate("UserGuide", "What GPU Advisor answers"),
            translate(
                "UserGuide",
                "Will a model fit, how fast will it train or serve, with which sharding, what will it cost, and "
                "is it cheaper to rent or to buy the GPUs? Everything runs on this computer, without a network.",
            ),
        ),
        (
            translate("UserGuide", "Hardware"),
            translate(
                "UserGuide",
                "Lists this machine's NVIDIA GPUs with live telemetry. Run probe measures their real matmul "
                "speed and memory bandwidth (a quick probe takes about a minute); Measure the CPU works without "
                "a GPU. Import probe report adds a machine measured elsewhere with gpu-probe.",
            ),
        ),
        (
            translate("UserGuide", "Quotes"),
            translate(
                "UserGuide",
                "Rental prices (per GPU-hour) and purchase prices you collected, beside the shipped reference "
                "prices. Add opens a form; nothing is stored until the quote is complete. Edits, imports and "
                "deletions can be undone with Ctrl+Z and redone with Ctrl+Shift+Z.",
            ),
        ),
        (
            translate("UserGuide", "Plan"),
            translate(
                "UserGuide",
                "Answer five questions (Guided) or see every input at once (Expert): the task, the model, the "
                "sequence length and batch, the hardware and your limits. The headline names the best option; "
                "the table ranks the others; the charts show the memory per GPU and how time and cost change "
                "with the GPU count. Expert mode also pins the parallel layout. Export writes launch configs "
                "and a report for the selected option.",
            ),
        ),
        (
            translate("UserGuide", "Rent or buy"),
            translate(
                "UserGuide",
                "Compares renting (on demand, spot, reserved), buying and a hybrid month by month. It follows "
                "the option chosen on the Plan page: say how often the job runs each month and the utilisation "
                "follows from the job's GPU-hours.",
            ),
        ),
        (
            translate("UserGuide", "Where the numbers come from"),
            translate(
                "UserGuide",
                "A catalog GPU uses its datasheet; a measured machine uses its probe figures. A GPU type is priced "
                "at the quote you ticked, else at the median of your on-demand quotes, else at the median of the "
                "reference quotes. An option fits when it needs at most the GPU's memory less the headroom "
                "(10% by default). The command line (gpu-advisor plan) gives the same answer for the same inputs.",
            ),
        ),
    )
    return "".join(f"<h3>{title}</h3><p>{text}</p>" for title, text in sections)


class UserGuideDialog(QDialog):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(translate("UserGuide", "GPU Advisor user guide"))
        self.browser = QTextBrowser()
        self.browser.setHtml(guide_html())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
        self.resize(640, 560)
