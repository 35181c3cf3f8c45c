"""Dialogue phrases (Steen et al. 2023, "With a Little Push...", §2.1, Table 6): prepend a phrase, keep the label.

A dialogue turn often wraps its claim in words that need no grounding ("I think", "Here is what I know:", "I love
that!"); an NLI model should judge the claim, not the wrapper. Each NLI pair is kept (kind "original") and gets a copy
whose hypothesis starts with one seeded phrase from the introductory, hedging and sentiment lists (kind "dialogue",
phrase recorded), label unchanged. A finished entailgen dataset given as input gives its rows as pairs first
(dataset_pairs: claims in the source view, dae at sentence level, recast as they are), each keeping the 3-way label
its making says, so a 3-way model (and With a Little Push's e-c score) can be trained on entailgen data alone.
PHRASES are the ten phrases of the authors' released augmentation code
(github.com/julmaxi/with_a_little_push, nlifactspush/augment_dataset.py), which is what Table 6 lists; their categories
"introduction" and "opinion" are named "introductory" and "sentiment" here as in the paper's text. The table in the
paper itself could not be read here, so the list is verified against the code, not the PDF.
"""
from __future__ import annotations

import dataclasses
import json
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Optional, Union

import apache_beam as beam
from apache_beam import pvalue

from entailgen.schemas.ids import content_id, seeded_rng
from entailgen.schemas.records import (ENTAILED, NOT_ENTAILED, ArcExample, ClaimExample, DeadLetter, ParsedSentence,
                                       RtePair, Skipped, dead_letter)
from entailgen.schemas.sources import DatasetRow, NliPair
from entailgen.transforms.augment.common import DEAD
from entailgen.transforms.io.option_files import option_file_lines
from entailgen.transforms.io.paths import path_option
from entailgen.transforms.views import SOURCE, pair_examples

KIND = "dialogue"
PHENOMENON = "nli"
SKIPPED = "skipped"


@dataclass(frozen=True)
class DialoguePhrase:
    """A phrase a dialogue turn may open with, and its communicative function."""

    text: str
    category: str


PHRASES = (
    DialoguePhrase("I am not sure, but", "hedging"),
    DialoguePhrase("I am not sure but I do know that", "hedging"),
    DialoguePhrase("I believe", "hedging"),
    DialoguePhrase("I do not have information on this but", "hedging"),
    DialoguePhrase("I think", "hedging"),
    DialoguePhrase("Here is what I know:", "introductory"),
    DialoguePhrase("yep. Also", "introductory"),
    DialoguePhrase("Sure! Here is what I know:", "introductory"),
    DialoguePhrase("I love that!", "sentiment"),
    DialoguePhrase("I like that!", "sentiment"),
)

# NLI label spellings -> 3-way label: SNLI/MNLI names, ANLI's letters, Hugging Face datasets' integer ids.
THREE_WAY_ALIASES = {
    "entailment": "entailment", "e": "entailment", "0": "entailment",
    "neutral": "neutral", "n": "neutral", "1": "neutral",
    "contradiction": "contradiction", "c": "contradiction", "2": "contradiction",
}
# Two-way sources (RTE style) have no 3-way label to keep.
TWO_WAY_ALIASES = {"entailed": ENTAILED, "not_entailment": NOT_ENTAILED, "not-entailed": NOT_ENTAILED,
                   "not_entailed": NOT_ENTAILED, "non-entailment": NOT_ENTAILED}

# Words that open a sentence with a capital only because they open it: lower-cased after a phrase.
SENTENCE_STARTERS = frozenset("""
a an the this that these those some any many much most few several all both each every either neither no none other
another such what which who whom whose when where why how whether if there here it its he she they we you him her them
us his hers their theirs our ours your yours one ones someone somebody something anyone anything everyone everybody
everything nobody nothing in on at by for from with without of to into onto over under after before during since until
about above below between among through across against along around behind beyond near and or but so yet nor because
although though while as once unless not never always often sometimes usually also only just even still already again
then now today yesterday tomorrow perhaps maybe probably certainly very quite rather too is are was were be been has
have had do does did can could will would shall should may might must
two three four five six seven eight nine ten twenty hundred thousand first second third last next
""".split())
# spaCy's entity types of numbers and times: "Seven games ...", "Last year ..." are not names and lose their capital.
UNNAMED_ENTITIES = ("CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY", "DATE", "TIME")
I_FORMS = frozenset({"I", "I'm", "I've", "I'd", "I'll", "I’m", "I’ve", "I’d", "I’ll"})
OPENING_QUOTES = "\"'“‘(["


@dataclass(frozen=True)
class DialogueOptions:
    """Run seed, an optional user phrase file, an optional seeded subset size of the phrases, and whether dialogue
    copies are made (without: the originals alone, the augmentation's ablation in Steen et al.'s Table 2)."""

    seed: int = 0
    phrase_subset: Optional[int] = None
    phrase_file: Optional[str] = path_option()
    copies: bool = True


def parse_phrases(lines: Iterable[str], default_category: str = "custom") -> tuple[DialoguePhrase, ...]:
    """Phrases from lines 'phrase' or 'phrase<TAB>category'; blank lines and '#' comments skipped."""
    phrases = []
    for line in lines:
        line = line.rstrip("\r\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        text, _, category = line.partition("\t")
        phrases.append(DialoguePhrase(text.strip(), category.strip() or default_category))
    if not phrases:
        raise ValueError("the phrase file holds no phrases")
    return tuple(phrases)


def read_phrase_lines(path: str) -> tuple[tuple[DialoguePhrase, ...], tuple[DeadLetter, ...]]:
    """(phrases, a DeadLetter per line that is not UTF-8) of a local or remote (gs://) phrase file: a bad line is
    left out and said, the run goes on with the others; a file with no phrase is a ValueError naming it."""
    from apache_beam.io.filesystems import FileSystems

    name = FileSystems.split(path)[1]
    lines = option_file_lines(path)
    dead = tuple(dead_letter(name, f"{name}:{line.number}", "phrases", "BadEncoding",
                             f"{name} line {line.number} is not UTF-8", line.raw) for line in lines if line.text is None)
    try:
        return parse_phrases(line.text for line in lines if line.text is not None), dead
    except ValueError:
        raise ValueError(f"--phrase-file {path} holds no phrases") from None


def read_phrase_file(path: str) -> tuple[DialoguePhrase, ...]:
    """Phrases from a local or remote (gs://) file, one per line with an optional tab-separated category."""
    return read_phrase_lines(path)[0]


def phrase_subset(phrases: tuple[DialoguePhrase, ...], k: int, seed: int) -> tuple[DialoguePhrase, ...]:
    """A seeded random k of the phrases, in their original order (k >= len keeps all)."""
    if k >= len(phrases):
        return phrases
    chosen = set(seeded_rng(seed, "phrase_subset", KIND).sample(range(len(phrases)), k))
    return tuple(p for i, p in enumerate(phrases) if i in chosen)


def resolve_phrases(options: DialogueOptions) -> tuple[DialoguePhrase, ...]:
    """The phrases a run uses: the user's file or Table 6, then the seeded subset if asked for."""
    phrases = read_phrase_file(options.phrase_file) if options.phrase_file else PHRASES
    return phrase_subset(phrases, options.phrase_subset, options.seed) if options.phrase_subset else phrases


def starts_with_proper_noun(sentence: ParsedSentence) -> bool:
    """From a parse: whether the first token is a name (PROPN or a named entity), which keeps its capital."""
    first = sentence.tokens[0] if sentence.tokens else None
    return bool(first) and (first.pos == "PROPN" or first.ner not in ("", "O", *UNNAMED_ENTITIES))


def keeps_capital(hypothesis: str, proper_noun: Optional[bool] = None) -> bool:
    """Whether the hypothesis's first word stays capitalised mid-sentence: "I", a name, an acronym.

    Without a parse (proper_noun None) this is a heuristic: known sentence starters are lowered, a word the text
    repeats in lower case is lowered, and any other capitalised opener is taken for a name.
    """
    words = hypothesis.split()
    if not words:
        return True
    first = words[0].lstrip(OPENING_QUOTES)
    if first in I_FORMS or not first[:1].isupper():
        return True
    if proper_noun is not None:
        return proper_noun
    bare = first.rstrip(".,;:!?").lower()
    if any(c.isupper() for c in first[1:]):
        return True  # an acronym or a name like McDonald
    later = {w.strip(OPENING_QUOTES + "\"'”’)].,;:!?") for w in words[1:]}
    return bare not in SENTENCE_STARTERS and bare not in later


def join_phrase(phrase: str, hypothesis: str, proper_noun: Optional[bool] = None) -> str:
    """phrase + hypothesis as one natural turn: a new sentence after . ! ?, otherwise the first word lower-cased."""
    phrase, hypothesis = phrase.strip(), hypothesis.strip()
    at = next((k for k, c in enumerate(hypothesis) if c.isalpha()), None)
    if at is not None:
        if phrase[-1:] in ".!?":
            hypothesis = hypothesis[:at] + hypothesis[at].upper() + hypothesis[at + 1:]
        elif not keeps_capital(hypothesis, proper_noun):
            hypothesis = hypothesis[:at] + hypothesis[at].lower() + hypothesis[at + 1:]
    return f"{phrase} {hypothesis}"


def nli_to_rte(pair: NliPair) -> RtePair:
    """An NLI pair as an RtePair: entailment -> entailed, neutral/contradiction -> not-entailed, 3-way label kept."""
    raw = str(pair.label).strip().lower()
    if raw in THREE_WAY_ALIASES:
        label3 = THREE_WAY_ALIASES[raw]
        label = ENTAILED if label3 == "entailment" else NOT_ENTAILED
    elif raw in TWO_WAY_ALIASES:
        label3, label = None, TWO_WAY_ALIASES[raw]
    else:
        raise ValueError(f"unknown NLI label {pair.label!r}")
    return RtePair(id=content_id(PHENOMENON, pair.source, pair.source_id, pair.premise, pair.hypothesis),
                   premise=pair.premise, hypothesis=pair.hypothesis, label=label, phenomenon=PHENOMENON,
                   template="original", source=pair.source, source_id=pair.source_id, label3=label3)


def with_phrase(pair: RtePair, phrase: DialoguePhrase, proper_noun: Optional[bool] = None) -> RtePair:
    """The pair with the phrase prepended to its hypothesis, label and premise unchanged, phrase recorded."""
    return dataclasses.replace(pair, id=content_id(pair.id, KIND, phrase.text),
                               hypothesis=join_phrase(phrase.text, pair.hypothesis, proper_noun),
                               kind=KIND, phrase=phrase.text, template=f"{KIND}:{phrase.category}")


def dataset_pairs(row: DatasetRow, seed: int) -> Union[list[RtePair], Skipped]:
    """A finished dataset's row as the pairs it gives (transforms.views: claims in the source view, dae rows at sentence
    level, recast and nli pairs as they are), under the row's dataset and id, each with the 3-way label its making
    says (label3; None where it does not say); provenance names the row, what made it and its split context (a
    claims row's document: one document's pairs share a split). Skipped, with the reason, for a row that gives none."""
    record = row.record
    if isinstance(record, RtePair):
        if record.kind == KIND:  # already a dialogue copy: another phrase would stack on its phrase
            return Skipped(row.source, row.source_id, KIND, "AlreadyDialogue")
        return [dataclasses.replace(record, source=row.source, source_id=row.source_id)]
    if not isinstance(record, (ClaimExample, ArcExample)):
        return Skipped(row.source, row.source_id, KIND, f"NoPairs:{type(record).__name__}")
    reasons = Counter()
    pairs = pair_examples(record, SOURCE, seed, reasons, Counter())
    if not pairs:
        return Skipped(row.source, row.source_id, KIND, next(iter(reasons)))  # block_row, no_labelled_arcs
    claims = isinstance(record, ClaimExample)
    made_by = f"claims:{record.transformation}" if claims else f"dae:{record.kind}"
    provenance = json.dumps({"dataset": row.source, "record_type": type(record).__name__, "id": record.id,
                             "made_by": made_by, "context": record.document_id if claims else record.premise},
                            sort_keys=True, ensure_ascii=False)
    return [RtePair(id=content_id(made_by, row.source, row.source_id, p.premise, p.hypothesis), premise=p.premise,
                    hypothesis=p.hypothesis, label=p.label, phenomenon=made_by, template="original",
                    source=row.source, source_id=row.source_id, label3=p.label3, provenance=provenance)
            for p in pairs]


def split_context(pair: RtePair) -> str:
    """The split context of a pair: its premise, or the context its provenance names (a claims row's document)."""
    if pair.provenance and '"context"' in pair.provenance:
        return json.loads(pair.provenance).get("context") or pair.premise
    return pair.premise


def dialogue_pairs(pair: Union[NliPair, RtePair], phrases: tuple[DialoguePhrase, ...], seed: int,
                   copies: bool = True) -> list[RtePair]:
    """The original pair (kind "original") and, with copies, its copy with one seeded phrase prepended (kind
    "dialogue")."""
    if isinstance(pair, NliPair):
        original = nli_to_rte(pair)
    else:
        original = dataclasses.replace(pair, kind="original", phrase=None)
    if not copies:
        return [original]
    phrase = seeded_rng(seed, original.id, KIND).choice(phrases)
    return [original, with_phrase(original, phrase)]


class _PrependPhrase(beam.DoFn):
    """dialogue_pairs per element (a dataset row: per pair it gives); a pair whose label cannot be read leaves as a
    dead letter, a dataset row that gives no pair as a Skipped."""

    def __init__(self, phrases: tuple[DialoguePhrase, ...], seed: int, copies: bool = True):
        self.phrases = phrases
        self.seed = seed
        self.copies = copies
        self.made = beam.metrics.Metrics.counter("entailgen", "dialogue_pairs")
        self.dead = beam.metrics.Metrics.counter("entailgen", "dialogue_dead")

    def process(self, pair):
        pairs = dataset_pairs(pair, self.seed) if isinstance(pair, DatasetRow) else [pair]
        if isinstance(pairs, Skipped):
            yield pvalue.TaggedOutput(SKIPPED, pairs)
            return
        try:
            made = [p for one in pairs for p in dialogue_pairs(one, self.phrases, self.seed, self.copies)]
        except ValueError as exc:
            self.dead.inc()
            yield pvalue.TaggedOutput(DEAD, dead_letter(pair.source, pair.source_id, KIND, type(exc).__name__,
                                                        str(exc), pair))
            return
        self.made.inc(len(pairs))
        yield from made


class AddDialoguePhrases(beam.PTransform):
    """NliPair, RtePair or DatasetRow -> RtePair originals and dialogue copies (main), DeadLetter (output 'dead') and
    Skipped (output 'skipped': dataset rows that give no pair)."""

    def __init__(self, options: DialogueOptions = DialogueOptions()):
        super().__init__()
        self.options = options

    def expand(self, pairs):
        do = _PrependPhrase(resolve_phrases(self.options), self.options.seed, self.options.copies)
        return pairs | "AddDialoguePhrases" >> beam.ParDo(do).with_outputs(DEAD, SKIPPED, main="pairs")
