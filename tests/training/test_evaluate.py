"""evaluate on a dataset built by the real dae pipeline: its baselines are the manifest's stats.arc_labels."""
import json

import pytest
import torch

from entailgen.runners.cli import main
from entailgen.training.scoring.evaluation import evaluate
from entailgen.training.fitting.trainer import TrainOptions, train

torch.set_num_threads(1)

X = "can you people guarantee the liquidation of Bluestar ?"
GOLD = "can you guarantee Bluestar's disposal ?"
BEAM = ["can you guarantee Bluestar's liquidation ?", "can you people guarantee the disposal of Bluestar ?",
        "you can guarantee the liquidation ?", "can you guarantee liquidation Bluestar's death ?"]


@pytest.fixture(scope="module")
def figure3_dataset(tmp_path_factory):
    """Figure 3 through `entailgen run dae --generator candidates`, with word swap and hallucination rows."""
    root = tmp_path_factory.mktemp("fig3")
    (root / "pairs.tsv").write_text(f"{X}\t{GOLD}\n")
    (root / "beams.jsonl").write_text(json.dumps({"source_id": "pairs.tsv:1", "candidates": BEAM}) + "\n")
    assert main(["run", "dae", "--input", str(root / "pairs.tsv"), "--output", str(root / "data"), "--generator",
                 "candidates", "--candidates", str(root / "beams.jsonl"), "--splits", "train=1", "--quiet",
                 "--augment", "word_swap,hallucination"]) == 0
    return root / "data"


@pytest.fixture(scope="module")
def model_dir(figure3_dataset, tiny_encoder, tmp_path_factory):
    out = tmp_path_factory.mktemp("model") / "m"
    train(str(figure3_dataset), str(out), TrainOptions(encoder=str(tiny_encoder), epochs=1, progress=False))
    return out


def test_manifest_counts_augmented_arcs_and_keeps_table_2_on_section_4(figure3_dataset):
    manifest = json.loads((figure3_dataset / "manifest.json").read_text())
    stats = manifest["stats"]["arc_labels"]
    assert set(stats["arcs"]) == {"gold", "top1", "bottom", "word_swap", "hallucination"}
    section_4 = sum(stats["arcs"][k]["entailed"] + stats["arcs"][k]["not_entailed"] for k in ("gold", "top1", "bottom"))
    assert stats["table_2_labelled_arcs"] == section_4 < stats["labelled_arcs"]


def test_evaluate_baselines_equal_the_manifest_stats(figure3_dataset, model_dir):
    stats = json.loads((figure3_dataset / "manifest.json").read_text())["stats"]["arc_labels"]
    result = evaluate(str(model_dir), str(figure3_dataset), "all", device="cpu")
    assert result["counts"]["read"] == sum(stats["examples"].values()) == result["counts"]["scored"]
    assert result["overall"]["n"] == stats["labelled_arcs"]
    assert result["table_2"]["n"] == stats["table_2_labelled_arcs"]
    assert result["table_2"]["majority_accuracy"] == stats["majority_accuracy"]
    assert result["table_2"]["lexical_match_accuracy"] == stats["lexical_match_accuracy"]
    for kind, counts in stats["arcs"].items():
        assert result["per_kind"][kind]["n"] == counts["entailed"] + counts["not_entailed"]
    written = json.loads((model_dir / "eval" / "data.all.json").read_text())
    assert written["table_2"] == result["table_2"]
    assert "## Evaluation on data (all split)" in (model_dir / "README.md").read_text()
