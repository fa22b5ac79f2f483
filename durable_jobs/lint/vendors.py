"""What job systems look like in DAG code: submit calls, waits, status checks, operators.

The per-vendor names come from the vendor registry (``durable_jobs.vendors``), so a vendor added
there is known to the lint too; what is left here is vendor-neutral. Small predicates only, so
that the split rule and the hand-written-submit rule agree on what "submits a job" and "waits for
it" mean.
"""

from __future__ import annotations

import ast
import re

from durable_jobs import vendors as registry
from durable_jobs.lint.exprs import int_value, is_false, is_true, kwargs, literal_text
from durable_jobs.lint.imports import last

# Job APIs, per vendor family, from the vendor registry (``durable_jobs.vendors``).
SUBMIT_METHODS = frozenset().union(*(f.submit_methods for f in registry.FAMILIES))
SUBMIT_RECEIVERS = tuple((method, re.compile(pattern)) for f in registry.FAMILIES
                         for method, pattern in f.submit_receivers)
SUBMIT_PATHS = tuple(path for f in registry.FAMILIES for path in f.submit_paths)
STATUS_METHODS = frozenset().union(*(f.status_methods for f in registry.FAMILIES))
# Official operators that return on acceptance unless told otherwise, keyed by class name: the
# argument that turns the wait on (None: only deferrable=True does). Generic arguments cover the rest.
_WAIT_OFF_DEFAULT = {name: arg for f in registry.FAMILIES for name, arg in f.wait_off_by_default.items()}

# Calls that block until the job finishes (vendor-neutral names).
WAIT_METHODS = frozenset({
    "wait", "result", "job_completion", "poll_until_complete", "poll_query_status",
    "check_query_status_until_done",
})

# Official operators that ship ResumableJobMixin on their synchronous path (full paths, and names).
OFFICIAL_DURABLE_PATHS = frozenset().union(*(f.official_resumable for f in registry.FAMILIES))
OFFICIAL_DURABLE = frozenset(path.rpartition(".")[2] for path in OFFICIAL_DURABLE_PATHS)
# Our drop-ins, by full class path.
DURABLE_CLASSES = frozenset(op.classpath for _, _, op in registry.operators())

JOB_ID_KEY_RE = re.compile(
    r"(job|run|batch|step|query|statement|execution|application|app|cluster|submission|driver|"
    r"operation|workflow|external)[_-]?(run[_-]?)?(id|ids|arn)$",
    re.IGNORECASE,
)


def is_submit_call(call: ast.Call) -> bool:
    if isinstance(call.func, ast.Attribute):
        method = call.func.attr
        if method in SUBMIT_METHODS:
            return True
        receiver = ast.unparse(call.func.value).lower()
        if any(method == name and pattern.search(receiver) for name, pattern in SUBMIT_RECEIVERS):
            return True
    return any(path in literal_text(arg) for arg in call.args for path in SUBMIT_PATHS)


def is_wait_call(call: ast.Call) -> bool:
    name = call.func.attr if isinstance(call.func, ast.Attribute) else (
        call.func.id if isinstance(call.func, ast.Name) else "")
    return name in WAIT_METHODS or name.startswith(("wait_for", "wait_until")) or name == "get_waiter"


def is_status_call(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr in STATUS_METHODS


def _dict_says_no_wait(kw: dict[str, ast.expr]) -> ast.AST | None:
    """``dataflow_config={"wait_until_finished": False}`` and ``wait_until_finished=False``."""
    if is_false(kw.get("wait_until_finished")):
        return kw["wait_until_finished"]
    for value in kw.values():
        if isinstance(value, ast.Dict):
            for key, item in zip(value.keys, value.values):
                if isinstance(key, ast.Constant) and key.value == "wait_until_finished" and is_false(item):
                    return item
    return None


def fire_and_forget_arg(cls: str | None, call: ast.Call,
                        settings: dict[str, ast.expr] | None = None) -> ast.AST | None:
    """The argument (or the call itself) that makes an operator return on acceptance.

    ``settings`` are what the task really runs with (arguments, attributes set after the
    constructor, default_args); the call's own keyword arguments when not given.
    """
    kw = kwargs(call) if settings is None else settings
    for name in ("wait_for_termination", "wait_for_completion", "wait"):
        if is_false(kw.get(name)):
            return kw[name]
    for name in ("asynchronous", "nowait"):
        if is_true(kw.get(name)):
            return kw[name]
    found = _dict_says_no_wait(kw)
    if found is not None:
        return found
    name = last(cls)
    off = _WAIT_OFF_DEFAULT.get(name)
    if name in _WAIT_OFF_DEFAULT and off != "polling_interval" and not is_true(kw.get("deferrable")):
        value = kw.get(off) if off else None
        if value is None or is_false(value) or (isinstance(value, ast.Constant) and value.value is None):
            return call
    if off == "polling_interval":               # LivyOperator: 0 (the default) means no polling
        value = kw.get(off)
        if value is None:
            return call
        if int_value(value) == 0:
            return value
    return None


# Sensor class names: ``...Sensor``, ``...SensorOperator`` and the ``...SensorAsync`` classes of
# astronomer-providers and older provider releases (``...Trigger`` is not a task).
_SENSOR_RE = re.compile(r"Sensor(Operator)?(Async)?$")
_OPERATOR_RE = re.compile(r"(Operator|Sensor)(Async)?$")


def is_sensor_class(cls: str | None) -> bool:
    return bool(_SENSOR_RE.search(last(cls)))


def is_operator_class(cls: str | None) -> bool:
    name = last(cls)
    return bool(_OPERATOR_RE.search(name)) or name == "BaseOperator"


def is_durable_class(cls: str | None) -> bool:
    """Our operators, and the official ones that checkpoint on their sync path."""
    if not cls:
        return False
    if cls in DURABLE_CLASSES or cls in OFFICIAL_DURABLE_PATHS:
        return True
    return "." not in cls and cls in OFFICIAL_DURABLE  # a name the lint could not resolve to a module
