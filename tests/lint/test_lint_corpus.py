"""The corpus: realistic DAG files whose ``# expect:`` comments are the exact expected findings.

Every file is compared in both directions (missing and unexpected findings), so near-miss files
with no markers assert that nothing at all is reported for them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from durable_jobs.lint import RULES, LintOptions, lint_paths, lint_source
from durable_jobs.lint.baseline import Baseline
from tests.lint.helpers import BASELINE, CORPUS, expected_markers, pairs

# corpus/realworld holds third-party DAGs judged in a manifest (test_lint_realworld.py), not markers.
FILES = sorted(p for p in CORPUS.rglob("*.py") if not p.relative_to(CORPUS).as_posix().startswith("realworld/"))

# For every rule, a file built as its near miss: code that looks like the anti-pattern but is not.
NEAR_MISSES = {
    "DJ011": "neg_dj01_variables_config.py", "DJ031": "neg_dj01_variables_config.py",
    "DJ021": "neg_dj02_xcom_downstream.py", "DJ041": "neg_dj04_watermark.py",
    "DJ051": "neg_dj05_no_split.py", "DJ052": "neg_dj05_downstream_on_sensor.py",
    "DJ061": "neg_dj06_deferrable.py",
    **{r: "neg_dj07_mixin.py" for r in ("DJ071", "DJ072", "DJ073", "DJ074", "DJ102")},
    **{r: "neg_dj08_store.py" for r in ("DJ081", "DJ082", "DJ083", "DJ084", "DJ085", "DJ086", "DJ087")},
    "DJ091": "neg_dj09_durable.py", "DJ092": "tests/durable_off.py",
    "DJ101": "neg_dj10_hand_submit.py",
    **{r: "neg_dj11_store_use.py" for r in ("DJ111", "DJ112", "DJ113")},
}


@pytest.fixture(scope="module")
def by_file() -> dict[str, set[tuple[str, int]]]:
    findings = lint_paths([CORPUS], LintOptions(baseline=Baseline(BASELINE)))
    out: dict[str, set[tuple[str, int]]] = {}
    for finding in findings:
        rel = Path(finding.path).resolve().relative_to(CORPUS).as_posix()
        if not rel.startswith("realworld/"):
            out.setdefault(rel, set()).add((finding.rule, finding.line))
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(CORPUS).as_posix())
def test_findings_match_markers(path: Path, by_file: dict[str, set[tuple[str, int]]]) -> None:
    rel = path.relative_to(CORPUS).as_posix()
    assert by_file.get(rel, set()) == expected_markers(path)


def test_every_rule_has_a_positive_case() -> None:
    marked = {rule for path in FILES for rule, _ in expected_markers(path)}
    assert marked == set(RULES) - {"DJ000"}


@pytest.mark.parametrize("rule", sorted(NEAR_MISSES))
def test_every_rule_has_a_near_miss(rule: str, by_file: dict[str, set[tuple[str, int]]]) -> None:
    path = CORPUS / NEAR_MISSES[rule]
    assert path.is_file()
    assert rule not in {r for r, _ in by_file.get(NEAR_MISSES[rule], set())}


def test_near_misses_cover_every_rule() -> None:
    assert set(NEAR_MISSES) == set(RULES) - {"DJ000"}


def test_baseline_only_feeds_renamed_keys() -> None:
    path = CORPUS / "pos_dj07_renamed.py"
    source = path.read_text()
    without = lint_source(source, path.name)
    with_baseline = lint_source(source, path.name, baseline_source=(BASELINE / path.name).read_text())
    assert pairs(without) == set()
    assert pairs(with_baseline) == {("DJ073", 9), ("DJ073", 16)}


def test_file_in_tests_directory_may_turn_durability_off() -> None:
    source = (CORPUS / "tests" / "durable_off.py").read_text()
    assert pairs(lint_source(source, "durable_off.py")) == {("DJ092", 9)}
    assert pairs(lint_source(source, "durable_off.py", is_test=True)) == set()
