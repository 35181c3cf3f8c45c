"""What every `entailgen` command's usage shares: its line in --help, the parser, the flags each writing command takes
alike, and how a refusal is said (one line, exit 2, never a traceback).

Nothing here imports Beam, the families or torch: `entailgen --help` and a refused option stay fast."""
from __future__ import annotations

import argparse
import errno
import os
import re
import sys
from typing import Callable, Optional

from entailgen.schemas.files import SHARD_FORMATS

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


class UsageError(Exception):
    """A bad flag or input: reported as one line, exit code 2."""


SAYS_DEFAULT = re.compile(r"%\(default\)|\(default\b|; default\b")  # a help that gives its default in its own words


class HelpFormatter(argparse.HelpFormatter):
    """Help that shows each flag's default, except where there is none to show (None, False) or the help says it."""

    def _get_help_string(self, action):
        text = action.help or ""
        none = action.default is None or action.default is False or action.default in ("", argparse.SUPPRESS)
        if action.option_strings and not none and not SAYS_DEFAULT.search(text):
            text += " (default: %(default)s)"
        return text


class Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line (no usage dump) and exits 2; no abbreviations (Beam flags share prefixes)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, allow_abbrev=False, **kwargs)

    def error(self, message):
        raise UsageError(message)


def add_quiet(parser: argparse.ArgumentParser, what: str) -> None:
    """--quiet, the same on every command that writes output: nothing on the terminal but the path(s) it wrote."""
    parser.add_argument("--quiet", action="store_true", help=f"no progress and no summary, only {what}")


def add_format(parser: argparse.ArgumentParser) -> None:
    """--format, the same on every command that writes shards."""
    parser.add_argument("--format", default="parquet", choices=SHARD_FORMATS, help="shard format")


NEGATIVE_VALUE = re.compile(r"-\.?\d")  # "-1,1", "-1e-5": a value (no option of entailgen's or Beam's starts so)


def negative_values_attached(argv: list[str]) -> list[str]:
    """`--mix -1,1` as `--mix=-1,1`: argparse takes a value that starts with '-' and is not a plain number for an option
    and says "expected one argument", where the option's own check would name what is wrong with the value."""
    out: list[str] = []
    for a in argv:
        if out and NEGATIVE_VALUE.match(a) and out[-1].startswith("--") and out[-1] != "--" and "=" not in out[-1]:
            out[-1] = f"{out[-1]}={a}"
        else:
            out.append(a)
    return out


def exit_code(command: Callable[[], int], *, stage: bool = False) -> int:
    """A command run as the console reports it: one line and exit 2 for a usage error or an OSError (a read-only
    output, a full disk), 130 for Ctrl-C; a stage of another command (`detector`) raises Ctrl-C to it, which says it
    once."""
    try:
        return command()
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
