"""WordNet 3.0 from Debian's wordnet-base + wordnet-sense-index, loaded through NLTK without nltk.download().

NLTK's reader expects an nltk_data tree (`corpora/wordnet/`) holding the dictionary files and a `lexnames` file;
Debian ships the files under /usr/share/wordnet but no `lexnames`. We build the tree in a private cache dir and write
`lexnames` ourselves (the 45 lexicographer files are fixed by WordNet 3.0's lexnames(5WN)). The files are copied
(36 MB, once), not symlinked: NLTK 3.10's path sandbox resolves symlinks and refuses any that leave the corpus root, and
it only reads corpora under a root registered on `nltk.data.path`, so the cache dir is registered there.
"""
from __future__ import annotations

import functools
import os
import shutil
import tempfile
from dataclasses import dataclass
from typing import Callable, Optional

from entailgen.schemas.ids import content_id
from entailgen.transforms.io.paths import user_cache

DEBIAN_WORDNET = "/usr/share/wordnet"
# Files NLTK's WordNetCorpusReader opens (lexnames aside, which we write).
WORDNET_FILES = (
    "cntlist.rev", "index.sense", "index.adj", "index.adv", "index.noun", "index.verb",
    "data.adj", "data.adv", "data.noun", "data.verb", "adj.exc", "adv.exc", "noun.exc", "verb.exc",
)
# WordNet 3.0 lexicographer files in number order, with their syntactic category (1 noun, 2 verb, 3 adj, 4 adv).
LEXNAMES = (
    ("adj.all", 3), ("adj.pert", 3), ("adv.all", 4), ("noun.Tops", 1), ("noun.act", 1), ("noun.animal", 1),
    ("noun.artifact", 1), ("noun.attribute", 1), ("noun.body", 1), ("noun.cognition", 1), ("noun.communication", 1),
    ("noun.event", 1), ("noun.feeling", 1), ("noun.food", 1), ("noun.group", 1), ("noun.location", 1),
    ("noun.motive", 1), ("noun.object", 1), ("noun.person", 1), ("noun.phenomenon", 1), ("noun.plant", 1),
    ("noun.possession", 1), ("noun.process", 1), ("noun.quantity", 1), ("noun.relation", 1), ("noun.shape", 1),
    ("noun.state", 1), ("noun.substance", 1), ("noun.time", 1), ("verb.body", 2), ("verb.change", 2),
    ("verb.cognition", 2), ("verb.communication", 2), ("verb.competition", 2), ("verb.consumption", 2),
    ("verb.contact", 2), ("verb.creation", 2), ("verb.emotion", 2), ("verb.motion", 2), ("verb.perception", 2),
    ("verb.possession", 2), ("verb.social", 2), ("verb.stative", 2), ("verb.weather", 2), ("adj.ppl", 3),
)
# Universal POS tags (spaCy's Token.pos) -> WordNet parts of speech.
UPOS_TO_WORDNET = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}

# (lemma, universal POS) -> single-word synonyms, sorted: what the synonym augmentations need from a lexicon.
Synonyms = Callable[[str, str], tuple[str, ...]]


class WordNetMissing(FileNotFoundError):
    """The WordNet dictionary files are not where the config says."""


@dataclass(frozen=True)
class WordNetConfig:
    """Where the WordNet 3.0 dict files are, where to build the nltk_data tree, and how many senses give synonyms."""

    dict_dir: str = DEBIAN_WORDNET
    cache_dir: Optional[str] = None  # default: ~/.cache/entailgen/wordnet-<hash of dict_dir>
    senses: int = 1  # synonyms from the first (most frequent) senses only: fewer wrong-sense substitutions


def lexnames_text() -> str:
    """The contents of WordNet's `lexnames` file: number, name and category, one lexicographer file a line."""
    return "".join(f"{i:02d}\t{name}\t{category}\n" for i, (name, category) in enumerate(LEXNAMES))


def nltk_wordnet_tree(dict_dir: str = DEBIAN_WORDNET, cache_dir: Optional[str] = None) -> str:
    """Build (once) `<cache_dir>/corpora/wordnet/` from dict_dir's files plus `lexnames`; return that corpus root."""
    missing = [f for f in WORDNET_FILES if not os.path.isfile(os.path.join(dict_dir, f))]
    if missing:
        raise WordNetMissing(
            f"WordNet 3.0 files missing from {dict_dir}: {', '.join(missing)}. Install them with "
            "`apt-get install wordnet-base wordnet-sense-index` or point WordNetConfig.dict_dir at a WordNet dict dir.")
    cache_dir = cache_dir or default_cache_dir(dict_dir)
    target = os.path.join(cache_dir, "corpora", "wordnet")
    if os.path.isfile(os.path.join(target, "lexnames")):
        return target
    os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".wordnet-", dir=os.path.dirname(target))
    for name in WORDNET_FILES:
        shutil.copyfile(os.path.join(dict_dir, name), os.path.join(staging, name))
    if os.path.isfile(os.path.join(dict_dir, "lexnames")):
        shutil.copyfile(os.path.join(dict_dir, "lexnames"), os.path.join(staging, "lexnames"))
    else:
        with open(os.path.join(staging, "lexnames"), "w", encoding="utf-8") as fp:
            fp.write(lexnames_text())
    try:
        os.rename(staging, target)  # atomic: a concurrent worker sees the whole tree or none of it
    except OSError:  # another process renamed its copy first: use that one
        shutil.rmtree(staging, ignore_errors=True)
        if not os.path.isfile(os.path.join(target, "lexnames")):
            raise
    return target


def default_cache_dir(dict_dir: str) -> str:
    """A per-dict-dir cache in the user cache, so every worker on a machine (and every run) builds the tree once."""
    return user_cache(f"wordnet-{content_id(os.path.abspath(dict_dir))}")


def load_wordnet(config: WordNetConfig = WordNetConfig()):
    """A loaded NLTK WordNetCorpusReader over the config's dict files (no downloads, no multilingual data)."""
    import warnings

    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    import nltk.data

    root = nltk_wordnet_tree(config.dict_dir, config.cache_dir)
    data_root = os.path.dirname(os.path.dirname(root))
    if data_root not in nltk.data.path:
        nltk.data.path.append(data_root)  # NLTK's sandbox reads corpora only under registered roots
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The multilingual functions")
        return WordNetCorpusReader(root, None)


def wordnet_synonyms(reader, senses: int = 1) -> Synonyms:
    """Synonyms from the lemma's first `senses` synsets of the same POS: single words, lower case, not the lemma."""

    @functools.lru_cache(maxsize=65536)
    def synonyms(lemma: str, upos: str) -> tuple[str, ...]:
        pos = UPOS_TO_WORDNET.get(upos)
        if pos is None or not lemma:
            return ()
        found = set()
        for synset in reader.synsets(lemma.lower(), pos=pos)[:senses]:
            for name in synset.lemma_names():
                if name.isalpha() and name.islower() and name != lemma.lower():
                    found.add(name)
        return tuple(sorted(found))

    return synonyms


@dataclass(frozen=True)
class WordNetLexicon:
    """A picklable recipe for WordNet synonyms, loaded on the worker (DoFn.setup), not where the pipeline is built."""

    config: WordNetConfig = WordNetConfig()

    def load(self) -> Synonyms:
        """Load WordNet (seconds, once per worker) and return its synonym lookup."""
        return wordnet_synonyms(load_wordnet(self.config), self.config.senses)


@dataclass(frozen=True)
class TableLexicon:
    """Synonyms from a fixed table ((lemma, universal POS), synonyms): a hand-made lexicon, or a test's."""

    entries: tuple[tuple[tuple[str, str], tuple[str, ...]], ...]

    def load(self) -> Synonyms:
        """The table as a synonym lookup."""
        table = {(lemma.lower(), upos): tuple(sorted(words)) for (lemma, upos), words in self.entries}
        return lambda lemma, upos: table.get((lemma.lower(), upos), ())
