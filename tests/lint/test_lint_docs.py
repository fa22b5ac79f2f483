"""docs/before holds one "before" file per anti-pattern with exactly the findings its README
documents; docs/lint.md covers every rule; example_dags stays free of findings above info."""

from __future__ import annotations

import re

import pytest

from durable_jobs.lint import RULES, Severity, lint_paths, snippets
from tests.lint.helpers import DOCS, EXAMPLES

BEFORE = DOCS / "before"
_ROW_RE = re.compile(r"^\| \[(?P<file>[\w.]+)\]\([\w.]+\) \| [^|]+ \| (?P<ids>[A-Z0-9, ]+) \|$")


def documented() -> dict[str, list[str]]:
    rows = (_ROW_RE.match(line) for line in (BEFORE / "README.md").read_text().splitlines())
    return {m["file"]: [i.strip() for i in m["ids"].split(",")] for m in rows if m}


def test_readme_lists_every_before_file() -> None:
    assert set(documented()) == {p.name for p in BEFORE.glob("*.py")}


@pytest.mark.parametrize("name", sorted(documented()))
def test_before_file_has_its_documented_findings(name: str) -> None:
    findings = lint_paths([BEFORE / name])
    assert [f.rule for f in findings] == documented()[name]


def test_before_files_cover_every_rule_but_the_baseline_one() -> None:
    covered = {rule for ids in documented().values() for rule in ids}
    assert covered == set(RULES) - {"DJ000", "DJ073"}


def test_rule_reference_documents_every_rule() -> None:
    text = (DOCS / "lint.md").read_text()
    for rule in RULES.values():
        assert f"| {rule.id} | {rule.severity.label} | {rule.name} |" in text
        if rule.id == "DJ000":
            continue
        assert f"#### {rule.id} {rule.name} ({rule.severity.label})" in text
        assert snippets.BEFORE[rule.id] in text, rule.id
        assert snippets.AFTER[rule.id] in text, rule.id


def test_docs_explain_state_baseline_ignores_and_versions() -> None:
    text = (DOCS / "lint.md").read_text()
    for heading in ("## State versus configuration", "## `--baseline`", "## Ignoring a finding",
                    "## Version awareness"):
        assert heading in text
    assert "all_map_indices=true" in text


def test_mixin_comes_first_in_every_after_snippet() -> None:
    for rule_id, text in snippets.AFTER.items():
        assert "(BaseOperator, ResumableJobMixin)" not in text, rule_id


def test_example_dags_have_nothing_above_info() -> None:
    """Passes on an empty example_dags/ (nothing written yet); binds as soon as files exist."""
    if not EXAMPLES.is_dir():
        return
    above_info = [f for f in lint_paths([EXAMPLES]) if f.severity > Severity.INFO]
    assert above_info == [], "\n".join(f"{f.path}:{f.line} {f.rule} {f.message}" for f in above_info)
