"""`entailgen train DATASET [DATASET ...] --output MODEL_DIR`.

It imports what it runs on (torch, transformers) when it runs, so `entailgen --help` and a refused option stay
fast."""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Optional, Sequence

from entailgen.runners.usage import COMMAND_HELP, UsageError, add_quiet
from entailgen.runners.launch import add_training_flags
from entailgen.transforms.flags import finite_float

if TYPE_CHECKING:
    from entailgen.training.fitting.trainer import TrainOptions


def train_options(args) -> TrainOptions:
    """The trainer's options from `entailgen train`'s flags (--mix reads the datasets' pipelines)."""
    from entailgen.training.fitting.data import open_dataset, parse_mix
    from entailgen.training.fitting.trainer import TrainOptions

    mix = parse_mix(args.mix, [(os.path.basename(d.rstrip("/")), open_dataset(d)[0].get("pipeline"))
                               for d in args.dataset]) if args.mix else ()
    return TrainOptions(encoder=args.encoder, epochs=args.epochs, batch_size=args.batch_size, lr=args.lr,
                        max_length=args.max_length, max_arcs=args.max_arcs, seed=args.seed, device=args.device,
                        max_examples=args.max_examples, progress=not args.quiet, task=args.task, mix=mix,
                        claims_view=args.claims_view, bucket_batches=args.bucket_batches,
                        three_way=args.three_way, grad_accum=args.grad_accum,
                        mixed_precision=args.mixed_precision, checkpoint_every=args.checkpoint_every)


def _train(args) -> int:
    from entailgen.runners.launch import relaunch
    from entailgen.training.fitting.processes import launched
    from entailgen.training.fitting.data import DatasetError
    from entailgen.training.fitting.encoder import ModelDirError

    try:
        options = train_options(args)
        if args.processes < 1:
            raise ValueError(f"--processes must be at least 1, got {args.processes}")
        if args.processes > 1 and not launched():  # runners.launch: N of this command, each one of N
            options.check()
            return relaunch(args.argv, args.processes, args.output)
    except (DatasetError, ModelDirError, ValueError) as e:
        raise UsageError(str(e))
    return train_model(args.dataset, args.output, options, overwrite=args.overwrite, resume=args.resume,
                       quiet=args.quiet)


def train_model(datasets: Sequence[str], output: str, options: TrainOptions, *, overwrite: bool = False,
                resume: Optional[bool] = None, quiet: bool = False) -> int:
    """`entailgen train DATASET... --output MODEL_DIR` once its flags are options, as a function another command
    calls (`detector`): the model trained and written, what it was trained on said (only its path with quiet), and
    what a user should not trust blind said even then."""
    from entailgen.runners.launch import left_alone, peer_gone
    from entailgen.training.fitting.processes import launched
    from entailgen.training.fitting.data import DatasetError
    from entailgen.training.fitting.encoder import ModelDirError
    from entailgen.training.fitting.model_card import never_predicted
    from entailgen.training.fitting.trainer import train

    try:
        summary = train(datasets[0] if len(datasets) == 1 else list(datasets), output, options, overwrite=overwrite,
                        resume=resume)
    except (DatasetError, ModelDirError, ValueError) as e:
        raise UsageError(str(e))
    except RuntimeError as e:  # a collective's: another process of the launch died (the OOM killer)
        if not (launched() and peer_gone(e)):
            raise
        return left_alone(e, output)
    if summary is None:  # another process of a launch: the first one says what was trained
        return 0
    if not quiet:
        counts = summary["counts"]["train"]
        left_out = ", ".join(f"{k} {v}" for k, v in counts.items() if k not in ("read", "used")) or "none"
        where = summary["device"] + (f" in {summary['processes']} processes" if summary["processes"] > 1 else "")
        print(f"trained {summary['task']} model on {counts['read']} rows ({counts['used']} used; left out: {left_out}) "
              f"in {summary['elapsed_s']} s on {where}; dev accuracy by epoch {summary['dev_accuracy']}, "
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
    print(output)
    return 0


def register(commands) -> None:
    """Add `train` to the CLI."""
    from entailgen.transforms.views import CLAIM_VIEWS, DEFAULT_CLAIM_VIEW

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
    add_training_flags(train)  # runners.launch: checkpoints, --resume, --grad-accum, --mixed-precision, --processes
    add_quiet(train, "the model dir")
    train.set_defaults(handler=_train)
