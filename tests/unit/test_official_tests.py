"""The official-tests suite's committed parts: its table, its artifact and the README section made from it.

The run itself (the providers' own tests against the official classes and ours) is ``make official``;
these checks need neither the sdists nor the network.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from durable_jobs import vendors
from tests.official import expected, run, sources
from tools import official_tests, readme
from tools.sections import read_section

ROOT = Path(__file__).resolve().parents[2]


def _artifact() -> dict:
    data = official_tests.load()
    if data is None:
        pytest.fail("artifacts/official-tests.json is missing: run `make official` and commit it")
    return data


def test_readme_section_equals_the_rendered_artifact():
    assert read_section(readme.README, official_tests.SECTION).strip() == \
        official_tests.render_markdown(_artifact()).strip(), "run `python -m tools.readme` (make official does)"


def test_every_registered_operator_has_its_official_tests_counted():
    data = _artifact()
    assert [op["operator"] for op in data["operators"]] == [op.classpath for _, _, op in vendors.operators()]
    for op in data["operators"]:
        assert op["counts"]["collected"] > 0, f"{op['operator']}: no official test ran"


def test_counts_add_up_and_match_each_tests_verdict():
    for op in _artifact()["operators"]:
        counts, verdicts = op["counts"], list(op["tests"].values())
        for key in (*run.COUNTED, "upstream-failing", "upstream-skipped"):
            assert counts[key] == verdicts.count(key), (op["operator"], key)
        assert counts["counted"] == sum(counts[k] for k in run.COUNTED)
        assert counts["collected"] == len(verdicts) == counts["counted"] + counts["upstream-failing"] + \
            counts["upstream-skipped"]


def test_the_table_is_what_the_artifact_says():
    """Every table entry is a counted test of the run with the table's category, and nothing else is."""
    table = expected.table()
    listed = {node: verdict for op in _artifact()["operators"] for node, verdict in op["tests"].items()
              if verdict in expected.CATEGORIES}
    assert listed == {node: entry.category for node, entry in table.items()}


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors of a Markdown file."""
    out = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            text = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return out


def test_table_entries_are_well_formed():
    entries = {id(e): e for e in expected.table().values()}.values()
    for entry in entries:
        assert entry.category in expected.CATEGORIES
        assert len(entry.reason) > 40, entry.reason
        re.compile(entry.match)
        if entry.category == expected.DELIBERATE:
            assert entry.link, f"a deliberate difference links its documentation: {entry.reason}"
        if entry.link:
            path, _, anchor = entry.link.partition("#")
            assert (ROOT / path).is_file(), entry.link
            assert not anchor or anchor in _anchors(ROOT / path), entry.link


def test_test_classes_are_assigned_to_the_longest_official_name():
    targets = sources.targets()
    run_now = next(t for t in targets if t.official_name == "DatabricksRunNowOperator")
    assert sources.owner("TestDatabricksRunNowOperatorDurable", targets) is run_now
    notebook = next(t for t in targets if t.official_name == "DatabricksNotebookOperator")
    assert sources.owner("TestDatabricksNotebookOperator", targets) is notebook
    sql = next(t for t in targets if t.official_name == "DatabricksSQLStatementsOperator")
    assert sources.owner("TestDatabricksSQLStatementsOperator", targets) is sql
    batch = next(t for t in targets if t.official_name == "BatchOperator")
    assert sources.owner("TestBatchOperator", targets) is batch
    assert sources.owner("TestBatchCreateComputeEnvironmentOperator", targets) is None


def test_providers_are_fetched_at_our_pins(tmp_path):
    for target in sources.targets():
        assert target.provider.version == sources.pinned(target.provider.distribution)
        assert target.official.startswith("airflow.providers.")
    constraints = tmp_path / "c.txt"
    constraints.write_text("# comment\napache-airflow-providers-amazon==9.39.0\n")
    assert sources.pinned("apache_airflow_providers_amazon", constraints) == "9.39.0"
    with pytest.raises(SystemExit):
        sources.pinned("apache-airflow-providers-google", constraints)


def test_extra_test_requirements_are_pinned_and_not_in_our_constraints():
    for spec in sources.requirements():
        name, sep, version = spec.partition("==")
        assert sep and version, f"{spec}: pin an exact version"
        with pytest.raises(SystemExit):
            sources.pinned(name)


def test_classify_counts_only_what_passes_upstream_and_checks_the_table(monkeypatch):
    target = next(t for t in sources.targets() if t.official_name == "BatchOperator")
    entry = expected.Entry(expected.INTERNAL, "the test mocks a path ours does not take", match=r"mocked path")
    monkeypatch.setattr(expected, "table", lambda: {"m::listed": entry, "m::listed_but_passes": entry,
                                                    "m::listed_other_reason": entry})

    def result(outcome: str, message: str = "") -> dict:
        return {"operator": target.classpath, "outcome": outcome, "message": message, "detail": ""}

    official = {name: result("passed") for name in
                ("m::ok", "m::listed", "m::listed_but_passes", "m::listed_other_reason", "m::real")}
    official["m::upstream"] = result("failed", "boom")
    ours = {
        "m::ok": result("passed"), "m::listed": result("failed", "it hit the mocked path"),
        "m::listed_but_passes": result("passed"), "m::listed_other_reason": result("failed", "KeyError"),
        "m::real": result("failed", "AttributeError"), "m::upstream": result("failed", "boom"),
    }
    operators, problems = run.classify([target], {"official": official, "ours": ours})
    (op,) = operators
    assert op["tests"] == {"m::ok": "pass", "m::listed": expected.INTERNAL, "m::listed_but_passes": "pass",
                           "m::listed_other_reason": expected.INTERNAL, "m::real": "other",
                           "m::upstream": "upstream-failing"}
    assert op["counts"]["counted"] == 5 and op["counts"]["other"] == 1
    assert [p.split(":")[2] for p in problems] == ["listed_but_passes", "listed_other_reason", "real"]
