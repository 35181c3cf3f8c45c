"""The nli-dialogue family (Steen et al. 2023 §2.1): NLI pairs kept, plus copies with a dialogue phrase prepended; the
pairs are NLI JSON lines, or the rows of finished entailgen datasets (claims, dae, recast) with their 3-way labels."""
from __future__ import annotations

import dataclasses
from typing import Optional

import apache_beam as beam

from entailgen.pipelines.base import Family, FamilyOutput, RunConfig, select
from entailgen.schemas.records import RtePair
from entailgen.schemas.sources import DatasetRow, NliPair
from entailgen.transforms.augment.dialogue import (PHRASES, AddDialoguePhrases, DialogueOptions, read_phrase_file,
                                                   read_phrase_lines, split_context)
from entailgen.transforms.hypothesis_only import AuditFn
from entailgen.transforms.io.option_files import check_option_file


def add_arguments(group) -> None:
    group.add_argument("--phrase-subset", type=int, metavar="N", help="use a seeded random subset of N phrases")
    group.add_argument("--phrase-file", metavar="FILE", help="your own phrases: one per line, optional category")
    group.add_argument("--no-copies", action="store_true",
                       help="the pairs alone, no dialogue copies: a finished dataset's 3-way pairs without the "
                            "augmentation (its ablation)")


def options(args) -> DialogueOptions:
    subset: Optional[int] = args.phrase_subset
    if subset is not None and subset < 1:
        raise ValueError(f"--phrase-subset must be at least 1, got {subset}")
    if args.phrase_file:
        check_option_file("--phrase-file", args.phrase_file)  # missing, a directory or empty
    phrases = read_phrase_file(args.phrase_file) if args.phrase_file else PHRASES  # no phrase at all: refused here
    if subset is not None and subset > len(phrases):
        raise ValueError(f"--phrase-subset {subset} is more than the {len(phrases)} phrases there are")
    return DialogueOptions(phrase_subset=subset, phrase_file=args.phrase_file, copies=not args.no_copies)


def build(sources: beam.PCollection, config: RunConfig) -> FamilyOutput:
    """Originals and dialogue copies share their premise's split (a claims row's pairs: their document's); the audit
    shows what the hypothesis alone gives."""
    opts = config.family or DialogueOptions()
    pairs, not_nli = select(sources, (NliPair, DatasetRow), "nli-dialogue")
    dialogue = pairs | "Dialogue" >> AddDialoguePhrases(
        dataclasses.replace(opts, seed=config.seed))
    # the phrase file's lines that are not UTF-8: dead letters of that file (the run goes on with its other phrases)
    phrase_dead = sources.pipeline | "PhraseFileDead" >> beam.Create(
        list(read_phrase_lines(opts.phrase_file)[1]) if opts.phrase_file else [])
    dead = (dialogue.dead, phrase_dead) | "Dead" >> beam.Flatten()
    skipped = (not_nli, dialogue.skipped) | "Skipped" >> beam.Flatten()
    return FamilyOutput(records=dialogue.pairs, dead=dead, context=split_context, skipped=skipped,
                        stats={"audit": AuditFn()})


FAMILY = Family(
    name="nli-dialogue",
    record_type=RtePair,
    samples=("nli.jsonl", "anli.jsonl"),
    build=build,
    summary="NLI pairs + copies with a dialogue phrase prepended to the hypothesis (label kept)",
    add_arguments=add_arguments,
    options=options,
    accepts=lambda opts: (NliPair, DatasetRow),
)
