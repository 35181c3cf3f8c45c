"""Label balance per transformation and the claim-only audit: can a model guess the label from the claim alone?"""
from __future__ import annotations

from collections import Counter, defaultdict

import apache_beam as beam

from entailgen.dataset.split import assign_split
from entailgen.schemas.records import ClaimExample
from entailgen.transforms.hypothesis_only import (AuditConfig, add_to_scheme, chosen_scheme, hypothesis_words,
                                                  merge_schemes, new_scheme, percent, trained_baselines)

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
        return {"given": new_scheme(), "derived": new_scheme()}

    def add_input(self, acc, row: ClaimExample):
        if row.block_index is not None:
            return acc
        words, key = tuple(hypothesis_words(row.claim)), (row.transformation,)  # test claims kept per transformation
        add_to_scheme(acc["given"], row.split, words, row.label, self.config, key)
        add_to_scheme(acc["derived"], assign_split(row.document_id, self.config.fallback), words, row.label,
                      self.config, key)
        return acc

    def merge_accumulators(self, accumulators):
        merged = self.create_accumulator()
        for acc in accumulators:
            for scheme in ("given", "derived"):
                merge_schemes(merged[scheme], acc[scheme])
        return merged

    def extract_output(self, acc) -> dict:
        scheme, missing = chosen_scheme(acc["given"], acc["derived"], self.config)
        majority, model = trained_baselines(scheme)
        tallies: dict[str, Counter] = defaultdict(Counter)
        for (name, claim_words, label), n in scheme["test"].items():
            for key in (name, "all"):
                tallies[key]["n"] += n
                if model is not None:
                    tallies[key]["majority"] += n * (label == majority)
                    tallies[key]["claim_only"] += n * (model.predict(list(claim_words)) == label)
        audit = {key: {"n_test": t["n"],
                       "majority_accuracy": percent(t["majority"], t["n"]) if model else None,
                       "claim_only_accuracy": percent(t["claim_only"], t["n"]) if model else None}
                 for key, t in sorted(tallies.items())}
        return {"n_train": sum(scheme["train_labels"].values()), "majority_label": majority,
                "splits": f"derived (no {missing!r} split)" if missing else "given", "claim_only": audit}


def combine(fn: beam.CombineFn, rows) -> dict:
    """A CombineFn over a list of rows, without Beam (for tests)."""
    acc = fn.create_accumulator()
    for row in rows:
        acc = fn.add_input(acc, row)
    return fn.extract_output(acc)
