"""The `entailgen` command: run a corpus family, print a record type's JSON Schema, list input formats.

Each command imports what it runs on (Beam, the families, their engines) when it runs, so `entailgen --help`, `schema`
and a refused option stay fast."""
from __future__ import annotations

import argparse
import errno
import glob
import importlib
import json
import logging
import os
import re
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import entailgen
from entailgen.runners.signals import QuietAfterInterrupt, end_children, interruptible
from entailgen.schemas.records import RECORD_TYPES  # dataclasses only: `entailgen --help` stays fast

if TYPE_CHECKING:
    from entailgen.pipelines.base import RunConfig

SAMPLES = Path(entailgen.__file__).parent / "samples"
OUTPUT_FORMATS = ("parquet", "jsonl")  # dataset.shard.FORMATS, unimported: `entailgen --help` stays fast
# Further subcommands, one module each: its register(commands) adds a parser whose defaults set handler=fn(args) -> int.
COMMAND_MODULES: dict[str, str] = {
    "report": "entailgen.runners.report", "refresh": "entailgen.runners.refresh",
    "train": "entailgen.runners.train", "evaluate": "entailgen.runners.evaluate",
    "score": "entailgen.runners.score_command", "train-conv": "entailgen.runners.train_conv",
    "detector": "entailgen.runners.detector", "benchmarks": "entailgen.runners.benchmarks",
}

# Each command's line in `entailgen --help` (read without importing its module; its register() reads it too).
COMMAND_HELP: dict[str, str] = {
    "run": "build a dataset (other --flags go to Apache Beam)",
    "schema": "print a record type's JSON Schema",
    "formats": "list input formats and the pipelines taking each",
    "report": "rewrite a dataset's card and report.html",
    "refresh": "rebuild a scheduled dataset if its inputs changed",
    "train": "train a DAE arc model or a pair classifier",
    "evaluate": "a model's figures on a dataset or a benchmark",
    "score": "score pairs or documents with a model (Beam)",
    "train-conv": "fit a SummaC-Conv head for score --documents",
    "detector": "train entailgen's best detector from documents",
    "benchmarks": "fetch a benchmark's public data for evaluate",
}

BEAM_COMMANDS = ("run", "score")  # the commands that run a Beam pipeline: other --flags go to Beam


class UsageError(Exception):
    """A bad flag or input: reported as one line, exit code 2."""


class _HelpFormatter(argparse.HelpFormatter):
    """Help that shows each flag's default, except where there is none to show (None, False)."""

    def _get_help_string(self, action):
        text = action.help or ""
        none = action.default is None or action.default is False or action.default in ("", argparse.SUPPRESS)
        if action.option_strings and not none and "%(default)" not in text:
            text += " (default: %(default)s)"
        return text


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line (no usage dump) and exits 2; no abbreviations (Beam flags share prefixes)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, allow_abbrev=False, **kwargs)

    def error(self, message):
        raise UsageError(message)


def add_quiet(parser: argparse.ArgumentParser, what: str) -> None:
    """--quiet, the same on every command that writes output: nothing on the terminal but the path(s) it wrote."""
    parser.add_argument("--quiet", action="store_true", help=f"no progress and no summary, only {what}")


def add_format(parser: argparse.ArgumentParser) -> None:
    """--format, the same on every command that writes shards."""
    parser.add_argument("--format", default="parquet", choices=OUTPUT_FORMATS, help="shard format")


def _add_run_arguments(run: argparse.ArgumentParser) -> None:
    from entailgen.transforms.io import FORMATS, ReaderConfig

    source = run.add_mutually_exclusive_group(required=True)
    source.add_argument("--input", action="append", metavar="PATH", help="input file or glob (repeatable; gs:// ok)")
    source.add_argument("--sample", action="store_true", help="use the embedded sample corpora")
    run.add_argument("--input-format", choices=sorted(FORMATS), help="input format (default: detected per file)")
    run.add_argument("--output", required=True, metavar="DIR", help="dataset directory (local or gs://)")
    add_format(run)
    run.add_argument("--num-shards", type=int, default=1, metavar="N", help="shards per split")
    run.add_argument("--seed", type=int, default=0, help="seed mixed with each record id for all randomness")
    run.add_argument("--splits", default="train=0.9,dev=0.05,test=0.05",
                     help="split ratios by source context; they sum to 1")
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

    pipelines = run.add_subparsers(dest="pipeline", required=True, metavar="PIPELINE", parser_class=_Parser)
    for name in names:
        family = get_family(name)
        sub = pipelines.add_parser(name, help=family.summary, description=family.summary)
        _add_run_arguments(sub)
        family.add_arguments(sub.add_argument_group(f"{name} options"))
        sub.set_defaults(handler=_run)


def _schema(args) -> int:
    from entailgen.schemas.arrow import json_schema

    print(json.dumps(json_schema(args.name), indent=2))
    return 0


def _formats(args) -> int:
    from entailgen.runners.formats import formats_text

    print(formats_text())
    return 0


def make_parser(command: Optional[str] = "run") -> argparse.ArgumentParser:
    """The CLI's argument parser: `run PIPELINE` has the shared flags plus that family's own.

    Only the parts the given command needs are built (importing the families pulls in Apache Beam, seconds): `formats`,
    `schema` and `--help` stay fast.
    """
    parser = _Parser(prog="entailgen", description=entailgen.__doc__)
    parser.add_argument("--version", action="version", version=f"entailgen {entailgen.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = commands.add_parser("run", help=COMMAND_HELP["run"],
                              description="Build a dataset with a corpus family; other --flags go to Apache Beam "
                                          "(e.g. --runner).")
    if command == "run":
        from entailgen.pipelines import available

        _run_parser_families(run, available())
    schema = commands.add_parser("schema", help=COMMAND_HELP["schema"])
    schema.add_argument("name", choices=sorted(RECORD_TYPES))
    schema.set_defaults(handler=_schema)
    commands.add_parser("formats", help=COMMAND_HELP["formats"]).set_defaults(handler=_formats)
    for name, module in COMMAND_MODULES.items():  # in this order whichever command is given
        if name == command:
            importlib.import_module(module).register(commands)
        else:  # listed in --help without importing it
            commands.add_parser(name, help=COMMAND_HELP[name], add_help=False)
    return parser


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


def _parser_config(args, family, options):
    """The parser settings, refused on a run that never parses (they would be ignored yet recorded)."""
    from entailgen.transforms.parser import ParserConfig, check_parser

    given = [flag for flag, value in (("--parser", args.parser), ("--parser-model", args.parser_model)) if value]
    if not family.parses(options):
        if given:
            raise UsageError(f"{' and '.join(given)}: the {family.name} pipeline does not parse with these options")
        return ParserConfig()
    config = ParserConfig(backend=args.parser or "spacy", model=args.parser_model)
    check_parser(config)
    return config


def run_config(args) -> RunConfig:
    """Typed run configuration from parsed arguments; bad values become UsageError."""
    from entailgen.pipelines import get_family
    from entailgen.pipelines.base import RunConfig
    from entailgen.runners.inputs import check_inputs, usable_samples
    from entailgen.transforms.io import ReaderConfig
    from entailgen.dataset.split import SplitConfig

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
        check_inputs(family, options, inputs, input_format)  # empty, unknown or unusable formats: before the job
        config = RunConfig(pipeline=family.name, inputs=tuple(inputs), output=args.output, input_format=input_format,
                           format=args.format, num_shards=args.num_shards, seed=args.seed,
                           splits=SplitConfig.parse(args.splits, args.seed), parser=_parser_config(args, family, options),
                           reader=ReaderConfig(max_chars=args.max_chars), family=options)
        config.shards  # checks --num-shards
        return config
    except ValueError as e:
        raise UsageError(str(e))


def _run(args) -> int:
    from entailgen.pipelines import get_family
    from entailgen.runners.inputs import unused_inputs
    from entailgen.dataset.output import OutputError
    from entailgen.runners.run import check_job, run_job
    from entailgen.runners.summary import summary_text

    config = run_config(args)
    try:
        check_job(config, args.beam_args, overwrite=args.overwrite)
    except ValueError as e:
        raise UsageError(str(e))
    quiet_beam_logs()
    if not args.quiet:
        names = ", ".join(os.path.basename(path.rstrip("/")) for path in config.inputs)
        print(f"entailgen {config.pipeline}: building from {names} into {config.output} ...", file=sys.stderr,
              flush=True)
    started = time.monotonic()
    every = None if args.quiet else (0.5 if sys.stderr.isatty() else 5.0)  # a live line on a terminal
    try:
        manifest = run_job(config, args.beam_args, overwrite=args.overwrite, progress_every=every)
    except OutputError as e:  # another writer holds --output, or finished into it since the check above
        raise UsageError(str(e))
    if manifest is None:
        print(f"dry run: {config.pipeline} job translated (and staged for Dataflow); nothing submitted or written")
        return 0
    print(config.output if args.quiet else summary_text(config.output, manifest, time.monotonic() - started))
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


def _command(argv: list[str]) -> Optional[str]:
    """The subcommand named in argv (the first word that is not a flag), or None."""
    return next((a for a in argv if not a.startswith("-")), None)


NEGATIVE_VALUE = re.compile(r"-\.?\d")  # "-1,1", "-1e-5": a value (no option of entailgen's or Beam's starts so)


def _negative_values_attached(argv: list[str]) -> list[str]:
    """`--mix -1,1` as `--mix=-1,1`: argparse takes a value that starts with '-' and is not a plain number for an option
    and says "expected one argument", where the option's own check would name what is wrong with the value."""
    out: list[str] = []
    for a in argv:
        if out and NEGATIVE_VALUE.match(a) and out[-1].startswith("--") and out[-1] != "--" and "=" not in out[-1]:
            out[-1] = f"{out[-1]}={a}"
        else:
            out.append(a)
    return out


def main(argv: Optional[list[str]] = None, *, stage: bool = False) -> int:
    """Entry point of the `entailgen` console script: one line and exit 2 for a usage error or an OSError (a read-only
    output, a full disk), 130 for Ctrl-C; a stage of another command (`detector`) raises Ctrl-C to it, which says it
    once."""
    argv = _negative_values_attached(sys.argv[1:] if argv is None else list(argv))
    try:
        args, rest = make_parser(_command(argv)).parse_known_args(argv)
        if rest and args.command not in BEAM_COMMANDS:
            raise UsageError(f"unrecognized arguments: {' '.join(rest)}")
        if rest:
            from entailgen.runners.beam_flags import check_beam_flags, runner_args

            try:
                rest = runner_args(rest)  # --runner DaskRunner: entailgen's, its flags registered
                check_beam_flags(rest)  # what run does not know goes to Beam, if Beam knows it
            except ValueError as e:
                raise UsageError(str(e))
        args.beam_args, args.argv = rest, argv  # argv: `train --processes N` runs it again in N processes
        with interruptible():  # Ctrl-C and SIGTERM: a KeyboardInterrupt each command's publish cleans up after
            return args.handler(args)
    except UsageError as e:
        from entailgen.runners.launch import say  # a launch's processes meet the same refusal: said once

        say(f"entailgen: error: {e}")
        return 2
    except KeyboardInterrupt:
        if stage:
            raise
        from entailgen.runners.launch import speaks

        if speaks():  # a launch's first process says it
            print("entailgen: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `entailgen schema X | head`: the reader left; say nothing more
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the interpreter's final flush does not fail again
        return 0
    except Exception as e:  # what the system refused (a read-only output, a full disk), in the words it used
        text = system_error_text(e)
        if text is None:
            raise
        print(f"entailgen: error: {text}", file=sys.stderr)
        return 2


REFUSALS = (errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EPERM, errno.EROFS)  # the system's, not entailgen's


def system_error_text(e: BaseException) -> Optional[str]:
    """'No space left on device: /data/out' for an OSError the system raised (it has an errno), or for a refusal of
    the system (full disk, no permission) that a Beam worker's RuntimeError wraps; None for anything else (a bug,
    or a library's own OSError, keeps its traceback)."""
    if isinstance(e, OSError) and e.errno is not None:
        return f"{e.strerror}: {e.filename}" if e.strerror and e.filename else e.strerror or str(e)
    cause = e.__cause__ or e.__context__
    while cause is not None and not (isinstance(cause, OSError) and cause.errno in REFUSALS):
        cause = cause.__cause__ or cause.__context__
    if cause is None:
        return None
    said = re.search(r"\[Errno \d+\] (.+?)(?: \[while running .*)?$", str(e).splitlines()[0] if str(e) else "")
    return said.group(1) if said else cause.strerror or str(cause)


def console() -> None:
    """The `entailgen` console script: main(), then out. After Ctrl-C a multi_processing job's threads (its gRPC
    servers, its workers' handlers) are not daemons and would keep the process alive after the one line: leave now."""
    sys.stderr = QuietAfterInterrupt(sys.stderr)
    code = main()
    if code == 130:
        end_children(patience=0.0)  # what is left (the interrupt ended the SDK workers): nothing outlives us
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)  # the build folder is gone and the lock released already: the `with` blocks have exited
    sys.exit(code)


if __name__ == "__main__":  # `python -m` (torchrun, `accelerate launch`, `--processes N`): the package's own module,
    from entailgen.runners.cli import console as package_console  # whose UsageError the commands raise

    package_console()
