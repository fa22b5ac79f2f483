"""The vendor registry is the only hand-written vendor list: everything else must agree with it."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re
import tomllib
from pathlib import Path

import pytest

import durable_jobs
import durable_jobs.providers
from durable_jobs import vendors
from durable_jobs.core.client import JobClient
from durable_jobs.core.mixin import DurableJobMixin
from tools.crash_matrix import ROOT


def _load(classpath: str) -> type:
    module, _, name = classpath.rpartition(".")
    return getattr(importlib.import_module(module), name)


def shipped_operators() -> set[str]:
    """Every public durable operator class defined in an ``operators`` module under durable_jobs.providers."""
    found = set()
    for info in pkgutil.walk_packages(durable_jobs.providers.__path__, "durable_jobs.providers."):
        if info.ispkg or ".operators." not in info.name:
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


# ----------------------------------------------------------------------------- the files a service needs
def _module_file(dotted: str) -> Path:
    return ROOT / (dotted.replace(".", "/") + ".py")


def _names(path: Path, *words: str) -> bool:
    """``path`` exists and its text holds one of ``words``."""
    return path.is_file() and any(word in path.read_text(encoding="utf-8") for word in words)


def _defines(path: Path, name: str) -> bool:
    """``path`` exists and defines the class ``name``."""
    return path.is_file() and re.search(rf"^class {name}\b", path.read_text(encoding="utf-8"), re.M) is not None


def missing_files(family: vendors.Family, service: vendors.Service) -> list[str]:
    """What ``service`` lacks of the files docs/adding-a-vendor.md lists; empty when it has them all."""
    missing = []
    client_module, _, client = service.client.rpartition(".")
    if ".clients." not in client_module or not _defines(_module_file(client_module), client):
        missing.append(f"its client: class {client} in {_module_file(client_module).relative_to(ROOT)} "
                       "(durable_jobs/providers/<family>/.../clients/<service>.py)")
    for op in service.operators:
        if not _defines(_module_file(op.module), op.name):
            missing.append(f"its operator: class {op.name} in {_module_file(op.module).relative_to(ROOT)} "
                           "(the official module's path, airflow. -> durable_jobs.)")
        elif op.module.partition(".operators.")[0] != client_module.partition(".clients.")[0]:
            missing.append(f"its operator {op.name} and its client in the same provider package ({op.module}, "
                           f"{client_module})")
    if bool(service.emulator_class) == bool(service.moto_rules):
        missing.append("its test double: an emulator class (emulator_class) or moto's missing rules (moto_rules), "
                       "one of them")
    elif service.emulator_class:
        module, _, name = service.emulator_class.rpartition(".")
        if not module.startswith("durable_jobs.testing.emulators.") or not _defines(_module_file(module), name):
            missing.append(f"its emulator: class {name} in {_module_file(module).relative_to(ROOT)}")
    elif not service.moto_rules.startswith("durable_jobs.testing.emulators.") or not _module_file(
            service.moto_rules).is_file():
        missing.append(f"its moto rules: {_module_file(service.moto_rules).relative_to(ROOT)}")
    docs = family.docs_of(service)
    if not docs or not (ROOT / docs).is_file():
        missing.append(f"its docs page ({docs or 'Service.docs or Family.docs'})")
    else:
        missing += [f"{op.name} named in its docs page {docs}" for op in service.operators
                    if op.name not in (ROOT / docs).read_text(encoding="utf-8")]
    examples = [op.example for op in service.operators if op.example]
    if not examples:
        missing.append("an example DAG (Operator.example) for one of its operators")
    missing += [f"its example DAG {ex.path} with the task {ex.task!r}" for ex in examples
                if not _names(ROOT / ex.path, f'task_id="{ex.task}"')]
    if service.demo and not _module_file(service.demo).is_file():
        missing.append(f"its demo play: {_module_file(service.demo).relative_to(ROOT)}")
    # its tests, found where the suites keep them (each names the service by its key or crash key)
    keys = [f'"{key}"' for key in dict.fromkeys((service.key, *crash_keys(service)))]
    if not any(_names(path, *(op.name for op in service.operators))
               for path in sorted((ROOT / "tests" / "integration").rglob("*.py"))):
        missing.append("its integration tests: tests/integration/test_*.py (and their dags/) running its operators")
    if not any(_names(path, f'"{service.key}"') for path in sorted((ROOT / "tests" / "faults").glob("targets*.py"))):
        missing.append(f'its fault-suite target: a class in tests/faults/targets*.py for "{service.key}" (AWS: '
                       "its branch of AwsTarget)")
    if not crash_keys(service):
        missing.append("its crash rows: an operator with a crash key (Operator.crash)")
    elif not any(_names(path, *keys) for path in sorted((ROOT / "tests" / "crash").rglob("*.py"))):
        missing.append(f"its crash rows: a tests/crash/crash_*.py naming {' or '.join(keys)}")
    return missing


def crash_keys(service: vendors.Service) -> list[str]:
    return [op.crash for op in service.operators if op.crash]


def not_recorded(service: vendors.Service) -> list[str]:
    """The suites' committed matrices hold its cells: the fault suite's for the service, the crash suite's for
    each operator with crash rows (``make faults`` / ``make crash-rows`` record them)."""
    import json

    faults = json.loads((ROOT / "artifacts" / "fault-matrix.json").read_text(encoding="utf-8"))
    crash = json.loads((ROOT / "artifacts" / "crash-matrix.json").read_text(encoding="utf-8"))
    missing = []
    if not any(cell["vendor"] == service.key for cell in faults["cells"]):
        missing.append(f"{service.key}'s cells in artifacts/fault-matrix.json")
    crashed = {scenario.get("vendor", "databricks") for scenario in crash["scenarios"].values()}
    missing += [f"the {key} rows in artifacts/crash-matrix.json" for key in crash_keys(service) if key not in crashed]
    return missing


@pytest.mark.parametrize(("family", "service"), list(vendors.services()), ids=lambda v: v.key)
def test_each_service_has_every_file_a_service_needs(family, service):
    assert missing_files(family, service) == []
    assert not_recorded(service) == []


def test_a_service_without_its_files_is_named_with_each_one_it_lacks():
    family, real = next(vendors.services())
    ghost = dataclasses.replace(
        real, key="ghost", client="durable_jobs.providers.ghost.clients.ghost.GhostJobClient", docs="docs/ghost.md",
        operators=(vendors.Operator("airflow.providers.ghost.operators.ghost.GhostOperator", "", crash="ghost",
                                    example=vendors.Example("ghost", "haunt")),),
        emulator_class="durable_jobs.testing.emulators.ghost.GhostEmulator", moto_rules="",
        demo="durable_jobs.demo.google_ghost")
    lacks = "\n".join(missing_files(family, ghost) + not_recorded(ghost))
    for part in ("class GhostJobClient", "class GhostOperator", "class GhostEmulator", "docs/ghost.md",
                 "example_dags/ghost.py", "demo/google_ghost.py", "tests/integration/", "tests/faults/",
                 "tests/crash/", "fault-matrix.json", "crash-matrix.json"):
        assert part in lacks, lacks
