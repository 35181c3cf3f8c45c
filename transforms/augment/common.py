"""What the dae-family augmentations share: their ArcExample, token joining, and a re-parsing DoFn for edited texts."""
from __future__ import annotations

from typing import Callable, Iterable, Optional, Union

import apache_beam as beam
from apache_beam import pvalue

from entailgen.schemas.ids import content_id
from entailgen.schemas.records import ArcExample, DeadLetter, LabelledArc, ParsedSentence, Token, dead_letter
from entailgen.schemas.sources import SourceText

DEAD = "dead"
GENERATOR = "augment"

# Text -> its parse, or the DeadLetter saying why not; origin and role only trace where the text came from.
Reparse = Callable[[str, ParsedSentence, str], Union[ParsedSentence, DeadLetter]]
# An augmentation of one parsed sentence: an example, a dead letter, or None when the sentence offers no edit.
Augmentation = Callable[[ParsedSentence, Reparse], Union[ArcExample, DeadLetter, None]]


def detokenize(tokens: Iterable[Token]) -> str:
    """The text the tokens spell with each token's own trailing space, so an edit keeps the original spacing."""
    return "".join(t.text + (" " if t.space_after else "") for t in tokens).strip()


def arc_example(premise: str, hypothesis: ParsedSentence, arcs: list[LabelledArc], kind: str,
                source: str, source_id: str, variant: str = "") -> ArcExample:
    """An augmented ArcExample whose id hashes what it says; generator "augment:<kind>[:<variant>]" says how it was made."""
    generator = f"{GENERATOR}:{kind}" + (f":{variant}" if variant else "")
    return ArcExample(id=content_id(generator, premise, hypothesis.text), premise=premise, hypothesis=hypothesis.text,
                      hypothesis_tokens=hypothesis.words, arcs=arcs, kind=kind, generator=generator,
                      source=source, source_id=source_id)


def label_by_membership(hypothesis: ParsedSentence, entailed_keys: frozenset) -> list[LabelledArc]:
    """Each hypothesis arc labelled 1 if its key is in the given arc set d(.), else 0."""
    return [LabelledArc.of(a, 1 if a.key in entailed_keys else 0) for a in hypothesis.arcs]


def parser_reparse(parser) -> Reparse:
    """A Reparse backed by a loaded transforms.parse.Parser: the edited text is parsed exactly like the corpus."""
    from entailgen.transforms.parse import parse_units

    def reparse(text: str, origin: ParsedSentence, role: str) -> Union[ParsedSentence, DeadLetter]:
        (result,) = parse_units(parser, [SourceText(text, origin.source, origin.source_id, role)])
        return result

    return reparse


class ReparsingAugment(beam.DoFn):
    """Apply an Augmentation that re-parses its edit, with the parser loaded once per worker in setup()."""

    def __init__(self, augmentation: Augmentation, kind: str, parser_config):
        self.augmentation = augmentation
        self.kind = kind
        self.parser_config = parser_config
        self.reparse: Optional[Reparse] = None
        self.made = beam.metrics.Metrics.counter("entailgen", f"{kind}_examples")
        self.skipped = beam.metrics.Metrics.counter("entailgen", f"{kind}_no_edit")
        self.dead = beam.metrics.Metrics.counter("entailgen", f"{kind}_dead")

    def setup(self):
        from entailgen.transforms.parse import Parser

        self.reparse = parser_reparse(Parser(self.parser_config))

    def process(self, sentence: ParsedSentence):
        try:
            result = self.augmentation(sentence, self.reparse)
        except Exception as exc:  # one bad sentence must not sink the bundle: it leaves as a dead letter
            result = dead_letter(sentence.source, sentence.source_id, self.kind, type(exc).__name__, str(exc),
                                 sentence.text)
        if isinstance(result, ArcExample):
            self.made.inc()
            yield result
        elif isinstance(result, DeadLetter):
            self.dead.inc()
            yield pvalue.TaggedOutput(DEAD, result)
        else:
            self.skipped.inc()
