"""Every shipped sample is read and used by its family without a dead letter (issue 12, item 8), except the one bad
row samples/README.md documents (nli.jsonl's last pair, gold label '-')."""
from pathlib import Path

import pytest

import entailgen
from entailgen.pipelines import available, get_family
from entailgen.schemas.records import DeadLetter, RtePair, Skipped
from entailgen.schemas.sources import FactualityAnnotation, NerSentence, NliPair, Review
from entailgen.transforms.augment.dialogue import PHRASES, dialogue_pairs
from entailgen.transforms.io import detect_format, read_file
from entailgen.transforms.recast.factuality import recast_factuality
from entailgen.transforms.recast.ner import recast_ner, tag_prior
from entailgen.transforms.recast.sentiment import load_first_names, recast_sentiment

SAMPLES = Path(entailgen.__file__).parent / "samples"
OPTION_FILES = {"kb.tsv"}  # read by an option (--kb), not as an input: test_recast_relation loads it
SAMPLE_FILES = sorted(p.name for p in SAMPLES.iterdir() if p.name != "README.md" and p.name not in OPTION_FILES)
MEANT_TO_BE_BAD = {"nli.jsonl": ["nli.jsonl:30"]}  # SNLI's "-" gold label: no annotator agreement (README)


def family_of(fmt: str) -> str:
    """The family that makes pairs from a format (parse, which takes every format, only for plain text)."""
    makers = [name for name in available() if name != "parse" and fmt in get_family(name).formats()]
    return makers[0] if makers else "parse"


def used(records: list) -> list:
    """What the family's own stage makes of each record (recast, dialogue copies); a RecastError propagates."""
    names, prior = load_first_names(), tag_prior([r for r in records if isinstance(r, NerSentence)])
    out = []
    for record in records:
        if isinstance(record, Review):
            out.append(recast_sentiment(record, names))
        elif isinstance(record, NerSentence):
            out.append(recast_ner(record, prior))
        elif isinstance(record, FactualityAnnotation):
            out.append(recast_factuality(record))
        elif isinstance(record, NliPair):
            out.append(dialogue_pairs(record, PHRASES, 0))
    return out


@pytest.mark.parametrize("name", SAMPLE_FILES)
def test_every_sample_is_read_and_used_without_dead_letters(name):
    path = str(SAMPLES / name)
    units = list(read_file(path))
    dead = [u.source_id for u in units if isinstance(u, DeadLetter)]
    assert dead == MEANT_TO_BE_BAD.get(name, [])
    records = [u for u in units if not isinstance(u, DeadLetter)]
    family = get_family(family_of(detect_format(path)))
    assert records and all(type(r) in family.accepts(None) or not family.accepts(None) for r in records)
    results = used(records)
    if results:  # the recast and dialogue stages: each record makes pairs, none fails, and most are no skips
        pairs = [p for r in results if not isinstance(r, Skipped) for p in r]
        assert pairs and all(isinstance(p, RtePair) for p in pairs)
        assert sum(isinstance(r, Skipped) for r in results) < len(results) / 2


def test_the_sentiment_csv_sample_recasts_every_row():
    reviews = list(read_file(str(SAMPLES / "sentiment.csv")))
    assert len(reviews) == 10
    assert [r.item for r in reviews].count("product") == 3  # two named, one empty (the default)
    assert len([p for r in reviews for p in recast_sentiment(r, load_first_names())]) == 20
