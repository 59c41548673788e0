"""Every relative link in README.md, README.ru.md, CONTRIBUTING.md and docs/ leads somewhere: the file exists and,
for a link with a #fragment, the target (or the page itself) has a heading with that anchor as GitHub makes it
(lower case, punctuation dropped, spaces to hyphens). README.md and README.ru.md stay short (the reference lives
under docs/), and the two commands they start with are Makefile targets."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README_LINES = 250  # "a README a newcomer reads in five minutes"
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def documents() -> list[Path]:
    return [ROOT / "README.md", ROOT / "README.ru.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]


def prose(text: str) -> str:
    """`text` without its fenced code blocks (a shell session's brackets are not links)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)


def anchors(path: Path) -> set[str]:
    """GitHub's heading anchors of a Markdown file (duplicates get -1, -2, ...)."""
    found: set[str] = set()
    for line in prose(path.read_text(encoding="utf-8")).splitlines():
        heading = re.match(r"#{1,6} (.*)", line)
        if not heading:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
        candidate, number = slug, 0
        while candidate in found:
            number += 1
            candidate = f"{slug}-{number}"
        found.add(candidate)
    return found


def broken_links(path: Path) -> list[str]:
    broken = []
    for target in LINK.findall(prose(path.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        file_part, _, fragment = target.partition("#")
        destination = (path.parent / file_part).resolve() if file_part else path
        if not destination.exists():
            broken.append(f"{target} (no such file)")
        elif fragment and destination.suffix == ".md" and fragment not in anchors(destination):
            broken.append(f"{target} (no such heading)")
    return broken


def test_every_relative_link_resolves():
    broken = {str(path.relative_to(ROOT)): found for path in documents() if (found := broken_links(path))}
    assert not broken, broken


def test_the_readmes_are_short_and_link_their_reference_pages():
    for name, pages in (("README.md", "docs/"), ("README.ru.md", "docs/ru/")):
        text = (ROOT / name).read_text(encoding="utf-8")
        assert len(text.splitlines()) <= README_LINES, f"{name}: {len(text.splitlines())} lines"
        linked = {target.partition("#")[0] for target in LINK.findall(prose(text))}
        reference = {f"{pages}{page}" for page in ("cli.md", "user-guide.md", "ledger.md", "probe.md", "packaging.md")}
        assert reference <= linked, f"{name} does not link {sorted(reference - linked)}"


def test_the_two_commands_are_makefile_targets():
    targets = set(re.findall(r"^([\w.-]+):", (ROOT / "Makefile").read_text(encoding="utf-8"), flags=re.M))
    for name in ("README.md", "README.ru.md"):
        commands = re.findall(r"^make (\S+)", (ROOT / name).read_text(encoding="utf-8"), flags=re.M)
        assert {"run", "test"} <= set(commands), f"{name} lost its two commands"
        assert set(commands) <= targets, f"{name} names make targets that do not exist: {set(commands) - targets}"


def test_a_broken_link_and_a_missing_heading_are_caught(tmp_path):
    (tmp_path / "a.md").write_text("# Top\n\n## The two commands\n\n[ok](#the-two-commands) [gone](b.md)\n"
                                   "[no heading](#nowhere)\n```\n[not a link](c.md)\n```\n", encoding="utf-8")
    assert broken_links(tmp_path / "a.md") == ["b.md (no such file)", "#nowhere (no such heading)"]
