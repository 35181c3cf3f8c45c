"""Open a `score --explain` dataset's explain.html in headless Chromium, as a reader would: the rows worst first, the
words the scores mark highlighted, the arcs behind a word on click, the search and the score filter; no console error.

Needs the Debian packages chromium and chromium-driver and the selenium package; skips, saying so, without them.
"""
import pytest

from entailgen.dataset.report.explain_page import EXPLAIN_PAGE, write_explain_page
from entailgen.schemas.records import ExplainedSentence, ExplainedWord, ScoredDocument, WordArc
from trainer_fixtures import write_dataset

from browser_fixtures import browser, full_page_screenshot, pytestmark  # noqa: F401 (the fixture, the skip)

DOCUMENT = "The cat likes the woman.\n\nThe man sees the dog in the park."


def row(source_id: str, summary: str, score: float, words: list, sentences: list) -> ScoredDocument:
    return ScoredDocument(f"id-{source_id}", DOCUMENT, summary, 2, [s.text for s in sentences],
                          [s.score for s in sentences if s.score is not None], score, "zs", "sentence", "rows.jsonl",
                          source_id, words=words, sentences=sentences)


ROWS = [
    row("good", "The man  sees the dog.", 0.93,
        [ExplainedWord(0, 3, "The", 0.07, 0), ExplainedWord(4, 7, "man", 0.02, 0, [WordArc("nsubj", "sees", "man",
                                                                                         0.98)]),
         ExplainedWord(9, 13, "sees", 0.07, 0), ExplainedWord(14, 17, "the", 0.07, 0),
         ExplainedWord(18, 22, "dog.", 0.1, 0, [WordArc("dobj", "sees", "dog", 0.9)])],
        [ExplainedSentence("The man sees the dog.", 0, 22, 0.93, "The man sees the dog in the park.", 26, 59)]),
    row("bad", "The cat likes Anna. Yes.", 0.21,
        [ExplainedWord(0, 3, "The", 0.58, 0), ExplainedWord(4, 7, "cat", 0.3, 0, [WordArc("nsubj", "likes", "cat",
                                                                                        0.7)]),
         ExplainedWord(8, 13, "likes", 0.58, 0),
         ExplainedWord(14, 19, "Anna.", 0.95, 0, [WordArc("dobj", "likes", "Anna", 0.05)]),
         ExplainedWord(20, 24, "Yes.", 0.79, 1)],
        [ExplainedSentence("The cat likes Anna.", 0, 19, 0.42, "The cat likes the woman.", 0, 24),
         ExplainedSentence("Yes.", 20, 24, None, unscorable="the hypothesis has no content arc to score")]),
]

MEASURE = """
return [...document.querySelectorAll('section.row')].filter(r => !r.hidden).map(r => ({
  score: r.dataset.score,
  words: [...r.querySelectorAll('.w')].map(w => [w.textContent, w.classList.contains('unsupported'),
                                                 getComputedStyle(w).backgroundColor]),
  blocks: [...r.querySelectorAll('td.block')].map(b => b.textContent),
  scores: [...r.querySelectorAll('td.score')].map(b => b.textContent),
  marks: [...r.querySelectorAll('mark')].map(m => m.textContent)}));
"""


@pytest.fixture
def page(tmp_path):
    records = {"scored": ROWS}
    out = write_dataset(tmp_path / "scored", "ScoredDocument", records, pipeline="score")
    manifest = {"record_type": "ScoredDocument", "config": {"model": "models/dae"},
                "shards": [{"path": "scored-00000-of-00001.jsonl", "split": "scored", "rows": 2}]}
    assert write_explain_page(str(out), manifest) == EXPLAIN_PAGE
    return out / EXPLAIN_PAGE


def test_explain_page_shows_the_worst_row_first_with_the_words_its_scores_mark(browser, page, tmp_path):
    browser.get(page.as_uri())
    shown = browser.execute_script(MEASURE)
    full_page_screenshot(browser, tmp_path / "explain.png")
    print(f"screenshot: {tmp_path / 'explain.png'}")
    assert [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"] == []
    assert [r["score"] for r in shown] == ["0.210000", "0.930000"]  # worst first
    bad, good = shown
    assert [(w, marked) for w, marked, _ in bad["words"]] == [("The", True), ("cat", False), ("likes", True),
                                                              ("Anna.", True), ("Yes.", True)]
    assert [w[2] for w in bad["words"]] == ["rgba(207, 34, 46, 0.58)", "rgba(207, 34, 46, 0.3)",
                                            "rgba(207, 34, 46, 0.58)", "rgba(207, 34, 46, 0.95)",
                                            "rgba(207, 34, 46, 0.79)"]  # shaded as unsupported as it is
    assert not any(marked for _, marked, _ in good["words"])
    assert bad["blocks"] == ["The cat likes the woman.", ""]
    assert bad["scores"] == ["0.42", "unscorable: the hypothesis has no content arc to score"]
    assert bad["marks"] == ["The cat likes the woman."]
    assert good["marks"] == ["The man sees the dog in the park."]


def test_a_click_shows_the_arcs_and_the_search_and_filter_hide_rows(browser, page, tmp_path):
    browser.get(page.as_uri())
    browser.execute_script("document.querySelector('details').open = true")
    anna = [w for w in browser.find_elements("css selector", ".w") if w.text == "Anna."][0]
    anna.click()
    browser.save_screenshot(str(tmp_path / "explain-arcs.png"))  # docs/explain.png is this picture
    print(f"screenshot: {tmp_path / 'explain-arcs.png'}")
    panel = browser.find_element("id", "arcs").text
    assert panel.splitlines() == ["Anna.: unsupported 0.95", "likes →dobj→ Anna: P(entailed) 0.05"]
    browser.find_element("id", "search").send_keys("dog")  # only the good row's summary says dog; both documents do
    assert [r["score"] for r in browser.execute_script(MEASURE)] == ["0.210000", "0.930000"]
    browser.find_element("id", "search").clear()
    browser.find_element("id", "search").send_keys("anna")
    assert [r["score"] for r in browser.execute_script(MEASURE)] == ["0.210000"]
    browser.find_element("id", "search").clear()
    browser.execute_script("const m = document.getElementById('most'); m.value = '0.5';"
                           "m.dispatchEvent(new Event('input'));")
    assert [r["score"] for r in browser.execute_script(MEASURE)] == ["0.210000"]
    assert browser.find_element("id", "shown").text == "1"
