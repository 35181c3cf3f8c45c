"""Reject flags that are neither entailgen's nor Apache Beam's, instead of Beam silently discarding a typo; pick the
runner entailgen can run on."""
from __future__ import annotations

import os
from typing import Optional

from apache_beam.options.pipeline_options import PipelineOptions, _BeamArgumentParser

DASK = "entailgen.runners.dask.DaskRunner"  # what --runner DaskRunner runs
STOCK_DASK = "apache_beam.runners.dask.dask_runner.DaskRunner"
JOB_SERVER_JARS = {"flink": "--flink_job_server_jar", "spark": "--spark_job_server_jar"}


class _Parser(_BeamArgumentParser):
    """Beam's flag parser whose errors are a ValueError: Beam's prints its usage, 30 lines, and exits (SystemExit, past
    the CLI's one line) for a value it cannot parse (--dask_npartitions abc) or flags that exclude each other."""

    def error(self, message):
        if message.startswith("ambiguous option: "):  # Beam's parser lets these pass; so does this one
            return
        raise ValueError(message)


def check_beam_flags(args: list[str]) -> None:
    """Raise ValueError naming the arguments Beam would not understand either (parsed as Beam itself does)."""
    parser = _Parser(allow_abbrev=False)
    for cls in {str(c): c for c in PipelineOptions.__subclasses__()}.values():
        cls._add_argparse_args(parser)
    _, unknown = parser.parse_known_args(args)
    if unknown:
        raise ValueError(f"unrecognized arguments (neither entailgen nor Apache Beam flags): {' '.join(unknown)}")


def _flag(args: list[str], name: str) -> Optional[tuple[int, str]]:
    """(index, value) of the last `name VALUE` or `name=VALUE` in args, or None."""
    found = None
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            found = (i, args[i + 1])
        elif arg.startswith(name + "="):
            found = (i, arg.split("=", 1)[1])
    return found


def dask_flags(args: list[str]) -> dict:
    """The Dask flags given in args by DaskOptions' names (address, npartitions, ...), parsed as Beam parses them for
    the runner (defaults left out): a value Beam cannot parse is a ValueError here."""
    from entailgen.runners.dask import DaskOptions

    parser = _Parser(allow_abbrev=False)
    DaskOptions._add_argparse_args(parser)
    known, _ = parser.parse_known_args(args)
    return {dest: value for dest, value in vars(known).items() if value != parser.get_default(dest)}


def _engine(runner: str) -> str:
    """'dask', 'flink', 'direct', ... from a --runner value as Beam accepts it (name, short name or class path)."""
    return runner.rsplit(".", 1)[-1].lower().removesuffix("runner")


def runner_args(args: list[str]) -> list[str]:
    """The Beam flags as entailgen runs them (ValueError for a runner it cannot run): --runner DaskRunner names
    entailgen's Dask runner, with the Dask flags registered and checked (a scheduler named must answer); Beam's own
    DaskRunner is refused (it loses data), and so is Flink or Spark without a job-server jar (Beam would download it
    from Maven Central)."""
    args = list(args)
    given = _flag(args, "--runner")
    runner = given[1] if given else ""
    if runner == STOCK_DASK:
        raise ValueError(f"--runner {STOCK_DASK} would lose data: it merges dead letters into the records, drops "
                         "the rows DoFns emit in finish_bundle (batched parses, shard runs) and reports no counts for "
                         f"the manifest; use --runner DaskRunner ({DASK})")
    dask = _engine(runner) == "dask" if runner else False
    if dask or any(arg.startswith("--dask_") for arg in args):
        try:
            import entailgen.runners.dask  # noqa: F401  (registers DaskOptions)
        except ImportError as e:
            raise ValueError(f"the Dask runner needs the dask extra ({e}): pip install 'entailgen[dask]'") from None
    if dask and runner != DASK:
        i, _ = given
        args[i:i + (1 if args[i].startswith("--runner=") else 2)] = [f"--runner={DASK}"]
    if dask:  # its flags' values, and the scheduler they name answering: before anything is written
        from entailgen.runners.dask import check_dask_options

        check_dask_options(dask_flags(args))
    jar = JOB_SERVER_JARS.get(_engine(runner)) if runner else None
    if jar and not _flag(args, "--job_endpoint"):
        path = _flag(args, jar)
        if path is None:
            raise ValueError(f"--runner {runner} needs Beam's job-server jar, which Beam would download from Maven "
                             f"Central: pass {jar} PATH (the jar from your own mirror) or --job_endpoint of a running "
                             "job server")
        if "://" not in path[1] and not os.path.isfile(path[1]):
            raise ValueError(f"{jar} {path[1]}: no such file")
    return args
