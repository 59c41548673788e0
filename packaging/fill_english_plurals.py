"""Fill the English plural forms of assets/i18n/gpu_advisor_en.ts: "%n quote(s)" -> "%n quote" / "%n quotes".

English needs a catalog only for its two plural forms (Qt picks the form from the translation file; without
one it shows the source, "1 quote(s)"). `make translations` collects the %n texts (pyside6-lupdate
-pluralonly) and runs this to write the forms, which follow from the "(s)" in each source text.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

FORMS = re.compile(
    r"<message numerus=\"yes\">(?P<head>.*?<source>(?P<source>.*?)</source>.*?)<translation[^>]*>.*?</translation>",
    re.S,
)


def forms(source: str) -> tuple[str, str]:
    return source.replace("(s)", ""), source.replace("(s)", "s")


def fill(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        one, other = forms(match.group("source"))
        return (
            f'<message numerus="yes">{match.group("head")}<translation>\n'
            f"            <numerusform>{one}</numerusform>\n"
            f"            <numerusform>{other}</numerusform>\n"
            "        </translation>"
        )

    return FORMS.sub(replace, text)


if __name__ == "__main__":
    path = Path(sys.argv[1])
    path.write_text(fill(path.read_text(encoding="utf-8")), encoding="utf-8")
