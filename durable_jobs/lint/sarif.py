"""SARIF 2.1.0 output, for GitHub code scanning and other CI viewers.

Every rule is listed in ``tool.driver.rules`` (so ``ruleIndex`` is stable across runs); each
result carries its own level because severities differ between variants of one anti-pattern.
"""

from __future__ import annotations

import json
from urllib.parse import quote

from durable_jobs import __version__
from durable_jobs.lint import snippets
from durable_jobs.lint.catalog import RULES
from durable_jobs.lint.model import Finding

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def _rule(rule_id: str, modern: bool) -> dict[str, object]:
    rule = RULES[rule_id]
    problem = (rule.problem_pre33 or rule.problem) if not modern else rule.problem
    primitive = (rule.primitive_pre33 or rule.primitive) if not modern else rule.primitive
    before, after = snippets.before(rule_id), snippets.after(rule_id, modern)
    help_text = f"Use: {primitive}"
    help_md = f"**Use:** {primitive}"
    if before:
        help_text += f"\n\nBefore:\n{before}\n\nAfter:\n{after}"
        help_md += f"\n\nBefore:\n```python\n{before}\n```\n\nAfter:\n```python\n{after}\n```"
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": problem},
        "help": {"text": help_text, "markdown": help_md},
        "defaultConfiguration": {"level": rule.severity.sarif_level},
        "properties": {"tags": ["airflow", "aip-103"], "primitive": primitive},
    }


def render_sarif(findings: list[Finding], run_notes: list[str],
                 airflow_version: tuple[int, int], modern: bool) -> str:
    ids = list(RULES)
    results = [{
        "ruleId": f.rule,
        "ruleIndex": ids.index(f.rule),
        "level": f.severity.sarif_level,
        "message": {"text": f.message},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": quote(f.path)},
                "region": {"startLine": f.line, "startColumn": f.col},
            }
        }],
    } for f in findings]
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "durable-jobs lint",
                "version": __version__,
                "rules": [_rule(rule_id, modern) for rule_id in ids],
            }},
            "results": results,
            "properties": {"airflowVersion": "%d.%d" % airflow_version, "notes": run_notes},
        }],
    }
    return json.dumps(log, indent=2) + "\n"
