"""The cross-set guard (issue 39): a test-cut document of any set is held out of training text when the same article
comes in again re-spaced, re-cased or cut off; a document that only shares a paragraph with it is not."""
import json

from entailgen.training.benchmarks.held_out import PREFIX, HeldOut, held_out, normalised, same_article

LEAD = ("Police in Lincolnshire say a man has been arrested after a lorry crashed into a house in Spalding on "
        "Tuesday night.\n\n")
REST = ("The driver, who is 45, was treated for minor injuries. Nobody in the house was hurt, the fire service said. "
        "The road was closed for six hours while the lorry was removed and the building was checked by engineers. "
        "Residents said the bend where it happened has seen several crashes in recent years.")
ARTICLE = LEAD + REST  # 413 characters; 339 once its whitespace is gone


def test_normalised_text_drops_whitespace_and_case():
    assert normalised("The Lorry\n\ncrashed  into\ta HOUSE.") == "thelorrycrashedintoahouse."
    assert normalised("ﬁre Ｓervice") == "fireservice"  # NFKC: the ligature and the full-width letter
    assert len(normalised(ARTICLE)) == 339 >= PREFIX


def test_a_copy_re_spaced_re_cased_or_cut_off_is_the_same_article():
    held = HeldOut([ARTICLE])
    assert ARTICLE.upper().replace("\n\n", " ") in held  # FRANK's copy: upper case, its line breaks lost
    assert ARTICLE.replace(". ", ".") in held  # lost line breaks that joined two sentences without a space
    assert ARTICLE[:380] in held  # a copy whose tail was cut off, 311 normalised characters of it left
    assert ARTICLE + " More to follow." in held  # the held copy is the cut-off one
    assert ARTICLE[:330] not in held  # 269 normalised characters: too short a start to call it the article


def test_a_shared_paragraph_or_a_short_common_start_is_not_the_same_article():
    held = HeldOut([ARTICLE])
    other = LEAD + "A second lorry later blocked the same road near the station, police said on Wednesday."
    assert other not in held  # the same lead paragraph, another article
    assert LEAD not in held  # the lead alone: 95 normalised characters, under PREFIX, and not equal
    assert not same_article(normalised(LEAD), normalised(ARTICLE))
    assert same_article(normalised(ARTICLE), normalised(ARTICLE.lower()))


def test_the_guard_reads_every_sets_test_cut_and_only_the_test_cut(tmp_path):
    rows = [{"document": ARTICLE, "claim": "A lorry crashed.", "label": 1, "cut": "test", "dataset": "xsumfaith"},
            {"document": "A cat sat on the mat.", "claim": "A cat sat.", "label": 1, "cut": "val",
             "dataset": "frank"}]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    held = held_out([str(path)])
    assert len(held) == 1  # the val document trains; the test one is held out
    assert held.kept(["a cat sat on the mat.", ARTICLE.upper(), "Dogs bark."]) == ["a cat sat on the mat.",
                                                                                  "Dogs bark."]


def test_a_spans_articles_file_holds_out_every_article_beside_a_sets_test_cut(tmp_path):
    rows = [{"document": "A cat sat on the mat.", "claim": "A cat sat.", "label": 1, "cut": "val", "dataset": "frank"},
            {"document": "Dogs bark at night.", "claim": "Dogs bark.", "label": 1, "cut": "test", "dataset": "frank"}]
    benchmark = tmp_path / "rows.jsonl"
    benchmark.write_text("".join(json.dumps(r) + "\n" for r in rows))
    articles = tmp_path / "xsum_articles.jsonl"  # `--benchmark spans --articles`: no cut of their own, all held out
    articles.write_text(json.dumps({"bbcid": 1, "document": ARTICLE}) + "\n"
                        + json.dumps({"bbcid": "2", "document": "The mayor resigned on Friday."}) + "\n")
    held = held_out([str(benchmark), str(articles)])
    assert len(held) == 3  # the test-cut document and both articles; the val-cut one trains
    assert held.kept(["The Mayor resigned on\nFriday.", ARTICLE[:380], "Dogs bark at night.",
                      "A cat sat on the mat."]) == ["A cat sat on the mat."]
    assert len(held_out([str(articles)])) == 2
    rows_with_ids = tmp_path / "xsumfaith.jsonl"  # benchmark rows that also carry a bbcid: only their test cut
    rows_with_ids.write_text("".join(json.dumps({**r, "bbcid": n}) + "\n" for n, r in enumerate(rows)))
    assert held_out([str(rows_with_ids)]).kept(["A cat sat on the mat.", "Dogs bark at night."]) == [
        "A cat sat on the mat."]
