"""`entailgen refresh CONFIG`: rebuild a named dataset when its inputs, config or entailgen change, else do nothing.

Each build goes to ROOT/NAME/VERSION, VERSION being a short sha256 of the inputs' content, the dataset-defining
config and the package version, so a version directory is immutable. ROOT/NAME/LATEST names the newest complete
version and moves (atomically) only after that version's manifest is written: a run killed half-way leaves the
previous version and LATEST as they were, and the next refresh rebuilds the incomplete version from scratch.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import Optional

from apache_beam.io.filesystems import FileSystems

import entailgen
from entailgen.dataset.manifest import MANIFEST, dumps, fingerprint, option_fingerprints, read_json
from entailgen.dataset.output import BUILD_FOLDER, entailgen_folder
from entailgen.dataset.shard import join_path, write_atomically
from entailgen.pipelines import get_family
from entailgen.pipelines.base import RunConfig
from entailgen.runners.beam_flags import check_beam_flags
from entailgen.runners.inputs import unused_inputs
from entailgen.runners.run import run_job
from entailgen.runners.run_command import run_config, run_parser
from entailgen.runners.summary import summary_text
from entailgen.runners.usage import COMMAND_HELP, UsageError, add_quiet
from entailgen.transforms.io.paths import option_paths

LATEST = "LATEST"
VERSION_CHARS = 12
_REQUIRED = ("name", "pipeline", "root")
_OPTIONAL = ("inputs", "options", "pipeline_args")


@dataclass(frozen=True)
class RefreshConfig:
    """A scheduled dataset: where it lives (root/name), how it is built (`entailgen run` flags) and on what runner."""

    name: str
    pipeline: str
    root: str
    inputs: tuple[str, ...] = ()
    options: tuple[str, ...] = ()  # `entailgen run` flags, e.g. ("--format=parquet", "--num-shards=2")
    pipeline_args: tuple[str, ...] = ()  # Apache Beam flags, e.g. ("--runner=DataflowRunner", ...)

    @property
    def home(self) -> str:
        """ROOT/NAME: the versions and the LATEST pointer."""
        return join_path(self.root, self.name)


def option_flags(options) -> tuple[str, ...]:
    """`entailgen run` flags from a mapping ({"num_shards": 2, "sample": true} -> --num-shards=2 --sample) or a list."""
    if isinstance(options, (list, tuple)):
        return tuple(str(o) for o in options)
    flags: list[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            flags.append(flag)
        elif isinstance(value, list):
            flags.extend(f"{flag}={v}" for v in value)
        elif value is not None and value is not False:
            flags.append(f"{flag}={value}")
    return tuple(flags)


def parse_refresh_config(data) -> RefreshConfig:
    """Validate a loaded config document; a missing or unknown key is a UsageError naming it."""
    if not isinstance(data, dict):
        raise UsageError("refresh config must be a JSON/YAML object")
    missing = [k for k in _REQUIRED if not data.get(k)]
    if missing:
        raise UsageError(f"refresh config: missing {', '.join(missing)}")
    unknown = sorted(set(data) - set(_REQUIRED) - set(_OPTIONAL))
    if unknown:
        known = ", ".join(_REQUIRED + _OPTIONAL)
        raise UsageError(f"refresh config: unknown key(s) {', '.join(unknown)}; known: {known}")
    if "/" in data["name"] or data["name"] in (".", ".."):
        raise UsageError(f"refresh config: name must be a single path component, got {data['name']!r}")
    inputs = data.get("inputs", ())
    return RefreshConfig(name=data["name"], pipeline=data["pipeline"], root=data["root"],
                         inputs=tuple([inputs] if isinstance(inputs, str) else inputs),
                         options=option_flags(data.get("options", {})),
                         pipeline_args=tuple(str(a) for a in data.get("pipeline_args", ())))


def load_refresh_config(path: str) -> RefreshConfig:
    """Read a refresh config: JSON, or YAML (.yaml/.yml) when PyYAML is installed."""
    try:
        with FileSystems.open(path) as f:
            data = f.read()
    except (IOError, OSError) as e:
        raise UsageError(f"cannot read refresh config {path}: {e}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise UsageError(f"refresh config {path} line {line}: not UTF-8")
    if path.endswith((".yaml", ".yml")):
        try:
            import yaml
        except ImportError:
            raise UsageError("YAML refresh configs need PyYAML (pip install pyyaml); or write it as JSON")
        try:
            loaded = yaml.safe_load(text)
        except yaml.YAMLError as e:  # not a ValueError: its own one line, with the line it points at (1-based)
            mark = getattr(e, "problem_mark", None)
            where = f" line {mark.line + 1}" if mark is not None else ""
            raise UsageError(f"refresh config {path}{where} is not valid YAML: "
                             f"{getattr(e, 'problem', None) or str(e).splitlines()[0]}")
    else:
        try:
            loaded = json.loads(text)
        except ValueError as e:  # json.JSONDecodeError: its message names the line and column
            raise UsageError(f"refresh config {path} is not valid JSON: {e}")
    try:
        return parse_refresh_config(loaded)
    except (ValueError, AttributeError, TypeError) as e:  # a value of the wrong type
        raise UsageError(f"refresh config {path} is not valid: {e}")


def run_config_for(refresh: RefreshConfig) -> RunConfig:
    """The RunConfig `entailgen run` builds from these flags (same parser, same checks); output is set per version."""
    inputs = [f"--input={path}" for path in refresh.inputs]
    config = run_config(run_parser().parse_args([refresh.pipeline, *inputs, f"--output={refresh.home}",
                                                 *refresh.options]))
    try:
        check_beam_flags(list(refresh.pipeline_args))
    except ValueError as e:
        raise UsageError(str(e))
    return config


def dataset_version(config: RunConfig) -> str:
    """Short sha256 of what defines the dataset: the contents of inputs and of files options name (phrase file,
    candidates, model dir), the config and entailgen's version."""
    defining = {"entailgen_version": entailgen.__version__, "config": config.manifest_config(),
                "inputs": [fingerprint(path) for path in config.inputs],
                "option_files": option_fingerprints(option_paths(config))}
    return hashlib.sha256(dumps(defining).encode("utf-8")).hexdigest()[:VERSION_CHARS]


def read_latest(home: str) -> Optional[str]:
    """The version LATEST names, or None before the first complete build."""
    path = join_path(home, LATEST)
    if not FileSystems.exists(path):
        return None
    with FileSystems.open(path) as f:
        return f.read().decode("utf-8").strip() or None


@dataclass(frozen=True)
class Outcome:
    """What a refresh did: the current version, LATEST before and after, and the manifest if it built one."""

    version: str
    previous: Optional[str]
    latest: Optional[str]
    manifest: Optional[dict] = None


def refresh(refresh_config: RefreshConfig) -> Outcome:
    """Build the current version unless it is already complete, then point LATEST at it."""
    config = run_config_for(refresh_config)
    version, home = dataset_version(config), refresh_config.home
    target, previous, manifest = join_path(home, version), read_latest(home), None
    if not FileSystems.exists(join_path(target, MANIFEST)):
        interrupted = entailgen_folder(target) == BUILD_FOLDER  # a swap cut short on gs://: publish replaces it
        try:
            manifest = run_job(dataclasses.replace(config, output=target), list(refresh_config.pipeline_args),
                               overwrite=interrupted)
        except ValueError as e:  # what run_job checks before it starts (runner, Dataflow paths, output): one line
            raise UsageError(str(e))
        if manifest is None:  # --dry_run=True: nothing was built, so LATEST stays
            return Outcome(version, previous, previous)
    unused = unused_inputs(get_family(config.pipeline), dataclasses.replace(config, output=target),
                           manifest or read_json(target, MANIFEST))
    if unused:  # a version an input gave nothing to never becomes LATEST
        raise UsageError(unused)
    if previous != version:
        write_atomically(join_path(home, LATEST), f"{version}\n".encode("utf-8"))
    return Outcome(version, previous, version, manifest)


def outcome_text(refresh_config: RefreshConfig, outcome: Outcome) -> str:
    """One line (after the run summary when something was built) saying what changed."""
    head, target = f"entailgen refresh {refresh_config.name}:", join_path(refresh_config.home, outcome.version)
    if outcome.latest != outcome.version:
        return f"{head} dry run of version {outcome.version}, nothing built, LATEST unchanged"
    if outcome.previous == outcome.version:
        return f"{head} up to date, LATEST is {outcome.version} ({target})"
    moved = f"{head} LATEST {outcome.previous or '(none)'} -> {outcome.version}"
    return f"{summary_text(target, outcome.manifest)}\n{moved}" if outcome.manifest else f"{moved} (already built)"


def _refresh_command(args) -> int:
    refresh_config = load_refresh_config(args.config)
    outcome = refresh(refresh_config)
    built = outcome.latest == outcome.version  # a dry run built nothing: it says so even when quiet, as run does
    print(join_path(refresh_config.home, outcome.version) if args.quiet and built
          else outcome_text(refresh_config, outcome))
    return 0


def register(commands) -> None:
    """Add `entailgen refresh CONFIG` to the CLI."""
    parser = commands.add_parser("refresh", help=COMMAND_HELP["refresh"],
                                 description="Rebuild a scheduled dataset if its inputs or config changed, then "
                                             "point its LATEST at the current version (its shard format is the "
                                             "config's options.format).")
    parser.add_argument("config", metavar="CONFIG", help="refresh config (JSON, or YAML with PyYAML), local or gs://")
    add_quiet(parser, "the current version's path")
    parser.set_defaults(handler=_refresh_command)
