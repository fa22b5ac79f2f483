"""The lint measured on real DAGs (issue 18): the targets hold, and what the docs say is this run.

``tools/lint_eval.py`` lints every file of ``tests/lint/corpus/realworld`` and compares the
findings with ``manifest.toml``, where each file is judged by hand (see that module).
"""

from __future__ import annotations

import pytest

from tools import lint_eval
from tools.sections import read_section


@pytest.fixture(scope="module")
def result() -> lint_eval.Result:
    return lint_eval.evaluate()


def test_every_corpus_file_is_judged_with_provenance_and_licence() -> None:
    manifest = lint_eval.load_manifest()            # raises ManifestError otherwise
    assert len(manifest["file"]) >= 150
    real = [f for f in manifest["file"] if f["source"] != "written"]
    assert len(real) >= 150
    for source in manifest["sources"].values():
        assert source["version"] and source["licence"] and source["distribution"]


def test_targets_precision_recall_and_no_error_false_positive(result: lint_eval.Result) -> None:
    assert result.failures() == [], lint_eval.render_text(result)
    assert result.overall.precision is not None and result.overall.precision >= 0.95
    assert result.overall.recall is not None and result.overall.recall >= 0.90
    assert result.error_false_positives == []


def test_committed_artifact_is_this_run(result: lint_eval.Result) -> None:
    assert lint_eval.ARTIFACT.read_text(encoding="utf-8") == lint_eval.artifact_text(result), (
        "artifacts/lint-eval.json is stale: run python -m tools.lint_eval --docs")


def test_docs_show_the_measured_table() -> None:
    data = lint_eval.load_artifact()
    assert data is not None
    section = read_section(lint_eval.DOCS, lint_eval.SECTION)
    assert section.strip() == lint_eval.render_markdown(data).strip(), (
        "docs/lint.md is stale: run python -m tools.lint_eval --docs")


def test_a_missed_or_wrong_finding_moves_the_numbers(result: lint_eval.Result) -> None:
    """The scoring itself: drop one expectation and add a wrong one, the tallies follow."""
    manifest = lint_eval.load_manifest()
    entry = next(f for f in manifest["file"] if f.get("expect"))
    dropped = entry["expect"].pop(0)
    entry["expect"].append({"rule": "DJ081", "line": 99999, "why": "deliberately wrong"})
    changed = lint_eval.evaluate(manifest)
    assert changed.overall.fp == result.overall.fp + 1          # the dropped one is now unexpected
    assert changed.overall.fn == result.overall.fn + 1          # the invented one is missed
    assert changed.rules[dropped["rule"]].tp == result.rules[dropped["rule"]].tp - 1
