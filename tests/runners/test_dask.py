"""Issue #22: entailgen's DaskRunner keeps every output (each fix tested against Beam's stock DaskRunner, which loses
it), builds the DirectRunner's bytes on a 2-worker cluster, and a worker killed mid-job leaves no half dataset."""
import json
import os
import shutil
import signal
import sys
import threading
import time
import uuid
from pathlib import Path

import apache_beam as beam
import cloudpickle
import pytest
from apache_beam.internal.cloudpickle import cloudpickle as beam_cloudpickle
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.runners.dask.dask_runner import DaskRunner as StockDaskRunner
from apache_beam.transforms.window import GlobalWindows
from dask.distributed import Client, LocalCluster, default_client

from entailgen.runners.cli import main
from entailgen.runners.dask import DaskRunner
from entailgen.schemas.reader import read_dataset
from floats import close
from trainer_fixtures import tiny_encoder, train_tiny_dae  # noqa: F401 (tiny_encoder: a fixture)

for _pickler in (cloudpickle, beam_cloudpickle):  # the workers cannot import this test module: ship its DoFns whole
    _pickler.register_pickle_by_value(sys.modules[__name__])

OURS, STOCK = "entailgen", "stock"


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0") as c:
        yield c


@pytest.fixture(scope="module")
def client(cluster):
    with Client(cluster, set_as_default=False) as c:
        yield c


def note(folder: str, text: str) -> None:
    """A file per call in a folder the test reads back: what a worker did, seen from the test process."""
    Path(folder, uuid.uuid4().hex).write_text(text)


def notes(folder) -> list:
    return sorted(json.loads(p.read_text()) for p in Path(folder).iterdir())


def run(kind, cluster, build, tmp_path, *flags):
    """Run build(p) on our or the stock runner; returns (the values reaching its Collect, the result)."""
    got = tmp_path / f"got-{uuid.uuid4().hex}"
    got.mkdir()
    runner = DaskRunner() if kind == OURS else StockDaskRunner()
    p = beam.Pipeline(runner=runner, options=PipelineOptions([f"--dask_client_address={cluster.scheduler_address}",
                                                              *flags]))
    build(p) | "Collect" >> beam.Map(lambda x, f=str(got): note(f, json.dumps(x)))
    result = p.run()
    try:
        result.wait_until_finish()
    finally:
        if kind == STOCK:
            result.client.close()
    return notes(got), result


# -- one test per fix, each on a tiny pipeline; Beam's stock DaskRunner loses what each one keeps ----------------------

class _Halves(beam.DoFn):
    def process(self, x):
        yield x if x % 2 == 0 else beam.pvalue.TaggedOutput("odd", x)


@pytest.mark.parametrize("kind, keeps", [(OURS, True), (STOCK, False)])
def test_each_output_tag_is_its_own_collection(kind, keeps, cluster, tmp_path):
    got, _ = run(kind, cluster, lambda p: (p | beam.Create([1, 2, 3, 4])
                                           | beam.ParDo(_Halves()).with_outputs("odd", main="even")).even, tmp_path)
    assert (got == [2, 4]) is keeps, got  # stock: [1, 2, 3, 4], the odd ones merged into the main output


class _Buffered(beam.DoFn):
    """Emits nothing in process: everything in finish_bundle (as BatchElements and the shard writer do)."""

    def start_bundle(self):
        self.held = []

    def process(self, x):
        self.held.append(x)

    def finish_bundle(self):
        for x in self.held:
            yield GlobalWindows.windowed_value(x * 10)


@pytest.mark.parametrize("kind, keeps", [(OURS, True), (STOCK, False)])
def test_what_finish_bundle_emits_is_kept(kind, keeps, cluster, tmp_path):
    got, _ = run(kind, cluster, lambda p: p | beam.Create([1, 2, 3]) | beam.ParDo(_Buffered()), tmp_path)
    assert (got == [10, 20, 30]) is keeps, got  # stock: []


class _Counted(beam.DoFn):
    def process(self, x):
        beam.metrics.Metrics.counter("entailgen", "seen").inc(x)
        yield x


@pytest.mark.parametrize("kind", [OURS, STOCK])
def test_counters_of_every_bundle_reach_the_result(kind, cluster, tmp_path):
    _, result = run(kind, cluster, lambda p: p | beam.Create(list(range(1, 11))) | beam.ParDo(_Counted()), tmp_path,
                    "--dask_npartitions=3")
    if kind == STOCK:
        with pytest.raises(NotImplementedError):
            result.metrics()
        return
    (seen,) = result.metrics().query(beam.metrics.MetricsFilter().with_name("seen"))["counters"]
    assert seen.committed == 55  # 1 + ... + 10, over three bundles


@pytest.mark.parametrize("kind, once", [(OURS, True), (STOCK, False)])
def test_a_side_input_is_computed_once(kind, once, cluster, tmp_path):
    made = tmp_path / "made"
    made.mkdir()

    def build(p):
        side = p | "Side" >> beam.Create([1, 2]) | "Made" >> beam.Map(lambda x, f=str(made): note(f, "1") or x)
        return (p | "Main" >> beam.Create(list(range(6)))
                | "Use" >> beam.Map(lambda x, s: x + sum(s), beam.pvalue.AsList(side))
                | "UseAgain" >> beam.Map(lambda x, s: x - len(s), beam.pvalue.AsList(side)))

    got, _ = run(kind, cluster, build, tmp_path, "--dask_npartitions=3")
    assert got == [1, 2, 3, 4, 5, 6]
    assert (len(list(made.iterdir())) == 2) is once  # stock: the side input again for each consumer


class _BundleSizes(beam.DoFn):
    def __init__(self, folder):
        self.folder = folder

    def start_bundle(self):
        self.n = 0

    def process(self, x):
        self.n += 1
        yield x

    def finish_bundle(self):
        note(self.folder, str(self.n))


@pytest.mark.parametrize("kind, spread", [(OURS, True), (STOCK, False)])
def test_reshuffle_spreads_a_bundle_over_partitions(kind, spread, cluster, tmp_path):
    sizes = tmp_path / "sizes"
    sizes.mkdir()
    got, _ = run(kind, cluster, lambda p: (p | beam.Create([8]) | beam.FlatMap(lambda n: list(range(n))) | beam.Reshuffle()
                                           | beam.ParDo(_BundleSizes(str(sizes)))), tmp_path, "--dask_npartitions=4")
    assert got == list(range(8))
    assert (notes(sizes) == [2, 2, 2, 2]) is spread, notes(sizes)  # stock: [8], one bundle, one worker


class _SetUp(beam.DoFn):
    def __init__(self, folder):
        self.folder = folder

    def setup(self):
        note(self.folder, str(os.getpid()))

    def process(self, x):
        yield x


@pytest.mark.parametrize("kind, once", [(OURS, True), (STOCK, False)])
def test_dofn_setup_runs_once_per_worker_process(kind, once, cluster, tmp_path):
    setups = tmp_path / "setups"
    setups.mkdir()
    got, _ = run(kind, cluster, lambda p: p | beam.Create(list(range(8))) | beam.ParDo(_SetUp(str(setups))),
                 tmp_path, "--dask_npartitions=8")
    pids = notes(setups)
    assert got == list(range(8))
    assert (len(pids) == len(set(pids)) <= 2) is once, pids  # stock: 8 setups, one per partition


@pytest.mark.parametrize("kind", [OURS, STOCK])
def test_a_bounded_read_reads_every_line(kind, cluster, tmp_path):
    text = tmp_path / "lines.txt"
    text.write_text("".join(f"line {i}\n" for i in range(5)))
    build = lambda p: p | beam.io.ReadFromText(str(text))  # noqa: E731
    if kind == STOCK:  # stock: the Read has no translation, so the Map after it has no bag to map
        with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'map'"):
            run(kind, cluster, build, tmp_path)
        default_client().close()  # the client the stock runner made (its default) before it failed
        return
    got, _ = run(kind, cluster, build, tmp_path)
    assert got == [f"line {i}" for i in range(5)]


# -- entailgen's jobs on a 2-worker cluster: the DirectRunner's bytes, its counts, both workers at work ----------------

SAMPLES = Path(__file__).parents[2] / "samples"


def files(root: Path) -> dict:
    """Every file of a dataset but run.json (which records times and flags), by relative path."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "run.json"}


def executed(dask_worker) -> int:
    return dask_worker.state.executed_count


def on_dask(cluster, *args) -> list:
    return [*args, "--runner", "DaskRunner", f"--dask_client_address={cluster.scheduler_address}"]


@pytest.fixture(scope="module")
def direct(tmp_path_factory):
    """family -> (its job's argv without --output, the DirectRunner's dataset of it), each built once."""
    root, built = tmp_path_factory.mktemp("direct"), {}

    def dataset(job):
        family, *flags = job.split()  # e.g. "claims --overlap-blind": the flags join the job's argv
        if job not in built:
            source = ["--sample", *flags]
            if family == "dae":  # the first 12 pairs of its sample: every stage of dae in a fraction of the time
                path = root / "pairs.tsv"  # (`dae --augment ...` on the whole sample was checked by hand: same bytes)
                path.write_text("".join((SAMPLES / "paraphrase.tsv").read_text().splitlines(keepends=True)[:12]))
                source = ["--input", str(path), *flags]
            argv = ["run", family, *source, "--quiet"]
            assert main(argv + ["--output", str(root / job.replace(" ", ""))]) == 0
            built[job] = argv, root / job.replace(" ", "")
        return built[job]
    return dataset


@pytest.mark.parametrize("family", ["parse", "recast", "claims", "dae", "claims --overlap-blind"])
def test_a_job_on_two_workers_writes_the_direct_runners_bytes(family, cluster, client, direct, tmp_path):
    common, direct_dataset = direct(family)
    before = client.run(executed)
    assert main(on_dask(cluster, *common, "--output", str(tmp_path / "dask"))) == 0
    after = client.run(executed)
    assert len(after) == 2 and all(after[w] > before.get(w, 0) for w in after), (before, after)  # both did work
    direct, dask = files(direct_dataset), files(tmp_path / "dask")
    assert sum(name.endswith(".parquet") for name in direct) >= 2  # shards and the dead letters
    assert direct.keys() == dask.keys()
    assert [name for name in direct if direct[name] != dask[name]] == []
    counts = json.loads(dask["manifest.json"])["counts"]  # from the runner's metrics and the staged counts
    assert counts == json.loads(direct["manifest.json"])["counts"] and counts["total"]["written"] > 0
    run_info = json.loads((tmp_path / "dask" / "run.json").read_text())
    assert run_info["runner"] == f"DaskRunner (entailgen, scheduler {cluster.scheduler_address})"


def test_relative_paths_are_the_drivers_not_the_workers(cluster, tmp_path, monkeypatch):
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "c.txt").write_text("The cat sat on the mat.\nDogs bark.\n")
    monkeypatch.chdir(tmp_path / "here")  # the workers started elsewhere, and stay there
    assert main(on_dask(cluster, "run", "parse", "--input", "c.txt", "--output", "out", "--quiet")) == 0
    manifest = json.loads((tmp_path / "here" / "out" / "manifest.json").read_text())
    assert manifest["counts"]["total"]["written"] == 2


def test_score_on_two_workers_writes_the_direct_runners_bytes(cluster, tiny_encoder, tmp_path):  # noqa: F811
    model = train_tiny_dae(tmp_path / "train", tiny_encoder)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(pair) + "\n" for pair in [
        {"id": "a", "premise": "the dog sees the cat", "hypothesis": "the cat sees the dog"},
        {"id": "b", "premise": "a man likes a park", "hypothesis": "the woman likes the park"},
        {"id": "c", "premise": "the dog sees the cat"}]))
    common = ["score", str(model), "--input", str(pairs)]
    assert main(common + ["--output", str(tmp_path / "direct")]) == 0
    assert main(on_dask(cluster, *common, "--output", str(tmp_path / "dask"))) == 0
    direct, dask = files(tmp_path / "direct"), files(tmp_path / "dask")
    assert direct.keys() == dask.keys()
    # the scores to float rounding: a worker's batch holds other pairs than the direct runner's, and its padding can
    # move a score's last bits and so its 6th digit (then a shard's bytes and sha256); every other byte is the same
    rows = [sorted(read_dataset(str(tmp_path / run), "scored"), key=lambda r: r["source_id"]) for run in ("direct",
                                                                                                          "dask")]
    assert [r["source_id"] for r in rows[0]] == ["a", "b"] and rows[1] == close(rows[0])
    assert [name for name in direct if direct[name] != dask[name] and not name.startswith("scored/")
            and name != "manifest.json"] == []
    manifests = [json.loads(run["manifest.json"]) for run in (direct, dask)]
    for manifest in manifests:
        manifest["shards"] = [{k: v for k, v in shard.items() if k not in ("sha256", "bytes")}
                              for shard in manifest["shards"]]
    assert manifests[0] == manifests[1]
    assert manifests[1]["counts"]["total"] == {"read": 3, "written": 2, "dead_letters": 1, "skipped": 0}


def test_a_worker_killed_mid_job_leaves_no_half_dataset(cluster, client, direct, tmp_path):
    argv, direct_dataset = direct("parse")
    out = tmp_path / "out"
    shutil.copytree(direct_dataset, out)  # the dataset the killed job would replace
    common = [*argv, "--output", str(out), "--overwrite"]
    old = files(out)
    pids = client.run(os.getpid)
    outcome = {}

    def job():
        try:
            outcome["rc"] = main(on_dask(cluster, *common))
        except Exception as e:  # the job failed: KilledWorker, or what the lost worker was running
            outcome["error"] = e

    thread = threading.Thread(target=job)
    thread.start()
    victim, deadline = None, time.monotonic() + 120
    while victim is None and thread.is_alive() and time.monotonic() < deadline:
        busy = [w for w, keys in client.processing().items() if any("Parse/Parse" in str(k) for k in keys)]
        victim = busy[0] if busy else None
        time.sleep(0.02)
    assert victim is not None, "the job ended before a worker could be killed in it"
    os.kill(pids[victim], signal.SIGKILL)  # while it parses a bundle
    thread.join(180)
    assert not thread.is_alive() and outcome, outcome
    # Retried elsewhere, the job wrote the same bytes; failed, it left the old dataset: never a half one.
    assert files(out) == old, outcome
    assert not (tmp_path / ".out.entailgen-partial").exists()
    client.wait_for_workers(2, timeout=60)  # the nanny restarted the killed one


# -- the CLI: which runner, which flags, and one line for what cannot run ----------------------------------------------

def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("entailgen: error: "), err
    return err[0].removeprefix("entailgen: error: ")


def test_dask_runner_names_entailgens_runner_and_its_flags_are_beams():
    from entailgen.runners.beam_flags import check_beam_flags, runner_args

    args = runner_args(["--runner", "DaskRunner", "--dask_npartitions", "3"])
    assert args == ["--runner=entailgen.runners.dask.DaskRunner", "--dask_npartitions", "3"]
    check_beam_flags(args)  # the Dask flags are recognised
    assert runner_args(["--runner=dask"]) == ["--runner=entailgen.runners.dask.DaskRunner"]
    assert runner_args(["--runner=DirectRunner"]) == ["--runner=DirectRunner"]


@pytest.mark.parametrize("flags, said", [
    (["--runner", "apache_beam.runners.dask.dask_runner.DaskRunner"],
     "--runner apache_beam.runners.dask.dask_runner.DaskRunner would lose data: it merges dead letters into the "
     "records, drops the rows DoFns emit in finish_bundle (batched parses, shard runs) and reports no counts for the "
     "manifest; use --runner DaskRunner (entailgen.runners.dask.DaskRunner)"),
    (["--runner", "FlinkRunner"],
     "--runner FlinkRunner needs Beam's job-server jar, which Beam would download from Maven Central: pass "
     "--flink_job_server_jar PATH (the jar from your own mirror) or --job_endpoint of a running job server"),
    (["--runner=SparkRunner"], "--runner SparkRunner needs Beam's job-server jar, which Beam would download from "
     "Maven Central: pass --spark_job_server_jar PATH (the jar from your own mirror) or --job_endpoint of a running "
     "job server"),
    (["--runner=FlinkRunner", "--flink_job_server_jar=/nowhere/job-server.jar"],
     "--flink_job_server_jar /nowhere/job-server.jar: no such file"),
])
def test_a_runner_that_would_lose_data_or_download_a_jar_is_one_line(flags, said, tmp_path, capsys):
    assert main(["run", "parse", "--sample", "--output", str(tmp_path / "out"), *flags]) == 2
    assert one_error_line(capsys) == said
    assert not (tmp_path / "out").exists()


def test_without_the_dask_extra_the_dask_runner_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "entailgen.runners.dask", None)  # as if dask were not installed
    assert main(["run", "parse", "--sample", "--output", str(tmp_path / "out"), "--runner", "DaskRunner"]) == 2
    assert one_error_line(capsys).startswith("the Dask runner needs the dask extra (")
    assert main(["run", "parse", "--sample", "--output", str(tmp_path / "out"), "--dask_npartitions=2"]) == 2
    assert one_error_line(capsys).endswith("): pip install 'entailgen[dask]'")
