"""Document-level scoring (SummaC §3, Laban et al. 2022): a model trained on sentence pairs scores a whole document.

The document is split into blocks (the claims family's splitter: document | paragraph | 2sents | sentence) and the
summary into sentences (read in its document's case when written all in lower case); a trained model scores every
(block, summary sentence) cell: a pair model its P(entailed), a DAE arc model its sentence score. SummaC-ZS or Conv
(training.scoring.summac) makes the row's score. Several models (one per family: each family's data teaches other
errors) score a row together by the mean of their log-odds. Plain torch: no Beam here.
"""
from __future__ import annotations

import functools
import os
import re
from dataclasses import asdict, dataclass
from typing import Optional, Sequence

from entailgen.training.fitting.model_dir import ModelDir
from entailgen.training.scoring.explain import Explanation, SentenceEvidence, WordRule, explanation
from entailgen.training.scoring.passages import (ARCS, BLOCK, CHUNKS, PACKED, PER_ARC, WordCount, arc_maxima,
                                                 check_evidence, resolved)
from entailgen.training.scoring.precision import AUTO
from entailgen.training.scoring.score_modes import E, ScoreMode
from entailgen.training.scoring.scorers import PairScores, model_pair_scores, scoring_length
from entailgen.training.scoring.summac import (AGGREGATIONS, CONV, ZS, conv_scores, ensemble_score, load_conv,
                                               model_checksums, zs_score)
from entailgen.training.scoring.unscorable import (DOCUMENT_FIELDS, Unscorable, checked_rows, every_scored, given_rows,
                                                   only_result)
from entailgen.transforms.claims.blocks import GRANULARITIES, blocks_of, document_text, paragraphs, sentences_of
from entailgen.transforms.parser import Parser, ParserConfig
from entailgen.transforms.passages import Passage, chunks, packed
from entailgen.transforms.views import held_words


def scorable_cells(blocks: Sequence[str], summary: Sequence[str], scored: dict):
    """(blocks, summary sentences) left once the ones the model cannot score are out: a sentence with no scorable
    cell (no content arc, too long alone), then a block too long beside a kept sentence; one long block or a "Yes."
    sentence does not sink the document. The first cell's Unscorable when nothing is left."""
    summary_ = [s for s in summary if any(not isinstance(scored[b, s], Unscorable) for b in blocks)]
    blocks_ = [b for b in blocks if summary_ and not any(isinstance(scored[b, s], Unscorable) for s in summary_)]
    if not blocks_:
        return next(c for b in blocks for s in summary if isinstance(c := scored[b, s], Unscorable))
    return blocks_, summary_


def of_the_summary(result):
    """A cell's result, an Unscorable said of the row's summary ("the summary sentence has no content arc"): a cell's
    hypothesis is a summary sentence, and a document row's caller gave a summary."""
    if not isinstance(result, Unscorable) or "the hypothesis" not in str(result):
        return result
    return Unscorable(result.error_type, str(result).replace("the hypothesis", "the summary sentence"))


PARSED_KEPT = 4096  # paragraphs whose parse a DocumentScorer keeps: a benchmark's documents recur across chunks


def remembered(memo: dict, keys: Sequence, compute, kept: int) -> dict:
    """The memo with every key's value, those it lacked computed in one batched call (compute(keys) -> values in
    order); the oldest dropped past `kept` entries, never one of these keys."""
    new = [k for k in dict.fromkeys(keys) if k not in memo]
    memo.update(zip(new, compute(new)))
    wanted = set(keys)
    for old in [k for k in memo if k not in wanted][:max(0, len(memo) - max(kept, len(wanted)))]:
        del memo[old]
    return memo


class RowScorer:
    """A scorer of (document, summary) rows: its scores from its `scored` results (DocumentScorer, EnsembleScorer)."""

    def scored(self, rows: Sequence[tuple[str, str]]) -> list:
        raise NotImplementedError

    @given_rows
    def score_many(self, rows: Sequence[tuple[str, str]]) -> list:
        """Score or Unscorable per (document, summary), in order."""
        return [score_of(r) for r in self.scored(rows)]

    @given_rows
    def explained(self, rows: Sequence[tuple[str, str]], rule: WordRule = WordRule()) -> list:
        """Per (document, summary): (its scored() result, its Explanation), or its Unscorable, in order."""
        return self.explained_by_rules(rows, [rule])[0]

    def explained_by_rules(self, rows: Sequence[tuple[str, str]], rules: Sequence[WordRule]) -> list[list]:
        """Per word rule, per row: what explained() gives, the rows scored once for every rule."""
        raise NotImplementedError

    @given_rows
    def explain_many(self, rows: Sequence[tuple[str, str]], rule: WordRule = WordRule()) -> list:
        """Per (document, summary): its Explanation (training.scoring.explain: every summary word's unsupported,
        every sentence's score and supporting block), or its Unscorable, in order."""
        return [e if isinstance(e, Unscorable) else e[1] for e in self.explained(rows, rule)]

    def explain(self, document: str, summary: str, rule: WordRule = WordRule()) -> Explanation:
        """Where one summary goes wrong: its Explanation (Unscorable raised)."""
        return only_result(self.explain_many([(document, summary)], rule))

    @given_rows
    def score_documents(self, rows: Sequence[tuple[str, str]]) -> list[float]:
        """One score per (document, summary), an unscorable row 0.0 (every_scored: the benchmark's rule, so a score
        here is the score `evaluate --benchmark` uses); score_many keeps the reason."""
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
    """(document, summary) rows -> one score each (higher = more consistent): SummaC-ZS or Conv over a model's cells.
    model_dir: a ModelDir, or a path opened here once for the checks, the Conv head and the model alike."""

    def __init__(self, model_dir: Optional[ModelDir | str], granularity: str = "sentence", aggregation: str = ZS,
                 conv_dir: Optional[str] = None, *, device: str = "cpu", parser: ParserConfig = ParserConfig(),
                 pair_scores: Optional[PairScores] = None, score: str = E, mc_dropout: int = 0, seed: int = 0,
                 precision: str = AUTO, evidence: Optional[str] = None, top_k: Optional[int] = None,
                 max_length: Optional[int] = None):
        options = DocumentOptions(granularity, aggregation, conv_dir, score=score, mc_dropout=mc_dropout, seed=seed,
                                  evidence=evidence, top_k=top_k, max_length=max_length)
        opened = options.check(model_dir)  # [the ModelDir] (none with pair_scores alone)
        model_dir = opened[0] if opened else None
        self.granularity, self.aggregation = granularity, aggregation
        self.pair_scores = pair_scores or model_pair_scores(model_dir, device, mode=options.mode, precision=precision,
                                                            max_length=max_length)
        no_arcs = getattr(self.pair_scores, "arcs", None) is None  # a pair model: its best block, its matrix kept
        self.evidence_mode, self.top_k = BLOCK if options.evidence == ARCS and no_arcs else options.evidence, top_k
        self.lengths = self.pair_scores if hasattr(self.pair_scores, "room") else WordCount()  # packs passages
        self.head = None
        if conv_dir is not None:
            self.head, conv_meta = load_conv(conv_dir, model_dir)
            self.bins = int(conv_meta["bins"])
        self.parser_config = parser
        self.parsed: dict = {}  # paragraph -> its tokens, the latest PARSED_KEPT kept across calls

    @functools.cached_property
    def parser(self) -> Parser:
        """The parser, loaded at the first split: an ensemble's members after the first (given the first's split) and
        a caller that hands over its rows' split (bench/gpu.py, where spaCy is absent) never load one."""
        return Parser(self.parser_config)

    def split(self, documents: Sequence[str], summaries: Sequence[str]) -> list:
        """split_rows of the rows (documents[i], summaries[i])."""
        return self.split_rows(list(zip(documents, summaries)))

    def split_rows(self, rows: Sequence[tuple[str, str]]) -> list:
        """(blocks, summary sentences) per (document, summary), or the Unscorable of a row whose texts the score job
        would dead-letter (unscorable.unscorable_text: not text, blank, no word, a lone surrogate or a NUL), each such
        row its own answer; one parser pass over every distinct paragraph not parsed by an earlier call (a document
        scored against several summaries, in one call or over several, is parsed once; only the parse sentences need);
        a summary in lower case is truecased from its document first."""
        return checked_rows(rows, DOCUMENT_FIELDS, self._split)

    def _split(self, rows: Sequence[tuple[str, str]]) -> list[tuple[list[str], list[str]]]:
        docs = [paragraphs(d) for d, _ in rows]
        sums = [paragraphs(truecased(s, d)) for d, s in rows]
        texts = list(dict.fromkeys(p for ps in docs + sums for p in ps))
        tokens = remembered(self.parsed, texts, lambda new: self.parser.tokens(new, sentences_only=True), PARSED_KEPT)
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
        return self.granularity, self.parser_config

    def passages(self, blocks: Sequence[str], summary: Sequence[str]) -> dict[str, list[Passage]]:
        """Each summary sentence's passages by the evidence mode (passages.py): every block (block, arcs), its packed
        passage (packed), or the document's chunks, each fitting beside the longest sentence (chunks)."""
        if self.evidence_mode not in (PACKED, CHUNKS):
            every = [Passage(b, (b,)) for b in blocks]
            return {s: every for s in summary}
        lengths = self.lengths.lengths(blocks)
        if self.evidence_mode == PACKED:
            return {s: [packed(blocks, lengths, held_words(blocks, s), room, self.top_k)]
                    for s, room in zip(summary, self.lengths.room(summary))}
        shared = chunks(blocks, lengths, min(self.lengths.room(summary)))
        return {s: shared for s in summary}

    @given_rows
    def scored(self, rows: Sequence[tuple[str, str]], split: Optional[list] = None) -> list:
        """Per (document, summary): {blocks, summary_sentences, matrix, sentence_scores (each sentence's best block,
        or by its evidence mode), score}, or the Unscorable saying why not; all cells of all rows are scored in one
        batched call. `split`: the rows' split() when a scorer with the same split_key already made it."""
        split = split if split is not None else self.split_rows(rows)
        parts = [part for part in split if not isinstance(part, Unscorable) and part[0] and part[1]]
        passages = [self.passages(*part) for part in parts] if self.evidence_mode != BLOCK else []
        cells = list(dict.fromkeys((p.text, s) for by_sentence in passages for s, ps in by_sentence.items()
                                   for p in ps) if passages else
                     dict.fromkeys((b, s) for blocks, summary in parts for b in blocks for s in summary))
        scored = {cell: of_the_summary(r) for cell, r in zip(cells, self.pair_scores(cells))} if cells else {}
        passages_of = iter(passages)
        out: list = []
        for part in split:
            if isinstance(part, Unscorable):
                out.append(part)
                continue
            blocks, summary = part
            if not blocks:
                out.append(Unscorable("EmptyDocument", "the document has no text to score against"))
            elif not summary:
                out.append(Unscorable("EmptySummary", "the summary has no sentence to score"))
            elif self.evidence_mode != BLOCK:
                out.append(self.read(blocks, summary, next(passages_of), scored))
            else:
                kept = scorable_cells(blocks, summary, scored)
                if isinstance(kept, Unscorable):
                    out.append(kept)
                    continue
                blocks_, summary_ = kept
                matrix = [[scored[b, s] for s in summary_] for b in blocks_]
                out.append({"blocks": len(blocks_), "summary_sentences": summary_, "matrix": matrix,
                            "sentence_scores": [max(column) for column in zip(*matrix)], "block_texts": blocks_,
                            "dropped": {s: next(c for b in blocks if isinstance(c := scored[b, s], Unscorable))
                                        for s in summary if s not in summary_}})
        good = [r for r in out if not isinstance(r, Unscorable)]
        if self.aggregation == ZS or self.evidence_mode != BLOCK:
            scores = [round(zs_score(r["matrix"]), 6) for r in good]
        else:
            scores = conv_scores(self.head, [r["matrix"] for r in good], self.bins)
        for r, score in zip(good, scores):
            r["score"] = score
        return out

    def read(self, blocks: Sequence[str], summary: Sequence[str], passages: dict[str, list[Passage]], scored: dict):
        """One row's result from its sentences' passages: a sentence's score is its best passage's (block, packed; a
        pair model always), or the mean of its arcs each at its best passage (arcs, chunks: passages.arc_maxima); a
        sentence no passage could score is dropped, saying why. `support`: per sentence, its passages and its parse
        (arcs naming the passage each was read from) for explain; `matrix`: the sentence scores as one row."""
        arcs_of = getattr(self.pair_scores, "arcs", None)
        scores, support, dropped = {}, {}, {}
        for s in summary:
            cells = [scored[p.text, s] for p in passages[s]]
            good = [i for i, c in enumerate(cells) if not isinstance(c, Unscorable)]
            if not good:
                dropped[s] = cells[0]
                continue
            best = max(good, key=lambda i: (cells[i], -i))
            parse = None
            if arcs_of is not None and self.evidence_mode in PER_ARC:
                parse = arc_maxima(arcs_of([(p.text, s) for p in passages[s]]))
            elif arcs_of is not None:
                parse = {**arcs_of([(passages[s][best].text, s)])[0]}
                parse["arcs"] = [{**a, "evidence": best} for a in parse["arcs"]]
            scores[s] = parse["score"] if parse is not None and self.evidence_mode in PER_ARC else cells[best]
            support[s] = (passages[s], parse if parse is not None else {"best": best})
        kept = [s for s in summary if s in scores]
        if not kept:
            return next(iter(dropped.values()))
        sentence_scores = [scores[s] for s in kept]
        return {"blocks": len(blocks), "summary_sentences": kept, "matrix": [sentence_scores],
                "sentence_scores": sentence_scores, "dropped": dropped, "support": support}

    @given_rows
    def evidence(self, rows: Sequence[tuple[str, str]], split: Optional[list] = None) -> list:
        """Per row: (its scored() result, a SentenceEvidence per summary sentence: its score, its best block and, for
        a DAE model, its arcs against that block), or the row's Unscorable; the arcs are the ones scored() just
        computed (ArcPairScores), so explaining costs no second pass."""
        split = split if split is not None else self.split_rows(rows)
        results = self.scored(rows, split)
        if self.evidence_mode != BLOCK:
            return [r if isinstance(r, Unscorable) else (r, [supported(s, r) for s in part[1]])
                    for part, r in zip(split, results)]
        best = [{s: r["block_texts"][max(range(len(column)), key=column.__getitem__)]
                 for s, column in zip(r["summary_sentences"], zip(*r["matrix"]))}
                if not isinstance(r, Unscorable) else {} for r in results]
        arcs_of = getattr(self.pair_scores, "arcs", None)
        cells = [(block, s) for chosen in best for s, block in chosen.items()]
        parses = dict(zip(cells, arcs_of(cells))) if arcs_of and cells else {}
        out: list = []
        for part, r, chosen in zip(split, results, best):
            if isinstance(r, Unscorable):
                out.append(r)
                continue
            summary = part[1]
            scores = dict(zip(r["summary_sentences"], r["sentence_scores"]))
            out.append((r, [SentenceEvidence(s, scores[s], chosen[s], parses.get((chosen[s], s))) if s in scores
                            else SentenceEvidence(s, r["dropped"][s]) for s in summary]))
        return out

    @given_rows
    def explained_by_rules(self, rows: Sequence[tuple[str, str]], rules: Sequence[WordRule]) -> list[list]:
        """explained() once per word rule, the rows scored once."""
        evidence = self.evidence(rows)
        return [[e if isinstance(e, Unscorable) else (e[0], explanation(d, s, e[0]["score"], [e[1]], rule))
                 for (d, s), e in zip(rows, evidence)] for rule in rules]

    def matrix(self, document: str, summary: str) -> list[list[float]]:
        """The block x summary-sentence matrix of one row (Unscorable raised)."""
        return only_result(self.scored([(document, summary)]))["matrix"]


def supported(sentence: str, result: dict) -> SentenceEvidence:
    """A summary sentence's SentenceEvidence from a result read by its passages (DocumentScorer.read): its score,
    its best passage, its parse (each arc naming its passage) and the passages, or why it was dropped."""
    if sentence not in result["support"]:
        return SentenceEvidence(sentence, result["dropped"][sentence])
    passages, parse = result["support"][sentence]
    score = dict(zip(result["summary_sentences"], result["sentence_scores"]))[sentence]
    if "best" in parse:  # a pair model: the best passage, no arcs
        return SentenceEvidence(sentence, score, passages[parse["best"]].text, None, (passages[parse["best"]],))
    used = sorted({a["evidence"] for a in parse["arcs"]})  # the passages named anew: indices into those used
    parse = {**parse, "arcs": [{**a, "evidence": used.index(a["evidence"])} for a in parse["arcs"]]}
    return SentenceEvidence(sentence, score, passages[used[0]].text if used else None, parse,
                            tuple(passages[i] for i in used))


def score_of(result):
    """A scored() result's score, or its Unscorable."""
    return result if isinstance(result, Unscorable) else result["score"]


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

    @given_rows
    def by_model(self, rows: Sequence[tuple[str, str]]) -> list[list]:
        """Each model's DocumentScorer.scored results of the rows, one list per model; the rows are parsed once for
        all the models that split them alike."""
        splits = self.splits(rows)
        return [m.scored(rows, splits[m.split_key()]) for m in self.members]

    @given_rows
    def splits(self, rows: Sequence[tuple[str, str]]) -> dict:
        """split_key -> the rows' split, made once for all the models that split them alike."""
        splits: dict = {}
        for m in self.members:
            if m.split_key() not in splits:
                splits[m.split_key()] = m.split_rows(rows)
        return splits

    @given_rows
    def scored(self, rows: Sequence[tuple[str, str]]) -> list:
        """Per (document, summary): the models' results joined (blocks, summary_sentences, sentence_scores, score),
        or the Unscorable of a row no model could score."""
        return [joined(results) for results in zip(*self.by_model(rows))]

    @given_rows
    def explained_by_rules(self, rows: Sequence[tuple[str, str]], rules: Sequence[WordRule]) -> list[list]:
        """Per rule, per row: (the models' results joined, the Explanation joining each word over the models that
        scored it), or the Unscorable of a row no model could score."""
        splits = self.splits(rows)
        by_model = list(zip(*[m.evidence(rows, splits[m.split_key()]) for m in self.members]))
        out = []
        for rule in rules:
            explained = []
            for (document, summary), evidence in zip(rows, by_model):
                result = joined([e if isinstance(e, Unscorable) else e[0] for e in evidence])
                good = [e[1] for e in evidence if not isinstance(e, Unscorable)]
                explained.append(result if isinstance(result, Unscorable)
                                 else (result, explanation(document, summary, result["score"], good, rule)))
            out.append(explained)
        return out


@dataclass(frozen=True)
class DocumentOptions:
    """How `score --documents` scores a row: block granularity, ZS or Conv, and the Conv head's dir."""

    granularity: str = "sentence"
    aggregation: str = ZS
    conv_dir: Optional[str] = None
    ensemble: tuple[str, ...] = ()  # more model dirs scoring beside the model (EnsembleScorer)
    pairs: bool = False  # rows of premise and hypothesis, the premise the document: a detector scoring pairs
    score: str = E  # each cell's score: e or e-c (training.scoring.score_modes)
    mc_dropout: int = 0  # MC dropout passes per cell (0: one eval pass)
    seed: int = 0  # MC dropout's seed
    detector: Optional[str] = None  # a detector dir whose members (and Conv head) score the rows (scoring.detector)
    explain: bool = False  # each row's words (how unsupported) and sentences (score, supporting block): explain.py
    evidence: Optional[str] = None  # where a sentence's evidence comes from (passages.py; None: passages.resolved)
    top_k: Optional[int] = None  # packed: at most this many document sentences per summary sentence
    max_length: Optional[int] = None  # tokens a cell may take when scoring (default: the model's training length)

    def __post_init__(self):
        object.__setattr__(self, "evidence", resolved(self.evidence, self.aggregation == CONV))

    @property
    def evidence_options(self) -> dict:
        """How a DocumentScorer gathers each sentence's passages (its evidence, top_k, max_length arguments)."""
        return {"evidence": self.evidence, "top_k": self.top_k, "max_length": self.max_length}

    @property
    def mode(self) -> ScoreMode:
        """The cells' score mode."""
        return ScoreMode(self.score, self.mc_dropout, self.seed)

    def check(self, model_dir: Optional[ModelDir | str] = None, ensemble: Optional[Sequence] = None) -> list:
        """The model and the ensemble's models (`ensemble`, else the option's dirs) opened once (ModelDir.open: a
        ModelDir as it is), for the scorers to take; ValueError (one line) for a granularity or aggregation that does
        not exist, Conv without a head (or a head without Conv), a head fit on another model's scores, Conv with an
        ensemble, a model dir missing or damaged (ModelDirError, a ValueError), a model given twice (a no-op
        ensemble), a score mode that is not one, e-c on a model without a contradiction class, and Conv in another
        mode than its head was fit in."""
        mode = self.mode
        model = ModelDir.open(model_dir) if model_dir is not None else None  # a damaged model: said first
        if self.aggregation == CONV and not mode.plain:
            raise ValueError("--aggregation conv reads a head `entailgen train-conv` fit on the model's plain e "
                             "scores; --score e-c and --mc-dropout are for zs")
        members = [ModelDir.open(m) for m in (self.ensemble if ensemble is None else ensemble)]
        for m in [m for m in (model, *members) if m is not None]:
            scoring_length(m.meta, self.max_length)  # past the encoder's positions: one line, before any row
        for m in [m for m in (model, *members) if m is not None and mode.score != E]:
            mode.check_model(m.meta.get("task"), m.meta.get("labels"), m)
        if self.granularity not in GRANULARITIES:
            raise ValueError(f"unknown granularity {self.granularity!r}; choose one of {', '.join(GRANULARITIES)}")
        check_evidence(self.evidence)
        if self.evidence in (PACKED, CHUNKS) and self.granularity != "sentence":
            raise ValueError(f"--evidence {self.evidence} packs the document's sentences: it takes --granularity "
                             f"sentence, not {self.granularity}")
        if self.evidence != BLOCK and self.aggregation == CONV:
            raise ValueError(f"--aggregation conv reads the block x sentence matrix of --evidence block, not "
                             f"{self.evidence}")
        if self.top_k is not None and (self.top_k < 1 or self.evidence != PACKED):
            raise ValueError("--top-k N (N >= 1) bounds --evidence packed's sentences")
        if self.aggregation not in AGGREGATIONS:
            raise ValueError(f"unknown aggregation {self.aggregation!r}; choose one of {', '.join(AGGREGATIONS)}")
        if (self.aggregation == CONV) != (self.conv_dir is not None):
            raise ValueError("--aggregation conv needs --conv CONV_DIR (a head `entailgen train-conv` wrote), and "
                             "--conv needs --aggregation conv")
        if self.ensemble and self.aggregation == CONV:
            raise ValueError("--ensemble joins the models' SummaC-ZS scores; a Conv head belongs to one model")
        identity = lambda d: model_checksums(d) or os.path.realpath(d)  # noqa: E731 (the same weights, anywhere)
        seen = {identity(model): model} if model is not None and members else {}
        for member in members:
            if identity(member) in seen:
                raise ValueError(f"--ensemble {member} is the model {seen[identity(member)]} again (the same "
                                 "checksums); an ensemble joins different models")
            seen[identity(member)] = member
        if self.conv_dir is not None:
            load_conv(self.conv_dir, model)
        return [m for m in (model, *members) if m is not None]

    def config(self) -> dict:
        return asdict(self)
