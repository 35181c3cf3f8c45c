"""`entailgen run recast --phenomena relation` end to end on a tiny corpus, KB and DNC file: accounting, provenance,
the DNC KG export (read back by the dnc-json reader), the card's caveats and bad-option errors."""
import hashlib
import json
from collections import Counter

import pytest

from entailgen.runners.cli import main
from entailgen.transforms.io import read_file

CORPUS = ["Kazakhstan shares a long border with Russia.",  # a KB pair: one entailed, one kb_negative
          "The weather was pleasant all week and nobody complained.",  # no entity pair: skipped
          "German and French are spoken by millions of people.",  # NORP -> NORP fits no template: skipped
          "Russia " * 30,  # longer than --max-chars: a read dead letter
          ""]  # blank: a read dead letter
KB = "Kazakhstan\tP47\tRussia\nKazakhstan\tcapital\tAstana\n"
DNC = [{"context": "Paris is the capital of France .", "hypothesis": "Paris is bordered by France .",
        "label": "not-entailed", "type-of-inference": "KG", "pair-id": 7},
       {"context": "Paris is the capital of France .", "hypothesis": "Paris is the capital of France .",
        "label": "entailed", "type-of-inference": "KG", "pair-id": 8},
       {"context": "Paris is the capital of France .", "hypothesis": "France is in Paris .", "label": "perhaps"}]


def rows_of(out, manifest):
    return [json.loads(line) for s in manifest["shards"] for line in (out / s["path"]).read_text().splitlines()]


@pytest.fixture(scope="module")
def relation(tmp_path_factory):
    root = tmp_path_factory.mktemp("relation")
    (root / "corpus.txt").write_text("\n".join(CORPUS) + "\n")
    (root / "kb.tsv").write_text(KB)
    (root / "recast_kg_relations_data.json").write_text(json.dumps(DNC))
    out = root / "d"
    assert main(["run", "recast", "--phenomena", "relation", "--input", str(root / "corpus.txt"),
                 "--input", str(root / "recast_kg_relations_data.json"), "--kb", str(root / "kb.tsv"),
                 "--negatives-per-sentence", "0", "--max-chars", "100", "--format", "jsonl", "--export", "dnc",
                 "--output", str(out), "--quiet"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    return out, manifest, rows_of(out, manifest)


def test_sentences_read_are_sentences_with_pairs_plus_skipped_plus_dead(relation):
    _, manifest, rows = relation
    counts = manifest["counts"]
    with_pairs = {r["source_id"] for r in rows if r["source"] == "corpus.txt"}
    assert with_pairs == {"corpus.txt:1"}
    assert counts["skipped_by_reason"] == {"recast_relation:FewerThanTwoMentions": 1,
                                           "recast_relation:TypeMismatch": 1}
    assert counts["dead_by_stage"] == {"read:TooLong": 1, "read:EmptyLine": 1, "read:BadLabel": 1}
    assert counts["read"]["corpus.txt"] == 5 == len(with_pairs) + counts["skipped_by_source"]["corpus.txt"] + \
        counts["dead_by_source"]["corpus.txt"]
    assert manifest["metrics"]["recast_relation_type_mismatch_pairs"] == 2
    assert [(f["option"], f["sha256"]) for f in manifest["option_files"]] == [
        ("family.kb", hashlib.sha256(KB.encode()).hexdigest())]


def test_kb_pair_rows_and_dnc_rows_carry_their_provenance(relation):
    _, _, rows = relation
    corpus = sorted((r for r in rows if r["source"] == "corpus.txt"), key=lambda r: r["label"])
    assert [(r["hypothesis"], r["label"], json.loads(r["provenance"])["label_made"]) for r in corpus][0] == (
        "Kazakhstan is bordered by Russia .", "entailed", "kb")
    negative = json.loads(corpus[1]["provenance"])
    # The corpus prior knows only P47 for GPE -> GPE, and the KB holds it: the relation comes from the other
    # templates that take GPE -> GPE.
    assert negative["label_made"] == "kb_negative" and negative["triple"][1] in {"P17", "P36", "P131"}
    assert negative["subject"] == [0, 10, "GPE"] and negative["object"] == [37, 43, "GPE"]
    assert corpus[1]["label"] == "not-entailed" and corpus[1]["template"] == f"relation/{negative['triple'][1]}"
    dnc = sorted((r["source_id"], r["label"], r["template"], r["provenance"]) for r in rows if r["source"] != "corpus.txt")
    assert dnc == [("recast_kg_relations_data.json:7", "not-entailed", "relation/dnc", '{"label_made":"dnc"}'),
                   ("recast_kg_relations_data.json:8", "entailed", "relation/dnc", '{"label_made":"dnc"}')]


def test_dnc_export_is_the_kg_relations_layout_and_reads_back(relation):
    out, manifest, rows = relation
    path = out / "dnc/recast_kg_relations_data.json"
    data = json.loads(path.read_text())
    assert {e["path"]: e["rows"] for e in manifest["exports"]} == {"dnc/recast_kg_relations_data.json": 4,
                                                                  "dnc/recast_kg_relations_metadata.json": 4}
    assert all(set(d) == {"context", "hypothesis", "label", "label-set", "binary-label", "split", "type-of-inference",
                          "pair-id"} for d in data)
    assert {d["type-of-inference"] for d in data} == {"KG"}
    assert all(d["binary-label"] == (d["label"] == "entailed") for d in data)
    back = Counter((p.context, p.hypothesis, p.label) for p in read_file(str(path)))
    assert back == Counter((r["premise"], r["hypothesis"], r["label"]) for r in rows)
    metadata = json.loads((out / "dnc/recast_kg_relations_metadata.json").read_text())
    assert sorted(m["misc"]["provenance"]["label_made"] for m in metadata) == ["dnc", "dnc", "kb", "kb_negative"]


def test_card_says_distant_supervision_is_noisy(relation):
    out, manifest, _ = relation
    card = (out / "README.md").read_text()
    assert "distant supervision" in card and "Table 6" in card and "KBs are incomplete" in card
    assert manifest["stats"]["audit"]["relation"]["n"] == 4


@pytest.mark.parametrize("flags, message", [
    (["--phenomena", "relation"], "--phenomena relation needs --kb FILE"),
    (["--phenomena", "relation", "--kb", "{root}/missing.tsv"], "--kb: file not found"),
    (["--phenomena", "relation", "--kb", "{root}/bad.tsv"], "bad.tsv:2: want subject<TAB>relation<TAB>object"),
    (["--phenomena", "relation", "--kb", "{root}/kb.tsv", "--negatives-per-sentence", "-1"],
     "--negatives-per-sentence must be >= 0"),
    (["--phenomena", "relation", "--kb", "{root}/kb.tsv", "--relation-templates", "{root}/kb.tsv"],
     "kb.tsv:1: want 5 tab-separated fields"),
    (["--phenomena", "relation", "--kb", "{root}"], "--kb: cannot read"),
    (["--phenomena", "ner", "--kb", "{root}/kb.tsv"], "--kb and --relation-templates are for --phenomena relation"),
])
def test_bad_relation_options_are_one_line_usage_errors(tmp_path, capsys, flags, message):
    (tmp_path / "corpus.txt").write_text("Kazakhstan borders Russia.\n")
    (tmp_path / "kb.tsv").write_text(KB)
    (tmp_path / "bad.tsv").write_text("a\tP19\tb\nonly two\tfields\n")
    argv = ["run", "recast", "--input", str(tmp_path / "corpus.txt"), "--output", str(tmp_path / "out")]
    assert main(argv + [f.format(root=tmp_path) for f in flags]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
