# entailgen's Dataflow GPU worker, for `--sdk_container_image` (docs/running-at-scale.md has the build and push).
# Beam's own Python SDK image of the release setup.py pins, so the worker harness matches the launcher; torch with
# its CUDA libraries; CTranslate2 and the CUDA 12 cuBLAS it loads at run time (libcublas.so.12: the driver Dataflow
# installs does not bring it); spaCy's English model and entailgen itself, from setup.py's pins.
# Build from the repository root: docker build -f runners/dataflow-gpu.Dockerfile -t IMAGE .
# tests/runners/test_dataflow_image.py lints this file (hadolint) and checks its pins against setup.py.
ARG PYTHON_VERSION=3.11
ARG BEAM_VERSION=2.77.0
FROM apache/beam_python${PYTHON_VERSION}_sdk:${BEAM_VERSION}
SHELL ["/bin/bash", "-o", "pipefail", "-c"]

# the driver Dataflow installs (worker_accelerator=...;install-nvidia-driver) is mounted under /usr/local/nvidia
ENV NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_DRIVER_CAPABILITIES=compute,utility \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# the heavy wheels first, in a layer of their own: a code change rebuilds only the layers after it
RUN pip install --no-cache-dir torch==2.13.0 ctranslate2==4.8.5 nvidia-cublas-cu12==12.9.3.13

# CTranslate2 dlopens libcublas.so.12 by name: the loader finds it once its pip folder is in ld.so.conf
RUN python -c "import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], 'lib'))" \
        > /etc/ld.so.conf.d/cublas-cu12.conf \
    && ldconfig \
    && ldconfig -p | grep -q 'libcublas.so.12 '

WORKDIR /opt/entailgen
COPY . src/
# entailgen with setup.py's pins (apache-beam[gcp] is the base image's own release: pip keeps it), then a check that
# the worker imports what the GPU families load: the handlers, CTranslate2 and the spaCy model
RUN pip install --no-cache-dir ./src \
    && rm -rf src \
    && python -c "import ctranslate2, torch, entailgen.transforms.generate.hf, entailgen.transforms.generate.ct2; from entailgen.transforms.parser import load_spacy; load_spacy()"
