"""Every relative link in README.md and docs/ names a file that exists, and a #anchor a heading of that file (GitHub's
slugs), so a newcomer following the docs never lands on a missing page or section."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)|^ {0,3}\[[^\]]+\]:\s*(\S+)", re.M)  # [text](target), [name]: target
FENCE = re.compile(r"^(```|~~~)")


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def prose(text: str, spans: bool = False) -> str:
    """The text outside fenced code blocks, and outside inline code unless spans: where a link is a link."""
    kept, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if not fenced:
            kept.append(line if spans else re.sub(r"`[^`]*`", "", line))
    return "\n".join(kept)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but '-' and '_' dropped, spaces to '-'."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading keeps its text
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for line in prose(path.read_text(encoding="utf-8"), spans=True).splitlines():  # a heading's code is in its slug
        match = re.match(r"#{1,6} (.+)", line)
        if match:
            base = slug(match.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def broken_links(page: Path) -> list[str]:
    broken = []
    for inline, reference in LINK.findall(prose(page.read_text(encoding="utf-8"))):
        target = inline or reference
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target} (no such heading)")
    return broken


def test_slugs_are_githubs():
    assert slug("Current figure") == "current-figure"
    assert slug("Pair models: With a Little Push's Table 2 on entailgen data") == \
        "pair-models-with-a-little-pushs-table-2-on-entailgen-data"
    assert slug("Nearest overlap: `python bench/overlap.py`") == "nearest-overlap-python-benchoverlappy"
    assert slug("Score modes (e-c and MC dropout)") == "score-modes-e-c-and-mc-dropout"


def test_a_missing_file_and_a_missing_heading_are_found(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\n## Two words\n\n[ok](b.md#b) [code](b.md#run-xpy) [gone](c.md) "
                                   "[bad](b.md#nope) [self](#two-words) [web](https://example.org/x.md) [ref][r]\n\n"
                                   "```\n[code](not-a-link.md)\n```\n\n[r]: d.md\n")
    (tmp_path / "b.md").write_text("# B\n\n## Run `x.py`\n")
    assert broken_links(tmp_path / "a.md") == ["c.md (no such file)", "b.md#nope (no such heading)",
                                                 "d.md (no such file)"]


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    assert broken_links(page) == []
