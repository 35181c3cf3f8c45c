# entailgen: `make sample` sets everything up and builds the sample dataset; `make test` checks the import rules
# (.importlinter) and runs the tests.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
OUT ?= out/sample
PIPELINE ?= dae
DAE_AUGMENT := word_swap,synonym,hallucination,overlap
SAMPLE_FLAGS ?= $(if $(filter dae,$(PIPELINE)),--augment $(DAE_AUGMENT))
APT_PACKAGES := apertium apertium-eng-spa apertium-eng-cat apertium-en-gl wordnet-base wordnet-sense-index \
                chromium chromium-driver
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup sample test bench bench-gpu bench-gpu-wheels clean

setup: $(VENV)/.installed

$(VENV)/.apt:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages: $$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi
	@mkdir -p $(VENV) && touch $@

$(VENV)/.installed: setup.py $(VENV)/.apt
	@[ -x $(PY) ] || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip setuptools wheel
	$(PY) -m pip install -q -e '.[test,dask]'
	@touch $@

sample: setup
	$(VENV)/bin/entailgen run $(PIPELINE) --sample --output $(OUT) --overwrite $(SAMPLE_FLAGS)

test: setup
	$(VENV)/bin/lint-imports --no-cache  # the import rules of .importlinter: layers, families apart, no Beam in scorers
	@$(PY) -m pytest; rc=$$?; \
	if [ $$rc = 5 ]; then echo "pytest collected no tests: the suite is missing" >&2; exit 1; fi; exit $$rc

bench: setup
	$(PY) bench/parse_speed.py

# every GPU figure from one call (bench/gpu.py; JSON in $$OUT/bench-gpu.json, else out/bench-gpu.json). No setup: a GPU
# node has no venv and no network; bench/gpu.sh installs the wheels carried in .whl/ (make bench-gpu-wheels, here).
bench-gpu:
	PY=$(if $(wildcard $(PY)),$(PY),python3) bash bench/gpu.sh $(BENCH_GPU_FLAGS)

# the wheels a GPU node lacks (CTranslate2, the pinned transformers, Accelerate for training), for its Python 3.12, into .whl/ (carry it)
bench-gpu-wheels:
	rm -rf .whl && mkdir -p .whl
	python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
	  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
	  --platform manylinux2014_x86_64 -d .whl ctranslate2==4.8.5 transformers==5.23.0 accelerate==1.15.0
	@du -sh .whl

clean:
	rm -rf out build *.egg-info
