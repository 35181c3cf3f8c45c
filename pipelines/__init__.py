"""Corpus families, one module each; a family's build wires transforms together and nothing more."""
from __future__ import annotations

import importlib

from entailgen.pipelines.base import Family

FAMILY_MODULES = {
    "parse": "entailgen.pipelines.parse",
    "dae": "entailgen.pipelines.dae",
    "recast": "entailgen.pipelines.recast",
    "nli-dialogue": "entailgen.pipelines.nli_dialogue",
    "claims": "entailgen.pipelines.claims",
    "document-arcs": "entailgen.pipelines.document_arcs",
    "paraphrase": "entailgen.pipelines.paraphrase",
}


def available() -> list[str]:
    """Family names whose module is present in this installation."""
    return [name for name, module in FAMILY_MODULES.items() if importlib.util.find_spec(module) is not None]


def get_family(name: str) -> Family:
    """The family registered under name (imported lazily: each pulls in its own heavy dependencies)."""
    if name not in available():
        raise KeyError(f"unknown pipeline {name!r}; available: {', '.join(available())}")
    return importlib.import_module(FAMILY_MODULES[name]).FAMILY
