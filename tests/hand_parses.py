"""Hand-built parses shared by the augmentation tests, so their labels do not depend on the parser."""
from entailgen.schemas.ids import content_id
from entailgen.schemas.records import ParsedSentence, Token
from entailgen.transforms.arcs import extract_arcs
from entailgen.transforms.augment.common import spaced_text

# The DAE paper's word-swap example sentence, as (text, lemma, pos, tag, head, dep) rows.
OLD_MAN = [("The", "the", "DET", "DT", 2, "det"), ("old", "old", "ADJ", "JJ", 2, "amod"),
           ("man", "man", "NOUN", "NN", 3, "nsubj"), ("gave", "give", "VERB", "VBD", -1, "ROOT"),
           ("the", "the", "DET", "DT", 6, "det"), ("young", "young", "ADJ", "JJ", 6, "amod"),
           ("boy", "boy", "NOUN", "NN", 3, "dative"), ("a", "a", "DET", "DT", 8, "det"),
           ("book", "book", "NOUN", "NN", 3, "dobj"), (".", ".", "PUNCT", ".", 3, "punct")]


def sentence(spec, source_id="s:1") -> ParsedSentence:
    """A hand-built parse from (text, lemma, pos, tag, head, dep) rows; no space before punctuation."""
    tokens = [Token(text, lemma, pos, tag, "O", head, dep,
                    space_after=k + 1 < len(spec) and spec[k + 1][2] != "PUNCT")
              for k, (text, lemma, pos, tag, head, dep) in enumerate(spec)]
    text = spaced_text(tokens)
    return ParsedSentence(content_id(text, "hand"), text, tokens, extract_arcs(tokens), "hand", "test", source_id)


def labels(example):
    """An example's arc labels by arc key."""
    return {a.key: a.entailed for a in example.arcs}
