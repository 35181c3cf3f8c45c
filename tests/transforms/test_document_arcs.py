"""The document-arcs rules worked by hand on the DAE paper's sentence ("The old man gave the young boy a book.") and
the README's / claims page's ("Leeds beat Hull", "Anna Berg, the new mayor, opened a large office in Leeds."): for
each rule the arcs that must be 1, 0 and unlabelled (None), parsed by the session's spaCy parser."""
import dataclasses
import json
import random

import pytest

from entailgen.schemas.sources import Document
from entailgen.transforms.claims.blocks import join, paragraphs, pieces_of
from entailgen.transforms.claims.claims import parse_document
from entailgen.transforms.claims.transformations import Unchanged
from entailgen.transforms.document_arcs import rules
from entailgen.schemas.records import Arc
from entailgen.transforms import rewrites
from entailgen.transforms.document_arcs.labels import (PremiseView, arc_label, document_view, doubtful,
                                                       hypothesis_label, label_hypothesis, touches_change)
from entailgen.transforms.document_arcs.make import (DocumentArcsConfig, document_hypotheses, document_key,
                                                     label_document, later_copies, make_one)
from entailgen.transforms.rewrites import TableThesaurus
from entailgen.pipelines.document_arcs import DocumentArcsOptions

OLD_MAN = "The old man gave the young boy a book."


class Pick:
    """An rng whose choice takes the option the test names (the rules' other draws are seeded as usual)."""

    def __init__(self, wanted, coin=0.0):
        self.wanted, self.coin = wanted, coin

    def choice(self, options):
        return next(o for o in options if self.wanted(o))

    def random(self):
        return self.coin


@pytest.fixture(scope="module")
def document(parser):
    def _document(text):
        return parse_document(Document("t:1", "t", text), list(parser.tokens(paragraphs(text))), [], "2sents")

    return _document


@pytest.fixture(scope="module")
def labelled(parser):
    def _labelled(doc, hypothesis):
        tokens = list(hypothesis.tokens) if hypothesis.tokens else next(parser.tokens([hypothesis.text]))
        example = label_hypothesis(doc.sentences, hypothesis, tokens, "t", "t:1", doc.document_id)
        return example, {(a.rel, a.head_lemma, a.child_lemma): a.entailed for a in example.arcs}

    return _labelled


def test_evidence_removal_labels_the_dae_sentence_by_hand(document, labelled):
    """The passive restates the claim in other relations (it relates give with man, boy and book): evidence, taken
    out with it. Premise: the sentence left, which holds old->man (1) and nothing of the giving (0)."""
    doc = document(OLD_MAN + " The book was given to the boy by the old man. The old man lived in Leeds.")
    made = rules.evidence_removal(doc.sentences, 0)
    assert made.withheld == (0, 1)
    example, labels = labelled(doc, made)
    assert example.premise == "The old man lived in Leeds."
    assert example.hypothesis == OLD_MAN
    assert labels == {("amod", "man", "old"): 1, ("amod", "boy", "young"): 0, ("nsubj", "give", "man"): 0,
                      ("dative", "give", "boy"): 0, ("dobj", "give", "book"): 0}
    assert hypothesis_label(example) == 0


def test_a_restatement_in_other_relations_is_evidence_too(document):
    """The passive holds none of the claim's arcs but relates four of its five word pairs: the lead restated in the
    body, taken out; "The boy read a book." relates one pair of five and stays as context."""
    doc = document(OLD_MAN + " The boy read a book. The book was given to the boy by the old man.")
    assert rules.evidence_of(doc.sentences, 0) == {0, 2}
    assert rules.evidence_removal(doc.sentences, 0).premise == (1,)


def test_evidence_removal_takes_out_a_sentence_that_repeats_the_claim(document):
    """A lead repeated in the body (most of the claim's arcs) is evidence too: the premise is what is left."""
    doc = document(OLD_MAN + " An old man gave a young boy the book yesterday. It rained in Leeds.")
    assert rules.evidence_of(doc.sentences, 0) == {0, 1}
    assert rules.evidence_removal(doc.sentences, 0).premise == (2,)
    with pytest.raises(Unchanged, match="NoContext"):
        rules.evidence_removal(document(OLD_MAN).sentences, 0)


def test_subject_object_exchange_labels_leeds_beat_hull_by_hand(document, labelled):
    """"Hull beat Leeds": beat->Leeds as object is new (0); Hull with beat is in the other sentence, in other words
    (unlabelled); beat->Saturday is the premise's (1)."""
    doc = document("Leeds beat Hull on Saturday. Hull were beaten at home.")
    example, labels = labelled(doc, rules.subject_object(doc.sentences, 0))
    assert example.hypothesis == "Hull beat Leeds on Saturday."
    assert labels == {("nsubj", "beat", "hull"): None, ("dobj", "beat", "leed"): 0,
                      ("prep:on", "beat", "saturday"): 1}
    with pytest.raises(Unchanged, match="NoPastMainVerb"):  # "Hull met Leeds" is as true as "Leeds met Hull"
        rules.subject_object(document("Leeds met Hull on Saturday.").sentences, 0)


def test_role_exchange_with_the_next_sentence_labels_by_hand(document, labelled):
    """Names and places exchanged between two sentences: every word is the premise's, the new arc is 0."""
    doc = document("Anna Berg opened a large office in Leeds. Tom Hale closed a shop in Cardiff.")
    assert [(role, j) for role, j, _, _ in rules.role_exchanges(doc.sentences, 0)] == [("subject:NNP", 1),
                                                                                       ("place", 1)]
    place, labels = labelled(doc, rules.role_exchange(doc.sentences, 0, Pick(lambda o: o[0] == "place")))
    assert place.hypothesis == "Anna Berg opened a large office in Cardiff."
    assert labels == {("compound", "berg", "anna"): 1, ("nsubj", "open", "berg"): 1, ("amod", "office", "large"): 1,
                      ("dobj", "open", "office"): 1, ("prep:in", "open", "cardiff"): 0}
    subject, labels = labelled(doc, rules.role_exchange(doc.sentences, 0, Pick(lambda o: o[0] != "place")))
    assert subject.hypothesis == "Tom Hale opened a large office in Leeds."
    assert labels[("nsubj", "open", "hale")] == 0 and labels[("compound", "hale", "tom")] == 1


def test_role_exchange_refuses_what_may_be_the_same_thing(document):
    """"The building" may be the library it follows, and a subject with the same verb rebuilds the donor's arcs."""
    doc = document("A new library opened in Brackley. The building opened quickly.")
    assert rules.role_exchanges(doc.sentences, 1) == []
    doc = document("Anna Berg said the office would open. Tom Hale said the shop would close.")
    assert [role for role, *_ in rules.role_exchanges(doc.sentences, 0)] == []


def test_fusion_as_apposition_is_the_readme_sentence_all_arcs_entailed(document, labelled):
    """"Anna Berg is the new mayor." fused as an apposition: Berg->mayor restates the copula (1)."""
    doc = document("Anna Berg opened a large office in Leeds. Anna Berg is the new mayor.")
    example, labels = labelled(doc, rules.fusion(doc.sentences, 0, random.Random(0)))
    assert example.hypothesis == "Anna Berg, the new mayor, opened a large office in Leeds."
    assert labels == {("compound", "berg", "anna"): 1, ("nsubj", "open", "berg"): 1, ("amod", "mayor", "new"): 1,
                      ("appos", "berg", "mayor"): 1, ("amod", "office", "large"): 1, ("dobj", "open", "office"): 1,
                      ("prep:in", "open", "leeds"): 1}
    assert hypothesis_label(example) == 1


def test_fusion_of_a_pronoun_sentence_and_a_moved_phrase_left_unlabelled(document, labelled):
    """"She" is the one person named: relative clause and coordination; the re-parse that hangs "in Leeds" from
    office instead of opened leaves that arc unlabelled (the fact did not move), never 0."""
    doc = document("Anna Berg opened a large office in Leeds. She thanked her staff.")
    relative, labels = labelled(doc, rules.fusion(doc.sentences, 0, Pick(None)))  # random() 0.0: relative clause
    assert relative.hypothesis == "Anna Berg, who thanked her staff, opened a large office in Leeds."
    assert labels[("relcl", "berg", "thank")] == 1 and set(labels.values()) == {1}
    coordination, labels = labelled(doc, rules.fusion(doc.sentences, 0, Pick(None, coin=0.9)))
    assert coordination.hypothesis == "Anna Berg opened a large office in Leeds and thanked her staff."
    assert labels[("conj", "open", "thank")] == 1 and labels[("prep:in", "office", "leeds")] is None
    assert 0 not in labels.values()


def test_compression_of_the_readme_sentence_is_never_0(document, labelled):
    doc = document("Yesterday, Anna Berg, the new mayor, opened a large office in Leeds. " + OLD_MAN)
    example, labels = labelled(doc, rules.compressed(doc.sentences, 0, random.Random(0)))
    assert example.hypothesis == "Anna Berg, the new mayor, opened an office in Leeds."
    assert labels == {("compound", "berg", "anna"): 1, ("nsubj", "open", "berg"): 1, ("amod", "mayor", "new"): 1,
                      ("appos", "berg", "mayor"): 1, ("dobj", "open", "office"): 1,
                      ("prep:in", "office", "leeds"): None}


DONORS = [rules.Donor("modifier", (("former", ""),), frozenset({"former"}), "other", "1"),
          rules.Donor("apposition", (("23", ""),), frozenset({"23"}), "other", "2"),
          rules.Donor("date", (("on", " "), ("Tuesday", "")), frozenset({"on", "tuesday"}), "other", "3"),
          rules.Donor("place", (("in", " "), ("Cardiff", "")), frozenset({"in", "cardiff"}), "other", "4")]


@pytest.mark.parametrize("index, kind, hypothesis, new_arc", [
    (0, "modifier", "The old man gave the young boy a former book.", ("amod", "book", "former")),
    (0, "date", "The old man gave the young boy a book on Tuesday.", ("prep:on", "give", "tuesday")),
    (1, "apposition", "Anna Berg, 23, opened a large office.", ("appos", "berg", "23")),
    (1, "place", "Anna Berg opened a large office in Cardiff.", ("prep:in", "open", "cardiff")),
])
def test_extrinsic_attachment_labels_the_added_arc_0_and_the_rest_1(document, labelled, index, kind, hypothesis,
                                                                     new_arc):
    """"former", ", 23,", "on Tuesday", "in Cardiff" from another document: the arc they bring is 0, every other 1."""
    doc = document(OLD_MAN + " Anna Berg opened a large office.")
    made = rules.extrinsic_attachment(doc.sentences, index, DONORS, "mine", Pick(lambda o: o[0].kind == kind))
    example, labels = labelled(doc, made)
    assert example.hypothesis == hypothesis
    assert labels.pop(new_arc) == 0
    assert set(labels.values()) == {1}


def test_extrinsic_attachment_leaves_a_negated_sentence_alone(document):
    """"I don't want an iPad" entails "I don't want an iPad on Friday": under negation saying more is no error."""
    doc = document("I don't want an iPad or a Kindle. Nobody gave the young boy a book. "
                   "but i ca nt help my true feelings.")
    for index in (0, 1, 2):
        with pytest.raises(Unchanged, match="DownwardEntailing"):
            rules.extrinsic_attachment(doc.sentences, index, DONORS, "mine", random.Random(0))


def test_a_vacuous_adjective_is_never_lent(document):
    """"the actual implementation" says nothing "the implementation" does not: not an extrinsic error."""
    doc = document("The actual implementation was delayed. The former minister met the new mayor.")
    assert [(kind, pieces) for kind, pieces, _ in rules.donor_phrases(doc.sentences) if kind == "modifier"] == [
        ("modifier", (("former", ""),)), ("modifier", (("new", ""),))]


def test_fusion_needs_a_named_or_nominal_subject(document):
    """"I, who ..." is no sentence; "I" said twice is not fused."""
    doc = document("I opened a large office in Leeds. I thanked my staff.")
    with pytest.raises(Unchanged, match="NoSharedSubject"):
        rules.fusion(doc.sentences, 0, random.Random(0))


def test_extrinsic_attachment_never_borrows_from_its_own_document(document):
    doc = document(OLD_MAN)
    own = [rules.Donor(d.kind, d.pieces, d.lemmas, "mine", d.rank) for d in DONORS]
    with pytest.raises(Unchanged, match="NoDonorFits"):
        rules.extrinsic_attachment(doc.sentences, 0, own, "mine", random.Random(0))


def test_the_label_rule_branch_by_branch():
    """The generalised §4 rule on a hand-made premise view (the branches the parser rarely reaches)."""
    view = PremiseView(frozenset({("give", "book", "dobj"), ("give", "they", "nsubj")}),
                       (frozenset({"give", "boy"}),), frozenset({frozenset(("give", "book"))}),
                       frozenset({("give", "he", "nsubj")}))
    assert arc_label(("give", "book", "dobj"), True, False, "recombination", view) == 1
    assert arc_label(("give", "boy", "dative"), True, False, "recombination", view) is None  # other words
    assert arc_label(("give", "he", "nsubj"), True, True, "recombination", view) == 1  # the sentence's own "he"
    assert arc_label(("give", "they", "nsubj"), True, True, "evidence_removal", view) is None  # someone else's "they"
    assert arc_label(("give", "she", "nsubj"), True, True, "recombination", view) is None
    assert arc_label(("give", "man", "nsubj"), False, False, "extrinsic_attachment", view) is None  # re-parse moved
    assert arc_label(("give", "man", "nsubj"), True, False, "extrinsic_attachment", view) == 0
    assert arc_label(("book", "give", "relcl"), False, False, "restatement", view) == 1  # relates what it relates
    assert arc_label(("book", "man", "nmod"), False, False, "restatement", view) is None


def test_an_arc_inside_one_exchanged_phrase_is_not_new_but_an_added_phrase_is():
    """"Was quoted $350": $ -> 350 came whole from the premise's other sentence (recombination: the change did not
    make it, so a re-parse's new relation there is unlabelled, never 0); "Monday morning" from another document is
    new content (extrinsic: 0). quoted -> 350 joins old and new: made by the change in both."""
    inside, joining = Arc(2, 1, "nmod", "350", "$"), Arc(0, 2, "npadvmod", "quote", "350")
    changed = {1: 0, 2: 0}
    assert not touches_change(inside, changed, "recombination")
    assert touches_change(inside, changed, "extrinsic_attachment")
    assert touches_change(joining, changed, "recombination")
    assert touches_change(joining, changed, "extrinsic_attachment")
    assert not touches_change(Arc(0, 3, "dobj", "quote", "price"), changed, "recombination")


def test_a_document_gives_each_rule_or_a_skip_per_rule(document, parser):
    """Per rule: its hypotheses or one Skipped naming why; seeded by the document id (the same twice)."""
    doc = document(OLD_MAN)
    config = DocumentArcsConfig(seed=3)
    made = list(document_hypotheses(doc, DONORS, config))
    assert made == list(document_hypotheses(doc, DONORS, config))
    assert [(s.stage, s.reason) for s in made if not hasattr(s, "rule")] == [
        ("document_arcs:evidence_removal", "NoContext"), ("document_arcs:rewording", "NoRewrite")]  # no lexicon
    assert [(h.rule, h.text) for h in made if hasattr(h, "rule")] == [
        ("recombination", "A book gave the young boy the old man."),
        ("extrinsic_attachment", "The old man gave the young boy a book in Cardiff.")]
    restated = DocumentArcsConfig(seed=3, rules=("restatement",))  # by name only: not among the defaults
    assert [(h.rule, h.text) for h in document_hypotheses(doc, DONORS, restated)] == [
        ("restatement", "The man gave the boy a book.")]
    short = document("Too short.")
    assert {s.reason for s in document_hypotheses(short, DONORS, config)} == {"NoSentenceOf6Words"}
    assert [(s.stage, s.reason) for s in label_document(short, [], [])] == [("document_arcs", "NoExample")]


def test_compression_keeps_a_linking_verb_s_only_predicate(document):
    """"The food was good, and so was our waitress." must not become "..., and was our waitress." (found reading the
    labels): "so" is the second "was"'s predicate, "away" Neil's; "on Monday" (of "away") may still go."""
    doc = document("The food was good, and so was our waitress. Neil is away on Monday.")
    kept = rules.predicates_kept(doc.sentences[0].tokens)
    assert [t.text for t in kept if t.dep == "predicate"] == ["so"]
    assert [t.text for t in rules.predicates_kept(doc.sentences[1].tokens) if t.dep == "predicate"] == ["away"]
    looking = document("I am actually really looking forward to it.").sentences[0].tokens  # not "I am ... looking."
    assert [t.text for t in rules.predicates_kept(looking) if t.dep == "predicate"] == [
        "actually", "really", "forward", "to"]  # a verb without a predicate keeps all its adverbs and phrases
    with pytest.raises(Unchanged, match="NoModifier"):  # "so" was its one droppable modifier
        rules.compressed(doc.sentences, 0, random.Random(0))


def test_a_document_a_rule_fails_on_is_one_dead_letter_and_the_others_go_on(document, parser, monkeypatch):
    """Nothing silently dropped: a document a rule raises on leaves as a document_arcs dead letter (the batch is
    retried in halves), the other document's rows and skips go out."""
    from apache_beam.pvalue import TaggedOutput

    from entailgen.transforms.document_arcs import make
    from entailgen.transforms.parser import ParserConfig

    good = document(OLD_MAN + " Anna Berg opened a large office in Leeds.")
    bad = dataclasses.replace(document(OLD_MAN), record=Document("t:2", "t", OLD_MAN))
    made = make.document_hypotheses

    def hypotheses(doc, donors, config, *thesaurus):
        if doc.record.source_id == "t:2":
            raise IndexError("span out of range")
        return made(doc, donors, config, *thesaurus)

    monkeypatch.setattr(make, "document_hypotheses", hypotheses)
    fn = make._LabelDocuments(ParserConfig(), make.DocumentArcsConfig(seed=3))
    fn.parser = parser
    out = list(fn.process([good, bad], DONORS))
    dead = [o.value for o in out if isinstance(o, TaggedOutput) and o.tag == "dead"]
    assert [(d.source_id, d.stage, d.error_type, d.message) for d in dead] == [
        ("t:2", "document_arcs", "IndexError", "span out of range")]
    rows = [o for o in out if not isinstance(o, TaggedOutput)]
    assert rows and {r.source_id for r in rows} == {"t:1"}


def test_a_document_is_known_by_its_text_not_by_where_it_is_or_how_it_is_spaced():
    first = Document("a.jsonl:1", "a.jsonl", "Leeds beat Hull.  Anna won.\n\nTom lost.")
    again = Document("b.jsonl:7", "b.jsonl", " Leeds beat Hull. Anna won.\n \nTom lost.\n")
    assert document_key(first) == document_key(again)
    assert document_key(first) != document_key(Document("a.jsonl:2", "a.jsonl", "Leeds beat Hull. Anna won. Tom lost."))


def test_every_copy_but_the_first_by_file_and_line_is_a_duplicate():
    units = [("a.jsonl", "a.jsonl:10"), ("b.jsonl", "b.jsonl:1"), ("a.jsonl", "a.jsonl:9"), ("a.jsonl", "a.jsonl:9")]
    assert later_copies("k", units) == [(("a.jsonl", "a.jsonl:10"), "k"), (("b.jsonl", "b.jsonl:1"), "k")]
    assert later_copies("k", [("a.jsonl", "a.jsonl:3")]) == []


def test_control_characters_in_a_document_neither_join_its_sentences_nor_reach_a_row(document):
    """A document read with BEL, ESC and a form feed between its sentences splits into its four sentences, none of
    which holds a control character (the reader reads them as spaces, as it does for every family)."""
    from entailgen.transforms.io.documents import document_record
    from entailgen.transforms.io.base import ReaderConfig

    line = json.dumps({"text": "Anna Berg opened a large office in Leeds.\u0007The old mayor said it was a good day."
                               "\u001bTom Hale closed a small shop in Cardiff.\u000cThe shop sold old books."})
    doc = document(document_record(line, "t", "t:1", ReaderConfig()).text)
    assert [s.text for s in doc.sentences] == ["Anna Berg opened a large office in Leeds.",
                                               "The old mayor said it was a good day.",
                                               "Tom Hale closed a small shop in Cardiff.", "The shop sold old books."]


# Entailed rewrites (rewording, and an error rule's sentence carrying one), the entity role swap and the filter.

LEXICON = TableThesaurus(synonyms=((("large", "ADJ"), ("big",)),), hypernyms=(("book", ("publication",)),)).load()
REWORDED = ("Anna Berg, 33, opened a large office in Leeds on March 3. Tom Hale, the club's chairman, said 3 people "
            "had bought a book. Hale told reporters that 3,000 fans came.")


@pytest.mark.parametrize("variant, index, hypothesis, new_arcs", [
    ("synonym", 0, "Anna Berg, 33, opened a big office in Leeds on March 3.", {("amod", "office", "big")}),
    ("hypernym", 1, "Tom Hale, the club's chairman, said 3 people had bought a publication.",
     {("dobj", "buy", "publication")}),
    ("genitive", 1, "Tom Hale, the chairman of the club, said 3 people had bought a book.",
     {("prep:of", "chairman", "club")}),
    ("descriptor", 2, "The club's chairman told reporters that 3,000 fans came.", {("nsubj", "tell", "chairman")}),
    ("number", 1, "Tom Hale, the club's chairman, said three people had bought a book.",
     {("nummod", "people", "three")}),
    ("number", 2, "Hale told reporters that 3000 fans came.", {("nummod", "fan", "3000")}),
    ("date", 0, "Anna Berg, 33, opened a large office in Leeds on 3 March.", set()),
    ("reporting_verb", 1, "Tom Hale, the club's chairman, stated 3 people had bought a book.",
     {("nsubj", "state", "hale"), ("ccomp", "state", "buy")}),
    ("reporting_verb", 2, "Hale informed reporters that 3,000 fans came.",
     {("nsubj", "inform", "hale"), ("dobj", "inform", "reporter"), ("ccomp", "inform", "come")}),
])
def test_each_rewrite_is_entailed_arc_by_arc(document, labelled, variant, index, hypothesis, new_arcs):
    """Each rewrite worked by hand: its new arcs are not the premise's (their words or relation are new) and are 1
    only because the rewrite stands for a premise arc ("big" office for "large" office; "the club's chairman" for
    Hale, the apposition's sentence joining the premise); every other arc is the premise's (1)."""
    doc = document(REWORDED)
    made = rules.rewording(doc.sentences, index, LEXICON, Pick(lambda r: r.variant == variant), [variant])
    example, labels = labelled(doc, made)
    assert (example.hypothesis, made.variant) == (hypothesis, variant)
    assert made.premise == ((0, 1) if index == 0 else (1, 2))
    assert set(labels.values()) == {1}
    assert {a.key[2:] + a.key[:2] for a in example.arcs if not a.in_premise} == new_arcs


def test_a_rewrite_that_would_not_be_entailed_is_not_offered(document):
    """A hypernym under negation says more than the premise ("no book" does not give "no publication"); a descriptor
    two names share names neither; "told" without its hearer is no report; a year is never a count."""
    doc = document("Nobody bought a book in 2023. Tom Hale, a teacher, left. Ann Lee, a teacher, stayed. "
                   "Hale said Lee told the truth.")
    assert rewrites.hypernym_rewrites(doc.sentences[0].tokens, LEXICON) == []
    assert rewrites.number_rewrites(doc.sentences[0].tokens) == []
    assert rewrites.descriptor_rewrites(doc.sentences, 3) == []
    assert [r.pieces[0][0] for r in rewrites.reporting_rewrites(doc.sentences[3].tokens)] == ["stated"]


def test_a_genitive_reads_as_the_possessive_did(document):
    """Read in the BBC audit: "hit Europe's economies" gave "hit The economies of Europe" (a capital inside the
    sentence); "the panel of Germany of advisers", "the conference of an investors", "the spokeswoman of Senator Leahy
    Tracy Schmaler", "the group of supporters Shareholders United": an "of" phrase that cuts the head from what
    follows it, or takes its article, is not offered."""
    doc = document("Europe's economies grew. Talks hit Europe's economies. The head of Germany's panel of advisers "
                   "spoke. Mr Yushchenko told an investors' conference in Kiev. Senator Leahy's spokeswoman Tracy "
                   "Schmaler said it. Supporters' group Shareholders United said it would fight.")
    made = [[join(r.pieces) for r in rewrites.genitive_rewrites(s.tokens)] for s in doc.sentences]
    assert made == [["The economies of Europe"], ["the economies of Europe"], [], [], [], []]


def test_a_number_is_said_otherwise_only_where_it_is_a_count_of_its_own(document):
    """Read in the BBC audit: "the least feasible one" -> "1", "3G" -> "threeG", "one-quarter" -> "1-quarter", "the
    11 September attacks" -> "eleven September": never "one", never part of a longer word, never a day by its
    month; "two million" and "13,000" are counts, said otherwise."""
    doc = document("Vodafone sold two million 3G phones to one of its rivals. About two-thirds of staff left. "
                   "Since the 11 September 2001 attacks, BA has cut 13,000 jobs.")
    made = [join(r.pieces) for s in doc.sentences for r in rewrites.number_rewrites(s.tokens)]
    assert made == ["2", "13000"]


def test_a_date_is_reordered_only_where_its_day_stands_alone(document):
    """Read in the BBC audit: "16-18 December" -> "16-December 18", "from 6 to 9 January" -> "from 6 to January 9":
    the day at one end of a range is never moved; a day of its own is ("March 5" -> "5 March")."""
    doc = document("The fest runs from 6 to 9 January. YouGov polled voters on 16-18 December. A hearing is set for "
                   "16 and 17 February. The match is on March 5.")
    assert [join(r.pieces) for s in doc.sentences for r in rewrites.date_rewrites(s.tokens)] == ["5 March"]


def test_a_descriptor_stands_only_for_the_one_person_and_leaves_no_title_behind(document):
    """Read in the BBC audit: "where Hendrix grew up" (Jimi) -> "where the guitarist's stepsister grew up" (Janie
    Hendrix's apposition), "Spider-Man creator the 82-year-old", "Mrs the 57-year-old": never a last word two names
    share, never a name a title hangs from; "Lee sold a book" -> "The 82-year-old sold a book" still."""
    doc = document("Jimi Hendrix lived in Seattle. Janie Hendrix, the guitarist's stepsister, spoke. Hendrix grew up "
                   "there. Spider-Man creator Stan Lee won a battle. Lee, 82, was happy. Mrs Parker Bowles, 57, "
                   "hosted a dinner. Mrs Parker Bowles is divorced. Lee sold a book.")
    made = {k: join(r.pieces) for k in range(len(doc.sentences))
            for r in rewrites.descriptor_rewrites(doc.sentences, k)}
    assert made == {7: "The 82-year-old"}


def test_an_error_rule_s_sentence_may_carry_a_rewrite_and_its_arc_stays_1(document, parser):
    """Extrinsic attachment on a sentence first reworded ("3" -> "three"): office->three is 1 though "three" is not
    the premise's, Cardiff's arc 0: the two labels now meet at the same overlap. "large" -> "big" is not carried,
    though --rewrites names synonym (below)."""
    doc = document(OLD_MAN + " Anna Berg opened 3 large offices.")
    config = DocumentArcsConfig(seed=3, reword_share=1.0, rewrites=rewrites.REWRITES)
    made = make_one("extrinsic_attachment", doc, 1, DONORS[3:], config, LEXICON)
    assert (made.text, made.variant, made.means) == ("Anna Berg opened three large offices in Cardiff.",
                                                     "place+number", (("three", "3"),))
    example = next(label_document(doc, [made], [next(parser.tokens([made.text]))]))
    labels = {a.key: a.entailed for a in example.arcs}
    assert labels == {("berg", "anna", "compound"): 1, ("open", "berg", "nsubj"): 1, ("office", "three", "nummod"): 1,
                      ("office", "large", "amod"): 1, ("open", "office", "dobj"): 1, ("open", "cardiff", "prep:in"): 0}
    plain = make_one("extrinsic_attachment", doc, 1, DONORS[3:], DocumentArcsConfig(seed=3, reword_share=0.0),
                     LEXICON)
    assert (plain.text, plain.means) == ("Anna Berg opened 3 large offices in Cardiff.", ())


def test_an_error_rule_s_sentence_never_carries_a_synonym_or_hypernym(document):
    """Read in the BBC audit: 25 of the 32 wrong error rows were a carried WordNet word ("reducing overcrowding on the
    conduit" for tube), a 1 the document does not entail beside the rule's right 0. With both named in --rewrites and
    every sentence reworded first, a sentence whose only rewrites are "large" -> "big" and "book" -> "publication"
    takes none."""
    doc = document(OLD_MAN + " Anna Berg opened a large office. Tom Hale bought a book.")
    config = DocumentArcsConfig(seed=3, reword_share=1.0, rewrites=rewrites.REWRITES)
    made = [make_one(rule, doc, index, DONORS[3:], config, LEXICON) for rule, index in
            (("extrinsic_attachment", 1), ("extrinsic_attachment", 2), ("evidence_removal", 2))]
    assert [(m.text, m.variant, m.means) for m in made] == [
        ("Anna Berg opened a large office in Cardiff.", "place", ()),
        ("Tom Hale bought a book in Cardiff.", "place", ()),
        ("Tom Hale bought a book.", "sentence", ())]


def test_synonym_and_hypernym_run_only_when_named(document):
    """WordNet's first sense was wrong in 68 % (synonym) and 48 % (hypernym) of the BBC rows read: rewording's
    defaults offer neither, so a sentence whose only rewrites they are is left alone (NoRewrite) until --rewrites
    names them."""
    doc = document("Anna Berg opened a large office. Tom Hale bought a book.")
    assert DocumentArcsConfig().rewrites == DocumentArcsOptions().rewrites == (
        "genitive", "descriptor", "number", "date", "reporting_verb")
    for index in (0, 1):
        with pytest.raises(Unchanged, match="NoRewrite"):
            make_one("rewording", doc, index, [], DocumentArcsConfig(), LEXICON)
    named = DocumentArcsConfig(rewrites=("synonym", "hypernym"))
    assert [make_one("rewording", doc, index, [], named, LEXICON).text for index in (0, 1)] == [
        "Anna Berg opened a big office.", "Tom Hale bought a publication."]


def test_entity_role_swaps_a_name_for_another_of_its_type_the_document_names(document, labelled):
    """"Anna Berg" opened the office; "Tom Hale" is the other person the document names: "Tom Hale opened a large
    office ..." against both sentences: open->Hale is 0, the rest the premise's."""
    doc = document(REWORDED)
    assert rules.entity_swaps(doc.sentences, 0) == [(1, (0, 2), (0, 2))]
    example, labels = labelled(doc, rules.entity_role(doc.sentences, 0, random.Random(0)))
    assert example.hypothesis == "Tom Hale, 33, opened a large office in Leeds on March 3."
    assert example.generator == "document_arcs:recombination:entity_role"
    assert labels.pop(("nsubj", "open", "hale")) == 0
    assert labels.pop(("appos", "hale", "33")) == 0
    assert set(labels.values()) == {1}
    with pytest.raises(Unchanged, match="NoSameTypeName"):  # a symmetric verb: "Hale met Berg" = "Berg met Hale"
        rules.entity_role(document("Anna Berg met Tom Hale. Ann Lee, a teacher, stayed.").sentences, 0,
                          random.Random(0))


def test_entity_role_swaps_whole_names_and_keeps_their_article(document):
    """Read in the BBC audit: "Office told Reuters" (of the Office of Fair Trading), "The Inter-Poor estimates" (of
    Standard & Poor's), "The Allied Domecq said", "the Services Authority said" for the FSA: a piece of a longer name
    is never swapped in (and may be the same body), and a name after "the" takes only a name after "the"."""
    doc = document("Deutsche Boerse told Reuters about the plan. The move must wait until the Office of Fair Trading "
                   "completes an inquiry. The WSJ said that the two were ripe for consolidation. Shares in Allied "
                   "Domecq have risen. Standard & Poor's upgraded the rating.")
    swaps = [(k, join(pieces_of(s.tokens)[a:b]), join(pieces_of(doc.sentences[j].tokens)[c:d]))
             for k, s in enumerate(doc.sentences) for j, (a, b), (c, d) in rules.entity_swaps(doc.sentences, k)]
    assert swaps == [(0, "Deutsche Boerse", "Allied Domecq"), (0, "Reuters", "Allied Domecq")]


def test_the_filter_unlabels_a_negative_the_document_says_and_an_unexplained_positive(document, labelled, parser):
    """"Tom Hale opened a large office in Leeds": the third sentence has Hale open something too (open->Hale, nsubj),
    so it is no error of the document: unlabelled, counted. A 1 arc whose word ("big") neither the document nor a
    listed rewrite gives is unlabelled too."""
    doc = document("Anna Berg opened a large office in Leeds. Tom Hale closed a shop in Cardiff. "
                   "Tom Hale opened a school.")
    made = rules.role_exchange(doc.sentences, 0, Pick(lambda o: o[0] == "subject:NNP"))
    example, labels = labelled(doc, made)
    assert (example.hypothesis, labels[("nsubj", "open", "hale")]) == ("Tom Hale opened a large office in Leeds.", 0)
    kept, reasons = doubtful(example, made, next(parser.tokens([made.text])), document_view(doc.sentences))
    assert reasons == ["recombination:SupportedElsewhere"]
    assert {a.key: a.entailed for a in kept.arcs} == {**{a.key: 1 for a in kept.arcs}, ("open", "hale", "nsubj"): None}
    reworded = rules.rewording(doc.sentences, 0, LEXICON, random.Random(0), ["synonym"])
    tokens = next(parser.tokens([reworded.text]))
    example, _ = labelled(doc, reworded)
    assert doubtful(example, reworded, tokens, document_view(doc.sentences))[1] == []
    unexplained = dataclasses.replace(reworded, rule="evidence_removal", means=())  # "big" with no rewrite behind it
    assert doubtful(example, unexplained, tokens, document_view(doc.sentences))[1] == [
        "rewording:UnexplainedWord"]
    made = list(label_document(doc, [made], [next(parser.tokens([made.text]))], filter_doubtful=True))
    assert made[0] == ("document_arcs_doubtful_arcs", "recombination:SupportedElsewhere")
