"""FactCC's transformations, compression and extrinsic on sentences written for the test, with hand-built tokens (no
parser)."""
import random

import pytest

from entailgen.schemas.records import Token
from entailgen.transforms.claims.blocks import Sentence, entities_of
from entailgen.transforms.claims.transformations import (Edit, Unchanged, add_noise, compression, entity_swap,
                                                         extrinsic, modifier_spans, negation, pronoun_swap)


def tok(text, ner="O", pos="X", tag="", dep="", space=True):
    return Token(text, text.lower(), pos, tag, ner, 0, dep, space)


def sentence(*tokens, start=0):
    return Sentence(list(tokens), start)


class First:
    """A stand-in rng that always picks the first choice."""

    def choice(self, seq):
        return seq[0]


class Last:
    def choice(self, seq):
        return seq[-1]


# "Anna Berg met Tom Hale in Paris." / "Berg later moved to Lyon with 3 friends in 1998."
CLAIM = sentence(tok("Anna", "PERSON"), tok("Berg", "PERSON"), tok("met"), tok("Tom", "PERSON"),
                 tok("Hale", "PERSON"), tok("in"), tok("Paris", "GPE", space=False), tok(".", space=False))
OTHER = sentence(tok("Berg", "PERSON"), tok("later"), tok("moved"), tok("to"), tok("Lyon", "GPE"), tok("with"),
                 tok("3", "CARDINAL"), tok("friends"), tok("in"), tok("1998", "DATE", space=False),
                 tok(".", space=False), start=33)
DOCUMENT = [CLAIM, OTHER]


def test_mentions_are_runs_of_one_entity_type():
    assert [(e.text, e.label, e.sentence) for e in entities_of(DOCUMENT)] == [
        ("Anna Berg", "PERSON", 0), ("Tom Hale", "PERSON", 0), ("Paris", "GPE", 0), ("Berg", "PERSON", 1),
        ("Lyon", "GPE", 1), ("3", "CARDINAL", 1), ("1998", "DATE", 1)]


def test_entity_swap_takes_a_same_group_mention_of_the_same_document():
    edit = entity_swap("entity_swap", CLAIM, 0, entities_of(DOCUMENT), First())
    # "Anna Berg" is picked first; "Berg" is inside it and it is itself: the first of Lyon, Paris, Tom Hale is Lyon.
    assert edit.text == "Lyon met Tom Hale in Paris."
    assert edit.char_span() == [0, 4] and edit.source_span == (0, 2)
    replacements = {entity_swap("entity_swap", CLAIM, 0, entities_of(DOCUMENT), random.Random(seed)).text
                    for seed in range(60)}
    assert replacements == {
        "Lyon met Tom Hale in Paris.", "Paris met Tom Hale in Paris.", "Tom Hale met Tom Hale in Paris.",
        "Anna Berg met Lyon in Paris.", "Anna Berg met Paris in Paris.", "Anna Berg met Berg in Paris.",
        "Anna Berg met Anna Berg in Paris.",
        "Anna Berg met Tom Hale in Lyon.", "Anna Berg met Tom Hale in Anna Berg.", "Anna Berg met Tom Hale in Berg.",
        "Anna Berg met Tom Hale in Tom Hale."}  # never 3 or 1998 (other groups), never Berg for Anna Berg


def test_a_date_is_never_replaced_by_a_number():
    claim = sentence(tok("It"), tok("opened"), tok("on"), tok("4", "DATE"), tok("May", "DATE"),
                     tok("2019", "DATE"), tok("with"), tok("3", "CARDINAL"), tok("lanes", space=False),
                     tok(".", space=False))
    numbers_only = [claim, sentence(tok("It"), tok("cost"), tok("12", "MONEY"), tok("million", "MONEY"))]
    with pytest.raises(Unchanged, match="NoReplacement"):
        entity_swap("date_swap", claim, 0, entities_of(numbers_only), random.Random(0))
    with_a_date = numbers_only + [sentence(tok("in"), tok("June", "DATE"))]
    dates = {entity_swap("date_swap", claim, 0, entities_of(with_a_date), random.Random(s)).text for s in range(20)}
    assert dates == {"It opened on June with 3 lanes."}
    numbers = {entity_swap("number_swap", claim, 0, entities_of(with_a_date), random.Random(s)).text
               for s in range(20)}
    assert numbers == {"It opened on 4 May 2019 with 12 million lanes."}


def test_a_mention_the_claim_parsed_alone_labels_otherwise_is_not_swapped():
    """ "He has played the violin since he was six." in a document that calls "six" a DATE; parsed alone the claim
    calls it a CARDINAL: no date swap ("since he was an hour"); where the claim agrees, the swap goes on."""
    claim = sentence(tok("He"), tok("has"), tok("played"), tok("the"), tok("violin"), tok("since"), tok("he"),
                     tok("was"), tok("six", "DATE", space=False), tok(".", space=False))
    document = [claim, sentence(tok("He"), tok("practises"), tok("for"), tok("an", "TIME"), tok("hour", "TIME"))]
    alone = ["O"] * 8 + ["CARDINAL", "O"]
    with pytest.raises(Unchanged, match="OwnParseDisagrees"):
        entity_swap("date_swap", claim, 0, entities_of(document), First(), alone)
    agreeing = ["O"] * 8 + ["DATE", "O"]
    assert entity_swap("date_swap", claim, 0, entities_of(document), First(), agreeing).text == \
        "He has played the violin since he was an hour."


def test_no_mention_of_the_group_is_unchanged():
    with pytest.raises(Unchanged, match="NoMention"):
        entity_swap("date_swap", CLAIM, 0, entities_of(DOCUMENT), random.Random(0))


AUX_TAGS = {"can": "MD", "ca": "MD", "will": "MD", "wo": "MD", "would": "MD", "did": "VBD", "were": "VBD",
            "is": "VBZ", "be": "VB"}


def clause(*rows):
    """Tokens from (text, pos, head, dep) rows as en_core_web_sm parses the sentence (root: head -1; auxiliaries
    tagged as it tags them); no space before n't or punctuation."""
    return [Token(text, text.lower(), pos, AUX_TAGS.get(text.lower(), ""), "O", head, dep,
                  k + 1 < len(rows) and rows[k + 1][0] not in ("n't", ".", "?"))
            for k, (text, pos, head, dep) in enumerate(rows)]


CAN_WIN = clause(("He", "PRON", 2, "nsubj"), ("can", "AUX", 2, "aux"), ("win", "VERB", -1, "ROOT"),
                 (".", "PUNCT", 2, "punct"))


def test_negation_of_can_gives_cannot():
    edit = negation(CAN_WIN)
    assert edit.text == "He cannot win."
    assert edit.char_span() == [3, 9] and edit.source_span == (1, 2)


def test_negation_of_didnt_gives_did():
    edit = negation(clause(("She", "PRON", 3, "nsubj"), ("did", "AUX", 3, "aux"), ("n't", "PART", 3, "neg"),
                           ("see", "VERB", -1, "ROOT"), ("him", "PRON", 3, "dobj"), (".", "PUNCT", 3, "punct")))
    assert edit.text == "She did see him."
    assert edit.char_span() == [4, 7] and edit.source_span == (1, 3)


@pytest.mark.parametrize("tokens, expected", [
    (clause(("I", "PRON", 3, "nsubj"), ("ca", "AUX", 3, "aux"), ("n't", "PART", 3, "neg"), ("go", "VERB", -1, "ROOT"),
            (".", "PUNCT", 3, "punct")), "I can go."),
    (clause(("We", "PRON", 3, "nsubj"), ("wo", "AUX", 3, "aux"), ("n't", "PART", 3, "neg"),
            ("stop", "VERB", -1, "ROOT"), (".", "PUNCT", 3, "punct")), "We will stop."),
    (clause(("It", "PRON", 1, "nsubj"), ("is", "AUX", -1, "ROOT"), ("late", "ADJ", 1, "acomp"),
            (".", "PUNCT", 1, "punct")), "It is not late."),
    (clause(("It", "PRON", 1, "nsubj"), ("is", "AUX", -1, "ROOT"), ("not", "PART", 1, "neg"),
            ("late", "ADJ", 1, "acomp"), (".", "PUNCT", 1, "punct")), "It is late."),
    # "They were told it can wait.": the main clause's "were", not the "can" of the clause it governs
    (clause(("They", "PRON", 2, "nsubjpass"), ("were", "AUX", 2, "auxpass"), ("told", "VERB", -1, "ROOT"),
            ("it", "PRON", 5, "nsubj"), ("can", "AUX", 5, "aux"), ("wait", "VERB", 2, "ccomp"),
            (".", "PUNCT", 2, "punct")), "They were not told it can wait."),
    # a reported clause is negated where the main clause has no auxiliary: what was said is what a claim states
    (clause(("The", "DET", 1, "det"), ("company", "NOUN", 2, "nsubj"), ("said", "VERB", -1, "ROOT"),
            ("it", "PRON", 5, "nsubj"), ("would", "AUX", 5, "aux"), ("cut", "VERB", 2, "ccomp"),
            ("jobs", "NOUN", 5, "dobj"), (".", "PUNCT", 2, "punct")), "The company said it would not cut jobs."),
])
def test_negation_changes_the_main_clauses_auxiliary(tokens, expected):
    assert negation(tokens).text == expected


# Issue #55's sentences, as en_core_web_sm parses them.
MAYOR_TO_BE = clause(("He", "PRON", 1, "nsubj"), ("wants", "VERB", -1, "ROOT"), ("to", "PART", 3, "aux"),
                     ("be", "AUX", 1, "xcomp"), ("the", "DET", 6, "det"), ("next", "ADJ", 6, "amod"),
                     ("mayor", "NOUN", 3, "attr"), (".", "PUNCT", 1, "punct"))
MUSEUM = clause(("Is", "AUX", -1, "ROOT"), ("the", "DET", 2, "det"), ("museum", "NOUN", 0, "nsubj"),
                ("open", "ADJ", 0, "acomp"), ("on", "ADP", 3, "prep"), ("Sundays", "PROPN", 4, "pobj"),
                ("?", "PUNCT", 0, "punct"))
ONLY_THEN = clause(("Only", "ADV", 1, "advmod"), ("then", "ADV", 4, "advmod"), ("did", "AUX", 4, "aux"),
                   ("he", "PRON", 4, "nsubj"), ("leave", "VERB", -1, "ROOT"), ("the", "DET", 6, "det"),
                   ("city", "NOUN", 4, "dobj"), (".", "PUNCT", 4, "punct"))


def test_an_auxiliary_outside_the_main_clause_is_not_negated():
    """ "He wants to be the next mayor." once became "He wants to be not the next mayor.": its "be" is in the
    infinitive, and the main clause has no auxiliary to negate (do-support is not FactCC's rule); nor has "They left
    early.", and a relative clause's is not the sentence's."""
    with pytest.raises(Unchanged, match="NoAuxiliary"):
        negation(MAYOR_TO_BE)
    with pytest.raises(Unchanged, match="NoAuxiliary"):
        negation(clause(("They", "PRON", 1, "nsubj"), ("left", "VERB", -1, "ROOT"), ("early", "ADV", 1, "advmod")))
    with pytest.raises(Unchanged, match="NoAuxiliary"):  # "People who cannot swim survived the flood." is no denial
        negation(clause(("People", "NOUN", 4, "nsubj"), ("who", "PRON", 3, "nsubj"), ("can", "AUX", 3, "aux"),
                        ("swim", "VERB", 0, "relcl"), ("survived", "VERB", -1, "ROOT"), ("the", "DET", 6, "det"),
                        ("flood", "NOUN", 4, "dobj"), (".", "PUNCT", 4, "punct")))
    with pytest.raises(Unchanged, match="NoAuxiliary"):  # a reported infinitive: not "to be not finished"
        negation(clause(("Officials", "NOUN", 1, "nsubj"), ("expect", "VERB", -1, "ROOT"), ("the", "DET", 3, "det"),
                        ("bridge", "NOUN", 6, "nsubjpass"), ("to", "PART", 6, "aux"), ("be", "AUX", 6, "auxpass"),
                        ("finished", "VERB", 1, "ccomp"), ("in", "ADP", 6, "prep"), ("May", "PROPN", 7, "pobj"),
                        (".", "PUNCT", 1, "punct")))


@pytest.mark.parametrize("tokens", [MUSEUM, ONLY_THEN], ids=["question", "inverted"])
def test_a_question_is_not_negated(tokens):
    """ "Is the museum open on Sundays?" once became "Is not the museum open on Sundays?"; "Only then did he leave"
    would become "Only then did not he leave"."""
    with pytest.raises(Unchanged, match="Question"):
        negation(tokens)


def pron(text, tag="PRP", dep="nsubj", space=True):
    return Token(text, text.lower(), "PRON", tag, "O", 0, dep, space)


def test_pronoun_swap_keeps_sentence_initial_case():
    tokens = [pron("He"), tok("won"), tok("the"), tok("race", space=False), tok(".", space=False)]
    assert pronoun_swap(tokens, Last()).text == "They won the race."
    assert pronoun_swap(tokens, First()).text == "I won the race."
    quoted = [tok('"', space=False), pron("She"), tok("left", space=False), tok('"', space=False)]
    assert pronoun_swap(quoted, Last()).text == '"They left"'


def test_pronoun_swap_mid_sentence_stays_lower_case_and_within_its_class():
    tokens = [tok("Then"), pron("he"), tok("thanked"), pron("her", dep="dobj"), tok("and"), pron("her", tag="PRP$"),
              tok("team")]
    class Pick:
        def __init__(self, found, word):
            self.calls, self.found, self.word = 0, found, word

        def choice(self, seq):
            self.calls += 1
            return seq[self.found] if self.calls == 1 else self.word(seq)
    assert pronoun_swap(tokens, Pick(0, lambda s: s[-1])).text == "Then they thanked her and her team"
    assert pronoun_swap(tokens, Pick(1, lambda s: s[-1])).text == "Then he thanked them and her team"
    assert pronoun_swap(tokens, Pick(2, lambda s: s[-1])).text == "Then he thanked her and their team"
    assert pronoun_swap([pron("I"), tok("saw"), pron("myself", dep="dobj")], Pick(1, lambda s: s[0])).text == \
        "I saw yourself"
    with pytest.raises(Unchanged, match="NoPronoun"):
        pronoun_swap([tok("Rain"), tok("fell")], First())


def spacy_rows(*rows, ner=()):
    """Tokens from "text lemma POS TAG head dep" rows as en_core_web_sm parses the sentence; no space before
    punctuation; ner: the positions spaCy tags DATE."""
    split = [r.split() for r in rows]
    return [Token(text, lemma, pos, tag, "DATE" if k in ner else "O", int(head), dep,
                  k + 1 < len(split) and split[k + 1][2] != "PUNCT")
            for k, (text, lemma, pos, tag, head, dep) in enumerate(split)]


# Issue #55's "It was raining" (swapped to "I was raining"), and more dummy "it"s, as en_core_web_sm parses them.
RAINING = spacy_rows("It it PRON PRP 2 nsubj", "was be AUX VBD 2 aux", "raining rain VERB VBG -1 ROOT",
                     "when when SCONJ WRB 5 advmod", "they they PRON PRP 5 nsubj", "left leave VERB VBD 2 advcl",
                     "the the DET DT 7 det", "station station NOUN NN 5 dobj", ". . PUNCT . 2 punct")
LIKELY = spacy_rows("It it PRON PRP 1 nsubj", "is be AUX VBZ -1 ROOT", "likely likely ADJ JJ 1 acomp",
                    "that that SCONJ IN 6 mark", "he he PRON PRP 6 nsubj", "will will AUX MD 6 aux",
                    "win win VERB VB 2 ccomp", ". . PUNCT . 1 punct")
SEEMS = spacy_rows("It it PRON PRP 1 nsubj", "seems seem VERB VBZ -1 ROOT", "that that SCONJ IN 4 mark",
                   "he he PRON PRP 4 nsubj", "left leave VERB VBD 1 ccomp", "early early ADV RB 4 advmod",
                   ". . PUNCT . 1 punct")
RECALL = spacy_rows("It it PRON PRP 1 nsubj", "said say VERB VBD -1 ROOT", "that that SCONJ IN 5 mark",
                    "it it PRON PRP 5 nsubj", "would would AUX MD 5 aux", "recall recall VERB VB 1 ccomp",
                    "the the DET DT 7 det", "cars car NOUN NNS 5 dobj", ". . PUNCT . 1 punct")
RAINED = spacy_rows("It it PRON PRP 1 nsubj", "rained rain VERB VBD -1 ROOT", "heavily heavily ADV RB 1 advmod",
                    ". . PUNCT . 1 punct")
COLD = spacy_rows("It it PRON PRP 1 nsubj", "was be AUX VBD -1 ROOT", "cold cold ADJ JJ 1 acomp",
                  "in in ADP IN 2 prep", "Leeds Leeds PROPN NNPS 3 pobj", "that that DET DT 6 det",
                  "night night NOUN NN 1 npadvmod", ". . PUNCT . 1 punct")


@pytest.mark.parametrize("tokens, expected", [
    (RAINING, "It was raining when I left the station."),  # not "I was raining when they left the station."
    (LIKELY, "It is likely that I will win."),
    (SEEMS, "It seems that I left early."),
    (RECALL, "I said that it would recall the cars."),  # a company's "it" refers: it is swapped
])
def test_pronoun_swap_leaves_a_dummy_it_alone(tokens, expected):
    assert pronoun_swap(tokens, First()).text == expected


@pytest.mark.parametrize("tokens", [RAINED, COLD], ids=["weather-verb", "weather-word"])
def test_a_dummy_it_alone_is_unchanged(tokens):
    with pytest.raises(Unchanged, match="DummyIt"):
        pronoun_swap(tokens, First())


NEGATED = Edit((("She", " "), ("did", " "), ("see", " "), ("him", ""), (".", "")), (1, 2), (1, 3))


def test_noise_never_touches_the_changed_span():
    assert add_noise(NEGATED, random.Random(0), p=1.0, delete=1.0).text == "did"
    duplicated = add_noise(NEGATED, random.Random(0), p=1.0, delete=0.0)
    assert duplicated.text == "She She did see see him him. ."
    assert duplicated.span == (2, 3) and duplicated.char_span() == [8, 11]
    for seed in range(200):
        try:
            noised = add_noise(NEGATED, random.Random(seed), p=0.3)
        except Unchanged:
            continue
        start, end = noised.char_span()
        assert noised.text[start:end] == "did" and noised.pieces[noised.span[0]] == ("did", " ")


class Noise:
    """A stand-in rng for add_noise: pieces at the given positions deleted or duplicated, all others kept."""

    def __init__(self, delete=(), duplicate=()):
        self.draws = []
        self.delete, self.duplicate = set(delete), set(duplicate)

    def plan(self, count):
        for i in range(count):  # random() once for a kept piece, twice (noised? deleted?) for a noised one
            self.draws += [0.0, 0.0] if i in self.delete else [0.0, 0.99] if i in self.duplicate else [0.99]
        return self

    def random(self):
        return self.draws.pop(0)


# "The talks in Brussels on 1996-08-24 were chaired by Jean-Louis Dupont." as spaCy's en_core_web_sm tokenises it
CHAIRED = Edit((("The", " "), ("talks", " "), ("in", " "), ("Brussels", " "), ("on", " "), ("1996", ""), ("-", ""),
                ("08", ""), ("-", ""), ("24", " "), ("were", " "), ("chaired", " "), ("by", " "), ("Jean", ""),
                ("-", ""), ("Louis", " "), ("Dupont", ""), (".", "")))


def test_noise_never_glues_the_words_around_a_deleted_one():
    """FactCC's noise puts a space after the word before a deletion: "1996-08 24", not the new token "1996-0824"."""
    noised = add_noise(CHAIRED, Noise(delete=[8, 14], duplicate=[13]).plan(18))
    assert noised.text == "The talks in Brussels on 1996-08 24 were chaired by Jean Jean Louis Dupont."
    assert add_noise(CHAIRED, Noise(delete=[7]).plan(18)).text == \
        "The talks in Brussels on 1996- -24 were chaired by Jean-Louis Dupont."


def test_noise_that_changes_nothing_is_unchanged():
    with pytest.raises(Unchanged, match="NothingChanged"):
        add_noise(NEGATED, random.Random(0), p=0.0)


UPOS = {"NN": "NOUN", "NNS": "NOUN", "NNP": "PROPN", "JJ": "ADJ", "RB": "ADV", "CD": "NUM", "VBD": "VERB",
        "VBP": "VERB", "PRP": "PRON", "IN": "ADP", "DT": "DET"}


def parsed(*rows):
    """Tokens from (text, tag, dep, head, ner) rows; the last token of each row sits flush against the next only
    where the next is punctuation."""
    return [Token(text, text.lower(), UPOS.get(tag, "X"), tag, ner, head, dep,
                  k + 1 < len(rows) and rows[k + 1][0] not in ",.")
            for k, (text, tag, dep, head, ner) in enumerate(rows)]


# "Yesterday, Anna Berg, the new mayor, opened a large office in Leeds."
MAYOR = parsed(("Yesterday", "NN", "npadvmod", 9, "DATE"), (",", ",", "punct", 9, "O"),
               ("Anna", "NNP", "compound", 3, "PERSON"), ("Berg", "NNP", "nsubj", 9, "PERSON"),
               (",", ",", "punct", 3, "O"), ("the", "DT", "det", 7, "O"), ("new", "JJ", "amod", 7, "O"),
               ("mayor", "NN", "appos", 3, "O"), (",", ",", "punct", 3, "O"), ("opened", "VBD", "ROOT", -1, "O"),
               ("a", "DT", "det", 12, "O"), ("large", "JJ", "amod", 12, "O"), ("office", "NN", "dobj", 9, "O"),
               ("in", "IN", "prep", 9, "O"), ("Leeds", "NNP", "pobj", 13, "GPE"), (".", ".", "punct", 9, "O"))


class Everything:
    """A stand-in rng that drops as many modifiers as it may, the first ones first."""

    def randint(self, low, high):
        return high

    def sample(self, seq, k):
        return list(seq)[:k]


def test_compression_drops_modifiers_with_the_commas_that_set_them_off():
    assert modifier_spans(MAYOR) == [(0, 1), (6, 7), (5, 8), (11, 12), (13, 15)]
    # the first three: "Yesterday" and its comma, "new", the apposition "the new mayor" and both its commas
    assert compression(MAYOR, Everything()).text == "Anna Berg opened a large office in Leeds."
    # all five: "a large office" becomes "an office", "in Leeds" leaves no space before the full stop
    edit = compression(MAYOR, Everything(), at_most=5)
    assert edit.text == "Anna Berg opened an office." and edit.span is None and edit.source_span is None
    assert {compression(MAYOR, random.Random(seed)).text for seed in range(40)} >= {
        "Yesterday, Anna Berg, the mayor, opened a large office in Leeds.",
        "Anna Berg, the new mayor, opened a large office in Leeds."}


def test_compression_keeps_what_a_shorter_sentence_would_not_say():
    # "The number of people who smoke rose by about 50 in New York." ("New" as an adjective of the name)
    tokens = parsed(("The", "DT", "det", 1, "O"), ("number", "NN", "nsubj", 6, "O"), ("of", "IN", "prep", 1, "O"),
                    ("people", "NNS", "pobj", 2, "O"), ("who", "WP", "nsubj", 5, "O"),
                    ("smoke", "VBP", "relcl", 3, "O"), ("rose", "VBD", "ROOT", -1, "O"), ("by", "IN", "prep", 6, "O"),
                    ("about", "RB", "advmod", 9, "O"), ("50", "CD", "pobj", 7, "CARDINAL"),
                    ("in", "IN", "prep", 6, "O"), ("New", "NNP", "amod", 12, "GPE"), ("York", "NNP", "pobj", 10, "GPE"),
                    ("more", "RBR", "advmod", 6, "O"), (".", ".", "punct", 6, "O"))
    # "of people", the restrictive "who smoke", "about" (of a number), "New" (of a name), "more" (a comparative) stay
    assert modifier_spans(tokens) == [(7, 10), (10, 13)]
    assert compression(tokens, Everything()).text == "The number of people who smoke rose more."


@pytest.mark.parametrize("word", ["not", "never", "only", "every"])
def test_compression_leaves_a_downward_entailing_sentence_alone(word):
    """ "Anna did not open a large office" does not say "Anna did not open an office"."""
    tokens = parsed(("Anna", "NNP", "nsubj", 2, "PERSON"), (word, "RB", "advmod", 2, "O"),
                    ("opened", "VBD", "ROOT", -1, "O"), ("a", "DT", "det", 4, "O"), ("large", "JJ", "amod", 4, "O"),
                    ("office", "NN", "dobj", 2, "O"), (".", ".", "punct", 2, "O"))
    with pytest.raises(Unchanged, match="DownwardEntailing"):
        compression(tokens, Everything())


def test_extrinsic_claims_what_the_compression_leaves_out():
    """The full sentence against its compression adds the dropped modifiers' content words, never a comma or "the"."""
    kept, added = extrinsic(MAYOR, Everything())
    assert kept.text == "Anna Berg opened a large office in Leeds." and added == {"yesterday", "new", "mayor"}
    kept, added = extrinsic(MAYOR, Everything(), at_most=5)
    assert kept.text == "Anna Berg opened an office." and added == {"yesterday", "new", "mayor", "large", "leeds"}


def test_extrinsic_needs_a_content_word_to_add():
    """ "The dog slept in it." says nothing "The dog slept." does not, in words a summary could be caught by."""
    tokens = parsed(("The", "DT", "det", 1, "O"), ("dog", "NN", "nsubj", 2, "O"), ("slept", "VBD", "ROOT", -1, "O"),
                    ("in", "IN", "prep", 2, "O"), ("it", "PRP", "pobj", 3, "O"), (".", ".", "punct", 2, "O"))
    assert compression(tokens, Everything()).text == "The dog slept."
    with pytest.raises(Unchanged, match="NoContentAdded"):
        extrinsic(tokens, Everything())
