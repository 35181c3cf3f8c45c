"""Audit of a recast set (Poliak 2020 ch. 5): per phenomenon, the majority-class accuracy and a hypothesis-only
baseline, which shows how much of the label a model could guess without reading the premise."""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable, Mapping, NamedTuple, Optional

import apache_beam as beam

from entailgen.schemas.records import RtePair
from entailgen.transforms.split import SplitConfig, assign_split

AUDIT_EXPLANATION = (
    "How to read the audit. For each phenomenon, 'majority_accuracy' is the test accuracy of always answering the "
    "label most frequent in train, and 'hypothesis_only_accuracy' that of a bag-of-words naive Bayes classifier "
    "trained on the train hypotheses alone, never shown the premise (Poliak 2020, ch. 5). Every recast premise comes "
    "with one entailed and one not-entailed hypothesis, so the majority class scores 50. A hypothesis-only score "
    "well above the majority means the hypothesis words leak the label: in recast NER the not-entailed entity type is "
    "drawn from the corpus prior, so some types ('a person') are more often entailed than others; in recast "
    "factuality most annotated events happened, so 'happened' is more often entailed than 'did not happen'. A model "
    "can exploit such cues without doing inference, so compare your model with this baseline, not with 50. Recast "
    "sentiment pairs both hypotheses with the same premise and speaker, so the hypothesis carries no label "
    "information: with balanced reviews the hypothesis-only score is exactly 50 and any gain above it must come from "
    "the premise. 'n_train' and 'n_test' give the pairs behind each number; 'splits' says whether the dataset's own "
    "train/test splits were used or, when one was empty, a split derived by hashing each premise (one premise never "
    "lands in both)."
)

_WORD = re.compile(r"\w+")


class _Row(NamedTuple):
    """What the audit needs of a pair: a compact accumulator for the CombineFn."""

    phenomenon: str
    split: Optional[str]
    premise: str
    hypothesis: str
    label: str


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


def _percent(correct: int, n: int) -> Optional[float]:
    return round(100.0 * correct / n, 2) if n else None


def _audit_phenomenon(rows: list[_Row], config: AuditConfig) -> dict:
    """Both baselines for one phenomenon's rows."""
    train = [r for r in rows if r.split == config.train_split]
    test = [r for r in rows if r.split == config.test_split]
    splits = "given"
    if not train or not test:
        splits = f"derived (no {config.train_split if not train else config.test_split!r} split)"
        derived = [(assign_split(r.premise, config.fallback), r) for r in rows]
        train = [r for name, r in derived if name == "train"]
        test = [r for name, r in derived if name == "test"]
    majority = majority_label(r.label for r in train)
    model = NaiveBayes.fit((hypothesis_words(r.hypothesis), r.label) for r in train) if train else None
    return {
        "n": len(rows),
        "n_train": len(train),
        "n_test": len(test),
        "splits": splits,
        "label_counts": dict(sorted(Counter(r.label for r in rows).items())),
        "majority_label": majority,
        "majority_accuracy": _percent(sum(r.label == majority for r in test), len(test)) if train else None,
        "hypothesis_only_accuracy": (_percent(sum(model.predict(hypothesis_words(r.hypothesis)) == r.label
                                                  for r in test), len(test)) if model else None),
    }


def _audit_rows(rows: Iterable[_Row], config: AuditConfig) -> dict[str, dict]:
    by_phenomenon: dict[str, list[_Row]] = defaultdict(list)
    for row in rows:
        by_phenomenon[row.phenomenon].append(row)
    return {phenomenon: _audit_phenomenon(group, config) for phenomenon, group in sorted(by_phenomenon.items())}


def _row(pair: RtePair) -> _Row:
    return _Row(pair.phenomenon, pair.split, pair.premise, pair.hypothesis, pair.label)


def audit(pairs: Iterable[RtePair], config: AuditConfig = AuditConfig()) -> dict[str, dict]:
    """Per phenomenon: n, train/test sizes, majority-class and hypothesis-only test accuracy (percent)."""
    return _audit_rows((_row(p) for p in pairs), config)


class AuditFn(beam.CombineFn):
    """Combine RtePairs into the audit dict (the baselines need the whole train split before scoring test)."""

    def __init__(self, config: AuditConfig = AuditConfig()):
        self.config = config

    def create_accumulator(self):
        return []

    def add_input(self, rows, pair):
        rows.append(_row(pair))
        return rows

    def merge_accumulators(self, accumulators):
        return [row for rows in accumulators for row in rows]

    def extract_output(self, rows):
        return _audit_rows(rows, self.config)


class Audit(beam.PTransform):
    """RtePairs -> one audit dict per pipeline (for the manifest and the dataset card)."""

    def __init__(self, config: AuditConfig = AuditConfig()):
        super().__init__()
        self.config = config

    def expand(self, pairs):
        return pairs | "Audit" >> beam.CombineGlobally(AuditFn(self.config))
