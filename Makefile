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

.PHONY: install demo test test-fast test-long lint bench saves clean

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
	$(BIN)/ruff check pbem games tests bench
	$(BIN)/mypy pbem games

bench: install
	$(BIN)/python bench/run_all.py

saves: install
	$(BIN)/python tools/make_example_saves.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info
