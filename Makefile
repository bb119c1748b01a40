# The two commands of the README. Everything else is reachable through `.venv/bin/grasp`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test install

$(BIN)/grasp: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

install: $(BIN)/grasp

# Main job: build the Neo4j runtime on first use, start it, load the demo data, print where to look.
demo: install
	$(BIN)/grasp demo

# All tests: Java plugin tests (JUnit + neo4j-harness, through Maven) then the Python suites against a real server.
test: install
	scripts/ensure-chromium
	GRASP_INSTANCE=test $(BIN)/grasp db build --force --with-tests
	$(BIN)/pytest
