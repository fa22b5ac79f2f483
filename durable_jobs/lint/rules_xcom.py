"""DJ021: XCom used to carry a job id across retries.

Only pulls that read the *calling task's own* XCom are reported: no ``task_ids`` (Airflow 3
then pulls from the calling task), ``task_ids`` naming the task itself or ``self.task_id``, or
a computed ``task_ids`` with a key the same task also pushes. Pulling another task's job id
(submit task -> XCom -> sensor) is the normal way to pass a result downstream: not reported.
"""

from __future__ import annotations

import ast

from durable_jobs.lint.context import FileContext
from durable_jobs.lint.exprs import kwargs, str_value
from durable_jobs.lint.functions import Func
from durable_jobs.lint.tasks import TaskRoot
from durable_jobs.lint.vendors import JOB_ID_KEY_RE


def _xcom_calls(func: Func, method: str) -> list[ast.Call]:
    return [n for n in func.own_nodes()
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == method]


def _key(call: ast.Call, method: str) -> str | None:
    key = kwargs(call).get("key")
    if key is None and method == "xcom_push" and call.args:
        key = call.args[0]
    return str_value(key)


def _pulls_own(call: ast.Call, root: TaskRoot) -> bool | None:
    """True: the calling task's XCom; False: another task's; None: cannot tell."""
    target = kwargs(call).get("task_ids")
    if target is None and call.args:
        target = call.args[0]
    if target is None or (isinstance(target, ast.Constant) and target.value is None):
        return True
    if isinstance(target, ast.Attribute) and target.attr == "task_id":   # self.task_id / ti.task_id
        return True
    if str_value(target) is not None:
        return root.task_id is not None and str_value(target) == root.task_id
    return None


def check(ctx: FileContext) -> None:
    mod = ctx.module
    for root in mod.roots:
        reach = mod.reach(root)
        pushed = {_key(c, "xcom_push") for f in reach for c in _xcom_calls(f, "xcom_push")}
        for func in reach:
            for call in _xcom_calls(func, "xcom_pull"):
                key = _key(call, "xcom_pull")
                if key is None or not JOB_ID_KEY_RE.search(key):
                    continue
                own = _pulls_own(call, root)
                if own or (own is None and key in pushed):
                    ctx.report("DJ021", call, (
                        f"{root.label} reads its own XCom {key!r} to find a job from an "
                        "earlier try; XComs are cleared before every try, so a retry "
                        "resubmits. Use task_state_store or ResumableJobMixin"))
