"""DJ011, DJ031, DJ041: Airflow Variables used as state.

State is told from configuration by *writes*: a Variable written inside a task (a TaskFlow
function, a python_callable, an operator method, or a helper any of them calls) is state.
A Variable that is only read - at module level or inside a task - is configuration and is
never reported. A read inside a task whose key the same task also writes is part of that state.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from durable_jobs.lint.analysis import Module
from durable_jobs.lint.context import FileContext
from durable_jobs.lint.exprs import call_arg, key_text, literal_text, method_name, shown
from durable_jobs.lint.functions import Func
from durable_jobs.lint.imports import ImportMap, last
from durable_jobs.lint.vendors import JOB_ID_KEY_RE, is_status_call, is_submit_call, is_wait_call

WRITE_METHODS = frozenset({"set", "delete", "update", "setdefault"})
WATERMARK_KEY_RE = re.compile(
    r"watermark|high[_-]?water|last[_-]?(processed|loaded|load|synced|sync|run|success|"
    r"successful|updated|update|seen|modified|ingested|extracted|ts|timestamp)|"
    r"(^|_)since($|_)|_(at|ts|timestamp)$",
    re.IGNORECASE,
)
# Method names that start, attach to or watch a job (client APIs the vendor table does not list).
_JOB_VERB_RE = re.compile(
    r"^a?(submit|start|launch|trigger|run|execute|attach|reconnect|resume|poll|wait|cancel|"
    r"get_(job|run)|describe_(job|run)|get_\w*status)", re.IGNORECASE)
_TIME_ATTRS = frozenset({"now", "utcnow", "today", "isoformat", "timestamp", "strftime"})
_TIME_CONTEXT = frozenset({"ts", "data_interval_end", "data_interval_start", "logical_date"})


@dataclass(eq=False)
class VarOp:
    method: str
    call: ast.Call
    key: str | None            # comparable text of the key expression
    shown: str                 # the key as written, for messages
    value: ast.expr | None
    func: Func

    @property
    def write(self) -> bool:
        return self.method in WRITE_METHODS


def is_variable(expr: ast.AST, imports: ImportMap) -> bool:
    dotted = imports.dotted(expr)
    if dotted == "Variable":                 # never imported: a snippet, treat as Airflow's
        return True
    return dotted is not None and dotted.startswith("airflow.") and last(dotted) == "Variable"


def variable_ops(func: Func, imports: ImportMap) -> list[VarOp]:
    out: list[VarOp] = []
    for node in func.own_nodes():
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in WRITE_METHODS | {"get"} and is_variable(node.func.value, imports)):
            value = call_arg(node, 1, "value") if node.func.attr != "get" else None
            key = call_arg(node, 0, "key")
            out.append(VarOp(node.func.attr, node, key_text(key), shown(key), value, func))
    return sorted(out, key=lambda op: (op.call.lineno, op.call.col_offset))


def _timestamp_like(expr: ast.AST | None, func: Func, follow: bool = True) -> bool:
    """A value that is a point in time: ``now()``, ``isoformat()``, ``data_interval_end``..."""
    if expr is None:
        return False
    if follow and isinstance(expr, ast.Name) and expr.id in func.assignments:
        return any(_timestamp_like(v, func, follow=False) for v in func.assignments[expr.id])
    for sub in ast.walk(expr):
        if isinstance(sub, ast.Attribute) and sub.attr in _TIME_ATTRS:
            return True
        if isinstance(sub, ast.Name) and sub.id in _TIME_CONTEXT:
            return True
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and sub.value in _TIME_CONTEXT:
            return True
    return False


def is_watermark(op: VarOp) -> bool:
    key_literal = literal_text(call_arg(op.call, 0, "key"))
    return bool(WATERMARK_KEY_RE.search(key_literal)) or _timestamp_like(op.value, op.func)


def _resume_keys(test: ast.expr, func: Func, imports: ImportMap) -> dict[str, str]:
    """Keys (text -> as written) of the Variable reads an ``if`` test depends on, directly or
    through one local name."""
    exprs: list[ast.AST] = [test]
    for name in (n.id for n in ast.walk(test) if isinstance(n, ast.Name)):
        exprs.extend(func.assignments.get(name, []))
    keys: dict[str, str] = {}
    for expr in exprs:
        for sub in ast.walk(expr):
            if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
                    and sub.func.attr == "get" and is_variable(sub.func.value, imports)):
                key = call_arg(sub, 0, "key")
                if key is not None:
                    keys.setdefault(key_text(key), shown(key))  # type: ignore[arg-type]
    return keys


def _touches_job(mod: Module, func: Func, branch: ast.If) -> bool:
    """Reconnect-or-submit needs a job: a submit, status or wait call (or a job operator's
    execute) in the ``if``'s branches or a same-file function they call. Defaulting a Variable
    (``if Variable.get(k) is None: Variable.set(k, ...)``) is not resume logic."""
    def job_call(node: ast.AST) -> bool:
        if not isinstance(node, ast.Call):
            return False
        if is_submit_call(node) or is_status_call(node) or is_wait_call(node):
            return True
        return bool(_JOB_VERB_RE.match(method_name(node) or ""))
    nodes = [n for stmt in (*branch.body, *branch.orelse) for n in ast.walk(stmt)]
    if any(job_call(n) for n in nodes):
        return True
    for node in nodes:
        if isinstance(node, ast.Call):
            callee: Func | None = None
            if isinstance(node.func, ast.Name):
                callee = mod.index.resolve_name(node.func.id, func)
            elif (isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
                  and node.func.value.id == "self" and func.owner_class() is not None):
                callee = mod.index.find_method(func.owner_class(), node.func.attr)  # type: ignore[arg-type]
            if callee is not None and any(job_call(n) for f in mod.index.reachable(callee)
                                          for n in f.own_nodes()):
                return True
    return False


def _defaults_only(branch: ast.If, key: str, ops: list[VarOp]) -> bool:
    """``if Variable.get(k) is None: Variable.set(k, <constant>)``: giving a setting its default
    value once, i.e. configuration; every write of the key is a constant inside this ``if``."""
    inside = {id(n) for stmt in branch.body for n in ast.walk(stmt)}
    writes = [o for o in ops if o.key == key and o.write]
    return bool(writes) and all(id(o.call) in inside and o.value is not None and _constant(o.value)
                                for o in writes)


def _constant(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(_constant(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _constant(k) for k in node.keys) and all(_constant(v) for v in node.values)
    return False


def check(ctx: FileContext) -> None:
    mod = ctx.module
    ops = {id(f): variable_ops(f, mod.imports) for f in mod.task_funcs}
    for root in mod.roots:
        reach = mod.reach(root)
        root_ops = [op for f in reach for op in ops[id(f)]]
        written = {op.key for op in root_ops if op.write}
        covered: set[str] = set()
        for func in reach:
            for node in func.own_nodes():
                if not isinstance(node, ast.If):
                    continue
                keys = {k: text for k, text in _resume_keys(node.test, func, mod.imports).items()
                        if k in written or JOB_ID_KEY_RE.search(k)}
                if keys and not _touches_job(mod, func, node):
                    covered.update(k for k in keys if _defaults_only(node, k, root_ops))
                    continue
                if keys:
                    covered.update(keys)
                    ctx.report("DJ031", node, (
                        f"{root.label} decides reconnect-or-submit on Variable "
                        f"{', '.join(keys.values())}: hand-written resume logic; "
                        "use ResumableJobMixin"))
        _report_writes(ctx, root.label, root_ops, covered, _read_keys(mod))


def _read_keys(mod: Module) -> set[str | None]:
    """Every Variable key read anywhere in the file (module level included)."""
    keys: set[str | None] = set()
    for node in ast.walk(mod.tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                and is_variable(node.func.value, mod.imports)):
            keys.add(key_text(call_arg(node, 0, "key")))
    return keys


_PLAIN_CALLS = frozenset({"str", "int", "float", "bool", "format", "lower", "upper", "strip", "join"})


def _from_parameters(op: VarOp) -> bool:
    """A value made only of constants and parameters that have a literal default
    (``def configure(env="prod")``: ``f"s3://{env}-lake"``, ``"MEDIUM" if env == "prod" else
    "XSMALL"``): a setting derived from how the task was called, not a result of the work."""
    if op.value is None:
        return False
    names = [n for n in ast.walk(op.value) if isinstance(n, ast.Name)]
    for node in ast.walk(op.value):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name not in _PLAIN_CALLS:
                return False
        if isinstance(node, (ast.Subscript, ast.Attribute, ast.Await, ast.Lambda)) and not (
                isinstance(node, ast.Attribute) and node.attr in _PLAIN_CALLS):
            return False
    params = _setting_params(op.func)
    return bool(names) and all(n.id in params for n in names if n.id not in _PLAIN_CALLS)


def _setting_params(func: Func) -> set[str]:
    """Parameters with a literal default (``env: str = "prod"``): settings of the call, unlike
    parameters that receive upstream data (XComArgs) or a helper's arguments."""
    args = func.node.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return {a.arg for a, d in pairs if isinstance(d, ast.Constant) and d.value is not None}


def _report_writes(ctx: FileContext, label: str, root_ops: list[VarOp], covered: set[str],
                   read_anywhere: set[str | None]) -> None:
    seen: set[str | None] = set()
    for op in root_ops:
        if not op.write or op.key in covered or op.key in seen:
            continue
        seen.add(op.key)
        same_key = [o for o in root_ops if o.key == op.key]
        reads = [o.call.lineno for o in same_key if not o.write]
        if is_configuration(op, bool(reads)):
            continue
        per_run = run_scoped(call_arg(op.call, 0, "key"))
        watermark = next((o for o in same_key if o.write and is_watermark(o)), None)
        if watermark is not None and not per_run:
            ctx.report("DJ041", watermark.call, (
                f"{label} keeps watermark {watermark.shown} in a global Variable; "
                "use asset_state_store"))
            continue
        cursor = next((o for o in same_key if o.write and o.method != "delete"), None)
        if cursor is not None and not per_run and reads and _carried(cursor):
            ctx.report("DJ041", cursor.call, (
                f"{label} reads Variable {cursor.shown} and writes it back once per run: a "
                "cursor carried across runs in a global Variable; use asset_state_store (if it "
                "only tracks progress within one run, task_state_store)"))
            continue
        if op.key not in read_anywhere and all(
                _from_parameters(o) for o in same_key if o.write and o.method != "delete"):
            continue            # a setting computed from the task's arguments, never read here
        also = f" (read at line {reads[0]})" if reads else ""
        ctx.report("DJ011", op.call, (
            f"{label} writes Variable {op.shown}{also}: per-run state in a global Variable; "
            "use task_state_store"))
    for op in root_ops:
        if op.write or op.key in covered or op.key in seen or op.key is None:
            continue
        if run_scoped(call_arg(op.call, 0, "key")):
            seen.add(op.key)
            ctx.report("DJ011", op.call, (
                f"{label} reads Variable {op.shown}, whose key is per run: per-run progress "
                "kept in a global Variable (written elsewhere); use task_state_store"))


# Keys that name configuration or secrets: writing them in a task is setup, not state (and
# recommending a state store for them would contradict DJ113).
CONFIG_KEY_RE = re.compile(
    r"password|passwd|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|token$|"
    r"(^|_)(config|configuration|settings|conf|env|environment|bucket|bucket_name|url|uri|"
    r"endpoint|host|hostname|region|project|project_id|dataset|schema|database|prefix|path|"
    r"emails?|recipients|enabled|timeout|conn|conn_id|connection)$",
    re.IGNORECASE,
)
# Names that make a key per run: the run's id, date, interval, try or map index.
_RUN_NAMES = frozenset({
    "run_id", "ds", "ds_nodash", "ts", "ts_nodash", "logical_date", "execution_date", "dag_run",
    "data_interval_start", "data_interval_end", "try_number", "map_index",
})
_RUN_TEMPLATE_RE = re.compile(r"\{\{[^}]*\b(" + "|".join(sorted(_RUN_NAMES)) + r")\b")
_CURSOR_KEY_RE = re.compile(
    r"cursor|offset|position|page[_-]?token|next[_-]?token|marker|bookmark|last[_-]?id|lsn|"
    r"(^|_)seq(uence)?($|_)|checkpoint",
    re.IGNORECASE,
)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def run_scoped(key: ast.AST | None) -> bool:
    """A key built from the run (``f"progress_{run_id}"``, ``"x_" + ds``, ``"{{ run_id }}"``)."""
    if key is None or isinstance(key, ast.Constant) and not _RUN_TEMPLATE_RE.search(str(key.value)):
        return False
    for sub in ast.walk(key):
        if isinstance(sub, ast.Name) and sub.id in _RUN_NAMES:
            return True
        if isinstance(sub, ast.Attribute) and sub.attr in _RUN_NAMES:
            return True
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and (
                sub.value in _RUN_NAMES or _RUN_TEMPLATE_RE.search(sub.value)):
            return True
    return False


def is_configuration(op: VarOp, read_back: bool) -> bool:
    """A write that sets configuration up rather than keeping state: a config- or secret-like
    key that the task does not read back."""
    return not read_back and bool(CONFIG_KEY_RE.search(literal_text(call_arg(op.call, 0, "key"))))


def _carried(op: VarOp) -> bool:
    """A cursor-like key written once per run (not checkpointed inside a loop)."""
    if not _CURSOR_KEY_RE.search(op.key or ""):
        return False
    return not any(isinstance(loop, _LOOPS) and any(n is op.call for n in ast.walk(loop))
                   for loop in op.func.own_nodes())
