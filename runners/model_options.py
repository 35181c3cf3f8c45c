"""The options several commands share on a trained model (MODEL_DIR, a detector dir, --score / --mc-dropout,
--precision): `evaluate` and `score` read them alike.

Nothing here imports torch or the scorers until a command runs, so `entailgen --help` stays fast."""
from __future__ import annotations

from entailgen.runners.usage import UsageError

AGGREGATIONS = ("zs", "conv")  # training.scoring.summac.AGGREGATIONS, unimported: `entailgen --help` stays fast
PRECISIONS = ("auto", "fp32", "int8", "onnx-fp32", "onnx-int8")  # scoring.precision.PRECISIONS (tests agree)
PRECISION_HELP = ("the model's numbers and runtime: fp32 or int8 in torch (int8: dynamic int8 linear layers, the "
                  "feed-forward's down projections fp32), onnx-fp32 or onnx-int8 in ONNX Runtime (its graph "
                  "fused, the same layers int8; one plain pass: no --mc-dropout), int8 and onnx-* cpu only; auto "
                  "(default): onnx-fp32 on cpu (fp32 with --mc-dropout), fp32 on cuda")


def as_members(args):
    """A detector dir given as MODEL_DIR stands for its members, joined as --ensemble joins models: the first as the
    model, the others as the ensemble (their paths); returns the detector dir opened once (DetectorDir: its members
    verified, for the scorers to take), None for a model dir."""
    detector = _detector(args)
    if detector is None:
        return None
    members = [m.path for m in detector.members]
    args.model, args.ensemble = members[0], members[1:] or None
    return detector


SPANS_OPTIONS = ("articles", "val_only")  # the options of --benchmark spans alone
SUMMAC_OPTIONS = ("granularity", "aggregation", "conv", "ensemble")  # those of summac, some taken by others too


def _flag(option: str) -> str:
    return "--" + option.replace("_", "-")


def judged_model(args, benchmark: str):
    """`evaluate --benchmark`'s options resolved once (training.benchmarks.judged.JudgedModel: a detector dir opened,
    --device and --precision resolved for this machine), or their one-line refusal: an unknown benchmark, an option
    the benchmark does not take, a detector with --ensemble or --conv, a device or precision that cannot run."""
    from entailgen.training.benchmarks.judged import JudgedModel
    from entailgen.training.benchmarks.registry import RUNS
    from entailgen.training.fitting.models import pick_device
    from entailgen.training.scoring.precision import resolved_precision

    if benchmark not in RUNS:
        raise UsageError(f"--benchmark {benchmark}: unknown benchmark (known: {', '.join(RUNS)})")
    takes = RUNS[benchmark].takes
    given = [o for o in SPANS_OPTIONS + SUMMAC_OPTIONS if getattr(args, o) not in (None, False, [])]
    refused = next((o for o in SPANS_OPTIONS if o in given and o not in takes), None)
    if refused:
        raise UsageError(f"{_flag(refused)} is for --benchmark spans")
    not_taken = [o for o in SUMMAC_OPTIONS if o not in takes]
    if any(o in given for o in not_taken):
        flags = [_flag(o) for o in not_taken]
        raise UsageError(f"{', '.join(flags[:-1])} and {flags[-1]} are for --benchmark summac")
    if (args.evidence is not None or args.top_k is not None or args.max_length is not None) and "evidence" not in takes:
        raise UsageError(f"--evidence, --top-k and --max-length read documents: --benchmark {benchmark} scores "
                         "sentence pairs")
    if args.conv is not None and args.aggregation == "zs":
        raise UsageError("--conv is a SummaC-Conv head: give --aggregation conv, or leave --aggregation out")
    mode = _score_mode(args)
    detector = _detector(args)
    try:
        device = pick_device(args.device)
        precision = resolved_precision(args.precision, device, mode.mc_dropout)
    except ValueError as e:
        raise UsageError(str(e))
    return JudgedModel(args.model, mode, args.device, device.type, precision, args.precision, detector,
                       args.granularity, args.aggregation, args.conv, tuple(args.ensemble or ()), args.articles,
                       args.val_only, args.evidence, args.top_k, args.max_length)


def _detector(args):
    """The detector dir MODEL_DIR names, opened once (DetectorDir: its members verified), None for a model dir;
    --ensemble, --conv and --aggregation conv refused for one (its members are joined by its own rule)."""
    from entailgen.training.scoring.detector import DetectorDir, is_detector
    from entailgen.training.fitting.encoder import ModelDirError

    if not is_detector(args.model):
        return None
    if args.ensemble or args.conv is not None or args.aggregation not in (None, "zs"):
        raise UsageError(f"{args.model} is a detector: its members' ZS scores are joined by its own rule; "
                         "--ensemble, --conv and --aggregation conv are for model dirs")
    try:
        return DetectorDir.open(args.model)
    except ModelDirError as e:
        raise UsageError(str(e))


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


MAX_MC_DROPOUT = 100  # training.scoring.score_modes.MAX_MC_DROPOUT, unimported: `entailgen --help` stays fast


def _add_score_mode(parser, what: str) -> None:
    """--score and --mc-dropout (With a Little Push's inference, training.scoring.score_modes) on evaluate and score."""
    parser.add_argument("--score", default="e", choices=("e", "e-c"),
                        help=f"{what}: e = P(entailed); e-c = P(entailed) - P(contradicted) as (1 + e - c) / 2, "
                             "for a 3-way model (Steen et al. 2023)")
    parser.add_argument("--mc-dropout", type=int, default=0, metavar="N",
                        help=f"{what}: the mean of N forward passes with dropout on (seed 0), N at most "
                             f"{MAX_MC_DROPOUT}; 0: one plain pass")


EVIDENCE = ("block", "arcs", "packed", "chunks")  # training.scoring.passages.EVIDENCE, unimported: help stays fast
EVIDENCE_HELP = ("where a summary sentence's evidence comes from: block (its best block; every arc read "
                 "there), arcs (each arc its best block), packed (the document sentences sharing most of its words, "
                 "packed to the model's length), chunks (windows of the document as long as the model takes, each "
                 "arc its best window)")


def add_evidence_flags(command) -> None:
    """--evidence, --top-k and --max-length: how a document's passages are gathered for each summary sentence."""
    command.add_argument("--evidence", choices=EVIDENCE, help=EVIDENCE_HELP + " (default: arcs; block with a Conv head)")
    command.add_argument("--top-k", type=int, metavar="K", help="--evidence packed: at most K document sentences")
    command.add_argument("--max-length", type=int, metavar="N",
                         help="tokens a passage and a sentence may take together when scoring (default: the "
                              "model's training length; up to the encoder's positions, e.g. 512)")
