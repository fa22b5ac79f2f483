"""The command: formats (SARIF validated against the schema subset), exit codes, suppression
comments, --ignore, version awareness, and the ``python -m`` entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import jsonschema
import pytest

from durable_jobs.lint import RULES, LintOptions, lint_paths, main
from durable_jobs.lint.version import installed_airflow_version
from tests.lint.helpers import CORPUS, DOCS, HERE, ROOT

# A SUBSET of the official SARIF 2.1.0 schema: the objects our output uses (see its description).
SARIF_SCHEMA = json.loads((HERE / "sarif-2.1.0-subset.schema.json").read_text())
SPLIT = CORPUS / "pos_dj05_split_databricks.py"     # info DJ051 + warning DJ052
WARN_ONLY = DOCS / "before" / "dj01_variable_state.py"  # one warning (DJ011)
CONFIG_ONLY = CORPUS / "neg_dj01_variables_config.py"   # no findings


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().out


def test_text_output_names_problem_primitive_and_rewrite(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run([str(WARN_ONLY)], capsys)
    assert code == 1
    assert f"{WARN_ONLY.as_posix()}:28:13: DJ011 warning [variable-task-state]" in out
    assert "use: task_state_store" in out and "problem: Variables are global" in out
    assert 'Variable.set("etl_cursor", new_cursor)' in out                   # before
    assert 'task_state_store.set("cursor", new_cursor)' in out               # after
    assert out.rstrip().endswith("1 finding: 0 error, 1 warning, 0 info")


def test_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(["--format", "json", str(SPLIT)], capsys)
    data = json.loads(out)
    assert code == 1
    assert [(f["rule"], f["line"], f["severity"]) for f in data["findings"]] == [
        ("DJ051", 22, "info"), ("DJ052", 26, "warning"), ("DJ052", 32, "warning")]
    first = data["findings"][0]
    assert {"message", "problem", "primitive", "before", "after", "col", "path"} <= set(first)
    assert "accepted" in first["message"] and "keep durable=True" in first["message"]
    assert data["summary"] == {"error": 0, "warning": 2, "info": 1}


def test_sarif_output_is_valid_sarif(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(["--format", "sarif", str(CORPUS)], capsys)
    log = json.loads(out)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    results = log["runs"][0]["results"]
    assert code == 1 and [r["id"] for r in rules] == list(RULES)
    assert {r["level"] for r in results} == {"error", "warning", "note"}
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)


def test_sarif_schema_subset_rejects_what_sarif_rejects(capsys: pytest.CaptureFixture[str]) -> None:
    log = json.loads(run(["--format", "sarif", str(SPLIT)], capsys)[1])
    assert jsonschema.Draft4Validator(SARIF_SCHEMA).is_valid(log)
    log["runs"][0]["results"][0]["level"] = "info"          # not a SARIF level
    assert not jsonschema.Draft4Validator(SARIF_SCHEMA).is_valid(log)
    log["runs"][0]["results"][0]["level"] = "note"
    del log["runs"][0]["results"][0]["message"]             # result.message is required
    assert not jsonschema.Draft4Validator(SARIF_SCHEMA).is_valid(log)


@pytest.mark.parametrize(("argv", "expected"), [
    ([str(WARN_ONLY)], 1),
    (["--fail-on", "error", str(WARN_ONLY)], 0),
    (["--fail-on", "warning", str(CONFIG_ONLY)], 0),
    (["--fail-on", "info", str(CORPUS / "neg_dj05_downstream_on_sensor.py")], 1),
    (["--fail-on", "warning", str(CORPUS / "neg_dj05_downstream_on_sensor.py")], 0),
    (["--fail-on", "never", str(SPLIT)], 0),
    (["--ignore", "DJ011", str(WARN_ONLY)], 0),
])
def test_exit_code_follows_fail_on(argv: list[str], expected: int,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert run(argv, capsys)[0] == expected


@pytest.mark.parametrize("argv", [
    ["does/not/exist.py"],
    ["--ignore", "DJ999", str(WARN_ONLY)],
    ["--baseline", str(CORPUS / "pos_dj07_renamed.py"), str(CORPUS)],
    ["--airflow-version", "three", str(WARN_ONLY)],
    [],
])
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2


def test_ignore_comments(tmp_path: Path) -> None:
    body = '''
from airflow.sdk import Variable, task

@task
def t():
    Variable.set("a", 1)  # durable-jobs: ignore[DJ011]
    Variable.set("b", 1)  # durable-jobs: ignore[DJ041, DJ021]
    Variable.set("c", 1)  # durable-jobs: ignore
    Variable.set("d", "# durable-jobs: ignore[DJ011]")
'''
    path = tmp_path / "dag.py"
    path.write_text(body)
    assert [(f.rule, f.line) for f in lint_paths([path])] == [("DJ011", 7), ("DJ011", 9)]
    path.write_text("# durable-jobs: ignore-file[DJ011]\n" + body)
    assert lint_paths([path]) == []


def test_below_33_every_rule_reports_without_durable_promises(capsys: pytest.CaptureFixture[str]) -> None:
    targets = [CORPUS, DOCS / "before"]
    modern = lint_paths(targets, LintOptions((3, 3)))
    old = lint_paths(targets, LintOptions((2, 10)))
    assert [(f.path, f.rule, f.line) for f in old] == [(f.path, f.rule, f.line) for f in modern]
    assert {f.rule for f in old if "/realworld/" not in f.path} == set(RULES) - {"DJ000", "DJ073"}
    for finding in old:
        text = " ".join((finding.message, finding.problem, finding.primitive, finding.after))
        assert "durable=True" not in text and "built-in crash safety" not in text, finding.rule
        if RULES[finding.rule].needs_33:
            assert "needs Airflow 3.3+ (AIP-103)" in finding.message, finding.rule
    assert not any("Airflow 3.3+" in f.message for f in modern)
    code, out = run(["--airflow-version", "2.10.4", "--format", "sarif", str(SPLIT)], capsys)
    assert "durable=True" not in out
    assert "need Airflow 3.3+ (AIP-103" in json.loads(out)["runs"][0]["properties"]["notes"][0]
    code, out = run(["--airflow-version", "2.10", str(SPLIT)], capsys)
    assert out.startswith("note: Targeting Airflow 2.10: task_state_store, asset_state_store")


def test_default_version_is_the_installed_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert installed_airflow_version() == metadata.version("apache-airflow")
    data = json.loads(run(["--format", "json", str(SPLIT)], capsys)[1])
    assert data["airflow_version"] == ".".join(metadata.version("apache-airflow").split(".")[:2])
    assert data["notes"] == []


def test_module_entry_point_does_not_import_airflow() -> None:
    probe = ("import sys; from durable_jobs.lint import main; "
             f"code = main(['--format', 'json', {str(SPLIT)!r}]); "
             "assert 'airflow' not in sys.modules, 'lint imported airflow'; sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["summary"]["warning"] == 2
    done = subprocess.run([sys.executable, "-m", "durable_jobs.lint", "--list-rules"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and done.stdout.count("\n") == len(RULES)
