"""NLI pairs for the nli-dialogue family: SNLI/MNLI and ANLI JSON Lines (and the Hugging Face field names)."""
from __future__ import annotations

from typing import Iterable, Iterator

from entailgen.schemas.sources import NliPair
from entailgen.transforms.io.base import (ReaderConfig, Reject, checked_text, checked_token, field, json_object,
                                          read_line_units)

# gold_label (SNLI/MNLI), e/n/c (ANLI), 0/1/2 (the Hugging Face snli/multi_nli/anli datasets).
NLI_LABELS = {"entailment": "entailment", "neutral": "neutral", "contradiction": "contradiction",
              "e": "entailment", "n": "neutral", "c": "contradiction",
              0: "entailment", 1: "neutral", 2: "contradiction"}
ID_FIELDS = ("pairID", "uid", "id", "pair_id")


def nli_label(value: object) -> str:
    """The 3-way label; '-' (SNLI/MNLI: the annotators did not agree) and anything unknown are rejects."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise Reject("BadLabel", f"label {value!r:.20} is not a string or an integer")
    label = NLI_LABELS.get(value.strip().lower() if isinstance(value, str) else value)
    if label is None:
        why = "no gold label (annotators disagreed)" if value in ("-", -1) else "not entailment/neutral/contradiction"
        raise Reject("BadLabel", f"label {str(value)[:20]!r}: {why}")
    return label


def nli_pair(text: str, source: str, source_id: str, config: ReaderConfig) -> NliPair:
    """premise: sentence1|premise|context, hypothesis: sentence2|hypothesis, label: gold_label|label; id kept."""
    record = json_object(text)
    dataset_id = next((record[name] for name in ID_FIELDS if record.get(name) is not None), None)
    return NliPair(source_id, source,
                   premise=checked_text(field(record, "sentence1", "premise", "context"), "premise", config),
                   hypothesis=checked_text(field(record, "sentence2", "hypothesis"), "hypothesis", config),
                   label=nli_label(field(record, "gold_label", "label")),
                   dataset_id=None if dataset_id is None else checked_token(str(dataset_id), "id"))


def read_nli_jsonl(lines: Iterable[bytes], source: str, config: ReaderConfig = ReaderConfig()) -> Iterator:
    """An NliPair per JSON line."""
    return read_line_units(lines, source, config, lambda text, source_id: nli_pair(text, source, source_id, config))
