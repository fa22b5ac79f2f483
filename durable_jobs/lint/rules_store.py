"""DJ081-DJ087: task_state_store / asset_state_store calls that break the stores' rules.

The rules come from the state-store guide's key rules and safety checklist: JSON values only,
no None, short keys without dots or slashes, aware UTC timestamps, ``asset_state_store`` as a
named keyword argument without ``**context``, and mapped tasks (each index has its own task
store but shares the asset store).
"""

from __future__ import annotations

import ast

from durable_jobs.lint.catalog import REST_CLEAR_ALL
from durable_jobs.lint.context import FileContext
from durable_jobs.lint.exprs import context_get_key, is_none, literal_text, shown
from durable_jobs.lint.functions import Func
from durable_jobs.lint.stores import ASSET, TASK, StoreCall
from durable_jobs.lint.values import naive_utcnow, non_json


def check(ctx: FileContext) -> None:
    mod = ctx.module
    for call in mod.stores.calls:
        if call.method == "set":
            _check_set(ctx, call)
        if call.key is not None and call.method in ("get", "set", "delete"):
            text = literal_text(call.key)
            if "." in text or "/" in text:
                ctx.report("DJ083", call.key, (
                    f"{call.kind} key {shown(call.key)} contains a dot or slash; keep keys "
                    "short and descriptive"))
    for root in mod.roots:
        _check_signature(ctx, root.func, root.kind)
        if root.mapped:
            _check_mapped(ctx, root.label, mod.stores.calls_in(mod.reach(root)))


def _check_set(ctx: FileContext, call: StoreCall) -> None:
    imports = ctx.module.imports
    if call.value is None:
        return
    if is_none(call.value):
        ctx.report("DJ081", call.value, (
            f"{call.kind}.set({shown(call.key)}, None) raises ValueError; use "
            f"{call.kind}.delete({shown(call.key)}) to remove a key"))
        return
    reason = non_json(call.value, call.func, imports)
    if reason:
        ctx.report("DJ082", call.value, (
            f"{call.kind}.set({shown(call.key)}, ...) writes {reason}, which is not "
            "JSON-serialisable; convert it first (e.g. .isoformat())"))
    index = ctx.module.index
    naive = naive_utcnow(call.value, call.func, imports, lambda name: index.resolve_name(name, call.func))
    if naive:
        ctx.report("DJ084", call.value, (
            f"{call.kind}.set({shown(call.key)}, ...) stores a naive {naive}() timestamp; "
            "use datetime.now(tz=timezone.utc).isoformat()"))


def _check_signature(ctx: FileContext, func: Func, kind: str) -> None:
    if kind == "method" or func.var_keyword is None:
        return
    if ASSET in func.params:
        ctx.report("DJ085", func.node, (
            f"{func.name}() declares asset_state_store together with **{func.var_keyword}; "
            "declare only asset_state_store=None"))
        return
    for node in func.own_nodes():
        if (context_get_key(node) == ASSET and isinstance(node, (ast.Subscript, ast.Call))
                and _base_name(node) == func.var_keyword):
            ctx.report("DJ085", node, (
                f"{func.name}() takes asset_state_store from **{func.var_keyword}; declare it as "
                "a named keyword argument (asset_state_store=None) instead"))
            return


def _base_name(node: ast.AST) -> str | None:
    base = node.value if isinstance(node, ast.Subscript) else node.func.value  # type: ignore[attr-defined]
    return base.id if isinstance(base, ast.Name) else None


def _check_mapped(ctx: FileContext, label: str, calls: list[StoreCall]) -> None:
    for call in calls:
        if call.kind == TASK and call.method == "clear":
            ctx.report("DJ086", call.call, (
                f"mapped {label} calls task_state_store.clear(), which clears only its own map "
                f"index; clear all indices from a downstream task via {REST_CLEAR_ALL}"))
        elif call.kind == ASSET and call.method == "set" and call.key is not None:
            local = set(call.func.params) | set(call.func.assignments)
            if not {n.id for n in ast.walk(call.key) if isinstance(n, ast.Name)} & local:
                ctx.report("DJ087", call.call, (
                    f"mapped {label} writes asset_state_store key {shown(call.key)} from "
                    "every index (last write wins); use a distinct key per index"))
