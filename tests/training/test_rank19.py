"""Summary reranking (DAE paper, Table 4): accuracy with ties worked by hand, the paper's rule-based dependency score
against word overlap on a swapped sentence, and `evaluate --benchmark rank19` end to end on a tiny DAE model."""
import json
import re

import pytest

from entailgen.runners.cli import main
from entailgen.training.benchmarks.baselines import dependency_overlap_scores, unigram_overlap_scores
from entailgen.training.benchmarks.metrics import accuracy_interval
from entailgen.training.benchmarks.rank19 import DEPENDENCY, UNIGRAM, Triple, evaluate_rank19, outcomes, read_triples
from entailgen.transforms.parser import Parser, ParserConfig
from trainer_fixtures import train_tiny_dae

SOURCE = "The cat sat on the mat."
SWAPPED = "The mat sat on the cat."  # the source's words, its structure broken: what the triples' errors look like


def test_a_tie_counts_half_or_is_drawn_with_a_fixed_seed():
    assert outcomes([0.9, 0.5, 0.2], [0.1, 0.5, 0.3]) == [1.0, 0.5, 0.0]
    # random.Random(0) draws 0.844, 0.758, 0.421, 0.259: below 0.5 the correct sentence wins the tie
    assert outcomes([0.5] * 4, [0.5] * 4, ties="random") == [0.0, 0.0, 1.0, 1.0]
    assert outcomes([0.5] * 4, [0.5] * 4, ties="random") == outcomes([0.5] * 4, [0.5] * 4, ties="random", seed=0)
    assert accuracy_interval([1.0, 0.0, 1.0, 1.0])[0] == 75.0


def test_the_rule_based_score_sees_the_swap_that_word_overlap_misses():
    pairs = [(SOURCE, "The cat sat."), (SOURCE, SWAPPED)]
    # "The cat sat.": sit -nsubj-> cat is the source's arc (1/1); the swap's sit -nsubj-> mat and the collapsed
    # sit -prep:on-> cat are not (0/2). Overlap: every content word of both is in the source.
    assert dependency_overlap_scores(pairs, Parser(ParserConfig())) == [1.0, 0.0]
    assert unigram_overlap_scores(pairs) == [1.0, 1.0]
    report = evaluate_rank19([Triple("t", SOURCE, "The cat sat.", SWAPPED)],
                             {UNIGRAM: unigram_overlap_scores,
                              DEPENDENCY: lambda p: dependency_overlap_scores(p, Parser(ParserConfig()))},
                             ties={DEPENDENCY: "random"})
    assert report["scorers"][UNIGRAM] == {"accuracy": 50.0, "interval": [50.0, 50.0], "ties": 1, "unscorable": 0}
    assert report["scorers"][DEPENDENCY] == {"accuracy": 100.0, "interval": [100.0, 100.0], "ties": 0,
                                            "unscorable": 0}
    assert report["paper"]["DAE (paper)"] == 83.6 and report["paper"]["rule-based dependency (paper)"] == 74.8


def test_the_triples_file_is_read_in_either_layout_and_a_bad_row_is_one_line(tmp_path):
    rows = [{"article_sent": SOURCE, "correct_sent": "The cat sat.", "incorrect_sent": SWAPPED}]
    listed, lines = tmp_path / "summary_pairs.json", tmp_path / "pairs.jsonl"
    listed.write_text(json.dumps(rows))
    lines.write_text(json.dumps({**rows[0], "id": "a"}) + "\n")
    assert read_triples(str(listed)) == [Triple("0", SOURCE, "The cat sat.", SWAPPED, f"{listed} row 1")]
    assert read_triples(str(lines)) == [Triple("a", SOURCE, "The cat sat.", SWAPPED, f"{lines} row 1")]
    listed.write_text(json.dumps([{"article_sent": SOURCE, "correct_sent": " "}]))
    with pytest.raises(ValueError, match=r"row 1: no text in correct_sent, incorrect_sent \(a triple has"):
        read_triples(str(listed))


def test_evaluate_reranks_with_a_dae_model_and_writes_the_report_and_the_card(tiny_encoder, tmp_path, capsys):
    model = train_tiny_dae(tmp_path, tiny_encoder)
    path = tmp_path / "summary_pairs.json"
    path.write_text(json.dumps([{"article_sent": "the dog sees the cat", "correct_sent": "the dog sees the cat",
                                 "incorrect_sent": "the cat sees the dog"},
                                {"article_sent": "a man likes a park", "correct_sent": "a man likes a park",
                                 "incorrect_sent": "?"}]))
    assert main(["evaluate", str(model), "--benchmark", "rank19", str(path)]) == 0
    out = capsys.readouterr().out
    assert "| DAE (paper) | 83.6 | | | |" in out
    report = json.loads((model / "eval" / "benchmark-rank19.summary_pairs.json").read_text())
    assert report["triples"] == 2 and list(report["scorers"]) == ["entailgen model", UNIGRAM, DEPENDENCY]
    assert report["scorers"]["entailgen model"]["unscorable"] == 1  # "?": no arc to score, 0.0 as the rule says
    assert re.search(r"^\| entailgen model \| [^\n]* \| 1 \|$", out, re.M)  # the table's count of them
    card = (model / "README.md").read_text()
    assert "## The rank19 benchmark (DAE Table 4: summary reranking)" in card
    assert re.search(r"^\| entailgen model \| [^\n]* \| 1 \|$", card, re.M)
    assert main(["evaluate", str(model), "--benchmark", "rank19", str(path), str(path)]) == 2
    assert capsys.readouterr().err.strip() == ("entailgen: error: --benchmark rank19 takes one file "
                                               "(summary_pairs.json, or JSON Lines of its fields)")


def test_a_bom_a_triple_given_twice_swapped_sentences_and_a_lone_surrogate(tmp_path):
    from entailgen.training.benchmarks.files import BenchmarkError
    from entailgen.training.benchmarks.rank19 import distinct_triples, format_rank19
    from entailgen.training.scoring.unscorable import Unscorable

    row = {"article_sent": SOURCE, "correct_sent": "The cat sat.", "incorrect_sent": SWAPPED}
    listed, lines = tmp_path / "summary_pairs.json", tmp_path / "pairs.jsonl"
    listed.write_bytes(b"\xef\xbb\xbf" + json.dumps([row, row]).encode())  # a UTF-8 BOM, as a spreadsheet saves it
    lines.write_bytes(b"\xef\xbb\xbf" + json.dumps(row).encode() + b"\n")
    assert [t.where for t in read_triples(str(listed))] == [f"{listed} row 1", f"{listed} row 2"]
    assert read_triples(str(lines)) == [Triple("0", SOURCE, "The cat sat.", SWAPPED, f"{lines} row 1")]
    triples, left_out = distinct_triples(read_triples(str(listed)))  # the same comparison twice: counted once
    assert (triples, left_out) == ([Triple("0", SOURCE, "The cat sat.", SWAPPED, f"{listed} row 1")], 1)
    swapped = {**row, "correct_sent": SWAPPED, "incorrect_sent": "The cat sat."}
    listed.write_text(json.dumps([row, swapped]))
    with pytest.raises(BenchmarkError, match=f"^{listed} row 1 and {listed} row 2: the same source and sentences, "
                                             "the correct one and the incorrect one swapped; keep the right one$"):
        distinct_triples(read_triples(str(listed)))
    listed.write_text(json.dumps([row, {**row, "incorrect_sent": "The mat \ud800 sat."}]))  # a JSON escape
    with pytest.raises(BenchmarkError, match=r"^\S+ row 2: incorrect_sent holds a lone surrogate \('\\ud800' at "
                                             r"character 9\), not text a model can read$"):
        read_triples(str(listed))
    # a sentence a scorer cannot score: 0.0 and counted in the table (the model card's too), as TRUE counts them
    report = evaluate_rank19([Triple("t", SOURCE, "The cat sat.", SWAPPED)],
                             {"model": lambda pairs: [0.9, Unscorable("NoArcs", "no arc")]}, duplicates=1)
    assert report["scorers"]["model"] == {"accuracy": 100.0, "interval": [100.0, 100.0], "ties": 0, "unscorable": 1}
    printed = format_rank19(report).splitlines()
    assert printed[1:4] == ["| scorer | accuracy | 95% interval | ties | could not score (0.0) |",
                            "|---|---|---|---|---|", "| model | 100.0 | [100.0, 100.0] | 0 | 1 |"]
    assert "triples given twice (the same source and sentences), scored once: 1" in printed
