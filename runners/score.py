"""`entailgen score`: a trained model over a JSON Lines file of pairs or documents, as a job published like a run's."""
from __future__ import annotations

import contextlib
from typing import Optional, Sequence

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions

from entailgen.dataset.manifest import fingerprint, metric_counters
from entailgen.dataset.output import dataset_kind
from entailgen.dataset.publish import finish_dataset, publish
from entailgen.runners.progress import Progress
from entailgen.runners.runner import direct_runner, is_direct
from entailgen.runners.signals import interruptible, private_tempdir
from entailgen.training.scoring.document_scorer import DocumentOptions
from entailgen.training.scoring.inference import score_graph
from entailgen.training.scoring.score_modes import ScoreMode
from entailgen.transforms.parser import ParserConfig

SCORES = dataset_kind("score")  # what `entailgen score` writes, and the only output its --overwrite replaces


def score_job(model_dir: str, input_path: str, output: str, fmt: str = "parquet", num_shards: int = 1,
              parser: ParserConfig = ParserConfig(), device: str = "cpu", pipeline_args: Sequence[str] = (),
              progress_every: Optional[float] = None, documents: Optional[DocumentOptions] = None,
              overwrite: bool = False, mode: ScoreMode = ScoreMode(), precision: str = "auto", models=None) -> dict:
    """Score into OUTPUT (built beside it, swapped in once complete): shards of ScoredPair (ScoredDocument), dead
    letters, then the manifest, last. Locally it runs on the counting runner `run` uses; with progress_every
    (seconds), counters go to stderr as it runs; models: the documents' models already opened
    (inference.opened_models). Returns the manifest."""
    with publish(output, SCORES, inputs=[input_path], overwrite=overwrite) as folder:
        options = PipelineOptions(list(pipeline_args), save_main_session=False)
        live: dict = {}
        p = beam.Pipeline(runner=direct_runner(options, live) if is_direct(options) else None, options=options)
        record_type, config = score_graph(p, model_dir, input_path, folder, fmt, num_shards, parser, device, documents,
                                          mode, precision, models)
        with private_tempdir(), interruptible(), (
                Progress(live, every=progress_every) if progress_every else contextlib.nullcontext()):
            result = p.run()
            result.wait_until_finish()
        return finish_dataset(folder, pipeline="score", record_type=record_type.__name__, config=config,
                              inputs=[fingerprint(input_path)], metrics=metric_counters(result))
