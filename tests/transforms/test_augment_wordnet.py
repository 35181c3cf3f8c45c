"""WordNet from Debian's dict files through NLTK: the nltk_data tree, the generated lexnames, real synonyms."""
import os

import pytest

from entailgen.transforms.augment.synonym import is_close_paraphrase, substitution_sites
from entailgen.transforms.augment.wordnet import (
    DEBIAN_WORDNET, WORDNET_FILES, TableLexicon, WordNetConfig, WordNetMissing, lexnames_text, load_wordnet,
    nltk_wordnet_tree, wordnet_synonyms)

HAVE_WORDNET = all(os.path.isfile(os.path.join(DEBIAN_WORDNET, f)) for f in WORDNET_FILES)
needs_wordnet = pytest.mark.skipif(not HAVE_WORDNET, reason="Debian wordnet-base + wordnet-sense-index not installed")


@pytest.fixture(scope="module")
def wordnet(tmp_path_factory):
    """WordNet 3.0 loaded once for this module (a few seconds)."""
    return load_wordnet(WordNetConfig(cache_dir=str(tmp_path_factory.mktemp("wordnet"))))


def test_lexnames_lists_the_45_lexicographer_files_in_order():
    lines = lexnames_text().splitlines()
    assert len(lines) == 45
    assert lines[0] == "00\tadj.all\t3" and lines[3] == "03\tnoun.Tops\t1" and lines[44] == "44\tadj.ppl\t3"
    assert lines[29] == "29\tverb.body\t2"


def test_missing_dict_files_say_how_to_install_them(tmp_path):
    with pytest.raises(WordNetMissing, match="apt-get install wordnet-base wordnet-sense-index"):
        nltk_wordnet_tree(str(tmp_path / "nowhere"), str(tmp_path / "cache"))


def test_tree_is_built_once_with_the_files_and_lexnames(tmp_path):
    dict_dir = tmp_path / "dict"
    dict_dir.mkdir()
    for name in WORDNET_FILES:
        (dict_dir / name).write_text(f"contents of {name}\n")
    root = nltk_wordnet_tree(str(dict_dir), str(tmp_path / "cache"))
    assert root == str(tmp_path / "cache" / "corpora" / "wordnet")
    assert sorted(os.listdir(root)) == sorted(WORDNET_FILES + ("lexnames",))
    assert open(os.path.join(root, "index.noun")).read() == "contents of index.noun\n"
    assert open(os.path.join(root, "lexnames")).read() == lexnames_text()
    (dict_dir / "index.noun").write_text("changed\n")
    assert nltk_wordnet_tree(str(dict_dir), str(tmp_path / "cache")) == root  # already built: reused as is
    assert open(os.path.join(root, "index.noun")).read() == "contents of index.noun\n"


def test_table_lexicon_looks_up_lemma_and_pos():
    synonyms = TableLexicon(((("Car", "NOUN"), ("auto", "automobile")),)).load()
    assert synonyms("car", "NOUN") == ("auto", "automobile") and synonyms("car", "VERB") == ()


@needs_wordnet
def test_generated_lexnames_name_the_synsets_files(wordnet):
    assert wordnet.get_version() == "3.0"
    assert wordnet.synset("dog.n.01").lexname() == "noun.animal"
    assert wordnet.synset("buy.v.01").lexname() == "verb.possession"


@needs_wordnet
def test_wordnet_synonyms_come_from_the_first_senses(wordnet):
    first = wordnet_synonyms(wordnet, senses=1)
    assert first("buy", "VERB") == ("purchase",)
    assert first("car", "NOUN") == ("auto", "automobile", "machine", "motorcar")
    assert first("big", "ADJ") == ("large",)
    assert first("car", "PROPN") == ()
    assert wordnet_synonyms(wordnet, senses=3)("buy", "VERB") == ("bribe", "corrupt", "purchase")


@needs_wordnet
def test_wordnet_drives_the_synonym_augmentations(wordnet, parse):
    synonyms = wordnet_synonyms(wordnet)
    x = parse("The boy bought a car.")
    assert substitution_sites(x, synonyms) == [(4, "auto"), (4, "automobile"), (4, "machine"), (4, "motorcar")]
    assert is_close_paraphrase(x, parse("The boy purchased a car."), synonyms)
