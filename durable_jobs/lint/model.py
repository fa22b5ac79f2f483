"""Value types shared by every part of the lint: severities, rules and findings.

Kept free of any analysis code so that the output writers and the tests can use them
without pulling in the AST machinery.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass


class Severity(enum.IntEnum):
    """Ordered so that ``--fail-on`` is a plain comparison."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @property
    def sarif_level(self) -> str:
        """SARIF has no "info": its lowest reporting level is "note"."""
        return {Severity.INFO: "note", Severity.WARNING: "warning", Severity.ERROR: "error"}[self]

    @classmethod
    def parse(cls, text: str) -> Severity:
        return cls[text.strip().upper()]


@dataclass(frozen=True)
class Rule:
    """One check. ``group`` is the number of the anti-pattern in the lint's issue (1-11).

    ``needs_33`` marks rules whose recommended primitive only exists on Airflow 3.3+
    (AIP-103); below 3.3 their findings say so instead of promising crash safety.
    ``problem_pre33``/``primitive_pre33`` replace the normal texts below 3.3 where those would
    claim that ``durable=True`` adds crash safety.
    """

    id: str
    name: str
    severity: Severity
    group: int
    summary: str
    problem: str
    primitive: str
    needs_33: bool = True
    problem_pre33: str | None = None
    primitive_pre33: str | None = None


@dataclass(frozen=True)
class Finding:
    """One reported anti-pattern at one place, with everything needed to fix it."""

    rule: str
    name: str
    severity: Severity
    path: str
    line: int
    col: int
    message: str
    problem: str
    primitive: str
    before: str
    after: str

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line, self.col, self.rule)

    def to_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["severity"] = self.severity.label
        return data
