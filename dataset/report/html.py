"""report.html: one static page (inline CSS and SVG, no script, no network) with a dataset's plots and examples."""
from __future__ import annotations

from html import escape

from entailgen.dataset.report.arc_view import arc_svg, drawable
from entailgen.dataset.report.card.facts import split_names
from entailgen.dataset.report.card.markdown import plural
from entailgen.dataset.report.plots import LABEL_COLOURS, auc_bars, clip, histogram, length_bins, stacked_bars
from entailgen.dataset.report.separability import ALL, reading, separability_rows
from entailgen.dataset.report.stats import UNLABELLED
from entailgen.dataset.report.tables import stat_blocks, stat_notes
from entailgen.schemas.records import ENTAILED, NOT_ENTAILED

REPORT = "report.html"
# Nothing may load from anywhere: the page must open from a laptop, a bucket or an air-gapped machine alike.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
LABEL_FACETS = ("split", "kind", "phenomenon", "template", "sentence label by kind", "3-way label by kind",
                "transformation", "pair")
LENGTH_TITLES = {"premise": "Premise length", "hypothesis": "Hypothesis length", "text": "Sentence length",
                 "claim": "Claim length"}
STYLE = """
body{font-family:sans-serif;margin:2em auto;max-width:1100px;padding:0 1em;color:#1f2328}
h1{font-size:1.6em}h2{border-bottom:1px solid #d0d7de;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #d0d7de;padding:.25em .6em;text-align:left;
vertical-align:top}th{background:#f6f8fa}.plots{display:flex;flex-wrap:wrap;gap:1.5em}
.example{border:1px solid #d0d7de;border-radius:6px;padding:.6em 1em;margin:1em 0}
.meta{color:#57606a;font-size:.85em}.drawing{overflow-x:auto}
.label{padding:0 .4em;border-radius:4px;color:#fff;white-space:nowrap}
.key span{display:inline-block;margin-right:1.2em}.key i{display:inline-block;width:1.6em;height:.3em;
vertical-align:middle;margin-right:.3em}pre{background:#f6f8fa;padding:.6em;overflow-x:auto}.empty{color:#57606a}
"""


def _table(rows: list[tuple[str, object]]) -> str:
    return "<table>" + "".join(f"<tr><th>{escape(k)}</th><td>{escape(str(v))}</td></tr>" for k, v in rows) + "</table>"


def _badge(label: str) -> str:
    colour = LABEL_COLOURS.get(label, LABEL_COLOURS[UNLABELLED])
    return f'<span class="label" style="background:{colour}">{escape(label)}</span>'


PARSE_KEY = ('<p class="meta">Parse arcs carry no entailment label: all are grey, drawn from head to dependent '
             'with the arrow at the dependent.</p>')


def arc_key() -> str:
    """The colour key of the arc drawings."""
    return '<p class="key">' + "".join(
        f'<span><i style="background:{LABEL_COLOURS[label]}"></i>{label}</span>'
        for label in (ENTAILED, NOT_ENTAILED, UNLABELLED)) + "</p>"


def summary_section(manifest: dict, description: str) -> str:
    """What the dataset is and how much of it there is."""
    config, total = manifest["config"], manifest["counts"]["total"]
    rows = [("pipeline", manifest["pipeline"] + (f": {description}" if description else "")),
            ("record type", manifest["record_type"]), ("entailgen", manifest["entailgen_version"]),
            ("seed", config["seed"]), ("format", f"{config['format']}, {config['num_shards']} shard(s) per split"),
            ("inputs", ", ".join(i["name"] for i in manifest["inputs"])),
            ("read / written / dead", f"{total['read']} / {total['written']} / {total['dead_letters']}")]
    rows += [(f"split {name}", plural(manifest["splits"][name]["rows"], "row")) for name in split_names(manifest)]
    return '<section id="summary"><h2>Summary</h2>' + _table(rows) + "</section>"


def labels_section(stats: dict) -> str:
    """Label balance per split, kind, phenomenon, template: the first thing to check in synthetic data."""
    what = "Arc labels" if stats["record_type"] == "ArcExample" else "Labels"
    titles = {"sentence label by kind": "Sentence labels by kind", "3-way label by kind": "3-way labels by kind"}
    plots = [stacked_bars(titles.get(facet, f"{what} by {facet}"), stats["labels"][facet])
             for facet in LABEL_FACETS if stats["labels"].get(facet)]
    if stats["rows"]:
        plots.append(stacked_bars("Rows by split and source", stats["rows"]))
    body = "".join(f"<figure>{p}</figure>" for p in plots) or '<p class="empty">No rows.</p>'
    return f'<section id="labels"><h2>Label balance</h2><div class="plots">{body}</div></section>'


def lengths_section(stats: dict, max_bins: int) -> str:
    """Length histograms in words: hypotheses much shorter than premises are a cue a model can learn."""
    plots = [histogram(f"{LENGTH_TITLES.get(name, name)} (words)", length_bins(counts, max_bins), "words")
             for name, counts in stats["lengths"].items() if counts]
    body = "".join(f"<figure>{p}</figure>" for p in plots) or '<p class="empty">No rows.</p>'
    return f'<section id="lengths"><h2>Lengths</h2><div class="plots">{body}</div></section>'


def relations_section(stats: dict, max_bars: int) -> str:
    """Arc labels by dependency relation: which relations the negatives come from (left out for rows without arcs)."""
    relations = stats["labels"].get("relation")
    if not relations:
        return ""
    body = f"<figure>{stacked_bars('Arc labels by dependency relation', relations, max_bars)}</figure>"
    return f'<section id="relations"><h2>Arcs by dependency relation</h2>{body}</section>'


def dead_section(stats: dict, manifest: dict, max_bars: int) -> str:
    """Dead letters by stage and error type, and inputs skipped on purpose: what the run did not use, and why."""
    dead, skipped = stats["dead"], manifest["counts"].get("skipped_by_reason", {})
    charts = [stacked_bars(title, {reason: {what: n} for reason, n in counts.items()}, max_bars)
              for title, what, counts in (("Dead letters by reason", "dead letters", dead),
                                          ("Inputs skipped on purpose, by reason", "skipped", skipped)) if counts]
    body = "".join(f"<figure>{c}</figure>" for c in charts)
    if not dead:
        body = '<p class="empty">No dead letters: every input unit was used or skipped on purpose.</p>' + body
    return f'<section id="dead"><h2>Dead letters</h2>{body}{dead_examples_html(stats.get("dead_examples") or [])}</section>'


def dead_examples_html(rows: list[dict]) -> str:
    """A few dead letters per reason: where (file:line), which stage and error, the message and the input."""
    if not rows:
        return ""
    head = "".join(f"<th>{h}</th>" for h in ("where (file:line or id)", "stage:error", "message", "input"))
    body = "".join(f'<tr class="dead-letter"><td>{escape(d["source_id"])}</td>'
                   f'<td>{escape(d["stage"])}:{escape(d["error_type"])}</td><td>{escape(clip(d["message"], 200))}</td>'
                   f'<td>{escape(clip(d["raw"], 120))}</td></tr>' for d in rows)
    return f'<h3>Example dead letters</h3><table class="dead-letters"><tr>{head}</tr>{body}</table>'


def grid(header: list, rows: list[list], cls: str) -> str:
    """A table of a header row and rows of cells (escaped)."""
    head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><tr>{head}</tr>{body}</table>'


def stat_html(value) -> str:
    """A stats value as captioned HTML tables (or a scalar, or JSON), the same blocks the card shows."""
    parts = []
    for block in stat_blocks(value):
        caption = f"<h4>{escape(block.caption)}</h4>" if block.caption else ""
        if block.header:
            parts.append(caption + grid(block.header, block.rows, "stat"))
        else:
            text = escape(block.text)
            parts.append(caption + (f"<pre>{text}</pre>" if block.code else f"<p><b>{text}</b></p>"))
    return "".join(parts)


def pipeline_stats_section(manifest: dict) -> str:
    """The family's own statistics from the manifest (audit baselines and the like), with what they mean."""
    stats = manifest.get("stats") or {}
    body = "".join(f"<h3>{escape(k)}</h3>" + "".join(f"<p>{escape(n)}</p>" for n in stat_notes(k, v)) + stat_html(v)
                   for k, v in stats.items()) or '<p class="empty">The pipeline recorded no statistics.</p>'
    return f'<section id="pipeline-stats"><h2>Pipeline statistics</h2>{body}</section>'


def separability_section(manifest: dict) -> str:
    """How well overlap and the other cheap cues alone predict the labels: overlap's ROC AUC per rule plotted, every
    cue's in a table, and how to read them (left out for a dataset without labels)."""
    block = manifest.get("separability")
    if not block or not block["rules"]:
        return ""
    header, rows = separability_rows(block)
    overlap = {row[0]: block["rules"][row[0]][ALL]["auc"]["overlap"] for row in rows}
    plot = (f'<figure>{auc_bars("Overlap ROC AUC by rule", overlap)}</figure>'
            if any(auc is not None for auc in overlap.values()) else "")  # all of one label: nothing to plot
    said = "".join(f"<p>{escape(line)}</p>" for line in reading(block))
    return f'<section id="separability"><h2>Separability</h2>{plot}{grid(header, rows, "separability")}{said}</section>'


def _not_drawn(arcs: list[dict], n_tokens: int) -> str:
    missing = len(arcs) - len(drawable(arcs, n_tokens))
    return f'<p class="meta">{missing} arc(s) with out-of-range tokens not drawn.</p>' if missing else ""


def _reference(row: dict) -> str:
    """The gold paraphrase h* of the example's source x, shown beside x (not for the gold row itself)."""
    if not row.get("reference") or row["kind"] == "gold":
        return ""
    return f'<p class="reference"><b>Gold h*</b> {escape(row["reference"])}</p>'


def arc_example_html(row: dict) -> str:
    """A DAE example: premise, then the hypothesis with its arcs coloured by label."""
    rank = "" if row.get("beam_rank") is None else f", beam rank {row['beam_rank']}"
    score = "" if row.get("beam_score") is None else f", score {row['beam_score']:.3f}"
    label = "" if row.get("label") is None else f", sentence label {row['label']}"
    return (f'<article class="example arc-example" data-kind="{escape(row["kind"])}">'
            f'<p class="meta">{escape(row["kind"])}{rank}{score}{label} · generator {escape(row["generator"])} · '
            f'{escape(row["split"] or "")} · {escape(row["source_id"])} · id {escape(row["id"])}</p>'
            f'<p><b>Premise</b> {escape(row["premise"])}</p>{_reference(row)}<p><b>Hypothesis</b></p>'
            f'<div class="drawing">{arc_svg(row["hypothesis_tokens"], row["arcs"])}</div>'
            f'{_not_drawn(row["arcs"], len(row["hypothesis_tokens"]))}</article>')


def parsed_sentence_html(row: dict) -> str:
    """A parsed sentence with its enhanced-style arcs (unlabelled: parses carry no entailment label)."""
    words = [t["text"] for t in row["tokens"]]
    return (f'<article class="example parsed-sentence">'
            f'<p class="meta">{escape(row["source_id"])} · {escape(row["role"])} · parser {escape(row["parser"])} · '
            f'{escape(row["split"] or "")} · id {escape(row["id"])}</p><p>{escape(row["text"])}</p>'
            f'<div class="drawing">{arc_svg(words, row["arcs"])}</div>{_not_drawn(row["arcs"], len(words))}</article>')


def rte_pairs_html(rows: list[dict]) -> str:
    """Recast pairs as a table: premise, hypothesis, label, and the phenomenon and template that made them."""
    head = "".join(f"<th>{h}</th>" for h in ("premise", "hypothesis", "label", "phenomenon", "template", "kind"))
    body = "".join(
        f'<tr class="rte-pair"><td>{escape(r["premise"])}</td><td>{escape(r["hypothesis"])}</td>'
        f'<td>{_badge(r["label"])}{"" if not r.get("label3") else " " + escape(r["label3"])}</td>'
        f'<td>{escape(r["phenomenon"])}</td><td>{escape(r["template"])}</td>'
        f'<td>{escape(r["kind"])}{"" if not r.get("phrase") else ": " + escape(r["phrase"])}</td></tr>'
        for r in rows)
    return f'<table class="rte-pairs"><tr>{head}</tr>{body}</table>'


def marked(text: str, span) -> str:
    """text with its [start, end) character span highlighted (escaped)."""
    if not span:
        return escape(text)
    start, end = span
    return f"{escape(text[:start])}<mark>{escape(text[start:end])}</mark>{escape(text[end:])}"


def claim_examples_html(rows: list[dict]) -> str:
    """Claims with the changed span highlighted against the document sentence they came from."""
    head = "".join(f"<th>{h}</th>" for h in ("claim", "source sentence", "label", "transformation", "premise"))
    body = "".join(
        f'<tr class="claim"><td>{marked(r["claim"], r.get("claim_span"))}</td>'
        f'<td>{marked(r["source_sentence"], r.get("source_span"))}</td><td>{_badge(r["label"])}</td>'
        f'<td>{escape(r["transformation"])}{" + noise" if r["noise"] else ""}'
        f'{"" if r.get("block_index") is None else ", block " + str(r["block_index"])}</td>'
        f'<td>{escape(r["premise"][:300])}{"…" if len(r["premise"]) > 300 else ""}</td></tr>' for r in rows)
    return f'<table class="claims"><tr>{head}</tr>{body}</table>'


def paraphrases_html(rows: list[dict]) -> str:
    """Paraphrase pairs as a table: x, h* and their similarity."""
    head = "".join(f"<th>{h}</th>" for h in ("x", "h*", "similarity", "generator"))
    body = "".join(f'<tr class="paraphrase"><td>{escape(r["text"])}</td><td>{escape(r["gold"])}</td>'
                   f'<td>{r["similarity"]:.3f}</td><td>{escape(r["generator"])}</td></tr>' for r in rows)
    return f'<table class="paraphrases"><tr>{head}</tr>{body}</table>'


def examples_section(record_type: str, rows: list[dict], seed: int) -> str:
    """A seeded sample of rows, a few per group, drawn so a reader can judge the data by eye."""
    if not rows:
        body = '<p class="empty">No rows.</p>'
    elif record_type == "RtePair":
        body = rte_pairs_html(rows)
    elif record_type == "ClaimExample":
        body = claim_examples_html(rows)
    elif record_type == "ScoredParaphrase":
        body = paraphrases_html(rows)
    else:
        render = arc_example_html if record_type == "ArcExample" else parsed_sentence_html
        body = (arc_key() if record_type == "ArcExample" else PARSE_KEY) + "".join(render(r) for r in rows)
    return (f'<section id="examples"><h2>Examples</h2><p class="meta">{len(rows)} rows sampled with seed {seed}, '
            f'a few per group.</p>{body}</section>')


def render_report(manifest: dict, stats: dict, examples: list[dict], description: str = "", max_bars: int = 25,
                  max_bins: int = 24) -> str:
    """The whole page; the same dataset always gives the same bytes."""
    title = f"entailgen {manifest['pipeline']} dataset report"
    sections = [summary_section(manifest, description), labels_section(stats), lengths_section(stats, max_bins),
                relations_section(stats, max_bars), dead_section(stats, manifest, max_bars),
                pipeline_stats_section(manifest), separability_section(manifest),
                examples_section(manifest["record_type"], examples, manifest["config"]["seed"])]
    return ("<!DOCTYPE html>\n"
            f'<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f'<meta name="viewport" content="width=device-width,initial-scale=1">'
            f"<title>{escape(title)}</title><style>{STYLE}</style></head>\n<body><h1>{escape(title)}</h1>\n"
            + "\n".join(s for s in sections if s) + "\n</body></html>\n")
