"""The paraphrase family: monolingual text -> (x, h*) pairs by round-trip translation, in the layout dae reads."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import apache_beam as beam

from entailgen.pipelines.base import Family, FamilyOutput, RunConfig
from entailgen.schemas.records import ScoredParaphrase
from entailgen.transforms.flags import finite_float  # the CLI's float type: nan and inf refused
from entailgen.transforms.generate.hf import HfGenerateOptions
from entailgen.transforms.generate.model_dir import check_model_dir
from entailgen.transforms.io.paths import path_option
from entailgen.transforms.round_trip import (ChooseOptions, ChooseParaphrases, SimilarityBand, UniqueSentences,
                                             WriteParaNmt)

GENERATORS = ("apertium", "hf")


@dataclass(frozen=True)
class ParaphraseOptions:
    """Where round trips come from (Apertium, or a transformers model's beam) and the similarity band h* must be in."""

    generator: str = "apertium"
    model: Optional[str] = path_option()  # hf: hub id, local dir or gs:// dir
    k: int = 10  # hf: beam size; Apertium gives one candidate per installed route
    max_new_tokens: int = 48
    min_similarity: float = SimilarityBand.low
    max_similarity: float = SimilarityBand.high
    encoder: Optional[str] = path_option("default")  # MiniLM ('default'), a model dir, or None for unigram overlap
    export_paranmt: bool = False
    routes: Optional[tuple[tuple[str, ...], ...]] = None  # apertium: English -> ... -> English chains (None: all)


def add_arguments(group) -> None:
    group.add_argument("--generator", default="apertium", choices=GENERATORS, help="what makes the round trips")
    group.add_argument("--model", help="hf generator: model hub id, local dir or gs:// dir (safetensors)")
    group.add_argument("--k", type=int, help=f"hf generator: beam size (candidates per sentence; default "
                                              f"{ParaphraseOptions.k})")
    group.add_argument("--max-new-tokens", type=int,
                       help=f"hf generator: longest candidate (default {ParaphraseOptions.max_new_tokens})")
    group.add_argument("--min-similarity", type=finite_float, default=SimilarityBand.low,
                       help="candidates less similar to x are garbage")
    group.add_argument("--max-similarity", type=finite_float, default=SimilarityBand.high,
                       help="candidates more similar to x are near copies")
    group.add_argument("--lexical-ranking", action="store_true", help="similarity by word overlap, not MiniLM")
    group.add_argument("--export", choices=("paranmt",), help="also write paranmt.tsv (x<TAB>h*<TAB>score) for dae")


def options(args) -> ParaphraseOptions:
    """The paraphrase options; a flag the chosen generator would ignore is refused rather than recorded in the card."""
    if args.generator == "hf":
        if not args.model:
            raise ValueError("--generator hf needs --model (hub id, local dir or gs:// dir)")
        check_model_dir(args.model)
    else:
        ignored = [flag for flag, value in (("--model", args.model), ("--k", args.k),
                                            ("--max-new-tokens", args.max_new_tokens)) if value is not None]
        if ignored:
            raise ValueError(f"{' and '.join(ignored)} {'is' if len(ignored) == 1 else 'are'} for --generator hf; the "
                             f"{args.generator} generator takes no model and makes one candidate per route")
    k = ParaphraseOptions.k if args.k is None else args.k
    if k < 1:
        raise ValueError(f"--k must be at least 1, got {k}")
    max_new_tokens = ParaphraseOptions.max_new_tokens if args.max_new_tokens is None else args.max_new_tokens
    if max_new_tokens < 1:
        raise ValueError(f"--max-new-tokens must be at least 1, got {max_new_tokens}")
    if not -1.0 <= args.min_similarity <= args.max_similarity <= 1.0:
        raise ValueError("need -1 <= --min-similarity <= --max-similarity <= 1, got "
                         f"{args.min_similarity} and {args.max_similarity}")
    return ParaphraseOptions(args.generator, args.model, k, max_new_tokens, args.min_similarity,
                             args.max_similarity, None if args.lexical_ranking else "default",
                             args.export == "paranmt")


def round_trips(xs: beam.PCollection, opts: ParaphraseOptions):
    """Candidate paraphrases of each x; outputs .candidates and .dead. Apertium's come scored by similarity to x. Each
    backend's module loads only when chosen (hf brings torch and transformers)."""
    if opts.generator == "hf":
        from entailgen.transforms.generate.hf import GenerateCandidates

        return xs | "Generate" >> GenerateCandidates(HfGenerateOptions(
            model=opts.model, k=opts.k, max_new_tokens=opts.max_new_tokens))
    from entailgen.transforms.generate.apertium import DEFAULT_ROUTES, ApertiumOptions, RoundTripCandidates

    routes = opts.routes or DEFAULT_ROUTES
    return xs | "Generate" >> RoundTripCandidates(ApertiumOptions(k=len(routes), routes=routes, encoder=opts.encoder))


def build(sources: beam.PCollection, config: RunConfig) -> FamilyOutput:
    """One x per distinct sentence -> round trips -> h* in the band; splits follow x, as dae's will."""
    opts: ParaphraseOptions = config.family or ParaphraseOptions()
    unique = sources | "Sentences" >> UniqueSentences()
    generated = round_trips(unique.xs, opts)
    chosen = ({"x": unique.xs, "candidates": generated.candidates, "dead": generated.dead}
              | "Choose" >> ChooseParaphrases(ChooseOptions(
                  SimilarityBand(opts.min_similarity, opts.max_similarity), opts.generator == "hf", opts.encoder)))
    return FamilyOutput(
        records=chosen.pairs,
        dead=generated.dead,
        context=lambda pair: pair.text,
        skipped=(unique.skipped, chosen.skipped) | "Skipped" >> beam.Flatten(),
        exports={"paranmt": WriteParaNmt(config.output)} if opts.export_paranmt else {},
    )


FAMILY = Family(
    name="paraphrase",
    record_type=ScoredParaphrase,
    samples=("text.txt",),
    build=build,
    summary="monolingual text -> (x, h*) paraphrase pairs by round-trip translation (ParaNMT layout, for dae)",
    add_arguments=add_arguments,
    options=options,
    gpu=lambda opts: opts is not None and opts.generator == "hf",
)
