"""Find every task_state_store / asset_state_store call, however the store reached the code.

A store arrives as ``context["task_state_store"]``, ``context.get(...)``, a parameter of that
name, ``asset_state_store[ASSET]``, a local alias, a closure, or an argument passed into a
helper; the propagation below follows all of them within one file.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from durable_jobs.lint.exprs import call_arg, context_get_key
from durable_jobs.lint.functions import Func, FunctionIndex

TASK = "task_state_store"
ASSET = "asset_state_store"
METHODS = frozenset({"get", "set", "delete", "clear"})
ASYNC_METHODS = frozenset("a" + m for m in METHODS)    # aget / aset / adelete / aclear


@dataclass(eq=False)
class StoreCall:
    kind: str            # TASK or ASSET
    method: str          # get / set / delete / clear (async variants folded in)
    call: ast.Call
    key: ast.expr | None
    value: ast.expr | None
    func: Func


class StoreIndex:
    def __init__(self, index: FunctionIndex) -> None:
        self._index = index
        self._names: dict[int, dict[str, str]] = {
            id(f): {p: p for p in f.params if p in (TASK, ASSET)} for f in index.funcs
        }
        for _ in range(10):                      # fixpoint over aliases and helper arguments
            if not self._propagate():
                break
        self.calls = [c for f in index.funcs for c in self._calls(f)]

    def kind(self, expr: ast.AST, func: Func) -> str | None:
        if isinstance(expr, ast.Name):
            for scope in func.enclosing():
                found = self._names[id(scope)].get(expr.id)
                if found:
                    return found
            return None
        key = context_get_key(expr)
        if key in (TASK, ASSET):
            return key
        if isinstance(expr, ast.Subscript) and self.kind(expr.value, func) == ASSET:
            return ASSET                          # asset_state_store[ORDERS]
        return None

    def _propagate(self) -> bool:
        changed = False
        for func in self._index.funcs:
            names = self._names[id(func)]
            for node in func.own_nodes():
                if isinstance(node, ast.Assign):
                    kind = self.kind(node.value, func)
                    for target in node.targets:
                        if kind and isinstance(target, ast.Name) and names.get(target.id) != kind:
                            names[target.id] = kind
                            changed = True
                elif isinstance(node, ast.Call):
                    changed |= self._into_helper(node, func)
        return changed

    def _into_helper(self, call: ast.Call, func: Func) -> bool:
        helper: Func | None = None
        offset = 0
        if isinstance(call.func, ast.Name):
            helper = self._index.resolve_name(call.func.id, func)
        elif (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
              and call.func.value.id == "self" and func.owner_class() is not None):
            helper = self._index.find_method(func.owner_class(), call.func.attr)  # type: ignore[arg-type]
            offset = 1
        if helper is None:
            return False
        changed = False
        names = self._names[id(helper)]
        pairs = [(helper.params[i + offset] if i + offset < len(helper.params) else None, arg)
                 for i, arg in enumerate(call.args)]
        pairs += [(kw.arg, kw.value) for kw in call.keywords if kw.arg in helper.params]
        for param, arg in pairs:
            kind = self.kind(arg, func)
            if param and kind and names.get(param) != kind:
                names[param] = kind
                changed = True
        return changed

    def _calls(self, func: Func) -> list[StoreCall]:
        out: list[StoreCall] = []
        for node in func.own_nodes():
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in METHODS | ASYNC_METHODS):
                continue
            kind = self.kind(node.func.value, func)
            if kind is None:
                continue
            method = node.func.attr.removeprefix("a") if node.func.attr in ASYNC_METHODS else node.func.attr
            key = call_arg(node, 0, "key") if method != "clear" else None
            value = call_arg(node, 1, "value") if method == "set" else None
            out.append(StoreCall(kind, method, node, key, value, func))
        return out

    def calls_in(self, funcs: list[Func]) -> list[StoreCall]:
        ids = {id(f) for f in funcs}
        return [c for c in self.calls if id(c.func) in ids]
