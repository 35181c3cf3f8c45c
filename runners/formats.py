"""`entailgen formats`: each input format's layout and the pipelines that take it, without importing Apache Beam."""
from __future__ import annotations

# format -> (layout of one unit, pipelines that use its records, besides EVERY_FORMAT). transforms.io.FORMATS holds the
# readers and Family.formats() the pipelines; a test keeps them in step. recast takes text with --phenomena relation.
EVERY_FORMAT = ("parse", "paraphrase")  # pipelines that take any record's text
LAYOUTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "text": ("one sentence per line", ("recast",)),
    "text-jsonl": ('one JSON object per line with a "text" field', ("recast",)),
    "paraphrase-tsv": ("x<TAB>h*[<TAB>score] per line (ParaNMT layout)", ("dae",)),
    "paraphrase-jsonl": ('one JSON object per line: "text"|"source" (x), "gold"|"paraphrase" (h*), "id"?', ("dae",)),
    "conll2003": ("CoNLL-2003: token POS chunk NER per line, blank line between sentences", ("recast",)),
    "gmb": ("GMB / Kaggle NER csv: Sentence #,Word,POS,Tag rows", ("recast",)),
    "uds-json": ('UDS 2.0 graphs {"metadata", "data": {name: graph}} with factuality annotations',
                 ("recast",)),
    "factuality-jsonl": ('one JSON object per line: "sentence"|"tokens", "predicate_index", "value"', ("recast",)),
    "sentiment-uci": ("UCI sentiment labelled sentences: text<TAB>0|1; item from the file name "
                      "(amazon=product, imdb=movie, yelp=restaurant)", ("recast",)),
    "sentiment-csv": ("text,label[,item] csv rows (header line optional)",
                      ("recast",)),
    "nli-jsonl": ('MNLI/SNLI/ANLI JSON lines: "sentence1"|"premise"|"context", "sentence2"|"hypothesis", "gold_label"|"label"',
                  ("nli-dialogue",)),
    "dnc-json": ('a Diverse NLI Collection data file: JSON array of {"context", "hypothesis", "label", ...}',
                 ("recast",)),
    "documents": ("documents-jsonl or documents-text, told apart by the first line", ("claims", "document-arcs")),
    "documents-jsonl": ('FactCC {"id","text"}, CNN/DM {"article","highlights"}, XSum {"document","summary"}, or labelled '
                        '{"text"|"document","claim","label"} per line', ("claims", "document-arcs")),
    "documents-text": ("plain text, one document per blank-line-separated block", ("claims", "document-arcs")),
    "entailgen-dataset": ("a finished entailgen dataset: a folder with manifest.json (claims, dae, recast rows as "
                          "pairs)", ("nli-dialogue",)),
}


def formats_text() -> str:
    """One line per format: name, the pipelines that take it, its layout."""
    width = max(map(len, LAYOUTS))
    lines = [f"{'FORMAT':<{width}}  {'PIPELINES':<26}  LAYOUT"]
    lines += [f"{name:<{width}}  {','.join(EVERY_FORMAT + pipelines):<26}  {layout}"
              for name, (layout, pipelines) in sorted(LAYOUTS.items())]
    lines.append("A file's format is detected from its name and first line; --input-format FORMAT sets it.")
    return "\n".join(lines)
