"""`entailgen detector` (issue 39): the documents it leaves out, a killed build resumed to the same members, a damaged
detector refused, and a detector dir used as a model by score, evaluate and the Python API."""
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from entailgen.runners import detector as det
from entailgen.runners.cli import SAMPLES, main
from trainer_fixtures import tiny_encoder  # noqa: F401 (a fixture)

LEAD = ("Police in Lincolnshire say a man has been arrested after a lorry crashed into a house in Spalding on "
        "Tuesday night.\n\n")
REST = ("The driver, who is 45, was treated for minor injuries. Nobody in the house was hurt, the fire service said. "
        "The road was closed for six hours while the lorry was removed and the building was checked by engineers. "
        "Residents said the bend where it happened has seen several crashes in recent years.")
ARTICLE = LEAD + REST  # a test-cut document of the benchmark file below (339 characters once normalised)
VAL = "A council in Kent has approved plans for 300 new homes on the edge of Ashford, despite objections."


def bench_file(path: Path) -> Path:
    rows = [{"dataset": "frank", "document": ARTICLE, "claim": "A lorry crashed into a house.", "label": 1,
             "cut": "test"},
            {"dataset": "xsumfaith", "document": VAL, "claim": "Homes were approved.", "label": 1, "cut": "val"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_the_same_article_re_spaced_re_cased_or_cut_off_is_left_out_and_a_shared_paragraph_is_not(tmp_path):
    docs = tmp_path / "docs.jsonl"
    units = [{"id": "respaced", "text": " ".join(ARTICLE.upper().split())},  # line breaks lost, upper case
             {"id": "cut-off", "text": ARTICLE[:380]},  # the tail cut: 310 normalised characters kept (300 needed)
             {"id": "lead-only", "text": LEAD + "The weather was fine all week, forecasters said."},
             {"id": "val-cut", "text": VAL}]  # the benchmark's val-cut documents are training text
    docs.write_text("".join(json.dumps(u) + "\n" for u in units) + "not json\n")
    out = tmp_path / "kept.jsonl"
    counts = det.kept_documents([str(docs)], [str(bench_file(tmp_path / "bench.jsonl"))], str(out))
    assert counts == {"read": 5, "excluded": 2, "kept": 3, "excluded_ids": ["respaced", "cut-off"]}
    lines = out.read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines[:2]] == ["lead-only", "val-cut"]
    assert lines[2] == "not json"  # a unit the reader refuses goes on to the claims stage, which counts it


def build(root: Path, encoder: Path, name: str, *extra: str) -> list[str]:
    return ["detector", "--input", str(SAMPLES / "documents.jsonl"), "--output", str(root / name), "--encoder",
            str(encoder), "--max-train", "60", "--sentences", "12", *extra]


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def clean(tmp_path_factory, tiny_encoder):  # noqa: F811
    root = tmp_path_factory.mktemp("detector")
    assert main(build(root, tiny_encoder, "clean", "--quiet")) == 0
    return root / "clean"


def test_a_build_killed_mid_stage_resumes_and_gives_byte_identical_members(tmp_path, tiny_encoder, clean,  # noqa
                                                                            monkeypatch, capsys):
    real = det.command

    def killed_at_the_dae_member(*argv):
        if argv[0] == "train" and argv[-1].endswith("dae-arcs"):
            partial = Path(argv[-1]).parent / ".dae-arcs.entailgen-partial"
            partial.mkdir(parents=True)
            (partial / ".entailgen-run").write_text('{"kind": "model dir"}')  # what a SIGKILL mid-training leaves
            raise KeyboardInterrupt
        return real(*argv)

    monkeypatch.setattr(det, "command", killed_at_the_dae_member)
    assert main(build(tmp_path, tiny_encoder, "d")) == 130
    building = tmp_path / ".d.entailgen-partial"
    assert (building / "members" / "claims-source" / "train.json").is_file() and not (tmp_path / "d").exists()
    claims_weights = sha(building / "members" / "claims-source" / "model.safetensors")
    monkeypatch.setattr(det, "command", real)
    capsys.readouterr()
    assert main(build(tmp_path, tiny_encoder, "d")) == 0
    said = capsys.readouterr().err
    assert said.count("done already") == 4 and "stage 5/5 dae member ..." in said
    for member in ("claims-source", "dae-arcs"):
        assert sha(tmp_path / "d" / "members" / member / "model.safetensors") == sha(
            clean / "members" / member / "model.safetensors")
    assert sha(tmp_path / "d" / "members" / "claims-source" / "model.safetensors") == claims_weights
    meta = json.loads((tmp_path / "d" / "detector.json").read_text())
    assert [m["dir"] for m in meta["members"]] == ["members/claims-source", "members/dae-arcs"]
    assert meta["excluded_documents"]["count"] == 0 and meta["documents"] == {"read": 6, "excluded": 0, "kept": 6}


def test_another_recipe_starts_over_rather_than_mixing_stages(tmp_path, tiny_encoder, monkeypatch, capsys):  # noqa
    monkeypatch.setattr(det, "command", lambda *argv: (_ for _ in ()).throw(KeyboardInterrupt))
    assert main(build(tmp_path, tiny_encoder, "d")) == 130
    assert main(build(tmp_path, tiny_encoder, "d", "--seed", "1")) == 130
    assert "starting over" in capsys.readouterr().err


def score_rows(path: Path) -> Path:
    path.write_text(json.dumps({"id": "a", "document": "The dog chases the cat in the park. A man sees it.",
                                "summary": "The dog chases the cat."}) + "\n")
    return path


def test_a_detector_dir_is_a_model_to_score_evaluate_and_the_python_api(tmp_path, clean, capsys):
    from entailgen.training import Detector

    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": "p", "premise": "The dog chases the cat.", "hypothesis": "A dog chases."}))
    assert main(["score", str(clean), "--input", str(pairs), "--output", str(tmp_path / "s1")]) == 0
    assert main(["score", str(clean), "--input", str(score_rows(tmp_path / "d.jsonl")), "--documents", "--output",
                 str(tmp_path / "s2")]) == 0
    import pyarrow.dataset as ds

    by_api = Detector(str(clean)).score_documents([("The dog chases the cat in the park. A man sees it.",
                                                     "The dog chases the cat.")])
    scored = ds.dataset(tmp_path / "s2" / "scored").to_table().to_pylist()
    assert [r["score"] for r in scored] == by_api
    toy = tmp_path / "toy.jsonl"
    toy.write_text("".join(json.dumps({"dataset": "toy", "document": d, "claim": c, "label": y, "cut": cut}) + "\n"
                           for d, c, y, cut in [("The dog chases the cat.", "The dog chases the cat.", 1, "val"),
                                                ("The dog chases the cat.", "The cat chases the dog.", 0, "val"),
                                                ("A woman likes the dog.", "A woman likes the dog.", 1, "test"),
                                                ("A woman likes the dog.", "The dog likes a man.", 0, "test")]))
    capsys.readouterr()
    assert main(["evaluate", str(clean), "--benchmark", "summac", str(toy)]) == 0
    table = capsys.readouterr().out
    assert "| entailgen detector |" in table and "| member claims-source |" in table and "| member dae-arcs |" in table
    saved = json.loads((clean / "eval" / "benchmark-summac.toy.json").read_text())
    assert saved["model"]["dir"] == str(clean) and len(saved["model"]["ensemble"]) == 2


def test_a_damaged_detector_is_refused_in_one_line(tmp_path, clean, capsys):
    d = tmp_path / "d"
    shutil.copytree(clean, d)
    weights = d / "members" / "dae-arcs" / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-1] + b"\0")
    rows = score_rows(tmp_path / "rows.jsonl")
    assert main(["score", str(d), "--input", str(rows), "--documents", "--output", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "model.safetensors differs from the sha256" in err
    shutil.rmtree(d)
    shutil.copytree(clean, d)
    meta = json.loads((d / "detector.json").read_text())
    meta["members"][0]["checksums"] = "0" * 64  # another model in its place
    (d / "detector.json").write_text(json.dumps(meta))
    assert main(["evaluate", str(d), "--benchmark", "summac", str(rows)]) == 2
    assert "not the member detector.json names" in capsys.readouterr().err
    assert main(["score", str(clean), "--input", str(rows), "--documents", "--ensemble", str(clean / "members" /
                 "dae-arcs"), "--output", str(tmp_path / "s")]) == 2
    assert "is a detector" in capsys.readouterr().err


@pytest.mark.parametrize("flags, said", [
    (["--input", "missing.jsonl"], "input not found: missing.jsonl"),
    (["--epochs", "0"], "--epochs must be at least 1, got 0"),
    (["--exclude-documents", "missing.json"], "no such file: missing.json"),
    (["--device", "cuda"], "--device cuda: no CUDA device is available"),  # said before any stage, not after them
])
def test_bad_options_are_one_line(tmp_path, flags, said, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["detector", "--input", str(SAMPLES / "documents.jsonl"), "--output", "out", *flags]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and not Path("out").exists()


def test_a_detector_is_never_built_over_another_kind_or_inside_one(tmp_path, clean, capsys):
    for output in (clean / "members" / "x", clean / "members" / "dae-arcs"):
        assert main(["detector", "--input", str(SAMPLES / "documents.jsonl"), "--output", str(output),
                     "--overwrite"]) == 2
        assert "detector dir" in capsys.readouterr().err


def test_rank19_and_true_take_a_detector_and_join_its_members_pair_scores(tmp_path, clean, capsys):
    from entailgen.training import Detector
    from entailgen.training.scoring.scorers import model_pair_scores
    from entailgen.training.scoring.summac import ensemble_score

    pair = [("The dog chases the cat in the park.", "The dog chases the cat.")]
    members = [model_pair_scores(str(clean / "members" / m))(pair)[0] for m in ("claims-source", "dae-arcs")]
    assert Detector(str(clean)).pair_scores(pair) == [ensemble_score(members)]  # the mean of the two log-odds
    triples = tmp_path / "pairs.json"
    triples.write_text(json.dumps([{"article_id": "a", "article_sent": "The dog chases the cat in the park.",
                                    "correct_sent": "The dog chases the cat.",
                                    "incorrect_sent": "The cat chases the dog."}]))
    assert main(["evaluate", str(clean), "--benchmark", "rank19", str(triples)]) == 0
    report = json.loads((clean / "eval" / "benchmark-rank19.pairs.json").read_text())
    assert list(report["scorers"])[0] == "entailgen detector"  # named as summac's table names it
    true = tmp_path / "q2.csv"
    true.write_text("grounding,generated_text,label\n"
                    "The dog chases the cat in the park.,The dog chases the cat.,1\n"
                    "The dog chases the cat in the park.,The cat chases the dog.,0\n")
    assert main(["evaluate", str(clean), "--benchmark", "true", str(true)]) == 0
    out = capsys.readouterr().out
    assert "| entailgen detector |" in out and "entailgen model" not in out


def test_a_detector_with_a_conv_head_scores_its_claims_member_by_it(tmp_path, clean, capsys):
    """`detector --conv`'s head (here fit as its stage fits it) is used by `score DET`, `evaluate DET` and Detector,
    and said; the members' ZS join (the head unused) gives another score."""
    import shutil

    import pyarrow.dataset as ds

    from entailgen.training import Detector
    from entailgen.training.scoring.document_scorer import DocumentScorer, EnsembleScorer, joined, score_of
    from entailgen.training.scoring.summac import BINS, model_checksums, save_conv, train_conv

    det = tmp_path / "det"
    shutil.copytree(clean, det)
    claims, dae, conv = det / "members" / "claims-source", det / "members" / "dae-arcs", det / "members" / \
        "claims-source.conv"
    # a head fit on the claims member's scores (the sample's 3 documents leave no dev split for train-conv's own)
    head = train_conv([[[0.9, 0.2]], [[0.8]], [[0.3, 0.1]], [[0.2]]], [1, 1, 0, 0], seed=0)
    save_conv(str(conv), head, {"bins": BINS, "model_checksums": model_checksums(str(claims))})
    meta = json.loads((det / "detector.json").read_text())
    (det / "detector.json").write_text(json.dumps({**meta, "conv": "members/claims-source.conv"}))
    row = ("The dog chases the cat in the park. A man sees it.", "The dog chases the cat.")
    capsys.readouterr()
    assert main(["score", str(det), "--input", str(score_rows(tmp_path / "d.jsonl")), "--documents", "--output",
                 str(tmp_path / "s")]) == 0
    assert capsys.readouterr().out.strip().endswith(
        "; the detector's members scored each row: claims-source by its Conv head (claims-source.conv), dae-arcs by ZS")
    (scored,) = ds.dataset(tmp_path / "s" / "scored").to_table().to_pylist()
    by_head = joined([DocumentScorer(str(claims), aggregation="conv", conv_dir=str(conv)).scored([row])[0],
                      DocumentScorer(str(dae)).scored([row])[0]])
    zs_only = EnsembleScorer([DocumentScorer(str(claims)), DocumentScorer(str(dae))]).score_many([row])[0]
    assert scored["aggregation"] == "conv+zs" and scored["score"] == score_of(by_head) != zs_only
    assert Detector(str(det)).score_many([row]) == [scored["score"]]
    assert Detector(str(det), mc_dropout=2).heads == {str(claims): None, str(dae): None}  # the head reads plain e
    toy = tmp_path / "toy.jsonl"
    toy.write_text("".join(json.dumps({"dataset": "toy", "document": d, "claim": c, "label": y, "cut": cut}) + "\n"
                           for d, c, y, cut in [("The dog chases the cat.", "The dog chases the cat.", 1, "val"),
                                                ("The dog chases the cat.", "The cat chases the dog.", 0, "val"),
                                                ("A woman likes the dog.", "A woman likes the dog.", 1, "test"),
                                                ("A woman likes the dog.", "The dog likes a man.", 0, "test")]))
    assert main(["evaluate", str(det), "--benchmark", "summac", str(toy)]) == 0
    assert f"{det}: its members score each row: claims-source by its Conv head" in capsys.readouterr().err
    saved = json.loads((det / "eval" / "benchmark-summac.toy.json").read_text())
    assert saved["model"]["members"] == "claims-source by its Conv head (claims-source.conv), dae-arcs by ZS"
    assert "-conv-" in saved["model"]["score_caches"][0] and "-conv-" not in saved["model"]["score_caches"][1]
