"""The companion trainer: the DAE arc model and a sentence-pair classifier trained, evaluated and used on entailgen
datasets. Names load lazily, so reading features does not import torch or Beam."""
import importlib

# No module is named like a name it exports: once imported, a submodule `train` would shadow the function train.
_EXPORTS = {"TrainOptions": "trainer", "train": "trainer", "evaluate": "evaluation", "DaeScorer": "scorers",
            "PairScorer": "scorers", "DocumentScorer": "document_scorer", "EnsembleScorer": "document_scorer",
            "Detector": "detector"}


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"entailgen.training.{_EXPORTS[name]}"), name)
    raise AttributeError(name)


__all__ = list(_EXPORTS)
