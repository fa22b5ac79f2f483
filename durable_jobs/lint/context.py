"""Per-file state handed to every rule: the analysed module, the options, and ``report()``.

``report()`` is the single place that turns a rule id and a node into a Finding, so version
awareness (no crash-safety promises below Airflow 3.3) is applied uniformly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from durable_jobs.lint import snippets
from durable_jobs.lint.analysis import Module
from durable_jobs.lint.catalog import RULES
from durable_jobs.lint.exprs import Located
from durable_jobs.lint.model import Finding

PRE33_SUFFIX = " The recommended primitive needs Airflow 3.3+ (AIP-103)."


@dataclass
class FileContext:
    path: str
    module: Module
    modern: bool                      # target Airflow has the AIP-103 stores (3.3+)
    is_test: bool = False             # a test file: durable=False is expected there
    baseline: Module | None = None    # previous version of this file (--baseline)
    findings: list[Finding] = field(default_factory=list)

    def report(self, rule_id: str, at: Located | int | tuple[int, int], message: str) -> None:
        """Record a finding at a node, a line, or a (line, column) pair."""
        rule = RULES[rule_id]
        if isinstance(at, int):
            line, col = at, 1
        elif isinstance(at, tuple):
            line, col = at
        else:
            line, col = at.lineno, at.col_offset + 1
        problem, primitive = rule.problem, rule.primitive
        if not self.modern:
            problem = rule.problem_pre33 or problem
            primitive = rule.primitive_pre33 or primitive
            if rule.needs_33:
                message += PRE33_SUFFIX
        if any(f.rule == rule_id and f.line == line for f in self.findings):
            return                          # helpers reached from several tasks report once
        self.findings.append(Finding(
            rule=rule_id, name=rule.name, severity=rule.severity, path=self.path, line=line,
            col=col, message=message, problem=problem, primitive=primitive,
            before=snippets.before(rule_id), after=snippets.after(rule_id, self.modern),
        ))
