# Every target makes its own virtual environment first, so a fresh clone needs only
# python3 (3.11+) and make.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PLAYERS ?= 3
GAME ?= red-dog-junction
# Test worker processes (pytest-xdist): one per core; idle workers steal queued tests.
JOBS ?= auto
PYTEST := $(BIN)/python -m pytest -n $(JOBS) --dist worksteal
# make fuzz: mutations, seed and worker processes (a finding exits 1; see fuzz/README.md).
FUZZ_COUNT ?= 10000
FUZZ_SEED ?= 1
FUZZ_JOBS ?= 2

.PHONY: install demo test test-fast test-long lint bench saves fuzz clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,lint]'
	touch $(STAMP)

demo: install
	$(BIN)/pbem demo $(GAME) --players $(PLAYERS)

test: install
	$(PYTEST)

# Without the long property runs (those marked slow).
test-fast: install
	$(PYTEST) -m "not slow"

# Every property at its full count of random games (tests/support/scale.py).
test-long: install
	PBEM_TEST_LONG=1 $(PYTEST)

lint: install
	$(BIN)/ruff check pbem games tests bench fuzz
	$(BIN)/mypy pbem games fuzz

bench: install
	$(BIN)/python bench/run_all.py

fuzz: install
	$(BIN)/python -m fuzz.run --count $(FUZZ_COUNT) --seed $(FUZZ_SEED) --jobs $(FUZZ_JOBS)

saves: install
	$(BIN)/python tools/make_example_saves.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info fuzz/cache fuzz/findings
