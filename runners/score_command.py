"""`entailgen score MODEL_DIR --input JSONL --output DIR`: the command; the Beam job it runs is runners.score's.

It imports what it runs on (Beam, torch, spaCy) when it runs, so `entailgen --help` and a refused option stay fast."""
from __future__ import annotations

import os
import sys

from entailgen.runners.usage import COMMAND_HELP, UsageError, add_format, add_quiet
from entailgen.runners.model_options import (AGGREGATIONS, PRECISION_HELP, PRECISIONS, _add_score_mode, _precision,
                                             _score_mode, add_evidence_flags, as_members)


def _score(args) -> int:
    from entailgen.dataset.output import OutputError, check_output
    from entailgen.runners.progress import line_every
    from entailgen.runners.score import SCORES, score_job
    from entailgen.training.fitting.model_dir import ModelDir
    from entailgen.training.scoring.document_scorer import DocumentOptions
    from entailgen.training.fitting.encoder import ModelDirError
    from entailgen.training.scoring.detector import heads_in_words
    from entailgen.training.scoring.inference import LAYOUTS, check_scoring
    from entailgen.transforms.parser import ParserConfig, check_parser

    parser = ParserConfig(model=args.parser_model)
    detector = as_members(args)
    mode = _score_mode(args)
    documents = (DocumentOptions(args.granularity, args.aggregation or "zs", args.conv, tuple(args.ensemble or ()),
                                 score=mode.score, mc_dropout=mode.mc_dropout, pairs=not args.documents,
                                 detector=detector and detector.directory, explain=args.explain,
                                 evidence=args.evidence, top_k=args.top_k, max_length=args.max_length)
                 if args.documents or detector else None)
    if args.explain and documents is None:
        raise UsageError("--explain is for --documents (or a detector dir): a pair's arcs are in its scored row")
    if args.html and not args.explain:
        raise UsageError("--html shows what --explain writes: give --explain with it")
    try:  # what the workers would fail on, checked here: one line, not a worker's traceback
        # opened once (damaged, incomplete or mismatched files: one line), what the workers take; a detector's members
        # (and its Conv head) were opened by as_members
        model = detector.members[0] if detector else ModelDir.open(args.model)
        models = None
        if documents is not None:
            models = documents.check(model, detector.members[1:] if detector else None)  # the --ensemble dirs, e-c
            models = detector or models
        elif (args.granularity, args.aggregation, args.conv, args.ensemble, args.evidence, args.top_k,
              args.max_length) != ("sentence", None, None, None, None, None, None):
            raise UsageError("--granularity, --aggregation, --conv, --ensemble, --evidence, --top-k and --max-length "
                             "are for --documents")
        else:  # a dae model's arcs (e only), a pair model's P(entailed) (e-c on a 3-way one)
            mode.check_model(model.task, model.meta.get("labels"), args.model)
        _precision(args)  # int8 on cuda: one line
        check_parser(parser)
        check_scoring(args.input, args.format, args.num_shards)  # empty, a directory, --num-shards 0
    except (ModelDirError, ValueError, RuntimeError) as e:  # RuntimeError: torch's word on an unknown --device
        raise UsageError(str(e))
    try:
        check_output(args.output, SCORES, [args.input], args.overwrite)
    except ValueError as e:
        raise UsageError(str(e))
    try:
        manifest = score_job(model, args.input, args.output, args.format, args.num_shards, parser, args.device,
                             args.beam_args, progress_every=None if args.quiet else line_every(sys.stderr),
                             documents=documents,
                             overwrite=args.overwrite, mode=mode, precision=args.precision, models=models)
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
          + (f"; the detector's members scored each row: {heads_in_words(detector.heads(mode.plain))}"
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


def register(commands) -> None:
    """Add `score` to the CLI."""
    from entailgen.transforms.claims.blocks import GRANULARITIES

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
    add_evidence_flags(score)
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
