"""The recast family (Poliak 2020 ch. 3): NER, event-factuality and sentiment annotations -> RtePair shards + audit."""
from __future__ import annotations

from dataclasses import dataclass

import apache_beam as beam

from entailgen.pipelines.base import Family, FamilyOutput, RunConfig
from entailgen.schemas.records import RtePair
from entailgen.schemas.sources import FactualityAnnotation, NerSentence, Review
from entailgen.transforms.audit import AuditFn
from entailgen.schemas.records import Skipped
from entailgen.transforms.recast.dnc import WriteDnc
from entailgen.transforms.recast.factuality import FactualityConfig, RecastFactuality
from entailgen.transforms.recast.ner import NerRecastConfig, RecastNer
from entailgen.transforms.recast.sentiment import RecastSentiment, SentimentConfig

PHENOMENA = {"ner": NerSentence, "factuality": FactualityAnnotation, "sentiment": Review}


@dataclass(frozen=True)
class RecastOptions:
    """Which phenomena to recast, the factuality ambiguity threshold, and optional DNC-layout export."""

    phenomena: tuple[str, ...] = tuple(PHENOMENA)
    factuality_threshold: float = FactualityConfig().threshold
    export_dnc: bool = False


def add_arguments(group) -> None:
    group.add_argument("--phenomena", default=",".join(PHENOMENA), help="comma list of ner,factuality,sentiment")
    group.add_argument("--factuality-threshold", type=float, default=FactualityConfig().threshold,
                       help="|value| below this is ambiguous: skipped and counted")
    group.add_argument("--export", choices=("dnc",), help="also write the Diverse NLI Collection JSON layout")


def options(args) -> RecastOptions:
    phenomena = tuple(p.strip() for p in args.phenomena.split(",") if p.strip())
    unknown = sorted(set(phenomena) - set(PHENOMENA))
    if unknown or not phenomena:
        raise ValueError(f"--phenomena takes {', '.join(PHENOMENA)}; got {args.phenomena!r}")
    if args.factuality_threshold < 0:
        raise ValueError(f"--factuality-threshold must be 0 or more, got {args.factuality_threshold}")
    return RecastOptions(phenomena, args.factuality_threshold, args.export == "dnc")


def _phenomenon(record) -> str:
    """Which recast an input record feeds ('other' for records this family does not recast)."""
    return next((name for name, cls in PHENOMENA.items() if isinstance(record, cls)), "other")


def _not_selected(record) -> Skipped:
    return Skipped(record.source, record.source_id, "recast", f"NotSelected:{_phenomenon(record)}")


def build(sources: beam.PCollection, config: RunConfig) -> FamilyOutput:
    """Route each annotation to its recast; every pair of a premise shares its split (context = premise)."""
    opts: RecastOptions = config.family or RecastOptions()
    names = list(PHENOMENA) + ["other"]
    routed = sources | "Route" >> beam.Partition(lambda r, n: names.index(_phenomenon(r)), len(names))
    by_name = dict(zip(names, routed))
    recasts = {
        "ner": RecastNer(NerRecastConfig(seed=config.seed)),
        "factuality": RecastFactuality(FactualityConfig(threshold=opts.factuality_threshold)),
        "sentiment": RecastSentiment(SentimentConfig(seed=config.seed)),
    }
    outs = {name: by_name[name] | f"Recast {name}" >> recasts[name] for name in opts.phenomena}
    left_out = [by_name[n] for n in names if n not in opts.phenomena]
    skipped = [o.skipped for name, o in outs.items() if name != "sentiment"]
    skipped.append(left_out | "LeftOut" >> beam.Flatten() | "NotSelected" >> beam.Map(_not_selected))
    return FamilyOutput(
        records=[o.pairs for o in outs.values()],
        dead=[o.dead for o in outs.values()] | "Dead" >> beam.Flatten(),
        context=lambda pair: pair.premise,
        skipped=skipped | "Skipped" >> beam.Flatten(),
        stats={"audit": AuditFn()},
        exports={"dnc": WriteDnc(config.output)} if opts.export_dnc else {},
    )


FAMILY = Family(
    name="recast",
    record_type=RtePair,
    samples=("conll2003.txt", "uds_factuality.json", "factuality.jsonl",
             "amazon_cells_labelled.txt", "imdb_labelled.txt", "yelp_labelled.txt"),
    build=build,
    summary="NER / factuality / sentiment annotations -> recast RTE pairs, with a hypothesis-only audit",
    add_arguments=add_arguments,
    options=options,
)
