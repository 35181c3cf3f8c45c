"""A sentence drawn with its dependency arcs coloured by entailment label, as in the DAE paper's Figure 3."""
from __future__ import annotations

from html import escape

from entailgen.dataset.report.plots import LABEL_COLOURS, num
from entailgen.dataset.report.stats import arc_label

CHAR_W = 8.4  # advance of a 14px monospace character: token positions need no font metrics from a browser
GAP = 18
LEVEL_H = 26
MARGIN = 10
SIDE = 3  # horizontal offset of an arc's end from the token centre
TOKEN_FONT = "font-family:monospace;font-size:14px"
LABEL_FONT = "font-family:sans-serif;font-size:11px"


def token_centres(tokens: list[str]) -> list[float]:
    """x of each token's centre, laying tokens left to right at monospace widths."""
    centres, x = [], float(MARGIN)
    for t in tokens:
        w = max(len(t), 1) * CHAR_W
        centres.append(x + w / 2)
        x += w + GAP
    return centres


def arc_levels(spans: list[tuple[int, int]]) -> list[int]:
    """Height level of each (left, right) span: one above every span it encloses, so nested arcs never cross."""
    levels = [0] * len(spans)
    for i in sorted(range(len(spans)), key=lambda i: (spans[i][1] - spans[i][0], spans[i], i)):
        lo, hi = spans[i]
        inner = [levels[j] for j in range(len(spans)) if levels[j] and lo <= spans[j][0] and spans[j][1] <= hi]
        levels[i] = 1 + max(inner, default=0)
    return levels


def drawable(arcs: list[dict], n_tokens: int) -> list[dict]:
    """Arcs whose endpoints are distinct tokens of the sentence (others are listed, not drawn)."""
    return [a for a in arcs if 0 <= a["head"] < n_tokens and 0 <= a["child"] < n_tokens and a["head"] != a["child"]]


def arc_svg(tokens: list[str], arcs: list[dict]) -> str:
    """SVG of the tokens with one arc per dependency, head to child, arrow at the child, coloured by its label.

    arcs are rows of LabelledArc (with 'entailed') or Arc (no label: drawn unlabelled grey).
    """
    arcs = drawable(arcs, len(tokens))
    centres = token_centres(tokens)
    spans = [(min(a["head"], a["child"]), max(a["head"], a["child"])) for a in arcs]
    levels = arc_levels(spans)
    base = MARGIN + 16 + LEVEL_H * max(levels, default=0)
    width = (centres[-1] + max(len(tokens[-1]), 1) * CHAR_W / 2 + MARGIN) if tokens else 2 * MARGIN
    body = []
    order = lambda al: (-al[1], al[0]["head"], al[0]["child"], al[0]["rel"], str(al[0].get("entailed")))  # noqa: E731
    for a, level in sorted(zip(arcs, levels), key=order):
        label = arc_label(a.get("entailed"))
        colour = LABEL_COLOURS[label]
        side = 1 if a["child"] > a["head"] else -1  # arcs leave a token on the side they go to, so they part
        x1, x2 = centres[a["head"]] + SIDE * side, centres[a["child"]] - SIDE * side
        lo, hi = sorted((x1, x2))
        height, y = LEVEL_H * level, base
        pull = y - height * 4 / 3  # control points of a cubic whose top is `height` above the baseline
        title = f'{a["head_lemma"]} \u2192 {a["child_lemma"]} ({a["rel"]}): {label}'
        body.append(
            f'<g class="arc arc-{label.replace(" ", "-")}" data-rel="{escape(a["rel"])}" data-label="{label}">'
            f'<title>{escape(title)}</title>'
            f'<path class="arc" d="M{num(lo)},{num(y)} C{num(lo)},{num(pull)} {num(hi)},{num(pull)} '
            f'{num(hi)},{num(y)}" fill="none" stroke="{colour}" stroke-width="2"/>'
            f'<path class="arrow" d="M{num(x2 - 4)},{num(y - 7)} L{num(x2)},{num(y)} L{num(x2 + 4)},{num(y - 7)} Z" '
            f'fill="{colour}"/>'
            f'<text class="rel" x="{num((lo + hi) / 2)}" y="{num(y - height - 3)}" text-anchor="middle" '
            f'fill="{colour}" style="{LABEL_FONT}">{escape(a["rel"])}</text></g>')
    for t, x in zip(tokens, centres):
        body.append(f'<text class="token" x="{num(x)}" y="{num(base + 18)}" text-anchor="middle" '
                    f'style="{TOKEN_FONT}">{escape(t)}</text>')
    height = base + 26
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="arcs" role="img" '
            f'aria-label="{escape(" ".join(tokens))}" width="{num(width)}" '
            f'height="{num(height)}" viewBox="0 0 {num(width)} {num(height)}">' + "".join(body) + "</svg>")
