"""Label balance per transformation and the claim-only audit: can a model guess the label from the claim alone?"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Optional

import apache_beam as beam

from entailgen.schemas.records import ClaimExample
from entailgen.transforms.audit import AuditConfig, NaiveBayes, hypothesis_words
from entailgen.transforms.split import assign_split

CLAIMS_AUDIT_EXPLANATION = (
    "How to read the claims audit. A majority-class baseline and a claim-only (hypothesis-only) bag-of-words naive "
    "Bayes classifier are trained on the train claims of all transformations, never shown the document, and scored "
    "on the test claims of each transformation ('all': every test claim). Within one transformation every claim has "
    "the same label (sampled and back-translated sentences are CORRECT, swaps and negation INCORRECT), so the "
    "per-transformation score says how often the claim words alone give that label away: if negation claims score "
    "near 100, the inserted or removed 'not' predicts the label and a model can cheat without reading the document. "
    "Compare a trained model with 'all', not with 50. 'splits' says whether the dataset's own train/test splits were "
    "used or, when one was empty, a split derived by hashing each document id.")


def _percent(correct: int, n: int) -> Optional[float]:
    return round(100.0 * correct / n, 2) if n else None


def _scheme() -> dict:
    return {"labels": Counter(), "words": defaultdict(Counter), "test": Counter()}


class ClaimBalanceFn(beam.CombineFn):
    """Document rows -> label counts per transformation, with how many of them are noised copies."""

    def create_accumulator(self):
        return defaultdict(Counter)

    def add_input(self, acc, row: ClaimExample):
        if row.block_index is None:
            acc[row.transformation][row.label] += 1
            acc[row.transformation]["noise"] += int(row.noise)
        return acc

    def merge_accumulators(self, accumulators):
        merged = self.create_accumulator()
        for acc in accumulators:
            for name, counts in acc.items():
                merged[name].update(counts)
        return merged

    def extract_output(self, acc) -> dict:
        return {name: dict(sorted(counts.items())) for name, counts in sorted(acc.items())}


class ClaimsAuditFn(beam.CombineFn):
    """Document rows -> majority and claim-only baselines, trained on all train claims, scored per transformation."""

    def __init__(self, config: AuditConfig = AuditConfig()):
        self.config = config

    def create_accumulator(self):
        return {"given": _scheme(), "derived": _scheme()}

    def _add(self, scheme: dict, split: Optional[str], row: ClaimExample, words: tuple) -> None:
        if split == self.config.train_split:
            scheme["labels"][row.label] += 1
            scheme["words"][row.label].update(words)
        elif split == self.config.test_split:
            scheme["test"][(row.transformation, words, row.label)] += 1

    def add_input(self, acc, row: ClaimExample):
        if row.block_index is not None:
            return acc
        words = tuple(hypothesis_words(row.claim))
        self._add(acc["given"], row.split, row, words)
        self._add(acc["derived"], assign_split(row.document_id, self.config.fallback), row, words)
        return acc

    def merge_accumulators(self, accumulators):
        merged = self.create_accumulator()
        for acc in accumulators:
            for scheme in ("given", "derived"):
                into, other = merged[scheme], acc[scheme]
                into["labels"].update(other["labels"])
                for label, counts in other["words"].items():
                    into["words"][label].update(counts)
                into["test"].update(other["test"])
        return merged

    def extract_output(self, acc) -> dict:
        given = acc["given"]
        missing = [n for n, has in ((self.config.train_split, given["labels"]), (self.config.test_split, given["test"]))
                   if not has]
        scheme = acc["derived"] if missing else given
        words = {label: dict(counts) for label, counts in scheme["words"].items()}
        model = NaiveBayes(dict(scheme["labels"]), words, frozenset(w for c in words.values() for w in c)) \
            if scheme["labels"] else None
        labels = scheme["labels"]
        majority = min(labels, key=lambda label: (-labels[label], label)) if labels else None
        tallies: dict[str, Counter] = defaultdict(Counter)
        for (name, claim_words, label), n in scheme["test"].items():
            for key in (name, "all"):
                tallies[key]["n"] += n
                if model is not None:
                    tallies[key]["majority"] += n * (label == majority)
                    tallies[key]["claim_only"] += n * (model.predict(list(claim_words)) == label)
        audit = {key: {"n_test": t["n"],
                       "majority_accuracy": _percent(t["majority"], t["n"]) if model else None,
                       "claim_only_accuracy": _percent(t["claim_only"], t["n"]) if model else None}
                 for key, t in sorted(tallies.items())}
        return {"n_train": sum(scheme["labels"].values()), "majority_label": majority,
                "splits": f"derived (no {missing[0]!r} split)" if missing else "given", "claim_only": audit}


def combine(fn: beam.CombineFn, rows) -> dict:
    """A CombineFn over a list of rows, without Beam (for tests)."""
    acc = fn.create_accumulator()
    for row in rows:
        acc = fn.add_input(acc, row)
    return fn.extract_output(acc)
