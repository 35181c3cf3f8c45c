"""Write a dataset's card and report from its manifest and shards: the last step of a run, and `entailgen report`."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import entailgen
from entailgen.dataset.manifest import dumps
from entailgen.dataset.report.card import CARD, render_card
from entailgen.dataset.report.html import REPORT, render_report
from entailgen.dataset.report.read import dataset_rows, dead_letter_rows
from entailgen.dataset.report.sample import example_group, sample_rows
from entailgen.dataset.report.stats import DatasetStats, dead_reason
from entailgen.dataset.shard import join_path, write_atomically

SAMPLES = Path(entailgen.__file__).parent / "samples"


def embedded_sample_digests(samples: Path = SAMPLES) -> frozenset[str]:
    """sha256 of every embedded sample file, to tell a dataset built from them (by content, not by name)."""
    return frozenset(hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(samples.rglob("*")) if p.is_file())


@dataclass(frozen=True)
class ReportConfig:
    """How much the report shows: examples per group (kind, phenomenon, source), bars per chart, histogram bins."""

    examples_per_group: int = 3
    max_bars: int = 25
    max_bins: int = 24


def collect(output: str, manifest: dict, config: ReportConfig) -> tuple[dict, list[dict]]:
    """(statistics, sampled examples) from one streaming pass over the dataset's shards and dead letters."""
    record_type = manifest["record_type"]
    stats = DatasetStats(record_type)

    def counted(rows):
        for row in rows:
            stats.add(row)
            yield row

    seed = manifest["config"]["seed"]
    examples = sample_rows(counted(dataset_rows(output, manifest)), seed, config.examples_per_group,
                           example_group(record_type))
    dead = sample_rows(counted_dead(dead_letter_rows(output, manifest), stats), seed, config.examples_per_group,
                       dead_reason)
    return dict(stats.as_dict(), dead_examples=dead), with_references(examples, output, manifest)


def counted_dead(rows, stats: DatasetStats):
    """The dead letters, each counted into stats as it passes."""
    for row in rows:
        stats.add_dead(row)
        yield row


def with_references(examples: list[dict], output: str, manifest: dict) -> list[dict]:
    """DAE examples with their gold paraphrase h* (field 'reference'), found in a second pass over the shards for
    the sampled sources only, so a reader can compare x, h* and the hypothesis side by side."""
    if not any("kind" in row and "hypothesis_tokens" in row for row in examples):
        return examples
    wanted = {row["source_id"] for row in examples}
    gold = {}
    for row in dataset_rows(output, manifest):
        if row.get("kind") == "gold" and row["source_id"] in wanted:
            gold.setdefault(row["source_id"], row["hypothesis"])
    return [dict(row, reference=gold.get(row["source_id"])) for row in examples]


def write_report(output: str, manifest: dict, config: ReportConfig = ReportConfig(),
                 description: str = "") -> list[str]:
    """Write README.md (the dataset card) and report.html into the dataset directory; returns their names."""
    manifest = json.loads(dumps(manifest))  # as read back from manifest.json: same bytes in a run and in `report`
    stats, examples = collect(output, manifest, config)
    pages = {CARD: render_card(manifest, stats, description, embedded_sample_digests()),
             REPORT: render_report(manifest, stats, examples, description, config.max_bars, config.max_bins)}
    for name, text in pages.items():
        write_atomically(join_path(output, name), text.encode("utf-8"))
    return list(pages)
