"""bench/airgapped.py pack on rows no model can read (an empty text): each such row skipped and counted by its reason,
kept in the bundle as the score cache keeps a reason, so the GPU side's scoring gives it its Unscorable; the other rows
split and scored as before."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import airgapped  # noqa: E402 (bench/ scripts import each other as scripts do)

from entailgen.training.scoring.document_scorer import DocumentScorer  # noqa: E402
from entailgen.training.scoring.unscorable import Unscorable  # noqa: E402

ROWS = {"b": ("The man likes a park. A dog chases the cat.", "A man likes a park."),
        "a": ("The man likes a park.", ""), "c": ("   ", "A dog chases the cat."), "d": ("A park.", "...")}


def test_pack_skips_and_counts_the_rows_no_model_can_read_and_run_scores_the_rest(tmp_path):
    splitter = DocumentScorer(None, "sentence", pair_scores=lambda cells: [])  # the parser only, as pack makes it
    split, skipped = airgapped.splits(splitter, ROWS)
    assert skipped == "3 unscorable, skipped: MissingField 2, NoWords 1"
    assert list(split) == ["a", "b", "c", "d"]
    assert split["b"] == [["The man likes a park.", "A dog chases the cat."], ["A man likes a park."]]
    assert (split["a"], split["c"], split["d"]) == (
        {"unscorable": "MissingField", "message": "no text in summary"},
        {"unscorable": "MissingField", "message": "no text in document"},
        {"unscorable": "NoWords", "message": "no word in summary"})
    airgapped.write_xz(tmp_path / "split.json.xz", split)  # the bundle's file, as run reads it back
    back = airgapped.read_split(tmp_path / "split.json.xz")
    scorer = DocumentScorer(None, "sentence", pair_scores=lambda cells: [0.75] * len(cells))
    results = scorer.scored([("", "")] * 4, split=[back[k] for k in sorted(back)])
    assert results[1]["score"] == 0.75 and results[1]["blocks"] == 2
    assert [(r.error_type, str(r)) for r in results if isinstance(r, Unscorable)] == [
        ("MissingField", "no text in summary"), ("MissingField", "no text in document"),
        ("NoWords", "no word in summary")]
