"""``durable-jobs doctor`` on this Airflow: the same fields as on 3.3, with the AIP-103 features probed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import jsonschema
from compat_support import FakeHealth

from durable_jobs import AIP_103_URL
from durable_jobs.doctor import REPORT_SCHEMA, SETTINGS
from durable_jobs.shims import airflow_version, has_state_store

FEATURES = ("task_state_store", "asset_state_store", "resumable_job_mixin", "trigger_on_kill")


def doctor(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "durable_jobs.doctor", *args], capture_output=True, text=True, timeout=120,
        env={**os.environ, **env},
    )


def test_json_report_has_the_same_fields_on_every_version():
    with FakeHealth("healthy") as url:
        proc = doctor("--format", "json", "--api-url", url, AIRFLOW__STATE_STORE__CLEAR_ON_SUCCESS="True")
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    jsonschema.validate(report, REPORT_SCHEMA)
    assert report["airflow"] == airflow_version()
    assert report["providers"]["apache-airflow-providers-databricks"] == "7.23.0"
    assert report["triggerer"]["alive"] is True
    assert report["recommendation"]["mode"] == "deferrable"
    if has_state_store():
        return
    for name in FEATURES:
        assert report["features"][name]["available"] is False
        assert AIP_103_URL in report["features"][name]["note"]
    assert report["crash_safety"]["available"] is False
    assert [(s["section"], s["key"]) for s in report["settings"]] == [(s, k) for s, k, _, _ in SETTINGS]
    assert not any(s["applies"] for s in report["settings"])
    clear = next(s for s in report["settings"] if s["key"] == "clear_on_success")
    assert (clear["value"], clear["source"], clear["warning"]) == ("True", "env", None)
    assert report["warnings"] == []
    assert any("on_kill" in line for line in report["recommendation"]["lines"])


def test_text_report_names_every_field_and_survives_no_api():
    proc = doctor("--api-url", "http://127.0.0.1:9/api/v2/monitor/health", "--timeout", "0.5")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    labels = ("Airflow", "databricks", *FEATURES, "Crash safety", "Triggerer", "Recommendation (undetermined")
    for label in labels:
        assert label in out
    for section, key, _, _ in SETTINGS:
        assert f"[{section}] {key} =" in out
    assert "unknown:" in out
