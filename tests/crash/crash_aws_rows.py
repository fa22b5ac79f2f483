"""The crash rows every AWS service gets: W2, W5, SIGTERM and MARK-FAILED, sync and deferrable.

``aws_rows(key, label)`` builds them for one service of ``crash_aws.SERVICES`` (the registry's AWS operators
with crash rows); AWS Glue and EMR Serverless use it here. A new AWS service needs, besides its registry entry,
how moto lists its jobs (``crash_aws.LISTERS``), its task in dags/crash_dags.py, how to find its job object in
moto (``_moto_job``) and, for W5 deferrable, an operation its ``execute_complete`` reads (``COMPLETE_READS``).

moto's state manager is process-wide, so an AWS cell cannot stop the clock for everyone as a Databricks
cell does (``freeze`` is for exclusive cells). Instead a cell *pins its own job*: moto runs in this
process, a job advances under the "time" progression only once ``_time_progressed`` is
``step_seconds`` old, so moving that stamp a day ahead keeps this one job in its state, whoever reads
it, and moving it back lets it go on. The job is pinned while the submit's reply is held at the
cell's proxy (moto has created it; nobody has read it yet), so it is provably active until the
driver lets it go. Its state is *peeked* (``_status``) without advancing it.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from crash_aws import SAGEMAKER_KEYS, SERVICES, _load
from crash_scenarios import AwsCellRun, Scenario, aws_w2
from crash_stack import StackError

from durable_jobs import vendors
from durable_jobs.testing.emulators.aws_env import ACCOUNT, REGION

#: each crash key's succeeded states (its client's state table in the registry)
SUCCEEDED = {key: _load(vendors.crash_vendor(key)[0].client).states.succeeded for key in SERVICES}
# Amazon ECS (tests/crash/crash_ecs_rows.py): a stopped task succeeded when its containers exited 0
SUCCEEDED["ecs"] = frozenset({"STOPPED"})
#: W5 deferrable: the read ``dags/crash_dags.AwsReadsOnComplete`` makes inside ``execute_complete``
COMPLETE_READS = {"glue": "glue:GetJob", "emr_serverless": "emr-serverless:GetApplication"}
# AWS Step Functions (tests/crash/crash_sfn_rows.py): the read dags/crash_dags.SfnReadsAfterStart makes
COMPLETE_READS["stepfunctions"] = "states:DescribeStateMachine"
COMPLETE_READS["ecs"] = "ecs:DescribeClusters"
# Amazon EMR on EKS (tests/crash/crash_emr_containers_rows.py)
COMPLETE_READS["emr_containers"] = "emr-containers:DescribeVirtualCluster"


# ---------------------------------------------------------------------- one job in moto
def _moto_job(run: AwsCellRun, job_id: str) -> Any:
    """The cell's job object in the in-process moto backend (a ``ManagedState``)."""
    vendor = run.cell.scenario.vendor
    if vendor == "glue":
        from moto.glue.models import glue_backends

        job = glue_backends[ACCOUNT][REGION].get_job(run.emu.job_name)
        return next(r for r in job.job_runs if r.job_run_id == job_id)
    if vendor == "emr_serverless":
        from moto.emrserverless.models import emrserverless_backends

        backend = emrserverless_backends[ACCOUNT][REGION]
        return next(r for runs in backend.job_runs.values() for r in runs if r.id == job_id)
    if vendor == "stepfunctions":
        from moto.stepfunctions.models import stepfunctions_backends

        backend = stepfunctions_backends[ACCOUNT][REGION]
        return next(e for m in backend.state_machines for e in m.executions if e.execution_arn == job_id)
    if vendor == "ecs":
        from moto.ecs.models import ecs_backends

        return next(t for tasks in ecs_backends[ACCOUNT][REGION].tasks.values() for arn, t in tasks.items()
                    if arn == job_id)
    if vendor == "redshift_data":  # tests/crash/crash_redshift_data_rows.py
        from moto.redshiftdata.models import redshiftdata_backends

        return redshiftdata_backends[ACCOUNT][REGION].statements[job_id]
    if vendor == "emr_steps":  # tests/crash/crash_emr_steps_rows.py: the step in the shared cluster
        from moto.emr.models import emr_backends

        return next(s for c in emr_backends[ACCOUNT][REGION].clusters.values() for s in c.steps if s.id == job_id)
    if vendor == "emr_containers":  # tests/crash/crash_emr_containers_rows.py
        from moto.emrcontainers.models import emrcontainers_backends

        return emrcontainers_backends[ACCOUNT][REGION].job_runs[job_id]
    if vendor in SAGEMAKER_KEYS.values():  # crash_sagemaker_rows.py: the job's state manager (aws_moto_sagemaker)
        from moto.sagemaker.models import sagemaker_backends

        job_type = next(t for t, key in SAGEMAKER_KEYS.items() if key == vendor)
        store = getattr(sagemaker_backends[ACCOUNT][REGION], f"{job_type.lower()}_jobs")
        return store[job_id].__dict__["_dj_state"]
    raise StackError(f"{run.cell.id}: no moto lookup for {vendor} jobs")


def _pin(job: Any) -> None:
    job._time_progressed = datetime.now() + timedelta(days=1)


def _unpin(job: Any) -> None:
    job._time_progressed = datetime.now() - timedelta(days=1)


def _peek(job: Any) -> str:
    """The job's state without a read (a read would move it on)."""
    return str(getattr(job._status, "value", job._status))


def _pinned_job(run: AwsCellRun) -> Any:
    """Trigger the DAG run; pin the job while the submit's reply is held, then let the reply go."""
    service = run.emu.service
    submit = run.emu.proxy.hold(service.submit)
    run.trigger()
    run.wait(f"{service.submit} parked after moto created the job", submit.parked.is_set)
    created = run.emu.created()
    if len(created) != 1:
        raise StackError(f"{run.cell.id}: {len(created)} jobs created at the held {service.submit}")
    job = _moto_job(run, created[0])
    _pin(job)
    submit.event.set()
    run.proof(f"job {created[0]} pinned in moto at {_peek(job)} while {service.submit}'s reply was held")
    return job


def _active(run: AwsCellRun, job: Any) -> str:
    state = _peek(job)
    if state not in run.emu.service.active:
        raise StackError(f"{run.cell.id}: window missed: the job is {state}")
    return state


def _wait_sync_polling(run: AwsCellRun, reads: int = 2) -> None:
    describe = run.emu.service.describe
    run.wait(f"{reads} {describe} calls from the worker (the task polling)",
             lambda: run.emu.calls(describe) - run.emu.proxy.async_calls.get(describe, 0) >= reads)
    run.proof(f"worker polling ({describe} x{run.emu.calls(describe)})")


def _wait_trigger_polling(run: AwsCellRun) -> dict[str, Any]:
    describe = run.emu.service.describe
    ti = run.wait("the task deferred, its trigger assigned", run._deferred_assigned)
    seen = run.emu.proxy.async_calls.get(describe, 0)
    run.wait(f"the trigger polling {describe}", lambda: run.emu.proxy.async_calls.get(describe, 0) > seen)
    run.proof(f"deferred; trigger {ti['trigger']['id']} on triggerer job {ti['trigger']['triggerer_id']} "
              f"polling {describe}")
    return ti


def _succeed(run: AwsCellRun, job: Any) -> str:
    """Let the pinned job go and read it through moto until it has succeeded; its state."""
    _unpin(job)
    done = SUCCEEDED[run.cell.scenario.vendor]
    return run.wait(f"the job to reach {sorted(done)} on moto's side",
                    lambda: s if (s := run.emu.jobs()[0]["status"]) in done else None, 30, 0.25)


# ---------------------------------------------------------------------- drivers
def aws_w5_sync(run: AwsCellRun) -> None:
    """The job succeeds on AWS while the worker's status read is held; the worker is SIGKILLed there."""
    job = _pinned_job(run)
    _wait_sync_polling(run)
    describe = run.emu.service.describe
    held = run.emu.proxy.hold(describe)
    run.wait(f"the worker's next {describe} parked", held.parked.is_set)
    run.proof(f"vendor: job {_succeed(run, job)} while the worker's {describe} is held")
    run.proof(run.describe_store())
    run.kill_worker()
    run.emu.release(abandon=True)


def aws_w5_deferrable(run: AwsCellRun) -> None:
    """The trigger sees the job succeed; the worker is SIGKILLed inside execute_complete (its read held).

    The job stays pinned until the scheduler has taken in the deferring process's exit (the race
    crash_scenarios.w5_deferrable describes); then it is let go and succeeds at the trigger's reads.
    """
    job = _pinned_job(run)
    _wait_trigger_polling(run)
    run.wait("the scheduler to take in the deferring process's exit", lambda: run.scheduler_saw_exit(1), 60, 0.5)
    read = COMPLETE_READS[run.cell.scenario.vendor]
    complete = run.emu.proxy.hold(read)
    _unpin(job)
    run.wait(f"{read} parked (the worker inside execute_complete)", complete.parked.is_set, 120)
    state = _peek(job)
    if state not in SUCCEEDED[run.cell.scenario.vendor]:
        raise StackError(f"{run.cell.id}: window missed: the job is {state} in execute_complete")
    run.proof(f"vendor: job {state}; worker inside execute_complete ({read} held)")
    run.proof(run.describe_store())
    run.kill_worker()
    run.emu.release(abandon=True)


def aws_sigterm_sync(run: AwsCellRun) -> None:
    """Evicted while polling: SIGTERM, the grace, SIGKILL; the job still running on AWS."""
    job = _pinned_job(run)
    _wait_sync_polling(run)
    run.proof(f"vendor: job {_active(run, job)}; " + run.describe_store())
    run.evict_worker()
    _unpin(job)


def aws_sigterm_deferrable(run: AwsCellRun) -> None:
    """Evicted before defer(): the submit's reply held after AWS created the job (the deferrable path's
    only stretch in a worker once the job exists; while deferred there is no worker to evict)."""
    service = run.emu.service
    run.emu.hold_submit()
    run.trigger()
    run.wait(f"{service.submit} parked after moto created the job", run.emu.held)
    created = run.emu.created()
    if len(created) != 1:
        raise StackError(f"{run.cell.id}: {len(created)} jobs created at the held {service.submit}")
    run.proof(f"held {service.submit} (after AWS created job {created[0]}) with the reply unsent")
    run.proof(run.describe_store())
    run.evict_worker()
    run.emu.release(abandon=True)


def aws_mark_failed_sync(run: AwsCellRun) -> None:
    """The user marks the task failed while it polls (the job pinned: running)."""
    job = _pinned_job(run)
    _wait_sync_polling(run)
    run.proof(f"vendor: job {_active(run, job)}")
    procs = run.task_procs()
    run.mark_failed("running")
    run.wait("the killed try's task runner to exit", lambda: not procs[1].is_running(), 60)
    _unpin(job)


def aws_mark_failed_deferred(run: AwsCellRun) -> None:
    """The user marks the task failed while it is deferred (the job pinned: running)."""
    job = _pinned_job(run)
    ti = _wait_trigger_polling(run)
    run.proof(f"vendor: job {_active(run, job)}")
    run.mark_failed("deferred")
    run.wait_kill_handled(ti["trigger"]["triggerer_id"])
    _unpin(job)


def aws_rows(key: str, label: str) -> list[Scenario]:
    """W2, W5, SIGTERM and MARK-FAILED, sync and deferrable, for the AWS service ``key``."""
    service = SERVICES[key]
    name, submit = service.name, service.submit.split(":")[1]
    return [
        Scenario(f"{label}-W2", f"{name}: worker SIGKILL after AWS accepted {submit}, before the id reached the store",
                 {"sync": aws_w2, "deferrable": aws_w2}, vendor=key),
        Scenario(f"{label}-W5", f"{name}: worker SIGKILL after the job succeeded (sync: its status read held; "
                 "deferrable: in execute_complete)", {"sync": aws_w5_sync, "deferrable": aws_w5_deferrable},
                 vendor=key, task={"reads_output": True}),
        Scenario(f"{label}-SIGTERM", f"{name}: worker SIGTERM (eviction), 4 s grace, then SIGKILL (sync: while "
                 f"polling; deferrable: {submit}'s reply in flight, before defer())",
                 {"sync": aws_sigterm_sync, "deferrable": aws_sigterm_deferrable}, vendor=key),
        Scenario(f"{label}-MARK-FAILED", f"{name}: user marks the task failed (sync: while polling; deferrable: "
                 "while deferred)", {"sync": aws_mark_failed_sync, "deferrable": aws_mark_failed_deferred},
                 expect_cancels=1, expect_state="failed", expect_min_try=1, expect_max_try=1, vendor=key),
    ]


AWS_ROW_SCENARIOS: list[Scenario] = [*aws_rows("glue", "GLUE"), *aws_rows("emr_serverless", "EMR-SERVERLESS")]
