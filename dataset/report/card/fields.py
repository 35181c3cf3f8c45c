"""The card's "Fields": every field of the rows and of the dead letters, with its type and what it holds."""
from __future__ import annotations

import pyarrow as pa

from entailgen.dataset.report.card.facts import HF_DTYPES, CardFacts
from entailgen.dataset.report.card.markdown import md_table
from entailgen.schemas.arrow import arrow_schema
from entailgen.schemas.records import AUGMENTED_KINDS, DOCUMENT_KINDS, RECORD_TYPES

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
                          "number_swap, date_swap, negation, compression, rewording, role_swap, extrinsic, summary, "
                          "or annotated (a labelled set passed through)",
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
        "words[].arcs[].entailed_probability": "the DAE model's probability that the passage it was read from "
                                                "entails the arc",
        "words[].arcs[].evidence_start": "the first character's offset in the document of the passage the arc's "
                                         "probability was read from",
        "words[].arcs[].evidence_end": "the offset just past that passage's last character in the document",
        "sentences": "score --explain: every summary sentence with its score and its supporting block",
        "sentences[].text": "the sentence as the parser split it",
        "sentences[].start": "its first character's offset in the summary (null where it could not be placed)",
        "sentences[].end": "the offset just past its last character in the summary",
        "sentences[].score": "its best block's score (null: it could not be scored, see unscorable)",
        "sentences[].block": "the document block that supports it best (the max over blocks)",
        "sentences[].block_start": "the block's first character's offset in the document",
        "sentences[].block_end": "the offset just past the block's last character in the document",
        "sentences[].unscorable": "why the model could not score it (null when it could)",
        "sentences[].passages": "every passage of the document its arcs (or its score) were read from",
        "sentences[].passages[].start": "the passage's first character's offset in the document",
        "sentences[].passages[].end": "the offset just past the passage's last character in the document",
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


def field_tables(record_type: str) -> list[str]:
    """A table of every field, with its type and meaning (the dead letters' fields too)."""
    out = []
    for what, rt in (("Each row", record_type), ("Each dead letter", "DeadLetter")):
        if rt not in RECORD_TYPES:
            continue
        out += [f"{what} (`{rt}`):", "", md_table(["field", "type", "meaning"],
                                                  [[f"`{p}`", t, field_note(rt, p) or "see `entailgen schema`"]
                                                   for p, t in field_paths(rt)]), ""]
    return out


def section(facts: CardFacts) -> list[str]:
    """One table per record type: the rows', then the dead letters'."""
    return field_tables(facts.manifest["record_type"])
