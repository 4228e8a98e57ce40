# The project's commands.  `make run` and `make test` set everything up themselves.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
SRC    := libs tests bench services
JOBS   ?= 2

.PHONY: help setup test lint typecheck unit bench run lock clean

help:
	@echo "make run    - play hands of every game with reference bots"
	@echo "make test   - lint, type-check and run the whole test suite"
	@echo "make bench  - run the benchmarks, write bench/results.json"
	@echo "make lock   - re-resolve requirements/dev.lock from pyproject.toml"

$(STAMP): pyproject.toml requirements/dev.lock
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements/dev.lock
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(STAMP)

setup: $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check $(SRC)
	$(VENV)/bin/ruff format --check $(SRC)

typecheck: $(STAMP)
	$(VENV)/bin/mypy

unit: $(STAMP)
	$(VENV)/bin/pytest -n $(JOBS) -p no:cacheprovider

test: lint typecheck unit

bench: $(STAMP)
	$(PY) -m bench.run

run: $(STAMP)
	$(PY) -m services.selfplay

lock: $(STAMP)
	$(VENV)/bin/uv pip compile pyproject.toml --extra dev --extra bench \
	  --python-version 3.11 -o requirements/dev.lock

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
