"""The companion trainer in three rooms: fitting (models trained on entailgen datasets), scoring (those models used on
pairs, documents and detectors) and benchmarks (scorers judged on human-labelled sets). Names load lazily, so reading
features does not import torch or Beam."""
import importlib
import sys
import warnings

# No module is named like a name it exports: once imported, a submodule `train` would shadow the function train.
_EXPORTS = {"TrainOptions": "fitting.trainer", "train": "fitting.trainer", "evaluate": "scoring.evaluation",
            "DaeScorer": "scoring.scorers", "PairScorer": "scoring.scorers",
            "DocumentScorer": "scoring.document_scorer", "EnsembleScorer": "scoring.document_scorer",
            "Detector": "scoring.detector", "ModelDir": "fitting.model_dir"}
# The modules' paths before the rooms: `entailgen.training.scorers` still imports, with a DeprecationWarning,
# for one release.
_MOVED = {**{m: f"fitting.{m}" for m in ("checkpoint", "data", "encoder", "features", "model_card", "models",
                                          "trainer")},
          **{m: f"scoring.{m}" for m in ("conv_fit", "detector", "document_scorer", "evaluation", "inference",
                                          "onnx_runtime", "precision", "score_modes", "scorers", "summac",
                                          "unscorable")},
          **{m: f"benchmarks.{m}" for m in ("held_out", "rank19", "true")}, "benchmark_eval": "benchmarks.summac"}


class _MovedFinder:
    """Imports `entailgen.training.<old name>` as the module it moved to (a meta path finder: plain imports work)."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        prefix, _, name = fullname.rpartition(".")
        if prefix != __name__ or name not in _MOVED:
            return None
        new = f"{__name__}.{_MOVED[name]}"
        warnings.warn(f"{fullname} moved to {new}; the old path goes in the next release", DeprecationWarning,
                      stacklevel=3)
        module = importlib.import_module(new)
        sys.modules[fullname] = module
        return module.__spec__


sys.meta_path.append(_MovedFinder())


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"entailgen.training.{_EXPORTS[name]}"), name)
    raise AttributeError(name)


__all__ = list(_EXPORTS)
