"""The card's Separability section and the page's on a hand-made manifest block: the table, and the two lines that
say what an AUC near 0.5 means and which cue gives most away (farthest from 0.5 either way; a tie: the first cue)."""
from entailgen.dataset.report.card import SECTIONS
from entailgen.dataset.report.card import separability as card_section
from entailgen.dataset.report.card.facts import CardFacts
from entailgen.dataset.report.html import separability_section
from entailgen.dataset.report.separability import reading

CUES = ["overlap", "negation", "absent_name", "length", "disfluency"]
NO_AUC = dict.fromkeys(CUES)


def cell(units, positive, auc):
    return {"units": units, "positive": positive, "negative": units - positive,
            "share_positive": round(positive / units, 4), "auc": auc}


# Over all rules absent_name (0.2, 0.30 from chance, inverted) beats overlap (0.75, 0.25 from chance); within ner,
# overlap (0.875) and absent_name (0.125) are both 0.375 from chance: the tie goes to overlap, first in cue order.
BLOCK = {"unit": "pair", "cues": CUES, "rules": {
    "all": {"all": cell(10, 4, {"overlap": 0.75, "negation": 0.5, "absent_name": 0.2, "length": 0.55,
                                "disfluency": 0.6}),
            "train": cell(8, 4, {"overlap": 0.7, "negation": 0.5, "absent_name": 0.25, "length": 0.5,
                                 "disfluency": 0.6})},
    "ner": {"all": cell(6, 4, {"overlap": 0.875, "negation": 0.5, "absent_name": 0.125, "length": 0.5,
                               "disfluency": 0.625})},
    "negation": {"all": cell(4, 0, NO_AUC)},
}}


def facts(manifest):
    return CardFacts(manifest, {}, {})


def test_the_card_section_gives_the_table_and_two_lines_on_reading_it():
    assert "\n".join(card_section.section(facts({"separability": BLOCK}))) == (
        card_section.WHAT + "\n\n"
        "| rule | pairs | positive | overlap AUC | negation AUC | absent name AUC | length AUC | disfluency AUC |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|\n"
        "| all | 10 | 40% | 0.75 | 0.50 | 0.20 | 0.55 | 0.60 |\n"
        "| negation | 4 | 0% | — (one class) | — (one class) | — (one class) | — (one class) | — (one class) |\n"
        "| ner | 6 | 67% | 0.88 | 0.50 | 0.12 | 0.50 | 0.62 |\n"
        "\n"
        "An AUC near 0.5 means the cue alone cannot tell entailed units from not-entailed ones; the farther from 0.5, "
        "either way (below it the cue works inverted), the more a detector can learn the cue instead of the facts.\n"
        "\n"
        "The strongest cue over all rules is absent name: ROC AUC 0.20, 0.30 from chance; within one rule, overlap "
        "on ner (0.88 over 6 pairs).\n")


def test_one_class_everywhere_says_no_cue_has_an_auc_and_no_block_no_section():
    one_class = {"unit": "arc", "cues": CUES, "rules": {"all": {"all": cell(3, 3, NO_AUC)},
                                                        "gold": {"all": cell(3, 3, NO_AUC)}}}
    assert reading(one_class)[1] == "No cue has an AUC here: the units are all of one label."
    assert "<svg" not in separability_section({"separability": one_class})  # no AUC to plot, the table stays
    assert "<td>gold</td><td>3</td><td>100%</td>" in separability_section({"separability": one_class})
    assert card_section.section(facts({})) == [] and separability_section({}) == ""
    assert card_section.section(facts({"separability": {"unit": "none", "cues": CUES, "rules": {}}})) == []


def test_the_card_puts_the_section_after_the_statistics():
    titles = [title for title, _ in SECTIONS]
    assert titles.index("Statistics") + 1 == titles.index("Separability") == titles.index("Known limits") - 1


def test_the_page_plots_overlap_per_rule_beside_the_table():
    page = separability_section({"separability": BLOCK})
    assert 'aria-label="Overlap ROC AUC by rule"' in page
    bars = [part.split('"')[0] for part in page.split('data-group="')[1:]]
    assert bars == ["all", "ner"]  # negation is one class: no bar
    assert 'data-auc="0.75"' in page and 'data-auc="0.875"' in page and ">one class</text>" in page
    assert "<td>negation</td><td>4</td><td>0%</td><td>— (one class)</td>" in page
    assert "<p>The strongest cue over all rules is absent name" in page
