"""A document's claims from the pure core (hand-built parse, no parser): seeding by document id, skips per reason,
back-translation results, block rows, and the claim-only audit worked by hand."""
import dataclasses
import random

import pytest

from entailgen.schemas.records import ClaimExample, Skipped, Token
from entailgen.schemas.sources import Document
from entailgen.transforms.claims.claim_only import ClaimBalanceFn, ClaimsAuditFn, combine
from entailgen.transforms.claims.claims import (ClaimsConfig, backtranslated, block_rows, claims_of,
                                                parse_document)

WORDS = "She can see the old harbour wall from her window".split()


def tokens():
    """One sentence of 10 tokens: 'She can see the old harbour wall from her window' (root 'see')."""
    spec = [("PRON", "PRP", "nsubj"), ("AUX", "MD", "aux"), ("VERB", "VB", "ROOT"), ("DET", "DT", "det"),
            ("ADJ", "JJ", "amod"), ("NOUN", "NN", "compound"), ("NOUN", "NN", "dobj"), ("ADP", "IN", "prep"),
            ("PRON", "PRP$", "poss"), ("NOUN", "NN", "pobj")]
    heads = [2, 2, -1, 6, 6, 6, 2, 2, 9, 7]
    return [Token(w, w.lower(), pos, tag, "O", h, dep, i < 9) for i, (w, (pos, tag, dep), h)
            in enumerate(zip(WORDS, spec, heads))]


DOC = Document("f:1", "f", "She can see the old harbour wall from her window", dataset_id="d1")
SHORT = Document("f:2", "f", "She can see it")


def test_a_document_gives_its_sampled_claim_negatives_and_skips_per_reason():
    doc = parse_document(DOC, [tokens()], [], "sentence")
    config = ClaimsConfig(seed=1, transformations=("backtranslation", "pronoun_swap", "entity_swap", "negation"),
                          noise=False)
    examples, skipped, pending, outcome = claims_of(doc, config)
    assert outcome == "with_claims"
    assert [(e.transformation, e.label, e.entailment) for e in examples] == [
        ("sentence_sampling", "CORRECT", "entailed"), ("pronoun_swap", "INCORRECT", "not-entailed"),
        ("negation", "INCORRECT", "not-entailed")]
    assert examples[2].claim == "She cannot see the old harbour wall from her window"
    assert examples[2].claim_span == [4, 10] and examples[2].source_span == [4, 7]
    assert len(DOC.text) == 48 and examples[0].extraction_span == [0, 48]
    assert examples[0].blocks == [DOC.text] and examples[0].dataset_id == "d1"
    assert skipped == [Skipped("f", "f:1", "claims:entity_swap", "NoMention")]
    assert [p.claim for p in pending] == [DOC.text]
    again = claims_of(parse_document(dataclasses.replace(DOC, source_id="g:9"), [tokens()], [], "sentence"), config)
    assert [e.claim for e in again[0]] == [e.claim for e in examples]  # seeded by the document, not the file line


def test_round_tripped_negatives_are_contradictions_worded_unlike_their_source():
    """With a Little Push's e-c needs a contradiction class that is not "the source with one word changed": with
    round_trip_negatives each swapped or negated claim also goes to back-translation, keeping its label and its
    transformation (which nli-dialogue reads as contradiction); sentence sampling's claim does not."""
    doc = parse_document(DOC, [tokens()], [], "sentence")
    config = ClaimsConfig(seed=1, transformations=("backtranslation", "pronoun_swap", "negation"), noise=False,
                          round_trip_negatives=True)
    examples, _, pending, _ = claims_of(doc, config)
    assert [(p.transformation, p.label, p.claim, p.backtranslation) for p in pending] == [
        ("backtranslation", "CORRECT", DOC.text, True),
        ("pronoun_swap", "INCORRECT", "She can see the old harbour wall from his window", True),
        ("negation", "INCORRECT", "She cannot see the old harbour wall from her window", True)]
    assert len(examples) == 3 and len({e.id for e in examples + pending}) == 6  # the near-copies stay beside them
    trip = backtranslated(pending[2], ["She can not see the old wall of the port from her window"], "apertium")
    assert (trip.claim, trip.label, trip.transformation) == (
        "She can not see the old wall of the port from her window", "INCORRECT", "negation")
    assert backtranslated(pending[2], [pending[2].claim], "apertium") == Skipped(
        "f", "f:1", "claims:negation+backtranslation", "SameAsClaim")
    assert [p.transformation for p in claims_of(doc, dataclasses.replace(config, round_trip_negatives=False))[2]] \
        == ["backtranslation"]


def test_a_document_without_a_long_enough_sentence_is_skipped_once():
    short = [Token(w, w, "X", "", "O", -1 if i == 2 else 2, "", True) for i, w in enumerate(SHORT.text.split())]
    examples, skipped, pending, outcome = claims_of(parse_document(SHORT, [short], [], "sentence"), ClaimsConfig())
    assert (examples, pending, outcome) == ([], [], "skipped")
    assert skipped == [Skipped("f", "f:2", "claims", "NoClaim:NoSentenceOf8Tokens")]


def row(**changes) -> ClaimExample:
    base = ClaimExample("r1", "doc", "A b. C d.", ["A b.", "C d."], "sentence", "A b.", "CORRECT", "entailed",
                        "backtranslation", "A b.", True, False, "f", "f:1", split="train")
    return dataclasses.replace(base, **changes)


def test_backtranslation_keeps_the_first_round_trip_that_differs_else_skips():
    done = backtranslated(row(), ["A b.", "A bee."], "apertium+lexical")
    assert (done.claim, done.generator, done.backtranslation) == ("A bee.", "apertium+lexical", True)
    assert backtranslated(row(), ["A b."], "apertium") == Skipped("f", "f:1", "claims:backtranslation", "SameAsClaim")
    assert backtranslated(row(), [], None) == Skipped("f", "f:1", "claims:backtranslation", "NoRoundTrip")


def test_block_rows_have_one_block_each_and_the_document_label():
    blocks = block_rows(row(label="INCORRECT"))
    assert [(b.premise, b.block_index, b.blocks, b.label) for b in blocks] == [
        ("A b.", 0, [], "INCORRECT"), ("C d.", 1, [], "INCORRECT")]
    assert len({b.id for b in blocks}) == 2


def test_balance_and_claim_only_audit_by_hand():
    rows = [row(id="1", claim="Ann did not go", label="INCORRECT", transformation="negation"),
            row(id="2", claim="Ann went home", transformation="sentence_sampling", noise=True),
            row(id="3", claim="Bo did not stay", label="INCORRECT", transformation="negation", split="test"),
            row(id="4", claim="Bo stayed home", transformation="sentence_sampling", split="test"),
            row(id="5", claim="Bo stayed home", transformation="sentence_sampling", split="test", block_index=0)]
    assert combine(ClaimBalanceFn(), rows) == {"negation": {"INCORRECT": 2, "noise": 0},
                                               "sentence_sampling": {"CORRECT": 2, "noise": 1}}
    # Train labels tie 1:1, so the majority is CORRECT (alphabetical); naive Bayes reads 'did not' and 'home'.
    assert combine(ClaimsAuditFn(), rows) == {
        "n_train": 2, "majority_label": "CORRECT", "splits": "given",
        "claim_only": {"all": {"n_test": 2, "majority_accuracy": 50.0, "claim_only_accuracy": 100.0},
                       "negation": {"n_test": 1, "majority_accuracy": 0.0, "claim_only_accuracy": 100.0},
                       "sentence_sampling": {"n_test": 1, "majority_accuracy": 100.0, "claim_only_accuracy": 100.0}}}


def test_report_highlights_the_changed_span_against_the_source_sentence():
    from entailgen.schemas.arrow import to_row
    from entailgen.dataset.report.html import claim_examples_html
    from entailgen.dataset.report.stats import dataset_stats

    negated = to_row(row(claim="He did <go>.", source_sentence="He didn't <go>.", transformation="negation",
                         label="INCORRECT", claim_span=[3, 6], source_span=[3, 9]))
    html = claim_examples_html([negated])
    assert "He <mark>did</mark> &lt;go&gt;." in html and "He <mark>didn&#x27;t</mark> &lt;go&gt;." in html
    stats = dataset_stats("ClaimExample", [negated, to_row(row(noise=True))])
    assert stats["labels"]["transformation"] == {"backtranslation + noise": {"CORRECT": 1},
                                                 "negation": {"INCORRECT": 1}}


def test_a_document_the_parser_fails_on_is_one_dead_letter_and_the_others_go_on():
    from apache_beam.pvalue import TaggedOutput

    from entailgen.transforms.claims.claims import ClaimsConfig, _ClaimsFromDocuments
    from entailgen.transforms.parser import ParserConfig

    class FakeParser:
        def tokens(self, texts):
            for text in texts:
                if "boom" in text:
                    raise RuntimeError("parser broke")
                yield tokens()

    fn = _ClaimsFromDocuments(ParserConfig(), ClaimsConfig(transformations=("negation",), noise=False))
    fn.parser = FakeParser()
    out = list(fn.process([DOC, Document("f:3", "f", "boom")]))
    tagged = [(o.tag, o.value) for o in out if isinstance(o, TaggedOutput)]
    assert [o.claim for o in out if isinstance(o, ClaimExample)] == [
        DOC.text, "She cannot see the old harbour wall from her window"]
    (dead,) = [v for t, v in tagged if t == "dead"]
    assert (dead.source_id, dead.stage, dead.error_type, dead.raw) == ("f:3", "claims", "RuntimeError", "boom")


def test_a_document_a_transformation_fails_on_is_one_dead_letter_and_the_others_go_on(monkeypatch):
    from apache_beam.pvalue import TaggedOutput

    from entailgen.transforms.claims import claims as core
    from entailgen.transforms.parser import ParserConfig

    class FakeParser:
        def tokens(self, texts):
            return [tokens() for _ in texts]

    made = core.claims_of

    def claims_of(doc, config):
        if doc.record.source_id == "f:3":
            raise IndexError("span out of range")
        return made(doc, config)

    monkeypatch.setattr(core, "claims_of", claims_of)
    fn = core._ClaimsFromDocuments(ParserConfig(), core.ClaimsConfig(transformations=("negation",), noise=False))
    fn.parser = FakeParser()
    out = list(fn.process([DOC, Document("f:3", "f", DOC.text)]))
    tagged = [(o.tag, o.value) for o in out if isinstance(o, TaggedOutput)]
    (dead,) = [v for t, v in tagged if t == "dead"]
    assert (dead.source_id, dead.error_type, dead.message) == ("f:3", "IndexError", "span out of range")


def test_an_extrinsic_claim_needs_its_sentence_in_the_document_as_the_parser_read_it():
    """Compression drops "from her window" (seed 1): the premise then says "She can see the old harbour wall" and the
    full sentence adds "window", so it is INCORRECT. Where the parser's tokens ("harbour") are not the document's
    text ("harbor") the compression cannot be put in its place: one Skipped (NotInDocument), the sampled claim kept."""
    config = ClaimsConfig(seed=1, transformations=("extrinsic",), noise=False)
    examples, skipped, _, _ = claims_of(parse_document(DOC, [tokens()], [], "sentence"), config)
    extrinsic = examples[1]
    assert [(e.transformation, e.label) for e in examples] == [("sentence_sampling", "CORRECT"),
                                                                ("extrinsic", "INCORRECT")] and skipped == []
    assert (extrinsic.claim, extrinsic.premise) == (DOC.text, "She can see the old harbour wall")
    assert extrinsic.blocks == [extrinsic.premise] and extrinsic.extraction_span == [0, 32]
    misread = dataclasses.replace(DOC, text="She can see the old harbor wall from her window")
    examples, skipped, _, _ = claims_of(parse_document(misread, [tokens()], [], "sentence"), config)
    assert [e.transformation for e in examples] == ["sentence_sampling"]
    assert skipped == [Skipped("f", "f:1", "claims:extrinsic", "NotInDocument")]


def test_a_sentence_the_document_repeats_gives_its_claims_once():
    # a live text repeats a line ("Foul by ..."): both copies sampled, their claims are one row each, the second
    # copy's skipped as made again (it would be a duplicate row, and downstream counts read != units)
    twice = Document("f:3", "f", f"{DOC.text}\n\n{DOC.text}")
    config = ClaimsConfig(seed=1, transformations=("backtranslation", "pronoun_swap", "negation"), noise=False,
                          claims_per_document=2)
    examples, skipped, pending, _ = claims_of(parse_document(twice, [tokens(), tokens()], [], "sentence"), config)
    assert [(e.transformation, e.claim.split()[0], e.claim.split()[-2]) for e in examples] == [
        ("sentence_sampling", "She", "her"), ("pronoun_swap", "He", "her"), ("negation", "She", "her"),
        ("pronoun_swap", "She", "my")]  # the second copy's swap drew another pronoun: another claim, kept
    assert len(pending) == 1 and len({e.id for e in examples}) == 4
    assert sorted(s.stage for s in skipped if s.reason == "SameClaimAgain") == [
        "claims:backtranslation", "claims:negation", "claims:sentence_sampling"]
    _, skipped, pending, _ = claims_of(parse_document(twice, [tokens(), tokens()], [], "sentence"),
                                       dataclasses.replace(config, round_trip_negatives=True))
    assert [p.transformation for p in pending] == ["backtranslation", "pronoun_swap", "negation", "pronoun_swap"]
    # the second copy's negation round trip is the first's again: skipped under its own name
    assert sorted(s.stage for s in skipped if s.reason == "SameClaimAgain") == [
        "claims:backtranslation", "claims:negation", "claims:negation+backtranslation", "claims:sentence_sampling"]


def test_a_swap_trusts_a_mention_only_where_the_claim_parsed_alone_agrees(parser):
    """Issue #55: in this document en_core_web_sm calls "six" a DATE (beside "an hour", "each day"), in the claim
    parsed alone, as FactCC parses its claims, a CARDINAL: the date swap once gave "since he was an hour" (seed 0);
    now it is skipped and counted, and "six" is no number either (the document does not call it one)."""
    from entailgen.transforms.claims.claims import _ClaimsFromDocuments
    from entailgen.transforms.parser import ParserConfig

    config = ClaimsConfig(seed=0, transformations=("date_swap", "number_swap"), noise=False)
    fn = _ClaimsFromDocuments(ParserConfig(), config)
    fn.parser = parser
    (doc,) = fn._parsed([Document("v:1", "v", "He has played the violin since he was six. He practises for an hour "
                                              "each day.")])
    assert [(e.text, e.label) for e in doc.entities] == [("six", "DATE"), ("an hour", "TIME"), ("each day", "DATE")]
    assert doc.own_labels == {0: ["O"] * 8 + ["CARDINAL", "O"]}
    examples, skipped, _, _ = claims_of(doc, config)
    assert [(e.transformation, e.claim) for e in examples] == [
        ("sentence_sampling", "He has played the violin since he was six.")]
    assert skipped == [Skipped("v", "v:1", "claims:number_swap", "NoMention"),
                       Skipped("v", "v:1", "claims:date_swap", "OwnParseDisagrees")]


# Rows word overlap cannot read: positives in words the document lacks, negatives in the document's own words.

OWN_WORDS = ("Anna Berg, 33, beat Tom Hale in the final in Leeds on March 3. Tom Hale, the club's chairman, said 3 "
             "people had bought a large book. Berg thanked her coach after the final.")


def test_rewording_and_role_swap_worked_by_hand(parser):
    """Each sampled sentence's rewording (CORRECT: a rewrite the document entails, in words it lacks) and role swap
    (INCORRECT: two of the claim's own names exchanged), or a skip saying why. Seed 0 picks the genitive turned of
    sentence 2's three rewrites (genitive, "3" -> "three", "said" -> "stated"; never "large" -> "big": no synonym in
    the defaults); sentence 1 has only its date turned, sentence 3 only Berg's age as a descriptor; only sentence 1
    names two people."""
    doc = parse_document(Document("o:1", "o", OWN_WORDS), list(parser.tokens([OWN_WORDS])), [], "sentence")
    config = ClaimsConfig(seed=0, transformations=("rewording", "role_swap"), noise=False, claims_per_document=3)
    examples, skipped, pending, _ = claims_of(doc, config)
    assert [(e.transformation, e.label, e.claim) for e in examples if e.transformation != "sentence_sampling"] == [
        ("rewording", "CORRECT", "Anna Berg, 33, beat Tom Hale in the final in Leeds on 3 March."),
        ("role_swap", "INCORRECT", "Tom Hale, 33, beat Anna Berg in the final in Leeds on March 3."),
        ("rewording", "CORRECT", "Tom Hale, the chairman of the club, said 3 people had bought a large book."),
        ("rewording", "CORRECT", "The 33-year-old thanked her coach after the final.")]
    assert [(e.claim_span, e.source_span) for e in examples if e.transformation != "sentence_sampling"] == [
        ([54, 61], [54, 61]), ([0, 28], [0, 28]), ([10, 34], [10, 29]), ([0, 15], [0, 4])]
    assert pending == [] and skipped == [Skipped("o", "o:1", "claims:role_swap", "NoNamePair")] * 2


def test_role_swap_leaves_names_of_one_role_alone(parser):
    """Names in a list, or on the two sides of a symmetric verb, are one role: exchanged, the claim says the same. A
    name with "the" and one without ("The Habbaniyah lost ..."), or one that hangs on the other ("about IPO's
    Google"), exchanged make no sentence."""
    from entailgen.transforms.claims.transformations import Unchanged, role_swap

    for text in ("Anna Berg and Tom Hale won the final in Leeds.", "Anna Berg met Tom Hale in Leeds on Sunday.",
                 "The US lost another helicopter near Habbaniyah on Sunday.",
                 "Ever since the first whispers about Google's IPO, most investors have feared a high price."):
        doc = parse_document(Document("o:2", "o", text), list(parser.tokens([text])), [], "sentence")
        with pytest.raises(Unchanged, match="NoNamePair"):
            role_swap(doc.sentences[0], 0, doc.entities, random.Random(0))


def test_asking_for_rewording_and_role_swap_leaves_the_other_claims_as_they_were(parser):
    """Both draw from their own seeded stream, noise included: FactCC's rows (noised copies too) are unchanged."""
    doc = parse_document(Document("o:1", "o", OWN_WORDS), list(parser.tokens([OWN_WORDS])), [], "sentence")
    plain = ClaimsConfig(seed=0, claims_per_document=3)
    before = claims_of(doc, plain)[0]
    after = claims_of(doc, dataclasses.replace(plain, transformations=plain.transformations + (
        "rewording", "role_swap")))[0]
    assert {e.transformation for e in after} - {e.transformation for e in before} == {"rewording", "role_swap"}
    assert [e.id for e in after if e.transformation not in ("rewording", "role_swap")] == [e.id for e in before]
