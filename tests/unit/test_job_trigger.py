"""JobTrigger: serialisation round trip, one event per job, and cancel-on-kill policy."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from durable_jobs.core import trigger as job_trigger
from durable_jobs.core.cancel import decide_cancel, validate_policy
from durable_jobs.core.checkpoint import new_nonce
from durable_jobs.core.exceptions import DurableJobConfigError
from durable_jobs.core.trigger import JobTrigger
from durable_jobs.providers.databricks.clients.databricks import DatabricksJobClient

REQUEST = {"run_name": "unit", "tasks": [{"task_key": "t", "notebook_task": {"notebook_path": "/p"}}]}


def make_trigger(job_id, **kw) -> JobTrigger:
    client = DatabricksJobClient(retry_limit=2, retry_delay=0.01)
    args = dict(client_classpath=client.classpath(), client_kwargs=client.serialize(), job_id=job_id,
                poll_interval=0.05, jitter=0.0)
    args.update(kw)
    return JobTrigger(**args)


def events(trigger: JobTrigger) -> list[dict]:
    async def collect():
        return [event.payload async for event in trigger.run()]

    return asyncio.run(collect())


def test_serialize_round_trip():
    trigger = make_trigger(1234, cancel_on_kill="never", echo={"repair_run": True})
    classpath, kwargs = trigger.serialize()
    assert classpath == "durable_jobs.core.trigger.JobTrigger"
    again = JobTrigger(**kwargs)
    assert again.serialize() == (classpath, kwargs)
    from airflow.sdk.serde import deserialize, serialize

    assert deserialize(serialize(kwargs)) == kwargs  # what the triggerer stores and reads back


@pytest.mark.parametrize("outcome", ["SUCCESS", "FAILED"])
def test_yields_exactly_one_event_at_the_end(databricks_conn_env, outcome):
    # The run ends only once the trigger's first poll has seen it active (a frozen clock, stepped while that
    # poll's reply is held): a run ending on the wall clock could end before a slow first poll.
    databricks_conn_env.configure(default_outcome=outcome, speed=0)
    client = DatabricksJobClient(retry_limit=2, retry_delay=0.01)
    run_id = client.submit(REQUEST, client.format_key(new_nonce()))
    databricks_conn_env.add_hold("jobs/runs/get", "after")

    def end_the_run_after_the_first_poll() -> None:
        deadline = time.monotonic() + 60  # only a trigger that never polls gets here
        while not databricks_conn_env.holds()["held"] and time.monotonic() < deadline:
            time.sleep(0.01)
        databricks_conn_env.advance(3600)
        databricks_conn_env.release()

    ender = threading.Thread(target=end_the_run_after_the_first_poll, daemon=True)
    ender.start()
    [event] = events(make_trigger(run_id))
    ender.join(60)

    assert event["job_id"] == run_id
    assert event["status"] == ("success" if outcome == "SUCCESS" else "failed")
    assert event["state"] == f"TERMINATED:{outcome}"
    assert databricks_conn_env.ledger()["calls"]["jobs/runs/get"] >= 2


def test_a_fresh_trigger_resumes_polling_the_same_run(databricks_conn_env):
    """What a triggerer restart does: a new instance from the stored kwargs."""
    databricks_conn_env.configure(running_seconds=0.3)
    client = DatabricksJobClient(retry_limit=2, retry_delay=0.01)
    run_id = client.submit(REQUEST, client.format_key(new_nonce()))
    _, kwargs = make_trigger(run_id).serialize()

    [event] = events(JobTrigger(**kwargs))

    assert event["status"] == "success"
    assert databricks_conn_env.ledger()["runs_created"] == 1


def test_gives_up_with_an_error_event_when_the_error_budget_is_spent(databricks_conn_env):
    client = DatabricksJobClient(retry_limit=2, retry_delay=0.01)
    run_id = client.submit(REQUEST, client.format_key(new_nonce()))
    databricks_conn_env.add_fault("jobs/runs/get", status=500, count=-1)

    [event] = events(make_trigger(run_id, error_budget=1.5, client_kwargs={**client.serialize(), "retry_limit": 1}))

    assert event["status"] == "error" and event["error"] == "PollBudgetExceededError"
    first_line = event["message"].splitlines()[0]
    assert first_line.startswith(f"Databricks GET jobs/runs/get for run {run_id} kept failing for ")
    assert "HTTP 500" in first_line and "may still be running" in first_line
    assert databricks_conn_env.ledger()["cancels"] == []


def test_an_auth_error_ends_the_watch_at_once_naming_the_connection(databricks_conn_env):
    client = DatabricksJobClient(retry_limit=2, retry_delay=0.01)
    run_id = client.submit(REQUEST, client.format_key(new_nonce()))
    databricks_conn_env.add_fault("jobs/runs/get", status=403, count=-1)

    [event] = events(make_trigger(run_id, error_budget=600))

    assert event["error"] == "VendorAuthError"
    assert "HTTP 403" in event["message"] and "connection 'databricks_default'" in event["message"]


@pytest.mark.parametrize(("policy", "cancels"), [("always", 1), ("never", 0), ("user", 0)])
def test_on_kill_applies_the_policy(databricks_conn_env, policy, cancels):
    client = DatabricksJobClient(retry_limit=2, retry_delay=0.01)
    run_id = client.submit(REQUEST, client.format_key(new_nonce()))
    trigger = make_trigger(run_id, cancel_on_kill=policy)  # no task instance: Airflow cannot be asked

    asyncio.run(trigger.on_kill())

    assert len(databricks_conn_env.ledger()["cancels"]) == cancels


def test_cleanup_never_cancels(databricks_conn_env):
    client = DatabricksJobClient(retry_limit=2, retry_delay=0.01)
    run_id = client.submit(REQUEST, client.format_key(new_nonce()))
    asyncio.run(make_trigger(run_id, cancel_on_kill="always").cleanup())
    assert databricks_conn_env.ledger()["cancels"] == []


@pytest.mark.parametrize(
    ("policy", "state", "alive", "cancel"),
    [
        ("user", "running", "running", False),  # SIGTERM from eviction/deploy: Airflow still runs it
        ("user", "failed", "running", True),  # mark-failed
        ("user", "success", "running", True),  # mark-success
        ("user", "restarting", "running", True),  # clear of a running task
        ("user", "none", "deferred", True),  # clear of a deferred task
        ("user", "deferred", "deferred", False),  # trigger moved to another triggerer
        ("user", None, "running", False),  # Airflow unreachable (heartbeat loss): infrastructure
        ("always", "running", "running", True),
        ("never", "failed", "running", False),
    ],
)
def test_cancel_decision(policy, state, alive, cancel):
    assert decide_cancel(policy, state, still_alive_state=alive) is cancel


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [({"poll_interval": -1}, "poll_interval must be a number of seconds"), ({"poll_interval": "30"}, "poll_interval"),
     ({"error_budget": -1}, "error_budget"), ({"jitter": 1.5}, "jitter"), ({"max_polls": 0}, "max_polls"),
     ({"cancel_on_kill": "sometimes"}, "cancel_on_kill")],
)
def test_bad_arguments_are_named(kwargs, argument):
    with pytest.raises(DurableJobConfigError, match=argument):
        make_trigger(1, **kwargs)


def test_policy_validation_lists_the_choices():
    with pytest.raises(DurableJobConfigError, match="'user', 'always', 'never'"):
        validate_policy("sometimes")


def test_the_official_boolean_is_read_as_a_policy():
    """Upstream's ``cancel_on_kill=True`` cancels on any kill; ours cancels on a user's only, False never."""
    assert validate_policy(True, official_boolean=True) == "user"
    assert validate_policy(False, official_boolean=True) == "never"
    with pytest.raises(DurableJobConfigError, match="cancel_on_kill"):
        validate_policy(1)  # not a bool: no silent truthiness


class Channel:
    """The trigger process's Task SDK channel to the triggerer's supervisor (``SUPERVISOR_COMMS``): its table of
    pending requests, and ``asend``, answering GetTaskStates with ``state`` after ``delay`` seconds."""

    def __init__(self, state: str = "failed", delay: float = 0.0):
        self.state, self.delay, self.asked = state, delay, 0
        self._pending: dict[int, object] = {}

    async def asend(self, msg):
        from airflow.sdk.execution_time.comms import GetTaskStates, TaskStatesResult

        if not isinstance(msg, GetTaskStates):  # the hook's connection comes from the environment instead
            raise ConnectionError(f"this supervisor answers the task-state lookup only, not {type(msg).__name__}")
        self.asked += 1
        await asyncio.sleep(self.delay)
        return TaskStatesResult(task_states={msg.run_ids[0]: {msg.task_ids[0]: self.state}})


class DeferredTask:
    """What Airflow's ``run_trigger`` reads of a trigger's task instance."""

    id, dag_id, run_id, task_id, map_index, try_number = "01a2", "d", "r", "submit", -1, 1
    context_carrier = None


@pytest.fixture
def channel(monkeypatch) -> Channel:
    from airflow.sdk.execution_time import task_runner

    monkeypatch.setenv("AIRFLOW_DISABLE_GREENBACK_PORTAL", "true")
    channel = Channel()
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", channel, raising=False)
    return channel


def run_then_kill(trigger: JobTrigger, emulator, before_kill=None) -> float:
    """Airflow's own ``run_trigger`` runs the trigger until it has polled; ``before_kill`` (a coroutine function)
    runs in the trigger loop; then ``cancel_triggers`` kills it as a user's action does. Returns the seconds from
    the kill to the end of ``on_kill``."""
    from airflow.jobs.triggerer_job_runner import TriggerRunner

    async def scenario() -> float:
        runner = TriggerRunner()
        task = asyncio.create_task(runner.run_trigger(1, trigger))
        runner.triggers[1] = {"task": task, "name": "JobTrigger", "events": 0}
        for _ in range(600):
            if emulator.ledger()["calls"].get("jobs/runs/get", 0) >= 2:
                break
            await asyncio.sleep(0.05)
        if before_kill is not None:
            await before_kill()
        started = time.monotonic()
        runner.to_cancel.append(1)
        await runner.cancel_triggers()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.monotonic() - started

    return asyncio.run(scenario())


def deferred_trigger(emulator) -> JobTrigger:
    emulator.configure(speed=0)  # the run stays active whatever the kill takes
    client = DatabricksJobClient(retry_limit=2, retry_delay=0.01)
    trigger = make_trigger(client.submit(REQUEST, client.format_key(new_nonce())), cancel_on_kill="user")
    trigger.task_instance = DeferredTask()
    return trigger


def test_a_users_kill_cancels_at_once_without_asking_airflow(databricks_conn_env, channel):
    """The triggerer never stood still: Airflow's user-action cancel can only be a user's, and the supervisor
    (whose thread also writes the heartbeat) is not asked anything."""
    took = run_then_kill(deferred_trigger(databricks_conn_env), databricks_conn_env)

    assert channel.asked == 0
    assert len(databricks_conn_env.ledger()["cancels"]) == 1
    assert took < 3.0


def _short_health_check(monkeypatch) -> float:
    """The crash stack's thresholds (a 6 s health check, a heartbeat a second): a 2 s stall may move a trigger."""
    from durable_jobs.core import pulse

    monkeypatch.setenv("AIRFLOW__TRIGGERER__TRIGGERER_HEALTH_CHECK_THRESHOLD", "6")
    monkeypatch.setenv("AIRFLOW__TRIGGERER__JOB_HEARTBEAT_SEC", "1")
    return pulse.stall_bound()


@pytest.mark.parametrize(("state", "cancels"), [("failed", 1), ("deferred", 0)])
def test_a_kill_after_the_trigger_loop_stood_still_asks_airflow(databricks_conn_env, channel, monkeypatch, state,
                                                                 cancels):
    """The loop stood still as long as a move needs (the process stopped or starved): the kill may be a move's."""
    bound = _short_health_check(monkeypatch)
    channel.state = state

    async def stand_still() -> None:
        time.sleep(bound + 0.5)  # noqa: ASYNC251 - the stall itself: nothing in the loop runs meanwhile

    run_then_kill(deferred_trigger(databricks_conn_env), databricks_conn_env, stand_still)

    assert channel.asked == 1
    assert len(databricks_conn_env.ledger()["cancels"]) == cancels


@pytest.mark.parametrize(("state", "cancels"), [("failed", 1), ("deferred", 0)])
def test_a_kill_after_the_supervisor_stood_still_asks_airflow(databricks_conn_env, channel, monkeypatch, state,
                                                               cancels):
    """The trigger loop ran on, but a request waited on the supervisor as long as a move needs (its heartbeat
    is written by the same thread)."""
    bound = _short_health_check(monkeypatch)
    channel.state = state

    async def supervisor_stands_still() -> None:
        channel._pending[7] = object()  # the runner's own request, as Airflow's channel holds it until answered
        await asyncio.sleep(bound + 1.5)
        del channel._pending[7]

    run_then_kill(deferred_trigger(databricks_conn_env), databricks_conn_env, supervisor_stands_still)

    assert channel.asked == 1
    assert len(databricks_conn_env.ledger()["cancels"]) == cancels


@pytest.mark.parametrize(("state", "cancels"), [("failed", 1), ("deferred", 0)])
def test_a_kill_cut_short_by_airflow_still_ends_as_decided(databricks_conn_env, monkeypatch, state, cancels):
    """Airflow's 30 s ``on_kill`` timeout can cut ``on_kill`` off while it waits on the supervisor's answer (seen
    in the crash suite, when every kill asked: the supervisor stalled ~30 s on its database); the kill goes on."""
    from airflow.sdk.execution_time import task_runner

    supervisor = Channel(state, delay=0.5)
    monkeypatch.setattr(task_runner, "SUPERVISOR_COMMS", supervisor, raising=False)
    client = DatabricksJobClient(retry_limit=2, retry_delay=0.01)
    run_id = client.submit(REQUEST, client.format_key(new_nonce()))
    trigger = make_trigger(run_id, cancel_on_kill="user")
    trigger.task_instance = DeferredTask()  # it never ran here: it cannot vouch for its triggerer, so it asks

    async def airflow_cuts_on_kill_short():
        with pytest.raises(TimeoutError):  # as the triggerer's run_trigger does, with 30 s
            await asyncio.wait_for(trigger.on_kill(), timeout=0.1)
        # within on_kill's grace: the cancel has reached the vendor before the trigger ends
        seen.append(len(databricks_conn_env.ledger()["cancels"]))
        for _ in range(100):  # the triggerer's loop goes on running; so does the kill
            if not job_trigger._KILLS_IN_FLIGHT:
                break
            await asyncio.sleep(0.05)

    seen: list[int] = []
    asyncio.run(airflow_cuts_on_kill_short())

    assert supervisor.asked == 1
    assert seen == [cancels]
    assert len(databricks_conn_env.ledger()["cancels"]) == cancels
