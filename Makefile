# `make play` and `make test` each build .venv with the standard library's venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: play test bench clean

$(BIN)/shanghai: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(BIN)/shanghai

play: $(BIN)/shanghai
	$(BIN)/shanghai play

test: $(BIN)/shanghai
	$(BIN)/pytest

bench: $(BIN)/shanghai
	$(BIN)/python benchmarks/simulate.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
