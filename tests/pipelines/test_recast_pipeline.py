"""The recast family end to end on the samples: accounting, context splits, DNC export, audit, thesis examples."""
import json
from collections import defaultdict

import pyarrow.parquet as pq
import pytest

from entailgen.runners.cli import main


@pytest.fixture(scope="module")
def recast(tmp_path_factory):
    out = tmp_path_factory.mktemp("recast") / "d"
    assert main(["run", "recast", "--sample", "--output", str(out), "--export", "dnc", "--quiet"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    rows = [r for s in manifest["shards"] for r in pq.read_table(out / s["path"]).to_pylist()]
    return out, manifest, rows


def test_every_input_unit_is_recast_skipped_or_dead(recast):
    out, manifest, rows = recast
    counts = manifest["counts"]
    recast_units = defaultdict(set)
    for r in rows:
        recast_units[r["source"]].add(r["source_id"])
    for source, read in counts["read"].items():
        skipped = counts.get("skipped_by_source", {}).get(source, 0)
        dead = counts.get("dead_by_source", {}).get(source, 0)
        assert read == len(recast_units[source]) + skipped + dead, source
    assert set(counts["read"]) == {"conll2003.txt", "uds_factuality.json", "factuality.jsonl",
                                   "amazon_cells_labelled.txt", "imdb_labelled.txt", "yelp_labelled.txt",
                                   "relation.txt", "recast_kg_relations_data.json"}
    assert counts["skipped_by_reason"]["recast_factuality:AmbiguousValue"] > 0


def test_one_premise_never_spans_two_splits_and_pairs_are_balanced(recast):
    _, _, rows = recast
    splits = defaultdict(set)
    for r in rows:
        splits[r["premise"]].add(r["split"])
    assert all(len(s) == 1 for s in splits.values())
    labels = defaultdict(int)
    for r in rows:
        if r["phenomenon"] != "relation":  # relation pairs: entailed per KB triple, not-entailed also from r0 pairs
            labels[r["label"]] += 1
    assert labels["entailed"] == labels["not-entailed"]


def test_thesis_examples_are_in_the_output(recast):
    _, _, rows = recast
    by_hypothesis = {(r["premise"], r["hypothesis"]): r["label"] for r in rows}
    learn = [(p, h) for p, h in by_hypothesis if h.startswith("The learning")]
    assert {h: by_hypothesis[(p, h)] for p, h in learn} == {"The learning did not happen": "entailed",
                                                           "The learning happened": "not-entailed"}
    assert by_hypothesis[next(k for k in by_hypothesis if k[1] == "Rice is a person")] == "entailed"
    sentiment = [r for r in rows if r["phenomenon"] == "sentiment"]
    assert sentiment and all(r["premise"].startswith("When asked about the ") for r in sentiment)
    assert {r["premise"].split()[4].rstrip(",") for r in sentiment} == {"product", "movie", "restaurant"}


def test_audit_and_dnc_export_are_in_the_manifest(recast):
    out, manifest, rows = recast
    audit = manifest["stats"]["audit"]
    assert set(audit) == {"ner", "factuality", "sentiment", "relation"}
    # Both hypotheses share premise and speaker, so a hypothesis-only model can only learn "liked" -> one label:
    # it scores the test set's share of positive (or negative) reviews, which is 50 on balanced data.
    test = [r for r in rows if r["phenomenon"] == "sentiment" and r["split"] == "test"]
    positive = sum(r["label"] == "entailed" for r in test if " did not " not in r["hypothesis"]) / (len(test) / 2)
    # the audit rounds its percentage to 2 digits (hypothesis_only.percent), from another order of operations
    assert audit["sentiment"]["hypothesis_only_accuracy"] in (pytest.approx(100 * positive, abs=0.005),
                                                              pytest.approx(100 - 100 * positive, abs=0.005))
    assert audit["sentiment"]["majority_accuracy"] == 50.0
    exported = {e["path"]: e for e in manifest["exports"]}
    data = json.loads((out / "dnc/recast_ner_data.json").read_text())
    assert exported["dnc/recast_ner_data.json"]["rows"] == len(data) == sum(r["phenomenon"] == "ner" for r in rows)
    assert {"context", "hypothesis", "label", "pair-id", "split", "type-of-inference"} <= set(data[0])


def test_unknown_phenomenon_is_a_usage_error(tmp_path, capsys):
    assert main(["run", "recast", "--sample", "--output", str(tmp_path), "--phenomena", "ner,puns"]) == 2
    assert "--phenomena" in capsys.readouterr().err
