"""Scoring with a trained DAE arc model (the DAE paper's §6 use: rank or filter generated text by factuality).

DaeScorer(model_dir).score(premise, hypothesis) parses the hypothesis with entailgen's parser (the relations labelling
leaves out are left out here too) and returns each arc's entailment probability and the sentence score, their mean
(footnote 3: min-pooling was unstable). `entailgen score` runs it over a JSON Lines file of pairs through Beam's
RunInference, the model loaded once per worker, into shards, dead letters and a manifest.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

import apache_beam as beam
from apache_beam import pvalue
from apache_beam.ml.inference.base import ModelHandler, RunInference

from entailgen.schemas.ids import content_id
from entailgen.schemas.records import ArcExample, ArcScore, DeadLetter, LabelledArc, ScoredPair, dead_letter
from entailgen.transforms.parse import ParserConfig

DEAD = "dead"


class Unscorable(ValueError):
    """A pair the model cannot score: no content arc in the hypothesis, or longer than the model's max length."""

    def __init__(self, error_type: str, message: str):
        super().__init__(message)
        self.error_type = error_type


def only_result(results: list):
    """The one result of a one-row call, its Unscorable raised."""
    (result,) = results
    if isinstance(result, Unscorable):
        raise result
    return result


class DaeScorer:
    """A trained DAE arc model and the parser, loaded once; scores (premise, hypothesis) pairs."""

    def __init__(self, model_dir: str, parser: ParserConfig = ParserConfig(), device: str = "cpu",
                 batch_size: int = 32):
        from entailgen.training.checkpoint import load_trained
        from entailgen.training.data import DatasetError
        from entailgen.training.trainer import pick_device
        from entailgen.transforms.parse import Parser

        self.device = pick_device(device)
        self.model, self.tokenizer, self.meta = load_trained(model_dir, str(self.device))
        if self.meta["task"] != "dae":
            raise DatasetError(f"{model_dir} is a {self.meta['task']} model; scoring arcs needs a dae model")
        self.relations = {r: i for i, r in enumerate(self.meta["relations"])}
        self.parser = Parser(parser)
        self.batch_size = batch_size

    def score(self, premise: str, hypothesis: str) -> dict:
        """{'arcs': [{head, child, rel, head_word, child_word, entailed_probability}], 'score': mean probability}."""
        return only_result(self.score_many([(premise, hypothesis)]))

    def score_many(self, pairs: Sequence[tuple[str, str]]) -> list:
        """Each pair's score dict, or the Unscorable saying why not, in order; parsing (each distinct hypothesis once:
        a summary sentence meets every block of its document) and inference are batched."""
        from entailgen.training.evaluation import _probabilities
        from entailgen.training.features import arc_features
        from entailgen.transforms.arcs import extract_arcs

        texts = list(dict.fromkeys(h for _, h in pairs))
        parsed = {text: ([t.text for t in tokens], [LabelledArc.of(a, None) for a in extract_arcs(tokens)])
                  for text, tokens in zip(texts, self.parser.tokens(texts))}
        results: list = [None] * len(pairs)
        ready = []
        for i, (premise, hypothesis) in enumerate(pairs):
            words, arcs = parsed[hypothesis]
            example = ArcExample("", premise, hypothesis, words, arcs, "scored", "", "", "")
            features = arc_features(self.tokenizer, example, self.relations, self.meta["max_length"], max_arcs=None)
            if features == "too_long":
                results[i] = Unscorable("TooLong", f"longer than the model's {self.meta['max_length']} tokens")
            elif isinstance(features, str):
                results[i] = Unscorable("NoArcs", "the hypothesis has no content arc to score")
            else:
                ready.append((i, example, features))
        ready.sort(key=lambda item: len(item[2].input_ids))  # batches of like lengths: little padding to compute
        for start in range(0, len(ready), self.batch_size):
            chunk = ready[start:start + self.batch_size]
            probs = _probabilities(self.model, [f for _, _, f in chunk], self.tokenizer.pad_token_id or 0, self.device)
            for (i, example, features), p in zip(chunk, probs):
                entailed = p[: len(features.arcs), 1].tolist()
                words = example.hypothesis_tokens
                arcs = [{"head": example.arcs[k].head, "child": example.arcs[k].child, "rel": example.arcs[k].rel,
                         "head_word": words[example.arcs[k].head], "child_word": words[example.arcs[k].child],
                         "entailed_probability": round(q, 6)} for k, q in zip(features.arcs, entailed)]
                results[i] = {"hypothesis_tokens": words, "arcs": arcs,
                              "score": round(sum(entailed) / len(entailed), 6)}
        return results


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


def json_row(line: str | bytes, source: str, fields: Sequence[str]) -> tuple[dict, str] | DeadLetter:
    """(row, source id) of a JSON Lines row whose string fields are all non-blank (id optional), or a DeadLetter
    saying why not; a line read as bytes that is not UTF-8 is its own dead letter, not the job's end."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8").lstrip("\ufeff")
        except UnicodeDecodeError as e:
            return dead_letter(source, content_id(line), "read", "BadEncoding", f"not UTF-8: {e}", line)
    try:
        row = json.loads(line)
    except ValueError as e:
        return dead_letter(source, content_id(line), "read", "MalformedJson", str(e), line)
    if not isinstance(row, dict):
        return dead_letter(source, content_id(line), "read", "MalformedJson", "a row must be a JSON object", line)
    source_id = str(row.get("id", content_id(line)))
    missing = [k for k in fields if not isinstance(row.get(k), str) or not row[k].strip()]
    if missing:
        return dead_letter(source, source_id, "read", "MissingField", f"no text in {', '.join(missing)}", line)
    return row, source_id


def parse_line(line: str | bytes, source: str) -> PairInput | DeadLetter:
    """A JSON Lines row with string fields premise and hypothesis (id optional), or a DeadLetter saying why not."""
    parsed = json_row(line, source, ("premise", "hypothesis"))
    if isinstance(parsed, DeadLetter):
        return parsed
    row, source_id = parsed
    return PairInput(row["premise"], row["hypothesis"], source, source_id)


def scored_record(pair: PairInput, result) -> ScoredPair | DeadLetter:
    """The ScoredPair of a scorer result, or the DeadLetter of an Unscorable pair."""
    if isinstance(result, Unscorable):
        return dead_letter(pair.source, pair.source_id, "score", result.error_type, str(result), pair.hypothesis)
    return ScoredPair(content_id("score", pair.source_id, pair.premise, pair.hypothesis), pair.premise,
                      pair.hypothesis, result["hypothesis_tokens"], [ArcScore(**a) for a in result["arcs"]],
                      result["score"], pair.source, pair.source_id)


class DaeScoreHandler(ModelHandler[PairInput, object, DaeScorer]):
    """RunInference handler: the scorer is loaded once per worker; a batch of pairs in, their results out."""

    def __init__(self, model_dir: str, parser: ParserConfig = ParserConfig(), device: str = "cpu"):
        super().__init__()
        self.model_dir, self.parser, self.device = model_dir, parser, device

    def load_model(self) -> DaeScorer:
        return DaeScorer(self.model_dir, self.parser, self.device)

    def run_inference(self, batch: Sequence[PairInput], model: DaeScorer, inference_args: Optional[dict] = None
                      ) -> Iterable:
        results = model.score_many([(p.premise, p.hypothesis) for p in batch])
        return [scored_record(p, r) for p, r in zip(batch, results)]

    def batch_elements_kwargs(self):
        return {"min_batch_size": 1, "max_batch_size": 64}


def _route(record):
    yield pvalue.TaggedOutput(DEAD, record) if isinstance(record, DeadLetter) else record


class ScorePairs(beam.PTransform):
    """Lines -> scored records 'scored' and DeadLetter 'dead' (bad lines, unscorable rows, failed batches): pairs
    through a dae model by default; another handler and line parser score other rows (documents)."""

    def __init__(self, model_dir: str, source: str, parser: ParserConfig = ParserConfig(), device: str = "cpu",
                 handler: Optional[ModelHandler] = None, parse=parse_line):
        super().__init__()
        self.source, self.parse = source, parse
        self.handler = handler or DaeScoreHandler(model_dir, parser, device)

    def expand(self, lines):
        source, parse = self.source, self.parse
        parsed = (lines | "Parse" >> beam.Map(lambda line: parse(line, source))
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


def check_scoring(input_path: str, fmt: str = "parquet", num_shards: int = 1) -> None:
    """What a scoring run is refused for before it starts (ValueError, one line): an --input that is missing, a
    directory or empty, and a shard layout that cannot be."""
    from entailgen.transforms.io.option_files import check_option_file
    from entailgen.transforms.shard import ShardConfig

    check_option_file("--input", input_path)
    ShardConfig("", fmt, num_shards)  # checks --format and --num-shards




def _count(element, counter) -> tuple:
    """Count an element in an 'entailgen' counter (what the progress line shows while scoring runs); emit nothing."""
    counter.inc()
    return ()


def run_scoring(model_dir: str, input_path: str, output: str, fmt: str = "parquet", num_shards: int = 1,
                parser: ParserConfig = ParserConfig(), device: str = "cpu", pipeline_args: Sequence[str] = (),
                progress_every: Optional[float] = None, documents=None) -> dict:
    """Score a JSON Lines file of pairs (or with documents, a training.document.DocumentOptions, of (document, summary)
    rows) into OUTPUT: shards of ScoredPair (ScoredDocument), dead letters, then the manifest (last). Locally it runs on
    the counting runner `run` uses; with progress_every (seconds), counters go to stderr as it runs."""
    import contextlib

    from apache_beam.coders import BytesCoder
    from apache_beam.io.filesystems import FileSystems
    from apache_beam.options.pipeline_options import PipelineOptions

    import entailgen
    from entailgen.runners.job import direct_runner, is_direct
    from entailgen.runners.progress import Progress
    from entailgen.transforms.manifest import (MANIFEST, STAGING, StageSummary, build_manifest, count_by, fingerprint,
                                               metric_counters, read_json, write_json)
    from entailgen.transforms.shard import ShardConfig, WriteDeadLetters, WriteShards, join_path, remove_runs

    name = FileSystems.split(input_path)[1]
    shards = ShardConfig(output, fmt, num_shards)
    options = PipelineOptions(list(pipeline_args), save_main_session=False)
    live: dict = {}
    p = beam.Pipeline(runner=direct_runner(options, live) if is_direct(options) else None, options=options)
    lines = (p | "Read" >> beam.io.ReadFromText(input_path, coder=BytesCoder())  # bytes: a bad line is a dead letter
             | "NotBlank" >> beam.Filter(lambda line: line.strip()))
    if documents is None:
        record_type, config, out = ScoredPair, {}, lines | "ScorePairs" >> ScorePairs(model_dir, name, parser, device)
    else:
        from entailgen.training.document import DocumentScoreHandler, ScoredDocument, parse_document_line

        record_type, config = ScoredDocument, {"documents": documents.config()}
        out = lines | "ScoreDocuments" >> ScorePairs(model_dir, name, handler=DocumentScoreHandler(
            model_dir, documents, parser, device), parse=parse_document_line)
    for label, pcoll, counter in (("ReadCounter", lines, "read"), ("ScoredCounter", out["scored"], "scored"),
                                  ("DeadCounter", out["dead"], "score_dead")):
        pcoll | label >> beam.FlatMap(_count, beam.metrics.Metrics.counter("entailgen", counter))
    counts = (count_by(lines, "read", lambda _: name),
              count_by(out["dead"], "dead_by_stage", lambda d: f"{d.stage}:{d.error_type}")
              ) | "AllCounts" >> beam.Flatten() | "SumCounts" >> beam.CombinePerKey(sum)
    {"shards": out["scored"] | "Shards" >> WriteShards(shards, record_type),
     "dead_letters": out["dead"] | "DeadLetters" >> WriteDeadLetters(shards),
     "counts": counts, "stats": p | "NoStats" >> beam.Create([]),
     "exports": p | "NoExports" >> beam.Create([])} | "Stage" >> StageSummary(output)
    with Progress(live, every=progress_every) if progress_every else contextlib.nullcontext():
        result = p.run()
        result.wait_until_finish()
    manifest = build_manifest(version=entailgen.__version__, pipeline="score", record_type=record_type.__name__,
                              config={"model": model_dir, "format": fmt, "num_shards": num_shards, "device": device,
                                      **config},
                              inputs=[fingerprint(input_path)], staged=read_json(output, STAGING),
                              metrics=metric_counters(result))
    FileSystems.delete([join_path(output, STAGING)])
    remove_runs(output)
    write_json(output, MANIFEST, manifest)
    return manifest
