"""The `entailgen` command: run a corpus family, print a record type's JSON Schema, list input formats."""
from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
from pathlib import Path
from typing import Optional

from apache_beam.io.filesystems import FileSystems

import entailgen
from entailgen.pipelines import available, get_family
from entailgen.pipelines.base import RunConfig
from entailgen.runners.beam_flags import check_beam_flags
from entailgen.runners.summary import summary_text
from entailgen.schemas.arrow import json_schema
from entailgen.schemas.records import RECORD_TYPES
from entailgen.transforms.io import FORMATS, ReaderConfig, detect_format
from entailgen.transforms.parse import ParserConfig
from entailgen.transforms.shard import FORMATS as OUTPUT_FORMATS
from entailgen.transforms.split import SplitConfig

SAMPLES = Path(entailgen.__file__).parent / "samples"
# Further subcommands: each module's register(commands) adds a parser whose defaults set handler=fn(args) -> int.
COMMAND_MODULES: tuple[str, ...] = ("entailgen.runners.report", "entailgen.runners.refresh",
                                    "entailgen.runners.train")


class UsageError(Exception):
    """A bad flag or input: reported as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line (no usage dump) and exits 2; no abbreviations (Beam flags share prefixes)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, allow_abbrev=False, **kwargs)

    def error(self, message):
        raise UsageError(message)


def _add_run_arguments(run: argparse.ArgumentParser) -> None:
    source = run.add_mutually_exclusive_group(required=True)
    source.add_argument("--input", action="append", metavar="PATH", help="input file or glob (repeatable; gs:// ok)")
    source.add_argument("--sample", action="store_true", help="use the embedded sample corpora")
    run.add_argument("--input-format", choices=sorted(FORMATS), help="input format (default: detected per file)")
    run.add_argument("--output", required=True, metavar="DIR", help="dataset directory (local or gs://)")
    run.add_argument("--format", default="parquet", choices=OUTPUT_FORMATS, help="shard format")
    run.add_argument("--num-shards", type=int, default=1, metavar="N", help="shards per split")
    run.add_argument("--seed", type=int, default=0, help="seed mixed with each record id for all randomness")
    run.add_argument("--splits", default="train=0.9,dev=0.05,test=0.05", help="split ratios by source context")
    run.add_argument("--parser", default="spacy", choices=("spacy", "stanza"), help="dependency parser backend")
    run.add_argument("--parser-model", metavar="NAME_OR_DIR", help="spaCy model name/path or Stanza model dir")
    run.add_argument("--max-chars", type=int, default=ReaderConfig().max_chars, help="longer input texts are dead letters")
    run.add_argument("--overwrite", action="store_true", help="replace what is in a non-empty --output")
    run.add_argument("--quiet", action="store_true", help="no summary, only the dataset path")


def make_parser() -> argparse.ArgumentParser:
    """The CLI's argument parser: `run PIPELINE` has the shared flags plus that family's own."""
    parser = _Parser(prog="entailgen", description=entailgen.__doc__)
    parser.add_argument("--version", action="version", version=f"entailgen {entailgen.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = commands.add_parser("run", help="build a dataset; other --flags go to Apache Beam (e.g. --runner)")
    pipelines = run.add_subparsers(dest="pipeline", required=True, metavar="PIPELINE", parser_class=_Parser)
    for name in available():
        family = get_family(name)
        sub = pipelines.add_parser(name, help=family.summary, description=family.summary)
        _add_run_arguments(sub)
        family.add_arguments(sub.add_argument_group(f"{name} options"))
        sub.set_defaults(handler=_run)
    schema = commands.add_parser("schema", help="print a record type's JSON Schema")
    schema.add_argument("name", choices=sorted(RECORD_TYPES))
    schema.set_defaults(handler=lambda args: print(json.dumps(json_schema(args.name), indent=2)) or 0)
    commands.add_parser("formats", help="list input formats").set_defaults(
        handler=lambda args: print("\n".join(sorted(FORMATS))) or 0)
    for module in COMMAND_MODULES:
        importlib.import_module(module).register(commands)
    return parser


def expand_inputs(patterns: list[str]) -> list[str]:
    """Expand files and globs (local or gs://) in order; a pattern matching nothing is an error."""
    paths: list[str] = []
    for pattern in patterns:
        matches = sorted(m.path for r in FileSystems.match([pattern]) for m in r.metadata_list)
        if not matches:
            raise UsageError(f"input not found: {pattern}")
        paths.extend(matches)
    names = [FileSystems.split(p)[1] for p in paths]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise UsageError(f"inputs must have distinct file names (they name the sources): {', '.join(duplicates)}")
    return paths


def run_config(args) -> RunConfig:
    """Typed run configuration from parsed arguments; bad values become UsageError."""
    family = get_family(args.pipeline)
    if args.sample:
        inputs = [str(SAMPLES / name) for name in family.samples]
        input_format = None
    else:
        inputs, input_format = expand_inputs(args.input), args.input_format
    try:
        if input_format is None:
            for path in inputs:
                detect_format(path)  # fail early, with the file's name, on an unknown format
        return RunConfig(pipeline=family.name, inputs=tuple(inputs), output=args.output, input_format=input_format,
                         format=args.format, num_shards=args.num_shards, seed=args.seed,
                         splits=SplitConfig.parse(args.splits, args.seed),
                         parser=ParserConfig(backend=args.parser, model=args.parser_model),
                         reader=ReaderConfig(max_chars=args.max_chars), family=family.options(args))
    except ValueError as e:
        raise UsageError(str(e))


def _run(args) -> int:
    from entailgen.runners.job import run_job

    config = run_config(args)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if not args.quiet:
        names = ", ".join(FileSystems.split(path)[1] for path in config.inputs)
        print(f"entailgen {config.pipeline}: building from {names} into {config.output} ...", file=sys.stderr,
              flush=True)
    try:
        manifest = run_job(config, args.beam_args, overwrite=args.overwrite)
    except FileExistsError as e:
        raise UsageError(str(e))
    if manifest is None:
        print(f"dry run: {config.pipeline} job translated (and staged for Dataflow); nothing submitted or written")
        return 0
    print(config.output if args.quiet else summary_text(config.output, manifest))
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    """Entry point of the `entailgen` console script."""
    try:
        args, rest = make_parser().parse_known_args(sys.argv[1:] if argv is None else argv)
        if rest and args.command != "run":
            raise UsageError(f"unrecognized arguments: {' '.join(rest)}")
        try:
            check_beam_flags(rest)  # what run does not know goes to Beam, if Beam knows it
        except ValueError as e:
            raise UsageError(str(e))
        args.beam_args = rest
        return args.handler(args)
    except UsageError as e:
        print(f"entailgen: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
