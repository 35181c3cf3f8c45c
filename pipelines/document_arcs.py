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
from entailgen.transforms.augment.wordnet import DEBIAN_WORDNET, WordNetMissing, nltk_wordnet_tree
from entailgen.transforms.document_arcs.make import (COUNTS as DOUBTFUL_COUNTS, DEAD, DEFAULT_RULES, SKIPPED,
                                                     DocumentArcsConfig, MakeDocumentArcs, tally)
from entailgen.transforms.rewrites import CARRIED, DEFAULT_REWRITES, LEXICAL, REWRITES
from entailgen.transforms.label import ArcLabelStats
from entailgen.transforms.overlap_blind import COUNTS, HELP, OverlapBlind, OverlapBlindConfig
from entailgen.transforms.overlap_blind import SKIPPED as BLIND_SKIPPED


@dataclass(frozen=True)
class DocumentArcsOptions:
    """Which rules run, how many hypotheses each makes per document, which entailed rewrites rewording and the error
    rules' sentences use, and whether doubtful arcs are unlabelled."""

    rules: tuple[str, ...] = DEFAULT_RULES
    per_document: int = 2
    overlap_blind: bool = False  # balance arc labels within each rule and overlap bin (transforms.overlap_blind)
    evidence_per_document: int = 4
    rewrites: tuple[str, ...] = DEFAULT_REWRITES
    reword_share: float = 0.5
    filter_doubtful: bool = False


def add_arguments(group) -> None:
    group.add_argument("--rules", default=",".join(DEFAULT_RULES),
                       help=f"comma list of {','.join(RULES)} (default: all but restatement)")
    group.add_argument("--per-document", type=int, default=2, help="hypotheses each rule makes per document")
    group.add_argument("--evidence-per-document", type=int, default=4,
                       help="claims evidence removal makes per document (default 4)")
    group.add_argument("--rewrites", default=",".join(DEFAULT_REWRITES),
                       help=f"comma list of the entailed rewrites rewording uses: {','.join(REWRITES)} (default: "
                            f"all but {' and '.join(LEXICAL)}: WordNet's first senses, wrong in 48-68 %% of rows read)")
    group.add_argument("--reword-share", type=float, default=0.5,
                       help=f"share of error hypotheses whose sentence first takes a {' or '.join(CARRIED)} rewrite "
                            "among --rewrites (0 to 1; default 0.5)")
    group.add_argument("--filter-doubtful", action="store_true",
                       help="unlabel a 0 arc another document sentence holds and a 1 arc with a word nothing "
                            "explains (counted by reason)")
    group.add_argument("--overlap-blind", action="store_true", help=HELP)


def options(args) -> DocumentArcsOptions:
    """The family's options; an unknown rule or a count below 1 is refused in one line."""
    chosen = tuple(r.strip() for r in args.rules.split(",") if r.strip())
    unknown = sorted(set(chosen) - set(RULES))
    if unknown or not chosen:
        raise ValueError(f"--rules takes {','.join(RULES)}; got {args.rules!r}")
    for flag, value in (("--per-document", args.per_document), ("--evidence-per-document", args.evidence_per_document)):
        if value < 1:
            raise ValueError(f"{flag} must be at least 1, got {value}")
    rewrites = tuple(r.strip() for r in args.rewrites.split(",") if r.strip())
    if set(rewrites) - set(REWRITES) or not rewrites:
        raise ValueError(f"--rewrites takes {','.join(REWRITES)}; got {args.rewrites!r}")
    if not 0 <= args.reword_share <= 1:
        raise ValueError(f"--reword-share must be between 0 and 1, got {args.reword_share}")
    rules = tuple(r for r in RULES if r in chosen)
    if set(rewrites) & set(LEXICAL) and "rewording" in rules:
        try:
            nltk_wordnet_tree(DEBIAN_WORDNET)
        except (WordNetMissing, OSError) as error:
            raise ValueError(f"synonym and hypernym rewrites need WordNet: {error}") from None
    return DocumentArcsOptions(rules, args.per_document, args.overlap_blind, args.evidence_per_document,
                               tuple(r for r in REWRITES if r in rewrites), args.reword_share, args.filter_doubtful)


def build(sources: beam.PCollection, config: RunConfig) -> FamilyOutput:
    """Documents -> labelled hypotheses; the split context is the hash of the document's text, so one document never
    spans two splits, wherever and however often the input holds it."""
    opts: DocumentArcsOptions = config.family or DocumentArcsOptions()
    documents, not_used = select(sources, Document, "document-arcs")
    made = documents | "DocumentArcs" >> MakeDocumentArcs(config.parser, DocumentArcsConfig(
        seed=config.seed, rules=opts.rules, per_document=opts.per_document,
        evidence_per_document=opts.evidence_per_document, rewrites=opts.rewrites, reword_share=opts.reword_share,
        filter_doubtful=opts.filter_doubtful))
    examples, skipped, counts = made["examples"], [made[SKIPPED], not_used], [made[DOUBTFUL_COUNTS]]
    if opts.overlap_blind:
        blind = examples | "OverlapBlind" >> OverlapBlind(OverlapBlindConfig(config.seed))
        examples = blind["rows"]
        counts.append(blind[COUNTS])
        skipped.append(blind[BLIND_SKIPPED])
    return FamilyOutput(
        records=examples,
        dead=made[DEAD],
        context=lambda row: row.document_id,
        skipped=skipped | "Skipped" >> beam.Flatten(),
        counts=counts | "Counts" >> beam.Flatten(),
        stats={"arc_labels": examples | "Tally" >> beam.Map(tally)
               | "ArcLabelStats" >> beam.CombineGlobally(ArcLabelStats(table_2=False))},
    )


FAMILY = Family(
    name="document-arcs",
    record_type=ArcExample,
    samples=("documents.jsonl",),
    build=build,
    summary="documents -> evidence removal, recombination, extrinsic attachment, rewording (restatement by "
            "option): arc-labelled hypotheses against SummaC blocks",
    add_arguments=add_arguments,
    options=options,
    input_format="documents",
    accepts=lambda opts: (Document,),
    parses=lambda opts: True,
)
