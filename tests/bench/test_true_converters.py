"""bench/q2.py and bench/begin.py: TRUE's layout from Q2's and BEGIN's files, on hand-written rows; the way Q2's label
columns point is read off the per-system files, and a file that says otherwise is refused in one line."""
import csv
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import begin  # noqa: E402 (bench/ scripts import each other as scripts do)
import q2  # noqa: E402

K1, K2, K3 = "Jazz began in New Orleans.", "Paris is the capital of France.", "Cats sleep a lot."


def write(path: Path, header, rows, delimiter=","):
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, delimiter=delimiter)
        writer.writerow(header)
        writer.writerows(rows)
    return str(path)


@pytest.fixture
def q2_files(tmp_path):
    # the cross annotation flags a hallucination with 1: its per-system files must say so
    cross = write(tmp_path / "cross_annotation.csv",
                  ["knowledge", "dodeca_response", "dodeca_label", "memnet_response", "memnet_label"],
                  [[K1, "It began in New Orleans.", "0", "It began in Paris.", "1"],
                   [K2, "Lyon is the capital.", "1", "It is Paris.", "0"],
                   [K3, "They sleep a lot.", "0", "They never sleep.", "1"]])
    files = {"dodeca_consistent.csv": [[K1, "It began in  New Orleans."]],  # whitespace aside, the same response
             "dodeca_inconsistent.csv": [[K2, "Lyon is the capital."]],
             "memnet_consistent.csv": [[K2, "It is Paris."], ["Not in the cross annotation.", "Nor this."]],
             "memnet_inconsistent.csv": [[K1, "It began in Paris."]]}
    return cross, {name: write(tmp_path / name, ["knowledge", "response"], rows) for name, rows in files.items()}


def test_q2_labels_point_the_way_the_per_system_files_say(q2_files):
    cross, files = q2_files
    rows, values, told = q2.convert(cross, list(files.values()))
    assert values == {"0": 1, "1": 0} and told == "4 of the per-system files' 5 responses found"
    assert [(r["grounding"], r["system"], r["label"]) for r in rows] == [
        (K1, "dodeca", 1), (K1, "memnet", 0), (K2, "dodeca", 0), (K2, "memnet", 1), (K3, "dodeca", 1),
        (K3, "memnet", 0)]


def test_q2_refuses_files_that_do_not_point_one_way_and_a_missing_column(q2_files, tmp_path, capsys):
    cross, files = q2_files
    flipped = write(tmp_path / "memnet_consistent.csv", ["knowledge", "response"], [[K1, "It began in Paris."]])
    argv = [cross, files["dodeca_consistent.csv"], files["dodeca_inconsistent.csv"], flipped,
            files["memnet_inconsistent.csv"], "--output", str(tmp_path / "q2.csv")]
    assert q2.main(argv) == 2
    assert capsys.readouterr().err.strip() == (
        f"q2: error: {cross}: the label column does not point one way: the consistent files' responses carry '0' 1, "
        "'1' 1, the inconsistent files' '1' 2 (want one value each, different)")
    bad = write(tmp_path / "bad.csv", ["turn", "dodeca_response"], [["1", "x"]])
    assert q2.main([bad, files["dodeca_consistent.csv"], "--output", str(tmp_path / "q2.csv")]) == 2
    assert capsys.readouterr().err.strip() == (f"q2: error: {bad}: no column knowledge, dodeca_label (its header: "
                                               "turn, dodeca_response)")
    assert not (tmp_path / "q2.csv").exists()


def test_q2_writes_trues_layout_that_evaluate_reads(q2_files, tmp_path, capsys):
    from entailgen.training.benchmarks.true import read_true

    cross, files = q2_files
    assert q2.main([cross, *files.values(), "--output", str(tmp_path / "q2.csv")]) == 0
    assert "q2: 6 rows (3 consistent, 3 inconsistent; '0' = consistent, '1' = inconsistent" in capsys.readouterr().out
    assert [r.label for r in read_true(str(tmp_path / "q2.csv"))] == [1, 0, 0, 1, 1, 0]


def test_begin_fully_attributable_is_consistent_and_an_unknown_label_is_refused(tmp_path, capsys):
    tsv = write(tmp_path / "begin_dev.tsv", ["knowledge", "response", "begin_label"],
                [[K1, "It began in New Orleans.", "Fully attributable"], [K1, "I love jazz!", "Generic"],
                 [K2, "Paris, on the Loire.", "Not fully attributable"]], delimiter="\t")
    assert [(r["generated_text"], r["label"]) for r in begin.convert([tsv])] == [
        ("It began in New Orleans.", 1), ("I love jazz!", 0), ("Paris, on the Loire.", 0)]
    odd = write(tmp_path / "odd.tsv", ["knowledge", "response", "begin_label"], [[K1, "Hm.", "maybe"]], delimiter="\t")
    assert begin.main([tsv, odd, "--output", str(tmp_path / "begin.csv")]) == 2
    assert capsys.readouterr().err.strip().startswith(f"begin: error: {odd} line 2: label 'maybe' is neither")
    assert begin.main([tsv, "--output", str(tmp_path / "begin.csv")]) == 0
    assert "begin: 3 rows (1 consistent, 2 inconsistent)" in capsys.readouterr().out
