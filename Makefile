PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8000
RUMMY_DB ?= ./data/rummy.duckdb

.PHONY: venv test lint run bench clean

$(BIN)/activate: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(BIN)/activate

venv: $(BIN)/activate

test: venv
	$(BIN)/ruff check service tests benchmarks
	HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest

lint: venv
	$(BIN)/ruff check service tests benchmarks

run: venv
	mkdir -p $(dir $(RUMMY_DB))
	PORT=$(PORT) RUMMY_DB=$(RUMMY_DB) $(BIN)/gunicorn -c gunicorn.conf.py

bench: venv
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
