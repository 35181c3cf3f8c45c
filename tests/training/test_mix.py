"""One pair model on several datasets: --mix shares worked by hand, the interleaved stream, train.json and the card
recording each dataset, and byte-identical weights for the same seed on CPU."""
import hashlib
import json

import pytest
import torch

from entailgen.runners.cli import main
from entailgen.schemas.records import ArcExample, ClaimExample, LabelledArc, RtePair
from entailgen.training.fitting.data import parse_mix, quotas, training_stream
from entailgen.training.fitting.trainer import TrainOptions, train
from trainer_fixtures import toy_example, write_dataset

torch.set_num_threads(1)
BLOCKS = ["the dog sees a cat", "the man likes a park", "a woman chases death"]


def claim(i: int, block_index=None) -> ClaimExample:
    """A claims document row: the swapped claim 'the cat sees a dog' of block 0; blocks 1 and 2 share no content word
    with it, so the source view makes two pairs."""
    return ClaimExample(f"c{i}", f"d{i}", " ".join(BLOCKS), list(BLOCKS), "sentence", "the cat sees a dog",
                        "INCORRECT", "not-entailed", "entity_swap", BLOCKS[0], False, False, "news", f"news:{i}",
                        block_index=block_index)


def rte(i: int) -> RtePair:
    return RtePair(f"p{i}", "the man likes a park", "a man likes", "entailed", "toy", "t", "toy", f"toy:{i}")


def unlabelled(i: int) -> ArcExample:
    return ArcExample(f"u{i}", "a dog", "a dog", ["a", "dog"], [LabelledArc(1, 0, "det", "dog", "a", None)], "top1",
                      "toy", "toy", f"u:{i}")


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    root = tmp_path_factory.mktemp("mix")
    claims = write_dataset(root / "news", "ClaimExample", {"train": [claim(0), claim(1), claim(2), claim(3, 0)],
                                                           "dev": [claim(4)]}, pipeline="claims")
    recast = write_dataset(root / "ner", "RtePair", {"train": [rte(i) for i in range(5)]}, pipeline="recast")
    dae = write_dataset(root / "arcs", "ArcExample", {"train": [toy_example(0), toy_example(1), unlabelled(2),
                                                                toy_example(3)]}, pipeline="dae")
    return [str(claims), str(recast), str(dae)]


def test_mix_weights_by_name_pipeline_or_position():
    names = [("news", "claims"), ("ner", "recast"), ("dialogue", "recast")]
    assert parse_mix("2,1,1", names) == (2.0, 1.0, 1.0)
    assert parse_mix("claims=2, ner=1, dialogue=0.5", names) == (2.0, 1.0, 0.5)
    for bad, says in [("recast=1,claims=1,ner=1", "more than one"), ("2,1", "one weight for each of the 3 datasets"),
                      ("news=2,1,1", "every weight as NAME=W"), ("x=1,ner=1,dialogue=1", "names no dataset"),
                      ("2,one,1", "not a number"), ("news=1,claims=2,ner=1", "'claims' is given twice"),
                      ("ner=1,news=2,ner=3", "'ner' is given twice")]:
        with pytest.raises(ValueError, match=says):
            parse_mix(bad, names)


def test_quotas_share_the_total_exactly_by_weight():
    assert quotas([10, 4], [2, 1], 14) == [9, 5]  # 9.33 and 4.67: the larger remainder gets the last row
    assert quotas([10, 4], [10, 4], 14) == [10, 4]  # no --mix: each in proportion to its rows, every row once
    assert quotas([4, 5, 4], [2, 1, 1], 12) == [6, 3, 3]
    assert quotas([1, 1, 1], [1, 1, 1], 2) == [1, 1, 0]  # equal remainders: the earlier dataset first
    assert sum(quotas([7, 3, 9], [0.3, 0.3, 0.4], 19)) == 19


def test_the_stream_interleaves_in_proportion_and_repeats_past_the_rows(datasets):
    claims, recast, _ = datasets
    # claims draws 3 rows at 1/6, 3/6, 5/6 of the stream; recast draws 2 at 1/4, 3/4 -> c0 p0 c1 p1 c2
    assert [r.id for _, r in training_stream([claims, recast], [4, 5], [3, 2], "train")] == [
        "c0", "p0", "c1", "p1", "c2"]
    # 4 at 1/8, 3/8, 5/8, 7/8 and 1 at 1/2: the recast row sits mid-stream, not first
    assert [r.id for _, r in training_stream([claims, recast], [4, 5], [4, 1], "train")] == [
        "c0", "c1", "p0", "c2", "c3"]
    # 6 rows of 4: every row once, then the first two again
    assert [r.id for _, r in training_stream([claims], [4], [6], "train")] == ["c0", "c1", "c2", "c3", "c0", "c1"]


def options(encoder, **changes):
    return TrainOptions(**{**dict(encoder=str(encoder), epochs=1, batch_size=4, seed=3, device="cpu", progress=False),
                           **changes})


def test_rows_used_per_dataset_follow_the_mix_and_the_same_seed_gives_the_same_weights(datasets, tiny_encoder,
                                                                                      tmp_path, capsys):
    # 12 rows an epoch shared 2:1:1 -> claims 6 (of 4: repeats c0 c1), recast 3 (of 5), dae 3 (of 4)
    assert main(["train", *datasets, "--output", str(tmp_path / "a"), "--encoder", str(tiny_encoder), "--mix",
                 "claims=2,recast=1,arcs=1", "--max-examples", "12", "--epochs", "1", "--batch-size", "4", "--seed",
                 "3", "--device", "cpu", "--quiet"]) == 0
    summary = json.loads((tmp_path / "a" / "train.json").read_text())
    assert summary["task"] == "pair" and summary["options"]["mix"] == [2.0, 1.0, 1.0]
    assert summary["options"]["claims_view"] == "source"
    used = summary["datasets"]
    assert [(u["path"], u["pipeline"], u["weight"], u["split_rows"], u["rows_used"]) for u in used] == [
        (datasets[0], "claims", 2.0, 4, 6), (datasets[1], "recast", 1.0, 5, 3), (datasets[2], "dae", 1.0, 4, 3)]
    assert [u["manifest_sha256"] for u in used] == summary["dataset_manifest_sha256"] == [
        hashlib.sha256(open(f"{d}/manifest.json", "rb").read()).hexdigest() for d in datasets]
    # claims: c0 c1 c2 c3(block row) c0 c1 -> 5 document rows x (source pair + a sampled unrelated block)
    assert used[0]["counts"] == {"read": 11, "block_row": 1, "used": 10} and used[0]["negatives"] == 5
    assert used[1]["counts"] == {"read": 3, "used": 3}
    assert used[2]["counts"] == {"read": 3, "no_labelled_arcs": 1, "used": 2}  # toy0, toy1 (not entailed), u2
    assert summary["counts"]["train"] == {"read": 17, "block_row": 1, "no_labelled_arcs": 1, "used": 15}
    assert summary["counts"]["dev"] == {"read": 2, "used": 2}  # the claims dev row: two pairs
    card = (tmp_path / "a" / "README.md").read_text()
    assert f"| `{datasets[0]}` | claims | `{used[0]['manifest_sha256'][:16]}…` | 2.0 | 4 | 6 | 10 |" in card
    assert "`source` view" in card
    again = train(datasets, str(tmp_path / "b"), options(tiny_encoder, mix=(2, 1, 1), max_examples=12))
    assert again["datasets"] == used
    weights = [hashlib.sha256((tmp_path / m / "model.safetensors").read_bytes()).hexdigest() for m in "ab"]
    assert weights[0] == weights[1]
    capsys.readouterr()
    assert main(["evaluate", str(tmp_path / "a"), datasets[0]]) == 2  # claims pairs come from a view: no accuracy here
    assert capsys.readouterr().err.strip() == (f"entailgen: error: {datasets[0]} holds ClaimExample rows; `entailgen "
                                               "evaluate` takes dae, recast and nli-dialogue datasets")


def test_a_bad_mix_is_one_line(datasets, tmp_path, capsys):
    assert main(["train", *datasets, "--output", str(tmp_path / "m"), "--mix", "news=2,ner=1"]) == 2
    assert capsys.readouterr().err.strip() == ("entailgen: error: --mix 'news=2,ner=1': one weight for each of the 3 "
                                               "datasets")
    assert main(["train", *datasets[:2], "--output", str(tmp_path / "m"), "--mix", "2,0"]) == 2
    assert capsys.readouterr().err.strip() == "entailgen: error: --mix weights must be positive finite numbers, got 0.0"
    assert main(["train", *datasets[:2], "--output", str(tmp_path / "m"), "--mix", "-1,1"]) == 2  # a value, no flag
    assert capsys.readouterr().err.strip() == ("entailgen: error: --mix weights must be positive finite numbers, "
                                               "got -1.0")
    assert main(["train", datasets[0], datasets[0] + "/", "--output", str(tmp_path / "m")]) == 2
    assert capsys.readouterr().err.strip() == (f"entailgen: error: {datasets[0]}/ is given twice; give each dataset "
                                               "once (--mix weighs them)")
    # 1e308 against 1 shares the 9 rows as 9 and 0: the second dataset would be trained without, silently
    assert main(["train", *datasets[:2], "--output", str(tmp_path / "m"), "--mix", "1e308,1"]) == 2
    assert capsys.readouterr().err.strip() == (f"entailgen: error: --mix gives {datasets[1]} (weight 1) none of the 9 "
                                               "rows an epoch draws; raise its weight or leave the dataset out")
    assert not (tmp_path / "m").exists()


def test_two_arc_datasets_train_one_arc_model_mixed(datasets, tiny_encoder, tmp_path):
    """dae and document-arcs rows (both ArcExample) train the DAE arc model together, --mix weighing them, with no
    option of their own: 4 dae rows and 2 document rows share an epoch of 6 at 2:1."""
    document = write_dataset(tmp_path / "document", "ArcExample", {"train": [toy_example(5), toy_example(6)]},
                             pipeline="document-arcs")
    model = train([datasets[2], str(document)], str(tmp_path / "both"), options(tiny_encoder, mix=(2, 1)))
    assert model["task"] == "dae"
    assert [d["rows_used"] for d in model["datasets"]] == [4, 2]


def test_one_dae_dataset_trains_arcs_unless_the_pair_task_is_asked_for(datasets, tiny_encoder, tmp_path):
    dae = datasets[2]
    pair = train(dae, str(tmp_path / "p"), options(tiny_encoder, task="pair"))
    assert pair["task"] == "pair" and pair["counts"]["train"] == {"read": 4, "no_labelled_arcs": 1, "used": 3}
    assert pair["dataset"] == dae and pair["datasets"][0]["rows_used"] == 4
    with pytest.raises(ValueError, match="--task dae trains the DAE arc model on arc datasets"):
        train(datasets[1:], str(tmp_path / "d"), options(tiny_encoder, task="dae"))
    with pytest.raises(ValueError, match="--mix has 2 weights for 3 datasets"):
        train(datasets, str(tmp_path / "m"), options(tiny_encoder, mix=(1, 2)))
