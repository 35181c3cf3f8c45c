"""`entailgen evaluate MODEL_DIR DATASET`, or `entailgen evaluate MODEL_DIR --benchmark NAME FILE...|DIR` (summac,
rank19, true, spans: each benchmark runs itself, training.benchmarks.registry).

It imports what it runs on (torch, transformers, spaCy) when it runs, so `entailgen --help` and a refused option stay
fast."""
from __future__ import annotations

import os
import sys

from entailgen.runners.usage import COMMAND_HELP, UsageError
from entailgen.runners.model_options import (AGGREGATIONS, PRECISION_HELP, PRECISIONS, _add_score_mode, _score_mode,
                                             add_evidence_flags, judged_model)


def message(e: Exception) -> str:
    """An error's own words: a KeyError's message without the quotes str() puts round it (a message ending in a
    quoted value keeps its quote)."""
    return str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e)


def _evaluate_benchmark(args) -> int:
    """`evaluate MODEL_DIR --benchmark NAME FILE...` (or the folder `benchmarks fetch NAME --to DIR` wrote): the
    options resolved once (judged_model), the benchmark's own run (training.benchmarks.registry), its table printed
    and its report saved in MODEL_DIR/eval; a file, row or model the run refuses is one line."""
    from entailgen.training.benchmarks.registry import run_benchmark, save_report
    from entailgen.training.fitting.encoder import ModelDirError

    name, paths = args.benchmark[0], args.benchmark[1:]
    model = judged_model(args, name)
    try:
        ran = run_benchmark(name, model, paths)
    except (ModelDirError, ValueError, KeyError, OSError, RuntimeError) as e:  # BenchmarkError is a ValueError;
        raise UsageError(message(e))  # OSError: no spaCy model; RuntimeError: torch's word on a device
    print(ran.table, flush=True)  # shown even when the model dir cannot take the eval file
    save_report(model, ran)
    return 0


def _evaluate(args) -> int:
    if args.benchmark is not None:
        if args.dataset is not None:
            raise UsageError("give a DATASET or --benchmark, not both")
        return _evaluate_benchmark(args)
    if args.dataset is None:
        raise UsageError("evaluate needs a DATASET or --benchmark summac FILE...")
    if (args.granularity is not None or args.aggregation is not None or args.conv is not None or args.ensemble
            or args.evidence is not None or args.top_k is not None or args.max_length is not None):
        raise UsageError("--granularity, --aggregation, --conv, --ensemble, --evidence, --top-k and --max-length are "
                         "for --benchmark")
    if not _score_mode(args).plain:
        raise UsageError("--score and --mc-dropout are for --benchmark (a dataset's accuracy is the model's argmax)")
    from entailgen.training.fitting.data import DatasetError
    from entailgen.training.fitting.encoder import ModelDirError
    from entailgen.training.scoring.evaluation import evaluate, result_table, write_evaluation

    from entailgen.training.scoring.detector import is_detector

    if is_detector(args.model):
        return _evaluate_members(args)
    try:
        result = evaluate(args.model, args.dataset, args.split, device=args.device, write=False,
                          precision=args.precision)
    except (DatasetError, ModelDirError, ValueError, KeyError) as e:
        raise UsageError(message(e))
    print(result_table(result), flush=True)  # shown even when the model dir cannot take the eval file
    write_evaluation(args.model, result)
    return 0


def _evaluate_members(args) -> int:
    """`evaluate DETECTOR DATASET`: each member that reads the dataset, on its own task, written into the detector's
    eval folder; a member that cannot read it is said, and none that can is an error."""
    from entailgen.training.fitting.data import DatasetError
    from entailgen.training.scoring.detector import DetectorDir
    from entailgen.training.fitting.encoder import ModelDirError
    from entailgen.training.scoring.evaluation import evaluate, result_table
    from entailgen.training.fitting.model_card import save_evaluation

    try:
        members = DetectorDir.open(args.model).members  # each opened once: evaluate takes them as they are
    except ModelDirError as e:
        raise UsageError(str(e))
    refused = []
    for member in members:
        name = os.path.basename(member)
        try:
            result = evaluate(member, args.dataset, args.split, device=args.device, write=False,
                              precision=args.precision)
        except (DatasetError, ModelDirError, ValueError, KeyError) as e:
            refused.append(f"{name}: {message(e)}")
            continue
        print(f"member {name}: " + result_table(result), flush=True)
        split = "" if result["split"] == "test" else f".{result['split']}"
        save_evaluation(args.model, f"{name}.{result['dataset_name']}{split}.json", result)
    for line in refused:
        print(f"member {line}", file=sys.stderr)
    if len(refused) == len(members):
        raise UsageError(f"no member of the detector {args.model} reads {args.dataset}")
    return 0


def register(commands) -> None:
    """Add `evaluate` to the CLI."""
    from entailgen.transforms.claims.blocks import GRANULARITIES

    evaluate = commands.add_parser("evaluate", help=COMMAND_HELP["evaluate"],
                                   description="A trained model's accuracy on a dataset next to the dataset's "
                                               "baselines, or its figures on a benchmark (summac, rank19, true); the "
                                               "table is printed and saved in MODEL_DIR/eval.")
    evaluate.add_argument("model", metavar="MODEL_DIR", help="a model dir written by `entailgen train`")
    evaluate.add_argument("dataset", metavar="DATASET", nargs="?", help="a finished entailgen dataset")
    evaluate.add_argument("--split", default="test", help="split to evaluate, or 'all'")
    evaluate.add_argument("--device", default="auto", help="auto, cpu or cuda")
    evaluate.add_argument("--precision", default="auto", choices=PRECISIONS, help=PRECISION_HELP)
    evaluate.add_argument("--benchmark", nargs="+", metavar=("NAME", "FILE"),
                          help="instead of a DATASET: 'summac' and its files (the SummaC repository's data/<set>.json "
                               "or JSON Lines of document, claim, label, cut; threshold chosen on val, test reported), "
                               "or 'rank19' and the DAE paper's summary_pairs.json (summary reranking, Table 4), "
                               "or 'true' and TRUE's CSV files (grounding, generated_text, label: ROC AUC per file), "
                               "or 'spans' and XSumFaith's span annotations CSV with --articles (word level); "
                               "or NAME and the folder `entailgen benchmarks fetch NAME --to DIR` wrote")
    evaluate.add_argument("--granularity", choices=GRANULARITIES,
                          help="--benchmark: the document blocks each claim sentence is scored against "
                               "(default: the scorer's, sentence)")
    add_evidence_flags(evaluate)
    evaluate.add_argument("--aggregation", choices=AGGREGATIONS,
                          help="--benchmark: zs (max over blocks, mean over claim sentences; default) or conv "
                               "(the SummaC-Conv head of --conv)")
    evaluate.add_argument("--articles", metavar="JSONL",
                          help="--benchmark spans: the annotated summaries' articles, JSON Lines of bbcid, document")
    evaluate.add_argument("--val-only", action="store_true",
                          help="--benchmark spans: score the val documents alone and report on them (a pilot that "
                               "spends no test word; its thresholds and mix weights are fit on the words scored)")
    evaluate.add_argument("--conv", metavar="CONV_DIR", help="--benchmark: a trained SummaC-Conv head")
    evaluate.add_argument("--ensemble", nargs="+", metavar="MODEL_DIR",
                          help="--benchmark: more models (e.g. one per family) that score every row beside MODEL_DIR; "
                               "an ensemble row joins their ZS scores by the mean of their log-odds")
    _add_score_mode(evaluate, "--benchmark")
    evaluate.set_defaults(handler=_evaluate)
