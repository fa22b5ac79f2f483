"""Shared paths and the ``# expect: DJ011`` marker reader for the lint tests."""

from __future__ import annotations

import re
from pathlib import Path

from durable_jobs.lint.model import Finding

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CORPUS = HERE / "corpus"
BASELINE = HERE / "baseline"
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "example_dags"
_EXPECT_RE = re.compile(r"#\s*expect:\s*([A-Z0-9, ]+?)\s*$")


def expected_markers(path: Path) -> set[tuple[str, int]]:
    """(rule id, line) for every ``# expect: ID[, ID]`` comment in ``path``."""
    out: set[tuple[str, int]] = set()
    for number, line in enumerate(path.read_text().splitlines(), 1):
        match = _EXPECT_RE.search(line)
        if match:
            out.update((rule.strip(), number) for rule in match.group(1).split(",") if rule.strip())
    return out


def pairs(findings: list[Finding]) -> set[tuple[str, int]]:
    return {(f.rule, f.line) for f in findings}
