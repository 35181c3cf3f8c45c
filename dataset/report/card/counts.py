"""The card's "Counts": where every input unit went (dataset.accounting), per split and per input."""
from __future__ import annotations

from entailgen.dataset.report.card.facts import CardFacts, split_names
from entailgen.dataset.report.card.markdown import md_table, plural
from entailgen.dataset.report.plots import clip
from entailgen.dataset.report.stats import label_totals
from entailgen.dataset.report.tables import share

def dead_examples_section(stats: dict, limit: int = 10) -> list[str]:
    """A few dead letters as a table (where in which file, stage, message), so a reader sees what failed."""
    examples = stats.get("dead_examples") or []
    if not examples:
        return []
    rows = [[d["source_id"], f"{d['stage']}:{d['error_type']}", clip(" ".join(d["message"].split()), 120),
             clip(" ".join(d["raw"].split()), 60)] for d in examples[:limit]]
    return ["", "Example dead letters (a few per reason):", "",
            md_table(["where (file:line or id)", "stage:error", "message", "input"], rows)]


# per input: units read = with output + skipped + dead (dataset.accounting); rows and dead letters are per row
PER_SOURCE = (("read", "units read"), ("units_with_output", "with output"), ("skipped_by_source", "skipped"),
              ("units_dead", "dead"), ("records_by_source", "rows written"), ("dead_by_source", "dead letters"))
COUNT_TITLES = {"dead_by_stage": "Dead letters by stage and error",
                "skipped_by_reason": "Inputs skipped on purpose, by reason",
                "skipped_transformations": "Transformations that found nothing to change, in units that have output"}


def section(facts: CardFacts) -> list[str]:
    """Units read, rows and dead letters per split and per input (with licence and checksum), the skip and dead-letter
    reasons, a few dead letters, and the label totals."""
    manifest, stats, licences = facts.manifest, facts.stats, facts.licences
    counts, total = manifest["counts"], manifest["counts"]["total"]
    per_source = [(key, title) for key, title in PER_SOURCE if key in counts]
    out = [f"{plural(total['read'], 'input unit')} read, {plural(total['written'], 'row')} written, "
           f"{plural(total['dead_letters'], 'dead letter')} (`{manifest['dead_letters']['path']}`).", "",
           md_table(["split", "rows", "shards"], [[n, manifest["splits"][n]["rows"], manifest["splits"][n]["shards"]]
                                               for n in split_names(manifest)]),
           "", md_table(["input"] + [title for _, title in per_source] + ["licence", "sha256"],
                        [[i["name"]] + [counts[key].get(i["name"], 0) for key, _ in per_source]
                         + [licences[i["name"]], i["sha256"][:12]] for i in manifest["inputs"]])]
    handled = {key for key, _ in PER_SOURCE} | {"written", "total"}
    for key, table in counts.items():
        if key not in handled and table:
            out += ["", COUNT_TITLES.get(key, key.replace("_", " ").capitalize()) + ":", "",
                    md_table(["key", "count"], [[k, v] for k, v in table.items()])]
    out += dead_examples_section(stats)
    facet = "split" if "split" in stats["labels"] else None
    totals = label_totals(stats, facet) if facet else {}
    if totals:
        what = "Arc labels" if manifest["record_type"] == "ArcExample" else "Labels"
        n = sum(totals.values())
        out += ["", f"{what} over all rows:", "", md_table(["label", "count", "share"],
                                                           [[k, v, share(v, n)] for k, v in totals.items()])]
    return out + [""]
