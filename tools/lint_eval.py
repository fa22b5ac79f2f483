"""Measure `durable-jobs lint` on the real-world corpus: precision and recall per rule.

The corpus (``tests/lint/corpus/realworld/``) holds third-party DAGs copied byte for byte from
provider distributions and Airflow's own example DAGs, plus a set of realistic anti-pattern DAGs
written here; ``manifest.toml`` judges every file: the findings a careful reviewer wants (rule +
line, each with why) or ``clean`` with why. A finding matches an expectation on (rule, line).

    python -m tools.lint_eval            # print the table, write artifacts/lint-eval.json
    python -m tools.lint_eval --docs     # also rewrite the generated section of docs/lint.md
    python -m tools.lint_eval --check    # print; fail when the committed artifact is stale

Exit 1 when a target is missed (precision, recall, an error-level false positive) or, with
``--check``, when the artifact no longer matches the run; 2 when the manifest and the corpus
disagree (a file without a judgment, a judgment without a file).
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from durable_jobs.lint import RULES, Severity, lint_source
from tools.sections import write_section

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "lint" / "corpus" / "realworld"
MANIFEST = CORPUS / "manifest.toml"
ARTIFACT = ROOT / "artifacts" / "lint-eval.json"
DOCS = ROOT / "docs" / "lint.md"
SECTION = "lint-eval"

TARGETS = {"precision": 0.95, "recall": 0.90, "error_false_positives": 0}


class ManifestError(ValueError):
    """The manifest and the corpus do not describe the same files."""


@dataclass
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    def as_dict(self) -> dict[str, Any]:
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn,
                "precision": _round(self.precision), "recall": _round(self.recall)}


@dataclass
class Result:
    files: int = 0
    clean_files: int = 0
    by_source: Counter[str] = field(default_factory=Counter)
    rules: dict[str, Tally] = field(default_factory=dict)
    overall: Tally = field(default_factory=Tally)
    false_positives: list[dict[str, Any]] = field(default_factory=list)
    false_negatives: list[dict[str, Any]] = field(default_factory=list)

    @property
    def error_false_positives(self) -> list[dict[str, Any]]:
        return [f for f in self.false_positives if f["severity"] == Severity.ERROR.label]

    def failures(self) -> list[str]:
        out = []
        if (self.overall.precision or 0.0) < TARGETS["precision"]:
            out.append(f"precision {_pct(self.overall.precision)} < {_pct(TARGETS['precision'])}")
        if (self.overall.recall or 0.0) < TARGETS["recall"]:
            out.append(f"recall {_pct(self.overall.recall)} < {_pct(TARGETS['recall'])}")
        if len(self.error_false_positives) > TARGETS["error_false_positives"]:
            out.append(f"{len(self.error_false_positives)} error-level false positive(s)")
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "corpus": CORPUS.relative_to(ROOT).as_posix(),
            "files": self.files,
            "clean_files": self.clean_files,
            "files_by_source": dict(sorted(self.by_source.items())),
            "targets": TARGETS,
            "overall": self.overall.as_dict(),
            "rules": {rule: self.rules[rule].as_dict() for rule in RULES if rule in self.rules},
            "error_false_positives": len(self.error_false_positives),
            "false_positives": self.false_positives,
            "false_negatives": self.false_negatives,
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f} %"


def load_manifest(path: Path = MANIFEST) -> dict[str, Any]:
    with path.open("rb") as fh:
        data = tomllib.load(fh)
    entries = data.get("file", [])
    seen: set[str] = set()
    for entry in entries:
        where = entry.get("path", "?")
        if where in seen:
            raise ManifestError(f"{where}: judged twice")
        seen.add(where)
        if entry.get("source") not in data.get("sources", {}):
            raise ManifestError(f"{where}: unknown source {entry.get('source')!r}")
        if not entry.get("licence") or not entry.get("origin"):
            raise ManifestError(f"{where}: provenance (origin) and licence are required")
        if ("expect" in entry) == ("clean" in entry):
            raise ManifestError(f"{where}: give either expect = [...] or clean = \"why\"")
        for item in entry.get("expect", []):
            if item.get("rule") not in RULES or not isinstance(item.get("line"), int) or not item.get("why"):
                raise ManifestError(f"{where}: every expectation needs a known rule, a line and a why")
        if "clean" in entry and not str(entry["clean"]).strip():
            raise ManifestError(f"{where}: a clean file needs a one-line why")
    on_disk = {p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*.py")}
    if on_disk - seen:
        raise ManifestError(f"not judged in the manifest: {sorted(on_disk - seen)[:5]}")
    if seen - on_disk:
        raise ManifestError(f"judged but missing from the corpus: {sorted(seen - on_disk)[:5]}")
    return data


def evaluate(manifest: dict[str, Any] | None = None) -> Result:
    manifest = manifest if manifest is not None else load_manifest()
    result = Result()
    for entry in manifest["file"]:
        rel = entry["path"]
        result.files += 1
        result.by_source[entry["source"]] += 1
        result.clean_files += "clean" in entry
        expected = {(e["rule"], e["line"]) for e in entry.get("expect", [])}
        source = (CORPUS / rel).read_text(encoding="utf-8", errors="replace")
        findings = lint_source(source, rel)
        got = {(f.rule, f.line): f for f in findings}
        for key in set(got) | expected:
            rule = key[0]
            tally = result.rules.setdefault(rule, Tally())
            if key in got and key in expected:
                tally.tp += 1
                result.overall.tp += 1
            elif key in got:
                tally.fp += 1
                result.overall.fp += 1
                finding = got[key]
                result.false_positives.append({"path": rel, "rule": rule, "line": key[1],
                                               "severity": finding.severity.label,
                                               "message": finding.message})
            else:
                tally.fn += 1
                result.overall.fn += 1
                why = next(e["why"] for e in entry["expect"] if (e["rule"], e["line"]) == key)
                result.false_negatives.append({"path": rel, "rule": rule, "line": key[1], "why": why})
    for rule in RULES:
        result.rules.setdefault(rule, Tally())
    result.false_positives.sort(key=lambda f: (f["path"], f["line"], f["rule"]))
    result.false_negatives.sort(key=lambda f: (f["path"], f["line"], f["rule"]))
    return result


def render_text(result: Result) -> str:
    lines = [f"durable-jobs lint on {result.files} judged DAG files "
             f"({', '.join(f'{k} {v}' for k, v in sorted(result.by_source.items()))}); "
             f"{result.clean_files} clean", "",
             f"{'rule':<6} {'severity':<8} {'TP':>4} {'FP':>4} {'FN':>4} {'precision':>10} {'recall':>8}"]
    for rule_id, rule in RULES.items():
        t = result.rules[rule_id]
        lines.append(f"{rule_id:<6} {rule.severity.label:<8} {t.tp:>4} {t.fp:>4} {t.fn:>4} "
                     f"{_pct(t.precision):>10} {_pct(t.recall):>8}")
    o = result.overall
    lines += [f"{'all':<6} {'':<8} {o.tp:>4} {o.fp:>4} {o.fn:>4} {_pct(o.precision):>10} {_pct(o.recall):>8}",
              f"error-level false positives: {len(result.error_false_positives)}"]
    for fp in result.false_positives:
        lines.append(f"  FP {fp['path']}:{fp['line']} {fp['rule']} ({fp['severity']}) {fp['message'][:100]}")
    for fn in result.false_negatives:
        lines.append(f"  FN {fn['path']}:{fn['line']} {fn['rule']} - {fn['why']}")
    return "\n".join(lines) + "\n"


def render_markdown(data: dict[str, Any]) -> str:
    """The docs table, from the artifact: measured precision and recall per rule."""
    rows = ["| id | severity | TP | FP | FN | precision | recall |", "|---|---|---|---|---|---|---|"]
    for rule_id, rule in RULES.items():
        t = data["rules"].get(rule_id, {})
        rows.append(f"| {rule_id} | {rule.severity.label} | {t.get('tp', 0)} | {t.get('fp', 0)} | "
                    f"{t.get('fn', 0)} | {_pct(t.get('precision'))} | {_pct(t.get('recall'))} |")
    o = data["overall"]
    rows.append(f"| all | | {o['tp']} | {o['fp']} | {o['fn']} | {_pct(o['precision'])} | {_pct(o['recall'])} |")
    sources = ", ".join(f"{k} {v}" for k, v in data["files_by_source"].items())
    return (f"Measured by `make lint-eval` (`python -m tools.lint_eval`) on {data['files']} judged DAG "
            f"files in `{data['corpus']}` ({sources}; {data['clean_files']} of them clean), from "
            "`artifacts/lint-eval.json`. A dash: the rule neither fired nor was expected there. "
            f"Error-level false positives: {data['error_false_positives']}.\n\n" + "\n".join(rows) + "\n")


def precision_of(data: dict[str, Any] | None, rule_id: str) -> str:
    """One rule's measured precision for the docs' rule tables ("-" when not measured)."""
    if not data:
        return "-"
    return _pct(data.get("rules", {}).get(rule_id, {}).get("precision"))


def load_artifact(path: Path = ARTIFACT) -> dict[str, Any] | None:
    if not path.exists():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def artifact_text(result: Result) -> str:
    return json.dumps(result.as_dict(), indent=2, sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.lint_eval", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write; fail when artifacts/lint-eval.json differs from this run")
    parser.add_argument("--docs", action="store_true", help="also rewrite the generated section of docs/lint.md")
    args = parser.parse_args(argv)
    try:
        result = evaluate()
    except ManifestError as err:
        sys.stderr.write(f"lint-eval: manifest: {err}\n")
        return 2
    sys.stdout.write(render_text(result))
    text = artifact_text(result)
    code = 0
    if args.check:
        if not ARTIFACT.exists() or ARTIFACT.read_text(encoding="utf-8") != text:
            sys.stderr.write("lint-eval: artifacts/lint-eval.json is stale; run python -m tools.lint_eval --docs\n")
            code = 1
    else:
        ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
        ARTIFACT.write_text(text, encoding="utf-8")
        if args.docs:
            write_section(DOCS, SECTION, render_markdown(result.as_dict()))
    failures = result.failures()
    for failure in failures:
        sys.stderr.write(f"lint-eval: target missed: {failure}\n")
    return 1 if failures else code


if __name__ == "__main__":
    sys.exit(main())
