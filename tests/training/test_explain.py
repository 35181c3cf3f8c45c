"""Where a summary goes wrong (training.scoring.explain): word offsets, the word rule worked by hand, and a DAE model
trained here on a tiny dataset that puts its highest `unsupported` on a name the document does not hold."""
import json
import re

import pytest

from entailgen.schemas.arrow import to_row
from entailgen.schemas.records import EvidenceSpan, ExplainedWord, WordArc
from entailgen.training.scoring.explain import (MEAN, TOUCHING, ZERO, SentenceEvidence, WordRule, explanation,
                                                words_of)
from entailgen.training.scoring.unscorable import Unscorable
from floats import close
from trainer_fixtures import pair_model, save_tiny_encoder, tiny_encoder, write_dataset  # noqa: F401 (fixtures)


def non_space(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("summary", [
    "the cat sat on the cat mat the",  # repeated words
    "Zoë  met Émile\tin Köln — “twice”.\n\nThen   she left 😀!",  # Unicode, tabs, a blank line, an emoji
    "  leading and trailing   ",
])
def test_words_keep_exact_offsets_and_rebuild_the_non_space_text(summary):
    words = words_of(summary)
    assert all(summary[s:e] == text for s, e, text in words)
    assert "".join(summary[s:e] for s, e, _ in words) == non_space(summary)


def test_repeated_words_each_get_their_own_offsets():
    assert [(s, e) for s, e, _ in words_of("the cat the  cat")] == [(0, 3), (4, 7), (8, 11), (13, 16)]


def arc(head, child, rel, words, p):
    return {"head": head, "child": child, "rel": rel, "head_word": words[head], "child_word": words[child],
            "entailed_probability": p}


TOKENS = ["Bob", "sees", "the", "dog", "."]
PARSE = {"hypothesis_tokens": TOKENS, "arcs": [arc(1, 0, "nsubj", TOKENS, 0.1), arc(1, 3, "dobj", TOKENS, 0.8)]}


def test_a_word_gets_the_arcs_it_is_the_child_of_and_a_word_with_none_its_sentence():
    """'Bob' is the nsubj child (1 - 0.1 = 0.9), 'dog.' the dobj child (0.2; '.' is its own token inside the word);
    'sees' (the root) and 'the' (det: left out) get the sentence's 1 - 0.45 = 0.55; the summary's odd spacing kept."""
    summary = "Bob  sees the dog."
    e = explanation("A man sees the dog.", summary, 0.45,
                    [[SentenceEvidence("Bob sees the dog.", 0.45, "A man sees the dog.", PARSE)]])
    assert e.words == [  # every arc read from the best block, the whole document here: its offsets 0-19
        ExplainedWord(0, 3, "Bob", 0.9, 0, [WordArc("nsubj", "sees", "Bob", 0.1, 0, 19)]),
        ExplainedWord(5, 9, "sees", 0.55, 0, []),
        ExplainedWord(10, 13, "the", 0.55, 0, []),
        ExplainedWord(14, 18, "dog.", 0.2, 0, [WordArc("dobj", "sees", "dog", 0.8, 0, 19)]),
    ]
    (sentence,) = e.sentences
    assert (sentence.start, sentence.end, sentence.score) == (0, 18, 0.45)
    assert (sentence.block, sentence.block_start, sentence.block_end) == ("A man sees the dog.", 0, 19)
    assert sentence.passages == [EvidenceSpan(0, 19)]


def test_a_wide_gap_in_the_summary_does_not_move_an_arc_onto_its_neighbour():
    """The scorer read 'Bob sees the dog.' (one space each); in 'Bob \t  sees the dog.' its 'dog' (13-16 there) is
    16-19 here: the dobj arc stays on 'dog.', not on 'the'."""
    summary = "Bob \t  sees the dog."
    e = explanation("x", summary, 0.45, [[SentenceEvidence("Bob sees the dog.", 0.45, "x", PARSE)]])
    assert [(w.start, w.end, w.text, w.unsupported) for w in e.words] == [
        (0, 3, "Bob", 0.9), (7, 11, "sees", 0.55), (12, 15, "the", 0.55), (16, 20, "dog.", 0.2)]


def test_the_other_rules_any_touching_arc_the_mean_and_zero():
    """TOUCHING: 'sees' heads both arcs, max(0.9, 0.2) = 0.9; MEAN of them 0.55; ZERO for 'the'."""
    evidence = [[SentenceEvidence("Bob sees the dog.", 0.45, "x", PARSE)]]
    touching = explanation("x", "Bob sees the dog.", 0.45, evidence, WordRule(arcs=TOUCHING))
    assert [w.unsupported for w in touching.words] == [0.9, 0.9, 0.55, 0.2]
    mean = explanation("x", "Bob sees the dog.", 0.45, evidence, WordRule(arcs=TOUCHING, pool=MEAN))
    assert [w.unsupported for w in mean.words] == [0.9, 0.55, 0.55, 0.2]
    zero = explanation("x", "Bob sees the dog.", 0.45, evidence, WordRule(untouched=ZERO))
    assert [w.unsupported for w in zero.words] == [0.9, 0.0, 0.0, 0.2]
    with pytest.raises(ValueError, match="unknown word rule"):
        WordRule(pool="min")


def test_a_lower_case_summary_read_truecased_and_an_unscorable_sentence_says_why():
    """The scorer read 'Bob sees the dog.' from 'bob sees the dog.' (truecased): found case-blind. The second
    sentence had no arc: no score, its reason, and its words the summary's unsupported (1 - 0.45)."""
    summary = "bob sees the dog. yes."
    e = explanation("A man sees the dog.", summary, 0.45,
                    [[SentenceEvidence("Bob sees the dog.", 0.45, "A man sees the dog.", PARSE),
                      SentenceEvidence("Yes.", Unscorable("NoArcs", "the hypothesis has no content arc to score"))]])
    assert [(w.text, w.unsupported, w.sentence) for w in e.words] == [
        ("bob", 0.9, 0), ("sees", 0.55, 0), ("the", 0.55, 0), ("dog.", 0.2, 0), ("yes.", 0.55, 1)]
    assert [(s.start, s.end, s.score, s.unscorable) for s in e.sentences] == [
        (0, 17, 0.45, None), (18, 22, None, "the hypothesis has no content arc to score")]


def test_a_pair_model_gives_each_word_its_sentence_and_two_models_join_by_log_odds():
    """Pair model: every word 1 - 0.8 = 0.2. Joined with the arc model: 'Bob' 1 - sigmoid((logit .1 + logit .8)/2)
    = 1 - sigmoid((-2.197225 + 1.386294)/2) = 1 - 0.4 = 0.6 (worked: exp(-0.405465) = 0.666667, 1/1.666667 = 0.6)."""
    pair = [SentenceEvidence("Bob sees the dog.", 0.8, "x")]
    alone = explanation("x", "Bob sees the dog.", 0.8, [pair])
    assert [w.unsupported for w in alone.words] == [0.2, 0.2, 0.2, 0.2]
    both = explanation("x", "Bob sees the dog.", 0.6, [[SentenceEvidence("Bob sees the dog.", 0.45, "x", PARSE)],
                                                        pair])
    assert both.words[0].unsupported == 0.6
    assert both.sentences[0].block == "x"


NAMES = ["bob", "anna"]
NOUNS = ["man", "woman", "dog", "cat"]
VERBS = ["sees", "likes", "chases"]


def hallucination_rows():
    """DAE-labelled rows (Goyal & Durrett: an arc not in the premise's parse is 0): a premise 'the N V the M .' and a
    hypothesis with a name in place of one noun: the name's arc 0, the others 1; and the premise itself, all 1."""
    from entailgen.schemas.records import ArcExample, LabelledArc
    from entailgen.transforms.arcs import extract_arcs
    from entailgen.transforms.parser import Parser, ParserConfig

    texts = []
    for i in range(24):
        a, b, v = NOUNS[i % 4], NOUNS[(i + 1 + i // 4) % 4], VERBS[i % 3]
        premise = f"The {a} {v} the {b}."
        name = NAMES[i % 2].capitalize()
        hypothesis = f"{name} {v} the {b}." if i % 2 else f"The {a} {v} {name}."
        texts += [(premise, premise, None), (premise, hypothesis, name)]
    parser = Parser(ParserConfig())
    rows = []
    for k, ((premise, hypothesis, name), tokens) in enumerate(zip(texts, parser.tokens([h for _, h, _ in texts]))):
        words = [t.text for t in tokens]
        arcs = [LabelledArc.of(a, int(words[a.child] != name)) for a in extract_arcs(tokens)]
        rows.append(ArcExample(f"h{k}", premise, hypothesis, words, arcs, "hallucination", "toy", "toy", f"toy:{k}"))
    return rows


@pytest.fixture(scope="module")
def name_model(tmp_path_factory):
    from entailgen.training.fitting.trainer import TrainOptions, train

    root = tmp_path_factory.mktemp("explain")
    encoder = save_tiny_encoder(root / "encoder", words=("the . " + " ".join(NAMES + NOUNS + VERBS)).split())
    data = write_dataset(root / "data", "ArcExample", {"train": hallucination_rows()})
    train(str(data), str(root / "model"), TrainOptions(encoder=str(encoder), epochs=12, batch_size=8, lr=1e-3,
                                                        max_length=32, progress=False, device="cpu"))
    return root / "model"


def test_a_dae_model_puts_its_highest_unsupported_on_the_inserted_name(name_model):
    from entailgen.training.scoring.document_scorer import DocumentScorer

    document = "The man sees the dog.\n\nThe cat likes the woman."
    summary = "The  cat likes Anna. The man sees the dog."
    e = DocumentScorer(str(name_model)).explain(document, summary)
    assert "".join(summary[w.start:w.end] for w in e.words) == non_space(summary)
    worst = max(e.words, key=lambda w: w.unsupported)
    assert (worst.text, worst.start, worst.end) == ("Anna.", 15, 20)
    assert [a.child_word for a in worst.arcs] == ["Anna"]
    assert [(s.start, s.end) for s in e.sentences] == [(0, 20), (21, 42)]
    assert e.sentences[0].score < e.sentences[1].score
    assert all(document[s.block_start:s.block_end] == s.block for s in e.sentences)  # a block: where it is


def scored_rows(tmp_path, model, rows, *extra, fmt="parquet"):
    from entailgen.runners.cli import main
    from entailgen.schemas.reader import read_dataset

    inputs = tmp_path / "docs.jsonl"
    inputs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / f"scored-{fmt}"
    assert main(["score", str(model), "--input", str(inputs), "--output", str(out), "--documents", "--format", fmt,
                 *extra]) == 0
    return out, list(read_dataset(str(out), "scored"))


EXPLAIN_ROWS = [{"id": "a", "document": "The man sees the dog.\n\nThe cat likes the woman.",
                 "summary": "The  cat likes Anna. The man sees the dog."},
                {"id": "b", "document": "The dog sees the cat.", "summary": "The dog sees the cat."}]


def test_score_explain_writes_words_and_sentences_readable_by_pyarrow_and_pandas(name_model, tmp_path):
    """The rows as DocumentScorer.explain gives them (to float rounding: the job scores both rows in one batch, explain
    each alone); the Parquet shard read by pandas, the JSONL by pyarrow."""
    import pandas
    import pyarrow.json
    from entailgen.runners.cli import main
    from entailgen.training.scoring.document_scorer import DocumentScorer

    out, rows = scored_rows(tmp_path, name_model, EXPLAIN_ROWS, "--explain", "--html")
    page = (out / "explain.html").read_text()
    assert page.index('id b</div>') > page.index('id a</div>')  # worst first: the inserted name's row
    (out / "explain.html").unlink()
    assert main(["report", str(out)]) == 0 and (out / "explain.html").read_text() == page  # report rewrites it
    scorer = DocumentScorer(str(name_model))
    for row, given in zip(rows, EXPLAIN_ROWS):
        e = scorer.explain(given["document"], given["summary"])
        assert row["words"] == close([to_row(w) for w in e.words])
        assert row["sentences"] == close([to_row(s) for s in e.sentences])
        assert row["score"] == close(e.score)
    assert max(rows[0]["words"], key=lambda w: w["unsupported"])["text"] == "Anna."
    frame = pandas.read_parquet(next(out.rglob("scored-*.parquet")))
    (anna,) = [w for ws in frame["words"] for w in ws if w["text"] == "Anna."]  # pandas: nested lists of dicts
    assert list(anna["arcs"][0]) == ["rel", "head_word", "child_word", "entailed_probability", "evidence_start",
                                     "evidence_end"]
    _, plain = scored_rows(tmp_path, name_model, EXPLAIN_ROWS, fmt="jsonl")  # without --explain: no words
    assert [r["words"] for r in plain] == [None, None]
    assert main(["report", str(tmp_path / "scored-jsonl")]) == 2  # scores without words: no page to write
    jsonl = pyarrow.json.read_json(next((tmp_path / "scored-jsonl").rglob("scored-*.jsonl")))
    assert jsonl.num_rows == 2


def test_score_html_quiet_prints_the_paths_alone_and_overwrite_replaces_its_own_page(name_model, tmp_path, capsys):
    """--quiet: the scores dir, then its explain.html, one a line; a rerun with --overwrite replaces the page it wrote
    (its own file), while a file of the user's beside it is still refused."""
    from entailgen.runners.cli import main

    inputs = tmp_path / "docs.jsonl"
    inputs.write_text("".join(json.dumps(r) + "\n" for r in EXPLAIN_ROWS))
    out = tmp_path / "q1"
    args = ["score", str(name_model), "--input", str(inputs), "--output", str(out), "--documents", "--explain",
            "--html", "--quiet"]
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines() == [str(out), str(out / "explain.html")]
    assert main([*args, "--overwrite"]) == 0
    assert capsys.readouterr().out.splitlines() == [str(out), str(out / "explain.html")]
    (out / "notes.txt").write_text("mine")
    assert main([*args, "--overwrite"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"entailgen: error: --overwrite would delete {out / 'notes.txt'}, which the manifest of {out} does not list; "
        "move it out first (entailgen deletes only its own files)")
    assert (out / "notes.txt").read_text() == "mine" and (out / "explain.html").is_file()


def test_score_explain_with_a_pair_model_gives_each_word_its_sentence(pair_model, tmp_path):
    _, (row,) = scored_rows(tmp_path, pair_model, [{"document": "The man likes a park.",
                                                    "summary": "A man likes a park. A dog chases."}], "--explain")
    sentences = row["sentences"]
    assert [s["text"] for s in sentences] == ["A man likes a park.", "A dog chases."]
    # each word its sentence's 1 - score; both rounded to 6 digits as written, so within 2e-6, not to the last digit
    assert [w["unsupported"] for w in row["words"]] == pytest.approx([1 - sentences[0]["score"]] * 5 + [
        1 - sentences[1]["score"]] * 3, abs=2e-6)
    assert all(w["arcs"] == [] for w in row["words"])


def test_explain_without_documents_is_refused_in_one_line(name_model, tmp_path, capsys):
    from entailgen.runners.cli import main

    inputs = tmp_path / "pairs.jsonl"
    inputs.write_text(json.dumps({"premise": "The dog sees.", "hypothesis": "The dog sees."}) + "\n")
    assert main(["score", str(name_model), "--input", str(inputs), "--output", str(tmp_path / "o"), "--explain"]) == 2
    assert capsys.readouterr().err.strip() == ("entailgen: error: --explain is for --documents (or a detector dir): "
                                              "a pair's arcs are in its scored row")
    assert main(["score", str(name_model), "--input", str(inputs), "--output", str(tmp_path / "o"), "--documents",
                 "--html"]) == 2
    assert capsys.readouterr().err.strip() == "entailgen: error: --html shows what --explain writes: give --explain with it"
    assert not (tmp_path / "o").exists()


def test_an_ensemble_explains_each_word_joined_over_its_models(name_model, pair_model):
    """A detector's members (EnsembleScorer): each word the mean log-odds of the models' 1 - unsupported."""
    from entailgen.training.scoring.document_scorer import DocumentScorer, EnsembleScorer
    from entailgen.training.scoring.explain import joined_unsupported

    document, summary = EXPLAIN_ROWS[0]["document"], EXPLAIN_ROWS[0]["summary"]
    dae, pair = DocumentScorer(str(name_model)), DocumentScorer(str(pair_model))
    both = EnsembleScorer([dae, pair]).explain(document, summary)
    one, two = dae.explain(document, summary), pair.explain(document, summary)
    assert [w.unsupported for w in both.words] == [joined_unsupported([a.unsupported, b.unsupported])
                                                   for a, b in zip(one.words, two.words)]
    assert both.words[3].arcs == one.words[3].arcs  # the arcs come from the DAE member
    assert both.score == EnsembleScorer([dae, pair]).score_many([(document, summary)])[0]


def test_evaluate_spans_scores_the_models_words_beside_the_baselines(name_model, tmp_path, capsys):
    """Four documents (bbcid 2, 3 val; 1, 4 test), a name inserted in each summary and marked by all three
    annotators: the tiny model's words, the baselines, the rules on val, the report saved in the model dir."""
    import csv
    from entailgen.runners.cli import main

    documents = {"1": "The cat likes the woman.", "2": "The man sees the dog.", "3": "The dog chases the cat.",
                 "4": "The woman sees the man."}
    summaries = {"1": "the cat likes anna.", "2": "bob sees the dog.", "3": "the dog chases anna.",
                 "4": "the woman sees bob."}
    with open(tmp_path / "spans.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["bbcid", "system", "summary", "hallucination_type", "hallucinated_span",
                      "hallucinated_span_start", "hallucinated_span_end", "worker_id"])
        for bbcid, summary in summaries.items():
            name = "anna" if "anna" in summary else "bob"
            for worker in ("wid_0", "wid_1", "wid_2"):
                out.writerow([bbcid, "S", summary, "extrinsic", name, summary.index(name) + 1,
                              summary.index(name) + len(name), worker])
    (tmp_path / "articles.jsonl").write_text("".join(json.dumps({"bbcid": b, "document": d}) + "\n"
                                                     for b, d in documents.items()))
    assert main(["evaluate", str(name_model), "--benchmark", "spans", str(tmp_path / "spans.csv"),
                 "--articles", str(tmp_path / "articles.jsonl")]) == 0
    printed = capsys.readouterr().out
    assert "| entailgen model |" in printed and "| word absent from the document | 100.0 [100.0, 100.0]" in printed
    (saved,) = (name_model / "eval").glob("*spans*.json")
    report = json.loads(saved.read_text())
    assert report["documents"] == {"val": 2, "test": 2} and report["words"] == {"val": 8, "test": 8}
    assert set(report["scorers"]) == {"entailgen model", "entailgen model: summary's own score",
                                      "word absent from the document", "summary's unigram overlap",
                                      "overlap mix (weights fit on val)",
                                      "entailgen model with the overlap features (weights fit on val)"}
    assert report["scorers"]["entailgen model"]["roc_auc"][0] == 100.0  # the name is each test summary's worst word
    assert [(g["model"], g["baseline"]) for g in report["gaps"]] == [
        ("entailgen model", "word absent from the document"),  # the first of the baselines at 100
        ("entailgen model with the overlap features (weights fit on val)", "overlap mix (weights fit on val)")]
    assert list(report["rules"]) == ["child/max/sentence (default)", "touching/max/sentence", "child/mean/sentence",
                                     "child/max/zero"]
    extrinsic = report["kinds"]["extrinsic"]  # every mark is extrinsic: its words are all the words
    assert extrinsic["words"] == {"val": 8, "test": 8} and extrinsic["scorers"]["entailgen model"]["roc_auc"][0] == 100.0
    assert report["kinds"]["intrinsic"]["scorers"] is None and "intrinsic: 6 words (0 unsupported) on test; not " \
        "scored: no intrinsic-marked word or no supported word in a cut" in printed
    assert main(["evaluate", str(name_model), "--benchmark", "spans", str(tmp_path / "spans.csv"),
                 "--articles", str(tmp_path / "articles.jsonl"), "--val-only"]) == 0  # the pilot: val words alone
    assert "(word level, val documents;" in capsys.readouterr().out
    (pilot,) = (name_model / "eval").glob("*spans*-val*.json")  # kept beside the full report, not over it
    pilot = json.loads(pilot.read_text())
    assert pilot["cut"] == "val" and pilot["summaries"] == {"val": 2} and pilot["words"] == {"val": 8}
    assert len(list((name_model / "eval").glob("*spans*.json"))) == 2
    articles = ["--articles", str(tmp_path / "articles.jsonl")]
    for extra, message in (([*articles, "--ensemble", str(name_model)], "are for --benchmark summac"),
                           ([], "--articles FILE")):
        assert main(["evaluate", str(name_model), "--benchmark", "spans", str(tmp_path / "spans.csv"), *extra]) == 2
        assert message in capsys.readouterr().err
    assert main(["evaluate", str(name_model), "--benchmark", "summac", str(tmp_path / "spans.csv"), "--articles",
                 str(tmp_path / "articles.jsonl")]) == 2
    assert capsys.readouterr().err.strip() == "entailgen: error: --articles is for --benchmark spans"


def test_score_evidence_arcs_writes_each_arcs_passage_and_refuses_what_cannot_be(name_model, tmp_path, capsys):
    """--evidence arcs through the Beam job: every arc names a passage whose offsets rebuild a document sentence, and
    each sentence lists the passages its arcs drew on; the refusals in one line."""
    from entailgen.runners.cli import main

    out, rows = scored_rows(tmp_path, name_model, EXPLAIN_ROWS, "--explain", "--evidence", "arcs", "--max-length",
                            "64")
    sentences_of_documents = {"The man sees the dog.", "The cat likes the woman.", "The dog sees the cat."}
    for row, given in zip(rows, EXPLAIN_ROWS):
        arcs = [a for w in row["words"] for a in (w["arcs"] or [])]
        assert arcs and all(given["document"][a["evidence_start"]:a["evidence_end"]] in sentences_of_documents
                            for a in arcs)
        for s in row["sentences"]:
            assert {given["document"][p["start"]:p["end"]] for p in s["passages"]} <= sentences_of_documents
    inputs = str(tmp_path / "docs.jsonl")
    for flags, said in ((["--evidence", "packed", "--granularity", "2sents"], "--evidence packed packs the "),
                        (["--evidence", "arcs", "--top-k", "2"], "--top-k N (N >= 1) bounds --evidence packed"),
                        (["--max-length", "4096"], "--max-length 4096: choose 16 to")):
        assert main(["score", str(name_model), "--input", inputs, "--output", str(tmp_path / "x"), "--documents",
                     *flags]) == 2
        assert said in capsys.readouterr().err
    assert main(["score", str(name_model), "--input", inputs, "--output", str(tmp_path / "x"),
                 "--evidence", "arcs"]) == 2
    assert "are for --documents" in capsys.readouterr().err
