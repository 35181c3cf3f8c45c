"""The document-arcs family: documents -> hypotheses whose words are the document's own, labelled arc by
arc against the SummaC block a document scorer sees (DAE §4's rule generalised to a document), as ArcExample rows
that `entailgen train` trains the DAE arc model on as it does dae data."""
from __future__ import annotations

from dataclasses import dataclass

import apache_beam as beam

from entailgen.pipelines.base import Family, FamilyOutput, RunConfig, select
from entailgen.schemas.records import ArcExample
from entailgen.schemas.sources import Document
from entailgen.transforms.document_arcs.labels import RULES
from entailgen.transforms.document_arcs.make import DEAD, SKIPPED, DocumentArcsConfig, MakeDocumentArcs, tally
from entailgen.transforms.label import ArcLabelStats
from entailgen.transforms.overlap_blind import COUNTS, HELP, OverlapBlind, OverlapBlindConfig
from entailgen.transforms.overlap_blind import SKIPPED as BLIND_SKIPPED


@dataclass(frozen=True)
class DocumentArcsOptions:
    """Which rules run and how many hypotheses each makes per document."""

    rules: tuple[str, ...] = RULES
    per_document: int = 2
    overlap_blind: bool = False  # balance arc labels within each rule and overlap bin (transforms.overlap_blind)


def add_arguments(group) -> None:
    group.add_argument("--rules", default=",".join(RULES), help=f"comma list of {','.join(RULES)} (default: all)")
    group.add_argument("--per-document", type=int, default=2, help="hypotheses each rule makes per document")
    group.add_argument("--overlap-blind", action="store_true", help=HELP)


def options(args) -> DocumentArcsOptions:
    """The family's options; an unknown rule or a count below 1 is refused in one line."""
    chosen = tuple(r.strip() for r in args.rules.split(",") if r.strip())
    unknown = sorted(set(chosen) - set(RULES))
    if unknown or not chosen:
        raise ValueError(f"--rules takes {','.join(RULES)}; got {args.rules!r}")
    if args.per_document < 1:
        raise ValueError(f"--per-document must be at least 1, got {args.per_document}")
    return DocumentArcsOptions(tuple(r for r in RULES if r in chosen), args.per_document, args.overlap_blind)


def build(sources: beam.PCollection, config: RunConfig) -> FamilyOutput:
    """Documents -> labelled hypotheses; the split context is the hash of the document's text, so one document never
    spans two splits, wherever and however often the input holds it."""
    opts: DocumentArcsOptions = config.family or DocumentArcsOptions()
    documents, not_used = select(sources, Document, "document-arcs")
    made = documents | "DocumentArcs" >> MakeDocumentArcs(
        config.parser, DocumentArcsConfig(seed=config.seed, rules=opts.rules, per_document=opts.per_document))
    examples, skipped, counts = made["examples"], [made[SKIPPED], not_used], None
    if opts.overlap_blind:
        blind = examples | "OverlapBlind" >> OverlapBlind(OverlapBlindConfig(config.seed))
        examples, counts = blind["rows"], blind[COUNTS]
        skipped.append(blind[BLIND_SKIPPED])
    return FamilyOutput(
        records=examples,
        dead=made[DEAD],
        context=lambda row: row.document_id,
        skipped=skipped | "Skipped" >> beam.Flatten(),
        counts=counts,
        stats={"arc_labels": examples | "Tally" >> beam.Map(tally)
               | "ArcLabelStats" >> beam.CombineGlobally(ArcLabelStats(table_2=False))},
    )


FAMILY = Family(
    name="document-arcs",
    record_type=ArcExample,
    samples=("documents.jsonl",),
    build=build,
    summary="documents -> evidence removal, recombination, restatement, extrinsic attachment: arc-labelled "
            "hypotheses against SummaC blocks",
    add_arguments=add_arguments,
    options=options,
    input_format="documents",
    accepts=lambda opts: (Document,),
    parses=lambda opts: True,
)
