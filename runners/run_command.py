"""`entailgen run PIPELINE`: the command (its flags, inputs and checks); the job it runs and publishes is runners.run's.

It imports what it runs on (Beam, the families, their engines) when it runs, so `entailgen --help` stays fast."""
from __future__ import annotations

import glob
import logging
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence

import entailgen
from entailgen.runners.usage import COMMAND_HELP, REFUSALS, Parser, UsageError, add_format, add_quiet

if TYPE_CHECKING:
    from entailgen.pipelines.base import Family, RunConfig

SAMPLES = Path(entailgen.__file__).parent / "samples"
SPLITS = "train=0.9,dev=0.05,test=0.05"  # --splits' default


def register(commands) -> None:
    """Add `run PIPELINE` to the CLI, each family with the shared flags plus its own."""
    from entailgen.pipelines import available

    run = commands.add_parser("run", help=COMMAND_HELP["run"],
                              description="Build a dataset with a corpus family; other --flags go to Apache Beam "
                                          "(e.g. --runner).")
    _run_parser_families(run, available())


def run_parser() -> Parser:
    """`entailgen run`'s parser alone: PIPELINE and its flags (a refresh config holds them)."""
    from entailgen.pipelines import available

    parser = Parser(prog="entailgen run")
    _run_parser_families(parser, available())
    return parser


def _add_run_arguments(run) -> None:
    from entailgen.transforms.io import FORMATS, ReaderConfig

    source = run.add_mutually_exclusive_group(required=True)
    source.add_argument("--input", action="append", metavar="PATH", help="input file or glob (repeatable; gs:// ok)")
    source.add_argument("--sample", action="store_true", help="use the embedded sample corpora")
    run.add_argument("--input-format", choices=sorted(FORMATS), help="input format (default: detected per file)")
    run.add_argument("--output", required=True, metavar="DIR", help="dataset directory (local or gs://)")
    add_format(run)
    run.add_argument("--num-shards", type=int, default=1, metavar="N", help="shards per split")
    run.add_argument("--seed", type=int, default=0, help="seed mixed with each record id for all randomness")
    run.add_argument("--splits", default=SPLITS, help="split ratios by source context; they sum to 1")
    run.add_argument("--parser", choices=("spacy", "stanza"),
                     help="dependency parser backend (default: spacy; only for pipelines that parse)")
    run.add_argument("--parser-model", metavar="NAME_OR_DIR",
                     help="spaCy model name/path or Stanza model dir (default: the installed English spaCy model)")
    run.add_argument("--max-chars", type=int, default=ReaderConfig().max_chars, help="longer input texts are dead letters")
    run.add_argument("--overwrite", action="store_true",
                     help="replace an existing entailgen dataset at --output (only once the new one is complete)")
    add_quiet(run, "the dataset path")


def _run_parser_families(run, names: list[str]) -> None:
    from entailgen.pipelines import get_family

    pipelines = run.add_subparsers(dest="pipeline", required=True, metavar="PIPELINE", parser_class=Parser)
    for name in names:
        family = get_family(name)
        sub = pipelines.add_parser(name, help=family.summary, description=family.summary)
        _add_run_arguments(sub)
        family.add_arguments(sub.add_argument_group(f"{name} options"))
        sub.set_defaults(handler=_run)


def _local(path: str) -> bool:
    return "://" not in path


def expand_inputs(patterns: list[str]) -> list[str]:
    """Expand files and globs (local or gs://) in order; a pattern matching nothing, a directory or an unreadable
    file is an error."""
    from apache_beam.io.filesystems import FileSystems

    from entailgen.dataset.manifest import is_dataset

    paths: list[str] = []
    for pattern in patterns:
        if is_dataset(pattern):  # a finished dataset (a folder with manifest.json): one input, named by the folder
            paths.append(pattern.rstrip("/"))
            continue
        if _local(pattern) and os.path.isdir(pattern):
            raise UsageError(not_a_dataset(pattern))
        matches = sorted(m.path for r in FileSystems.match([pattern]) for m in r.metadata_list)
        if not matches and _local(pattern):  # a glob of dataset folders (the files of a glob are matched above)
            matches = sorted(p.rstrip("/") for p in glob.glob(pattern) if is_dataset(p))
        if not matches:
            raise UsageError(f"input not found: {pattern}")
        globbed = next((p for p in matches if glob.has_magic(pattern) and _dataset_file(p)), None)
        if globbed:
            folder = globbed.rsplit("/", 1)[0]
            raise UsageError(f"{pattern} matches {globbed}, a file of the entailgen dataset {folder}; give the "
                             f"dataset's folder (--input {folder}): its rows are read through its manifest")
        paths.extend(matches)
    for path in paths:
        if _local(path) and not is_dataset(path):
            if os.path.isdir(path):
                raise UsageError(f"input is a directory: {path} (give files or a glob)")
            try:
                with open(path, "rb") as f:
                    f.read(1)
            except OSError as e:
                raise UsageError(f"cannot read input {path}: {e.strerror or e}")
    names = [FileSystems.split(p)[1] for p in paths]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise UsageError(f"inputs must have distinct file names (they name the sources): {', '.join(duplicates)}")
    return paths


def _dataset_file(path: str) -> bool:
    """Whether a path is a dataset's own manifest, run.json, card or report (not an export a family may read)."""
    from apache_beam.io.filesystems import FileSystems

    from entailgen.dataset.manifest import is_dataset

    folder, name = FileSystems.split(path)
    return name in ("manifest.json", "run.json", "README.md", "report.html") and is_dataset(folder)


def not_a_dataset(folder: str) -> str:
    """Why a folder given as --input is refused: it is not a finished dataset (no manifest.json), and what it is:
    another entailgen output, or a folder holding datasets, each of which is an input."""
    from entailgen.dataset.manifest import is_dataset
    from entailgen.dataset.output import entailgen_folder

    kind = entailgen_folder(folder)
    inside = sorted(p for depth in ("*", "*/*") for p in glob.glob(os.path.join(folder, depth)) if is_dataset(p))
    what = (f"an entailgen {kind}, not a dataset" if kind else "not an entailgen dataset (it has no manifest.json)")
    hint = (f"; the datasets in it are inputs: {', '.join(inside)}" if inside
            else f"; give a finished dataset's folder, or files or a glob (e.g. {os.path.join(folder, '*')})")
    return f"input {folder} is a folder but {what}{hint}"


def _parser_config(family, options, parser: Optional[str], parser_model: Optional[str]):
    """The parser settings, refused on a run that never parses (they would be ignored yet recorded)."""
    from entailgen.transforms.parser import ParserConfig, check_parser

    given = [flag for flag, value in (("--parser", parser), ("--parser-model", parser_model)) if value]
    if not family.parses(options):
        if given:
            raise UsageError(f"{' and '.join(given)}: the {family.name} pipeline does not parse with these options")
        return ParserConfig()
    config = ParserConfig(backend=parser or "spacy", model=parser_model)
    check_parser(config)
    return config


def run_config(args) -> RunConfig:
    """Typed run configuration from parsed arguments; bad values become UsageError."""
    from entailgen.pipelines import get_family
    from entailgen.runners.inputs import usable_samples

    family = get_family(args.pipeline)
    if args.sample:
        inputs = [str(SAMPLES / name) for name in family.samples]
        input_format = family.input_format
    else:
        inputs, input_format = expand_inputs(args.input), args.input_format or family.input_format
    try:
        if args.max_chars < 1:
            raise ValueError(f"--max-chars must be at least 1, got {args.max_chars}")
        options = family.options(args)
        if args.sample:
            inputs = usable_samples(family, options, inputs)
        return checked_config(family, options, inputs, args.output, input_format=input_format, format=args.format,
                              num_shards=args.num_shards, seed=args.seed, splits=args.splits, parser=args.parser,
                              parser_model=args.parser_model, max_chars=args.max_chars)
    except ValueError as e:
        raise UsageError(str(e))


def checked_config(family: Family, options: Any, inputs: Sequence[str], output: str, *,
                   input_format: Optional[str] = None, format: str = "parquet", num_shards: int = 1, seed: int = 0,
                   splits: str = SPLITS, parser: Optional[str] = None, parser_model: Optional[str] = None,
                   max_chars: Optional[int] = None) -> RunConfig:
    """The run's configuration from a family's typed options and run's other settings (each default as its flag's),
    checked as `run` checks them, one ValueError line each: the inputs (empty, a format the family does not use), the
    splits, the parser, the shards. input_format None: the family's own."""
    from entailgen.dataset.split import SplitConfig
    from entailgen.pipelines.base import RunConfig
    from entailgen.runners.inputs import check_inputs
    from entailgen.transforms.io import ReaderConfig

    input_format = input_format or family.input_format
    check_inputs(family, options, list(inputs), input_format)  # empty, unknown or unusable formats: before the job
    config = RunConfig(pipeline=family.name, inputs=tuple(inputs), output=output, input_format=input_format,
                       format=format, num_shards=num_shards, seed=seed, splits=SplitConfig.parse(splits, seed),
                       parser=_parser_config(family, options, parser, parser_model),
                       reader=ReaderConfig() if max_chars is None else ReaderConfig(max_chars=max_chars),
                       family=options)
    config.shards  # checks --num-shards
    return config


def _run(args) -> int:
    return build_dataset(run_config(args), args.beam_args, overwrite=args.overwrite, quiet=args.quiet)


def run_family(pipeline: str, options: Any, inputs: Sequence[str], output: str, *, seed: int = 0,
               quiet: bool = False) -> int:
    """`entailgen run PIPELINE --input ... --output DIR --seed S` as a function another command calls (`detector`):
    the family's typed options, run's other flags at their defaults, checked and said as run checks and says them."""
    from entailgen.pipelines import get_family

    try:
        config = checked_config(get_family(pipeline), options, inputs, output, seed=seed)
    except ValueError as e:
        raise UsageError(str(e))
    return build_dataset(config, quiet=quiet)


def build_dataset(config: RunConfig, beam_args: Sequence[str] = (), *, overwrite: bool = False,
                  quiet: bool = False) -> int:
    """Run a checked configuration's job and publish its dataset, saying what it builds, its progress and its summary
    (only the dataset's path with quiet); an input that gave no record is refused after the job."""
    from entailgen.dataset.output import OutputError
    from entailgen.pipelines import get_family
    from entailgen.runners.inputs import unused_inputs
    from entailgen.runners.run import check_job, run_job
    from entailgen.runners.summary import summary_text

    beam_args = list(beam_args)
    try:
        check_job(config, beam_args, overwrite=overwrite)
    except ValueError as e:
        raise UsageError(str(e))
    quiet_beam_logs()
    if not quiet:
        names = ", ".join(os.path.basename(path.rstrip("/")) for path in config.inputs)
        print(f"entailgen {config.pipeline}: building from {names} into {config.output} ...", file=sys.stderr,
              flush=True)
    started = time.monotonic()
    every = None if quiet else (0.5 if sys.stderr.isatty() else 5.0)  # a live line on a terminal
    try:
        manifest = run_job(config, beam_args, overwrite=overwrite, progress_every=every)
    except OutputError as e:  # another writer holds --output, or finished into it since the check above
        raise UsageError(str(e))
    if manifest is None:
        print(f"dry run: {config.pipeline} job translated (and staged for Dataflow); nothing submitted or written")
        return 0
    print(config.output if quiet else summary_text(config.output, manifest, time.monotonic() - started))
    unused = unused_inputs(get_family(config.pipeline), config, manifest)
    if unused:  # every unit of a file was a dead letter or skipped: an empty contribution is an error, not exit 0
        raise UsageError(unused)
    return 0


class _HideBeamNoise(logging.Filter):
    """Beam's internal warnings that mean nothing to a user of this CLI."""

    NOISE = ("semi_persistent_directory", "Discarding unparseable args", "Discarding invalid overrides")

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], OSError) and record.exc_info[1].errno in REFUSALS:
            return False  # a worker's full disk or refused write: main() says it in one line
        return not any(text in record.getMessage() for text in self.NOISE)


def quiet_beam_logs() -> None:
    """Warnings and errors only, in one line each, without Beam's noise."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:
        handler.addFilter(_HideBeamNoise())
