"""The dae family end to end: DAE Figure 3 through a candidates file, the sentence-level variant, the offline sample."""
import json
from collections import defaultdict
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from entailgen.runners.cli import main

X = "can you people guarantee the liquidation of Bluestar ?"
GOLD = "can you guarantee Bluestar's disposal ?"
H1 = "can you guarantee Bluestar's liquidation ?"
H10 = "can you guarantee liquidation Bluestar's death ?"


def rows_of(out: Path):
    manifest = json.loads((out / "manifest.json").read_text())
    rows = [r for s in manifest["shards"] for r in pq.read_table(out / s["path"]).to_pylist()]
    dead = pq.read_table(out / manifest["dead_letters"]["path"]).to_pylist()
    return manifest, rows, dead


@pytest.fixture
def figure3(tmp_path):
    """The paper's Figure 3 pair and a beam file ranking h1 first and h10 last."""
    pairs = tmp_path / "figure3.tsv"
    pairs.write_text(f"{X}\t{GOLD}\n")
    beams = tmp_path / "beams.jsonl"
    beams.write_text(json.dumps({"source_id": "figure3.tsv:1", "candidates": [H1, H10]}) + "\n")
    return pairs, beams


def run_dae(pairs, beams, out, *extra):
    assert main(["run", "dae", "--input", str(pairs), "--output", str(out), "--generator", "candidates",
                 "--candidates", str(beams), "--splits", "train=1", "--quiet", *extra]) == 0
    return rows_of(out)


def test_figure3_labels_through_the_whole_pipeline(figure3, tmp_path):
    manifest, rows, dead = run_dae(*figure3, tmp_path / "out")
    by_kind = {r["kind"]: r for r in rows}
    assert set(by_kind) == {"gold", "top1", "bottom"} and not dead
    assert {a["entailed"] for a in by_kind["gold"]["arcs"]} == {1}
    assert by_kind["top1"]["hypothesis"] == H1 and by_kind["top1"]["beam_rank"] == 1
    bottom = by_kind["bottom"]
    assert (bottom["hypothesis"], bottom["beam_rank"], bottom["premise"]) == (H10, 2, X)
    labels = {(a["head_lemma"], a["child_lemma"], a["rel"]): a["entailed"] for a in bottom["arcs"]}
    assert labels == {("guarantee", "you", "nsubj"): 1, ("bluestar", "liquidation", "compound"): 0,
                      ("death", "bluestar", "poss"): 0, ("guarantee", "death", "dobj"): 0}
    stats = manifest["stats"]["arc_labels"]
    assert stats["arcs"]["bottom"] == {"entailed": 1, "not_entailed": 3, "unlabelled": 0}


def test_sentence_level_variant(figure3, tmp_path):
    _, rows, _ = run_dae(*figure3, tmp_path / "out", "--level", "sentence")
    assert sorted((r["kind"], r["hypothesis"], r["label"]) for r in rows) == [
        ("bottom", H10, 0), ("gold", GOLD, 1), ("identity", X, 1)]


def test_dae_output_is_deterministic_across_runner_modes(figure3, tmp_path):
    cuts = ("--augment", "span_deletion,dialogue", "--span-cuts", "2")  # seeded edits, re-parsed on each worker
    _, rows, _ = run_dae(*figure3, tmp_path / "a", *cuts)
    assert sum(r["kind"] == "span_deletion" for r in rows) == 2 and sum(r["kind"] == "dialogue" for r in rows) == 1
    run_dae(*figure3, tmp_path / "b", *cuts, "--direct_running_mode=multi_processing", "--direct_num_workers=2")
    for path in (tmp_path / "a").rglob("*"):
        if path.is_file() and path.name != "run.json":
            assert path.read_bytes() == (tmp_path / "b" / path.relative_to(tmp_path / "a")).read_bytes(), path


def test_missing_candidates_file_is_a_usage_error(figure3, tmp_path, capsys):
    pairs, _ = figure3
    assert main(["run", "dae", "--input", str(pairs), "--output", str(tmp_path / "o"), "--generator", "candidates",
                 "--candidates", str(tmp_path / "nope.jsonl")]) == 2
    assert capsys.readouterr().err.strip() == f"entailgen: error: --candidates: file not found: {tmp_path / 'nope.jsonl'}"


def test_offline_sample_accounts_for_every_pair(tmp_path):
    """The README's main job: apertium round trips, MiniLM ranking, every input pair labelled or dead-lettered."""
    import shutil

    if not shutil.which("apertium"):
        pytest.skip("apertium is not installed (make setup installs it)")
    out = tmp_path / "sample"
    assert main(["run", "dae", "--sample", "--output", str(out), "--quiet"]) == 0
    manifest, rows, dead = rows_of(out)
    assert manifest["counts"]["read"] == {"paraphrase.tsv": 60, "paraphrase.jsonl": 10}
    seen = {r["source_id"] for r in rows} | {d["source_id"] for d in dead}
    assert len({r["source_id"] for r in rows if r["kind"] == "gold"}) == 70 and len(seen) == 70
    assert {r["kind"] for r in rows} == {"gold", "top1", "bottom"}
    assert all(r["generator"].startswith("apertium") for r in rows if r["kind"] != "gold")
    assert 50 < manifest["stats"]["arc_labels"]["majority_accuracy"] < 90


def test_augmentations_from_the_cli_tag_each_row_with_its_kind(tmp_path):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("The old man gave the young boy a book .\tThe old man handed the young boy a book .\n"
                     "The cat sat on the mat near the door .\tThe cat was sitting on the mat near the door .\n"
                     "Local volunteers cleaned the beach on Saturday .\tThe beach was cleaned by local volunteers .\n")
    beams = tmp_path / "beams.jsonl"
    beams.write_text(json.dumps({"source_id": "other.tsv:1", "candidates": ["a"]}) + "\n")  # an empty file is refused
    assert main(["run", "dae", "--input", str(pairs), "--output", str(tmp_path / "out"), "--generator", "candidates",
                 "--candidates", str(beams), "--splits", "train=1", "--quiet",
                 "--augment", "word_swap,synonym,hallucination,overlap,span_deletion,dialogue",
                 "--span-cuts", "2"]) == 0
    manifest, rows, dead = rows_of(tmp_path / "out")
    kinds = {r["kind"] for r in rows}
    assert {"gold", "word_swap", "hallucination", "overlap", "span_deletion", "dialogue"} <= kinds <= {
        "gold", "word_swap", "hallucination", "overlap", "synonym", "span_deletion", "dialogue"}
    cuts = {r["hypothesis"]: {(a["head_lemma"], a["child_lemma"], a["rel"]): a["entailed"] for a in r["arcs"]}
            for r in rows if r["kind"] == "span_deletion"}
    assert set(cuts) == {"The old man gave the young .", "On the mat near the door .",  # each sentence's cut 0
                         "Local volunteers cleaned Saturday .",
                         "The old man gave the young book .", "The cat sat on the the door .",  # and its cut 1
                         "Local volunteers on Saturday ."}
    assert manifest["metrics"]["span_deletion_examples"] == 6  # both cuts' counters add up
    phrased = {r["hypothesis"]: {(a["head_lemma"], a["child_lemma"], a["rel"]): a["entailed"] for a in r["arcs"]}
               for r in rows if r["kind"] == "dialogue"}
    assert set(phrased) == {"I like that! The old man gave the young boy a book .",  # one seeded phrase a sentence
                            "I am not sure, but the cat sat on the mat near the door .",
                            "yep. Also local volunteers cleaned the beach on Saturday ."}
    assert manifest["metrics"]["dialogue_examples"] == 3
    # the hedge's own arcs and be->sit, which joins it to x, need no grounding; the cat's arcs are x's
    assert phrased["I am not sure, but the cat sat on the mat near the door ."] == {
        ("be", "i", "nsubj"): 1, ("be", "not", "neg"): 1, ("be", "sure", "acomp"): 1, ("be", "but", "cc"): 1,
        ("be", "sit", "conj"): 1, ("sit", "cat", "nsubj"): 1, ("sit", "mat", "prep:on"): 1,
        ("sit", "door", "prep:near"): 1}
    # "the beach on" cut: volunteers still clean, but Saturday now hangs on cleaned without its "on": not x's arc
    assert cuts["Local volunteers cleaned Saturday ."] == {("volunteer", "local", "amod"): 1,
                                                           ("clean", "volunteer", "nsubj"): 1,
                                                           ("clean", "saturday", "npadvmod"): 0}
    overlap = [r for r in rows if r["kind"] == "overlap"]
    assert overlap and all(a["entailed"] == 0 for r in overlap for a in r["arcs"])
    hallucinated = [r for r in rows if r["kind"] == "hallucination"]
    assert all(len(r["premise"].split()) < len(r["hypothesis"].split()) for r in hallucinated)
    assert sorted((d["source_id"], d["stage"], d["error_type"]) for d in dead) == [  # no beams: each source says so
        ("other.tsv:1", "candidates", "UnmatchedCandidates"),
        *[(f"pairs.tsv:{n}", "candidates", "MissingCandidates") for n in (1, 2, 3)]]


def test_unknown_augmentation_is_a_usage_error(figure3, tmp_path, capsys):
    pairs, beams = figure3
    assert main(["run", "dae", "--input", str(pairs), "--output", str(tmp_path / "o"), "--generator", "candidates",
                 "--candidates", str(beams), "--augment", "word_swap,paraphrase"]) == 2
    assert "--augment" in capsys.readouterr().err


def test_span_cuts_without_span_deletion_or_below_one_is_a_usage_error(figure3, tmp_path, capsys):
    pairs, beams = figure3
    run = ["run", "dae", "--input", str(pairs), "--output", str(tmp_path / "o"), "--generator", "candidates",
           "--candidates", str(beams)]
    assert main(run + ["--augment", "word_swap", "--span-cuts", "3"]) == 2
    assert "--span-cuts is for --augment span_deletion" in capsys.readouterr().err
    assert main(run + ["--augment", "span_deletion", "--span-cuts", "0"]) == 2
    err = capsys.readouterr().err
    assert "--span-cuts must be at least 1, got 0" in err and len(err.strip().splitlines()) == 1


PEOPLE = ("The old farmer", "A young teacher", "The tired nurse", "My neighbour", "The new mayor", "A quiet student")
ACTS = (("painted", "coated", "the wooden fence"), ("repaired", "fixed", "the broken bicycle"),
        ("sold", "traded", "the red car"), ("cleaned", "scrubbed", "the dusty kitchen"), ("wrote", "penned", "a long letter"))
TOO_MANY_TOKENS = "a , " * 110 + "end ."  # 222 tokens > the parser's 200, but under the reader's 1000 characters


@pytest.fixture(scope="module")
def thirty_sources(tmp_path_factory):
    """30 pairs (default splits put 26 x in train, 3 in dev, 1 in test), hallucinated, plus three bad units:
    line 5 has no beam row, line 31's x is too long to parse, line 32 has no gold column."""
    tmp = tmp_path_factory.mktemp("thirty")
    pairs = [(f"{p} {verb} {obj} {when} .", f"{p} {synonym} {obj} {when} .")
             for when in ("on Monday", "last week") for p in PEOPLE for verb, synonym, obj in ACTS][:30]
    lines = [f"{x}\t{gold}" for x, gold in pairs] + [f"{TOO_MANY_TOKENS}\tShort gold .", "no tab on this line"]
    (tmp / "many.tsv").write_text("\n".join(lines) + "\n")
    beams = [{"source_id": f"many.tsv:{n}", "candidates": [gold, x.replace(" the ", " a ", 1)]}
             for n, (x, gold) in enumerate(pairs, 1) if n != 5]
    (tmp / "beams.jsonl").write_text("".join(json.dumps(b) + "\n" for b in beams))
    out = tmp / "out"
    assert main(["run", "dae", "--input", str(tmp / "many.tsv"), "--output", str(out), "--generator", "candidates",
                 "--candidates", str(tmp / "beams.jsonl"), "--augment", "hallucination", "--quiet"]) == 0
    return rows_of(out)


def test_one_source_x_never_spans_two_splits(thirty_sources):
    """Splits follow x: its gold, top-1, bottom and hallucination (premise x', hypothesis x) rows share one split."""
    _, rows, _ = thirty_sources
    splits = defaultdict(set)
    for r in rows:
        splits[r["source_id"]].add(r["split"])
    assert {s for ss in splits.values() for s in ss} == {"train", "dev", "test"}
    assert {source: ss for source, ss in splits.items() if len(ss) > 1} == {}
    hallucinated = [r for r in rows if r["kind"] == "hallucination"]
    assert len(hallucinated) == 30 and all(r["premise"] != r["hypothesis"] for r in hallucinated)


def test_every_dae_unit_has_output_is_skipped_or_is_dead(thirty_sources):
    """read = units with output (and no dead letter) + skipped + units with a dead letter, from the family's stages."""
    manifest, rows, dead = thirty_sources
    counts = manifest["counts"]
    dead_units = {d["source_id"] for d in dead}
    done = {r["source_id"] for r in rows} - dead_units
    assert dead_units == {"many.tsv:5", "many.tsv:31", "many.tsv:32"}
    assert (counts["read"], len(done), counts["total"]["skipped"]) == ({"many.tsv": 32}, 29, 0)
    assert counts["read"]["many.tsv"] == len(done) + counts["total"]["skipped"] + len(dead_units)
    # line 5 keeps its gold row but has no candidates; line 31's x fails to parse, so its group cannot be labelled
    assert counts["dead_by_stage"] == {"candidates:MissingCandidates": 2, "parse:TooLong": 1,
                                       "label:IncompleteGroup": 1, "read:WrongColumnCount": 1}
    assert counts["total"]["dead_letters"] == len(dead) == 5
    # 30 gold + 30 hallucination + top-1 and bottom for the 29 sources with beams
    assert counts["total"]["written"] == len(rows) == 118


def test_context_reads_x_in_its_document_and_an_arc_the_context_supports_is_entailed(figure3, tmp_path):
    """The document holds x and "Nobody can guarantee his death .": read in that context, h10's guarantee -dobj->
    death (0 against x alone) is 1; the rows split by their document; the same bytes in every runner mode."""
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"id": "d1", "text": f"{X} Nobody can guarantee his death ."}) + "\n")
    manifest, rows, _ = run_dae(*figure3, tmp_path / "a", "--context", str(docs))
    bottom = next(r for r in rows if r["kind"] == "bottom")
    assert bottom["premise"] == f"{X} Nobody can guarantee his death ."
    labels = {(a["head_lemma"], a["child_lemma"], a["rel"]): a["entailed"] for a in bottom["arcs"]}
    assert labels == {("guarantee", "you", "nsubj"): 1, ("bluestar", "liquidation", "compound"): 0,
                      ("death", "bluestar", "poss"): 0, ("guarantee", "death", "dobj"): 1}
    assert len({r["document_id"] for r in rows}) == 1 and None not in {r["document_id"] for r in rows}
    assert manifest["stats"]["arc_labels"]["arcs"]["bottom"] == {"entailed": 2, "not_entailed": 2, "unlabelled": 0}
    run_dae(*figure3, tmp_path / "b", "--context", str(docs), "--direct_running_mode=multi_processing",
            "--direct_num_workers=2")
    for path in (tmp_path / "a").rglob("*"):
        if path.is_file() and path.name != "run.json":
            assert path.read_bytes() == (tmp_path / "b" / path.relative_to(tmp_path / "a")).read_bytes(), path
