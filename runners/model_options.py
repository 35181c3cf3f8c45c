"""The options several commands share on a trained model (MODEL_DIR, a detector dir, --score / --mc-dropout,
--precision): `evaluate` and `score` read them alike.

Nothing here imports torch or the scorers until a command runs, so `entailgen --help` stays fast."""
from __future__ import annotations

from entailgen.runners.cli import UsageError

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
    from entailgen.training.scoring.detector import DetectorDir, is_detector
    from entailgen.training.fitting.encoder import EncoderError

    if not is_detector(args.model):
        return None
    if args.ensemble or args.conv is not None or args.aggregation not in (None, "zs"):
        raise UsageError(f"{args.model} is a detector: its members' ZS scores are joined by its own rule; "
                         "--ensemble, --conv and --aggregation conv are for model dirs")
    try:
        detector = DetectorDir.open(args.model)
    except EncoderError as e:
        raise UsageError(str(e))
    members = [m.path for m in detector.members]
    args.model, args.ensemble = members[0], members[1:] or None
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


MAX_MC_DROPOUT = 100  # training.scoring.score_modes.MAX_MC_DROPOUT, unimported: `entailgen --help` stays fast


def _add_score_mode(parser, what: str) -> None:
    """--score and --mc-dropout (With a Little Push's inference, training.scoring.score_modes) on evaluate and score."""
    parser.add_argument("--score", default="e", choices=("e", "e-c"),
                        help=f"{what}: e = P(entailed); e-c = P(entailed) - P(contradicted) as (1 + e - c) / 2, "
                             "for a 3-way model (Steen et al. 2023)")
    parser.add_argument("--mc-dropout", type=int, default=0, metavar="N",
                        help=f"{what}: the mean of N forward passes with dropout on (seed 0), N at most "
                             f"{MAX_MC_DROPOUT}; 0: one plain pass")
