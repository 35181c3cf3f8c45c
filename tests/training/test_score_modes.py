"""The seed's inference (With a Little Push, Steen et al. 2023): e-c = P(entailed) - P(contradicted) on a 3-way model,
refused on a 2-way one; Monte Carlo dropout, N seeded passes with the dropout modules on, averaged; both recorded in the
score cache's key, the evaluation json and the card. On tiny models built from a config in a temp dir."""
import json

import pytest
import torch

from entailgen.runners.cli import main
from entailgen.training.scoring.cache import cache_name
from entailgen.training.fitting.checkpoint import load_meta, load_trained
from entailgen.training.scoring.document_scorer import DocumentScorer
from entailgen.training.scoring.score_modes import ScoreMode, score_of
from entailgen.training.scoring.scorers import DaeScorer, PairScorer
from floats import close
from trainer_fixtures import tiny_pair_model, train_tiny_dae

torch.set_num_threads(1)
PAIRS = [("the man likes a park", "a dog sees"), ("a cat sees a park", "the cat chases a dog"),
         ("a woman", "the man likes a park")]


@pytest.fixture(scope="module")
def three_way(tiny_encoder, tmp_path_factory):
    return tiny_pair_model(tmp_path_factory.mktemp("three"), tiny_encoder, True)


@pytest.fixture(scope="module")
def two_way(tiny_encoder, tmp_path_factory):
    return tiny_pair_model(tmp_path_factory.mktemp("two"), tiny_encoder, False)


def own_probabilities(model_dir, pairs):
    """The model's class probabilities of each pair, one eval pass, computed here without the scorer."""
    from transformers import AutoTokenizer

    model, _, meta = load_trained(str(model_dir))
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    with torch.no_grad():
        return meta["labels"], [model(**tokenizer(p, h, return_tensors="pt")).softmax(-1)[0] for p, h in pairs]


def test_e_c_is_p_entailed_minus_p_contradicted_on_the_unit_scale(three_way):
    labels, probs = own_probabilities(three_way, PAIRS)
    assert labels == ["entailment", "neutral", "contradiction"]
    got = PairScorer(str(three_way), precision="fp32", score="e-c").score_many(PAIRS)
    for p, score in zip(probs, got):
        assert score == pytest.approx((1 + float(p[0]) - float(p[2])) / 2, abs=1e-6)
    e = PairScorer(str(three_way), precision="fp32").score_many(PAIRS)
    assert e == pytest.approx([float(p[0]) for p in probs], abs=1e-6)  # e: P(entailed), rounded to 6 digits
    # worked by hand: P = (0.5, 0.2, 0.3) -> e 0.5, e-c (1 + 0.5 - 0.3) / 2 = 0.6; P(c) = 1: the lowest, 0.0
    assert score_of([0.5, 0.2, 0.3], 0, 2, ScoreMode("e-c")) == pytest.approx(0.6)
    assert score_of([0.5, 0.2, 0.3], 0, 2, ScoreMode()) == 0.5
    assert score_of([0.0, 0.0, 1.0], 0, 2, ScoreMode("e-c")) == 0.0


def test_mc_dropout_off_is_the_plain_score_and_n_passes_are_seeded_and_deterministic(three_way):
    plain = PairScorer(str(three_way), precision="fp32").score_many(PAIRS)
    assert PairScorer(str(three_way), precision="fp32", mc_dropout=0).score_many(PAIRS) == plain
    scorer = PairScorer(str(three_way), precision="fp32", mc_dropout=5)
    before = torch.get_rng_state()
    first = scorer.score_many(PAIRS)
    assert torch.equal(torch.get_rng_state(), before)  # the caller's random state is left as it was
    assert all(not m.training for m in scorer.model.modules())  # dropout back off after the passes
    again = PairScorer(str(three_way), precision="fp32", mc_dropout=5).score_many(PAIRS)
    assert first == scorer.score_many(PAIRS) == again
    assert first != plain  # the tiny BERT's hidden dropout (0.1) is on for the passes
    assert PairScorer(str(three_way), precision="fp32", mc_dropout=5, seed=1).score_many(PAIRS) != first
    for m in scorer.model.modules():  # with dropout p = 0 the passes are the plain pass: nothing else turned on
        if isinstance(m, torch.nn.Dropout):
            m.p = 0.0
    assert scorer.score_many(PAIRS) == pytest.approx(plain, abs=2e-6)


def test_mc_dropout_on_a_dae_model_and_documents(tiny_encoder, three_way, tmp_path):
    dae = train_tiny_dae(tmp_path, tiny_encoder)
    pair = [("the dog sees the cat", "the dog sees the cat")]
    plain = DaeScorer(str(dae), precision="fp32").score_many(pair)[0]["score"]
    twice = [DaeScorer(str(dae), precision="fp32", mc_dropout=3).score_many(pair)[0]["score"] for _ in range(2)]
    assert twice[0] == twice[1] != plain
    row = [("The man likes a park. A cat sees a park.", "A dog sees. The cat chases a dog.")]
    e_c = DocumentScorer(str(three_way), score="e-c", precision="fp32").scored(row)[0]
    blocks, sentences = ("The man likes a park.", "A cat sees a park."), ("A dog sees.", "The cat chases a dog.")
    cells = PairScorer(str(three_way), precision="fp32", score="e-c").score_many(
        [(b, s) for b in blocks for s in sentences])
    assert e_c["matrix"] == [cells[:2], cells[2:]] and e_c["score"] == pytest.approx((max(cells[0], cells[2])
                                                                                      + max(cells[1], cells[3])) / 2)


def test_e_c_on_a_two_way_or_dae_model_is_refused_in_one_line(two_way, tiny_encoder, tmp_path, capsys):
    with pytest.raises(ValueError, match=r"--score e-c needs a 3-way pair model \(entailment, neutral, contradiction\)"
                                         r"; .* is a pair model with labels entailed, not-entailed"):
        PairScorer(str(two_way), score="e-c")
    with pytest.raises(ValueError, match="--score e-c needs a 3-way"):
        DocumentScorer(str(two_way), score="e-c")
    with pytest.raises(ValueError, match="--mc-dropout takes a number of passes"):
        ScoreMode(mc_dropout=-1)
    triples = tmp_path / "pairs.json"
    triples.write_text(json.dumps([{"article_sent": "a man likes a park", "correct_sent": "a man likes a park",
                                    "incorrect_sent": "a dog sees"}]))
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"document": "a man likes a park", "summary": "a man likes"}) + "\n")
    dae = train_tiny_dae(tmp_path / "dae", tiny_encoder)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"premise": "the dog sees the cat", "hypothesis": "the dog sees"}) + "\n")
    for argv, message in [
            (["evaluate", str(two_way), "--benchmark", "rank19", str(triples), "--score", "e-c"],
             f"--score e-c needs a 3-way pair model (entailment, neutral, contradiction); {two_way} is a pair model "
             "with labels entailed, not-entailed"),
            (["score", str(two_way), "--input", str(docs), "--documents", "--output", str(tmp_path / "o"), "--score",
              "e-c"], "--score e-c needs a 3-way pair model"),
            (["score", str(dae), "--input", str(pairs), "--output", str(tmp_path / "o"), "--score", "e-c"],
             f"{dae} is a dae arc model"),
            (["evaluate", str(two_way), "--benchmark", "rank19", str(triples), "--mc-dropout", "-2"],
             "--mc-dropout takes a number of passes from 0 to 100 (each pass is a whole forward pass of every pair), "
             "got -2"),
            (["score", str(dae), "--input", str(pairs), "--output", str(tmp_path / "o"), "--mc-dropout", "1000000000"],
             "--mc-dropout takes a number of passes from 0 to 100 (each pass is a whole forward pass of every pair), "
             "got 1000000000")]:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "o").exists()


def test_the_mode_is_in_the_cache_key_the_evaluation_json_and_the_card(three_way, tmp_path, capsys):
    names = {cache_name(three_way, mode=m) for m in (ScoreMode(), ScoreMode("e-c"), ScoreMode(mc_dropout=4),
                                                      ScoreMode("e-c", 4), ScoreMode("e-c", 4, seed=1))}
    assert len(names) == 5  # no mode is served another's scores
    assert "-e-c-mc4-seed0" in cache_name(three_way, mode=ScoreMode("e-c", 4))
    rows = [{"document": "The man likes a park. A dog chases a cat.", "claim": claim, "label": label, "cut": cut}
            for cut, claim, label in [("val", "A man likes a park.", 1), ("val", "A dog chases.", 0),
                                      ("test", "A man likes.", 1), ("test", "A cat chases a dog.", 0)]]
    path = tmp_path / "toy.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["evaluate", str(three_way), "--benchmark", "summac", str(path), "--score", "e-c",
                 "--mc-dropout", "2"]) == 0
    report = json.loads((three_way / "eval" / "benchmark-summac.toy-e-c-mc2-seed0.json").read_text())
    assert report["model"]["score_mode"] == {"score": "e-c", "mc_dropout": 2, "seed": 0}
    # --precision auto with MC dropout: torch fp32 (ONNX Runtime's graph has no dropout), cached as fp32 always was
    assert report["model"]["score_caches"][0].endswith("-e-c-mc2-seed0.json")
    card = (three_way / "README.md").read_text()
    assert "aggregation zs, precision fp32, score e-c, MC dropout 2 passes (seed 0))" in card
    out = tmp_path / "scored"
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"document": "a man likes a park", "summary": "a man likes"}) + "\n")
    capsys.readouterr()
    assert main(["score", str(three_way), "--input", str(docs), "--documents", "--output", str(out), "--score",
                 "e-c"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["score_mode"] == {"score": "e-c", "mc_dropout": 0, "seed": 0}


def test_mc_dropout_is_bounded_and_the_help_says_the_bound(capsys):
    from entailgen.runners import model_options
    from entailgen.training.scoring.score_modes import MAX_MC_DROPOUT

    assert model_options.MAX_MC_DROPOUT == MAX_MC_DROPOUT == 100  # the CLI's copy (unimported for a fast --help) agrees
    assert ScoreMode(mc_dropout=100).mc_dropout == 100
    with pytest.raises(ValueError, match=r"^--mc-dropout takes a number of passes from 0 to 100 \(each pass is a "
                                         r"whole forward pass of every pair\), got 1000000000$"):
        ScoreMode(mc_dropout=1_000_000_000)
    for command in ("score", "evaluate"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "N at most 100" in " ".join(capsys.readouterr().out.split())


def test_a_pair_model_scores_pairs_from_the_command_line_in_the_dae_layout(three_way, two_way, tmp_path, capsys):
    import pyarrow.parquet as pq

    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps({"id": f"p{i}", "premise": p, "hypothesis": h}) + "\n"
                             for i, (p, h) in enumerate(PAIRS)) + json.dumps({"id": "x", "premise": "a cat"}) + "\n")
    labels, own = own_probabilities(three_way, PAIRS)  # computed here, without the scorer
    for model, score in ((three_way, "e"), (three_way, "e-c"), (two_way, "e")):
        out = tmp_path / f"{model.parent.name}-{score}"
        assert main(["score", str(model), "--input", str(pairs), "--output", str(out), "--precision", "fp32",
                     "--score", score]) == 0
        assert capsys.readouterr().out.strip() == f"scored 3 of 4 pairs into {out}; 1 dead letters"
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["record_type"] == "ScoredPair"
        rows = {r["source_id"]: r for s in manifest["shards"] for r in pq.read_table(out / s["path"]).to_pylist()}
        expected = PairScorer(str(model), precision="fp32", score=score).scored_many(PAIRS)
        for i, want in enumerate(expected):  # the job batches the pairs as Beam bundles them: equal to float rounding
            row = rows[f"p{i}"]
            assert (row["premise"], row["hypothesis"], row["hypothesis_tokens"], row["arcs"]) == (*PAIRS[i], [], [])
            assert row["score"] == pytest.approx(want["score"], abs=2e-6)
            assert row["probabilities"] == close([{"label": k, "probability": v}
                                                  for k, v in want["probabilities"].items()])
            if model == three_way:  # the three probabilities, and e-c = (1 + P(e) - P(c)) / 2, as computed here
                assert [p["label"] for p in row["probabilities"]] == labels
                assert [p["probability"] for p in row["probabilities"]] == pytest.approx(own[i].tolist(), abs=2e-6)
                e, c = own[i][0].item(), own[i][2].item()
                assert row["score"] == pytest.approx(e if score == "e" else (1 + e - c) / 2, abs=2e-6)
            else:
                assert [p["label"] for p in row["probabilities"]] == ["entailed", "not-entailed"]


def test_rows_without_a_3way_label_are_said_and_three_way_trains_the_model_e_c_needs(tiny_encoder, tmp_path, capsys):
    """docs/scoring.md's recipe on nli-dialogue rows of which 2 (human-annotated INCORRECT claims, as in the sample
    claims) keep no 3-way label: train says so in one line and makes a 2-way model, which e-c refuses; --three-way
    trains the 3-way model without those 2 (counted), and score --score e-c scores with it."""
    from trainer_fixtures import toy_pair, write_dataset
    import dataclasses

    rows = [dataclasses.replace(toy_pair(i, True), phenomenon="claims:source") for i in range(8)]
    rows += [dataclasses.replace(toy_pair(i, False), id=f"a{i}", phenomenon="claims:annotated") for i in (1, 2)]
    data = write_dataset(tmp_path / "data", "RtePair", {"train": rows}, pipeline="nli-dialogue")
    train = ["train", str(data), "--encoder", str(tiny_encoder), "--epochs", "1", "--batch-size", "4", "--device",
             "cpu", "--quiet"]
    assert main([*train, "--output", str(tmp_path / "two")]) == 0
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "note: 2 of 10 train rows keep no 3-way label (claims:annotated 2): the model is 2-way (entailed, "
        "not-entailed), which --score e-c refuses; --three-way trains a 3-way one without them")
    assert load_meta(str(tmp_path / "two"))["labels"] == ["entailed", "not-entailed"]
    summary = json.loads((tmp_path / "two" / "train.json").read_text())
    assert summary["without_3way_label"] == {"rows": 10, "lacking": 2, "claims:annotated": 2}
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"premise": "the man sees a park", "hypothesis": "a cat sees"}) + "\n")
    score = ["score", "--input", str(pairs), "--score", "e-c", "--quiet"]
    assert main([score[0], str(tmp_path / "two"), *score[1:], "--output", str(tmp_path / "s2")]) == 2
    assert "--score e-c needs a 3-way pair model" in capsys.readouterr().err
    assert main([*train, "--output", str(tmp_path / "three"), "--three-way"]) == 0
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "note: 2 of 10 train rows keep no 3-way label (claims:annotated 2): the model is 3-way, trained without them "
        "(--three-way)")
    assert load_meta(str(tmp_path / "three"))["labels"] == ["entailment", "neutral", "contradiction"]
    counts = json.loads((tmp_path / "three" / "train.json").read_text())["counts"]["train"]
    assert counts == {"read": 10, "no_3way_label": 2, "used": 8}
    assert main([score[0], str(tmp_path / "three"), *score[1:], "--output", str(tmp_path / "s3")]) == 0
    assert json.loads((tmp_path / "s3" / "manifest.json").read_text())["counts"]["total"]["written"] == 1
