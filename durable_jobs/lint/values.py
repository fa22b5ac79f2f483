"""Classify a value written to a state store: not JSON, naive timestamp, or large payload.

A bare name is followed one step to the expressions assigned to it in the same function, which
catches the common ``now = datetime.utcnow(); store.set("ts", now)``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from durable_jobs.lint.exprs import subscript_key
from durable_jobs.lint.functions import Func
from durable_jobs.lint.imports import ImportMap, last

_DATETIME_MAKERS = frozenset({
    "now", "utcnow", "today", "fromisoformat", "fromtimestamp", "utcfromtimestamp", "strptime",
    "combine", "parse", "datetime", "date",
})
_DATETIME_MODULES = ("datetime", "date", "pendulum", "timezone", "parser")
_CONTEXT_DATETIMES = frozenset({
    "logical_date", "data_interval_start", "data_interval_end", "execution_date",
    "prev_data_interval_start_success", "prev_data_interval_end_success", "start_date",
})
_OTHER_NON_JSON = frozenset({"set", "frozenset", "bytes", "bytearray", "Decimal", "UUID", "uuid4",
                             "uuid1", "Path", "PurePath", "object"})
_NAIVE = ("datetime.utcnow", "datetime.utcfromtimestamp")
_LARGE_METHODS = frozenset({
    "to_dict", "to_json", "to_records", "to_csv", "to_parquet", "to_numpy", "tolist",
    "state_dict", "get_weights", "tobytes", "read", "readlines", "getvalue", "to_pandas",
})
_LARGE_MAKERS = frozenset({
    "DataFrame", "read_csv", "read_parquet", "read_json", "read_sql", "read_excel", "read_table",
    "load_model", "fetch_pandas_all", "fetchall",
})
_LARGE_NAMES = frozenset({"df", "dataframe", "frame", "weights", "model", "payload_bytes"})
LARGE_LITERAL_CHARS = 4096


def _follow(expr: ast.AST, func: Func, test: Callable[[ast.AST], str | None]) -> str | None:
    if isinstance(expr, ast.Name):
        for value in func.assignments.get(expr.id, []):
            found = test(value)
            if found:
                return found
    return test(expr)


def _follow_deep(expr: ast.AST, func: Func, test: Callable[[ast.AST], str | None],
                 helpers: Callable[[str], Func | None] | None = None, depth: int = 0) -> str | None:
    """Like ``_follow`` but through every name inside the value (``{"ts": now}``,
    ``str(now)``) and into the return values of same-file helpers (``store.set("t", stamp())``)."""
    found = test(expr)
    if found or depth > 3:
        return found
    for sub in ast.walk(expr):
        if isinstance(sub, ast.Name):
            for value in func.assignments.get(sub.id, []):
                found = _follow_deep(value, func, test, helpers, depth + 1)
                if found:
                    return found
        if helpers is not None and isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
            helper = helpers(sub.func.id)
            if helper is None:
                continue
            for node in helper.own_nodes():
                if isinstance(node, ast.Return) and node.value is not None:
                    found = _follow_deep(node.value, helper, test, helpers, depth + 1)
                    if found:
                        return found
    return None


def non_json(expr: ast.AST, func: Func, imports: ImportMap) -> str | None:
    """Why ``expr`` is not JSON-serialisable, or None."""
    def test(node: ast.AST) -> str | None:
        if isinstance(node, (ast.Set, ast.SetComp)):
            return "a set"
        if isinstance(node, ast.Constant) and isinstance(node.value, bytes):
            return "bytes"
        if isinstance(node, (ast.List, ast.Tuple)):
            return next((r for r in (non_json(e, func, imports) for e in node.elts) if r), None)
        if isinstance(node, ast.Dict):
            return next((r for r in (non_json(v, func, imports) for v in node.values) if r), None)
        if isinstance(node, ast.Name) and node.id in _CONTEXT_DATETIMES and node.id in func.params:
            return f"a datetime ({node.id})"
        if subscript_key(node) in _CONTEXT_DATETIMES:
            return f"a datetime ({ast.unparse(node)})"
        if isinstance(node, ast.Call):
            dotted = imports.dotted(node.func) or ""
            name = last(dotted)
            if name in _DATETIME_MAKERS and any(m in dotted.split(".")[:-1] for m in _DATETIME_MODULES):
                return f"a datetime ({dotted}())"
            if name in _OTHER_NON_JSON:
                return f"{name}(...)"
        return None
    return _follow(expr, func, test)


def naive_utcnow(expr: ast.AST, func: Func, imports: ImportMap,
                 helpers: Callable[[str], Func | None] | None = None) -> str | None:
    def test(node: ast.AST) -> str | None:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) and (imports.dotted(sub.func) or "").endswith(_NAIVE):
                return imports.dotted(sub.func)
        return None
    return _follow_deep(expr, func, test, helpers)


def large_payload(expr: ast.AST, func: Func, imports: ImportMap) -> str | None:
    def test(node: ast.AST) -> str | None:
        if isinstance(node, ast.Name) and node.id.lower() in _LARGE_NAMES:
            return f"'{node.id}'"
        if isinstance(node, (ast.Constant, ast.List, ast.Dict, ast.Tuple, ast.Set)) and \
                len(ast.unparse(node)) > LARGE_LITERAL_CHARS:
            return "a large literal"
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                if isinstance(sub.func, ast.Attribute) and sub.func.attr in _LARGE_METHODS:
                    return f".{sub.func.attr}()"
                if last(imports.dotted(sub.func)) in _LARGE_MAKERS:
                    return f"{last(imports.dotted(sub.func))}(...)"
        return None
    return _follow(expr, func, test)
