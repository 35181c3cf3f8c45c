"""The card's "How to load it": the data read with pyarrow, pandas, Hugging Face datasets and entailgen's reader."""
from __future__ import annotations

from entailgen.dataset.report.card.facts import CardFacts, split_names

def section(facts: CardFacts) -> list[str]:
    """How to read the data: pyarrow, pandas, Hugging Face datasets, entailgen's own reader."""
    manifest = facts.manifest
    split = (split_names(manifest) or ["train"])[0]
    fmt = manifest["config"]["format"]
    arrow_format = "parquet" if fmt == "parquet" else "json"
    pandas = (f'pd.read_parquet(f"{{folder}}/{split}")' if fmt == "parquet" else
              f'pd.concat(pd.read_json(p, lines=True) for p in sorted(glob.glob(f"{{folder}}/{split}/*.jsonl")))')
    return ["```python", 'folder = "."  # this dataset\'s folder (the one holding this README.md)', "",
            "import pyarrow.dataset as ds",
            f'table = ds.dataset(f"{{folder}}/{split}", format="{arrow_format}").to_table()  # one split, as Arrow', "",
            *(["import glob"] if fmt != "parquet" else []),
            "import pandas as pd", f"frame = {pandas}", "",
            "import os", "from datasets import load_dataset  # reads the configs in this card's header",
            f'data = load_dataset(os.path.abspath(folder))  # data["{split}"]; pass "dead_letters" second for those',
            "", "from entailgen.schemas.reader import read_dataset",
            f'rows = list(read_dataset(folder, "{split}", verify=True))  # dicts; verify checks each shard\'s sha256',
            "```", ""]
