"""The dataset card (README.md, Hugging Face style): what the data is, how it was made, its numbers and its limits."""
from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import yaml

from entailgen.schemas.arrow import arrow_schema
from entailgen.schemas.records import RECORD_TYPES
from entailgen.transforms.audit import AUDIT_EXPLANATION
from entailgen.transforms.report.stats import label_totals

CARD = "README.md"
DEAD_LETTERS = "dead_letters"
# Licences of the embedded samples and of corpora whose licence is settled; any other source is 'unknown'.
SOURCE_LICENCES = {
    "text.txt": "apache-2.0",
    "paraphrase.tsv": "apache-2.0",
    "ner.conll": "apache-2.0",
    "ner_gmb.csv": "apache-2.0",
    "sentiment_amazon.txt": "apache-2.0",
    "sentiment_imdb.txt": "apache-2.0",
    "sentiment_yelp.txt": "apache-2.0",
    "nli.jsonl": "apache-2.0",
    "uds_factuality.json": "cc-by-sa-4.0",  # UDS 2.0 annotations over UD-EWT text
}
SOURCE_PATTERNS = (("uds", "cc-by-sa-4.0"), ("ewt", "cc-by-sa-4.0"), ("snli", "cc-by-sa-4.0"), ("anli", "cc-by-nc-4.0"))
SIZE_CATEGORIES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
                   (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B"))
HF_DTYPES = {"string": "string", "int64": "int64", "double": "float64", "bool": "bool"}
TASKS = {"ArcExample": ["token-classification", "text-classification"], "RtePair": ["text-classification"],
         "ParsedSentence": ["token-classification"]}
TASK_IDS = {"RtePair": ["natural-language-inference"], "ArcExample": ["natural-language-inference"]}

OPTION_NOTES = {
    "generator": "the model that wrote the candidate hypotheses",
    "k": "beam size: outputs per input, of which the bottom ones become negatives",
    "num_beams": "beam size: outputs per input, of which the bottom ones become negatives",
    "augmentations": "Goyal & Durrett 2020 §5.3 augmentations added to the arc data",
    "phrases": "dialogue phrases prepended to hypotheses (Steen et al. 2023, Table 6)",
}
# Stats keys the card explains, found by substrings of a stats key or of its members' keys; each note shown once.
STAT_NOTES = (
    ("arc_label", "Arc labels over all hypotheses (1 entailed, 0 not entailed, null unlabelled). The DAE paper's set "
                  "is about 70:30 entailed:not-entailed (Goyal & Durrett 2020)."),
    ("lexical", "Lexical-match baseline on the arc labels: an arc is called entailed when it occurs in the premise's "
                "parse. DAE Table 2: majority class 72.7, lexical match 74.2 accuracy; far higher here means the "
                "labels are guessable from word overlap."),
    ("hypothesis_only", "Hypothesis-only audit (Poliak 2020, ch. 5): a classifier that never sees the premise. "
                        "Accuracy well above the majority class means the hypotheses alone give the label away."),
    ("audit", AUDIT_EXPLANATION),
    ("majority", "Majority-class baseline: the accuracy of always answering the most frequent label."),
)
NOTE_ALIASES = {"entailed_arc": "arc_label", "labelled_arcs": "arc_label"}  # the dae family's stats members
CITATIONS = (
    "Tanya Goyal and Greg Durrett. 2020. Evaluating Factuality in Generation with Dependency-level Entailment. "
    "Findings of EMNLP 2020.",
    "Adam Poliak. 2020. PhD thesis, Johns Hopkins University: ch. 3 (recasting, the Diverse NLI Collection) and "
    "ch. 5 (hypothesis-only baselines).",
    "Julius Steen, Juri Opitz, Anette Frank and Katja Markert. 2023. With a Little Push, NLI Models can Robustly "
    "and Efficiently Predict Faithfulness. ACL 2023.",
)
LIMITS = {
    "dae": (
        "Bottom-of-beam labels are noisy: an arc of a low-ranked output that is neither in the input's nor in the "
        "gold paraphrase's parse is labelled not entailed even when it is a fair rewording; arcs found only in the "
        "top-1 output are left unlabelled (null) for that reason. Treat 0 as 'probably not entailed'.",
        "Labels are per dependency arc; function relations (punct, det, case, aux, auxpass, dep, cop, mark) carry "
        "none, and parser errors become label errors.",
    ),
    "recast": (
        "Hypotheses come from a few templates (\"X is a Y\", \"The E happened\", \"N liked the I\"), so the template "
        "and words like 'not' give away the label without the premise: read the hypothesis-only audit first.",
        "Not-entailed NER hypotheses take a tag drawn from the phrase's prior tag distribution; for ambiguous "
        "phrases that tag can be true.",
    ),
    "nli-dialogue": (
        "A dialogue phrase is prepended with the original label kept; hedging phrases can in fact weaken what the "
        "hypothesis claims (Steen et al. 2023, §2.1).",
    ),
}
COMMON_LIMITS = (
    "Dependency parses come from a small statistical parser (spaCy en_core_web_sm class); arcs inherit its errors.",
    "Splits are assigned by a hash of the source context, so related examples stay together; they are not "
    "stratified by label.",
)
SAMPLE_LIMIT = ("Built from the embedded sample corpora: a few dozen lines for trying the pipeline. The numbers on "
                "this card say nothing about a real corpus.")


def size_category(rows: int) -> str:
    """Hugging Face size category of a row count."""
    return next((name for limit, name in SIZE_CATEGORIES if rows < limit), "n>1B")


def source_licence(name: str) -> str:
    """Licence id of an input by file name: the embedded samples and known corpora; 'unknown' otherwise."""
    if name in SOURCE_LICENCES:
        return SOURCE_LICENCES[name]
    lowered = name.lower()
    return next((licence for pattern, licence in SOURCE_PATTERNS if pattern in lowered), "unknown")


def hf_feature(name: str, dtype: pa.DataType) -> dict:
    """One field as the Hugging Face card's dataset_info.features entry (the same YAML `datasets` writes)."""
    if pa.types.is_list(dtype):
        inner = dtype.value_type
        if pa.types.is_struct(inner):
            return {"name": name, "list": [hf_feature(f.name, f.type) for f in inner]}
        return {"name": name, "list": HF_DTYPES[str(inner)]}
    if pa.types.is_struct(dtype):
        return {"name": name, "struct": [hf_feature(f.name, f.type) for f in dtype]}
    return {"name": name, "dtype": HF_DTYPES[str(dtype)]}


def hf_features(record_type: str) -> list[dict]:
    """The card's features of a record type, derived from its Arrow schema so card and shards cannot disagree."""
    return [hf_feature(f.name, f.type) for f in arrow_schema(RECORD_TYPES[record_type])]


def split_names(manifest: dict) -> list[str]:
    """The dataset's splits in the order the run named them (train, dev, test), then any others."""
    named = [name for name, _ in manifest["config"]["splits"]["ratios"] if name in manifest["splits"]]
    return named + sorted(set(manifest["splits"]) - set(named))


def card_header(manifest: dict) -> dict:
    """The YAML front matter: licences, size, configs with a data_files glob per split, features and split sizes."""
    fmt, splits = manifest["config"]["format"], {name: manifest["splits"][name] for name in split_names(manifest)}
    licences = sorted({source_licence(i["name"]) for i in manifest["inputs"]})
    known = [lic for lic in licences if lic != "unknown"]
    total = manifest["counts"]["total"]["written"]
    split_bytes = {name: sum(s["bytes"] for s in manifest["shards"] if s["split"] == name) for name in splits}
    dead = manifest["dead_letters"]
    return {
        "pretty_name": f"entailgen {manifest['pipeline']}",
        "language": ["en"],
        "license": (known[0] if len(known) == 1 else known or "unknown") if "unknown" not in licences else "other",
        "license_details": "; ".join(f"{i['name']}: {source_licence(i['name'])}" for i in manifest["inputs"]),
        "size_categories": [size_category(total)],
        "task_categories": TASKS[manifest["record_type"]],
        **({"task_ids": TASK_IDS[manifest["record_type"]]} if manifest["record_type"] in TASK_IDS else {}),
        "tags": ["entailgen", "synthetic", manifest["pipeline"], "textual-entailment"],
        "configs": [
            {"config_name": "default", "default": True,
             "data_files": [{"split": name, "path": f"{name}/{name}-*.{fmt}"} for name in splits]},
            {"config_name": DEAD_LETTERS, "data_files": [{"split": "train", "path": dead["path"]}]},
        ],
        "dataset_info": [
            {"config_name": "default", "features": hf_features(manifest["record_type"]),
             "splits": [{"name": name, "num_bytes": split_bytes[name], "num_examples": entry["rows"]}
                        for name, entry in splits.items()]},
            {"config_name": DEAD_LETTERS, "features": hf_features("DeadLetter"),
             "splits": [{"name": "train", "num_bytes": dead["bytes"], "num_examples": dead["rows"]}]},
        ],
    }


def md_table(header: list[str], rows: list[list[Any]]) -> str:
    """A Markdown table (| escaped in cells)."""
    cell = lambda v: str(v).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def plural(n: int, noun: str) -> str:
    """'1 row', '2 rows'."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def share(n: int, total: int) -> str:
    """n as a percentage of total, one decimal."""
    return f"{100 * n / total:.1f}%" if total else "-"


def _cell(value: Any) -> str:
    """A stats value in one table cell: small dicts and lists inline."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {_cell(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_cell(v) for v in value)
    return "" if value is None else str(value)


SCALARS = (int, float, str, bool, type(None))


def render_stat(value: Any) -> str:
    """Any JSON stats value as Markdown: tables for flat and two-level dicts, a table per part of a mixed dict."""
    if isinstance(value, SCALARS):
        return f"**{value}**"
    if not isinstance(value, dict) or not value:
        return "```json\n" + json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n```"
    flat = {k: v for k, v in value.items() if isinstance(v, SCALARS)}
    if len(flat) == len(value):
        counts = all(isinstance(v, int) and not isinstance(v, bool) for v in value.values())
        total = sum(value.values()) if counts else 0
        rows = [[k, v, share(v, total)] if counts else [k, _cell(v)] for k, v in value.items()]
        return md_table(["key", "value"] + (["share"] if counts else []), rows)
    if all(isinstance(v, dict) for v in value.values()):
        columns = list(dict.fromkeys(c for v in value.values() for c in v))
        return md_table([""] + columns, [[k] + [_cell(v.get(c)) for c in columns] for k, v in value.items()])
    parts = [render_stat(flat)] if flat else []
    parts += [f"**{k}**\n\n{render_stat(v)}" for k, v in value.items() if k not in flat]
    return "\n\n".join(parts)


def stat_notes(key: str, value: Any) -> list[str]:
    """The card's explanations for a stats entry: of its key and of its members' keys (lexical_match_accuracy...)."""
    keys = [key] + (list(value) if isinstance(value, dict) else [])
    keys += [NOTE_ALIASES[alias] for alias in NOTE_ALIASES if any(alias in k.lower() for k in keys)]
    found = [pattern for pattern, _ in STAT_NOTES if any(pattern in k.lower() for k in keys)]
    if "audit" in found:  # the audit explanation already says what its majority and hypothesis-only numbers mean
        found = [p for p in found if p not in ("majority", "hypothesis_only")]
    return [note for pattern, note in STAT_NOTES if pattern in found]


def _how_made(manifest: dict) -> list[str]:
    config = manifest["config"]
    splits = ", ".join(f"{name} {ratio:g}" for name, ratio in config["splits"]["ratios"])
    parser = config["parser"]
    lines = [f"- **Pipeline**: `{manifest['pipeline']}`",
             f"- **Record type**: `{manifest['record_type']}` (`entailgen schema {manifest['record_type']}` prints "
             "its JSON Schema)",
             f"- **entailgen version**: {manifest['entailgen_version']}",
             f"- **Parser**: {parser.get('backend')}" + (f" ({parser['model']})" if parser.get("model") else ""),
             f"- **Seed**: {config['seed']} (mixed with each record id for every random choice)",
             f"- **Splits**: {splits}, by a hash of the source context",
             f"- **Shards**: {config['format']}, {config['num_shards']} per split"]
    for key, value in sorted((config.get("family") or {}).items()):
        note = OPTION_NOTES.get(key)
        lines.append(f"- **{key}**: `{json.dumps(value, ensure_ascii=False)}`" + (f" ({note})" if note else ""))
    return lines


PER_SOURCE = (("read", "units read"), ("records_by_source", "rows written"), ("dead_by_source", "dead letters"),
              ("skipped_by_source", "skipped"))
COUNT_TITLES = {"dead_by_stage": "Dead letters by stage and error", "skipped_by_reason": "Inputs skipped on purpose, by reason"}


def _counts(manifest: dict, stats: dict) -> list[str]:
    counts, total = manifest["counts"], manifest["counts"]["total"]
    per_source = [(key, title) for key, title in PER_SOURCE if key in counts]
    out = [f"{plural(total['read'], 'input unit')} read, {plural(total['written'], 'row')} written, "
           f"{plural(total['dead_letters'], 'dead letter')} (`{manifest['dead_letters']['path']}`).", "",
           md_table(["split", "rows", "shards"], [[n, manifest["splits"][n]["rows"], manifest["splits"][n]["shards"]]
                                               for n in split_names(manifest)]),
           "", md_table(["input"] + [title for _, title in per_source] + ["licence", "sha256"],
                        [[i["name"]] + [counts[key].get(i["name"], 0) for key, _ in per_source]
                         + [source_licence(i["name"]), i["sha256"][:12]] for i in manifest["inputs"]])]
    handled = {key for key, _ in PER_SOURCE} | {"written", "total"}
    for key, table in counts.items():
        if key not in handled and table:
            out += ["", COUNT_TITLES.get(key, key.replace("_", " ").capitalize()) + ":", "",
                    md_table(["key", "count"], [[k, v] for k, v in table.items()])]
    facet = "split" if "split" in stats["labels"] else None
    totals = label_totals(stats, facet) if facet else {}
    if totals:
        what = "Arc labels" if manifest["record_type"] == "ArcExample" else "Labels"
        n = sum(totals.values())
        out += ["", f"{what} over all rows:", "", md_table(["label", "count", "share"],
                                                           [[k, v, share(v, n)] for k, v in totals.items()])]
    return out


def _stats(manifest: dict) -> list[str]:
    out = []
    for key, value in manifest.get("stats", {}).items():
        notes = [line for note in stat_notes(key, value) for line in (note, "")]
        out += [f"### {key}", "", *notes, render_stat(value), ""]
    return out or ["The pipeline recorded no statistics.", ""]


def _limits(manifest: dict, sample_digests: frozenset) -> list[str]:
    limits = list(LIMITS.get(manifest["pipeline"], ())) + list(COMMON_LIMITS)
    if any(i["sha256"] in sample_digests for i in manifest["inputs"]):
        limits.append(SAMPLE_LIMIT)
    if any(source_licence(i["name"]) == "unknown" for i in manifest["inputs"]):
        limits.append("Some inputs have no known licence: check their terms before sharing this dataset.")
    return [f"- {line}" for line in limits]


def render_card(manifest: dict, stats: dict, description: str = "", sample_digests: frozenset = frozenset()) -> str:
    """README.md of a dataset directory: YAML front matter, then how it was made, counts, statistics and limits.

    sample_digests: sha256 of the embedded sample files; inputs with these digests get the 'tiny sample' warning.
    """
    header = yaml.safe_dump(card_header(manifest), sort_keys=False, allow_unicode=True, width=1000)
    lines = ["---", header.rstrip("\n"), "---", "", f"# entailgen `{manifest['pipeline']}` dataset", "",
             description + "." if description else "", "",
             "Synthetic textual-entailment training data built by entailgen. Open `report.html` beside this file "
             "for plots and drawn examples; `manifest.json` lists every shard with its checksum.", "",
             "## How it was made", "", *_how_made(manifest), "",
             "## Counts", "", *_counts(manifest, stats), "",
             "## Statistics", "", *_stats(manifest),
             "## Known limits", "", *_limits(manifest, sample_digests), "",
             "## Files", "",
             f"- `{{split}}/{{split}}-NNNNN-of-NNNNN.{manifest['config']['format']}`: the rows, "
             "sharded by a hash of the id and sorted",
             f"- `{manifest['dead_letters']['path']}`: every input or stage that failed, with its reason",
             "- `manifest.json`: shards, checksums, counts, config (written last: without it the dataset is incomplete)",
             "- `report.html`: this dataset's plots and examples (static, opens offline)", "",
             "## Sources and citations", "", *[f"- {c}" for c in CITATIONS], ""]
    return "\n".join(lines)
