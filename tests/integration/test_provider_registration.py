"""Airflow sees the package as a provider (entry point ``apache_airflow_provider``), through its CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import durable_jobs

AIRFLOW = str(Path(sys.executable).with_name("airflow"))


def airflow_json(*args: str) -> list[dict]:
    out = subprocess.run(
        [AIRFLOW, *args, "-o", "json"], check=True, capture_output=True, text=True, env=os.environ.copy(),
        timeout=180,
    ).stdout
    return json.loads(out[out.index("[") :])


@pytest.fixture(scope="module")
def info() -> dict:
    return durable_jobs.get_provider_info()


def test_providers_list_shows_the_package(info):
    [ours] = [p for p in airflow_json("providers", "list") if p["package_name"] == "airflow-durable-jobs"]
    assert ours["version"] == durable_jobs.__version__


def test_providers_links_shows_every_extra_link(info):
    listed = {row["extra_link_class_name"] for row in airflow_json("providers", "links")}
    assert set(info["extra-links"]) <= listed


def test_providers_triggers_shows_the_job_trigger(info):
    rows = airflow_json("providers", "triggers")
    listed = {row["class"] for row in rows if row["package_name"] == "airflow-durable-jobs"}
    assert listed == {m for t in info["triggers"] for m in t["python-modules"]}


def test_providers_hooks_still_shows_the_official_hooks_we_build_on():
    # Our JobClients wrap the official hooks and add no connection type of their own, so
    # `providers hooks` must keep listing the official Databricks hook, unshadowed.
    rows = airflow_json("providers", "hooks")
    databricks = [r for r in rows if r.get("connection_type") == "databricks"]
    assert databricks and databricks[0]["package_name"] == "apache-airflow-providers-databricks"


def test_every_listed_module_and_class_imports(info):
    import importlib

    for section in ("operators", "hooks", "triggers"):
        for entry in info[section]:
            for module in entry["python-modules"]:
                importlib.import_module(module)
    for classpath in info["extra-links"]:
        module, _, name = classpath.rpartition(".")
        assert hasattr(importlib.import_module(module), name)


def test_providers_get_shows_every_registered_operator_module_and_the_config(info):
    from durable_jobs import vendors

    [shown] = airflow_json("providers", "get", "airflow-durable-jobs", "--full")
    modules = {m for entry in shown["operators"] for m in entry["python-modules"]}
    assert {op.module for _, _, op in vendors.operators()} <= modules
    assert {e["integration-name"] for e in shown["integrations"]} >= {s.integration for _, s in vendors.services()}
    assert set(shown["config"][vendors.CONFIG_SECTION]["options"]) == {o.name for o in vendors.config_options()}


@pytest.mark.parametrize("option", ["poll_error_budget", "unknown_state_budget", "http_timeout_seconds",
                                    "aws_list_consistency_seconds"])
def test_the_durable_jobs_config_section_has_its_defaults(option):
    from durable_jobs import vendors

    env = {k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW__DURABLE_JOBS__")}
    out = subprocess.run([AIRFLOW, "config", "get-value", "durable_jobs", option], check=True, capture_output=True,
                         text=True, env=env, timeout=180).stdout
    assert out.strip().splitlines()[-1] == vendors.config_option(option).default
