"""The dataset card: its YAML header read back as Hugging Face would, and the body's counts, stats and limits."""
from pathlib import Path

import pytest
import yaml

import entailgen

from entailgen.dataset.manifest import build_manifest
from entailgen.dataset.report.audit_notes import AUDIT_EXPLANATION
from entailgen.dataset.report.card import render_card
from entailgen.dataset.report.card.header import SAMPLE_LICENCES, hf_features, size_category, source_licence
from entailgen.dataset.report.card.statistics import render_stat
from entailgen.dataset.report.tables import stat_notes

CONFIG = {"pipeline": "dae", "input_format": None, "format": "parquet", "num_shards": 2, "seed": 3,
          "splits": {"ratios": [["train", 0.8], ["dev", 0.1], ["test", 0.1]], "seed": 3},
          "parser": {"backend": "spacy", "model": None}, "reader": {"max_chars": 1000},
          "family": {"generator": "apertium", "k": 10, "bottom": 3, "augment": ["word_swap", "hallucination"],
                     "max_new_tokens": 24}}
# What the dae family's ArcLabelStats writes (transforms/label.py), with hand-picked numbers.
DAE_STATS = {"examples": {"bottom": 3, "gold": 1},
             "arcs": {"bottom": {"entailed": 4, "not_entailed": 3, "unlabelled": 2},
                      "gold": {"entailed": 5, "not_entailed": 0, "unlabelled": 0}},
             "labelled_arcs": 12, "entailed_arc_pct": 75.0, "majority_accuracy": 75.0, "lexical_match_accuracy": 83.33,
             "paper_table_2": {"majority_accuracy": 72.7, "lexical_match_accuracy": 74.2}}
SAMPLE = frozenset({"0" * 64})  # the first input's digest: paraphrase.tsv is the embedded sample
NO_STATS = {"record_type": "ArcExample", "rows": {}, "labels": {}, "lengths": {}, "dead": {}}


def shard(split, i, rows, size=1000):
    return {"path": f"{split}/{split}-{i:05d}-of-00002.parquet", "split": split, "rows": rows, "sha256": "0" * 64,
            "bytes": size}


def manifest(inputs=("paraphrase.tsv",), stats=None, counts=()):
    staged = {"shards": [shard("train", 0, 700), shard("train", 1, 600), shard("dev", 0, 150), shard("dev", 1, 50, 400),
                         shard("test", 0, 90), shard("test", 1, 70)],
              "dead_letters": [{"path": "dead_letters/dead_letters-00000-of-00001.parquet", "split": "dead_letters",
                                "rows": 4, "sha256": "1" * 64, "bytes": 500}],
              "counts": [[["read", name], 500] for name in inputs] + list(counts),
              "stats": sorted((stats or {"arc_labels": DAE_STATS}).items()), "exports": []}
    return build_manifest(version="0.1.0", pipeline="dae", record_type="ArcExample", config=CONFIG,
                          inputs=[{"name": name, "sha256": f"{n}" * 64, "bytes": 10} for n, name in enumerate(inputs)],
                          staged=staged, metrics={"labelled": 1610})


def header(card: str) -> dict:
    """The YAML between the leading '---' lines, as the Hub parses it."""
    assert card.startswith("---\n")
    return yaml.safe_load(card.split("---\n")[1])


def test_header_declares_split_files_sizes_licence_and_size_category():
    card = render_card(manifest(), NO_STATS, sample_digests=SAMPLE)
    meta = header(card)
    assert meta["license"] == "cc0-1.0" and meta["size_categories"] == ["1K<n<10K"]  # 1610 rows
    assert meta["language"] == ["en"] and "dae" in meta["tags"]
    default, dead = meta["configs"]
    assert default == {"config_name": "default", "default": True,
                       "data_files": [{"split": "train", "path": "train/train-*.parquet"},
                                      {"split": "dev", "path": "dev/dev-*.parquet"},
                                      {"split": "test", "path": "test/test-*.parquet"}]}
    assert dead == {"config_name": "dead_letters",
                    "data_files": [{"split": "train", "path": "dead_letters/dead_letters-00000-of-00001.parquet"}]}
    info, dead_info = meta["dataset_info"]
    assert info["splits"] == [{"name": "train", "num_bytes": 2000, "num_examples": 1300},
                              {"name": "dev", "num_bytes": 1400, "num_examples": 200},
                              {"name": "test", "num_bytes": 2000, "num_examples": 160}]
    assert info["download_size"] == 5400
    assert dead_info["splits"] == [{"name": "train", "num_bytes": 500, "num_examples": 4}]


def test_splits_without_rows_and_an_empty_dead_letter_file_are_left_out_of_the_configs():
    m = manifest()
    del m["splits"]["test"]  # a split without rows has no shards, so the manifest has no entry for it
    m["shards"] = [s for s in m["shards"] if s["split"] != "test"]
    m["dead_letters"]["rows"] = 0
    meta = header(render_card(m, NO_STATS))
    assert [c["config_name"] for c in meta["configs"]] == ["default"]
    assert [f["split"] for f in meta["configs"][0]["data_files"]] == ["train", "dev"]
    assert [s["name"] for s in meta["dataset_info"][0]["splits"]] == ["train", "dev"]


def test_features_are_what_datasets_derives_from_the_arrow_schema():
    datasets = pytest.importorskip("datasets")
    from entailgen.schemas.arrow import arrow_schema
    from entailgen.schemas.records import RECORD_TYPES

    for name in ("ArcExample", "RtePair", "ParsedSentence", "ClaimExample", "DeadLetter"):
        expected = datasets.Features.from_arrow_schema(arrow_schema(RECORD_TYPES[name]))._to_yaml_list()
        assert hf_features(name) == expected, name
    arcs = next(f for f in hf_features("ArcExample") if f["name"] == "arcs")
    assert {"name": "entailed", "dtype": "int64"} in arcs["list"]


def test_size_categories_at_their_bounds():
    assert [size_category(n) for n in (0, 999, 1000, 99_999, 100_000, 2_000_000, 5_000_000_000)] == \
        ["n<1K", "n<1K", "1K<n<10K", "10K<n<100K", "100K<n<1M", "1M<n<10M", "n>1B"]


def test_licences_of_samples_by_content_and_of_known_corpora_by_name_else_unknown():
    assert source_licence("paraphrase.tsv", sample=True) == "cc0-1.0"
    assert source_licence("uds_factuality.json", sample=True) == "cc-by-sa-4.0"
    assert source_licence("amazon_cells_labelled.txt") == "unknown"  # UCI's own file, not our sample of that name
    assert source_licence("uds-ewt-sentences-train-normalized.json") == "cc-by-sa-4.0"
    assert source_licence("my_ANLI_r1.jsonl") == "cc-by-nc-4.0"
    assert source_licence("crawl.txt") == "unknown"


def test_every_embedded_sample_has_a_licence():
    samples = Path(entailgen.__file__).parent / "samples"
    assert {p.name for p in samples.iterdir() if p.is_file() and p.suffix != ".md"} <= set(SAMPLE_LICENCES)


def test_an_input_of_unknown_licence_makes_the_licence_other_and_says_so():
    card = render_card(manifest(inputs=("paraphrase.tsv", "crawl.txt")), NO_STATS, sample_digests=SAMPLE)
    assert header(card)["license"] == "other"
    assert header(card)["license_details"] == "paraphrase.tsv: cc0-1.0; crawl.txt: unknown"
    assert "Some inputs have no known licence" in card


def test_two_known_licences_are_listed():
    card = render_card(manifest(inputs=("paraphrase.tsv", "uds_factuality.json")), NO_STATS,
                       sample_digests=frozenset({"0" * 64, "1" * 64}))
    assert header(card)["license"] == ["cc-by-sa-4.0", "cc0-1.0"]
    assert "Some inputs have no known licence" not in card


def test_how_it_was_made_comes_from_the_manifest_config():
    card = render_card(manifest(), NO_STATS, description="paraphrase pairs -> arc-labelled hypotheses")
    assert "- **Seed**: 3 (mixed with each record id for every random choice)" in card
    assert "- **Splits**: train 0.8, dev 0.1, test 0.1, by a hash of the source context" in card
    assert "- **k**: `10` (beam size: candidates per input)" in card
    assert '- **augment**: `["word_swap", "hallucination"]` (Goyal & Durrett 2020 §5.3' in card
    assert '- **generator**: `"apertium"` (what wrote the candidate hypotheses)' in card
    assert "max_new_tokens" not in card  # an hf generator option: it does not apply to apertium
    assert "Bottom-of-beam labels are noisy" in card


def test_the_tiny_sample_warning_goes_by_input_content_not_name():
    sample = manifest()["inputs"][0]["sha256"]
    assert "embedded sample corpora" in render_card(manifest(), NO_STATS, sample_digests=frozenset({sample}))
    assert "embedded sample corpora" not in render_card(manifest(), NO_STATS, sample_digests=frozenset({"f" * 64}))


def test_counts_per_input_and_by_reason_are_tables():
    counts = [[["records_by_source", "paraphrase.tsv"], 1610], [["dead_by_source", "paraphrase.tsv"], 4],
              [["dead_by_stage", "parse:TooLong"], 4], [["skipped_by_reason", "recast:NotSelected:ner"], 7]]
    card = render_card(manifest(counts=counts), NO_STATS, sample_digests=SAMPLE)
    assert "| input | units read | rows written | dead letters | licence | sha256 |" in card
    assert "| paraphrase.tsv | 500 | 1610 | 4 | cc0-1.0 | 000000000000 |" in card
    assert "Dead letters by stage and error:\n\n| key | count |\n|---|---|\n| parse:TooLong | 4 |" in card
    assert "Inputs skipped on purpose, by reason:\n\n| key | count |\n|---|---|\n| recast:NotSelected:ner | 7 |" in card


def test_the_card_shows_where_every_unit_went_and_transformation_skips_apart():
    counts = [[["units_with_output", "paraphrase.tsv"], 489], [["skipped_by_source", "paraphrase.tsv"], 7],
              [["units_dead", "paraphrase.tsv"], 4], [["records_by_source", "paraphrase.tsv"], 1610],
              [["dead_by_source", "paraphrase.tsv"], 4], [["skipped_transformations", "claims:negation:NoAuxiliary"], 2]]
    card = render_card(manifest(counts=counts), NO_STATS, sample_digests=SAMPLE)
    assert ("| input | units read | with output | skipped | dead | rows written | dead letters | licence | sha256 |"
            in card)
    assert "| paraphrase.tsv | 500 | 489 | 7 | 4 | 1610 | 4 | cc0-1.0 | 000000000000 |" in card  # 489 + 7 + 4 = 500
    assert "Transformations that found nothing to change, in units that have output:" in card


def test_label_balance_over_rows_is_in_the_counts():
    stats = dict(NO_STATS, labels={"split": {"train": {"entailed": 3, "not-entailed": 1}, "dev": {"entailed": 1}}})
    assert "| label | count | share |\n|---|---|---|\n| entailed | 4 | 80.0% |\n| not-entailed | 1 | 20.0% |" in \
        render_card(manifest(), stats)


def test_flat_counts_render_as_a_table_with_shares():
    assert render_stat({"entailed": 7, "not-entailed": 3}) == \
        "| key | value | share |\n|---|---|---|\n| entailed | 7 | 70.0% |\n| not-entailed | 3 | 30.0% |"


def test_mixed_stats_render_scalars_then_one_table_per_nested_part():
    text = render_stat(DAE_STATS)
    assert text.startswith("| key | value |\n|---|---|\n| labelled_arcs | 12 |\n| entailed_arc_pct | 75.0 |")
    assert ("**arcs**\n\n|  | entailed | not_entailed | unlabelled |\n|---|---|---|---|\n| bottom | 4 | 3 | 2 |\n"
            "| gold | 5 | 0 | 0 |") in text
    assert "**paper_table_2**\n\n| key | value |\n|---|---|\n| majority_accuracy | 72.7 |" in text


def test_an_empty_or_non_dict_stats_value_still_renders():
    assert render_stat({"labelled_arcs": 3, "sentence_labels": {}}) == \
        "| key | value | share |\n|---|---|---|\n| labelled_arcs | 3 | 100.0% |\n\n**sentence_labels**\n\n**none**"
    assert render_stat([1, 2]) == "```json\n[\n  1,\n  2\n]\n```"
    assert render_stat(0.5) == "**0.5**"


def test_audit_stats_render_phenomena_as_rows_with_label_counts_inline():
    audit = {"ner": {"n": 20, "label_counts": {"entailed": 10, "not-entailed": 10}, "majority_accuracy": 50.0,
                     "hypothesis_only_accuracy": 70.0}}
    assert render_stat(audit) == ("|  | n | label_counts | majority_accuracy | hypothesis_only_accuracy |\n"
                                  "|---|---|---|---|---|\n| ner | 20 | entailed 10, not-entailed 10 | 50.0 | 70.0 |")


def test_known_stats_keys_get_their_explanations_once():
    dae = stat_notes("arc_labels", DAE_STATS)
    assert [n.split(" ")[0] for n in dae] == ["Arc", "Lexical-match", "Majority-class"]
    assert "72.7" in dae[1] and "74.2" in dae[1]
    assert stat_notes("audit", {"ner": {}}) == [AUDIT_EXPLANATION]
    assert stat_notes("something_else", {"x": 1}) == []
    card = render_card(manifest(stats={"arc_labels": DAE_STATS, "audit": {"ner": {"n": 2}}}), NO_STATS)
    assert card.count("DAE Table 2: majority class 72.7") == 1 and AUDIT_EXPLANATION in card


def card_of(family: dict, record_type="ArcExample", pipeline="dae", stats=NO_STATS) -> str:
    m = manifest()
    m["config"] = dict(m["config"], family=family)
    m["record_type"], m["pipeline"] = record_type, pipeline
    return render_card(m, dict(stats, record_type=record_type))


def test_the_card_lists_only_the_options_that_apply_to_the_run():
    dae = {"generator": "apertium", "model": None, "candidates": None, "k": 10, "max_new_tokens": 24,
           "batch_tokens": 4096, "bucket_size": 64, "encoder": "default", "augment": [], "new_option": 5}
    card = card_of(dae)
    assert [line for line in card.splitlines() if line.startswith("- **") and line.split("**")[1] in dae] == [
        '- **encoder**: `"default"` (what ranks round-trip candidates into a beam order)',
        '- **generator**: `"apertium"` (what wrote the candidate hypotheses)',
        "- **k**: `10` (beam size: candidates per input)",
        "- **new_option**: `5`"]  # an option the card does not know is listed as it is
    hf = [line.split("**")[1] for line in card_of(dict(dae, generator="hf", model="tiny-bart")).splitlines()
          if line.startswith("- **") and line.split("**")[1] in dae]
    assert hf == ["batch_tokens", "bucket_size", "generator", "k", "max_new_tokens", "model", "new_option"]
    ct2 = [line.split("**")[1] for line in card_of(dict(dae, generator="ct2", model="tiny-bart", compute_type="int8"))
           .splitlines() if line.startswith("- **")]
    assert {"model", "compute_type", "bucket_size", "max_new_tokens"} <= set(ct2) and "batch_tokens" not in ct2
    claims = card_of({"backtranslator": "hf", "model": "round-trip", "granularity": "sentence"}, "ClaimExample",
                     "claims")
    assert '- **model**: `"round-trip"`' in claims
    recast = card_of({"phenomena": ["ner"], "factuality_threshold": 0.5, "export_dnc": False}, "RtePair", "recast")
    assert "factuality_threshold" not in recast and '- **phenomena**: `["ner"]`' in recast
    assert "factuality_threshold" in card_of({"phenomena": ["factuality"], "factuality_threshold": 0.5}, "RtePair",
                                             "recast")
    dialogue = card_of({"seed": 0, "phrase_subset": None, "phrase_file": None}, "RtePair", "nli-dialogue")
    assert "phrase_subset" not in dialogue and "phrase_file" not in dialogue and "- **seed**" not in dialogue


def test_parser_notes_only_for_rows_with_dependency_arcs():
    for record_type, parsed in (("ArcExample", True), ("ParsedSentence", True), ("RtePair", False)):
        card = card_of({}, record_type, "recast" if record_type == "RtePair" else "dae")
        assert ("- **Parser**: spacy" in card, "Dependency parses come from a statistical parser" in card) == (
            parsed, parsed), record_type


def test_every_field_of_every_record_type_is_described():
    from entailgen.dataset.report.card.fields import field_note, field_paths

    from entailgen.schemas.records import RECORD_TYPES

    for record_type in RECORD_TYPES:
        assert [p for p, _ in field_paths(record_type) if not field_note(record_type, p)] == [], record_type
    card = card_of({})
    assert ("| `arcs[].entailed` | int64 | 1 entailed by the premise, 0 not entailed, null unlabelled (found only in "
            "the top-1 output, so the paper leaves it out of the loss; for the document-arcs kinds, where the rule "
            "cannot be sure: a pronoun, an arc a re-parse moved, two words another premise sentence relates in "
            "other words) |") in card
    assert "| `hypothesis_tokens` | list of string | the hypothesis's tokens;" in card
    assert "Each dead letter (`DeadLetter`):" in card and "| `stage` | string | the stage that could not use" in card


def test_a_document_arcs_card_names_its_rules_and_how_they_label():
    card = card_of({"rules": ["evidence_removal", "recombination"], "per_document": 2}, pipeline="document-arcs")
    assert ('- **rules**: `["evidence_removal", "recombination"]` (the document-arcs rules that ran, of '
            "evidence_removal, recombination, restatement, extrinsic_attachment, rewording)") in card
    assert "labelled arc by arc against a SummaC block of that document by DAE §4's rule generalised" in card
    assert "document_arcs:<rule>:<variant> for the document-arcs kinds" in card
    assert "Bottom-of-beam labels are noisy" not in card  # the dae family's limits are not this family's


def test_the_card_shows_how_to_load_the_data():
    card = card_of({})
    assert 'table = ds.dataset(f"{folder}/train", format="parquet").to_table()' in card
    assert 'frame = pd.read_parquet(f"{folder}/train")' in card
    assert 'data = load_dataset(os.path.abspath(folder))' in card
    assert 'rows = list(read_dataset(folder, "train", verify=True))' in card


def test_the_card_shows_example_dead_letters_with_file_line_stage_and_message():
    dead = [{"id": "d1", "source": "pairs.tsv", "source_id": "pairs.tsv:5", "stage": "read",
             "error_type": "WrongColumnCount", "message": "1 column, want x<TAB>h*", "raw": "no tab on this line"}]
    card = card_of({}, stats=dict(NO_STATS, dead_examples=dead))
    assert ("Example dead letters (a few per reason):\n\n| where (file:line or id) | stage:error | message | input |\n"
            "|---|---|---|---|\n| pairs.tsv:5 | read:WrongColumnCount | 1 column, want x<TAB>h* | no tab on this line |"
            ) in card


def test_sections_come_in_the_order_sections_lists_and_an_empty_one_is_left_out(monkeypatch):
    """A new card section is its module and one line in SECTIONS; a section with nothing to say has no title."""
    from entailgen.dataset.report import card

    cell = {"units": 2, "positive": 1, "negative": 1, "share_positive": 0.5, "auc": {"overlap": 1.0}}
    labelled = dict(manifest(), separability={"unit": "arc", "cues": ["overlap"], "rules": {"all": {"all": cell}}})
    titles = [line[3:] for line in render_card(labelled, NO_STATS).splitlines() if line.startswith("## ")]
    assert titles == [title for title, _ in card.SECTIONS]
    monkeypatch.setattr(card, "SECTIONS", card.SECTIONS[:1] + (("Extra", lambda facts: [facts.manifest["pipeline"], ""]),
                                                             ("Nothing", lambda facts: [])) + card.SECTIONS[1:])
    text = render_card(manifest(), NO_STATS)
    assert "\n## Extra\n\ndae\n\n## Counts\n" in text and "## Nothing" not in text
