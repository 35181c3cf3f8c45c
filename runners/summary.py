"""The one-screen summary printed after a run: where the dataset went and what is in it."""
from __future__ import annotations

import json


def _pairs(counts: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"


def summary_text(output: str, manifest: dict) -> str:
    """Counts per source, split and dead-letter reason, plus the family's stats, in a few lines."""
    counts, total = manifest["counts"], manifest["counts"]["total"]
    config = manifest["config"]
    lines = [
        f"entailgen {manifest['pipeline']}: dataset written to {output}",
        f"  format      {config['format']}, {config['num_shards']} shard(s) per split, seed {config['seed']}",
        f"  read        {total['read']} input units ({_pairs(counts.get('read', {}))})",
        f"  written     {total['written']} {manifest['record_type']} rows ({_pairs(counts['written'])})",
        f"  dead        {total['dead_letters']} dead letters ({_pairs(counts.get('dead_by_stage', {}))})"
        f" -> {manifest['dead_letters']['path']}",
    ]
    if total.get("skipped"):
        lines.append(f"  skipped     {total['skipped']} input units on purpose ({_pairs(counts['skipped_by_reason'])})")
    lines.append(f"  counters    {_pairs(manifest['metrics'])}")
    for name, value in manifest["stats"].items():
        text = json.dumps(value, sort_keys=True)
        lines.append(f"  {name:<11} {text if len(text) < 400 else text[:397] + '...'}")
    lines.append(f"  manifest    {output.rstrip('/')}/manifest.json")
    return "\n".join(lines)
