"""The inline SVG helpers: bar sizes worked out by hand, label colours, and arcs drawn as in DAE Figure 3."""
import xml.etree.ElementTree as ET

import pytest

from entailgen.dataset.report.arc_view import CHAR_W, GAP, MARGIN, SIDE, arc_levels, arc_svg, token_centres
from entailgen.dataset.report.plots import (LABEL_COLOURS, category_order, histogram, length_bins, stacked_bars,
                                            top_groups)

SVG = "{http://www.w3.org/2000/svg}"
GREEN, RED, GREY = LABEL_COLOURS["entailed"], LABEL_COLOURS["not-entailed"], LABEL_COLOURS["unlabelled"]


def parse(svg: str) -> ET.Element:
    """The SVG as XML: it must be well-formed to render inline."""
    return ET.fromstring(svg)


def bars(root: ET.Element) -> list[dict]:
    return [rect.attrib for rect in root.iter(f"{SVG}rect") if rect.get("class") == "bar"]


def test_length_bins_are_one_word_wide_for_short_ranges_and_cover_empty_lengths():
    assert length_bins({1: 2, 2: 1, 5: 4}) == [("1", 2), ("2", 1), ("3", 0), ("4", 0), ("5", 4)]
    assert length_bins({}) == []


def test_length_bins_widen_to_stay_under_the_bin_limit():
    counts = {n: 1 for n in range(50)}  # 0..49: 50 lengths into at most 10 bins of width 5
    assert length_bins(counts, max_bins=10) == [(f"{lo}\u2013{lo + 4}", 5) for lo in range(0, 50, 5)]


KINDS = {"bottom": {"entailed": 1, "unlabelled": 1}, "gold": {"entailed": 5},
         "word_swap": {"entailed": 3, "not-entailed": 2}}


def test_stacked_bars_scale_to_the_largest_group_and_colour_by_label():
    root = parse(stacked_bars("Arc labels by kind", KINDS))
    assert root.get("class") == "plot" and root.find(f"{SVG}title").text == "Arc labels by kind"
    got = [(b["data-group"], b["data-category"], b["x"], b["width"], b["fill"]) for b in bars(root)]
    # bar area 480 px for the biggest total (5): one arc is 96 px; groups by size, then name
    assert got == [("gold", "entailed", "170", "480", GREEN),
                   ("word_swap", "entailed", "170", "288", GREEN), ("word_swap", "not-entailed", "458", "192", RED),
                   ("bottom", "entailed", "170", "96", GREEN), ("bottom", "unlabelled", "266", "96", GREY)]
    tips = [rect.find(f"{SVG}title").text for rect in root.iter(f"{SVG}rect") if rect.get("class") == "bar"]
    assert tips[2] == "word_swap: not-entailed 2 (40%)"


def test_known_labels_come_first_in_a_fixed_order_then_other_categories_sorted():
    assert category_order({"a": {"unlabelled": 1, "zeta": 1}, "b": {"alpha": 2, "entailed": 1}}) == \
        ["entailed", "unlabelled", "alpha", "zeta"]


def test_groups_beyond_the_limit_are_summed_into_one_other_row():
    groups = {"nsubj": {"entailed": 9}, "dobj": {"entailed": 5}, "amod": {"not-entailed": 2}, "advmod": {"entailed": 1}}
    assert top_groups(groups, 3) == [("nsubj", {"entailed": 9}), ("dobj", {"entailed": 5}),
                                     ("other (2)", {"entailed": 1, "not-entailed": 2})]
    assert len(bars(parse(stacked_bars("relations", groups, limit=3)))) == 4


def test_histogram_bar_heights_are_proportional_with_the_tallest_at_full_height():
    root = parse(histogram("Hypothesis length (words)", [("1", 2), ("2", 1), ("3", 0)], "words"))
    assert [(b["data-bin"], b["height"]) for b in bars(root)] == [("1", "150"), ("2", "75"), ("3", "0")]
    assert [b["y"] for b in bars(root)] == ["24", "99", "174"]  # bars stand on the axis at y = 24 + 150


def test_tokens_are_laid_out_at_monospace_widths():
    first, second = MARGIN + 1.5 * CHAR_W, MARGIN + 3 * CHAR_W + GAP + 1.5 * CHAR_W
    assert token_centres(["The", "cat"]) == pytest.approx([first, second])


def test_enclosing_arcs_are_drawn_one_level_above_what_they_enclose():
    assert arc_levels([(0, 1), (1, 2), (0, 2), (2, 3), (0, 3)]) == [1, 1, 2, 1, 3]


def test_arcs_are_coloured_by_label_with_the_arrow_at_the_dependent():
    # "The young man gave ..." after the word swap: gave -nsubj-> man entailed, man -amod-> young not entailed.
    tokens = ["The", "young", "man", "gave"]
    arcs = [{"head": 3, "child": 2, "rel": "nsubj", "head_lemma": "give", "child_lemma": "man", "entailed": 1},
            {"head": 2, "child": 1, "rel": "amod", "head_lemma": "man", "child_lemma": "young", "entailed": 0},
            {"head": 3, "child": 1, "rel": "npadvmod", "head_lemma": "give", "child_lemma": "young", "entailed": None},
            {"head": 3, "child": 9, "rel": "dobj", "head_lemma": "give", "child_lemma": "book", "entailed": 1}]
    root = parse(arc_svg(tokens, arcs))
    groups = [g for g in root.iter(f"{SVG}g")]
    drawn = {g.get("data-rel"): g for g in groups}
    assert set(drawn) == {"nsubj", "amod", "npadvmod"}  # dobj points past the last token: not drawn
    assert {rel: g.get("data-label") for rel, g in drawn.items()} == \
        {"nsubj": "entailed", "amod": "not-entailed", "npadvmod": "unlabelled"}
    for rel, colour in (("nsubj", GREEN), ("amod", RED), ("npadvmod", GREY)):
        path, arrow = [p for p in drawn[rel].iter(f"{SVG}path")]
        assert path.get("stroke") == colour and arrow.get("fill") == colour
    centres = token_centres(tokens)
    arrow_tip = drawn["nsubj"].findall(f"{SVG}path")[1].get("d").split()[1]  # "L{x},{y}": the tip
    assert float(arrow_tip[1:].split(",")[0]) == pytest.approx(centres[2] + SIDE, abs=0.05)  # at "man", from the right
    assert [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "token"] == tokens
    assert drawn["npadvmod"].find(f"{SVG}title").text == "give \u2192 young (npadvmod): unlabelled"


def test_arc_drawing_is_the_same_bytes_for_the_same_arcs_in_any_order():
    arcs = [{"head": 1, "child": 0, "rel": "nsubj", "head_lemma": "bark", "child_lemma": "dog"},
            {"head": 1, "child": 2, "rel": "advmod", "head_lemma": "bark", "child_lemma": "loudly"}]
    assert arc_svg(["Dogs", "bark", "loudly"], arcs) == arc_svg(["Dogs", "bark", "loudly"], arcs[::-1])
    assert 'data-label="unlabelled"' in arc_svg(["Dogs", "bark", "loudly"], arcs)  # parse arcs have no label
