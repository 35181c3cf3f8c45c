"""Record types every stage passes along and every shard stores (DESIGN.md, "Records")."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from entailgen.schemas.ids import content_id

# Labels of the two-way RTE decision; 3-way labels are kept beside them when a source has them.
ENTAILED = "entailed"
NOT_ENTAILED = "not-entailed"
THREE_WAY = ("entailment", "neutral", "contradiction")

# ArcExample kinds: where a hypothesis came from, a generator's beam (Goyal & Durrett 2020 §4) or an augmentation
# (§5.3's four, then entailgen's span deletion and dialogue phrases), each written once here.
GENERATED_KINDS = ("gold", "identity", "top1", "bottom")
AUGMENTED_KINDS = ("word_swap", "synonym", "hallucination", "overlap", "span_deletion", "dialogue")
# The document-arcs family's rules: hypotheses against a block of their own document.
DOCUMENT_KINDS = ("evidence_removal", "recombination", "restatement", "extrinsic_attachment", "rewording")
ARC_KINDS = GENERATED_KINDS + AUGMENTED_KINDS + DOCUMENT_KINDS


@dataclass(frozen=True)
class Token:
    """One token of a dependency parse; head is the index of the head token, -1 for the root."""

    text: str
    lemma: str
    pos: str
    tag: str
    ner: str
    head: int
    dep: str
    space_after: bool = True


@dataclass(frozen=True)
class Arc:
    """An enhanced-style dependency arc; its key compares arcs across sentences by lemma and relation."""

    head: int
    child: int
    rel: str
    head_lemma: str
    child_lemma: str

    @property
    def key(self) -> tuple[str, str, str]:
        """Identity for set membership across sentences: (head lemma, child lemma, relation)."""
        return (self.head_lemma.lower(), self.child_lemma.lower(), self.rel)


@dataclass(frozen=True)
class LabelledArc:
    """An arc of a hypothesis with its entailment label: 1, 0 or None (unlabelled), and whether the premise's parse
    has the arc (the lexical-match prediction of DAE Table 2; None where the premise parse was not at hand)."""

    head: int
    child: int
    rel: str
    head_lemma: str
    child_lemma: str
    entailed: Optional[int]
    in_premise: Optional[bool] = None

    @classmethod
    def of(cls, arc: Arc, entailed: Optional[int], in_premise: Optional[bool] = None) -> "LabelledArc":
        """Attach a label (and the lexical-match prediction) to an arc."""
        return cls(arc.head, arc.child, arc.rel, arc.head_lemma, arc.child_lemma, entailed, in_premise)

    @property
    def key(self) -> tuple[str, str, str]:
        """Same identity as Arc.key."""
        return (self.head_lemma.lower(), self.child_lemma.lower(), self.rel)


@dataclass(frozen=True)
class ParsedSentence:
    """A sentence with its tokens and enhanced-style arcs, and where it came from."""

    id: str
    text: str
    tokens: list[Token]
    arcs: list[Arc]
    parser: str
    source: str = ""
    source_id: str = ""
    role: str = "text"
    split: Optional[str] = None

    @property
    def words(self) -> list[str]:
        """The token texts."""
        return [t.text for t in self.tokens]


@dataclass(frozen=True)
class ArcExample:
    """A (premise, hypothesis) pair with per-arc entailment labels (the dae family)."""

    id: str
    premise: str
    hypothesis: str
    hypothesis_tokens: list[str]
    arcs: list[LabelledArc]
    kind: str
    generator: str
    source: str
    source_id: str
    beam_rank: Optional[int] = None
    beam_score: Optional[float] = None
    label: Optional[int] = None  # sentence-level label (the paper's sentence-level variant); None at arc level
    split: Optional[str] = None
    document_id: Optional[str] = None  # document-arcs: the hash of the document's text, its split context


@dataclass(frozen=True)
class RtePair:
    """A premise/hypothesis pair recast from another annotation (recast, nli-dialogue families)."""

    id: str
    premise: str
    hypothesis: str
    label: str  # entailed / not-entailed
    phenomenon: str
    template: str
    source: str
    source_id: str
    label3: Optional[str] = None  # entailment / neutral / contradiction, when the source has it
    kind: str = "original"
    phrase: Optional[str] = None  # the dialogue phrase prepended, for kind == "dialogue"
    split: Optional[str] = None
    provenance: Optional[str] = None  # JSON: how the label was made (relation recast: KB triple, mention spans)


# ClaimExample labels (FactCC) and the transformations that made them (Kryściński et al. 2020 §3.2).
CORRECT = "CORRECT"
INCORRECT = "INCORRECT"
CLAIM_TRANSFORMATIONS = ("sentence_sampling", "summary", "backtranslation", "pronoun_swap", "entity_swap",
                         "number_swap", "date_swap", "negation", "compression", "rewording", "role_swap", "extrinsic",
                         "annotated")


@dataclass(frozen=True)
class ClaimExample:
    """A claim checked against a whole document split into premise blocks (the claims family; SummaC granularity).

    A document row has the whole document as premise and its ordered blocks; a block row (block_index set) has one
    block as premise and keeps the document's label, which is noisy per block. Spans are [start, end) characters:
    claim_span in the claim, source_span in source_sentence, extraction_span of source_sentence in the document.
    """

    id: str
    document_id: str
    premise: str
    blocks: list[str]
    granularity: str
    claim: str
    label: str  # CORRECT / INCORRECT
    entailment: str  # entailed / not-entailed
    transformation: str
    source_sentence: str
    backtranslation: bool
    noise: bool
    source: str
    source_id: str
    claim_span: Optional[list[int]] = None
    source_span: Optional[list[int]] = None
    extraction_span: Optional[list[int]] = None
    generator: Optional[str] = None
    dataset_id: Optional[str] = None
    block_index: Optional[int] = None
    split: Optional[str] = None


@dataclass(frozen=True)
class ScoredParaphrase:
    """A sentence x and its round-trip paraphrase h* with their similarity (fields text/gold: what dae's reader takes)."""

    id: str
    text: str
    gold: str
    similarity: float
    generator: str
    source: str
    source_id: str
    split: Optional[str] = None


@dataclass(frozen=True)
class ArcScore:
    """A hypothesis arc (word indices into the hypothesis tokens) with a trained DAE model's entailment probability."""

    head: int
    child: int
    rel: str
    head_word: str
    child_word: str
    entailed_probability: float


@dataclass(frozen=True)
class LabelProbability:
    """A pair model's probability of one of its labels for a pair."""

    label: str
    probability: float


@dataclass(frozen=True)
class ScoredPair:
    """A (premise, hypothesis) pair with its score: a DAE arc model's arcs' entailment probabilities and their mean,
    or a pair model's P(entailed) (or e-c) with each label's probability (no tokens or arcs: it reads the pair
    whole)."""

    id: str
    premise: str
    hypothesis: str
    hypothesis_tokens: list[str]
    arcs: list[ArcScore]
    score: float
    source: str
    source_id: str
    split: str = "scored"  # one split: scoring assigns none
    probabilities: list[LabelProbability] = dataclasses.field(default_factory=list)  # a pair model's; a dae's: none


@dataclass(frozen=True)
class WordArc:
    """A content arc behind a summary word: its relation, words and the DAE model's entailment probability, and the
    document passage that probability was read from (evidence_start/evidence_end: character offsets in the document)."""

    rel: str
    head_word: str
    child_word: str
    entailed_probability: float
    evidence_start: Optional[int] = None
    evidence_end: Optional[int] = None


@dataclass(frozen=True)
class EvidenceSpan:
    """A passage of the document a summary sentence's arcs drew on (character offsets in the document)."""

    start: int
    end: int


@dataclass(frozen=True)
class ExplainedWord:
    """A summary word as given (whitespace-separated; start/end: character offsets into the summary) with how
    unsupported it is in [0, 1] (training.scoring.explain's rule), its sentence's index and the arcs behind it."""

    start: int
    end: int
    text: str
    unsupported: float
    sentence: Optional[int] = None  # index in the row's sentences; None: in no sentence the parser found
    arcs: Optional[list[WordArc]] = None


@dataclass(frozen=True)
class ExplainedSentence:
    """A summary sentence (start/end in the summary) with its score and the document block that supports it best
    (block_start/block_end in the document); a sentence the model cannot score has no score and says why."""

    text: str
    start: Optional[int]
    end: Optional[int]
    score: Optional[float]
    block: Optional[str] = None
    block_start: Optional[int] = None
    block_end: Optional[int] = None
    unscorable: Optional[str] = None
    passages: Optional[list[EvidenceSpan]] = None  # every passage its arcs (or its score) were read from


@dataclass(frozen=True)
class ScoredDocument:
    """A (document, summary) row scored at document level (SummaC §3): per summary sentence its best block's score,
    and the summary's score (SummaC-ZS: their mean; Conv: the head's P(consistent)); higher = more consistent."""

    id: str
    document: str
    summary: str
    blocks: int
    summary_sentences: list[str]
    sentence_scores: list[float]
    score: float
    aggregation: str
    granularity: str
    source: str
    source_id: str
    split: str = "scored"
    words: Optional[list[ExplainedWord]] = None  # score --explain: every summary word, how unsupported
    sentences: Optional[list[ExplainedSentence]] = None  # score --explain: every summary sentence, its block


@dataclass(frozen=True)
class DeadLetter:
    """A bad input or a failed stage, kept with enough context to find and fix it: nothing is dropped."""

    id: str
    source: str
    source_id: str
    stage: str
    error_type: str
    message: str
    raw: str = ""


@dataclass(frozen=True)
class Skipped:
    """An input left out on purpose (an ambiguous factuality value, a sentence without mentions): counted, not lost."""

    source: str
    source_id: str
    stage: str
    reason: str


RAW_LIMIT = 1000


def _writable(text):
    """Text as UTF-8 can write it: a lone surrogate as its backslash escape (anything else as it is)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8") if isinstance(text, str) else text


def dead_letter(source: str, source_id: str, stage: str, error_type: str, message: str, raw: object = "") -> DeadLetter:
    """Build a DeadLetter with a content id and the raw input truncated to RAW_LIMIT characters; a lone surrogate in
    its text (a JSON escape, "\\ud800") written as its escape, so the dead letter of text no record may hold is
    writable."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    source, source_id, message, text = (_writable(t) for t in (source, source_id, message, text[:RAW_LIMIT]))
    return DeadLetter(content_id(source, source_id, stage, error_type, message, text), source, source_id, stage,
                      error_type, message, text)


RECORD_TYPES = {cls.__name__: cls for cls in (ParsedSentence, ArcExample, RtePair, ClaimExample, ScoredParaphrase,
                                                    ScoredPair, ScoredDocument, DeadLetter)}


def with_split(record, split: str):
    """The record with its split set."""
    return dataclasses.replace(record, split=split)


__all__ = [
    "ENTAILED", "NOT_ENTAILED", "THREE_WAY", "GENERATED_KINDS", "AUGMENTED_KINDS", "DOCUMENT_KINDS", "ARC_KINDS",
    "Token", "Arc",
    "LabelledArc", "ParsedSentence", "ArcExample", "RtePair", "CORRECT", "INCORRECT", "CLAIM_TRANSFORMATIONS",
    "ClaimExample", "ScoredParaphrase", "ArcScore", "LabelProbability", "ScoredPair", "WordArc", "EvidenceSpan", "ExplainedWord",
    "ExplainedSentence", "ScoredDocument",
    "DeadLetter", "Skipped", "dead_letter", "RECORD_TYPES", "with_split",
]
