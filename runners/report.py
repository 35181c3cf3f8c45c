"""`entailgen report DATASET_DIR`: (re)write a finished dataset's card (README.md) and report.html, or a scores
dataset's explain.html (`score --documents --explain`)."""
from __future__ import annotations

from apache_beam.io.filesystems import FileSystems

from entailgen.dataset.manifest import MANIFEST, read_json
from entailgen.dataset.report import ReportConfig, write_report
from entailgen.dataset.report.explain_page import write_explain_page
from entailgen.dataset.shard import join_path
from entailgen.pipelines import available, get_family
from entailgen.runners.usage import COMMAND_HELP, UsageError, add_quiet
from entailgen.schemas.reader import UnreadableShard


def family_description(pipeline: str) -> str:
    """The family's one-line summary for the card, or '' when this installation lacks that family."""
    return get_family(pipeline).summary if pipeline in available() else ""


def report(dataset: str, config: ReportConfig = ReportConfig()) -> list[str]:
    """Write the card and report of a dataset directory from its manifest and shards; returns the paths written."""
    if not FileSystems.exists(join_path(dataset, MANIFEST)):
        raise UsageError(f"no {MANIFEST} in {dataset}: not a dataset, or its run did not finish")
    try:
        manifest = read_json(dataset, MANIFEST)
    except ValueError as e:  # JSONDecodeError, UnicodeDecodeError
        raise UsageError(f"corrupt {MANIFEST} in {dataset}: {e}")
    if not isinstance(manifest, dict) or not {"pipeline", "shards", "dead_letters"} <= set(manifest):
        raise UsageError(f"corrupt {MANIFEST} in {dataset}: not an entailgen manifest")
    listed = [s["path"] for s in manifest["shards"]] + [manifest["dead_letters"]["path"]]
    missing = [path for path in listed if not FileSystems.exists(join_path(dataset, path))]
    if missing:
        raise UsageError(f"{dataset} is missing {len(missing)} shard(s) its manifest lists, e.g. {missing[0]}")
    try:
        if manifest["pipeline"] == "score":  # a scores dataset has no card or report: its page is explain.html
            names = [page] if (page := write_explain_page(dataset, manifest)) else []
            if not names:
                raise UsageError(f"{dataset} holds scores without explanations: its page needs rows `entailgen score "
                                 "--documents --explain` wrote")
        else:
            names = write_report(dataset, manifest, config, family_description(manifest["pipeline"]))
    except UnreadableShard as e:  # a shard damaged after its run: one line naming it
        raise UsageError(str(e))
    return [join_path(dataset, name) for name in names]


def _handle(args) -> int:
    if args.examples < 0:
        raise UsageError(f"--examples must be 0 or more, got {args.examples}")
    for path in report(args.dataset, ReportConfig(examples_per_group=args.examples)):
        print(path)
    return 0


def register(commands) -> None:
    """Add the `report` subcommand to the CLI."""
    parser = commands.add_parser("report", help=COMMAND_HELP["report"],
                                 description="(Re)write a finished dataset's card (README.md) and report.html, or a "
                                             "scores dataset's explain.html; prints the paths written.")
    parser.add_argument("dataset", metavar="DATASET_DIR", help="a dataset directory with a manifest.json")
    parser.add_argument("--examples", type=int, default=ReportConfig().examples_per_group, metavar="N",
                        help="examples shown per kind / phenomenon / source")
    add_quiet(parser, "the paths written (report prints nothing else)")
    parser.set_defaults(handler=_handle)
