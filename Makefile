# The two commands a fresh machine needs: `make demo` and `make test`.
# Both bootstrap .venv from our constraints file first (no caches, no network but PyPI).
PYTHON ?= python3.11
VENV ?= .venv
CONSTRAINTS ?= constraints/constraints-3.3-py3.11.txt
EXTRAS ?= databricks,amazon,snowflake,google,google-dataflow,docs,test
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml $(CONSTRAINTS) | cksum | cut -d' ' -f1)

.PHONY: venv demo test check test-unit test-integration crash crash-ci faults lint docs constraints clean compat compat-constraints \
	official official-check lint-eval flake-hunt

venv: $(STAMP)

$(STAMP):
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c $(CONSTRAINTS) -e ".[$(EXTRAS)]"
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

demo: venv
	$(BIN)/durable-jobs demo

# The whole suite: static checks (ruff, mypy), then three lanes side by side (each independent: its own
# AIRFLOW_HOME, emulators and ports), each printing its output in one piece when it ends:
#   test-stacks:   the crash suite (real Airflow processes killed by PID), the fault suite, unit, lint and
#                  docs tests (all of tests/ but tests/integration);
#   test-dags:     the integration tests but the AWS ones (Airflow runs the DAGs against the emulators), then
#                  the official providers' own unit tests against our classes (official-check);
#   test-dags-aws: the Airflow 3.2/2.11 job (compat: its two venvs' pip installs come first, beside the crash
#                  suite's start rather than the fault suite, whose cells bound each call to 1 s), then the
#                  AWS integration tests (moto behind the fault proxy).
# The integration tests mostly wait (on polls, holds, consistency windows: ~60 % of one CPU), so two of them
# beside the CPU-bound crash suite finish sooner than one: 27.5 minutes alone in one process (2026-12-02).
# Any lane failing fails `make test`, after every lane has ended; then tools/test_summary.py prints every failed
# test of every lane with its message (from each lane's JUnit XML), last, where CI's excerpt of the log is.
TEST_LANES := test-stacks test-dags test-dags-aws
AWS_INTEGRATION := tests/integration/test_aws_*.py
.PHONY: $(TEST_LANES)
RESULTS := build/test-results
test: venv check
	@echo "make test: $(TEST_LANES) run side by side; each prints its output when it ends"
	@rm -rf $(RESULTS) && mkdir -p $(RESULTS)
	@$(MAKE) --no-print-directory -j3 --keep-going --output-sync=target $(TEST_LANES); rc=$$?; \
		$(BIN)/python -m tools.test_summary $(RESULTS); exit $$rc

test-stacks: venv
	@echo "=== test-stacks: pytest tests (but tests/integration); started $$(date +%T)"
	$(BIN)/python -m pytest -q -p no:cacheprovider --durations=15 --junitxml=$(RESULTS)/test-stacks.xml tests --ignore=tests/integration
	@echo "=== test-stacks ended $$(date +%T)"

test-dags: venv
	@echo "=== test-dags: pytest tests/integration but $(AWS_INTEGRATION), then official-check; started $$(date +%T)"
	$(BIN)/python -m pytest -q -p no:cacheprovider --durations=15 --junitxml=$(RESULTS)/test-dags.xml tests/integration --ignore-glob='$(AWS_INTEGRATION)'
	$(MAKE) --no-print-directory official-check
	@echo "=== test-dags ended $$(date +%T)"

test-dags-aws: venv
	@echo "=== test-dags-aws: compat, then pytest $(AWS_INTEGRATION); started $$(date +%T)"
	$(MAKE) --no-print-directory compat
	$(BIN)/python -m pytest -q -p no:cacheprovider --durations=15 --junitxml=$(RESULTS)/test-dags-aws.xml $(AWS_INTEGRATION)
	@echo "=== test-dags-aws ended $$(date +%T)"

# Static checks: ruff (with import sorting) and mypy (strict on the protocol modules; pyproject.toml).
check: venv
	$(BIN)/ruff check durable_jobs tools tests docs/_ext example_dags
	$(BIN)/mypy

# Hunt flaky tests: the fault suite with the crash cells of ours, the integration tests and the AWS integration
# tests, side by side as `make test` runs them, beside one busy-loop process per CPU, ROUNDS rounds; prints every
# test that failed at least once, with its message and the load it saw (tools/flake_hunt.py). Not part of
# `make test`: run it before a stop that touches tests. FLAKE_ARGS="--lane faults-crash -- -k athena" narrows it.
ROUNDS ?= 3
flake-hunt: venv
	$(BIN)/python -m tools.flake_hunt --rounds $(ROUNDS) $(FLAKE_ARGS)

test-unit: venv
	$(BIN)/python -m pytest -q tests/unit

test-integration: venv
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/integration

docs: venv
	$(BIN)/sphinx-build -W --keep-going -b html docs build/docs

# Real Airflow processes killed by PID (tests/crash); writes artifacts/crash-matrix.json and .md.
crash: venv
	DJ_CRASH=all DJ_CRASH_ARTIFACTS=1 $(BIN)/python -m pytest -q -p no:cacheprovider tests/crash

# Rows added since the last full `make crash` (both columns), merged into its artifact and marked as re-run
# (WHY, optional, is how the matrix names the re-run; the -k expression otherwise):
#   make crash-rows K="SAGEMAKER or DATAFLOW" WHY="the SageMaker and Dataflow rows, new since the full run"
.PHONY: crash-rows
# WHY inside '...' for the shell: each ' becomes '\'' (a WHY may say "the api-server's")
shell_quoted = $(subst ','\'',$(1))
crash-rows: venv
	@test -n "$(K)" || { echo 'make crash-rows needs K="<pytest -k expression>"'; exit 2; }
	DJ_CRASH=all DJ_CRASH_ARTIFACTS=merge DJ_CRASH_SELECTION='$(call shell_quoted,$(or $(WHY),-k "$(K)"))' $(BIN)/python -m pytest -q -p no:cacheprovider tests/crash -k "$(K)"

# Every vendor x every fault case (tests/faults); writes artifacts/fault-matrix.json (the docs' table).
faults: venv
	DJ_FAULT_ARTIFACTS=1 $(BIN)/python -m pytest -q -p no:cacheprovider tests/faults

# The official providers' own unit tests of every operator we replace (registry -> provider sdist at our
# pinned version, fetched from PyPI into .official-tests/), run against the official classes and against
# ours swapped in under the official names (tests/official). official-check (make test) fails on any
# test that passes upstream and fails with ours unless tests/official/expected.py lists it, and when the
# committed artifacts/official-tests.json no longer matches the run; `make official` rewrites the artifact
# and the README section from a run.
official: venv
	$(BIN)/python -m tests.official.run --write

official-check: venv
	$(BIN)/python -m tests.official.run

crash-ci: venv
	DJ_CRASH=ci $(BIN)/python -m pytest -q -p no:cacheprovider tests/crash

# The crash cells at scale (tests/crash_scale, issue 17): Postgres (metadata DB) and Redis (Celery broker) from
# Debian's packages, installed here when missing (as root, or through sudo), SCALE_PIP from PyPI (pinned in the
# constraints file: the Celery provider, the Redis client, the Postgres drivers for Airflow's sync and async engines); then a
# CeleryExecutor stack with two workers and two triggerers, all on 127.0.0.1, killed by PID cell by cell. Writes
# artifacts/crash-scale.json and .md (the crash matrix's scale section).
SCALE_APT := postgresql redis-server
SCALE_PIP := apache-airflow-providers-celery celery[redis] redis psycopg2-binary asyncpg
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
.PHONY: crash-scale scale-deps
scale-deps: venv
	@if ! command -v redis-server >/dev/null || ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(SCALE_APT); fi
	@$(BIN)/python -c "import asyncpg, celery, psycopg2, redis, airflow.providers.celery" 2>/dev/null || \
		$(BIN)/pip install --quiet -c $(CONSTRAINTS) $(SCALE_PIP)

crash-scale: scale-deps
	DJ_CRASH_SCALE=1 DJ_CRASH_ARTIFACTS=1 $(BIN)/python -m pytest -q -p no:cacheprovider tests/crash_scale

# Some scale cells again, merged into artifacts/crash-scale.json (as crash-rows does for the crash matrix):
#   make crash-scale-rows K="TRIGGERER" WHY="the 200-job triggerer cells, run alone"
.PHONY: crash-scale-rows
crash-scale-rows: scale-deps
	@test -n "$(K)" || { echo 'make crash-scale-rows needs K="<pytest -k expression>"'; exit 2; }
	DJ_CRASH_SCALE=1 DJ_CRASH_ARTIFACTS=merge DJ_CRASH_SELECTION='$(call shell_quoted,$(or $(WHY),-k "$(K)"))' $(BIN)/python -m pytest -q -p no:cacheprovider tests/crash_scale -k "$(K)"

lint: venv
	$(BIN)/durable-jobs lint example_dags

# The lint measured on real DAGs (tests/lint/corpus/realworld, every file judged in manifest.toml): precision
# and recall per rule; fails below 95 % precision, below 90 % recall or on an error-level false positive.
# Rewrites artifacts/lint-eval.json and the measured table in docs/lint.md. `make test` runs the same check
# (tests/lint/test_lint_realworld.py).
lint-eval: venv
	$(BIN)/python -m tools.lint_eval --docs

# Re-resolve the pins from scratch. With the google extra pip's resolver can backtrack for a long time
# (google-genai caps tenacity <9.2, litellm pins aiohttp); the google pins of 2026-11-30 were resolved
# with `uv pip compile` taking the previous file as preferences (the old pins kept wherever they fit).
constraints:
	rm -rf /tmp/dj-constraints && $(PYTHON) -m venv /tmp/dj-constraints
	/tmp/dj-constraints/bin/pip install --quiet ".[$(EXTRAS)]"
	{ head -2 $(CONSTRAINTS); /tmp/dj-constraints/bin/pip freeze --exclude-editable | grep -v '^airflow-durable-jobs'; } > $(CONSTRAINTS).new
	mv $(CONSTRAINTS).new $(CONSTRAINTS)

# Compatibility job: the package on Airflow 3.2 and 2.11 with the provider versions pinned for 3.3,
# each in .venv-compat/<short>/ built from constraints/constraints-<short>-py3.11.txt without pip's
# cache, then the subset in tests/compat run through Airflow itself (dag.test) by that venv's python:
# the Databricks and Snowflake operators against their emulators, the AWS ones against moto behind the
# fault proxy.
# `make compat` builds and runs the versions side by side (COMPAT_JOBS at a time, each version's
# output printed in one piece when it ends); `make compat-3.2` runs one.
COMPAT_VERSIONS ?= 3.2 2.11
COMPAT_EXTRAS ?= databricks,amazon,snowflake,google
COMPAT_TOOLS ?= pytest jsonschema moto[server,batch,glue,emrserverless,athena]
COMPAT_AIRFLOW_3.2 := 3.2.2
COMPAT_CUTOFF_3.2 := 2026-06-03
COMPAT_AIRFLOW_2.11 := 2.11.2
COMPAT_CUTOFF_2.11 := 2026-03-20
compat_stamp = .venv-compat/$(1)/.installed-$(shell cat pyproject.toml constraints/constraints-$(1)-py3.11.txt | cksum | cut -d' ' -f1)

COMPAT_RUNS := $(addprefix compat-,$(COMPAT_VERSIONS))
COMPAT_VENVS := $(addprefix compat-venv-,$(COMPAT_VERSIONS))
.PHONY: $(COMPAT_RUNS) $(COMPAT_VENVS)

COMPAT_JOBS ?= 2

compat:
	@$(MAKE) --no-print-directory -j$(COMPAT_JOBS) --output-sync=target $(COMPAT_RUNS)

$(COMPAT_RUNS): compat-%: compat-venv-%
	.venv-compat/$*/bin/python -m pytest -c tests/compat/pytest.ini tests/compat

$(COMPAT_VENVS): compat-venv-%:
	@test -f $(call compat_stamp,$*) || { set -e; \
	  rm -rf .venv-compat/$*; $(PYTHON) -m venv .venv-compat/$*; \
	  .venv-compat/$*/bin/pip install --quiet --no-cache-dir --upgrade pip; \
	  .venv-compat/$*/bin/pip install --quiet --no-cache-dir -c constraints/constraints-$*-py3.11.txt \
	    -e ".[$(COMPAT_EXTRAS)]" $(foreach t,$(COMPAT_TOOLS),"$(t)"); \
	  touch $(call compat_stamp,$*); }

compat-constraints:
	$(foreach v,$(COMPAT_VERSIONS),PYTHON=$(PYTHON) constraints/regenerate-compat.sh $(v) $(COMPAT_AIRFLOW_$(v)) $(COMPAT_CUTOFF_$(v)) $(COMPAT_EXTRAS) $(foreach t,$(COMPAT_TOOLS),"$(t)") &&) true

clean:
	rm -rf $(VENV) .venv-compat .pytest_cache .official-tests

# The shared poller vs the official triggers, same run (benchmarks/): prints the table, writes
# benchmarks/results/last.json and docs/_static/bench.png. BENCH_ARGS=--quick for small N.
.PHONY: bench
bench: venv
	$(BIN)/pip install --quiet -c $(CONSTRAINTS) matplotlib
	$(BIN)/python -m benchmarks $(BENCH_ARGS)
