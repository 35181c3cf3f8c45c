"""`entailgen detector` (issue 39): the documents it leaves out, a killed build resumed to the same members, a damaged
detector refused, and a detector dir used as a model by score, evaluate and the Python API."""
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from entailgen.runners import detector as det
from entailgen.runners.cli import main
from entailgen.runners.run_command import SAMPLES
from trainer_fixtures import tiny_encoder, toy_benchmark  # noqa: F401 (tiny_encoder: a fixture)

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
    documents = det.read_inputs([str(docs)], [str(bench_file(tmp_path / "bench.jsonl"))])
    assert {k: documents.counts[k] for k in ("read", "dead_letters", "excluded", "kept", "excluded_ids")} == {
        "read": 5, "dead_letters": 1, "excluded": 2, "kept": 2, "excluded_ids": ["respaced", "cut-off"]}
    assert [json.loads(line)["id"] for line in documents.lines["docs.jsonl"]] == ["lead-only", "val-cut"]
    assert [json.loads(d)["source_id"] for d in documents.dead_letters] == ["docs.jsonl:5"]  # the user's file, line


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
    real = det.run_stage

    def killed_at_the_dae_member(stage, quiet):
        if stage.command[0] == "train" and stage.target.endswith("dae-arcs"):
            partial = Path(stage.target).parent / ".dae-arcs.entailgen-partial"
            partial.mkdir(parents=True)
            (partial / ".entailgen-run").write_text('{"kind": "model dir"}')  # what a SIGKILL mid-training leaves
            raise KeyboardInterrupt
        return real(stage, quiet)

    monkeypatch.setattr(det, "run_stage", killed_at_the_dae_member)
    assert main(build(tmp_path, tiny_encoder, "d")) == 130
    building = tmp_path / ".d.entailgen-partial"
    assert (building / "members" / "claims-source" / "train.json").is_file() and not (tmp_path / "d").exists()
    claims_weights = sha(building / "members" / "claims-source" / "model.safetensors")
    monkeypatch.setattr(det, "run_stage", real)
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
    assert meta["excluded_documents"]["count"] == 0 and meta["documents"] == {
        "read": 6, "dead_letters": 0, "repeated": 0, "excluded": 0, "kept": 6}


def test_another_recipe_starts_over_rather_than_mixing_stages(tmp_path, tiny_encoder, monkeypatch, capsys):  # noqa
    monkeypatch.setattr(det, "run_stage", lambda *a: (_ for _ in ()).throw(KeyboardInterrupt))
    assert main(build(tmp_path, tiny_encoder, "d")) == 130
    assert main(build(tmp_path, tiny_encoder, "d", "--seed", "1")) == 130
    assert "starting over" in capsys.readouterr().err


def test_members_dae_builds_the_dae_arc_member_alone_the_same_as_the_full_builds(tmp_path, tiny_encoder, clean,  # noqa
                                                                                    capsys):
    """The DAE stages take no input from the claims ones (the sentences are drawn from the kept documents, seeded), so
    the member alone is byte-identical to the full build's, and the detector scores words by its arcs."""
    from entailgen.training import Detector

    assert main(build(tmp_path, tiny_encoder, "d", "--members", "dae")) == 0
    said = capsys.readouterr().err
    assert [line.split(" ...")[0] for line in said.splitlines() if "detector: stage" in line] == [
        "detector: stage 1/3 paraphrase dataset", "detector: stage 2/3 dae dataset", "detector: stage 3/3 dae member"]
    d = tmp_path / "d"
    assert sha(d / "members" / "dae-arcs" / "model.safetensors") == sha(
        clean / "members" / "dae-arcs" / "model.safetensors")
    meta = json.loads((d / "detector.json").read_text())
    assert [m["dir"] for m in meta["members"]] == ["members/dae-arcs"] and meta["recipe"]["members"] == ["dae"]
    assert not (d / "datasets" / "claims").exists() and not (d / "members" / "claims-source").exists()
    explained = Detector(str(d)).explain("The dog chases the cat in the park.", "The dog chases the cat.")
    assert [w.text for w in explained.words] == ["The", "dog", "chases", "the", "cat."]
    assert any(w.arcs for w in explained.words)  # the DAE member's arcs behind the words


@pytest.mark.parametrize("flags, said", [
    (["--members", "nli"], "--members: one or both of claims, dae, each once; got nli"),
    (["--members", "dae", "dae"], "--members: one or both of claims, dae, each once; got dae dae"),
    (["--members", "dae", "--conv"], "--conv fits a head on the claims member: --members must name claims")])
def test_bad_members_are_one_line(tmp_path, flags, said, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["detector", "--input", str(SAMPLES / "documents.jsonl"), "--output", "out", *flags]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and not Path("out").exists()


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
    toy = toy_benchmark(tmp_path / "toy.jsonl")
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
    (["--exclude-documents", "."], "--exclude-documents . is a folder; give its files (e.g. ./*.json): it reads "
     "SummaC benchmark files"),  # a folder that exists: not 'no such file'
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


# -- issue 55 ----------------------------------------------------------------------------------------------------------

def detector_copy(clean: Path, d: Path) -> Path:
    shutil.copytree(clean, d, ignore=shutil.ignore_patterns("eval"))  # the other tests evaluate into clean/eval
    return d


def test_overwrite_replaces_a_detector_dir_only_in_the_files_its_build_wrote(tmp_path, clean, capsys):
    from entailgen.dataset.output import DETECTOR, check_output

    d = detector_copy(clean, tmp_path / "d")
    check_output(str(d), DETECTOR, overwrite=True)  # every file of a finished build is its own: replaced
    argv = ["detector", "--input", str(SAMPLES / "documents.jsonl"), "--output", str(d), "--overwrite"]
    (d / "my_notes.txt").write_text("mine")
    assert main(argv) == 2
    assert capsys.readouterr().err == (f"entailgen: error: --overwrite would delete {d}/my_notes.txt, which entailgen "
                                       f"did not write as the detector dir {d}; move it out first (entailgen deletes "
                                       "only its own files)\n")
    (d / "my_notes.txt").unlink()
    (d / "members" / "dae-arcs" / "eval").mkdir()
    (d / "members" / "dae-arcs" / "eval" / "benchmark-summac.toy.json").write_text("{}")
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith(f"entailgen: error: --overwrite would delete {d}/members/dae-arcs/eval/"
                                              "benchmark-summac.toy.json, an evaluation of the model it replaces;")
    assert (d / "members" / "dae-arcs" / "eval" / "benchmark-summac.toy.json").read_text() == "{}"


def test_an_interrupted_detector_build_is_left_for_a_detector_to_resume(tmp_path, tiny_encoder, clean,  # noqa: F811
                                                                        monkeypatch, capsys):
    monkeypatch.setattr(det, "run_stage", lambda *a: (_ for _ in ()).throw(KeyboardInterrupt))
    assert main(build(tmp_path, tiny_encoder, "d")) == 130
    building = tmp_path / ".d.entailgen-partial"
    kept = sorted(p.relative_to(building) for p in building.rglob("*"))
    capsys.readouterr()
    corpus = tmp_path / "c.txt"
    corpus.write_text("The cat sat on the mat.\n")
    for argv in (["run", "parse", "--input", str(corpus), "--output", str(tmp_path / "d")],
                 ["train", str(clean / "datasets" / "claims"), "--output", str(tmp_path / "d"), "--overwrite"]):
        assert main(argv) == 2
        assert capsys.readouterr().err == (
            f"entailgen: error: {building} holds an interrupted build of an entailgen detector dir, which a rerun of "
            f"that build resumes; write the {'parse dataset' if argv[0] == 'run' else 'model dir'} somewhere else (or "
            f"delete {building} to give that build up)\n")
    assert sorted(p.relative_to(building) for p in building.rglob("*")) == kept
    assert main(build(tmp_path, tiny_encoder, "d")) == 130  # the detector itself goes on with it
    assert "resuming the interrupted build" in capsys.readouterr().err


def test_ctrl_c_in_a_stage_is_said_once(tmp_path, tiny_encoder, monkeypatch, capsys):  # noqa: F811
    from entailgen.runners import run_command

    stopped = lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt)  # noqa: E731
    monkeypatch.setattr(run_command, "build_dataset", stopped)  # mid `run claims`
    assert main(build(tmp_path, tiny_encoder, "d")) == 130
    assert capsys.readouterr().err.count("interrupted") == 1


def test_a_finished_detector_records_its_own_paths_not_the_build_folders(clean):
    assert not [p for p in clean.rglob("*") if p.is_file() and b"entailgen-partial" in p.read_bytes()]
    trained = json.loads((clean / "members" / "claims-source" / "train.json").read_text())
    assert trained["dataset"] == trained["datasets"][0]["path"] == str(clean / "datasets" / "claims")
    run = json.loads((clean / "datasets" / "dae" / "run.json").read_text())
    assert run["output"] == str(clean / "datasets" / "dae")
    assert run["inputs"] == [str(clean / "datasets" / "paraphrase" / "paranmt.tsv")]
    assert f"`{clean / 'datasets' / 'claims'}`" in (clean / "members" / "claims-source" / "README.md").read_text()


def test_inputs_are_read_as_run_claims_reads_them_bom_utf16_and_gzip(tmp_path):
    import codecs
    import gzip

    from entailgen.transforms.io.read import read_file

    text = (SAMPLES / "documents.jsonl").read_text(encoding="utf-8")
    (tmp_path / "bom.jsonl").write_bytes(codecs.BOM_UTF8 + text.encode("utf-8"))
    (tmp_path / "u16.jsonl").write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    (tmp_path / "docs.jsonl.gz").write_bytes(gzip.compress(text.encode("utf-8")))
    plain = det.read_inputs([str(SAMPLES / "documents.jsonl")], [])
    without_id = lambda lines: [{k: v for k, v in json.loads(x).items() if k != "id"} for x in lines]  # noqa: E731
    for name in ("bom.jsonl", "u16.jsonl", "docs.jsonl.gz"):
        documents = det.read_inputs([str(tmp_path / name)], [])
        assert {k: documents.counts[k] for k in ("read", "dead_letters", "kept", "files")} == {
            "read": 6, "dead_letters": 0, "kept": 6, "files": [name]}
        assert without_id(documents.lines[name]) == without_id(plain.lines["documents.jsonl"])
    folder = tmp_path / "build"
    det.write_inputs(str(folder), det.read_inputs([str(tmp_path / "docs.jsonl.gz")], []))
    assert (folder / "inputs" / "docs.jsonl.gz").read_bytes()[:2] == b"\x1f\x8b"  # gzip, as its name says
    assert len(list(read_file(str(folder / "inputs" / "docs.jsonl.gz"), "documents"))) == 6


def test_repeated_documents_are_kept_once_and_said_and_a_long_one_is_a_dead_letter_of_the_users_file(tmp_path):
    rows = [{"id": "a", "text": "The harbour reopened on Monday."},
            {"id": "b", "text": "The harbour reopened on Monday."},  # a copy under another id
            {"id": "a", "text": "The mayor resigned on Friday."},  # another document under a used id
            {"id": "c", "text": "The school closed for a week."},
            {"id": "f", "text": "The school closed for a week.", "claim": "A school closed.", "label": "CORRECT"},
            {"id": "f", "text": "The school closed for a week.", "claim": "A school opened.", "label": "INCORRECT"},
            {"id": "long", "text": "word " * 20000}]
    docs = tmp_path / "mine.jsonl"
    docs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    documents = det.read_inputs([str(docs)], [])
    assert {k: documents.counts[k] for k in ("read", "dead_letters", "repeated", "kept", "repeated_ids")} == {
        "read": 7, "dead_letters": 1, "repeated": 2, "kept": 4, "repeated_ids": ["b", "a"]}
    assert [json.loads(x)["id"] for x in documents.lines["mine.jsonl"]] == ["a", "c", "f", "f"]  # FactCC's claims
    dead = json.loads(documents.dead_letters[0])
    assert (dead["source_id"], dead["error_type"]) == ("mine.jsonl:7", "TooLong")
    assert det.documents_line(documents.counts, "out") == (
        "detector: 7 documents read, 1 dead letters (see out/dead_letters.jsonl once built), 2 repeated, kept once (an "
        "id given before, or a copy of a document; first: b), 0 left out (an article --exclude-documents holds out), "
        "4 kept")


def test_up_front_refusals_of_the_encoder_device_benchmark_files_and_too_few_documents(tmp_path, tiny_encoder,  # noqa
                                                                                       capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    one = tmp_path / "one.jsonl"  # a document the claims' split puts in test
    one.write_text(json.dumps({"text": "The harbour in town 0 reopened on Monday after repairs to the sea wall were "
                                       "finished by the council."}) + "\n")
    Path("q2.csv").write_text("grounding,generated_text,label\nThe dog runs.,A dog runs.,1\n")
    for flags, said in [
            (["--encoder", str(tmp_path / "nope")], f"encoder dir not found: {tmp_path / 'nope'}"),
            (["--encoder", str(tiny_encoder), "--device", "gpu"], "--device gpu: not a device (cpu, cuda, cuda:N or "
                                                                  "auto)"),
            (["--encoder", str(tiny_encoder), "--exclude-documents", "q2.csv"],
             "--exclude-documents reads SummaC benchmark files (the SummaC repository's data/<set>.json, or JSON "
             "Lines of document, claim, label, cut) and spans articles (JSON Lines of bbcid, document): q2.csv: bad "
             "JSON"),
            (["--encoder", str(tiny_encoder), "--input", str(one)],
             "detector: none of the 1 documents kept falls in the train split (the claims are split train 90 % / dev "
             "5 % / test 5 % by document, a hash of its text); at least one must: give more documents")]:
        argv = ["detector", "--input", str(SAMPLES / "documents.jsonl"), "--output", "out", *flags]
        if "--input" in flags:
            argv[1:3] = []
        assert main(argv) == 2
        said_lines = capsys.readouterr().err.splitlines()  # the documents' counts, then the refusal
        assert said_lines[-1].startswith("entailgen: error: ") and said in said_lines[-1] and len(said_lines) <= 2
        assert sorted(p.name for p in tmp_path.iterdir()) == ["one.jsonl", "q2.csv"]  # no build folder left


def test_a_detector_with_a_conv_head_scores_its_claims_member_by_it(tmp_path, clean, capsys):
    """`detector --conv`'s head (here fit as its stage fits it) is used by `score DET`, `evaluate DET` and Detector,
    and said; the members' ZS join (the head unused) gives another score."""
    import pyarrow.dataset as ds

    from entailgen.training import Detector
    from entailgen.training.scoring.document_scorer import DocumentScorer, EnsembleScorer, joined, score_of
    from entailgen.training.scoring.summac import BINS, model_checksums, save_conv, train_conv

    det = tmp_path / "det"
    detector_copy(clean, det)  # without the eval reports other tests write into clean
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
    by_arcs = Detector(str(det), evidence="arcs")  # the default by name: the head reads its block matrix still
    assert by_arcs.heads[str(claims)] == str(conv) and by_arcs.score_many([row]) == [scored["score"]]
    assert [m.evidence_mode for m in by_arcs.members] == ["block", "arcs"]
    assert Detector(str(det), evidence="chunks").heads == {str(claims): None, str(dae): None}  # passages: no matrix
    toy = toy_benchmark(tmp_path / "toy.jsonl")
    assert main(["evaluate", str(det), "--benchmark", "summac", str(toy)]) == 0
    assert f"{det}: its members score each row: claims-source by its Conv head" in capsys.readouterr().err
    saved = json.loads((det / "eval" / "benchmark-summac.toy.json").read_text())
    assert saved["model"]["members"] == "claims-source by its Conv head (claims-source.conv), dae-arcs by ZS"
    assert "-conv-" in saved["model"]["score_caches"][0] and "-conv-" not in saved["model"]["score_caches"][1]
