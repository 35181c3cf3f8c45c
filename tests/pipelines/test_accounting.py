"""Accounting end to end, per family: read = units with output + skipped + units with a dead letter, per source,
with dead letters made at the family's own stages (not only the reader's) and fixed expected numbers."""
import json

import pyarrow.parquet as pq

from entailgen.runners.cli import main

TOO_MANY_TOKENS = "a , " * 110 + "end ."  # 222 tokens > the parser's 200, but under the reader's 1000 characters


def run(family: str, out, *inputs) -> tuple[dict, list, list]:
    """Run family over the input files (Paths), with the family's own flags (strings) after them."""
    args = ["run", family, "--output", str(out), "--quiet"]
    for arg in inputs:
        args += ["--input", str(arg)] if not isinstance(arg, str) else [arg]
    assert main(args) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    rows = [r for s in manifest["shards"] for r in pq.read_table(out / s["path"]).to_pylist()]
    dead = pq.read_table(out / manifest["dead_letters"]["path"]).to_pylist()
    return manifest, rows, dead


def units(rows: list, dead: list, source: str) -> tuple[set, set]:
    """(units of source with output and no dead letter, units of source with a dead letter)."""
    dead_units = {d["source_id"] for d in dead if d["source"] == source}
    return {r["source_id"] for r in rows if r["source"] == source} - dead_units, dead_units


def assert_units_add_up(counts: dict) -> None:
    """The manifest's own per-source accounting: read = units with output + units skipped + units dead."""
    for source, read in counts["read"].items():
        assert read == sum(counts.get(name, {}).get(source, 0)
                           for name in ("units_with_output", "skipped_by_source", "units_dead")), source
    assert counts["total"]["skipped"] <= counts["total"]["read"]


def test_parse_accounts_for_a_sentence_too_long_to_parse(tmp_path):
    text = tmp_path / "text.txt"
    text.write_text(f"The cat sat on the mat .\nDogs bark loudly at night .\n{TOO_MANY_TOKENS}\n")
    manifest, rows, dead = run("parse", tmp_path / "out", text)
    counts = manifest["counts"]
    done, dead_units = units(rows, dead, "text.txt")
    assert (done, dead_units) == ({"text.txt:1", "text.txt:2"}, {"text.txt:3"})
    assert counts["read"] == {"text.txt": 3} == {"text.txt": len(done) + 0 + len(dead_units)}
    assert counts["dead_by_stage"] == {"parse:TooLong": 1}
    assert counts["total"] == {"read": 3, "written": 2, "dead_letters": 1, "skipped": 0}
    assert_units_add_up(counts)


NER = """-DOCSTART- -X- -X- O

Rice NNP B-NP B-PER
visited VBD B-VP O
Paris NNP B-NP B-LOC
. . O O

The DT B-NP O
rain NN I-NP O
fell VBD B-VP O
. . O O

Obama NNP B-NP B-PER
met VBD B-VP O
Lagos NNP B-NP B-FOO
. . O O
"""
FACTUALITY = [
    {"id": "f1", "sentence": "The company announced that it had sold its shipping business .", "predicate_index": 2,
     "predicate_lemma": "announce", "value": 1.21},
    {"id": "f2", "sentence": "The company might sell its shipping business .", "predicate_index": 3,
     "predicate_lemma": "sell", "value": 0.1},
    {"id": "f3", "sentence": "The 42 figures were counted .", "predicate_index": 1, "predicate_lemma": "42",
     "value": -2.0},
    {"id": "f4", "sentence": "Nobody left the room .", "predicate_index": 1, "predicate_lemma": "leave", "value": -1.5},
    {"id": "f5", "sentence": "He may win .", "predicate_index": 2, "predicate_lemma": "win", "value": -0.3},
]


def test_recast_accounts_for_recast_errors_and_skips(tmp_path):
    """NER: one recast, one sentence without a mention (skipped), one unknown tag B-FOO (dead). Factuality: two
    recast, two ambiguous |value| < 1 (skipped), one predicate lemma '42' that cannot be nominalised (dead)."""
    ner, factuality = tmp_path / "ner.txt", tmp_path / "fact.jsonl"
    ner.write_text(NER)
    factuality.write_text("".join(json.dumps(a) + "\n" for a in FACTUALITY))
    manifest, rows, dead = run("recast", tmp_path / "out", ner, factuality)
    counts = manifest["counts"]
    assert units(rows, dead, "ner.txt") == ({"ner.txt:3"}, {"ner.txt:13"})  # ids: the sentence's first line
    assert units(rows, dead, "fact.jsonl") == ({"fact.jsonl:f1", "fact.jsonl:f4"}, {"fact.jsonl:f3"})
    assert counts["read"] == {"ner.txt": 3, "fact.jsonl": 5}
    assert counts["skipped_by_source"] == {"ner.txt": 1, "fact.jsonl": 2}
    assert counts["skipped_by_reason"] == {"recast_ner:NoEntityMention": 1, "recast_factuality:AmbiguousValue": 2}
    assert counts["dead_by_stage"] == {"recast_ner:RecastError": 1, "recast_factuality:RecastError": 1}
    # NER: per mention its true type and one other type from the corpus prior; factuality: happened / did not
    assert counts["records_by_source"] == {"ner.txt": 4, "fact.jsonl": 4}
    assert counts["total"] == {"read": 8, "written": 8, "dead_letters": 2, "skipped": 3}
    assert_units_add_up(counts)


def test_nli_dialogue_accounts_for_every_line(tmp_path):
    """Each good pair gives its original and one dialogue copy. The reader already refuses labels the dialogue stage
    could not map, so this family's dead letters come from reading (a bad label, a line that is not JSON)."""
    nli = tmp_path / "nli.jsonl"
    pairs = [{"gold_label": "entailment", "sentence1": "A man rides a bike .", "sentence2": "A man is riding .",
              "pairID": "a"},
             {"gold_label": "maybe", "sentence1": "A dog runs .", "sentence2": "An animal moves .", "pairID": "b"},
             {"gold_label": "contradiction", "sentence1": "A girl sings .", "sentence2": "A girl sleeps .",
              "pairID": "c"}]
    nli.write_text("".join(json.dumps(p) + "\n" for p in pairs) + "{not json\n")
    manifest, rows, dead = run("nli-dialogue", tmp_path / "out", nli)
    counts = manifest["counts"]
    done, dead_units = units(rows, dead, "nli.jsonl")
    assert (len(done), len(dead_units)) == (2, 2)
    assert counts["read"] == {"nli.jsonl": 4}
    assert counts["dead_by_stage"] == {"read:BadLabel": 1, "read:MalformedJson": 1}
    assert sorted((r["kind"], r["label"]) for r in rows) == [("dialogue", "entailed"), ("dialogue", "not-entailed"),
                                                            ("original", "entailed"), ("original", "not-entailed")]
    assert counts["total"] == {"read": 4, "written": 4, "dead_letters": 2, "skipped": 0}
    assert_units_add_up(counts)


def test_claims_count_transformation_skips_apart_from_skipped_documents(tmp_path):
    """d1 gives its sampled sentence and its negation ('can' -> 'cannot'); it has no date, number or named entity, so
    date, number and entity swap each find nothing (transformation-level skips of a document with claims). d2 has
    no sentence of 8 tokens (a skipped document); the last line is not JSON (a reading-stage dead letter)."""
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"id": "d1", "text": "The farmer can see the old harbour wall from his window."})
                    + "\n" + json.dumps({"id": "d2", "text": "Too short."}) + "\n{not json\n")
    manifest, rows, dead = run("claims", tmp_path / "out", docs, "--transformations",
                               "negation,date_swap,number_swap,entity_swap", "--no-noise")
    counts = manifest["counts"]
    assert sorted((r["transformation"], r["claim"]) for r in rows) == [
        ("negation", "The farmer cannot see the old harbour wall from his window."),
        ("sentence_sampling", "The farmer can see the old harbour wall from his window.")]
    assert [(d["source_id"], d["stage"]) for d in dead] == [("docs.jsonl:3", "read")]
    assert (counts["read"], counts["units_with_output"], counts["skipped_by_source"], counts["units_dead"]) == (
        {"docs.jsonl": 3}, {"docs.jsonl": 1}, {"docs.jsonl": 1}, {"docs.jsonl": 1})
    assert counts["skipped_by_reason"] == {"claims:NoClaim:NoSentenceOf8Tokens": 1}
    assert counts["skipped_transformations"] == {"claims:date_swap:NoMention": 1, "claims:entity_swap:NoMention": 1,
                                                 "claims:number_swap:NoMention": 1}
    assert counts["total"] == {"read": 3, "written": 2, "dead_letters": 1, "skipped": 1}
    assert "documents" not in manifest["stats"]  # its count of documents read left out the reader's dead letters
    assert_units_add_up(counts)


def test_dae_counts_a_unit_with_rows_and_a_dead_letter_once(tmp_path):
    """Line 1 has a beam row (gold, top-1, bottom rows); line 2 has none: its gold row is written and its missing
    beam is a dead letter, so it counts as dead only; line 3 has no content arc (skipped). The candidates file's bad
    lines (not JSON, not UTF-8) are dead letters of that file, not input units, and the run goes on."""
    pairs, beams = tmp_path / "pairs.tsv", tmp_path / "beams.jsonl"
    pairs.write_text("The old man gave the young boy a book .\tThe old man handed the young boy a book .\n"
                     "The cat sat on the mat near the door .\tThe cat was sitting on the mat near the door .\n"
                     "Hello !\tHi !\n")
    beams.write_bytes(b"".join(json.dumps(row).encode() + b"\n" for row in (
        {"source_id": "pairs.tsv:1", "candidates": ["The old man handed a young boy a book .",
                                                    "An old man gave the boy books ."]},
        {"source_id": "pairs.tsv:3", "candidates": ["Hi !", "Hey !"]})) + b"{not json\n\n" + b'"caf\xe9"\n')
    manifest, rows, dead = run("dae", tmp_path / "out", pairs, "--candidates", str(beams), "--splits", "train=1")
    counts = manifest["counts"]
    assert sorted((r["source_id"], r["kind"]) for r in rows) == [
        ("pairs.tsv:1", "bottom"), ("pairs.tsv:1", "gold"), ("pairs.tsv:1", "top1"), ("pairs.tsv:2", "gold")]
    assert sorted((d["source"], d["stage"], d["error_type"]) for d in dead) == [
        ("beams.jsonl", "candidates", "BadEncoding"), ("beams.jsonl", "candidates", "JSONDecodeError"),
        ("pairs.tsv", "candidates", "MissingCandidates")]
    assert (counts["read"], counts["units_with_output"], counts["skipped_by_source"], counts["units_dead"]) == (
        {"pairs.tsv": 3}, {"pairs.tsv": 1}, {"pairs.tsv": 1}, {"pairs.tsv": 1})
    assert counts["skipped_by_reason"] == {"label:NoArcs": 1}
    assert counts["dead_by_source"] == {"beams.jsonl": 2, "pairs.tsv": 1}
    assert_units_add_up(counts)
