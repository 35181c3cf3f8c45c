"""FRANK (Pagnoni et al. 2021) as a SummaC benchmark set: its human labels, val and test cuts, in the layout
`entailgen evaluate --benchmark` and bench/benchmark.py read (`<set>.json`: id -> {document, claim, label, cut, ...}).

Data (never committed: news articles): a FRANK repository checkout's `data/` folder (github.com/artidoro/frank).
Summaries and articles come from `benchmark_data.json`, or where a copy lacks it, from the per-article files of its
earlier commits (`data/articles-w*-json/<hash>.json`: the article and each model's summary under the model's name).
Labels as SummaC's FRANK loader makes them: consistent only when no summary sentence has an error, which is
`Factuality == 1.0` in `human_annotations.json` (the share of a summary's sentences without one); the cut is the
annotation's `split` (FRANK's validation / test split files).

Usage: python bench/frank.py FRANK_DATA_DIR OUT.json   (then: bench/benchmark.py --summac DIR with OUT as DIR/frank.json)
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import host  # bench/host.py, beside this script

CUTS = {"valid": "val", "test": "test"}


def summaries(data: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """(hash, model_name) -> (article, summary), from benchmark_data.json or the per-article files."""
    if (data / "benchmark_data.json").is_file():
        return {(d["hash"], d["model_name"]): (d["article"], d["summary"])
                for d in json.loads((data / "benchmark_data.json").read_text())}
    out = {}
    for path in sorted(data.glob("articles-w*-json/*.json")):
        article = json.loads(path.read_text())
        for model in article.get("model_names", []):
            name = model.removesuffix("_lines")
            if isinstance(article.get(name), str):
                out[(article["hash"], name)] = (article["article"], article[name])
    return out


def frank_rows(data: Path) -> dict[str, dict]:
    """Every annotated (article, summary) of FRANK as a benchmark row; an annotation without its texts is an error."""
    texts, rows = summaries(data), {}
    for a in json.loads((data / "human_annotations.json").read_text()):
        key = (a["hash"], a["model_name"])
        if key not in texts:
            raise SystemExit(f"frank: no article or summary for {key} in {data}")
        document, claim = texts[key]
        rows[f"{a['hash']}-{a['model_name']}"] = {
            "document": document, "claim": claim, "label": int(float(a["Factuality"]) == 1.0),
            "cut": CUTS[a["split"]], "dataset": "frank", "model_name": a["model_name"], "origin": a["dataset"]}
    return rows


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.splitlines()[-1], file=sys.stderr)
        return 2
    host.write_benchmark_set("frank", frank_rows(Path(argv[0])), argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
