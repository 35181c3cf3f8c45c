"""Inline SVG charts (stacked bars, histograms): the report must open offline, with no script, font or library."""
from __future__ import annotations

import math
from html import escape
from typing import Iterable, Optional

from entailgen.dataset.report.stats import UNLABELLED
from entailgen.schemas.records import ENTAILED, NOT_ENTAILED

# One colour per label everywhere, as in the DAE paper's Figure 3: entailed green, not entailed red, unlabelled grey.
LABEL_COLOURS = {ENTAILED: "#1a7f37", NOT_ENTAILED: "#cf222e", UNLABELLED: "#8c959f",
                 "entailment": "#1a7f37", "contradiction": "#cf222e", "neutral": "#8c959f",
                 "CORRECT": "#1a7f37", "INCORRECT": "#cf222e"}
PALETTE = ("#0969da", "#bf8700", "#8250df", "#1b7c83", "#bc4c00", "#57606a", "#4d2d00", "#0550ae")
BAR_COLOUR = "#0969da"
WIDTH = 720
FONT = "font-family:sans-serif;font-size:12px"
CHAR_W = 7.5  # px per character at 12px sans-serif, generous so an estimated width is never short of the real one


def num(x: float) -> str:
    """A coordinate with at most one decimal, so the same chart is always the same bytes."""
    return f"{x:.1f}".rstrip("0").rstrip(".")


def colours_for(categories: Iterable[str]) -> dict[str, str]:
    """Label colours for known labels, palette colours (in order) for the rest."""
    colours, others = {}, iter(PALETTE * 8)
    for c in categories:
        colours[c] = LABEL_COLOURS.get(c) or next(others)
    return colours


def category_order(groups: dict[str, dict[str, int]]) -> list[str]:
    """Categories of a table: known labels first in their fixed order, then the others sorted."""
    seen = {c for counts in groups.values() for c in counts}
    known = [c for c in LABEL_COLOURS if c in seen]
    return known + sorted(seen - set(known))


def clip(text: str, limit: int) -> str:
    """Shorten a long axis label with an ellipsis (the full text stays in the element's title)."""
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def _svg(title: str, width: float, height: float, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" role="img" aria-label="{escape(title)}" '
            f'width="{num(width)}" height="{num(height)}" viewBox="0 0 {num(width)} {num(height)}" style="{FONT}">'
            f'<title>{escape(title)}</title>' + "".join(body) + "</svg>")


def legend(categories: list[str], colours: dict[str, str], x0: float, y0: float) -> tuple[list[str], float]:
    """Colour key entries laid out in rows that wrap at the chart width; (elements, height used)."""
    out, x, y = [], x0, y0
    for c in categories:
        width = 24 + 7 * len(c)
        if x > x0 and x + width > WIDTH:
            x, y = x0, y + 16
        out.append(f'<rect class="legend" x="{num(x)}" y="{num(y)}" width="10" height="10" fill="{colours[c]}"/>'
                   f'<text x="{num(x + 14)}" y="{num(y + 9)}">{escape(c)}</text>')
        x += width
    return out, y - y0 + 16


def top_groups(groups: dict[str, dict[str, int]], limit: int) -> list[tuple[str, dict[str, int]]]:
    """The largest groups (ties by name); the rest summed into one 'other (n)' row, so no count is hidden."""
    ranked = sorted(groups.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
    if len(ranked) <= limit:
        return ranked
    rest: dict[str, int] = {}
    for _, counts in ranked[limit - 1:]:
        for c, n in counts.items():
            rest[c] = rest.get(c, 0) + n
    return ranked[:limit - 1] + [(f"other ({len(ranked) - limit + 1})", dict(sorted(rest.items())))]


def stacked_bars(title: str, groups: dict[str, dict[str, int]], limit: int = 25) -> str:
    """Horizontal bars, one per group, split by category (label balance per kind, split, relation...)."""
    rows = top_groups(groups, limit)
    categories = category_order(groups)
    colours = colours_for(categories)
    longest = max((len(group) for group, _ in rows), default=0)
    label_w = min(max(170, math.ceil(CHAR_W * longest) + 12), WIDTH // 2)  # as wide as the longest group name
    bar_w, row_h = WIDTH - label_w - 70, 20
    biggest = max((sum(c.values()) for _, c in rows), default=0) or 1
    key, key_h = legend(categories, colours, label_w, 19)
    body = [f'<text x="0" y="14" style="font-weight:bold">{escape(title)}</text>'] + key
    top = 19 + key_h - 1
    for i, (group, counts) in enumerate(rows):
        y, x, total = top + 6 + i * row_h, float(label_w), sum(counts.values())
        body.append(f'<text class="axis" x="{label_w - 6}" y="{num(y + 13)}" text-anchor="end">'
                    f'<title>{escape(group)}</title>{escape(clip(group, int((label_w - 12) // CHAR_W)))}</text>')
        for c in categories:
            n = counts.get(c, 0)
            if not n:
                continue
            w = bar_w * n / biggest
            body.append(f'<rect class="bar" data-group="{escape(group)}" data-category="{escape(c)}" '
                        f'x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{row_h - 4}" fill="{colours[c]}">'
                        f'<title>{escape(group)}: {escape(c)} {n} ({num(100 * n / total)}%)</title></rect>')
            x += w
        body.append(f'<text x="{num(x + 4)}" y="{num(y + 13)}">{total}</text>')
    return _svg(title, WIDTH, top + 12 + len(rows) * row_h, body)


def length_bins(counts: dict[int, int], max_bins: int = 24) -> list[tuple[str, int]]:
    """Histogram bins over [min, max] of integer lengths, of equal width chosen so there are at most max_bins."""
    if not counts:
        return []
    lo, hi = min(counts), max(counts)
    width = max(1, math.ceil((hi - lo + 1) / max_bins))
    bins = [0] * ((hi - lo) // width + 1)
    for length, n in counts.items():
        bins[(length - lo) // width] += n
    return [(str(lo + i * width) if width == 1 else f"{lo + i * width}\u2013{lo + (i + 1) * width - 1}", n)
            for i, n in enumerate(bins)]


def histogram(title: str, bins: list[tuple[str, int]], x_label: str) -> str:
    """Vertical bars over ordered bins (lengths in words), with the count on each bar's tooltip."""
    left, bottom, plot_h, top = 40, 48, 150, 24
    step = (WIDTH - left - 10) / max(len(bins), 1)
    biggest = max((n for _, n in bins), default=0) or 1
    body = [f'<text x="0" y="14" style="font-weight:bold">{escape(title)}</text>',
            f'<line class="axis" x1="{left}" y1="{top + plot_h}" x2="{WIDTH - 10}" y2="{top + plot_h}" '
            'stroke="#57606a"/>',
            f'<text x="{left - 4}" y="{top + 8}" text-anchor="end">{biggest}</text>',
            f'<text x="{left - 4}" y="{top + plot_h}" text-anchor="end">0</text>']
    widest = max((CHAR_W * len(label) + 8 for label, _ in bins), default=40)
    every = max(1, math.ceil(len(bins) * max(40, widest) / (WIDTH - left)))  # keep tick labels from overlapping
    for i, (label, n) in enumerate(bins):
        h = plot_h * n / biggest
        x = left + i * step
        body.append(f'<rect class="bar" data-bin="{escape(label)}" x="{num(x + 1)}" y="{num(top + plot_h - h)}" '
                    f'width="{num(max(step - 2, 1))}" height="{num(h)}" fill="{BAR_COLOUR}">'
                    f'<title>{escape(label)}: {n}</title></rect>')
        if i % every == 0:
            body.append(f'<text x="{num(x + step / 2)}" y="{top + plot_h + 14}" text-anchor="middle">'
                        f'{escape(label)}</text>')
    body.append(f'<text x="{num(left + (WIDTH - left) / 2)}" y="{top + plot_h + bottom - 14}" '
                f'text-anchor="middle">{escape(x_label)}</text>')
    return _svg(title, WIDTH, top + plot_h + bottom, body)


def auc_bars(title: str, aucs: dict[str, Optional[float]]) -> str:
    """Horizontal bars of an ROC AUC per group on a 0-1 axis, chance (0.5) marked: how far each rule's labels are from
    what one cue alone cannot separate; a group without an AUC (one class) says so instead of a bar."""
    longest = max((len(group) for group in aucs), default=0)
    label_w = min(max(170, math.ceil(CHAR_W * longest) + 12), WIDTH // 2)
    bar_w, row_h, top = WIDTH - label_w - 110, 20, 36
    chance = label_w + bar_w / 2
    body = [f'<text x="0" y="14" style="font-weight:bold">{escape(title)}</text>']
    for tick in (0, 0.5, 1):
        body.append(f'<text class="axis" x="{num(label_w + bar_w * tick)}" y="30" text-anchor="middle">'
                    f'{num(tick)}</text>')
    for i, (group, auc) in enumerate(aucs.items()):
        y = top + i * row_h
        body.append(f'<text class="axis" x="{label_w - 6}" y="{num(y + 13)}" text-anchor="end">'
                    f'<title>{escape(group)}</title>{escape(clip(group, int((label_w - 12) // CHAR_W)))}</text>')
        if auc is None:
            body.append(f'<text x="{label_w}" y="{num(y + 13)}">one class</text>')
            continue
        w = bar_w * auc
        body.append(f'<rect class="bar" data-group="{escape(group)}" data-auc="{auc}" x="{label_w}" y="{num(y)}" '
                    f'width="{num(w)}" height="{row_h - 4}" fill="{BAR_COLOUR}">'
                    f'<title>{escape(group)}: ROC AUC {auc:.2f}</title></rect>'
                    f'<text x="{num(label_w + w + 4)}" y="{num(y + 13)}">{auc:.2f}</text>')
    bottom = top + len(aucs) * row_h
    body.append(f'<line class="chance" x1="{num(chance)}" y1="{top - 2}" x2="{num(chance)}" y2="{bottom}" '
                'stroke="#57606a" stroke-dasharray="4 3"/>')
    return _svg(title, WIDTH, bottom + 8, body)
