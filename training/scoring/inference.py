"""Scoring at scale with Beam's RunInference (the framework adapter, apart from the scorers' model code): JSON Lines
rows in, ScoredPair / ScoredDocument records and dead letters out, the model loaded once per worker; `score_graph`
wires a whole score job (read -> score -> shard -> the staged summary the manifest is made from)."""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Iterable, Iterator, Optional, Sequence

import apache_beam as beam
from apache_beam import pvalue
from apache_beam.io.filesystems import FileSystems
from apache_beam.ml.inference.base import ModelHandler, RunInference

from entailgen.dataset.manifest import StageSummary, count_by
from entailgen.dataset.shard import ShardConfig, WriteDeadLetters, WriteShards
from entailgen.schemas.ids import content_id
from entailgen.schemas.records import ArcScore, DeadLetter, LabelProbability, ScoredDocument, ScoredPair, dead_letter
from entailgen.training.scoring.detector import Detector, DetectorDir
from entailgen.training.scoring.document_scorer import DocumentOptions, DocumentScorer, EnsembleScorer, RowScorer
from entailgen.training.fitting.model_dir import ModelDir
from entailgen.training.fitting.models import pick_device
from entailgen.training.scoring.precision import AUTO, resolved_precision
from entailgen.training.scoring.score_modes import ScoreMode
from entailgen.training.scoring.scorers import DaeScorer, PairScorer
from entailgen.training.scoring.unscorable import Unscorable, unscorable_text
from entailgen.transforms.io.base import physical_lines, unit_id, utf8
from entailgen.transforms.io.encoding import lines_of
from entailgen.transforms.io.option_files import check_option_file
from entailgen.transforms.parser import ParserConfig


DEAD = "dead"


@dataclass(frozen=True)
class PairInput:
    """One input line's pair, with where it came from."""

    premise: str
    hypothesis: str
    source: str
    source_id: str

    @property
    def raw(self) -> str:
        """What a dead letter of this pair keeps."""
        return self.hypothesis


LAYOUTS = {("premise", "hypothesis"): "without --documents",  # the score job's two layouts of a row, and its flag
           ("document", "summary"): "with --documents"}


def other_layout(row: dict, fields: Sequence[str]) -> str:
    """How to score a row that lacks `fields` but holds the other layout's texts: ' (a row of document and summary:
    score it with --documents)', else ''."""
    if tuple(fields) not in LAYOUTS:
        return ""
    for layout, how in LAYOUTS.items():
        if layout != tuple(fields) and all(isinstance(row.get(k), str) and row[k].strip() for k in layout):
            return f" (a row of {' and '.join(layout)}: score it {how})"
    return ""


def _source_id(given, line: str | bytes) -> str:
    """A row's id as text: its own string, the JSON of any other value (7 -> "7", not Python's repr of a list or an
    object), the line's content id where it gave none; escaped where it holds a lone surrogate (a manifest and a dead
    letter must write it)."""
    if given is None:
        return content_id(line)
    text = given if isinstance(given, str) else json.dumps(given, ensure_ascii=False, sort_keys=True)
    return text if utf8(text) else json.dumps(given, sort_keys=True)


def json_row(line: str | bytes, source: str, fields: Sequence[str], number: Optional[int] = None
             ) -> tuple[dict, str] | DeadLetter:
    """(row, source id) of a JSON Lines row whose string fields are all non-blank (id optional), or a DeadLetter
    saying why not, naming its line where its number is given (a line that gives no id is known by it); a line read
    as bytes that is not UTF-8 is its own dead letter, not the job's end."""
    def dead(source_id: str, error_type: str, message: str) -> DeadLetter:
        return dead_letter(source, source_id, "read", error_type,
                           message if number is None else f"line {number}: {message}", line)

    unread = lambda: content_id(line) if number is None else unit_id(source, number)  # noqa: E731 (no id to read)
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8").lstrip("\ufeff")
        except UnicodeDecodeError as e:
            return dead(unread(), "BadEncoding", f"not UTF-8: {e}")
    elif not utf8(line):  # a line given as text with a lone surrogate in it: its escape, which the checks below read
        line = line.encode("utf-8", "backslashreplace").decode("utf-8")
    try:
        row = json.loads(line)
    except ValueError as e:
        return dead(unread(), "MalformedJson", str(e))
    if not isinstance(row, dict):
        return dead(unread(), "MalformedJson", "a row must be a JSON object")
    source_id = _source_id(row.get("id"), line)
    problem = unscorable_text([row.get(k) for k in fields], fields)  # the Python API's rule too: one rule
    if problem is not None:
        hint = other_layout(row, fields) if problem.error_type == "MissingField" else ""
        return dead(source_id, problem.error_type, f"{problem}{hint}")
    return row, source_id


def numbered_lines(path: str) -> Iterator[tuple[int, bytes]]:
    """(1-based number, bytes without the line end) of each line of a file, decompressed by its name: what a dead
    letter names its line by (ReadFromText drops the numbers)."""
    with FileSystems.open(path) as handle:
        yield from physical_lines(lines_of(iter(lambda: handle.read(1 << 20), b"")))


def parse_line(line: str | bytes, source: str, number: Optional[int] = None) -> PairInput | DeadLetter:
    """A JSON Lines row with string fields premise and hypothesis (id optional), or a DeadLetter saying why not."""
    parsed = json_row(line, source, ("premise", "hypothesis"), number)
    if isinstance(parsed, DeadLetter):
        return parsed
    row, source_id = parsed
    return PairInput(row["premise"], row["hypothesis"], source, source_id)


def scored_record(pair: PairInput, result) -> ScoredPair | DeadLetter:
    """The ScoredPair of a scorer result (a DaeScorer's arcs, or a PairScorer's label probabilities), or the
    DeadLetter of an Unscorable pair."""
    if isinstance(result, Unscorable):
        return dead_letter(pair.source, pair.source_id, "score", result.error_type, str(result), pair.hypothesis)
    return ScoredPair(content_id("score", pair.source_id, pair.premise, pair.hypothesis), pair.premise,
                      pair.hypothesis, result.get("hypothesis_tokens", []),
                      [ArcScore(**a) for a in result.get("arcs", [])], result["score"], pair.source, pair.source_id,
                      probabilities=[LabelProbability(label, p)
                                     for label, p in result.get("probabilities", {}).items()])


class DaeScoreHandler(ModelHandler[PairInput, object, DaeScorer]):
    """RunInference handler: the scorer is loaded once per worker; a batch of pairs in, their results out. model_dir:
    the ModelDir pair_handler opened (a path is opened by the scorer)."""

    def __init__(self, model_dir: ModelDir | str, parser: ParserConfig = ParserConfig(), device: str = "cpu",
                 mode: ScoreMode = ScoreMode(), precision: str = AUTO):
        super().__init__()
        self.model_dir, self.parser, self.device, self.mode = model_dir, parser, device, mode
        self.precision = precision

    def load_model(self) -> DaeScorer:
        return DaeScorer(self.model_dir, self.parser, self.device, mc_dropout=self.mode.mc_dropout, seed=self.mode.seed,
                         precision=self.precision)

    def run_inference(self, batch: Sequence[PairInput], model: DaeScorer, inference_args: Optional[dict] = None
                      ) -> Iterable:
        results = model.score_many([(p.premise, p.hypothesis) for p in batch])
        return [scored_record(p, r) for p, r in zip(batch, results)]

    def batch_elements_kwargs(self):
        return {"min_batch_size": 1, "max_batch_size": 64}


class PairModelScoreHandler(DaeScoreHandler):
    """RunInference handler of a pair model (recast, claims, nli-dialogue): each pair's P(entailed) (or e-c) and its
    labels' probabilities, in the dae handler's records; the model loaded once per worker."""

    def load_model(self) -> PairScorer:
        return PairScorer(self.model_dir, self.device, score=self.mode.score, mc_dropout=self.mode.mc_dropout,
                          seed=self.mode.seed, precision=self.precision)

    def run_inference(self, batch: Sequence[PairInput], model: PairScorer, inference_args: Optional[dict] = None
                      ) -> Iterable:
        results = model.scored_many([(p.premise, p.hypothesis) for p in batch])
        return [scored_record(p, r) for p, r in zip(batch, results)]


def pair_handler(model_dir: ModelDir | str, parser: ParserConfig = ParserConfig(), device: str = "cpu",
                 mode: ScoreMode = ScoreMode(), precision: str = AUTO) -> ModelHandler:
    """The handler that scores pairs with a model dir: its arcs for a dae model, P(entailed) for a pair model; the dir
    opened once here (a ModelDir as it is), its workers loading the weights without checking the files again."""
    model_dir = ModelDir.open(model_dir)
    handler = PairModelScoreHandler if model_dir.task == "pair" else DaeScoreHandler
    return handler(model_dir, parser, device, mode, precision)


def _route(record):
    yield pvalue.TaggedOutput(DEAD, record) if isinstance(record, DeadLetter) else record


class ScorePairs(beam.PTransform):
    """(number, line)s -> scored records 'scored' and DeadLetter 'dead' (bad lines, unscorable rows, failed batches):
    pairs through the model dir's pair_handler by default; another handler and line parser score other rows
    (documents)."""

    def __init__(self, model_dir: str, source: str, parser: ParserConfig = ParserConfig(), device: str = "cpu",
                 handler: Optional[ModelHandler] = None, parse=parse_line, mode: ScoreMode = ScoreMode(),
                 precision: str = AUTO):
        super().__init__()
        self.source, self.parse = source, parse
        self.handler = handler or pair_handler(model_dir, parser, device, mode, precision)

    def expand(self, lines):
        source, parse = self.source, self.parse
        parsed = (lines | "Parse" >> beam.MapTuple(lambda number, line: parse(line, source, number=number))
                  | "Good" >> beam.ParDo(_split_dead).with_outputs(DEAD, main="pairs"))
        results, failed = (parsed.pairs | "Score" >> RunInference(self.handler).with_exception_handling())
        failed_dead = failed.failed_inferences | "FailedBatches" >> beam.FlatMap(_failed_batch)
        routed = results | "Route" >> beam.FlatMap(_route).with_outputs(DEAD, main="scored")
        return {"scored": routed.scored,
                "dead": (parsed[DEAD], routed[DEAD], failed_dead) | "AllDead" >> beam.Flatten()}


def _split_dead(item):
    yield pvalue.TaggedOutput(DEAD, item) if isinstance(item, DeadLetter) else item


def _failed_batch(element) -> list[DeadLetter]:
    """One DeadLetter per pair of a batch RunInference could not score."""
    batch, (exc_type, exc_repr, _trace) = element
    return [dead_letter(p.source, p.source_id, "score", getattr(exc_type, "__name__", str(exc_type)), exc_repr,
                        p.raw) for p in batch]


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


def parse_document_line(line: str | bytes, source: str, fields: tuple[str, str] = ("document", "summary"),
                        number: Optional[int] = None) -> DocumentInput | DeadLetter:
    """A JSON Lines row with string fields document and summary (id optional), or a DeadLetter saying why not; a
    detector scoring pairs reads premise and hypothesis as them (DocumentOptions.pairs)."""
    parsed = json_row(line, source, fields, number)
    if isinstance(parsed, DeadLetter):
        return parsed
    row, source_id = parsed
    return DocumentInput(row[fields[0]], row[fields[1]], source, source_id)


def scored_document(row: DocumentInput, result, options: DocumentOptions) -> ScoredDocument | DeadLetter:
    """The ScoredDocument of a DocumentScorer result (or of an explained one: (result, Explanation), its words and
    sentences kept), or the DeadLetter of an Unscorable row."""
    if isinstance(result, Unscorable):
        return dead_letter(row.source, row.source_id, "score", result.error_type, str(result), row.summary)
    result, explained = result if isinstance(result, tuple) else (result, None)
    return ScoredDocument(content_id("score-document", row.source_id, row.document, row.summary), row.document,
                          row.summary, result["blocks"], result["summary_sentences"],
                          [round(float(s), 6) for s in result["sentence_scores"]], result["score"],
                          result.get("aggregation", options.aggregation), options.granularity, row.source,
                          row.source_id, words=explained.words if explained else None,
                          sentences=explained.sentences if explained else None)


def opened_models(model_dir: ModelDir | str, options: DocumentOptions) -> DetectorDir | list[ModelDir]:
    """What a document score job scores with, opened once: the detector dir with its members, else the model and the
    --ensemble models (options.check)."""
    return DetectorDir.open(options.detector) if options.detector else options.check(model_dir)


class DocumentScoreHandler(ModelHandler[DocumentInput, object, RowScorer]):
    """RunInference handler: the model (and Conv head, or the ensemble's models) load once per worker; a batch of rows
    in, records out. models: what opened_models gave (the CLI's, passed on), else opened here once."""

    def __init__(self, model_dir: ModelDir | str, options: DocumentOptions, parser: ParserConfig = ParserConfig(),
                 device: str = "cpu", precision: str = AUTO, models: DetectorDir | list[ModelDir] | None = None):
        super().__init__()
        self.options, self.parser, self.device = options, parser, device
        self.precision = precision
        self.models = models if models is not None else opened_models(model_dir, options)

    def load_model(self) -> RowScorer:
        o = self.options
        if isinstance(self.models, DetectorDir):  # its members, each by its own rule (a Conv head where it has one)
            return Detector(self.models, o.granularity, self.device, self.parser, score=o.score,
                            mc_dropout=o.mc_dropout, seed=o.seed, precision=self.precision, **o.evidence_options)
        members = [DocumentScorer(m, o.granularity, o.aggregation, o.conv_dir, device=self.device, parser=self.parser,
                                  score=o.score, mc_dropout=o.mc_dropout, seed=o.seed, precision=self.precision,
                                  **o.evidence_options)
                   for m in self.models]
        return members[0] if len(members) == 1 else EnsembleScorer(members)

    def run_inference(self, batch: Sequence[DocumentInput], model: RowScorer,
                      inference_args: Optional[dict] = None) -> Iterable:
        rows = [(r.document, r.summary) for r in batch]
        results = model.explained(rows) if self.options.explain else model.scored(rows)
        return [scored_document(r, result, self.options) for r, result in zip(batch, results)]

    def batch_elements_kwargs(self):
        return {"min_batch_size": 1, "max_batch_size": 16}


def check_scoring(input_path: str, fmt: str = "parquet", num_shards: int = 1) -> None:
    """What a scoring run is refused for before it starts (ValueError, one line): an --input that is missing, a
    directory or empty, and a shard layout that cannot be."""
    check_option_file("--input", input_path)
    ShardConfig("", fmt, num_shards)  # checks --format and --num-shards


def _count(element, counter) -> tuple:
    """Count an element in an 'entailgen' counter (what the progress line shows while scoring runs); emit nothing."""
    counter.inc()
    return ()


def score_graph(p: beam.Pipeline, model_dir: ModelDir | str, input_path: str, output: str, fmt: str = "parquet",
                num_shards: int = 1, parser: ParserConfig = ParserConfig(), device: str = "cpu",
                documents: Optional[DocumentOptions] = None, mode: ScoreMode = ScoreMode(),
                precision: str = AUTO, models: DetectorDir | list[ModelDir] | None = None) -> tuple[type, dict]:
    """Wire a score job into p: a JSON Lines file of pairs (or with documents, of (document, summary) rows) -> shards of
    ScoredPair (ScoredDocument) and dead letters in OUTPUT, with the staged summary; returns the record type and the
    manifest's config (the score mode in it: documents' own, else `mode`; the precision as resolved for the device:
    what the scores were computed in). models: the documents' models as the CLI opened them (opened_models)."""
    name = FileSystems.split(input_path)[1]
    shards = ShardConfig(output, fmt, num_shards)
    lines = (p | "Path" >> beam.Create([input_path])  # (number, bytes): a bad line is a dead letter naming its line
             | "Read" >> beam.FlatMap(numbered_lines)
             | "NotBlank" >> beam.Filter(lambda numbered: numbered[1].strip())
             | "Spread" >> beam.Reshuffle())  # read by one worker, scored by all
    if documents is None:
        record_type, config = ScoredPair, {"score_mode": mode.config()}
        out = lines | "ScorePairs" >> ScorePairs(model_dir, name, parser, device, mode=mode, precision=precision)
    else:
        record_type, config = ScoredDocument, {"documents": documents.config(), "score_mode": documents.mode.config()}
        fields = ("premise", "hypothesis") if documents.pairs else ("document", "summary")
        out = lines | "ScoreDocuments" >> ScorePairs(model_dir, name, handler=DocumentScoreHandler(
            model_dir, documents, parser, device, precision, models),
            parse=functools.partial(parse_document_line, fields=fields))
    for label, pcoll, counter in (("ReadCounter", lines, "read"), ("ScoredCounter", out["scored"], "scored"),
                                  ("DeadCounter", out["dead"], "score_dead")):
        pcoll | label >> beam.FlatMap(_count, beam.metrics.Metrics.counter("entailgen", counter))
    repeated = ((out["scored"], out["dead"]) | "Outcomes" >> beam.Flatten()  # each input row ends in one of them
                | "Ids" >> beam.Map(lambda r: (r.source_id, 1)) | "PerId" >> beam.CombinePerKey(sum)
                | "Repeated" >> beam.FlatMap(lambda kv: [kv[0]] * kv[1] if kv[1] > 1 else []))
    counts = (count_by(lines, "read", lambda _: name),
              count_by(out["dead"], "dead_by_stage", lambda d: f"{d.stage}:{d.error_type}"),
              count_by(repeated, "repeated_ids", lambda source_id: source_id),  # rows per id given more than once
              ) | "AllCounts" >> beam.Flatten() | "SumCounts" >> beam.CombinePerKey(sum)
    {"shards": out["scored"] | "Shards" >> WriteShards(shards, record_type),
     "dead_letters": out["dead"] | "DeadLetters" >> WriteDeadLetters(shards),
     "counts": counts, "stats": p | "NoStats" >> beam.Create([]),
     "exports": p | "NoExports" >> beam.Create([])} | "Stage" >> StageSummary(output)
    return record_type, {"model": str(model_dir), "format": fmt, "num_shards": num_shards, "device": device,
                         "precision": resolved_precision(precision, pick_device(device), (documents.mode if documents
                                                                                         else mode).mc_dropout),
                         **config}
