# Every target makes its own virtual environment first, so a fresh clone needs only
# python3 (3.11+) and make.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PLAYERS ?= 3
GAME ?= red-dog-junction
# make fuzz: mutations, seed and worker processes (a finding exits 1; see README, "Fuzzing").
FUZZ_COUNT ?= 10000
FUZZ_SEED ?= 1
FUZZ_JOBS ?= 2

.PHONY: install demo test test-fast lint bench saves fuzz clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,lint]'
	touch $(STAMP)

demo: install
	$(BIN)/pbem demo $(GAME) --players $(PLAYERS)

test: install
	$(BIN)/python -m pytest

test-fast: install
	$(BIN)/python -m pytest -m "not slow"

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
