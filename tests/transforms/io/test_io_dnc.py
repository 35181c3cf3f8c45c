"""The DNC data-file reader (recast_kg_relations_data.json): one DncPair or DeadLetter per array item, streamed."""
import json

import pytest

from entailgen.schemas.records import DeadLetter
from entailgen.schemas.sources import DncPair
from entailgen.transforms.io import detect_format_of, read_file
from entailgen.transforms.io.base import ReaderConfig
from entailgen.transforms.io.dnc import read_dnc_json
from entailgen.transforms.recast.relation import dnc_rte_pair

ITEMS = [
    {"context": "Kazakhstan shares a long border with Russia .", "hypothesis": "Kazakhstan is bordered by Russia .",
     "label": "entailed", "label-set": ["entailed", "not-entailed"], "binary-label": True, "split": "train",
     "type-of-inference": "KG", "pair-id": 1},
    {"context": "Kazakhstan shares a long border with Russia .", "hypothesis": "Russia is the capital of Kazakhstan .",
     "label": "not-entailed", "label-set": ["entailed", "not-entailed"], "binary-label": False, "pair-id": 2},
    {"context": "Paris is in France .", "hypothesis": "Paris is bordered by France .", "label": "maybe",
     "pair-id": 3},
    {"context": "Paris is in France .", "hypothesis": "France is in Paris .", "label": "entailed",
     "binary-label": False},
    ["not", "an", "object"],
]


def read(data: bytes, chunk: int = 1 << 20):
    return list(read_dnc_json((data[i:i + chunk] for i in range(0, len(data), chunk)), "kg.json", ReaderConfig()))


def test_dnc_items_become_pairs_and_bad_items_dead_letters():
    units = read(json.dumps(ITEMS, indent=1).encode())
    assert units[:2] == [
        DncPair("kg.json:1", "kg.json", "Kazakhstan shares a long border with Russia .",
                "Kazakhstan is bordered by Russia .", "entailed", "KG"),
        DncPair("kg.json:2", "kg.json", "Kazakhstan shares a long border with Russia .",
                "Russia is the capital of Kazakhstan .", "not-entailed", ""),
    ]
    assert [(d.source_id, d.error_type) for d in units[2:]] == [
        ("kg.json:3", "BadLabel"), ("kg.json:[3]", "BadLabel"), ("kg.json:[4]", "NotAnObject")]
    assert "binary-label False disagrees" in units[3].message  # no pair-id: the item's index names it
    assert all(isinstance(d, DeadLetter) for d in units[2:])


@pytest.mark.parametrize("chunk", [1, 7, 1 << 20])
def test_the_same_units_whatever_the_chunk_size(chunk):
    data = json.dumps(ITEMS).encode()
    assert read(data, chunk) == read(data)


def test_a_broken_array_is_one_dead_letter_for_the_rest():
    units = read(json.dumps(ITEMS[:1]).encode()[:-1] + b', {"context": ')
    assert isinstance(units[0], DncPair)
    assert [(d.source_id, d.error_type) for d in units[1:]] == [("kg.json:[1]", "MalformedJson")]
    assert [d.error_type for d in read(b'{"data": []}')] == ["MalformedJson"]


def test_dnc_files_are_detected_and_read_as_relation_pairs(tmp_path):
    assert detect_format_of("recast_kg_relations_data.json", b"[") == "dnc-json"
    assert detect_format_of("recast_kg_relations_data.json", b'[{"context": "a", "hypothesis": "b"}]') == "dnc-json"
    assert detect_format_of("uds.json", b'{"metadata": {}, "data": {}}') == "uds-json"
    path = tmp_path / "recast_kg_relations_data.json"
    path.write_text(json.dumps(ITEMS[:2]))
    pairs = [dnc_rte_pair(u) for u in read_file(str(path))]
    assert [(p.premise, p.hypothesis, p.label, p.phenomenon, p.template, p.provenance) for p in pairs] == [
        (ITEMS[0]["context"], ITEMS[0]["hypothesis"], "entailed", "relation", "relation/dnc", '{"label_made":"dnc"}'),
        (ITEMS[1]["context"], ITEMS[1]["hypothesis"], "not-entailed", "relation", "relation/dnc",
         '{"label_made":"dnc"}')]
