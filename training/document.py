"""Document-level scoring (SummaC §3, Laban et al. 2022): a model trained on sentence pairs scores a whole document.

The document is split into blocks (the claims family's splitter: document | paragraph | 2sents | sentence) and the
summary into sentences (read in its document's case when written all in lower case); a trained model scores every
(block, summary sentence) cell: a pair model its P(entailed), a DAE arc model its sentence score. SummaC-ZS takes each
sentence's best block and averages over the sentences; SummaC-Conv learns from each sentence's histogram of block scores
(50 bins over [0, 1]) -> one linear score per sentence -> their mean -> an affine map to P(consistent), trained on
labelled (document, claim) rows. Several models (one per family: each family's data teaches other errors) score a row
together by the mean of their log-odds.
"""
from __future__ import annotations

import json
import math
import os
import re
from dataclasses import asdict, dataclass
from typing import Callable, Iterable, Optional, Sequence

from apache_beam.ml.inference.base import ModelHandler

from entailgen.schemas.ids import content_id
from entailgen.schemas.records import DeadLetter, ScoredDocument, dead_letter
from entailgen.training.score import Unscorable, json_row, only_result
from entailgen.transforms.claims.document import GRANULARITIES, blocks_of, document_text, paragraphs, sentences_of
from entailgen.transforms.parse import ParserConfig

ZS, CONV = "zs", "conv"
AGGREGATIONS = (ZS, CONV)
BINS = 50
EPSILON = 1e-6  # scores are rounded to 6 places: 0.0 and 1.0 are read as 1e-6 and 1 - 1e-6
CONV_CONFIG = "conv.json"
CONV_WEIGHTS = "conv.safetensors"

PairScores = Callable[[Sequence[tuple[str, str]]], list]  # (premise, hypothesis) pairs -> a float or Unscorable each


def zs_score(matrix: Sequence[Sequence[float]]) -> float:
    """SummaC-ZS: each summary sentence (a column) is as consistent as its best block; the summary is their mean."""
    columns = list(zip(*matrix))
    return sum(max(column) for column in columns) / len(columns)


def ensemble_score(scores: Sequence[float]) -> float:
    """Several models' scores of one row as one: the mean of their log-odds (a product of experts), so a model sure of
    an error outweighs one that is unsure, and models whose scores live on different scales still each count."""
    logits = [math.log(max(p, EPSILON) / max(1.0 - p, EPSILON)) for p in scores]
    return 1.0 / (1.0 + math.exp(-sum(logits) / len(logits)))


def column_histogram(column: Sequence[float], bins: int = BINS) -> list[float]:
    """Counts of a sentence's block scores in `bins` equal bins over [0, 1] (the last bin includes 1.0), as SummaC."""
    counts = [0.0] * bins
    for score in column:
        counts[min(int(score * bins), bins - 1)] += 1.0
    return counts


def histograms(matrix: Sequence[Sequence[float]], bins: int = BINS) -> list[list[float]]:
    """One histogram per summary sentence: what the Conv head reads."""
    return [column_histogram(column, bins) for column in zip(*matrix)]


def conv_head(bins: int = BINS):
    """The SummaC-Conv head: a linear score per sentence histogram (the paper's 1-D convolution of width `bins`), the
    mean over sentences, an affine map to one logit of 'consistent'."""
    import torch
    from torch import nn

    class ConvHead(nn.Module):
        def __init__(self):
            super().__init__()
            self.sentence = nn.Linear(bins, 1)
            self.final = nn.Linear(1, 1)

        def forward(self, histograms, mask):
            """Logits [documents] of histograms [documents, sentences, bins] with mask [documents, sentences]."""
            per_sentence = self.sentence(histograms).squeeze(-1) * mask
            mean = per_sentence.sum(-1) / mask.sum(-1).clamp(min=1)
            return self.final(mean.unsqueeze(-1)).squeeze(-1)

    torch.manual_seed(0)
    return ConvHead()


def _padded(matrices: Sequence[Sequence[Sequence[float]]], bins: int):
    """Histograms and sentence masks of several matrices as padded tensors."""
    import torch

    hists = [histograms(m, bins) for m in matrices]
    most = max(len(h) for h in hists)
    tensor = torch.zeros(len(hists), most, bins)
    mask = torch.zeros(len(hists), most)
    for i, h in enumerate(hists):
        tensor[i, :len(h)] = torch.tensor(h)
        mask[i, :len(h)] = 1.0
    return tensor, mask


def train_conv(matrices: Sequence, labels: Sequence[int], *, seed: int = 0, epochs: int = 20, lr: float = 0.1,
               batch_size: int = 32, bins: int = BINS):
    """A Conv head fitted to (block x sentence matrix, label 1 consistent / 0 not) rows: Adam, lr 0.1, batch 32 as in
    SummaC's train_summac.py, cross-entropy on the one logit, rows shuffled with the seed."""
    import random

    import torch

    if len(set(labels)) < 2:
        raise ValueError("training a Conv head needs rows of both labels (consistent and inconsistent)")
    torch.manual_seed(seed)
    head = conv_head(bins)
    optimizer = torch.optim.Adam(head.parameters(), lr=lr)
    order = list(range(len(matrices)))
    rng = random.Random(seed)
    for _ in range(epochs):
        rng.shuffle(order)
        for start in range(0, len(order), batch_size):
            chunk = order[start:start + batch_size]
            tensor, mask = _padded([matrices[i] for i in chunk], bins)
            target = torch.tensor([float(labels[i]) for i in chunk])
            loss = torch.nn.functional.binary_cross_entropy_with_logits(head(tensor, mask), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return head.eval()


def conv_scores(head, matrices: Sequence, bins: int = BINS) -> list[float]:
    """P(consistent) of each matrix under a Conv head."""
    import torch

    if not matrices:
        return []
    with torch.no_grad():
        tensor, mask = _padded(matrices, bins)
        return [round(float(p), 6) for p in torch.sigmoid(head(tensor, mask))]


def save_conv(directory: str, head, meta: dict) -> None:
    """Weights (safetensors) and conv.json: the bins, the granularity and the scoring model's checksums it was fit on."""
    from safetensors.torch import save_file

    os.makedirs(directory, exist_ok=True)
    save_file({k: v.contiguous() for k, v in head.state_dict().items()}, os.path.join(directory, CONV_WEIGHTS))
    with open(os.path.join(directory, CONV_CONFIG), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1, sort_keys=True, allow_nan=False)


def load_conv(directory: str, model_dir: Optional[str] = None):
    """(head, meta) of a conv dir; ValueError (one line) when it is not one, or was fit on another scoring model."""
    from safetensors.torch import load_file

    try:
        with open(os.path.join(directory, CONV_CONFIG), encoding="utf-8") as f:
            meta = json.load(f)
        head = conv_head(int(meta["bins"]))
        head.load_state_dict(load_file(os.path.join(directory, CONV_WEIGHTS)))
    except (OSError, ValueError, KeyError, RuntimeError) as e:
        raise ValueError(f"{directory} is not a Conv head `entailgen train-conv` wrote ({str(e).splitlines()[0]})")
    if model_dir is not None and meta.get("model_checksums") != model_checksums(model_dir):
        raise ValueError(f"{directory} was fit on the scores of another model than {model_dir}; train it again with "
                         f"`entailgen train-conv {model_dir} ...`")
    return head.eval(), meta


def model_checksums(model_dir: str) -> str:
    """The sha256 of a model dir's checksums.json: which model a Conv head's histograms came from."""
    from entailgen.training.checkpoint import CHECKSUMS, file_sha256

    path = os.path.join(model_dir, CHECKSUMS)
    return file_sha256(path) if os.path.isfile(path) else ""


def model_pair_scores(model_dir: str, device: str = "cpu", batch_size: int = 32) -> PairScores:
    """The cell scorer of a trained model dir: PairScorer's P(entailed) for a pair model, DaeScorer's sentence score
    for a DAE arc model."""
    from entailgen.training.checkpoint import load_meta
    from entailgen.training.score import DaeScorer

    if load_meta(model_dir).get("task") == "dae":
        scorer = DaeScorer(model_dir, device=device, batch_size=batch_size)
        return lambda pairs: [r if isinstance(r, Unscorable) else r["score"] for r in scorer.score_many(pairs)]
    return PairScorer(model_dir, device=device, batch_size=batch_size).score_many


class PairScorer:
    """A trained pair model (`entailgen train --task pair`), loaded once; P(entailed) of (premise, hypothesis) pairs."""

    def __init__(self, model_dir: str, device: str = "cpu", batch_size: int = 32):
        from entailgen.schemas.records import ENTAILED, THREE_WAY
        from entailgen.training.checkpoint import load_trained
        from entailgen.training.data import DatasetError
        from entailgen.training.trainer import pick_device

        self.device = pick_device(device)
        self.model, self.tokenizer, self.meta = load_trained(model_dir, str(self.device))
        if self.meta["task"] != "pair":
            raise DatasetError(f"{model_dir} is a {self.meta['task']} model; pair scoring needs a pair model")
        labels = self.meta["labels"]
        self.entailed = labels.index(ENTAILED if ENTAILED in labels else THREE_WAY[0])
        self.batch_size = batch_size

    def score(self, premise: str, hypothesis: str) -> float:
        return only_result(self.score_many([(premise, hypothesis)]))

    def score_many(self, pairs: Sequence[tuple[str, str]]) -> list:
        """P(entailed) per pair in order, premises cut to fit as in training; Unscorable when the hypothesis alone is
        too long."""
        from entailgen.training.evaluation import _probabilities
        from entailgen.training.features import pair_features

        results: list = [None] * len(pairs)
        ready = []
        for i, (premise, hypothesis) in enumerate(pairs):
            features = pair_features(self.tokenizer, premise, hypothesis, 0, self.meta["max_length"])
            if isinstance(features, str):
                results[i] = Unscorable("TooLong", f"the hypothesis alone fills the model's {self.meta['max_length']} "
                                                   f"tokens")
            else:
                ready.append((i, features))
        ready.sort(key=lambda item: len(item[1].input_ids))  # batches of like lengths: little padding to compute
        for start in range(0, len(ready), self.batch_size):
            chunk = ready[start:start + self.batch_size]
            probs = _probabilities(self.model, [f for _, f in chunk], self.tokenizer.pad_token_id or 0, self.device)
            for (i, _), p in zip(chunk, probs):
                results[i] = round(float(p[self.entailed]), 6)
        return results


def scorable_cells(blocks: Sequence[str], summary: Sequence[str], scored: dict):
    """(blocks, summary sentences) left once the ones the model cannot score are out: a sentence with no scorable
    cell (no content arc, too long alone), then a block too long beside a kept sentence; one long block or a "Yes."
    sentence does not sink the document. The first cell's Unscorable when nothing is left."""
    summary_ = [s for s in summary if any(not isinstance(scored[b, s], Unscorable) for b in blocks)]
    blocks_ = [b for b in blocks if summary_ and not any(isinstance(scored[b, s], Unscorable) for s in summary_)]
    if not blocks_:
        return next(c for b in blocks for s in summary if isinstance(c := scored[b, s], Unscorable))
    return blocks_, summary_


class RowScorer:
    """A scorer of (document, summary) rows: its scores from its `scored` results (DocumentScorer, EnsembleScorer)."""

    def scored(self, rows: Sequence[tuple[str, str]]) -> list:
        raise NotImplementedError

    def score_many(self, rows: Sequence[tuple[str, str]]) -> list:
        """Score or Unscorable per (document, summary), in order."""
        return [score_of(r) for r in self.scored(rows)]

    def score_documents(self, rows: Sequence[tuple[str, str]]) -> list[float]:
        """One score per (document, summary); an unscorable row raises its Unscorable (the benchmark scores all)."""
        return every_scored(self.score_many(rows))


SENTENCE_START = re.compile(r"(?:^|[.!?][\"')\]]*\s+|\n)[\"'(\[`]*$")  # what a sentence-initial word follows


def sentence_initial(text: str, start: int) -> bool:
    """Whether the word at `start` begins a sentence (its capital then says nothing of how the word is written)."""
    return bool(SENTENCE_START.search(text[max(0, start - 8):start]))


def truecased(summary: str, document: str) -> str:
    """A summary written all in lower case (as the benchmarks' system outputs are) against a document that is not: each
    word as the document writes it (mid-sentence, or at a sentence start where that is more than a capital: "McIlroy",
    "BBC"), each sentence begun with a capital, so the parser (and a DAE model's arcs) reads "ipswich town" as the
    document's "Ipswich Town"; any other summary as it is."""
    if summary != summary.lower() or document == document.lower():
        return summary
    forms: dict[str, dict[str, int]] = {}
    for m in re.finditer(r"\w+", document):
        word = m.group()
        if not sentence_initial(document, m.start()) or word != word.lower().capitalize():
            counts = forms.setdefault(word.lower(), {})
            counts[word] = counts.get(word, 0) + 1

    def case(m: re.Match) -> str:
        counts = forms.get(m.group(), {m.group(): 1})
        word = max(counts, key=lambda form: (counts[form], form.islower(), form))  # a tie: lower case
        return word[:1].upper() + word[1:] if sentence_initial(summary, m.start()) else word
    return re.sub(r"\w+", case, summary)


class DocumentScorer(RowScorer):
    """(document, summary) rows -> one score each (higher = more consistent): SummaC-ZS or Conv over a model's cells."""

    def __init__(self, model_dir: Optional[str], granularity: str = "sentence", aggregation: str = ZS,
                 conv_dir: Optional[str] = None, *, device: str = "cpu", parser: ParserConfig = ParserConfig(),
                 pair_scores: Optional[PairScores] = None):
        from entailgen.transforms.parse import Parser

        DocumentOptions(granularity, aggregation, conv_dir).check(model_dir)
        self.granularity, self.aggregation = granularity, aggregation
        self.pair_scores = pair_scores or model_pair_scores(model_dir, device)
        self.head = None
        if conv_dir is not None:
            self.head, conv_meta = load_conv(conv_dir, model_dir)
            self.bins = int(conv_meta["bins"])
        self.parser = Parser(parser)

    def split(self, documents: Sequence[str], summaries: Sequence[str]) -> list[tuple[list[str], list[str]]]:
        """(blocks, summary sentences) per row, with one parser pass over every distinct paragraph of the call (a
        document scored against several summaries is parsed once); a summary in lower case is truecased from its
        document first."""
        docs = [paragraphs(d) for d in documents]
        sums = [paragraphs(truecased(s, d)) for d, s in zip(documents, summaries)]
        texts = list(dict.fromkeys(p for ps in docs + sums for p in ps))
        tokens = dict(zip(texts, self.parser.tokens(texts)))
        out = []
        for doc_paragraphs, sum_paragraphs in zip(docs, sums):
            sentences, offset = [], 0
            for paragraph in doc_paragraphs:
                sentences.extend(sentences_of(tokens[paragraph], paragraph, offset))
                offset += len(paragraph) + 2
            blocks = blocks_of(self.granularity, document_text(doc_paragraphs), doc_paragraphs, sentences)
            summary = [s.text for p in sum_paragraphs for s in sentences_of(tokens[p], p, 0)]
            out.append((blocks, summary))
        return out

    def split_key(self) -> tuple:
        """What split() depends on: scorers with the same key split rows alike (an ensemble splits once)."""
        return self.granularity, self.parser.config

    def scored(self, rows: Sequence[tuple[str, str]], split: Optional[list] = None) -> list:
        """Per (document, summary): {blocks, summary_sentences, matrix, sentence_scores (each sentence's best block),
        score}, or the Unscorable saying why not; all cells of all rows are scored in one batched call. `split`: the
        rows' split() when a scorer with the same split_key already made it."""
        split = split if split is not None else self.split([d for d, _ in rows], [s for _, s in rows])
        cells = list(dict.fromkeys((b, s) for blocks, summary in split for b in blocks for s in summary))
        scored = dict(zip(cells, self.pair_scores(cells))) if cells else {}
        out: list = []
        for blocks, summary in split:
            if not blocks:
                out.append(Unscorable("EmptyDocument", "the document has no text to score against"))
            elif not summary:
                out.append(Unscorable("EmptySummary", "the summary has no sentence to score"))
            else:
                kept = scorable_cells(blocks, summary, scored)
                if isinstance(kept, Unscorable):
                    out.append(kept)
                    continue
                blocks_, summary_ = kept
                matrix = [[scored[b, s] for s in summary_] for b in blocks_]
                out.append({"blocks": len(blocks_), "summary_sentences": summary_, "matrix": matrix,
                            "sentence_scores": [max(column) for column in zip(*matrix)]})
        good = [r for r in out if not isinstance(r, Unscorable)]
        if self.aggregation == ZS:
            scores = [round(zs_score(r["matrix"]), 6) for r in good]
        else:
            scores = conv_scores(self.head, [r["matrix"] for r in good], self.bins)
        for r, score in zip(good, scores):
            r["score"] = score
        return out

    def matrix(self, document: str, summary: str) -> list[list[float]]:
        """The block x summary-sentence matrix of one row (Unscorable raised)."""
        return only_result(self.scored([(document, summary)]))["matrix"]


def score_of(result):
    """A scored() result's score, or its Unscorable."""
    return result if isinstance(result, Unscorable) else result["score"]


def every_scored(results: Sequence) -> list[float]:
    """The scores, or the first Unscorable raised: the benchmark scores every row."""
    bad = next((r for r in results if isinstance(r, Unscorable)), None)
    if bad is not None:
        raise bad
    return list(results)


def joined(results: Sequence):
    """One row's DocumentScorer.scored results, one per model, as one: the first scoring model's blocks and
    sentences, each sentence's and the row's score joined over the models that scored them; the first Unscorable
    when none could (one model's gap does not sink the row)."""
    good = [r for r in results if not isinstance(r, Unscorable)]
    if not good:
        return results[0]
    by_sentence = [dict(zip(r["summary_sentences"], r["sentence_scores"])) for r in good]
    sentences = good[0]["summary_sentences"]
    return {"blocks": good[0]["blocks"], "summary_sentences": sentences,
            "sentence_scores": [round(ensemble_score([s[t] for s in by_sentence if t in s]), 6) for t in sentences],
            "score": round(ensemble_score([r["score"] for r in good]), 6)}


class EnsembleScorer(RowScorer):
    """Several DocumentScorers as one detector (e.g. one model per family), each row joined over its models."""

    def __init__(self, members: Sequence[DocumentScorer]):
        self.members = list(members)

    def by_model(self, rows: Sequence[tuple[str, str]]) -> list[list]:
        """Each model's DocumentScorer.scored results of the rows, one list per model; the rows are parsed once for
        all the models that split them alike."""
        splits: dict = {}
        for m in self.members:
            if m.split_key() not in splits:
                splits[m.split_key()] = m.split([d for d, _ in rows], [s for _, s in rows])
        return [m.scored(rows, splits[m.split_key()]) for m in self.members]

    def scored(self, rows: Sequence[tuple[str, str]]) -> list:
        """Per (document, summary): the models' results joined (blocks, summary_sentences, sentence_scores, score),
        or the Unscorable of a row no model could score."""
        return [joined(results) for results in zip(*self.by_model(rows))]


@dataclass(frozen=True)
class DocumentOptions:
    """How `score --documents` scores a row: block granularity, ZS or Conv, and the Conv head's dir."""

    granularity: str = "sentence"
    aggregation: str = ZS
    conv_dir: Optional[str] = None
    ensemble: tuple[str, ...] = ()  # more model dirs scoring beside the model (EnsembleScorer)

    def check(self, model_dir: Optional[str] = None) -> None:
        """ValueError (one line) for a granularity or aggregation that does not exist, Conv without a head (or a
        head without Conv), a head fit on another model's scores, Conv with an ensemble, and an ensemble model dir
        missing or damaged (EncoderError, a ValueError)."""
        from entailgen.training.checkpoint import verify_model_dir
        if self.granularity not in GRANULARITIES:
            raise ValueError(f"unknown granularity {self.granularity!r}; choose one of {', '.join(GRANULARITIES)}")
        if self.aggregation not in AGGREGATIONS:
            raise ValueError(f"unknown aggregation {self.aggregation!r}; choose one of {', '.join(AGGREGATIONS)}")
        if (self.aggregation == CONV) != (self.conv_dir is not None):
            raise ValueError("--aggregation conv needs --conv CONV_DIR (a head `entailgen train-conv` wrote), and "
                             "--conv needs --aggregation conv")
        if self.ensemble and self.aggregation == CONV:
            raise ValueError("--ensemble joins the models' SummaC-ZS scores; a Conv head belongs to one model")
        for member in self.ensemble:
            verify_model_dir(member)
        if self.conv_dir is not None:
            load_conv(self.conv_dir, model_dir)

    def config(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class DocumentInput:
    """One input line's (document, summary), with where it came from."""

    document: str
    summary: str
    source: str
    source_id: str

    @property
    def raw(self) -> str:
        """What a dead letter of this row keeps."""
        return self.summary


def parse_document_line(line: str | bytes, source: str) -> DocumentInput | DeadLetter:
    """A JSON Lines row with string fields document and summary (id optional), or a DeadLetter saying why not."""
    parsed = json_row(line, source, ("document", "summary"))
    if isinstance(parsed, DeadLetter):
        return parsed
    row, source_id = parsed
    return DocumentInput(row["document"], row["summary"], source, source_id)


def scored_document(row: DocumentInput, result, options: DocumentOptions) -> ScoredDocument | DeadLetter:
    """The ScoredDocument of a DocumentScorer result, or the DeadLetter of an Unscorable row."""
    if isinstance(result, Unscorable):
        return dead_letter(row.source, row.source_id, "score", result.error_type, str(result), row.summary)
    return ScoredDocument(content_id("score-document", row.source_id, row.document, row.summary), row.document,
                          row.summary, result["blocks"], result["summary_sentences"],
                          [round(float(s), 6) for s in result["sentence_scores"]], result["score"],
                          options.aggregation, options.granularity, row.source, row.source_id)


class DocumentScoreHandler(ModelHandler[DocumentInput, object, RowScorer]):
    """RunInference handler: the model (and Conv head, or the ensemble's models) load once per worker; a batch of rows
    in, records out."""

    def __init__(self, model_dir: str, options: DocumentOptions, parser: ParserConfig = ParserConfig(),
                 device: str = "cpu"):
        super().__init__()
        self.model_dir, self.options, self.parser, self.device = model_dir, options, parser, device

    def load_model(self) -> RowScorer:
        o = self.options
        members = [DocumentScorer(m, o.granularity, o.aggregation, o.conv_dir, device=self.device, parser=self.parser)
                   for m in (self.model_dir, *o.ensemble)]
        return members[0] if len(members) == 1 else EnsembleScorer(members)

    def run_inference(self, batch: Sequence[DocumentInput], model: RowScorer,
                      inference_args: Optional[dict] = None) -> Iterable:
        results = model.scored([(r.document, r.summary) for r in batch])
        return [scored_document(r, result, self.options) for r, result in zip(batch, results)]

    def batch_elements_kwargs(self):
        return {"min_batch_size": 1, "max_batch_size": 16}


def claim_rows(dataset: str, split: str, limit: Optional[int]) -> list[tuple[list[str], str, int]]:
    """(blocks, claim, 1 consistent / 0 not) of a claims dataset's document rows (block rows left out), the first
    `limit` of the split (rows are in content-hash order: a uniform sample)."""
    from entailgen.schemas.records import ENTAILED, ClaimExample
    from entailgen.training.data import DatasetError, open_dataset, records

    manifest, _ = open_dataset(dataset)
    if manifest.get("record_type") != ClaimExample.__name__:
        raise DatasetError(f"{dataset} holds {manifest.get('record_type')} rows; a Conv head learns from a claims "
                           f"dataset's (document blocks, claim, label) rows")
    rows = []
    for record in records(dataset, split) if split in manifest.get("splits", {}) else ():
        if record.block_index is None and record.blocks:
            rows.append((list(record.blocks), record.claim, int(record.entailment == ENTAILED)))
            if limit is not None and len(rows) == limit:
                break
    return rows


def claim_matrices(pair_scores: PairScores, rows, batch_rows: int = 64, progress=None) -> list:
    """The blocks x 1 matrix of each claim row (the claim is one summary sentence: no parsing needed), scored in
    batches of rows; progress(done, total) after each."""
    out: list = []
    for start in range(0, len(rows), batch_rows):
        chunk = rows[start:start + batch_rows]
        cells = list(dict.fromkeys((b, claim) for blocks, claim, _ in chunk for b in blocks))
        scored = dict(zip(cells, pair_scores(cells)))
        for blocks, claim, _ in chunk:
            column = [scored[b, claim] for b in blocks]
            out.append(None if any(isinstance(c, Unscorable) for c in column) else [[c] for c in column])
        if progress is not None:
            progress(min(start + batch_rows, len(rows)), len(rows))
    return out


def balanced_accuracy_at(scores: Sequence[float], labels: Sequence[int], threshold: float = 0.5) -> Optional[float]:
    """The benchmark's balanced accuracy (percent) of the scores at a threshold; None without both labels."""
    from entailgen.training.benchmark import balanced_accuracy

    if len(set(labels)) < 2:
        return None
    return round(100 * balanced_accuracy(labels, [int(s > threshold) for s in scores]), 2)


def check_conv_output(output: str, overwrite: bool = False) -> None:
    """Refuse (ValueError) a Conv dir that is a file, inside an entailgen folder, or a non-empty folder unless
    overwrite and `train-conv` wrote it (conv.json)."""
    from entailgen.runners.job import check_not_inside_entailgen

    if os.path.isfile(output):
        raise ValueError(f"--output {output} is a file")
    check_not_inside_entailgen(output)
    if os.path.isdir(output) and os.listdir(output):
        if not overwrite:
            raise ValueError(f"--output {output} is not empty (use --overwrite to replace a Conv dir)")
        if not os.path.isfile(os.path.join(output, CONV_CONFIG)):
            raise ValueError(f"--overwrite replaces only a Conv dir `entailgen train-conv` wrote; {output} is not one")


def fit_conv(model_dir: str, dataset: str, output: str, *, max_rows: Optional[int] = 2000, seed: int = 0,
             device: str = "cpu", overwrite: bool = False, progress=None) -> dict:
    """Train a SummaC-Conv head on a model's block scores of a claims dataset's train rows (dev rows: balanced
    accuracy at 0.5), written build-then-swap into output; returns conv.json."""
    from entailgen.runners.job import built_then_swapped
    from entailgen.training.checkpoint import verify_model_dir

    verify_model_dir(model_dir)
    check_conv_output(output, overwrite)
    rows = {split: claim_rows(dataset, split, max_rows) for split in ("train", "dev")}
    if not rows["train"]:
        raise ValueError(f"{dataset} has no document row in its train split to fit a Conv head on")
    scores = model_pair_scores(model_dir, device)
    fitted = {split: [(m, y) for m, (_, _, y) in zip(claim_matrices(scores, r, progress=progress), r) if m is not None]
              for split, r in rows.items()}
    head = train_conv([m for m, _ in fitted["train"]], [y for _, y in fitted["train"]], seed=seed)
    dev = fitted["dev"]
    meta = {"bins": BINS, "granularity": _granularity(dataset), "model": model_dir,
            "model_checksums": model_checksums(model_dir), "dataset": dataset, "seed": seed,
            "rows": {split: len(r) for split, r in fitted.items()},
            "dev_balanced_accuracy": balanced_accuracy_at(conv_scores(head, [m for m, _ in dev]), [y for _, y in dev])}
    with built_then_swapped(output, check=lambda: check_conv_output(output, overwrite)) as building:
        save_conv(building, head, meta)
    return meta


def _granularity(dataset: str) -> str:
    """The block granularity a claims dataset was made with (its manifest's config)."""
    from entailgen.training.data import open_dataset

    return str(open_dataset(dataset)[0].get("config", {}).get("family", {}).get("granularity", "sentence"))
