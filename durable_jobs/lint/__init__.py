"""``durable-jobs lint``: find DAG anti-patterns that Airflow 3.3's AIP-103 primitives fix.

DAG files are read with :mod:`ast`, never imported. Rules, severities and the state-versus-
configuration distinction are documented in ``docs/lint.md``.
"""

from __future__ import annotations

from durable_jobs.lint.catalog import RULES
from durable_jobs.lint.command import main
from durable_jobs.lint.engine import LintOptions, lint_paths, lint_source
from durable_jobs.lint.model import Finding, Rule, Severity

__all__ = ["RULES", "Finding", "LintOptions", "Rule", "Severity", "lint_paths", "lint_source", "main"]
