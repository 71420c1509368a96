# `make play` and `make test` each build .venv with the standard library's venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: play test bench acceptance accept-net soak mutate clean

$(BIN)/shanghai: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(BIN)/shanghai

play: $(BIN)/shanghai
	$(BIN)/shanghai play

# One pytest worker per core (pytest-xdist), each taking whole test files: the suite is CPU-bound
# and a file's tests share its helpers' state.  TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= auto

test: $(BIN)/shanghai
	$(BIN)/pytest -rs -n $(TEST_WORKERS) --dist loadfile

# issues 2 and 6: 200 whole games of each preset between four basic bots, without error
# (deterministic: same seed, same games).  CI runs it with -j2 after the tests.
ACCEPT_PRESETS := davis good-miller marcelle carousel phase10
acceptance: accept-net $(ACCEPT_PRESETS:%=accept-%)

accept-%: $(BIN)/shanghai
	PYTHONHASHSEED=0 $(BIN)/shanghai simulate --preset $* --games 200 --seed 2026 --json

# issue 4: whole networked games from the command line (3 and 8 peers, and the clients/ bot
# beside three bot peers), each transcript checked by `shanghai verify`
accept-net: $(BIN)/shanghai
	$(BIN)/python tests/acceptance/net_games.py

# issue 42: the chaos evening, 30 whole games of `shanghai host`, `shanghai bot` and people's
# sessions on 127.0.0.1 while seats are killed, stopped, leave, rejoin, hand over and take back
# and the host is killed and resumed, a third of the tables sharing seeds (benchmarks/soak.py
# says how); each game's seed, record and logs are named if an invariant fails.  20 to 40 minutes
# on a busy 2-core machine; not CI.  SOAK_DRAW=several plays seeds 7 to 9's games again.
SOAK_GAMES ?= 30
SOAK_SEED ?= 1
SOAK_DRAW ?= mixed
soak: $(BIN)/shanghai
	$(BIN)/python benchmarks/soak.py --games $(SOAK_GAMES) --seed $(SOAK_SEED) --draw $(SOAK_DRAW)

bench: $(BIN)/shanghai
	$(BIN)/python benchmarks/simulate.py

# issues 16, 27 and 40: mutation testing of the pure core (rules, engine, deal, wire), the bots,
# the table protocol (table/) and the host's per-connection budgets (net/budget.py, package
# `net`) with mutmut, configured in pyproject.toml's [tool.mutmut]; not part of CI.  A survivor
# is judged as the checks are: a test that kills it, or its row in docs/checks.md saying why
# none can (equivalent).  Every mutant of these
# packages takes hours on two cores: MUTATE_SAMPLE=200 checks that many of each package, drawn
# with a fixed seed (MUTATE_PACKAGES=table MUTATE_SAMPLE=30 make mutate: one package).
# The kill rate of each package is printed at the end, with its surviving mutants
# (`$(BIN)/mutmut show NAME` shows one).  First the mutants and the map of which tests cover
# which function are made (`run` of a name that matches none, which mutmut reports as its error),
# then each package is run.  A sample goes on where the last run stopped (only the mutants not
# judged yet are run; a package whose sample is all judged is skipped): after changing the
# tests, `make clean` first, to judge the sample again.
MUTATE_PACKAGES ?= deal wire rules engine bots table net
MUTATE_SAMPLE ?=
MUTATE_JOBS ?= 1

$(BIN)/mutmut: $(BIN)/shanghai
	$(BIN)/pip install --quiet -e '.[test,mutate]'
	touch $(BIN)/mutmut

mutate: $(BIN)/mutmut
	$(BIN)/python tests/mutation_rates.py check $(MUTATE_PACKAGES)
	$(BIN)/mutmut run --max-children $(MUTATE_JOBS) 'none' > mutants-setup.log 2>&1 || true
	grep -q "nothing matches" mutants-setup.log || { cat mutants-setup.log; exit 1; }
	for package in $(MUTATE_PACKAGES); do \
		names=$$($(BIN)/python tests/mutation_rates.py names $$package $(MUTATE_SAMPLE)); \
		[ -z "$$names" ] || $(BIN)/mutmut run --max-children $(MUTATE_JOBS) $$names \
			> mutants/run-$$package.log 2>&1 || exit 1; \
	done
	$(BIN)/python tests/mutation_rates.py rates $(MUTATE_PACKAGES)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis mutants mutants-setup.log
