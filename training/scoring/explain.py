"""Where a summary goes wrong (the DAE paper's point: arc-level entailment localizes errors, Goyal & Durrett 2020 §1):
every summary word with how unsupported it is, and every summary sentence with its score and the document block
that supports it best. Pure functions over what DocumentScorer computed; no torch, no Beam.

The word rule (docs/scoring.md): a word is the summary's text between spaces, as given. An arc (head -> child) asks
whether its child, attached to its head by its relation, is supported; so a word's `unsupported` is the largest
P(not entailed) = 1 - p over the content arcs (DaeScorer's, from the sentence's best block) whose child is a token of
the word. A word that is the child of no content arc (the root verb; a determiner, a preposition, punctuation: the
relations the DAE labelling leaves out) gets its sentence's unsupported, 1 - the sentence's score. A pair model has
no arcs: every word gets its sentence's unsupported. A word in a sentence the model cannot score gets the summary's.
Several models (a detector's members) join a word as they join a row: the mean of the log-odds of 1 - unsupported.
WordRule names the alternatives bench/ and the spans benchmark measure (any arc touching the word; the mean; zero).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence

from entailgen.schemas.records import EvidenceSpan, ExplainedSentence, ExplainedWord, WordArc
from entailgen.transforms.passages import Passage
from entailgen.training.scoring.summac import ensemble_score
from entailgen.training.scoring.unscorable import Unscorable

MAX, MEAN = "max", "mean"  # how the arcs behind a word make its score
CHILD, TOUCHING = "child", "touching"  # which arcs are behind a word: those it is the child of, or any it is in
SENTENCE, ZERO = "sentence", "zero"  # what a word with no arc behind it gets: its sentence's unsupported, or 0


@dataclass(frozen=True)
class WordRule:
    """How arc probabilities become word scores: which arcs are behind a word (`arcs`: child or touching), how their
    1 - p pool (`pool`: max or mean), and what a word with none gets (`untouched`: its sentence's unsupported, or 0)."""

    arcs: str = CHILD
    pool: str = MAX
    untouched: str = SENTENCE

    def __post_init__(self):
        if self.arcs not in (CHILD, TOUCHING) or self.pool not in (MAX, MEAN) or self.untouched not in (SENTENCE, ZERO):
            raise ValueError(f"unknown word rule {self.arcs}/{self.pool}/{self.untouched}: arcs child or touching, "
                             "pool max or mean, untouched sentence or zero")


@dataclass(frozen=True)
class SentenceEvidence:
    """What one model said of one summary sentence: its score or why it could not, its best block (or passage), the
    DAE model's parse of the sentence (hypothesis_tokens, arcs; None for a pair model) and the passages its arcs were
    read from (each arc's `evidence`: an index into them; none given: every arc from the best block)."""

    text: str
    score: float | Unscorable
    block: Optional[str] = None
    parse: Optional[dict] = None
    passages: tuple[Passage, ...] = ()

    @property
    def sources(self) -> tuple[Passage, ...]:
        """The passages the sentence's arcs were read from: the best block alone where no others are named."""
        return self.passages or ((Passage(self.block, (self.block,)),) if self.block else ())


def passage_spans(document: str, passage: Passage) -> list[tuple[int, int]]:
    """Where each run of a passage is in the document, in order (whitespace and case read as locate reads them)."""
    spans, cursor = [], 0
    for run in passage.runs:
        match = locate(run, document, cursor) or locate(run, document)
        if match is not None:
            spans.append((match.start(), match.end()))
            cursor = match.end()
    return spans


def arc_evidence(document: str, spans: Sequence[tuple[int, int]], arc: dict) -> Optional[tuple[int, int]]:
    """The document span an arc's probability was read from: of its passage's runs (their spans in the document), the
    one that holds both the arc's words (else its child's, else the first run)."""
    if not spans:
        return None
    words = [re.compile(rf"\b{re.escape(arc[end + '_word'])}\b", re.IGNORECASE) for end in ("child", "head")]
    for wanted in (words, words[:1]):
        found = [span for span in spans if all(w.search(document, *span) for w in wanted)]
        if found:
            return found[0]
    return spans[0]


@dataclass(frozen=True)
class Explanation:
    """A scored (document, summary) row explained: its score, every word of the summary, every summary sentence."""

    document: str
    summary: str
    score: float
    words: list[ExplainedWord]
    sentences: list[ExplainedSentence]


def words_of(text: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of each word of a text as given: the runs between whitespace, so joining the words' slices
    gives back the text's non-space characters."""
    return [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", text)]


def locate(needle: str, text: str, start: int = 0, ignore_case: bool = False) -> Optional[re.Match]:
    """Where `needle` occurs in `text` from `start`, any run of whitespace matching any other (the scorer reads texts
    with their whitespace collapsed; a summary in lower case was read truecased): the first match, or None."""
    chunks = needle.split()
    if not chunks:
        return None
    pattern = re.compile(r"\s+".join(map(re.escape, chunks)), re.IGNORECASE if ignore_case else 0)
    return pattern.search(text, start)


def unsupported_of(score: float) -> float:
    """How unsupported a score says its text is, in [0, 1]: 1 - score (an e-c score below 0 counts as 1)."""
    return round(min(1.0, max(0.0, 1.0 - score)), 6)


def token_spans(match: re.Match, sentence: str, tokens: Sequence[str]) -> list[Optional[tuple[int, int]]]:
    """Each parser token's (start, end) in the summary, the sentence found there at `match`: the tokens are found in
    the sentence in order, and a sentence position maps to the summary by its count of non-space characters (the two
    differ only in whitespace and case)."""
    in_summary = [match.start() + i for i, c in enumerate(match.group()) if not c.isspace()]
    rank, k = {}, 0
    for i, c in enumerate(sentence):
        if not c.isspace():
            rank[i] = k
            k += 1
    spans: list = []
    cursor = 0
    for token in tokens:
        at = sentence.find(token, cursor) if token.strip() else -1
        if at < 0 or at not in rank or at + len(token) - 1 not in rank or rank[at + len(token) - 1] >= len(
                in_summary):
            spans.append(None)
            continue
        cursor = at + len(token)
        spans.append((in_summary[rank[at]], in_summary[rank[at + len(token) - 1]] + 1))
    return spans


def sentence_spans(summary: str, sentences: Sequence[str]) -> list[Optional[re.Match]]:
    """Where each scored sentence is in the summary, in order (case ignored: a lower-case summary was truecased)."""
    out, cursor = [], 0
    for sentence in sentences:
        match = locate(sentence, summary, cursor, ignore_case=True)
        out.append(match)
        cursor = match.end() if match else cursor
    return out


def member_words(words: Sequence[tuple[int, int, str]], evidence: Sequence[SentenceEvidence],
                 spans: Sequence[Optional[re.Match]], row_score: float, rule: WordRule, document: str = ""
                 ) -> list[tuple[Optional[float], list[WordArc]]]:
    """One model's (unsupported, the arcs behind it, each with the document span it was read from) per word by the
    rule; None where this model could not score the word's sentence."""
    arcs_at: list[tuple[int, int, dict]] = []  # (start, end) in the summary of each arc's token, and the arc
    read_from: dict[int, Optional[tuple[int, int]]] = {}  # id of an arc -> its evidence span in the document
    for sentence, match in zip(evidence, spans):
        if match is None or sentence.parse is None:
            continue
        tokens = token_spans(match, sentence.text, sentence.parse["hypothesis_tokens"])
        located = [passage_spans(document, p) for p in sentence.sources]  # each passage found once, not per arc
        for arc in sentence.parse["arcs"]:
            read_from[id(arc)] = arc_evidence(document, located[arc.get("evidence", 0)], arc) if located else None
            for end in (("child",) if rule.arcs == CHILD else ("head", "child")):
                if tokens[arc[end]] is not None:
                    arcs_at.append((*tokens[arc[end]], arc))
    out = []
    for start, end, _ in words:
        index = sentence_index(spans, start)
        own = evidence[index] if index is not None else None
        if own is not None and isinstance(own.score, Unscorable):
            out.append((None, []))
            continue
        behind = list({id(a): a for s, e, a in arcs_at if s < end and start < e}.values())
        if behind:
            ps = [1.0 - a["entailed_probability"] for a in behind]
            value = max(ps) if rule.pool == MAX else sum(ps) / len(ps)
            arcs = [WordArc(a["rel"], a["head_word"], a["child_word"], a["entailed_probability"],
                            *(read_from.get(id(a)) or (None, None))) for a in behind]
            out.append((round(min(1.0, max(0.0, value)), 6), arcs))
        elif rule.untouched == ZERO:
            out.append((0.0, []))
        else:
            out.append((unsupported_of(own.score if own is not None else row_score), []))
    return out


def sentence_index(spans: Sequence[Optional[re.Match]], start: int) -> Optional[int]:
    """The index of the sentence whose span holds a word starting at `start`, or None."""
    return next((i for i, m in enumerate(spans) if m is not None and m.start() <= start < m.end()), None)


def joined_unsupported(values: Sequence[Optional[float]]) -> Optional[float]:
    """Several models' unsupported of one word as one: the mean log-odds of their 1 - unsupported (one model: its
    own); None when no model scored it."""
    good = [v for v in values if v is not None]
    if len(good) <= 1:
        return good[0] if good else None
    return round(1.0 - ensemble_score([1.0 - v for v in good]), 6)


def explanation(document: str, summary: str, score: float, members: Sequence[Sequence[SentenceEvidence]],
                rule: WordRule = WordRule()) -> Explanation:
    """A row's Explanation from each model's evidence (the same sentences, in order): every word of the summary
    scored (a word in a sentence no model scored, or in none, gets the summary's unsupported), every sentence with its
    joined score and the first scoring model's best block, located in the document."""
    sentences = [e.text for e in members[0]]
    spans = sentence_spans(summary, sentences)
    words = words_of(summary)
    per_member = [member_words(words, evidence, spans, score, rule, document) for evidence in members]
    explained_words = []
    for w, (start, end, text) in enumerate(words):
        values = [m[w][0] for m in per_member]
        value = joined_unsupported(values)
        arcs = [a for m in per_member for a in m[w][1]]
        explained_words.append(ExplainedWord(start, end, text, unsupported_of(score) if value is None else value,
                                             sentence_index(spans, start), arcs))
    explained_sentences = []
    for i, (text, match) in enumerate(zip(sentences, spans)):
        said = [m[i] for m in members]
        scores = [s.score for s in said if not isinstance(s.score, Unscorable)]
        best = next((s for s in said if not isinstance(s.score, Unscorable)), None)
        where = locate(best.block, document) if best is not None and best.block else None
        read = sorted({span for s in said if not isinstance(s.score, Unscorable) for p in s.sources
                       for span in passage_spans(document, p)})
        explained_sentences.append(ExplainedSentence(
            text, match.start() if match else None, match.end() if match else None,
            (scores[0] if len(scores) == 1 else round(ensemble_score(scores), 6)) if scores else None,
            best.block if best else None, where.start() if where else None, where.end() if where else None,
            None if scores else str(said[0].score), [EvidenceSpan(*span) for span in read] if read else None))
    return Explanation(document, summary, score, explained_words, explained_sentences)
