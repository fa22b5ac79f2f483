"""The deployment half of ``durable-jobs doctor``: executor, metadata database, live triggerers.

Each is read from Airflow's own config (and, for the triggerers, from the metadata database's ``job`` table, as
the scheduler reads it) and turned into what it means for crash safety. Nothing here raises: a value that cannot
be read is reported with the reason. The database URL is never printed (it carries a password): only its dialect.
Nothing here writes either: a database that was never migrated is reported with the command to run, not created.
"""

from __future__ import annotations

import datetime as dt
import os
from typing import Any

#: [celery_broker_transport_options] visibility_timeout that apache-airflow-providers-celery sets for Redis/SQS
#: brokers when none is configured (default_celery._broker_transport_options, provider 3.26).
CELERY_DEFAULT_VISIBILITY_TIMEOUT = 86400
#: executors whose real processes durable-jobs' own crash suites kill (`make crash`, `make crash-scale`)
CRASH_SUITES = {"LocalExecutor": "the crash suite (SQLite, LocalExecutor)",
                "CeleryExecutor": "the scale crash suite (Postgres, Redis, CeleryExecutor)"}

EXECUTOR_MEANING = {
    "LocalExecutor": (
        "tries run as children of the scheduler on one machine: a scheduler crash or restart kills every running "
        "try at once, each one a worker crash that the checkpoint turns into a reconnect on retry"),
    "CeleryExecutor": (
        "tries run in Celery workers and a retry may land on another worker: the checkpoint is in the state store "
        "every worker reaches, so the retry reconnects wherever it runs. A worker's SIGTERM is a warm shutdown "
        "(it waits for its running tries until it is SIGKILLed): the job is not cancelled, the retry reconnects"),
    "KubernetesExecutor": (
        "one pod per try: an eviction or node drain is SIGTERM, then SIGKILL after terminationGracePeriodSeconds, "
        "the same case as the crash suite's SIGTERM cells: the job is not cancelled, the retry reconnects"),
    "CeleryKubernetesExecutor": (
        "tries run in Celery workers or Kubernetes pods by queue: see CeleryExecutor and KubernetesExecutor"),
    "SequentialExecutor": "one try at a time inside the scheduler: for debugging only",
}

DATABASE_MEANING = {
    "postgresql": (
        "the state store (task_state_store) lives in Postgres with the rest of the metadata, so a checkpoint "
        "survives the loss of any worker; a Postgres restart fails the writes in flight: that try fails or "
        "retries, and its retry reconnects to the job already submitted"),
    "mysql": (
        "the state store lives in MySQL with the rest of the metadata, so a checkpoint survives the loss of any "
        "worker (MySQL is supported by Airflow; the crash suites run on SQLite and Postgres, not MySQL)"),
    "sqlite": (
        "one file on one machine: only a single-machine deployment (LocalExecutor) can share it, and one writer "
        "at a time means checkpoint writes queue behind the scheduler's; use Postgres once workers are on other "
        "machines"),
}


def _get(conf, section: str, key: str) -> tuple[str | None, str | None]:
    if conf is None:
        return None, "Airflow's configuration cannot be loaded"
    try:
        return conf.get(section, key, fallback=None), None
    except Exception as err:  # a broken _cmd/_secret
        return None, f"[{section}] {key} cannot be read ({err})"


def executor_report(conf) -> dict[str, Any]:
    raw, error = _get(conf, "core", "executor")
    names = [part.split(":")[-1].strip().rsplit(".", 1)[-1] for part in (raw or "").split(",") if part.strip()]
    meanings = [f"{name}: {EXECUTOR_MEANING.get(name, 'not exercised by any crash suite of durable-jobs')}"
                for name in names]
    tested = [f"{name}: {CRASH_SUITES[name]}" for name in names if name in CRASH_SUITES]
    report: dict[str, Any] = {"value": raw, "executors": names, "meaning": meanings, "crash_tested": tested,
                              "visibility_timeout": None, "error": error, "warning": None}
    if any("Celery" in name for name in names):
        report["visibility_timeout"] = _visibility_timeout(conf)
        report["meaning"].append(
            f"Celery broker visibility timeout {report['visibility_timeout']} s: a task message not acknowledged "
            "for that long is delivered again; Airflow 3.3 refuses to start a try that is already running "
            "(TaskAlreadyRunningError, the redelivery is ignored), so a sync task polling longer than that is "
            "not started twice")
    return report


def _visibility_timeout(conf) -> int | None:
    value, _ = _get(conf, "celery_broker_transport_options", "visibility_timeout")
    if value is None:
        broker, _ = _get(conf, "celery", "broker_url")
        if broker and broker.startswith(("redis://", "rediss://", "sqs://", "sentinel://")):
            return CELERY_DEFAULT_VISIBILITY_TIMEOUT
        return None
    try:
        return int(float(value))
    except ValueError:
        return None


#: What a database that ``airflow db migrate`` never ran on needs.
MIGRATE = "run `airflow db migrate` to create Airflow's tables (durable-jobs keeps its checkpoints there)"


def _engine(url: str, timeout: float):
    from sqlalchemy import create_engine

    return create_engine(url, connect_args={"connect_timeout": max(1, int(timeout))} if url.startswith("postgres")
                         else {})


def _first_line(err: Exception) -> str:
    return str(getattr(err, "orig", None) or err).strip().splitlines()[0]


def migration_state(url: str, timeout: float) -> tuple[bool | None, str | None]:
    """Has ``airflow db migrate`` run on this database: (True, None), (False, what to do), or (None, why it cannot
    be told). A SQLite file that does not exist is not opened: connecting would create it, empty."""
    from sqlalchemy import inspect
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    path = parsed.database or ""
    if parsed.get_backend_name() == "sqlite" and path not in ("", ":memory:") and not path.startswith("file:"):
        if not os.path.exists(path):
            return False, f"the metadata database {path} does not exist (never migrated): {MIGRATE}"
    try:
        engine = _engine(url, timeout)
        try:
            with engine.connect() as connection:
                migrated = inspect(connection).has_table("job")
        finally:
            engine.dispose()
    except Exception as err:
        return None, f"cannot connect to the metadata database: {type(err).__name__}: {_first_line(err)}"[:300]
    if not migrated:
        return False, f"the metadata database has no Airflow tables (never migrated): {MIGRATE}"
    return True, None


def database_report(conf, executors: list[str], state_store_backend: str | None, default_backend: str,
                    timeout: float = 2.0) -> dict[str, Any]:
    raw, error = _get(conf, "database", "sql_alchemy_conn")
    dialect = None
    migrated = None
    if raw:
        try:
            from sqlalchemy.engine import make_url

            dialect = make_url(raw).get_backend_name()
        except Exception as err:
            error = f"[database] sql_alchemy_conn is not a database URL ({type(err).__name__})"
        else:
            migrated, error = migration_state(raw, timeout)
    meaning = DATABASE_MEANING.get(dialect or "", "not exercised by the crash suites") if dialect else None
    warning = None
    if dialect == "sqlite" and any(name != "LocalExecutor" and name != "SequentialExecutor" for name in executors):
        warning = (f"the metadata database is SQLite with {', '.join(executors)}: workers on other machines "
                   "cannot reach its file, so they cannot read or write a checkpoint")
    if state_store_backend and state_store_backend != default_backend:
        meaning = (f"checkpoints are not in this database: [state_store] backend = {state_store_backend} keeps "
                   "them; its durability is the crash safety you get")
    return {"dialect": dialect, "migrated": migrated, "meaning": meaning, "error": error, "warning": warning}


def count_live_triggerers(engine, threshold_seconds: float, now: dt.datetime | None = None) -> int:
    """TriggererJob rows still running whose heartbeat is younger than the threshold (the scheduler's test)."""
    from airflow.jobs.job import Job
    from sqlalchemy import and_, func, select

    now = now or dt.datetime.now(dt.timezone.utc)
    cutoff = now - dt.timedelta(seconds=threshold_seconds)
    query = select(func.count()).select_from(Job).where(and_(
        Job.job_type == "TriggererJob", Job.state == "running", Job.latest_heartbeat > cutoff))
    with engine.connect() as connection:
        return int(connection.execute(query).scalar_one())


def triggerers_report(conf, timeout: float, database: dict[str, Any]) -> dict[str, Any]:
    """Counted only in a ``database`` that is migrated: an unreachable one is not asked twice."""
    threshold_raw, _ = _get(conf, "triggerer", "triggerer_health_check_threshold")
    capacity_raw, _ = _get(conf, "triggerer", "capacity")
    threshold = float(threshold_raw or 30)
    capacity = int(capacity_raw or 1000)
    report: dict[str, Any] = {"live": None, "health_check_threshold": threshold, "capacity_each": capacity,
                              "meaning": None, "error": None, "warning": None}
    url, error = _get(conf, "database", "sql_alchemy_conn")
    if not url:
        report["error"] = error or "[database] sql_alchemy_conn is not set"
        return report
    if not database["migrated"]:
        report["error"] = "not counted: " + (
            "the metadata database was never migrated" if database["migrated"] is False else database["error"])
        return report
    try:
        engine = _engine(url, timeout)
        try:
            report["live"] = count_live_triggerers(engine, threshold)
        finally:
            engine.dispose()
    except Exception as err:
        report["error"] = f"cannot count triggerers in the metadata database: {type(err).__name__}: " \
                          f"{_first_line(err)}"[:300]
        return report
    report["meaning"] = triggerer_meaning(report["live"], threshold, capacity)
    if report["live"] == 1:
        report["warning"] = ("one live triggerer: while it is down or restarting nothing polls a deferred job "
                             "(the job runs on; the task resumes when a triggerer is back); run two for HA")
    return report


def triggerer_meaning(live: int, threshold: float, capacity: int) -> str:
    if live == 0:
        return ("no live triggerer: a deferred task waits with nothing polling its job until one starts; "
                "prefer the sync shape (wait_for_termination=True, deferrable=False)")
    if live == 1:
        return ("one triggerer: a deferred task survives its restart (the trigger resumes, no try is spent), but "
                f"nothing polls while it is down; capacity {capacity} triggers")
    return (f"{live} triggerers: a triggerer silent for {threshold:.0f} s loses its triggers to the others, which "
            f"resume polling the same jobs (no resubmit, no cancel); capacity {live * capacity} triggers in all "
            f"({capacity} each), keep it so with one of them gone")


def collect_deployment(conf, timeout: float, state_store_backend: str | None, default_backend: str
                       ) -> dict[str, Any]:
    executor = executor_report(conf)
    database = database_report(conf, executor["executors"], state_store_backend, default_backend, timeout)
    triggerers = triggerers_report(conf, timeout, database)
    return {"executor": executor, "database": database, "triggerers": triggerers}


def warnings_of(deployment: dict[str, Any]) -> list[str]:
    """Each part's warning; first, a database never migrated (nothing durable-jobs needs is there yet)."""
    database = deployment["database"]
    unmigrated = [database["error"]] if database["migrated"] is False else []
    return unmigrated + [part["warning"] for part in deployment.values() if part.get("warning")]


_STR = {"type": "string"}
_NSTR = {"type": ["string", "null"]}
_LIST = {"type": "array", "items": _STR}


def _obj(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": list(properties), "additionalProperties": False,
            "properties": properties}


SCHEMA: dict[str, Any] = _obj({
    "executor": _obj({"value": _NSTR, "executors": _LIST, "meaning": _LIST, "crash_tested": _LIST,
                      "visibility_timeout": {"type": ["integer", "null"]}, "error": _NSTR, "warning": _NSTR}),
    "database": _obj({"dialect": _NSTR, "migrated": {"type": ["boolean", "null"]}, "meaning": _NSTR, "error": _NSTR,
                      "warning": _NSTR}),
    "triggerers": _obj({"live": {"type": ["integer", "null"]}, "health_check_threshold": {"type": "number"},
                        "capacity_each": {"type": "integer"}, "meaning": _NSTR, "error": _NSTR,
                        "warning": _NSTR}),
})


def render_lines(deployment: dict[str, Any]) -> list[str]:
    ex, db, tr = deployment["executor"], deployment["database"], deployment["triggerers"]
    out = ["Deployment"]
    out.append(f"  executor    {ex['value'] or '(unknown)'}" + (f"  ({ex['error']})" if ex["error"] else ""))
    out += [f"      {line}" for line in ex["meaning"]]
    if ex["crash_tested"]:
        out.append(f"      crash-tested by: {'; '.join(ex['crash_tested'])}")
    out.append(f"  database    {db['dialect'] or '(unknown)'}" + (f"  ({db['error']})" if db["error"] else ""))
    if db["meaning"]:
        out.append(f"      {db['meaning']}")
    live = "unknown" if tr["live"] is None else str(tr["live"])
    out.append(f"  triggerers  {live} live (heartbeat within {tr['health_check_threshold']:.0f} s)"
               + (f"  ({tr['error']})" if tr["error"] else ""))
    if tr["meaning"]:
        out.append(f"      {tr['meaning']}")
    return out
