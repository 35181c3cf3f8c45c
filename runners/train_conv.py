"""`entailgen train-conv MODEL_DIR DATASET --output CONV_DIR`: a SummaC-Conv head for `score --documents`.

It imports what it runs on (torch, transformers) when it runs, so `entailgen --help` and a refused option stay fast."""
from __future__ import annotations

import sys
from typing import Optional

from entailgen.runners.usage import COMMAND_HELP, UsageError, add_quiet


def _train_conv(args) -> int:
    if args.max_rows < 0:
        raise UsageError(f"--max-rows must be 0 (all rows) or more, got {args.max_rows}")
    return train_conv(args.model, args.dataset, args.output, max_rows=args.max_rows or None, seed=args.seed,
                      device=args.device, overwrite=args.overwrite, quiet=args.quiet)


def train_conv(model: str, dataset: str, output: str, *, max_rows: Optional[int] = 2000, seed: int = 0,
               device: str = "cpu", overwrite: bool = False, quiet: bool = False) -> int:
    """`entailgen train-conv MODEL_DIR DATASET --output CONV_DIR` as a function another command calls (`detector`):
    the head fit and written, its progress and dev figure said (only its path with quiet); max_rows None: all."""
    from entailgen.training.fitting.data import DatasetError
    from entailgen.dataset.output import OutputError
    from entailgen.training.scoring.conv_fit import fit_conv
    from entailgen.training.fitting.encoder import ModelDirError

    def progress(done: int, total: int) -> None:
        print(f"  scored {done} of {total} rows' blocks", file=sys.stderr, flush=True)

    try:
        meta = fit_conv(model, dataset, output, max_rows=max_rows, seed=seed, device=device, overwrite=overwrite,
                        progress=None if quiet else progress)
    except (DatasetError, ModelDirError, OutputError, ValueError) as e:
        raise UsageError(str(e))
    if not quiet:
        print(f"Conv head fit on {meta['rows']['train']} rows; dev balanced accuracy "
              f"{meta['dev_balanced_accuracy']} on {meta['rows']['dev']} rows (threshold 0.5)")
    print(output)
    return 0


def register(commands) -> None:
    """Add `train-conv` to the CLI."""
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
