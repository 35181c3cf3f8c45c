"""The recast family (Poliak 2020 ch. 3): NER, event-factuality, sentiment annotations and KG relations (by distant
supervision over a corpus) -> RtePair shards + audit."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Optional

import apache_beam as beam

from entailgen.pipelines.base import Family, FamilyOutput, RunConfig
from entailgen.schemas.records import RtePair
from entailgen.schemas.records import Skipped
from entailgen.schemas.sources import DncPair, FactualityAnnotation, NerSentence, Review, SourceText
from entailgen.transforms.flags import finite_float  # the CLI's float type: nan and inf refused
from entailgen.transforms.hypothesis_only import AuditFn
from entailgen.transforms.io.option_files import check_option_file
from entailgen.transforms.io.paths import path_option
from entailgen.transforms.parsing import Parse
from entailgen.transforms.recast.dnc import WriteDnc
from entailgen.transforms.recast.factuality import FactualityConfig, RecastFactuality
from entailgen.transforms.recast.ner import NerRecastConfig, RecastNer
from entailgen.transforms.recast.relation import RecastRelation, RelationConfig, dnc_rte_pair, load_kb, load_templates
from entailgen.transforms.recast.sentiment import ITEMS, RecastSentiment, SentimentConfig

# The source records each phenomenon recasts.
PHENOMENA = {"ner": (NerSentence,), "factuality": (FactualityAnnotation,), "sentiment": (Review,),
             "relation": (SourceText, DncPair)}
ANNOTATED = ("ner", "factuality", "sentiment")  # the default without a KB: relation needs --kb
SAMPLE_KB = str(Path(__file__).resolve().parent.parent / "samples" / "kb.tsv")


@dataclass(frozen=True)
class RecastOptions:
    """Which phenomena to recast, the factuality ambiguity threshold, optional DNC-layout export, and for the
    relation recast its KB, its templates file (None: the shipped one) and its cap on no-relation pairs."""

    phenomena: tuple[str, ...] = ANNOTATED
    factuality_threshold: float = FactualityConfig().threshold
    export_dnc: bool = False
    kb: Optional[str] = path_option()
    relation_templates: Optional[str] = path_option()
    negatives_per_sentence: int = 1


def add_arguments(group) -> None:
    group.add_argument("--phenomena", help="comma list of ner,factuality,sentiment,relation (default: all, "
                                           f"relation only with --kb or --sample; a review's item: {', '.join(ITEMS)})")
    group.add_argument("--factuality-threshold", type=finite_float, default=FactualityConfig().threshold,
                       help="|value| below this is ambiguous: skipped and counted")
    group.add_argument("--export", choices=("dnc",), help="also write the Diverse NLI Collection JSON layout")
    group.add_argument("--kb", metavar="FILE", help="relation: KB triples, subject<TAB>relation<TAB>object"
                                                    "[<TAB>aliases...] (local or gs://; --sample: samples/kb.tsv)")
    group.add_argument("--relation-templates", metavar="FILE", help="relation: templates TSV replacing the shipped "
                                                                    "transforms/recast/relation_templates.tsv")
    group.add_argument("--negatives-per-sentence", type=int, default=1, metavar="N",
                       help="relation: at most N not-entailed pairs per sentence from pairs the KB holds nothing for")


def _relation_options(args, kb: Optional[str]) -> dict:
    """The relation recast's options, checked: the KB and templates are read once here, so a bad line is a usage
    error naming it before any work starts."""
    if not kb:
        raise ValueError("--phenomena relation needs --kb FILE (KB triples) or --sample")
    if args.negatives_per_sentence < 0:
        raise ValueError(f"--negatives-per-sentence must be >= 0; got {args.negatives_per_sentence}")
    for flag, path in (("--kb", kb), ("--relation-templates", args.relation_templates)):
        if path:
            check_option_file(flag, path)  # missing, a directory or empty
    try:
        load_kb(kb, load_templates(args.relation_templates))
    except OSError as error:  # a directory, no permission: one line, not a traceback
        raise ValueError(f"cannot read the KB or templates: {error}")
    return {"kb": kb, "relation_templates": args.relation_templates,
            "negatives_per_sentence": args.negatives_per_sentence}


def options(args) -> RecastOptions:
    kb = args.kb or (SAMPLE_KB if getattr(args, "sample", False) else None)
    default = ANNOTATED + ("relation",) if kb else ANNOTATED
    phenomena = tuple(p.strip() for p in (args.phenomena or ",".join(default)).split(",") if p.strip())
    unknown = sorted(set(phenomena) - set(PHENOMENA))
    if unknown or not phenomena:
        raise ValueError(f"--phenomena takes {', '.join(PHENOMENA)}; got {args.phenomena!r}")
    if not args.factuality_threshold >= 0:  # `not >=`: nan is refused too
        raise ValueError(f"--factuality-threshold must be 0 or more, got {args.factuality_threshold}")
    chosen = RecastOptions(phenomena, args.factuality_threshold, args.export == "dnc")
    if "relation" in phenomena:
        return dataclasses.replace(chosen, **_relation_options(args, kb))
    if args.kb or args.relation_templates:
        raise ValueError("--kb and --relation-templates are for --phenomena relation")
    return chosen


def _phenomenon(record) -> str:
    """Which recast an input record feeds ('other' for records this family does not recast)."""
    return next((name for name, cls in PHENOMENA.items() if isinstance(record, cls)), "other")


def _not_selected(record) -> Skipped:
    return Skipped(record.source, record.source_id, "recast", f"NotSelected:{_phenomenon(record)}")


class _Relation(beam.PTransform):
    """Relation records -> {pairs, dead, skipped}: corpus texts are parsed and recast against the KB; DNC KG pairs
    are taken as they are."""

    def __init__(self, opts: RecastOptions, config: RunConfig):
        super().__init__()
        self.opts, self.config = opts, config

    def expand(self, records):
        texts, dnc = records | "ByKind" >> beam.Partition(lambda r, _: int(isinstance(r, DncPair)), 2)
        parsed = texts | "Parse" >> Parse(self.config.parser)
        relation = RelationConfig(load_templates(self.opts.relation_templates), self.opts.negatives_per_sentence,
                                  self.config.seed)
        recast = parsed.parsed | "Recast" >> RecastRelation(self.opts.kb, relation)
        pairs = (recast["pairs"], dnc | "Dnc" >> beam.Map(dnc_rte_pair)) | "Pairs" >> beam.Flatten()
        dead = (parsed.dead, recast["dead"]) | "Dead" >> beam.Flatten()
        return {"pairs": pairs, "dead": dead, "skipped": recast["skipped"]}


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
        "relation": _Relation(opts, config),
    }
    outs = {name: by_name[name] | f"Recast {name}" >> recasts[name] for name in opts.phenomena}
    outs = {name: SimpleNamespace(**o) if isinstance(o, dict) else o for name, o in outs.items()}
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
             "amazon_cells_labelled.txt", "imdb_labelled.txt", "yelp_labelled.txt", "relation.txt",
             "recast_kg_relations_data.json"),
    build=build,
    summary="NER / factuality / sentiment annotations and KG relations -> recast RTE pairs, with a hypothesis-only "
            "audit",
    add_arguments=add_arguments,
    options=options,
    accepts=lambda opts: tuple(t for p in (opts or RecastOptions()).phenomena for t in PHENOMENA[p]),
    parses=lambda opts: "relation" in (opts or RecastOptions()).phenomena,  # spaCy finds the entity mentions
)
