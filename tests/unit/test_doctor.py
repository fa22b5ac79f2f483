"""``durable-jobs doctor`` on Airflow 3.3: real config (AIRFLOW__* variables), a loopback health endpoint."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jsonschema
import pytest

from durable_jobs import AIP_103_URL
from durable_jobs.doctor import DEFAULT_BACKEND, REPORT_SCHEMA, SETTINGS, default_health_url, main

FEATURES = ("task_state_store", "asset_state_store", "resumable_job_mixin", "trigger_on_kill")
ENV_KEYS = [f"AIRFLOW__{s.upper()}__{k.upper()}" for s, k, _, _ in SETTINGS]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ENV_KEYS:
        monkeypatch.delenv(name, raising=False)


@contextmanager
def health_endpoint(triggerer_status: str | None = "healthy", *, http_status: int = 200, delay: float = 0.0,
                    body: object = None):
    """A fake API health endpoint on 127.0.0.1 answering like Airflow's /api/v2/monitor/health."""
    reply = body if body is not None else {
        "metadatabase": {"status": "healthy"},
        "scheduler": {"status": "healthy", "latest_scheduler_heartbeat": "2026-01-01T00:00:00+00:00"},
        "triggerer": {"status": triggerer_status, "latest_triggerer_heartbeat": "2026-01-01T00:00:00+00:00"},
    }
    data = json.dumps(reply).encode()
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            hits.append(self.path)
            time.sleep(delay)
            try:
                self.send_response(http_status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up (timeout test)
                pass

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/api/v2/monitor/health", hits
    finally:
        server.shutdown()
        server.server_close()


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/api/v2/monitor/health"


def run_json(capsys, *args: str) -> tuple[int, dict]:
    code = main(["--format", "json", *args])
    out = capsys.readouterr().out
    report = json.loads(out)
    jsonschema.validate(report, REPORT_SCHEMA)
    return code, report


def setting(report: dict, key: str) -> dict:
    return next(s for s in report["settings"] if s["key"] == key)


def test_defaults_on_33_no_warnings(capsys):
    with health_endpoint("healthy") as (url, hits):
        code, report = run_json(capsys, "--api-url", url)
    assert code == 0 and hits == ["/api/v2/monitor/health"]
    assert report["airflow"].startswith("3.3")
    assert report["providers"]["apache-airflow-providers-databricks"] == "7.23.0"
    assert all(report["features"][name]["available"] for name in FEATURES)
    assert report["crash_safety"]["available"] is True
    backend = setting(report, "backend")
    assert (backend["value"], backend["default"]) == (DEFAULT_BACKEND, DEFAULT_BACKEND)
    assert backend["source"] == "default"
    assert [s["value"] for s in report["settings"]] == [d for _, _, d, _ in SETTINGS]
    assert all(s["applies"] and s["warning"] is None for s in report["settings"])
    assert report["warnings"] == []
    assert report["triggerer"]["alive"] is True
    assert report["recommendation"]["mode"] == "deferrable"
    assert not any("on_kill" in line for line in report["recommendation"]["lines"])


def test_clear_on_success_from_env_warns_and_strict_fails(capsys, monkeypatch):
    monkeypatch.setenv("AIRFLOW__STATE_STORE__CLEAR_ON_SUCCESS", "True")
    code, report = run_json(capsys, "--api-url", closed_port_url(), "--strict")
    clear = setting(report, "clear_on_success")
    assert (clear["value"], clear["source"]) == ("True", "env")
    assert "clear" in clear["warning"] and "fresh_on_clear=False" in clear["warning"]
    assert report["warnings"] == [clear["warning"]]
    assert code == 1
    assert main(["--api-url", closed_port_url()]) == 0  # without --strict a warning is not a failure


@pytest.mark.parametrize(
    ("env", "key", "expected"),
    [
        ("AIRFLOW__STATE_STORE__BACKEND", "backend", "does not import"),
        ("AIRFLOW__WORKERS__STATE_STORE_BACKEND", "state_store_backend", "does not import"),
    ],
)
def test_backend_that_does_not_import_warns(capsys, monkeypatch, env, key, expected):
    monkeypatch.setenv(env, "no_such_package.store.Backend")
    _, report = run_json(capsys, "--api-url", closed_port_url())
    entry = setting(report, key)
    assert entry["source"] == "env" and expected in entry["warning"]
    assert "fails its try" in entry["warning"]


def test_backend_that_is_not_a_store_backend_warns(capsys, monkeypatch):
    monkeypatch.setenv("AIRFLOW__STATE_STORE__BACKEND", "collections.OrderedDict")
    _, report = run_json(capsys, "--api-url", closed_port_url())
    assert "not a BaseStoreBackend subclass" in setting(report, "backend")["warning"]


def test_numeric_settings(capsys, monkeypatch):
    monkeypatch.setenv("AIRFLOW__STATE_STORE__MAX_VALUE_STORAGE_BYTES", "100")
    monkeypatch.setenv("AIRFLOW__STATE_STORE__DEFAULT_RETENTION_DAYS", "soon")
    monkeypatch.setenv("AIRFLOW__STATE_STORE__STATE_CLEANUP_BATCH_SIZE", "5000")
    _, report = run_json(capsys, "--api-url", closed_port_url())
    assert "below the ~1 KB checkpoint" in setting(report, "max_value_storage_bytes")["warning"]
    assert "not an integer" in setting(report, "default_retention_days")["warning"]
    batch = setting(report, "state_cleanup_batch_size")
    assert (batch["value"], batch["source"], batch["warning"]) == ("5000", "env", None)
    assert len(report["warnings"]) == 2


@pytest.mark.parametrize("status", ["unhealthy", None])
def test_dead_or_never_started_triggerer_prefers_sync(capsys, status):
    with health_endpoint(status) as (url, _):
        _, report = run_json(capsys, "--api-url", url)
    trig = report["triggerer"]
    assert (trig["reachable"], trig["status"], trig["alive"]) == (True, status, False)
    assert report["recommendation"]["mode"] == "sync"
    text = " ".join(report["recommendation"]["lines"])
    assert "wait_for_termination=True" in text and "mode='reschedule'" in text and "durable=True" in text


def test_unreachable_api_is_reported_not_raised(capsys):
    _, report = run_json(capsys, "--api-url", closed_port_url(), "--timeout", "0.5")
    trig = report["triggerer"]
    assert (trig["reachable"], trig["alive"]) == (False, None)
    assert "refused" in trig["error"].lower()
    assert report["recommendation"]["mode"] == "undetermined"


def test_slow_api_times_out_quickly(capsys):
    # The reply comes 30 s late and the bound is 15 s: a doctor that ignored --timeout 0.3 still fails, while
    # a loaded machine has room for the rest of the report (config, imports) around the 0.3 s wait.
    with health_endpoint("healthy", delay=30.0) as (url, _):
        start = time.monotonic()
        _, report = run_json(capsys, "--api-url", url, "--timeout", "0.3")
        took = time.monotonic() - start
    assert report["triggerer"]["alive"] is None and "timed out" in report["triggerer"]["error"].lower()
    assert took < 15


@pytest.mark.parametrize(
    ("http_status", "body", "reachable"), [(500, None, True), (200, {"unexpected": True}, True)]
)
def test_error_or_odd_reply_is_undetermined(capsys, http_status, body, reachable):
    with health_endpoint("healthy", http_status=http_status, body=body) as (url, _):
        _, report = run_json(capsys, "--api-url", url)
    assert report["triggerer"]["reachable"] is reachable
    assert report["triggerer"]["alive"] is None and report["triggerer"]["error"]
    assert report["recommendation"]["mode"] == "undetermined"


def test_default_url_follows_api_base_url(monkeypatch):
    monkeypatch.setenv("AIRFLOW__API__BASE_URL", "http://airflow.example:9999/prefix/")
    assert default_health_url() == "http://airflow.example:9999/prefix/api/v2/monitor/health"
    monkeypatch.delenv("AIRFLOW__API__BASE_URL")
    monkeypatch.setenv("AIRFLOW__API__PORT", "8181")
    assert default_health_url().endswith(":8181/api/v2/monitor/health")


def test_text_report_has_every_field(capsys, monkeypatch):
    monkeypatch.setenv("AIRFLOW__STATE_STORE__CLEAR_ON_SUCCESS", "True")
    with health_endpoint("unhealthy") as (url, _):
        assert main(["--api-url", url]) == 0
    out = capsys.readouterr().out
    for label in ("Airflow", "databricks", *FEATURES, "Crash safety", "Triggerer   not alive",
                  "Recommendation (sync)", "Warnings"):
        assert label in out, label
    for section, key, _, _ in SETTINGS:
        assert f"[{section}] {key} =" in out
    assert "[state_store] clear_on_success = True  (env)" in out
    assert "  ! [state_store] clear_on_success = True" in out


def test_python_m_doctor_prints_clean_json():
    """``python -m durable_jobs.doctor``: stdout is JSON only, whatever Airflow logs while it loads."""
    env = {**os.environ, "AIRFLOW__STATE_STORE__DEFAULT_RETENTION_DAYS": "7"}
    proc = subprocess.run(
        [sys.executable, "-m", "durable_jobs.doctor", "--format", "json", "--api-url", closed_port_url(),
         "--timeout", "0.5"],
        capture_output=True, text=True, timeout=120, env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    jsonschema.validate(report, REPORT_SCHEMA)
    assert setting(report, "default_retention_days")["value"] == "7"
    assert report["links"]["aip_103"] == AIP_103_URL


# ----------------------------------------------------------------------------- deployment (issue 17)
def _job_table(path, rows):
    """A metadata database holding Airflow's own ``job`` table (its real schema) with these triggerer rows."""
    import datetime as dt

    from airflow.jobs.job import Job
    from sqlalchemy import create_engine, insert

    engine = create_engine(f"sqlite:///{path}")
    Job.__table__.create(engine)
    now = dt.datetime.now(dt.timezone.utc)
    with engine.begin() as conn:
        for job_type, state, age in rows:
            conn.execute(insert(Job.__table__).values(job_type=job_type, state=state, hostname="h",
                                                      latest_heartbeat=now - dt.timedelta(seconds=age)))
    engine.dispose()
    return f"sqlite:///{path}"


@pytest.mark.parametrize(("rows", "live", "words"), [
    ([], 0, "no live triggerer"),
    ([("TriggererJob", "running", 2), ("TriggererJob", "running", 300), ("SchedulerJob", "running", 1)], 1,
     "one triggerer"),
    ([("TriggererJob", "running", 1), ("TriggererJob", "running", 5), ("TriggererJob", "failed", 1)], 2,
     "2 triggerers"),
])
def test_live_triggerers_counted_from_the_job_table(capsys, monkeypatch, tmp_path, rows, live, words):
    monkeypatch.setenv("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", _job_table(tmp_path / "meta.db", rows))
    _, report = run_json(capsys, "--api-url", closed_port_url(), "--timeout", "0.5")
    trig = report["deployment"]["triggerers"]
    assert (trig["live"], trig["error"]) == (live, None)
    assert words in trig["meaning"]
    assert (trig["warning"] is not None) == (live == 1)
    assert (trig["warning"] in report["warnings"]) if live == 1 else True


def test_triggerer_count_error_is_reported_not_raised(capsys, monkeypatch, tmp_path):
    from sqlalchemy import create_engine, text

    engine = create_engine(f"sqlite:///{tmp_path / 'odd.db'}")
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE job (id INTEGER PRIMARY KEY)"))  # a `job` table, not Airflow's
    engine.dispose()
    monkeypatch.setenv("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", f"sqlite:///{tmp_path / 'odd.db'}")
    _, report = run_json(capsys, "--api-url", closed_port_url(), "--timeout", "0.5")
    trig = report["deployment"]["triggerers"]
    assert trig["live"] is None and "no such column" in trig["error"] and "\n" not in trig["error"]


def test_an_empty_metadata_database_says_to_migrate(capsys, monkeypatch, tmp_path):
    (tmp_path / "empty.db").touch()
    monkeypatch.setenv("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", f"sqlite:///{tmp_path / 'empty.db'}")
    code, report = run_json(capsys, "--api-url", closed_port_url(), "--timeout", "0.5", "--strict")
    database = report["deployment"]["database"]
    assert code == 1 and database["migrated"] is False
    assert "has no Airflow tables (never migrated): run `airflow db migrate`" in database["error"]
    assert report["warnings"][0] == database["error"]
    assert report["deployment"]["triggerers"]["error"] == "not counted: the metadata database was never migrated"


def test_a_never_migrated_airflow_home_says_to_migrate_and_creates_no_database(tmp_path):
    """A fresh AIRFLOW_HOME, as a new user has it: the doctor says what to run, and leaves no ``airflow.db``
    behind (an empty one would be a database that merely looks set up)."""
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("AIRFLOW__DATABASE__", "AIRFLOW_CONFIG"))}
    env["AIRFLOW_HOME"] = str(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "durable_jobs.cli", "doctor", "--api-url", closed_port_url(), "--timeout", "0.5",
         "--strict"],
        capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stderr[-3000:]
    said = f"the metadata database {tmp_path / 'airflow.db'} does not exist (never migrated): run `airflow db migrate`"
    assert f"  ! {said}" in proc.stdout
    assert "not counted: the metadata database was never migrated" in proc.stdout
    assert not (tmp_path / "airflow.db").exists()


def test_a_migrated_database_is_reported_as_such(capsys):
    _, report = run_json(capsys, "--api-url", closed_port_url(), "--timeout", "0.5")
    database = report["deployment"]["database"]
    assert (database["migrated"], database["error"]) == (True, None)  # the test session's migrated database


def test_celery_on_postgres_names_visibility_timeout_and_never_the_password(capsys, monkeypatch):
    url = "postgresql+psycopg2://airflow:s3cret-pw@127.0.0.1:1/airflow"
    monkeypatch.setenv("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", url)
    monkeypatch.setenv("AIRFLOW__CORE__EXECUTOR", "CeleryExecutor")
    monkeypatch.setenv("AIRFLOW__CELERY__BROKER_URL", "redis://127.0.0.1:1/0")
    monkeypatch.delenv("AIRFLOW__CELERY_BROKER_TRANSPORT_OPTIONS__VISIBILITY_TIMEOUT", raising=False)
    code = main(["--format", "json", "--api-url", closed_port_url(), "--timeout", "0.5"])
    out = capsys.readouterr().out
    assert code == 0 and "s3cret-pw" not in out
    report = json.loads(out)
    jsonschema.validate(report, REPORT_SCHEMA)
    dep = report["deployment"]
    assert dep["executor"]["executors"] == ["CeleryExecutor"]
    assert dep["executor"]["visibility_timeout"] == 86400
    assert "another worker" in " ".join(dep["executor"]["meaning"])
    assert dep["executor"]["crash_tested"] == [
        "CeleryExecutor: the scale crash suite (Postgres, Redis, CeleryExecutor)"]
    assert dep["database"]["dialect"] == "postgresql" and "Postgres restart" in dep["database"]["meaning"]
    assert dep["database"]["warning"] is None
    assert dep["triggerers"]["live"] is None and dep["triggerers"]["error"]  # nothing listens on port 1

    monkeypatch.setenv("AIRFLOW__CELERY_BROKER_TRANSPORT_OPTIONS__VISIBILITY_TIMEOUT", "600")
    _, report = run_json(capsys, "--api-url", closed_port_url(), "--timeout", "0.5")
    assert report["deployment"]["executor"]["visibility_timeout"] == 600


def test_sqlite_with_a_distributed_executor_warns(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", f"sqlite:///{tmp_path / 'x.db'}")
    monkeypatch.setenv("AIRFLOW__CORE__EXECUTOR", "KubernetesExecutor")
    _, report = run_json(capsys, "--api-url", closed_port_url(), "--timeout", "0.5")
    dep = report["deployment"]
    assert "SIGTERM" in dep["executor"]["meaning"][0] and dep["executor"]["crash_tested"] == []
    assert "cannot reach its file" in dep["database"]["warning"]
    assert dep["database"]["warning"] in report["warnings"]


def test_text_report_has_the_deployment(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN",
                       _job_table(tmp_path / "meta.db", [("TriggererJob", "running", 1)] * 2))
    monkeypatch.setenv("AIRFLOW__CORE__EXECUTOR", "LocalExecutor")
    assert main(["--api-url", closed_port_url(), "--timeout", "0.5"]) == 0
    out = capsys.readouterr().out
    for line in ("Deployment", "  executor    LocalExecutor", "  database    sqlite",
                 "  triggerers  2 live (heartbeat within 30 s)",
                 "crash-tested by: LocalExecutor: the crash suite (SQLite, LocalExecutor)"):
        assert line in out, line
