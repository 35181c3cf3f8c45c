"""The companion trainer: the DAE arc model and a sentence-pair classifier trained, evaluated and used on entailgen
datasets. Names load lazily, so reading features does not import torch or Beam."""
_EXPORTS = {"TrainOptions": "train", "train": "train", "evaluate": "evaluate", "DaeScorer": "score"}


def __getattr__(name):
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(f"entailgen.training.{_EXPORTS[name]}"), name)
    raise AttributeError(name)


__all__ = list(_EXPORTS)
