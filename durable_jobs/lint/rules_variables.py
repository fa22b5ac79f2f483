"""DJ011, DJ031, DJ041: Airflow Variables used as state.

State is told from configuration by *writes*: a Variable written inside a task (a TaskFlow
function, a python_callable, an operator method, or a helper any of them calls) is state.
A Variable that is only read - at module level or inside a task - is configuration and is
never reported. A read inside a task whose key the same task also writes is part of that state.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from durable_jobs.lint.context import FileContext
from durable_jobs.lint.exprs import call_arg, key_text, literal_text, shown
from durable_jobs.lint.functions import Func
from durable_jobs.lint.imports import ImportMap, last
from durable_jobs.lint.vendors import JOB_ID_KEY_RE

WRITE_METHODS = frozenset({"set", "delete", "update", "setdefault"})
WATERMARK_KEY_RE = re.compile(
    r"watermark|high[_-]?water|last[_-]?(processed|loaded|load|synced|sync|run|success|"
    r"successful|updated|update|seen|modified|ingested|extracted|ts|timestamp)|"
    r"(^|_)since($|_)|_(at|ts|timestamp)$",
    re.IGNORECASE,
)
_TIME_ATTRS = frozenset({"now", "utcnow", "today", "isoformat", "timestamp", "strftime"})
_TIME_CONTEXT = frozenset({"ts", "data_interval_end", "data_interval_start", "logical_date"})


@dataclass(eq=False)
class VarOp:
    method: str
    call: ast.Call
    key: str | None            # comparable text of the key expression
    shown: str                 # the key as written, for messages
    value: ast.expr | None
    func: Func

    @property
    def write(self) -> bool:
        return self.method in WRITE_METHODS


def is_variable(expr: ast.AST, imports: ImportMap) -> bool:
    dotted = imports.dotted(expr)
    if dotted == "Variable":                 # never imported: a snippet, treat as Airflow's
        return True
    return dotted is not None and dotted.startswith("airflow.") and last(dotted) == "Variable"


def variable_ops(func: Func, imports: ImportMap) -> list[VarOp]:
    out: list[VarOp] = []
    for node in func.own_nodes():
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in WRITE_METHODS | {"get"} and is_variable(node.func.value, imports)):
            value = call_arg(node, 1, "value") if node.func.attr != "get" else None
            key = call_arg(node, 0, "key")
            out.append(VarOp(node.func.attr, node, key_text(key), shown(key), value, func))
    return sorted(out, key=lambda op: (op.call.lineno, op.call.col_offset))


def _timestamp_like(expr: ast.AST | None, func: Func, follow: bool = True) -> bool:
    """A value that is a point in time: ``now()``, ``isoformat()``, ``data_interval_end``..."""
    if expr is None:
        return False
    if follow and isinstance(expr, ast.Name) and expr.id in func.assignments:
        return any(_timestamp_like(v, func, follow=False) for v in func.assignments[expr.id])
    for sub in ast.walk(expr):
        if isinstance(sub, ast.Attribute) and sub.attr in _TIME_ATTRS:
            return True
        if isinstance(sub, ast.Name) and sub.id in _TIME_CONTEXT:
            return True
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and sub.value in _TIME_CONTEXT:
            return True
    return False


def is_watermark(op: VarOp) -> bool:
    key_literal = literal_text(call_arg(op.call, 0, "key"))
    return bool(WATERMARK_KEY_RE.search(key_literal)) or _timestamp_like(op.value, op.func)


def _resume_keys(test: ast.expr, func: Func, imports: ImportMap) -> dict[str, str]:
    """Keys (text -> as written) of the Variable reads an ``if`` test depends on, directly or
    through one local name."""
    exprs: list[ast.AST] = [test]
    for name in (n.id for n in ast.walk(test) if isinstance(n, ast.Name)):
        exprs.extend(func.assignments.get(name, []))
    keys: dict[str, str] = {}
    for expr in exprs:
        for sub in ast.walk(expr):
            if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
                    and sub.func.attr == "get" and is_variable(sub.func.value, imports)):
                key = call_arg(sub, 0, "key")
                if key is not None:
                    keys.setdefault(key_text(key), shown(key))  # type: ignore[arg-type]
    return keys


def check(ctx: FileContext) -> None:
    mod = ctx.module
    ops = {id(f): variable_ops(f, mod.imports) for f in mod.task_funcs}
    for root in mod.roots:
        reach = mod.reach(root)
        root_ops = [op for f in reach for op in ops[id(f)]]
        written = {op.key for op in root_ops if op.write}
        covered: set[str] = set()
        for func in reach:
            for node in func.own_nodes():
                if not isinstance(node, ast.If):
                    continue
                keys = {k: text for k, text in _resume_keys(node.test, func, mod.imports).items()
                        if k in written or JOB_ID_KEY_RE.search(k)}
                if keys:
                    covered.update(keys)
                    ctx.report("DJ031", node, (
                        f"{root.label} decides reconnect-or-submit on Variable "
                        f"{', '.join(keys.values())}: hand-written resume logic; "
                        "use ResumableJobMixin"))
        _report_writes(ctx, root.label, root_ops, covered)


def _report_writes(ctx: FileContext, label: str, root_ops: list[VarOp], covered: set[str]) -> None:
    seen: set[str | None] = set()
    for op in root_ops:
        if not op.write or op.key in covered or op.key in seen:
            continue
        seen.add(op.key)
        same_key = [o for o in root_ops if o.key == op.key]
        watermark = next((o for o in same_key if o.write and is_watermark(o)), None)
        if watermark is not None:
            ctx.report("DJ041", watermark.call, (
                f"{label} keeps watermark {watermark.shown} in a global Variable; "
                "use asset_state_store"))
            continue
        reads = [o.call.lineno for o in same_key if not o.write]
        also = f" (read at line {reads[0]})" if reads else ""
        ctx.report("DJ011", op.call, (
            f"{label} writes Variable {op.shown}{also}: per-run state in a global Variable; "
            "use task_state_store"))
