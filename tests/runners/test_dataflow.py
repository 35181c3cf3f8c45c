"""Dataflow: defaults added without overriding the user's flags, and every family's job graph translated and staged
for the Dataflow service offline (--dry_run=True: no credentials, no network, nothing submitted)."""
import dataclasses
import tarfile
import types

import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.portability.api import beam_runner_api_pb2
from apache_beam.runners.dataflow.internal import apiclient

import entailgen
from entailgen.pipelines import available
from entailgen.runners.cli import make_parser
from entailgen.runners.run_command import run_config
from entailgen.runners.usage import UsageError
import entailgen.runners.dataflow as dataflow
from entailgen.runners.dataflow import GPU_ACCELERATOR, SETUP_FILE, check_cloud_paths, dataflow_args, needs_gpu
import entailgen.runners.run as run
import entailgen.runners.runner as runner

CLOUD = ["--runner", "DataflowRunner", "--project", "my-project", "--region", "us-central1",
         "--temp_location", "gs://my-bucket/tmp"]
PREBUILT = "--sdk_container_image=us-docker.pkg.dev/my-project/images/entailgen:0.1.0"  # skips the sdist build
GPU_DEFAULTS = [f"--dataflow_service_options={GPU_ACCELERATOR}", "--machine_type=g2-standard-8",
                "--experiments=no_use_multiple_sdk_containers"]


def job_pipeline(config, pipeline_args):
    """The job's pipeline as run_job makes it: its options once (runner_args, Dataflow's defaults), then the graph."""
    return runner.job_pipeline(config, runner.job_options(config, pipeline_args))


def test_other_runners_get_their_flags_back_unchanged():
    local = ["--direct_running_mode=multi_processing", "--direct_num_workers=2"]
    assert dataflow_args("parse", local, gpu=True) == local


def test_cpu_job_is_staged_through_setup_py():
    assert dataflow_args("recast", CLOUD, gpu=False) == CLOUD + [f"--setup_file={SETUP_FILE}"]
    assert SETUP_FILE.is_file() and SETUP_FILE.parent == type(SETUP_FILE)(entailgen.__file__).parent


def test_gpu_job_gets_an_l4_with_driver_a_g2_machine_and_one_sdk_process():
    assert dataflow_args("dae", CLOUD, gpu=True) == CLOUD + [f"--setup_file={SETUP_FILE}"] + GPU_DEFAULTS
    assert dataflow_args("dae", ["--runner=dataflow"] + CLOUD[2:], gpu=True)[-3:] == GPU_DEFAULTS


@pytest.mark.parametrize("user_flag, left_out", [
    ("--worker_machine_type=a2-highgpu-1g", "--machine_type=g2-standard-8"),  # Beam's alias of --machine_type
    ("--dataflow_service_options=worker_accelerator=type:nvidia-tesla-t4;count:1;install-nvidia-driver",
     f"--dataflow_service_options={GPU_ACCELERATOR}"),
    ("--experiments=no_use_multiple_sdk_containers", "--experiments=no_use_multiple_sdk_containers"),
    ("--setup_file=/elsewhere/setup.py", f"--setup_file={SETUP_FILE}"),
    ("--sdk_container_image=us-docker.pkg.dev/p/r/entailgen:0.1.0", f"--setup_file={SETUP_FILE}"),
])
def test_a_flag_the_user_set_is_never_overridden(user_flag, left_out):
    args = dataflow_args("dae", CLOUD + [user_flag], gpu=True)
    assert args[:len(CLOUD) + 1] == CLOUD + [user_flag]
    assert left_out not in args[len(CLOUD) + 1:]
    assert len(args) == len(CLOUD) + 1 + 3  # the other defaults are still added


def test_a_job_that_could_not_run_is_refused_before_submission():
    with pytest.raises(ValueError, match="--temp_location gs://"):
        dataflow_args("parse", CLOUD[:-2], gpu=False)
    with pytest.raises(ValueError, match="no setup.py"):
        dataflow_args("parse", CLOUD, gpu=False, setup_file=None)


def test_gpu_is_the_familys_call(monkeypatch):
    family = types.SimpleNamespace(gpu=lambda options: options.generator == "hf")
    monkeypatch.setattr(dataflow, "get_family", lambda name: family)
    config = types.SimpleNamespace(pipeline="dae", family=types.SimpleNamespace(generator="hf"))
    assert needs_gpu(config)
    assert not needs_gpu(types.SimpleNamespace(pipeline="dae", family=types.SimpleNamespace(generator="apertium")))


@pytest.fixture(autouse=True)
def staging_in_tmp(tmp_path, monkeypatch):
    """Beam stages into a fresh temporary directory it never removes: keep those under the test's tmp_path."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def dry_run_job(pipeline: str, output: str, extra=()):
    """Build a family's sample job for Dataflow and translate it without submitting."""
    config = run_config(make_parser().parse_args(["run", pipeline, "--sample", "--output", output]))
    return dataflow.dry_run(job_pipeline(config, CLOUD + ["--dry_run=True", *extra]))


def staged_files(dataflow_job) -> dict[str, str]:
    """Staged artifact name -> local file, from the job's (single) Docker environment."""
    (env,) = dataflow_job.proto_pipeline.components.environments.values()
    assert env.urn == "beam:env:docker:v1"
    return {beam_runner_api_pb2.ArtifactStagingToRolePayload.FromString(d.role_payload).staged_name:
            beam_runner_api_pb2.ArtifactFilePayload.FromString(d.type_payload).path for d in env.dependencies}


@pytest.mark.parametrize("pipeline", available())
def test_every_family_translates_and_stages_for_dataflow(pipeline):
    dataflow_job = dry_run_job(pipeline, "gs://my-bucket/out")
    names = {t.unique_name for t in dataflow_job.proto_pipeline.components.transforms.values()}
    assert {"Read", "Split", "Shards", "Shards/Spill 0", "Shards/Merge", "DeadLetters", "DeadLetters/Write",
            "Stage"} <= names
    if pipeline in ("parse", "dae"):
        assert "Parse" in names or any(n.endswith("/Parse") for n in names)
    if pipeline == "claims":  # documents parsed and transformed, claims round-tripped through Apertium
        assert {"MakeClaims/Claims", "RoundTrip/RoundTrip"} <= names
    staged = staged_files(dataflow_job)
    assert "workflow.tar.gz" in staged  # the sdist of setup.py, installed on every worker
    with tarfile.open(staged["workflow.tar.gz"]) as sdist:
        members = {m.name.split("/", 1)[1] for m in sdist.getmembers() if "/" in m.name}
    module = "pipelines/" + pipeline.replace("-", "_") + ".py"
    assert {"setup.py", module, "runners/run.py", "samples/text.txt"} <= members


def test_gpu_job_request_asks_for_the_accelerator(monkeypatch):
    monkeypatch.setattr(runner, "needs_gpu", lambda config: True)
    dataflow_job = dry_run_job("parse", "gs://my-bucket/out", [PREBUILT])
    environment = apiclient.Environment(packages=[], options=dataflow_job.options, environment_version="test",
                                        proto_pipeline_staged_url="gs://my-bucket/tmp/pipeline.pb",
                                        proto_pipeline=dataflow_job.proto_pipeline).proto
    (pool,) = environment.worker_pools
    assert pool.machine_type == "g2-standard-8"
    assert GPU_ACCELERATOR in environment.service_options
    assert "no_use_multiple_sdk_containers" in environment.experiments


def test_dry_run_through_run_job_writes_nothing(tmp_path):
    config = run_config(make_parser().parse_args(["run", "parse", "--sample", "--output", str(tmp_path / "o")]))
    assert run.run_job(config, CLOUD + ["--dry_run=True", PREBUILT]) is None
    assert not (tmp_path / "o").exists()


@pytest.mark.skipif("dae" not in available(), reason="dae family not installed")
@pytest.mark.parametrize("generator, extra", [("hf", []), ("ct2", []), ("ct2", ["--compute-type", "bfloat16"])])
def test_dae_generating_with_a_model_gets_gpu_workers_and_beam_search_in_the_graph(generator, extra):
    flags = ["--generator", generator, "--model", "gs://my-bucket/models/paraphraser", *extra]
    config = run_config(make_parser().parse_args(["run", "dae", "--sample", "--output", "gs://my-bucket/o", *flags]))
    assert not needs_gpu(run_config(make_parser().parse_args(["run", "dae", "--sample", "--output", "o"])))
    assert needs_gpu(config)  # the dae Family's gpu hook: a model generator, unless ct2 runs a CPU compute type
    dataflow_job = dataflow.dry_run(job_pipeline(config, CLOUD + ["--dry_run=True", PREBUILT]))
    names = {t.unique_name for t in dataflow_job.proto_pipeline.components.transforms.values()}
    assert {"Generate/Batches/ByBucket", "Generate/BeamSearch"} <= names  # content batches, not bundles
    assert dataflow_job.options.get_all_options()["dataflow_service_options"] == [GPU_ACCELERATOR]


@pytest.mark.skipif("dae" not in available(), reason="dae family not installed")
def test_dae_with_ct2_on_a_cpu_compute_type_stays_on_cpu_workers():
    flags = ["--generator", "ct2", "--model", "gs://my-bucket/m", "--compute-type", "int8"]
    assert not needs_gpu(run_config(make_parser().parse_args(["run", "dae", "--sample", "--output", "o", *flags])))


def test_a_real_dataflow_job_refuses_paths_its_workers_cannot_reach(tmp_path):
    config = run_config(make_parser().parse_args(["run", "parse", "--sample", "--output", str(tmp_path / "o")]))
    with pytest.raises(ValueError, match=r"local paths: .*text\.txt.*, .*/o; copy them to gs://"):
        job_pipeline(config, CLOUD + [PREBUILT])
    remote = dataclasses.replace(config, inputs=("gs://my-bucket/in/text.txt",), output="gs://my-bucket/o")
    check_cloud_paths(remote, PipelineOptions(CLOUD))  # nothing local: accepted


@pytest.mark.skipif("claims" not in available(), reason="claims family not installed")
def test_claims_back_translating_with_hf_gets_gpu_workers_and_beam_search_in_the_graph():
    hf = ["--backtranslator", "hf", "--model", "gs://my-bucket/models/round-trip"]
    config = run_config(make_parser().parse_args(["run", "claims", "--sample", "--output", "gs://my-bucket/o", *hf]))
    assert not needs_gpu(run_config(make_parser().parse_args(["run", "claims", "--sample", "--output", "o"])))
    with pytest.raises(UsageError, match="back-translation is not among --transformations"):  # hf would idle
        run_config(make_parser().parse_args(["run", "claims", "--sample", "--output", "o", *hf,
                                             "--transformations", "negation"]))
    assert needs_gpu(config)
    dataflow_job = dataflow.dry_run(job_pipeline(config, CLOUD + ["--dry_run=True", PREBUILT]))
    names = {t.unique_name for t in dataflow_job.proto_pipeline.components.transforms.values()}
    assert {"RoundTrip/Batches/ByBucket", "RoundTrip/BeamSearch"} <= names  # content batches, not bundles
    assert dataflow_job.options.get_all_options()["dataflow_service_options"] == [GPU_ACCELERATOR]
