"""`entailgen train DATASET [DATASET ...] --output MODEL_DIR`, `entailgen evaluate MODEL_DIR DATASET`,
`entailgen score MODEL_DIR`, `entailgen train-conv MODEL_DIR DATASET --output CONV_DIR`.

Each command imports what it runs on (torch, transformers, Beam, spaCy) when it runs, so `entailgen --help` and a
refused option stay fast."""
from __future__ import annotations

import os
import sys

from entailgen.runners.cli import COMMAND_HELP, UsageError, add_format, add_quiet
from entailgen.transforms.flags import finite_float


def message(e: Exception) -> str:
    """An error's own words: a KeyError's message without the quotes str() puts round it (a message ending in a
    quoted value keeps its quote)."""
    return str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e)


def as_members(args) -> str | None:
    """A detector dir given as MODEL_DIR stands for its members, joined as --ensemble joins models: the first as the
    model, the others as the ensemble; returns the detector dir (where evaluations are saved), None for a model dir."""
    from entailgen.training.scoring.detector import detector_members, is_detector
    from entailgen.training.fitting.encoder import EncoderError

    if not is_detector(args.model):
        return None
    if args.ensemble or args.conv is not None or args.aggregation not in (None, "zs"):
        raise UsageError(f"{args.model} is a detector: its members' ZS scores are joined by its own rule; "
                         "--ensemble, --conv and --aggregation conv are for model dirs")
    try:
        members = detector_members(args.model)
    except EncoderError as e:
        raise UsageError(str(e))
    detector, args.model, args.ensemble = args.model, members[0], members[1:] or None
    return detector


def _score_mode(args):
    """The score mode of --score and --mc-dropout (training.scoring.score_modes), or their one-line refusal."""
    from entailgen.training.scoring.score_modes import ScoreMode

    try:
        return ScoreMode(args.score, args.mc_dropout)
    except ValueError as e:
        raise UsageError(str(e))


def _precision(args) -> str:
    """--precision resolved for --device and --mc-dropout (training.scoring.precision.resolved_precision); ValueError
    for a cpu-only precision on cuda, or onnx-* with MC dropout."""
    from entailgen.training.fitting.models import pick_device
    from entailgen.training.scoring.precision import resolved_precision

    return resolved_precision(args.precision, pick_device(args.device), getattr(args, "mc_dropout", 0) or 0)


def _scorer(args, mode, precision: str, granularity: str = "sentence"):
    """MODEL_DIR as a scorer of rows and of pairs (pair_scores): a detector dir's members joined (Detector), else the
    model's DocumentScorer; a missing or damaged one refused in one line before anything loads."""
    from entailgen.training.fitting.checkpoint import verify_model_dir
    from entailgen.training.scoring.detector import Detector, is_detector
    from entailgen.training.scoring.document_scorer import DocumentScorer

    how = dict(device=args.device, score=mode.score, mc_dropout=mode.mc_dropout, precision=precision)
    if is_detector(args.model):
        return Detector(args.model, granularity, **how)
    verify_model_dir(args.model)
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


def _train(args) -> int:
    from entailgen.training.fitting.data import DatasetError, open_dataset, parse_mix
    from entailgen.training.fitting.encoder import EncoderError
    from entailgen.training.fitting.model_card import never_predicted
    from entailgen.training.fitting.trainer import TrainOptions, train

    try:
        mix = parse_mix(args.mix, [(os.path.basename(d.rstrip("/")), open_dataset(d)[0].get("pipeline"))
                                   for d in args.dataset]) if args.mix else ()
        options = TrainOptions(encoder=args.encoder, epochs=args.epochs, batch_size=args.batch_size, lr=args.lr,
                               max_length=args.max_length, max_arcs=args.max_arcs, seed=args.seed, device=args.device,
                               max_examples=args.max_examples, progress=not args.quiet, task=args.task, mix=mix,
                               claims_view=args.claims_view, bucket_batches=args.bucket_batches,
                               three_way=args.three_way)
        summary = train(args.dataset[0] if len(args.dataset) == 1 else args.dataset, args.output, options,
                        overwrite=args.overwrite)
    except (DatasetError, EncoderError, ValueError) as e:
        raise UsageError(str(e))
    if not args.quiet:
        counts = summary["counts"]["train"]
        left_out = ", ".join(f"{k} {v}" for k, v in counts.items() if k not in ("read", "used")) or "none"
        print(f"trained {summary['task']} model on {counts['read']} rows ({counts['used']} used; left out: {left_out}) "
              f"in {summary['elapsed_s']} s on {summary['device']}; dev accuracy by epoch {summary['dev_accuracy']}, "
              f"kept epoch {summary['best_epoch']}")
    lacking = summary.get("without_3way_label")
    if lacking:  # even --quiet: a 2-way model where 3-way was likely meant (--score e-c refuses it)
        what = ", ".join(f"{k} {v}" for k, v in lacking.items() if k not in ("rows", "lacking"))
        print(f"note: {lacking['lacking']} of {lacking['rows']} train rows keep no 3-way label ({what}): " + (
            "the model is 3-way, trained without them (--three-way)" if summary["options"]["three_way"] else
            "the model is 2-way (entailed, not-entailed), which --score e-c refuses; --three-way trains a 3-way one "
            "without them"), file=sys.stderr)
    classes = summary["dev_classes"]
    for name in never_predicted(classes):  # even --quiet: the model is written, but a user should not trust it blind
        print(f"warning: the kept model never predicts {name!r} on dev, which holds {classes[name]['gold']} of it; its "
              f"dev accuracy is the other labels' alone (more epochs or rows may teach it)", file=sys.stderr)
    print(args.output)
    return 0


def _evaluate_benchmark(args) -> int:
    """`evaluate MODEL_DIR --benchmark summac FILE...`: the rows and cuts are checked before the model loads; each
    model's scores are cached as each chunk of rows is scored (score_cache_dir()), so a rerun after an interruption
    scores only the rows not yet scored; a row the model cannot score is scored 0.0 and counted, never an error."""
    from entailgen.training.benchmarks.fetch import fetch_records
    from entailgen.training.benchmarks.summac import (BASELINES, check_datasets, distinct_rows, evaluate_benchmark,
                                                      format_table, read_benchmark)
    from entailgen.training.scoring.cache import cache_name, cached_results, score_cache_paths, with_progress
    from entailgen.training.scoring.detector import heads_in_words, member_heads
    from entailgen.training.fitting.checkpoint import verify_model_dir
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
        verify_model_dir(args.model)  # a missing or damaged model: one line before anything loads
        given = {k: v for k, v in {"granularity": args.granularity, "aggregation": aggregation,
                                   "conv_dir": args.conv}.items() if v is not None}
        given.update(score=mode.score, mc_dropout=mode.mc_dropout)
        options = DocumentOptions(**given, ensemble=tuple(ensemble))
        options.check(args.model)  # its models, Conv with them, e-c on a 2-way model: one line
        model_dirs = [args.model, *ensemble]
        device = pick_device(args.device).type  # cuda scores in bf16: cached apart from the cpu's fp32 scores
        precision = _precision(args)  # int8 and onnx-* scores cached apart from fp32 ones
        # how each model scores a row: the options, or for a detector's member with a Conv head, the head
        heads = member_heads(detector, mode.plain) if detector else {}
        if detector:
            print(f"{detector}: its members score each row: {heads_in_words(heads)}", file=sys.stderr, flush=True)
        how = {m: {**given, "aggregation": "conv", "conv_dir": heads[m]} if heads.get(m) else given
               for m in model_dirs}
        caches = score_cache_paths([cache_name(m, options.granularity, how[m].get("aggregation", "zs"),
                                               how[m].get("conv_dir"), device, mode, precision)
                                    for m in model_dirs])  # None: no home, no cache
        # each row's results, one list per model: scored once (or read from the caches), read by the model's row and
        # the ensemble's; a model loads only when it has rows to score
        results = cached_results([lambda m=m: DocumentScorer(m, **how[m], device=device, precision=precision)
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
    report["model"] = {"dir": detector or args.model, "device": device, "precision": precision,
                       "granularity": options.granularity,
                       "aggregation": options.aggregation,
                       "conv_dir": options.conv_dir, "score_mode": mode.config(), "files": files,
                       **({"ensemble": model_dirs} if ensemble else {}), "score_caches": caches,
                       **({"members": heads_in_words(heads)} if detector else {})}
    print(format_table(report), flush=True)  # shown even when the model dir cannot take the eval file
    _save_report(detector or args.model, report, mode, _not_default(options.granularity, "sentence"),
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
    from entailgen.training.scoring.detector import detector_members
    from entailgen.training.fitting.encoder import EncoderError
    from entailgen.training.scoring.evaluation import evaluate, result_table
    from entailgen.training.fitting.model_card import save_evaluation

    try:
        members = detector_members(args.model)
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


def _score(args) -> int:
    from entailgen.dataset.output import OutputError, check_output
    from entailgen.runners.progress import line_every
    from entailgen.runners.score import SCORES, score_job
    from entailgen.training.fitting.checkpoint import verify_model_dir
    from entailgen.training.scoring.document_scorer import DocumentOptions
    from entailgen.training.fitting.encoder import EncoderError
    from entailgen.training.scoring.detector import heads_in_words, member_heads
    from entailgen.training.scoring.inference import LAYOUTS, check_scoring
    from entailgen.transforms.parser import ParserConfig, check_parser

    parser = ParserConfig(model=args.parser_model)
    detector = as_members(args)
    mode = _score_mode(args)
    documents = (DocumentOptions(args.granularity, args.aggregation or "zs", args.conv, tuple(args.ensemble or ()),
                                 score=mode.score, mc_dropout=mode.mc_dropout, pairs=not args.documents,
                                 detector=detector, explain=args.explain)
                 if args.documents or detector else None)
    if args.explain and documents is None:
        raise UsageError("--explain is for --documents (or a detector dir): a pair's arcs are in its scored row")
    if args.html and not args.explain:
        raise UsageError("--html shows what --explain writes: give --explain with it")
    try:  # what the workers would fail on, checked here: one line, not a worker's traceback
        meta = verify_model_dir(args.model)  # damaged, incomplete or mismatched files: one line
        if documents is not None:
            documents.check(args.model)  # also the --ensemble model dirs, and e-c on each
            if detector:
                member_heads(detector, mode.plain)  # a detector's Conv head missing or changed: one line
        elif (args.granularity, args.aggregation, args.conv, args.ensemble) != ("sentence", None, None, None):
            raise UsageError("--granularity, --aggregation, --conv and --ensemble are for --documents")
        else:  # a dae model's arcs (e only), a pair model's P(entailed) (e-c on a 3-way one)
            mode.check_model(meta["task"], meta.get("labels"), args.model)
        _precision(args)  # int8 on cuda: one line
        check_parser(parser)
        check_scoring(args.input, args.format, args.num_shards)  # empty, a directory, --num-shards 0
    except (EncoderError, ValueError, RuntimeError) as e:  # RuntimeError: torch's word on an unknown --device
        raise UsageError(str(e))
    try:
        check_output(args.output, SCORES, [args.input], args.overwrite)
    except ValueError as e:
        raise UsageError(str(e))
    try:
        manifest = score_job(args.model, args.input, args.output, args.format, args.num_shards, parser, args.device,
                             args.beam_args, progress_every=None if args.quiet else line_every(sys.stderr),
                             documents=documents,
                             overwrite=args.overwrite, mode=mode, precision=args.precision)
    except OutputError as e:  # another writer holds --output, or finished into it since the check above
        raise UsageError(str(e))
    page = None
    if args.html:
        from entailgen.dataset.report.explain_page import write_explain_page

        page = write_explain_page(args.output, manifest)
        if not args.quiet:
            print(f"the rows worst first, explained: {os.path.join(args.output, page)}" if page else
                  "no row was scored, so no explain.html")
    total, repeated = manifest["counts"]["total"], manifest["counts"].get("repeated_ids", {})
    what = "documents" if args.documents else "pairs"
    print(args.output if args.quiet else
          f"scored {total['written']} of {total['read']} {what} into {args.output}; {total['dead_letters']} dead "
          f"letters" + (f"; {len(repeated)} ids given to more than one row (first: {min(repeated)})"
                        if repeated else "")
          + (f"; the detector's members scored each row: {heads_in_words(member_heads(detector, mode.plain))}"
             if detector else ""))
    if args.quiet and page:  # --quiet: the paths written, one a line
        print(os.path.join(args.output, page))
    if total["read"] and not total["written"]:  # nothing scored is a failed job, not exit 0
        reasons = sorted(manifest["counts"].get("dead_by_stage", {}))
        fields, other = (("document", "summary"), ("premise", "hypothesis"))[::1 if args.documents else -1]
        # every row lacked its fields: rows of the other layout, or of neither (each dead letter says which)
        hint = (f"; {what} are read from rows of {' and '.join(fields)}; rows of {' and '.join(other)} are scored "
                f"{LAYOUTS[other]}") if reasons == ["read:MissingField"] else ""
        raise UsageError(f"every one of the {total['read']} {what} became a dead letter (their reasons: "
                         f"{', '.join(reasons)}){hint}; see {args.output}")
    return 0


def _train_conv(args) -> int:
    from entailgen.training.fitting.data import DatasetError
    from entailgen.dataset.output import OutputError
    from entailgen.training.scoring.conv_fit import fit_conv
    from entailgen.training.fitting.encoder import EncoderError

    def progress(done: int, total: int) -> None:
        print(f"  scored {done} of {total} rows' blocks", file=sys.stderr, flush=True)

    if args.max_rows < 0:
        raise UsageError(f"--max-rows must be 0 (all rows) or more, got {args.max_rows}")
    try:
        meta = fit_conv(args.model, args.dataset, args.output, max_rows=args.max_rows or None, seed=args.seed,
                        device=args.device, overwrite=args.overwrite, progress=None if args.quiet else progress)
    except (DatasetError, EncoderError, OutputError, ValueError) as e:
        raise UsageError(str(e))
    if not args.quiet:
        print(f"Conv head fit on {meta['rows']['train']} rows; dev balanced accuracy "
              f"{meta['dev_balanced_accuracy']} on {meta['rows']['dev']} rows (threshold 0.5)")
    print(args.output)
    return 0


MAX_MC_DROPOUT = 100  # training.scoring.score_modes.MAX_MC_DROPOUT, unimported: `entailgen --help` stays fast


def _add_score_mode(parser, what: str) -> None:
    """--score and --mc-dropout (With a Little Push's inference, training.scoring.score_modes) on evaluate and score."""
    parser.add_argument("--score", default="e", choices=("e", "e-c"),
                        help=f"{what}: e = P(entailed); e-c = P(entailed) - P(contradicted) as (1 + e - c) / 2, "
                             "for a 3-way model (Steen et al. 2023)")
    parser.add_argument("--mc-dropout", type=int, default=0, metavar="N",
                        help=f"{what}: the mean of N forward passes with dropout on (seed 0), N at most "
                             f"{MAX_MC_DROPOUT}; 0: one plain pass")


def register(commands) -> None:
    """Add `train`, `evaluate` and `score` to the CLI."""
    from entailgen.transforms.views import CLAIM_VIEWS, DEFAULT_CLAIM_VIEW
    from entailgen.transforms.claims.blocks import GRANULARITIES

    AGGREGATIONS = ("zs", "conv")  # training.scoring.summac.AGGREGATIONS, unimported: `entailgen --help` stays fast
    PRECISIONS = ("auto", "fp32", "int8", "onnx-fp32", "onnx-int8")  # scoring.precision.PRECISIONS (tests agree)
    PRECISION_HELP = ("the model's numbers and runtime: fp32 or int8 in torch (int8: dynamic int8 linear layers, the "
                      "feed-forward's down projections fp32), onnx-fp32 or onnx-int8 in ONNX Runtime (its graph "
                      "fused, the same layers int8; one plain pass: no --mc-dropout), int8 and onnx-* cpu only; auto "
                      "(default): onnx-fp32 on cpu (fp32 with --mc-dropout), fp32 on cuda")

    train = commands.add_parser("train", help=COMMAND_HELP["train"],
                                description="Train the DAE arc model (dae / document-arcs datasets, one or several "
                                            "mixed) or a pair classifier (recast, dialogue, claims, dae at sentence "
                                            "level; several mixed).")
    train.add_argument("dataset", metavar="DATASET", nargs="+",
                       help="finished entailgen datasets (with manifest.json); several train one model: the DAE arc "
                            "model when all have arcs (dae, document-arcs), else a pair model")
    train.add_argument("--output", required=True, metavar="MODEL_DIR", help="where the model is written")
    train.add_argument("--encoder", default="default",
                       help="hub id, local dir or gs:// dir (safetensors); 'default' is the packaged all-MiniLM-L6-v2")
    train.add_argument("--epochs", type=int, default=3, help="passes over the train split")
    train.add_argument("--batch-size", type=int, default=32, help="examples per step")
    train.add_argument("--lr", type=finite_float, help="AdamW learning rate (default: by encoder size, the DAE authors' "
                       "2e-5 from hidden size 768 up, 1e-4 below, e.g. the default MiniLM)")
    train.add_argument("--max-length", type=int, default=128,
                       help="pair models cut a longer premise to fit (counted); dae arc examples are left out (counted)")
    train.add_argument("--max-arcs", type=int, default=20, help="arcs per example used in training")
    train.add_argument("--max-examples", type=int, metavar="N",
                       help="draw N training rows per epoch in all (default: as many as the datasets hold)")
    train.add_argument("--mix", metavar="WEIGHTS",
                       help="each dataset's share of the rows an epoch draws, e.g. claims=2,recast=1 (folder name or "
                            "pipeline) or 2,1 in the datasets' order; a dataset past its rows repeats them "
                            "(default: each in proportion to its rows, every row once)")
    train.add_argument("--task", choices=("dae", "pair"),
                       help="default: dae when every dataset has arcs (dae, document-arcs), else pair; pair turns "
                            "dae rows into sentence pairs")
    train.add_argument("--claims-view", default=DEFAULT_CLAIM_VIEW, choices=CLAIM_VIEWS,
                       help="claims rows as pairs: source (source sentence or best block, claim; plus a sampled "
                            "unrelated block as not-entailed), contradicted (source, plus a block a swap contradicts as "
                            "not-entailed) or document (whole document cut to --max-length, claim)")
    train.add_argument("--bucket-batches", type=int, default=50, metavar="N",
                       help="length bucketing: N batches' examples pooled, sorted by length, cut into batches, the "
                            "batches shuffled (less padding per step); 1: batches in the shuffled stream's order")
    train.add_argument("--three-way", action="store_true",
                       help="a 3-way pair model (what --score e-c needs) where only some rows keep a 3-way label: the "
                            "others are left out, counted")
    train.add_argument("--seed", type=int, default=0, help="seed of initialisation, dropout and shuffling")
    train.add_argument("--device", default="auto", help="auto (cuda with bf16 when present, else cpu), cpu or cuda")
    train.add_argument("--overwrite", action="store_true", help="replace a model dir written by an earlier train")
    add_quiet(train, "the model dir")
    train.set_defaults(handler=_train)
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
    score = commands.add_parser("score", help=COMMAND_HELP["score"],
                                description="Score (premise, hypothesis) pairs (a dae model: each arc and their mean; "
                                            "a pair model: P(entailed) and each label's probability), or (document, "
                                            "summary) rows with any model (--documents), through Beam.")
    score.add_argument("model", metavar="MODEL_DIR", help="a model dir written by `entailgen train`")
    score.add_argument("--input", required=True, metavar="JSONL",
                       help="JSON Lines with premise, hypothesis (--documents: document, summary) and an optional id")
    score.add_argument("--documents", action="store_true",
                       help="score whole documents (SummaC): blocks x summary sentences, then ZS or Conv")
    score.add_argument("--granularity", default="sentence", choices=GRANULARITIES, help="--documents: the blocks")
    score.add_argument("--aggregation", choices=AGGREGATIONS,
                       help="--documents: zs (best block per sentence, mean over sentences) or conv (needs --conv)")
    score.add_argument("--conv", metavar="CONV_DIR", help="--documents: a Conv head `entailgen train-conv` wrote")
    score.add_argument("--ensemble", nargs="+", metavar="MODEL_DIR",
                       help="--documents: more models (e.g. one per family) scoring beside MODEL_DIR, joined by the "
                            "mean of their log-odds")
    score.add_argument("--explain", action="store_true",
                       help="--documents: each row's words (how unsupported, the arcs behind them) and sentences "
                            "(score, supporting block)")
    score.add_argument("--html", action="store_true",
                       help="--explain: also write DIR/explain.html, the rows worst first with their words shaded")
    score.add_argument("--output", required=True, metavar="DIR", help="where shards and the manifest go")
    add_format(score)
    score.add_argument("--num-shards", type=int, default=1, metavar="N", help="shards")
    score.add_argument("--parser-model", metavar="NAME_OR_DIR", help="spaCy model for the hypotheses")
    score.add_argument("--device", default="cpu", help="cpu or cuda")
    score.add_argument("--precision", default="auto", choices=PRECISIONS, help=PRECISION_HELP)
    score.add_argument("--overwrite", action="store_true", help="replace an earlier scores dataset at --output")
    add_quiet(score, "the scores dir")
    _add_score_mode(score, "each pair or cell")
    score.set_defaults(handler=_score)
    conv = commands.add_parser("train-conv", help=COMMAND_HELP["train-conv"],
                               description="Fit a SummaC-Conv head on a model's block scores of a claims dataset "
                                           "(for score --documents --aggregation conv).")
    conv.add_argument("model", metavar="MODEL_DIR", help="a model dir written by `entailgen train`")
    conv.add_argument("dataset", metavar="DATASET", help="a finished claims dataset (its train and dev splits)")
    conv.add_argument("--output", required=True, metavar="CONV_DIR", help="where the head is written")
    conv.add_argument("--max-rows", type=int, default=2000, metavar="N",
                      help="train (and dev) rows scored, the first N in content-hash order; 0: all")
    conv.add_argument("--seed", type=int, default=0, help="seed of initialisation and shuffling")
    conv.add_argument("--device", default="cpu", help="cpu or cuda")
    conv.add_argument("--overwrite", action="store_true", help="replace a Conv dir written by an earlier train-conv")
    add_quiet(conv, "the Conv dir")
    conv.set_defaults(handler=_train_conv)
