"""Human text and JSON renderings of a lint run.

Text prints one line per finding and then, once per rule that fired, the problem and the
before/after rewrite, so that ten findings of one rule do not repeat the same snippet ten times.
JSON carries everything per finding for CI tooling.
"""

from __future__ import annotations

import json
import textwrap

from durable_jobs import AIP_103_URL, __version__
from durable_jobs.lint.catalog import RULES
from durable_jobs.lint.model import Finding, Severity


def notes(airflow_version: tuple[int, int], modern: bool, detected: bool) -> list[str]:
    """Run-level notes; below 3.3 they say the stores need Airflow 3.3+."""
    version = "%d.%d" % airflow_version
    out: list[str] = []
    if not detected:
        out.append(f"Airflow is not installed here; assuming {version} (pass --airflow-version).")
    if not modern:
        out.append(
            f"Targeting Airflow {version}: task_state_store, asset_state_store and the crash "
            "safety of ResumableJobMixin need Airflow 3.3+ (AIP-103, "
            f"{AIP_103_URL}); below 3.3 the operators' shim always submits fresh. Every rule "
            "still applies - the split trade-off and 'submit success is not job success' hold "
            "on any version."
        )
    return out


def summary(findings: list[Finding]) -> dict[str, int]:
    return {sev.label: sum(1 for f in findings if f.severity is sev) for sev in reversed(Severity)}


def render_text(findings: list[Finding], run_notes: list[str]) -> str:
    lines = [f"note: {n}" for n in run_notes]
    for f in findings:
        lines.append(f"{f.path}:{f.line}:{f.col}: {f.rule} {f.severity.label} [{f.name}] {f.message}")
    seen: list[str] = []
    for f in findings:
        if f.rule in seen or f.rule == "DJ000":
            continue
        seen.append(f.rule)
        lines += ["", f"{f.rule} {f.name}: {RULES[f.rule].summary}",
                  *textwrap.wrap(f"problem: {f.problem}", 96, initial_indent="  ",
                                 subsequent_indent="    "),
                  f"  use: {f.primitive}", "  before:", textwrap.indent(f.before, "    "),
                  "  after:", textwrap.indent(f.after, "    ")]
    counts = summary(findings)
    total = len(findings)
    lines += ["", f"{total} finding{'s' if total != 1 else ''}: "
              + ", ".join(f"{n} {label}" for label, n in counts.items())]
    return "\n".join(lines) + "\n"


def render_json(findings: list[Finding], run_notes: list[str],
                airflow_version: tuple[int, int], modern: bool) -> str:
    return json.dumps({
        "tool": "durable-jobs lint",
        "version": __version__,
        "airflow_version": "%d.%d" % airflow_version,
        "state_store_available": modern,
        "notes": run_notes,
        "summary": summary(findings),
        "findings": [f.to_dict() for f in findings],
    }, indent=2) + "\n"
