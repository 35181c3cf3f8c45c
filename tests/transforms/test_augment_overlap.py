"""Nearest overlap: each sentence paired with the corpus sentence sharing most unigrams, found by rare-token blocks."""
import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.schemas.ids import content_id
from entailgen.schemas.records import ParsedSentence, Token
from entailgen.transforms.arcs import extract_arcs
from entailgen.transforms.augment.overlap import (
    Candidate, DocumentFrequency, NearestOverlap, OverlapOptions, RareTokenBlocks, best_candidate, best_in_block,
    blocking_keys, member, nearest_by_brute_force, overlap_example, unigrams)

POS = {"the": "DET", "a": "DET", "on": "ADP", ".": "PUNCT"}


def sentence(text: str, verb: int = 2) -> ParsedSentence:
    """A hand-built parse of a short clause: every word hangs off the verb at index `verb` (arcs for the labels)."""
    words = text.split()
    pos = [POS.get(w.lower(), "VERB" if k == verb else "NOUN") for k, w in enumerate(words)]
    tokens = [Token(w, w.lower(), pos[k], "", "O", -1 if k == verb else verb,
                    "ROOT" if k == verb else {"DET": "det", "PUNCT": "punct"}.get(pos[k], "dobj"))
              for k, w in enumerate(words)]
    return ParsedSentence(content_id(text, "hand"), text, tokens, extract_arcs(tokens), "hand", "test", text[:12])


# overlaps: cat/rug 3 (cat sat on), dog/chewed 2 (dog bone), mat/dog 1 (the), rug/chewed 1 (a), others 0
MAT = sentence("the cat sat on the mat")
RUG = sentence("a cat sat on a rug")
DOG = sentence("the dog ate the bone")
CHEWED = sentence("a dog chewed a bone")
CORPUS = [MAT, RUG, DOG, CHEWED]


def test_unigrams_are_lowercased_word_types_without_punctuation():
    assert unigrams(sentence("The cat saw the cat .")) == ("cat", "saw", "the")


def test_blocking_keys_are_the_rarest_tokens_seen_twice_or_more():
    df = {"the": 2, "cat": 2, "sat": 2, "on": 2, "mat": 1}
    assert blocking_keys(member(MAT), df, OverlapOptions(blocking_keys=3)) == ["cat", "on", "sat"]
    rarer = {**df, "the": 1, "on": 40}  # "the" now pairs nothing, "on" is too common to block on
    assert blocking_keys(member(MAT), rarer, OverlapOptions(blocking_keys=3, max_block=10)) == ["cat", "sat"]
    assert blocking_keys(member(MAT), df, OverlapOptions(max_block=1)) == []


def test_best_in_block_picks_most_overlap_then_smallest_id():
    pairs = dict(best_in_block(member(s) for s in CORPUS))
    assert {k: (v.hypothesis_id, v.overlap) for k, v in pairs.items()} == {
        MAT.id: (RUG.id, 3), RUG.id: (MAT.id, 3), DOG.id: (CHEWED.id, 2), CHEWED.id: (DOG.id, 2)}
    tie = [Candidate("p", "x", "s", "1", "b", 2), Candidate("p", "x", "s", "1", "a", 2),
           Candidate("p", "x", "s", "1", "c", 1)]
    assert best_candidate(tie).hypothesis_id == "a"
    assert dict(best_in_block(member(s) for s in reversed(CORPUS))) == pairs  # order of the block does not matter


def test_identical_text_is_never_its_own_nearest():
    twin = sentence("The cat sat on the mat")
    pairs = nearest_by_brute_force([member(MAT), member(twin), member(RUG)])
    assert pairs[MAT.id].hypothesis_id == RUG.id and pairs[twin.id].hypothesis_id == RUG.id


def test_overlap_example_labels_every_hypothesis_arc_zero():
    candidate = Candidate(MAT.id, MAT.text, MAT.source, MAT.source_id, RUG.id, 3)
    example = overlap_example(candidate, RUG)
    assert (example.premise, example.hypothesis, example.kind) == (MAT.text, RUG.text, "overlap")
    assert [(a.key, a.entailed) for a in example.arcs] == [
        (("sat", "cat", "dobj"), 0), (("sat", "on", "dobj"), 0), (("sat", "rug", "dobj"), 0)]


def test_document_frequency_and_blocks():
    with TestPipeline() as p:
        members = p | beam.Create(CORPUS) | beam.Map(member)
        df = members | "df" >> DocumentFrequency()
        assert_that(df, equal_to([("the", 2), ("cat", 2), ("sat", 2), ("on", 2), ("mat", 1), ("a", 2), ("rug", 1),
                                  ("dog", 2), ("ate", 1), ("bone", 2), ("chewed", 1)]), label="df")
        blocks = (members | RareTokenBlocks(OverlapOptions(blocking_keys=3))
                  | beam.MapTuple(lambda token, block: (token, sorted(m.text for m in block))))
        assert_that(blocks, equal_to([
            ("cat", sorted([MAT.text, RUG.text])), ("on", sorted([MAT.text, RUG.text])), ("sat", [MAT.text]),
            ("a", sorted([RUG.text, CHEWED.text])), ("bone", sorted([DOG.text, CHEWED.text])),
            ("dog", sorted([DOG.text, CHEWED.text])), ("the", [DOG.text])]), label="blocks")


def test_nearest_overlap_transform_matches_brute_force():
    by_id = {s.id: s for s in CORPUS}
    expected = [overlap_example(c, by_id[c.hypothesis_id])
                for c in nearest_by_brute_force([member(s) for s in CORPUS]).values()]
    assert sorted((e.premise, e.hypothesis) for e in expected) == sorted([
        (MAT.text, RUG.text), (RUG.text, MAT.text), (DOG.text, CHEWED.text), (CHEWED.text, DOG.text)])
    with TestPipeline() as p:
        assert_that(p | beam.Create(CORPUS) | NearestOverlap(), equal_to(expected))


def test_sentences_without_a_usable_rare_token_stay_unpaired():
    with TestPipeline() as p:
        assert_that(p | beam.Create(CORPUS) | NearestOverlap(OverlapOptions(max_block=1)), equal_to([]))
