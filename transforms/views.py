"""Pair views (pure): the (premise, hypothesis, label) pairs a sentence-pair classifier learns from, made from every
record type entailgen writes: recast / nli-dialogue pairs as they are, dae hypotheses at sentence level, and claims.

Claims views (`--claims-view`):
- `source` (default): (the claim's source sentence, claim) with the claim's label -- or, for a claim without one (a
  summary sentence, an annotated claim), the block with the most content words in common with it -- plus at most one
  sampled (other block, claim) pair as not-entailed where the block holds none of the claim's content words. SummaC
  (Laban et al. 2022 §3) found sentence-level premises work best, which is also what a detector meets at scoring time
  (ZS scores every (block, summary sentence) pair); the label is exact for the source sentence, and the sampled
  negatives teach "this sentence does not support that claim", which per-block document labels never could.
- `contradicted`: the source view, and an INCORRECT swap claim (entity / number / date) also pairs at most one other
  block that its changed span contradicts, as not-entailed: one that still holds the words the swap replaced and
  another content word of the claim, but not the swapped-in words ("The Leeds factory employs 200." against "Acme
  opened a factory in York"), the hard negative of a summary that moves a fact between sentences. Not the default:
  a model trained on it catches fewer of the errors human readers find in summaries than the source view's does.
- `document`: (whole document, claim) with the claim's label, as FactCC trains; the premise is cut to the model's
  max length (only the premise side), so a claim taken from late in a long document loses its evidence.
- `packed`: the source view with its premise read as the scorer's `--evidence packed` reads a summary sentence: the
  source sentence first, then the document's other sentences by how many of the claim's content words they hold,
  while they fit in the model's length, in document order. A context sentence that holds the words a swap put in is
  never packed beside its INCORRECT claim (it could support it: the label stays the source's), counted.
Block rows (`--pairs blocks`, block_index set) are left out and counted: their per-block document label is noisy.

Each pair also keeps the 3-way label its making says (label3; With a Little Push's e-c needs a contradiction class):
an entailed pair is entailment; a swap or a negation contradicts its source, as does a block a swap contradicts; a
claim that adds what its source lacks (claims' extrinsic, dae's hallucination) is neutral, as is an unrelated block
(a sampled negative, dae's nearest overlap); where the making does not say (a human-annotated INCORRECT claim, a
bottom-of-beam dae hypothesis), label3 is None. The trainer still reads these pairs 2-way (a 3-way model needs rows
that all keep one: nli-dialogue over a claims dataset writes them as RtePairs).
"""
from __future__ import annotations

import functools
import re
from collections import Counter
from typing import NamedTuple, Optional, Sequence

from entailgen.schemas.ids import seeded_rng
from entailgen.schemas.records import ENTAILED, INCORRECT, NOT_ENTAILED, THREE_WAY, ArcExample, ClaimExample
from entailgen.transforms.claims.transformations import words_of
from entailgen.transforms.passages import packed

SOURCE, CONTRADICTED_VIEW, DOCUMENT, PACKED_VIEW = "source", "contradicted", "document", "packed"
CLAIM_VIEWS = (SOURCE, CONTRADICTED_VIEW, DOCUMENT, PACKED_VIEW)
WORDS_PER_TOKEN = 0.75  # an English word is about 1.3 WordPiece tokens: a packed premise's words from a token length
KEPT_OUT = "context_kept_out"  # packed view: context sentences left out beside a claim they could support
DEFAULT_CLAIM_VIEW = SOURCE
BLOCK_ROW = "block_row"
NO_SENTENCE_LABEL = "no_labelled_arcs"  # as features.NO_LABEL: the same reason at arc and sentence level
NEGATIVES, NO_NEGATIVE_BLOCK, CONTRADICTED = "negatives", "no_negative_block", "contradicted"
SWAPS = ("entity_swap", "number_swap", "date_swap")  # the transformations whose changed span states a fact
ENTAILMENT, NEUTRAL, CONTRADICTION = THREE_WAY
CONTRADICTING = ("pronoun_swap", *SWAPS, "negation", "word_swap")  # claims' swaps and negation; dae's word swap
ADDING = ("extrinsic", "hallucination", "overlap")  # says what its premise lacks: claims' extrinsic; dae's two


class Pair(NamedTuple):
    """A (premise, hypothesis, label) pair; label3 where the source keeps a 3-way label (as RtePair) or the pair's
    making says one (label3_of)."""

    premise: str
    hypothesis: str
    label: str
    label3: Optional[str] = None


def pairs_per_row(record_type: str, view: str) -> int:
    """The most pairs one row of a record type makes (bounds the steps of the learning-rate schedule)."""
    if record_type != "ClaimExample" or view == DOCUMENT:
        return 1
    return 3 if view == CONTRADICTED_VIEW else 2


def label3_of(entailed: bool, made_by: str) -> Optional[str]:
    """The 3-way label a pair's making says (module docstring): entailment, or for a pair that is not entailed,
    contradiction for a swap or negation, neutral for an addition; None where the making does not say."""
    if entailed:
        return ENTAILMENT
    return CONTRADICTION if made_by in CONTRADICTING else NEUTRAL if made_by in ADDING else None


def sentence_label(record: ArcExample, arcs: Optional[Sequence] = None) -> Optional[int]:
    """A dae row's sentence label: its own where it has one (the sentence-level variant), else 1 when all its labelled
    arcs are entailed, 0 when one is not, None without a labelled arc; arcs: the ones considered (default all)."""
    if record.label is not None:
        return record.label
    labelled = [int(a.entailed) for a in (record.arcs if arcs is None else arcs) if a.entailed is not None]
    return int(all(labelled)) if labelled else None


@functools.lru_cache(maxsize=1)
def _stop_words() -> frozenset:
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


def content_words(text: str) -> set[str]:
    """The text's word types, lower-cased, without spaCy's English stop words and punctuation."""
    stop = _stop_words()
    return {w for w in words_of(text) if w not in stop}


def held_words(sentences: Sequence[str], claim: str) -> list[int]:
    """How many of the claim's content words each sentence holds: the relevance passages are packed by."""
    words = content_words(claim)
    return [len(words & content_words(s)) for s in sentences]


def best_block(blocks: Sequence[str], claim: str) -> int:
    """Index of the block sharing the most content words with the claim (unigram overlap); ties: the first."""
    words = content_words(claim)
    return max(range(len(blocks)), key=lambda i: (len(words & content_words(blocks[i])), -i))


def contradicted_blocks(example: ClaimExample, blocks: Sequence[str], source: str) -> list[str]:
    """The blocks besides the source that an INCORRECT swap claim's changed span contradicts (module docstring)."""
    if example.label != INCORRECT or example.transformation not in SWAPS or not (example.source_span and
                                                                                  example.claim_span):
        return []
    original = example.source_sentence[slice(*example.source_span)]
    swapped = example.claim[slice(*example.claim_span)]
    rest = content_words(example.claim[:example.claim_span[0]] + " " + example.claim[example.claim_span[1]:])

    return [b for b in blocks if b != source and source not in b and holds(b, original) and not holds(b, swapped)
            and rest & content_words(b)]


def holds(block: str, words: str) -> bool:
    """Whether a block holds the words as a whole phrase."""
    return re.search(rf"(?<!\w){re.escape(words)}(?!\w)", block) is not None


def packed_premise(example: ClaimExample, blocks: Sequence[str], source: str, max_length: int, counts: Counter
                   ) -> str:
    """The packed view's premise (module docstring): the source, then the blocks holding most of the claim's content
    words while the premise's words stay within the model's length beside the claim, in document order."""
    at = blocks.index(source) if source in blocks else best_block(blocks, example.claim)
    allowed = range(len(blocks))
    if example.label == INCORRECT and example.transformation in SWAPS and example.claim_span:
        swapped = example.claim[slice(*example.claim_span)]
        allowed = [i for i in allowed if i == at or not holds(blocks[i], swapped)]
        counts[KEPT_OUT] += len(blocks) - len(allowed)
    room = int(max_length * WORDS_PER_TOKEN) - len(example.claim.split())
    return packed(blocks, [len(b.split()) for b in blocks], held_words(blocks, example.claim), room, first=at,
                  allowed=allowed).text


def claim_pairs(example: ClaimExample, view: str, rng, counts: Optional[Counter] = None, max_length: int = 128
                ) -> list[Pair]:
    """The (premise, hypothesis, label, label3) pairs of a claims document row in a view (module docstring); counts
    gets NEGATIVES / NO_NEGATIVE_BLOCK for the sampled negatives of the source views and CONTRADICTED for the blocks a
    swap contradicts (contradicted view)."""
    counts = Counter() if counts is None else counts
    label = example.entailment
    label3 = label3_of(label == ENTAILED, example.transformation)
    if view == DOCUMENT:
        return [Pair(example.premise, example.claim, label, label3)]
    if view not in (SOURCE, CONTRADICTED_VIEW, PACKED_VIEW):
        raise ValueError(f"--claims-view takes {', '.join(CLAIM_VIEWS)}, got {view!r}")
    blocks = list(example.blocks) or [example.premise]
    source = example.source_sentence or blocks[best_block(blocks, example.claim)]
    premise = packed_premise(example, blocks, source, max_length, counts) if view == PACKED_VIEW else source
    pairs = [Pair(premise, example.claim, label, label3)]
    contradicted = contradicted_blocks(example, blocks, source) if view == CONTRADICTED_VIEW else []
    if contradicted:
        pairs.append(Pair(rng.choice(contradicted), example.claim, NOT_ENTAILED, CONTRADICTION))
        counts[CONTRADICTED] += 1
    words = content_words(example.claim)
    others = [b for b in blocks if b != source and source not in b and not words & content_words(b)]
    if others:
        pairs.append(Pair(rng.choice(others), example.claim, NOT_ENTAILED, NEUTRAL))
        counts[NEGATIVES] += 1
    else:
        counts[NO_NEGATIVE_BLOCK] += 1
    return pairs


def pair_examples(record, view: str, seed: int, counts: Counter, notes: Counter, max_length: int = 128) -> list:
    """The pairs a record gives the sentence-pair classifier (an RtePair is one as it is); a record that gives none is
    counted in counts by reason, the sampled negatives in notes; max_length: the model's, which a packed premise
    fills. Randomness: the seed mixed with the record id."""
    if isinstance(record, ClaimExample):
        if record.block_index is not None:
            counts[BLOCK_ROW] += 1
            return []
        return claim_pairs(record, view, seeded_rng(seed, record.id, "claim-negative"), notes, max_length)
    if isinstance(record, ArcExample):
        label = sentence_label(record)
        if label is None:
            counts[NO_SENTENCE_LABEL] += 1
            return []
        return [Pair(record.premise, record.hypothesis, ENTAILED if label else NOT_ENTAILED,
                     label3_of(bool(label), record.kind))]
    return [record]
