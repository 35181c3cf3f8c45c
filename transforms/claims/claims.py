"""Documents -> ClaimExamples: FactCC's transformations on sampled sentences, premises split into SummaC blocks.

A pure core (`document_claims`) per parsed document, under one DoFn that parses documents in batches with the parser
loaded once per worker. Back-translation claims leave through their own output and are finished by `backtranslate`.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Iterable, Iterator, Optional, Union

import apache_beam as beam
from apache_beam import pvalue

from entailgen.schemas.ids import content_id, seeded_rng
from entailgen.schemas.records import (CORRECT, ENTAILED, INCORRECT, NOT_ENTAILED, ClaimExample, DeadLetter, Skipped,
                                       Token, dead_letter)
from entailgen.schemas.sources import Document, LabelledClaim
from entailgen.transforms.claims.blocks import (Entity, Sentence, blocks_of, document_text, entities_of, paragraphs,
                                                sentences_of)
from entailgen.transforms.claims.transformations import (Edit, Unchanged, add_noise, char_span, compression,
                                                         eligible_sentences, entity_swap, extrinsic, negation,
                                                         pronoun_swap, role_swap, sampled, words_of)
from entailgen.transforms.parser import Parser, ParserConfig
from entailgen.transforms.retry import isolate_failures
from entailgen.transforms.rewrites import DEFAULT_REWRITES, TableThesaurus, rewrites_of

STAGE = "claims"
DEAD = "dead"
SKIPPED = "skipped"
BACKTRANSLATE = "backtranslate"
NEGATIVE = ("pronoun_swap", "entity_swap", "number_swap", "date_swap", "negation")
TRANSFORMATIONS = ("backtranslation",) + NEGATIVE  # sentence sampling is always on: it is what the others start from
OPTIONAL = ("compression", "rewording", "role_swap", "extrinsic")  # entailgen's, not FactCC's: asked for by name
CONTRADICTIONS = NEGATIVE + ("role_swap",)  # one word or name of the source changed: what round_trip_negatives sends
NO_LEXICON = TableThesaurus().load()  # rewording's rewrites are the defaults, none of which needs WordNet
KNOWN_TRANSFORMATIONS = TRANSFORMATIONS + OPTIONAL  # what --transformations takes, in the order they run


@dataclass(frozen=True)
class ClaimsConfig:
    """Which transformations run, how claims are sampled and noised, and how premises are split into blocks."""

    seed: int = 0
    granularity: str = "sentence"
    transformations: tuple[str, ...] = TRANSFORMATIONS
    claims_per_document: int = 1
    min_claim_tokens: int = 8
    noise: bool = True
    noise_p: float = 0.05
    noise_delete: float = 0.8
    summaries_as_claims: bool = False
    round_trip_negatives: bool = False  # the swaps' and negation's claims back-translated too: not near-copies


@dataclass(frozen=True)
class ParsedDocument:
    """A document, normalised, with its paragraphs, sentences, mentions and blocks, and its parsed summary."""

    record: Union[Document, LabelledClaim]
    document_id: str
    text: str
    sentences: list[Sentence]
    entities: list[Entity]
    blocks: list[str]
    summary: list[Sentence]
    own_labels: dict[int, list[str]] = dataclasses.field(default_factory=dict)  # claim sentence -> NER parsed alone


def document_id(text: str) -> str:
    """A document's id: the hash of its normalised text, so a document in two files is one document (one split)."""
    return content_id("document", text)


def parse_document(record, paragraph_tokens: list[list[Token]], summary_tokens: list[list[Token]],
                   granularity: str) -> ParsedDocument:
    """Assemble a ParsedDocument from the token lists of its paragraphs (and of its summary's paragraphs)."""
    texts = paragraphs(record.text if isinstance(record, Document) else record.document)
    text = document_text(texts)
    sentences, offset = [], 0
    for paragraph, tokens in zip(texts, paragraph_tokens):
        sentences.extend(sentences_of(tokens, paragraph, offset))
        offset += len(paragraph) + 2
    summary = [s for p, tokens in zip(summary_texts(record), summary_tokens) for s in sentences_of(tokens, p, 0)]
    return ParsedDocument(record, document_id(text), text, sentences, entities_of(sentences),
                          blocks_of(granularity, text, texts, sentences), summary)


def summary_texts(record) -> list[str]:
    """The summary's lines (CNN/DM highlights are one per line), whitespace collapsed."""
    summary = record.summary if isinstance(record, Document) else None
    return [" ".join(line.split()) for line in (summary or "").splitlines() if line.strip()]


def texts_to_parse(record, config: ClaimsConfig) -> tuple[list[str], list[str]]:
    """(paragraphs, summary lines) of a document: what the parser must see."""
    text = record.text if isinstance(record, Document) else record.document
    return paragraphs(text), summary_texts(record) if config.summaries_as_claims else []


def example(doc: ParsedDocument, claim: str, label: str, transformation: str, config: ClaimsConfig, *,
            sentence: Optional[Sentence] = None, edit: Optional[Edit] = None, noise: bool = False,
            backtranslation: bool = False, generator: Optional[str] = None) -> ClaimExample:
    """A document row: the whole document as premise, its blocks, the claim and where it came from."""
    record = doc.record
    source_sentence = sentence.text if sentence is not None else ""
    span = edit.source_span if edit is not None else None
    return ClaimExample(
        id=content_id(doc.document_id, transformation, claim, label, noise, backtranslation, config.granularity),
        document_id=doc.document_id, premise=doc.text, blocks=list(doc.blocks), granularity=config.granularity,
        claim=claim, label=label, entailment=ENTAILED if label == CORRECT else NOT_ENTAILED,
        transformation=transformation, source_sentence=source_sentence, backtranslation=backtranslation,
        noise=noise, source=record.source, source_id=record.source_id,
        claim_span=edit.char_span() if edit is not None else None,
        source_span=char_span(sentence.pieces, span) if sentence is not None else None,
        extraction_span=[sentence.start, sentence.start + len(source_sentence)] if sentence is not None else None,
        generator=generator, dataset_id=record.dataset_id)


def _skip(doc: ParsedDocument, transformation: str, reason: str) -> Skipped:
    return Skipped(doc.record.source, doc.record.source_id, f"{STAGE}:{transformation}", reason)


def _negative(name: str, doc: ParsedDocument, index: int, rng) -> Edit:
    sentence = doc.sentences[index]
    if name == "role_swap":
        return role_swap(sentence, index, doc.entities, rng)
    if name == "pronoun_swap":
        return pronoun_swap(sentence.tokens, rng)
    if name == "negation":
        return negation(sentence.tokens)
    return entity_swap(name, sentence, index, doc.entities, rng, doc.own_labels.get(index))


def chosen_sentences(doc: ParsedDocument, config: ClaimsConfig, rng) -> list[int]:
    """The indices of the sentences sampled as claims (rng: the document's, seeded by its id)."""
    eligible = eligible_sentences(doc.sentences, config.min_claim_tokens)
    return sorted(rng.sample(eligible, min(config.claims_per_document, len(eligible))))


def to_parse_alone(doc: ParsedDocument, config: ClaimsConfig) -> list[int]:
    """The claim sentences the swaps check against their own parse (FactCC parses each claim alone): the sampled
    ones when a swap runs, else none."""
    if isinstance(doc.record, LabelledClaim) or not {"entity_swap", "number_swap", "date_swap"} & set(
            config.transformations):
        return []
    return chosen_sentences(doc, config, seeded_rng(config.seed, doc.document_id, "claims"))


def reworded(sentences: list[Sentence], index: int, rng) -> Edit:
    """One entailed rewrite of the sentence, of the defaults (transforms.rewrites: the genitive turned, what the
    document calls a name, a number or date said otherwise, another reporting verb; never WordNet's synonyms or
    hypernyms, wrong in 48-68 % of rows read): a CORRECT claim with words the document lacks, the positive that word
    overlap cannot tell from an error; Unchanged (NoRewrite)."""
    options = rewrites_of(sentences, index, NO_LEXICON, DEFAULT_REWRITES)
    if not options:
        raise Unchanged("NoRewrite")
    rewrite = rng.choice(options)
    pieces = sentences[index].pieces
    return Edit(pieces[:rewrite.start] + rewrite.pieces + pieces[rewrite.end:],
                (rewrite.start, rewrite.start + len(rewrite.pieces)), (rewrite.start, rewrite.end))


def extrinsic_example(doc: ParsedDocument, index: int, config: ClaimsConfig) -> ClaimExample:
    """The sentence as an INCORRECT claim against the document with that sentence compressed (premise, blocks and
    source sentence all say less); Unchanged (SaidElsewhere) where the document still holds a word the claim adds.
    Randomness of its own (seed, document, sentence), so asking for it leaves the other claims as they were."""
    sentence = doc.sentences[index]
    kept, added = extrinsic(sentence.tokens, own_stream(config, doc, "extrinsic", index))
    start, end = sentence.start, sentence.start + len(sentence.text)
    if doc.text[start:end] != sentence.text:
        raise Unchanged("NotInDocument")
    premise = doc.text[:start] + kept.text + doc.text[end:]
    if added & words_of(premise):
        raise Unchanged("SaidElsewhere")
    row = example(doc, sentence.text, INCORRECT, "extrinsic", config, sentence=sentence)
    return dataclasses.replace(row, premise=premise, blocks=[b.replace(sentence.text, kept.text) for b in doc.blocks],
                               source_sentence=kept.text, extraction_span=[start, start + len(kept.text)])


def own_stream(config: ClaimsConfig, doc: ParsedDocument, name: str, index: int):
    """An entailgen rule's randomness, its noise included, apart from FactCC's stream (seed, document, rule, sentence):
    asking for the rule leaves every other claim as it was."""
    return seeded_rng(config.seed, doc.document_id, f"{name}:{index}")


def document_claims(doc: ParsedDocument, config: ClaimsConfig) -> Iterator[Union[ClaimExample, Skipped, tuple]]:
    """Every claim of a document: sampled sentences, their compressions and rewordings (CORRECT), their negative
    transformations (INCORRECT), noised copies, extrinsic claims (INCORRECT, not noised: noise could drop what they
    add), summary sentences; ('backtranslate', example) for claims to round-trip; a Skipped per transformation that
    found nothing to change. Randomness: the seed mixed with the document id."""
    record = doc.record
    if isinstance(record, LabelledClaim):
        yield example(doc, record.claim, record.label, "annotated", config)
        return
    rng = seeded_rng(config.seed, doc.document_id, "claims")
    for index in chosen_sentences(doc, config, rng):
        sentence = doc.sentences[index]
        made = [("sentence_sampling", CORRECT, sampled(sentence), rng)]
        if "compression" in config.transformations:
            try:
                made.append(("compression", CORRECT, compression(sentence.tokens, rng), rng))
            except Unchanged as unchanged:
                yield _skip(doc, "compression", unchanged.reason)
        if "rewording" in config.transformations:
            own = own_stream(config, doc, "rewording", index)
            try:
                made.append(("rewording", CORRECT, reworded(doc.sentences, index, own), own))
            except Unchanged as unchanged:
                yield _skip(doc, "rewording", unchanged.reason)
        if "backtranslation" in config.transformations:
            yield BACKTRANSLATE, example(doc, sentence.text, CORRECT, "backtranslation", config, sentence=sentence,
                                         backtranslation=True)
        for name in CONTRADICTIONS:
            if name in config.transformations:
                stream = own_stream(config, doc, name, index) if name in OPTIONAL else rng
                try:
                    made.append((name, INCORRECT, _negative(name, doc, index, stream), stream))
                except Unchanged as unchanged:
                    yield _skip(doc, name, unchanged.reason)
        for name, label, edit, stream in made:
            yield example(doc, edit.text, label, name, config, sentence=sentence, edit=edit)
            if config.round_trip_negatives and name in CONTRADICTIONS:  # a contradiction worded unlike its source
                yield BACKTRANSLATE, example(doc, edit.text, label, name, config, sentence=sentence, edit=edit,
                                             backtranslation=True)
            if config.noise:
                try:
                    noised = add_noise(edit, stream, config.noise_p, config.noise_delete)
                except Unchanged as unchanged:
                    yield _skip(doc, f"{name}+noise", unchanged.reason)
                    continue
                yield example(doc, noised.text, label, name, config, sentence=sentence, edit=noised, noise=True)
        if "extrinsic" in config.transformations:
            try:
                yield extrinsic_example(doc, index, config)
            except Unchanged as unchanged:
                yield _skip(doc, "extrinsic", unchanged.reason)
    if config.summaries_as_claims:
        for sentence in doc.summary:
            yield example(doc, sentence.text, CORRECT, "summary", config)


def made_by(claim: ClaimExample) -> str:
    """What made a claim, as its skips name it: its transformation, '+backtranslation' for a round-tripped negative."""
    if claim.backtranslation and claim.transformation != "backtranslation":
        return f"{claim.transformation}+backtranslation"
    return claim.transformation


def claims_of(doc: ParsedDocument, config: ClaimsConfig) -> tuple[list, list[Skipped], list[ClaimExample], str]:
    """(examples, skipped, to back-translate, outcome) of one document; outcome 'with_claims' or 'skipped', and a
    document without any claim gets one Skipped saying why; a claim made twice (same id) is kept once, skipped
    again."""
    examples, skipped, pending, ids = [], [], [], set()
    for out in document_claims(doc, config):
        if isinstance(out, Skipped):
            skipped.append(out)
            continue
        made = out[1] if isinstance(out, tuple) else out
        if made.id in ids:  # a sentence the document repeats (a live text's "Foul by ..."): one row, not two
            skipped.append(_skip(doc, made_by(made), "SameClaimAgain"))
            continue
        ids.add(made.id)
        (pending if isinstance(out, tuple) else examples).append(made)
    if examples or pending:
        return examples, skipped, pending, "with_claims"
    why = f"NoSentenceOf{config.min_claim_tokens}Tokens" if doc.sentences else "NoSentence"
    return examples, skipped + [Skipped(doc.record.source, doc.record.source_id, STAGE, f"NoClaim:{why}")], pending, \
        "skipped"


class _ClaimsFromDocuments(beam.DoFn):
    """Parse batches of documents (parser loaded once per worker) and make their claims."""

    def __init__(self, parser: ParserConfig, config: ClaimsConfig):
        self.parser_config, self.config = parser, config
        self.parser: Optional[Parser] = None
        self.made = beam.metrics.Metrics.counter("entailgen", "claims")
        self.dead = beam.metrics.Metrics.counter("entailgen", "claims_dead")

    def setup(self):
        self.parser = Parser(self.parser_config)

    def _parsed(self, batch: list) -> list:
        """ParsedDocument per document, in order: one spaCy pipe over all their paragraphs, one over the claim
        sentences the swaps check alone."""
        parts = [texts_to_parse(record, self.config) for record in batch]
        tokens = iter(self.parser.tokens([t for body, summary in parts for t in body + summary]))
        out = []
        for record, (body, summary) in zip(batch, parts):
            body_tokens = [next(tokens) for _ in body]
            summary_tokens = [next(tokens) for _ in summary]
            out.append(parse_document(record, body_tokens, summary_tokens, self.config.granularity))
        alone = [to_parse_alone(doc, self.config) for doc in out]
        tokens = iter(self.parser.tokens([doc.sentences[i].text for doc, chosen in zip(out, alone) for i in chosen]))
        return [dataclasses.replace(doc, own_labels={i: [t.ner for t in next(tokens) if not t.text.isspace()]
                                                     for i in chosen}) for doc, chosen in zip(out, alone)]

    def process(self, batch: list) -> Iterable:
        made = isolate_failures(  # a document the parser or a transformation cannot handle is its dead letter
            batch, lambda records: [claims_of(doc, self.config) for doc in self._parsed(records)],
            lambda record, exc: dead_letter(record.source, record.source_id, STAGE, type(exc).__name__, str(exc),
                                            record.text if isinstance(record, Document) else record.document),
            what="claims batch")
        for result in made:
            if isinstance(result, DeadLetter):
                self.dead.inc()
                yield pvalue.TaggedOutput(DEAD, result)
                continue
            examples, skipped, pending, _ = result
            self.made.inc(len(examples))
            yield from examples
            for s in skipped:
                yield pvalue.TaggedOutput(SKIPPED, s)
            for p in pending:
                yield pvalue.TaggedOutput(BACKTRANSLATE, p)


class MakeClaims(beam.PTransform):
    """Document / LabelledClaim -> ClaimExample ('examples'), claims to back-translate ('backtranslate'), Skipped
    ('skipped') and DeadLetter ('dead'); the job counts each document's outcome from these (dataset.accounting)."""

    def __init__(self, parser: ParserConfig, config: ClaimsConfig, batch_size: int = 32):
        super().__init__()
        self.parser, self.config, self.batch_size = parser, config, batch_size

    def expand(self, documents):
        return (documents
                | "Batch" >> beam.BatchElements(min_batch_size=self.batch_size, max_batch_size=self.batch_size)
                | "Claims" >> beam.ParDo(_ClaimsFromDocuments(self.parser, self.config)).with_outputs(
                    BACKTRANSLATE, SKIPPED, DEAD, main="examples"))


def backtranslated(pending: ClaimExample, texts: list[str], generator: Optional[str]) -> Union[ClaimExample, Skipped]:
    """The pending claim with its round trip (the best one), or a Skipped when the generator gave none (NoRoundTrip)
    or none different (SameAsClaim)."""
    text = next((t for t in texts if t and t != pending.claim), None)
    if text is None:
        reason = "SameAsClaim" if any(texts) else "NoRoundTrip"
        return Skipped(pending.source, pending.source_id, f"{STAGE}:{made_by(pending)}", reason)
    return dataclasses.replace(pending, claim=text, generator=generator, claim_span=None, source_span=None,
                               id=content_id(pending.id, text))


def block_rows(row: ClaimExample) -> list[ClaimExample]:
    """One (block, claim) row per premise block, keeping the document's label (noisy per block)."""
    return [dataclasses.replace(row, id=content_id(row.id, i), premise=block, blocks=[], block_index=i)
            for i, block in enumerate(row.blocks)]
