"""FactCC's claim transformations as pure functions on a source sentence (Kryściński et al. 2020 §3.2, and its
released generator): sentence sampling, pronoun swap, entity / number / date swap, negation and noise; and entailgen's
own: compression, a CORRECT claim that, like a summary sentence, says less than its source, extrinsic, an INCORRECT
claim that says more than the document (Maynez et al. 2020's extrinsic hallucination), and role swap, an INCORRECT
claim made of the claim's own names exchanged (Maynez et al.'s intrinsic errors)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence

from entailgen.schemas.records import Token
from entailgen.transforms.arcs import children_of, span_of
from entailgen.transforms.claims.blocks import Entity, Sentence, join, pieces_of

# Entity groups: a mention is only ever replaced by one of its own group (a date never by a number).
ENTITY_GROUPS = {
    "entity_swap": ("PERSON", "ORG", "NORP", "FAC", "GPE", "LOC", "PRODUCT", "WORK_OF_ART", "EVENT"),
    "number_swap": ("PERCENT", "MONEY", "QUANTITY", "CARDINAL"),
    "date_swap": ("DATE", "TIME"),
}
PRONOUNS = {
    "subject": ("i", "you", "he", "she", "it", "we", "they"),
    "object": ("me", "you", "him", "her", "it", "us", "them"),
    "possessive": ("my", "your", "his", "her", "its", "our", "their"),
    "reflexive": ("myself", "yourself", "himself", "herself", "itself", "ourselves", "yourselves", "themselves"),
}
NEGATORS = ("not", "n't", "n’t")
FINITE = ("MD", "VBZ", "VBP", "VBD")  # an auxiliary that carries tense: the one a clause is negated on
CONTRACTED = {"ca": "can", "wo": "will", "sha": "shall"}  # "can't" -> ca + n't: without n't it is "can"
SUBJECT_DEPS = ("nsubj", "nsubjpass", "csubj", "expl")
# A dummy "it" refers to nothing ("It was raining", "It seems that ...", "It is likely that ..."): swapping it makes
# nonsense ("I was raining"), not a false claim. Its subject of a weather verb, of "be" with a weather word or a date,
# or of a predicate whose that- / to-clause comes after it (extraposition) is left alone.
WEATHER_VERBS = frozenset("rain snow hail sleet drizzle pour thunder".split())
WEATHER_WORDS = frozenset("""cold hot warm cool chilly freezing sunny rainy snowy windy cloudy foggy stormy humid
dark""".split())
EXTRAPOSING = frozenset("be seem appear happen".split())
CLAUSES = ("ccomp", "xcomp", "csubj")
# Compression: the modifiers whose removal keeps a sentence true (adjectives, adverbs, prepositional phrases,
# appositions, participle / non-restrictive relative / adverbial clauses) and the words that would make it false again
# (negation and quantifiers turn a sentence downward-entailing: "no new office" does not entail "no office").
COMPRESSIBLE = ("amod", "advmod", "npadvmod", "prep", "appos", "acl", "relcl", "advcl")
DOWNWARD = frozenset(NEGATORS) | frozenset("""never no none nobody nothing neither nor without only just even almost
nearly hardly barely scarcely all every each few any if unless""".split())
COMPARED = ("JJR", "JJS", "RBR", "RBS")  # "more united", "the best chance": not said by "united", "the chance"
CONTENT_POS = ("NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM")  # the words whose absence makes a claim say more
# Verbs whose subject and object may change places and stay true ("Leeds met Hull" = "Hull met Leeds").
SYMMETRIC = frozenset("""meet marry play draw face join tie resemble equal match share fight battle date divorce
partner merge contact call phone email visit""".split())
WORD = re.compile(r"[^\W_]+")


class Unchanged(Exception):
    """A transformation found nothing to change in a claim; reason is what the Skipped record counts."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Edit:
    """A claim as (token, whitespace) pieces; span: the changed pieces [start, end) of the claim, source_span: the
    tokens [start, end) of the source sentence they stand for (None when nothing was changed)."""

    pieces: tuple[tuple[str, str], ...]
    span: Optional[tuple[int, int]] = None
    source_span: Optional[tuple[int, int]] = None

    @property
    def text(self) -> str:
        return join(self.pieces)

    def char_span(self) -> Optional[list[int]]:
        """The changed span as [start, end) characters of the claim text."""
        return char_span(self.pieces, self.span)


def char_span(pieces, span: Optional[tuple[int, int]]) -> Optional[list[int]]:
    """Pieces [start, end) as [start, end) characters of their joined text (the last piece's whitespace left out)."""
    if span is None:
        return None
    start = sum(len(t) + len(w) for t, w in pieces[:span[0]])
    return [start, start + len(join(pieces[span[0]:span[1]]))]


def sampled(sentence: Sentence) -> Edit:
    """The sentence itself as a claim (sentence sampling: CORRECT)."""
    return Edit(sentence.pieces)


def eligible_sentences(sentences: Sequence[Sentence], min_tokens: int) -> list[int]:
    """Indices of the sentences long enough to be claims (FactCC: at least 8 tokens)."""
    return [i for i, s in enumerate(sentences) if len(s.tokens) >= min_tokens]


def _with_case(word: str, original: str, initial: bool) -> str:
    """word cased like the pronoun it replaces: capitalised at the start of a sentence, "I" always upper."""
    if word == "i":
        return "I"
    return word.capitalize() if initial and original[:1].isupper() else word


def pronoun_class(token: Token) -> Optional[str]:
    """subject / object / possessive / reflexive from the word, its tag (PRP$) and its relation (nsubj)."""
    word = token.text.lower()
    if word in PRONOUNS["reflexive"]:
        return "reflexive"
    if token.tag == "PRP$" and word in PRONOUNS["possessive"]:
        return "possessive"
    if token.tag != "PRP" and token.pos != "PRON":
        return None
    if word in PRONOUNS["subject"] and (token.dep in SUBJECT_DEPS or word not in PRONOUNS["object"]):
        return "subject"
    if word in PRONOUNS["object"]:
        return "object"
    return None


def dummy_it(tokens: Sequence[Token], i: int) -> bool:
    """Whether tokens[i] is an "it" that refers to nothing: an expletive, the subject of a weather verb ("It was
    raining"), of "be" with a weather word or a date ("It was cold", "It was Monday"), or of "be" / "seem" / "appear"
    / "happen" with a that- or to-clause after it ("It is likely that he won", "It seems that ...")."""
    token = tokens[i]
    if token.text.lower() != "it":
        return False
    if token.dep == "expl":
        return True
    if token.dep not in ("nsubj", "nsubjpass") or not 0 <= token.head < len(tokens):
        return False
    head = tokens[token.head]
    if head.lemma.lower() in WEATHER_VERBS:
        return True
    if head.lemma.lower() not in EXTRAPOSING:
        return False
    predicate = {j for j, t in enumerate(tokens) if t.head == token.head and t.dep in ("acomp", "attr")}
    if any(tokens[j].lemma.lower() in WEATHER_WORDS or tokens[j].ner in ("DATE", "TIME") for j in predicate):
        return True
    return any(j > i and t.dep in CLAUSES and t.head in predicate | {token.head} for j, t in enumerate(tokens))


def pronoun_swap(tokens: Sequence[Token], rng) -> Edit:
    """A pronoun replaced by a different one of its class; its case kept (sentence-initial stays capitalised); a
    dummy "it" is left alone (Unchanged: DummyIt where it is the only pronoun)."""
    found = [(i, c) for i, t in enumerate(tokens) if (c := pronoun_class(t))]
    if not found:
        raise Unchanged("NoPronoun")
    found = [(i, c) for i, c in found if not dummy_it(tokens, i)]
    if not found:
        raise Unchanged("DummyIt")
    i, cls = rng.choice(found)
    original = tokens[i].text
    word = rng.choice([p for p in PRONOUNS[cls] if p != original.lower()])
    initial = all(not t.text[:1].isalnum() for t in tokens[:i])
    pieces = list(pieces_of(tokens))
    pieces[i] = (_with_case(word, original, initial), pieces[i][1])
    return Edit(tuple(pieces), (i, i + 1), (i, i + 1))


def entity_swap(group: str, sentence: Sentence, sentence_index: int, entities: Sequence[Entity], rng,
                own_labels: Optional[Sequence[str]] = None) -> Edit:
    """A claim mention replaced by a different mention of the same group from the same document, never one that
    contains or is contained in it (FactCC's entity, number and date swaps). own_labels: the claim's NER labels
    parsed alone, as FactCC parses its claims; a mention is swapped only where they put it in the group too (in "He
    has played since he was six. He practises for an hour." the document calls "six" a DATE, the claim a CARDINAL:
    "since he was an hour" is no claim); Unchanged (OwnParseDisagrees) where no mention is left."""
    labels = ENTITY_GROUPS[group]
    mentions = [e for e in entities if e.sentence == sentence_index and e.label in labels]
    if not mentions:
        raise Unchanged("NoMention")
    if own_labels is not None:
        mentions = [e for e in mentions if len(own_labels) == len(sentence.tokens)
                    and all(own_labels[k] in labels for k in range(e.start, e.end))]
        if not mentions:
            raise Unchanged("OwnParseDisagrees")
    document = sorted({e.text for e in entities if e.label in labels})

    def replacements(mention: Entity) -> list[str]:
        own = mention.text.lower()
        return [text for text in document if own not in text.lower() and text.lower() not in own]

    usable = [m for m in mentions if replacements(m)]
    if not usable:
        raise Unchanged("NoReplacement")
    mention = rng.choice(usable)
    replacement = rng.choice(replacements(mention))
    pieces = sentence.pieces
    new = pieces[:mention.start] + ((replacement, pieces[mention.end - 1][1]),) + pieces[mention.end:]
    return Edit(new, (mention.start, mention.start + 1), (mention.start, mention.end))


def _governing_lemma(tokens: Sequence[Token], i: int) -> str:
    """The lemma a name hangs from, through its preposition ("beat Hull" -> beat, "drew with Hull" -> draw); "" at
    the root."""
    head = tokens[i].head
    if tokens[i].dep == "pobj" and head >= 0:
        head = tokens[head].head
    return tokens[head].lemma.lower() if head >= 0 else ""


def role_swap(sentence: Sentence, sentence_index: int, entities: Sequence[Entity], rng) -> Edit:
    """Two names of one type in the claim exchanged ("Leeds beat Hull" -> "Hull beat Leeds"): every word is the
    document's own, only who did what to whom is false. Never names in a list or an apposition (one role: "Leeds and
    Hull drew"), part of another name, hanging from a symmetric verb ("Leeds met Hull") or from the other name
    ("Google's IPO"), nor one with "the" and one without ("the US lost ... near Habbaniyah"); Unchanged (NoNamePair)."""
    tokens, pieces = sentence.tokens, sentence.pieces

    def head(e: Entity) -> int:
        return next(i for i in range(e.start, e.end) if not e.start <= tokens[i].head < e.end)

    def with_the(e: Entity) -> bool:
        return e.start > 0 and tokens[e.start - 1].dep == "det" and e.start <= tokens[e.start - 1].head < e.end

    def hangs_on(e: Entity, other: Entity) -> bool:
        return other.start <= tokens[head(e)].head < other.end

    names = [e for e in entities if e.sentence == sentence_index and e.label in ENTITY_GROUPS["entity_swap"]
             and all(t.pos == "PROPN" for t in tokens[e.start:e.end])
             and tokens[head(e)].dep not in ("conj", "appos", "compound")
             and _governing_lemma(tokens, head(e)) not in SYMMETRIC]
    pairs = [(a, b) for k, a in enumerate(names) for b in names[k + 1:]
             if a.label == b.label and a.text.lower() not in b.text.lower() and b.text.lower() not in a.text.lower()
             and with_the(a) == with_the(b) and not hangs_on(a, b) and not hangs_on(b, a)]
    if not pairs:
        raise Unchanged("NoNamePair")
    a, b = rng.choice(pairs)

    def moved(start: int, end: int, to_end: int) -> tuple:  # a name's pieces, spaced as the one it replaces
        return pieces[start:end - 1] + ((pieces[end - 1][0], pieces[to_end - 1][1]),)

    new = pieces[:a.start] + moved(b.start, b.end, a.end) + pieces[a.end:b.start] + moved(a.start, a.end, b.end) + \
        pieces[b.end:]
    return Edit(new, (a.start, b.end), (a.start, b.end))


def _cased(word: str, like: str) -> str:
    return word.capitalize() if like[:1].isupper() else word


def main_auxiliary(tokens: Sequence[Token]) -> Optional[int]:
    """The first finite auxiliary or modal of the main clause, or of a clause it reports or coordinates ("said he
    can ...": ccomp, conj): the clause's verb itself (a copula) or its aux / auxpass; None where there is none ("He
    wants to be ..." has only an infinitive's "be", "People who can swim ..." a relative clause's "can")."""
    clauses = {i for i, t in enumerate(tokens) if t.head < 0}
    while True:
        more = {i for i, t in enumerate(tokens) if t.dep in ("ccomp", "conj") and t.head in clauses} - clauses
        if not more:
            break
        clauses |= more
    return next((i for i, t in enumerate(tokens)
                 if (t.pos == "AUX" or t.tag == "MD") and t.tag in FINITE and t.text.lower() not in NEGATORS
                 and (i in clauses or (t.head in clauses and t.dep in ("aux", "auxpass")))), None)


def negation(tokens: Sequence[Token]) -> Edit:
    """On the main clause's auxiliary or modal (main_auxiliary): remove not / n't after it if present, otherwise
    insert not ("can" -> "cannot", "didn't" -> "did"); Unchanged where there is none (NoAuxiliary), and for a
    question or a clause with its auxiliary before its subject (Question: "Is not the museum open?" is no claim)."""
    i = main_auxiliary(tokens)
    if i is None:
        raise Unchanged("NoAuxiliary")
    last = next((t.text for t in reversed(tokens) if t.text[:1].isalnum() or t.text in ".!?"), "")
    verb = tokens[i].head if tokens[i].dep in ("aux", "auxpass") else i  # the clause the auxiliary is in
    subject = next((j for j, t in enumerate(tokens) if t.dep in SUBJECT_DEPS and t.head == verb), None)
    if last == "?" or (subject is not None and subject > i):
        raise Unchanged("Question")
    pieces = list(pieces_of(tokens))
    word, space = pieces[i]
    if i + 1 < len(tokens) and tokens[i + 1].text.lower() in NEGATORS:
        restored = _cased(CONTRACTED.get(word.lower(), word), word)
        new = pieces[:i] + [(restored, pieces[i + 1][1])] + pieces[i + 2:]
        return Edit(tuple(new), (i, i + 1), (i, i + 2))
    if word.lower() == "can":
        new = pieces[:i] + [(_cased("cannot", word), space)] + pieces[i + 1:]
        return Edit(tuple(new), (i, i + 1), (i, i + 1))
    new = pieces[:i] + [(word, " "), ("not", space)] + pieces[i + 1:]
    return Edit(tuple(new), (i, i + 2), (i, i + 1))


def modifier_spans(tokens: Sequence[Token]) -> list[tuple[int, int]]:
    """[start, end) of each contiguous modifier subtree compression may drop. What stays: "of" phrases, restrictive
    relative clauses, comparatives, modifiers of a number and parts of a name ("the number of deaths", "people who
    smoke", "more united", "about 50", "New York" say more than "the number", "people", "united", "50", "York")."""
    children = children_of(tokens)
    spans = []
    for i, token in enumerate(tokens):
        if token.dep not in COMPRESSIBLE or token.head < 0 or token.tag in COMPARED or token.tag.startswith("W") or \
                (token.dep == "prep" and token.text.lower() == "of"):
            continue
        head = tokens[token.head]
        if head.tag == "CD" or (token.ner != "O" and token.ner == head.ner):  # "about 50", part of a name
            continue
        span = span_of(tokens, i, children)
        if span is None or span[0] <= token.head < span[1]:
            continue
        start, end = span
        if token.dep == "relcl" and (start == 0 or tokens[start - 1].text != ","):
            continue
        spans.append((start, end))
    return spans


def compression(tokens: Sequence[Token], rng, at_most: int = 3) -> Edit:
    """One to at_most modifier subtrees dropped, with the commas that set them off (CORRECT: what is left is still
    said by the sentence); a sentence with negation or a quantifier is left alone (Unchanged)."""
    if any(t.text.lower() in DOWNWARD or t.dep == "neg" for t in tokens):
        raise Unchanged("DownwardEntailing")
    spans = modifier_spans(tokens)
    if not spans:
        raise Unchanged("NoModifier")
    dropped: set[int] = set()
    for start, end in rng.sample(spans, rng.randint(1, min(at_most, len(spans)))):
        dropped.update(range(start, end))
        comma_before = start > 0 and tokens[start - 1].text == ","
        if comma_before:
            dropped.add(start - 1)
        if end < len(tokens) and tokens[end].text == "," and (comma_before or start == 0):
            dropped.add(end)
    out: list[list] = []  # [text, whitespace, position in the sentence]
    for i, (text, space) in enumerate(pieces_of(tokens)):
        if i not in dropped:
            out.append([text, space, i])
        elif out and (out[-1][1] or out[-1][0][-1:].isalnum()):  # after an opening quote no space comes back
            out[-1][1] = space  # the word before a dropped run takes the run's trailing whitespace
    if sum(text[:1].isalnum() for text, _, _ in out) < 3:
        raise Unchanged("TooShort")
    for piece, (after, _, j) in zip(out, out[1:]):
        text, _, i = piece
        if j != i + 1 and tokens[i].tag == "DT" and text.lower() in ("a", "an"):  # "a new office" -> "an office"
            piece[0] = _cased("an" if after[:1].lower() in "aeiou" else "a", text)
    if 0 in dropped:
        out[0][0] = out[0][0][:1].upper() + out[0][0][1:]
    return Edit(tuple((text, space) for text, space, _ in out))


def words_of(text: str) -> set[str]:
    """The text's words, lower-cased (what "the document says this word" is checked against)."""
    return set(WORD.findall(text.lower()))


def extrinsic(tokens: Sequence[Token], rng, at_most: int = 3) -> tuple[Edit, set[str]]:
    """(the sentence compressed, the content words the full sentence adds): put the compression in the document and
    the full sentence is a claim that says what the document no longer does (INCORRECT, an extrinsic hallucination);
    Unchanged where compression is, or where the dropped modifiers hold no content word."""
    kept = compression(tokens, rng, at_most)
    added = {t.text.lower() for t in tokens if t.pos in CONTENT_POS} - words_of(kept.text)
    if not added:
        raise Unchanged("NoContentAdded")
    return kept, added


def add_noise(edit: Edit, rng, p: float = 0.05, delete: float = 0.8) -> Edit:
    """Each piece outside the changed span deleted (80 %) or duplicated (20 %) with probability p; label kept. The
    word before a deleted piece is kept apart from the one after it, as in FactCC, so noise never makes a new word."""
    span = edit.span or (len(edit.pieces), len(edit.pieces))
    out: list[tuple[str, str]] = []
    start = end = None
    changed = False
    for i, piece in enumerate(edit.pieces):
        if i == span[0]:
            start = len(out)
        if i == span[1]:
            end = len(out)
        if span[0] <= i < span[1] or rng.random() >= p:
            out.append(piece)
        elif rng.random() < delete:
            changed = True
            if out and not out[-1][1]:  # FactCC's rule: a deletion never glues its neighbours ("08-24" -> "08 24")
                out[-1] = (out[-1][0], " ")
        else:
            changed = True
            out.extend([(piece[0], " "), piece])
    if end is None:
        end = len(out)
    if not changed:
        raise Unchanged("NothingChanged")
    if not out:
        raise Unchanged("AllDeleted")
    return Edit(tuple(out), (start, end) if edit.span else None, edit.source_span)
