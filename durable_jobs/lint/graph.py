"""The task graph of a DAG file, rebuilt from its source: tasks, dependencies, data references.

Dependencies come from ``>>``/``<<``, ``chain``, ``cross_downstream``, ``set_upstream`` /
``set_downstream`` and from XComArgs passed between tasks (Airflow adds those edges itself).
*References* are weaker: a task that pulls another task's XCom (in code or in a Jinja template)
reads its output without necessarily depending on it. The split rule needs both.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from durable_jobs.lint.exprs import Located, kwargs, str_value, strings_in
from durable_jobs.lint.functions import Func
from durable_jobs.lint.imports import ImportMap, last
from durable_jobs.lint.tasks import TaskRoot, is_dag_decorator, operator_class

_XCOM_TEMPLATE_RE = re.compile(r"xcom_pull\(\s*(?:task_ids\s*=\s*)?['\"]([\w.\-]+)['\"]")
_GROUP_DECORATOR_RE = re.compile(r"^(?:airflow(?:\.\w+)*\.)?task_group$")


@dataclass(eq=False)
class TaskNode:
    id: int
    task_id: str | None
    anchor: Located                 # operator call, or the TaskFlow function definition
    call: ast.Call                  # where the task is created
    cls: str | None                 # operator class; None for TaskFlow
    root: TaskRoot | None           # the task's Python code, if it has any in this file
    config: dict[str, ast.expr]     # operator / decorator keyword arguments
    refs: set[int] = field(default_factory=set)
    # Settings made after the constructor: ``op.wait_for_completion = False`` (last one wins).
    assigned: dict[str, ast.expr] = field(default_factory=dict)
    defaults: dict[str, ast.expr] = field(default_factory=dict)   # the DAG's default_args

    def setting(self, name: str) -> ast.expr | None:
        """What the task runs with: an attribute set later, the argument, then default_args."""
        for source in (self.assigned, self.config, self.defaults):
            if name in source:
                return source[name]
        return None

    def settings(self) -> dict[str, ast.expr]:
        return {**self.defaults, **self.config, **self.assigned}

    def where(self, value: ast.AST) -> str:
        """How a setting was made, for messages: ``wait_for_completion=False`` and its origin."""
        for label, source in (("", self.assigned), ("", self.config), ("default_args ", self.defaults)):
            for name, node in source.items():
                if node is value:
                    return f"{label}{name}={ast.unparse(node)}"
                if isinstance(node, ast.Dict):
                    for key, item in zip(node.keys, node.values):
                        if item is value and key is not None:
                            return f"{label}{name}[{ast.unparse(key)}]={ast.unparse(item)}"
        return ast.unparse(value)


@dataclass(frozen=True)
class Edge:
    up: int
    down: int
    line: int
    col: int


class DagGraph:
    def __init__(self, tree: ast.Module, imports: ImportMap, roots: list[TaskRoot],
                 is_operator: Callable[[str | None], bool],
                 reach: Callable[[TaskRoot], list[Func]],
                 defaults: Callable[[ast.AST], dict[str, ast.expr]] | None = None) -> None:
        self._imports = imports
        self._defaults = defaults or (lambda node: {})
        self._is_operator = is_operator
        self._taskflow = {r.func.name: r for r in roots if r.kind == "taskflow"}
        self._callables = {id(r.operator): r for r in roots if r.operator is not None}
        self.nodes: list[TaskNode] = []
        self._memo: dict[int, list[TaskNode]] = {}
        self._edges: dict[tuple[int, int], Edge] = {}
        self._block(tree.body, {})
        self._resolve_xcom_refs(reach)

    # -- public queries -------------------------------------------------------------------
    def node(self, node_id: int) -> TaskNode:
        return self.nodes[node_id]

    def downstream(self, node_id: int) -> list[Edge]:
        return [e for e in self._edges.values() if e.up == node_id]

    def ancestors(self, node_id: int) -> set[int]:
        seen: set[int] = set()
        stack = [node_id]
        while stack:
            current = stack.pop()
            for edge in self._edges.values():
                if edge.down == current and edge.up not in seen:
                    seen.add(edge.up)
                    stack.append(edge.up)
        return seen

    # -- statements -----------------------------------------------------------------------
    def _block(self, stmts: list[ast.stmt], env: dict[str, list[TaskNode]]) -> None:
        for stmt in stmts:
            self._stmt(stmt, env)

    def _stmt(self, stmt: ast.stmt, env: dict[str, list[TaskNode]]) -> None:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            value = stmt.value
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            nodes = self._eval(value, env)
            for target in targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                    for task in env.get(target.value.id, []):   # op.wait_for_completion = False
                        task.assigned[target.attr] = value
                elif isinstance(target, ast.Name):
                    env[target.id] = nodes
                elif (isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple)
                      and len(target.elts) == len(value.elts)):
                    for name, elt in zip(target.elts, value.elts):
                        if isinstance(name, ast.Name):
                            env[name.id] = self._eval(elt, env)
        elif isinstance(stmt, (ast.Expr, ast.Return, ast.AugAssign)) and stmt.value is not None:
            self._eval(stmt.value, env)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                self._eval(item.context_expr, env)
            self._block(stmt.body, env)
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.If)):
            self._block(stmt.body, env)
            self._block(stmt.orelse, env)
        elif isinstance(stmt, ast.Try):
            for block in (stmt.body, *[h.body for h in stmt.handlers], stmt.orelse, stmt.finalbody):
                self._block(block, env)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and self._builds_dag(stmt):
            self._block(stmt.body, dict(env))

    def _builds_dag(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        for dec in func.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            if is_dag_decorator(dec, self._imports) or _GROUP_DECORATOR_RE.match(
                    self._imports.dotted(target) or ""):
                return True
        return False

    # -- expressions ----------------------------------------------------------------------
    def _eval(self, expr: ast.AST | None, env: dict[str, list[TaskNode]]) -> list[TaskNode]:
        if expr is None:
            return []
        if isinstance(expr, ast.Name):
            return list(env.get(expr.id, []))
        if isinstance(expr, ast.Attribute) and expr.attr == "output":
            return self._eval(expr.value, env)
        if isinstance(expr, (ast.Subscript, ast.Starred)):
            return self._eval(expr.value, env)
        if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
            return [n for elt in expr.elts for n in self._eval(elt, env)]
        if (isinstance(expr, (ast.ListComp, ast.GeneratorExp)) and len(expr.generators) == 1
                and isinstance(expr.elt, ast.Name) and isinstance(expr.generators[0].target, ast.Name)
                and expr.elt.id == expr.generators[0].target.id):
            return self._eval(expr.generators[0].iter, env)    # [t for t in [a, b, c] if t]
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.RShift, ast.LShift)):
            left, right = self._eval(expr.left, env), self._eval(expr.right, env)
            ups, downs = (left, right) if isinstance(expr.op, ast.RShift) else (right, left)
            self._connect(ups, downs, expr)
            return right
        if isinstance(expr, ast.Call):
            if id(expr) not in self._memo:
                self._memo[id(expr)] = []           # guards re-entry while evaluating args
                self._memo[id(expr)] = self._call(expr, env)
            return self._memo[id(expr)]
        return []

    @staticmethod
    def _spread(args: list[ast.expr]) -> list[ast.expr]:
        """``chain(*[a, b, c])`` and ``chain(*[t for t in [a, b, c] if t])``: one group each."""
        out: list[ast.expr] = []
        for arg in args:
            value = arg.value if isinstance(arg, ast.Starred) else None
            if isinstance(value, (ast.ListComp, ast.GeneratorExp)) and len(value.generators) == 1:
                value = value.generators[0].iter
            if isinstance(value, (ast.List, ast.Tuple)):
                out.extend(value.elts)
            else:
                out.append(arg)
        return out

    def _connect(self, ups: list[TaskNode], downs: list[TaskNode], at: Located) -> None:
        for up in ups:
            for down in downs:
                if up is not down and (up.id, down.id) not in self._edges:
                    self._edges[(up.id, down.id)] = Edge(up.id, down.id, at.lineno, at.col_offset + 1)

    def _call(self, call: ast.Call, env: dict[str, list[TaskNode]]) -> list[TaskNode]:
        func = call.func
        name = last(self._imports.dotted(func))
        if name == "chain":
            # An element the lint cannot see into (a task group call, a helper's result) is
            # skipped, not a break: order still passes through it.
            groups = [g for g in (self._eval(arg, env) for arg in self._spread(call.args)) if g]
            for ups, downs in zip(groups, groups[1:]):
                self._connect(ups, downs, call)
            return []
        if name == "cross_downstream" and len(call.args) >= 2:
            self._connect(self._eval(call.args[0], env), self._eval(call.args[1], env), call)
            return []
        if isinstance(func, ast.Attribute) and func.attr in ("set_downstream", "set_upstream") and call.args:
            this, other = self._eval(func.value, env), self._eval(call.args[0], env)
            ups, downs = (this, other) if func.attr == "set_downstream" else (other, this)
            self._connect(ups, downs, call)
            return []
        if name in ("XComArg", "cast", "str") and call.args:     # XComArg(task, key=...), cast(T, x)
            return self._eval(call.args[0] if name == "XComArg" else call.args[-1], env)
        root = self._taskflow_root(func)
        if root is not None:
            return [self._new_taskflow(call, root, env)]
        cls = operator_class(call, self._imports)
        if self._is_operator(cls):
            return [self._new_operator(call, cls, env)]
        if isinstance(func, ast.Attribute) and func.attr in ("expand", "expand_kwargs"):
            nodes = self._eval(func.value, env)
            for node in nodes:
                self._add_refs(node, [*call.args, *[k.value for k in call.keywords]], env)
            return nodes
        for arg in [*call.args, *[k.value for k in call.keywords]]:
            self._eval(arg, env)
        return []

    def _taskflow_root(self, func: ast.AST) -> TaskRoot | None:
        if isinstance(func, ast.Attribute) and func.attr in ("expand", "expand_kwargs"):
            func = func.value
        if (isinstance(func, ast.Call) and isinstance(func.func, ast.Attribute)
                and func.func.attr in ("partial", "override")):
            func = func.func.value
        return self._taskflow.get(func.id) if isinstance(func, ast.Name) else None

    def _inner_calls(self, call: ast.Call) -> list[ast.Call]:
        out = [call]
        func: ast.AST = call.func
        while isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
            out.append(func.value)
            func = func.value.func
        if isinstance(func, ast.Call):
            out.append(func)
        return out

    def _new_taskflow(self, call: ast.Call, root: TaskRoot, env: dict[str, list[TaskNode]]) -> TaskNode:
        task_id = root.task_id
        args: list[ast.expr] = []
        for inner in self._inner_calls(call):
            task_id = str_value(kwargs(inner).get("task_id")) or task_id
            args += [*inner.args, *[k.value for k in inner.keywords if k.arg != "task_id"]]
        node = TaskNode(len(self.nodes), task_id, root.func.node, call, None, root, root.config,
                        defaults=self._defaults(call))
        self.nodes.append(node)
        self._add_refs(node, args, env)
        return node

    def _new_operator(self, call: ast.Call, cls: str | None, env: dict[str, list[TaskNode]]) -> TaskNode:
        config = kwargs(call)
        node = TaskNode(len(self.nodes), str_value(config.get("task_id")), call, call, cls,
                        self._callables.get(id(call)), config, defaults=self._defaults(call))
        self.nodes.append(node)
        self._add_refs(node, [v for k, v in config.items() if k != "task_id"], env)
        return node

    def _add_refs(self, node: TaskNode, args: list[ast.expr], env: dict[str, list[TaskNode]]) -> None:
        """XComArgs in arguments are data dependencies: Airflow adds the edge itself."""
        for arg in args:
            for sub in ast.walk(arg):
                if isinstance(sub, (ast.Name, ast.Call)):
                    ups = [u for u in self._eval(sub, env) if u is not node]
                    node.refs.update(u.id for u in ups)
                    self._connect(ups, [node], sub)

    def _resolve_xcom_refs(self, reach: Callable[[TaskRoot], list[Func]]) -> None:
        by_task_id: dict[str, list[TaskNode]] = {}
        for node in self.nodes:
            if node.task_id:
                by_task_id.setdefault(node.task_id, []).append(node)
        for node in self.nodes:
            pulled: set[str] = set()
            for value in node.config.values():
                for text in strings_in(value):
                    pulled.update(_XCOM_TEMPLATE_RE.findall(text))
            if node.root is not None:
                for func in reach(node.root):
                    pulled.update(_pulled_task_ids(func))
            for task_id in pulled:
                node.refs.update(n.id for n in by_task_id.get(task_id, []) if n is not node)


def _pulled_task_ids(func: Func) -> set[str]:
    out: set[str] = set()
    for sub in func.own_nodes():
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "xcom_pull":
            target = kwargs(sub).get("task_ids") or (sub.args[0] if sub.args else None)
            if isinstance(target, (ast.List, ast.Tuple)):
                out.update(t for t in (str_value(e) for e in target.elts) if t)
            elif str_value(target):
                out.add(str_value(target))  # type: ignore[arg-type]
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            out.update(_XCOM_TEMPLATE_RE.findall(sub.value))
    return out
