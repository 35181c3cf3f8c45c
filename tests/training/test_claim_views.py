"""Claims rows as pairs (transforms.views) with the 3-way labels their making says, dae rows at sentence level, and
pair premises cut to fit: worked by hand."""
import random
from collections import Counter

import pytest
from transformers import AutoTokenizer

from entailgen.schemas.records import ArcExample, ClaimExample, LabelledArc, RtePair
from entailgen.training.scoring import evaluation
from entailgen.training.fitting.features import TOO_LONG, pair_features
from entailgen.transforms.views import Pair, claim_pairs, content_words, pair_examples, sentence_label

BLOCKS = ["Acme opened a factory in Leeds on Monday.", "Its chief executive lives in York.",
          "Rain is expected this weekend."]
SWAPPED = "Acme opened a factory in York on Monday."  # entity swap of Leeds with the document's other GPE


def claim(text=SWAPPED, label="INCORRECT", source=BLOCKS[0], transformation="entity_swap", block_index=None,
          blocks=BLOCKS):
    return ClaimExample(
        id=f"c:{text}", document_id="d1", premise=" ".join(blocks), blocks=list(blocks), granularity="sentence",
        claim=text, label=label, entailment="entailed" if label == "CORRECT" else "not-entailed",
        transformation=transformation, source_sentence=source, backtranslation=False, noise=False, source="news.jsonl",
        source_id="news.jsonl:1", claim_span=[25, 29] if transformation == "entity_swap" else None,
        source_span=[25, 30] if transformation == "entity_swap" else None, block_index=block_index)


class Last:
    """An rng stub that picks the last candidate, so a test can say which block was sampled."""

    def choice(self, items):
        return items[-1]


def test_content_words_leave_out_stop_words_and_punctuation():
    assert content_words(SWAPPED) == {"acme", "opened", "factory", "york", "monday"}
    assert content_words(BLOCKS[1]) == {"chief", "executive", "lives", "york"}


def test_document_view_is_the_whole_document_with_the_claims_label():
    assert claim_pairs(claim(), "document", random.Random(0)) == [
        (" ".join(BLOCKS), SWAPPED, "not-entailed", "contradiction")]  # a swap contradicts its source


def test_source_view_of_an_entity_swap_pairs_the_source_sentence_and_one_unrelated_block():
    notes = Counter()
    # block 1 mentions York (a content word of the claim): never a negative; block 2 shares no content word
    assert claim_pairs(claim(), "source", random.Random(0), notes) == [
        (BLOCKS[0], SWAPPED, "not-entailed", "contradiction"), (BLOCKS[2], SWAPPED, "not-entailed", "neutral")]
    assert notes == {"negatives": 1}


def test_the_contradicted_view_also_pairs_the_block_an_entity_swaps_changed_span_contradicts():
    # Leeds -> York at [25, 30) of the source / [25, 29) of the claim; block 1 still says Leeds and "factory"
    document = [BLOCKS[0], "The Leeds factory will employ 200 people.", "Rain is expected this weekend."]
    notes = Counter()
    assert claim_pairs(claim(blocks=document), "contradicted", Last(), notes) == [
        (BLOCKS[0], SWAPPED, "not-entailed", "contradiction"), (document[1], SWAPPED, "not-entailed", "contradiction"),
        (document[2], SWAPPED, "not-entailed", "neutral")]
    assert notes == {"contradicted": 1, "negatives": 1}
    # a block naming both cities, or Leeds with none of the claim's other content words, contradicts nothing; the
    # second shares no content word with the claim (leeds is the replaced word, not the claim's), so it is the negative
    document = [BLOCKS[0], "Acme moved the factory from Leeds to York.", "Leeds won the match."]
    notes = Counter()
    assert claim_pairs(claim(blocks=document), "contradicted", Last(), notes) == [
        (BLOCKS[0], SWAPPED, "not-entailed", "contradiction"), (document[2], SWAPPED, "not-entailed", "neutral")]
    assert notes == {"negatives": 1}
    # the source view leaves the contradicted block out: it is no negative either, as it shares "factory"
    document = [BLOCKS[0], "The Leeds factory will employ 200 people.", "Rain is expected this weekend."]
    assert claim_pairs(claim(blocks=document), "source", Last(), Counter()) == [
        (BLOCKS[0], SWAPPED, "not-entailed", "contradiction"), (document[2], SWAPPED, "not-entailed", "neutral")]
    # a CORRECT claim has no changed span to contradict: the Leeds block shares "factory", so only Rain is sampled
    document = [BLOCKS[0], "The Leeds factory will employ 200 people.", "Rain is expected this weekend."]
    notes = Counter()
    assert claim_pairs(claim(BLOCKS[0], "CORRECT", transformation="sentence_sampling", blocks=document),
                       "contradicted", Last(), notes) == [
        (BLOCKS[0], BLOCKS[0], "entailed", "entailment"), (document[2], BLOCKS[0], "not-entailed", "neutral")]
    assert notes == {"negatives": 1}


def test_a_claim_without_source_sentence_takes_its_best_matching_block():
    summary = claim("A factory in Leeds was opened by Acme.", "CORRECT", source="", transformation="summary")
    notes = Counter()
    # overlap with the blocks: {acme, opened, factory, leeds} = 4, then 0 and 0; both other blocks are unrelated
    assert claim_pairs(summary, "source", Last(), notes) == [
        (BLOCKS[0], "A factory in Leeds was opened by Acme.", "entailed", "entailment"),
        (BLOCKS[2], "A factory in Leeds was opened by Acme.", "not-entailed", "neutral")]
    assert notes == {"negatives": 1}


def test_no_negative_when_every_other_block_shares_a_content_word():
    notes = Counter()
    related = ["Acme opened a factory in Leeds on Monday.", "Acme is based in York.", "The factory cost millions."]
    assert claim_pairs(claim(blocks=related), "source", Last(), notes) == [
        (related[0], SWAPPED, "not-entailed", "contradiction")]
    assert notes == {"no_negative_block": 1}


def test_negatives_are_seeded_by_the_record_id_and_block_rows_are_left_out():
    summary = claim("A factory in Leeds was opened by Acme.", "CORRECT", source="", transformation="summary")
    runs = [pair_examples(summary, "source", 0, Counter(), Counter()) for _ in range(2)]
    assert runs[0] == runs[1] and runs[0][1].premise in BLOCKS[1:] and isinstance(runs[0][0], Pair)
    counts = Counter()
    assert pair_examples(claim(block_index=0), "source", 0, counts, Counter()) == []
    assert counts == {"block_row": 1}


def arc_row(labels, label=None):
    arcs = [LabelledArc(1, 0, "nsubj", "see", "dog", labels[0])] + [
        LabelledArc(1, 2, "dobj", "see", "cat", e) for e in labels[1:]]
    return ArcExample("a", "the dog sees the cat", "the dog sees a cat", ["the", "dog", "sees", "a", "cat"], arcs,
                      "bottom", "toy", "toy", "toy:1", label=label)


def test_dae_rows_become_sentence_pairs_by_the_rule_evaluation_uses():
    assert evaluation.sentence_label is sentence_label  # one rule for training and for evaluate's sentence level
    counts = Counter()
    made = [pair_examples(arc_row(labels, label), "source", 0, counts, Counter())
            for labels, label in [([1, None], None), ([1, None, 0], None), ([None, None], None), ([0, 0], 1)]]
    assert made == [[Pair("the dog sees the cat", "the dog sees a cat", "entailed", "entailment")],
                    [Pair("the dog sees the cat", "the dog sees a cat", "not-entailed")],  # bottom: no 3-way label
                    [],  # no labelled arc: left out, counted
                    [Pair("the dog sees the cat", "the dog sees a cat", "entailed", "entailment")]]  # its own label
    assert counts == {"no_labelled_arcs": 1}
    rte = RtePair("p", "a man", "a woman", "not-entailed", "toy", "t", "toy", "toy:1")
    assert pair_examples(rte, "source", 0, Counter(), Counter()) == [rte]


@pytest.fixture
def tokenizer(tiny_encoder):
    return AutoTokenizer.from_pretrained(tiny_encoder)


def test_a_long_premise_is_cut_to_fit_and_only_a_hypothesis_too_long_alone_is_refused(tokenizer):
    premise, hypothesis = " ".join(["the dog sees a cat"] * 10), "a man likes a park"  # 50 + 5 words, 1 piece each
    short = pair_features(tokenizer, "the dog sees a cat", hypothesis, 1, max_length=16)
    assert len(short.input_ids) == 13 and not short.truncated
    cut = pair_features(tokenizer, premise, hypothesis, 1, max_length=16)
    # [CLS] 8 premise pieces [SEP] 5 hypothesis pieces [SEP]: the premise side alone is cut
    assert cut.truncated and len(cut.input_ids) == 16 and cut.label == 1
    assert tokenizer.decode(cut.input_ids) == "[CLS] the dog sees a cat the dog sees [SEP] a man likes a park [SEP]"
    assert cut.token_type_ids == [0] * 10 + [1] * 6
    assert pair_features(tokenizer, "the dog", " ".join(["a man likes a park"] * 3), 1, max_length=16) == TOO_LONG


def test_packed_view_reads_the_source_in_its_documents_context_but_never_beside_what_the_swap_put_in():
    """The swap's claim says York: block 2 ("... lives in York.") could support it, so it is kept out (counted); the
    rain block (none of the claim's words) fills the room, in document order; the sampled negative is as the source
    view's. A CORRECT claim packs the whole document; a short model takes the source alone."""
    counts = Counter()
    assert claim_pairs(claim(), "packed", Last(), counts) == [
        (f"{BLOCKS[0]} {BLOCKS[2]}", SWAPPED, "not-entailed", "contradiction"),
        (BLOCKS[2], SWAPPED, "not-entailed", "neutral")]
    assert counts["context_kept_out"] == 1
    correct = claim(BLOCKS[0], "CORRECT", transformation="sentence_sampling")
    assert claim_pairs(correct, "packed", Last())[0].premise == " ".join(BLOCKS)
    # max length 24 tokens: 18 words, 8 of them the claim's: the source (8 words) alone fits
    assert claim_pairs(correct, "packed", Last(), max_length=24)[0].premise == BLOCKS[0]
