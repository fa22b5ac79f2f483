"""``durable-jobs lint`` / ``python -m durable_jobs.lint``: arguments, output, exit code.

Exit codes: 0 - no finding at or above ``--fail-on``; 1 - at least one; 2 - usage error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from durable_jobs.cli import command_parser
from durable_jobs.lint.baseline import Baseline, BaselineError
from durable_jobs.lint.catalog import RULES
from durable_jobs.lint.engine import LintOptions, lint_paths
from durable_jobs.lint.model import Severity
from durable_jobs.lint.output import notes, render_json, render_text
from durable_jobs.lint.sarif import render_sarif
from durable_jobs.lint.version import installed_airflow_version, parse_version

FAIL_ON = ("info", "warning", "error", "never")


def build_parser() -> argparse.ArgumentParser:
    parser = command_parser("durable-jobs lint", "Report Airflow DAG anti-patterns that AIP-103 primitives fix. "
                                                 "DAG files are parsed, never imported.")
    parser.add_argument("paths", nargs="*", type=Path, help="DAG files or directories")
    parser.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    parser.add_argument("--fail-on", choices=FAIL_ON, default="warning",
                        help="exit 1 when a finding at or above this severity exists "
                             "(default: warning)")
    parser.add_argument("--airflow-version", metavar="X.Y",
                        help="target Airflow version (default: the installed one)")
    parser.add_argument("--baseline", type=Path, metavar="PATH",
                        help="previous version of the file (or a directory mirroring the "
                             "linted tree); used to detect renamed external_id_key (DJ073)")
    parser.add_argument("--ignore", default="", metavar="IDS",
                        help="comma-separated rule ids to skip everywhere")
    parser.add_argument("--output", "-o", type=Path, metavar="FILE",
                        help="write the report to FILE instead of stdout")
    parser.add_argument("--list-rules", action="store_true", help="print the rules and exit")
    return parser


def _list_rules() -> str:
    return "".join(f"{r.id}  {r.severity.label:<7}  {r.name:<28} {r.summary}\n"
                   for r in RULES.values())


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.list_rules:
        sys.stdout.write(_list_rules())
        return 0
    if not args.paths:
        parser.print_usage(sys.stderr)
        sys.stderr.write("durable-jobs lint: error: give at least one path\n")
        return 2
    detected = installed_airflow_version()
    try:
        version = parse_version(args.airflow_version or detected or "3.3")
        ignore = frozenset(i.strip().upper() for i in args.ignore.split(",") if i.strip())
        unknown = sorted(ignore - set(RULES))
        if unknown:
            raise ValueError(f"unknown rule id(s): {', '.join(unknown)}")
        missing = [p for p in args.paths if not p.exists()]
        if missing:
            raise ValueError(f"no such file or directory: {missing[0]}")
        options = LintOptions(version, Baseline(args.baseline) if args.baseline else None, ignore)
        findings = lint_paths(args.paths, options)
    except (ValueError, BaselineError) as exc:
        sys.stderr.write(f"durable-jobs lint: error: {exc}\n")
        return 2
    run_notes = notes(version, options.modern, bool(args.airflow_version or detected))
    if args.format == "json":
        report = render_json(findings, run_notes, version, options.modern)
    elif args.format == "sarif":
        report = render_sarif(findings, run_notes, version, options.modern)
    else:
        report = render_text(findings, run_notes)
    if args.output:
        args.output.write_text(report, encoding="utf-8")
    else:
        sys.stdout.write(report)
    if args.fail_on == "never":
        return 0
    threshold = Severity.parse(args.fail_on)
    return 1 if any(f.severity >= threshold for f in findings) else 0
