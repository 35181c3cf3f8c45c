"""The `entailgen` command: a dispatcher. It lists every command, builds the parser of the one given (its module
imports what it runs on: Beam, the families, torch) and runs its handler, saying a refusal in one line.

Each command's module is imported only when that command is given, so `entailgen --help`, `schema` and a refused
option stay fast."""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Optional

import entailgen
from entailgen.runners.signals import QuietAfterInterrupt, end_children, interruptible
from entailgen.runners.usage import COMMAND_HELP, Parser, UsageError, exit_code, negative_values_attached
from entailgen.schemas.records import RECORD_TYPES  # dataclasses only: `entailgen --help` stays fast

BEAM_COMMANDS = ("run", "score")  # the commands that run a Beam pipeline: other --flags go to Beam


def _schema(args) -> int:
    from entailgen.schemas.arrow import json_schema

    print(json.dumps(json_schema(args.name), indent=2))
    return 0


def _formats(args) -> int:
    from entailgen.runners.formats import formats_text

    print(formats_text())
    return 0


def register(name: str, commands) -> None:
    """Add the command's whole parser (its flags, its handler), importing its module now."""
    if name == "schema":
        schema = commands.add_parser("schema", help=COMMAND_HELP["schema"])
        schema.add_argument("name", choices=sorted(RECORD_TYPES))
        schema.set_defaults(handler=_schema)
        return
    if name == "formats":
        commands.add_parser("formats", help=COMMAND_HELP["formats"]).set_defaults(handler=_formats)
        return
    if name == "run":
        from entailgen.runners import run_command as module
    elif name == "report":
        from entailgen.runners import report as module
    elif name == "refresh":
        from entailgen.runners import refresh as module
    elif name == "train":
        from entailgen.runners import train as module
    elif name == "evaluate":
        from entailgen.runners import evaluate as module
    elif name == "score":
        from entailgen.runners import score_command as module
    elif name == "train-conv":
        from entailgen.runners import train_conv as module
    elif name == "detector":
        from entailgen.runners import detector as module
    else:
        from entailgen.runners import benchmarks as module
    module.register(commands)


def make_parser(command: Optional[str] = "run") -> argparse.ArgumentParser:
    """The CLI's argument parser: every command listed (in COMMAND_HELP's order), the given one's parser built whole.

    Only the parts the given command needs are built (importing the families pulls in Apache Beam, seconds): `formats`,
    `schema` and `--help` stay fast.
    """
    parser = Parser(prog="entailgen", description=entailgen.__doc__)
    parser.add_argument("--version", action="version", version=f"entailgen {entailgen.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for name in COMMAND_HELP:  # in this order whichever command is given
        if name == command or name in ("schema", "formats"):
            register(name, commands)
        else:  # listed in --help without importing it
            commands.add_parser(name, help=COMMAND_HELP[name], add_help=False)
    return parser


def _command(argv: list[str]) -> Optional[str]:
    """The subcommand named in argv (the first word that is not a flag), or None."""
    return next((a for a in argv if not a.startswith("-")), None)


def _dispatch(argv: list[str]) -> int:
    """Parse argv with the given command's parser and run its handler; what the command does not know goes to Beam
    when it runs a Beam pipeline."""
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


def main(argv: Optional[list[str]] = None) -> int:
    """Entry point of the `entailgen` console script: one line and exit 2 for a usage error or an OSError (a read-only
    output, a full disk), 130 for Ctrl-C (runners.usage.exit_code)."""
    argv = negative_values_attached(sys.argv[1:] if argv is None else list(argv))
    return exit_code(lambda: _dispatch(argv))


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
    from entailgen.runners.cli import console as package_console  # one CLI, not a second copy as __main__

    package_console()
