"""Documents -> document-scale ArcExamples: a pure core per document (`document_hypotheses`, `label_document`) under
two DoFns, one that parses documents and one that re-parses and labels what the rules made, with the run's donor
phrases (for extrinsic attachment) as a side input. Randomness: the seed mixed with the document id and the rule."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence, Union

import dataclasses

import apache_beam as beam
from apache_beam import pvalue

from entailgen.schemas.ids import content_id, seeded_rng
from entailgen.schemas.records import ArcExample, DeadLetter, Skipped, Token, dead_letter
from entailgen.schemas.sources import Document
from entailgen.transforms.claims.blocks import document_text, paragraphs
from entailgen.transforms.claims.claims import (ClaimsConfig, ParsedDocument, document_id, parse_document,
                                                texts_to_parse)
from entailgen.transforms.claims.transformations import Unchanged
from entailgen.transforms.document_arcs.labels import (EVIDENCE_REMOVAL, EXTRINSIC, RECOMBINATION, RESTATEMENT,
                                                       REWORDING, RULES, Hypothesis, document_view, doubtful,
                                                       hypothesis_label, label_hypothesis)
from entailgen.transforms.document_arcs.rules import (Donor, donor_phrases, evidence_removal, extrinsic_attachment,
                                                      recombination, restatement, rewording)
from entailgen.transforms.label import ArcTally
from entailgen.transforms.parser import Parser, ParserConfig
from entailgen.transforms.retry import isolate_failures
from entailgen.transforms.rewrites import (CARRIED, DEFAULT_REWRITES, LEXICAL, TableThesaurus, Thesaurus,
                                           WordNetThesaurus, rewrites_of, rewritten_tokens)

STAGE = "document_arcs"
DEAD, SKIPPED, COUNTS = "dead", "skipped", "counts"
DOUBTFUL = "document_arcs_doubtful_arcs"  # the manifest's counter of arcs the doubtful-row filter unlabelled
# The rules run unless --rules says otherwise: restatement (fusion, compression) is asked for by name.
DEFAULT_RULES = tuple(r for r in RULES if r != RESTATEMENT)
NO_THESAURUS = TableThesaurus()
GRANULARITY = "2sents"  # the premise blocks: what a document scorer compares a summary sentence with
DUPLICATE = "DuplicateDocument"  # a later copy of a document already read: its rows would repeat the first copy's


@dataclass(frozen=True)
class DocumentArcsConfig:
    """Which rules run, how many hypotheses each makes per document (evidence removal its own count: its claims are
    the document's sentences as they stand), the shortest sentence a rule starts from, how many donor phrases the run
    keeps for extrinsic attachment (the lowest seeded ranks), which entailed rewrites rewording and the error rules'
    sentences use (reword_share: the share of error hypotheses whose sentence first takes a number or reporting-verb
    rewrite, never a synonym or hypernym, so their entailed arcs need not share the premise's words), the lexicon
    behind them, and whether doubtful arcs are unlabelled (labels.doubtful)."""

    seed: int = 0
    rules: tuple[str, ...] = DEFAULT_RULES
    per_document: int = 2
    min_tokens: int = 6
    donors: int = 2000
    evidence_per_document: int = 4
    rewrites: tuple[str, ...] = DEFAULT_REWRITES
    reword_share: float = 0.5
    thesaurus: object = WordNetThesaurus()
    filter_doubtful: bool = False


def _skip(doc: ParsedDocument, stage: str, reason: str) -> Skipped:
    return Skipped(doc.record.source, doc.record.source_id, stage, reason)


def document_key(record: Document) -> str:
    """A document's identity and split context: the hash of its normalised text, whatever file or line holds it."""
    return document_id(document_text(paragraphs(record.text)))


def unit_order(unit: tuple[str, str]) -> tuple:
    """Where a unit (source, source_id) stands in its input: by file, then line number (file:9 before file:10)."""
    source, source_id = unit
    where = source_id.rsplit(":", 1)[-1]
    return source, not where.isdigit(), int(where) if where.isdigit() else 0, source_id


def later_copies(key: str, units: Iterable[tuple[str, str]]) -> list[tuple[tuple[str, str], str]]:
    """(unit, document key) of every copy of one document but the first: each is a duplicate, left out."""
    return [(unit, key) for unit in sorted(set(units), key=unit_order)[1:]]


def distinct(record: Document, duplicates: dict) -> Iterator:
    """The document, or its DuplicateDocument skip when it is a later copy of a document already read."""
    if (record.source, record.source_id) in duplicates:
        yield pvalue.TaggedOutput(SKIPPED, Skipped(record.source, record.source_id, STAGE, DUPLICATE))
    else:
        yield record


def make_one(rule: str, doc: ParsedDocument, index: int, donors: Sequence[Donor], config: DocumentArcsConfig,
             thesaurus: Thesaurus = NO_THESAURUS.load()) -> Hypothesis:
    """One rule on one sentence, with randomness of its own (seed, document, rule, sentence); an error rule's sentence
    first takes a number or reporting-verb rewrite (CARRIED), for reword_share of them (a coin of its own)."""
    rng = seeded_rng(config.seed, doc.document_id, f"{rule}:{index}")
    if rule == RESTATEMENT:
        return restatement(doc.sentences, index, rng)
    if rule not in (EVIDENCE_REMOVAL, RECOMBINATION, EXTRINSIC):
        return rewording(doc.sentences, index, thesaurus, rng, config.rewrites)
    sentences, rewrite = doc.sentences, None
    coin = seeded_rng(config.seed, doc.document_id, f"{rule}:{index}:reword")
    if config.reword_share and coin.random() < config.reword_share:
        options = rewrites_of(doc.sentences, index, thesaurus, [v for v in config.rewrites if v in CARRIED])
        if options:
            rewrite = coin.choice(options)
            sentences = list(doc.sentences)
            sentences[index] = dataclasses.replace(sentences[index],
                                                   tokens=rewritten_tokens(sentences[index].tokens, rewrite))
    if rule == EVIDENCE_REMOVAL:
        made = evidence_removal(sentences, index)
    elif rule == RECOMBINATION:
        made = recombination(sentences, index, rng)
    else:
        made = extrinsic_attachment(sentences, index, donors, doc.document_id, rng)
    if rewrite is None:
        return made
    return dataclasses.replace(made, variant=f"{made.variant}+{rewrite.variant}", means=rewrite.means, tokens=None)


def document_hypotheses(doc: ParsedDocument, donors: Sequence[Donor], config: DocumentArcsConfig,
                        thesaurus: Thesaurus = NO_THESAURUS.load()) -> Iterator[Union[Hypothesis, Skipped]]:
    """Up to per_document hypotheses of each rule (evidence_per_document of evidence removal), its sentences tried in
    a seeded order; a Skipped per rule that made none, naming the reason most of its sentences gave."""
    eligible = [i for i, s in enumerate(doc.sentences) if sum(t.pos != "PUNCT" for t in s.tokens) >= config.min_tokens]
    for rule in config.rules:
        order = list(eligible)
        seeded_rng(config.seed, doc.document_id, rule).shuffle(order)
        made, reasons = {}, Counter()
        wanted = config.evidence_per_document if rule == EVIDENCE_REMOVAL else config.per_document
        for index in order:
            try:
                hypothesis = make_one(rule, doc, index, donors, config, thesaurus)
            except Unchanged as unchanged:
                reasons[unchanged.reason] += 1
                continue
            if hypothesis.text in made or any(hypothesis.text == doc.sentences[i].text for i in hypothesis.premise):
                reasons["SameAsPremise"] += 1
                continue
            made[hypothesis.text] = hypothesis
            if len(made) == wanted:
                break
        yield from made.values()
        if not made:
            yield _skip(doc, f"{STAGE}:{rule}", reasons.most_common(1)[0][0] if reasons else
                        f"NoSentenceOf{config.min_tokens}Words")


def label_document(doc: ParsedDocument, hypotheses: Sequence[Hypothesis], parses: Sequence[Sequence[Token]],
                   filter_doubtful: bool = False) -> Iterator[Union[ArcExample, Skipped, tuple]]:
    """Each hypothesis labelled against its premise block (a hypothesis without a content arc is a Skipped), its
    doubtful arcs unlabelled when asked, each one a (DOUBTFUL, reason) count; a document that gives no example at
    all says so once more (NoExample)."""
    made = 0
    view = document_view(doc.sentences) if filter_doubtful else None
    for hypothesis, tokens in zip(hypotheses, parses):
        example = label_hypothesis(doc.sentences, hypothesis, tokens, doc.record.source, doc.record.source_id,
                                   doc.document_id)
        if view is not None:
            example, reasons = doubtful(example, hypothesis, tokens, view)
            yield from ((DOUBTFUL, why) for why in reasons)
        if not example.arcs:
            yield _skip(doc, f"{STAGE}:{hypothesis.rule}", "NoArcs")
            continue
        made += 1
        yield example
    if not made:
        yield _skip(doc, STAGE, "NoExample" if doc.sentences else "NoSentence")


def donors_of(doc: ParsedDocument, seed: int) -> list[Donor]:
    """The document's donor phrases, once each, ranked by a seeded hash (the run keeps the lowest ranks)."""
    seen = {}
    for kind, pieces, lemmas in donor_phrases(doc.sentences):
        seen.setdefault((kind, pieces), lemmas)
    return [Donor(kind, pieces, lemmas, doc.document_id, content_id(seed, kind, pieces, doc.document_id))
            for (kind, pieces), lemmas in seen.items()]


def tally(example: ArcExample) -> ArcTally:
    """What ArcLabelStats counts of an example: its arc labels, lexical-match predictions, and its hypothesis label."""
    return ArcTally(example.kind, tuple(a.entailed for a in example.arcs), tuple(a.in_premise for a in example.arcs),
                    hypothesis_label(example))


class _ParseDocuments(beam.DoFn):
    """Parse batches of documents (parser loaded once per worker) into ParsedDocuments; a document the parser
    cannot handle is its dead letter."""

    def __init__(self, parser: ParserConfig):
        self.parser_config, self.parser = parser, None
        self.dead = beam.metrics.Metrics.counter("entailgen", "document_arcs_dead")

    def setup(self):
        self.parser = Parser(self.parser_config)

    def _parsed(self, batch: list) -> list[ParsedDocument]:
        config = ClaimsConfig()
        bodies = [texts_to_parse(record, config)[0] for record in batch]
        tokens = iter(self.parser.tokens([t for body in bodies for t in body]))
        return [parse_document(record, [next(tokens) for _ in body], [], GRANULARITY)
                for record, body in zip(batch, bodies)]

    def process(self, batch: list) -> Iterable:
        for result in isolate_failures(batch, self._parsed, lambda record, exc: dead_letter(
                record.source, record.source_id, STAGE, type(exc).__name__, str(exc), record.text), what="documents"):
            if isinstance(result, DeadLetter):
                self.dead.inc()
                yield pvalue.TaggedOutput(DEAD, result)
            else:
                yield result


class _LabelDocuments(beam.DoFn):
    """Make each document's hypotheses, re-parse them in one pipe, and label them; Skipped and dead letters apart."""

    def __init__(self, parser: ParserConfig, config: DocumentArcsConfig):
        self.parser_config, self.config, self.parser, self.thesaurus = parser, config, None, None
        self.made = beam.metrics.Metrics.counter("entailgen", "document_arcs")
        self.dead = beam.metrics.Metrics.counter("entailgen", "document_arcs_dead")
        self.doubtful = beam.metrics.Metrics.counter("entailgen", DOUBTFUL)

    def setup(self):
        self.parser = Parser(self.parser_config)
        config = self.config
        wordnet = set(config.rewrites) & set(LEXICAL) and REWORDING in config.rules  # never carried: rewording's only
        self.thesaurus = (config.thesaurus if wordnet else NO_THESAURUS).load()  # WordNet: once per worker

    def _labelled(self, docs: Sequence[ParsedDocument], donors: Sequence[Donor]) -> list[list]:
        thesaurus = self.thesaurus if self.thesaurus is not None else NO_THESAURUS.load()
        made = [list(document_hypotheses(doc, donors, self.config, thesaurus)) for doc in docs]
        texts = [h.text for out in made for h in out if isinstance(h, Hypothesis) and h.tokens is None]
        parsed = iter(self.parser.tokens(texts))
        results = []
        for doc, out in zip(docs, made):
            hypotheses = [h for h in out if isinstance(h, Hypothesis)]
            parses = [list(h.tokens) if h.tokens is not None else next(parsed) for h in hypotheses]
            results.append([s for s in out if isinstance(s, Skipped)] +
                           list(label_document(doc, hypotheses, parses, self.config.filter_doubtful)))
        return results

    def process(self, batch: list, donors: list) -> Iterable:
        results = isolate_failures(batch, lambda docs: self._labelled(docs, donors), lambda doc, exc: dead_letter(
            doc.record.source, doc.record.source_id, STAGE, type(exc).__name__, str(exc), doc.text), what="documents")
        for result in results:
            if isinstance(result, DeadLetter):
                self.dead.inc()
                yield pvalue.TaggedOutput(DEAD, result)
                continue
            for out in result:
                if isinstance(out, Skipped):
                    yield pvalue.TaggedOutput(SKIPPED, out)
                elif isinstance(out, tuple):
                    self.doubtful.inc()
                    yield pvalue.TaggedOutput(COUNTS, (out, 1))
                else:
                    self.made.inc()
                    yield out


class MakeDocumentArcs(beam.PTransform):
    """Document -> ArcExample ('examples'), Skipped ('skipped'), DeadLetter ('dead'), ((DOUBTFUL, reason), 1)
    ('counts'): keep one copy of each document
    (a later copy is a DuplicateDocument skip), parse, collect the run's donor phrases (a bounded, seeded pool), then
    make and label each document's hypotheses."""

    def __init__(self, parser: ParserConfig, config: DocumentArcsConfig, batch_size: int = 16):
        super().__init__()
        self.parser, self.config, self.batch_size = parser, config, batch_size

    def expand(self, documents):
        duplicates = (documents
                      | "Units" >> beam.Map(lambda d: (document_key(d), (d.source, d.source_id)))
                      | "ByDocument" >> beam.GroupByKey()  # units only: the texts stay where they are
                      | "LaterCopies" >> beam.FlatMapTuple(later_copies))
        documents = documents | "Distinct" >> beam.FlatMap(distinct, beam.pvalue.AsDict(duplicates)).with_outputs(
            SKIPPED, main="documents")
        parsed = (documents.documents
                  | "Batch" >> beam.BatchElements(min_batch_size=self.batch_size, max_batch_size=self.batch_size)
                  | "Parse" >> beam.ParDo(_ParseDocuments(self.parser)).with_outputs(DEAD, main="documents"))
        seed = self.config.seed
        donors = (parsed.documents
                  | "Donors" >> beam.FlatMap(lambda doc: donors_of(doc, seed))
                  | "DonorPool" >> beam.combiners.Top.Of(self.config.donors, key=lambda d: d.rank, reverse=True))
        made = (parsed.documents
                | "BatchParsed" >> beam.BatchElements(min_batch_size=self.batch_size, max_batch_size=self.batch_size)
                | "Label" >> beam.ParDo(_LabelDocuments(self.parser, self.config), donors=beam.pvalue.AsSingleton(
                    donors)).with_outputs(SKIPPED, DEAD, COUNTS, main="examples"))
        dead = (parsed[DEAD], made[DEAD]) | "Dead" >> beam.Flatten()
        skipped = (documents[SKIPPED], made[SKIPPED]) | "Skipped" >> beam.Flatten()
        return {"examples": made.examples, SKIPPED: skipped, DEAD: dead, COUNTS: made[COUNTS]}
