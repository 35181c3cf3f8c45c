"""Scorers of (premise, hypothesis) pairs with a trained model: the DAE arc model's sentence score (the DAE paper's §6
use: rank or filter generated text by factuality) and a pair model's P(entailed). Plain torch: no Beam here.

DaeScorer(model_dir).score(premise, hypothesis) parses the hypothesis with entailgen's parser (the relations labelling
leaves out are left out here too) and returns each arc's entailment probability and the sentence score, their mean
(footnote 3: min-pooling was unstable).
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence

from entailgen.schemas.records import ENTAILED, THREE_WAY, ArcExample, LabelledArc
from entailgen.training.fitting.model_dir import ModelDir
from entailgen.training.fitting.data import DatasetError
from entailgen.training.fitting.features import arc_features, pair_features
from entailgen.training.scoring.precision import AUTO, load_scoring_model
from entailgen.training.scoring.score_modes import CONTRADICTION, ScoreMode, mode_probabilities, score_of
from entailgen.training.scoring.unscorable import PAIR_FIELDS, Unscorable, checked_rows, only_result
from entailgen.transforms.arcs import extract_arcs
from entailgen.transforms.parser import Parser, ParserConfig

PairScores = Callable[[Sequence[tuple[str, str]]], list]  # (premise, hypothesis) pairs -> a float or Unscorable each


def scores_of(results: Sequence) -> list:
    """The score of each scorer result (a dict with a 'score'), or its Unscorable."""
    return [r if isinstance(r, Unscorable) else r["score"] for r in results]


TRAINED_LENGTH = 128  # `entailgen train`'s default --max-length: a model dir that does not say was trained at it


def scoring_length(meta: dict, max_length: Optional[int]) -> int:
    """The tokens a pair may take when scoring: the length the model was trained at, or a longer one asked for (whole
    passages of a document) up to the encoder's positions; ValueError (one line) past them."""
    if max_length is None:
        return int(meta.get("max_length", TRAINED_LENGTH))
    limit = (meta.get("encoder_config") or {}).get("max_position_embeddings")
    if max_length < 16 or (limit is not None and max_length > limit):
        raise ValueError(f"--max-length {max_length}: choose 16 to {limit or 'the encoder limit'} tokens")
    return max_length


class TokenLengths:
    """A scorer's token counts, for packing document passages to its length (training.scoring.passages)."""

    tokenizer = None
    max_length = 128
    cut = 0  # premises cut to fit the model's length so far (features.arc_features / pair_features: never refused)

    def lengths(self, texts: Sequence[str]) -> list[int]:
        """Each text's tokens, special tokens left out."""
        return [len(ids) for ids in self.tokenizer(list(texts), add_special_tokens=False, verbose=False)["input_ids"]]

    def room(self, hypotheses: Sequence[str]) -> list[int]:
        """The tokens left for a premise beside each hypothesis."""
        return [self.max_length - self.tokenizer.num_special_tokens_to_add(pair=True) - n
                for n in self.lengths(hypotheses)]


def distinct(pairs: Sequence) -> tuple[list, list[int]]:
    """The distinct pairs in first-seen order and each pair's index among them: an identical cell (a summary sentence
    met twice, a row given twice) costs one forward pass, not two."""
    index: dict = {}
    positions = [index.setdefault(pair, len(index)) for pair in pairs]
    return list(index), positions


class DaeScorer(TokenLengths):
    """A trained DAE arc model and the parser, loaded once; scores (premise, hypothesis) pairs. model_dir: a ModelDir
    or a path (opened here, once)."""

    def __init__(self, model_dir: ModelDir | str, parser: ParserConfig = ParserConfig(), device: str = "cpu",
                 batch_size: int = 32, *, mc_dropout: int = 0, seed: int = 0, precision: str = AUTO,
                 max_length: Optional[int] = None):
        model_dir = ModelDir.open(model_dir)
        self.device, self.model, self.tokenizer, self.meta, self.precision = load_scoring_model(
            model_dir, device, precision, mc_dropout)
        self.max_length = scoring_length(self.meta, max_length)
        if self.meta["task"] != "dae":
            raise DatasetError(f"{model_dir} is a {self.meta['task']} model; scoring arcs needs a dae model")
        self.mode = ScoreMode(mc_dropout=mc_dropout, seed=seed)  # arcs are 2-way: e only
        self.relations = {r: i for i, r in enumerate(self.meta["relations"])}
        self.parser = Parser(parser)
        self.batch_size = batch_size

    def score(self, premise: str, hypothesis: str) -> dict:
        """{'arcs': [{head, child, rel, head_word, child_word, entailed_probability}], 'score': mean probability}."""
        return only_result(self.score_many([(premise, hypothesis)]))

    def score_many(self, pairs: Sequence[tuple[str, str]]) -> list:
        """Each pair's score dict, or the Unscorable saying why not, in order: a pair whose texts the score job would
        dead-letter (unscorable.unscorable_text: not text, blank, no word, a lone surrogate or a NUL) gets its
        Unscorable, and the rest are scored (score_cells)."""
        return checked_rows(pairs, PAIR_FIELDS, self.score_cells)

    def score_cells(self, pairs: Sequence[tuple[str, str]]) -> list:
        """score_many of pairs whose texts are known to be text (a DocumentScorer's cells, cut from checked rows);
        parsing (each distinct hypothesis once: a summary sentence meets every block of its document) and inference
        are batched, each distinct pair scored once."""
        unique, positions = distinct(pairs)
        results = self._score_distinct(unique)
        return [results[i] for i in positions]

    def _score_distinct(self, pairs: Sequence[tuple[str, str]]) -> list:
        texts = list(dict.fromkeys(h for _, h in pairs))
        parsed = {text: ([t.text for t in tokens], [LabelledArc.of(a, None) for a in extract_arcs(tokens)])
                  for text, tokens in zip(texts, self.parser.tokens(texts))}
        results: list = [None] * len(pairs)
        ready = []
        for i, (premise, hypothesis) in enumerate(pairs):
            words, arcs = parsed[hypothesis]
            example = ArcExample("", premise, hypothesis, words, arcs, "scored", "", "", "")
            features = arc_features(self.tokenizer, example, self.relations, self.max_length, max_arcs=None)
            if features == "too_long":
                results[i] = Unscorable("TooLong", f"the hypothesis alone fills the model's {self.max_length} tokens")
            elif isinstance(features, str):
                results[i] = Unscorable("NoArcs", "the hypothesis has no content arc to score")
            else:
                self.cut += features.truncated
                ready.append((i, example, features))
        ready.sort(key=lambda item: len(item[2].input_ids))  # batches of like lengths: little padding to compute
        for start in range(0, len(ready), self.batch_size):
            chunk = ready[start:start + self.batch_size]
            probs = mode_probabilities(self.model, [f for _, _, f in chunk], self.tokenizer.pad_token_id or 0,
                                       self.device, self.mode, draw=start)
            for (i, example, features), p in zip(chunk, probs):
                entailed = p[: len(features.arcs), 1].tolist()
                words = example.hypothesis_tokens
                arcs = [{"head": example.arcs[k].head, "child": example.arcs[k].child, "rel": example.arcs[k].rel,
                         "head_word": words[example.arcs[k].head], "child_word": words[example.arcs[k].child],
                         "entailed_probability": round(q, 6)} for k, q in zip(features.arcs, entailed)]
                results[i] = {"hypothesis_tokens": words, "arcs": arcs, "cut": features.truncated,
                              "score": round(sum(entailed) / len(entailed), 6)}
        return results


class PairScorer(TokenLengths):
    """A trained pair model (`entailgen train --task pair`), loaded once; the score of (premise, hypothesis) pairs:
    P(entailed), or e-c on a 3-way model (training.scoring.score_modes), from one pass or MC dropout's mean.
    model_dir: a ModelDir or a path (opened here, once)."""

    def __init__(self, model_dir: ModelDir | str, device: str = "cpu", batch_size: int = 32, *, score: str = "e",
                 mc_dropout: int = 0, seed: int = 0, precision: str = AUTO, max_length: Optional[int] = None):
        self.mode = ScoreMode(score, mc_dropout, seed)
        model_dir = ModelDir.open(model_dir)
        self.device, self.model, self.tokenizer, self.meta, self.precision = load_scoring_model(
            model_dir, device, precision, mc_dropout)
        self.max_length = scoring_length(self.meta, max_length)
        if self.meta["task"] != "pair":
            raise DatasetError(f"{model_dir} is a {self.meta['task']} model; pair scoring needs a pair model")
        labels = self.meta["labels"]
        self.mode.check_model("pair", labels, model_dir)
        self.entailed = labels.index(ENTAILED if ENTAILED in labels else THREE_WAY[0])
        self.contradicted = labels.index(CONTRADICTION) if CONTRADICTION in labels else None
        self.batch_size = batch_size

    def score(self, premise: str, hypothesis: str) -> float:
        return only_result(self.score_many([(premise, hypothesis)]))

    def score_many(self, pairs: Sequence[tuple[str, str]]) -> list:
        """The score per pair in order, premises cut to fit as in training; Unscorable when the hypothesis alone is
        too long or its texts are ones the score job dead-letters (scored_many); each distinct pair scored once."""
        return scores_of(self.scored_many(pairs))

    def scored_many(self, pairs: Sequence[tuple[str, str]]) -> list:
        """Per pair in order: {'score', 'probabilities': {label: P(label)}} (the model's labels, in its order: the
        three of a 3-way model), or the Unscorable saying why not: a pair whose texts the score job would dead-letter
        (unscorable.unscorable_text) gets its Unscorable, and the rest are scored (scored_cells)."""
        return checked_rows(pairs, PAIR_FIELDS, self.scored_cells)

    def cell_scores(self, pairs: Sequence[tuple[str, str]]) -> list:
        """score_many of a DocumentScorer's cells (scored_cells)."""
        return scores_of(self.scored_cells(pairs))

    __call__ = cell_scores  # a PairScores that also counts tokens (TokenLengths)

    def scored_cells(self, pairs: Sequence[tuple[str, str]]) -> list:
        """scored_many of pairs whose texts are known to be text (a DocumentScorer's cells, cut from checked rows);
        each distinct pair scored once."""
        unique, positions = distinct(pairs)
        results = self._score_distinct(unique)
        return [results[i] for i in positions]

    def _score_distinct(self, pairs: Sequence[tuple[str, str]]) -> list:
        results: list = [None] * len(pairs)
        ready = []
        for i, (premise, hypothesis) in enumerate(pairs):
            features = pair_features(self.tokenizer, premise, hypothesis, 0, self.max_length)
            if isinstance(features, str):
                results[i] = Unscorable("TooLong", f"the hypothesis alone fills the model's {self.max_length} tokens")
            else:
                self.cut += features.truncated
                ready.append((i, features))
        ready.sort(key=lambda item: len(item[1].input_ids))  # batches of like lengths: little padding to compute
        for start in range(0, len(ready), self.batch_size):
            chunk = ready[start:start + self.batch_size]
            probs = mode_probabilities(self.model, [f for _, f in chunk], self.tokenizer.pad_token_id or 0,
                                       self.device, self.mode, draw=start)
            for (i, _), p in zip(chunk, probs):
                results[i] = {"score": round(score_of(p, self.entailed, self.contradicted, self.mode), 6),
                              "probabilities": {label: round(float(q), 6)
                                                for label, q in zip(self.meta["labels"], p.tolist())}}
        return results


class ArcPairScores:
    """A DAE model's sentence scores of pairs (a PairScores), keeping the last call's arcs: explaining a row reads the
    arcs of the cells just scored, with no second forward pass."""

    def __init__(self, scorer: DaeScorer):
        self.scorer = scorer
        self.last: dict = {}  # (premise, hypothesis) -> DaeScorer result, of the latest call
        self.lengths, self.room = scorer.lengths, scorer.room

    def __call__(self, pairs: Sequence[tuple[str, str]]) -> list:
        results = self.scorer.score_cells(pairs)
        self.last = dict(zip(pairs, results))
        return scores_of(results)

    def arcs(self, pairs: Sequence[tuple[str, str]]) -> list:
        """Each pair's DaeScorer result (hypothesis_tokens, arcs, score), those the last call lacks scored now."""
        missing = [p for p in dict.fromkeys(pairs) if p not in self.last]
        if missing:
            self.last.update(zip(missing, self.scorer.score_cells(missing)))
        return [self.last[p] for p in pairs]


def model_pair_scores(model_dir: ModelDir | str, device: str = "cpu", batch_size: int = 32,
                      mode: ScoreMode = ScoreMode(), precision: str = AUTO, max_length: Optional[int] = None
                      ) -> PairScores:
    """The cell scorer of a trained model dir in a score mode and precision: PairScorer's score for a pair model,
    DaeScorer's sentence score for a DAE arc model (e only: refused for e-c before it loads), its arcs kept
    (ArcPairScores); a path is opened here, once, for both. It scores cells as given (score_cells): a
    DocumentScorer's, cut from rows it checked, and a benchmark's sentences, scored as they always were."""
    model_dir = ModelDir.open(model_dir)
    meta = model_dir.meta
    mode.check_model(meta.get("task"), meta.get("labels"), model_dir)
    if meta.get("task") == "dae":
        scorer = DaeScorer(model_dir, device=device, batch_size=batch_size, mc_dropout=mode.mc_dropout, seed=mode.seed,
                           precision=precision, max_length=max_length)
        return ArcPairScores(scorer)
    return PairScorer(model_dir, device=device, batch_size=batch_size, score=mode.score, mc_dropout=mode.mc_dropout,
                      seed=mode.seed, precision=precision, max_length=max_length)
