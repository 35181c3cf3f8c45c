"""--overlap-blind end to end: claims (pair rows left out as skips) and document-arcs (arcs left out unlabelled, rows
kept) against the same runs without it: every row or arc left out is counted by reason, the units still add up,
each bin (fluency third included) keeps as many of each label, the separability block says so, and two worker
processes write the same bytes."""
import json
from collections import Counter

import pyarrow.parquet as pq
import pytest

from entailgen.runners.cli import main
from entailgen.schemas.reader import read_dataset
from entailgen.transforms.overlap_blind import keyed_units, rule_labels
from entailgen.transforms.separability import bigrams
from dataset_bytes import files

DOCUMENTS = [
    {"id": "d1", "text": "Mayor Helen Carrow said she can open the new bridge in Port Ellery on 4 May 2019. "
                         "The bridge cost 12 million pounds and has 3 lanes.\n\nDavid Marsh said he didn't like the "
                         "plan. The old man gave the young boy a book in Leeds."},
    {"article": "Anna Berg won the race in Lyon on Sunday after a long season. She thanked her coach, Tom Hale. "
                "Tom Hale closed a shop in Cardiff on Tuesday. The former minister, 23, said he would resign.",
     "highlights": "Anna Berg won in Lyon."},
    {"id": "short", "text": "Too short."},
]


def dataset(folder, family, documents, *flags):
    path = folder / "docs.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in documents) + "{not json\n")
    args = ["run", family, "--input", str(path), "--seed", "5", "--quiet", *flags]
    runs = {}
    for name, blind in (("plain", []), ("blind", ["--overlap-blind"])):
        out = folder / name
        assert main(args + blind + ["--output", str(out)]) == 0
        runs[name] = out, json.loads((out / "manifest.json").read_text()), list(read_dataset(str(out),
                                                                                             as_records=True))
    return folder, args + ["--overlap-blind"], runs


@pytest.fixture(scope="module")
def claims(tmp_path_factory):
    return dataset(tmp_path_factory.mktemp("blind_claims"), "claims", DOCUMENTS, "--transformations",
                   "pronoun_swap,entity_swap,number_swap,date_swap,negation")


@pytest.fixture(scope="module")
def arcs(tmp_path_factory):
    return dataset(tmp_path_factory.mktemp("blind_arcs"), "document-arcs", DOCUMENTS)


def balanced(rows, before) -> bool:
    """Whether every (rule, overlap bin, negated, fluency third) bin holds as many entailed units as not-entailed
    ones, the rules of one label before the stage pooled and fluency read against the premises before it."""
    made = set().union(*map(rule_labels, before))
    mixed = {rule for rule, entailed in made if (rule, not entailed) in made}
    seen = set().union(*(bigrams(r.premise) for r in before))
    labels = Counter((key, entailed) for r in rows for key, (_, _, entailed) in keyed_units(r, mixed, seen))
    return all(labels[(key, True)] == labels[(key, False)] for key, _ in labels)


def units_add_up(counts) -> bool:
    return sum(counts["read"].values()) == sum(sum(counts.get(k, {}).values()) for k in (
        "units_with_output", "skipped_by_source", "units_dead"))


def test_claims_left_out_are_skipped_rows_counted_by_reason(claims):
    _, _, runs = claims
    (_, plain, plain_rows), (_, blind, blind_rows) = runs["plain"], runs["blind"]
    left_out = blind["counts"]["overlap_blind_rows_left_out"]
    assert sum(left_out.values()) == len(plain_rows) - len(blind_rows) > 0
    assert {r.id for r in blind_rows} < {r.id for r in plain_rows}
    assert blind["metrics"]["overlap_blind_rows_left_out"] == sum(left_out.values())
    assert units_add_up(blind["counts"]) and blind["counts"]["read"] == plain["counts"]["read"]
    assert balanced(blind_rows, plain_rows) and not balanced(plain_rows, plain_rows)
    every = blind["separability"]["rules"]["all"]["all"]
    assert every["positive"] == every["negative"] and every["auc"]["negation"] in (0.5, None)


def test_document_arcs_left_out_are_unlabelled_and_their_rows_stay(arcs):
    _, _, runs = arcs
    (_, plain, plain_rows), (_, blind, blind_rows) = runs["plain"], runs["blind"]
    assert sorted(r.id for r in blind_rows) == sorted(r.id for r in plain_rows)
    labelled = Counter(a.entailed is not None for r in plain_rows for a in r.arcs)
    still = Counter(a.entailed is not None for r in blind_rows for a in r.arcs)
    left_out = blind["counts"]["overlap_blind_arcs_left_out"]
    assert sum(left_out.values()) == labelled[True] - still[True] > 0
    assert blind["counts"]["units_with_output"] == plain["counts"]["units_with_output"]
    assert units_add_up(blind["counts"]) and balanced(blind_rows, plain_rows) and not balanced(plain_rows, plain_rows)
    # evidence removal is all not entailed and restatement all entailed: they are balanced against each other
    assert "one_label_rules" in {k.split(":")[0] for k in left_out}
    every = blind["separability"]["rules"]["all"]["all"]
    assert every["auc"]["overlap"] == 0.5 and every["auc"]["negation"] in (0.5, None)
    assert plain["separability"]["rules"]["all"]["all"]["auc"]["overlap"] > 0.6


@pytest.mark.parametrize("which", ["claims", "arcs"])
def test_two_worker_processes_write_the_same_bytes(which, request):
    folder, args, runs = request.getfixturevalue(which)
    two = folder / "two"
    assert main(args + ["--output", str(two), "--direct_running_mode=multi_processing",
                        "--direct_num_workers=2"]) == 0
    one, other = files(runs["blind"][0]), files(two)
    assert one.keys() == other.keys()
    assert [k for k in one if one[k] != other[k]] == []
