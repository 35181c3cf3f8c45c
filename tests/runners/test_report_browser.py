"""Open each family's sample report in headless Chromium, as a reader would: plots and arcs render, nothing errs.

Needs the Debian packages chromium and chromium-driver and the selenium package; skips, saying so, without them.
"""
import pytest

from entailgen.pipelines import available, get_family
from entailgen.runners.cli import main

from browser_fixtures import browser, full_page_screenshot, pytestmark  # noqa: F401 (the fixture, the skip)

LABEL_RGB = {"entailed": "rgb(26, 127, 55)", "not-entailed": "rgb(207, 34, 46)", "unlabelled": "rgb(140, 149, 159)"}
# What the page shows, measured by the browser after layout (sizes are rendered pixels, not attributes).
MEASURE = """
const size = e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; };
const shown = e => { const b = e.getBBox(); return b.width > 0 && b.height > 0; };
return {
  plots: [...document.querySelectorAll('svg.plot')].map(s => ({
    title: s.getAttribute('aria-label'), size: size(s),
    bars: [...s.querySelectorAll('rect.bar')].filter(shown).length})),
  drawings: [...document.querySelectorAll('svg.arcs')].map(s => ({
    size: size(s), tokens: s.querySelectorAll('text.token').length,
    arcs: [...s.querySelectorAll('g.arc')].map(g => {
      const path = g.querySelector('path.arc');
      return {label: g.dataset.label, length: path.getTotalLength(), stroke: getComputedStyle(path).stroke};
    })})),
  pairs: document.querySelectorAll('tr.rte-pair').length,
  paraphrases: document.querySelectorAll('tr.paraphrase').length,
  badges: [...document.querySelectorAll('tr.rte-pair .label')].map(b => getComputedStyle(b).backgroundColor),
  claims: document.querySelectorAll('tr.claim').length,
  marks: [...document.querySelectorAll('tr.claim mark')].filter(m => size(m)[0] > 0).length,
};
"""


@pytest.mark.parametrize("family", available())
def test_sample_report_renders_plots_and_arc_drawings_without_errors(family, browser, tmp_path):
    out = tmp_path / "dataset"
    assert main(["run", family, "--sample", "--output", str(out), "--quiet"]) == 0
    browser.get((out / "report.html").as_uri())
    page = browser.execute_script(MEASURE)
    screenshot = tmp_path / f"report-{family}.png"
    full_page_screenshot(browser, screenshot)
    print(f"screenshot: {screenshot}")

    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
    assert browser.execute_script(INSIDE) == []  # no label sticks out of its chart
    titles = [p["title"] for p in page["plots"]]
    assert "Rows by split and source" in titles and any(t.endswith("length (words)") for t in titles)
    for plot in page["plots"]:
        assert plot["size"][0] > 300 and plot["size"][1] > 40 and plot["bars"] >= 1, plot
    record_type = get_family(family).record_type.__name__
    if record_type == "ScoredParaphrase":  # pairs without arcs or labels: a table of x, h* and similarity
        assert "Labels by split" in titles and page["paraphrases"] >= 1 and not page["drawings"]
        return
    if record_type == "RtePair":
        assert "Labels by phenomenon" in titles
        assert page["pairs"] >= 1 and set(page["badges"]) <= {LABEL_RGB["entailed"], LABEL_RGB["not-entailed"]}
        return
    if record_type == "ClaimExample":  # claims with the changed span highlighted against their source sentence
        assert "Labels by transformation" in titles
        assert page["claims"] >= 1 and page["marks"] >= 2
        return
    assert "Arc labels by dependency relation" in titles and page["drawings"]
    for drawing in page["drawings"]:
        assert drawing["size"][0] > 0 and drawing["tokens"] >= 1
        for arc in drawing["arcs"]:
            assert arc["length"] > 0 and arc["stroke"] == LABEL_RGB[arc["label"]], arc
    labels = {arc["label"] for d in page["drawings"] for arc in d["arcs"]}
    if record_type == "ParsedSentence":
        assert labels == {"unlabelled"}  # a parse says nothing about entailment
    else:
        assert {"entailed", "not-entailed"} <= labels  # the DAE sample shows both colours of Figure 3


INSIDE = """
const out = [];
for (const s of document.querySelectorAll('svg.plot')) {
  const r = s.getBoundingClientRect();
  for (const t of s.querySelectorAll('text')) {
    const b = t.getBoundingClientRect();
    if (b.left < r.left || b.right > r.right || b.top < r.top || b.bottom > r.bottom) out.push(t.textContent);
  }
}
return out;
"""


def test_plot_labels_are_whole_and_inside_their_charts(browser, tmp_path):
    """Long group names (dead-letter reasons, templates) and wide histogram bins, as the browser lays them out."""
    from entailgen.dataset.report.plots import histogram, stacked_bars

    reasons = {"recast_factuality:AmbiguousValue": {"skipped": 3}, "recast_ner:NoEntityMention": {"skipped": 1},
               "factuality/did-not-happen": {"entailed": 2, "not-entailed": 1},
               "very_long_input_file_name_2026-11-23.jsonl": {"entailed": 1}}
    bins = [(f"{100 + 10 * i}\u2013{109 + 10 * i}", i) for i in range(24)]
    page = tmp_path / "plots.html"
    page.write_text("<!DOCTYPE html><html><body>" + stacked_bars("Reasons", reasons)
                    + histogram("Premise length (words)", bins, "words") + "</body></html>", encoding="utf-8")
    browser.get(page.as_uri())
    assert browser.execute_script(INSIDE) == []
    shown = browser.execute_script("return [...document.querySelectorAll('svg.plot text.axis')].map(t => "
                                   "[...t.childNodes].filter(n => n.nodeType === 3).map(n => n.data).join(''))")
    assert sorted(shown) == sorted(reasons)  # every name whole (up to 46 characters), none cut with an ellipsis
