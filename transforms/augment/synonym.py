"""Synonym examples (Goyal & Durrett 2020 §5.3): hypotheses that reword x without changing its structure, all arcs 1.

Two sources. Gold pairs (x, h*) whose words align with little movement: a paraphrase that mostly swaps words for
equivalents keeps x's dependency structure, so every arc of h* is entailed (variant "gold_pair"). And WordNet
substitution on x itself: one uninflected content word replaced by a same-POS synonym from its most frequent sense,
which changes lemmas but not the tree (variant "wordnet"). Words align by exact form, then lemma, then synonymy.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Optional

import apache_beam as beam
from apache_beam import pvalue

from entailgen.schemas.ids import content_id, seeded_rng
from entailgen.schemas.records import ArcExample, LabelledArc, ParsedSentence, Token, dead_letter
from entailgen.transforms.arcs import arc_keys, extract_arcs
from entailgen.transforms.augment.common import DEAD, arc_example, spaced_text
from entailgen.transforms.augment.wordnet import Synonyms, UPOS_TO_WORDNET, WordNetLexicon

KIND = "synonym"
EXACT, LEMMA, SYNONYM = "exact", "lemma", "synonym"
_MATCH_ORDER = {EXACT: 0, LEMMA: 1, SYNONYM: 2}
# Penn tags of uninflected forms: a synonym lemma can replace these words as is (no inflection needed).
BASE_FORM_TAGS = frozenset({"NN", "VB", "VBP", "JJ", "RB"})
VOWELS = frozenset("aeiou")


@dataclass(frozen=True)
class SynonymOptions:
    """Closeness thresholds for gold pairs and the seed that picks a substitution."""

    max_displacement: float = 1.0  # mean |position in x - position in h*| of aligned words
    min_aligned: float = 0.6  # share of h*'s words that must align to x
    seed: int = 0


@dataclass(frozen=True)
class Link:
    """Word i of x aligned to word j of h* (positions among words, punctuation skipped) and how they match."""

    i: int
    j: int
    how: str


def _words(sentence: ParsedSentence) -> list[Token]:
    """The sentence's tokens without punctuation."""
    return [t for t in sentence.tokens if t.pos != "PUNCT"]


def _match(a: Token, b: Token, synonyms: Synonyms) -> Optional[str]:
    """How two words match: same form, same lemma, WordNet synonyms of the same POS, or not at all."""
    if a.text.lower() == b.text.lower():
        return EXACT
    if a.lemma.lower() == b.lemma.lower():
        return LEMMA
    if a.pos == b.pos and (b.lemma.lower() in synonyms(a.lemma, a.pos) or a.lemma.lower() in synonyms(b.lemma, b.pos)):
        return SYNONYM
    return None


def align(x: ParsedSentence, h: ParsedSentence, synonyms: Synonyms) -> list[Link]:
    """One-to-one word alignment, greedily best first: stronger match, then smaller displacement, then position."""
    xs, hs = _words(x), _words(h)
    options = sorted((_MATCH_ORDER[how], abs(i - j), i, j, how)
                     for i, a in enumerate(xs) for j, b in enumerate(hs)
                     if (how := _match(a, b, synonyms)) is not None)
    links, used_i, used_j = [], set(), set()
    for _, _, i, j, how in options:
        if i not in used_i and j not in used_j:
            links.append(Link(i, j, how))
            used_i.add(i)
            used_j.add(j)
    return sorted(links, key=lambda link: link.j)


def mean_displacement(links: list[Link]) -> float:
    """Average |i - j| over aligned words; infinite when nothing aligns."""
    return sum(abs(link.i - link.j) for link in links) / len(links) if links else float("inf")


def is_close_paraphrase(x: ParsedSentence, h: ParsedSentence, synonyms: Synonyms,
                        options: SynonymOptions = SynonymOptions()) -> bool:
    """Whether h* rewords x in place: enough of its words align, and they moved little on average."""
    links = align(x, h, synonyms)
    words = len(_words(h))
    if not words or len(links) / words < options.min_aligned:
        return False
    return mean_displacement(links) <= options.max_displacement


def _entailed(hypothesis: ParsedSentence, premise: ParsedSentence) -> list[LabelledArc]:
    """Every arc of the hypothesis labelled 1, with whether the premise has it (the lexical-match prediction)."""
    d_x = arc_keys(premise.arcs)
    return [LabelledArc.of(a, 1, a.key in d_x) for a in hypothesis.arcs]


def synonym_pair_example(x: ParsedSentence, h: ParsedSentence, synonyms: Synonyms,
                         options: SynonymOptions = SynonymOptions()) -> Optional[ArcExample]:
    """The example (x, h*) with all arcs 1 when h* is a close paraphrase of x, else None."""
    if not is_close_paraphrase(x, h, synonyms, options):
        return None
    return arc_example(x.text, h, _entailed(h, x), KIND, x.source, x.source_id, variant="gold_pair")


def substitution_sites(x: ParsedSentence, synonyms: Synonyms) -> list[tuple[int, str]]:
    """(token index, synonym) for every uninflected common content word and each of its single-word synonyms."""
    sites = []
    for i, t in enumerate(x.tokens):
        uninflected = t.text.lower() == t.lemma.lower() and (not t.tag or t.tag in BASE_FORM_TAGS)
        if t.pos in UPOS_TO_WORDNET and uninflected:
            sites.extend((i, word) for word in synonyms(t.lemma, t.pos))
    return sites


def _article_for(word: str) -> str:
    """'an' before a vowel letter, else 'a' (spelling, not sound: 'a university' would come out 'an')."""
    return "an" if word[:1].lower() in VOWELS else "a"


def substitute(x: ParsedSentence, i: int, word: str) -> ParsedSentence:
    """x with token i replaced by word (same tree, new lemma), its article fixed and its arcs re-extracted."""
    tokens = list(x.tokens)
    old = tokens[i]
    text = word[:1].upper() + word[1:] if i == 0 and old.text[:1].isupper() else word
    tokens[i] = dataclasses.replace(old, text=text, lemma=word)
    if i > 0 and tokens[i - 1].text.lower() in ("a", "an"):
        article = _article_for(word)
        cased = article.capitalize() if tokens[i - 1].text[0].isupper() else article
        tokens[i - 1] = dataclasses.replace(tokens[i - 1], text=cased, lemma=article)
    new_text = spaced_text(tokens)
    return ParsedSentence(id=content_id(new_text, x.parser), text=new_text, tokens=tokens, arcs=extract_arcs(tokens),
                          parser=x.parser, source=x.source, source_id=x.source_id, role=KIND)


def synonym_substitution_example(x: ParsedSentence, synonyms: Synonyms,
                                 options: SynonymOptions = SynonymOptions()) -> Optional[ArcExample]:
    """The example (x, x with one seeded synonym substitution), all arcs 1; None when x offers no substitution."""
    sites = substitution_sites(x, synonyms)
    if not sites:
        return None
    i, word = seeded_rng(options.seed, x.id, KIND).choice(sites)
    h = substitute(x, i, word)
    return arc_example(x.text, h, _entailed(h, x), KIND, x.source, x.source_id, variant="wordnet")


class _WithSynonyms(beam.DoFn):
    """Run a synonym augmentation with the lexicon loaded once per worker in setup()."""

    def __init__(self, augmentation: Callable, name: str, lexicon, options: SynonymOptions):
        self.augmentation = augmentation
        self.name = name
        self.lexicon = lexicon
        self.options = options
        self.synonyms: Optional[Synonyms] = None
        self.made = beam.metrics.Metrics.counter("entailgen", f"{name}_examples")
        self.skipped = beam.metrics.Metrics.counter("entailgen", f"{name}_skipped")
        self.dead = beam.metrics.Metrics.counter("entailgen", f"{name}_dead")

    def setup(self):
        self.synonyms = self.lexicon.load()

    def process(self, element):
        sentences = element if isinstance(element, tuple) else (element,)
        try:
            example = self.augmentation(*sentences, self.synonyms, self.options)
        except Exception as exc:  # one bad record must not sink the bundle: it leaves as a dead letter
            self.dead.inc()
            first = sentences[0]
            yield pvalue.TaggedOutput(DEAD, dead_letter(first.source, first.source_id, self.name, type(exc).__name__,
                                                        str(exc), " ||| ".join(s.text for s in sentences)))
            return
        if example is None:
            self.skipped.inc()
        else:
            self.made.inc()
            yield example


class SynonymPairs(beam.PTransform):
    """(x, h*) ParsedSentence pairs -> synonym ArcExample for the close paraphrases (main) and DeadLetter ('dead')."""

    def __init__(self, options: SynonymOptions = SynonymOptions(), lexicon=WordNetLexicon()):
        super().__init__()
        self.options = options
        self.lexicon = lexicon

    def expand(self, pairs):
        do = _WithSynonyms(synonym_pair_example, "synonym_pairs", self.lexicon, self.options)
        return pairs | "SynonymPairs" >> beam.ParDo(do).with_outputs(DEAD, main="examples")


class SynonymSubstitution(beam.PTransform):
    """ParsedSentence -> synonym ArcExample by WordNet substitution (main) and DeadLetter ('dead')."""

    def __init__(self, options: SynonymOptions = SynonymOptions(), lexicon=WordNetLexicon()):
        super().__init__()
        self.options = options
        self.lexicon = lexicon

    def expand(self, sentences):
        do = _WithSynonyms(synonym_substitution_example, "synonym_substitution", self.lexicon, self.options)
        return sentences | "SynonymSubstitution" >> beam.ParDo(do).with_outputs(DEAD, main="examples")
