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
from typing import Iterator, Optional, Sequence

from entailgen.schemas.reader import manifest_sha256
from entailgen.training.fitting.batches import bucketed, counts_of, featurized
from entailgen.training.fitting.checkpoint import save_model
from entailgen.training.fitting.data import (DatasetError, check_mix, check_quotas, featurizer, open_dataset,
                                             pair_labels, quotas, records, shuffled, training_stream, vocabulary)
from entailgen.training.fitting.dev import dev_classes, judge, read_of
from entailgen.training.fitting.encoder import load_encoder
from entailgen.training.fitting.features import collate
from entailgen.training.fitting.model_card import write_card
from entailgen.training.fitting.models import DAE, PAIR, build_model, loss_of, to_device
from entailgen.training.fitting.options import TrainOptions
from entailgen.training.fitting.processes import accelerator_for, shares, updates_per_epoch
from entailgen.training.fitting.resume import (check_resume, clear, has_checkpoint, latest, load, load_best,
                                               recipe_of, save)
from entailgen.transforms.views import pair_examples, pairs_per_row

TRAIN_JSON = "train.json"


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
    from entailgen.dataset.publish import publish, read_marker  # alone runs without Beam, where Beam is not installed

    check_output(output, MODEL_DIR, overwrite=overwrite)  # before the data is read and the encoder loads
    recipe = recipe_of(*_provenance(dataset), options, accelerator.num_processes)
    partial = sibling(output, PARTIAL)
    start_over = check_resume(output, partial, read_marker(partial) if os.path.isdir(partial) else {}, recipe, resume)
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


@dataclass(frozen=True)
class _Draw:
    """What each epoch draws its rows from: the datasets with their manifests, the task they train, each one's train
    rows and the rows it gives an epoch (its quota)."""

    datasets: list
    manifests: list
    task: str
    sizes: list
    drawn: list

    @property
    def record_types(self) -> list:
        return [m["record_type"] for m in self.manifests]


@dataclass(frozen=True)
class _Fitting:
    """What every epoch of one fit trains with."""

    draw: _Draw
    options: TrainOptions
    accelerator: object
    model: object
    optimizer: object
    scheduler: object
    featurize: object
    pad_id: int
    recipe: dict
    output: str
    bar: object
    elapsed: object  # seconds since the run began, those before a resume included


def fit(dataset: str | Sequence[str], output: str, options: TrainOptions, *, accelerator=None) -> Optional[dict]:
    """Train on the train split of one dataset or a mix of several, keep the best epoch by dev accuracy, write the
    model dir; a checkpoint of the same recipe in output is gone on from. Returns train.json (None in the other
    processes of a launch: the main one writes)."""
    import torch

    options.check()
    draw = _draw([dataset] if isinstance(dataset, str) else list(dataset), options)
    if accelerator is None:
        accelerator = accelerator_for(options.device, options.mixed_precision, options.grad_accum)
    main = accelerator.is_main_process
    recipe = recipe_of(*_provenance(draw.datasets), options, accelerator.num_processes)  # as given: lr None stays auto
    started = time.time()
    torch.manual_seed(options.seed)
    encoder, tokenizer, options = _encoder(options)
    vocab, lacking_3way = _labels(draw, options)
    meta = {"task": draw.task, "record_type": ", ".join(sorted(set(draw.record_types))),
            "max_length": options.max_length, "max_arcs": options.max_arcs, "encoder_source": options.encoder,
            "relations" if draw.task == DAE else "labels": vocab,
            "label_names": ["not_entailed", "entailed"] if draw.task == DAE else vocab}
    torch.manual_seed(options.seed)
    model = build_model(draw.task, encoder, len(vocab)).to(accelerator.device).train()
    featurize = featurizer(draw.task, tokenizer, meta, options.max_arcs)
    dev, dev_counts = _dev_set(draw, options, featurize)
    # rows bound the steps (some are left out); a claims row makes up to two pairs in the source view
    rows = sum(q * pairs_per_row(t, options.claims_view) for q, t in zip(draw.drawn, draw.record_types))
    model, optimizer, scheduler = _optimized(accelerator, model, options, rows)
    run, best_weights = _go_on(accelerator, output, recipe, options)
    # the bar counts examples trained (rows sit in the shuffle buffer long before their step), up to the bound
    bar = progress_bar(rows * options.epochs, f"train {draw.task}", options.progress and main)
    bar.update(rows * run["epoch"])
    before_s = run["elapsed_s"]
    fitting = _Fitting(draw, options, accelerator, model, optimizer, scheduler, featurize, tokenizer.pad_token_id or 0,
                       recipe, output, bar, lambda: before_s + time.time() - started)
    first_epoch, first_rounds, counts = run["epoch"], run["rounds"], []
    for epoch in range(first_epoch, options.epochs):
        counts, notes = _train_epoch(fitting, run, epoch, first_rounds if epoch == first_epoch else 0, rows)
        if main:  # the main process judges the epochs and writes the model
            best_weights = judge(run, best_weights, accelerator.unwrap_model(model), draw.task, dev, options,
                                 fitting.pad_id, accelerator.device, epoch, output)
        run.update(epoch=epoch + 1, rounds=0, elapsed_s=fitting.elapsed())
        if epoch + 1 < options.epochs:
            save(accelerator, output, {"recipe": recipe, "run": run})
    bar.close()
    accelerator.wait_for_everyone()
    if not main:
        _leave(accelerator)
        return None
    _write_model(accelerator.unwrap_model(model), best_weights, options, output, tokenizer, meta)
    summary = _summary(fitting, run, counts, notes, dev_counts, vocab, lacking_3way, meta)
    with open(os.path.join(output, TRAIN_JSON), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
    write_card(output)
    _leave(accelerator)
    return summary


def _draw(datasets: list, options: TrainOptions) -> _Draw:
    """The datasets checked (each once, with a train split, a --mix that fits them) and the rows each gives an epoch."""
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
    return _Draw(datasets, manifests, task, sizes, drawn)


def _encoder(options: TrainOptions):
    """(encoder, tokenizer, options with the lr auto_lr picks for it when none was given)."""
    if not options.progress or not sys.stderr.isatty():  # --quiet, or a log: no "Loading weights" bar either
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    encoder, tokenizer = load_encoder(options.encoder)
    check_max_length(options.max_length, encoder, tokenizer)
    if options.lr is None:
        options = dataclasses.replace(options, lr=auto_lr(encoder))
    return encoder, tokenizer, options


def _labels(draw: _Draw, options: TrainOptions) -> tuple[list, dict]:
    """The labels the model tells apart (relations of arcs, or pair labels: 2-way unless every row keeps a 3-way
    label, or --three-way), and train.json's count of rows without a 3-way label where only some keep one."""
    if draw.task != PAIR:
        if options.three_way:
            raise DatasetError("--three-way is for the pair model; the DAE arc model labels arcs entailed or not")
        return vocabulary(draw.datasets, draw.task, options.train_split), {}
    vocab, label_rows, lacking = pair_labels(draw.datasets, options.train_split, options.three_way)
    if not 0 < sum(lacking.values()) < label_rows:
        return vocab, {}
    return vocab, {"without_3way_label": {"rows": label_rows, "lacking": sum(lacking.values()),
                                          **dict(sorted(lacking.items()))}}


def _examples(record, task: str, options: TrainOptions, counts: Counter, notes: Counter) -> list:
    """What a row gives the model: itself (dae arcs, recast pairs) or its pairs (transforms.views)."""
    return [record] if task == DAE else pair_examples(record, options.claims_view, options.seed, counts, notes,
                                                        options.max_length)


def _dev_set(draw: _Draw, options: TrainOptions, featurize) -> tuple[list, Counter]:
    """Every dataset's dev split, whole, as one dev set sorted by length (like lengths batched together: the same
    accuracy, less padding), and its counts."""
    counts: Counter = Counter()
    examples = ((0, e) for d, m in zip(draw.datasets, draw.manifests) if options.dev_split in m["splits"]
                for r in records(d, options.dev_split) for e in _examples(r, draw.task, options, counts, Counter()))
    dev = [f for _, f in featurized(examples, draw.task, featurize, [counts], [Counter()])]
    dev.sort(key=lambda f: len(f.input_ids))
    return dev, counts


def _optimized(accelerator, model, options: TrainOptions, rows: int):
    """(model, optimizer, scheduler) prepared by Accelerate: the authors' AdamW (fused: one kernel for the whole
    update, not one per parameter tensor) and their schedule, a linear decay to 0 over the run, no warm-up."""
    import torch
    from transformers import get_linear_schedule_with_warmup

    optimizer = torch.optim.AdamW(model.parameters(), lr=options.lr, weight_decay=0.0, eps=1e-8, fused=True)
    steps = updates_per_epoch(rows, options.batch_size, accelerator.num_processes, options.grad_accum) * options.epochs
    scheduler = get_linear_schedule_with_warmup(optimizer, 0, max(1, steps))
    model, optimizer = accelerator.prepare(model, optimizer)
    accelerator.register_for_checkpointing(scheduler)
    return model, optimizer, scheduler


def _go_on(accelerator, output: str, recipe: dict, options: TrainOptions) -> tuple[dict, Optional[dict]]:
    """The run's state (position, curves, best epoch) and best weights: a new run's, or the last checkpoint's with
    the model, optimizer, schedule and RNG put back."""
    run = {"epoch": 0, "rounds": 0, "step": 0, "losses": [], "dev_curve": [], "best": None, "train_s": 0.0,
           "elapsed_s": 0.0, "resumed": []}
    found = latest(output)
    if not found:
        return run, None
    main = accelerator.is_main_process
    run = load(accelerator, found, recipe, output)["run"]
    best_weights = load_best(output, run["best"]["weights"]) if main and run["best"] else None
    run["resumed"].append({"epoch": run["epoch"] + 1, "step": run["step"]})
    if main and options.progress:
        print(f"entailgen train: going on from the checkpoint at epoch {run['epoch'] + 1} of {options.epochs}, "
              f"step {run['step']} ({found})", file=sys.stderr, flush=True)
    return run, best_weights


def _train_epoch(f: _Fitting, run: dict, epoch: int, skip_rounds: int, rows: int) -> tuple[list, list]:
    """One epoch's steps (its first skip_rounds rounds trained before the checkpoint gone on from: read again only to
    reach the same place in the stream), a checkpoint every --checkpoint-every steps; returns each dataset's counts
    and notes (sampled negatives, truncated premises: pairs made, not left out)."""
    options, accelerator, model, device = f.options, f.accelerator, f.model, f.accelerator.device
    epoch_started, trained_before, paused = time.perf_counter(), run["train_s"], 0.0
    counts, notes = [Counter() for _ in f.draw.datasets], [Counter() for _ in f.draw.datasets]
    pending: list = []
    for i, (batch, trained, last) in enumerate(_rounds(f, epoch, counts, notes)):
        if i < skip_rounds:
            f.bar.update(trained)
            continue
        sync = last or (i + 1) % options.grad_accum == 0
        tensors = collate(batch, f.pad_id)
        with contextlib.nullcontext() if sync else accelerator.no_sync(model):
            logits = model(**to_device(tensors, device)).float()  # autocast: Accelerate's, by --mixed-precision
            loss = loss_of(f.draw.task, logits, tensors["labels"].to(device))
            accelerator.backward(loss)  # divided by --grad-accum
        pending.append(loss.detach())
        if sync:
            _optimizer_step(f, run, pending, epoch)
            pending = []
        f.bar.update(trained)
        if sync and not last and run["step"] % options.checkpoint_every == 0:
            run.update(epoch=epoch, rounds=i + 1, elapsed_s=f.elapsed(),
                       train_s=trained_before + time.perf_counter() - epoch_started - paused)
            paused += save(accelerator, f.output, {"recipe": f.recipe, "run": run})
    f.bar.update(rows * (epoch + 1) - f.bar.n)  # rows left out and negatives not found: the epoch is done
    run["train_s"] = trained_before + time.perf_counter() - epoch_started - paused
    if not sum(counts, Counter())["used"]:
        raise DatasetError(f"no usable training example in {', '.join(f.draw.datasets)} "
                           f"({counts_of(sum(counts, Counter()))})")
    return counts, notes


def _rounds(f: _Fitting, epoch: int, counts: list, notes: list) -> Iterator:
    """This process's batch of each round of the epoch's seeded stream (processes.shares), its rows counted."""
    options = f.options
    stream = training_stream(f.draw.datasets, f.draw.sizes, f.draw.drawn, options.train_split)
    expanded = ((i, e) for i, r in stream for e in _examples(r, f.draw.task, options, counts[i], notes[i]))
    rng = random.Random(f"{options.seed}:{epoch}")
    read = featurized(shuffled(expanded, options.shuffle_buffer, rng), f.draw.task, f.featurize, counts, notes)
    batches = bucketed((feat for _, feat in read), options.batch_size, options.bucket_batches, rng)
    return shares(batches, f.accelerator.num_processes, f.accelerator.process_index)


def _optimizer_step(f: _Fitting, run: dict, pending: list, epoch: int) -> None:
    """The step the pending batches' gradients make (clipped), its loss (their mean over every process) recorded."""
    value = _mean_loss(f.accelerator, pending)
    stop_if_not_finite(value, run["step"] + 1, epoch)
    f.accelerator.clip_grad_norm_(f.model.parameters(), f.options.grad_clip)
    f.optimizer.step()
    if not f.accelerator.optimizer_step_was_skipped:  # fp16: a step the loss scaler skipped
        f.scheduler.step()
    f.optimizer.zero_grad()
    run["step"] += 1
    run["losses"].append(round(value, 4))
    f.bar.set_postfix(epoch=epoch + 1, loss=f"{run['losses'][-1]:.4f}")


def _write_model(model, best_weights: dict, options: TrainOptions, output: str, tokenizer, meta: dict) -> None:
    """The best epoch's weights written as the model dir, its checkpoints gone (non-finite ones refused)."""
    if not all(bool(t.isfinite().all()) for t in best_weights.values() if t.is_floating_point()):
        raise ValueError(f"training gave non-finite weights (--lr {options.lr} is too large?); nothing written")
    model.load_state_dict(best_weights)
    clear(output)
    save_model(output, model, tokenizer, meta)


def _summary(f: _Fitting, run: dict, counts: list, notes: list, dev_counts: Counter, vocab: list, lacking_3way: dict,
             meta: dict) -> dict:
    """train.json: what was trained from (each dataset's rows, counts and notes), with which options, where, and how
    it went (dev accuracy by epoch, the kept epoch, the loss curve, the time)."""
    options, draw, device, best = f.options, f.draw, f.accelerator.device, run["best"]
    used = [{"path": d, "pipeline": m.get("pipeline"), "record_type": m["record_type"],
             "manifest_sha256": manifest_sha256(d), "split_rows": n, "weight": options.mix[i] if options.mix else None,
             "rows_used": q, "counts": counts_of(c), **dict(sorted(notes[i].items()))}
            for i, (d, m, n, q, c) in enumerate(zip(draw.datasets, draw.manifests, draw.sizes, draw.drawn, counts))]
    one = len(used) == 1  # the dataset keys hold one value per dataset: a value for one, a list for several
    train_s = run["train_s"]
    return {
        "task": draw.task, "dataset": draw.datasets[0] if one else draw.datasets,
        "dataset_pipeline": used[0]["pipeline"] if one else [u["pipeline"] for u in used],
        "dataset_manifest_sha256": used[0]["manifest_sha256"] if one else [u["manifest_sha256"] for u in used],
        "datasets": used, "options": dataclasses.asdict(options), "processes": f.accelerator.num_processes,
        "device": "cpu" if device.type == "cpu" else str(device),  # a launch's cpu:0 is the cpu
        "counts": {"train": counts_of(sum(counts, Counter())), "dev": counts_of(dev_counts)},
        "vocabulary_size": len(vocab), "best_epoch": best["epoch"], "dev_accuracy": run["dev_curve"],
        **lacking_3way,
        "dev_classes": dev_classes(read_of(best["read"]), meta["label_names"]),
        "steps": run["step"], "loss_curve": run["losses"], "elapsed_s": round(f.elapsed(), 1),
        "train_s": round(train_s, 1),
        "examples_per_s": round(sum(c["used"] for c in counts) * options.epochs / train_s, 1),
        **({"resumed": run["resumed"]} if run["resumed"] else {}),
    }


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



