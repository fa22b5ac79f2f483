"""Where task code lives in a DAG file: TaskFlow functions, python_callables, operator methods.

A *root* is a function Airflow runs as a task (or as the body of one); findings about "inside
a task" look at a root and the helpers it reaches. DAG blocks are tracked so that a task's
``retries`` can fall back to the DAG's ``default_args``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from durable_jobs.lint.exprs import Located, dict_literal, kwargs, str_value
from durable_jobs.lint.functions import Func, FunctionIndex
from durable_jobs.lint.imports import ImportMap, last
from durable_jobs.lint.vendors import is_sensor_class

_TASK_RE = re.compile(r"^(?:airflow(?:\.\w+)*\.)?task(?:\.(\w+))?$")
_DAG_DECORATOR_RE = re.compile(r"^(?:airflow(?:\.\w+)*\.)?dag$")
# Methods Airflow (or ResumableJobMixin.execute_resumable) calls on an operator instance.
OPERATOR_METHODS = frozenset({
    "execute", "execute_complete", "poke", "submit_job", "get_job_status",
    "poll_until_complete", "get_job_result",
})


@dataclass(eq=False)
class DagInfo:
    call: ast.Call | None
    default_args: dict[str, ast.expr]


@dataclass(eq=False)
class TaskRoot:
    func: Func
    kind: str                      # "taskflow" | "callable" | "method"
    task_id: str | None
    config: dict[str, ast.expr]    # decorator / operator keyword arguments
    anchor: Located                # where task-level findings point
    sensor: bool = False
    mapped: bool = False
    dag: DagInfo | None = None
    operator: ast.Call | None = None

    @property
    def label(self) -> str:
        if self.kind == "method":
            cls = self.func.owner_class()
            return f"{cls.name}.{self.func.name}()" if cls else f"{self.func.name}()"
        return f"task '{self.task_id or self.func.name}'"

    def setting(self, name: str) -> ast.expr | None:
        """A task argument, falling back to the DAG's default_args."""
        if name in self.config:
            return self.config[name]
        if self.dag is not None:
            return self.dag.default_args.get(name)
        return None


def task_decorator(func: Func, imports: ImportMap) -> tuple[ast.expr, str | None] | None:
    """The ``@task``-family decorator of ``func`` and its variant (``"sensor"``...), if any."""
    for dec in func.node.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        match = _TASK_RE.match(imports.dotted(target) or "")
        if match:
            return dec, match.group(1)
    return None


def is_dag_decorator(dec: ast.expr, imports: ImportMap) -> bool:
    target = dec.func if isinstance(dec, ast.Call) else dec
    return bool(_DAG_DECORATOR_RE.match(imports.dotted(target) or ""))


def is_dag_class(call: ast.AST, imports: ImportMap) -> bool:
    return isinstance(call, ast.Call) and last(imports.dotted(call.func)) == "DAG"


def operator_class(call: ast.Call, imports: ImportMap) -> str | None:
    """Dotted class of ``Op(...)`` or ``Op.partial(...)``."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "partial":
        func = func.value
    return imports.dotted(func)


class DagScopes:
    """Which DAG (``with DAG(...)`` block or ``@dag`` function) encloses each node."""

    def __init__(self, tree: ast.Module, imports: ImportMap) -> None:
        self._tree = tree
        self._imports = imports
        self.dags: list[DagInfo] = []
        self._owner: dict[int, DagInfo] = {}
        self._visit(tree, None)
        self._named: dict[str, DagInfo] = {}          # dag = DAG(...); Op(..., dag=dag)
        for stmt in ast.walk(tree):
            if isinstance(stmt, ast.Assign) and is_dag_class(stmt.value, imports):
                info = next((i for i in self.dags if i.call is stmt.value), None)
                for target in stmt.targets:
                    if info is not None and isinstance(target, ast.Name):
                        self._named[target.id] = info

    def _info(self, call: ast.Call | None) -> DagInfo:
        value = kwargs(call).get("default_args") if call is not None else None
        info = DagInfo(call, self._defaults(value))
        self.dags.append(info)
        return info

    def _defaults(self, value: ast.AST | None, depth: int = 0) -> dict[str, ast.expr]:
        """A default_args literal, following module-level names and ``**`` spreads
        (``{**BASE, "retries": 2}``, ``dict(BASE, retries=2)``, ``{**BASE} | {...}``)."""
        if depth > 5 or value is None:
            return {}
        if isinstance(value, ast.Name):
            return self._defaults(self._module_assignment(value.id), depth + 1)
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitOr):
            return {**self._defaults(value.left, depth + 1), **self._defaults(value.right, depth + 1)}
        out: dict[str, ast.expr] = {}
        if isinstance(value, ast.Dict):
            for key, item in zip(value.keys, value.values):
                if key is None:
                    out.update(self._defaults(item, depth + 1))
                elif str_value(key) is not None:
                    out[str_value(key)] = item  # type: ignore[index]
            return out
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict":
            for arg in value.args:
                out.update(self._defaults(arg, depth + 1))
            for kw in value.keywords:
                if kw.arg is None:
                    out.update(self._defaults(kw.value, depth + 1))
                else:
                    out[kw.arg] = kw.value
            return out
        return dict_literal(value) or {}

    def _module_assignment(self, name: str) -> ast.expr | None:
        for stmt in self._tree.body:
            if isinstance(stmt, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in stmt.targets
            ):
                return stmt.value
        return None

    def _visit(self, node: ast.AST, dag: DagInfo | None) -> None:
        for child in ast.iter_child_nodes(node):
            inner = dag
            if isinstance(child, (ast.With, ast.AsyncWith)):
                for item in child.items:
                    if is_dag_class(item.context_expr, self._imports):
                        inner = self._info(item.context_expr)  # type: ignore[arg-type]
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for dec in child.decorator_list:
                    if is_dag_decorator(dec, self._imports):
                        inner = self._info(dec if isinstance(dec, ast.Call) else None)
            elif is_dag_class(child, self._imports) and not self._is_with_item(child):
                self._info(child)  # type: ignore[arg-type]
            if inner is not None:
                self._owner[id(child)] = inner
            self._visit(child, inner)

    def _is_with_item(self, call: ast.AST) -> bool:
        return any(info.call is call for info in self.dags)

    def owner(self, node: ast.AST) -> DagInfo | None:
        if isinstance(node, ast.Call):
            named = kwargs(node).get("dag")
            if isinstance(named, ast.Name) and named.id in self._named:
                return self._named[named.id]
        found = self._owner.get(id(node))
        if found is None and len(self.dags) == 1:
            return self.dags[0]
        return found


def find_roots(tree: ast.Module, imports: ImportMap, index: FunctionIndex,
               dags: DagScopes) -> list[TaskRoot]:
    """TaskFlow functions, operator methods Airflow calls, and python_callables, in that order."""
    roots: list[TaskRoot] = []
    for func in index.funcs:
        found = task_decorator(func, imports)
        if found is not None:
            dec, variant = found
            config = kwargs(dec) if isinstance(dec, ast.Call) else {}
            roots.append(TaskRoot(
                func, "taskflow", str_value(config.get("task_id")) or func.name, config,
                func.node, sensor=variant == "sensor", dag=dags.owner(func.node),
            ))
        elif func.cls is not None and func.name in OPERATOR_METHODS:
            roots.append(TaskRoot(func, "method", None, {}, func.node))
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        target = kwargs(call).get("python_callable")
        if not isinstance(target, ast.Name):
            continue
        callee = index.resolve_name(target.id, None) or next(iter(index.by_name.get(target.id, [])), None)
        if callee is None:
            continue
        config = kwargs(call)
        roots.append(TaskRoot(
            callee, "callable", str_value(config.get("task_id")), config, call,
            sensor=is_sensor_class(operator_class(call, imports)),
            dag=dags.owner(call), operator=call,
        ))
    _mark_mapped(tree, roots)
    return roots


def _mark_mapped(tree: ast.Module, roots: list[TaskRoot]) -> None:
    """``f.expand(...)``, ``f.partial(...).expand(...)``, ``Op.partial(python_callable=f).expand()``."""
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr in ("expand", "expand_kwargs")):
            continue
        base: ast.AST = call.func.value
        partial: ast.Call | None = None
        if isinstance(base, ast.Call) and isinstance(base.func, ast.Attribute):
            if base.func.attr == "partial":
                partial = base
            if base.func.attr in ("partial", "override"):
                base = base.func.value
        for root in roots:
            if root.kind == "taskflow" and isinstance(base, ast.Name) and base.id == root.func.name:
                root.mapped = True
            elif root.kind == "callable" and root.operator is partial and partial is not None:
                root.mapped = True
