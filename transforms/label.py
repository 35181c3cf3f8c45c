"""DAE arc labels (Goyal & Durrett 2020 §4): which dependency arcs of a hypothesis the source x entails.

For input x, gold paraphrase h* and beam h1..hk (best first), with d(s) the arc set of s:
  gold h*       every arc 1;
  top-1 h1      only its arcs in d(x) ∪ d(h*), each 1 (the rest are left out);
  bottom h_{k-n+1}..h_k   1 if in d(x) ∪ d(h*), unlabelled (None) if only in d(h1) \\ (d(x) ∪ d(h*)), else 0.
Sentence-level variant: (x, h*) and (x, x) entailed, the bottom n hypotheses not entailed.

Edge cases: the beam is cut to the k best ranks; hypotheses that tokenise identically are kept once (best rank), so
the bottom n are n distinct texts; with fewer than n + 1 hypotheses the bottom is every hypothesis after h1 (none when
only h1 is left). A hypothesis identical to x or h* keeps its arc labels (they come out entailed, as the rules say);
at sentence level it is never used as a negative. Examples without a single arc are left out unless keep_empty.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

import apache_beam as beam
from apache_beam import pvalue

from entailgen.schemas.ids import content_id
from entailgen.schemas.records import GENERATED_KINDS, ArcExample, LabelledArc, ParsedSentence, Skipped, dead_letter
from entailgen.transforms.arcs import arc_keys
from entailgen.transforms.generate import ROLE_CANDIDATE, Candidate

DEAD = "dead"
SKIPPED = "skipped"
TALLIES = "tallies"
ENTAILED_ARC, NOT_ENTAILED_ARC = 1, 0


@dataclass(frozen=True)
class LabelConfig:
    """Beam size k, how many bottom hypotheses to label, arc- or sentence-level, and the parse roles of x and h*."""

    k: int = 10
    bottom: int = 3
    level: str = "arc"  # arc | sentence
    keep_empty: bool = False
    source_role: str = "source"
    gold_role: str = "gold"


@dataclass(frozen=True)
class ParsedCandidate:
    """A beam hypothesis with its parse."""

    candidate: Candidate
    parse: ParsedSentence


def beam_of(candidates: Iterable[ParsedCandidate], k: int) -> list[ParsedCandidate]:
    """The hypotheses of ranks 1..k, best first, one per distinct token sequence (its best rank kept)."""
    beam: list[ParsedCandidate] = []
    seen: set[tuple[str, ...]] = set()
    for c in sorted(candidates, key=lambda c: (c.candidate.rank, c.candidate.text)):
        words = tuple(c.parse.words)
        if c.candidate.rank <= k and words not in seen:
            seen.add(words)
            beam.append(c)
    return beam


def bottom_of(beam: Sequence[ParsedCandidate], n: int) -> list[ParsedCandidate]:
    """The n worst hypotheses after h1 (h_{k-n+1}..h_k when the beam is full)."""
    return list(beam[1:][-n:]) if n > 0 else []


def bottom_label(key: tuple[str, str, str], entailed: frozenset, top_only: frozenset) -> Optional[int]:
    """1 if x or h* has the arc; unlabelled if only h1 has it (h1 is plausibly right there); else 0."""
    if key in entailed:
        return ENTAILED_ARC
    return None if key in top_only else NOT_ENTAILED_ARC


def _example(source: ParsedSentence, hypothesis: ParsedSentence, kind: str, arcs: list[LabelledArc],
             generator: str, candidate: Optional[Candidate] = None, label: Optional[int] = None) -> ArcExample:
    """An ArcExample of premise x and a hypothesis, with a content id."""
    rank = candidate.rank if candidate else None
    score = candidate.score if candidate else None
    return ArcExample(
        id=content_id("dae", kind, source.source_id, source.text, hypothesis.text, generator, rank, label),
        premise=source.text, hypothesis=hypothesis.text, hypothesis_tokens=hypothesis.words, arcs=arcs, kind=kind,
        generator=generator, source=source.source, source_id=source.source_id, beam_rank=rank, beam_score=score,
        label=label)


def label_arcs(source: ParsedSentence, gold: ParsedSentence, candidates: Iterable[ParsedCandidate],
               config: LabelConfig = LabelConfig()) -> list[ArcExample]:
    """Arc-labelled examples for x: gold h*, top-1 h1 and the bottom hypotheses, by the DAE rules."""
    d_x = arc_keys(source.arcs)
    entailed = d_x | arc_keys(gold.arcs)
    examples = [_example(source, gold, "gold", [LabelledArc.of(a, ENTAILED_ARC, a.key in d_x) for a in gold.arcs],
                         "gold")]
    beam = beam_of(candidates, config.k)
    if beam:
        top = beam[0]
        examples.append(_example(source, top.parse, "top1",
                                 [LabelledArc.of(a, ENTAILED_ARC, a.key in d_x) for a in top.parse.arcs
                                  if a.key in entailed],
                                 top.candidate.generator, top.candidate))
        top_only = arc_keys(top.parse.arcs) - entailed
        for h in bottom_of(beam, config.bottom):
            arcs = [LabelledArc.of(a, bottom_label(a.key, entailed, top_only), a.key in d_x) for a in h.parse.arcs]
            examples.append(_example(source, h.parse, "bottom", arcs, h.candidate.generator, h.candidate))
    return [e for e in examples if e.arcs or config.keep_empty]


def label_sentences(source: ParsedSentence, gold: ParsedSentence, candidates: Iterable[ParsedCandidate],
                    config: LabelConfig = LabelConfig()) -> list[ArcExample]:
    """Sentence-level examples: (x, h*) and (x, x) entailed, the bottom n hypotheses (never copies of x or h*) not."""
    positives = {tuple(source.words), tuple(gold.words)}
    beam = beam_of(candidates, config.k)
    negatives = bottom_of(beam[:1] + [h for h in beam[1:] if tuple(h.parse.words) not in positives], config.bottom)
    return ([_example(source, gold, "gold", [], "gold", label=ENTAILED_ARC),
             _example(source, source, "identity", [], "identity", label=ENTAILED_ARC)]
            + [_example(source, h.parse, "bottom", [], h.candidate.generator, h.candidate, label=NOT_ENTAILED_ARC)
               for h in negatives])


def join_candidates(candidates: Iterable[Candidate], parses: Iterable[ParsedSentence]) -> list[ParsedCandidate]:
    """Each candidate with the parse of its text; candidates whose parse failed (a parse DeadLetter) drop out here."""
    by_text = {p.text: p for p in parses}
    return [ParsedCandidate(c, by_text[c.text]) for c in candidates if c.text in by_text]


def unpack_group(source_id: str, group: dict, config: LabelConfig):
    """(x, h*, parsed beam) of one CoGroupByKey group, or a DeadLetter saying what is missing or ambiguous."""
    parsed = list({(p.role, p.id): p for p in group.get("parsed", ())}.values())  # repeated lines parse alike
    sources = [p for p in parsed if p.role == config.source_role]
    golds = [p for p in parsed if p.role == config.gold_role]
    problems = [f"{len(found)} {role} parses" for role, found in (("source", sources), ("gold", golds))
                if len(found) != 1]
    if problems:
        raw = (sources or golds or parsed or [None])[0]
        return dead_letter(raw.source if raw else "dae", source_id, "label", "IncompleteGroup",
                           "need exactly one source and one gold parse, got " + ", ".join(problems),
                           raw.text if raw else "")
    beam = join_candidates(group.get("candidates", ()), [p for p in parsed if p.role == ROLE_CANDIDATE])
    return sources[0], golds[0], beam


@dataclass(frozen=True)
class ArcTally:
    """One example's arc labels and, per arc, whether its premise has it (the lexical-match prediction)."""

    kind: str
    labels: tuple
    in_premise: tuple
    label: Optional[int] = None


def arc_tally(example: ArcExample) -> ArcTally:
    """What ArcLabelStats needs from an example: its labels and the stored lexical-match predictions."""
    return ArcTally(example.kind, tuple(a.entailed for a in example.arcs), tuple(a.in_premise for a in example.arcs),
                    example.label)


# The paper's Table 2 (DAE arc data): accuracy of predicting the majority label, and of the lexical-match baseline,
# over the arcs of the §4 kinds (auto-derived from x, h* and the beam); the augmentations (§5.3) are counted apart.
PAPER_TABLE_2 = {"majority_accuracy": 72.7, "lexical_match_accuracy": 74.2}
TABLE_2_KINDS = GENERATED_KINDS
LABEL_NAMES = {ENTAILED_ARC: "entailed", NOT_ENTAILED_ARC: "not_entailed", None: "unlabelled"}


class ArcLabelStats(beam.CombineFn):
    """Arc-label counts of every kind, and the majority / lexical-match accuracies over the labelled arcs of the §4
    kinds (cf. Table 2); table_2=False for data that has no §4 kinds (document-arcs), whose stats then name no
    Table 2 baseline at all rather than a blank one."""

    def __init__(self, table_2: bool = True):
        super().__init__()
        self.table_2 = table_2

    def create_accumulator(self):
        return {"examples": {}, "arcs": {}, "sentence_labels": {}, "lexical_correct": 0}

    def add_input(self, acc, tally: ArcTally):
        acc["examples"][tally.kind] = acc["examples"].get(tally.kind, 0) + 1
        counts = acc["arcs"].setdefault(tally.kind, {name: 0 for name in LABEL_NAMES.values()})
        for label, predicted in zip(tally.labels, tally.in_premise):
            counts[LABEL_NAMES[label]] += 1
            if label is not None and tally.kind in TABLE_2_KINDS and predicted == bool(label):
                acc["lexical_correct"] += 1
        if tally.label is not None:
            name = LABEL_NAMES[tally.label]
            acc["sentence_labels"][name] = acc["sentence_labels"].get(name, 0) + 1
        return acc

    def merge_accumulators(self, accumulators):
        merged = self.create_accumulator()
        for acc in accumulators:
            for field in ("examples", "sentence_labels"):
                for key, n in acc[field].items():
                    merged[field][key] = merged[field].get(key, 0) + n
            for kind, counts in acc["arcs"].items():
                into = merged["arcs"].setdefault(kind, {name: 0 for name in LABEL_NAMES.values()})
                for name, n in counts.items():
                    into[name] += n
            merged["lexical_correct"] += acc["lexical_correct"]
        return merged

    def extract_output(self, acc) -> dict:
        def tally(kinds):
            entailed = sum(c["entailed"] for kind, c in acc["arcs"].items() if kind in kinds)
            return entailed, entailed + sum(c["not_entailed"] for kind, c in acc["arcs"].items() if kind in kinds)

        def pct(n, of):
            return round(100.0 * n / of, 2) if of else None

        entailed, labelled = tally(acc["arcs"])
        out = {"examples": dict(sorted(acc["examples"].items())),
               "arcs": {kind: dict(counts) for kind, counts in sorted(acc["arcs"].items())},
               "sentence_labels": dict(sorted(acc["sentence_labels"].items())),
               "labelled_arcs": labelled, "entailed_arc_pct": pct(entailed, labelled)}
        if not self.table_2:
            return out
        entailed_4, labelled_4 = tally(TABLE_2_KINDS)
        return {**out, "table_2_kinds": list(TABLE_2_KINDS), "table_2_labelled_arcs": labelled_4,
                "majority_accuracy": pct(max(entailed_4, labelled_4 - entailed_4), labelled_4),
                "lexical_match_accuracy": pct(acc["lexical_correct"], labelled_4), "paper_table_2": dict(PAPER_TABLE_2)}


class _LabelGroup(beam.DoFn):
    """Label one source's group; its examples go out with their tallies, an unusable group as a DeadLetter."""

    def __init__(self, config: LabelConfig):
        self.config = config
        self.label = label_sentences if config.level == "sentence" else label_arcs
        self.labelled = beam.metrics.Metrics.counter("entailgen", "labelled")
        self.dead = beam.metrics.Metrics.counter("entailgen", "label_dead")

    def process(self, keyed):
        source_id, group = keyed
        unpacked = unpack_group(source_id, group, self.config)
        if not isinstance(unpacked, tuple):
            self.dead.inc()
            yield pvalue.TaggedOutput(DEAD, unpacked)
            return
        source, gold, beam_ = unpacked
        examples = self.label(source, gold, beam_, self.config)
        if not examples:  # e.g. x and h* without a content arc: counted, never silently lost
            yield pvalue.TaggedOutput(SKIPPED, Skipped(source.source, source_id, "label", "NoArcs"))
        for example in examples:
            self.labelled.inc()
            yield example
            yield pvalue.TaggedOutput(TALLIES, arc_tally(example))


class LabelArcs(beam.PTransform):
    """(source_id, {'parsed': [...], 'candidates': [...]}) -> ArcExample 'examples', ArcTally 'tallies', 'dead',
    and 'skipped' for a source none of whose hypotheses has an arc."""

    def __init__(self, config: LabelConfig = LabelConfig()):
        super().__init__()
        if config.level not in ("arc", "sentence"):
            raise ValueError(f"label level must be 'arc' or 'sentence', not {config.level!r}")
        self.config = config

    def expand(self, groups):
        return groups | "Label" >> beam.ParDo(_LabelGroup(self.config)).with_outputs(TALLIES, DEAD, SKIPPED,
                                                                                      main="examples")
