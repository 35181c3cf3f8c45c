"""The dev set a training run judges each epoch on: how many labelled arcs or pairs the model gets right and how often
it predicts each label, and the epoch kept as the best so far."""
from __future__ import annotations

from collections import Counter
from typing import Optional, Sequence

from entailgen.training.fitting.features import IGNORE, collate
from entailgen.training.fitting.models import forward
from entailgen.training.fitting.processes import in_groups
from entailgen.training.fitting.resume import save_best


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


def judge(run: dict, best_weights, model, task: str, dev: list, options, pad_id: int, device, epoch: int,
          output: str):
    """The epoch's dev accuracy into run's curve; the epoch kept as best when it beats the best so far (no dev
    accuracy: the last epoch), its weights kept beside the checkpoints while epochs remain. Returns the best weights."""
    best = run["best"]
    if dev:
        dev_acc, read = dev_read(model, task, dev, options.batch_size, pad_id, device)
    else:
        dev_acc, read = None, read_of(best["read"]) if best else {"gold": Counter(), "predicted": Counter()}
    run["dev_curve"].append(dev_acc)
    if dev_acc is None or best is None or dev_acc > best["accuracy"]:
        best_weights = {k: v.detach().clone() for k, v in model.state_dict().items()}
        run["best"] = {"epoch": epoch + 1, "accuracy": dev_acc if dev_acc is not None else -1.0,
                       "read": {k: sorted(v.items()) for k, v in read.items()},
                       "weights": save_best(output, best_weights, epoch + 1) if epoch + 1 < options.epochs else None}
    return best_weights


def read_of(saved: dict) -> dict:
    """A dev read's label counts as dev_read gives them, from their JSON form in a checkpoint ([index, n] pairs)."""
    return {k: Counter({int(i): n for i, n in v}) for k, v in saved.items()}
