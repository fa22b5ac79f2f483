"""The vendor registry is the only hand-written vendor list: everything else must agree with it."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import tomllib

import pytest

import durable_jobs
import durable_jobs.operators
from durable_jobs import vendors
from durable_jobs.hooks.base import JobClient
from durable_jobs.operators.base import DurableJobMixin
from tools.crash_matrix import ROOT

NOT_VENDOR_MODULES = {"base", "checkpoint", "decision", "signature"}


def _load(classpath: str) -> type:
    module, _, name = classpath.rpartition(".")
    return getattr(importlib.import_module(module), name)


def shipped_operators() -> set[str]:
    """Every public durable operator class defined in durable_jobs.operators.*."""
    found = set()
    # walk_packages: a family may be a package of per-service modules (durable_jobs.operators.google.*)
    for info in pkgutil.walk_packages(durable_jobs.operators.__path__, "durable_jobs.operators."):
        leaf = info.name.rpartition(".")[2]
        if leaf in NOT_VENDOR_MODULES or leaf.startswith("_") or info.ispkg:
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (isinstance(obj, type) and issubclass(obj, DurableJobMixin) and not name.startswith("_")
                    and obj.__module__ == module.__name__ and not inspect.isabstract(obj)):
                found.add(f"{obj.__module__}.{name}")
    return found


def test_every_shipped_operator_is_registered_and_every_registered_one_exists():
    registered = {op.classpath for _, _, op in vendors.operators()}
    assert shipped_operators() == registered


@pytest.mark.parametrize("op", [op for _, _, op in vendors.operators()], ids=lambda op: op.name)
def test_each_operator_is_a_drop_in_for_its_official_class(op):
    ours, official = _load(op.classpath), _load(op.official)
    assert ours.__name__ == official.__name__ == op.official_name
    assert issubclass(ours, official) and issubclass(ours, DurableJobMixin)
    assert ours.__mro__.index(DurableJobMixin) < ours.__mro__.index(official)  # the mixin comes first


@pytest.mark.parametrize("service", [s for _, s in vendors.services()], ids=lambda s: s.key)
def test_each_service_client_is_a_job_client(service):
    client = _load(service.client)
    assert issubclass(client, JobClient) and client.__module__ == service.hook_module
    for link in service.extra_links:
        _load(link)


def test_provider_info_is_the_registry():
    info = durable_jobs.get_provider_info()
    integrations = {i["integration-name"] for i in info["integrations"]}
    assert integrations == {s.integration for _, s in vendors.services()} | {durable_jobs.GENERIC_INTEGRATION}
    by_integration = {e["integration-name"]: set(e["python-modules"]) for e in info["operators"]}
    for _, service in vendors.services():
        assert by_integration[service.integration] == {op.module for op in service.operators}
    assert {m for e in info["hooks"] for m in e["python-modules"]} == {s.hook_module for _, s in vendors.services()}
    assert info["triggers"] == [{"integration-name": durable_jobs.GENERIC_INTEGRATION,
                                 "python-modules": [durable_jobs.TRIGGER_MODULE]}]
    assert info["extra-links"] == [link for _, s in vendors.services() for link in s.extra_links]
    options = info["config"][vendors.CONFIG_SECTION]["options"]
    assert set(options) == {o.name for o in vendors.config_options()}
    for option in vendors.config_options():
        assert options[option.name]["default"] == option.default and options[option.name]["description"]


def test_provider_info_follows_airflows_schema():
    import json
    from pathlib import Path

    import jsonschema
    from airflow import __file__ as airflow_init

    schema = json.loads((Path(airflow_init).parent / "provider_info.schema.json").read_text())
    jsonschema.validate(durable_jobs.get_provider_info(), schema)


def test_every_family_extra_exists_in_pyproject():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for family in vendors.families(supported=True):
        assert family.extra in extras, f"pyproject lacks the [{family.extra}] extra of {family.name}"
        assert any(family.provider in req for req in extras[family.extra])
    for family, service in vendors.services():  # a service whose official hook needs another provider
        if service.extra:
            assert service.extra in extras, f"pyproject lacks the [{service.extra}] extra of {service.name}"
            assert any(service.extra_provider in req for req in extras[service.extra])
            assert any(f"[{family.extra}]" in req for req in extras[service.extra]), (
                f"[{service.extra}] must pull in [{family.extra}]")


def test_registry_keys_are_unique_and_lookups_name_what_is_missing():
    keys = [s.key for _, s in vendors.services()]
    assert len(keys) == len(set(keys))
    crash_keys = [op.crash for _, _, op in vendors.operators() if op.crash]
    assert len(crash_keys) == len(set(crash_keys))
    with pytest.raises(KeyError, match="no vendor family 'nope'"):
        vendors.family("nope")
    with pytest.raises(KeyError, match="crash suite's 'nope'"):
        vendors.crash_vendor("nope")
    assert vendors.config_option("aws_list_consistency_seconds").env_var == (
        "AIRFLOW__DURABLE_JOBS__AWS_LIST_CONSISTENCY_SECONDS")


def test_lint_knows_every_registered_family():
    from durable_jobs.lint import vendors as lint_vendors

    for family in vendors.FAMILIES:
        assert family.submit_methods <= lint_vendors.SUBMIT_METHODS
    for _, _, op in vendors.operators():
        assert lint_vendors.is_durable_class(op.classpath)
