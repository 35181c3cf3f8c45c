"""Every file a run reads, not only --input, is hashed into the manifest and the refresh VERSION (issue 12, item 4)."""
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import entailgen
from entailgen.dataset.manifest import option_fingerprints
from entailgen.pipelines.base import RunConfig
from entailgen.pipelines.dae import DaeOptions
from entailgen.runners.cli import main
from entailgen.runners.refresh import dataset_version, run_config_for, RefreshConfig
from entailgen.transforms.augment.dialogue import DialogueOptions
from entailgen.transforms.io.paths import option_paths, path_option
from entailgen.transforms.parser import ParserConfig

SAMPLES = Path(entailgen.__file__).parent / "samples"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_option_paths_lists_the_path_fields_that_are_set_in_nested_options():
    config = RunConfig("dae", ("in.tsv",), "out", parser=ParserConfig(model="/models/spacy"),
                       family=DaeOptions(generator="candidates", candidates="cands.jsonl"))
    assert option_paths(config) == [("parser.model", "/models/spacy"), ("family.candidates", "cands.jsonl"),
                                    ("family.encoder", "default")]
    assert option_paths(DialogueOptions(phrase_file="p.txt")) == [("phrase_file", "p.txt")]
    assert option_paths(DialogueOptions()) == []


def test_a_new_family_option_marked_as_a_path_is_fingerprinted_for_free(tmp_path):
    @dataclass(frozen=True)
    class RelationOptions:
        kb: Optional[str] = path_option()
        templates: tuple = path_option(())
        min_count: int = 2

    (tmp_path / "kb.tsv").write_bytes(b"Kazakhstan\tborders\tRussia\n")
    (tmp_path / "t.txt").write_bytes(b"borders\t{s} is bordered by {o} .\n")
    options = RelationOptions(str(tmp_path / "kb.tsv"), (str(tmp_path / "t.txt"),))
    assert option_fingerprints(option_paths(options)) == [
        {"option": "kb", "name": "kb.tsv", "sha256": sha(b"Kazakhstan\tborders\tRussia\n"), "bytes": 26},
        {"option": "templates", "name": "t.txt", "sha256": sha(b"borders\t{s} is bordered by {o} .\n"), "bytes": 33}]


def test_a_model_directory_is_hashed_by_file_names_and_contents(tmp_path):
    model = tmp_path / "model"
    (model / "sub").mkdir(parents=True)
    (model / "config.json").write_bytes(b"{}")
    (model / "sub" / "w.bin").write_bytes(b"abc")
    expected = sha(f"config.json\t{sha(b'{}')}\nsub/w.bin\t{sha(b'abc')}\n".encode())
    got = option_fingerprints([("parser.model", str(model) + "/")])
    assert got == [{"option": "parser.model", "name": "model", "sha256": expected, "bytes": 5, "files": 2}]
    (model / "sub" / "w.bin").write_bytes(b"abd")
    assert option_fingerprints([("parser.model", str(model))])[0]["sha256"] != expected
    # a name that is no path (a hub id, a spaCy package, the default encoder) has no fingerprint: the config holds it
    assert option_fingerprints([("family.model", "Helsinki-NLP/opus-mt-en-de"), ("family.encoder", "default")]) == []


def test_refresh_version_follows_the_phrase_file_and_the_candidates_file(tmp_path):
    phrases = tmp_path / "phrases.txt"
    phrases.write_text("I think\thedging\n")

    def version(pipeline, *options):
        return dataset_version(run_config_for(RefreshConfig("n", pipeline, str(tmp_path / "root"),
                                                            options=("--sample", *options))))

    dialogue = version("nli-dialogue", f"--phrase-file={phrases}")
    assert version("nli-dialogue", f"--phrase-file={phrases}") == dialogue
    phrases.write_text("I believe\thedging\n")
    assert version("nli-dialogue", f"--phrase-file={phrases}") != dialogue

    candidates = tmp_path / "cands.jsonl"
    candidates.write_text('{"source_id": "paraphrase.tsv:1", "hypotheses": ["a"]}\n')
    flags = ("--generator=candidates", f"--candidates={candidates}")
    dae = version("dae", *flags)
    candidates.write_text('{"source_id": "paraphrase.tsv:1", "hypotheses": ["b"]}\n')
    assert version("dae", *flags) != dae


def test_the_manifest_lists_the_phrase_file_by_content(tmp_path):
    phrases, nli, out = tmp_path / "phrases.txt", tmp_path / "nli.jsonl", tmp_path / "out"
    phrases.write_bytes(b"I think\thedging\n")
    nli.write_text('{"sentence1": "A dog runs.", "sentence2": "An animal moves.", "gold_label": "entailment"}\n')
    assert main(["run", "nli-dialogue", "--input", str(nli), "--phrase-file", str(phrases), "--output", str(out),
                 "--quiet"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["option_files"] == [{"option": "family.phrase_file", "name": "phrases.txt",
                                         "sha256": sha(b"I think\thedging\n"), "bytes": 16}]
