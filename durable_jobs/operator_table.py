"""The README's operator table, generated from the classes and the crash matrix (never typed).

``python -m durable_jobs.operator_table --readme README.md`` rewrites the section between
``<!-- operator-table:start -->`` and ``<!-- operator-table:end -->``; a test checks that the
committed README equals what this renders.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

START = "<!-- operator-table:start -->"
END = "<!-- operator-table:end -->"
ROOT = Path(__file__).resolve().parent.parent
MATRIX = ROOT / "artifacts" / "crash-matrix.json"


@dataclass(frozen=True)
class Entry:
    vendor: str
    classpath: str
    mechanism: str
    #: The crash matrix's ``vendor`` for scenarios run with this operator (None: not in the suite).
    crash_vendor: str | None = None


OPERATORS = (
    Entry("Databricks", "durable_jobs.operators.databricks.DatabricksSubmitRunOperator",
          "`idempotency_token`", crash_vendor="databricks"),
    Entry("Databricks", "durable_jobs.operators.databricks.DatabricksRunNowOperator", "`idempotency_token`"),
    Entry("AWS Batch", "durable_jobs.operators.aws.BatchOperator",
          "none in the API: key in the job name + `durable-jobs:key` tag, found with `ListJobs`",
          crash_vendor="batch"),
    Entry("AWS Glue", "durable_jobs.operators.aws.GlueJobOperator",
          "none in the API: `--durable_jobs_key` job argument, found with `GetJobRuns`"),
    Entry("Amazon EMR Serverless", "durable_jobs.operators.aws.EmrServerlessStartJobOperator",
          "`clientToken` + `durable-jobs:key` tag"),
)


def _load(classpath: str) -> type:
    module, _, name = classpath.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _durable_paths(cls: type) -> tuple[str, str]:
    from durable_jobs.operators.base import DurableJobMixin

    durable = issubclass(cls, DurableJobMixin)
    deferrable = "deferrable" in inspect.signature(cls.__init__).parameters
    return ("yes" if durable else "no", "yes" if durable and deferrable else "no")


def crash_proven(entry: Entry, matrix: dict[str, Any] | None) -> str:
    """The scenarios this operator passed in the committed matrix, or why there are none."""
    if not entry.crash_vendor or not matrix:
        return "not yet"
    scenarios = matrix.get("scenarios", {})
    ids = [sid for sid, s in scenarios.items() if s.get("vendor") == entry.crash_vendor]
    cells = [c for c in matrix.get("cells", []) if c.get("operator") == "ours" and c.get("scenario") in ids]
    if not cells:
        return "not yet"
    if any(c.get("deviations") or c.get("error") for c in cells):
        return "**failing cells** (see the matrix)"
    passed = list(dict.fromkeys(c["scenario"] for c in cells))
    return f"{', '.join(passed)} ([matrix](#crash-matrix))"


def render_markdown(matrix: dict[str, Any] | None) -> str:
    lines = [
        "| vendor | operator | sync durable | deferrable durable | idempotency mechanism | crash-proven |",
        "|---|---|---|---|---|---|",
    ]
    for entry in OPERATORS:
        sync, deferrable = _durable_paths(_load(entry.classpath))
        lines.append(
            f"| {entry.vendor} | `{entry.classpath}` | {sync} | {deferrable} | {entry.mechanism} | "
            f"{crash_proven(entry, matrix)} |"
        )
    return "\n".join(lines) + "\n"


def update_readme(readme: Path, markdown: str) -> None:
    text = readme.read_text()
    if START not in text or END not in text:
        raise SystemExit(f"{readme} lacks the {START} / {END} markers")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(f"{head}{START}\n{markdown}{END}{tail}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matrix", type=Path, default=MATRIX)
    parser.add_argument("--readme", type=Path, help="rewrite this README's operator table")
    args = parser.parse_args(argv)
    matrix = json.loads(args.matrix.read_text()) if args.matrix.exists() else None
    markdown = render_markdown(matrix)
    if args.readme:
        update_readme(args.readme, markdown)
    else:
        print(markdown, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
