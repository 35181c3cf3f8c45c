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

.PHONY: setup sample test bench clean

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

clean:
	rm -rf out build *.egg-info
