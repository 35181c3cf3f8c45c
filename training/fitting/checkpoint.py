"""A trained model's directory: model.safetensors, config.json (entailgen task + encoder config), tokenizer files,
and checksums.json (each of those files' sha256, so a damaged or incomplete dir is refused before it scores)."""
from __future__ import annotations

import hashlib
import json
import os

from entailgen.training.fitting.encoder import ModelDirError, encoder_from_config
from entailgen.schemas.files import DETECTOR_JSON
from entailgen.transforms.generate.model_dir import copy_to_local, is_remote

WEIGHTS = "model.safetensors"
CONFIG = "config.json"
CHECKSUMS = "checksums.json"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")  # a fast tokenizer; without them it silently degrades
REQUIRED = (CONFIG, WEIGHTS) + TOKENIZER_FILES  # what a dir written before checksums.json must still hold


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def file_sha256(path: str) -> str:
    """sha256 of a file, read in chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def save_model(directory: str, model, tokenizer, meta: dict) -> None:
    """Write the weights (tensor order fixed, no timestamps: same weights, same bytes), config, tokenizer and the
    sha256 of each (train.json, README.md and eval/ come later and may change, so they are not listed)."""
    from safetensors.torch import save_file

    os.makedirs(directory, exist_ok=True)
    state = {name: tensor.detach().cpu().contiguous().clone() for name, tensor in sorted(model.state_dict().items())}
    weights = os.path.join(directory, WEIGHTS)
    save_file(state, weights, metadata={"format": "pt"})
    os.chmod(weights, 0o666 & ~_umask())  # safetensors writes 0600; the model is as readable as its other files
    written = [os.path.basename(p) for p in tokenizer.save_pretrained(directory)]
    config = {"entailgen": {**meta, "checksums": CHECKSUMS}, "encoder": model.encoder.config.to_dict()}
    with open(os.path.join(directory, CONFIG), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2, sort_keys=True)
    files = sorted({WEIGHTS, CONFIG, *written})
    with open(os.path.join(directory, CHECKSUMS), "w", encoding="utf-8") as f:
        json.dump({name: file_sha256(os.path.join(directory, name)) for name in files}, f, indent=2, sort_keys=True)


def load_meta(directory: str) -> dict:
    """The entailgen part of a model directory's config (task, relations, labels, limits)."""
    path = os.path.join(directory, CONFIG)
    try:
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
        return config["entailgen"] | {"encoder_config": config["encoder"]}
    except (OSError, ValueError, KeyError, TypeError):
        if os.path.isfile(os.path.join(directory, DETECTOR_JSON)):  # a detector dir: say what opens it
            raise ModelDirError(f"{directory} is a detector dir (its members score together): open it with "
                                f"Detector({directory!r}), not as one model")
        raise ModelDirError(f"{directory} is not an entailgen model (no readable {CONFIG} written by "
                            "`entailgen train`)")


def _expected_shapes(meta: dict) -> dict:
    """Each weight's shape for the model the config describes, built on the meta device (no memory, no init)."""
    import torch

    from entailgen.training.fitting.models import build_model  # torch: the checks before it stay light for the CLI

    with torch.device("meta"):
        model = build_model(meta["task"], encoder_from_config(meta["encoder_config"]), _n_out(meta))
    return {name: tuple(t.shape) for name, t in model.state_dict().items()}


def _n_out(meta: dict) -> int:
    return len(meta["relations"]) if meta["task"] == "dae" else len(meta["labels"])


def check_weights(directory: str, meta: dict) -> None:
    """The safetensors header against the config: complete, and every tensor of the model there with its shape."""
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(os.path.join(directory, WEIGHTS), "pt") as f:
            found = {name: tuple(f.get_slice(name).get_shape()) for name in f.keys()}
    except (SafetensorError, OSError) as e:
        raise ModelDirError(f"{directory}: {WEIGHTS} is damaged or truncated ({str(e).splitlines()[0]})")
    try:
        expected = _expected_shapes(meta)
    except (KeyError, TypeError, ValueError) as e:
        raise ModelDirError(f"{directory}: {CONFIG} does not describe a model entailgen can build ({e})")
    for name, shape in sorted(expected.items()):
        if name not in found:
            raise ModelDirError(f"{directory}: {WEIGHTS} has no tensor {name}; it does not match {CONFIG}")
        if found[name] != shape:
            raise ModelDirError(f"{directory}: {WEIGHTS} has {name} of shape {list(found[name])} but {CONFIG} "
                                f"needs {list(shape)} (e.g. a different number of relations or labels)")


def verify_model_dir(directory: str) -> dict:
    """A local model dir's meta once its files are all there, match the sha256 recorded when it was trained and the
    weights fit the config; else ModelDirError naming the file and what is wrong. A dir written before checksums
    existed gets the checks that are possible without them."""
    meta = load_meta(directory)
    for name in REQUIRED:
        if not os.path.isfile(os.path.join(directory, name)):
            raise ModelDirError(f"{directory} has no {name}: not a model `entailgen train` finished")
    checksums = os.path.join(directory, CHECKSUMS)
    if os.path.isfile(checksums):
        try:
            with open(checksums, encoding="utf-8") as f:
                recorded = {str(name): str(digest) for name, digest in json.load(f).items()}
        except (OSError, ValueError, AttributeError) as e:
            raise ModelDirError(f"{directory}: {CHECKSUMS} is unreadable ({e})")
    elif meta.get("checksums"):
        raise ModelDirError(f"{directory} has no {CHECKSUMS}: its config says `entailgen train` wrote one")
    else:  # written before checksums: the checks that are possible without them
        recorded = {}
    for name, digest in sorted(recorded.items()):
        path = os.path.join(directory, name)
        if not os.path.isfile(path):
            raise ModelDirError(f"{directory} has no {name}: not a model `entailgen train` finished")
        if file_sha256(path) != digest:
            raise ModelDirError(f"{directory}: {name} differs from the sha256 recorded when it was trained "
                                f"(damaged or changed since)")
    check_weights(directory, meta)
    return meta


def load_trained(directory: str, device: str = "cpu"):
    """(model in eval mode, tokenizer, meta) of a directory written by save_model, verified first; safetensors only."""
    if is_remote(directory):
        directory = copy_to_local(directory)
    meta = verify_model_dir(directory)
    return (*load_weights(directory, meta, device), meta)


def load_weights(directory: str, meta: dict, device: str = "cpu"):
    """(model in eval mode, tokenizer) of a dir verify_model_dir already checked (model_dir.ModelDir: once)."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file
    from transformers import AutoTokenizer

    from entailgen.training.fitting.models import build_model  # torch: the checks before it stay light for the CLI

    model = build_model(meta["task"], encoder_from_config(meta["encoder_config"]), _n_out(meta))
    try:
        model.load_state_dict(load_file(os.path.join(directory, WEIGHTS)))
        tokenizer = AutoTokenizer.from_pretrained(directory, trust_remote_code=False)
    except (SafetensorError, OSError, RuntimeError, ValueError) as e:
        raise ModelDirError(f"{directory} cannot be loaded: {str(e).splitlines()[0]}")
    if not all(bool(t.isfinite().all()) for t in model.state_dict().values() if t.is_floating_point()):
        raise ModelDirError(f"{directory}: {WEIGHTS} holds nan or inf weights (damaged, or a diverged training)")
    return model.to(device).eval(), tokenizer
