"""The card's YAML front matter, as the Hugging Face Hub reads it: licences, size, configs with each split's files,
features and split sizes."""
from __future__ import annotations

import pyarrow as pa
import yaml

from entailgen.dataset.report.card.facts import HF_DTYPES, CardFacts, split_names
from entailgen.schemas.arrow import arrow_schema
from entailgen.schemas.records import RECORD_TYPES

DEAD_LETTERS = "dead_letters"
# Licences of the embedded samples (samples/README.md): written for entailgen (CC0) but for the UDS/EWT excerpt.
# Applied by content (sha256), never by name alone: a real UCI or ANLI file may carry a sample's name.
SAMPLE_LICENCES = {
    "amazon_cells_labelled.txt": "cc0-1.0", "anli.jsonl": "cc0-1.0", "conll2003.txt": "cc0-1.0",
    "factuality.jsonl": "cc0-1.0", "gmb.csv": "cc0-1.0", "imdb_labelled.txt": "cc0-1.0", "nli.jsonl": "cc0-1.0",
    "paraphrase.jsonl": "cc0-1.0", "paraphrase.tsv": "cc0-1.0", "sentiment.csv": "cc0-1.0", "text.txt": "cc0-1.0",
    "uds_factuality.json": "cc-by-sa-4.0", "yelp_labelled.txt": "cc0-1.0", "relation.txt": "cc0-1.0",
    "recast_kg_relations_data.json": "cc0-1.0", "kb.tsv": "cc0-1.0", "documents.jsonl": "cc0-1.0",
}
# Corpora whose licence is settled, by a substring of the file name; any other input is 'unknown'.
SOURCE_PATTERNS = (("uds", "cc-by-sa-4.0"), ("ewt", "cc-by-sa-4.0"), ("snli", "cc-by-sa-4.0"), ("anli", "cc-by-nc-4.0"))
SIZE_CATEGORIES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
                   (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B"))


TASKS = {"ArcExample": ["token-classification", "text-classification"], "RtePair": ["text-classification"],
         "ParsedSentence": ["token-classification"], "ClaimExample": ["text-classification"],
         "ScoredParaphrase": ["sentence-similarity"]}
TASK_IDS = {"RtePair": ["natural-language-inference"], "ArcExample": ["natural-language-inference"],
            "ClaimExample": ["natural-language-inference"]}


def size_category(rows: int) -> str:
    """Hugging Face size category of a row count."""
    return next((name for limit, name in SIZE_CATEGORIES if rows < limit), "n>1B")


def source_licence(name: str, sample: bool = False) -> str:
    """Licence id of an input: an embedded sample's by name, else a known corpus's by name pattern, else 'unknown'."""
    if sample:
        return SAMPLE_LICENCES.get(name, "unknown")
    lowered = name.lower()
    return next((licence for pattern, licence in SOURCE_PATTERNS if pattern in lowered), "unknown")


def input_licences(manifest: dict, sample_digests: frozenset) -> dict[str, str]:
    """Input name -> licence id, in manifest order; an input whose sha256 is an embedded sample's is that sample."""
    return {i["name"]: source_licence(i["name"], i["sha256"] in sample_digests) for i in manifest["inputs"]}


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


def data_files(manifest: dict, split: str) -> str:
    """A split's files for the card: a glob (only non-empty shards are written, so `datasets` reads them all)."""
    return f"{split}/{split}-*.{manifest['config']['format']}"


def _config(name: str, record_type: str, files: dict[str, object], splits: dict[str, tuple[int, int]],
            default: bool = False) -> tuple[dict, dict]:
    """(configs entry, dataset_info entry) of one card config; splits: name -> (rows, bytes of its files)."""
    return ({"config_name": name, **({"default": True} if default else {}),
             "data_files": [{"split": s, "path": f} for s, f in files.items()]},
            {"config_name": name, "features": hf_features(record_type),
             "splits": [{"name": s, "num_bytes": size, "num_examples": n} for s, (n, size) in splits.items()],
             "download_size": sum(size for _, size in splits.values())})


def card_header(manifest: dict, licences: dict[str, str]) -> dict:
    """The YAML front matter: licences, size, configs with data_files per split, features and split sizes.

    A split without rows has no shard and so no config entry; an empty dead-letter file is left out (`datasets` cannot
    load an empty Parquet file).
    """
    distinct = sorted(set(licences.values()))
    known = [lic for lic in distinct if lic != "unknown"]
    splits = split_names(manifest)
    configs = []
    if splits:
        sizes = {s: (manifest["splits"][s]["rows"], sum(x["bytes"] for x in manifest["shards"] if x["split"] == s))
                 for s in splits}
        configs.append(_config("default", manifest["record_type"], {s: data_files(manifest, s) for s in splits}, sizes,
                               default=True))
    dead = manifest["dead_letters"]
    if dead["rows"]:
        configs.append(_config(DEAD_LETTERS, "DeadLetter", {"train": dead["path"]},
                               {"train": (dead["rows"], dead["bytes"])}))
    return {
        "pretty_name": f"entailgen {manifest['pipeline']}",
        "language": ["en"],
        "license": (known[0] if len(known) == 1 else known or "unknown") if "unknown" not in distinct else "other",
        "license_details": "; ".join(f"{name}: {licence}" for name, licence in licences.items()),
        "size_categories": [size_category(manifest["counts"]["total"]["written"])],
        "task_categories": TASKS[manifest["record_type"]],
        **({"task_ids": TASK_IDS[manifest["record_type"]]} if manifest["record_type"] in TASK_IDS else {}),
        "tags": ["entailgen", "synthetic", manifest["pipeline"], "textual-entailment"],
        "configs": [c for c, _ in configs],
        "dataset_info": [info for _, info in configs],
    }


def front_matter(facts: CardFacts) -> str:
    """The front matter's YAML text (between the card's leading '---' lines)."""
    header = yaml.safe_dump(card_header(facts.manifest, facts.licences), sort_keys=False, allow_unicode=True,
                            width=1000)
    return header.rstrip("\n")
