"""explain.html: one self-contained page (inline CSS and script, no network) of a `score --explain` dataset's rows,
worst first: each summary's words shaded by how unsupported they are, each sentence's score beside the document block
that supports it best, the arcs behind a word on hover or click, a search box and a filter by score."""
from __future__ import annotations

import heapq
import json
from html import escape
from typing import Iterable, Optional

from entailgen.dataset.report.read import dataset_rows
from entailgen.dataset.shard import join_path, write_atomically

EXPLAIN_PAGE = "explain.html"
PAGE_ROWS = 500  # the worst rows shown: a page a browser opens at once
UNSUPPORTED = 0.5  # a word at or above it is marked unsupported (bold, underlined), besides its shade
# Nothing may load from anywhere; the one script is inline.
CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
STYLE = """
body{font-family:sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#1f2328}
h1{font-size:1.5em}.tools{position:sticky;top:0;background:#fff;padding:.6em 0;border-bottom:1px solid #d0d7de}
.tools input{margin-right:1.5em}.row{border:1px solid #d0d7de;border-radius:6px;padding:.6em 1em;margin:1em 0}
.meta{color:#57606a;font-size:.85em}table{border-collapse:collapse;width:100%;table-layout:fixed}td,th{border-top:1px solid #d0d7de;
padding:.35em .6em;text-align:left;vertical-align:top}th{font-weight:normal;color:#57606a;font-size:.85em}
th:first-child{width:45%}th:nth-child(2){width:10%}td.score{font-variant-numeric:tabular-nums}td.block{color:#3d444d;font-size:.92em}
.w{border-radius:3px;padding:0 1px;cursor:pointer}.w.unsupported{font-weight:bold;text-decoration:underline}
#arcs{position:fixed;right:1em;bottom:1em;max-width:28em;background:#fff;border:1px solid #d0d7de;border-radius:6px;
padding:.5em .8em;box-shadow:0 2px 8px #0002;font-size:.9em}#arcs:empty{display:none}
details{margin-top:.4em}details p{white-space:pre-wrap}mark{background:#dafbe1}.why{color:#cf222e}
"""
SCRIPT = """
const rows = [...document.querySelectorAll('section.row')];
const query = document.getElementById('search'), most = document.getElementById('most');
const shown = document.getElementById('shown'), panel = document.getElementById('arcs');
function filter() {
  const q = query.value.toLowerCase(), top = parseFloat(most.value);
  document.getElementById('most-value').textContent = top.toFixed(2);
  let n = 0;
  for (const r of rows) {
    const keep = r.dataset.text.includes(q) && parseFloat(r.dataset.score) <= top;
    r.hidden = !keep; n += keep;
  }
  shown.textContent = n;
}
query.addEventListener('input', filter); most.addEventListener('input', filter);
document.addEventListener('click', e => {
  const w = e.target.closest('.w');
  if (!w) { panel.textContent = ''; return; }
  panel.textContent = '';
  const head = document.createElement('b');
  head.textContent = w.textContent + ': unsupported ' + w.dataset.u;
  panel.append(head);
  const arcs = JSON.parse(w.dataset.arcs);
  const list = document.createElement('ul');
  for (const a of arcs) {
    const li = document.createElement('li');
    li.textContent = a[1] + ' \u2192' + a[0] + '\u2192 ' + a[2] + ': P(entailed) ' + a[3];
    list.append(li);
  }
  if (!arcs.length) list.textContent = 'no arc of its own: its sentence\\'s score';
  panel.append(list);
});
filter();
"""


def shade(unsupported: float) -> str:
    """A word's background: red, as strong as it is unsupported."""
    return f"background:rgba(207,34,46,{unsupported:.2f})"


def arc_title(arcs: list[dict]) -> str:
    """The arcs behind a word as the hover shows them, one a line."""
    return "\n".join(f"{a['head_word']} -{a['rel']}-> {a['child_word']}: P(entailed) {a['entailed_probability']:.2f}"
                     + (f" (document {a['evidence_start']}-{a['evidence_end']})"
                        if a.get("evidence_start") is not None else "")
                     for a in arcs) or "no arc of its own: its sentence's score"


def word_html(summary: str, word: dict) -> str:
    """One word, shaded, its score and arcs on hover (title) and click (data-arcs)."""
    arcs = word.get("arcs") or []
    u = word["unsupported"]
    data = json.dumps([[a["rel"], a["head_word"], a["child_word"], a["entailed_probability"]] for a in arcs],
                      ensure_ascii=False)
    marked = " unsupported" if u >= UNSUPPORTED else ""
    return (f'<span class="w{marked}" style="{shade(u)}" data-u="{u:.2f}" data-arcs="{escape(data)}" '
            f'title="unsupported {u:.2f}&#10;{escape(arc_title(arcs))}">{escape(summary[word["start"]:word["end"]])}'
            "</span>")


def words_html(summary: str, words: list[dict]) -> str:
    """The words in order with the summary's own spacing between them."""
    out, last = [], None
    for word in words:
        if last is not None:
            out.append(escape(summary[last:word["start"]]))
        out.append(word_html(summary, word))
        last = word["end"]
    return "".join(out)


def evidence_spans(sentence: dict) -> list[tuple[int, int]]:
    """The document spans a sentence's arcs were read from: its passages, else its supporting block."""
    if sentence.get("passages"):
        return [(p["start"], p["end"]) for p in sentence["passages"]]
    return [(sentence["block_start"], sentence["block_end"])] if sentence.get("block_start") is not None else []


def marked_document(document: str, sentences: list[dict]) -> str:
    """The document with every passage the sentences drew on marked (a sentence fused from two passages: both)."""
    spans = sorted({span for s in sentences for span in evidence_spans(s)})
    out, at = [], 0
    for start, end in spans:
        if start < at:
            continue
        out += [escape(document[at:start]), f"<mark>{escape(document[start:end])}</mark>"]
        at = end
    return "".join(out) + escape(document[at:])


def row_html(row: dict) -> str:
    """One scored row: its score, each sentence's words, score and supporting block, and the document."""
    summary, sentences, words = row["summary"], row.get("sentences") or [], row.get("words") or []
    lines = []
    for i, sentence in enumerate(sentences):
        own = [w for w in words if w.get("sentence") == i]
        score = (f"{sentence['score']:.2f}" if sentence.get("score") is not None
                 else f'<span class="why">unscorable: {escape(sentence.get("unscorable") or "")}</span>')
        lines.append(f'<tr class="sentence"><td>{words_html(summary, own)}</td><td class="score">{score}</td>'
                     f'<td class="block">{escape(sentence.get("block") or "")}</td></tr>')
    loose = [w for w in words if w.get("sentence") is None]
    if loose:
        lines.append(f'<tr class="sentence"><td>{words_html(summary, loose)}</td><td class="score">(in no '
                     "sentence)</td><td></td></tr>")
    text = escape((summary + " " + row["document"]).lower())
    return (f'<section class="row" data-score="{row["score"]:.6f}" data-text="{text}">'
            f'<div class="meta">score <b>{row["score"]:.3f}</b> · id {escape(str(row.get("source_id", "")))}</div>'
            "<table><tr><th>summary sentence</th><th>score</th><th>supporting block of the document</th></tr>"
            + "".join(lines) + "</table><details><summary>document</summary><p>"
            + marked_document(row["document"], sentences) + "</p></details></section>")


def worst(rows: Iterable[dict], limit: int = PAGE_ROWS) -> list[dict]:
    """The `limit` lowest-scored rows, lowest first (ties by id), kept in one streaming pass."""
    return heapq.nsmallest(limit, rows, key=lambda r: (r["score"], str(r.get("id", ""))))


def render_explain_page(rows: list[dict], title: str, total: Optional[int] = None) -> str:
    """The page of rows (already worst first); total: how many rows the dataset has, when more than shown."""
    more = f" (the {len(rows)} worst of {total})" if total is not None and total > len(rows) else ""
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}"><title>{escape(title)}</title>'
            f"<style>{STYLE}</style></head><body><h1>{escape(title)}</h1>"
            f'<p class="meta">Rows worst first{more}. A word is shaded as it is unsupported (1 = nothing in the '
            f"document supports it); bold at {UNSUPPORTED} or more. Hover or click a word for the arcs behind its "
            "score.</p>"
            '<div class="tools"><label>search <input id="search" type="search"></label>'
            '<label>score at most <input id="most" type="range" min="0" max="1" step="0.01" value="1"> '
            '<span id="most-value">1.00</span></label> <span class="meta"><span id="shown"></span> rows shown'
            "</span></div>" + "".join(row_html(r) for r in rows)
            + f'<div id="arcs"></div><script>{SCRIPT}</script></body></html>')


def write_explain_page(output: str, manifest: dict, limit: int = PAGE_ROWS) -> Optional[str]:
    """explain.html in a scores dataset whose rows were explained (`score --documents --explain`); its name, or None
    for any other dataset."""
    if manifest.get("record_type") != "ScoredDocument":
        return None
    counted = {"n": 0, "explained": 0}

    def rows():
        for row in dataset_rows(output, manifest):
            counted["n"] += 1
            counted["explained"] += row.get("words") is not None
            yield row
    shown = worst(rows(), limit)
    if not counted["explained"]:
        return None
    text = render_explain_page(shown, f"Where the summaries go wrong: {manifest.get('config', {}).get('model', '')}",
                               counted["n"])
    write_atomically(join_path(output, EXPLAIN_PAGE), text.encode("utf-8"))
    return EXPLAIN_PAGE
