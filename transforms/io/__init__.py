"""Input readers: each input format's units -> source records (schemas/sources.py) or DeadLetters, nothing lost.

Names load lazily, so a module that needs only `transforms.io.paths` (the parser, the scorers) imports no Beam."""
import importlib

_EXPORTS = {"DEAD": "base", "ReaderConfig": "base", "detokenize": "base", "CHUNKED": "formats", "FORMATS": "formats",
            "detect_format": "formats", "detect_format_of": "formats", "reader_for": "formats", "ReadInputs": "read",
            "read_file": "read", "texts_of": "texts"}


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"entailgen.transforms.io.{_EXPORTS[name]}"), name)
    raise AttributeError(name)


__all__ = list(_EXPORTS)
