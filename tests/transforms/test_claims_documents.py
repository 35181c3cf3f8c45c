"""The claims family's inputs and premise blocks: document readers (FactCC, CNN/DM, XSum, labelled sets, plain text)
and SummaC granularity on a document parsed by hand."""
import json

import pytest

from entailgen.schemas.records import DeadLetter, Token
from entailgen.schemas.sources import Document, LabelledClaim
from entailgen.transforms.claims.blocks import blocks_of, document_text, paragraphs, sentences_of
from entailgen.transforms.io import FORMATS, ReaderConfig


def read(fmt, text, config=ReaderConfig()):
    return list(FORMATS[fmt](iter(text.encode().splitlines(keepends=True)), "f", config))


def test_every_document_layout_and_the_labelled_sets_are_read_by_their_fields():
    lines = [{"id": "a1", "text": "One.\n\nTwo."}, {"article": "Art.", "highlights": "H1.\nH2."},
             {"document": "Doc.", "summary": "Sum."}, {"id": 7, "text": "T.", "claim": "C.", "label": "INCORRECT"},
             {"document": "D.", "claim": "K.", "label": "correct"}]
    got = read("documents", "\n".join(json.dumps(line) for line in lines) + "\n")
    assert got == [Document("f:1", "f", "One.\n\nTwo.", None, "a1"), Document("f:2", "f", "Art.", "H1.\nH2."),
                   Document("f:3", "f", "Doc.", "Sum."), LabelledClaim("f:4", "f", "T.", "C.", "INCORRECT", "7"),
                   LabelledClaim("f:5", "f", "D.", "K.", "CORRECT")]


def test_bad_lines_are_dead_letters_and_documents_have_their_own_length_limit():
    text = ('{"text": "' + "x" * 1500 + '"}\n{"id": 1}\n{"text": "T.", "claim": "C.", "label": "maybe"}\n'
            '{"text": "' + "y" * 60 + '"}\n')
    got = read("documents-jsonl", text, ReaderConfig(max_chars=1000, max_document_chars=50))
    assert [type(r).__name__ for r in got] == ["DeadLetter"] * 4
    assert [r.error_type for r in got] == ["TooLong", "MissingField", "BadLabel", "TooLong"]
    assert read("documents-jsonl", '{"text": "' + "x" * 1500 + '"}\n')[0].text == "x" * 1500


def test_plain_text_is_one_document_per_blank_line_separated_block():
    got = read("documents", "First line\nof one.\n\n\n  \nSecond doc.\n\nThird\n")
    assert got == [Document("f:1", "f", "First line\nof one."), Document("f:6", "f", "Second doc."),
                   Document("f:8", "f", "Third")]
    bad = list(FORMATS["documents-text"](iter([b"ok\n", b"\n", b"\xff\n"]), "f", ReaderConfig()))
    assert bad[0] == Document("f:1", "f", "ok") and isinstance(bad[1], DeadLetter)
    assert bad[1].error_type == "BadEncoding" and bad[1].source_id == "f:3"


def tok(text, head, space=True):
    return Token(text, text, "X", "", "O", head, "", space)


def test_paragraphs_sentences_and_the_four_granularities():
    text = "A  b.\nC d.\n\n \nE f."
    paras = paragraphs(text)
    assert paras == ["A b. C d.", "E f."] and document_text(paras) == "A b. C d.\n\nE f."
    # paragraph 1: two trees (A b . | C d .), heads are paragraph-relative indices; paragraph 2: one tree.
    first = sentences_of([tok("A", 1), tok("b", -1, False), tok(".", 1), tok("C", 4), tok("d", -1, False),
                          tok(".", 4, False)], paras[0], 0)
    second = sentences_of([tok("E", 1), tok("f", -1, False), tok(".", 1, False)], paras[1], len(paras[0]) + 2)
    sentences = first + second
    assert [(s.text, s.start) for s in sentences] == [("A b.", 0), ("C d.", 5), ("E f.", 11)]
    assert [t.head for t in sentences[1].tokens] == [1, -1, 1]  # heads 4, -1, 4 in the paragraph: each its own tree
    doc = document_text(paras)
    assert all(doc[s.start:s.start + len(s.text)] == s.text for s in sentences)
    assert blocks_of("document", doc, paras, sentences) == [doc]
    assert blocks_of("paragraph", doc, paras, sentences) == ["A b. C d.", "E f."]
    assert blocks_of("sentence", doc, paras, sentences) == ["A b.", "C d.", "E f."]
    assert blocks_of("2sents", doc, paras, sentences) == ["A b. C d.", "C d. E f."]
    assert blocks_of("2sents", doc, paras, sentences[:1]) == ["A b."]
    with pytest.raises(ValueError, match="granularity"):
        blocks_of("page", doc, paras, sentences)


def test_ewt_documents_join_sentence_graphs_by_document_in_sentence_order():
    from entailgen.transforms.io.ewt_documents import ewt_documents

    def graph(*forms):
        return {"nodes": [{"id": f"s-{i}", "domain": "syntax", "type": "token", "position": i + 1, "form": f}
                          for i, f in enumerate(forms)]}
    data = {"ewt-dev-2": graph("It", "rained", "."), "ewt-dev-1": graph("Hello", "!"),
            "ewt-dev-3": graph("Bye", "."), "ewt-dev-9": graph("Lost", "."), "ewt-dev-4": {"nodes": 3}}
    ud_ids = {"ewt-dev-1": {"document_id": "b", "sentence_id": "b-0001"},
              "ewt-dev-2": {"document_id": "b", "sentence_id": "b-0002"},
              "ewt-dev-3": {"document_id": "a", "sentence_id": "a-0001"},
              "ewt-dev-4": {"document_id": "a", "sentence_id": "a-0002"}}
    chunks = [json.dumps({"metadata": {}, "data": data}).encode()]
    assert list(ewt_documents(chunks, ud_ids)) == [{"id": "a", "text": "Bye."}, {"id": "b", "text": "Hello! It rained."}]
