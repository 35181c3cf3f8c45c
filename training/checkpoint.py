"""A trained model's directory: model.safetensors, config.json (entailgen task + encoder config), tokenizer files."""
from __future__ import annotations

import json
import os

from entailgen.training.encoder import EncoderError

WEIGHTS = "model.safetensors"
CONFIG = "config.json"


def save_model(directory: str, model, tokenizer, meta: dict) -> None:
    """Write the weights (tensor order fixed, no timestamps: same weights, same bytes), config and tokenizer."""
    from safetensors.torch import save_file

    os.makedirs(directory, exist_ok=True)
    state = {name: tensor.detach().cpu().contiguous().clone() for name, tensor in sorted(model.state_dict().items())}
    save_file(state, os.path.join(directory, WEIGHTS), metadata={"format": "pt"})
    tokenizer.save_pretrained(directory)
    config = {"entailgen": meta, "encoder": model.encoder.config.to_dict()}
    with open(os.path.join(directory, CONFIG), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2, sort_keys=True)


def load_meta(directory: str) -> dict:
    """The entailgen part of a model directory's config (task, relations, labels, limits)."""
    path = os.path.join(directory, CONFIG)
    try:
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
        return config["entailgen"] | {"encoder_config": config["encoder"]}
    except (OSError, ValueError, KeyError):
        raise EncoderError(f"{directory} is not an entailgen model (no readable {CONFIG} written by `entailgen train`)")


def load_trained(directory: str, device: str = "cpu"):
    """(model in eval mode, tokenizer, meta) of a directory written by save_model; safetensors only."""
    from safetensors.torch import load_file
    from transformers import AutoTokenizer

    from entailgen.training.encoder import encoder_from_config
    from entailgen.training.models import build_model

    from entailgen.transforms.generate.model_dir import copy_to_local, is_remote

    if is_remote(directory):
        directory = copy_to_local(directory)
    meta = load_meta(directory)
    if not os.path.isfile(os.path.join(directory, WEIGHTS)):
        raise EncoderError(f"{directory} has no {WEIGHTS}")
    encoder = encoder_from_config(meta["encoder_config"])
    n_out = len(meta["relations"]) if meta["task"] == "dae" else len(meta["labels"])
    model = build_model(meta["task"], encoder, n_out)
    model.load_state_dict(load_file(os.path.join(directory, WEIGHTS)))
    tokenizer = AutoTokenizer.from_pretrained(directory, trust_remote_code=False)
    return model.to(device).eval(), tokenizer, meta
