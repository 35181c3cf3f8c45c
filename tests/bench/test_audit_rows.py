"""bench/audit_rows.py on hand-made rows: each row's group (its rule and variant, a carried rewrite left off), a draw
that does not depend on the order rows were read in, and the words a rule changed against the closest premise
sentence."""
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import audit_rows  # noqa: E402 (bench/ scripts import each other as scripts do)


def row(i: str, kind: str, variant: str) -> dict:
    return {"id": i, "premise": "P.", "hypothesis": "H.", "kind": kind, "split": "train",
            "generator": f"document_arcs:{kind}:{variant}",
            "arcs": [{"head": 1, "child": 0, "rel": "nsubj", "head_lemma": "win", "child_lemma": "hale",
                      "entailed": 0, "in_premise": False}]}


def test_a_row_joins_the_longest_group_its_rule_and_variant_start_with():
    groups = audit_rows.GROUPS
    assert audit_rows.group_of(row("1", "recombination", "entity_role+synonym"), groups) == \
        "recombination:entity_role"
    assert audit_rows.group_of(row("2", "recombination", "modifier+hypernym"), groups) == "recombination"
    assert audit_rows.group_of(row("3", "rewording", "date"), groups) == "rewording:date"
    assert audit_rows.group_of(row("4", "restatement", "compression"), ("evidence_removal",)) == "restatement"


def test_the_draw_is_the_same_in_any_order_and_a_short_group_gives_all_it_has(tmp_path):
    rows = [row(str(i), "evidence_removal", "sentence") for i in range(20)]
    first = [r["id"] for r in audit_rows.draw(rows, 5, seed=0)]
    assert [r["id"] for r in audit_rows.draw(rows[::-1], 5, seed=0)] == first
    assert [r["id"] for r in audit_rows.draw(rows, 5, seed=1)] != first
    assert len(audit_rows.draw(rows, 50, seed=0)) == 20
    for split in ("train", "dead_letters"):  # dead letters are not rows to judge
        (tmp_path / split).mkdir()
        pq.write_table(pa.Table.from_pylist(rows[:3] if split == "train" else [{"id": "x"}]),
                       tmp_path / split / f"{split}-00000-of-00001.parquet")
    assert sorted(r["id"] for r in audit_rows.read_rows([str(tmp_path), str(tmp_path)])) == ["0", "1", "2"]


def test_the_changed_words_are_read_against_the_closest_premise_sentence():
    premise = "Leeds beat Hull on Saturday. Anna Berg opened a large office in Leeds."
    assert audit_rows.changes(premise, "Anna Berg opened a big office in Cardiff.") == \
        "[large -> big] [Leeds -> Cardiff]"
    # "Leeds" kept, "Hull beat" put before it and "beat Hull" taken out after it: the exchange, read as a diff
    assert audit_rows.changes(premise, "Hull beat Leeds on Saturday.") == "[+ Hull beat] [- beat Hull]"
    assert audit_rows.changes(premise, "Leeds beat Hull on Saturday.") == "(the hypothesis is a premise sentence)"
    assert audit_rows.hypothesis_mark(row("1", "x", "y")["arcs"]) == "0"
    assert audit_rows.arc_line(row("1", "x", "y")["arcs"]) == "0: nsubj(win,hale)"
