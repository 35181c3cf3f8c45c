"""The run summary shows where every input unit went and the transformations that found nothing, apart."""
from entailgen.runners.summary import summary_text


def _manifest(counts: dict) -> dict:
    return {"pipeline": "claims", "record_type": "ClaimExample", "config": {"format": "parquet", "num_shards": 1,
                                                                            "seed": 0},
            "dead_letters": {"path": "dead_letters/x.parquet"}, "metrics": {}, "stats": {},
            "counts": {"read": {"a.jsonl": 5}, "written": {"train": 7},
                       "total": {"read": 5, "written": 7, "dead_letters": 1, "skipped": 1 if counts else 0}, **counts}}


def test_units_line_adds_up_to_read_and_transformation_skips_are_apart():
    text = summary_text("out", _manifest({
        "units_with_output": {"a.jsonl": 3}, "units_dead": {"a.jsonl": 1}, "skipped_by_source": {"a.jsonl": 1},
        "skipped_by_reason": {"claims:NoClaim": 1},
        "skipped_transformations": {"claims:date_swap:NoMention": 2, "claims:negation:NoAuxiliary": 1}}))
    lines = text.splitlines()
    assert "  units       with output 3, skipped 1, dead 1" in lines
    assert ("  not made    3 transformations of units that have output (claims:date_swap:NoMention 2, "
            "claims:negation:NoAuxiliary 1)") in lines
    assert "  skipped     1 input units on purpose (claims:NoClaim 1)" in lines


def test_a_manifest_without_unit_counts_has_no_units_line():
    assert not [line for line in summary_text("out", _manifest({})).splitlines() if line.startswith("  units")]
