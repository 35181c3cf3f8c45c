"""The four document-arcs rules as pure functions on a parsed document's sentences: each returns the Hypothesis it
made (labels.py labels its arcs), or raises Unchanged with the reason it found nothing to make.

1. evidence_removal: a document sentence against its context with the sentences that support it taken out (the DAE
   paper's hallucination augmentation at document scale; MiniCheck D2C's dropping, labelled by arcs, not an LLM).
2. recombination: subject and object exchanged inside a sentence, or a phrase exchanged for one of the same role
   from the next or previous sentence; every word is still the premise block's (Maynez et al.'s intrinsic errors).
3. restatement: two sentences about the same subject fused (apposition, relative clause, coordination), or one
   compressed: entailed, and worded unlike any one sentence of the premise.
4. extrinsic_attachment: a modifier, apposition or prepositional phrase from another document of the run attached to
   a sentence (Maynez et al.'s extrinsic errors, built of plausible parts).
5. rewording: one entailed rewrite of a sentence (transforms/rewrites.py): words its premise lacks but entails.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional, Sequence

from entailgen.schemas.records import Token
from entailgen.transforms.claims.blocks import Sentence, join, pieces_of
from entailgen.transforms.claims.transformations import DOWNWARD, SYMMETRIC, Unchanged, compression
from entailgen.transforms.arcs import arc_keys, children_of, extract_arcs, span_of
from entailgen.transforms.document_arcs.labels import (EVIDENCE_REMOVAL, EXTRINSIC, RECOMBINATION, RESTATEMENT,
                                                       REWORDING, Hypothesis)
from entailgen.transforms.rewrites import REWRITES, Thesaurus, name_span, rewrites_of

Pieces = tuple[tuple[str, str], ...]
NOMINAL = ("NOUN", "PROPN")
ROLE_OF_NER = {"CARDINAL": "number", "MONEY": "number", "PERCENT": "number", "QUANTITY": "number",
               "DATE": "date", "TIME": "date", "GPE": "place", "LOC": "place", "FAC": "place"}
PLACE_NER, DATE_NER = ("GPE", "LOC", "FAC"), ("DATE", "TIME")
PREPOSITIONS = ("on", "in", "at")
MAX_DONOR_TOKENS = 6
# Adjectives that add nothing a reader would call new ("the actual implementation", "the current price"): never lent.
VACUOUS = frozenset("""actual current real present existing certain particular specific given respective same whole
entire full total overall general usual normal typical own""".split())


def root_of(tokens: Sequence[Token]) -> Optional[int]:
    """The sentence's root (head -1)."""
    return next((i for i, t in enumerate(tokens) if t.head < 0), None)


def child_with(tokens: Sequence[Token], head: int, deps: Sequence[str]) -> Optional[int]:
    """The head's first dependent with one of the relations."""
    return next((i for i, t in enumerate(tokens) if t.head == head and t.dep in deps), None)


def recased(pieces: Pieces, tokens: Sequence[Token], first: bool) -> Pieces:
    """A phrase recased for where it now stands: capitalised at a sentence start, lower-cased elsewhere unless it
    begins with a name (a proper noun, a named entity or "I")."""
    if not pieces:
        return pieces
    word, space = pieces[0]
    keep = tokens[0].pos == "PROPN" or tokens[0].ner != "O" or word == "I"
    word = word[:1].upper() + word[1:] if first else (word if keep else word[:1].lower() + word[1:])
    return ((word, space),) + tuple(pieces[1:])


def spaced(pieces: Pieces, space: str) -> Pieces:
    """The pieces with the last one's trailing whitespace set."""
    return tuple(pieces[:-1]) + ((pieces[-1][0], space),) if pieces else pieces


def assemble(parts: Sequence[tuple[Pieces, bool]]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """(text, [start, end) characters of the changed parts) of (pieces, changed?) parts in order."""
    position, changed, pieces = 0, [], []
    for part, is_changed in parts:
        length = sum(len(t) + len(w) for t, w in part)
        if is_changed and part:
            changed.append((position, position + len(join(part))))
        position += length
        pieces.extend(part)
    return join(pieces), tuple(changed)


def block_of(index: int, count: int) -> tuple[int, ...]:
    """The two-sentence block (SummaC's 2sents) that starts at the sentence, or ends there when it is the last."""
    if count == 1:
        return (index,)
    return (index, index + 1) if index + 1 < count else (index - 1, index)


# 1. Evidence removal.

def evidence_of(sentences: Sequence[Sentence], index: int, share: float = 0.5) -> set[int]:
    """The sentence and every other that holds at least `share` of its arcs, or relates (in any relation, either way)
    the words of at least `share` of them: a lead restated in the body, in the passive or other words."""
    keys = arc_keys(extract_arcs(sentences[index].tokens))
    if not keys:
        raise Unchanged("NoArcs")
    pairs = [frozenset((h, c)) for h, c, _ in keys]

    def restates(other: frozenset) -> bool:
        linked = {frozenset((h, c)) for h, c, _ in other}
        return len(keys & other) >= share * len(keys) or sum(p in linked for p in pairs) >= share * len(pairs)

    return {index} | {j for j, s in enumerate(sentences)
                      if j != index and restates(arc_keys(extract_arcs(s.tokens)))}


def evidence_removal(sentences: Sequence[Sentence], index: int) -> Hypothesis:
    """The sentence as a claim against its context, the nearest sentence before and after it that is not evidence
    for it: the arcs the context holds are 1, those it lost 0."""
    evidence = evidence_of(sentences, index)
    before = next((j for j in range(index - 1, -1, -1) if j not in evidence), None)
    after = next((j for j in range(index + 1, len(sentences)) if j not in evidence), None)
    context = tuple(j for j in (before, after) if j is not None)
    if not context:
        raise Unchanged("NoContext")
    sentence = sentences[index]
    return Hypothesis(EVIDENCE_REMOVAL, "sentence", sentence.text, context, None, tokens=tuple(sentence.tokens),
                      withheld=tuple(sorted(evidence)))


# 2. Recombination.

def subject_object(sentences: Sequence[Sentence], index: int) -> Hypothesis:
    """Subject and object of a past-tense main verb exchanged ("Leeds beat Hull" -> "Hull beat Leeds"): past simple,
    so the verb agrees with either; nouns only (a pronoun would change case); never a symmetric verb."""
    tokens = sentences[index].tokens
    root = root_of(tokens)
    if root is None or tokens[root].tag != "VBD" or tokens[root].lemma.lower() in SYMMETRIC or any(
            t.head == root and t.dep in ("aux", "auxpass", "neg") for t in tokens):
        raise Unchanged("NoPastMainVerb")
    subject, obj = child_with(tokens, root, ("nsubj",)), child_with(tokens, root, ("dobj",))
    if subject is None or obj is None or tokens[subject].pos not in NOMINAL or tokens[obj].pos not in NOMINAL:
        raise Unchanged("NoSubjectAndObject")
    children = children_of(tokens)
    s, o = span_of(tokens, subject, children), span_of(tokens, obj, children)
    if s is None or o is None or not s[1] <= root < o[0]:
        raise Unchanged("NoSubjectAndObject")
    pieces = pieces_of(tokens)
    first = s[0] == 0
    new_subject = spaced(recased(pieces[o[0]:o[1]], tokens[o[0]:o[1]], first), pieces[s[1] - 1][1])
    new_object = spaced(recased(pieces[s[0]:s[1]], tokens[s[0]:s[1]], False), pieces[o[1] - 1][1])
    text, changed = assemble([(pieces[:s[0]], False), (new_subject, True), (pieces[s[1]:o[0]], False),
                              (new_object, True), (pieces[o[1]:], False)])
    return Hypothesis(RECOMBINATION, "subject_object", text, block_of(index, len(sentences)), index, changed)


def role_phrases(tokens: Sequence[Token]) -> list[tuple[str, int, int]]:
    """(role, start, end) of the phrases recombination may exchange: the main verb's subject and object (role keyed
    by the head's tag, so a plural never takes a singular's place), a single adjective, and number, date and place
    mentions."""
    phrases, children, root = [], children_of(tokens), root_of(tokens)
    for role, dep in (("subject", "nsubj"), ("object", "dobj")):
        i = child_with(tokens, root, (dep,)) if root is not None else None
        span = span_of(tokens, i, children) if i is not None and tokens[i].pos in NOMINAL else None
        if span:
            phrases.append((f"{role}:{tokens[i].tag}", *span))
    phrases.extend(("modifier", i, i + 1) for i, t in enumerate(tokens)
                   if t.dep == "amod" and t.pos == "ADJ" and t.tag == "JJ" and t.ner == "O")
    start = None
    for i, token in enumerate(list(tokens) + [None]):
        label = token.ner if token is not None else "O"
        if start is not None and label != tokens[start].ner:
            if tokens[start].ner in ROLE_OF_NER:
                phrases.append((ROLE_OF_NER[tokens[start].ner], start, i))
            start = None
        if start is None and label != "O":
            start = i
    return phrases


def _words(tokens: Sequence[Token]) -> frozenset[str]:
    return frozenset(t.lemma.lower() for t in tokens)


def role_exchanges(sentences: Sequence[Sentence], index: int) -> list[tuple[str, int, tuple, tuple]]:
    """(role, donor sentence, target span, donor span) of every exchange with the sentence before or after: the same
    role, words neither sharing nor containing the other's, a different governor, and subjects and objects only
    between names (a description next to a name may be the same thing: "The library opened. The building has ...")."""
    target = sentences[index].tokens
    out = []
    for j in (index - 1, index + 1):
        if not 0 <= j < len(sentences):
            continue
        donor = sentences[j].tokens
        for role, s, e in role_phrases(target):
            for role2, s2, e2 in role_phrases(donor):
                theirs, ours = _words(donor[s2:e2]), _words(target[s:e])
                if role2 == role and not theirs & ours and not theirs <= _words(target) and \
                        governor(target, s, e) != governor(donor, s2, e2) and \
                        (role.split(":")[0] not in ("subject", "object") or
                         donor[phrase_head(donor, s2, e2)].pos == target[phrase_head(target, s, e)].pos == "PROPN"):
                    out.append((role, j, (s, e), (s2, e2)))
    return out


def phrase_head(tokens: Sequence[Token], start: int, end: int) -> int:
    """The phrase's token whose head lies outside it."""
    return next((i for i in range(start, end) if not start <= tokens[i].head < end), start)


def governor(tokens: Sequence[Token], start: int, end: int) -> tuple[str, str]:
    """(lemma of the word the phrase hangs from, relation): a phrase exchanged for one with the same governor would
    rebuild the donor sentence's own arcs ("The operator said ..." for "A spokesperson said ...")."""
    head = phrase_head(tokens, start, end)
    governing, relation = tokens[head].head, tokens[head].dep
    if relation == "pobj" and governing >= 0 and tokens[governing].head >= 0:  # collapsed, as arcs.py does
        governing, relation = tokens[governing].head, f"prep:{tokens[governing].text.lower()}"
    return (tokens[governing].lemma.lower() if governing >= 0 else "", relation)


def role_exchange(sentences: Sequence[Sentence], index: int, rng) -> Hypothesis:
    """A phrase of the sentence exchanged for one of the same role from the sentence before or after; the premise is
    the two sentences, so every word of the hypothesis is in it."""
    options = role_exchanges(sentences, index)
    if not options:
        raise Unchanged("NoSameRolePhrase")
    role, j, (s, e), (s2, e2) = rng.choice(options)
    target, donor = sentences[index].tokens, sentences[j].tokens
    pieces = pieces_of(target)
    new = spaced(recased(pieces_of(donor)[s2:e2], donor[s2:e2], s == 0), pieces[e - 1][1])
    text, changed = assemble([(pieces[:s], False), (new, True), (pieces[e:], False)])
    return Hypothesis(RECOMBINATION, role.split(":")[0], text, tuple(sorted((index, j))), index, changed)


ENTITY_NER = ("PERSON", "ORG", "GPE", "NORP", "FAC", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART")


def entity_mentions(tokens: Sequence[Token]) -> list[tuple[str, int, int]]:
    """(NER type, start, end) of each name: a proper noun with its compounded proper nouns, of one entity type, and
    the whole of its entity mention: never "Poor" of "Standard & Poor's" or "Office" of "the Office of Fair Trading"
    ("Office told Reuters"), nor "Services Authority" of "the Financial Services Authority" (the same body)."""
    out = []
    for i, t in enumerate(tokens):
        if t.pos == "PROPN" and t.ner in ENTITY_NER and t.dep != "compound":
            start, end = name_span(tokens, i)
            whole = (start == 0 or tokens[start - 1].ner != t.ner) and (end == len(tokens) or tokens[end].ner != t.ner)
            if whole and all(u.ner == t.ner for u in tokens[start:end]):
                out.append((t.ner, start, end))
    return out


def _with_the(tokens: Sequence[Token], start: int) -> bool:
    """The name comes after "the" ("the WSJ"): a name put in its place must take one too ("The Allied Domecq said")."""
    return start > 0 and tokens[start - 1].text.lower() == "the"


def entity_swaps(sentences: Sequence[Sentence], index: int) -> list[tuple[int, tuple, tuple]]:
    """(donor sentence, target span, donor span) of every name that is the main verb's subject or object and that
    another name of the same entity type, from any other sentence of the document, may stand in for: words not
    shared, "the" before both or neither, a different governor (the donor's own relation would be rebuilt: 1 and
    false), never a symmetric verb."""
    target = sentences[index].tokens
    root = root_of(target)
    if root is None or target[root].lemma.lower() in SYMMETRIC:
        return []
    roles = [(ner, s, e) for ner, s, e in entity_mentions(target)
             if target[e - 1].head == root and target[e - 1].dep in ("nsubj", "dobj", "nsubjpass")]
    out = []
    for j, sentence in enumerate(sentences):
        donor = sentence.tokens
        if j == index:
            continue
        for ner, s, e in roles:
            for ner2, s2, e2 in entity_mentions(donor):
                theirs = _words(donor[s2:e2])
                if ner2 == ner and not theirs & _words(target) and _with_the(target, s) == _with_the(donor, s2) \
                        and governor(target, s, e) != governor(donor, s2, e2):
                    out.append((j, (s, e), (s2, e2)))
    return out


def entity_role(sentences: Sequence[Sentence], index: int, rng) -> Hypothesis:
    """The main verb's subject or object name exchanged for another name of the same type the document gives
    ("Ana Ribeiro scored twice" -> "Martin Oyelaran scored twice"); the premise is the two sentences."""
    options = entity_swaps(sentences, index)
    if not options:
        raise Unchanged("NoSameTypeName")
    j, (s, e), (s2, e2) = rng.choice(options)
    target, donor = sentences[index].tokens, sentences[j].tokens
    pieces = pieces_of(target)
    new = spaced(recased(pieces_of(donor)[s2:e2], donor[s2:e2], s == 0), pieces[e - 1][1])
    text, changed = assemble([(pieces[:s], False), (new, True), (pieces[e:], False)])
    return Hypothesis(RECOMBINATION, "entity_role", text, tuple(sorted((index, j))), index, changed)


def recombination(sentences: Sequence[Sentence], index: int, rng) -> Hypothesis:
    """A subject/object exchange or a same-role exchange, a seeded coin picking which is tried first (the other when
    it finds nothing), a second coin putting a name exchanged with another of the document's first."""
    makers = [lambda: subject_object(sentences, index), lambda: role_exchange(sentences, index, rng)]
    if rng.random() < 0.5:
        makers.reverse()
    if rng.random() < 0.5:
        makers.insert(0, lambda: entity_role(sentences, index, rng))
    else:
        makers.append(lambda: entity_role(sentences, index, rng))
    reasons = []
    for make in makers:
        try:
            return make()
        except Unchanged as unchanged:
            reasons.append(unchanged.reason)
    raise Unchanged("+".join(sorted(set(reasons))))


# 3. Restatement.

def leading_subject(tokens: Sequence[Token]) -> Optional[tuple[int, int]]:
    """The main verb's subject when the sentence opens with it and it ends before the verb, else None."""
    root = root_of(tokens)
    subject = child_with(tokens, root, ("nsubj", "nsubjpass")) if root is not None else None
    span = span_of(tokens, subject) if subject is not None else None
    return span if span and span[0] == 0 and span[1] <= root else None


def _same_subject(first: Sequence[Token], s1: tuple, second: Sequence[Token], s2: tuple) -> bool:
    """The second sentence's subject is the first's again: the same words, or he / she for the one person named."""
    words1 = [t.text.lower() for t in first[s1[0]:s1[1]]]
    words2 = [t.text.lower() for t in second[s2[0]:s2[1]]]
    if words1 == words2:
        return True
    return (words2 in (["he"], ["she"]) and first[s1[1] - 1].ner == "PERSON"
            and sum(1 for t in first if t.ner == "PERSON" and t.dep != "compound") == 1)


def _predicate(tokens: Sequence[Token], start: int) -> Optional[Pieces]:
    """The sentence from `start` to its closing full stop (excluded), or None when it does not end with one."""
    if tokens[-1].text != "." or start >= len(tokens) - 1:
        return None
    return spaced(pieces_of(tokens)[start:-1], "")


def fusion(sentences: Sequence[Sentence], index: int, rng) -> Hypothesis:
    """The sentence and the next one, whose subject is the same, fused: an apposition where the next one says what
    the subject is ("X is a teacher." -> "X, a teacher, ..."), else a relative clause or a coordination."""
    if index + 1 >= len(sentences):
        raise Unchanged("NoNextSentence")
    first, second = sentences[index].tokens, sentences[index + 1].tokens
    s1, s2 = leading_subject(first), leading_subject(second)
    if s1 is None or s2 is None or first[phrase_head(first, *s1)].pos not in NOMINAL or \
            not _same_subject(first, s1, second, s2):  # "I, who ..." / "We, which ...": a name or a noun only
        raise Unchanged("NoSharedSubject")
    own = _predicate(first, s1[1])
    if own is None or _predicate(second, s2[1]) is None:
        raise Unchanged("NoFullStop")
    subject = spaced(pieces_of(first)[s1[0]:s1[1]], "")
    root2, comma, second_pieces = root_of(second), ((",", " "),), pieces_of(second)
    # the fused-in clause, its root marked: the arcs that join it to the subject are the rule's own restatement
    other = [(second_pieces[s2[1]:root2], False), (spaced(second_pieces[root2:root2 + 1], ""), True)] \
        if root2 + 1 == len(second) - 1 else \
        [(second_pieces[s2[1]:root2], False), (second_pieces[root2:root2 + 1], True),
         (spaced(second_pieces[root2 + 1:-1], ""), False)]
    attr = child_with(second, root2, ("attr",))
    if second[root2].lemma.lower() == "be" and root2 == s2[1] and attr is not None and \
            span_of(second, attr) == (root2 + 1, len(second) - 1):
        what = spaced(second_pieces[root2 + 1:-1], "")
        parts, variant = [(subject, False), (comma, True), (what, True), (comma, True), (own, False)], "apposition"
    elif rng.random() < 0.5:
        who = "who" if first[s1[1] - 1].ner == "PERSON" else "which"
        parts = [(subject, False), (((",", " "), (who, " ")), True), *other, (comma, True), (own, False)]
        variant = "relative_clause"
    else:
        parts = [(spaced(subject, " "), False), (spaced(own, " "), False), ((("and", " "),), True), *other]
        variant = "coordination"
    text, changed = assemble(parts + [(((".", ""),), False)])
    return Hypothesis(RESTATEMENT, variant, text, (index, index + 1), index, changed)


PREDICATES = ("attr", "acomp", "xcomp", "ccomp", "oprd")
# Verbs whose adverb or phrase may be all they predicate ("it looked [great]", "I am looking [forward to it]").
LINKING = frozenset("be look seem appear feel sound become remain stay get smell taste".split())


def predicates_kept(tokens: Sequence[Token]) -> list[Token]:
    """The tokens with the modifiers that are a linking verb's only predicate marked as such: "Neil is away", "so was
    our waitress", "I am looking forward to it" lose their meaning with them ("Neil is."), so compression keeps them."""
    out = list(tokens)
    for b, token in enumerate(tokens):
        if token.lemma.lower() not in LINKING:
            continue
        children = [i for i, t in enumerate(tokens) if t.head == b]
        alone = not any(tokens[i].dep in PREDICATES for i in children)
        for i in children:  # "so was X": an inverted "so" is the predicate, whatever the parser hangs beside it
            if tokens[i].dep in ("prep", "advmod", "npadvmod") and (alone or (
                    i < b and tokens[i].text.lower() in ("so", "neither", "nor"))):
                out[i] = dataclasses.replace(tokens[i], dep="predicate")
    return out


def compressed(sentences: Sequence[Sentence], index: int, rng) -> Hypothesis:
    """The claims family's compression (modifiers dropped; never in a downward-entailing sentence; never a linking
    verb's only predicate) against the sentence's block."""
    edit = compression(predicates_kept(sentences[index].tokens), rng)
    return Hypothesis(RESTATEMENT, "compression", edit.text, block_of(index, len(sentences)), index)


def restatement(sentences: Sequence[Sentence], index: int, rng) -> Hypothesis:
    """A fusion with the next sentence where it shares the subject, else a compression."""
    try:
        return fusion(sentences, index, rng)
    except Unchanged:
        return compressed(sentences, index, rng)


# 4. Extrinsic attachment.

@dataclass(frozen=True)
class Donor:
    """A phrase another document lends: kind (modifier, apposition, date, place), its pieces, its tokens' lemmas,
    the document it comes from, and a rank (a seeded hash) that picks the run's donors."""

    kind: str
    pieces: Pieces
    lemmas: frozenset
    document_id: str
    rank: str


def donor_phrases(sentences: Sequence[Sentence]) -> list[tuple[str, Pieces, frozenset]]:
    """(kind, pieces, lemmas) of the phrases a document can lend: single adjectives ("former"), appositions of a
    person set off by commas (", 23,"), and on / in / at phrases of a verb whose object is a date or a place ("on
    Tuesday", "in Cardiff")."""
    out = []
    for sentence in sentences:
        tokens, pieces = sentence.tokens, sentence.pieces
        children = children_of(tokens)
        for i, t in enumerate(tokens):
            if t.dep == "amod" and t.pos == "ADJ" and t.tag == "JJ" and t.ner == "O" and t.text.isalpha() and \
                    t.lemma.lower() not in VACUOUS:
                out.append(("modifier", ((t.text.lower(), ""),), frozenset({t.lemma.lower()})))
            span = span_of(tokens, i, children) if t.head >= 0 else None
            if span is None or span[1] - span[0] > MAX_DONOR_TOKENS:
                continue
            s, e = span
            if t.dep == "appos" and tokens[t.head].ner == "PERSON" and s > 0 and tokens[s - 1].text == "," and \
                    e < len(tokens) and tokens[e].text == ",":
                out.append(("apposition", spaced(pieces[s:e], ""), _words(tokens[s:e])))
            objects = [c for c in children.get(i, ()) if tokens[c].dep == "pobj"]
            if t.dep == "prep" and t.text.lower() in PREPOSITIONS and tokens[t.head].pos == "VERB" and objects:
                ner = tokens[objects[0]].ner
                kind = "date" if ner in DATE_NER else "place" if ner in PLACE_NER else None
                if kind:
                    out.append((kind, spaced(pieces[s:e], ""), _words(tokens[s:e])))
    return out


def attachments(tokens: Sequence[Token], kind: str) -> list[int]:
    """Where a donor of the kind can go in the sentence (the position it is inserted at)."""
    if kind == "modifier":  # after a determiner of a common noun that has no adjective yet
        return [i + 1 for i, t in enumerate(tokens[:-1]) if t.pos == "DET" and t.text.lower() in ("the", "a", "an")
                and t.head == i + 1 and tokens[i + 1].pos == "NOUN"
                and not any(u.head == i + 1 and u.dep == "amod" for u in tokens)]
    if kind == "apposition":  # after a person's name that is not already followed by punctuation
        return [i + 1 for i, t in enumerate(tokens[:-1]) if t.ner == "PERSON" and tokens[i + 1].ner != "PERSON"
                and tokens[i + 1].pos != "PUNCT"]
    root = root_of(tokens)
    family = DATE_NER if kind == "date" else PLACE_NER
    if root is None or tokens[root].pos != "VERB" or tokens[-1].text != "." or any(t.ner in family for t in tokens):
        return []
    return [len(tokens) - 1]  # before the closing full stop: the main clause's phrase


def attach(tokens: Sequence[Token], position: int, donor: Donor) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The sentence with the donor inserted at the position (an apposition set off by commas, "a" / "an" agreeing)."""
    pieces = list(pieces_of(tokens))
    if donor.kind == "apposition":
        before = spaced(tuple(pieces[:position]), "")
        return assemble([(before, False), ((((",", " "),) + spaced(donor.pieces, "") + ((",", " "),)), True),
                         (tuple(pieces[position:]), False)])
    before = tuple(pieces[:position])
    if donor.kind == "modifier" and before and before[-1][0].lower() in ("a", "an"):
        article = "an" if donor.pieces[0][0][:1].lower() in "aeiou" else "a"
        before = before[:-1] + ((article.capitalize() if before[-1][0][:1].isupper() else article, " "),)
    if donor.kind in ("date", "place"):
        before = spaced(before, " ")
    return assemble([(before, False), (spaced(donor.pieces, "" if donor.kind in ("date", "place") else " "), True),
                     (tuple(pieces[position:]), False)])


def extrinsic_attachment(sentences: Sequence[Sentence], index: int, donors: Sequence[Donor], document_id: str,
                         rng) -> Hypothesis:
    """A phrase of another document of the run attached to the sentence; the premise is the sentence's block. Never
    in a sentence with negation or a quantifier: there, saying more is entailed ("I don't want an iPad" -> "... on
    Friday"), as compression's saying less is not."""
    tokens = sentences[index].tokens
    if any(t.text.lower() in DOWNWARD or t.lemma.lower() in DOWNWARD or t.dep == "neg" for t in tokens):  # "nt"
        raise Unchanged("DownwardEntailing")
    options = [(donor, position) for donor in donors if donor.document_id != document_id
               for position in attachments(tokens, donor.kind)]
    if not options:
        raise Unchanged("NoDonorFits" if donors else "NoDonor")
    donor, position = rng.choice(options)
    text, changed = attach(tokens, position, donor)
    return Hypothesis(EXTRINSIC, donor.kind, text, block_of(index, len(sentences)), index, changed)


# 5. Rewording.

def rewording(sentences: Sequence[Sentence], index: int, thesaurus: Thesaurus, rng,
              variants: Sequence[str] = REWRITES) -> Hypothesis:
    """One entailed rewrite of the sentence, against its block (and the sentence whose apposition gives a
    descriptor): its new words stand for premise words, so its arcs are 1 though their words are not the premise's."""
    options = rewrites_of(sentences, index, thesaurus, variants)
    if not options:
        raise Unchanged("NoRewrite")
    rewrite = rng.choice(options)
    pieces = pieces_of(sentences[index].tokens)
    text, changed = assemble([(pieces[:rewrite.start], False), (rewrite.pieces, True), (pieces[rewrite.end:], False)])
    premise = block_of(index, len(sentences)) if rewrite.source is None else tuple(sorted((index, rewrite.source)))
    return Hypothesis(REWORDING, rewrite.variant, text, premise, index, changed, means=rewrite.means)
