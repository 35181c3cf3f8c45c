"""Entailed rewrites of a document sentence, shared by document-arcs (rewording, and what an error rule's sentence
carries) and claims (rewording): words the premise lacks but its own words entail, so that a positive arc no longer
needs its words in the premise (a detector that counts shared words cannot tell these from extrinsic errors). It
builds on claims' sentence model (claims.blocks, claims.transformations) and on nothing either family makes. Each
rewrite is a pure function on a sentence's tokens giving its candidate Rewrites; the labeller reads an arc of a
rewritten word as the arc of the word it stands for (Rewrite.means), and an arc inside a rewritten phrase as entailed
by the rule.

- synonym (asked for by name): a WordNet synonym of a singular noun or an adjective, both words' first sense the same
  synset.
- hypernym (asked for by name): a WordNet hypernym of a singular noun ("book" -> "publication"), never under negation
  or a quantifier.
- genitive: "the club's chairman" -> "the chairman of the club" (the same words, another case form).
- descriptor: a name replaced by what the document calls it in an apposition ("Martin Oyelaran, the club's chairman,"
  -> "The club's chairman said ..."; "Ana Ribeiro, 33," -> "The 33-year-old scored ...").
- number: "3" -> "three", "three" -> "3", "3,000" -> "3000".
- date: "March 3" -> "3 March" and back.
- reporting_verb: "said" -> "stated", "announced" / "added" / "explained" -> "said", "told" -> "informed".
"""
from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from entailgen.schemas.records import Token
from entailgen.transforms.arcs import children_of, span_of
from entailgen.transforms.augment.wordnet import UPOS_TO_WORDNET, WordNetConfig, load_wordnet
from entailgen.transforms.claims.blocks import Sentence, pieces_of
from entailgen.transforms.claims.transformations import DOWNWARD

Pieces = tuple[tuple[str, str], ...]
REWRITES = ("synonym", "hypernym", "genitive", "descriptor", "number", "date", "reporting_verb")
LEXICAL = ("synonym", "hypernym")  # WordNet's: the only rewrites that need a lexicon
# The defaults: WordNet's first sense is often not the word's sense here (50 BBC rows read per rewrite: synonym wrong
# in 68 %, "mobile" -> "wandering", "chief executive" -> "main executive"; hypernym in 48 %, "oil" -> "lipid"), so
# both run only when --rewrites names them.
DEFAULT_REWRITES = tuple(r for r in REWRITES if r not in LEXICAL)
# What an error rule's sentence may carry (one word, 0-2 % wrong in the same reading), whatever --rewrites says: a
# carried synonym or hypernym gave 25 of the 32 wrong error rows, a 1 on a word the document does not entail.
CARRIED = ("number", "reporting_verb")
UNINFLECTED = {"NOUN": "NN", "ADJ": "JJ"}
NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve").split()
RANGE = frozenset(("-", "–", "to", "and", "or", "&"))  # what joins a day to another in a range of days
MONTHS = frozenset("""january february march april may june july august september october november
december""".split())
# A reporting verb and what it entails in the same tense; "told" only with its hearer as object.
REPORTING = {"said": "stated", "says": "states", "stated": "said", "states": "says", "announced": "said",
             "added": "said", "explained": "said", "told": "informed"}
# Hypernyms too general to say anything a reader would call the same thing.
VAGUE = frozenset("""entity object thing whole unit matter abstraction attribute relation measure group event act
person organism causal_agent physical_entity location region artifact instrumentality""".split())


@dataclass(frozen=True)
class Rewrite:
    """Tokens [start, end) of a sentence replaced by pieces; means: (new word, the premise lemma it stands for) for the
    new words the labeller maps back; source: the other document sentence whose words entail it (a descriptor's
    apposition), None when the sentence's own words do."""

    variant: str
    start: int
    end: int
    pieces: Pieces
    means: tuple[tuple[str, str], ...] = ()
    source: Optional[int] = None


@dataclass(frozen=True)
class Thesaurus:
    """The lexicon lookups the rewrites need: (lemma, universal POS) -> synonyms, noun lemma -> hypernyms."""

    synonyms: Callable[[str, str], tuple[str, ...]]
    hypernyms: Callable[[str], tuple[str, ...]]


@dataclass(frozen=True)
class WordNetThesaurus:
    """A picklable recipe: WordNet's synonyms (a word whose own first sense is the lemma's first sense, seen in the
    sense-tagged corpus: "club" never gives "nine") and the direct hypernyms of a noun's first sense when that sense
    is seen in the corpus, loaded on the worker."""

    config: WordNetConfig = WordNetConfig()

    def load(self) -> Thesaurus:
        """Load WordNet (seconds, once per worker)."""
        reader = load_wordnet(self.config)

        @functools.lru_cache(maxsize=65536)
        def synonyms(lemma: str, upos: str) -> tuple[str, ...]:
            pos = UPOS_TO_WORDNET.get(upos)
            synsets = reader.synsets(lemma.lower(), pos=pos)[:1] if pos else []
            return tuple(sorted({w.name() for s in synsets for w in s.lemmas()
                                 if w.name().isalpha() and w.name().islower() and w.name() != lemma.lower()
                                 and w.count() > 0 and reader.synsets(w.name(), pos=pos)[:1] == [s]}))

        @functools.lru_cache(maxsize=65536)
        def hypernyms(lemma: str) -> tuple[str, ...]:
            synsets = [s for s in reader.synsets(lemma.lower(), pos="n")[:1]
                       if any(w.name() == lemma.lower() and w.count() > 0 for w in s.lemmas())]
            return tuple(sorted({n for s in synsets for h in s.hypernyms() for n in h.lemma_names()[:1]
                                 if n.isalpha() and n.islower() and n != lemma.lower() and n not in VAGUE}))

        return Thesaurus(synonyms, hypernyms)


@dataclass(frozen=True)
class TableThesaurus:
    """Synonyms and hypernyms from fixed tables: a hand-made lexicon, or a test's."""

    synonyms: tuple[tuple[tuple[str, str], tuple[str, ...]], ...] = ()
    hypernyms: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def load(self) -> Thesaurus:
        """The tables as lookups."""
        synonyms, hypernyms = dict(self.synonyms), dict(self.hypernyms)
        return Thesaurus(lambda lemma, upos: synonyms.get((lemma.lower(), upos), ()),
                         lambda lemma: hypernyms.get(lemma.lower(), ()))


def downward(tokens: Sequence[Token]) -> bool:
    """Negation or a quantifier: there a more general word is no longer entailed."""
    return any(t.text.lower() in DOWNWARD or t.lemma.lower() in DOWNWARD or t.dep == "neg" for t in tokens)


def cased(word: str, like: str) -> str:
    """The word capitalised as the word it replaces was."""
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def one_word(tokens: Sequence[Token], i: int, variant: str, word: str) -> Rewrite:
    """Token i replaced by a word (an "a" / "an" before it made to agree); the word stands for the token's lemma."""
    start, pieces = i, ((cased(word, tokens[i].text), " " if tokens[i].space_after else ""),)
    if i > 0 and tokens[i - 1].text.lower() in ("a", "an"):
        article = "an" if word[:1].lower() in "aeiou" else "a"
        start, pieces = i - 1, ((cased(article, tokens[i - 1].text), " "),) + pieces
    return Rewrite(variant, start, i + 1, pieces, ((word.lower(), tokens[i].lemma.lower()),))


def _plain(tokens: Sequence[Token], i: int) -> bool:
    """A common word standing on its own: no name, no quantifier, no noun modifying the next ("cup final"), an
    adjective only before its noun."""
    t = tokens[i]
    if t.ner != "O" or not t.text.isalpha() or t.text.lower() in DOWNWARD or t.dep == "compound":
        return False
    if t.pos == "ADJ":
        return t.dep == "amod" and t.head > i and tokens[t.head].pos == "NOUN"
    return t.head != i + 1 and not (i + 1 < len(tokens) and tokens[i + 1].pos in ("NOUN", "PROPN", "ADJ"))


def synonym_rewrites(tokens: Sequence[Token], thesaurus: Thesaurus) -> list[Rewrite]:
    """A first-sense WordNet synonym of each uninflected noun, adjective or adverb (not a name, not a quantifier)."""
    return [one_word(tokens, i, "synonym", word) for i, t in enumerate(tokens)
            if UNINFLECTED.get(t.pos) == t.tag and _plain(tokens, i)
            for word in thesaurus.synonyms(t.lemma.lower(), t.pos)]


def hypernym_rewrites(tokens: Sequence[Token], thesaurus: Thesaurus) -> list[Rewrite]:
    """A singular noun's direct WordNet hypernym: entailed where the sentence is upward entailing only."""
    if downward(tokens):
        return []
    return [one_word(tokens, i, "hypernym", word) for i, t in enumerate(tokens)
            if t.pos == "NOUN" and t.tag == "NN" and _plain(tokens, i)
            for word in thesaurus.hypernyms(t.lemma.lower())]


def genitive_rewrites(tokens: Sequence[Token]) -> list[Rewrite]:
    """"the club's chairman" -> "the chairman of the club": a possessor of a common noun moved after it with "of"."""
    out, children = [], children_of(tokens)
    for i, t in enumerate(tokens):
        head = t.head
        if t.dep != "poss" or t.pos not in ("NOUN", "PROPN") or head != i + 2 or tokens[i + 1].tag != "POS" or \
                tokens[head].pos != "NOUN" or any(tokens[c].dep in ("amod", "compound", "nummod") for c in
                                                   children.get(head, ())):
            continue
        span = span_of(tokens, i, children)
        if span is None or span[1] != i + 2 or not _of_fits(tokens, span[0], i, head, children):
            continue
        possessor = pieces_of(tokens[span[0]:i + 1])
        first = possessor[0][0]
        possessor = ((first if tokens[span[0]].pos == "PROPN" else first.lower(), possessor[0][1]),) + possessor[1:]
        noun = (tokens[head].text, " ")
        the = cased("the", tokens[span[0]].text) if span[0] == 0 else "the"  # "hit the economies of Europe"
        pieces = ((the, " "), noun, ("of", " ")) + possessor[:-1] + (
            (possessor[-1][0], " " if tokens[head].space_after else ""),)
        out.append(Rewrite("genitive", span[0], head + 1, pieces))
    return out


def _of_fits(tokens: Sequence[Token], start: int, possessive: int, head: int, children: dict) -> bool:
    """The "of" phrase reads as the genitive did: no "a" / "an" of the head caught in the possessor ("an investors'
    conference" -> "the conference of an investors"), and nothing after the head that the "of" phrase would cut from
    it: a name or quote ("Leahy's spokeswoman Tracy Schmaler"), an apposition, or an "of" of its own ("Germany's
    panel of advisers" -> "the panel of Germany of advisers")."""
    if any(t.text.lower() in ("a", "an") for t in tokens[start:possessive]):
        return False
    after = tokens[head + 1] if head + 1 < len(tokens) else None
    if after is not None and (after.pos == "PROPN" or after.text in ("'", '"', "‘", "“")):
        return False
    return not any(tokens[c].dep == "appos" or (tokens[c].dep == "prep" and tokens[c].text.lower() == "of")
                   for c in children.get(head, ()) if c > head)


def name_span(tokens: Sequence[Token], i: int) -> tuple[int, int]:
    """A proper noun with the proper nouns compounded before it ("Martin Oyelaran")."""
    start = i
    while start > 0 and tokens[start - 1].pos == "PROPN" and tokens[start - 1].dep == "compound" and \
            tokens[start - 1].head == i:
        start -= 1
    return start, i + 1


def descriptors(sentences: Sequence[Sentence]) -> dict[str, list[tuple[int, Pieces, str]]]:
    """Name (its last word) -> (sentence, descriptor pieces, descriptor head word) for each apposition the document
    sets off by commas after a name: a noun phrase ("the club's chairman"), or an age ("33" -> "33-year-old")."""
    out: dict = {}
    for j, sentence in enumerate(sentences):
        tokens, children = sentence.tokens, children_of(sentence.tokens)
        for a, t in enumerate(tokens):
            name = t.head
            if t.dep != "appos" or name < 0 or tokens[name].pos != "PROPN":
                continue
            span = span_of(tokens, a, children)
            if span is None or span[0] == 0 or tokens[span[0] - 1].text != "," or span[1] >= len(tokens) or \
                    tokens[span[1]].text not in (",", "."):
                continue
            words = tokens[span[0]:span[1]]
            if len(words) == 1 and t.text.isdigit() and 16 <= int(t.text) <= 110:
                described = (("the", " "), (f"{t.text}-year-old", "")), "old"
            elif t.pos == "NOUN" and words[0].text.lower() in ("the", "a", "an") and len(words) <= 5 and \
                    all(w.pos != "PROPN" or w.dep in ("poss", "compound") for w in words):
                described = (("the", " "),) + tuple((w.text, " " if w.space_after else "") for w in words[1:]), \
                    t.text.lower()
            else:
                continue
            out.setdefault(tokens[name].text, []).append((j, *described))
    return out


def descriptor_rewrites(sentences: Sequence[Sentence], index: int) -> list[Rewrite]:
    """The sentence's subject name replaced by the one descriptor the document gives that name in another sentence,
    when no other name shares it (neither its descriptor nor its last word: "Hendrix" may be Jimi or Janie) and no
    title hangs from it; the rewrite's own words are the apposition's ("The club's chairman said ...")."""
    given = descriptors(sentences)
    tokens, out = sentences[index].tokens, []
    for i, t in enumerate(tokens):
        found = given.get(t.text, [])
        if t.pos != "PROPN" or t.dep not in ("nsubj", "nsubjpass") or len({d[1:] for d in found}) != 1 or \
                any(name != t.text and any(d[1:] == found[0][1:] for d in ds) for name, ds in given.items()):
            continue
        j, pieces, head = found[0]
        start, end = name_span(tokens, i)
        if j == index or _held(tokens, start, end) or len(full_names(sentences, t.text)) > 1:
            continue
        pieces = spaced(((cased(pieces[0][0], "X" if start == 0 else "x"), pieces[0][1]),) + pieces[1:],
                        " " if tokens[end - 1].space_after else "")
        out.append(Rewrite("descriptor", start, end, pieces, ((head, t.lemma.lower()),), j))
    return out


def _held(tokens: Sequence[Token], start: int, end: int) -> bool:
    """A word before the name hangs from it (a title, "Spider-Man creator Stan Lee", "Mrs Parker Bowles"): the
    descriptor would leave it stranded ("Spider-Man creator the 82-year-old")."""
    return any(start <= tokens[k].head < end for k in range(start))


def full_names(sentences: Sequence[Sentence], last: str) -> set[str]:
    """The names of two words or more the document ends with the word ("Jimi Hendrix", "Janie Hendrix"): more than
    one, and "Hendrix" alone may be either."""
    out = set()
    for sentence in sentences:
        tokens = sentence.tokens
        for i, t in enumerate(tokens):
            start, end = name_span(tokens, i) if t.text == last and t.pos == "PROPN" else (i, i)
            if end - start > 1:
                out.add(" ".join(u.text for u in tokens[start:end]))
    return out


def spaced(pieces: Pieces, space: str) -> Pieces:
    """The pieces with the last one's trailing whitespace set."""
    return tuple(pieces[:-1]) + ((pieces[-1][0], space),) if pieces else pieces


def _glued(tokens: Sequence[Token], i: int) -> bool:
    """The token is part of a longer word ("3G", "one-quarter"): said otherwise it is no longer that word."""
    before = tokens[i - 1] if i > 0 and not tokens[i - 1].space_after else None
    after = tokens[i + 1] if i + 1 < len(tokens) and not tokens[i].space_after else None
    return (before is not None and (before.text[-1:].isalnum() or before.text == "-")) or \
        (after is not None and (after.text[:1].isalnum() or after.text == "-"))


def number_rewrites(tokens: Sequence[Token]) -> list[Rewrite]:
    """A count said otherwise: a digit up to twelve in words, a number word in digits, "3,000" as "3000" (never a
    date, a sum of money or a share: their own forms are fixed; never "one", as often a pronoun as a count: "the least
    feasible one"; never part of a longer word, "3G", "one-quarter"; never a day beside its month)."""
    out = []
    for i, t in enumerate(tokens):
        if t.pos != "NUM" or t.ner not in ("CARDINAL", "QUANTITY", "O"):
            continue
        word = t.text.lower()
        if word == "one" or _glued(tokens, i) or any(tokens[k].text.lower() in MONTHS for k in (i - 1, i + 1)
                                                      if 0 <= k < len(tokens)):
            continue
        if word.isdigit() and int(word) < len(NUMBER_WORDS) and not (i + 1 < len(tokens) and tokens[i + 1].text == "%"):
            new = NUMBER_WORDS[int(word)]
        elif word in NUMBER_WORDS:
            new = str(NUMBER_WORDS.index(word))
        elif re.fullmatch(r"\d{1,3}(,\d{3})+", word):
            new = word.replace(",", "")
        else:
            continue
        out.append(Rewrite("number", i, i + 1, ((cased(new, t.text), " " if t.space_after else ""),),
                           ((new, t.lemma.lower()),)))
    return out


def date_rewrites(tokens: Sequence[Token]) -> list[Rewrite]:
    """"March 3" <-> "3 March": a day of the month on either side of its month, inside one date mention (never one
    end of a range: "6 to 9 January" is no "6 to January 9")."""
    out = []
    for i in range(len(tokens) - 1):
        a, b = tokens[i], tokens[i + 1]
        if a.ner != "DATE" or b.ner != "DATE":
            continue
        month_first = a.text.lower() in MONTHS and b.text.isdigit() and 1 <= int(b.text) <= 31
        day_first = b.text.lower() in MONTHS and a.text.isdigit() and 1 <= int(a.text) <= 31
        ranged = (i > 0 and tokens[i - 1].text.lower() in RANGE) or \
            (i + 2 < len(tokens) and tokens[i + 2].text.lower() in RANGE)  # "16-18 December" -> "16-December 18"
        if (month_first or day_first) and not ranged and not (i + 2 < len(tokens) and tokens[i + 2].text == ","):
            first = cased(b.text, a.text) if i == 0 else b.text
            out.append(Rewrite("date", i, i + 2, ((first, " "), (a.text, " " if b.space_after else ""))))
    return out


def reporting_rewrites(tokens: Sequence[Token]) -> list[Rewrite]:
    """A reporting verb with the clause it reports, said with another verb of the same report ("said" -> "stated")."""
    if downward(tokens):
        return []
    out, children = [], children_of(tokens)
    for i, t in enumerate(tokens):
        new = REPORTING.get(t.text.lower())
        deps = {tokens[c].dep for c in children.get(i, ())}
        if new is None or t.pos != "VERB" or "ccomp" not in deps or (t.text.lower() == "told" and "dobj" not in deps):
            continue
        out.append(Rewrite("reporting_verb", i, i + 1, ((cased(new, t.text), " " if t.space_after else ""),),
                           ((new, t.lemma.lower()),)))
    return out


def rewrites_of(sentences: Sequence[Sentence], index: int, thesaurus: Thesaurus,
                variants: Sequence[str] = REWRITES) -> list[Rewrite]:
    """Every candidate rewrite of the sentence, of the variants asked for, in REWRITES order."""
    tokens = sentences[index].tokens
    made = {"synonym": lambda: synonym_rewrites(tokens, thesaurus),
            "hypernym": lambda: hypernym_rewrites(tokens, thesaurus),
            "genitive": lambda: genitive_rewrites(tokens),
            "descriptor": lambda: descriptor_rewrites(sentences, index),
            "number": lambda: number_rewrites(tokens),
            "date": lambda: date_rewrites(tokens),
            "reporting_verb": lambda: reporting_rewrites(tokens)}
    return [r for variant in REWRITES if variant in variants for r in made[variant]()]


def rewritten_tokens(tokens: Sequence[Token], rewrite: Rewrite) -> list[Token]:
    """A one-word rewrite applied to the tokens, the parse kept (the word's text and lemma changed): what an error
    rule starts from when its sentence carries an entailed rewrite."""
    out = list(tokens)
    offset = rewrite.end - len(rewrite.pieces)  # a rewrite that changed an article starts one token early
    for k, (word, space) in enumerate(rewrite.pieces):
        i = offset + k
        lemma = word.lower() if i == rewrite.end - 1 else out[i].lemma
        out[i] = dataclasses.replace(out[i], text=word, lemma=lemma, space_after=bool(space))
    return out
