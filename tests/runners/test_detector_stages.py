"""A detector's stages are called as their commands' functions, and detector.json records each as the command a user
could run by hand: the recorded words, parsed by the CLI, give the very options the build called with (no build here:
the stages are only planned)."""
import dataclasses
import json

import pytest

from entailgen.pipelines import get_family
from entailgen.runners import detector as det
from entailgen.runners.cli import make_parser
from entailgen.runners.run_command import checked_config, run_config, run_family
from entailgen.runners.train import train_model, train_options
from entailgen.runners.train_conv import train_conv

SENTENCE = "The council approved the plans for three hundred new homes on the edge of the town on Monday.\n"


def planned(folder, options, quiet):
    (folder / "inputs").mkdir(parents=True)
    (folder / "inputs" / "mine.jsonl").write_text(json.dumps({"id": "a", "text": SENTENCE}) + "\n")
    (folder / "sentences.txt").write_text(SENTENCE)
    (folder / "datasets" / "paraphrase").mkdir(parents=True)
    (folder / "datasets" / "paraphrase" / "paranmt.tsv").write_text(f"{SENTENCE.strip()}\t{SENTENCE.strip()}\t0.9\n")
    return det.stages(str(folder), options, quiet, ["mine.jsonl"])


def test_the_stages_recorded_are_the_commands_a_user_would_type(tmp_path):
    d = str(tmp_path)
    plan = planned(tmp_path, det.DetectorOptions(claims_per_document=2, conv=True, seed=3), quiet=True)
    assert [(s.name, s.target) for s in plan] == [
        ("claims dataset", f"{d}/datasets/claims"), ("paraphrase dataset", f"{d}/datasets/paraphrase"),
        ("dae dataset", f"{d}/datasets/dae"), ("claims member", f"{d}/members/claims-source"),
        ("dae member", f"{d}/members/dae-arcs"), ("Conv head", f"{d}/members/claims-source.conv")]
    assert [" ".join(s.command).replace(d, "DIR") for s in plan] == [
        "run claims --input DIR/inputs/mine.jsonl --claims-per-document 2 --seed 3 --quiet "
        "--output DIR/datasets/claims",
        "run paraphrase --input DIR/sentences.txt --export paranmt --seed 3 --quiet "
        "--output DIR/datasets/paraphrase",
        "run dae --input DIR/datasets/paraphrase/paranmt.tsv --augment word_swap,synonym,hallucination,overlap "
        "--seed 3 --quiet --output DIR/datasets/dae",
        "train DIR/datasets/claims --claims-view source --epochs 1 --device cpu --seed 3 --quiet "
        "--output DIR/members/claims-source",
        "train DIR/datasets/dae --max-examples 12000 --epochs 1 --device cpu --seed 3 --quiet "
        "--output DIR/members/dae-arcs",
        "train-conv DIR/members/claims-source DIR/datasets/claims --max-rows 1000 --device cpu --seed 3 --quiet "
        "--output DIR/members/claims-source.conv"]
    dae = plan[2].call
    assert dae.func is run_family and dae.args[1].augment == ("word_swap", "synonym", "hallucination", "overlap")
    assert plan[4].call.args[2].max_examples == 12000 and plan[3].call.args[2].claims_view == "source"


@pytest.mark.parametrize("quiet", [True, False])
@pytest.mark.parametrize("options", [det.DetectorOptions(), det.DetectorOptions(
    encoder="some/encoder", device="cuda", epochs=2, max_train=50, claims_per_document=3, conv=True, conv_rows=40,
    seed=7)])
def test_each_stage_calls_its_command_with_the_options_its_recorded_words_parse_to(tmp_path, options, quiet):
    for stage in planned(tmp_path, options, quiet):
        words, call = list(stage.command), stage.call
        args = make_parser(words[0]).parse_args(words)
        if call.func is run_family:
            pipeline, family_options, inputs, output = call.args
            assert run_config(args) == checked_config(get_family(pipeline), family_options, inputs, output,
                                                      seed=call.keywords["seed"])
        elif call.func is train_model:
            datasets, output, trained = call.args
            assert (args.dataset, args.output, train_options(args), args.overwrite, args.resume) == (
                datasets, output, trained, False, None)
        else:
            assert call.func is train_conv
            assert (args.model, args.dataset, args.output) == call.args
            assert {k: getattr(args, k) for k in ("max_rows", "seed", "device")} == {
                k: v for k, v in call.keywords.items() if k != "quiet"}
        assert args.quiet == call.keywords["quiet"] == quiet


def test_the_members_trained_from_a_given_encoder_record_it_and_the_default_records_none(tmp_path):
    given = planned(tmp_path / "a", det.DetectorOptions(encoder="enc", members=("dae",)), quiet=False)
    default = planned(tmp_path / "b", det.DetectorOptions(members=("dae",)), quiet=False)
    assert [s.name for s in given] == ["paraphrase dataset", "dae dataset", "dae member"]
    assert given[-1].command[-4:-2] == ("--encoder", "enc") and given[-1].call.args[2].encoder == "enc"
    assert "--encoder" not in default[-1].command and default[-1].call.args[2].encoder == "default"
    assert dataclasses.replace(given[-1].call.args[2], encoder="default") == default[-1].call.args[2]
