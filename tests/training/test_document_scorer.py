"""Document-level scoring (SummaC §3): blocks x summary sentences worked by hand with a stub model, ZS, the Conv
head's histogram and a toy rule it learns, PairScorer against the model's own forward pass, train-conv and
`score --documents` end to end."""
import json
import random
import shutil

import pytest
import torch

from entailgen.runners.cli import main
from entailgen.schemas.reader import read_dataset
from entailgen.schemas.records import ClaimExample
from entailgen.training.scoring.document_scorer import DocumentScorer, EnsembleScorer, joined, truecased
from entailgen.training.scoring.scorers import PairScorer, Unscorable
from entailgen.training.scoring.summac import (column_histogram, conv_scores, ensemble_score, load_conv, save_conv,
                                               train_conv, zs_score)
from entailgen.transforms.parser import ParserConfig
from trainer_fixtures import train_pair_model, write_dataset

torch.set_num_threads(1)
DOCUMENT = "The cat sat on the mat. It rained in Paris all day. The dog barked twice."
S1, S2, S3 = "The cat sat on the mat.", "It rained in Paris all day.", "The dog barked twice."
SUMMARY = "The cat sat. The dog barked."
T1, T2 = "The cat sat.", "The dog barked."
# P(entailed) the stub model gives each (block, summary sentence) cell
CELLS = {(S1, T1): 0.9, (S2, T1): 0.1, (S3, T1): 0.2,
         (S1, T2): 0.3, (S2, T2): 0.05, (S3, T2): 0.7,
         (DOCUMENT, T1): 0.6, (DOCUMENT, T2): 0.2,
         (f"{S1} {S2}", T1): 0.8, (f"{S2} {S3}", T1): 0.15, (f"{S1} {S2}", T2): 0.25, (f"{S2} {S3}", T2): 0.65}


def stub(pairs):
    return [CELLS[p] for p in pairs]


def test_sentence_blocks_give_the_matrix_and_zs_takes_the_best_block_then_the_mean():
    scorer = DocumentScorer(None, "sentence", pair_scores=stub)
    assert scorer.matrix(DOCUMENT, SUMMARY) == [[0.9, 0.3], [0.1, 0.05], [0.2, 0.7]]
    # ZS: max over blocks per sentence (0.9, 0.7), mean over sentences -> 0.8 (a mean over blocks would give 0.375)
    assert scorer.score_documents([(DOCUMENT, SUMMARY)]) == [0.8]


def test_a_scorer_handed_its_rows_split_never_loads_a_parser():
    """The parser loads at the first split (bench/gpu.py scores on a GPU node without spaCy): a backend that does not
    exist is only refused then."""
    scorer = DocumentScorer(None, "sentence", pair_scores=stub, parser=ParserConfig(backend="nonesuch"))
    assert scorer.split_key() == ("sentence", ParserConfig(backend="nonesuch"))
    result = scorer.scored([(DOCUMENT, SUMMARY)], split=[([S1, S2, S3], [T1, T2])])[0]
    assert (result["matrix"], result["score"]) == ([[0.9, 0.3], [0.1, 0.05], [0.2, 0.7]], 0.8)
    with pytest.raises(ValueError, match="unknown parser backend 'nonesuch'"):
        scorer.split([DOCUMENT], [SUMMARY])


def test_a_summary_in_lower_case_is_read_in_the_case_its_document_writes():
    """ "McIlroy" only begins a sentence but is more than a capital; "Van" there is only a capital, so mid-sentence
    "van" decides; "BBC", "Zyl", "Dubai" as written; "apple" and "Apple" once each mid-sentence: a tie, lower case."""
    document = "McIlroy led in Dubai. The BBC said van Zyl was second. Van Zyl thanked the crowd."
    assert truecased("mcilroy and van zyl thanked the bbc in dubai.", document) == (
        "McIlroy and van Zyl thanked the BBC in Dubai.")
    assert truecased("they like apple pie. so do we.", "Apple sells. They like apple pie and Apple phones.") == (
        "They like apple pie. So do we.")
    assert truecased("McIlroy led in dubai.", document) == "McIlroy led in dubai."  # written in case already
    assert truecased("mcilroy led.", document.lower()) == "mcilroy led."  # nothing to learn the case from
    # the scorer reads the stub's cased sentences (a cell the stub does not know would be a KeyError)
    scorer = DocumentScorer(None, "sentence", pair_scores=stub)
    assert scorer.scored([(DOCUMENT, "the cat sat. the dog barked.")])[0]["summary_sentences"] == [T1, T2]


def test_document_and_two_sentence_blocks():
    assert DocumentScorer(None, "document", pair_scores=stub).score_documents([(DOCUMENT, SUMMARY)]) == [0.4]
    two = DocumentScorer(None, "2sents", pair_scores=stub)
    assert two.matrix(DOCUMENT, SUMMARY) == [[0.8, 0.25], [0.15, 0.65]]
    assert two.score_documents([(DOCUMENT, SUMMARY)]) == [pytest.approx((0.8 + 0.65) / 2)]


def test_every_cell_of_a_call_is_scored_in_one_batch_and_an_empty_summary_is_unscorable():
    calls, parsed = [], []
    scorer = DocumentScorer(None, "sentence", pair_scores=lambda pairs: calls.append(len(pairs)) or stub(pairs))
    tokens = scorer.parser.tokens
    scorer.parser.tokens = lambda texts, **how: parsed.extend(texts) or tokens(texts, **how)
    results = scorer.score_many([(DOCUMENT, SUMMARY), (DOCUMENT, T1), (DOCUMENT, "   ")])
    assert calls == [6]  # 3 blocks x 2 sentences; the second row's cells are the first's
    assert parsed == [DOCUMENT, SUMMARY, T1]  # the document of three rows parsed once
    assert results[:2] == [0.8, 0.9] and isinstance(results[2], Unscorable)
    assert scorer.score_documents([(DOCUMENT, "")]) == [0.0]  # the benchmark's rule: predicted inconsistent


def test_a_block_too_long_or_a_sentence_without_arcs_is_left_out_not_the_whole_document():
    too_long, no_arcs = Unscorable("TooLong", "long"), Unscorable("NoArcs", "none")
    cells = {**CELLS, (S2, T1): too_long, (S2, T2): too_long}  # block S2 too long beside both sentences
    scorer = DocumentScorer(None, "sentence", pair_scores=lambda pairs: [cells[p] for p in pairs])
    # S2 left out: [[0.9, 0.3], [0.2, 0.7]]; ZS (0.9 + 0.7) / 2 as before (S2 was no sentence's best block)
    assert scorer.matrix(DOCUMENT, SUMMARY) == [[0.9, 0.3], [0.2, 0.7]]
    assert scorer.score_documents([(DOCUMENT, SUMMARY)]) == [0.8]
    # T2 has no arc to score beside any block: the summary is T1 alone, best block S1
    cells = {**CELLS, **{(b, T2): no_arcs for b in (S1, S2, S3)}}
    scorer = DocumentScorer(None, "sentence", pair_scores=lambda pairs: [cells[p] for p in pairs])
    assert scorer.scored([(DOCUMENT, SUMMARY)])[0]["summary_sentences"] == [T1]
    assert scorer.score_many([(DOCUMENT, SUMMARY)]) == [0.9]
    # nothing scorable: the row is the first cell's Unscorable (its dead letter's reason)
    scorer = DocumentScorer(None, "sentence", pair_scores=lambda pairs: [too_long for _ in pairs])
    assert scorer.score_many([(DOCUMENT, SUMMARY)]) == [too_long]


def test_zs_and_the_histogram_worked_by_hand():
    assert zs_score([[0.2, 1.0], [0.6, 0.0]]) == pytest.approx(0.8)  # (0.6 + 1.0) / 2
    counts = column_histogram([0.0, 0.05, 0.99, 1.0])  # bins of width 0.02: 0 -> 0, 0.05 -> 2, 0.99 and 1.0 -> 49
    assert len(counts) == 50 and sum(counts) == 4
    assert (counts[0], counts[2], counts[49]) == (1.0, 1.0, 2.0)


def test_an_ensemble_takes_the_mean_of_its_models_log_odds():
    # log-odds ln 9 and 0 -> mean ln 3 -> P 0.75 (a mean of the probabilities would give 0.7)
    assert ensemble_score([0.9, 0.5]) == pytest.approx(0.75)
    assert ensemble_score([0.2, 0.8]) == pytest.approx(0.5)  # ln 1/4 and ln 4 cancel
    # a model sure of an error (0.0, read as 1e-6) outweighs an unsure one: odds sqrt(1e-6) -> P about 0.001, not 0.25
    assert ensemble_score([0.0, 0.5]) == pytest.approx(0.001, abs=1e-5)
    assert ensemble_score([0.37]) == pytest.approx(0.37)


def test_an_ensemble_joins_each_sentence_and_the_row_over_the_models_that_scored_them():
    # the stub model (ZS 0.8, sentences 0.9 and 0.7) beside a model unsure of everything (0.5 per cell)
    unsure = DocumentScorer(None, "sentence", pair_scores=lambda pairs: [0.5 for _ in pairs])
    unsure.split = lambda documents, summaries: pytest.fail("rows split alike are parsed once for the ensemble")
    ensemble = EnsembleScorer([DocumentScorer(None, "sentence", pair_scores=stub), unsure])
    # 0.9 with 0.5 -> odds sqrt(9) -> 0.75; 0.7 with 0.5 -> odds sqrt(7/3) -> 0.604356; 0.8 with 0.5 -> 2/3
    assert ensemble.scored([(DOCUMENT, SUMMARY)]) == [{"blocks": 3, "summary_sentences": [T1, T2],
                                                       "sentence_scores": [0.75, 0.604356], "score": 0.666667}]
    assert ensemble.score_documents([(DOCUMENT, SUMMARY)]) == [0.666667]
    # a sentence only one model kept keeps its score; the row: 0.7 with 0.8 -> odds sqrt(28 / 3) -> 0.753394
    only_t2 = {"blocks": 2, "summary_sentences": [T2], "sentence_scores": [0.8], "score": 0.8}
    both = {"blocks": 3, "summary_sentences": [T1, T2], "sentence_scores": [0.9, 0.5], "score": 0.7}
    no_arcs, too_long = Unscorable("NoArcs", "none"), Unscorable("TooLong", "long")
    assert joined([no_arcs, both, only_t2]) == {
        "blocks": 3, "summary_sentences": [T1, T2], "sentence_scores": [0.9, 0.666667], "score": 0.753394}
    assert joined([no_arcs, too_long]) is no_arcs  # no model could: the first model's reason


def toy_rows(n: int, seed: int):
    """Matrices of 3-12 blocks x 1 sentence; consistent iff some block scores above 0.8."""
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        column = [rng.uniform(0.0, 0.75) for _ in range(rng.randint(3, 12))]
        label = rng.random() < 0.5
        if label:
            column[rng.randrange(len(column))] = rng.uniform(0.85, 1.0)
        rows.append(([[c] for c in column], int(label)))
    return rows


def test_the_conv_head_learns_a_toy_rule_and_round_trips(tmp_path):
    train_rows, dev_rows = toy_rows(200, 0), toy_rows(100, 1)
    head = train_conv([m for m, _ in train_rows], [y for _, y in train_rows], seed=0)
    scores = conv_scores(head, [m for m, _ in dev_rows])
    accuracy = sum((s > 0.5) == bool(y) for s, (_, y) in zip(scores, dev_rows)) / len(dev_rows)
    assert accuracy >= 0.9
    save_conv(str(tmp_path / "conv"), head, {"bins": 50, "granularity": "sentence", "model_checksums": ""})
    loaded, meta = load_conv(str(tmp_path / "conv"))
    assert conv_scores(loaded, [m for m, _ in dev_rows]) == scores and meta["bins"] == 50
    with pytest.raises(ValueError, match="both labels"):
        train_conv([[[0.1]], [[0.2]]], [1, 1])


@pytest.fixture(scope="module")
def pair_model(tmp_path_factory, tiny_encoder):
    return train_pair_model(tmp_path_factory.mktemp("pair"), tiny_encoder)


@pytest.fixture(scope="module")
def other_pair_model(tmp_path_factory, tiny_encoder):
    """The same recipe from another seed: other weights, so an ensemble of the two is not a no-op."""
    return train_pair_model(tmp_path_factory.mktemp("pair-seed-1"), tiny_encoder, seed=1)


def test_pair_scorer_gives_the_models_own_p_entailed(pair_model):
    from transformers import AutoTokenizer

    from entailgen.training.fitting.checkpoint import load_trained

    pairs = [("the man likes a park", "a man likes"), ("a dog", "the cat sees a dog")]
    got = PairScorer(str(pair_model), precision="fp32").score_many(pairs)  # int8: test_speed.py
    model, _, meta = load_trained(str(pair_model))
    tokenizer = AutoTokenizer.from_pretrained(str(pair_model))
    with torch.no_grad():
        for (premise, hypothesis), p in zip(pairs, got):
            enc = tokenizer(premise, hypothesis, return_tensors="pt")
            probs = model(**enc).softmax(-1)[0]
            assert p == pytest.approx(float(probs[meta["labels"].index("entailed")]), abs=1e-6)
    assert 0.0 <= got[0] <= 1.0 and len(got) == 2


def claim_row(i: int, label: str) -> ClaimExample:
    blocks = ["the man likes a park", "a dog chases a cat"]
    claim = "a man likes a park" if label == "CORRECT" else "a woman likes a dog"
    return ClaimExample(f"c{i}", f"d{i}", " ".join(blocks), blocks, "sentence", claim, label,
                        "entailed" if label == "CORRECT" else "not-entailed", "entity_swap", blocks[0], False, False,
                        "news", f"news:{i}")


def test_train_conv_writes_a_head_tied_to_its_model_and_score_documents_runs_on_it(pair_model, other_pair_model,
                                                                                   tmp_path, capsys):
    data = write_dataset(tmp_path / "claims", "ClaimExample",
                         {"train": [claim_row(i, "CORRECT" if i % 2 else "INCORRECT") for i in range(8)],
                          "dev": [claim_row(8, "CORRECT"), claim_row(9, "INCORRECT")]}, pipeline="claims")
    conv = tmp_path / "conv"
    assert main(["train-conv", str(pair_model), str(data), "--output", str(conv), "--quiet"]) == 0
    meta = json.loads((conv / "conv.json").read_text())
    assert meta["rows"] == {"train": 8, "dev": 2} and meta["granularity"] == "sentence"
    assert meta["precision"] == "onnx-fp32"  # the scores it was fit on: --precision auto on cpu
    capsys.readouterr()  # a negative row count would cut rows off the end (rows[:-1]); 0 is all of them
    assert main(["train-conv", str(pair_model), str(data), "--output", str(tmp_path / "c2"), "--max-rows", "-1"]) == 2
    assert capsys.readouterr().err.strip() == "entailgen: error: --max-rows must be 0 (all rows) or more, got -1"
    inputs = tmp_path / "docs.jsonl"
    inputs.write_text(json.dumps({"id": "a", "document": "The man likes a park. A dog chases a cat.",
                                  "summary": "A man likes a park."}) + "\n" + "not json\n"
                      + json.dumps({"id": "b", "document": "A dog.", "summary": " "}) + "\n")
    out = tmp_path / "scored"
    assert main(["score", str(pair_model), "--input", str(inputs), "--output", str(out), "--documents",
                 "--aggregation", "conv", "--conv", str(conv), "--format", "jsonl"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["record_type"] == "ScoredDocument"
    rows = list(read_dataset(str(out), "scored"))
    assert [r["source_id"] for r in rows] == ["a"] and rows[0]["blocks"] == 2 and len(rows[0]["sentence_scores"]) == 1
    assert rows[0]["aggregation"] == "conv" and 0.0 <= rows[0]["score"] <= 1.0
    assert manifest["counts"]["total"]["read"] == 3 and manifest["counts"]["total"]["dead_letters"] == 2
    capsys.readouterr()
    # two models as an ensemble: each row's score the mean of the members' log-odds, the members in the manifest
    zs, other, ens = tmp_path / "zs", tmp_path / "other", tmp_path / "ens"
    for model, out_dir, extra in ((pair_model, zs, []), (other_pair_model, other, []),
                                  (pair_model, ens, ["--ensemble", str(other_pair_model)])):
        assert main(["score", str(model), "--input", str(inputs), "--output", str(out_dir), "--documents",
                     "--format", "jsonl", *extra]) == 0
    (one,), (two,) = list(read_dataset(str(zs), "scored")), list(read_dataset(str(other), "scored"))
    (both,) = list(read_dataset(str(ens), "scored"))
    assert both["score"] == pytest.approx(ensemble_score([one["score"], two["score"]]), abs=2e-6)
    assert one["score"] != two["score"]  # another seed, another model: the ensemble is not a no-op
    manifest = json.loads((ens / "manifest.json").read_text())
    assert manifest["config"]["documents"]["ensemble"] == [str(other_pair_model)]
    assert manifest["counts"]["total"]["dead_letters"] == 2
    capsys.readouterr()  # the runs' progress lines (printed when a run takes over 5 s, as on a loaded machine)
    copy = tmp_path / "copy"
    shutil.copytree(pair_model, copy)  # the same weights in another dir: the same model
    for extra, message in ((["--aggregation", "conv", "--conv", str(conv), "--ensemble", str(pair_model)],
                            "a Conv head belongs to one model"),
                           (["--ensemble", str(tmp_path / "missing")], "missing"),
                           (["--ensemble", str(pair_model)], f"--ensemble {pair_model} is the model {pair_model} "
                                                             "again (the same checksums)"),
                           (["--ensemble", str(other_pair_model), str(copy)], f"--ensemble {copy} is the model "
                                                                              f"{pair_model} again")):
        assert main(["score", str(pair_model), "--input", str(inputs), "--output", str(tmp_path / "x"),
                     "--documents", *extra]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
    assert main(["score", str(pair_model), "--input", str(inputs), "--output", str(tmp_path / "x"), "--documents",
                 "--conv", str(conv)]) == 2
    assert "needs --aggregation conv" in capsys.readouterr().err
    # a Conv head fit on another model's scores is refused in one line
    meta["model_checksums"] = "another model"
    (conv / "conv.json").write_text(json.dumps(meta))
    assert main(["score", str(pair_model), "--input", str(inputs), "--output", str(tmp_path / "x"), "--documents",
                 "--aggregation", "conv", "--conv", str(conv)]) == 2
    assert "was fit on the scores of another model" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def toy_benchmark(tmp_path):
    """A 4-row benchmark file: one dataset, a consistent and an inconsistent claim in each cut."""
    rows = [{"id": f"r{i}", "document": "The man likes a park. A dog chases a cat.", "cut": cut, "dataset": "toy",
             "claim": claim, "label": label}
            for i, (cut, claim, label) in enumerate([("val", "A man likes a park.", 1), ("val", "A dog chases.", 0),
                                                     ("test", "A man likes.", 1), ("test", "A cat chases a dog.", 0)])]
    path = tmp_path / "toy.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_evaluate_benchmark_runs_the_document_scorer_on_a_trained_model(pair_model, tmp_path, capsys):
    path = toy_benchmark(tmp_path)
    assert main(["evaluate", str(pair_model), "--benchmark", "summac", str(path)]) == 0
    report = json.loads((pair_model / "eval" / "benchmark-summac.toy.json").read_text())
    assert set(report["scorers"]) >= {"unigram overlap", "NER overlap"} and len(report["scorers"]) == 3
    assert report["counts"] == {"toy": {"val": {"consistent": 1, "inconsistent": 1},
                                        "test": {"consistent": 1, "inconsistent": 1}}}
    assert "SummaC-ZS (paper)" in capsys.readouterr().out


def test_evaluate_benchmark_with_an_ensemble_and_its_refusals(pair_model, other_pair_model, tmp_path, capsys):
    path = toy_benchmark(tmp_path)
    assert main(["evaluate", str(pair_model), "--benchmark", "summac", str(path), "--ensemble",
                 str(other_pair_model)]) == 0
    report = json.loads((pair_model / "eval" / "benchmark-summac.toy-with-model.json").read_text())
    assert set(report["scorers"]["entailgen ensemble (2 models)"]["per_dataset"]) == {"toy"}
    assert report["model"]["ensemble"] == [str(pair_model), str(other_pair_model)]
    card = (pair_model / "README.md").read_text()
    assert f"ensemble of {pair_model}, {other_pair_model})" in card and "| entailgen ensemble (2 models) |" in card
    capsys.readouterr()
    for argv, message in [
            (["--benchmark", "summac", str(path), "--ensemble", str(pair_model), "--aggregation", "conv", "--conv",
              str(tmp_path)], "a Conv head belongs to one model"),
            (["--benchmark", "summac", str(path), "--ensemble", str(tmp_path / "missing")], "missing"),
            (["--benchmark", "summac", str(path), "--ensemble", str(pair_model)], "again (the same checksums)"),
            ([str(path), "--ensemble", str(pair_model)], "are for --benchmark")]:
        assert main(["evaluate", str(pair_model), *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_train_conv_without_dev_rows_of_both_labels_is_refused_before_any_scoring(pair_model, tmp_path, capsys):
    train_rows = [claim_row(i, "CORRECT" if i % 2 else "INCORRECT") for i in range(4)]
    for name, splits, dev_rows in (("no-dev", {"train": train_rows}, 0),
                                   ("one-label", {"train": train_rows, "dev": [claim_row(9, "CORRECT")]}, 1)):
        data = write_dataset(tmp_path / name, "ClaimExample", splits, pipeline="claims")
        assert main(["train-conv", str(pair_model), str(data), "--output", str(tmp_path / "conv"), "--quiet"]) == 2
        assert capsys.readouterr().err.strip() == (
            f"entailgen: error: {data} has {dev_rows} document rows in its dev split, not rows of both labels to "
            "measure a Conv head on; build the claims dataset with a dev split (run claims --splits "
            "train=0.8,dev=0.1,test=0.1)")
    one_label = write_dataset(tmp_path / "one", "ClaimExample", {"train": [claim_row(i, "CORRECT") for i in range(3)],
                                                                "dev": [claim_row(8, "CORRECT"),
                                                                        claim_row(9, "INCORRECT")]}, pipeline="claims")
    assert main(["train-conv", str(pair_model), str(one_label), "--output", str(tmp_path / "conv"), "--quiet"]) == 2
    assert capsys.readouterr().err.strip() == (f"entailgen: error: all 3 document rows of {one_label}'s train split "
                                               "have one label; a Conv head learns from consistent and inconsistent "
                                               "rows")
    assert not (tmp_path / "conv").exists()
