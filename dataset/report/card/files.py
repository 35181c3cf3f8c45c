"""The card's "Files": what each file of the dataset folder holds."""
from __future__ import annotations

from entailgen.dataset.report.card.facts import CardFacts
from entailgen.dataset.report.card.markdown import plural


def section(facts: CardFacts) -> list[str]:
    """The shards, the dead letters, the manifest, the report page and any exports."""
    manifest = facts.manifest
    return [f"- `{{split}}/{{split}}-NNNNN-of-NNNNN.{manifest['config']['format']}`: the rows, "
            "sharded by a hash of the id and sorted",
            f"- `{manifest['dead_letters']['path']}`: every input or stage that failed, with its reason",
            "- `manifest.json`: shards, checksums, counts, config (written last: without it the dataset is "
            "incomplete)",
            "- `report.html`: this dataset's plots and examples (static, opens offline)",
            *[f"- `{e['path']}`: export, {plural(e['rows'], 'row')}" for e in manifest.get("exports", [])], ""]
