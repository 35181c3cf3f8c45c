"""Event factuality for the factuality recast: UDS 2.0 sentence graphs (decomp's JSON) and a simple JSON Lines form."""
from __future__ import annotations

from typing import Iterable, Iterator

from entailgen.schemas.sources import FactualityAnnotation
from entailgen.transforms.io.base import (ReaderConfig, Reject, checked_text, checked_token, dead, detokenize, field,
                                          json_object, number, read_line_units, unit_id)
from entailgen.transforms.io.jsonstream import data_members


def graph_edges(graph: dict) -> Iterator[tuple[str, str, dict]]:
    """(source id, target id, attributes) of a networkx graph in adjacency form (decomp's) or node-link form."""
    if isinstance(graph.get("adjacency"), list):
        for node, targets in zip(graph["nodes"], graph["adjacency"]):
            for edge in targets if isinstance(targets, list) else ():
                if isinstance(edge, dict) and isinstance(node, dict):
                    yield node.get("id"), edge.get("id"), edge
    else:
        for edge in graph.get("links") or graph.get("edges") or ():
            if isinstance(edge, dict):
                yield edge.get("source"), edge.get("target"), edge


def graph_tokens(graph: dict) -> tuple[list[str], dict[str, int], list[str]]:
    """(forms, syntax node id -> token index, lemmas) of a sentence graph's syntax tokens in position order."""
    if not isinstance(graph, dict) or not isinstance(graph.get("nodes"), list):
        raise Reject("MissingField", "not a UDS sentence graph (no 'nodes' list); annotation-only files hold no "
                                     "sentences: read uds-ewt-sentences-*.json")
    syntax = [n for n in graph["nodes"] if isinstance(n, dict) and n.get("domain") == "syntax"
              and n.get("type") == "token"]
    if not syntax:
        raise Reject("MissingField", "the sentence graph has no syntax token nodes")
    if any(isinstance(n.get("position"), bool) or not isinstance(n.get("position"), int) for n in syntax):
        raise Reject("BadValue", "a syntax token without an integer 'position'")
    syntax.sort(key=lambda n: n["position"])
    if [n["position"] for n in syntax] != list(range(1, len(syntax) + 1)):
        raise Reject("BadValue", "token positions are not 1..n")
    forms = [checked_token(n.get("form"), f"form of token {n['position']}") for n in syntax]
    lemmas = [n["lemma"] if isinstance(n.get("lemma"), str) and n["lemma"].strip() else form
              for n, form in zip(syntax, forms)]
    return forms, {n.get("id"): i for i, n in enumerate(syntax)}, lemmas


def predicate_head(predicate: str, graph: dict, index_of: dict[str, int]) -> int:
    """The token index of a semantic predicate's syntactic head (its interface 'head' edge)."""
    for source, target, edge in graph_edges(graph):
        if source == predicate and edge.get("type") == "head" and target in index_of:
            return index_of[target]
    raise Reject("MissingField", "the predicate has no 'head' edge to a syntax token")


def predicate_value(node: dict) -> float:
    """The normalised factuality value of a predicate node: factuality.factual.value, positive = happened."""
    factual = node["factuality"].get("factual") if isinstance(node["factuality"], dict) else None
    if not isinstance(factual, dict) or "value" not in factual:
        raise Reject("MissingField", "no factuality.factual.value")
    return number(factual["value"], "factuality value")


def graph_annotations(name: str, graph: object, source: str, config: ReaderConfig, raw: str = "") -> Iterator:
    """A FactualityAnnotation or DeadLetter per factuality-annotated predicate; a bad sentence is one DeadLetter."""
    try:
        tokens, index_of, lemmas = graph_tokens(graph)
        sentence = checked_text(detokenize(tokens), "sentence", config)
    except Reject as reject:
        yield dead(source, unit_id(source, name), reject, raw)
        return
    for node in graph["nodes"]:
        if not isinstance(node, dict) or "factuality" not in node:
            continue
        node_id = node.get("id")
        source_id = unit_id(source, node_id if isinstance(node_id, str) and node_id else name)
        try:
            if not isinstance(node_id, str):
                raise Reject("MissingField", "an annotated node without an 'id'")
            head = predicate_head(node_id, graph, index_of)
            yield FactualityAnnotation(source_id, source, tokens, head, lemmas[head], predicate_value(node), sentence)
        except Reject as reject:
            yield dead(source, source_id, reject, f"{node_id}: {node.get('factuality')}")


def read_uds_json(chunks: Iterable[bytes], source: str, config: ReaderConfig = ReaderConfig()) -> Iterator:
    """UDS 2.0 sentence graphs ({"metadata", "data": {name: graph}}), streamed graph by graph from any byte pieces."""
    for member in data_members(chunks, config.max_unit_chars):
        if member.error is not None:
            where = member.key if member.key is not None else f"@{member.offset}"  # a break: its character offset
            yield dead(source, unit_id(source, where), member.error, member.raw)
        else:
            yield from graph_annotations(member.key, member.value, source, config, member.raw)


def factuality_record(text: str, source: str, source_id: str, config: ReaderConfig) -> FactualityAnnotation:
    """{"id"?, "sentence" or "tokens", "predicate_index", "predicate_lemma"?, "value"}; tokens default to a split."""
    record = json_object(text)
    if record.get("id") is not None:
        source_id = unit_id(source, checked_token(str(record["id"]), "id"))
    if record.get("tokens") is not None:
        if not isinstance(record["tokens"], list):
            raise Reject("BadField", "tokens is not a list")
        tokens = [checked_token(t, f"token {i}") for i, t in enumerate(record["tokens"])]
        sentence = checked_text(record.get("sentence") or detokenize(tokens), "sentence", config)
    else:
        sentence = checked_text(field(record, "sentence", "tokens"), "sentence", config)
        tokens = sentence.split()
    index = field(record, "predicate_index")
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(tokens):
        raise Reject("BadValue", f"predicate_index {str(index)[:20]} is not a token index (0..{len(tokens) - 1})")
    lemma = record.get("predicate_lemma")  # absent: "", not the inflected token ("left" would nominalise wrongly)
    lemma = "" if lemma is None else checked_token(lemma, "predicate_lemma")
    return FactualityAnnotation(source_id, source, tokens, index, lemma, number(field(record, "value"), "value"),
                                sentence)


def read_factuality_jsonl(lines: Iterable[bytes], source: str, config: ReaderConfig = ReaderConfig()) -> Iterator:
    """A FactualityAnnotation per JSON line, for factuality data that is not UDS."""
    return read_line_units(lines, source, config, lambda text, source_id: factuality_record(
        text, source, source_id, config))
