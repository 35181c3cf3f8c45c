"""A training run's checkpoints, inside the model's build folder: model, optimizer, scheduler and RNG (Accelerate's
save_state) with the data position, loss and dev curves and the best epoch so far, every N steps and at each epoch's
end, so a killed `entailgen train` goes on from the last one; the finished model dir holds none of them."""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
from typing import Optional, Sequence

from entailgen.training.fitting.checkpoint import file_sha256

CHECKPOINTS = "checkpoints"  # under the build folder (the model dir being written)
STATE = "trainer_state.json"  # written last into a checkpoint: a folder without it is one a kill cut short
WRITING = ".writing-"  # a checkpoint being written; renamed to step-N once complete
RECIPE_LAYOUT = 1
NOT_RECIPE = ("progress", "checkpoint_every")  # options that change no weight


class CheckpointError(ValueError):
    """A checkpoint that cannot be resumed from (damaged, or another recipe's): one line, nothing deleted."""


def recipe_of(datasets: Sequence[str], manifests_sha256: Sequence[str], options, processes: int) -> dict:
    """What the weights are made from: the datasets (path and manifest sha256), every option that changes a weight,
    and the number of processes (a resumed run must be the same recipe to give the same model)."""
    chosen = {k: v for k, v in dataclasses.asdict(options).items() if k not in NOT_RECIPE}
    recipe = {"layout": RECIPE_LAYOUT, "datasets": list(datasets), "manifests_sha256": list(manifests_sha256),
              "options": chosen, "processes": processes}
    return json.loads(json.dumps(recipe))  # as a marker or a state file reads back (tuples as lists)


def recipe_difference(old: dict, new: dict) -> str:
    """The parts of two recipes that differ, in words: 'lr, epochs' or 'datasets'."""
    parts = [k for k in ("datasets", "manifests_sha256", "processes", "layout") if old.get(k) != new.get(k)]
    options_old, options_new = old.get("options") or {}, new.get("options") or {}
    parts += [k.replace("_", "-") for k in sorted(set(options_old) | set(options_new))
              if options_old.get(k) != options_new.get(k)]
    return ", ".join(parts) or "the recipe"


def check_resume(output: str, partial: str, left: dict, recipe: dict, resume: Optional[bool]) -> Optional[str]:
    """Before the build starts, in one line: --resume without an interrupted training of this recipe to go on from
    (or one that holds no complete checkpoint: killed before its first), and a damaged checkpoint of this recipe that would be gone on from
    (unless --no-resume). Returns the line an interrupted build (its marker: left) not gone on from is discarded
    with: why, and what it held (None: gone on from, or nothing there)."""
    model = left.get("kind") == "model dir"
    parts = recipe_difference(left.get("recipe") or {}, recipe) if model else "its kind"
    other = None if left.get("recipe") == recipe else f"trained another recipe ({_differ(parts)})"
    found = latest(partial) if left else None
    if resume and not left:
        raise ValueError(f"--resume: no interrupted training of {output} to resume")
    if resume and other:
        raise ValueError(f"--resume: the interrupted build of {output} {other}; leave out --resume to start over")
    if resume and not found:
        raise ValueError(f"--resume: the interrupted build of {output} holds no complete checkpoint to go on from; "
                         "leave out --resume to start over")
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
    reason = other or "holds no complete checkpoint"
    return f"entailgen: the interrupted build of {output} {reason}; starting over" + (
        f", discarding {held}" if held else "")


def _differ(parts: str) -> str:
    """'lr differs', 'epochs, lr differ'."""
    return f"{parts} {'differ' if ', ' in parts else 'differs'}"


def _root(folder: str) -> str:
    return os.path.join(folder, CHECKPOINTS)


def latest(folder: str) -> Optional[str]:
    """The newest complete checkpoint under a build folder (one whose state file was written), or None."""
    root = _root(folder)
    if not os.path.isdir(root):
        return None
    done = sorted(name for name in os.listdir(root)
                  if name.startswith("step-") and os.path.isfile(os.path.join(root, name, STATE)))
    return os.path.join(root, done[-1]) if done else None


def has_checkpoint(folder: str) -> bool:
    """Whether a build folder holds a complete checkpoint to resume from."""
    return latest(folder) is not None


def save(accelerator, folder: str, state: dict) -> float:
    """Every process: Accelerate's state (model, optimizer, scheduler, each process's RNG) in a folder renamed
    step-N once complete with the trainer's state and each file's sha256; older checkpoints then removed. Returns the
    seconds it took (not training time)."""
    import time

    started = time.perf_counter()
    root = _root(folder)
    name = f"step-{state['run']['step']:08d}"
    writing = os.path.join(root, WRITING + name)
    if accelerator.is_main_process:
        shutil.rmtree(writing, ignore_errors=True)  # a write a kill cut short: ours, incomplete
        os.makedirs(writing)
    accelerator.wait_for_everyone()
    accelerator.save_state(writing)
    accelerator.wait_for_everyone()
    if accelerator.is_main_process:
        files = {f: file_sha256(os.path.join(writing, f)) for f in sorted(os.listdir(writing))}
        best = (state['run'].get('best') or {}).get('weights')
        if best:
            files["../" + best] = file_sha256(os.path.join(root, best))
        with open(os.path.join(writing, STATE), "w", encoding="utf-8") as f:
            json.dump({**state, "files": files}, f, indent=1)
        final = os.path.join(root, name)
        shutil.rmtree(final, ignore_errors=True)
        os.rename(writing, final)
        for other in os.listdir(root):  # the older checkpoints and best weights no checkpoint names any more
            if other != name and other != best:
                path = os.path.join(root, other)
                shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    accelerator.wait_for_everyone()
    return time.perf_counter() - started


def read_state(path: str, recipe: dict, folder: str) -> dict:
    """A checkpoint's trainer state once its files match their recorded sha256 and its recipe is this run's; else
    CheckpointError in one line (the checkpoint is left as it is)."""
    again = f"move {folder} away to train from the start"
    try:
        with open(os.path.join(path, STATE), encoding="utf-8") as f:
            state = json.load(f)
        files = dict(state["files"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise CheckpointError(f"the checkpoint {path} is damaged ({STATE} unreadable: {e}); {again}")
    if state.get("recipe") != recipe:
        raise CheckpointError(f"the checkpoint {path} was written for another recipe "
                              f"({recipe_difference(state.get('recipe') or {}, recipe)} differ); {again}")
    for name, digest in sorted(files.items()):
        file = os.path.normpath(os.path.join(path, name))
        if not os.path.isfile(file) or file_sha256(file) != digest:
            wrong = "is missing" if not os.path.isfile(file) else "differs from its sha256"
            raise CheckpointError(f"the checkpoint {path} is damaged ({os.path.basename(file)} {wrong}); {again}")
    return state


def load(accelerator, path: str, recipe: dict, folder: str) -> dict:
    """Every process: the trainer state of a verified checkpoint, with Accelerate's state put back (model,
    optimizer, scheduler, this process's RNG)."""
    state = read_state(path, recipe, folder)
    try:
        accelerator.load_state(path)
    except (OSError, RuntimeError, ValueError, KeyError) as e:  # verified, yet not what this model can load
        raise CheckpointError(f"the checkpoint {path} cannot be loaded ({str(e).splitlines()[0]}); move {folder} "
                              "away to train from the start")
    return state


def save_best(folder: str, weights: dict, epoch: int) -> str:
    """The best epoch's weights beside the checkpoints (a name per epoch: the last checkpoint's best stays whole
    until a newer checkpoint names another); returns its name under checkpoints/."""
    from safetensors.torch import save_file

    name = f"best-epoch-{epoch}.safetensors"
    os.makedirs(_root(folder), exist_ok=True)
    save_file({k: v.detach().cpu().contiguous() for k, v in sorted(weights.items())}, os.path.join(_root(folder), name))
    return name


def load_best(folder: str, name: str) -> dict:
    """The best epoch's weights a checkpoint names (verified with it)."""
    from safetensors.torch import load_file

    return load_file(os.path.join(_root(folder), name))


def clear(folder: str) -> None:
    """The checkpoints gone: a finished model dir holds none."""
    shutil.rmtree(_root(folder), ignore_errors=True)
