"""Dialogue phrases (Steen et al. 2023 §2.1, Table 6): a phrase prepended to the hypothesis, label and original kept."""
import apache_beam as beam
import pytest
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.schemas.ids import content_id
from entailgen.schemas.records import ENTAILED, NOT_ENTAILED, RtePair
from entailgen.schemas.sources import NliPair
from entailgen.transforms.augment.dialogue import (
    PHRASES, AddDialoguePhrases, DialogueOptions, DialoguePhrase, dialogue_pairs, join_phrase, nli_to_rte,
    parse_phrases, phrase_subset, read_phrase_file, resolve_phrases, starts_with_proper_noun, with_phrase)

CAT = NliPair("anli:1", "anli", "A cat sat on a mat in the sun.", "The cat sat.", "e")
I_THINK = (DialoguePhrase("I think", "hedging"),)


def test_phrases_are_table_6s_three_groups():
    counts = {}
    for p in PHRASES:
        counts[p.category] = counts.get(p.category, 0) + 1
    assert counts == {"hedging": 5, "introductory": 3, "sentiment": 2}
    assert DialoguePhrase("I think", "hedging") in PHRASES
    assert DialoguePhrase("Here is what I know:", "introductory") in PHRASES
    assert DialoguePhrase("I love that!", "sentiment") in PHRASES


@pytest.mark.parametrize("phrase, hypothesis, joined", [
    ("I think", "The cat sat.", "I think the cat sat."),
    ("I think ", " The cat sat.", "I think the cat sat."),
    ("I think", "John went home.", "I think John went home."),
    ("I believe", "I am tired.", "I believe I am tired."),
    ("I am not sure, but", "NASA launched a rocket.", "I am not sure, but NASA launched a rocket."),
    ("Here is what I know:", "There are two dogs.", "Here is what I know: there are two dogs."),
    ("yep. Also", "It rained.", "yep. Also it rained."),
    ("I love that!", "the cat sat.", "I love that! The cat sat."),
    ("Sure! Here is what I know:", "\"The End\" is a song.", "Sure! Here is what I know: \"the End\" is a song."),
    ("I think", "Apples are red and apples are sweet.", "I think apples are red and apples are sweet."),
    ("I think", "Seven games were played.", "I think seven games were played."),  # a number, not a name
])
def test_join_phrase_reads_naturally(phrase, hypothesis, joined):
    assert join_phrase(phrase, hypothesis) == joined


def test_a_parse_overrides_the_capitalisation_heuristic(parse):
    assert join_phrase("I think", "Cats sleep all day.") == "I think Cats sleep all day."  # heuristic: a name?
    cats = parse("Cats sleep all day.")  # the parse knows better: a common noun
    assert join_phrase("I think", cats.text, proper_noun=starts_with_proper_noun(cats)) == "I think cats sleep all day."
    assert join_phrase("I think", "Paris is big.", proper_noun=starts_with_proper_noun(parse("Paris is big."))) == \
        "I think Paris is big."
    # a number or a time is an entity but not a name: its capital goes ("Monday" is PROPN and keeps it)
    for text, joined in (("Seven games were played.", "I think seven games were played."),
                         ("Last year the team won.", "I think last year the team won."),
                         ("Monday is busy.", "I think Monday is busy.")):
        assert join_phrase("I think", text, proper_noun=starts_with_proper_noun(parse(text))) == joined


@pytest.mark.parametrize("label, two_way, three_way", [
    ("entailment", ENTAILED, "entailment"), ("e", ENTAILED, "entailment"), ("0", ENTAILED, "entailment"),
    ("neutral", NOT_ENTAILED, "neutral"), ("n", NOT_ENTAILED, "neutral"),
    ("Contradiction", NOT_ENTAILED, "contradiction"), ("c", NOT_ENTAILED, "contradiction"),
    ("not_entailment", NOT_ENTAILED, None),
])
def test_nli_to_rte_collapses_to_two_way_and_keeps_three_way(label, two_way, three_way):
    pair = nli_to_rte(NliPair("x:1", "mnli", "P.", "H.", label))
    assert (pair.label, pair.label3, pair.kind, pair.phrase) == (two_way, three_way, "original", None)
    assert (pair.premise, pair.hypothesis, pair.source, pair.source_id) == ("P.", "H.", "mnli", "x:1")


def test_unknown_nli_label_is_an_error():
    with pytest.raises(ValueError, match="unknown NLI label 'maybe'"):
        nli_to_rte(NliPair("x:1", "mnli", "P.", "H.", "maybe"))


def test_dialogue_pairs_keep_the_original_and_the_label():
    original, dialogue = dialogue_pairs(CAT, I_THINK, seed=0)
    assert original == nli_to_rte(CAT)
    assert (dialogue.premise, dialogue.hypothesis, dialogue.label, dialogue.label3) == (
        CAT.premise, "I think the cat sat.", ENTAILED, "entailment")
    assert (dialogue.kind, dialogue.phrase, dialogue.template) == ("dialogue", "I think", "dialogue:hedging")
    assert dialogue.id == content_id(original.id, "dialogue", "I think") != original.id


def test_an_rte_pair_goes_in_as_is():
    rte = RtePair("r1", "P.", "The sky is blue.", NOT_ENTAILED, "sentiment", "t1", "recast", "s1")
    original, dialogue = dialogue_pairs(rte, I_THINK, seed=0)
    assert original == rte
    assert dialogue == RtePair(content_id("r1", "dialogue", "I think"), "P.", "I think the sky is blue.", NOT_ENTAILED,
                               "sentiment", "dialogue:hedging", "recast", "s1", kind="dialogue", phrase="I think")


def test_the_dialogue_copy_keeps_each_label():
    for label, label3 in ((ENTAILED, "entailment"), (NOT_ENTAILED, "neutral"), (NOT_ENTAILED, "contradiction")):
        copy = with_phrase(RtePair("r", "P.", "H.", label, "nli", "original", "x", "x:1", label3), I_THINK[0])
        assert (copy.label, copy.label3, copy.hypothesis, copy.kind) == (label, label3, "I think H.", "dialogue")


def test_the_phrase_is_seeded_per_pair():
    assert [dialogue_pairs(CAT, PHRASES, seed=s)[1].phrase for s in (4, 5)] == ["yep. Also",
                                                                             "Sure! Here is what I know:"]
    assert len({dialogue_pairs(CAT, PHRASES, seed=s)[1].phrase for s in range(30)}) > 3


def test_phrase_subset_is_a_seeded_ordered_sample():
    subset = phrase_subset(PHRASES, 5, seed=1)
    assert subset == tuple(PHRASES[k] for k in (0, 3, 4, 5, 8))  # in the order of the phrase list
    assert len({phrase_subset(PHRASES, 5, seed=s) for s in range(10)}) > 1
    assert phrase_subset(PHRASES, 50, seed=1) == PHRASES


def test_phrase_file_lines_with_optional_category(tmp_path):
    assert parse_phrases(["# mine", "", "Well,\thedging", "Honestly"]) == (
        DialoguePhrase("Well,", "hedging"), DialoguePhrase("Honestly", "custom"))
    with pytest.raises(ValueError, match="no phrases"):
        parse_phrases(["# only a comment"])
    path = tmp_path / "phrases.tsv"
    path.write_text("Well,\thedging\nWow!\tsentiment\nSo\n", encoding="utf-8")
    assert read_phrase_file(str(path)) == (DialoguePhrase("Well,", "hedging"), DialoguePhrase("Wow!", "sentiment"),
                                           DialoguePhrase("So", "custom"))
    assert resolve_phrases(DialogueOptions(phrase_file=str(path), phrase_subset=1, seed=0)) == (
        DialoguePhrase("Well,", "hedging"),)
    assert resolve_phrases(DialogueOptions(phrase_file=str(path), phrase_subset=3, seed=0)) == (
        DialoguePhrase("Well,", "hedging"), DialoguePhrase("Wow!", "sentiment"), DialoguePhrase("So", "custom"))
    assert resolve_phrases(DialogueOptions()) == PHRASES


def test_add_dialogue_phrases_transform(tmp_path):
    path = tmp_path / "phrases.txt"
    path.write_text("I think\thedging\n", encoding="utf-8")
    bad = NliPair("anli:2", "anli", "P.", "H.", "maybe")
    original = nli_to_rte(CAT)
    with TestPipeline() as p:
        out = p | beam.Create([CAT, bad]) | AddDialoguePhrases(DialogueOptions(phrase_file=str(path)))
        dialogue = RtePair(content_id(original.id, "dialogue", "I think"), CAT.premise, "I think the cat sat.",
                           ENTAILED, "nli", "dialogue:hedging", "anli", "anli:1", "entailment", "dialogue", "I think")
        assert_that(out.pairs, equal_to([original, dialogue]))
        assert_that(out.dead | beam.Map(lambda d: (d.source_id, d.stage, d.error_type)),
                    equal_to([("anli:2", "dialogue", "ValueError")]), label="dead")
