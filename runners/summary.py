"""The one-screen summary printed after a run: where the dataset went and what is in it."""
from __future__ import annotations

import json
from typing import Optional


def _pairs(counts: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"


def _stat_text(name: str, value) -> str:
    """A statistic in one line: the DAE and audit baselines spelled out, anything else as short JSON."""
    if name == "arc_labels" and value.get("labelled_arcs") and "paper_table_2" not in value:  # no §4 kinds
        return f"{value['labelled_arcs']} labelled arcs, {value['entailed_arc_pct']}% entailed"
    if name == "arc_labels" and value.get("labelled_arcs"):
        paper = value["paper_table_2"]
        section_4 = value.get("table_2_labelled_arcs", value["labelled_arcs"])
        return (f"{value['labelled_arcs']} labelled arcs (every kind), {value['entailed_arc_pct']}% entailed; on the "
                f"{section_4} arcs of the §4 kinds majority {value['majority_accuracy']}, lexical match "
                f"{value['lexical_match_accuracy']} "
                f"(DAE Table 2: {paper['majority_accuracy']}, {paper['lexical_match_accuracy']})")
    if name == "audit" and "claim_only" in value:  # the claims family's, per transformation
        return "; ".join(f"{t}: majority {a['majority_accuracy']}, claim-only {a['claim_only_accuracy']}"
                         f" (n_test {a['n_test']})" for t, a in value["claim_only"].items())
    if name == "audit":
        return "; ".join(f"{p}: majority {a['majority_accuracy']}, hypothesis-only {a['hypothesis_only_accuracy']}"
                         f" (n_test {a['n_test']})" for p, a in value.items())
    text = json.dumps(value, sort_keys=True)
    return text if len(text) < 300 else text[:297] + "..."


def summary_text(output: str, manifest: dict, seconds: Optional[float] = None) -> str:
    """Counts per source, split and dead-letter reason, plus the family's stats (and the run's time), in a few lines."""
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
    if "units_with_output" in counts or "units_dead" in counts:  # every unit is one of these (dataset.accounting)
        units = {name: sum(counts.get(key, {}).values()) for name, key in (
            ("with output", "units_with_output"), ("skipped", "skipped_by_source"), ("dead", "units_dead"))}
        lines.append(f"  units       {_pairs(units)}")
    if counts.get("skipped_transformations"):
        lines.append(f"  not made    {sum(counts['skipped_transformations'].values())} transformations of units that "
                     f"have output ({_pairs(counts['skipped_transformations'])})")
    lines.append(f"  counters    {_pairs(manifest['metrics'])}")
    for name, value in manifest["stats"].items():
        lines.append(f"  {name:<11} {_stat_text(name, value)}")
    lines.append(f"  manifest    {output.rstrip('/')}/manifest.json")
    if seconds is not None:
        lines.append(f"  elapsed     {seconds:.1f} s")
    return "\n".join(lines)
