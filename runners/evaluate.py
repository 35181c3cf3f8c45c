"""`entailgen evaluate MODEL_DIR DATASET`, or `entailgen evaluate MODEL_DIR --benchmark NAME FILE...` (summac, rank19,
true, spans).

It imports what it runs on (torch, transformers, spaCy) when it runs, so `entailgen --help` and a refused option stay
fast."""
from __future__ import annotations

import os
import sys

from entailgen.runners.usage import COMMAND_HELP, UsageError
from entailgen.runners.model_options import (AGGREGATIONS, PRECISION_HELP, PRECISIONS, _add_score_mode, _precision,
                                             _score_mode, as_members)


def message(e: Exception) -> str:
    """An error's own words: a KeyError's message without the quotes str() puts round it (a message ending in a
    quoted value keeps its quote)."""
    return str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e)


def _scorer(args, mode, precision: str, granularity: str = "sentence"):
    """MODEL_DIR as a scorer of rows and of pairs (pair_scores): a detector dir's members joined (Detector), else the
    model's DocumentScorer, each opening the dir once (a missing or damaged one refused in one line before anything
    loads)."""
    from entailgen.training.scoring.detector import Detector, is_detector
    from entailgen.training.scoring.document_scorer import DocumentScorer

    how = dict(device=args.device, score=mode.score, mc_dropout=mode.mc_dropout, precision=precision)
    if is_detector(args.model):
        return Detector(args.model, granularity, **how)
    return DocumentScorer(args.model, granularity, **how)


def _row(model_dir: str) -> str:
    """MODEL_DIR's row in a benchmark's table (summac, rank19, TRUE): a detector's named as one."""
    from entailgen.training.scoring.detector import is_detector

    return "entailgen detector" if is_detector(model_dir) else "entailgen model"


def _save_report(model_dir: str, report: dict, mode, *how: str) -> None:
    """A benchmark report saved in MODEL_DIR/eval under a name of its files and how they were scored (`how`: the
    options that change a score, each '-<value>' or ''), and the card rewritten: another file's report is kept."""
    from entailgen.training.benchmarks.card import with_card_section
    from entailgen.training.fitting.model_card import kept_report_name, save_evaluation

    save_evaluation(model_dir, kept_report_name(model_dir, report["benchmark"], report["model"]["files"], *how,
                                                mode.suffix()), with_card_section(report))


def _not_default(value, default) -> str:
    """An option's part of a report's name: '' at its default."""
    return "" if value in (None, default) else f"-{value}"


def _dirs_part(option: str, dirs) -> str:
    """The part of a report's name for the dirs an option names (a Conv head, ensemble members): '' for none."""
    return f"-{option}-" + "+".join(os.path.basename(os.path.normpath(d)) for d in dirs) if dirs else ""


def _evaluate_benchmark(args) -> int:
    """`evaluate MODEL_DIR --benchmark summac FILE...`: the rows and cuts are checked before the model loads; each
    model's scores are cached as each chunk of rows is scored (score_cache_dir()), so a rerun after an interruption
    scores only the rows not yet scored; a row the model cannot score is scored 0.0 and counted, never an error."""
    from entailgen.training.benchmarks.fetch import fetch_records
    from entailgen.training.benchmarks.summac import (BASELINES, check_datasets, distinct_rows, evaluate_benchmark,
                                                      format_table, read_benchmark)
    from entailgen.training.scoring.cache import cache_name, cached_results, score_cache_paths, with_progress
    from entailgen.training.scoring.detector import heads_in_words
    from entailgen.training.scoring.document_scorer import DocumentOptions, DocumentScorer, joined, score_of
    from entailgen.training.fitting.encoder import EncoderError
    from entailgen.training.fitting.models import pick_device

    name, files = args.benchmark[0], args.benchmark[1:]
    if name == "rank19":
        return _evaluate_rank19(args, files)
    if name == "true":
        return _evaluate_true(args, files)
    if name == "spans":
        return _evaluate_spans(args, files)
    if args.articles is not None or args.val_only:
        raise UsageError(f"{'--articles' if args.articles is not None else '--val-only'} is for --benchmark spans")
    if name != "summac":
        raise UsageError(f"--benchmark {name}: unknown benchmark (known: summac, rank19, true, spans)")
    records = fetch_records(files)  # DIR/*.json matches the fetch's own record: not a set, said and left out
    for path in records:
        print(f"leaving out {path}: the record of a benchmarks fetch, not a benchmark set", file=sys.stderr)
    files = [path for path in files if path not in records]
    if not files:
        raise UsageError("--benchmark summac needs the benchmark's files (data/<set>.json or JSON Lines)")
    if args.conv is not None and args.aggregation == "zs":
        raise UsageError("--conv is a SummaC-Conv head: give --aggregation conv, or leave --aggregation out")
    detector = as_members(args)
    aggregation = "conv" if args.conv is not None else args.aggregation
    ensemble = args.ensemble or []
    mode = _score_mode(args)
    try:
        rows, duplicates = distinct_rows(read_benchmark(files))  # a row given twice: once; two that disagree: one line
        check_datasets(rows)  # cuts and labels of every dataset: one line now, not after scoring
        given = {k: v for k, v in {"granularity": args.granularity, "aggregation": aggregation,
                                   "conv_dir": args.conv}.items() if v is not None}
        given.update(score=mode.score, mc_dropout=mode.mc_dropout)
        options = DocumentOptions(**given, ensemble=tuple(ensemble))
        # its models opened once (a missing or damaged one: one line before anything loads), Conv with them, e-c on a
        # 2-way model: one line; a detector's members as it opened them
        opened = options.check(*((detector.members[0], detector.members[1:]) if detector else (args.model,)))
        model_dirs = [args.model, *ensemble]
        opened_by = dict(zip(model_dirs, opened))
        device = pick_device(args.device).type  # cuda scores in bf16: cached apart from the cpu's fp32 scores
        precision = _precision(args)  # int8 and onnx-* scores cached apart from fp32 ones
        # how each model scores a row: the options, or for a detector's member with a Conv head, the head
        heads = detector.heads(mode.plain) if detector else {}
        if detector:
            print(f"{detector}: its members score each row: {heads_in_words(heads)}", file=sys.stderr, flush=True)
        how = {m: {**given, "aggregation": "conv", "conv_dir": heads[m]} if heads.get(m) else given
               for m in model_dirs}
        caches = score_cache_paths([cache_name(opened_by[m], options.granularity, how[m].get("aggregation", "zs"),
                                               how[m].get("conv_dir"), device, mode, precision)
                                    for m in model_dirs])  # None: no home, no cache
        # each row's results, one list per model: scored once (or read from the caches), read by the model's row and
        # the ensemble's; a model loads only when it has rows to score
        results = cached_results([lambda m=m: DocumentScorer(opened_by[m], **how[m], device=device,
                                                             precision=precision)
                                  for m in model_dirs],
                                 [(r.document, r.claim) for r in rows], caches,
                                 _row(args.model) + (f" and {len(ensemble)} more" if ensemble else ""))
        alone = lambda i: lambda pairs: [score_of(r) for r in results[i]]  # noqa: E731 (one model's scores)
        together = lambda pairs: [score_of(joined(by_model)) for by_model in zip(*results)]  # noqa: E731
        if detector:  # the detector's own row, then each member alone
            scorers = {_row(detector): together,
                       **{f"member {os.path.basename(m)}": alone(i) for i, m in enumerate(model_dirs)}}
        else:
            scorers = {_row(args.model): alone(0),
                       **({f"entailgen ensemble ({len(model_dirs)} models)": together} if ensemble else {})}
        scorers.update({b: with_progress(fn, b, chunk=512) for b, fn in BASELINES.items()})
        report = evaluate_benchmark(rows, scorers, duplicates=duplicates)
    except (EncoderError, ValueError, KeyError, OSError, RuntimeError) as e:  # BenchmarkError is a ValueError;
        raise UsageError(message(e))  # OSError: no spaCy model; RuntimeError: torch's word on an unknown --device
    report["model"] = {"dir": str(detector or args.model), "device": device, "precision": precision,
                       "granularity": options.granularity,
                       "aggregation": options.aggregation,
                       "conv_dir": options.conv_dir, "score_mode": mode.config(), "files": files,
                       **({"ensemble": model_dirs} if ensemble else {}), "score_caches": caches,
                       **({"members": heads_in_words(heads)} if detector else {})}
    print(format_table(report), flush=True)  # shown even when the model dir cannot take the eval file
    _save_report(str(detector or args.model), report, mode, _not_default(options.granularity, "sentence"),
                 _dirs_part("conv", [options.conv_dir] if options.conv_dir else []),
                 _dirs_part("with", [] if detector else ensemble), _not_default(args.precision, "auto"))
    return 0


def _evaluate_rank19(args, files: list[str]) -> int:
    """`evaluate MODEL_DIR --benchmark rank19 FILE`: the DAE paper's summary reranking (Table 4), the model scoring
    each sentence against its source: a DAE arc model by the mean of its arcs' probabilities (F(h, x), §3), a pair
    model by P(entailed); a sentence it cannot score is 0.0 (training.scoring.unscorable) and counted."""
    from entailgen.training.fitting.encoder import EncoderError
    from entailgen.training.benchmarks.rank19 import (DEPENDENCY, baselines, distinct_triples, evaluate_rank19,
                                                      format_rank19, read_triples)

    if len(files) != 1:
        raise UsageError("--benchmark rank19 takes one file (summary_pairs.json, or JSON Lines of its fields)")
    if args.granularity is not None or args.aggregation is not None or args.conv is not None or args.ensemble:
        raise UsageError("--granularity, --aggregation, --conv and --ensemble are for --benchmark summac")
    mode = _score_mode(args)
    row = _row(args.model)
    try:
        triples, duplicates = distinct_triples(read_triples(files[0]))  # a copy: once; swapped sentences: one line
        precision = _precision(args)
        score = _scorer(args, mode, precision).pair_scores  # a detector's: its members' pair scores joined
        report = evaluate_rank19(triples, {row: score, **baselines()}, ties={DEPENDENCY: "random"},
                                 duplicates=duplicates)
    except (EncoderError, ValueError, OSError, RuntimeError) as e:  # RuntimeError: torch's word on --device
        raise UsageError(message(e))
    report["model"] = {"dir": args.model, "files": files, "score_mode": mode.config(), "precision": precision}
    print(format_rank19(report), flush=True)
    _save_report(args.model, report, mode, _not_default(args.precision, "auto"))
    return 0


def _evaluate_true(args, files: list[str]) -> int:
    """`evaluate MODEL_DIR --benchmark true FILE...`: TRUE's CSV files (With a Little Push's Q2, BEGIN, DialFact), ROC
    AUC per file with a bootstrap interval, beside unigram overlap on the same rows and the paper's Table 1; a grounding
    longer than a sentence is scored as a document (--granularity its blocks), in the --score / --mc-dropout mode."""
    from entailgen.training.benchmarks.baselines import unigram_overlap_scores
    from entailgen.training.fitting.encoder import EncoderError
    from entailgen.training.benchmarks.true import (UNIGRAM, distinct_true, evaluate_true, format_true, model_scores,
                                                    read_true)

    if not files:
        raise UsageError("--benchmark true needs TRUE's CSV files (grounding, generated_text, label)")
    if args.aggregation is not None or args.conv is not None or args.ensemble:
        raise UsageError("--aggregation, --conv and --ensemble are for --benchmark summac")
    mode = _score_mode(args)
    documents: list[int] = []  # per file, the rows scored as documents

    def model(rows: list) -> list:
        results, long = model_scores(rows, scorer)
        documents.append(sum(long))
        return results

    again = next((f for i, f in enumerate(files) if os.path.realpath(f) in map(os.path.realpath, files[:i])), None)
    if again:
        raise UsageError(f"--benchmark true: {again} is given twice (each file is one column of the table)")
    try:
        rows, duplicates = {}, {}
        for path in files:  # every file checked before the model loads; a copy: once; labelled both ways: one line
            rows[path], duplicates[path] = distinct_true(read_true(path))
        precision = _precision(args)
        scorer = _scorer(args, mode, precision, args.granularity or "sentence")
        report = evaluate_true(rows, {_row(args.model): model, UNIGRAM: lambda rs: unigram_overlap_scores(
            [(r.grounding, r.response) for r in rs])}, duplicates=duplicates)
    except (EncoderError, ValueError, OSError, RuntimeError) as e:  # RuntimeError: torch's word on --device
        raise UsageError(message(e))
    for entry, n in zip(report["files"].values(), documents):
        entry["documents"] = n
    report["model"] = {"dir": args.model, "files": files, "granularity": args.granularity or "sentence",
                       "score_mode": mode.config(), "precision": precision}
    print(format_true(report), flush=True)
    _save_report(args.model, report, mode, _not_default(args.granularity, "sentence"),
                 _not_default(args.precision, "auto"))
    return 0


def _evaluate_spans(args, files: list[str]) -> int:
    """`evaluate MODEL_DIR --benchmark spans FILE --articles FILE`: word-level detection of unsupported content
    against XSumFaith's span annotations (training.benchmarks.spans), the model's explained words beside the overlap
    baselines and the summary's own score; the file and articles checked before the model loads."""
    from entailgen.training.benchmarks.spans import (OVERLAP_MIX, RULES, SUMMARY_SCORE, TEST, VAL, WITH_OVERLAP,
                                                     check_cuts,
                                                     evaluate_spans, format_spans, model_word_scores, overlap_scorers,
                                                     read_articles, read_spans, val_roc_auc, with_articles,
                                                     with_overlap)
    from entailgen.training.fitting.encoder import EncoderError

    if len(files) != 1 or args.articles is None:
        raise UsageError("--benchmark spans takes one file (hallucination_annotations_xsum_summaries.csv) and "
                         "--articles FILE (JSON Lines of bbcid, document)")
    if args.aggregation is not None or args.conv is not None or args.ensemble:
        raise UsageError("--aggregation, --conv and --ensemble are for --benchmark summac")
    mode = _score_mode(args)
    row = _row(args.model)

    def progress(done: int, total: int) -> None:
        print(f"{row}: explained {done} / {total} summaries", file=sys.stderr, flush=True)

    try:
        annotated, placement = read_spans(files[0])
        summaries, left_out = with_articles(annotated, read_articles(args.articles))
        if not summaries:
            raise UsageError(f"no summary of {files[0]} has its article in {args.articles}" if annotated else
                             f"every summary of {files[0]} has a span placed nowhere (text not in the summary, "
                             f"offsets past its end; lines {', '.join(map(str, placement.nowhere_lines[:5]))})")
        on = VAL if args.val_only else TEST
        if args.val_only:  # a pilot: the test documents' summaries are never scored
            summaries = [s for s in summaries if s.cut == VAL]
        check_cuts(summaries, (VAL, TEST) if on == TEST else (VAL,))  # one line now, not after scoring
        precision = _precision(args)
        scorer = _scorer(args, mode, precision, args.granularity or "sentence")
        by_rule, own, unscorable = model_word_scores(scorer, summaries, progress=progress)
        default = next(iter(RULES))
        baselines = overlap_scorers(summaries)
        mixed = f"{row} {WITH_OVERLAP}"
        scores = {row: by_rule[default], f"{row}: {SUMMARY_SCORE}": own, **baselines,
                  mixed: with_overlap(summaries, by_rule[default], own)}
        report = evaluate_spans(summaries, scores, compare=[(row, [*baselines, f"{row}: {SUMMARY_SCORE}"]),
                                                            (mixed, [OVERLAP_MIX])],
                                left_out=left_out, placement=placement, on=on)
    except (EncoderError, ValueError, OSError, RuntimeError) as e:  # BenchmarkError is a ValueError
        raise UsageError(message(e))
    report["rules"] = {name: val_roc_auc(summaries, values) for name, values in by_rule.items()}  # chosen on val
    report["unscorable"] = unscorable
    report["model"] = {"dir": args.model, "files": files, "articles": args.articles,
                       "granularity": args.granularity or "sentence", "score_mode": mode.config(),
                       "precision": precision, "mix": OVERLAP_MIX}
    print(format_spans(report), flush=True)
    _save_report(args.model, report, mode, _not_default(args.granularity, "sentence"),
                 _not_default(args.precision, "auto"), _not_default(on, TEST))  # a pilot kept apart
    return 0


def _evaluate(args) -> int:
    if args.benchmark is not None:
        if args.dataset is not None:
            raise UsageError("give a DATASET or --benchmark, not both")
        return _evaluate_benchmark(args)
    if args.dataset is None:
        raise UsageError("evaluate needs a DATASET or --benchmark summac FILE...")
    if args.granularity is not None or args.aggregation is not None or args.conv is not None or args.ensemble:
        raise UsageError("--granularity, --aggregation, --conv and --ensemble are for --benchmark")
    if not _score_mode(args).plain:
        raise UsageError("--score and --mc-dropout are for --benchmark (a dataset's accuracy is the model's argmax)")
    from entailgen.training.fitting.data import DatasetError
    from entailgen.training.fitting.encoder import EncoderError
    from entailgen.training.scoring.evaluation import evaluate, result_table, write_evaluation

    from entailgen.training.scoring.detector import is_detector

    if is_detector(args.model):
        return _evaluate_members(args)
    try:
        result = evaluate(args.model, args.dataset, args.split, device=args.device, write=False,
                          precision=args.precision)
    except (DatasetError, EncoderError, ValueError, KeyError) as e:
        raise UsageError(message(e))
    print(result_table(result), flush=True)  # shown even when the model dir cannot take the eval file
    write_evaluation(args.model, result)
    return 0


def _evaluate_members(args) -> int:
    """`evaluate DETECTOR DATASET`: each member that reads the dataset, on its own task, written into the detector's
    eval folder; a member that cannot read it is said, and none that can is an error."""
    from entailgen.training.fitting.data import DatasetError
    from entailgen.training.scoring.detector import DetectorDir
    from entailgen.training.fitting.encoder import EncoderError
    from entailgen.training.scoring.evaluation import evaluate, result_table
    from entailgen.training.fitting.model_card import save_evaluation

    try:
        members = DetectorDir.open(args.model).members  # each opened once: evaluate takes them as they are
    except EncoderError as e:
        raise UsageError(str(e))
    refused = []
    for member in members:
        name = os.path.basename(member)
        try:
            result = evaluate(member, args.dataset, args.split, device=args.device, write=False,
                              precision=args.precision)
        except (DatasetError, EncoderError, ValueError, KeyError) as e:
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
                               "or 'spans' and XSumFaith's span annotations CSV with --articles (word level)")
    evaluate.add_argument("--granularity", choices=GRANULARITIES,
                          help="--benchmark: the document blocks each claim sentence is scored against "
                               "(default: the scorer's, sentence)")
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
