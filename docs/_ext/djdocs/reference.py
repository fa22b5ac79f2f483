"""Reference fragments generated from code: lint rules, parity, configuration, doctor checks."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

#: Short titles for the lint's anti-pattern groups (the rules themselves come from the catalogue).
GROUP_TITLES = {
    0: "The tool itself",
    1: "Variables as per-run or per-retry state",
    2: "XCom as retry memory",
    3: "Hand-written resume logic",
    4: "Watermarks in Variables",
    5: "The submit-and-poll split",
    6: "Deferrable without waiting",
    7: "ResumableJobMixin subclasses",
    8: "State-store misuse",
    9: "Durable operators that cannot reconnect",
    10: "Hand-written submits",
    11: "What the stores are not for",
}
#: Where the guide explains each group.
GROUP_GUIDE = {
    1: "/guide/task-state-store", 2: "/guide/durable-operators", 3: "/guide/durable-operators",
    4: "/guide/asset-state-store", 5: "/guide/one-task-or-two", 6: "/guide/one-task-or-two",
    7: "/guide/durable-operators", 8: "/guide/task-state-store", 9: "/guide/durable-operators",
    10: "/guide/durable-operators", 11: "/guide/choosing",
}
STATE_STORE_SECTION = "state_store"
WORKER_OPTIONS = ("state_store_backend",)


# ----------------------------------------------------------------------------- lint
def _fence(code: str, lang: str = "python") -> str:
    return f"````{lang}\n{code}\n````"


def _before_reports(root: Path) -> dict[str, list[tuple[str, int]]]:
    """Which docs/before file reports which rule, by running the lint on them."""
    from durable_jobs.lint import lint_paths

    reports: dict[str, list[tuple[str, int]]] = {}
    for path in sorted((root / "docs" / "before").glob("*.py")):
        for f in lint_paths([path]):
            reports.setdefault(f.rule, []).append((path.name, f.line))
    return reports


def lint_rule_table() -> str:
    from durable_jobs.lint import RULES
    from tools import lint_eval

    measured = lint_eval.load_artifact()
    rows = ["| id | severity | name | what it reports | precision on real DAGs |", "|---|---|---|---|---|"]
    for rule in RULES.values():
        rows.append(f"| {{ref}}`{rule.id} <rule-{rule.id.lower()}>` | {rule.severity.label} | "
                    f"`{rule.name}` | {_cell(rule.summary)} | {lint_eval.precision_of(measured, rule.id)} |")
    note = ("Precision measured by `make lint-eval` on the judged real-world corpus "
            "(`artifacts/lint-eval.json`; see {doc}`/lint`, \"Measured precision on real DAGs\"); "
            "a dash: the rule neither fired nor was expected there.")
    if measured is None:
        note = "Precision not measured yet: run `make lint-eval` (writes `artifacts/lint-eval.json`)."
    return "\n".join(rows) + "\n\n" + note + "\n"


def lint_rules(root: Path) -> str:
    from durable_jobs.lint import RULES, snippets
    from tools import lint_eval

    reports = _before_reports(root)
    measured = lint_eval.load_artifact(root / "artifacts" / "lint-eval.json")
    out: list[str] = []
    group = None
    for rule in RULES.values():
        if rule.group != group:
            group = rule.group
            title = GROUP_TITLES.get(group, f"Group {group:02d}")
            out.append(f"## {group:02d} · {title}\n")
            if group in GROUP_GUIDE:
                out.append(f"Explained in the guide: {{doc}}`{GROUP_GUIDE[group]}`.\n")
        out.append(f"(rule-{rule.id.lower()})=\n### {rule.id} · `{rule.name}` · {rule.severity.label}\n")
        out.append(f"**{_sentence(rule.summary)}**\n")
        out.append(f"Problem\n: {rule.problem}\n")
        out.append(f"Use instead\n: {rule.primitive}\n")
        if rule.problem_pre33 or rule.primitive_pre33:
            text = " ".join(t for t in (rule.problem_pre33, rule.primitive_pre33) if t)
            out.append(f"Below Airflow 3.3\n: {text}\n")
        elif rule.needs_33:
            out.append("Below Airflow 3.3\n: reported all the same; the finding says that the recommended "
                       "primitive needs Airflow 3.3+ (AIP-103).\n")
        tally = (measured or {}).get("rules", {}).get(rule.id)
        if tally:
            out.append(f"Measured on real DAGs\n: precision {lint_eval.precision_of(measured, rule.id)} "
                       f"({tally['tp']} right, {tally['fp']} wrong, {tally['fn']} missed; `make lint-eval`)\n")
        where = reports.get(rule.id)
        if where:
            links = ", ".join(f"{{download}}`{name} </before/{name}>` line {line}" for name, line in where)
            out.append(f"Reported in the \"before\" snippets\n: {links}\n")
        if snippets.BEFORE.get(rule.id, "").strip():
            out.append("Before:\n\n" + _fence(snippets.BEFORE[rule.id]) + "\n")
        if snippets.AFTER.get(rule.id, "").strip():
            out.append("After:\n\n" + _fence(snippets.AFTER[rule.id]) + "\n")
        if snippets.AFTER_PRE33.get(rule.id, "").strip():
            out.append("After, below Airflow 3.3:\n\n" + _fence(snippets.AFTER_PRE33[rule.id]) + "\n")
    return "\n".join(out)


def _sentence(text: str) -> str:
    return text if text.endswith(".") else text + "."


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


# ----------------------------------------------------------------------------- parity
def operator_pairs(warn) -> list[tuple[type, type]]:
    """(ours, official) for every operator in the vendor registry."""
    from durable_jobs import vendors

    pairs = []
    for _, _, op in vendors.operators():
        try:
            pairs.append((_load(op.classpath), _load(op.official)))
        except Exception as err:  # a vendor extra not installed, or a broken module
            warn(f"cannot import {op.classpath} or {op.official} for the parity table: {type(err).__name__}: {err}")
    return pairs


def _load(classpath: str) -> type:
    module, _, name = classpath.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _params(cls: type) -> dict[str, inspect.Parameter]:
    return {n: p for n, p in inspect.signature(cls.__init__).parameters.items()
            if n != "self" and p.kind is not p.VAR_KEYWORD}


def _same(ours: type, theirs: type, attr: str) -> str:
    a, b = getattr(ours, attr, None), getattr(theirs, attr, None)
    if attr == "operator_extra_links":
        a = [type(x).__name__ for x in a or ()]
        b = [type(x).__name__ for x in b or ()]
    if a == b:
        size = f" ({len(a)})" if isinstance(a, (tuple, list, dict, set, frozenset)) and a else ""
        return f"same{size}"
    return f"**differs**: ours `{a!r}`, official `{b!r}`"


def parity(warn) -> str:
    pairs = operator_pairs(warn)
    rows = ["| operator | constructor | arguments durable-jobs adds (default) | class attributes |",
            "|---|---|---|---|"]
    for ours, theirs in pairs:
        mine, official = _params(ours), _params(theirs)
        missing = [n for n in official if n not in mine]
        changed = [n for n in official if n in mine and (mine[n].default != official[n].default
                                                         or mine[n].kind != official[n].kind)]
        added = [n for n in mine if n not in official]
        if missing or changed:
            ctor = "**differs**: " + ", ".join([f"missing `{n}`" for n in missing]
                                               + [f"`{n}` default/kind" for n in changed])
        else:
            ctor = f"all {len(official)} official arguments, same defaults"
        attrs = {a: _same(ours, theirs, a) for a in ("template_fields", "template_ext",
                                                     "template_fields_renderers", "operator_extra_links")}
        differing = {a: v for a, v in attrs.items() if not v.startswith("same")}
        if differing:
            attr_text = "<br>".join(f"`{a}` {v}" for a, v in differing.items())
        else:
            attr_text = "all same"
        official_module = theirs.__module__.removeprefix("airflow.providers.")
        rows.append(
            f"| `{ours.__name__}`<br>ours: `{ours.__module__}`<br>official: `{official_module}` | {ctor} | "
            f"{', '.join(f'`{n}={mine[n].default!r}`' for n in added) or '—'} | {attr_text} |"
        )
    if not pairs:
        warn("no durable operator found for the parity table")
    return ("\n".join(rows) + "\n\nClass attributes compared: `template_fields`, `template_ext`, "
            "`template_fields_renderers` and the extra links (`operator_extra_links`).\n")


def state_store_keys(warn) -> str:
    """The ``task_state_store`` keys each operator writes: deployed names, never to be renamed."""
    from durable_jobs.core.mixin import CHECKPOINT_SUFFIX

    rows = ["| operator | `external_id_key` (the bare id, as the official operator writes it) | "
            "durable-jobs' record |", "|---|---|---|"]
    for ours, _ in operator_pairs(warn):
        key = ours.external_id_key
        rows.append(f"| `{ours.__name__}` | `{key}` | `{key}{CHECKPOINT_SUFFIX}` |")
    return "\n".join(rows) + "\n"


# ----------------------------------------------------------------------------- configuration
def _config_options() -> list[tuple[str, str, dict]]:
    from airflow.configuration import retrieve_configuration_description

    desc = retrieve_configuration_description()
    options = [(STATE_STORE_SECTION, key, opt) for key, opt in desc[STATE_STORE_SECTION]["options"].items()]
    options += [("workers", key, desc["workers"]["options"][key]) for key in WORKER_OPTIONS]
    return options


def _doctor_settings() -> dict[tuple[str, str], str]:
    from durable_jobs import doctor

    return {(section, key): why for section, key, _default, why in doctor.SETTINGS}


def durable_jobs_configuration() -> str:
    """The ``[durable_jobs]`` options, from the vendor registry (declared to Airflow by provider info)."""
    from durable_jobs import vendors

    out = []
    for option in vendors.config_options():
        section = vendors.CONFIG_SECTION
        out.append(f"(config-{section}-{option.name})=\n### `[{section}] {option.name}`\n")
        out.append(option.description + "\n")
        facts = [f"default `{option.default}`", f"type {option.type}", f"environment variable `{option.env_var}`",
                 f"since durable-jobs {option.version_added}"]
        if option.example:
            facts.append(f"example `{option.example}`")
        out.append("; ".join(facts) + ".\n")
    return "\n".join(out)


def configuration() -> str:
    from airflow import __version__ as airflow_version

    doctor = _doctor_settings()
    ini: list[str] = []
    current = None
    for section, key, opt in _config_options():
        if section != current:
            ini.append(("" if current is None else "\n") + f"[{section}]")
            current = section
        ini.append(f"{key} = {opt.get('default') or ''}")
    out = [f"Read from the configuration description of the installed Airflow {airflow_version} "
           "(`airflow.configuration.retrieve_configuration_description()`), with the defaults it ships:\n",
           _fence("\n".join(ini), "ini") + "\n"]
    for section, key, opt in _config_options():
        env = f"AIRFLOW__{section.upper()}__{key.upper()}"
        out.append(f"(config-{section}-{key})=\n### `[{section}] {key}`\n")
        out.append(_rst_to_md(opt.get("description", "").strip()) + "\n")
        default = opt.get("default")
        facts = [f"default `{default}`" if default not in (None, "") else "default: empty",
                 f"type {opt.get('type')}", f"environment variable `{env}`",
                 f"since Airflow {opt.get('version_added')}"]
        if opt.get("example"):
            facts.append(f"example `{opt['example']}`")
        out.append("; ".join(facts) + ".\n")
        why = doctor.get((section, key))
        if why:
            out.append(f"For durable-jobs: {why}. `durable-jobs doctor` reports it "
                       f"({{ref}}`check <doctor-setting-{section}-{key}>`).\n")
    return "\n".join(out)


def _rst_to_md(text: str) -> str:
    import re

    return re.sub(r"``(.+?)``", r"`\1`", text)


# ----------------------------------------------------------------------------- doctor
def doctor_checks() -> str:
    from durable_jobs import doctor

    out = ["`durable-jobs doctor` (`--format json` for scripts) probes each feature by importing it "
           "rather than by mapping version numbers:\n"]
    for name, feature in doctor.probe_features().items():
        out.append(f"(doctor-feature-{name})=\n### Feature `{name}`\n")
        out.append(f"Probe: `{feature['probe']}`. On this build's Airflow: "
                   f"{'available' if feature['available'] else 'not available'} — {feature['note']}.\n")
    out.append("It reads these settings through Airflow's own configuration (airflow.cfg, `AIRFLOW__*` "
               "variables, `_cmd`/`_secret`) and warns about values that break durable-jobs:\n")
    for section, key, default, why in doctor.SETTINGS:
        out.append(f"(doctor-setting-{section}-{key})=\n### Setting `[{section}] {key}`\n")
        out.append(f"Expected default `{default or '(empty)'}`: {why}. Reference: "
                   f"{{ref}}`config-{section}-{key}`.\n")
    out.append("(doctor-triggerer)=\n### Triggerer\n")
    out.append("Asks the API server's health endpoint whether a triggerer is alive and, from the answer, "
               "recommends one of the three shapes of {doc}`/guide/one-task-or-two`.\n")
    return "\n".join(out)


# ----------------------------------------------------------------------------- facts
def facts() -> dict[str, str]:
    from airflow import __version__ as airflow_version

    from durable_jobs import AIP_103_URL

    defaults = {(s, k): (o.get("default") or "") for s, k, o in _config_options()}
    size = int(defaults[(STATE_STORE_SECTION, "max_value_storage_bytes")] or 0)
    return {
        "airflow_version": airflow_version,
        "aip_103_url": AIP_103_URL,
        "default_backend": defaults[(STATE_STORE_SECTION, "backend")],
        "default_retention_days": defaults[(STATE_STORE_SECTION, "default_retention_days")],
        "max_value_storage_bytes": str(size),
        "max_value_storage_kb": f"{size / 1024:.0f} KB",
        "clear_on_success": defaults[(STATE_STORE_SECTION, "clear_on_success")],
    }


# ----------------------------------------------------------------------------- the record
def record_example() -> str:
    """An intent record exactly as the operator would write it before its first submit."""
    import json

    from durable_jobs.core.checkpoint import CheckpointRecord, fingerprint
    from durable_jobs.providers.databricks.operators.databricks import DatabricksSubmitRunOperator

    op = DatabricksSubmitRunOperator(
        task_id="nightly_etl", retries=3, run_name="nightly etl {{ ds }}",
        tasks=[{"task_key": "etl", "notebook_task": {"notebook_path": "/Shared/nightly_etl"}}],
    )
    digest, fields = fingerprint(op._durable_raw_request)
    record = CheckpointRecord.start_epoch(
        request_fingerprint=digest, fields=fields, try_number=1, max_tries=3, retries=3,
        client=op.job_client.classpath(),
    )
    record.key = op.job_client.format_key(record.nonce, op.user_idempotency_token())
    text = json.dumps(record.to_json(), indent=2)
    return (f"````json\n{text}\n````\n\nThat is the *intent*, stored under "
            f"`{op.external_id_key}_durable` before the submit ({len(text.encode())} bytes here); right "
            f"after the submit, `id` holds the run id and `{op.external_id_key}` the bare id, as the "
            "official operator writes it.\n")
