"""DaeScorer and `entailgen score`: arcs with probabilities, the mean as sentence score, every input pair accounted."""
import json

import pyarrow.parquet as pq
import pytest
import torch

from entailgen.runners.cli import main
from entailgen.training.scoring.scorers import DaeScorer, Unscorable
from trainer_fixtures import train_tiny_dae

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def dae_model(tiny_encoder, tmp_path_factory):
    return train_tiny_dae(tmp_path_factory.mktemp("score"), tiny_encoder)


def test_scorer_returns_each_arc_and_the_mean(dae_model):
    scorer = DaeScorer(str(dae_model))
    result = scorer.score("the dog sees the cat", "the dog sees the cat")
    # det arcs are left out, as in labelling: sees -nsubj-> dog, sees -dobj-> cat
    assert [(a["head"], a["child"], a["rel"], a["head_word"], a["child_word"]) for a in result["arcs"]] == [
        (2, 1, "nsubj", "sees", "dog"), (2, 4, "dobj", "sees", "cat")]
    probabilities = [a["entailed_probability"] for a in result["arcs"]]
    assert all(0.0 < p < 1.0 for p in probabilities)
    assert result["score"] == pytest.approx(sum(probabilities) / 2, abs=1e-6)
    with pytest.raises(Unscorable, match="no content arc"):  # words, but no relation labelling keeps
        scorer.score("the dog sees the cat", "Yes.")


def test_score_pipeline_accounts_for_every_pair(dae_model, tmp_path, capsys):
    lines = [{"id": "a", "premise": "the dog sees the cat", "hypothesis": "the cat sees the dog"},
             {"id": "b", "premise": "a man likes a park", "hypothesis": "the woman likes the park"},
             {"id": "c", "premise": "the dog sees the cat"},
             {"id": "d", "premise": "the dog sees the cat", "hypothesis": "?"},
             {"id": "e", "premise": "the dog sees the cat", "hypothesis": " ".join(["the dog sees the cat"] * 6)},
             {"id": "f", "premise": "the dog sees the cat", "hypothesis": "the cat \ud800 sees"},  # a lone surrogate
             {"id": "g\ud800", "premise": "the dog sees the cat", "hypothesis": "the cat sees the dog"}]
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(line) + "\n" for line in lines) + "{not json\n\n")
    assert main(["score", str(dae_model), "--input", str(pairs), "--output", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().out.strip() == f"scored 3 of 8 pairs into {tmp_path / 'out'}; 5 dead letters"
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    rows = [r for s in manifest["shards"] for r in pq.read_table(tmp_path / "out" / s["path"]).to_pylist()]
    dead = pq.read_table(tmp_path / "out" / manifest["dead_letters"]["path"]).to_pylist()
    assert sorted(r["source_id"] for r in rows) == ['"g\\ud800"', "a", "b"]  # an id with one: its JSON escape
    assert sorted((d["source_id"], d["error_type"]) for d in dead if d["source_id"] in "cdef") == [
        ("c", "MissingField"), ("d", "NoWords"), ("e", "TooLong"), ("f", "BadEncoding")]  # '?': no word to parse
    assert [d["error_type"] for d in dead if d["source_id"] not in "cdef"] == ["MalformedJson"]
    # each names its line (the blank line 9 is no row): a row without an id readable is known by its line
    named = sorted((d["source_id"], d["message"]) for d in dead if d["error_type"] in ("MalformedJson", "MissingField"))
    assert named == [("c", "line 3: no text in hypothesis"), ("pairs.jsonl:8", "line 8: Expecting property name "
                                                              "enclosed in double quotes: line 1 column 2 (char 1)")]
    assert manifest["counts"]["total"] == {"read": 8, "written": 3, "dead_letters": 5, "skipped": 0}
    from entailgen.schemas.reader import read_dataset

    scored = list(read_dataset(str(tmp_path / "out"), "scored", as_records=True))  # ScoredPair is a record type
    assert sorted(p.source_id for p in scored) == ['"g\\ud800"', "a", "b"]
    assert all(0 <= arc.entailed_probability <= 1 for p in scored for arc in p.arcs)


def test_what_a_worker_would_fail_on_is_one_line_before_the_job(dae_model, tmp_path, capsys):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"premise": "a dog sees a cat", "hypothesis": "a dog sees"}\n')
    out = ["--input", str(pairs), "--output", str(tmp_path / "out")]
    not_spacy = tmp_path / "not_spacy"
    not_spacy.mkdir()
    assert main(["score", str(dae_model), *out, "--parser-model", str(not_spacy)]) == 2
    assert capsys.readouterr().err == (f"entailgen: error: cannot load spaCy model {not_spacy}: not a spaCy pipeline "
                                       "(no config.cfg)\n")
    assert main(["score", str(dae_model), *out, "--device", "tpu"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    unfinished = tmp_path / "unfinished"
    unfinished.mkdir()
    (unfinished / "config.json").write_text((dae_model / "config.json").read_text())
    assert main(["score", str(unfinished), *out]) == 2
    assert capsys.readouterr().err == (f"entailgen: error: {unfinished} has no model.safetensors: not a model "
                                       "`entailgen train` finished\n")
    assert not (tmp_path / "out").exists()


def test_score_many_parses_each_distinct_hypothesis_once(dae_model):
    scorer = DaeScorer(str(dae_model), precision="fp32")
    seen = []
    real = scorer.parser.tokens

    class Counting:
        def tokens(self, texts):
            seen.extend(texts)
            return real(texts)

    scorer.parser = Counting()
    blocks = ["the dog sees the cat", "a man likes a park", "the woman chases the dog"]
    pairs = [(b, h) for h in ("the dog sees the cat", "the cat sees the dog") for b in blocks] + [(blocks[0], "Yes.")]
    results = scorer.score_many(pairs)
    assert seen == ["the dog sees the cat", "the cat sees the dog", "Yes."]  # 7 pairs, 3 distinct hypotheses
    # each pair alone scores as in the batch of 7, to float rounding (a batch's padding moves the last bits)
    assert [r["score"] for r in results[:6]] == pytest.approx([scorer.score(b, h)["score"] for b, h in pairs[:6]],
                                                              abs=2e-6)
    assert isinstance(results[6], Unscorable)


def test_a_score_job_in_which_every_row_is_a_dead_letter_fails_and_repeated_ids_are_reported(dae_model, tmp_path,
                                                                                             capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "premise": 2, "hypothesis": "a dog"}\n{"id": "x", "premise": "a dog", "hypothesis": "?!"}\n')
    assert main(["score", str(dae_model), "--input", str(bad), "--output", str(tmp_path / "bad")]) == 2
    captured = capsys.readouterr()
    assert captured.out.strip() == f"scored 0 of 2 pairs into {tmp_path / 'bad'}; 2 dead letters"
    # the last line: a job past 5 s (a loaded machine, or the model's ONNX graph built on its first load) writes
    # progress lines before it
    assert captured.err.strip().splitlines()[-1] == (
        f"entailgen: error: every one of the 2 pairs became a dead letter (their reasons: read:NoWords, read:NotText); "
        f"see {tmp_path / 'bad'}")
    assert (tmp_path / "bad" / "manifest.json").is_file()  # the dead letters say which rows and why
    documents = tmp_path / "documents.jsonl"  # rows of the other layout: the refusal says how to score them
    documents.write_text('{"id": "d", "document": "The dog sees the cat.", "summary": "The dog sees."}\n')
    assert main(["score", str(dae_model), "--input", str(documents), "--output", str(tmp_path / "docs")]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "entailgen: error: every one of the 1 pairs became a dead letter (their reasons: read:MissingField); pairs are "
        "read from rows of premise and hypothesis; rows of document and summary are scored with --documents; see "
        f"{tmp_path / 'docs'}")
    assert main(["score", str(dae_model), "--input", str(bad), "--output", str(tmp_path / "pd"), "--documents"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "entailgen: error: every one of the 2 documents became a dead letter (their reasons: read:MissingField); "
        "documents are read from rows of document and summary; rows of premise and hypothesis are scored without "
        f"--documents; see {tmp_path / 'pd'}")
    texts = tmp_path / "texts.jsonl"  # rows of neither layout: the refusal names the layout read, not only the other
    texts.write_text('{"id": "t", "text": "The dog sees the cat."}\n')
    assert main(["score", str(dae_model), "--input", str(texts), "--output", str(tmp_path / "t"), "--documents"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "entailgen: error: every one of the 1 documents became a dead letter (their reasons: read:MissingField); "
        "documents are read from rows of document and summary; rows of premise and hypothesis are scored without "
        f"--documents; see {tmp_path / 't'}")
    pairs = tmp_path / "pairs.jsonl"
    row = {"id": "a", "premise": "the dog sees the cat", "hypothesis": "the cat sees the dog"}
    pairs.write_text("".join(json.dumps(r) + "\n" for r in (row, {**row, "hypothesis": "the dog sees the cat"},
                                                           {**row, "id": "b"}, {**row, "id": "c", "hypothesis": "?"},
                                                           {**row, "id": "c"})))
    assert main(["score", str(dae_model), "--input", str(pairs), "--output", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().out.strip() == (f"scored 4 of 5 pairs into {tmp_path / 'out'}; 1 dead letters; 2 ids "
                                               "given to more than one row (first: a)")
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["counts"]["repeated_ids"] == {"a": 2, "c": 2}  # a dead letter's id counts too
