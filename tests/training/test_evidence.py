"""Evidence from the whole document (training.scoring.passages): a summary sentence fused from two far-apart document
sentences, worked by hand with a stub arc model, under each evidence mode; packing and chunking by token counts; the
explanation's passages rebuilt from their offsets."""
import pytest

from entailgen.schemas.records import EvidenceSpan
from entailgen.training.scoring.document_scorer import DocumentOptions, DocumentScorer
from entailgen.training.scoring.passages import arc_maxima
from entailgen.transforms.passages import Passage, chunks, joined, packed
from entailgen.transforms.views import held_words

FIRST = "Ribeiro scored early for Porto."  # the summary's subject and verb, not its object
FILLER = ["The weather was mild.", "Tickets sold out quickly.", "The coach praised the defence.",
          "Fans travelled from Lisbon.", "The stadium was full.", "Rain fell before kick-off.",
          "The referee was strict."]
NINTH = "Porto won after a late goal was scored."  # its verb and object, not its subject
SENTENCES = [FIRST, *FILLER, NINTH]
DOCUMENT = " ".join(SENTENCES)
SUMMARY = "Ribeiro scored a goal."
# the summary sentence as the stub's parse: tokens, and its content arcs (head, child, relation)
TOKENS = ["Ribeiro", "scored", "a", "goal", "."]
ARCS = [(1, 0, "nsubj"), (1, 3, "dobj")]


class ArcStub:
    """A DAE model stub: an arc is entailed (0.9) where the premise has both its words, else 0.2; the sentence score
    is the arcs' mean (DAE §3). It counts lengths in words, 20 per cell."""

    def __init__(self):
        self.calls = []

    def parse(self, premise, hypothesis):
        assert hypothesis == SUMMARY
        words = {w.strip(".,").lower() for w in premise.split()}
        arcs = [{"head": h, "child": c, "rel": r, "head_word": TOKENS[h], "child_word": TOKENS[c],
                 "entailed_probability": 0.9 if {TOKENS[h].lower(), TOKENS[c].lower()} <= words else 0.2}
                for h, c, r in ARCS]
        return {"hypothesis_tokens": TOKENS, "arcs": arcs,
                "score": round(sum(a["entailed_probability"] for a in arcs) / len(arcs), 6)}

    def __call__(self, pairs):
        self.calls.append(list(pairs))
        return [self.parse(*p)["score"] for p in pairs]

    def arcs(self, pairs):
        return [self.parse(*p) for p in pairs]

    def lengths(self, texts):
        return [len(t.split()) for t in texts]

    def room(self, hypotheses):
        return [20 - len(h.split()) for h in hypotheses]  # 16 words beside the summary sentence


def scorer(evidence, **how):
    return DocumentScorer(None, "sentence", pair_scores=ArcStub(), evidence=evidence, **how)


def test_block_mode_reads_every_arc_from_the_one_best_sentence():
    """Sentences 1 and 9 each support one arc: 0.55 each, a tie the first wins; the object's arc reads 0.2 there."""
    result = scorer("block").scored([(DOCUMENT, SUMMARY)])[0]
    assert result["sentence_scores"] == [0.55] and result["score"] == 0.55
    explained = scorer("block").explain(DOCUMENT, SUMMARY)
    (sentence,) = explained.sentences
    assert sentence.passages == [EvidenceSpan(0, len(FIRST))]  # one passage: sentence 1
    goal = next(w for w in explained.words if w.text == "goal.")
    assert [(a.rel, a.entailed_probability, a.evidence_start) for a in goal.arcs] == [("dobj", 0.2, 0)]


@pytest.mark.parametrize("evidence", ["arcs", "chunks"])
def test_each_arc_takes_its_best_passage_so_a_fused_sentence_finds_both(evidence):
    """Per arc: nsubj 0.9 from sentence 1, dobj 0.9 from sentence 9: the sentence scores their mean, 0.9."""
    result = scorer(evidence).scored([(DOCUMENT, SUMMARY)])[0]
    assert result["sentence_scores"] == [0.9] and result["score"] == 0.9
    explained = scorer(evidence).explain(DOCUMENT, SUMMARY)
    ninth = (DOCUMENT.index(NINTH), len(DOCUMENT))
    word = {w.text: w for w in explained.words}
    (subject,) = word["Ribeiro"].arcs
    (obj,) = word["goal."].arcs
    assert (subject.rel, subject.entailed_probability, obj.rel, obj.entailed_probability) == ("nsubj", 0.9, "dobj", 0.9)
    assert DOCUMENT[subject.evidence_start:subject.evidence_end].startswith(FIRST)
    assert DOCUMENT[obj.evidence_start:obj.evidence_end].endswith(NINTH)
    spans = [(p.start, p.end) for p in explained.sentences[0].passages]
    assert len(spans) == 2 and spans[0][0] == 0 and spans[1][1] == ninth[1]
    if evidence == "arcs":  # sentence blocks: the offsets rebuild each passage exactly
        assert spans == [(0, len(FIRST)), ninth]
        assert (obj.evidence_start, obj.evidence_end) == ninth


def test_packed_joins_the_two_sentences_that_hold_the_summarys_words_in_document_order():
    """Content words ribeiro, scored, goal: sentences 1 and 9 hold two each, the rest none; packed as one premise of
    two runs, every arc is entailed there; each arc names the run that holds its words."""
    stub = ArcStub()
    s = DocumentScorer(None, "sentence", pair_scores=stub, evidence="packed")
    assert s.scored([(DOCUMENT, SUMMARY)])[0]["score"] == 0.9
    assert stub.calls == [[(f"{FIRST} {NINTH}", SUMMARY)]]  # one cell: the packed passage
    explained = s.explain(DOCUMENT, SUMMARY)
    word = {w.text: w for w in explained.words}
    ninth = (DOCUMENT.index(NINTH), len(DOCUMENT))
    assert (word["Ribeiro"].arcs[0].evidence_start, word["Ribeiro"].arcs[0].evidence_end) == (0, len(FIRST))
    assert (word["goal."].arcs[0].evidence_start, word["goal."].arcs[0].evidence_end) == ninth
    assert explained.sentences[0].passages == [EvidenceSpan(0, len(FIRST)), EvidenceSpan(*ninth)]


def test_packing_takes_sentences_by_relevance_while_they_fit_and_puts_them_back_in_order():
    sentences = ["A cat sat.", "The dog barked at the cat loudly.", "Rain fell.", "The cat and the dog slept."]
    lengths, held = [3, 7, 2, 6], held_words(sentences, "The cat and dog.")
    assert held == [1, 2, 0, 2]  # "cat", "dog": sentences 2 and 4 hold both, 1 one, 3 none
    # room 13: 7 + 6 fit, then 3 more would not
    assert packed(sentences, lengths, held, room=13) == Passage(
        "The dog barked at the cat loudly. The cat and the dog slept.",
        ("The dog barked at the cat loudly.", "The cat and the dog slept."), (1, 3))
    # room 16: the cat sentence joins and runs 1-2 are one run
    assert packed(sentences, lengths, held, room=16).runs == (
        "A cat sat. The dog barked at the cat loudly.", "The cat and the dog slept.")
    assert packed(sentences, lengths, held, room=16, k=1).text == "The dog barked at the cat loudly."
    # the best sentence is taken even when it alone is too long (the scorer cuts it, counted)
    assert packed(sentences, lengths, held, room=2).text == "The dog barked at the cat loudly."
    # a sentence given first comes before any; one not allowed never comes
    assert packed(sentences, lengths, held, room=9, first=2, allowed=[0, 2, 3]).text == (
        "Rain fell. The cat and the dog slept.")


def test_chunks_fill_the_room_and_each_starts_halfway_into_the_one_before():
    sentences = ["s0.", "s1.", "s2.", "s3.", "s4.", "s5."]
    windows = [p.text for p in chunks(sentences, [4] * 6, room=12)]  # three sentences each
    assert windows == ["s0. s1. s2.", "s1. s2. s3.", "s2. s3. s4.", "s3. s4. s5."]
    assert [p.text for p in chunks(sentences, [4] * 6, room=3)] == sentences  # one each when one does not fit
    assert [p.text for p in chunks(sentences, [4] * 6, room=100)] == [" ".join(sentences)]


def test_arc_maxima_keeps_each_arcs_best_passage_and_the_mean_of_the_maxima():
    def parse(p, q):
        return {"hypothesis_tokens": TOKENS, "score": (p + q) / 2,
                "arcs": [{"head": 1, "child": 0, "rel": "nsubj", "entailed_probability": p},
                         {"head": 1, "child": 3, "rel": "dobj", "entailed_probability": q}]}
    from entailgen.training.scoring.unscorable import Unscorable
    best = arc_maxima([parse(0.9, 0.2), Unscorable("TooLong", "x"), parse(0.3, 0.8)])
    assert [(a["rel"], a["entailed_probability"], a["evidence"]) for a in best["arcs"]] == [
        ("nsubj", 0.9, 0), ("dobj", 0.8, 2)]
    assert best["score"] == pytest.approx(0.85)
    assert arc_maxima([Unscorable("TooLong", "x")]) is None
    assert joined(["a.", "b.", "c."], [2, 0]) == Passage("a. c.", ("a.", "c."), (0, 2))


def test_by_default_an_arc_model_reads_each_arc_at_its_best_sentence_and_a_pair_model_or_conv_head_its_best_block():
    """The default (the whole-document trial's val pick) is arcs: the fused sentence scores 0.9, not block's 0.55; a
    model without arcs keeps the block x sentence matrix (3 cells, not one row), as a Conv head needs."""
    default = DocumentScorer(None, "sentence", pair_scores=ArcStub())
    assert default.evidence_mode == "arcs" and default.scored([(DOCUMENT, SUMMARY)])[0]["score"] == 0.9

    def pair_stub(pairs):
        return [0.8 if "Porto" in p else 0.1 for p, _ in pairs]

    pair = DocumentScorer(None, "sentence", pair_scores=pair_stub)
    assert pair.evidence_mode == "block" and len(pair.matrix(DOCUMENT, SUMMARY)) == len(SENTENCES)
    assert DocumentOptions(aggregation="conv", conv_dir="head").evidence == "block"
    assert DocumentOptions().evidence == "arcs" and DocumentOptions(evidence="block").evidence == "block"


def test_evidence_options_are_checked_in_one_line():
    with pytest.raises(ValueError, match="unknown evidence 'all'; choose one of block, arcs, packed, chunks"):
        DocumentOptions(evidence="all").check()
    with pytest.raises(ValueError, match="--evidence packed packs the document's sentences: it takes --granularity"):
        DocumentOptions(granularity="2sents", evidence="packed").check()
    with pytest.raises(ValueError, match="--top-k N"):
        DocumentOptions(evidence="arcs", top_k=3).check()


def test_the_page_marks_every_passage_a_fused_sentence_drew_on():
    """Sentence 1 and sentence 9 both marked in the document (block mode would mark sentence 1 alone); each arc's
    hover says where in the document it was read."""
    from dataclasses import asdict

    from entailgen.dataset.report.explain_page import arc_title, marked_document

    for evidence, marked in (("arcs", [FIRST, NINTH]), ("block", [FIRST])):
        explained = scorer(evidence).explain(DOCUMENT, SUMMARY)
        page = marked_document(DOCUMENT, [asdict(s) for s in explained.sentences])
        assert [part.split("</mark>")[0] for part in page.split("<mark>")[1:]] == marked
    goal = next(w for w in scorer("arcs").explain(DOCUMENT, SUMMARY).words if w.text == "goal.")
    start = DOCUMENT.index(NINTH)
    assert arc_title([asdict(a) for a in goal.arcs]) == (
        f"scored -dobj-> goal: P(entailed) 0.90 (document {start}-{start + len(NINTH)})")
