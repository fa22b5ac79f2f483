"""``durable-jobs reconcile``: external jobs still running for task instances that have finished.

A job can outlive its task: a worker SIGKILLed on the last try, a heartbeat lost, a deploy that
never came back, a user who marked a deferred task success on Airflow below 3.3. Nothing will ever
watch such a job again, and it keeps billing. This command reads the checkpoint records in
Airflow's ``task_state_store`` (the metadata database, as the ``airflow`` CLI does), keeps those
whose task instance is finished, asks each vendor through the same ``JobClient`` the operator used
(rebuilt from the record: its classpath and connection settings, never a secret), and lists the
jobs the vendor still reports running. ``--cancel`` cancels them; the default is a dry run.

    durable-jobs reconcile --dag-id nightly_etl [--run-id RUN] [--since 2026-11-01T00:00:00+00:00]
    durable-jobs reconcile --since 2d --cancel --format json

It says how many records it checked (with ``--format json``, on stderr: stdout is the findings alone).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from durable_jobs.cli import command_parser
from durable_jobs.core.mixin import CHECKPOINT_SUFFIX

#: Task instance states in which nothing will watch the job any more.
FINISHED = ("success", "failed", "skipped", "removed", "upstream_failed")


@dataclass
class Finding:
    dag_id: str
    run_id: str
    task_id: str
    map_index: int
    ti_state: str | None
    vendor: str
    client: str
    job_id: Any
    job_state: str
    #: "orphan" (active, nothing watches it), "cancelled" (--cancel did), "cancel-failed",
    #: or "unchecked" (the record carries no client settings to rebuild its client from)
    verdict: str
    detail: str = ""


@dataclass
class Reconciliation:
    """What one reconcile looked at, so that "nothing found" can be told from "nothing checked"."""

    #: durable-jobs checkpoint records in scope (--dag-id, --run-id, --since)
    records: int = 0
    #: jobs of finished task instances, with no outcome recorded, whose vendor was asked
    asked: int = 0
    findings: list[Finding] = field(default_factory=list)


def same_task_instance(ti: Any, store: Any) -> Any:
    """The join of a ``task_state_store`` row to its task instance. Airflow 3.4 renamed the store's
    ``map_index`` to ``region_index`` and added ``region_id`` to both tables (migration 0144); the task
    instance keeps ``map_index`` as a synonym."""
    same = (ti.dag_id == store.dag_id) & (ti.run_id == store.run_id) & (ti.task_id == store.task_id)
    if hasattr(store, "region_index"):
        return same & (ti.region_index == store.region_index) & (ti.region_id == store.region_id)
    return same & (ti.map_index == store.map_index)


def map_index_of(row: Any) -> int:
    """The map index a ``task_state_store`` row belongs to, on Airflow 3.3 (``map_index``) and 3.4
    (``region_index``)."""
    index = getattr(row, "region_index", None)
    return int(row.map_index if index is None else index)


def _records(dag_id: str | None, run_id: str | None, since: datetime | None) -> list[tuple[Any, str | None]]:
    """(task_state_store row, its task instance's state) for every durable-jobs record in scope."""
    from airflow.models.task_state_store import TaskStateStoreModel
    from airflow.models.taskinstance import TaskInstance
    from airflow.utils.session import create_session

    with create_session() as session:
        query = session.query(TaskStateStoreModel, TaskInstance.state).outerjoin(
            TaskInstance, same_task_instance(TaskInstance, TaskStateStoreModel),
        ).filter(TaskStateStoreModel.key.like(f"%{CHECKPOINT_SUFFIX}"))
        if dag_id:
            query = query.filter(TaskStateStoreModel.dag_id == dag_id)
        if run_id:
            query = query.filter(TaskStateStoreModel.run_id == run_id)
        if since is not None:
            query = query.filter(TaskStateStoreModel.updated_at >= since)
        rows = query.all()
        session.expunge_all()
    return [(row, None if state is None else str(getattr(state, "value", state))) for row, state in rows]


def find_orphans(
    *, dag_id: str | None = None, run_id: str | None = None, since: datetime | None = None, cancel: bool = False
) -> Reconciliation:
    from durable_jobs.core.checkpoint import parse_record
    from durable_jobs.core.client import load_client
    from durable_jobs.core.exceptions import DurableJobError
    from durable_jobs.core.faults import cap
    from durable_jobs.core.status import JobPhase

    rows = _records(dag_id, run_id, since)
    done = Reconciliation(records=len(rows))
    findings = done.findings
    for row, ti_state in rows:
        if ti_state not in FINISHED:
            continue  # running, deferred, queued, up for retry: something still comes back for the job
        try:
            record = parse_record(json.loads(row.value), key=row.key)
        except (ValueError, DurableJobError):
            continue
        if record is None or record.legacy or record.id is None or record.status is not None:
            continue  # no job, or its outcome is already recorded
        where = dict(dag_id=row.dag_id, run_id=row.run_id, task_id=row.task_id, map_index=map_index_of(row),
                     ti_state=ti_state, client=record.client or "", job_id=record.id)
        if not record.client or record.client_kwargs is None:
            findings.append(Finding(**where, vendor="?", job_state="?", verdict="unchecked",
                                    detail="the record has no client settings; check the job in the vendor's console"))
            continue
        client = load_client(record.client, record.client_kwargs)
        done.asked += 1
        try:
            status = client.status(record.id)
        except Exception as err:
            findings.append(Finding(**where, vendor=client.vendor, job_state="?", verdict="unchecked",
                                    detail=f"status call failed: {client.classify(err)}"))
            continue
        if status.phase not in (JobPhase.ACTIVE, JobPhase.UNKNOWN):
            continue
        finding = Finding(**where, vendor=client.vendor, job_state=status.state, verdict="orphan")
        if cancel:
            try:
                client.cancel(record.id)
                finding.verdict = "cancelled"
            except Exception as err:
                finding.verdict, finding.detail = "cancel-failed", cap(err, 300)
        findings.append(finding)
    return done


def render_text(done: Reconciliation, *, cancel: bool) -> str:
    findings = done.findings
    lines = [checked_line(done)]
    if not findings:
        return "\n".join([*lines, "No external job is running for a finished task instance."])
    lines.append(f"{len(findings)} job(s) for finished task instances:")
    for f in findings:
        lines.append(f"  {f.verdict:<13} {f.vendor} {f.job_id} ({f.job_state}) — {f.dag_id} / {f.run_id} / "
                     f"{f.task_id}{'' if f.map_index < 0 else f'[{f.map_index}]'} is {f.ti_state}"
                     f"{': ' + f.detail if f.detail else ''}")
    if not cancel and any(f.verdict == "orphan" for f in findings):
        lines.append("Dry run: nothing was cancelled. Run again with --cancel to cancel the orphans.")
    return "\n".join(lines)


def checked_line(done: Reconciliation) -> str:
    return (f"Checked {done.records} durable-jobs record(s); asked the vendor about {done.asked} job(s) of "
            "finished task instances.")


SINCE_FORMS = ("an ISO date or time (2026-11-29, 2026-11-29T06:00:00+00:00; UTC unless it names an offset) "
               "or a duration back from now (2d, 12h, 30m)")
_DURATION = re.compile(r"(\d+)([dhm])")
_UNITS = {"d": "days", "h": "hours", "m": "minutes"}


def parse_since(value: str, now: datetime | None = None) -> datetime:
    """``--since``: an ISO date or time, or a duration back from ``now``; anything else names what it expects."""
    text = value.strip()
    duration = _DURATION.fullmatch(text)
    if duration:
        count, unit = duration.groups()
        return (now or datetime.now(timezone.utc)) - timedelta(**{_UNITS[unit]: int(count)})
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {SINCE_FORMS}, got {value!r}") from None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("durable-jobs reconcile", __doc__)
    parser.add_argument("--dag-id", help="only this DAG's task instances")
    parser.add_argument("--run-id", help="only this DAG run (with --dag-id)")
    parser.add_argument("--since", type=parse_since, metavar="WHEN",
                        help=f"only records written since WHEN: {SINCE_FORMS}")
    parser.add_argument("--cancel", action="store_true", help="cancel the orphans (default: a dry run)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="json: the findings as one JSON list on stdout, the count of records on stderr")
    args = parser.parse_args(argv)
    if args.run_id and not args.dag_id:
        parser.error("--run-id needs --dag-id")
    # What Airflow and the vendors' hooks log while the records are checked goes to stderr: stdout is the report
    # (one JSON document with --format json).
    with contextlib.redirect_stdout(sys.stderr):
        done = find_orphans(dag_id=args.dag_id, run_id=args.run_id, since=args.since, cancel=args.cancel)
    if args.format == "json":
        json.dump([asdict(f) for f in done.findings], sys.stdout, indent=1, default=str)
        sys.stdout.write("\n")
        print(checked_line(done), file=sys.stderr)
    else:
        print(render_text(done, cancel=args.cancel))
    return 1 if any(f.verdict in ("orphan", "cancel-failed") for f in done.findings) else 0


if __name__ == "__main__":
    raise SystemExit(main())
