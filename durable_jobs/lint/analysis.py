"""One parsed DAG file and everything the rules ask about it, computed once and lazily."""

from __future__ import annotations

import ast
from functools import cached_property

from durable_jobs.lint.functions import Func, FunctionIndex
from durable_jobs.lint.graph import DagGraph
from durable_jobs.lint.imports import ImportMap, last
from durable_jobs.lint.stores import StoreIndex
from durable_jobs.lint.tasks import DagScopes, TaskRoot, find_roots
from durable_jobs.lint.vendors import is_operator_class

MIXIN_NAMES = frozenset({"ResumableJobMixin"})
# Our own base mixin: only the base-order rule applies to its subclasses.
ORDER_ONLY_MIXINS = frozenset({"DurableJobMixin"})


class Module:
    def __init__(self, tree: ast.Module, source: str) -> None:
        self.tree = tree
        self.source = source
        self.imports = ImportMap(tree)
        self.index = FunctionIndex(tree)
        self.dags = DagScopes(tree, self.imports)
        self.roots: list[TaskRoot] = find_roots(tree, self.imports, self.index, self.dags)
        self._reach: dict[int, list[Func]] = {}

    def reach(self, root: TaskRoot) -> list[Func]:
        """The root's function and every same-file function it can call."""
        if id(root) not in self._reach:
            others = frozenset(id(r.func) for r in self.roots
                               if r.kind == "taskflow" and r.func is not root.func)
            self._reach[id(root)] = self.index.reachable(root.func, others)
        return self._reach[id(root)]

    @cached_property
    def task_funcs(self) -> list[Func]:
        """Every function that runs as (part of) a task."""
        out: list[Func] = []
        for root in self.roots:
            out.extend(f for f in self.reach(root) if f not in out)
        return out

    @cached_property
    def stores(self) -> StoreIndex:
        return StoreIndex(self.index)

    @cached_property
    def graph(self) -> DagGraph:
        def defaults(node: ast.AST) -> dict[str, ast.expr]:
            dag = self.dags.owner(node)
            return dag.default_args if dag is not None else {}
        return DagGraph(self.tree, self.imports, self.roots, self.is_operator, self.reach, defaults)

    # -- classes --------------------------------------------------------------------------
    def base_names(self, cls: ast.ClassDef) -> list[str]:
        return [self.imports.dotted(b) or ast.unparse(b) for b in cls.bases]

    def is_mixin_base(self, dotted: str) -> bool:
        return last(dotted) in MIXIN_NAMES

    def is_operator_classdef(self, cls: ast.ClassDef, _seen: frozenset[str] = frozenset()) -> bool:
        for base in self.base_names(cls):
            if is_operator_class(base) or last(base) in MIXIN_NAMES | ORDER_ONLY_MIXINS:
                return True
            inner = self.index.classes.get(base)
            if inner is not None and base not in _seen and self.is_operator_classdef(inner, _seen | {base}):
                return True
        return False

    def is_operator(self, cls: str | None) -> bool:
        """An operator class: by naming convention, or a class in this file that is one."""
        if is_operator_class(cls):
            return True
        local = self.index.classes.get(cls or "")
        return local is not None and self.is_operator_classdef(local)

    def mixin_classes(self) -> list[ast.ClassDef]:
        """Classes that list ResumableJobMixin or inherit it from a class of this file."""
        out: list[ast.ClassDef] = []
        for cls in self.index.classes.values():
            chain = (cls, *self.index.in_file_ancestors(cls))
            if any(self.is_mixin_base(b) for klass in chain for b in self.base_names(klass)):
                out.append(cls)
        return out
