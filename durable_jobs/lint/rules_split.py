"""DJ051, DJ052, DJ061: the submit-and-poll split and its fire-and-forget relatives.

DJ051 never decides the split: it always states that a successful submit only means
*accepted*, lays out the trade-off (Triggerer / job length / worker slots) and, on Airflow 3.3+,
says to keep ``durable=True`` on the submit task whichever way the user goes. A split is a
fire-and-forget submit task plus a sensor or poll task that reads that task's output (XComArg,
``xcom_pull`` in code or templates) - a sensor on something else is not the same job.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from durable_jobs.lint.analysis import Module
from durable_jobs.lint.context import FileContext
from durable_jobs.lint.exprs import is_false, is_true, kwargs, method_name, str_value
from durable_jobs.lint.graph import DagGraph, TaskNode
from durable_jobs.lint.imports import last
from durable_jobs.lint.vendors import (
    fire_and_forget_arg,
    is_sensor_class,
    is_status_call,
    is_submit_call,
    is_wait_call,
)

_WAIT_ARGS = ("wait_for_termination", "wait_for_completion", "wait")


def _calls(mod: Module, node: TaskNode) -> list[ast.Call]:
    if node.root is None:
        return []
    return [c for f in mod.reach(node.root) for c in f.own_nodes() if isinstance(c, ast.Call)]


def _sleeps_in_loop(mod: Module, node: TaskNode) -> bool:
    if node.root is None:
        return False
    for func in mod.reach(node.root):
        for loop in func.own_nodes():
            if isinstance(loop, ast.While) and any(
                isinstance(c, ast.Call) and last(mod.imports.dotted(c.func)).endswith("sleep")
                for c in ast.walk(loop)
            ):
                return True
    return False


def submit_reason(mod: Module, node: TaskNode) -> tuple[ast.AST, str] | None:
    """Where and why ``node`` returns as soon as the job is accepted, if it does."""
    if node.cls is not None and node.root is None:
        arg = fire_and_forget_arg(node.cls, node.call, node.settings())
        if arg is None:
            return None
        if arg is node.call:
            return node.call, f"{last(node.cls)} does not wait for the job by default"
        return arg, node.where(arg)
    if node.root is None or node.root.sensor or not mod.imports.touches_vendor():
        return None
    calls = _calls(mod, node)
    submits = [c for c in calls if is_submit_call(c)]
    if not submits:
        return None
    for call in submits:
        if fire_and_forget_arg(None, call) is not None:
            return call, f"{ast.unparse(call.func)}(...) returns on acceptance"
    if any(is_wait_call(c) or is_status_call(c) for c in calls) or _sleeps_in_loop(mod, node):
        return None
    return submits[0], f"{ast.unparse(submits[0].func)}(...) is never waited for"


_STOPS_RE = re.compile(r"^a?(cancel|stop|kill|terminate)", re.IGNORECASE)
_STOP_CLASS_RE = re.compile(r"Cancel|Stop|Kill|Terminate")


def is_poll(mod: Module, node: TaskNode) -> bool:
    if is_sensor_class(node.cls) or (node.root is not None and node.root.sensor):
        return True
    calls = _calls(mod, node)
    if any(is_submit_call(c) for c in calls):
        return False
    if any(_STOPS_RE.match(method_name(c) or "") for c in calls):
        return False            # it ends the job itself, then checks: not waiting for an outcome
    return any(is_wait_call(c) or is_status_call(c) for c in calls) or _sleeps_in_loop(mod, node)


def _reschedules(node: TaskNode) -> bool:
    mode = node.setting("mode")
    return str_value(mode) == "reschedule" or is_true(node.setting("deferrable"))


def _split_message(submit: TaskNode, polls: list[TaskNode], reason: str, modern: bool) -> str:
    names = ", ".join(f"'{p.task_id}'" for p in polls)
    slot = ""
    if not all(_reschedules(p) for p in polls):
        slot = (" The poll side does not run in mode=\"reschedule\", so it holds a worker slot "
                "for the whole job anyway.")
    single = ("one durable synchronous task (holds a worker slot; the operator's built-in crash "
              "safety covers submit and poll)" if modern else
              "one synchronous task (holds a worker slot for the run)")
    deferred = (" (frees the worker; the official operators' deferrable path skips the "
                "checkpoint, durable_jobs' operators keep it)" if modern else " (frees the worker)")
    durable = (" Whichever way you go, keep durable=True on the submit task." if modern else
               " Crash safety for the submit task needs Airflow 3.3+ (AIP-103).")
    return (
        f"'{submit.task_id}' succeeds when the job is *accepted* ({reason}), not when it "
        f"succeeds; only {names} reflects the job's outcome. This is a trade-off, not a fixed "
        f"answer: with a Triggerer, one deferrable task with wait_for_termination=True{deferred}; "
        f"without one and a short/medium job, {single}; a genuinely long job keeps the split with "
        f"a mode=\"reschedule\" sensor.{slot}{durable}"
    )


def check(ctx: FileContext) -> None:
    mod = ctx.module
    graph = mod.graph
    polls = [n for n in graph.nodes if is_poll(mod, n) and not _watches_start(n)]
    splits: dict[int, tuple[TaskNode, str, list[TaskNode]]] = {}
    for submit in graph.nodes:
        found = submit_reason(mod, submit)
        if found is None:
            continue
        mine = [p for p in polls if p is not submit
                and (_reads_output(graph, submit, p) or _same_target(graph, submit, p))
                and not _cancelled_first(graph, submit, p)]
        if mine:
            splits[submit.id] = (submit, found[1], mine)
    for submit, reason, mine in splits.values():
        # a sensor that a later submit on the same resource also claims belongs to that one
        # (create_cluster -> await_cluster -> delete_cluster -> await_delete_cluster)
        later = [s for s, _, theirs in splits.values()
                 if s is not submit and submit.id in graph.ancestors(s.id)]
        own = [p for p in mine if not any(p in splits[s.id][2] and s.id in graph.ancestors(p.id)
                                          for s in later)] or mine
        ctx.report("DJ051", submit.anchor, _split_message(submit, own, reason, ctx.modern))
        _check_dependents(ctx, submit, own)
    in_graph = {id(n.call) for n in graph.nodes}
    settings: list[tuple[dict[str, ast.expr], Callable[[ast.AST], str]]] = [
        (n.settings(), n.where) for n in graph.nodes]
    settings += [(kwargs(c), _namer(kwargs(c))) for c in ast.walk(mod.tree)
                 if isinstance(c, ast.Call) and id(c) not in in_graph]
    for kw, where in settings:
        wait = next((kw[a] for a in _WAIT_ARGS if is_false(kw.get(a))), None)
        deferrable = kw.get("deferrable")
        if deferrable is not None and is_true(deferrable) and wait is not None:
            ctx.report("DJ061", wait, (
                f"{where(deferrable)} with {where(wait)}: the operator only defers when it "
                "waits, so this task neither defers nor polls and succeeds on acceptance; set "
                "wait_for_termination=True - or, if a sensor deliberately waits instead, drop "
                "deferrable=True, which does nothing here"))


_STATE_ARGS = re.compile(r"(target|success|expected|allowed)_(state|states|status|statuses)$")
_START_STATES = re.compile(r"running|scheduled|started|starting|in_progress|submitted", re.IGNORECASE)


def _watches_start(poll: TaskNode) -> bool:
    """A sensor told to succeed once the job is running or scheduled (among other states or
    alone) watches its start, not its outcome (the DAG then stops or inspects the running job):
    not the poll half of a split."""
    for key, value in poll.config.items():
        if _STATE_ARGS.search(key):
            elts = value.elts if isinstance(value, (ast.List, ast.Tuple, ast.Set)) else [value]
            names = [e.attr if isinstance(e, ast.Attribute) else (str_value(e) or "") for e in elts]
            if any(_START_STATES.fullmatch(n) for n in names):   # succeeds once it runs,
                return True                                       # whatever else it accepts
    return False


def _cancelled_first(graph: DagGraph, submit: TaskNode, poll: TaskNode) -> bool:
    """A cancel/stop task on the same job runs between the submit and the sensor: the sensor
    watches the cancellation, not the job's own outcome (a test of cancelling, not a split)."""
    ancestors = graph.ancestors(poll.id)
    for node in graph.nodes:
        if node is submit or node is poll or node.id not in ancestors:
            continue
        if _STOP_CLASS_RE.search(last(node.cls)) and (
                submit.id in node.refs or _same_target(graph, submit, node)):
            return True
    return False


def _reshapes(graph: DagGraph, node_id: int, submit: TaskNode) -> bool:
    """A TaskFlow task that only reads the submit's output (``first_step(add_steps.output)``)."""
    node = graph.node(node_id)
    return node.cls is None and node.root is not None and node.refs == {submit.id}


def _reads_output(graph: DagGraph, submit: TaskNode, poll: TaskNode) -> bool:
    """The poll reads the submit's output, directly or through one TaskFlow task that reshapes
    it - and watches no later task's job: a step sensor that reads the cluster id from the
    cluster's create task and the step id from the add-steps task watches the step."""
    if not (submit.id in poll.refs or any(_reshapes(graph, r, submit) for r in poll.refs)):
        return False
    later = [r for r in poll.refs if r != submit.id and not _reshapes(graph, r, submit)
             and submit.id in graph.ancestors(r)]
    return not later


_GENERIC_ARGS = frozenset({
    "task_id", "conn_id", "aws_conn_id", "gcp_conn_id", "databricks_conn_id", "snowflake_conn_id",
    "region", "region_name", "location", "project_id", "impersonation_chain", "botocore_config",
})
_SENSOR_SUFFIX_RE = re.compile(r"Sensor(Operator)?(Async)?$")
_ID_ARG_RE = re.compile(r"(^|_)(id|ids|name|arn|identifier|uri)$")


def _same_target(graph: DagGraph, submit: TaskNode, poll: TaskNode) -> bool:
    """A sensor downstream of the submit task that watches the same job or resource without
    reading the submit's XCom: the operator's own sensor (``SageMakerTrainingOperator`` ->
    ``SageMakerTrainingSensor``), or an identifying argument given the same variable
    (``cluster_name=new_cluster_name`` on both)."""
    if submit.id not in graph.ancestors(poll.id):
        return False
    stem = _SENSOR_SUFFIX_RE.sub("", last(poll.cls))
    if stem and submit.cls and stem in last(submit.cls):     # SageMakerTraining{Operator,Sensor}
        return True
    ids = {ast.unparse(v) for k, v in submit.config.items()
           if k not in _GENERIC_ARGS and _ID_ARG_RE.search(k) and not isinstance(v, ast.Constant)}
    return any(k not in _GENERIC_ARGS and _ID_ARG_RE.search(k) and ast.unparse(v) in ids
               for k, v in poll.config.items())


def _namer(kw: dict[str, ast.expr]) -> Callable[[ast.AST], str]:
    """``name=value`` for a keyword argument of a call outside the task graph."""
    return lambda value: next((f"{k}={ast.unparse(v)}" for k, v in kw.items() if v is value),
                              ast.unparse(value))


def _check_dependents(ctx: FileContext, submit: TaskNode, polls: list[TaskNode]) -> None:
    graph = ctx.module.graph
    poll_ids = {p.id for p in polls}
    sensor = f"'{polls[0].task_id}'"
    feeds = set().union(*(graph.ancestors(p) for p in poll_ids))
    feeds |= {r for p in polls for r in p.refs}
    for edge in graph.downstream(submit.id):
        if edge.down in poll_ids or poll_ids & graph.ancestors(edge.down):
            continue
        if edge.down in feeds:      # it feeds the sensor: depending on the sensor would be a cycle
            continue
        down = graph.node(edge.down)
        rule = down.setting("trigger_rule")
        if rule is not None and "all_success" not in ast.unparse(rule).lower():
            continue                # runs whatever the job did (teardown, all_done): not a gate
        ctx.report("DJ052", (edge.line, edge.col), (
            f"'{down.task_id}' depends on submit task '{submit.task_id}' instead of sensor "
            f"{sensor}: it runs as soon as the job is accepted, even if the job then fails; "
            f"make it depend on {sensor}"))
    for name in ("on_success_callback", "sla"):
        value = submit.config.get(name)
        if value is not None:
            ctx.report("DJ052", value, (
                f"{name} on submit task '{submit.task_id}' fires when the job is accepted, not "
                f"when it finishes; attach it to sensor {sensor}"))
