"""`entailgen benchmarks fetch NAME --to DIR`: a benchmark's public data, downloaded (or given by hand with --from),
checked, converted into the files `evaluate --benchmark` reads, and written into DIR whole or not at all."""
from __future__ import annotations

import os
import sys

from entailgen.runners.usage import UsageError


def _fetch(args) -> int:
    from entailgen.training.benchmarks.fetch import (MIRROR, FetchError, FetchOptions, chosen_mirror, fetch,
                                                      summary_line)
    from entailgen.training.benchmarks.sources import BENCHMARKS

    if args.from_dir is not None and args.mirror is not None:
        raise UsageError("--from and --mirror: give one (--from reads files downloaded by hand, --mirror downloads)")
    if args.from_dir is not None and not os.path.isdir(args.from_dir):
        raise UsageError(f"--from {args.from_dir}: no such folder")
    if not args.deadline > 0:
        raise UsageError(f"--deadline {args.deadline:g}: give seconds above 0")
    say = (lambda line: None) if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    try:
        mirror = chosen_mirror(args.mirror) if args.from_dir is None else MIRROR  # --from: no mirror read
        options = FetchOptions(mirror=mirror, from_dir=args.from_dir, overwrite=args.overwrite, deadline=args.deadline,
                               progress=say)
        record = fetch(BENCHMARKS[args.name], args.to, options)
    except FetchError as e:
        raise UsageError(str(e))
    print(args.to if args.quiet else summary_line(record, args.to))
    return 0


def register(commands) -> None:
    """Add `benchmarks fetch` to the CLI."""
    from entailgen.training.benchmarks.fetch import MIRROR, MIRROR_ENV, FetchOptions
    from entailgen.training.benchmarks.sources import BENCHMARKS

    from entailgen.runners.usage import COMMAND_HELP, add_quiet
    from entailgen.transforms.flags import finite_float

    b = commands.add_parser("benchmarks", help=COMMAND_HELP["benchmarks"])
    actions = b.add_subparsers(dest="action", required=True, metavar="ACTION")
    f = actions.add_parser("fetch", help="download, check and convert a benchmark's data into DIR",
                           description="Download a benchmark's public files (pinned by commit), check them, convert "
                                       "them into the files `entailgen evaluate --benchmark` reads, and write them "
                                       "into DIR with fetch.json (each source's URL and sha256). " +
                                       " ".join(f"{name}: {bm.summary}." for name, bm in BENCHMARKS.items()))
    f.add_argument("name", choices=list(BENCHMARKS), metavar="NAME", help=", ".join(BENCHMARKS))
    f.add_argument("--to", required=True, metavar="DIR", help="the folder to write (new or empty, or an earlier "
                                                               "fetch's with --overwrite)")
    f.add_argument("--from", dest="from_dir", metavar="DIR",
                   help="convert files downloaded by hand (each found by its name under DIR); no network")
    f.add_argument("--mirror", metavar="URL",
                   help=f"serves {{owner/repo}}/{{commit}}/{{path}} as raw.githubusercontent.com does "
                        f"(default ${MIRROR_ENV}, else {MIRROR})")
    f.add_argument("--deadline", type=finite_float, default=FetchOptions.deadline, metavar="SECONDS",
                   help="stop when the downloads are not done within this (default %(default)g)")
    f.add_argument("--overwrite", action="store_true", help="replace DIR when an earlier fetch wrote it")
    add_quiet(f, "DIR")
    f.set_defaults(handler=_fetch)
