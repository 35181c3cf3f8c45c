"""The Python API on bad text (issue 62): one answer per row. A row whose texts the score job dead-letters (not text,
missing or blank, no word, a lone surrogate or a NUL) is that row's Unscorable, for the same reason in the same words
as its dead letter (training.scoring.unscorable.unscorable_text, one rule), and the other rows of the call are scored;
a one-row call raises it. On tiny models trained here and a detector dir made of them."""
import json
import shutil

import pytest
import torch

from entailgen.training import Detector
from entailgen.training.scoring.detector import DETECTOR_JSON
from entailgen.training.scoring.document_scorer import DocumentScorer, EnsembleScorer
from entailgen.training.scoring.explain import Explanation
from entailgen.training.scoring.inference import parse_document_line, parse_line
from entailgen.training.scoring.scorers import DaeScorer, PairScorer
from entailgen.training.scoring.summac import model_checksums
from entailgen.training.scoring.unscorable import Unscorable
from trainer_fixtures import dae_model, pair_model  # noqa: F401 (fixtures: pytest finds them here)

torch.set_num_threads(1)
DOCUMENT = "The man likes a park. A dog chases the cat."
SUMMARY = "A man likes a park."
# each bad summary, and the (error type, message) worked out from the rule: what its dead letter says
BAD = [("A man \ud800 likes a park.", "BadEncoding", "summary has a lone surrogate, not writable as UTF-8"),
       ("A man likes\x00 a park.", "BadEncoding", "summary has a NUL character"),
       ("", "MissingField", "no text in summary"),
       (" \n ", "MissingField", "no text in summary"),
       (None, "MissingField", "no text in summary"),
       (12345, "NotText", "summary is a number, not text"),
       ("... !!!", "NoWords", "no word in summary")]
ROWS = [(DOCUMENT, SUMMARY)] + [(DOCUMENT, bad) for bad, _, _ in BAD]


def reasons(results) -> list:
    return [(r.error_type, str(r)) for r in results]


@pytest.fixture(scope="module")
def detector(tmp_path_factory, pair_model, dae_model):  # noqa: F811
    """A detector dir as `entailgen detector` leaves one: its members' model dirs and detector.json naming them."""
    root = tmp_path_factory.mktemp("detector")
    members = []
    for name, model in (("claims-source", pair_model), ("dae-arcs", dae_model)):
        shutil.copytree(model, root / "members" / name)
        members.append({"dir": f"members/{name}", "checksums": model_checksums(str(root / "members" / name))})
    (root / DETECTOR_JSON).write_text(json.dumps({"members": members}))
    return root


def test_a_bad_row_is_the_same_unscorable_in_the_api_as_its_dead_letter_in_the_score_job(dae_model):  # noqa: F811
    """The CLI's reading of each row (its JSON line) and the API's answer for the same texts: one rule, one wording."""
    lines = [json.dumps({"id": str(i), "document": document, "summary": summary}) for i, (document, summary)
             in enumerate(ROWS)]
    dead = [parse_document_line(line, "rows.jsonl") for line in lines[1:]]
    assert [(d.error_type, d.message) for d in dead] == [(t, m) for _, t, m in BAD]
    assert reasons(DocumentScorer(str(dae_model)).score_many(ROWS)[1:]) == [(t, m) for _, t, m in BAD]
    pair = parse_line(json.dumps({"premise": "", "hypothesis": ""}), "pairs.jsonl")
    assert (pair.error_type, pair.message) == ("MissingField", "no text in premise, hypothesis")
    with pytest.raises(Unscorable, match=r"^no text in premise, hypothesis$"):
        DaeScorer(str(dae_model)).score("", "")


def test_a_detector_gives_each_bad_row_its_unscorable_and_scores_the_rest(detector):
    scorer = Detector(str(detector))
    alone = scorer.score_documents([(DOCUMENT, SUMMARY)])
    assert scorer.score_documents(ROWS) == [pytest.approx(alone[0], abs=2e-6)] + [0.0] * len(BAD)
    results = scorer.score_many(ROWS)
    assert 0.0 < results[0] < 1.0 and reasons(results[1:]) == [(t, m) for _, t, m in BAD]
    explained = scorer.explain_many(ROWS)
    assert isinstance(explained[0], Explanation) and reasons(explained[1:]) == [(t, m) for _, t, m in BAD]
    for summary, message in ((None, "no text in summary"), (12345, "summary is a number, not text"),
                             ("... !!!", "no word in summary")):
        with pytest.raises(Unscorable, match=f"^{message}$"):
            scorer.explain(DOCUMENT, summary)
    with pytest.raises(Unscorable, match="^no text in document$"):
        scorer.explain(None, SUMMARY)


def test_document_scorers_and_ensembles_give_each_bad_row_its_unscorable(pair_model, dae_model):  # noqa: F811
    for scorer in (DocumentScorer(str(dae_model)), DocumentScorer(str(pair_model)),
                   EnsembleScorer([DocumentScorer(str(pair_model)), DocumentScorer(str(dae_model))])):
        alone = scorer.score_many([(DOCUMENT, SUMMARY)])[0]
        results = scorer.score_many(ROWS)
        assert results[0] == pytest.approx(alone, abs=2e-6) and reasons(results[1:]) == [(t, m) for _, t, m in BAD]
        assert scorer.score_documents(ROWS)[1:] == [0.0] * len(BAD)
        explained = scorer.explain_many(ROWS)
        assert isinstance(explained[0], Explanation) and reasons(explained[1:]) == [(t, m) for _, t, m in BAD]
    with pytest.raises(TypeError, match=r"^each row is a \(document, summary\) tuple, got 'A man likes a park.'$"):
        DocumentScorer(str(dae_model)).score_many([SUMMARY])


def test_pair_scorers_give_each_bad_pair_its_unscorable_as_the_score_job_does(pair_model, dae_model):  # noqa: F811
    premise = "the man likes a park"
    pairs = [(premise, "a man likes"), (premise, "a man \ud800 likes"), ("", ""), (None, "a man likes"),
             (premise, 7.5), (premise, "?!")]
    said = [("BadEncoding", "hypothesis has a lone surrogate, not writable as UTF-8"),
            ("MissingField", "no text in premise, hypothesis"), ("MissingField", "no text in premise"),
            ("NotText", "hypothesis is a number, not text"), ("NoWords", "no word in hypothesis")]
    for scorer in (PairScorer(str(pair_model)), DaeScorer(str(dae_model))):
        results = scorer.score_many(pairs)
        assert not isinstance(results[0], Unscorable) and reasons(results[1:]) == said
    with pytest.raises(Unscorable, match=r"^no text in premise, hypothesis$"):  # not a score of two empty texts
        PairScorer(str(pair_model)).score("", "")
    with pytest.raises(Unscorable, match=r"^no text in premise$"):
        PairScorer(str(pair_model)).score(None, "a man likes")
    with pytest.raises(Unscorable, match=r"^hypothesis has a lone surrogate"):
        PairScorer(str(pair_model)).score(premise, "a man \ud800 likes")


def test_a_summary_without_a_content_arc_is_said_of_the_summary_not_a_hypothesis(dae_model):  # noqa: F811
    """A DAE model's cells are (block, summary sentence): a document row's reason names the summary the caller gave."""
    scorer = DocumentScorer(str(dae_model))
    with pytest.raises(Unscorable, match=r"^the summary sentence has no content arc to score$"):
        scorer.explain(DOCUMENT, "Yes.")
    explained = scorer.explain(DOCUMENT, "Yes. A dog chases the cat.")
    assert [s.unscorable for s in explained.sentences] == ["the summary sentence has no content arc to score", None]
    with pytest.raises(Unscorable, match=r"^the hypothesis has no content arc to score$"):  # a pair: its hypothesis
        DaeScorer(str(dae_model)).score(DOCUMENT, "Yes.")


def generators():
    """The rows as a caller may hand them over: a generator, an iterator, a map over lines, each walkable once."""
    return [(row for row in ROWS), iter(ROWS), map(tuple, ROWS)]


def test_every_row_scorer_entry_point_answers_each_row_of_a_generator_in_order(pair_model, dae_model,  # noqa: F811
                                                                                detector):
    """score_many, score_documents, scored, explained and explain_many of every row scorer: one answer per row of any
    iterable, as for the list (a scorer walks its rows several times: a generator gave [] before)."""
    said = [(t, m) for _, t, m in BAD]
    for scorer in (DocumentScorer(str(dae_model)), DocumentScorer(str(pair_model)),
                   EnsembleScorer([DocumentScorer(str(pair_model)), DocumentScorer(str(dae_model))]),
                   Detector(str(detector))):
        alone = scorer.score_many([(DOCUMENT, SUMMARY)])[0]
        for rows in generators():
            results = scorer.score_many(rows)
            assert results[0] == pytest.approx(alone, abs=2e-6) and reasons(results[1:]) == said, scorer
        for rows in generators():
            assert scorer.score_documents(rows) == [pytest.approx(alone, abs=2e-6)] + [0.0] * len(BAD)
        for rows in generators():
            results = scorer.scored(rows)
            assert results[0]["score"] == pytest.approx(alone, abs=2e-6) and reasons(results[1:]) == said
        for rows in generators():
            explained = scorer.explain_many(rows)
            assert explained[0].score == pytest.approx(alone, abs=2e-6) and reasons(explained[1:]) == said
        for rows in generators():
            explained = scorer.explained(rows)
            assert explained[0][0]["score"] == pytest.approx(alone, abs=2e-6) and reasons(explained[1:]) == said


def test_every_pair_scorer_entry_point_answers_each_pair_of_a_generator_in_order(pair_model, dae_model,  # noqa: F811
                                                                                 detector):
    premise = "the man likes a park"
    pairs = [(premise, "a man likes"), ("", ""), (premise, "a dog likes a park")]
    for scorer in (PairScorer(str(pair_model)), DaeScorer(str(dae_model)), Detector(str(detector))):
        method = scorer.pair_scores if isinstance(scorer, Detector) else scorer.score_many
        results = method(iter(pairs))
        assert len(results) == 3 and reasons(results[1:2]) == [("MissingField", "no text in premise, hypothesis")]
        assert all(0.0 < float(r if isinstance(r, float) else r["score"]) < 1.0 for r in (results[0], results[2]))
    scored = PairScorer(str(pair_model)).scored_many(p for p in pairs)
    assert [type(r).__name__ for r in scored] == ["dict", "Unscorable", "dict"]


def test_a_detectors_pair_scores_give_bad_benchmark_text_its_unscorable(detector):
    """Detector.pair_scores (rank19's sentences, TRUE's one-sentence groundings) by the API's one bad-text rule: a
    text with no word, a NUL or a lone surrogate is that pair's Unscorable (0.0 and counted in the report), not a
    member's guess (the pair member scored "?!" alone, the DAE member finding no arc)."""
    from entailgen.training.benchmarks.true import TrueRow, model_scores

    premise = "The man likes a park."
    results = Detector(str(detector)).pair_scores([(premise, "A man likes a park."), (premise, "?!"),
                                                   (premise, "A man\x00 likes."), ("The \ud800 man.", "A man likes.")])
    assert 0.0 < results[0] < 1.0
    assert reasons(results[1:]) == [("NoWords", "no word in hypothesis"),
                                    ("BadEncoding", "hypothesis has a NUL character"),
                                    ("BadEncoding", "premise has a lone surrogate, not writable as UTF-8")]
    scores, long = model_scores([TrueRow(premise, "...", 0, "q2.csv line 2")], Detector(str(detector)))
    assert long == [False] and reasons(scores) == [("NoWords", "no word in hypothesis")]
