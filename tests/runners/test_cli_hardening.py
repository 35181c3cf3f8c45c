"""Issue #12, the CLI's part: nothing a user owns is deleted, bad input is one line and exit 2 (checked before the
job starts), conflicting flags are refused, runs clean up after themselves and say what they do."""
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from entailgen.runners.cli import main


def one_error_line(capsys) -> str:
    """The single stderr line of a refused command (asserting it is one line, without a traceback)."""
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("entailgen: error: "), err
    return err[0].removeprefix("entailgen: error: ")


@pytest.fixture
def corpus(tmp_path) -> Path:
    path = tmp_path / "c.txt"
    path.write_text("The cat sat on the mat.\nDogs bark.\n")
    return path


def parse_args(corpus, output, *extra):
    return ["run", "parse", "--input", str(corpus), "--output", str(output), "--quiet", "--splits", "train=1", *extra]


# -- item 1: --overwrite replaces only an entailgen dataset, and only once the new one is complete ------------------

def test_overwrite_refuses_a_folder_of_user_files_and_deletes_nothing(tmp_path, corpus, capsys):
    out = tmp_path / "mine"
    (out / "sub").mkdir(parents=True)
    (out / "important.txt").write_text("keep me")
    (out / "sub" / "notes.md").write_text("and me")
    assert main(parse_args(corpus, out, "--overwrite")) == 2
    assert one_error_line(capsys) == (f"output directory is not empty and holds nothing entailgen wrote: {out} "
                                      "(entailgen replaces only its own outputs; choose another --output)")
    assert (out / "important.txt").read_text() == "keep me" and (out / "sub" / "notes.md").read_text() == "and me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt", "mine"]  # no build folder was started


def test_an_input_inside_the_output_is_refused(tmp_path, capsys):
    out = tmp_path / "data"
    out.mkdir()
    (out / "manifest.json").write_text("{}")
    inside = out / "c.txt"
    inside.write_text("The cat sat.\n")
    assert main(parse_args(inside, out, "--overwrite")) == 2
    assert one_error_line(capsys) == f"input {inside} is inside --output {out}; write the parse dataset somewhere else"
    assert inside.read_text() == "The cat sat.\n"


def test_a_dataset_or_an_interrupted_run_needs_overwrite(tmp_path, corpus, capsys):
    dataset, interrupted = tmp_path / "d", tmp_path / "i"
    dataset.mkdir(), interrupted.mkdir()
    (dataset / "manifest.json").write_text('{"pipeline": "parse", "record_type": "ParsedSentence", "shards": []}')
    (interrupted / ".entailgen-run").write_text("{}")
    (interrupted / "train").mkdir()
    assert main(parse_args(corpus, dataset)) == 2
    assert one_error_line(capsys) == (f"output directory holds an entailgen parse dataset: {dataset} (pass --overwrite "
                                      "to replace it)")
    assert main(parse_args(corpus, interrupted)) == 2
    assert one_error_line(capsys) == (f"output directory holds an interrupted entailgen run: {interrupted} "
                                      "(pass --overwrite to replace it)")


def test_a_failed_run_leaves_the_old_dataset_serving_and_a_good_one_replaces_it(tmp_path, corpus, monkeypatch,
                                                                                capsys):
    import entailgen.transforms.parser as parse

    out = tmp_path / "out"
    assert main(parse_args(corpus, out)) == 0
    old = (out / "manifest.json").read_bytes()
    assert json.loads(old)["counts"]["total"]["written"] == 2

    corpus.write_text("One sentence only.\n")

    def broken_model(model=None):
        raise OSError("model files damaged")

    monkeypatch.setattr(parse, "load_spacy", broken_model)  # fails inside the job, after it started
    with pytest.raises(Exception, match="model files damaged"):
        main(parse_args(corpus, out, "--overwrite"))
    assert (out / "manifest.json").read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt", "out"]  # the build folder is gone

    monkeypatch.undo()
    (tmp_path / ".out.entailgen-partial").mkdir()  # as a killed run leaves it: marked as entailgen's
    (tmp_path / ".out.entailgen-partial" / ".entailgen-run").write_text("{}")
    capsys.readouterr()
    assert main(parse_args(corpus, out, "--overwrite")) == 0
    assert f"a previous run into {out} was interrupted; starting over" in capsys.readouterr().err
    assert json.loads((out / "manifest.json").read_text())["counts"]["total"]["written"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt", "out"]
    assert not [p for p in out.rglob(".*")]  # no marker, runs, staging or temp file


# -- item 5: one line and exit 2, before the job starts -------------------------------------------------------------

@pytest.mark.parametrize("extra, expected", [
    (["--num-shards", "0"], "--num-shards must be at least 1, got 0"),
    (["--runner=NoSuchRunner"], "unknown --runner NoSuchRunner"),
    (["--runner=DataflowRunner"], "DataflowRunner needs --temp_location gs://BUCKET/tmp for the parse job"),
    (["--parser", "stanza"], "--parser stanza needs --parser-model DIR (a local Stanza model directory)"),
    (["--parser-model", "no_such_spacy_model"],
     "cannot load spaCy model no_such_spacy_model: no installed package or directory of that name"),
])
def test_bad_run_options_are_one_line_and_exit_2(tmp_path, corpus, capsys, extra, expected):
    assert main(parse_args(corpus, tmp_path / "out", *extra)) == 2
    assert one_error_line(capsys) == expected
    assert not (tmp_path / "out").exists()


def test_dataflow_with_local_paths_is_refused(tmp_path, corpus, capsys):
    out = tmp_path / "out"
    cloud = ["--runner=DataflowRunner", "--project=p", "--region=r", "--temp_location=gs://b/tmp",
             "--sdk_container_image=gcr.io/p/entailgen:1"]
    assert main(parse_args(corpus, out, *cloud)) == 2
    assert one_error_line(capsys) == (f"DataflowRunner workers cannot reach local paths: {corpus}, {out}; "
                                      "copy them to gs://")


def test_model_dirs_that_cannot_load_name_the_path_and_the_reason(tmp_path, corpus, capsys):
    bad = tmp_path / "spacy_model"
    bad.mkdir()
    (bad / "config.cfg").write_text("[nlp\n")
    assert main(parse_args(corpus, tmp_path / "o", "--parser-model", str(bad))) == 2
    assert one_error_line(capsys).startswith(f"cannot load spaCy model {bad}: bad config.cfg (")
    assert main(parse_args(corpus, tmp_path / "o", "--parser-model", str(tmp_path))) == 2
    assert one_error_line(capsys) == f"cannot load spaCy model {tmp_path}: not a spaCy pipeline (no config.cfg)"
    assert main(parse_args(corpus, tmp_path / "o", "--parser", "stanza", "--parser-model", "/no/such/dir")) == 2
    assert one_error_line(capsys) == "cannot load Stanza model /no/such/dir: no such directory"
    # recast parses when it recasts relations (the sample does): its parser model is checked like dae's
    assert main(["run", "recast", "--sample", "--output", str(tmp_path / "o"), "--parser-model", str(tmp_path)]) == 2
    assert one_error_line(capsys) == f"cannot load spaCy model {tmp_path}: not a spaCy pipeline (no config.cfg)"
    dae = ["run", "dae", "--sample", "--output", str(tmp_path / "o"), "--generator", "hf"]
    assert main(dae + ["--model", "/nonexistent"]) == 2
    assert one_error_line(capsys) == "cannot load model /nonexistent: no such directory"
    assert main(dae + ["--model", str(tmp_path)]) == 2
    assert one_error_line(capsys) == f"cannot load model {tmp_path}: no config.json in it (not a saved transformers or CTranslate2 model)"


def test_bad_inputs_and_outputs_are_one_line(tmp_path, corpus, capsys, monkeypatch):
    folder = tmp_path / "folder"
    folder.mkdir()
    assert main(parse_args(folder, tmp_path / "o")) == 2
    assert one_error_line(capsys) == (f"input {folder} is a folder but not an entailgen dataset (it has no "
                                      f"manifest.json); give a finished dataset's folder, or files or a glob (e.g. "
                                      f"{folder}/*)")
    real_open = open

    def unreadable(path, *args, **kwargs):  # chmod 000 does not stop root, who runs the CI
        if str(path) == str(corpus):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", unreadable)
    assert main(parse_args(corpus, tmp_path / "o")) == 2
    assert one_error_line(capsys) == f"cannot read input {corpus}: Permission denied"
    monkeypatch.undo()
    assert main(parse_args(corpus, corpus)) == 2
    assert one_error_line(capsys) == f"--output is a file, not a directory: {corpus}"


def test_report_on_a_corrupt_manifest_or_missing_shard_is_one_line(tmp_path, capsys):
    (tmp_path / "manifest.json").write_text('{"pipeline": "parse", "shards": [')
    assert main(["report", str(tmp_path)]) == 2
    assert one_error_line(capsys).startswith(f"corrupt manifest.json in {tmp_path}: ")
    manifest = {"pipeline": "parse", "shards": [{"path": "train/train-00000-of-00001.parquet"}],
                "dead_letters": {"path": "dead_letters/dead_letters-00000-of-00001.parquet"}}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    (tmp_path / "dead_letters").mkdir()
    (tmp_path / "dead_letters" / "dead_letters-00000-of-00001.parquet").write_bytes(b"")
    assert main(["report", str(tmp_path)]) == 2
    assert one_error_line(capsys) == (f"{tmp_path} is missing 1 shard(s) its manifest lists, "
                                      "e.g. train/train-00000-of-00001.parquet")


def test_schema_into_a_closed_pipe_exits_quietly():
    exe = Path(sys.executable).with_name("entailgen")
    child = subprocess.Popen([str(exe), "schema", "ArcExample"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()  # the reader is gone before the schema is written (as `| head` does)
    err = child.stderr.read().decode()
    assert child.wait(timeout=60) == 0 and err == ""


def test_ctrl_c_during_a_run_is_one_line_exit_130_and_leaves_nothing(tmp_path, corpus, monkeypatch, capsys):
    import entailgen.transforms.parser as parse

    def interrupted(model=None):  # Ctrl-C arrives while the job is running
        os.kill(os.getpid(), signal.SIGINT)
        raise AssertionError("the SIGINT handler should have raised")

    monkeypatch.setattr(parse, "load_spacy", interrupted)
    started_with = signal.signal(signal.SIGINT, signal.default_int_handler)  # as at a terminal, even under `&`
    try:
        assert main(parse_args(corpus, tmp_path / "out")) == 130
        assert capsys.readouterr().err.strip().splitlines() == ["entailgen: interrupted"]
        assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt"]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, started_with)


# -- item 6: conflicting or meaningless options are refused ---------------------------------------------------------

@pytest.mark.parametrize("argv, expected", [
    (["dae", "--candidates", "c.jsonl", "--generator", "apertium"],
     "--candidates is for the candidates generator, not --generator apertium"),
    (["dae", "--model", "some/model"], "--model is for --generator hf or ct2; the apertium generator takes no model"),
    (["dae", "--lexical-ranking", "--generator", "hf", "--model", "some/model"],
     "--lexical-ranking ranks apertium's candidates; the hf generator ranks its own"),
    (["nli-dialogue", "--phrase-subset", "11"], "--phrase-subset 11 is more than the 10 phrases there are"),
    (["nli-dialogue", "--parser", "spacy"], "--parser: the nli-dialogue pipeline does not parse with these options"),
    (["recast", "--phenomena", "ner", "--parser-model", "x", "--parser", "spacy"],
     "--parser and --parser-model: the recast pipeline does not parse with these options"),
    (["recast", "--factuality-threshold", "-0.5"], "--factuality-threshold must be 0 or more, got -0.5"),
    (["parse", "--splits", "train=0.5,test=0.2"], "--splits ratios must sum to 1, got 0.7 in 'train=0.5,test=0.2'"),
    (["parse", "--max-chars", "0"], "--max-chars must be at least 1, got 0"),
])
def test_conflicting_or_meaningless_options_are_refused(tmp_path, capsys, argv, expected):
    assert main(["run", *argv, "--sample", "--output", str(tmp_path / "o")]) == 2
    assert one_error_line(capsys) == expected


def test_candidates_file_selects_the_candidates_generator(tmp_path):
    from entailgen.runners.cli import make_parser
    from entailgen.runners.run_command import run_config

    candidates = tmp_path / "c.jsonl"
    candidates.write_text('{"source_id": "paraphrase.tsv:1", "candidates": ["a"]}\n')
    config = run_config(make_parser().parse_args(["run", "dae", "--sample", "--output", str(tmp_path / "o"),
                                                  "--candidates", str(candidates)]))
    assert config.family.generator == "candidates"
    assert run_config(make_parser().parse_args(["run", "dae", "--sample", "--output", "o"])).family.generator == "apertium"


# -- items 9, 10, 11: cleanup, the runner's name, progress -----------------------------------------------------------

def test_a_run_leaves_no_temp_folders_names_its_runner_and_reports_progress(tmp_path, corpus, monkeypatch, capsys):
    from entailgen.pipelines.base import RunConfig
    from entailgen.runners.run import run_job
    from entailgen.dataset.split import SplitConfig

    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    config = RunConfig(pipeline="parse", inputs=(str(corpus),), output=str(tmp_path / "out"),
                       splits=SplitConfig((("train", 1.0),)))
    manifest = run_job(config, progress_every=0.001)
    assert list(temp.iterdir()) == []  # Beam's staging and worker folders went with the run
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt", "out", "tmp"]
    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert run["runner"] == "DirectRunner (in_memory, 1 worker)"
    assert manifest["metrics"] == {"parsed": 2, "read": 2}
    lines = capsys.readouterr().err.splitlines()
    assert any("  read 2 (" in line for line in lines)  # counted live, as the read stage's bundle finished
    assert any("parsed 2" in line for line in lines)


def test_runner_names_say_the_running_mode():
    from apache_beam.options.pipeline_options import PipelineOptions

    from entailgen.runners.runner import runner_name

    assert runner_name(PipelineOptions([])) == "DirectRunner (in_memory, 1 worker)"
    assert runner_name(PipelineOptions(["--direct_running_mode=multi_processing", "--direct_num_workers=2"])) == \
        "DirectRunner (multi_processing, 2 workers)"
    assert runner_name(PipelineOptions(["--runner=DataflowRunner"])) == "DataflowRunner"


def test_progress_line_shows_stages_in_order_with_the_read_rate_and_dead_letters_summed():
    from entailgen.runners.progress import progress_line

    counters = {"parsed": 30, "read": 20, "parse_dead": 2, "read_dead": 1, "labelled": 12, "overlap_examples": 4}
    assert progress_line(counters, 4.0) == "4.0s  read 20 (5.0/s)  parsed 30  labelled 12  overlap_examples 4  dead 3"
    assert progress_line({}, 0.0) == "0.0s  counters come as the job's stages finish"


def test_beam_noise_is_hidden_from_the_log():
    from entailgen.runners.run_command import _HideBeamNoise

    def record(message):
        return logging.LogRecord("apache_beam", logging.WARNING, __file__, 1, message, None, None)

    noise = _HideBeamNoise()
    assert not noise.filter(record("Discarding unparseable args: ['--quiet']"))
    assert not noise.filter(record("No semi_persistent_directory found in the worker"))
    assert noise.filter(record("model loaded in 3 s"))


def test_formats_lists_every_format_with_its_pipelines_without_importing_beam():
    from entailgen.runners.formats import LAYOUTS
    from entailgen.transforms.io import FORMATS

    from entailgen.pipelines import available, get_family
    from entailgen.pipelines.recast import PHENOMENA, RecastOptions
    from entailgen.runners.formats import EVERY_FORMAT

    assert sorted(LAYOUTS) == sorted(FORMATS)
    widest = {"recast": RecastOptions(phenomena=tuple(PHENOMENA))}  # recasting relations takes text too
    for fmt, (_, pipelines) in LAYOUTS.items():  # the table says what each family's formats() says
        assert {n for n in available() if fmt in get_family(n).formats(widest.get(n))} == \
            set(EVERY_FORMAT + pipelines), fmt
    code = ("import sys; from entailgen.runners.cli import main; main(['formats']); "
            "assert 'apache_beam' not in sys.modules, 'imported beam'")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[0].split() == ["FORMAT", "PIPELINES", "LAYOUT"]
    assert next(l for l in out.splitlines() if l.startswith("paraphrase-tsv ")).split()[1] == "parse,paraphrase,dae"
    assert next(l for l in out.splitlines() if l.startswith("nli-jsonl ")).split()[1] == \
        "parse,paraphrase,nli-dialogue"


def test_help_shows_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["run", "parse", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "shards per split (default: 1)" in text
    assert "(default: train=0.9,dev=0.05,test=0.05)" in text
    assert "seed mixed with each record id for all randomness (default: 0)" in text


def test_caches_outlive_a_runs_private_temp_folder(tmp_path, monkeypatch):
    """A run points TMPDIR at a folder it deletes; the ct2 conversions and the WordNet tree must not live there, or
    every run would convert the model and build the tree again."""
    from entailgen.runners.signals import private_tempdir
    from entailgen.transforms.augment.wordnet import default_cache_dir

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with private_tempdir() as run_tmp:
        assert default_cache_dir("/usr/share/wordnet").startswith(str(tmp_path / "cache" / "entailgen" / "wordnet-"))
        assert not default_cache_dir("/usr/share/wordnet").startswith(run_tmp)


@pytest.mark.parametrize("argv", [["paraphrase", "--generator", "hf"], ["claims", "--backtranslator", "hf"]])
def test_every_family_checks_a_local_model_dir_before_the_job(tmp_path, capsys, argv):
    assert main(["run", *argv, "--model", str(tmp_path / "nope"), "--sample", "--output", str(tmp_path / "o")]) == 2
    assert one_error_line(capsys) == f"cannot load model {tmp_path / 'nope'}: no such directory"


def test_ctrl_c_during_a_multi_processing_run_ends_the_process_in_one_line(tmp_path):
    """The job's gRPC and worker threads are not daemons: after 'interrupted' the process used to stay alive; and
    every worker printed its own KeyboardInterrupt traceback."""
    import time

    exe = Path(sys.executable).with_name("entailgen")
    out = tmp_path / "out"
    job = subprocess.Popen([str(exe), "run", "dae", "--sample", "--output", str(out),
                            "--direct_running_mode", "multi_processing", "--direct_num_workers", "2"],
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        for line in job.stderr:  # progress lines arrive every 5 s off a terminal: the workers are running
            if "generated" in line:
                break
        os.killpg(job.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the driver and its workers get it
        started = time.monotonic()
        assert job.wait(timeout=60) == 130
        assert time.monotonic() - started < 30
        err = job.stderr.read()
        assert err.splitlines()[-1] == "entailgen: interrupted" and "Traceback" not in err, err  # workers ignore it
    finally:
        job.kill()
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no dataset, no build folder, no lock
