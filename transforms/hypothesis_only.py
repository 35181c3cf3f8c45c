"""Audit of a recast set (Poliak 2020 ch. 5): per phenomenon, the majority-class accuracy and a hypothesis-only
baseline, which shows how much of the label a model could guess without reading the premise."""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable, Mapping, Optional

import apache_beam as beam

from entailgen.dataset.split import SplitConfig, assign_split
from entailgen.schemas.records import RtePair

_WORD = re.compile(r"\w+")
@dataclass(frozen=True)
class AuditConfig:
    """Which splits train and test the baselines, and the split derived by premise hash when one of them is empty."""

    train_split: str = "train"
    test_split: str = "test"
    fallback: SplitConfig = SplitConfig((("train", 0.8), ("test", 0.2)))


def hypothesis_words(hypothesis: str) -> list[str]:
    """Lowercased word tokens: the hypothesis-only model's whole view of a pair."""
    return _WORD.findall(hypothesis.lower())


def majority_label(labels: Iterable[str]) -> Optional[str]:
    """The most frequent label; ties go to the alphabetically first, so the choice is deterministic."""
    return _majority(Counter(labels))


def _majority(counts: Mapping[str, int]) -> Optional[str]:
    """The label of largest count, ties to the alphabetically first."""
    return min(counts, key=lambda label: (-counts[label], label)) if counts else None


@dataclass(frozen=True)
class NaiveBayes:
    """Multinomial naive Bayes with add-one smoothing over hypothesis words; deterministic (no sampling)."""

    label_counts: dict
    word_counts: dict
    vocabulary: frozenset

    @classmethod
    def fit(cls, examples: Iterable[tuple[list[str], str]]) -> "NaiveBayes":
        """Count labels and words per label."""
        label_counts: Counter = Counter()
        word_counts: dict[str, Counter] = defaultdict(Counter)
        for words, label in examples:
            label_counts[label] += 1
            word_counts[label].update(words)
        vocabulary = frozenset(w for counts in word_counts.values() for w in counts)
        return cls(dict(label_counts), {k: dict(v) for k, v in word_counts.items()}, vocabulary)

    def predict(self, words: list[str]) -> str:
        """The label of highest posterior; words never seen in training are ignored; ties go to the majority label."""
        total = sum(self.label_counts.values())
        fallback = _majority(self.label_counts)
        best, best_score = fallback, None
        for label in sorted(self.label_counts, key=lambda lab: (lab != fallback, lab)):
            counts = self.word_counts.get(label, {})
            denominator = sum(counts.values()) + len(self.vocabulary)
            score = math.log(self.label_counts[label] / total)
            for word in words:
                if word in self.vocabulary:
                    score += math.log((counts.get(word, 0) + 1) / denominator)
            if best_score is None or score > best_score:
                best, best_score = label, score
        return best


def percent(correct: int, n: int) -> Optional[float]:
    return round(100.0 * correct / n, 2) if n else None


def new_scheme():
    """What one split scheme keeps: train label and word counts (enough for naive Bayes) and distinct test rows."""
    return {"train_labels": Counter(), "train_words": defaultdict(Counter), "test": Counter()}


def _tally():
    """Per phenomenon: all labels, and the given and the premise-hash-derived split schemes side by side."""
    return {"n": 0, "labels": Counter(), "given": new_scheme(), "derived": new_scheme()}


def add_to_scheme(scheme: dict, split: Optional[str], words: tuple, label: str, config: AuditConfig,
                  test_key: tuple = ()) -> None:
    """A train pair's label and words, or a test pair as (test_key + (words, label)), counted in the scheme."""
    if split == config.train_split:
        scheme["train_labels"][label] += 1
        scheme["train_words"][label].update(words)
    elif split == config.test_split:
        scheme["test"][(*test_key, words, label)] += 1


def merge_schemes(into: dict, other: dict) -> None:
    into["train_labels"].update(other["train_labels"])
    for label, counts in other["train_words"].items():
        into["train_words"][label].update(counts)
    into["test"].update(other["test"])


def chosen_scheme(given: dict, derived: dict, config: AuditConfig) -> tuple[dict, Optional[str]]:
    """The given splits when both train and test have pairs, else the derived ones, with the split that was missing."""
    missing = [name for name, has in ((config.train_split, given["train_labels"]), (config.test_split, given["test"]))
               if not has]
    return (derived, missing[0]) if missing else (given, None)


def trained_baselines(scheme: dict) -> tuple[Optional[str], Optional[NaiveBayes]]:
    """The majority label and the hypothesis-only naive Bayes of a scheme's train counts (None, None without any)."""
    labels = scheme["train_labels"]
    if not labels:
        return None, None
    words = {label: dict(counts) for label, counts in scheme["train_words"].items()}
    return _majority(labels), NaiveBayes(dict(labels), words, frozenset(w for counts in words.values() for w in counts))


def _result(tally: dict, config: AuditConfig) -> dict:
    """Both baselines from one phenomenon's tally: the given splits when train and test have pairs, else derived."""
    scheme, missing = chosen_scheme(tally["given"], tally["derived"], config)
    labels, test = scheme["train_labels"], scheme["test"]
    n_test = sum(test.values())
    majority, model = trained_baselines(scheme)
    return {
        "n": tally["n"],
        "n_train": sum(labels.values()),
        "n_test": n_test,
        "splits": f"derived (no {missing!r} split)" if missing else "given",
        "label_counts": dict(sorted(tally["labels"].items())),
        "majority_label": majority,
        "majority_accuracy": percent(sum(n for (_, label), n in test.items() if label == majority), n_test)
        if model else None,
        "hypothesis_only_accuracy": percent(sum(n for (words, label), n in test.items()
                                                 if model.predict(list(words)) == label), n_test) if model else None,
    }


class AuditFn(beam.CombineFn):
    """RtePairs -> the audit dict, streaming: it keeps counts and distinct test hypotheses, never the pairs."""

    def __init__(self, config: AuditConfig = AuditConfig()):
        self.config = config

    def create_accumulator(self):
        return {}

    def add_input(self, tallies, pair: RtePair):
        tally = tallies.setdefault(pair.phenomenon, _tally())
        words = tuple(hypothesis_words(pair.hypothesis))
        tally["n"] += 1
        tally["labels"][pair.label] += 1
        add_to_scheme(tally["given"], pair.split, words, pair.label, self.config)
        add_to_scheme(tally["derived"], assign_split(pair.premise, self.config.fallback), words, pair.label,
                      self.config)
        return tallies

    def merge_accumulators(self, accumulators):
        merged = self.create_accumulator()
        for tallies in accumulators:
            for phenomenon, tally in tallies.items():
                into = merged.setdefault(phenomenon, _tally())
                into["n"] += tally["n"]
                into["labels"].update(tally["labels"])
                for scheme in ("given", "derived"):
                    merge_schemes(into[scheme], tally[scheme])
        return merged

    def extract_output(self, tallies) -> dict[str, dict]:
        return {phenomenon: _result(tally, self.config) for phenomenon, tally in sorted(tallies.items())}


def audit(pairs: Iterable[RtePair], config: AuditConfig = AuditConfig()) -> dict[str, dict]:
    """Per phenomenon: n, train/test sizes, majority-class and hypothesis-only test accuracy (percent)."""
    fn = AuditFn(config)
    tallies = fn.create_accumulator()
    for pair in pairs:
        fn.add_input(tallies, pair)
    return fn.extract_output(tallies)


class Audit(beam.PTransform):
    """RtePairs -> one audit dict per pipeline (for the manifest and the dataset card)."""

    def __init__(self, config: AuditConfig = AuditConfig()):
        super().__init__()
        self.config = config

    def expand(self, pairs):
        return pairs | "Audit" >> beam.CombineGlobally(AuditFn(self.config))
