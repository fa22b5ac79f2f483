# The two commands a fresh machine needs: `make demo` and `make test`.
# Both bootstrap .venv from our constraints file first (no caches, no network but PyPI).
PYTHON ?= python3.11
VENV ?= .venv
CONSTRAINTS ?= constraints/constraints-3.3-py3.11.txt
EXTRAS ?= databricks,test
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml $(CONSTRAINTS) | cksum | cut -d' ' -f1)

.PHONY: venv demo test test-unit test-integration crash lint constraints clean

venv: $(STAMP)

$(STAMP):
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c $(CONSTRAINTS) -e ".[$(EXTRAS)]"
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

demo: venv
	$(BIN)/durable-jobs demo

test: venv
	$(BIN)/python -m pytest -q -p no:cacheprovider tests

test-unit: venv
	$(BIN)/python -m pytest -q tests/unit

test-integration: venv
	$(BIN)/python -m pytest -q tests/integration

lint: venv
	$(BIN)/durable-jobs lint example_dags

constraints:
	rm -rf /tmp/dj-constraints && $(PYTHON) -m venv /tmp/dj-constraints
	/tmp/dj-constraints/bin/pip install --quiet ".[$(EXTRAS)]"
	{ head -2 $(CONSTRAINTS); /tmp/dj-constraints/bin/pip freeze --exclude-editable | grep -v '^airflow-durable-jobs'; } > $(CONSTRAINTS).new
	mv $(CONSTRAINTS).new $(CONSTRAINTS)

clean:
	rm -rf $(VENV) .pytest_cache
