# `make play` and `make test` each build .venv with the standard library's venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: play test bench acceptance accept-net clean

$(BIN)/shanghai: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(BIN)/shanghai

play: $(BIN)/shanghai
	$(BIN)/shanghai play

test: $(BIN)/shanghai
	$(BIN)/pytest

# issues 2 and 6: 200 whole games of each preset between four basic bots, without error
# (deterministic: same seed, same games).  CI runs it with -j2 after the tests.
ACCEPT_PRESETS := davis good-miller marcelle carousel
acceptance: accept-net $(ACCEPT_PRESETS:%=accept-%)

accept-%: $(BIN)/shanghai
	PYTHONHASHSEED=0 $(BIN)/shanghai simulate --preset $* --games 200 --seed 2026 --json

# issue 4: whole networked games from the command line (3 and 8 peers, and the clients/ bot
# beside three bot peers), each transcript checked by `shanghai verify`
accept-net: $(BIN)/shanghai
	$(BIN)/python tests/acceptance/net_games.py

bench: $(BIN)/shanghai
	$(BIN)/python benchmarks/simulate.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
