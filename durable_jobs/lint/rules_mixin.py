"""DJ071-DJ074, DJ102: ResumableJobMixin subclasses written by hand.

Checks only what the source shows: a class inheriting an operator from another package may get
``execute()`` or ``external_id_key`` from it, so those two checks only fire when every other base
is ``BaseOperator`` or a class of the same file - and only on operators: a mixin-only class
(no operator among its ancestors) is a base whose subclasses supply both.
"""

from __future__ import annotations

import ast

from durable_jobs.lint.analysis import ORDER_ONLY_MIXINS, Module
from durable_jobs.lint.context import FileContext
from durable_jobs.lint.exprs import is_none, is_true, method_name, str_value
from durable_jobs.lint.functions import Func
from durable_jobs.lint.imports import last
from durable_jobs.lint.vendors import is_operator_class

DEFAULT_KEY = "remote_job_id"    # ResumableJobMixin.external_id_key on Airflow 3.3.2


def key_node(mod: Module, cls: ast.ClassDef) -> ast.expr | None:
    """The expression assigned to ``external_id_key`` in the class or its in-file ancestors."""
    for klass in (cls, *mod.index.in_file_ancestors(cls)):
        for stmt in klass.body:
            if isinstance(stmt, ast.Assign):
                targets, value = stmt.targets, stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                targets, value = [stmt.target], stmt.value
            else:
                continue
            if any(isinstance(t, ast.Name) and t.id == "external_id_key" for t in targets):
                return value
        for func in mod.index.methods(klass).values():
            for node in func.own_nodes():
                if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Attribute) and t.attr == "external_id_key" for t in node.targets
                ):
                    return node.value
    return None


def external_id_keys(mod: Module) -> dict[str, tuple[str | None, ast.AST]]:
    """Class name -> (effective key, where it is set); None when the key is not a literal."""
    out: dict[str, tuple[str | None, ast.AST]] = {}
    for cls in mod.mixin_classes():
        node = key_node(mod, cls)
        out[cls.name] = (DEFAULT_KEY, cls) if node is None else (str_value(node), node)
    return out


def _has_operator_base(mod: Module, cls: ast.ClassDef) -> bool:
    for base in mod.base_names(cls):
        if is_operator_class(base):
            return True
        inner = mod.index.classes.get(base)
        if inner is not None and inner is not cls and _has_operator_base(mod, inner):
            return True
    return False


def _only_base_operator(mod: Module, cls: ast.ClassDef) -> bool:
    """True when no base outside this file can supply execute() or external_id_key."""
    for base in mod.base_names(cls):
        if mod.is_mixin_base(base) or last(base) == "BaseOperator":
            continue
        inner = mod.index.classes.get(base)
        if inner is None or not _only_base_operator(mod, inner):
            return False
    return True


def check(ctx: FileContext) -> None:
    mod = ctx.module
    _check_order(ctx)
    old_keys = external_id_keys(ctx.baseline) if ctx.baseline is not None else {}
    for cls in mod.mixin_classes():
        concrete = _has_operator_base(mod, cls) and _only_base_operator(mod, cls)
        if concrete or "execute" in mod.index.methods(cls):
            _check_execute(ctx, cls)
        node = key_node(mod, cls)
        if node is None and concrete:
            ctx.report("DJ072", cls, (
                f"{cls.name} sets no external_id_key, so its job id is checkpointed under the "
                f"default {DEFAULT_KEY!r}; choose a descriptive key now and never rename it"))
        if cls.name in old_keys:
            old, new = old_keys[cls.name][0], (DEFAULT_KEY if node is None else str_value(node))
            if old is not None and new is not None and old != new:
                ctx.report("DJ073", node if node is not None else cls, (
                    f"{cls.name}.external_id_key changed from {old!r} (baseline) to {new!r}: "
                    "in-flight retries will not find their job and resubmit it"))
        _check_submit_job(ctx, cls)


def _check_order(ctx: FileContext) -> None:
    mod = ctx.module
    for cls in mod.index.classes.values():
        bases = mod.base_names(cls)
        mixin_at = next((i for i, b in enumerate(bases)
                         if mod.is_mixin_base(b) or last(b) in ORDER_ONLY_MIXINS), None)
        if mixin_at is None:
            continue
        before = [b for b in bases[:mixin_at] if mod.is_operator(b)]
        if before:
            mixin = last(bases[mixin_at])
            ctx.report("DJ074", cls, (
                f"class {cls.name} lists {last(before[0])} before {mixin}: on Airflow 3.3.2 "
                f"creating the operator raises TypeError; write class {cls.name}({mixin}, "
                f"{last(before[0])})"))


def _check_execute(ctx: FileContext, cls: ast.ClassDef) -> None:
    mod = ctx.module
    execute = mod.index.methods(cls).get("execute")
    if execute is None:
        if mod.index.find_method(cls, "execute") is None:
            ctx.report("DJ071", cls, (
                f"{cls.name} defines no execute(): BaseOperator.execute() raises "
                "NotImplementedError; define execute() to return self.execute_resumable(context)"))
        return
    if not _execute_reaches(mod, cls, execute):
        ctx.report("DJ071", execute.node, (
            f"{cls.name}.execute() never calls self.execute_resumable(context): the checkpoint "
            "and reconnect logic is bypassed and every retry resubmits"))


def _execute_reaches(mod: Module, cls: ast.ClassDef, execute: Func, depth: int = 0) -> bool:
    """execute() (or a method it calls) calls execute_resumable, or hands over to a base
    class's execute() (``super().execute``, ``Base.execute(self, ...)``) that may: a base in
    this file is followed, one from elsewhere is given the benefit of the doubt."""
    for func in mod.index.reachable(execute):
        for node in func.own_nodes():
            name = method_name(node)
            if name == "execute_resumable":
                return True
            if name != "execute" or not isinstance(node.func, ast.Attribute):  # type: ignore[attr-defined]
                continue
            target = node.func.value  # type: ignore[attr-defined]
            is_super = (isinstance(target, ast.Call) and isinstance(target.func, ast.Name)
                        and target.func.id == "super")
            named = target.id if isinstance(target, ast.Name) and target.id != "self" else None
            if not (is_super or named):
                continue
            base = next((b for b in mod.index.in_file_ancestors(cls)
                         if "execute" in mod.index.methods(b)), None)
            if named:
                base = mod.index.classes.get(named)
            inherited = mod.index.methods(base).get("execute") if base is not None else None
            if inherited is None or depth > 5 or _execute_reaches(mod, base, inherited, depth + 1):  # type: ignore[arg-type]
                return True
    return False


def _terminates(stmts: list[ast.stmt]) -> bool:
    """True when every path through ``stmts`` ends in return or raise."""
    if not stmts:
        return False
    tail = stmts[-1]
    if isinstance(tail, (ast.Return, ast.Raise)):
        return True
    if isinstance(tail, ast.If):
        return _terminates(tail.body) and _terminates(tail.orelse)
    if isinstance(tail, (ast.With, ast.AsyncWith)):
        return _terminates(tail.body)
    if isinstance(tail, ast.Try):
        if _terminates(tail.finalbody):
            return True
        main = tail.orelse or tail.body
        return _terminates(main) and all(_terminates(h.body) for h in tail.handlers)
    if isinstance(tail, ast.While) and is_true(tail.test):
        return not any(isinstance(n, ast.Break) for n in ast.walk(tail))
    return False


def _check_submit_job(ctx: FileContext, cls: ast.ClassDef) -> None:
    submit = ctx.module.index.methods(cls).get("submit_job")
    if submit is None:
        return
    for node in submit.own_nodes():
        if not isinstance(node, ast.Return):
            continue
        if node.value is None or is_none(node.value):
            ctx.report("DJ102", node, (
                f"{cls.name}.submit_job() returns None here: crash safety is silently off and "
                "every retry resubmits"))
        elif isinstance(node.value, ast.Call) and method_name(node.value) == "get" and len(node.value.args) == 1:
            ctx.report("DJ102", node, (
                f"{cls.name}.submit_job() returns {ast.unparse(node.value)}, which is None when "
                "the key is missing: crash safety would silently switch off"))
    if not _terminates(submit.node.body):
        ctx.report("DJ102", submit.node, (
            f"{cls.name}.submit_job() can reach its end without returning an id (implicit None)"))
