"""Sub-word alignment and arc features, checked by hand on the DAE paper's Figure 3 pair."""
import logging

import pytest
from transformers import AutoTokenizer

from entailgen.schemas.records import ArcExample, LabelledArc
from entailgen.training.fitting.features import (IGNORE, NO_ARCS, TOO_LONG, arc_features, encode_pair,
                                                 last_subword_positions)

X = "can you people guarantee the liquidation of Bluestar ?"
H = ["can", "you", "guarantee", "Bluestar", "'s", "disposal", "?"]
RELATIONS = {"<unk>": 0, "nsubj": 1, "poss": 2, "dobj": 3}


def figure3(arcs):
    return ArcExample("e", X, "can you guarantee Bluestar's disposal ?", H, arcs, "gold", "gold", "t", "t:1")


def arc(head, child, rel, entailed):
    return LabelledArc(head, child, rel, H[head].lower(), H[child].lower(), entailed)


@pytest.fixture
def tokenizer(tiny_encoder):
    return AutoTokenizer.from_pretrained(tiny_encoder)


def test_figure3_wordpiece_positions_by_hand(tokenizer):
    encoding = encode_pair(tokenizer, X, H)
    # 0 [CLS] | 1 can 2 you 3 people 4 guarantee 5 the 6 liquidation 7 of 8 blue 9 ##sta 10 ##r 11 ? | 12 [SEP]
    # 13 can 14 you 15 guarantee 16 blue 17 ##sta 18 ##r 19 ' 20 s 21 dis 22 ##posal 23 ? | 24 [SEP]
    assert tokenizer.convert_ids_to_tokens(encoding["input_ids"])[13:25] == [
        "can", "you", "guarantee", "blue", "##sta", "##r", "'", "s", "dis", "##posal", "?", "[SEP]"]
    assert last_subword_positions(encoding, len(H)) == [13, 14, 15, 18, 20, 22, 23]


def test_arc_features_point_at_child_and_head_last_subwords(tokenizer):
    arcs = [arc(2, 1, "nsubj", 1), arc(5, 3, "poss", 0), arc(2, 5, "dobj", None), arc(2, 5, "acl", 1)]
    f = arc_features(tokenizer, figure3(arcs), RELATIONS)
    assert (f.child, f.head) == ([14, 18, 22, 22], [15, 22, 15, 15])
    assert f.relation == [1, 2, 3, 0]  # acl was not seen in training: <unk>
    assert f.labels == [1, 0, IGNORE, 1]
    assert f.token_type_ids[12:14] == [0, 1]


def test_a_long_premise_is_cut_to_fit_and_only_a_hypothesis_too_long_alone_is_refused(tokenizer):
    whole = arc_features(tokenizer, figure3([arc(2, 1, "nsubj", 1)]), RELATIONS, max_length=25)  # 25 tokens: fits
    assert (whole.truncated, whole.child, whole.head, whole.labels) == (False, [14], [15], [1])
    cut = arc_features(tokenizer, figure3([arc(2, 1, "nsubj", 1)]), RELATIONS, max_length=24)
    # the premise's last token ("?") cut: 0 [CLS] 1-10 premise 11 [SEP], the hypothesis one place earlier
    assert (cut.truncated, len(cut.input_ids), cut.child, cut.head, cut.labels) == (True, 24, [13], [14], [1])
    assert tokenizer.convert_ids_to_tokens(cut.input_ids)[10:13] == ["##r", "[SEP]", "can"]
    # the hypothesis alone is 11 tokens + 3 special: 14 leaves no premise token, 15 leaves one
    assert arc_features(tokenizer, figure3([arc(2, 1, "nsubj", 1)]), RELATIONS, max_length=14) == TOO_LONG
    assert len(arc_features(tokenizer, figure3([arc(2, 1, "nsubj", 1)]), RELATIONS, max_length=15).input_ids) == 15
    assert arc_features(tokenizer, figure3([]), RELATIONS) == NO_ARCS


def test_a_pair_over_the_tokenizers_limit_is_cut_without_the_tokenizers_indexing_warning(tokenizer):
    tokenizer.model_max_length = 20  # Figure 3's pair is 25 tokens: the tokenizer would warn of indexing errors
    warned, handler = [], logging.Handler()
    handler.emit = warned.append
    logging.getLogger("transformers").addHandler(handler)
    try:
        assert arc_features(tokenizer, figure3([arc(2, 1, "nsubj", 1)]), RELATIONS, max_length=20).truncated
    finally:
        logging.getLogger("transformers").removeHandler(handler)
    assert [r.getMessage() for r in warned] == []


def test_at_most_max_arcs_per_example(tokenizer):
    arcs = [arc(2, 1, "nsubj", i % 2) for i in range(25)]
    assert len(arc_features(tokenizer, figure3(arcs), RELATIONS).labels) == 20
    assert len(arc_features(tokenizer, figure3(arcs), RELATIONS, max_arcs=None).labels) == 25
