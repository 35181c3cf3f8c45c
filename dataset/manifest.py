"""The manifest: the last file of a dataset, listing every shard with its checksum, the counts, config and inputs.

A dataset directory without manifest.json is incomplete by definition. The manifest holds nothing that varies between
runs of the same inputs and config (no timestamps, no local paths), so it is byte-identical too; run.json beside it
records when, where and how a run happened.
"""
from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from typing import Iterable

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from entailgen.dataset.shard import join_path, write_atomically

MANIFEST = "manifest.json"
RUN_INFO = "run.json"
STAGING = ".staging.json"


def dumps(obj) -> str:
    """Stable JSON: sorted keys, two-space indent, trailing newline; nan / inf refused (they are not JSON)."""
    return json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _file_digest(path: str) -> tuple[str, int]:
    """sha256 and size of a file, read in chunks."""
    h, size = hashlib.sha256(), 0
    with FileSystems.open(path) as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
            size += len(chunk)
    return h.hexdigest(), size


def is_dataset(path: str) -> bool:
    """Whether a path is a finished entailgen dataset (a folder with manifest.json): a family may take it as input."""
    return FileSystems.exists(join_path(path.rstrip("/"), MANIFEST))


def fingerprint(path: str) -> dict:
    """sha256 and size of an input file (its bytes as stored, compressed or not); of a dataset given as input, of its
    manifest, which pins every shard's sha256."""
    digest, size = _file_digest(join_path(path.rstrip("/"), MANIFEST) if is_dataset(path) else path)
    return {"name": FileSystems.split(path.rstrip("/"))[1], "sha256": digest, "bytes": size}


def directory_fingerprint(path: str, files: list[str]) -> dict:
    """One sha256 over a directory's files (relative name and sha256 of each, sorted), e.g. a local model dir."""
    h, size, root = hashlib.sha256(), 0, path.rstrip("/") + "/"
    for file in sorted(files):
        digest, n = _file_digest(file)
        h.update(f"{file[len(root):] if file.startswith(root) else file}\t{digest}\n".encode("utf-8"))
        size += n
    return {"name": FileSystems.split(path.rstrip("/"))[1], "sha256": h.hexdigest(), "bytes": size,
            "files": len(files)}


def option_fingerprints(named_paths: Iterable[tuple[str, str]]) -> list[dict]:
    """Fingerprints of the files and directories options name (phrase file, candidates, model dir), each with its
    option; a value that is no path (a hub model id, a spaCy package name) has none: the config already holds it."""
    found = []
    for option, path in named_paths:
        files = [m.path for m in FileSystems.match([join_path(path.rstrip("/"), "**")])[0].metadata_list]
        if files:
            found.append({"option": option, **directory_fingerprint(path, files)})
        elif FileSystems.exists(path):
            found.append({"option": option, **fingerprint(path)})
    return found


def nest_counts(pairs: Iterable[tuple[tuple[str, str], int]]) -> dict[str, dict[str, int]]:
    """((counter, key), n) pairs -> {counter: {key: n}} with keys sorted."""
    nested: dict[str, dict[str, int]] = defaultdict(dict)
    for (counter, key), n in sorted(pairs):
        nested[counter][key] = n
    return dict(nested)


def metric_counters(result) -> dict[str, int]:
    """The pipeline's 'entailgen' counters, summed over steps (committed values where the runner has them)."""
    counters: dict[str, int] = defaultdict(int)
    for c in result.metrics().query()["counters"]:
        if c.key.metric.namespace == "entailgen":
            counters[c.key.metric.name] += c.committed if c.committed is not None else c.attempted
    return dict(sorted(counters.items()))


def build_manifest(*, version: str, pipeline: str, record_type: str, config: dict, inputs: list[dict],
                   staged: dict, metrics: dict, option_files: list[dict] = ()) -> dict:
    """Assemble the manifest from the staged pipeline summary (shards, counts, stats, and the labels' separability by
    overlap and the other cheap cues where the record type has labels) and the run's metrics."""
    shards = sorted(staged["shards"], key=lambda s: s["path"])
    splits: dict[str, dict] = {}
    for s in shards:
        entry = splits.setdefault(s["split"], {"rows": 0, "shards": 0})
        entry["rows"] += s["rows"]
        entry["shards"] += 1
    (dead,) = staged["dead_letters"]
    counts = nest_counts(staged["counts"])
    counts["written"] = {name: entry["rows"] for name, entry in splits.items()}
    counts["total"] = {"read": sum(counts.get("read", {}).values()),
                       "written": sum(e["rows"] for e in splits.values()), "dead_letters": dead["rows"],
                       "skipped": sum(counts.get("skipped_by_source", {}).values())}
    separability = {"separability": staged["separability"][0]} if staged.get("separability") else {}
    return {
        "entailgen_version": version,
        "pipeline": pipeline,
        "record_type": record_type,
        "config": config,
        "inputs": inputs,
        "option_files": list(option_files),  # files options name (phrase file, candidates, model dir), by content
        "splits": splits,
        "shards": shards,
        "dead_letters": dead,
        "counts": counts,
        "metrics": metrics,
        "stats": dict(sorted(staged["stats"])),
        "exports": sorted(staged["exports"], key=lambda e: e["path"]),
        **separability,
    }


def write_json(output: str, name: str, obj) -> None:
    """Write a JSON document into the dataset directory atomically."""
    try:
        text = dumps(obj)
    except ValueError as e:  # a nan or inf reached it: refuse rather than write invalid JSON
        raise ValueError(f"{name} not written: {e}")
    write_atomically(join_path(output, name), text.encode("utf-8"))


def read_json(output: str, name: str):
    """Read a JSON document from the dataset directory."""
    with FileSystems.open(join_path(output, name)) as f:
        return json.loads(f.read().decode("utf-8"))


class StageSummary(beam.PTransform):
    """Gather shard infos, counts and stats into one staging file the driver turns into the manifest."""

    def __init__(self, output: str):
        super().__init__()
        self.output = output

    def expand(self, parts: dict):
        output = self.output
        side = {name: beam.pvalue.AsList(pcoll) for name, pcoll in parts.items()}
        return (parts["shards"].pipeline | "One" >> beam.Create([None])
                | "Stage" >> beam.Map(lambda _, **lists: write_json(output, STAGING, lists), **side))


def count_by(pcoll, name: str, key, label: str = "") -> beam.PCollection:
    """((name, key(x)), count), summed where the elements are made (a lifted combine), so no runner buffers one
    count per element before the manifest's totals."""
    label = label or f"Count{name.title()}"
    return (pcoll | label >> beam.Map(lambda x: ((name, key(x)), 1))
            | f"{label}Sum" >> beam.CombinePerKey(sum))
