"""`entailgen train`: fine-tune the DAE arc model (arc datasets: dae, document-arcs) or a sentence-pair classifier
(recast, nli-dialogue, claims, dae at sentence level); one dataset or a mix of several."""
from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import random
import shutil
import sys
import time
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Iterator, Optional, Sequence

from entailgen.schemas.reader import manifest_sha256
from entailgen.training.fitting.checkpoint import save_model
from entailgen.training.fitting.data import (DatasetError, check_mix, check_quotas, featurizer, open_dataset,
                                             pair_labels, quotas, records, shuffled, training_stream, usable,
                                             vocabulary)
from entailgen.training.fitting.encoder import DEFAULT_ENCODER, load_encoder
from entailgen.training.fitting.features import IGNORE, collate
from entailgen.training.fitting.model_card import write_card
from entailgen.training.fitting.models import DAE, PAIR, build_model, forward, loss_of, to_device
from entailgen.training.fitting.processes import (MIXED_PRECISIONS, accelerator_for, in_groups, shares,
                                                  updates_per_epoch)
from entailgen.training.fitting.resume import (CheckpointError, clear, has_checkpoint, latest, load, load_best,
                                               read_state, recipe_difference, recipe_of, save, save_best)
from entailgen.transforms.views import CLAIM_VIEWS, DEFAULT_CLAIM_VIEW, pair_examples, pairs_per_row

TRAIN_JSON = "train.json"


@dataclass(frozen=True)
class TrainOptions:
    """Defaults from the DAE authors' code: AdamW lr 2e-5, batch 32, 3 epochs, clip 1.0, 128 tokens, 20 arcs; lr None
    is auto: their 2e-5 for BERT-size encoders, 1e-4 for smaller ones (auto_lr)."""

    encoder: str = DEFAULT_ENCODER
    epochs: int = 3
    batch_size: int = 32
    lr: Optional[float] = None  # None: auto_lr(encoder), resolved once the encoder is loaded
    max_length: int = 128
    max_arcs: int = 20
    grad_clip: float = 1.0
    seed: int = 0
    device: str = "auto"  # auto: cuda (bf16 autocast) when present, else cpu
    train_split: str = "train"
    dev_split: str = "dev"
    shuffle_buffer: int = 10000
    max_examples: Optional[int] = None  # read at most this many training rows (sub-sampling for benchmarks)
    progress: bool = True
    task: Optional[str] = None  # None: dae for arc datasets only, else pair; "pair" trains dae rows at sentence level
    mix: tuple[float, ...] = ()  # a weight per dataset: its share of the rows each epoch draws; (): by its rows
    claims_view: str = DEFAULT_CLAIM_VIEW  # claims rows as pairs: transforms.views
    bucket_batches: int = 50  # batches pooled, sorted by length, cut and shuffled (bucketed); 1: stream order
    three_way: bool = False  # the pair model 3-way where only some rows keep a 3-way label: the others left out
    grad_accum: int = 1  # batches whose gradients make one optimizer step (a batch of batch_size * grad_accum)
    mixed_precision: str = "auto"  # Accelerate's autocast: auto is bf16 on a GPU, none (fp32) on the CPU
    checkpoint_every: int = 500  # optimizer steps between checkpoints (and one at each epoch's end): what a kill loses

    def check(self) -> None:
        """Refuse meaningless values with one line."""
        for name in ("epochs", "batch_size", "max_length", "max_arcs", "shuffle_buffer", "bucket_batches",
                     "grad_accum", "checkpoint_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        if self.max_examples is not None and self.max_examples < 1:
            raise ValueError(f"--max-examples must be at least 1, got {self.max_examples}")
        for name in ("lr", "grad_clip"):  # `not 0 < x < inf`: nan fails it too
            value = getattr(self, name)
            if name == "lr" and value is None:  # auto: chosen by encoder size
                continue
            if not 0 < value < math.inf:
                raise ValueError(f"--{name.replace('_', '-')} must be a positive finite number, got {value}")
        if self.device not in ("auto", "cpu", "cuda") and not self.device.startswith("cuda:"):
            raise ValueError(f"--device takes auto, cpu or cuda, got {self.device!r}")
        if self.task not in (None, DAE, PAIR):
            raise ValueError(f"--task takes {DAE} or {PAIR}, got {self.task!r}")
        if self.claims_view not in CLAIM_VIEWS:
            raise ValueError(f"--claims-view takes {', '.join(CLAIM_VIEWS)}, got {self.claims_view!r}")
        if self.mix:
            check_mix(self.mix, len(self.mix))
        if self.mixed_precision not in MIXED_PRECISIONS:
            raise ValueError(f"--mixed-precision takes {', '.join(MIXED_PRECISIONS)}, got {self.mixed_precision!r}")


def training_task(tasks: Sequence[str], requested: Optional[str]) -> str:
    """The DAE arc model for arc datasets (dae, document-arcs: one, or several with --mix) unless --task pair, else
    the sentence-pair classifier."""
    arcs_only = bool(tasks) and all(task == DAE for task in tasks)
    if requested == DAE and not arcs_only:
        raise DatasetError("--task dae trains the DAE arc model on arc datasets (dae, document-arcs) only; recast, "
                           "nli-dialogue and claims ones train the pair model")
    return DAE if requested in (None, DAE) and arcs_only else PAIR


def check_max_length(max_length: int, encoder, tokenizer) -> None:
    """--max-length within what the encoder can embed (position embeddings, the tokenizer's own limit)."""
    limits = [getattr(encoder.config, "max_position_embeddings", None), tokenizer.model_max_length]
    limit = min((n for n in limits if isinstance(n, int) and n > 0), default=None)
    if limit is not None and max_length > limit:
        raise ValueError(f"--max-length {max_length} is past the encoder's limit of {limit} tokens")


def stop_if_not_finite(loss: float, step: int, epoch: int) -> None:
    """A nan or inf loss means the weights are lost (e.g. too large an --lr): stop instead of saving them."""
    if not math.isfinite(loss):
        raise ValueError(f"training stopped at step {step} (epoch {epoch + 1}): the loss is {loss}; "
                         "try a smaller --lr; nothing written")


# The DAE authors' lr 2e-5 is for BERT-size encoders (hidden size 768 and up); MiniLM-size ones (384, the packaged
# default) stayed below the dev majority with it on the sample dataset and learnt with 1e-4.
BERT_SIZE, BERT_LR, SMALL_LR = 768, 2e-5, 1e-4


def auto_lr(encoder) -> float:
    """The learning rate for an encoder by its size: 2e-5 from hidden size 768 up, 1e-4 below."""
    return BERT_LR if encoder.config.hidden_size >= BERT_SIZE else SMALL_LR


def progress_bar(total: int, desc: str, shown: bool):
    """A tqdm bar on a terminal; on anything else (a log, a pipe) the same bar as a plain line every 5 s."""
    from tqdm import tqdm

    class Bar(tqdm):
        def set_postfix(self, ordered_dict=None, refresh=True, **kwargs):
            """Shown at the next timed refresh, not at once: on a log, a line every 5 s rather than one per step."""
            super().set_postfix(ordered_dict, refresh=False, **kwargs)

    tty = sys.stderr.isatty()
    return Bar(total=total, desc=desc, unit="ex", file=sys.stderr if tty else _Lines(sys.stderr), disable=not shown,
               dynamic_ncols=tty, mininterval=0.1 if tty else 5.0, ascii=not tty)


class _Lines:
    """A stream that writes each of tqdm's repaints (carriage return, bar, padding) as a line of its own."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text: str) -> None:
        line = text.replace("\r", "").rstrip()
        if line:
            self.stream.write(line + "\n")

    def flush(self) -> None:
        self.stream.flush()


def bucketed(features: Iterable, size: int, pool_batches: int, rng: random.Random) -> Iterator[list]:
    """Batches of like lengths in a random order: each pool of pool_batches * size examples (in the order read) is
    sorted by length (stable), cut into batches, and the batches shuffled with the seeded rng; every example lands in
    exactly one batch. Padding to a batch's longest example then costs little (length-bucketed batching)."""
    pool: list = []
    for f in features:
        pool.append(f)
        if len(pool) == size * pool_batches:
            yield from _cut(pool, size, rng)
            pool = []
    if pool:
        yield from _cut(pool, size, rng)


def _cut(pool: list, size: int, rng: random.Random) -> list[list]:
    ordered = sorted(pool, key=lambda f: len(f.input_ids))
    cut = [ordered[i:i + size] for i in range(0, len(ordered), size)]
    rng.shuffle(cut)
    return cut


def dev_read(model, task: str, feats: list, batch_size: int, pad_id: int, device) -> tuple[Optional[float], dict]:
    """Percent of labelled arcs (dae) or pairs predicted right (None when nothing is labelled), and how often each
    label index is gold and predicted: an accuracy alone hides a class the model never predicts."""
    import torch

    correct = 0
    gold, predicted = Counter(), Counter()
    model.eval()
    with torch.no_grad():
        for batch in in_groups(feats, batch_size):
            tensors = collate(batch, pad_id)
            guessed = forward(model, tensors, device).argmax(-1).cpu()
            labelled = tensors["labels"] != IGNORE
            correct += int((guessed[labelled] == tensors["labels"][labelled]).sum())
            gold.update(tensors["labels"][labelled].tolist())
            predicted.update(guessed[labelled].tolist())
    model.train()
    total = sum(gold.values())  # every labelled arc or pair, counted once by its gold label
    return (round(100.0 * correct / total, 2) if total else None), {"gold": gold, "predicted": predicted}


def dev_classes(read: dict, names: Sequence[str]) -> dict:
    """Per label name, its dev examples (gold) and how often the kept model predicted it."""
    return {name: {"gold": read["gold"][i], "predicted": read["predicted"][i]} for i, name in enumerate(names)}


def train(dataset: str | Sequence[str], output: str, options: TrainOptions = TrainOptions(),
          overwrite: bool = False, resume: Optional[bool] = None) -> Optional[dict]:
    """Train into a folder beside output, swapped in once complete (a failed run leaves the old model as it was, a
    killed one its checkpoints: the next run of the same recipe goes on from the last; resume True refuses to start
    without one, False starts over), after the checks `entailgen train` makes (the API and the CLI alike); returns
    train.json (None in the other processes of a launch)."""
    options.check()
    accelerator = accelerator_for(options.device, options.mixed_precision, options.grad_accum)
    if not accelerator.is_main_process:  # the main process holds the writer lock and makes the build folder
        return fit(dataset, _from_main(accelerator, None), options, accelerator=accelerator)
    from entailgen.dataset.output import MODEL_DIR, PARTIAL, check_output, sibling  # lazy: Beam's FileSystems; fit()
    from entailgen.dataset.publish import publish  # alone runs without Beam, where Beam is not installed

    check_output(output, MODEL_DIR, overwrite=overwrite)  # before the data is read and the encoder loads
    recipe = recipe_of(*_provenance(dataset), options, accelerator.num_processes)
    start_over = _check_resume(output, sibling(output, PARTIAL), recipe, resume)
    with publish(output, MODEL_DIR, overwrite=overwrite, recipe=recipe, start_over=start_over) as building:
        try:
            if resume is False:
                clear(building)  # --no-resume: the build's own checkpoints, not a file of the user's
            return fit(dataset, _from_main(accelerator, building), options, accelerator=accelerator)
        except BaseException:
            if not has_checkpoint(building):  # nothing to resume from: removed, as any failed build is
                shutil.rmtree(building, ignore_errors=True)
            raise


def _from_main(accelerator, value):
    """The main process's value in every process of a launch (the build folder: the others import no Beam)."""
    if accelerator.num_processes == 1:
        return value
    from accelerate.utils import broadcast_object_list

    return broadcast_object_list([value])[0]


def _provenance(dataset: str | Sequence[str]) -> tuple[list[str], list[str]]:
    """Each dataset's place and manifest sha256: what a recipe is trained from (DatasetError for one without)."""
    datasets = [dataset] if isinstance(dataset, str) else list(dataset)
    for d in datasets:
        open_dataset(d)
    return ([d.rstrip("/") if "://" in d else os.path.realpath(d) for d in datasets],
            [manifest_sha256(d) for d in datasets])


def _check_resume(output: str, partial: str, recipe: dict, resume: Optional[bool]) -> Optional[str]:
    """Before the build starts, in one line: --resume without an interrupted training of this recipe to go on from
    (or one stopped before its first checkpoint), and a damaged checkpoint of this recipe that would be gone on from
    (unless --no-resume). Returns the line an interrupted build not gone on from is discarded with: why, and what it
    held (None: gone on from, or nothing there)."""
    from entailgen.dataset.publish import read_marker

    left = read_marker(partial) if os.path.isdir(partial) else {}
    model = left.get("kind") == "model dir"
    parts = recipe_difference(left.get("recipe") or {}, recipe) if model else "its kind"
    other = None if left.get("recipe") == recipe else f"trained another recipe ({_differ(parts)})"
    found = latest(partial) if left else None
    if resume and not left:
        raise ValueError(f"--resume: no interrupted training of {output} to resume")
    if resume and other:
        raise ValueError(f"--resume: the interrupted build of {output} {other}; leave out --resume to start over")
    if resume and not found:
        raise ValueError(f"--resume: the interrupted build of {output} holds no complete checkpoint to go on from (it "
                         "stopped before its first); leave out --resume to start over")
    if resume is not False and not other and found:
        read_state(found, recipe, partial)  # CheckpointError: damaged
        return None
    if not model:  # nothing, or another command's build: the publish step says it replaces it
        return None
    held = f"its checkpoint at step {int(os.path.basename(found).split('-')[1])}" if found else ""
    if resume is False:
        if found and not other:
            try:
                read_state(found, recipe, partial)
            except CheckpointError:
                held += " (damaged)"
        return f"entailgen: --no-resume: starting over; the interrupted build of {output} is discarded" + (
            f" with {held}" if held else "")
    reason = other or "stopped before its first checkpoint"
    return f"entailgen: the interrupted build of {output} {reason}; starting over" + (
        f", discarding {held}" if held else "")


def _differ(parts: str) -> str:
    """'lr differs', 'epochs, lr differ'."""
    return f"{parts} {'differ' if ', ' in parts else 'differs'}"


def fit(dataset: str | Sequence[str], output: str, options: TrainOptions, *, accelerator=None) -> Optional[dict]:
    """Train on the train split of one dataset or a mix of several, keep the best epoch by dev accuracy, write the
    model dir; a checkpoint of the same recipe in output is gone on from. Returns train.json (None in the other
    processes of a launch: the main one writes)."""
    import torch
    from transformers import get_linear_schedule_with_warmup

    options.check()
    datasets = [dataset] if isinstance(dataset, str) else list(dataset)
    if not datasets:
        raise DatasetError("no dataset to train on")
    where = [d.rstrip("/") if "://" in d else os.path.realpath(d) for d in datasets]
    twice = next((d for i, d in enumerate(datasets) if where[i] in where[:i]), None)
    if twice is not None:  # its rows would count twice: a weight the user did not ask for
        raise DatasetError(f"{twice} is given twice; give each dataset once (--mix weighs them)")
    opened = [open_dataset(d) for d in datasets]
    manifests = [manifest for manifest, _ in opened]
    task = training_task([t for _, t in opened], options.task)
    for name, manifest in zip(datasets, manifests):
        if options.train_split not in manifest["splits"]:
            raise DatasetError(f"{name} has no {options.train_split!r} split to train on "
                               f"(splits: {', '.join(sorted(manifest['splits']))})")
    if options.mix:
        check_mix(options.mix, len(datasets))
    sizes = [sum(e["rows"] for e in m["shards"] if e["split"] == options.train_split) for m in manifests]
    total = min(sum(sizes), options.max_examples) if options.max_examples else sum(sizes)
    drawn = quotas(sizes, options.mix or sizes, total)  # rows each dataset gives an epoch
    if options.mix:
        check_quotas(datasets, sizes, drawn, options.mix)
    if accelerator is None:
        accelerator = accelerator_for(options.device, options.mixed_precision, options.grad_accum)
    device, main, world = accelerator.device, accelerator.is_main_process, accelerator.num_processes
    recipe = recipe_of(*_provenance(datasets), options, world)  # as given: lr None stays auto
    started = time.time()
    torch.manual_seed(options.seed)
    if not options.progress or not sys.stderr.isatty():  # --quiet, or a log: no "Loading weights" bar either
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    encoder, tokenizer = load_encoder(options.encoder)
    check_max_length(options.max_length, encoder, tokenizer)
    if options.lr is None:
        options = dataclasses.replace(options, lr=auto_lr(encoder))
    lacking_3way: dict = {}  # some rows keep a 3-way label and some not: train.json says how many lack one
    if task == PAIR:  # 2-way unless every row keeps a 3-way label (or --three-way)
        vocab, label_rows, lacking = pair_labels(datasets, options.train_split, options.three_way)
        if 0 < sum(lacking.values()) < label_rows:
            lacking_3way = {"without_3way_label": {"rows": label_rows, "lacking": sum(lacking.values()),
                                                   **dict(sorted(lacking.items()))}}
    elif options.three_way:
        raise DatasetError("--three-way is for the pair model; the DAE arc model labels arcs entailed or not")
    else:
        vocab = vocabulary(datasets, task, options.train_split)
    record_types = [m["record_type"] for m in manifests]
    meta = {"task": task, "record_type": ", ".join(sorted(set(record_types))), "max_length": options.max_length,
            "max_arcs": options.max_arcs, "encoder_source": options.encoder,
            "relations" if task == DAE else "labels": vocab,
            "label_names": ["not_entailed", "entailed"] if task == DAE else vocab}
    torch.manual_seed(options.seed)
    model = build_model(task, encoder, len(vocab)).to(device).train()
    # the authors' AdamW; fused: one kernel for the whole update, not one per parameter tensor
    optimizer = torch.optim.AdamW(model.parameters(), lr=options.lr, weight_decay=0.0, eps=1e-8, fused=True)
    featurize = featurizer(task, tokenizer, meta, options.max_arcs)
    pad_id = tokenizer.pad_token_id or 0

    def examples(record, counts: Counter, notes: Counter) -> list:
        """What a row gives the model: itself (dae arcs, recast pairs) or its pairs (transforms.views)."""
        return [record] if task == DAE else pair_examples(record, options.claims_view, options.seed, counts, notes)

    dev_counts: Counter = Counter()  # every dataset's dev split, whole, as one dev set
    dev_examples = ((0, e) for d, m in zip(datasets, manifests) if options.dev_split in m["splits"]
                    for r in records(d, options.dev_split) for e in examples(r, dev_counts, Counter()))
    dev = [f for _, f in _featurized(dev_examples, task, featurize, [dev_counts], [Counter()])]
    dev.sort(key=lambda f: len(f.input_ids))  # like lengths batched together: the same accuracy, less padding
    # rows bound the steps (some are left out); a claims row makes up to two pairs in the source view
    rows = sum(q * pairs_per_row(t, options.claims_view) for q, t in zip(drawn, record_types))
    # the authors' schedule: linear decay to 0 over the run, no warm-up
    steps = updates_per_epoch(rows, options.batch_size, world, options.grad_accum) * options.epochs
    scheduler = get_linear_schedule_with_warmup(optimizer, 0, max(1, steps))
    model, optimizer = accelerator.prepare(model, optimizer)
    accelerator.register_for_checkpointing(scheduler)
    run = {"epoch": 0, "rounds": 0, "step": 0, "losses": [], "dev_curve": [], "best": None, "train_s": 0.0,
           "elapsed_s": 0.0, "resumed": []}
    best_weights = None
    found = latest(output)
    if found:
        run = load(accelerator, found, recipe, output)["run"]
        best_weights = load_best(output, run["best"]["weights"]) if main and run["best"] else None
        run["resumed"].append({"epoch": run["epoch"] + 1, "step": run["step"]})
        if main and options.progress:
            print(f"entailgen train: going on from the checkpoint at epoch {run['epoch'] + 1} of {options.epochs}, "
                  f"step {run['step']} ({found})", file=sys.stderr, flush=True)
    first_epoch, first_rounds, before_s = run["epoch"], run["rounds"], run["elapsed_s"]
    counts: list = []
    # the bar counts examples trained (rows sit in the shuffle buffer long before their step), up to the bound
    bar = progress_bar(rows * options.epochs, f"train {task}", options.progress and main)
    bar.update(rows * first_epoch)
    for epoch in range(first_epoch, options.epochs):
        epoch_started, trained_before, paused = time.perf_counter(), run["train_s"], 0.0
        epoch_counts = [Counter() for _ in datasets]
        notes = [Counter() for _ in datasets]  # sampled negatives, truncated premises: pairs made, not left out
        stream = training_stream(datasets, sizes, drawn, options.train_split)
        expanded = ((i, e) for i, r in stream for e in examples(r, epoch_counts[i], notes[i]))
        rng = random.Random(f"{options.seed}:{epoch}")
        read = _featurized(shuffled(expanded, options.shuffle_buffer, rng), task, featurize, epoch_counts, notes)
        batches_ = bucketed((f for _, f in read), options.batch_size, options.bucket_batches, rng)
        pending: list = []
        for i, (batch, trained, last) in enumerate(shares(batches_, world, accelerator.process_index)):
            if epoch == first_epoch and i < first_rounds:
                bar.update(trained)
                continue  # trained before the checkpoint: read again only to reach the same place in the stream
            sync = last or (i + 1) % options.grad_accum == 0
            tensors = collate(batch, pad_id)
            with contextlib.nullcontext() if sync else accelerator.no_sync(model):
                logits = model(**to_device(tensors, device)).float()  # autocast: Accelerate's, by --mixed-precision
                loss = loss_of(task, logits, tensors["labels"].to(device))
                accelerator.backward(loss)  # divided by --grad-accum
            pending.append(loss.detach())
            if sync:
                value = _mean_loss(accelerator, pending)
                pending = []
                stop_if_not_finite(value, run["step"] + 1, epoch)
                accelerator.clip_grad_norm_(model.parameters(), options.grad_clip)
                optimizer.step()
                if not accelerator.optimizer_step_was_skipped:  # fp16: a step the loss scaler skipped
                    scheduler.step()
                optimizer.zero_grad()
                run["step"] += 1
                run["losses"].append(round(value, 4))
                bar.set_postfix(epoch=epoch + 1, loss=f"{run['losses'][-1]:.4f}")
            bar.update(trained)
            if sync and not last and run["step"] % options.checkpoint_every == 0:
                run.update(epoch=epoch, rounds=i + 1, elapsed_s=before_s + time.time() - started,
                           train_s=trained_before + time.perf_counter() - epoch_started - paused)
                paused += save(accelerator, output, {"recipe": recipe, "run": run})
        bar.update(rows * (epoch + 1) - bar.n)  # rows left out and negatives not found: the epoch is done
        run["train_s"] = trained_before + time.perf_counter() - epoch_started - paused
        counts = epoch_counts  # every epoch sees the same rows; the last epoch's counts stand for all
        if not sum(counts, Counter())["used"]:
            raise DatasetError(f"no usable training example in {', '.join(datasets)} "
                               f"({_counts(sum(counts, Counter()))})")
        if main:  # the main process judges the epochs and writes the model
            best_weights = _judge(run, best_weights, accelerator.unwrap_model(model), task, dev, options, pad_id,
                                  device, epoch, output)
        run.update(epoch=epoch + 1, rounds=0, elapsed_s=before_s + time.time() - started)
        if epoch + 1 < options.epochs:
            save(accelerator, output, {"recipe": recipe, "run": run})
    bar.close()
    accelerator.wait_for_everyone()
    if not main:
        _leave(accelerator)
        return None
    model = accelerator.unwrap_model(model)
    if not all(bool(t.isfinite().all()) for t in best_weights.values() if t.is_floating_point()):
        raise ValueError(f"training gave non-finite weights (--lr {options.lr} is too large?); nothing written")
    model.load_state_dict(best_weights)
    clear(output)
    save_model(output, model, tokenizer, meta)
    best = run["best"]
    used = [{"path": d, "pipeline": m.get("pipeline"), "record_type": m["record_type"],
             "manifest_sha256": manifest_sha256(d), "split_rows": n, "weight": options.mix[i] if options.mix else None,
             "rows_used": q, "counts": _counts(c), **dict(sorted(notes[i].items()))}
            for i, (d, m, n, q, c) in enumerate(zip(datasets, manifests, sizes, drawn, counts))]
    one = len(used) == 1  # the dataset keys hold one value per dataset: a value for one, a list for several
    train_s = run["train_s"]
    summary = {
        "task": task, "dataset": datasets[0] if one else datasets,
        "dataset_pipeline": used[0]["pipeline"] if one else [u["pipeline"] for u in used],
        "dataset_manifest_sha256": used[0]["manifest_sha256"] if one else [u["manifest_sha256"] for u in used],
        "datasets": used, "options": dataclasses.asdict(options), "processes": world,
        "device": "cpu" if device.type == "cpu" else str(device),  # a launch's cpu:0 is the cpu
        "counts": {"train": _counts(sum(counts, Counter())), "dev": _counts(dev_counts)},
        "vocabulary_size": len(vocab), "best_epoch": best["epoch"], "dev_accuracy": run["dev_curve"],
        **lacking_3way,
        "dev_classes": dev_classes(_read_of(best["read"]), meta["label_names"]),
        "steps": run["step"], "loss_curve": run["losses"], "elapsed_s": round(before_s + time.time() - started, 1),
        "train_s": round(train_s, 1),
        "examples_per_s": round(sum(c["used"] for c in counts) * options.epochs / train_s, 1),
        **({"resumed": run["resumed"]} if run["resumed"] else {}),
    }
    with open(os.path.join(output, TRAIN_JSON), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
    write_card(output)
    _leave(accelerator)
    return summary


def _judge(run: dict, best_weights, model, task: str, dev: list, options: TrainOptions, pad_id: int, device,
           epoch: int, output: str):
    """The epoch's dev accuracy into run's curve; the epoch kept as best when it beats the best so far (no dev
    accuracy: the last epoch), its weights kept beside the checkpoints while epochs remain. Returns the best weights."""
    best = run["best"]
    if dev:
        dev_acc, read = dev_read(model, task, dev, options.batch_size, pad_id, device)
    else:
        dev_acc, read = None, _read_of(best["read"]) if best else {"gold": Counter(), "predicted": Counter()}
    run["dev_curve"].append(dev_acc)
    if dev_acc is None or best is None or dev_acc > best["accuracy"]:
        best_weights = {k: v.detach().clone() for k, v in model.state_dict().items()}
        run["best"] = {"epoch": epoch + 1, "accuracy": dev_acc if dev_acc is not None else -1.0,
                       "read": {k: sorted(v.items()) for k, v in read.items()},
                       "weights": save_best(output, best_weights, epoch + 1) if epoch + 1 < options.epochs else None}
    return best_weights


def _read_of(saved: dict) -> dict:
    """A dev read's label counts as dev_read gives them, from their JSON form in a checkpoint ([index, n] pairs)."""
    return {k: Counter({int(i): n for i, n in v}) for k, v in saved.items()}


def _mean_loss(accelerator, losses: list) -> float:
    """The step's loss: the mean of its batches' (several with --grad-accum), over every process."""
    import torch

    value = losses[0] if len(losses) == 1 else torch.stack(losses).mean()
    if accelerator.num_processes > 1:
        value = accelerator.reduce(value, "mean")
    return value.item()


def _leave(accelerator) -> None:
    """A launched process's group ended once its work is done (torch warns of one left open)."""
    import torch.distributed as dist

    if accelerator.num_processes > 1 and dist.is_initialized():
        dist.destroy_process_group()


def _featurized(examples: Iterable, task: str, featurize, counts: list, notes: list) -> Iterator:
    """(dataset index, Features) of each usable example; the others counted by reason in counts[index], premises cut
    to fit counted in notes[index]."""
    for index, example in examples:
        features = usable(task, featurize(example), counts[index])
        if features is not None:
            if features.truncated:
                notes[index]["truncated"] += 1
            yield index, features


def _counts(counts: Counter) -> dict:
    """Read, used and each reason an example was left out."""
    return {"read": sum(counts.values()), **dict(sorted(counts.items()))}
