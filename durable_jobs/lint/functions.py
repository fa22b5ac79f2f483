"""Every function in a DAG file and which functions each one can reach.

Anti-patterns often hide in helpers (``def _checkpoint(...)`` called from a ``@task``), so the
rules look at a task's *reach*: its own body plus every function of the same file it calls or
passes along by name, transitively.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def walk_own(node: ast.AST) -> Iterator[ast.AST]:
    """Walk a function's body without entering nested functions or classes."""
    body = node.body if isinstance(node, _SCOPES) else [node]
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, _SCOPES):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(current))))


@dataclass(eq=False)
class Func:
    node: FunctionNode
    cls: ast.ClassDef | None
    parent: Func | None
    children: list[Func] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def line(self) -> int:
        return self.node.lineno

    @cached_property
    def params(self) -> list[str]:
        args = self.node.args
        return [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]

    @property
    def var_keyword(self) -> str | None:
        return self.node.args.kwarg.arg if self.node.args.kwarg else None

    def own_nodes(self) -> Iterator[ast.AST]:
        return walk_own(self.node)

    @cached_property
    def assignments(self) -> dict[str, list[ast.expr]]:
        """Local name -> the expressions assigned to it (simple ``name = expr`` only)."""
        out: dict[str, list[ast.expr]] = {}
        for node in self.own_nodes():
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        out.setdefault(target.id, []).append(node.value)
            elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                if isinstance(node.target, ast.Name):
                    out.setdefault(node.target.id, []).append(node.value)
        return out

    def owner_class(self) -> ast.ClassDef | None:
        func: Func | None = self
        while func is not None:
            if func.cls is not None:
                return func.cls
            func = func.parent
        return None

    def enclosing(self) -> Iterator[Func]:
        func: Func | None = self
        while func is not None:
            yield func
            func = func.parent


class FunctionIndex:
    def __init__(self, tree: ast.Module) -> None:
        self.funcs: list[Func] = []
        self.classes: dict[str, ast.ClassDef] = {}
        self._collect(tree, None, None)
        self.by_name: dict[str, list[Func]] = {}
        for func in self.funcs:
            self.by_name.setdefault(func.name, []).append(func)

    def _collect(self, node: ast.AST, cls: ast.ClassDef | None, parent: Func | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                func = Func(child, cls, parent)
                self.funcs.append(func)
                if parent is not None:
                    parent.children.append(func)
                self._collect(child, None, func)
            elif isinstance(child, ast.ClassDef):
                self.classes.setdefault(child.name, child)
                self._collect(child, child, parent)
            else:
                self._collect(child, cls, parent)

    def methods(self, cls: ast.ClassDef) -> dict[str, Func]:
        return {f.name: f for f in self.funcs if f.cls is cls}

    def in_file_ancestors(self, cls: ast.ClassDef) -> list[ast.ClassDef]:
        """Base classes defined in this file, nearest first (by name; cycles ignored)."""
        out: list[ast.ClassDef] = []
        queue = [cls]
        while queue:
            current = queue.pop(0)
            for base in current.bases:
                if isinstance(base, ast.Name) and base.id in self.classes:
                    found = self.classes[base.id]
                    if found is not cls and found not in out:
                        out.append(found)
                        queue.append(found)
        return out

    def find_method(self, cls: ast.ClassDef, name: str) -> Func | None:
        for klass in (cls, *self.in_file_ancestors(cls)):
            method = self.methods(klass).get(name)
            if method is not None:
                return method
        return None

    def resolve_name(self, name: str, context: Func | None) -> Func | None:
        """The function a bare name refers to from inside ``context`` (innermost scope wins)."""
        candidates = [f for f in self.by_name.get(name, []) if f.cls is None]
        if context is not None:
            for scope in context.enclosing():
                for cand in candidates:
                    if cand.parent is scope:
                        return cand
        for cand in candidates:
            if cand.parent is None:
                return cand
        return None

    def callees(self, func: Func) -> list[Func]:
        out: list[Func] = []
        cls = func.owner_class()
        for node in func.own_nodes():
            target: Func | None = None
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                target = self.resolve_name(node.id, func)
            elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                  and node.value.id in ("self", "cls") and cls is not None):
                target = self.find_method(cls, node.attr)
            if target is not None and target is not func and target not in out:
                out.append(target)
        return out

    def reachable(self, root: Func, stop: frozenset[int] = frozenset()) -> list[Func]:
        """``root`` and what it calls, transitively, never entering functions in ``stop``
        (ids of other tasks' functions: naming a task inside a task does not run its body)."""
        seen = [root]
        index = 0
        while index < len(seen):
            for callee in self.callees(seen[index]):
                if callee not in seen and id(callee) not in stop:
                    seen.append(callee)
            index += 1
        return seen
