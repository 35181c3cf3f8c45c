"""Paraphrase pairs (x, h*) from monolingual text: h* is the most similar distinct round trip of x inside a band.

ParaNMT-50M was itself made by back-translation, and DAE (Goyal & Durrett 2020 §4) needs such pairs: this makes them
from a user's own domain text. A candidate above the band is a near copy (nothing for DAE to contrast), one below it
is garbage (a broken translation); an x with no candidate inside the band is Skipped with the reason, never dropped.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Union

import apache_beam as beam
from apache_beam import pvalue

from entailgen.dataset.shard import write_file
from entailgen.schemas.ids import content_id
from entailgen.schemas.records import ScoredParaphrase, Skipped
from entailgen.schemas.sources import SourceText
from entailgen.transforms.generate.rank import load_similarity, normalise
from entailgen.transforms.io import texts_of

STAGE = "paraphrase"
SKIPPED = "skipped"
PARANMT = "paranmt.tsv"


@dataclass(frozen=True)
class SimilarityBand:
    """The similarities h* may have: above `high` a candidate is a near copy of x, below `low` garbage."""

    low: float = 0.75
    high: float = 0.995


@dataclass(frozen=True)
class ChooseOptions:
    """The band, and whether the candidates' scores must be replaced by similarity to x (beam log-likelihoods must;
    Apertium's round trips already come scored by it) with which encoder ('default' MiniLM, a path, None lexical)."""

    band: SimilarityBand = SimilarityBand()
    rescore: bool = False
    encoder: Optional[str] = "default"


def source_sentence(record) -> SourceText:
    """The x of an input record: its first text (a line, a pair's x, an NLI premise), whitespace collapsed."""
    first = texts_of(record)[0]
    return SourceText(normalise(first.text), first.source, first.source_id, "source")


def keep_first(units: Iterable[SourceText]) -> list[Union[SourceText, Skipped]]:
    """Units sharing one text: the first by (source, source_id) stays x; the others are Skipped as DuplicateText."""
    first, *rest = sorted(units, key=lambda u: (u.source, u.source_id))
    return [first, *(Skipped(u.source, u.source_id, STAGE, "DuplicateText") for u in rest)]


def choose_paraphrase(x: SourceText, scored: Iterable[tuple[str, float]], generator: str,
                      band: SimilarityBand = SimilarityBand()) -> Union[ScoredParaphrase, Skipped]:
    """h*: the most similar candidate other than x with low <= similarity <= high (ties by text); else Skipped:
    NoRoundTrip (no candidate differs from x), NearCopy (the closest is above the band) or BelowMinSimilarity."""
    distinct = [(normalise(text), score) for text, score in scored if normalise(text) not in ("", x.text)]
    inside = [(text, score) for text, score in distinct if band.low <= score <= band.high]
    if inside:
        text, score = min(inside, key=lambda c: (-c[1], c[0]))
        return ScoredParaphrase(content_id(x.text, text), x.text, text, float(score), generator, x.source, x.source_id)
    if not distinct:
        reason = "NoRoundTrip"
    else:
        reason = "NearCopy" if max(score for _, score in distinct) > band.high else "BelowMinSimilarity"
    return Skipped(x.source, x.source_id, STAGE, reason)


def paranmt_text(pairs: Iterable[ScoredParaphrase]) -> str:
    """ParaNMT-50M's layout, x<TAB>h*<TAB>score, sorted by x then h* so the same pairs give the same file."""
    rows = sorted((p.text, p.gold, p.similarity) for p in pairs)
    return "".join(f"{x}\t{h}\t{score:.4f}\n" for x, h, score in rows)


class _Choose(beam.DoFn):
    """(source_id, {x, candidates, dead}) -> ScoredParaphrase, or Skipped on 'skipped'; an x whose generation was
    dead-lettered has its outcome already. The encoder, when rescoring, loads once per worker."""

    def __init__(self, options: ChooseOptions):
        self.options = options
        self.chosen = beam.metrics.Metrics.counter("entailgen", "paraphrased")
        self.skipped = beam.metrics.Metrics.counter("entailgen", "paraphrase_skipped")

    def setup(self):
        self.similarity = load_similarity(self.options.encoder) if self.options.rescore else None

    def process(self, element):
        _, group = element
        if group["dead"] or not group["x"]:
            return
        x = group["x"][0]
        candidates = sorted(group["candidates"], key=lambda c: c.rank)
        texts = [c.text for c in candidates]
        generator = candidates[0].generator if candidates else "none"
        if self.similarity is not None:
            scores = self.similarity.score([(x.text, [normalise(t) for t in texts])])[0]
            generator = f"{generator}+{self.similarity.name}"
        else:
            scores = [c.score for c in candidates]
        out = choose_paraphrase(x, zip(texts, scores), generator, self.options.band)
        if isinstance(out, Skipped):
            self.skipped.inc()
            yield pvalue.TaggedOutput(SKIPPED, out)
        else:
            self.chosen.inc()
            yield out


class ChooseParaphrases(beam.PTransform):
    """{'x': SourceText, 'candidates': Candidate, 'dead': DeadLetter} -> ScoredParaphrase (main output 'pairs') and
    Skipped ('skipped'): one outcome per x."""

    def __init__(self, options: ChooseOptions = ChooseOptions()):
        super().__init__()
        self.options = options

    def expand(self, inputs):
        keyed = {name: pcoll | f"Key {name}" >> beam.WithKeys(lambda r: r.source_id) for name, pcoll in inputs.items()}
        return (keyed | "BySource" >> beam.CoGroupByKey()
                | "Choose" >> beam.ParDo(_Choose(self.options)).with_outputs(SKIPPED, main="pairs"))


class UniqueSentences(beam.PTransform):
    """Input records -> one x per distinct text (main output 'xs') and Skipped duplicates ('skipped')."""

    def expand(self, records):
        return (records | "X" >> beam.Map(source_sentence) | "ByText" >> beam.GroupBy(lambda u: u.text)
                | "KeepFirst" >> beam.FlatMapTuple(lambda _, units: [
                    pvalue.TaggedOutput(SKIPPED, u) if isinstance(u, Skipped) else u for u in keep_first(units)])
                .with_outputs(SKIPPED, main="xs"))


class WriteParaNmt(beam.PTransform):
    """Split ScoredParaphrases -> one paranmt.tsv that `entailgen run dae --input` reads as it is."""

    def __init__(self, output: str):
        super().__init__()
        self.output = output

    def expand(self, pairs):
        output = self.output
        return (pairs | "All" >> beam.combiners.ToList()
                | "Write" >> beam.Map(lambda ps: write_file(output, PARANMT, paranmt_text(ps).encode("utf-8"),
                                                            rows=len(ps))))
