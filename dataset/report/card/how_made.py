"""The card's "How it was made": the run's settings, and each family option that meant something for it."""
from __future__ import annotations

import json

from entailgen.dataset.report.card.facts import CardFacts, has_arcs

# What a family option means, for the card's "How it was made" (options without a note are listed as they are).
OPTION_NOTES = {
    "generator": "what wrote the candidate hypotheses",
    "k": "beam size: candidates per input",
    "bottom": "bottom-of-beam candidates labelled, h_k down to h_k-bottom+1 (Goyal & Durrett 2020 §4)",
    "level": "arc labels, or the paper's sentence-level variant",
    "encoder": "what ranks round-trip candidates into a beam order",
    "augment": "Goyal & Durrett 2020 §5.3 augmentations added to the arc data",
    "phenomena": "which annotations were recast (Poliak 2020 ch. 3)",
    "phrases": "dialogue phrases prepended to hypotheses (Steen et al. 2023, Table 6)",
    "granularity": "how the premise document is split into blocks (SummaC, Laban et al. 2022 §3)",
    "transformations": "FactCC's transformations applied to the sampled sentences (Kryściński et al. 2020 §3.2), and "
                       "entailgen's where named: compression (modifiers dropped, CORRECT), rewording (an entailed "
                       "rewrite in words the document lacks, CORRECT), role_swap (two of the claim's names exchanged, "
                       "INCORRECT), extrinsic (the sentence against a document that says less, INCORRECT)",
    "pairs": "documents: one row per claim; blocks: also one (block, claim) row per premise block",
    "rules": "the document-arcs rules that ran, of evidence_removal, recombination, restatement, "
             "extrinsic_attachment, rewording",
    "per_document": "hypotheses each rule makes per document, its sentences tried in a seeded order",
    "min_similarity": "round trips less similar to x are garbage: never h*",
    "max_similarity": "round trips more similar to x are near copies: never h*",
}
# When a family option means something for this run (an option not named here applies whenever it is set).
def _model_generates(family: dict) -> bool:
    """Whether a model wrote the hypotheses: dae / paraphrase --generator hf or ct2, claims --backtranslator hf."""
    return family.get("generator") in ("hf", "ct2") or family.get("backtranslator") == "hf"


OPTION_APPLIES = {
    "model": _model_generates,
    "max_new_tokens": _model_generates,
    "batch_tokens": lambda family: family.get("generator") == "hf",
    "bucket_size": lambda family: family.get("generator") in ("hf", "ct2"),
    "compute_type": lambda family: family.get("generator") == "ct2",
    "candidates": lambda family: family.get("generator") == "candidates",
    # ranks apertium's round trips; the paraphrase family also rescores a model's beams with it
    "encoder": lambda family: family.get("generator") == "apertium" or "min_similarity" in family,
    "factuality_threshold": lambda family: "factuality" in family.get("phenomena", ()),
    "seed": lambda family: False,  # the run's --seed is used (listed above); a family's own default is not
}


def applied_options(family: dict) -> dict:
    """The family options that mean something for this run: set (not null or empty) and used by its choices."""
    return {key: value for key, value in sorted(family.items())
            if value not in (None, [], "") and OPTION_APPLIES.get(key, lambda _: True)(family)}


def section(facts: CardFacts) -> list[str]:
    """How it was made: pipeline, record type, version, parser, seed, splits, shards and the options that applied."""
    manifest = facts.manifest
    config = manifest["config"]
    splits = ", ".join(f"{name} {ratio:g}" for name, ratio in config["splits"]["ratios"])
    parser = config["parser"]
    lines = [f"- **Pipeline**: `{manifest['pipeline']}`",
             f"- **Record type**: `{manifest['record_type']}` (`entailgen schema {manifest['record_type']}` prints "
             "its JSON Schema)",
             f"- **entailgen version**: {manifest['entailgen_version']}",
             *([f"- **Parser**: {parser.get('backend')}" + (f" ({parser['model']})" if parser.get("model") else "")]
               if has_arcs(manifest["record_type"]) else []),
             f"- **Seed**: {config['seed']} (mixed with each record id for every random choice)",
             f"- **Splits**: {splits}, by a hash of the source context",
             f"- **Shards**: {config['format']}, {config['num_shards']} per split"]
    for key, value in applied_options(config.get("family") or {}).items():
        note = OPTION_NOTES.get(key)
        lines.append(f"- **{key}**: `{json.dumps(value, ensure_ascii=False)}`" + (f" ({note})" if note else ""))
    return lines + [""]
