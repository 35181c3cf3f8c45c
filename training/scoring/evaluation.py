"""`entailgen evaluate`: a trained model's accuracy next to the baselines the dataset's manifest reports, computed on
the same arcs (dae: majority and lexical match, DAE Table 2) or pairs (recast: majority and hypothesis-only)."""
from __future__ import annotations

import os
from collections import Counter
from typing import Optional

import torch

from entailgen.schemas.records import GENERATED_KINDS
from entailgen.training.fitting.checkpoint import load_meta
from entailgen.training.fitting.model_dir import ModelDir
from entailgen.training.fitting.data import DatasetError, featurizer, label_index, open_dataset, records
from entailgen.training.fitting.features import IGNORE, collate
from entailgen.training.fitting.model_card import cell, metrics_table, save_evaluation
from entailgen.training.fitting.models import DAE, forward
from entailgen.training.scoring.precision import AUTO, load_scoring_model
from entailgen.transforms.views import sentence_label

TABLE_2_KINDS = GENERATED_KINDS  # the paper's Table 2: the §4 kinds, the augmentations apart
SENTENCE_RULE = ("a row's own sentence label where it has one, else entailed when all its labelled arcs are "
                 "entailed; predicted entailed when the mean of its arc probabilities is at least 0.5")


def _pct(n: int, of: int) -> Optional[float]:
    return round(100.0 * n / of, 2) if of else None


class ArcTally:
    """Running counts of one group of labelled arcs: model, majority and lexical-match predictions."""

    def __init__(self):
        self.c = Counter()

    def add(self, label: int, predicted: int, in_premise: Optional[bool]) -> None:
        c = self.c
        c["n"] += 1
        c["entailed"] += label
        c["correct"] += predicted == label
        c["tp"] += predicted == 0 and label == 0  # F1 of the not-entailed class: the errors a factuality model finds
        c["fp"] += predicted == 0 and label == 1
        c["fn"] += predicted == 1 and label == 0
        if in_premise is not None:
            c["lexical_n"] += 1
            c["lexical_correct"] += in_premise == bool(label)

    def result(self) -> dict:
        c = self.c
        precision, recall = _pct(c["tp"], c["tp"] + c["fp"]), _pct(c["tp"], c["tp"] + c["fn"])
        f1 = round(2 * precision * recall / (precision + recall), 2) if precision and recall else 0.0
        return {"n": c["n"], "accuracy": _pct(c["correct"], c["n"]),
                "f1": f1 if c["tp"] + c["fn"] else None,  # None: no not-entailed arc in the group
                "majority_accuracy": _pct(max(c["entailed"], c["n"] - c["entailed"]), c["n"]),
                "lexical_match_accuracy": _pct(c["lexical_correct"], c["n"]) if c["lexical_n"] == c["n"] else None,
                "lexical_match_n": c["lexical_n"]}


def probabilities(model, batch: list, pad_id: int, device):
    """Softmax of the model's logits for a list of Features (inference_mode: no autograd records kept)."""
    with torch.inference_mode():
        return forward(model, collate(batch, pad_id), device).softmax(-1).cpu()


def _scored(model, task: str, tokenizer, meta: dict, stream, device, counts: Counter, batch_size: int = 32):
    """(record, features, probabilities) for every usable record; the others are counted by reason."""
    featurize = featurizer(task, tokenizer, meta, max_arcs=None)
    pending: list = []
    for record in stream:
        counts["read"] += 1
        features = featurize(record)
        if isinstance(features, str):
            counts[features] += 1
            continue
        counts["scored"] += 1
        pending.append((record, features))
        if len(pending) == batch_size:
            yield from _flush(model, pending, tokenizer, device)
            pending = []
    if pending:
        yield from _flush(model, pending, tokenizer, device)


def _flush(model, pending, tokenizer, device):
    probs = probabilities(model, [f for _, f in pending], tokenizer.pad_token_id or 0, device)
    for (record, features), p in zip(pending, probs):
        yield record, features, p


def evaluate_dae(scored) -> dict:
    """Arc accuracy / F1 with majority and lexical-match baselines overall, on the §4 kinds, per kind and per
    relation; and sentence-level accuracy from mean pooling."""
    overall, table_2, per_kind, per_relation = ArcTally(), ArcTally(), {}, {}
    sentences = Counter()
    for record, features, probs in scored:
        entailed_p = probs[: len(features.arcs), 1].tolist()
        for index, p in zip(features.arcs, entailed_p):
            arc = record.arcs[index]
            if arc.entailed is None:
                continue
            predicted = int(p >= 0.5)
            groups = [overall, per_kind.setdefault(record.kind, ArcTally()),
                      per_relation.setdefault(arc.rel, ArcTally())]
            if record.kind in TABLE_2_KINDS:
                groups.append(table_2)
            for group in groups:
                group.add(int(arc.entailed), predicted, arc.in_premise)
        gold = sentence_label(record, [record.arcs[i] for i in features.arcs])
        if gold is not None:
            sentences["n"] += 1
            sentences["entailed"] += gold
            sentences["correct"] += int(sum(entailed_p) / len(entailed_p) >= 0.5) == gold
    return {"overall": overall.result(), "table_2": table_2.result(),
            "per_kind": {k: t.result() for k, t in sorted(per_kind.items())},
            "per_relation": {r: t.result() for r, t in sorted(per_relation.items())},
            "sentence": {"definition": SENTENCE_RULE, "n": sentences["n"],
                         "accuracy": _pct(sentences["correct"], sentences["n"]),
                         "majority_accuracy": _pct(max(sentences["entailed"], sentences["n"] - sentences["entailed"]),
                                                   sentences["n"])}}


def evaluate_pairs(scored, labels: list[str], audit: dict) -> dict:
    """Pair accuracy overall and per phenomenon, next to the manifest's majority and hypothesis-only baselines."""
    tallies: dict[str, Counter] = {}
    unknown = 0
    for record, _, probs in scored:
        gold = label_index(record, labels)
        if gold == IGNORE:  # a label the model was not trained on: counted apart, as training leaves it out
            unknown += 1
            continue
        for key in ("all", record.phenomenon):
            t = tallies.setdefault(key, Counter())
            t["n"] += 1
            t["correct"] += int(probs.argmax()) == gold
    result = {}
    for key, t in tallies.items():
        base = audit.get(key, {})
        result[key] = {"n": t["n"], "accuracy": _pct(t["correct"], t["n"]),
                       "majority_accuracy": base.get("majority_accuracy"),
                       "hypothesis_only_accuracy": base.get("hypothesis_only_accuracy"),
                       "baseline_n_test": base.get("n_test")}
    overall = result.pop("all", {"n": 0, "accuracy": None})
    overall.update(majority_accuracy=None, hypothesis_only_accuracy=None)
    return {"overall": overall, "per_phenomenon": dict(sorted(result.items())), "labels": labels,
            "unknown_label": unknown}


def evaluate(model_dir: str, dataset: str, split: str = "test", device: str = "auto", write: bool = True,
             precision: str = AUTO) -> dict:
    """Evaluate a model dir on a dataset split ('all' for every split) at a precision (training.scoring.precision);
    writes MODEL_DIR/eval/<dataset>.json; model_dir: a ModelDir, or a path opened here once (after the dataset's checks,
    which read its config alone)."""
    meta = model_dir.meta if isinstance(model_dir, ModelDir) else load_meta(model_dir)
    manifest, task = open_dataset(dataset)
    if manifest["record_type"] == "ClaimExample":  # its pairs are made by a view: no per-row accuracy to report here
        raise DatasetError(f"{dataset} holds ClaimExample rows; `entailgen evaluate` takes dae, recast and "
                           "nli-dialogue datasets")
    if task != meta["task"]:
        raise DatasetError(f"{model_dir} is a {meta['task']} model trained on {meta['record_type']} records; "
                           f"{dataset} holds {manifest['record_type']} records")
    if split != "all" and split not in manifest["splits"]:
        raise DatasetError(f"{dataset} has no {split!r} split (splits: {', '.join(sorted(manifest['splits']))}, all)")
    model_dir = ModelDir.open(model_dir)
    device, model, tokenizer, meta, precision = load_scoring_model(model_dir, device, precision)
    counts: Counter = Counter()
    scored = _scored(model, task, tokenizer, meta, records(dataset, split), device, counts)
    if task == DAE:
        result = evaluate_dae(scored)
    else:
        result = evaluate_pairs(scored, meta["labels"], manifest.get("stats", {}).get("audit", {}))
    name = os.path.basename(dataset.rstrip("/"))
    result = {"dataset": dataset, "dataset_name": name, "split": split, "task": task, "precision": precision,
              "counts": dict(sorted(counts.items())), **result}
    if write:
        write_evaluation(model_dir, result)
    return result


def write_evaluation(model_dir: str, result: dict) -> str:
    """MODEL_DIR/eval/<dataset>[.<split>].json, listed in the model card; returns its path."""
    name, split = result["dataset_name"], result["split"]
    return save_evaluation(model_dir, f"{name}.json" if split == "test" else f"{name}.{split}.json", result)


def result_table(result: dict) -> str:
    """The evaluation as a console table."""
    head = (f"{result['task']} model on {result['dataset_name']} ({result['split']}): "
            + ", ".join(f"{k} {v}" for k, v in result["counts"].items()))
    lines = [head, metrics_table(result)]
    if "sentence" in result:
        s = result["sentence"]
        lines.append(f"sentence level: accuracy {cell(s['accuracy'])} on {s['n']} hypotheses (majority "
                     f"{cell(s['majority_accuracy'])}); {s['definition']}")
    return "\n".join(lines)
