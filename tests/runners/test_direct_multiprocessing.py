"""Local scale: the DirectRunner's multi-processing mode builds the same bytes as the in-process run (recast family;
the parse family is covered in test_cli.py)."""
import json

import pytest

from entailgen.pipelines import available
from entailgen.runners.cli import main
from dataset_bytes import files


@pytest.mark.skipif("recast" not in available(), reason="recast family not installed")
def test_recast_with_two_worker_processes_is_byte_identical(tmp_path):
    common = ["run", "recast", "--sample", "--num-shards", "2", "--seed", "7", "--quiet"]
    assert main(common + ["--output", str(tmp_path / "one")]) == 0
    assert main(common + ["--output", str(tmp_path / "two"),
                          "--direct_running_mode=multi_processing", "--direct_num_workers=2"]) == 0
    one, two = files(tmp_path / "one"), files(tmp_path / "two")
    assert "manifest.json" in one and sum(k.endswith(".parquet") for k in one) == 7  # 3 splits x 2 + dead letters
    # --sample recasts relations too (samples/kb.tsv): its seeded draws and side-input prior are covered here.
    assert set(json.loads(one["manifest.json"])["stats"]["audit"]) == {"ner", "factuality", "sentiment", "relation"}
    assert one.keys() == two.keys()
    assert [k for k in one if one[k] != two[k]] == []


@pytest.mark.parametrize("args, spread", [
    ([], False),  # the in-process DirectRunner: one worker, nothing to spread over
    (["--runner=DirectRunner", "--direct_num_workers=1"], False),
    (["--direct_running_mode=multi_processing", "--direct_num_workers=2"], True),
    (["--direct_num_workers=0"], True),  # as many workers as cores
    (["--runner=DataflowRunner"], True),
])
def test_read_units_are_redistributed_only_where_there_are_workers_to_spread_over(args, spread):
    from apache_beam.options.pipeline_options import PipelineOptions

    from entailgen.pipelines.graph import spreads_units

    assert spreads_units(PipelineOptions(args)) is spread
