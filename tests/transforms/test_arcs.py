"""Arc extraction on hand-worked parses: preposition collapse (spaCy and UD styles), conjuncts, excluded relations."""
from entailgen.schemas.records import Token
from entailgen.transforms.arcs import arc_keys, children_of, extract_arcs, span_of


def toks(*rows):
    """Tokens from (text, lemma, head, dep) rows; head -1 is the root."""
    return [Token(text, lemma, "X", "X", "O", head, dep) for text, lemma, head, dep in rows]


def keys(tokens):
    return {(a.head_lemma, a.child_lemma, a.rel) for a in extract_arcs(tokens)}


# DAE Figure 3 input, spaCy-style basic parse: "can you people guarantee the liquidation of Bluestar ?"
FIGURE3_SPACY = toks(("can", "can", 3, "aux"), ("you", "you", 2, "nmod"), ("people", "people", 3, "nsubj"),
                     ("guarantee", "guarantee", -1, "ROOT"), ("the", "the", 5, "det"),
                     ("liquidation", "liquidation", 3, "dobj"), ("of", "of", 5, "prep"),
                     ("Bluestar", "Bluestar", 6, "pobj"), ("?", "?", 3, "punct"))


def test_spacy_preposition_is_collapsed_into_the_relation():
    assert keys(FIGURE3_SPACY) == {("people", "you", "nmod"), ("guarantee", "people", "nsubj"),
                                   ("guarantee", "liquidation", "dobj"), ("liquidation", "bluestar", "prep:of")}


def test_collapsed_arc_points_from_head_to_object_by_index():
    (collapsed,) = [a for a in extract_arcs(FIGURE3_SPACY) if a.rel == "prep:of"]
    assert (collapsed.head, collapsed.child) == (5, 7)


def test_ud_case_marker_moves_into_nmod_label():
    # UD: "liquidation of Bluestar" -> Bluestar nmod-> liquidation, of case-> Bluestar
    tokens = toks(("guarantee", "guarantee", -1, "root"), ("the", "the", 2, "det"),
                  ("liquidation", "liquidation", 0, "obj"), ("of", "of", 4, "case"), ("Bluestar", "Bluestar", 2, "nmod"))
    assert keys(tokens) == {("guarantee", "liquidation", "obj"), ("liquidation", "bluestar", "nmod:of")}


def test_ud_oblique_gets_its_preposition_too():
    # "She sat on the mat": mat obl-> sat, on case-> mat
    tokens = toks(("She", "she", 1, "nsubj"), ("sat", "sit", -1, "root"), ("on", "on", 4, "case"),
                  ("the", "the", 4, "det"), ("mat", "mat", 1, "obl"))
    assert keys(tokens) == {("sit", "she", "nsubj"), ("sit", "mat", "obl:on")}


def test_conjunct_shares_the_head_of_the_first_conjunct():
    # "Cats and dogs sleep"
    tokens = toks(("Cats", "cat", 3, "nsubj"), ("and", "and", 0, "cc"), ("dogs", "dog", 0, "conj"),
                  ("sleep", "sleep", -1, "ROOT"))
    assert keys(tokens) == {("sleep", "cat", "nsubj"), ("cat", "and", "cc"), ("cat", "dog", "conj"),
                            ("sleep", "dog", "nsubj")}


def test_conjunct_of_a_prepositional_object_gets_the_collapsed_relation():
    # "talked about cats and dogs"
    tokens = toks(("talked", "talk", -1, "ROOT"), ("about", "about", 0, "prep"), ("cats", "cat", 1, "pobj"),
                  ("and", "and", 2, "cc"), ("dogs", "dog", 2, "conj"))
    assert {("talk", "cat", "prep:about"), ("talk", "dog", "prep:about")} <= keys(tokens)
    assert not any(rel in ("prep", "pobj") for _, _, rel in keys(tokens))


def test_preposition_without_object_keeps_its_arc():
    # "the cat came in": "in" is a particle-like prep with no object
    tokens = toks(("the", "the", 1, "det"), ("cat", "cat", 2, "nsubj"), ("came", "come", -1, "ROOT"),
                  ("in", "in", 2, "prep"))
    assert keys(tokens) == {("come", "cat", "nsubj"), ("come", "in", "prep")}


def test_excluded_relations_are_dropped():
    # "The deal was signed because it is cheap ." has det, auxpass, mark, cop-like and punct arcs
    tokens = toks(("The", "the", 1, "det"), ("deal", "deal", 3, "nsubjpass"), ("was", "be", 3, "auxpass"),
                  ("signed", "sign", -1, "ROOT"), ("because", "because", 7, "mark"), ("it", "it", 7, "nsubj"),
                  ("is", "be", 7, "cop"), ("cheap", "cheap", 3, "advcl"), (".", ".", 3, "punct"))
    assert keys(tokens) == {("sign", "deal", "nsubjpass"), ("cheap", "it", "nsubj"), ("sign", "cheap", "advcl")}


def test_arc_keys_is_the_set_d_of_a_sentence():
    assert arc_keys(extract_arcs(FIGURE3_SPACY)) == frozenset(keys(FIGURE3_SPACY))


def test_real_parse_of_the_dae_figure3_input(parse):
    sentence = parse("can you people guarantee the liquidation of Bluestar ?")
    assert ("liquidation", "bluestar", "prep:of") in arc_keys(sentence.arcs)
    assert ("guarantee", "liquidation", "dobj") in arc_keys(sentence.arcs)
    assert not {rel for _, _, rel in arc_keys(sentence.arcs)} & {"det", "punct", "aux", "prep", "pobj"}


def test_ud_passive_auxiliary_and_unspecified_dep_are_dropped():
    # UD: "The deal was signed , well" with was aux:pass-> signed and an unclassifiable "well" dep-> signed
    tokens = toks(("The", "the", 1, "det"), ("deal", "deal", 3, "nsubj:pass"), ("was", "be", 3, "aux:pass"),
                  ("signed", "sign", -1, "root"), (",", ",", 5, "punct"), ("well", "well", 3, "dep"))
    assert keys(tokens) == {("sign", "deal", "nsubj:pass")}


def test_upper_case_prepositions_are_lower_cased_in_the_relation():
    # A headline "Talks About Cats In Paris": spaCy-style prep About, UD-style case In
    spacy_style = toks(("Talks", "talk", -1, "ROOT"), ("About", "about", 0, "prep"), ("Cats", "cat", 1, "pobj"))
    assert keys(spacy_style) == {("talk", "cat", "prep:about")}
    ud_style = toks(("Cats", "cat", -1, "root"), ("In", "in", 2, "case"), ("Paris", "Paris", 0, "nmod"))
    assert keys(ud_style) == {("cat", "paris", "nmod:in")}


def test_the_tree_helpers_find_dependents_and_contiguous_subtrees():
    """Figure 3's parse: "the liquidation of Bluestar" hangs whole from liquidation; a gapped subtree has no span."""
    assert children_of(FIGURE3_SPACY) == {-1: [3], 3: [0, 2, 5, 8], 2: [1], 5: [4, 6], 6: [7]}
    assert (span_of(FIGURE3_SPACY, 5), span_of(FIGURE3_SPACY, 2), span_of(FIGURE3_SPACY, 3)) == ((4, 8), (1, 3), (0, 9))
    gapped = toks(("old", "old", 2, "amod"), ("saw", "see", -1, "ROOT"), ("man", "man", 1, "nsubj"))
    assert span_of(gapped, 2) is None and span_of(gapped, 0) == (0, 1)
