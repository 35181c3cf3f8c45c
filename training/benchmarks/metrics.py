"""The measures every benchmark reports: balanced accuracy and ROC AUC (scikit-learn's), the val-chosen threshold,
and seeded bootstrap intervals over the test rows.

The bootstrap is written here rather than taken from SciPy's `stats.bootstrap`: a draw holding one label only has no
balanced accuracy or ROC AUC and is drawn again, which SciPy cannot do, and the draws come from random.Random(seed),
so a report's interval is the one a later run of the same rows gives."""
from __future__ import annotations

import random
from typing import Optional, Sequence

import numpy as np
from sklearn.metrics import balanced_accuracy_score, roc_auc_score


def _both_labels(labels: Sequence[int]) -> tuple[int, int]:
    """(consistent, inconsistent) counts; ValueError when a label is missing (the measure is undefined)."""
    pos = sum(1 for y in labels if y == 1)
    if pos == 0 or pos == len(labels):
        raise ValueError("balanced accuracy and ROC AUC need rows of both labels")
    return pos, len(labels) - pos


def balanced_accuracy(labels: Sequence[int], predictions: Sequence[int]) -> float:
    """Mean of the recall on consistent (1) and on inconsistent (0) rows: the paper's measure, blind to the skew."""
    _both_labels(labels)
    return float(balanced_accuracy_score(list(labels), list(predictions)))


def roc_auc(labels: Sequence[int], scores: Sequence[float]) -> float:
    """P(a consistent row scores above an inconsistent one), a tie counting half."""
    _both_labels(labels)
    return float(roc_auc_score(list(labels), list(scores)))


def choose_threshold(labels: Sequence[int], scores: Sequence[float]) -> float:
    """The threshold t (a row is predicted consistent when score > t) with the highest balanced accuracy on these
    rows. Candidates: min - 1 (all consistent), the midpoints between distinct sorted scores, max + 1 (none); ties:
    the smallest such t (compared exactly, in integers). scikit-learn's roc_curve would give the same best point, but
    its thresholds are the scores themselves (a row at t is then predicted consistent), not midpoints between them."""
    pos, neg = _both_labels(labels)
    per_score: dict[float, list[int]] = {}
    for y, s in zip(labels, scores):
        per_score.setdefault(s, [0, 0])[y] += 1
    distinct = sorted(per_score)
    tp, tn = pos, 0  # at min - 1 every row is predicted consistent
    best_key, best = tp * neg + tn * pos, distinct[0] - 1.0  # balanced accuracy * 2 * pos * neg
    for k, s in enumerate(distinct):  # past s, the rows scoring s are predicted inconsistent
        tn, tp = tn + per_score[s][0], tp - per_score[s][1]
        t = (s + distinct[k + 1]) / 2 if k + 1 < len(distinct) else s + 1.0
        if tp * neg + tn * pos > best_key:
            best_key, best = tp * neg + tn * pos, t
    return best


def central_95(draws: Sequence[float]) -> tuple[float, float]:
    """The lowest and highest of the middle 95% of the draws: as many left out below as above (25 each of 1,000)."""
    ordered, cut = sorted(draws), round(0.025 * len(draws))
    return ordered[cut], ordered[len(ordered) - 1 - cut]


def both_label_draws(labels: Sequence[int], resamples: int, seed: int) -> list[list[int]]:
    """Row indices drawn again with replacement from random.Random(seed), each draw holding both labels (a draw of
    one label only is drawn again): group_draws with each row a group of its own."""
    return group_draws([[y] for y in labels], resamples, seed)


def gap_interval(cuts: Sequence[tuple[Sequence[int], Sequence[int], Sequence[int]]], resamples: int = 1000,
                 seed: int = 0) -> tuple[float, float, float]:
    """(gap, low, high): overall balanced accuracy of predictions a minus b (mean over the datasets' (labels, a, b)
    test cuts), with its 95% paired bootstrap interval: each dataset's rows drawn again with replacement, the same
    draw for a and b (a draw with one label only is drawn again), so a gap the test rows cannot tell from 0 shows."""
    rng = random.Random(seed)

    def one(labels, a, b, k) -> float:
        drawn = [labels[i] for i in k]
        return balanced_accuracy(drawn, [a[i] for i in k]) - balanced_accuracy(drawn, [b[i] for i in k])

    def gap(picks) -> float:
        return sum(one(*cut, k) for cut, k in zip(cuts, picks)) / len(cuts)

    def draw(labels) -> list[int]:
        while True:
            k = [rng.randrange(len(labels)) for _ in labels]
            if 0 < sum(labels[i] for i in k) < len(k):
                return k

    gaps = [gap([draw(y) for y, _, _ in cuts]) for _ in range(resamples)]
    return (gap([range(len(y)) for y, _, _ in cuts]), *central_95(gaps))


def auc_interval(labels: Sequence[int], scores: Sequence[float], resamples: int = 1000,
                 seed: int = 0) -> tuple[float, float, float]:
    """(ROC AUC, low, high) in percent: the AUC (a tie counts half) and its 95% bootstrap interval over the rows
    (grouped_interval, each row a group of its own)."""
    return grouped_interval([[y] for y in labels], [[s] for s in scores], roc_auc, resamples=resamples, seed=seed)


def auc_gap(labels: Sequence[int], scores: Sequence[float], base: Sequence[float], resamples: int = 1000,
            seed: int = 0) -> tuple[float, float, float]:
    """(gap, low, high) in points: scores' ROC AUC minus base's on the same rows, with its 95% paired bootstrap
    interval over the rows (both scored on each draw), as Table 2 of With a Little Push compares a method with its
    base."""
    return grouped_interval([[y] for y in labels], [[s] for s in scores], roc_auc, [[s] for s in base], resamples,
                            seed)


def accuracy_interval(results: Sequence[float], resamples: int = 1000, seed: int = 0) -> tuple[float, float, float]:
    """(accuracy, low, high) in percent: the mean outcome and its 95% bootstrap interval over the rows."""
    rng, n = random.Random(seed), len(results)
    draws = [sum(results[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples)]
    low, high = central_95(draws)
    return round(100 * sum(results) / n, 1), round(100 * low, 1), round(100 * high, 1)


def group_draws(labels: Sequence[Sequence[int]], resamples: int, seed: int) -> list[list[int]]:
    """Groups (a document's words) drawn again with replacement from random.Random(seed), each draw's words holding
    both labels (a draw of one label only is drawn again): a bootstrap over documents, as their words are not
    independent."""
    rng, n = random.Random(seed), len(labels)
    draws = []
    while len(draws) < resamples:
        k = [rng.randrange(n) for _ in range(n)]
        drawn = [y for i in k for y in labels[i]]
        if 0 < sum(drawn) < len(drawn):
            draws.append(k)
    return draws


def grouped_interval(labels: Sequence[Sequence[int]], scores: Sequence[Sequence[float]], measure,
                     base: Optional[Sequence[Sequence[float]]] = None, resamples: int = 1000,
                     seed: int = 0) -> tuple[float, float, float]:
    """(value, low, high) in percent (points for a gap): measure(labels, scores) over every group's items, and its 95%
    bootstrap interval over the groups (group_draws); with `base`, the paired gap measure(scores) - measure(base) on
    the same draws."""
    if measure is roc_auc:  # one sort, then each draw in linear time: the same AUC as scikit-learn's on the draw
        aucs = [DrawnAuc(labels, s) for s in ((scores, base) if base is not None else (scores,))]

        def value(k) -> float:
            counts = np.bincount(np.asarray(k, dtype=np.int64), minlength=len(labels))
            return aucs[0](counts) - aucs[1](counts) if base is not None else aucs[0](counts)
    else:
        def value(k) -> float:
            y = [v for i in k for v in labels[i]]
            own = measure(y, [v for i in k for v in scores[i]])
            return own - measure(y, [v for i in k for v in base[i]]) if base is not None else own

    low, high = central_95([value(k) for k in group_draws(labels, resamples, seed)])
    return round(100 * value(range(len(labels))), 1), round(100 * low, 1), round(100 * high, 1)


class DrawnAuc:
    """ROC AUC of a bootstrap draw of groups (a tie counting half), each group's items weighted by how often the draw
    holds it: the scores sorted once, so 1,000 draws over 30,000 words take about a second where scikit-learn's call
    on each drawn list took about 20 s (a spans report makes two dozen such intervals)."""

    def __init__(self, labels: Sequence[Sequence[int]], scores: Sequence[Sequence[float]]):
        self.group = np.repeat(np.arange(len(labels)), [len(g) for g in labels])
        self.positive = np.fromiter((y for g in labels for y in g), dtype=np.float64)
        distinct, self.rank = np.unique(np.fromiter((v for g in scores for v in g), dtype=np.float64),
                                        return_inverse=True)
        self.distinct = len(distinct)

    def __call__(self, counts) -> float:
        weight = counts[self.group].astype(np.float64)
        pos = np.bincount(self.rank, weights=weight * self.positive, minlength=self.distinct)
        neg = np.bincount(self.rank, weights=weight * (1.0 - self.positive), minlength=self.distinct)
        below = np.cumsum(neg) - neg  # negatives scoring below each distinct score
        return float(np.dot(pos, below + neg / 2) / (pos.sum() * neg.sum()))
