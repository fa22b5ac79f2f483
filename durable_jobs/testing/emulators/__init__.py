"""Loopback fakes of vendor job APIs, for tests that must go through the real vendor clients.

Each emulator is a standard-library HTTP server on 127.0.0.1 with a written contract
(``docs/emulators/<vendor>.md``): idempotency rules, a run state machine on a controllable clock,
fault injection (429/5xx, lost replies), request holds for crash tests, and a ledger of every
submission so a test can assert "exactly one run". Nothing here imports Airflow.

Start one with ``python -m durable_jobs.testing.emulators databricks --port 0`` or in-process with
:class:`durable_jobs.testing.emulators.databricks.DatabricksEmulator`; pytest fixtures live in
:mod:`durable_jobs.testing.pytest_plugin`.
"""

from __future__ import annotations
