"""DJ101: a hand-written task submits an external job, retries, and keeps no checkpoint.

"Submits" means a hook / SDK / boto3 call from the vendor table (``submit_run``,
``start_job_run``, ``submit_job``...) in the task or a helper it calls, in a file that imports a
job system's hook or client. Any task_state_store use in the task counts as a checkpoint; a task
without retries (or ``retries=0``) cannot resubmit and is not reported.
"""

from __future__ import annotations

import ast

from durable_jobs.lint.analysis import Module
from durable_jobs.lint.context import FileContext
from durable_jobs.lint.exprs import int_value
from durable_jobs.lint.functions import Func
from durable_jobs.lint.rules_variables import variable_ops
from durable_jobs.lint.stores import TASK
from durable_jobs.lint.vendors import is_submit_call


def _variable_checkpoint(mod: Module, reach: list[Func]) -> bool:
    """The task writes the job's id to a Variable (and reads it back): a retry does find the
    job, so "keeps no checkpoint" would be false; the Variable itself is DJ031/DJ011's finding."""
    ops = [op for f in reach for op in variable_ops(f, mod.imports)]
    written = {op.key for op in ops if op.write}
    return any(not op.write and op.key in written for op in ops)


def check(ctx: FileContext) -> None:
    mod = ctx.module
    if not mod.imports.touches_vendor():
        return
    for root in mod.roots:
        if root.kind == "method":
            continue
        retries = root.setting("retries")
        if retries is None or int_value(retries) == 0:
            continue
        reach = mod.reach(root)
        submits = sorted(
            (c for f in reach for c in f.own_nodes() if isinstance(c, ast.Call) and is_submit_call(c)),
            key=lambda c: (c.lineno, c.col_offset),
        )
        if not submits or any(c.kind == TASK for c in mod.stores.calls_in(reach)):
            continue
        if _variable_checkpoint(mod, reach):
            continue            # resumes through a Variable: DJ031/DJ011 say what is wrong with that
        ctx.report("DJ101", submits[0], (
            f"{root.label} submits with {ast.unparse(submits[0].func)}(...) and has "
            f"retries={ast.unparse(retries)} but keeps no checkpoint: a retry submits the job "
            "again; use a durable operator or a ResumableJobMixin operator"))
