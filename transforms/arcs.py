"""Enhanced-style dependency arcs from a basic parse: prepositions collapsed, conjuncts propagated, function arcs dropped.

DAE (Goyal & Durrett 2020) labels arcs of enhanced dependencies, where a preposition becomes part of the relation
(head -> object, `nmod:of`), so an arc says which object a word attaches to and how. spaCy's basic parse puts the
preposition in between (head -prep-> of -pobj-> object); UD parses mark it with `case` on the object. Both become one arc.
"""
from __future__ import annotations

from typing import Optional, Sequence

from entailgen.schemas.records import Arc, Token

# Relations the paper leaves out (punct, det, case, aux, auxpass, dep, cop, mark) and their spaCy/UD spellings.
EXCLUDED_RELATIONS = frozenset({
    "punct", "det", "case", "aux", "auxpass", "aux:pass", "dep", "cop", "mark", "root", "ROOT",
    "predet", "det:predet",
})
# spaCy attaches these to a preposition/marker word whose object carries the content.
SPACY_PREPOSITIONS = frozenset({"prep", "agent"})
SPACY_PREPOSITION_OBJECTS = frozenset({"pobj", "pcomp"})
# UD relations whose `case` child names the preposition (UD enhanced: nmod:of, obl:in).
UD_CASE_HOSTS = frozenset({"nmod", "obl"})


def _collapse(tokens: list[Token]) -> dict[int, tuple[int, str]]:
    """Map child index -> (head index, relation) after collapsing prepositions into relations."""
    edges = {i: (t.head, t.dep) for i, t in enumerate(tokens) if t.head >= 0}
    children: dict[int, list[int]] = {}
    for i, (h, _) in edges.items():
        children.setdefault(h, []).append(i)

    for p, (h, rel) in list(edges.items()):
        if rel in SPACY_PREPOSITIONS:
            objects = [c for c in children.get(p, []) if tokens[c].dep in SPACY_PREPOSITION_OBJECTS]
            if objects:
                del edges[p]
                for c in objects:
                    edges[c] = (h, f"{rel}:{tokens[p].text.lower()}")
        elif rel == "case":
            host_head, host_rel = edges.get(h, (-1, ""))
            if host_rel in UD_CASE_HOSTS:
                edges[h] = (host_head, f"{host_rel}:{tokens[p].text.lower()}")
    return edges


def extract_arcs(tokens: list[Token]) -> list[Arc]:
    """The sentence's content arcs: collapsed prepositions, conjuncts sharing their first conjunct's head, no function arcs."""
    edges = _collapse(tokens)
    pairs = set(edges.items())
    for c, (a, rel) in edges.items():
        if rel == "conj" and a in edges:
            pairs.add((c, edges[a]))  # "cats and dogs ran": dogs is a subject of ran too
    arcs = [Arc(h, c, rel, tokens[h].lemma.lower(), tokens[c].lemma.lower())
            for c, (h, rel) in pairs if rel not in EXCLUDED_RELATIONS and h >= 0]
    return sorted(arcs, key=lambda a: (a.child, a.head, a.rel))


def children_of(tokens: Sequence[Token]) -> dict[int, list[int]]:
    """Token position -> its dependents' positions (the root hangs from -1)."""
    children: dict[int, list[int]] = {}
    for i, token in enumerate(tokens):
        children.setdefault(token.head, []).append(i)
    return children


def subtree(children: dict[int, list[int]], root: int) -> set[int]:
    """The positions of a token and everything that hangs from it (children: position -> its dependents)."""
    out, stack = set(), [root]
    while stack:
        i = stack.pop()
        if i not in out:
            out.add(i)
            stack.extend(children.get(i, ()))
    return out


def span_of(tokens: Sequence[Token], i: int, children: Optional[dict] = None) -> Optional[tuple[int, int]]:
    """[start, end) of the token's subtree when it is contiguous, else None: a phrase a rule can drop or move whole."""
    tree = subtree(children if children is not None else children_of(tokens), i)
    start, end = min(tree), max(tree) + 1
    return (start, end) if end - start == len(tree) else None


def arc_keys(arcs) -> frozenset[tuple[str, str, str]]:
    """The set d(s) of arc identities of a sentence, for membership tests across sentences."""
    return frozenset(a.key for a in arcs)
