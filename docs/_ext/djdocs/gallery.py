"""The gallery: one page per ``example_dags/*.py``, from the folder listing and each file's docstring.

Nothing about an example is copied into the docs: the page includes the file itself and reads
its docstring, DAG ids and imports with ``ast`` (the file is not imported), finds the tests that
run it by its module name, and asks ``durable-jobs lint`` about it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

EXAMPLES = "example_dags"
#: AIP-103 names worth pointing out when an example uses them
PRIMITIVES = ("task_state_store", "asset_state_store", "ResumableJobMixin", "NEVER_EXPIRE")


@dataclass
class Example:
    stem: str
    path: Path
    docstring: str
    dag_ids: list[str] = field(default_factory=list)
    operators: list[str] = field(default_factory=list)
    primitives: list[str] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)

    @property
    def summary(self) -> str:
        """The docstring's first sentence, as Markdown (RST ``literals`` become `code`)."""
        first = self.docstring.strip().split("\n\n")[0].replace("\n", " ")
        return rst_literals_to_md(first)


def rst_literals_to_md(text: str) -> str:
    return re.sub(r"``(.+?)``", r"`\1`", text)


def discover(root: Path, warn) -> list[Example]:
    examples = []
    tests = _test_sources(root)
    for path in sorted((root / EXAMPLES).glob("[!_]*.py")):
        if path.name.startswith("_"):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except SyntaxError as err:
            warn(f"{path.relative_to(root)} does not parse ({err}); it has no gallery page")
            continue
        doc = ast.get_docstring(tree)
        if not doc:
            warn(f"{path.relative_to(root)} has no module docstring: say what it demonstrates")
            doc = ""
        ex = Example(path.stem, path, doc)
        ex.dag_ids = _dag_ids(tree)
        ex.operators = _operators(tree)
        source = path.read_text(encoding="utf-8")
        ex.primitives = [name for name in PRIMITIVES if re.search(rf"\b{name}\b", source)]
        ex.tests = _tests_running(path.stem, tests)
        ex.findings = _lint(path)
        examples.append(ex)
    if not examples:
        warn(f"no example DAGs found in {root / EXAMPLES}")
    return examples


def _dag_ids(tree: ast.AST) -> list[str]:
    ids: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node.func) in ("DAG", "dag"):
            for kw in node.keywords:
                if kw.arg == "dag_id" and isinstance(kw.value, ast.Constant):
                    ids.append(str(kw.value.value))
            if node.args and isinstance(node.args[0], ast.Constant) and _name(node.func) == "DAG":
                ids.append(str(node.args[0].value))
        if isinstance(node, ast.FunctionDef):
            for deco in node.decorator_list:
                bare = _name(deco) == "dag"
                call = isinstance(deco, ast.Call) and _name(deco.func) == "dag"
                if (bare or call) and not (call and any(k.arg == "dag_id" for k in deco.keywords)):
                    ids.append(node.name)
    return list(dict.fromkeys(ids))


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _operators(tree: ast.Module) -> list[str]:
    found = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("durable_jobs.providers"):
            found += [f"{node.module}.{alias.name}" for alias in node.names]
    return found


def _test_sources(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text(encoding="utf-8")
        for p in sorted((root / "tests").rglob("test_*.py"))
    }


def _tests_running(stem: str, sources: dict[str, str]) -> list[str]:
    """Test functions that name the example by its module name (``load("x")``, parametrize ids)."""
    quoted = re.compile(rf"""["']{re.escape(stem)}["']""")
    hits = []
    for rel, text in sources.items():
        if not quoted.search(text):
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                start = min([d.lineno for d in node.decorator_list] + [node.lineno])
                body = "\n".join(text.splitlines()[start - 1:node.end_lineno])
                if quoted.search(body):
                    hits.append(f"{rel}::{node.name}")
    return hits


def _lint(path: Path) -> list[str]:
    from durable_jobs.lint import lint_paths

    return [
        f"{{ref}}`{f.rule} <rule-{f.rule.lower()}>` ({f.severity.label}, line {f.line}): {f.message}"
        for f in lint_paths([path])
    ]


def page(ex: Example) -> str:
    def items(values: list[str], empty: str) -> str:
        return "\n".join(f"- {v}" for v in values) if values else f"- {empty}"

    facts = "\n\n".join([
        f"**DAG ids:** {', '.join(f'`{d}`' for d in ex.dag_ids) or '—'}",
        f"**durable-jobs operators:** {', '.join(f'`{o}`' for o in ex.operators) or '—'}",
        f"**AIP-103 primitives:** {', '.join(f'`{p}`' for p in ex.primitives) or '—'}",
        "**Run by** (through Airflow, against the bundled emulators where it talks to a vendor):\n\n"
        + items([f"`{t}`" for t in ex.tests], "**no test runs this example yet**"),
        "**`durable-jobs lint`:**\n\n" + items(ex.findings, "no findings"),
    ])
    return f"""---
myst:
  html_meta:
    description: "{_attr(ex.summary)}"
---

<!-- Generated by docs/_ext/djdocs/gallery.py from {EXAMPLES}/{ex.path.name}: edit the example, not this page. -->

(gallery-{ex.stem})=
# {ex.path.name}

```{{eval-rst}}
{ex.docstring}
```

{facts}

## The DAG file

```{{literalinclude}} /../{EXAMPLES}/{ex.path.name}
:language: python
:linenos:
```
"""


def index_fragment(examples: list[Example]) -> str:
    lines = []
    for ex in examples:
        runs = (f"run by {len(ex.tests)} test{'s' if len(ex.tests) != 1 else ''}" if ex.tests
                else "**not yet run by a test**")
        lines.append(f"- {{ref}}`{ex.path.name} <gallery-{ex.stem}>` — {ex.summary} *({runs})*")
    return "\n".join(lines) + "\n"


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _attr(text: str) -> str:
    return re.sub(r"[`\"\\]", "", text)
