"""The dataset card (README.md, Hugging Face style): what the data is, how it was made, its numbers and its limits."""
from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import yaml

from entailgen.dataset.report.plots import clip
from entailgen.dataset.report.stats import label_totals
from entailgen.dataset.report.tables import share, stat_blocks, stat_notes
from entailgen.schemas.arrow import arrow_schema
from entailgen.schemas.records import AUGMENTED_KINDS, DOCUMENT_KINDS, RECORD_TYPES

CARD = "README.md"
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
HF_DTYPES = {"string": "string", "int64": "int64", "double": "float64", "bool": "bool"}
TASKS = {"ArcExample": ["token-classification", "text-classification"], "RtePair": ["text-classification"],
         "ParsedSentence": ["token-classification"], "ClaimExample": ["text-classification"],
         "ScoredParaphrase": ["sentence-similarity"]}
TASK_IDS = {"RtePair": ["natural-language-inference"], "ArcExample": ["natural-language-inference"],
            "ClaimExample": ["natural-language-inference"]}

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
                       "entailgen's where named: compression (modifiers dropped, CORRECT), extrinsic (the sentence "
                       "against a document that says less, INCORRECT)",
    "pairs": "documents: one row per claim; blocks: also one (block, claim) row per premise block",
    "rules": "the document-arcs rules that ran (issue 64): evidence_removal, recombination, restatement, "
             "extrinsic_attachment",
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
# What each field of a record type holds, by its path in the Arrow schema (arcs[].entailed is a field of each arc);
# FIELD_NOTES_BY_TYPE says it where one name means different things in different record types.
FIELD_NOTES = {
    "id": "content hash of the row: the same row always has the same id",
    "premise": "the text the hypothesis is judged against",
    "hypothesis": "the text whose entailment by the premise is labelled",
    "source": "name of the input file the row comes from",
    "source_id": "the input unit it comes from, as file:line (or the record's own id in the input)",
    "split": "train / dev / test, by a hash of the source context (one context never spans two splits)",
    "kind": "how the row was made",
    "head": "token index of the arc's head (governor)",
    "child": "token index of the arc's dependent",
    "rel": "dependency relation; a collapsed preposition is part of it (prep:of, nmod:about)",
    "head_lemma": "lemma of the head, lower-cased: with child_lemma and rel, the arc's identity across sentences",
    "child_lemma": "lemma of the dependent, lower-cased",
}
FIELD_NOTES_BY_TYPE = {
    "ArcExample": {
        "premise": "x, the input sentence (x' with words deleted, for kind hallucination; the other sentence, for "
                   "kind overlap; for the document-arcs kinds, a SummaC block of the hypothesis's own document: "
                   "two sentences, or for evidence_removal the sentences around the claim with its evidence taken "
                   "out)",
        "hypothesis": "the generated or gold sentence h whose arcs are labelled",
        "hypothesis_tokens": "the hypothesis's tokens; arc head and child index into this list",
        "arcs": "the hypothesis's content arcs (function relations such as det, punct, case, aux left out)",
        "arcs[].entailed": "1 entailed by the premise, 0 not entailed, null unlabelled (found only in the top-1 "
                           "output, so the paper leaves it out of the loss; for the document-arcs kinds, where the "
                           "rule cannot be sure: a pronoun, an arc a re-parse moved, two words another premise "
                           "sentence relates in other words)",
        "arcs[].in_premise": "whether the arc (head lemma, child lemma, relation) is also an arc of the premise: the "
                             "lexical-match baseline's prediction (Table 2); null where the premise parse is not at "
                             "hand (overlap)",
        "kind": "gold (h*), top1 (h1), bottom (bottom of the beam), identity (x, x), the augmentation: "
                + ", ".join(AUGMENTED_KINDS) + "; or the document-arcs rule: " + ", ".join(DOCUMENT_KINDS),
        "generator": "what wrote the hypothesis (apertium round trip + ranker, hf model id, candidates file, augment; "
                     "document_arcs:<rule>:<variant> for the document-arcs kinds)",
        "beam_rank": "the hypothesis's rank in the beam, 1 best; null for gold and augmented rows",
        "beam_score": "the generator's score for the hypothesis; null when it has none",
        "label": "sentence-level variant only: 1 entailed, 0 not entailed; null at the arc level",
        "document_id": "for the document-arcs kinds, content hash of the hypothesis's document (it also assigns the "
                       "split: a document given twice is one document); else null",
    },
    "RtePair": {
        "label": "entailed or not-entailed",
        "label3": "entailment / neutral / contradiction when the source has a 3-way label, else null",
        "phenomenon": "what was recast: ner, factuality, sentiment, or nli (an NLI pair)",
        "template": "the hypothesis template that made the pair (dialogue:<category> for a dialogue copy)",
        "kind": "original, or dialogue: a copy with a dialogue phrase prepended (label kept)",
        "phrase": "the dialogue phrase prepended, for kind dialogue; else null",
        "provenance": "relation recast only: JSON with label_made (kb, kb_negative, no_relation, dnc), the KB triple "
                      "and the mention spans [start, end, type] in premise characters; else null",
    },
    "ClaimExample": {
        "document_id": "content hash of the document the claim is checked against (it also assigns the split)",
        "premise": "the whole document, or one block of it for a block row (block_index set)",
        "blocks": "the document split at the run's granularity (SummaC §3), in order",
        "granularity": "document, paragraph, 2sents or sentence: how blocks were cut",
        "claim": "the claim to check against the document",
        "label": "FactCC's label: CORRECT (consistent with the document) or INCORRECT",
        "entailment": "the same label as entailed / not-entailed",
        "transformation": "how the claim was made: sentence_sampling, backtranslation, pronoun_swap, entity_swap, "
                          "number_swap, date_swap, negation, compression, extrinsic, summary, or annotated (a "
                          "labelled set passed through)",
        "source_sentence": "the document sentence the claim came from (extrinsic: as the premise holds it, "
                           "compressed)",
        "backtranslation": "whether the claim is a round-trip translation",
        "noise": "whether tokens outside the changed span were deleted or duplicated (label kept)",
        "claim_span": "[start, end) characters of the changed span in the claim; null when nothing changed",
        "source_span": "[start, end) characters of the changed span in source_sentence",
        "extraction_span": "[start, end) characters of source_sentence in the document",
        "generator": "the back-translator (apertium route or hf model) for back-translated claims; else null",
        "dataset_id": "the id the input gave the document, when it had one",
        "block_index": "for a block row, which block is the premise; null for a document row",
    },
    "ScoredPair": {
        "hypothesis_tokens": "the hypothesis's tokens; arc head and child index into this list",
        "arcs": "the hypothesis's content arcs, each with the model's entailment probability",
        "arcs[].head_word": "the head's word", "arcs[].child_word": "the dependent's word",
        "arcs[].entailed_probability": "the DAE model's probability that the premise entails the arc",
        "score": "the sentence score: a DAE arc model's mean of its arcs' probabilities (Goyal & Durrett 2020 §3); a "
                 "pair model's P(entailed), or P(entailed) - P(contradicted) with --score e-c",
        "probabilities": "a pair model's probability of each of its labels (none for a DAE arc model)",
        "probabilities[].label": "the label (entailed / not-entailed, or the three NLI labels)",
        "probabilities[].probability": "the model's probability of that label",
        "split": "always scored: scoring assigns no split",
    },
    "ScoredDocument": {
        "document": "the document the summary is checked against, as given",
        "summary": "the summary (or claim) checked, as given",
        "blocks": "how many of the document's blocks at the granularity were scored (SummaC §3; a block the model "
                  "cannot score beside a kept sentence, e.g. too long for a DAE arc model, is left out)",
        "summary_sentences": "the summary's sentences that were scored, in order (one with no scorable cell is "
                             "left out)",
        "sentence_scores": "each summary sentence's best block score (the max over blocks), whatever the aggregation",
        "score": "the summary's consistency score, higher = more consistent: the mean over its sentences (zs), or "
                 "the Conv head's probability (conv)",
        "aggregation": "zs (max over blocks, mean over sentences) or conv (the SummaC-Conv head)",
        "granularity": "document, paragraph, 2sents or sentence: how the document was cut into blocks",
        "split": "always scored: scoring assigns no split",
        "words": "score --explain: every summary word as given (whitespace-separated), how unsupported it is",
        "words[].start": "the word's first character's offset in the summary",
        "words[].end": "the offset just past the word's last character in the summary",
        "words[].text": "the word as written in the summary",
        "words[].unsupported": "how unsupported the word is, 0 to 1: 1 - P(entailed) of the DAE arcs it is the child "
                               "of (the largest), else 1 - its sentence's score (docs/scoring.md)",
        "words[].sentence": "the index of the word's sentence in `sentences` (null: in none the parser found)",
        "words[].arcs": "the DAE arcs behind the word's score (none for a pair model)",
        "words[].arcs[].rel": "the arc's relation", "words[].arcs[].head_word": "the head's word",
        "words[].arcs[].child_word": "the dependent's word",
        "words[].arcs[].entailed_probability": "the DAE model's probability that the supporting block entails the arc",
        "sentences": "score --explain: every summary sentence with its score and its supporting block",
        "sentences[].text": "the sentence as the parser split it",
        "sentences[].start": "its first character's offset in the summary (null where it could not be placed)",
        "sentences[].end": "the offset just past its last character in the summary",
        "sentences[].score": "its best block's score (null: it could not be scored, see unscorable)",
        "sentences[].block": "the document block that supports it best (the max over blocks)",
        "sentences[].block_start": "the block's first character's offset in the document",
        "sentences[].block_end": "the offset just past the block's last character in the document",
        "sentences[].unscorable": "why the model could not score it (null when it could)",
    },
    "ScoredParaphrase": {
        "text": "x, the sentence as it was in the corpus",
        "gold": "h*, the round trip of x most similar to it within the similarity band",
        "similarity": "similarity of h* to x (MiniLM cosine, or word overlap with --lexical-ranking)",
        "generator": "the round trip that made h* (Apertium route, or the hf model)",
    },
    "ParsedSentence": {
        "text": "the sentence as parsed",
        "tokens": "its tokens in order",
        "tokens[].text": "the token as written", "tokens[].lemma": "its lemma", "tokens[].pos": "universal POS tag",
        "tokens[].tag": "fine-grained (treebank) POS tag", "tokens[].ner": "entity type, or O",
        "tokens[].head": "index of its head token, -1 for the root", "tokens[].dep": "its basic dependency relation",
        "tokens[].space_after": "whether a space follows it in the text",
        "arcs": "enhanced-style content arcs: prepositions collapsed, conjuncts propagated, function relations left out",
        "parser": "which parser and model made the parse",
        "role": "what the text was in its input (text, source x, gold h*...)",
    },
    "DeadLetter": {
        "id": "content hash of the dead letter",
        "stage": "the stage that could not use the input (read, parse, label, recast_ner...)",
        "error_type": "what went wrong, as a short name (TooLong, MalformedJson...)",
        "message": "what went wrong, in a sentence",
        "raw": "the input as read (truncated), to find and fix it",
    },
}
CITATIONS = (
    "Tanya Goyal and Greg Durrett. 2020. Evaluating Factuality in Generation with Dependency-level Entailment. "
    "Findings of EMNLP 2020.",
    "Adam Poliak. 2020. PhD thesis, Johns Hopkins University: ch. 3 (recasting, the Diverse NLI Collection) and "
    "ch. 5 (hypothesis-only baselines).",
    "Julius Steen, Juri Opitz, Anette Frank and Katja Markert. 2023. With a Little Push, NLI Models can Robustly "
    "and Efficiently Predict Faithfulness. ACL 2023.",
    "Wojciech Kryściński, Bryan McCann, Caiming Xiong and Richard Socher. 2020. Evaluating the Factual Consistency "
    "of Abstractive Text Summarization. EMNLP 2020.",
    "Philippe Laban, Tobias Schnabel, Paul N. Bennett and Marti A. Hearst. 2022. SummaC: Re-Visiting NLI-based "
    "Models for Inconsistency Detection in Summarization. TACL 10.",
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
    "claims": (
        "Block rows (--pairs blocks) keep the document-level label, which is noisy per block: the evidence for a "
        "CORRECT claim sits in one or two blocks, and the other blocks neither entail nor contradict it.",
        "Labels come from FactCC's rules, not from people: a swapped mention can be true by chance (a number repeated "
        "in the document), and noised copies are ungrammatical on purpose. Read the claim-only audit: where one "
        "transformation is guessable from the claim alone (negation's 'not'), a model can cheat.",
    ),
    "document-arcs": (
        "Hypotheses are made by four rules on a document's own sentences (evidence_removal, recombination, "
        "restatement, extrinsic_attachment: the kind column) and labelled arc by arc against a SummaC block of that "
        "document by DAE §4's rule generalised to it: 1 when the block's parse has the arc (head lemma, child lemma, "
        "relation), 0 where the rule makes it unsupported, null where the rule cannot be sure. Lemma keys cannot see "
        "a paraphrase (\"top picks\" against \"good picks\" is 0) nor that an arc the block has belongs to another "
        "event; the share of labels a person judged wrong, per rule, is on docs/families/document-arcs.md.",
        "A hypothesis's own label is not stored (label is null at arc level): read as a pair it is 0 when one arc is "
        "0, else 1 (transforms.views.sentence_label). Recombined and attached sentences can be "
        "ungrammatical ('in Sunday', 'a former book'): the words are the document's, the grammar not always.",
    ),
    "nli-dialogue": (
        "A dialogue phrase is prepended with the original label kept; a hedging phrase ('I think') can weaken what "
        "the hypothesis claims, so the kept label is an approximation.",
    ),
}
# Relation recast (distant supervision): said only on cards of datasets that recast relations.
RELATION_LIMITS = (
    "Relation pairs are labelled by distant supervision (Mintz et al. 2009; Goodrich et al. 2019 §3): an entailed "
    "pair only says the KB holds the triple and both entities occur in the sentence, not that the sentence states "
    "it. This is noisy: Goodrich et al. (Table 6) found many facts the KB marked false to be true by human judgement.",
    "KBs are incomplete: a not-entailed relation pair (kb_negative, no_relation in each row's provenance) is only a "
    "relation the KB does not hold, so some not-entailed labels are wrong.",
)
PARSER_LIMIT = ("Dependency parses come from a statistical parser (see Parser above); arcs and their labels inherit "
                "its errors.")
COMMON_LIMITS = (
    "Splits are assigned by a hash of the source context, so related examples stay together; they are not "
    "stratified by label.",
)
SAMPLE_LIMIT = ("Built from the embedded sample corpora: at most a few hundred lines each, for trying the pipeline. "
                "The numbers on this card say nothing about a real corpus.")


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


def split_names(manifest: dict) -> list[str]:
    """The dataset's splits in the order the run named them (train, dev, test), then any others."""
    named = [name for name, _ in manifest["config"]["splits"]["ratios"] if name in manifest["splits"]]
    return named + sorted(set(manifest["splits"]) - set(named))


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


def md_table(header: list[str], rows: list[list[Any]]) -> str:
    """A Markdown table (| escaped in cells)."""
    cell = lambda v: str(v).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def plural(n: int, noun: str) -> str:
    """'1 row', '2 rows'."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def render_stat(value: Any) -> str:
    """A stats value as Markdown: its tables (captioned in bold), a scalar in bold, other shapes as JSON."""
    parts = []
    for block in stat_blocks(value):
        caption = f"**{block.caption}**\n\n" if block.caption else ""
        if block.header:
            parts.append(caption + md_table(block.header, block.rows))
        elif block.code:
            parts.append(caption + "```json\n" + block.text + "\n```")
        else:
            parts.append(caption + f"**{block.text}**")
    return "\n\n".join(parts)


def has_arcs(record_type: str) -> bool:
    """Whether rows of this type carry dependency arcs, so a parser made them and arc sections apply."""
    cls = RECORD_TYPES.get(record_type)
    return cls is not None and "arcs" in arrow_schema(cls).names


def applied_options(family: dict) -> dict:
    """The family options that mean something for this run: set (not null or empty) and used by its choices."""
    return {key: value for key, value in sorted(family.items())
            if value not in (None, [], "") and OPTION_APPLIES.get(key, lambda _: True)(family)}


def _how_made(manifest: dict) -> list[str]:
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
    return lines


def field_paths(record_type: str) -> list[tuple[str, str]]:
    """(path, type) of every field of a record type's Arrow schema, a list of structs' fields as list[].field."""
    def walk(name: str, dtype: pa.DataType):
        if pa.types.is_list(dtype) and pa.types.is_struct(dtype.value_type):
            yield name, "list"
            for f in dtype.value_type:
                yield from walk(f"{name}[].{f.name}", f.type)
        elif pa.types.is_list(dtype):
            yield name, f"list of {HF_DTYPES.get(str(dtype.value_type), dtype.value_type)}"
        else:
            yield name, HF_DTYPES.get(str(dtype), str(dtype))
    return [p for f in arrow_schema(RECORD_TYPES[record_type]) for p in walk(f.name, f.type)]


def field_note(record_type: str, path: str) -> str:
    """What a field holds: its record type's own note, else the shared one."""
    return FIELD_NOTES_BY_TYPE.get(record_type, {}).get(path) or FIELD_NOTES.get(path.rsplit("].", 1)[-1], "")


def fields_section(record_type: str) -> list[str]:
    """A table of every field, with its type and meaning (the dead letters' fields too)."""
    out = []
    for what, rt in (("Each row", record_type), ("Each dead letter", "DeadLetter")):
        if rt not in RECORD_TYPES:
            continue
        out += [f"{what} (`{rt}`):", "", md_table(["field", "type", "meaning"],
                                                  [[f"`{p}`", t, field_note(rt, p) or "see `entailgen schema`"]
                                                   for p, t in field_paths(rt)]), ""]
    return out


def loading_section(manifest: dict) -> list[str]:
    """How to read the data: pyarrow, pandas, Hugging Face datasets, entailgen's own reader."""
    split = (split_names(manifest) or ["train"])[0]
    fmt = manifest["config"]["format"]
    arrow_format = "parquet" if fmt == "parquet" else "json"
    pandas = (f'pd.read_parquet(f"{{folder}}/{split}")' if fmt == "parquet" else
              f'pd.concat(pd.read_json(p, lines=True) for p in sorted(glob.glob(f"{{folder}}/{split}/*.jsonl")))')
    return ["```python", 'folder = "."  # this dataset\'s folder (the one holding this README.md)', "",
            "import pyarrow.dataset as ds",
            f'table = ds.dataset(f"{{folder}}/{split}", format="{arrow_format}").to_table()  # one split, as Arrow', "",
            *(["import glob"] if fmt != "parquet" else []),
            "import pandas as pd", f"frame = {pandas}", "",
            "import os", "from datasets import load_dataset  # reads the configs in this card's header",
            f'data = load_dataset(os.path.abspath(folder))  # data["{split}"]; pass "dead_letters" second for those',
            "", "from entailgen.schemas.reader import read_dataset",
            f'rows = list(read_dataset(folder, "{split}", verify=True))  # dicts; verify checks each shard\'s sha256',
            "```"]


def dead_examples_section(stats: dict, limit: int = 10) -> list[str]:
    """A few dead letters as a table (where in which file, stage, message), so a reader sees what failed."""
    examples = stats.get("dead_examples") or []
    if not examples:
        return []
    rows = [[d["source_id"], f"{d['stage']}:{d['error_type']}", clip(" ".join(d["message"].split()), 120),
             clip(" ".join(d["raw"].split()), 60)] for d in examples[:limit]]
    return ["", "Example dead letters (a few per reason):", "",
            md_table(["where (file:line or id)", "stage:error", "message", "input"], rows)]


# per input: units read = with output + skipped + dead (dataset.accounting); rows and dead letters are per row
PER_SOURCE = (("read", "units read"), ("units_with_output", "with output"), ("skipped_by_source", "skipped"),
              ("units_dead", "dead"), ("records_by_source", "rows written"), ("dead_by_source", "dead letters"))
COUNT_TITLES = {"dead_by_stage": "Dead letters by stage and error",
                "skipped_by_reason": "Inputs skipped on purpose, by reason",
                "skipped_transformations": "Transformations that found nothing to change, in units that have output"}


def _counts(manifest: dict, stats: dict, licences: dict[str, str]) -> list[str]:
    counts, total = manifest["counts"], manifest["counts"]["total"]
    per_source = [(key, title) for key, title in PER_SOURCE if key in counts]
    out = [f"{plural(total['read'], 'input unit')} read, {plural(total['written'], 'row')} written, "
           f"{plural(total['dead_letters'], 'dead letter')} (`{manifest['dead_letters']['path']}`).", "",
           md_table(["split", "rows", "shards"], [[n, manifest["splits"][n]["rows"], manifest["splits"][n]["shards"]]
                                               for n in split_names(manifest)]),
           "", md_table(["input"] + [title for _, title in per_source] + ["licence", "sha256"],
                        [[i["name"]] + [counts[key].get(i["name"], 0) for key, _ in per_source]
                         + [licences[i["name"]], i["sha256"][:12]] for i in manifest["inputs"]])]
    handled = {key for key, _ in PER_SOURCE} | {"written", "total"}
    for key, table in counts.items():
        if key not in handled and table:
            out += ["", COUNT_TITLES.get(key, key.replace("_", " ").capitalize()) + ":", "",
                    md_table(["key", "count"], [[k, v] for k, v in table.items()])]
    out += dead_examples_section(stats)
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


def _limits(manifest: dict, sample_digests: frozenset, licences: dict[str, str]) -> list[str]:
    relation = "relation" in ((manifest.get("config") or {}).get("family") or {}).get("phenomena", ())
    parser = [PARSER_LIMIT] if has_arcs(manifest["record_type"]) else []
    limits = [*LIMITS.get(manifest["pipeline"], ()), *(RELATION_LIMITS if relation else ()), *parser, *COMMON_LIMITS]
    if any(i["sha256"] in sample_digests for i in manifest["inputs"]):
        limits.append(SAMPLE_LIMIT)
    if "unknown" in licences.values():
        limits.append("Some inputs have no known licence: check their terms before sharing this dataset.")
    return [f"- {line}" for line in limits]


def render_card(manifest: dict, stats: dict, description: str = "", sample_digests: frozenset = frozenset()) -> str:
    """README.md of a dataset directory: YAML front matter, then how it was made, counts, statistics and limits.

    sample_digests: sha256 of the embedded sample files; inputs with these digests get the 'tiny sample' warning.
    """
    licences = input_licences(manifest, sample_digests)
    header = yaml.safe_dump(card_header(manifest, licences), sort_keys=False, allow_unicode=True, width=1000)
    lines = ["---", header.rstrip("\n"), "---", "", f"# entailgen `{manifest['pipeline']}` dataset", "",
             description + "." if description else "", "",
             "Synthetic textual-entailment training data built by entailgen. Open `report.html` beside this file "
             "for plots and drawn examples; `manifest.json` lists every shard with its checksum.", "",
             "## How it was made", "", *_how_made(manifest), "",
             "## Counts", "", *_counts(manifest, stats, licences), "",
             "## Fields", "", *fields_section(manifest["record_type"]),
             "## How to load it", "", *loading_section(manifest), "",
             "## Statistics", "", *_stats(manifest),
             "## Known limits", "", *_limits(manifest, sample_digests, licences), "",
             "## Files", "",
             f"- `{{split}}/{{split}}-NNNNN-of-NNNNN.{manifest['config']['format']}`: the rows, "
             "sharded by a hash of the id and sorted",
             f"- `{manifest['dead_letters']['path']}`: every input or stage that failed, with its reason",
             "- `manifest.json`: shards, checksums, counts, config (written last: without it the dataset is "
             "incomplete)",
             "- `report.html`: this dataset's plots and examples (static, opens offline)",
             *[f"- `{e['path']}`: export, {plural(e['rows'], 'row')}" for e in manifest.get("exports", [])], "",
             "## Sources and citations", "", *[f"- {c}" for c in CITATIONS], ""]
    return "\n".join(lines)
