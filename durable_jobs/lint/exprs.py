"""Small, side-effect-free helpers over ``ast`` expressions used by several rules."""

from __future__ import annotations

import ast
from collections.abc import Iterator

#: The AST nodes that carry a source position (``lineno``/``col_offset``): what a finding points at.
Located = ast.expr | ast.stmt | ast.arg | ast.keyword | ast.excepthandler | ast.alias


def kwargs(call: ast.Call) -> dict[str, ast.expr]:
    return {kw.arg: kw.value for kw in call.keywords if kw.arg}


def keyword(call: ast.Call, name: str) -> ast.keyword | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw
    return None


def call_arg(call: ast.Call, index: int, name: str) -> ast.expr | None:
    """The argument passed positionally at ``index`` or as ``name=``."""
    if len(call.args) > index and not isinstance(call.args[index], ast.Starred):
        return call.args[index]
    kw = keyword(call, name)
    return kw.value if kw else None


def is_true(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def is_false(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is False


def is_none(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def int_value(node: ast.AST | None) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def str_value(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def literal_text(node: ast.AST | None) -> str:
    """The constant characters of a string or f-string (placeholders dropped)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            part.value for part in node.values
            if isinstance(part, ast.Constant) and isinstance(part.value, str)
        )
    return ""


def key_text(node: ast.AST | None) -> str | None:
    """A stable text for comparing keys: the string itself, else the source expression."""
    if node is None:
        return None
    text = str_value(node)
    return text if text is not None else ast.unparse(node)


def shown(node: ast.AST | None) -> str:
    """A key as written in the source, for messages: ``'cursor'``, ``f'offset_{i}'``."""
    return ast.unparse(node) if node is not None else "?"


def strings_in(node: ast.AST) -> Iterator[str]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            yield sub.value


def method_name(call: ast.AST) -> str | None:
    """``x.y.submit_run(...)`` -> ``"submit_run"``."""
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def dict_literal(node: ast.AST | None) -> dict[str, ast.expr] | None:
    """``{"retries": 0}`` or ``dict(retries=0)`` -> ``{"retries": <0>}``."""
    if isinstance(node, ast.Dict):
        out: dict[str, ast.expr] = {}
        for key, value in zip(node.keys, node.values):
            text = str_value(key)
            if text is not None:
                out[text] = value
        return out
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        return kwargs(node)
    return None


def subscript_key(node: ast.AST) -> str | None:
    """``context["ti"]`` -> ``"ti"``."""
    if isinstance(node, ast.Subscript):
        return str_value(node.slice)
    return None


def context_get_key(node: ast.AST) -> str | None:
    """``context["ti"]`` or ``context.get("ti")`` -> ``"ti"``."""
    key = subscript_key(node)
    if key is not None:
        return key
    if isinstance(node, ast.Call) and method_name(node) == "get" and node.args:
        return str_value(node.args[0])
    return None
