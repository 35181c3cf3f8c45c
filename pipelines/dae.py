"""The dae family (Goyal & Durrett 2020): paraphrase pairs (x, h*) -> k beam candidates -> per-arc entailment labels."""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Optional

import apache_beam as beam
from apache_beam.coders import BytesCoder
from apache_beam.io.filesystems import FileSystems

from entailgen.pipelines.base import Family, FamilyOutput, RunConfig, select
from entailgen.schemas.records import AUGMENTED_KINDS, ArcExample
from entailgen.schemas.sources import Document, ParaphrasePair, SourceText
from entailgen.transforms.context import ContextConfig, InContext
from entailgen.transforms.generate import as_unit
from entailgen.transforms.generate.hf import HfGenerateOptions
from entailgen.transforms.generate.model_dir import check_model_dir
from entailgen.transforms.io.option_files import check_option_file
from entailgen.transforms.io.paths import path_option
from entailgen.transforms.io.read import read_file
from entailgen.transforms.label import ArcLabelStats, LabelArcs, LabelConfig, arc_tally
from entailgen.transforms.overlap_blind import COUNTS, HELP, SKIPPED, OverlapBlind, OverlapBlindConfig
from entailgen.transforms.parsing import Parse

GENERATORS = ("apertium", "hf", "ct2", "candidates")
MODEL_GENERATORS = ("hf", "ct2")  # the generators that take --model
COMPUTE_TYPES = ("auto", "int8", "int8_float32", "int8_float16", "int8_bfloat16", "int16", "float16", "bfloat16",
                 "float32")
CPU_COMPUTE_TYPES = ("int8", "int8_float32", "int16")  # ct2 with these runs on CPU workers
AUGMENTATIONS = AUGMENTED_KINDS  # --augment's names are the kinds of the rows they add


@dataclass(frozen=True)
class DaeOptions:
    """How candidates are made (apertium round trips, a transformers model, or a file) and labelled."""

    generator: str = "apertium"
    model: Optional[str] = path_option()  # hf, ct2: hub id, local dir or gs:// dir (ct2: also a converted CTranslate2 dir)
    candidates: Optional[str] = path_option()  # candidates: JSONL file of ranked hypotheses per source
    k: int = 10
    bottom: int = 3
    level: str = "arc"
    max_new_tokens: int = 24
    batch_tokens: int = HfGenerateOptions.batch_tokens
    bucket_size: int = HfGenerateOptions.bucket_size
    encoder: Optional[str] = path_option("default")  # apertium ranking: MiniLM ("default"), a model dir, or None
    augment: tuple[str, ...] = ()
    compute_type: str = "auto"  # ct2: auto is int8 on CPU, bfloat16 (or float16) on GPU
    span_cuts: int = 1  # span_deletion: distinct cuts per sentence
    overlap_blind: bool = False  # balance labels within each kind and overlap bin (transforms.overlap_blind)
    context: Optional[str] = path_option()  # documents whose sentences' rows are read in context (transforms.context)
    context_words: int = ContextConfig.words


def add_arguments(group) -> None:
    group.add_argument("--generator", choices=GENERATORS,
                       help="where the k candidates come from (default: candidates with --candidates, else apertium)")
    group.add_argument("--model", help="hf / ct2 generator: model hub id, local dir or gs:// dir (safetensors); "
                                       "ct2 also takes a converted CTranslate2 dir")
    group.add_argument("--candidates", metavar="FILE",
                       help="JSONL of ranked hypotheses per source; selects the candidates generator")
    group.add_argument("--k", type=int, default=10, help="beam size / candidates per source")
    group.add_argument("--bottom", type=int, default=3, help="bottom-of-beam candidates to label")
    group.add_argument("--level", default="arc", choices=("arc", "sentence"), help="arc labels or sentence variant")
    group.add_argument("--max-new-tokens", type=int,
                       help=f"hf and ct2 generators: longest candidate (default {DaeOptions.max_new_tokens})")
    group.add_argument("--batch-tokens", type=int, default=HfGenerateOptions.batch_tokens,
                       help="hf generator: token budget of one generate call (sentences x k x padded length)")
    group.add_argument("--bucket-size", type=int, default=HfGenerateOptions.bucket_size,
                       help="hf generator: most sentences in one generate call")
    group.add_argument("--compute-type", default="auto", choices=COMPUTE_TYPES,
                       help="ct2 generator: auto = int8 on CPU, bfloat16 (or float16) on GPU")
    group.add_argument("--lexical-ranking", action="store_true", help="apertium: rank by word overlap, not MiniLM")
    group.add_argument("--augment", default="", help=f"comma list of {','.join(AUGMENTATIONS)}")
    group.add_argument("--span-cuts", type=int, metavar="N",
                       help="span_deletion: distinct cuts per sentence, each its own example (default 1)")
    group.add_argument("--overlap-blind", action="store_true", help=HELP)
    group.add_argument("--context", metavar="DOCS",
                       help="documents (the claims family's layouts) holding the premises: each row whose premise is "
                            "a sentence of one is read in that document's context, packed as `score --evidence "
                            "packed` packs a summary sentence; a 0 arc the context supports becomes 1")
    group.add_argument("--context-words", type=int, metavar="N",
                       help=f"--context: words a premise in context may hold (default {ContextConfig.words}, ~128 "
                            "tokens; 384 for --max-length 512)")


def options(args) -> DaeOptions:
    """The dae options; a flag the chosen generator would ignore is refused rather than recorded in the card."""
    generator = args.generator or ("candidates" if args.candidates else "apertium")
    if args.candidates and generator != "candidates":
        raise ValueError(f"--candidates is for the candidates generator, not --generator {generator}")
    if args.model and generator not in MODEL_GENERATORS:
        raise ValueError(f"--model is for --generator hf or ct2; the {generator} generator takes no model")
    if args.lexical_ranking and generator != "apertium":
        raise ValueError(f"--lexical-ranking ranks apertium's candidates; the {generator} generator ranks its own")
    if args.compute_type != "auto" and generator != "ct2":
        raise ValueError(f"--compute-type is for --generator ct2, not {generator}")
    if generator in MODEL_GENERATORS:
        if not args.model:
            raise ValueError(f"--generator {generator} needs --model (hub id, local dir or gs:// dir)")
        check_model_dir(args.model)
    if args.max_new_tokens is not None and generator not in MODEL_GENERATORS:
        raise ValueError(f"--max-new-tokens is for --generator hf or ct2; the {generator} generator ignores it")
    max_new_tokens = DaeOptions.max_new_tokens if args.max_new_tokens is None else args.max_new_tokens
    if max_new_tokens < 1:
        raise ValueError(f"--max-new-tokens must be at least 1, got {max_new_tokens}")
    if generator == "ct2" and importlib.util.find_spec("ctranslate2") is None:
        raise ValueError("--generator ct2 needs CTranslate2: pip install ctranslate2==4.8.5")
    if generator == "candidates":
        if not args.candidates:
            raise ValueError("--generator candidates needs --candidates FILE")
        check_option_file("--candidates", args.candidates)  # missing, a directory or empty: before the job
    if args.k < 1 or not 0 <= args.bottom < args.k:
        raise ValueError(f"need k >= 1 and 0 <= bottom < k, got k={args.k} bottom={args.bottom}")
    augment = tuple(a.strip() for a in args.augment.split(",") if a.strip())
    if set(augment) - set(AUGMENTATIONS):
        raise ValueError(f"--augment takes {','.join(AUGMENTATIONS)}; got {args.augment!r}")
    if args.span_cuts is not None and "span_deletion" not in augment:
        raise ValueError("--span-cuts is for --augment span_deletion, which this run does not make")
    span_cuts = DaeOptions.span_cuts if args.span_cuts is None else args.span_cuts
    if span_cuts < 1:
        raise ValueError(f"--span-cuts must be at least 1, got {span_cuts}")
    if args.context_words is not None and not args.context:
        raise ValueError("--context-words is for --context DOCS")
    context_words = ContextConfig.words if args.context_words is None else args.context_words
    if context_words < 8:
        raise ValueError(f"--context-words must be at least 8, got {context_words}")
    if args.context:
        check_option_file("--context", args.context)  # missing, a directory or empty: before the job
    return DaeOptions(generator, args.model, args.candidates, args.k, args.bottom, args.level,
                      max_new_tokens, args.batch_tokens, args.bucket_size,
                      None if args.lexical_ranking else "default",
                      tuple(a for a in AUGMENTATIONS if a in augment), args.compute_type, span_cuts,
                      args.overlap_blind, args.context, context_words)


def generate(xs: beam.PCollection, opts: DaeOptions):
    """k ranked candidates per x from the chosen backend; its outputs have .candidates and .dead. Each backend's module
    loads only when chosen: hf brings torch and transformers, ct2 CTranslate2, apertium the sentence encoder."""
    if opts.generator == "hf":
        from entailgen.transforms.generate.hf import GenerateCandidates

        return xs | "Generate" >> GenerateCandidates(HfGenerateOptions(
            model=opts.model, k=opts.k, max_new_tokens=opts.max_new_tokens, batch_tokens=opts.batch_tokens,
            bucket_size=opts.bucket_size))
    if opts.generator == "ct2":
        from entailgen.transforms.generate.ct2 import Ct2Candidates, Ct2GenerateOptions

        return xs | "Generate" >> Ct2Candidates(Ct2GenerateOptions(
            model=opts.model, k=opts.k, max_new_tokens=opts.max_new_tokens, compute_type=opts.compute_type,
            bucket_size=opts.bucket_size))
    if opts.generator == "candidates":
        from entailgen.transforms.generate.candidates import JoinCandidates, UserCandidatesOptions

        rows = xs.pipeline | "CandidatesFile" >> beam.io.ReadFromText(opts.candidates, coder=BytesCoder())
        name = FileSystems.split(opts.candidates)[1]
        return {"sources": xs, "rows": rows} | "Join" >> JoinCandidates(UserCandidatesOptions(name=name))
    from entailgen.transforms.generate.apertium import ApertiumOptions, RoundTripCandidates

    return xs | "Generate" >> RoundTripCandidates(ApertiumOptions(k=opts.k, encoder=opts.encoder))


def candidate_units(xs: beam.PCollection, candidates: beam.PCollection) -> beam.PCollection:
    """Candidates as parse units carrying their source file's name, so their dead letters count against it."""
    return ({"x": xs | "KeyX" >> beam.WithKeys(lambda u: u.source_id),
             "c": candidates | "KeyC" >> beam.WithKeys(lambda c: c.source_id)}
            | "WithSource" >> beam.CoGroupByKey()
            | "AsUnits" >> beam.FlatMapTuple(lambda _, g: [as_unit(c, x.source) for x in g["x"][:1] for c in g["c"]]))


def augment(parsed: beam.PCollection, opts: DaeOptions, config: RunConfig) -> tuple[list, list]:
    """The chosen augmentations (DAE §5.3; span deletion, Falke et al.'s cuts; dialogue, With a Little Push's phrases)
    of the parsed x and (x, h*): their example and dead-letter outputs (their modules load only when augmenting)."""
    from entailgen.transforms.augment.common import ReparsingAugment
    from entailgen.transforms.augment.dialogue_arcs import DialogueArcsOptions, dialogue_arcs
    from entailgen.transforms.augment.hallucination import HallucinationOptions, hallucination
    from entailgen.transforms.augment.overlap import NearestOverlap, OverlapOptions
    from entailgen.transforms.augment.span_deletion import SpanDeletionOptions, span_deletion
    from entailgen.transforms.augment.synonym import SynonymOptions, SynonymPairs, SynonymSubstitution
    from entailgen.transforms.augment.word_swap import WordSwapOptions, word_swap

    kinds = opts.augment
    xs = parsed | "OnlyX" >> beam.Filter(lambda s: s.role == "source")
    outs = []
    if "word_swap" in kinds:
        outs.append(xs | "WordSwap" >> ReparsingAugment(word_swap(WordSwapOptions(seed=config.seed)), config.parser))
    if "span_deletion" in kinds:
        outs += [xs | f"SpanDeletion{cut or ''}" >> ReparsingAugment(
                     span_deletion(SpanDeletionOptions(seed=config.seed, cut=cut)), config.parser)
                 for cut in range(opts.span_cuts)]
    if "hallucination" in kinds:
        outs.append(xs | "Hallucinate" >> ReparsingAugment(hallucination(HallucinationOptions(seed=config.seed)),
                                                           config.parser))
    if "dialogue" in kinds:
        outs.append(xs | "DialogueArcs" >> ReparsingAugment(dialogue_arcs(DialogueArcsOptions(seed=config.seed)),
                                                            config.parser))
    if "synonym" in kinds:
        pairs = (parsed | "KeyRoles" >> beam.Map(lambda s: (s.source_id, s)) | "ByPair" >> beam.GroupByKey()
                 | "XGold" >> beam.FlatMapTuple(lambda _, ss: [(x, h) for x in ss if x.role == "source"
                                                               for h in ss if h.role == "gold"]))
        outs.append(pairs | "SynonymPairs" >> SynonymPairs(SynonymOptions(seed=config.seed)))
        outs.append(xs | "SynonymSubstitution" >> SynonymSubstitution(SynonymOptions(seed=config.seed)))
    examples = [o.examples for o in outs]
    if "overlap" in kinds:
        examples.append(xs | "NearestOverlap" >> NearestOverlap(OverlapOptions()))
    return examples, [o.dead for o in outs]


def tally_every_kind(tallies: beam.PCollection, augmented: list) -> beam.PCollection:
    """stats.arc_labels over the §4 examples' tallies and every augmented example, so the label balance counts every row."""
    augmented_tallies = [examples | f"Tally{i}" >> beam.Map(arc_tally) for i, examples in enumerate(augmented)]
    return ([tallies, *augmented_tallies] | "Tallies" >> beam.Flatten()
            | "ArcLabelStats" >> beam.CombineGlobally(ArcLabelStats()))


def source_context(example: ArcExample) -> str:
    """What an example's split follows: its document where it was read in one (--context), else the source sentence
    x it comes from: its premise, except hallucination's (x' premise, x hypothesis)."""
    if example.document_id is not None:
        return example.document_id
    return example.hypothesis if example.kind == "hallucination" else example.premise


def context_documents(pipeline, path: str) -> beam.PCollection:
    """The --context file's documents; a unit that is no document is counted (context/unreadable), not a row's."""
    def documents(p):
        for unit in read_file(p, "documents"):
            if isinstance(unit, Document):
                yield unit
            else:
                beam.metrics.Metrics.counter("context", "unreadable").inc()
    return pipeline | "ContextFile" >> beam.Create([path]) | "ReadContext" >> beam.FlatMap(documents)


def build(sources: beam.PCollection, config: RunConfig) -> FamilyOutput:
    """Parse x, h* and the candidates, group them by source, label arcs; splits follow x (the premise)."""
    opts: DaeOptions = config.family or DaeOptions()
    pairs, not_pairs = select(sources, ParaphrasePair, "dae")
    xs = pairs | "X" >> beam.Map(lambda p: SourceText(p.text, p.source, p.source_id, "source"))
    golds = pairs | "Gold" >> beam.Map(lambda p: SourceText(p.gold, p.source, p.source_id, "gold"))
    generated = generate(xs, opts)
    units = (xs, golds, candidate_units(xs, generated.candidates)) | "Units" >> beam.Flatten()
    parsed = units | "Parse" >> Parse(config.parser)
    labelled = ({"parsed": parsed.parsed | "KeyParsed" >> beam.WithKeys(lambda s: s.source_id),
                 "candidates": generated.candidates | "KeyCandidates" >> beam.WithKeys(lambda c: c.source_id)}
                | "BySource" >> beam.CoGroupByKey()
                | "Label" >> LabelArcs(LabelConfig(k=opts.k, bottom=opts.bottom, level=opts.level)))
    augmented, augment_dead = augment(parsed.parsed, opts, config)
    records, tallies, skipped = [labelled.examples, *augmented], labelled.tallies, [not_pairs, labelled.skipped]
    counts = None
    if opts.context:  # labels grow with the premise: the tallies are the rows' own after it
        records = [tuple(records) | "Rows" >> beam.Flatten()
                   | "InContext" >> InContext(ContextConfig(opts.context, opts.context_words),
                                              context_documents(sources.pipeline, opts.context), config.parser)]
        tallies = records[0] | "ContextTallies" >> beam.Map(arc_tally)
    if opts.overlap_blind:  # after labelling and augmenting: the bins span every kind's rows
        blind = tuple(records) | "OverlapBlind" >> OverlapBlind(OverlapBlindConfig(config.seed))
        records, tallies, counts = [blind["rows"]], blind["rows"] | "BlindTallies" >> beam.Map(arc_tally), blind[COUNTS]
        skipped.append(blind[SKIPPED])
    return FamilyOutput(
        records=records,
        dead=[generated.dead, parsed.dead, labelled.dead, *augment_dead] | "Dead" >> beam.Flatten(),
        context=source_context,
        skipped=skipped | "Skipped" >> beam.Flatten(),
        stats={"arc_labels": tally_every_kind(tallies, [] if opts.overlap_blind or opts.context else augmented)},
        counts=counts,
    )


FAMILY = Family(
    name="dae",
    record_type=ArcExample,
    samples=("paraphrase.tsv", "paraphrase.jsonl"),
    build=build,
    summary="paraphrase pairs -> beam candidates -> dependency-arc entailment labels (DAE)",
    add_arguments=add_arguments,
    options=options,
    gpu=lambda opts: opts is not None and (opts.generator == "hf" or (
        opts.generator == "ct2" and opts.compute_type not in CPU_COMPUTE_TYPES)),
    accepts=lambda opts: (ParaphrasePair,),
    parses=lambda opts: True,
)
