"""DJ091, DJ092: durable operators configured so that crash recovery cannot work.

``retries`` and ``durable`` fall back to the enclosing DAG's ``default_args``; DJ091 is skipped
where ``durable=False`` already switches recovery off (DJ092 covers that). ``durable=False`` is
expected in tests (files named ``test_*.py`` / ``*_test.py`` / ``conftest.py`` or under a
``tests`` directory, relative to the linted path) and reported as info everywhere else.
"""

from __future__ import annotations

import ast

from durable_jobs.lint.context import FileContext
from durable_jobs.lint.exprs import int_value, is_false, kwargs, str_value
from durable_jobs.lint.imports import last
from durable_jobs.lint.tasks import operator_class
from durable_jobs.lint.vendors import is_durable_class


def _durable_message(where: str, modern: bool) -> str:
    if modern:
        return (f"durable=False on {where} turns the checkpoint off: a crash after submit "
                "resubmits on the retry; fine in tests or when the vendor deduplicates")
    return (f"durable=False on {where} is set explicitly; below Airflow 3.3 the flag has no "
            "effect (the stores need Airflow 3.3+)")


def check(ctx: FileContext) -> None:
    mod = ctx.module
    mixins = {cls.name for cls in mod.mixin_classes()}
    for call in (n for n in ast.walk(mod.tree) if isinstance(n, ast.Call)):
        cls = operator_class(call, mod.imports)
        kw = kwargs(call)
        where = f"'{str_value(kw.get('task_id')) or last(cls)}'"
        if is_durable_class(cls) or cls in mixins:
            dag = mod.dags.owner(call)
            defaults = dag.default_args if dag is not None else {}
            retries = kw.get("retries", defaults.get("retries"))
            durable_off = is_false(kw.get("durable", defaults.get("durable")))
            if int_value(retries) == 0 and not durable_off:
                ctx.report("DJ091", kw["retries"] if "retries" in kw else call, (
                    f"{last(cls)} {where} has retries=0: crash recovery reconnects on a retry, "
                    "so there is nothing to reconnect to; set retries >= 1"))
        if not ctx.is_test and is_false(kw.get("durable")):
            ctx.report("DJ092", kw["durable"], _durable_message(where, ctx.modern))
    if not ctx.is_test:
        for dag in mod.dags.dags:
            value = dag.default_args.get("durable")
            if value is not None and is_false(value):
                ctx.report("DJ092", value, _durable_message("every task of the DAG (default_args)",
                                                            ctx.modern))
