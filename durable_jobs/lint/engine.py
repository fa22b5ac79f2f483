"""Run every rule over source text or files, apply suppressions, return sorted findings.

Files are parsed, never imported: linting a DAG must not run its top-level code, need its
providers installed, or talk to a metadata database.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from durable_jobs.lint import (
    rules_durable,
    rules_hand_submit,
    rules_mixin,
    rules_split,
    rules_store,
    rules_store_use,
    rules_variables,
    rules_xcom,
    suppress,
)
from durable_jobs.lint.analysis import Module
from durable_jobs.lint.baseline import Baseline
from durable_jobs.lint.context import FileContext
from durable_jobs.lint.model import Finding
from durable_jobs.lint.version import has_state_store

CHECKS: tuple[Callable[[FileContext], None], ...] = (
    rules_variables.check, rules_xcom.check, rules_split.check, rules_mixin.check,
    rules_store.check, rules_store_use.check, rules_durable.check, rules_hand_submit.check,
)
_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})


@dataclass
class LintOptions:
    airflow_version: tuple[int, int] = (3, 3)
    baseline: Baseline | None = None
    ignore: frozenset[str] = field(default_factory=frozenset)

    @property
    def modern(self) -> bool:
        return has_state_store(self.airflow_version)


# Syntax newer than the interpreter running the lint can parse: PEP 695 type aliases and
# generics (3.12), PEP 701 f-strings reusing their own quotes (3.12), PEP 758 except lists (3.14).
_NEWER_SYNTAX = (
    (re.compile(r"^\s*type\s+\w+(\[[^\]]*\])?\s*=", re.MULTILINE), "a `type` alias (PEP 695, Python 3.12)"),
    (re.compile(r"^\s*(?:async\s+)?def\s+\w+\[", re.MULTILINE), "a generic function (PEP 695, Python 3.12)"),
    (re.compile(r"^\s*class\s+\w+\[", re.MULTILINE), "a generic class (PEP 695, Python 3.12)"),
    (re.compile(r"""\bf(['"])[^'"\n]*\{[^}\n]*\1"""), "an f-string that reuses its quotes (PEP 701, Python 3.12)"),
    (re.compile(r"^\s*except\*?\s+\w+(\.\w+)*\s*,\s*\w", re.MULTILINE),
     "except without parentheses (PEP 758, Python 3.14)"),
)


def _parse(source: str, path: str) -> ast.Module | SyntaxError:
    try:
        return ast.parse(source, filename=path)
    except SyntaxError as exc:
        return exc
    except ValueError as exc:                   # null bytes in the source
        return SyntaxError(str(exc))


def _parse_message(error: SyntaxError, source: str) -> str:
    """Say why a file did not parse; syntax this interpreter is too old for is not a bug."""
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    for pattern, what in _NEWER_SYNTAX:
        if pattern.search(source):
            return (f"could not parse with Python {here}: the file appears to use {what}; nothing "
                    f"in it was checked - run the lint under the Python version the DAGs run on "
                    f"({error.msg})")
    return f"could not parse: {error.msg}; nothing in this file was checked"


def lint_source(source: str, path: str = "<string>", options: LintOptions | None = None, *,
                is_test: bool = False, baseline_source: str | None = None) -> list[Finding]:
    """Lint one file's text. ``baseline_source`` is the previous version of the same file."""
    options = options or LintOptions()
    source = source.removeprefix("\ufeff")        # a UTF-8 byte-order mark is valid Python
    tree = _parse(source, path)
    ctx = FileContext(path, Module(ast.Module(body=[], type_ignores=[]), ""), options.modern, is_test)
    if isinstance(tree, SyntaxError):
        ctx.report("DJ000", tree.lineno or 1, _parse_message(tree, source))
        return ctx.findings
    ctx.module = Module(tree, source)
    if baseline_source is not None:
        old = _parse(baseline_source, f"{path} (baseline)")
        ctx.baseline = Module(old, baseline_source) if isinstance(old, ast.Module) else None
    for check in CHECKS:
        check(ctx)
    hidden = suppress.parse(source)
    found = [f for f in ctx.findings if f.rule not in options.ignore and not hidden.hides(f)]
    return sorted(found, key=lambda f: f.sort_key)


def is_test_path(rel: Path) -> bool:
    name = rel.name
    if name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py":
        return True
    return any(part in ("tests", "test") for part in rel.parts[:-1])


def discover(paths: Iterable[Path]) -> list[tuple[Path, Path]]:
    """(file, the path argument it came from), Python files only, hidden dirs skipped."""
    out: list[tuple[Path, Path]] = []
    for root in paths:
        if root.is_file():
            out.append((root, root))
            continue
        for file in sorted(root.rglob("*.py")):
            rel = file.relative_to(root)
            if any(p.startswith(".") or p in _SKIP_DIRS for p in rel.parts[:-1]):
                continue
            out.append((file, root))
    return out


def lint_paths(paths: Iterable[Path | str], options: LintOptions | None = None) -> list[Finding]:
    options = options or LintOptions()
    targets = discover(Path(p) for p in paths)
    if options.baseline is not None:
        options.baseline.check_targets([f for f, _ in targets])
    findings: list[Finding] = []
    for file, root in targets:
        rel = file.relative_to(root) if root.is_dir() else Path(file.name)
        baseline = options.baseline.source_for(file, root) if options.baseline else None
        source = file.read_text(encoding="utf-8-sig", errors="replace")
        findings.extend(lint_source(source, file.as_posix(), options,
                                    is_test=is_test_path(rel), baseline_source=baseline))
    return sorted(findings, key=lambda f: f.sort_key)

