"""moto in server mode on 127.0.0.1, plus the AWS rules moto lacks (``MOTO_GAPS``).

moto answers over real HTTP, so the tests go through boto3/botocore/aiobotocore and the official
amazon-provider hooks unchanged. Where moto does not model a rule the durable operators rely on,
this module adds it while the server runs (and removes it on ``stop()``), rather than a test
skipping the rule. Every addition is listed in ``MOTO_GAPS`` — tests cite the entry they rely on.

Job life cycles run on moto's own state manager (``moto.moto_api.state_manager``), so a test can
keep a job RUNNING (``hold``), let it progress every ``step`` seconds (``progress``), or finish it
(``finish``). Outcome markers: a Batch job whose command is ``["false"]``, a Glue job whose script
location contains ``fail``, an EMR Serverless run whose ``entryPoint`` contains ``fail`` and an Athena
query whose text contains ``fail`` end FAILED; everything else ends in success.

Nothing here imports Airflow.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from durable_jobs.testing.emulators import aws_moto_emr_containers as _emr_containers_gaps
from durable_jobs.testing.emulators import aws_moto_emr_steps as _emr_steps_gaps
from durable_jobs.testing.emulators import aws_moto_redshift_data as _rsd_gaps
from durable_jobs.testing.emulators import aws_moto_sagemaker as _sagemaker_gaps
from durable_jobs.testing.emulators import aws_moto_stepfunctions as _sfn_gaps
from durable_jobs.testing.emulators._moto_state import as_datetime, graft_managed_state

if TYPE_CHECKING:
    from moto.server import ThreadedMotoServer

MOTO_GAPS: dict[str, str] = {
    "batch-instant-success": (
        "moto's non-Docker Batch (use_docker: false) marks every job SUCCEEDED inside SubmitJob. We leave "
        "the job to moto's state manager (model 'batch::job'): SUBMITTED → PENDING → RUNNABLE → STARTING "
        "→ RUNNING → SUCCEEDED/FAILED, so a job can stay RUNNING."
    ),
    "batch-terminate": (
        "without Docker nothing ends a terminated job; TerminateJob/CancelJob now end it FAILED with the "
        "given statusReason, as AWS does."
    ),
    "glue-batch-stop-job-run": "moto has no BatchStopJobRun; ours stops the runs (state STOPPED).",
    "emr-serverless-state-machine": (
        "moto creates every EMR Serverless job run in state SUCCESS with no life cycle; ours run SUBMITTED → "
        "SCHEDULED → RUNNING → SUCCESS/FAILED on the state manager (model 'emr-serverless::job_run'), and "
        "CancelJobRun ends them CANCELLED."
    ),
    "emr-serverless-client-token": (
        "moto ignores StartJobRun's clientToken (every call makes a new run). AWS's reference says only 'The "
        "client idempotency token of the job run to start. Its value must be unique for each request.': not what "
        "a resend under a used token answers, nor for how long. Ours returns the run already started under the "
        "token (what an idempotency token implies; durable-jobs finds the run by its tag before it resends)."
    ),
    "emr-serverless-created-at": (
        "moto truncates a job run's createdAt to midnight and compares ListJobRuns' createdAtAfter/Before "
        "strings with datetimes (HTTP 500); ours keeps the real time and parses the filters."
    ),
    "athena-client-request-token": (
        "moto ignores StartQueryExecution's ClientRequestToken (every call makes a new query). AWS: 'If another "
        "StartQueryExecution request is received, the same response is returned and another query is not "
        "created. An error is returned if a parameter, such as QueryString, has changed.' Ours returns the query "
        "already started under the token, and for a token resent with any other parameter changed answers "
        "InvalidRequestException 'Idempotent parameters do not match' (the reference names no error code; that "
        "text is what users report from AWS, DyfanJones/noctua#104). How long AWS remembers a token is not "
        "documented; ours remembers it until moto is reset."
    ),
    "athena-life-cycle": (
        "moto's queries run QUEUED -> RUNNING -> SUCCEEDED on the state manager (model 'athena::execution') but "
        "never fail; ours end FAILED, with a StateChangeReason, when the query text contains 'fail'."
    ),
    "athena-stop-query-execution": (
        "moto's StopQueryExecution marks any query CANCELLED, finished or not; ours cancels QUEUED/RUNNING "
        "queries only (AWS: CANCELLED 'indicates that a user input interrupted query execution'; the reference "
        "does not say what stopping a finished query does, so ours leaves its state alone)."
    ),
    "athena-unknown-id": (
        "moto answers GetQueryExecution and StopQueryExecution for an unknown id with HTTP 500 (a KeyError); "
        "ours answers 400 InvalidRequestException 'QueryExecution <id> was not found', moto's own wording in "
        "GetQueryRuntimeStatistics. The reference lists InvalidRequestException for both operations but does "
        "not say which error an unknown id gets."
    ),
    "athena-batch-get-query-execution": (
        "moto has no BatchGetQueryExecution. Ours describes each id as GetQueryExecution does, up to 50 "
        "('Maximum number of 50 items'; more: InvalidRequestException, the reference names no code), and lists "
        "unknown ids under UnprocessedQueryExecutionIds (ErrorCode InvalidRequestException: the reference does "
        "not say which code AWS uses there)."
    ),
    "ecs-client-token": (
        "moto ignores RunTask's clientToken (every call runs new tasks). AWS ('Ensuring idempotency'): 'If you retry "
        "a request that completed successfully using the same client token and the same parameters, the retry "
        "succeeds without performing any further actions'; RunTask: 'If you get a ConflictException error, the "
        "RunTask request could not be processed due to conflicts. The provided clientToken is already in use with a "
        "different RunTask request. The resourceIds are the existing task ARNs which are already associated with "
        "the clientToken.' Ours returns the tasks already run under the token in that cluster, and for the token "
        "resent with other parameters answers ConflictException with their resourceIds. Ours remembers a token "
        "until moto is reset (AWS: 24 hours, per the page's RunTask section)."
    ),
    "ecs-task-life-cycle": (
        "moto's tasks go RUNNING -> ... -> STOPPED on the state manager (model 'ecs::task'), but their containers "
        "stay PENDING with exit code 0, the task has no createdAt/stoppedAt/stopCode and its desiredStatus stays "
        "RUNNING (so the official operator's success check reads every task as 'still pending'). Ours: containers "
        "follow the task, a stopped task's containers are STOPPED with exit code 0, or 1 when the container's "
        "command (override or task definition) is ['false']; stopCode EssentialContainerExited, desiredStatus "
        "STOPPED. StopTask gives stopCode UserInitiated and containers STOPPED without an exit code (the reference "
        "does not say which code a stopped container reports)."
    ),
    "ecs-describe-missing": (
        "moto's DescribeTasks leaves an unknown task out with no failure. AWS ('API failure reasons'): DescribeTasks "
        "MISSING, 'The specified task wasn't found.' Ours adds {'arn': <arn>, 'reason': 'MISSING'} to failures."
    ),
    "duplicate-names": (
        "AWS itself accepts duplicate Batch job names and any number of Glue runs with the same arguments; "
        "so does moto. Not a gap: it is why find(key) must confirm by tag/argument."
    ),
}

BATCH_MODEL = "batch::job"
GLUE_MODEL = "glue::job_run"
EMR_MODEL = "emr-serverless::job_run"
ATHENA_MODEL = "athena::execution"
ECS_MODEL = "ecs::task"
#: The services whose rules live in a module of their own (``aws_moto_<service>``: its ``GAPS``, its ``MODEL``,
#: its ``install``), merged here: Step Functions, Redshift Data, EMR on EKS, EMR steps (EmrAddStepsOperator),
#: SageMaker training/processing/transform jobs.
_SERVICE_RULES = (_sfn_gaps, _rsd_gaps, _emr_containers_gaps, _emr_steps_gaps, _sagemaker_gaps)
for _rules in _SERVICE_RULES:
    MOTO_GAPS.update(_rules.GAPS)
SFN_MODEL = _sfn_gaps.MODEL
REDSHIFT_DATA_MODEL = _rsd_gaps.MODEL
EMR_CONTAINERS_MODEL = _emr_containers_gaps.MODEL
EMR_STEP_MODEL = _emr_steps_gaps.MODEL
SAGEMAKER_MODEL = _sagemaker_gaps.MODEL
MODELS: tuple[str, ...] = (BATCH_MODEL, GLUE_MODEL, EMR_MODEL, ATHENA_MODEL, ECS_MODEL,
                           *(_rules.MODEL for _rules in _SERVICE_RULES))
#: An Athena query whose text contains this ends FAILED (``athena-life-cycle``).
ATHENA_FAIL_MARKER = "fail"
ATHENA_BATCH_LIMIT = 50

_patch_lock = threading.Lock()
_patches: list[tuple[Any, str, Any]] = []


def _patch(owner: Any, name: str, value: Any) -> None:
    _patches.append((owner, name, owner.__dict__.get(name, _MISSING)))
    setattr(owner, name, value)


_MISSING = object()


def install_gap_rules() -> None:
    """Add the rules in ``MOTO_GAPS`` to the moto classes of this process (idempotent)."""
    with _patch_lock:
        if _patches:
            return
        _install_batch()
        _install_glue()
        _install_emr_serverless()
        _install_athena()
        _install_ecs()
        for rules in _SERVICE_RULES:
            rules.install(_patch)


def uninstall_gap_rules() -> None:
    with _patch_lock:
        while _patches:
            owner, name, old = _patches.pop()
            if old is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, old)


def _install_batch() -> None:
    from moto.batch.models import Job
    from moto.batch_simple.models import BatchSimpleBackend

    def _mark_job_as_finished(self, include_start_attempt: bool, job: Job) -> None:
        self.backend._jobs[job.job_id] = job
        job.job_started_at = datetime.now()
        job.log_stream_name = job._stream_name
        if include_start_attempt:
            job._start_attempt()
        command = (job.container_overrides or {}).get("command") or (
            (job.job_definition.container_properties or {}).get("command")
        )
        end = "FAILED" if command == ["false"] else "SUCCEEDED"
        job._transitions = [(_plain(a), _plain(b)) for a, b in job._transitions] + [("RUNNING", end)]

    original_terminate = Job.terminate

    def terminate(self, reason: str) -> None:
        original_terminate(self, reason)
        if not self.is_alive() and self.status not in ("SUCCEEDED", "FAILED"):
            self._mark_stopped(success=False)

    _patch(BatchSimpleBackend, "_mark_job_as_finished", _mark_job_as_finished)
    _patch(Job, "terminate", terminate)


def _plain(state: Any) -> Any:
    return getattr(state, "value", state)  # moto mixes str-enum members into its transitions


def _install_glue() -> None:
    from moto.glue.models import FakeJob
    from moto.glue.responses import GlueResponse

    def batch_stop_job_run(self) -> str:
        job = self.glue_backend.get_job(self._get_param("JobName"))
        stopped, errors = [], []
        for run_id in self._get_param("JobRunIds") or []:
            run = next((r for r in job.job_runs if r.job_run_id == run_id), None)
            if run is None:
                errors.append({"JobName": job.name, "JobRunId": run_id,
                               "ErrorDetail": {"ErrorCode": "EntityNotFoundException", "ErrorMessage": run_id}})
                continue
            if run.status in ("STARTING", "RUNNING", "WAITING"):
                run.status = "STOPPED"
            stopped.append({"JobName": job.name, "JobRunId": run_id})
        return json.dumps({"SuccessfulSubmissions": stopped, "Errors": errors})

    original_start = FakeJob.start_job_run

    def start_job_run(self, *args: Any, **kwargs: Any) -> str:
        run_id = original_start(self, *args, **kwargs)
        if "fail" in str((self.command or {}).get("ScriptLocation", "")):
            run = next(r for r in self.job_runs if r.job_run_id == run_id)
            run._transitions = [("STARTING", "RUNNING"), ("RUNNING", "FAILED")]
        return run_id

    _patch(GlueResponse, "batch_stop_job_run", batch_stop_job_run)
    _patch(FakeJob, "start_job_run", start_job_run)


def _install_emr_serverless() -> None:
    from moto.emrserverless.models import EMRServerlessBackend, JobRun
    from moto.moto_api._internal.managed_state_model import ManagedState

    original_init = JobRun.__init__

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        entry = json.dumps(self.job_driver or {})
        end = "FAILED" if "fail" in entry else "SUCCESS"
        ManagedState.__init__(self, EMR_MODEL, [("SUBMITTED", "SCHEDULED"), ("SCHEDULED", "RUNNING"),
                                                ("RUNNING", end)])
        self.created_at = datetime.now(tz=timezone.utc)
        self.updated_at = self.created_at

    original_start = EMRServerlessBackend.start_job_run

    def start_job_run(self, application_id: str, client_token: str, *args: Any, **kwargs: Any) -> JobRun:
        for run in self.job_runs.get(application_id, []):
            if client_token and run.client_token == client_token:
                return run
        return original_start(self, application_id, client_token, *args, **kwargs)

    original_list = EMRServerlessBackend.list_job_runs

    def list_job_runs(self, application_id: str, created_at_after: Any, created_at_before: Any,
                      states: Any) -> list[JobRun]:
        runs = original_list(self, application_id, None, None, states)
        after, before = as_datetime(created_at_after), as_datetime(created_at_before)
        return [r for r in runs if (after is None or r.created_at > after)
                and (before is None or r.created_at < before)]

    _patch(EMRServerlessBackend, "list_job_runs", list_job_runs)
    _patch(JobRun, "__init__", __init__)
    graft_managed_state(_patch, JobRun, "state", plain_key="_plain_state")
    _patch(EMRServerlessBackend, "start_job_run", start_job_run)


def _install_athena() -> None:
    from moto.athena.models import AthenaBackend, Execution
    from moto.athena.responses import AthenaResponse

    original_init = Execution.__init__

    def __init__(self: Execution, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        if ATHENA_FAIL_MARKER in str(self.query).lower():
            self._transitions = [("QUEUED", "RUNNING"), ("RUNNING", "FAILED")]
            self.__dict__["_dj_reason"] = "GENERIC_USER_ERROR: the query failed (the emulator's 'fail' marker)"

    original_start = AthenaResponse.start_query_execution

    def start_query_execution(self: AthenaResponse) -> Any:
        token = self._get_param("ClientRequestToken")
        params = {k: v for k, v in json.loads(self.body or "{}").items() if k != "ClientRequestToken"}
        seen: dict[str, tuple[str, dict[str, Any]]] = self.athena_backend.__dict__.setdefault("_dj_tokens", {})
        if token and token in seen:
            exec_id, first = seen[token]
            if first != params:
                return self.error("Idempotent parameters do not match", 400)
            return json.dumps({"QueryExecutionId": exec_id})
        answer = original_start(self)
        if token and not isinstance(answer, tuple):
            seen[token] = (json.loads(answer)["QueryExecutionId"], params)
        return answer

    original_get = AthenaResponse.get_query_execution

    def get_query_execution(self: AthenaResponse) -> Any:
        exec_id = self._get_param("QueryExecutionId")
        execution = self.athena_backend.executions.get(exec_id)
        if execution is None:
            return self.error(f"QueryExecution {exec_id} was not found", 400)
        body = json.loads(original_get(self))
        status = body["QueryExecution"]["Status"]
        if status["State"] == "FAILED" and "_dj_reason" in execution.__dict__:
            status["StateChangeReason"] = execution.__dict__["_dj_reason"]
        return json.dumps(body)

    def batch_get_query_execution(self: AthenaResponse) -> Any:
        ids = self._get_param("QueryExecutionIds") or []
        if len(ids) > ATHENA_BATCH_LIMIT:
            return self.error(f"QueryExecutionIds has {len(ids)} items; the maximum is {ATHENA_BATCH_LIMIT}", 400)
        found, unprocessed, body = [], [], self.body
        try:
            for exec_id in ids:
                self.body = json.dumps({"QueryExecutionId": exec_id})
                answer = get_query_execution(self)
                if isinstance(answer, tuple):
                    unprocessed.append({"QueryExecutionId": exec_id, "ErrorCode": "InvalidRequestException",
                                        "ErrorMessage": f"QueryExecution {exec_id} was not found"})
                else:
                    found.append(json.loads(answer)["QueryExecution"])
        finally:
            self.body = body
        return json.dumps({"QueryExecutions": found, "UnprocessedQueryExecutionIds": unprocessed})

    original_stop = AthenaResponse.stop_query_execution

    def stop_query_execution(self: AthenaResponse) -> Any:
        exec_id = self._get_param("QueryExecutionId")
        if exec_id not in self.athena_backend.executions:
            return self.error(f"QueryExecution {exec_id} was not found", 400)
        return original_stop(self)

    def backend_stop(self: AthenaBackend, exec_id: str) -> None:
        execution = self.executions[exec_id]
        if execution.status in ("QUEUED", "RUNNING"):
            execution.status = "CANCELLED"

    _patch(Execution, "__init__", __init__)
    _patch(AthenaResponse, "start_query_execution", start_query_execution)
    _patch(AthenaResponse, "get_query_execution", get_query_execution)
    _patch(AthenaResponse, "batch_get_query_execution", batch_get_query_execution)
    _patch(AthenaResponse, "stop_query_execution", stop_query_execution)
    _patch(AthenaBackend, "stop_query_execution", backend_stop)


def _install_ecs() -> None:
    from moto.core.exceptions import ServiceException
    from moto.core.responses import ActionResult
    from moto.ecs.models import EC2ContainerServiceBackend, Task
    from moto.ecs.responses import DESCRIBE_TASKS_TAGS, EC2ContainerServiceResponse

    # moto serialises an error by the service of its exception's module: this one is ECS's
    _EcsConflict = type("ConflictException", (ServiceException,),
                        {"__module__": "moto.ecs.exceptions", "code": "ConflictException"})

    original_init = Task.__init__

    def __init__(self: Task, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        self.__dict__["created_at"] = datetime.now(tz=timezone.utc)  # serialised as createdAt
        commands = [c.get("command") for c in (self.overrides or {}).get("containerOverrides") or []]
        commands += [c.command for c in self.containers]
        self.__dict__["_dj_exit"] = 1 if ["false"] in commands else 0

    # moto advances a task's lastStatus by time *when it is read*: read once by _sync, again when the response is
    # serialised, a task could be answered STOPPED with its containers still RUNNING (no exit code: "succeeded"),
    # which ECS never answers. Each DescribeTasks pins the status _sync read, for the serialiser to read again.
    pin_seconds = 2.0

    def get_last_status(task: Task) -> str:
        pinned = task.__dict__.get("_dj_pinned")
        if pinned is not None and pinned[1] > time.monotonic():
            return pinned[0]
        return task.status  # type: ignore[return-value]  # moto's managed state

    def set_last_status(task: Task, value: str) -> None:
        task.__dict__.pop("_dj_pinned", None)
        task.status = value

    def _sync(task: Task) -> None:
        """Containers follow their task (``ecs-task-life-cycle``)."""
        status = task.status  # advances by time, once for this answer
        task.__dict__["_dj_pinned"] = (status, time.monotonic() + pin_seconds)
        stopped = status in ("STOPPED", "DELETED")
        for container in task.containers:
            if not stopped:
                container.last_status = "PENDING" if status in ("PROVISIONING", "PENDING") else "RUNNING"
            elif container.last_status != "STOPPED":
                container.last_status = "STOPPED"
                container.exitCode = task.__dict__.get("_dj_exit", 0)
        if stopped:
            task.desired_status = "STOPPED"
            task.__dict__.setdefault("stop_code", "EssentialContainerExited")
            task.__dict__.setdefault("stopped_at", datetime.now(tz=timezone.utc))

    original_describe = EC2ContainerServiceBackend.describe_tasks

    def describe_tasks(self: EC2ContainerServiceBackend, cluster_str: str, tasks: list[str]) -> list[Task]:
        found = original_describe(self, cluster_str, tasks)
        for task in found:
            _sync(task)
        return found

    original_stop = EC2ContainerServiceBackend.stop_task

    def stop_task(self: EC2ContainerServiceBackend, cluster_str: str, task_str: str, reason: str) -> Task:
        task = original_stop(self, cluster_str, task_str, reason)
        if "stop_code" not in task.__dict__:
            task.__dict__.update(stop_code="UserInitiated", stopped_at=datetime.now(tz=timezone.utc))
            for container in task.containers:
                container.last_status = "STOPPED"
                container.__dict__["exitCode"] = None
        return task

    original_run = EC2ContainerServiceResponse.run_task

    def run_task(self: EC2ContainerServiceResponse) -> Any:
        token = self._get_param("clientToken")
        if not token:
            return original_run(self)
        cluster = str(self._get_param("cluster", "default")).rpartition("/")[2]
        params = {k: v for k, v in json.loads(self.body or "{}").items() if k != "clientToken"}
        seen: dict[tuple[str, str], tuple[list[str], dict[str, Any]]] = self.ecs_backend.__dict__.setdefault(
            "_dj_tokens", {})
        if (cluster, token) in seen:
            arns, first = seen[(cluster, token)]
            if first != params:
                conflict = _EcsConflict("The specified client token has already been used in a different RunTask "
                                        "request.")
                conflict.resourceIds = arns  # a member of the error's model, serialised by moto
                raise conflict
            tasks = [t for t in self.ecs_backend.tasks.get(cluster, {}).values() if t.task_arn in arns]
            return ActionResult({"tasks": tasks, "failures": []})
        answer = original_run(self)
        result: Any = answer.result if isinstance(answer, ActionResult) else {}
        tasks = result.get("tasks", [])
        seen[(cluster, token)] = ([t.task_arn for t in tasks], params)
        return answer

    def describe_tasks_response(self: EC2ContainerServiceResponse) -> ActionResult:
        cluster = self._get_param("cluster", "default")
        task_ids = self._get_param("tasks", [])
        tasks = self.ecs_backend.describe_tasks(cluster, task_ids)
        if "TAGS" in self._get_param("include", []):
            self._include_in_response(DESCRIBE_TASKS_TAGS)
        else:
            self._exclude_from_response(DESCRIBE_TASKS_TAGS)
        known = {t.task_arn for t in tasks} | {t.id for t in tasks}
        failures = [{"arn": i, "reason": "MISSING"} for i in task_ids if i not in known and i.rpartition("/")[2]
                    not in known]
        return ActionResult({"tasks": tasks, "failures": failures})

    _patch(Task, "__init__", __init__)
    _patch(Task, "last_status", property(get_last_status, set_last_status))
    _patch(EC2ContainerServiceBackend, "describe_tasks", describe_tasks)
    _patch(EC2ContainerServiceBackend, "stop_task", stop_task)
    _patch(EC2ContainerServiceResponse, "run_task", run_task)
    _patch(EC2ContainerServiceResponse, "describe_tasks", describe_tasks_response)


class MotoAws:
    """moto's ``ThreadedMotoServer`` on 127.0.0.1 with the gap rules; ``stop()`` undoes everything."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, step_seconds: float = 0.2):
        self.host = host
        self.port = port
        self.step_seconds = step_seconds
        self._server: ThreadedMotoServer | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("moto is not running: call start() first")
        host, port = self._server.get_host_and_port()
        return f"http://{host}:{port}"

    def start(self) -> MotoAws:
        from moto.server import ThreadedMotoServer

        install_gap_rules()
        server = self._server = ThreadedMotoServer(ip_address=self.host, port=self.port, verbose=False)
        server.start()
        self._post("/moto-api/config", {"batch": {"use_docker": False}})
        self.progress(step_seconds=self.step_seconds)
        return self

    def stop(self) -> None:
        from moto.moto_api import state_manager

        if self._server is not None:
            try:
                self._post("/moto-api/reset", None)
            finally:
                self._server.stop()
                self._server = None
        for model in MODELS:
            state_manager.unset_transition(model)
        uninstall_gap_rules()

    def __enter__(self) -> MotoAws:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _post(self, path: str, body: Any) -> None:
        data = json.dumps(body).encode() if body is not None else b""
        request = urllib.request.Request(self.url + path, data=data, method="POST")
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 - loopback only
            response.read()

    # ----------------------------------------------------------------- life-cycle controls
    def progress(self, *models: str, step_seconds: float | None = None) -> None:
        """Let jobs advance one state per read, at most every ``step_seconds``."""
        from moto.moto_api import state_manager

        for model in models or MODELS:
            state_manager.set_transition(model, {"progression": "time", "seconds": step_seconds or self.step_seconds})

    def hold(self, *models: str) -> None:
        """Keep jobs where they are (RUNNING stays RUNNING) until ``progress()`` or ``finish()``."""
        from moto.moto_api import state_manager

        for model in models or MODELS:
            state_manager.set_transition(model, {"progression": "manual", "times": 10**9})

    def finish(self, *models: str) -> None:
        """Jump every job to its end state at its next read."""
        from moto.moto_api import state_manager

        for model in models or MODELS:
            state_manager.set_transition(model, {"progression": "immediate"})

    def airflow_conn_uri(self, endpoint_url: str | None = None, region: str = "us-east-1") -> str:
        """An ``AIRFLOW_CONN_*`` value (JSON) pointing the official hooks at ``endpoint_url`` (default: moto)."""
        return json.dumps({
            "conn_type": "aws", "login": "testing", "password": "testing",
            "extra": {"region_name": region, "endpoint_url": endpoint_url or self.url},
        })
