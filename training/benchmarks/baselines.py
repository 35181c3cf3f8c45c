"""The baselines a model must beat on every benchmark: unigram overlap, SummaC's NER-Overlap and the DAE paper's
rule-based dependency overlap, each a scorer of (document, summary) pairs as the benchmarks call a model."""
from __future__ import annotations

import functools
from typing import Sequence

from entailgen.training.scoring.cache import Scorer  # noqa: F401 (a scorer as a benchmark calls it; read here)
from entailgen.transforms.arcs import arc_keys, extract_arcs
from entailgen.transforms.claims.transformations import words_of
from entailgen.transforms.parser import Parser, load_spacy
from entailgen.transforms.views import content_words

UNIGRAM, NER = "unigram overlap", "NER overlap"


def unigram_overlap(document: str, claim: str) -> float:
    """Share of the claim's content word types (lower-cased, alphanumeric, spaCy's English stop words dropped:
    transforms.views.content_words) that occur as words of the document; 1.0 for a claim with none."""
    return unigram_overlap_scores([(document, claim)])[0]


@functools.lru_cache(maxsize=1)
def _nlp():
    return load_spacy()


def entities_found(document: str, entities: Sequence[str]) -> float:
    """1.0 when every entity's text occurs in the document (case-insensitive), else 0.0."""
    text = document.lower()
    return float(all(e.lower() in text for e in entities))


def ner_overlap(document: str, claim: str) -> float:
    """SummaC's NER-Overlap baseline: 1.0 when every named entity spaCy finds in the claim occurs in the document
    (case-insensitive text match), else 0.0; a claim without entities is 1.0."""
    return ner_overlap_scores([(document, claim)])[0]


def ner_overlap_scores(pairs: list[tuple[str, str]]) -> list[float]:
    """ner_overlap over many (document, claim) pairs, the claims parsed in one nlp.pipe (documents are not parsed)."""
    nlp = _nlp()
    docs = nlp.pipe((c for _, c in pairs), disable=[p for p in nlp.pipe_names if p not in ("tok2vec", "ner")])
    return [entities_found(d, [e.text for e in doc.ents]) for (d, _), doc in zip(pairs, docs)]


def unigram_overlap_scores(pairs: list[tuple[str, str]]) -> list[float]:
    """unigram_overlap over many (document, claim) pairs (a document's words found once: sets repeat documents)."""
    documents: dict[str, set] = {}
    scores = []
    for d, c in pairs:
        claimed = content_words(c)
        if d not in documents:
            documents[d] = words_of(d)
        scores.append(len(claimed & documents[d]) / len(claimed) if claimed else 1.0)
    return scores



def dependency_overlap_scores(pairs: list[tuple[str, str]], parser: Parser) -> list[float]:
    """The DAE paper's rule-based score: the share of the sentence's content arcs (head lemma, child lemma, relation)
    found among the source's arcs; 1.0 for a sentence with none. Each distinct text is parsed once."""
    texts = list(dict.fromkeys(t for pair in pairs for t in pair))
    keys = {t: arc_keys(extract_arcs(tokens)) for t, tokens in zip(texts, parser.tokens(texts))}
    return [len(keys[s] & keys[x]) / len(keys[s]) if keys[s] else 1.0 for x, s in pairs]
