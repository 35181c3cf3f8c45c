"""Tiny offline encoders and hand-written datasets for the trainer tests (tests/training)."""
import hashlib
import json
from pathlib import Path

import pytest

from entailgen.schemas.arrow import json_line
from entailgen.schemas.records import ArcExample, LabelledArc, RtePair

WORDS = ("can you people guarantee the liquidation of blue ##sta ##r ? dis ##posal ' s death dog cat sees "
         "chases likes man woman a park in").split()


def save_tiny_encoder(directory: Path, words=WORDS) -> Path:
    """A 2-layer BERT (hidden 32, 2 heads) with a WordPiece vocab of the given words, saved as safetensors."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    directory.mkdir(parents=True, exist_ok=True)
    vocab = {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words])}
    tokenizer = BertTokenizerFast(vocab=vocab, do_lower_case=True)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=37, max_position_embeddings=64)
    model = BertModel(config)
    _more_positions(model, 128)  # room for the trainer's default --max-length 128, the weights otherwise as before
    model.save_pretrained(directory, safe_serialization=True)
    tokenizer.save_pretrained(directory)
    return directory


def _more_positions(model, n: int) -> None:
    """Grow the position embeddings to n rows; the first rows (and every other weight) are kept, so the models and
    numbers the tests were written against stay the same for inputs that fitted before."""
    import torch

    old = model.embeddings.position_embeddings.weight.data
    extra = torch.randn(n - old.size(0), old.size(1), generator=torch.Generator().manual_seed(1)) * 0.02
    model.embeddings.position_embeddings = torch.nn.Embedding.from_pretrained(torch.cat([old, extra]), freeze=False)
    model.config.max_position_embeddings = n


@pytest.fixture(scope="session")
def tiny_encoder(tmp_path_factory) -> Path:
    return save_tiny_encoder(tmp_path_factory.mktemp("encoder"))


def write_dataset(directory: Path, record_type: str, splits: dict, pipeline: str = "dae") -> Path:
    """A finished dataset as the reader sees it: one JSON Lines shard per split and a manifest with their sha256."""
    directory.mkdir(parents=True, exist_ok=True)
    shards = []
    for split, records in splits.items():
        data = "".join(json_line(r) + "\n" for r in records).encode()
        path = f"{split}-00000-of-00001.jsonl"
        (directory / path).write_bytes(data)
        shards.append({"path": path, "split": split, "rows": len(records), "sha256": hashlib.sha256(data).hexdigest()})
    manifest = {"pipeline": pipeline, "record_type": record_type, "splits": {s: len(r) for s, r in splits.items()},
                "shards": shards, "stats": {}}
    (directory / "manifest.json").write_text(json.dumps(manifest))
    return directory


NOUNS = ["dog", "cat", "man", "woman"]
VERBS = ["sees", "chases", "likes"]


def toy_example(i: int) -> ArcExample:
    """'A V B' with the premise 'A V B' too (lexical match says every arc is entailed), but nsubj is labelled
    entailed and dobj not: only the relation predicts the label."""
    a, v, b = NOUNS[i % 4], VERBS[i % 3], NOUNS[(i // 4) % 4]
    words = [a, v, b]
    arcs = [LabelledArc(1, 0, "nsubj", v, a, 1), LabelledArc(1, 2, "dobj", v, b, 0)]
    return ArcExample(f"toy{i}", " ".join(words), " ".join(words), words, arcs, "bottom", "toy", "toy", f"toy:{i}")


def train_tiny_dae(root: Path, encoder: Path) -> Path:
    """A dae model dir trained for one epoch on 8 toy rows: what the scoring and writer tests score with."""
    from entailgen.training.fitting.trainer import TrainOptions, train

    data = write_dataset(root / "data", "ArcExample", {"train": [toy_example(i) for i in range(8)]})
    train(str(data), str(root / "model"), TrainOptions(encoder=str(encoder), epochs=1, max_length=24, progress=False))
    return root / "model"


def toy_pair(i: int, three_way: bool) -> RtePair:
    """'a N sees' against 'the man sees a park': a dog entailed, a cat contradicted, the others neutral."""
    noun = NOUNS[i % 4]
    label3 = "entailment" if noun == "dog" else "contradiction" if noun == "cat" else "neutral"
    return RtePair(f"p{i}", "the man sees a park", f"a {noun} sees", "entailed" if noun == "dog" else "not-entailed",
                   "toy", "t", "toy", f"toy:{i}", label3=label3 if three_way else None)


def tiny_pair_model(root: Path, encoder: Path, three_way: bool) -> Path:
    """A pair model dir (3-way when three_way) trained for one epoch on 8 toy rows."""
    from entailgen.training.fitting.trainer import TrainOptions, train

    data = write_dataset(root / "data", "RtePair", {"train": [toy_pair(i, three_way) for i in range(8)]},
                         pipeline="recast")
    train(str(data), str(root / "model"), TrainOptions(encoder=str(encoder), epochs=1, batch_size=4, progress=False,
                                                       device="cpu"))
    return root / "model"


def train_pair_model(root: Path, encoder: Path, seed: int = 0) -> Path:
    """A pair model dir trained for one epoch on 8 toy recast rows: what the document and speed tests score with."""
    from entailgen.training.fitting.trainer import TrainOptions, train

    rows = [RtePair(f"p{i}", "the man likes a park", "a man likes" if i % 2 else "a dog chases",
                    "entailed" if i % 2 else "not-entailed", "toy", "t", "toy", f"toy:{i}") for i in range(8)]
    data = write_dataset(root / "data", "RtePair", {"train": rows}, pipeline="recast")
    train(str(data), str(root / "model"), TrainOptions(encoder=str(encoder), epochs=1, batch_size=4,
                                                        progress=False, device="cpu", seed=seed))
    return root / "model"


SCORED_PAIRS = [("the man likes a park", "a man likes"), ("a dog chases the cat", "the cat sees a dog"),
                ("the woman likes a park", "a man likes a dog"), ("a cat", "the dog chases the man in a park")]


@pytest.fixture(scope="module")
def pair_model(tmp_path_factory, tiny_encoder):
    """A module's pair model dir (train_pair_model): the precision tests score SCORED_PAIRS with it."""
    return train_pair_model(tmp_path_factory.mktemp("pair"), tiny_encoder)


@pytest.fixture(scope="module")
def dae_model(tmp_path_factory, tiny_encoder):
    """A module's dae model dir (train_tiny_dae)."""
    return train_tiny_dae(tmp_path_factory.mktemp("dae"), tiny_encoder)


def toy_benchmark(path: Path) -> Path:
    """A SummaC-layout benchmark file of one set, toy, with both labels in each cut."""
    path.write_text("".join(json.dumps({"dataset": "toy", "document": d, "claim": c, "label": y, "cut": cut}) + "\n"
                            for d, c, y, cut in [("The dog chases the cat.", "The dog chases the cat.", 1, "val"),
                                                 ("The dog chases the cat.", "The cat chases the dog.", 0, "val"),
                                                 ("A woman likes the dog.", "A woman likes the dog.", 1, "test"),
                                                 ("A woman likes the dog.", "The dog likes a man.", 0, "test")]))
    return path
