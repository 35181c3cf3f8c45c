"""`entailgen --help` says in one line what each command does, and `--quiet` / `--format` mean the same on every
command that writes output: with --quiet only the path(s) written reach the terminal."""
import json
import re

import pytest

from entailgen.pipelines import FAMILY_MODULES
from entailgen.runners import detector as det
from entailgen.runners.cli import COMMAND_HELP, make_parser, main
from trainer_fixtures import dae_model, pair_model, tiny_encoder, write_dataset  # noqa: F401 (fixtures)

COMMANDS = ["run", "schema", "formats", "report", "refresh", "train", "evaluate", "score", "train-conv", "detector",
            "benchmarks"]
WRITERS = {"run": "the dataset path", "score": "the scores dir", "train": "the model dir", "train-conv": "the Conv dir",
           "detector": "the detector dir", "refresh": "the current version's path",
           "report": "the paths written (report prints nothing else)"}
SHARD_WRITERS = ["run", "score"]


def top_level_lines(capsys, monkeypatch) -> tuple[dict[str, str], dict[str, int]]:
    """`entailgen --help` at 80 columns: each command's text (joined over wrapped lines) and its count of lines."""
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    block = text.split("positional arguments:\n")[1].split("\noptions:")[0].splitlines()[1:]  # after the {a,b,...} row
    rows: dict[str, list[str]] = {}
    for line in block:
        if line.startswith("    ") and not line.startswith("      "):  # a command's own row
            name, _, help_text = line.strip().partition(" ")
            rows[name] = [help_text.strip()]
        else:  # a wrapped continuation
            rows[name].append(line.strip())
    return {name: " ".join(parts) for name, parts in rows.items()}, {name: len(parts) for name, parts in rows.items()}


def test_help_gives_each_command_one_line_of_its_own(capsys, monkeypatch):
    texts, lines = top_level_lines(capsys, monkeypatch)
    assert list(texts) == COMMANDS
    assert lines == {name: 1 for name in COMMANDS}  # none wraps at 80 columns
    assert texts["score"] == "score pairs or documents with a model (Beam)"
    assert texts["train-conv"] == "fit a SummaC-Conv head for score --documents"
    assert [name for name, text in texts.items() if "--help" in text or len(text.split()) < 4] == []


@pytest.mark.parametrize("command", ["report", "refresh", "train", "evaluate", "score", "train-conv", "detector"])
def test_a_command_says_the_same_line_whether_its_module_is_loaded_or_not(command):
    def line(parser) -> str:
        commands = next(a for a in parser._actions if a.dest == "command")
        return next(a.help for a in commands._choices_actions if a.dest == command)

    assert line(make_parser(command)) == line(make_parser("schema")) == COMMAND_HELP[command]


@pytest.mark.parametrize("command", ["report", "train", "evaluate", "score", "train-conv", "detector"])
def test_the_commands_are_listed_in_one_order_whichever_module_is_loaded(command):
    # `entailgen --help train` lists them as `entailgen --help` does: each command's module registers its own alone
    def names(parser) -> list[str]:
        return list(next(a for a in parser._actions if a.dest == "command").choices)

    assert names(make_parser(command)) == names(make_parser(None)) == COMMANDS


def parser_of(command: str):
    commands = next(a for a in make_parser(command)._actions if a.dest == "command")
    parser = commands.choices[command]
    if command == "run":
        parser = next(a for a in parser._actions if a.dest == "pipeline").choices["parse"]
    return parser


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_every_command_that_writes_output_takes_quiet_in_the_same_words(command):
    quiet = {a.dest: a for a in parser_of(command)._actions}["quiet"]
    assert quiet.help == f"no progress and no summary, only {WRITERS[command]}"


@pytest.mark.parametrize("command", SHARD_WRITERS)
def test_every_command_that_writes_shards_takes_the_same_format(command):
    fmt = {a.dest: a for a in parser_of(command)._actions}["format"]
    assert (fmt.choices, fmt.default, fmt.help) == (("parquet", "jsonl"), "parquet", "shard format")


def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("The cat sat on the mat.\nDogs bark loudly at night.\n")
    return path


def test_run_quiet_prints_only_the_dataset(tmp_path, capsys):
    out = tmp_path / "data"
    assert main(["run", "parse", "--input", str(corpus(tmp_path)), "--output", str(out), "--splits", "train=1",
                 "--format", "jsonl", "--quiet"]) == 0
    assert capsys.readouterr()[:2] == (f"{out}\n", "")
    assert [p.name for p in (out / "train").iterdir()] == ["train-00000-of-00001.jsonl"]


def test_report_quiet_prints_only_the_paths_written(tmp_path, capsys):
    out = tmp_path / "data"
    assert main(["run", "parse", "--input", str(corpus(tmp_path)), "--output", str(out), "--splits", "train=1",
                 "--quiet"]) == 0
    capsys.readouterr()
    assert main(["report", str(out), "--quiet"]) == 0
    assert capsys.readouterr()[:2] == (f"{out}/README.md\n{out}/report.html\n", "")


def test_refresh_quiet_prints_only_the_current_version(tmp_path, capsys):
    text = tmp_path / "news.csv"
    text.write_text('text,label,item\n"The soup was cold and the waiter ignored us.",0,restaurant\n')
    config = tmp_path / "refresh.json"
    config.write_text(json.dumps({"name": "news", "pipeline": "recast", "inputs": [str(text)],
                                  "root": str(tmp_path / "datasets"), "options": {"splits": "train=1"}}))
    for _ in range(2):  # built, then up to date: the same one line
        assert main(["refresh", str(config), "--quiet"]) == 0
        latest = (tmp_path / "datasets" / "news" / "LATEST").read_text().strip()
        assert capsys.readouterr()[:2] == (f"{tmp_path / 'datasets' / 'news' / latest}\n", "")


def test_score_quiet_prints_only_the_scores_dir(dae_model, tmp_path, capsys, monkeypatch):  # noqa: F811
    from entailgen.runners import progress

    monkeypatch.setattr(progress, "line_every", lambda stream: 0.01)  # were progress on, a line every 10 ms
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"id": "a", "premise": "the dog sees the cat", "hypothesis": "the cat sees the dog"}\n')
    out = tmp_path / "scores"
    assert main(["score", str(dae_model), "--input", str(pairs), "--output", str(out), "--format", "jsonl",
                 "--quiet"]) == 0
    assert capsys.readouterr()[:2] == (f"{out}\n", "")
    assert json.loads((out / "manifest.json").read_text())["counts"]["total"]["written"] == 1


def test_score_without_quiet_says_what_it_scored(dae_model, tmp_path, capsys):  # noqa: F811
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"id": "a", "premise": "the dog sees the cat", "hypothesis": "the cat sees the dog"}\n')
    out = tmp_path / "scores"
    assert main(["score", str(dae_model), "--input", str(pairs), "--output", str(out)]) == 0
    assert capsys.readouterr().out == f"scored 1 of 1 pairs into {out}; 0 dead letters\n"


def test_train_conv_quiet_prints_only_the_conv_dir(pair_model, tmp_path, capsys):  # noqa: F811
    from entailgen.schemas.records import ClaimExample

    blocks = ["the man likes a park", "a dog chases a cat"]

    def row(i: int, correct: bool) -> ClaimExample:
        claim = "a man likes a park" if correct else "a woman likes a dog"
        return ClaimExample(f"c{i}", f"d{i}", " ".join(blocks), blocks, "sentence", claim,
                            "CORRECT" if correct else "INCORRECT", "entailed" if correct else "not-entailed",
                            "entity_swap", blocks[0], False, False, "news", f"news:{i}")

    data = write_dataset(tmp_path / "claims", "ClaimExample", {"train": [row(i, i % 2 == 1) for i in range(4)],
                                                               "dev": [row(4, True), row(5, False)]}, pipeline="claims")
    out = tmp_path / "conv"
    assert main(["train-conv", str(pair_model), str(data), "--output", str(out), "--quiet"]) == 0
    assert capsys.readouterr()[:2] == (f"{out}\n", "")


def test_detector_quiet_prints_only_the_detector_dir(tmp_path, capsys, monkeypatch):
    said = []

    def build(inputs, output, options, overwrite, quiet, say):  # the stages' own output: what say() is handed
        said.append(quiet)
        say("stage 1 of 5: claims")
        return {"documents": {"kept": 1}, "excluded_documents": {"count": 0}, "members": []}

    monkeypatch.setattr(det, "build_detector", build)
    docs = tmp_path / "docs.jsonl"
    docs.write_text('{"id": "a", "text": "A lorry crashed into a house."}\n')
    out = tmp_path / "detector"
    assert main(["detector", "--input", str(docs), "--output", str(out), "--quiet"]) == 0
    assert capsys.readouterr()[:2] == (f"{out}\n", "") and said == [True]
    assert main(["detector", "--input", str(docs), "--output", str(out)]) == 0
    assert capsys.readouterr().err == "stage 1 of 5: claims\ndetector: 1 documents (0 left out), members trained on \n"


@pytest.mark.parametrize("family", FAMILY_MODULES)
def test_every_familys_help_prints_and_exits_0(family, capsys):
    """`entailgen run FAMILY --help` prints its options (a bare % in a help text makes argparse raise instead), each
    default said once: a help that gives its own is not given argparse's too."""
    with pytest.raises(SystemExit) as ended:
        main(["run", family, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert ended.value.code == 0 and "--output" in out
    assert not re.search(r"default\b[^()]*\) \(default", out), out
