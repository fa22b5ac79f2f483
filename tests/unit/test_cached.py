"""``fill_cached``: the official hooks' cached connection filled without Python 3.11's class-wide lock.

The deadlock it prevents (a cancel thread holding ``cached_property``'s lock while it waits on the triggerer's
event loop, the loop waiting for the lock) is reproduced here with a thread that holds the lock on one
instance while another instance is filled: with the descriptor, the second access would wait for the first.
"""

from __future__ import annotations

import functools
import sys
import threading

import pytest

from durable_jobs.core.cached import fill_cached


class Hook:
    computed = 0
    inside = threading.Event()
    release = threading.Event()

    def __init__(self, name: str, block: bool = False) -> None:
        self.name = name
        self.block = block

    @functools.cached_property
    def conn(self) -> str:
        type(self).computed += 1
        if self.block:
            type(self).inside.set()
            type(self).release.wait(60)  # the test sets it; 60 s outlasts any wait the test makes on the holder
        return f"conn of {self.name}"

    @functools.cached_property
    def broken(self) -> str:
        raise LookupError("no such connection")


def test_fill_stores_the_value_on_the_instance_and_computes_it_once():
    hook = Hook("a")
    before = Hook.computed
    fill_cached(hook, "conn")
    fill_cached(hook, "conn")
    assert hook.__dict__["conn"] == "conn of a" and hook.conn == "conn of a"
    assert Hook.computed == before + 1


def test_a_failing_property_is_left_to_its_first_use_and_unknown_names_are_ignored():
    hook = Hook("b")
    fill_cached(hook, "broken", "no_such_attribute", "name")  # "name" is a plain attribute, not a descriptor
    assert "broken" not in hook.__dict__
    with pytest.raises(LookupError, match="no such connection"):
        _ = hook.broken


def test_fill_does_not_wait_for_another_instance_holding_the_lock():
    Hook.inside.clear()
    Hook.release.clear()
    holder = threading.Thread(target=lambda: Hook("held", block=True).conn, daemon=True)
    holder.start()
    assert Hook.inside.wait(30), "the holder thread never entered the property"
    try:
        filled = threading.Thread(target=fill_cached, args=(Hook("other"), "conn"), daemon=True)
        filled.start()
        filled.join(30)  # milliseconds of work; only waiting for the holder (60 s) reaches this bound
        assert not filled.is_alive(), "fill_cached waited for another instance's computation"
        if sys.version_info < (3, 12):  # the lock this avoids: the descriptor itself waits on 3.11
            through_descriptor = threading.Thread(target=lambda: Hook("third").conn, daemon=True)
            through_descriptor.start()
            through_descriptor.join(0.5)
            assert through_descriptor.is_alive(), "3.11's cached_property no longer locks per class"
    finally:
        Hook.release.set()
        holder.join(5)


@pytest.mark.parametrize(("classpath", "attribute"), [
    ("airflow.providers.databricks.hooks.databricks_base.BaseDatabricksHook", "databricks_conn"),
    ("airflow.providers.amazon.aws.hooks.base_aws.AwsGenericHook", "conn_config"),
    ("airflow.providers.snowflake.hooks.snowflake.SnowflakeHook", "_get_static_conn_params"),
])
def test_the_official_hooks_still_cache_these_connections_in_a_cached_property(classpath, attribute):
    """The names our clients fill; if a provider renames or stops caching one, the fill would silently do
    nothing, so this fails and the name in our client must follow."""
    import importlib

    module, _, name = classpath.rpartition(".")
    cls = getattr(importlib.import_module(module), name)
    assert isinstance(getattr(cls, attribute), functools.cached_property)


def test_the_snowflake_client_fills_its_hooks_connection(monkeypatch):
    from durable_jobs.providers.snowflake.clients.snowflake_sql_api import SnowflakeSqlApiJobClient

    monkeypatch.setenv("AIRFLOW_CONN_SNOWFLAKE_DEFAULT",
                       '{"conn_type": "snowflake", "login": "user", "password": "pat", '
                       '"extra": {"account": "acct", "warehouse": "wh"}}')
    hook = SnowflakeSqlApiJobClient().hook
    assert hook.__dict__["_get_static_conn_params"]["account"] == "acct"


def test_the_databricks_client_fills_its_hooks_connection(monkeypatch):
    from durable_jobs.providers.databricks.clients.databricks import DatabricksJobClient

    monkeypatch.setenv("AIRFLOW_CONN_DATABRICKS_DEFAULT",
                       '{"conn_type": "databricks", "host": "https://127.0.0.1:1", "password": "token"}')
    hook = DatabricksJobClient()._make_hook()
    assert hook.__dict__["databricks_conn"].host == "https://127.0.0.1:1"
