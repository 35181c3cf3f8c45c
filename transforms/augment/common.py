"""What the dae-family augmentations share: their ArcExample, token joining, and batched re-parsing of edited texts."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Optional, Union

import apache_beam as beam
from apache_beam import pvalue

from entailgen.schemas.ids import content_id
from entailgen.schemas.records import ArcExample, DeadLetter, LabelledArc, ParsedSentence, Token, dead_letter
from entailgen.schemas.sources import SourceText
from entailgen.transforms.arcs import arc_keys
from entailgen.transforms.parser import Parser, parse_units
from entailgen.transforms.retry import isolate_failures

DEAD = "dead"
GENERATOR = "augment"

# Text -> its parse, or the DeadLetter saying why not; origin and role only trace where the text came from.
Reparse = Callable[[str, ParsedSentence, str], Union[ParsedSentence, DeadLetter]]


def spaced_text(tokens: Iterable[Token]) -> str:
    """The text the tokens spell with each token's recorded trailing space, so an edit keeps the original spacing
    (io.detokenize, for bare words without spacing, guesses it from punctuation instead)."""
    return "".join(t.text + (" " if t.space_after else "") for t in tokens).strip()


def arc_example(premise: str, hypothesis: ParsedSentence, arcs: list[LabelledArc], kind: str,
                source: str, source_id: str, variant: str = "") -> ArcExample:
    """An augmented ArcExample; its id hashes what it says, its generator ("augment:<kind>[:<variant>]") how."""
    generator = f"{GENERATOR}:{kind}" + (f":{variant}" if variant else "")
    return ArcExample(id=content_id(generator, premise, hypothesis.text), premise=premise, hypothesis=hypothesis.text,
                      hypothesis_tokens=hypothesis.words, arcs=arcs, kind=kind, generator=generator,
                      source=source, source_id=source_id)


def membership_example(premise: ParsedSentence, hypothesis: ParsedSentence, kind: str,
                       origin: ParsedSentence) -> ArcExample:
    """The example (premise, hypothesis) of an edit of origin (§5.3's rule for edits): each hypothesis arc 1 if its key
    is in the premise's arc set d(premise), else 0, so the lexical-match prediction agrees with every label."""
    keys = arc_keys(premise.arcs)
    arcs = [LabelledArc.of(a, 1 if a.key in keys else 0, a.key in keys) for a in hypothesis.arcs]
    return arc_example(premise.text, hypothesis, arcs, kind, origin.source, origin.source_id)


def parser_reparse(parser) -> Reparse:
    """A Reparse backed by a loaded transforms.parser.Parser: the edited text is parsed exactly like the corpus."""
    def reparse(text: str, origin: ParsedSentence, role: str) -> Union[ParsedSentence, DeadLetter]:
        (result,) = parse_units(parser, [SourceText(text, origin.source, origin.source_id, role)])
        return result

    return reparse


@dataclass(frozen=True)
class EditAndLabel:
    """An augmentation that edits a sentence's text and labels the re-parsed result against the original."""

    kind: str
    edit: Callable[[ParsedSentence], Optional[str]]  # the edited text, or None when the sentence offers no edit
    label: Callable[[ParsedSentence, ParsedSentence], ArcExample]  # (original, re-parsed edit) -> example

    def __call__(self, sentence: ParsedSentence, reparse: Reparse) -> Union[ArcExample, DeadLetter, None]:
        """Edit, re-parse and label one sentence; a DeadLetter when the edit cannot be parsed."""
        text = self.edit(sentence)
        if text is None:
            return None
        edited = reparse(text, sentence, self.kind)
        return edited if isinstance(edited, DeadLetter) else self.label(sentence, edited)


class ReparseBatches(beam.DoFn):
    """Apply an EditAndLabel to batches of sentences, parsing each batch's edits in one call to a per-worker parser."""

    def __init__(self, augmentation: EditAndLabel, parser_config):
        self.augmentation = augmentation
        self.parser_config = parser_config
        self.parser = None
        kind = augmentation.kind
        self.made = beam.metrics.Metrics.counter("entailgen", f"{kind}_examples")
        self.skipped = beam.metrics.Metrics.counter("entailgen", f"{kind}_no_edit")
        self.dead = beam.metrics.Metrics.counter("entailgen", f"{kind}_dead")

    def setup(self):
        self.parser = Parser(self.parser_config)

    def _dead(self, sentence: ParsedSentence, exc: Exception):
        self.dead.inc()
        return pvalue.TaggedOutput(DEAD, dead_letter(sentence.source, sentence.source_id, self.augmentation.kind,
                                                     type(exc).__name__, str(exc), sentence.text))

    def process(self, batch: list[ParsedSentence]):
        edited = []
        for sentence in batch:
            try:
                text = self.augmentation.edit(sentence)
            except Exception as exc:  # one bad sentence must not sink the batch: it leaves as a dead letter
                yield self._dead(sentence, exc)
                continue
            if text is None:
                self.skipped.inc()
            else:
                edited.append((sentence, SourceText(text, sentence.source, sentence.source_id, self.augmentation.kind)))
        yield from self._parse_and_label(edited)

    def _parse_and_label(self, edited: list[tuple[ParsedSentence, SourceText]]):
        def parse(pairs):
            return zip([sentence for sentence, _ in pairs], parse_units(self.parser, [unit for _, unit in pairs]))

        parses = isolate_failures(edited, parse, lambda pair, exc: (pair[0], exc),
                                  what=f"{self.augmentation.kind} re-parse batch")
        for sentence, parsed in parses:
            if isinstance(parsed, Exception):  # the parser failed on this edit alone
                yield self._dead(sentence, parsed)
            elif isinstance(parsed, DeadLetter):
                self.dead.inc()
                yield pvalue.TaggedOutput(DEAD, parsed)
            else:
                self.made.inc()
                yield self.augmentation.label(sentence, parsed)


class ReparsingAugment(beam.PTransform):
    """ParsedSentence -> ArcExample (main output 'examples') and DeadLetter ('dead') by an EditAndLabel."""

    def __init__(self, augmentation: EditAndLabel, parser_config, batch_size: int = 64):
        super().__init__()
        self.augmentation = augmentation
        self.parser_config = parser_config
        self.batch_size = batch_size

    def expand(self, sentences):
        return (sentences
                | "Batch" >> beam.BatchElements(min_batch_size=self.batch_size, max_batch_size=self.batch_size)
                | "EditAndLabel" >> beam.ParDo(ReparseBatches(self.augmentation, self.parser_config))
                .with_outputs(DEAD, main="examples"))
