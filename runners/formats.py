"""`entailgen formats`: each input format's layout and the pipelines that take it, without importing Apache Beam."""
from __future__ import annotations

# format -> (layout of one unit, pipelines that use its records). transforms.io.FORMATS holds the readers; a test keeps
# the two in step. `parse` takes every format (it parses the texts of any record); recast takes text with --phenomena relation.
LAYOUTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "text": ("one sentence per line", ("parse", "recast")),
    "text-jsonl": ('one JSON object per line with a "text" field', ("parse", "recast")),
    "paraphrase-tsv": ("x<TAB>h*[<TAB>score] per line (ParaNMT layout)", ("parse", "dae")),
    "paraphrase-jsonl": ('one JSON object per line: "text"|"source" (x), "gold"|"paraphrase" (h*), "id"?', ("parse", "dae")),
    "conll2003": ("CoNLL-2003: token POS chunk NER per line, blank line between sentences", ("parse", "recast")),
    "gmb": ("GMB / Kaggle NER csv: Sentence #,Word,POS,Tag rows", ("parse", "recast")),
    "uds-json": ('UDS 2.0 graphs {"metadata", "data": {name: graph}} with factuality annotations',
                 ("parse", "recast")),
    "factuality-jsonl": ('one JSON object per line: "sentence"|"tokens", "predicate_index", "value"', ("parse", "recast")),
    "sentiment-uci": ("UCI sentiment labelled sentences: text<TAB>0|1; item from the file name "
                      "(amazon=product, imdb=movie, yelp=restaurant)", ("parse", "recast")),
    "sentiment-csv": ("text,label[,item] csv rows (header line optional)",
                      ("parse", "recast")),
    "nli-jsonl": ('MNLI/SNLI/ANLI JSON lines: "sentence1"|"premise"|"context", "sentence2"|"hypothesis", "gold_label"|"label"',
                  ("parse", "nli-dialogue")),
    "dnc-json": ('a Diverse NLI Collection data file: JSON array of {"context", "hypothesis", "label", ...}',
                 ("parse", "recast")),
    "documents": ("documents-jsonl or documents-text, told apart by the first line", ("parse", "claims")),
    "documents-jsonl": ('FactCC {"id","text"}, CNN/DM {"article","highlights"}, XSum {"document","summary"}, or labelled '
                        '{"text"|"document","claim","label"} per line', ("parse", "claims")),
    "documents-text": ("plain text, one document per blank-line-separated block", ("parse", "claims")),
}


def formats_text() -> str:
    """One line per format: name, the pipelines that take it, its layout."""
    width = max(map(len, LAYOUTS))
    lines = [f"{'FORMAT':<{width}}  {'PIPELINES':<18}  LAYOUT"]
    lines += [f"{name:<{width}}  {','.join(pipelines):<18}  {layout}"
              for name, (layout, pipelines) in sorted(LAYOUTS.items())]
    lines.append("A file's format is detected from its name and first line; --input-format FORMAT sets it.")
    return "\n".join(lines)
