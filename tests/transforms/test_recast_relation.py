"""Relation recast by distant supervision: mentions (spaCy types + KB aliases), KB pairs -> entailed / kb_negative,
r0 pairs capped, type mismatches skipped and counted, templates and KB files, the PTransform."""
import json

import apache_beam as beam
import pytest
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.schemas.ids import content_id
from entailgen.schemas.records import ENTAILED, NOT_ENTAILED, ParsedSentence, Skipped, Token
from entailgen.transforms.recast.relation import (RecastRelation, RelationConfig, RelationPrior, load_templates,
                                                  mention_pairs, parse_kb, parse_templates, recast_relation,
                                                  relation_prior, type_mismatches)

TEMPLATES = parse_templates([
    "property\tlabel\tphrase\tsubject_types\tobject_types",
    "P47\tshares border with\tX is bordered by Y\tGPE,LOC\tGPE,LOC",
    "P36\tcapital\tY is the capital of X\tGPE\tGPE",
    "P19\tplace of birth\tX was born in Y\tPERSON\tGPE",
])
KB = parse_kb(["Kazakhstan\tP47\tRussia",
               "John F. Kennedy\tplace_of_birth\tBrookline\tJFK|john   KENNEDY",
               "Kazakhstan\tP36\tAstana"], TEMPLATES)


def sentence(words: str, source_id: str = "s:1") -> ParsedSentence:
    """A hand-built parse from 'Word/TYPE' tokens (no type: O); no space before the final '.'."""
    cells = [w.rsplit("/", 1) if "/" in w else (w, "O") for w in words.split()]
    tokens = [Token(text, text, "X", "X", ner, -1, "dep", space_after=k + 1 < len(cells) and cells[k + 1][0] != ".")
              for k, (text, ner) in enumerate(cells)]
    text = "".join(t.text + (" " if t.space_after else "") for t in tokens).strip()
    return ParsedSentence(content_id(text), text, tokens, [], "hand", "test.txt", source_id)


def rows(pairs):
    """(hypothesis, label, provenance) of each pair, in order."""
    return [(p.hypothesis, p.label, json.loads(p.provenance)) for p in pairs]


KAZAKHSTAN = sentence("Kazakhstan/GPE shares a border with Russia/GPE .")
# A corpus prior for GPE -> GPE: the KB's bordering pairs seen 5 times, capitals 3 times.
PRIOR = RelationPrior({("GPE", "GPE"): {"P47": 5, "P36": 3}})


def test_a_kb_pair_gives_one_entailed_and_one_not_entailed_pair():
    found = mention_pairs(KAZAKHSTAN, KB)
    assert [(m.text, m.entity_type, m.start, m.end) for m in found.mentions] == [
        ("Kazakhstan", "GPE", 0, 10), ("Russia", "GPE", 32, 38)]
    assert [p.held for p in found.pairs] == [(("Kazakhstan", "P47", "Russia"),), ()]
    # (Russia, Kazakhstan) holds nothing in the KB: with no r0 negatives allowed only the KB pair is recast.
    pairs = recast_relation(found, PRIOR, RelationConfig(TEMPLATES, negatives_per_sentence=0))
    span = {"subject": [0, 10, "GPE"], "object": [32, 38, "GPE"]}
    # The KB holds P47 for the pair, so the prior leaves P36 only: "Russia is the capital of Kazakhstan".
    assert rows(pairs) == [
        ("Kazakhstan is bordered by Russia .", ENTAILED,
         {"label_made": "kb", "triple": ["Kazakhstan", "P47", "Russia"], **span}),
        ("Russia is the capital of Kazakhstan .", NOT_ENTAILED,
         {"label_made": "kb_negative", "triple": ["Kazakhstan", "P36", "Russia"], **span}),
    ]
    assert {(p.premise, p.phenomenon, p.template, p.source_id) for p in pairs} == {
        ("Kazakhstan shares a border with Russia.", "relation", "relation/P47", "s:1"),
        ("Kazakhstan shares a border with Russia.", "relation", "relation/P36", "s:1")}


def test_a_pair_the_kb_relates_the_other_way_round_is_no_no_relation_pair():
    # (Russia, Kazakhstan) holds nothing, but (Kazakhstan, Russia) does: the entities are related, so no r0 pair
    # ("Russia is bordered by Kazakhstan" would be labelled not entailed), however many negatives are allowed.
    pairs = recast_relation(mention_pairs(KAZAKHSTAN, KB), PRIOR, RelationConfig(TEMPLATES, negatives_per_sentence=5))
    assert [(h, label, made["label_made"]) for h, label, made in rows(pairs)] == [
        ("Kazakhstan is bordered by Russia .", ENTAILED, "kb"),
        ("Russia is the capital of Kazakhstan .", NOT_ENTAILED, "kb_negative")]


def test_the_not_entailed_relation_is_never_one_the_kb_holds():
    both = parse_kb(["Kazakhstan\tP47\tRussia", "Kazakhstan\tP36\tRussia"], TEMPLATES)  # a wrong KB, but it holds both
    pairs = recast_relation(mention_pairs(KAZAKHSTAN, both), PRIOR, RelationConfig(TEMPLATES, 0))
    assert [(h, label) for h, label, _ in rows(pairs)] == [("Russia is the capital of Kazakhstan .", ENTAILED),
                                                          ("Kazakhstan is bordered by Russia .", ENTAILED)]


def test_pairs_whose_types_fit_no_template_are_skipped_and_counted():
    languages = mention_pairs(sentence("German/NORP and French/NORP are spoken widely ."), KB)
    assert len(languages.pairs) == 2  # both orders; no template takes NORP -> NORP
    assert type_mismatches(languages, TEMPLATES) == 2
    assert recast_relation(languages, PRIOR, RelationConfig(TEMPLATES)) == Skipped(
        "test.txt", "s:1", "recast_relation", "TypeMismatch")
    # Next to a KB pair, the misfit pairs (PERSON with GPE either way but PERSON -> GPE: only GPE -> PERSON) are
    # counted and left out while the KB pair is recast.
    mixed = mention_pairs(sentence("Tolstoy/PERSON visited Kazakhstan/GPE and Russia/GPE ."), KB)
    assert type_mismatches(mixed, TEMPLATES) == 2  # Kazakhstan -> Tolstoy, Russia -> Tolstoy
    pairs = recast_relation(mixed, PRIOR, RelationConfig(TEMPLATES, negatives_per_sentence=0))
    assert [h for h, _, _ in rows(pairs)] == ["Kazakhstan is bordered by Russia .",
                                              "Russia is the capital of Kazakhstan ."]


def test_kb_aliases_match_exactly_up_to_case_and_whitespace():
    # No spaCy entity at all: both mentions come from the KB's names and aliases, with no type (fits any slot).
    found = mention_pairs(sentence("Everyone knows John Kennedy was born in brookline ."), KB)
    assert [(m.text, m.entity_type, m.entities) for m in found.mentions] == [
        ("John Kennedy", "", ("John F. Kennedy",)), ("brookline", "", ("Brookline",))]
    pairs = recast_relation(found, RelationPrior(), RelationConfig(TEMPLATES, 0))
    # Untyped mentions fit every template; the KB holds P19, so the not-entailed relation is P36 or P47.
    assert rows(pairs)[0][:2] == ("John Kennedy was born in brookline .", ENTAILED)
    assert rows(pairs)[1][1:] == (NOT_ENTAILED, {"label_made": "kb_negative", "subject": [15, 27, ""],
                                                 "object": [40, 49, ""],
                                                 "triple": ["John F. Kennedy", pairs[1].template[9:], "Brookline"]})
    assert pairs[1].template in ("relation/P36", "relation/P47")
    # A part of a name is no alias ("Kennedy" alone), and a longer spaCy span keeps its own words.
    assert [m.entities for m in mention_pairs(sentence("Kennedy/PERSON left Brookline/GPE ."), KB).mentions] == [
        (), ("Brookline",)]
    assert [(m.text, m.entity_type, m.entities) for m in mention_pairs(
        sentence("JFK/PERSON was born in the/GPE Brookline/GPE area ."), KB).mentions] == [
        ("JFK", "PERSON", ("John F. Kennedy",)), ("the Brookline", "GPE", ("Brookline",))]


def test_no_relation_pairs_are_capped_per_sentence():
    three = mention_pairs(sentence("Paris/GPE , Rome/GPE and Madrid/GPE are far apart ."), KB)
    assert len(three.pairs) == 6 and all(not p.held for p in three.pairs)

    def labels(cap):
        result = recast_relation(three, PRIOR, RelationConfig(TEMPLATES, negatives_per_sentence=cap, seed=3))
        return result if isinstance(result, Skipped) else [(p.label, json.loads(p.provenance)["label_made"])
                                                           for p in result]

    assert labels(2) == [(NOT_ENTAILED, "no_relation")] * 2
    assert labels(10) == [(NOT_ENTAILED, "no_relation")] * 6
    assert labels(0) == Skipped("test.txt", "s:1", "recast_relation", "NoKbPair")
    # The draw is seeded: the same seed picks the same pairs and relations.
    first = recast_relation(three, PRIOR, RelationConfig(TEMPLATES, 2, seed=3))
    assert first == recast_relation(three, PRIOR, RelationConfig(TEMPLATES, 2, seed=3))


def test_mention_spans_index_the_premise_even_where_tokens_do_not_spell_the_text():
    # Stanza splits "Russia's" into words that do not spell the text: the premise becomes the tokens' spelling.
    words = sentence("Kazakhstan/GPE borders Russia/GPE 's east .")
    odd = ParsedSentence(words.id, "Kazakhstan borders Russia's east.", words.tokens, [], "hand", "t", "t:1")
    found = mention_pairs(odd, KB)
    assert found.text == "Kazakhstan borders Russia 's east."
    assert [found.text[m.start:m.end] for m in found.mentions] == ["Kazakhstan", "Russia"]
    assert mention_pairs(KAZAKHSTAN, KB).text == KAZAKHSTAN.text


def test_sentences_without_two_entities_are_skipped():
    assert recast_relation(mention_pairs(sentence("Russia/GPE is large ."), KB), PRIOR,
                           RelationConfig(TEMPLATES)).reason == "FewerThanTwoMentions"
    assert recast_relation(mention_pairs(sentence("Russia/GPE and Russia/GPE again ."), KB), PRIOR,
                           RelationConfig(TEMPLATES)).reason == "OneEntityOnly"


def test_relation_prior_counts_kb_relations_per_type_pair():
    corpus = [mention_pairs(KAZAKHSTAN, KB), mention_pairs(sentence("Kazakhstan/GPE moved to Astana/GPE ."), KB),
              mention_pairs(sentence("Russia/GPE borders Kazakhstan/GPE ."), KB)]
    assert relation_prior(corpus, TEMPLATES).by_types == {("GPE", "GPE"): {"P36": 1, "P47": 2}}
    assert RelationPrior().alternatives("PERSON", "GPE", {"P19"}, TEMPLATES) == []
    assert RelationPrior().alternatives("", "GPE", set(), TEMPLATES) == [("P19", 1), ("P36", 1), ("P47", 1)]


def test_templates_and_kb_files_are_checked_line_by_line():
    shipped = load_templates()
    assert 30 <= len(shipped.by_relation) <= 40
    assert shipped.by_relation["P19"].phrase == "X was born in Y"
    assert shipped.by_relation["P69"].subject_types == ("PERSON",)
    assert shipped.resolve("place_of_birth") == shipped.resolve("Place of birth") == shipped.resolve("p19") == "P19"
    assert shipped.by_relation["P47"].hypothesis("Kazakhstan", "Russia") == "Kazakhstan is bordered by Russia ."
    with pytest.raises(ValueError, match=r"t.tsv:2: phrase 'X was born' must hold X and Y"):
        parse_templates(["# c", "P19\tplace of birth\tX was born\tPERSON\tGPE"], "t.tsv")
    with pytest.raises(ValueError, match=r"kb:2: want subject<TAB>relation<TAB>object"):
        parse_kb(["a\tP19\tb", "a\tP19"], TEMPLATES)
    assert parse_kb(["a\tfounded by\tb", "a\tP999\tb"], TEMPLATES).triples == {("a", "b"): ("P999", "founded by")}


def test_recast_relation_ptransform_reads_the_kb_file(tmp_path):
    kb = tmp_path / "kb.tsv"
    kb.write_text("Kazakhstan\tP47\tRussia\n")
    sentences = [KAZAKHSTAN, sentence("Russia/GPE is large .", "s:2")]
    expected = recast_relation(mention_pairs(KAZAKHSTAN, KB), relation_prior([mention_pairs(KAZAKHSTAN, KB)],
                                                                             TEMPLATES), RelationConfig(TEMPLATES))
    assert [p.label for p in expected] == [ENTAILED, NOT_ENTAILED]  # (Russia, Kazakhstan) is related: no r0 pair
    with TestPipeline() as p:
        out = p | beam.Create(sentences) | RecastRelation(str(kb), RelationConfig(TEMPLATES))
        assert_that(out["pairs"], equal_to(expected), label="pairs")
        assert_that(out["skipped"], equal_to([Skipped("test.txt", "s:2", "recast_relation", "FewerThanTwoMentions")]),
                    label="skipped")
        assert_that(out["dead"], equal_to([]), label="dead")
