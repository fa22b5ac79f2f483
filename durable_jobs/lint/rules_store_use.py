"""DJ111-DJ113: a state store used for what the guide says not to use it for.

Not for passing data *between* tasks (XCom), not for large payloads (XCom with an
object-storage backend), not for shared configuration or secrets (Variables / Connections).
A task is one unit here: a TaskFlow function or python_callable, or all the methods of one
operator class (they run in the same task instance and share its store).
"""

from __future__ import annotations

import re

from durable_jobs.lint.context import FileContext
from durable_jobs.lint.exprs import literal_text, shown, str_value
from durable_jobs.lint.stores import TASK, StoreCall
from durable_jobs.lint.tasks import TaskRoot
from durable_jobs.lint.values import large_payload

SECRET_KEY_RE = re.compile(
    r"password|passwd|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|"
    r"auth[_-]?token|access[_-]?token|bearer|conn(ection)?[_-]?(uri|url|string|str|id)|"
    r"(^|_)(config|settings)$",
    re.IGNORECASE,
)


def _unit(root: TaskRoot) -> tuple[str, int]:
    cls = root.func.owner_class() if root.kind == "method" else None
    return ("class", id(cls)) if cls is not None else ("task", id(root))


def check(ctx: FileContext) -> None:
    mod = ctx.module
    for call in mod.stores.calls:
        if call.method != "set" or call.value is None:
            continue
        reason = large_payload(call.value, call.func, mod.imports)
        if reason:
            ctx.report("DJ112", call.value, (
                f"{call.kind}.set({shown(call.key)}, ...) stores {reason}: a large payload; "
                "return it as XCom (with an object-storage backend) instead"))
        if call.key is not None and SECRET_KEY_RE.search(literal_text(call.key)):
            ctx.report("DJ113", call.key, (
                f"{call.kind} key {shown(call.key)} looks like configuration or a secret; "
                "keep it in a Variable or a Connection"))
    _check_channels(ctx)


def _check_channels(ctx: FileContext) -> None:
    mod = ctx.module
    units: dict[tuple[str, int], tuple[str, list[StoreCall]]] = {}
    for root in mod.roots:
        label, calls = units.setdefault(_unit(root), (root.label, []))
        calls.extend(c for c in mod.stores.calls_in(mod.reach(root))
                     if c.kind == TASK and c not in calls)
    writes = {u: {str_value(c.key) for c in calls if c.method == "set"} for u, (_, calls) in units.items()}
    reads = {u: {str_value(c.key) for c in calls if c.method == "get"} for u, (_, calls) in units.items()}
    for unit, (label, calls) in units.items():
        for call in calls:
            key = str_value(call.key)
            if call.method != "get" or key is None or key in writes[unit]:
                continue
            writers = [units[u][0] for u in units if u != unit and key in writes[u] and key not in reads[u]]
            if writers:
                ctx.report("DJ111", call.call, (
                    f"{label} reads task_state_store key {key!r} that only {writers[0]} writes; "
                    "each task instance has its own store, so this always gets the default - "
                    "pass the value through XCom"))
