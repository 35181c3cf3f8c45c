"""The claims family (Kryściński et al. 2020, FactCC; Laban et al. 2022, SummaC): documents -> claims made by FactCC's
transformations, each checked against the whole document split into premise blocks."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import apache_beam as beam

from entailgen.pipelines.base import Family, FamilyOutput, RunConfig
from entailgen.schemas.records import ClaimExample, Skipped
from entailgen.schemas.sources import Document, LabelledClaim, SourceText
from entailgen.transforms.claims.blocks import GRANULARITIES
from entailgen.transforms.claims.claim_only import ClaimBalanceFn, ClaimsAuditFn
from entailgen.transforms.claims.claims import (KNOWN_TRANSFORMATIONS, OPTIONAL, TRANSFORMATIONS, ClaimsConfig,
                                                MakeClaims, backtranslated, block_rows)
from entailgen.transforms.claims.factcc import WriteFactcc
from entailgen.transforms.generate.model_dir import check_model_dir
from entailgen.transforms.io.paths import path_option
from entailgen.transforms.overlap_blind import COUNTS, HELP, SKIPPED, OverlapBlind, OverlapBlindConfig

BACKTRANSLATORS = ("apertium", "hf")
MAX_CLAIM_TOKENS = 96  # hf back-translator: longest round trip (document sentences are longer than paraphrase inputs)
APERTIUM_ROUTES = (("eng-spa", "spa-eng"), ("eng-cat", "cat-eng"), ("en-gl", "gl-en"))  # FactCC: several pivots


@dataclass(frozen=True)
class ClaimsOptions:
    """Transformations, granularity, claim sampling and noise, the back-translation generator, block rows, export."""

    granularity: str = "sentence"
    transformations: tuple[str, ...] = TRANSFORMATIONS
    claims_per_document: int = 1
    noise: bool = True
    summaries_as_claims: bool = False
    backtranslator: str = "apertium"
    model: Optional[str] = path_option()  # hf back-translator: hub id, local dir or gs:// dir
    pairs: str = "documents"  # "blocks": also one (block, claim) row per block
    export_factcc: bool = False
    round_trip_negatives: bool = False  # the negatives' claims back-translated too (With a Little Push's e-c)
    overlap_blind: bool = False  # balance labels within each transformation and overlap bin (transforms.overlap_blind)


def add_arguments(group) -> None:
    group.add_argument("--granularity", default="sentence", choices=GRANULARITIES, help="premise blocks (SummaC)")
    group.add_argument("--transformations", default=",".join(TRANSFORMATIONS),
                       help=f"comma list of {','.join(KNOWN_TRANSFORMATIONS)} (default: all but "
                            f"{','.join(OPTIONAL)}; sentence sampling always runs)")
    group.add_argument("--claims-per-document", type=int, default=1, help="sentences sampled as claims per document")
    group.add_argument("--no-noise", action="store_true", help="no noised copies of the claims")
    group.add_argument("--summaries-as-claims", action="store_true",
                       help="CNN/DM highlights and XSum summary sentences are CORRECT claims too")
    group.add_argument("--backtranslator", default="apertium", choices=BACKTRANSLATORS,
                       help="round trips through Apertium (offline) or a transformers model (--model)")
    group.add_argument("--model", help="hf back-translator: model hub id, local dir or gs:// dir (safetensors)")
    group.add_argument("--pairs", default="documents", choices=("documents", "blocks"),
                       help="blocks: also write one (block, claim) row per premise block")
    group.add_argument("--export", choices=("factcc",), help="also write FactCC's JSONL layout")
    group.add_argument("--round-trip-negatives", action="store_true",
                       help="also back-translate each swapped or negated claim: contradictions worded unlike their "
                            "source sentence, not near-copies of it (a 3-way model's contradiction class for e-c)")
    group.add_argument("--overlap-blind", action="store_true", help=HELP)


def options(args) -> ClaimsOptions:
    """The claims options; a flag nothing would use is refused rather than recorded in the card."""
    chosen = tuple(t.strip() for t in args.transformations.split(",") if t.strip())
    unknown = sorted(set(chosen) - set(KNOWN_TRANSFORMATIONS))
    if unknown:
        raise ValueError(f"--transformations takes {','.join(KNOWN_TRANSFORMATIONS)}; got "
                         f"{args.transformations!r}")
    if args.claims_per_document < 1:
        raise ValueError(f"--claims-per-document must be at least 1, got {args.claims_per_document}")
    if args.backtranslator == "hf" and "backtranslation" not in chosen:
        raise ValueError("--backtranslator hf: back-translation is not among --transformations")
    if args.round_trip_negatives and "backtranslation" not in chosen:
        raise ValueError("--round-trip-negatives: back-translation is not among --transformations")
    if args.backtranslator == "hf":
        if not args.model:
            raise ValueError("--backtranslator hf needs --model (hub id, local dir or gs:// dir)")
        check_model_dir(args.model)
    elif args.model:  # ignored, yet it would be recorded in the card
        raise ValueError(f"--model is for --backtranslator hf; the {args.backtranslator} back-translator takes no "
                         "model")
    return ClaimsOptions(args.granularity, tuple(t for t in KNOWN_TRANSFORMATIONS if t in chosen),
                         args.claims_per_document, not args.no_noise, args.summaries_as_claims, args.backtranslator,
                         args.model, args.pairs, args.export == "factcc", args.round_trip_negatives,
                         args.overlap_blind)


def round_trips(claims: beam.PCollection, opts: ClaimsOptions):
    """The dae family's generators, one round trip per claim: Apertium offline, or a transformers model (each module
    loads only when chosen: hf brings torch and transformers)."""
    units = claims | "AsUnits" >> beam.Map(lambda e: SourceText(e.claim, e.source, e.id, "source"))
    if opts.backtranslator == "hf":
        from entailgen.transforms.generate.hf import GenerateCandidates, HfGenerateOptions

        return units | "RoundTrip" >> GenerateCandidates(HfGenerateOptions(model=opts.model, k=1,
                                                                           max_new_tokens=MAX_CLAIM_TOKENS))
    from entailgen.transforms.generate.apertium import ApertiumOptions, RoundTripCandidates

    return units | "RoundTrip" >> RoundTripCandidates(ApertiumOptions(k=1, routes=APERTIUM_ROUTES, encoder=None))


def backtranslate(pending: beam.PCollection, opts: ClaimsOptions):
    """(back-translated ClaimExamples, Skipped for claims whose round trip came back unchanged, dead letters)."""
    generated = round_trips(pending, opts)
    joined = ({"claim": pending | "KeyClaim" >> beam.WithKeys(lambda e: e.id),
               "trip": generated.candidates | "KeyTrip" >> beam.WithKeys(lambda c: c.source_id),
               "dead": generated.dead | "KeyDead" >> beam.WithKeys(lambda d: d.source_id)}
              | "WithTrips" >> beam.CoGroupByKey()
              | "Backtranslated" >> beam.FlatMapTuple(lambda _, g: [  # a dead round trip is its dead letter alone
                  backtranslated(e, [c.text for c in sorted(g["trip"], key=lambda c: c.rank)],
                                 next((c.generator for c in g["trip"]), None)) for e in g["claim"] if not g["dead"]]))
    parts = joined | "SkippedTrips" >> beam.Partition(lambda r, _: int(isinstance(r, Skipped)), 2)
    return parts[0], parts[1], generated.dead


def _not_used(record) -> Skipped:
    return Skipped(record.source, record.source_id, "claims", f"NotUsed:{type(record).__name__}")


def build(sources: beam.PCollection, config: RunConfig) -> FamilyOutput:
    """Documents -> claims (and back-translations, block rows); one document is never in two splits."""
    opts: ClaimsOptions = config.family or ClaimsOptions()
    parts = sources | "SelectDocuments" >> beam.Partition(
        lambda r, _: 0 if isinstance(r, (Document, LabelledClaim)) else 1, 2)
    documents, others = parts[0], parts[1]
    claims_config = ClaimsConfig(seed=config.seed, granularity=opts.granularity,
                                 transformations=opts.transformations, claims_per_document=opts.claims_per_document,
                                 noise=opts.noise, summaries_as_claims=opts.summaries_as_claims,
                                 round_trip_negatives=opts.round_trip_negatives)
    made = documents | "MakeClaims" >> MakeClaims(config.parser, claims_config)
    rows, skipped, dead = [made.examples], [made.skipped, others | "NotUsed" >> beam.Map(_not_used)], [made.dead]
    if "backtranslation" in opts.transformations:
        trips, trip_skipped, trip_dead = backtranslate(made.backtranslate, opts)
        rows.append(trips)
        skipped.append(trip_skipped)
        dead.append(trip_dead)
    counts = None
    if opts.overlap_blind:  # before block rows: a claim left out takes its block rows with it
        blind = tuple(rows) | "OverlapBlind" >> OverlapBlind(OverlapBlindConfig(config.seed))
        rows, counts = [blind["rows"]], blind[COUNTS]
        skipped.append(blind[SKIPPED])
    records = list(rows)
    if opts.pairs == "blocks":
        records.append(rows | "DocumentRows" >> beam.Flatten() | "BlockRows" >> beam.FlatMap(block_rows))
    return FamilyOutput(
        records=records,
        dead=dead | "Dead" >> beam.Flatten(),
        context=lambda row: row.document_id,
        skipped=skipped | "Skipped" >> beam.Flatten(),
        stats={"balance": ClaimBalanceFn(), "audit": ClaimsAuditFn()},
        exports={"factcc": WriteFactcc(config.output)} if opts.export_factcc else {},
        counts=counts,
    )


FAMILY = Family(
    name="claims",
    record_type=ClaimExample,
    samples=("documents.jsonl",),
    build=build,
    summary="documents -> FactCC claims (sampled, back-translated, swapped, negated, noised) over SummaC blocks",
    add_arguments=add_arguments,
    options=options,
    gpu=lambda opts: (opts is not None and opts.backtranslator == "hf"
                      and "backtranslation" in opts.transformations),
    input_format="documents",
    accepts=lambda opts: (Document, LabelledClaim),
    parses=lambda opts: True,
)
