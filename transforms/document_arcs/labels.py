"""DAE §4's arc rule generalised to a document block: an arc of the hypothesis is 1 when its identity key (head lemma,
child lemma, relation) is in d(premise), 0 when the rule that made it says the premise cannot hold it, and unlabelled
(None) where the rule cannot be sure (the premise may say the same thing in other words), as §4 leaves d(h1) out.

The premise is a SummaC block of the document (two sentences by default): the arc trainer reads 128 tokens, so a
whole document would never fit, and a block is what a document scorer compares each summary sentence with.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional, Sequence

from entailgen.schemas.ids import content_id
from entailgen.schemas.records import DOCUMENT_KINDS, ArcExample, LabelledArc, Token
from entailgen.transforms.arcs import arc_keys, extract_arcs
from entailgen.transforms.claims.blocks import Sentence
from entailgen.transforms.claims.transformations import WORD
from entailgen.transforms.label import ENTAILED_ARC, NOT_ENTAILED_ARC

GENERATOR = "document_arcs"
# The document-arcs rules, each its own ArcExample kind.
RULES = DOCUMENT_KINDS
EVIDENCE_REMOVAL, RECOMBINATION, RESTATEMENT, EXTRINSIC, REWORDING = RULES
ENTAILED_BY_RULE = (RESTATEMENT, REWORDING)  # rules whose hypotheses are entailed by construction: never 0
SUPPORTED_ELSEWHERE, UNEXPLAINED = "SupportedElsewhere", "UnexplainedWord"


@dataclass(frozen=True)
class Hypothesis:
    """What a rule made: the hypothesis text, the document sentences that are its premise (in order), the sentence it
    rewrites (its words' relations there are known to differ; None for evidence removal), and the [start, end)
    characters of the words it brought in or moved (a restatement's: the joining words). tokens: the hypothesis's own
    parse when it is a document sentence as it stands (evidence removal), else None (re-parsed). means: (new word,
    the premise lemma it stands for) of each word an entailed rewrite brought (rewrites.py); withheld: the document
    sentences taken out as evidence (evidence removal), which the doubtful-row filter does not consult."""

    rule: str
    variant: str
    text: str
    premise: tuple[int, ...]
    target: Optional[int]
    changed: tuple[tuple[int, int], ...] = ()
    tokens: Optional[tuple[Token, ...]] = None
    means: tuple[tuple[str, str], ...] = ()
    withheld: tuple[int, ...] = ()


@dataclass(frozen=True)
class PremiseView:
    """What the label rule reads of a premise: d(premise), the lemma sets of its sentences other than the rewritten
    one (where the same fact may be said in other words), and its linked lemma pairs, either direction (a
    restatement's new relation between two words the premise already relates), and the rewritten sentence's own arcs
    (where a pronoun's arc still means what it meant)."""

    arcs: frozenset
    other_lemmas: tuple[frozenset, ...]
    linked: frozenset
    target_arcs: frozenset = frozenset()


def premise_view(sentences: Sequence[Sentence], premise: Sequence[int], target: Optional[int]) -> PremiseView:
    """The premise sentences' arcs and lemmas."""
    keys = frozenset().union(*(arc_keys(extract_arcs(sentences[i].tokens)) for i in premise))
    lemmas = tuple(frozenset(t.lemma.lower() for t in sentences[i].tokens) for i in premise if i != target)
    own = arc_keys(extract_arcs(sentences[target].tokens)) if target is not None else frozenset()
    return PremiseView(keys, lemmas, frozenset(frozenset((h, c)) for h, c, _ in keys), own)


def premise_text(sentences: Sequence[Sentence], premise: Sequence[int]) -> str:
    """The premise block: its sentences joined by a space (SummaC's 2sents blocks are joined so)."""
    return " ".join(sentences[i].text for i in premise)


def token_spans(text: str, tokens: Sequence[Token]) -> list[tuple[int, int]]:
    """[start, end) characters of each token in the text it was parsed from."""
    spans, position = [], 0
    for token in tokens:
        start = text.find(token.text, position)
        start = position if start < 0 else start
        spans.append((start, start + len(token.text)))
        position = start + len(token.text)
    return spans


def changed_tokens(hypothesis: Hypothesis, tokens: Sequence[Token]) -> dict[int, int]:
    """Hypothesis token -> the changed character span it overlaps (every token in one span, for evidence removal:
    the whole claim is what the premise lost)."""
    if hypothesis.rule == EVIDENCE_REMOVAL:
        return {i: 0 for i in range(len(tokens))}
    return {i: k for i, (s, e) in enumerate(token_spans(hypothesis.text, tokens))
            for k, (start, end) in enumerate(hypothesis.changed) if s < end and start < e}


def touches_change(arc, changed: dict[int, int], rule: str) -> bool:
    """Whether the arc says something the change made: it touches a changed word, and, for recombination, is not
    inside one exchanged phrase (a phrase copied from the premise says there what it said: "$350")."""
    if arc.head not in changed and arc.child not in changed:
        return False
    return not (rule == RECOMBINATION and changed.get(arc.head, -1) == changed.get(arc.child, -2))


def arc_label(key: tuple[str, str, str], touches_change: bool, pronoun: bool, rule: str,
              view: PremiseView, inside_rewrite: bool = False) -> Optional[int]:
    """The generalised rule: an arc with a pronoun (outside a restatement) is 1 only where the rewritten sentence
    itself has it, else unlabelled (the premise's "they" may be other people: lemmas cannot tell); otherwise 1 in
    d(premise); a restatement's joining arcs and arcs relating two words the premise relates 1 (the rule made the
    sentence to say the premise's facts), its other arcs unlabelled (a re-parse moved them); otherwise unlabelled
    where the arc is untouched by the change (the re-parse moved it, the fact did not move), or where another premise
    sentence holds both words (it may say the same in other words); else 0. A rewording (key: its rewritten words
    read as the words they stand for) is 1 in d(premise) or inside one rewritten phrase (the rule made it from the
    premise's words), else unlabelled, never 0."""
    if pronoun and rule != RESTATEMENT:  # a restatement keeps its pronouns beside what they referred to
        return ENTAILED_ARC if key in view.target_arcs else None
    if key in view.arcs:
        return ENTAILED_ARC
    if rule == REWORDING:
        return ENTAILED_ARC if inside_rewrite else None
    if rule == RESTATEMENT:
        return ENTAILED_ARC if touches_change or frozenset(key[:2]) in view.linked else None
    if not touches_change:
        return None
    if any(key[0] in lemmas and key[1] in lemmas for lemmas in view.other_lemmas):
        return None
    return NOT_ENTAILED_ARC


def label_hypothesis(sentences: Sequence[Sentence], hypothesis: Hypothesis, tokens: Sequence[Token],
                     source: str, source_id: str, document_id: str) -> ArcExample:
    """The ArcExample of a rule's hypothesis against its premise block, every content arc labelled 1 / 0 / None."""
    view = premise_view(sentences, hypothesis.premise, hypothesis.target)
    changed = changed_tokens(hypothesis, tokens)
    stands_for = meant_lemmas(hypothesis, tokens)
    arcs = []
    for arc in extract_arcs(list(tokens)):
        pronoun = tokens[arc.head].pos == "PRON" or tokens[arc.child].pos == "PRON"
        key = (stands_for.get(arc.head, arc.key[0]), stands_for.get(arc.child, arc.key[1]), arc.key[2])
        inside = hypothesis.rule == REWORDING and arc.head in changed and changed[arc.head] == changed.get(arc.child)
        label = arc_label(key, touches_change(arc, changed, hypothesis.rule), pronoun, hypothesis.rule, view, inside)
        arcs.append(LabelledArc.of(arc, label, arc.key in view.arcs))
    premise = premise_text(sentences, hypothesis.premise)
    generator = f"{GENERATOR}:{hypothesis.rule}:{hypothesis.variant}"
    return ArcExample(id=content_id(generator, document_id, premise, hypothesis.text), premise=premise,
                      hypothesis=hypothesis.text, hypothesis_tokens=[t.text for t in tokens], arcs=arcs,
                      kind=hypothesis.rule, generator=generator, source=source, source_id=source_id,
                      document_id=document_id)


def meant_lemmas(hypothesis: Hypothesis, tokens: Sequence[Token]) -> dict[int, str]:
    """Hypothesis token -> the premise lemma it stands for, for each word an entailed rewrite brought (found by its
    text or lemma: the re-parse may lemmatise it either way)."""
    means = dict(hypothesis.means)
    return {i: means.get(t.text.lower(), means.get(t.lemma.lower())) for i, t in enumerate(tokens)
            if t.text.lower() in means or t.lemma.lower() in means}


@dataclass(frozen=True)
class DocumentView:
    """What the doubtful-row filter reads of the whole document: each sentence's arcs and its words (lower-cased
    texts and lemmas)."""

    arcs: tuple[frozenset, ...]
    words: frozenset


def document_view(sentences: Sequence[Sentence]) -> DocumentView:
    """The document's arcs per sentence and its words."""
    return DocumentView(tuple(arc_keys(extract_arcs(s.tokens)) for s in sentences),
                        frozenset(w for s in sentences for t in s.tokens for w in (t.text.lower(), t.lemma.lower())))


def doubtful(example: ArcExample, hypothesis: Hypothesis, tokens: Sequence[Token], document: DocumentView
             ) -> tuple[ArcExample, list[str]]:
    """The example with its doubtful arcs unlabelled, and the reason for each: a 0 arc some document sentence outside
    the premise, the rewritten sentence and the evidence taken out holds (the document says it: no error), and a 1
    arc with a word neither the document nor a listed rewrite gives (nothing explains why it is entailed)."""
    consulted = set(range(len(document.arcs))) - set(hypothesis.premise) - set(hypothesis.withheld) - (
        {hypothesis.target} if hypothesis.target is not None else set())
    elsewhere = frozenset().union(*(document.arcs[j] for j in consulted))
    explained = document.words | {new for new, _ in hypothesis.means} | words_of_pieces(hypothesis)
    arcs, reasons = [], []
    for arc in example.arcs:
        words = [(tokens[i].text.lower(), tokens[i].lemma.lower()) for i in (arc.head, arc.child)]
        if arc.entailed == NOT_ENTAILED_ARC and arc.key in elsewhere:
            reasons.append(f"{example.kind}:{SUPPORTED_ELSEWHERE}")
        elif arc.entailed == ENTAILED_ARC and any(text not in explained and lemma not in explained
                                                  for text, lemma in words):
            reasons.append(f"{example.kind}:{UNEXPLAINED}")
        else:
            arcs.append(arc)
            continue
        arcs.append(dataclasses.replace(arc, entailed=None))
    return dataclasses.replace(example, arcs=arcs), reasons


def words_of_pieces(hypothesis: Hypothesis) -> frozenset:
    """The words inside a rewording's rewritten phrases ("33-year-old": 33, year, old)."""
    if hypothesis.rule != REWORDING:
        return frozenset()
    return frozenset(w for start, end in hypothesis.changed for w in WORD.findall(hypothesis.text[start:end].lower()))


def hypothesis_label(example: ArcExample) -> Optional[int]:
    """The hypothesis's own label: 0 when an arc is 0, 1 when every arc is 1, None when it rests on unlabelled arcs."""
    labels = [a.entailed for a in example.arcs]
    if NOT_ENTAILED_ARC in labels:
        return NOT_ENTAILED_ARC
    return ENTAILED_ARC if labels and all(label == ENTAILED_ARC for label in labels) else None
