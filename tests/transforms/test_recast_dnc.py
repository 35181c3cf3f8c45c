"""DNC export: the Diverse NLI Collection's data and metadata field names and values."""
import dataclasses
import json

from entailgen.schemas.records import with_split
from entailgen.schemas.sources import Review
from entailgen.transforms.recast.dnc import pair_id, to_dnc, to_dnc_metadata
from entailgen.transforms.recast.sentiment import NameTable, recast_sentiment

REVIEW = Review("amazon_cells_labelled.txt 140", "kotzias2015", "Voice recognition is tremendous!", 1, "product")
PAIRS = [with_split(p, "dev") for p in recast_sentiment(REVIEW, NameTable.of([("Jesse", 1)]))]


def test_data_rows_have_the_dnc_fields_and_values():
    rows = {r["hypothesis"]: r for r in to_dnc(PAIRS)}
    liked = rows["Jesse liked the product"]
    assert liked == {
        "context": 'When asked about the product, Jesse said "Voice recognition is tremendous!"',
        "hypothesis": "Jesse liked the product",
        "label": "entailed",
        "label-set": ["entailed", "not-entailed"],
        "binary-label": True,
        "split": "dev",
        "type-of-inference": "Sentiment",
        "pair-id": int(PAIRS[0].id[:13], 16),
    }
    disliked = rows["Jesse did not like the product"]
    assert (disliked["label"], disliked["binary-label"]) == ("not-entailed", False)


def test_rows_are_ordered_by_pair_id_and_json_safe():
    rows = to_dnc(reversed(PAIRS))
    ids = [r["pair-id"] for r in rows]
    assert ids == sorted(ids) and len(set(ids)) == 2
    assert all(0 <= i < 2 ** 53 for i in ids)
    assert json.loads(json.dumps(rows)) == rows


def test_type_of_inference_names():
    kinds = {p: to_dnc([dataclasses.replace(PAIRS[0], phenomenon=p)])[0]["type-of-inference"]
             for p in ("ner", "factuality", "sentiment", "puns")}
    assert kinds == {"ner": "NER", "factuality": "Factuality", "sentiment": "Sentiment", "puns": "puns"}


def test_metadata_rows_join_on_pair_id():
    meta = to_dnc_metadata(PAIRS, {"kotzias2015": "CC BY 4.0"})
    assert [m["pair-id"] for m in meta] == [r["pair-id"] for r in to_dnc(PAIRS)]
    first = next(m for m in meta if m["pair-id"] == pair_id(PAIRS[0]))
    assert first == {"pair-id": pair_id(PAIRS[0]), "corpus": "kotzias2015",
                     "corpus-sent-id": "amazon_cells_labelled.txt 140", "corpus-license": "CC BY 4.0",
                     "creation-approach": "automatic", "misc": {"template": "sentiment/liked", "id": PAIRS[0].id}}
