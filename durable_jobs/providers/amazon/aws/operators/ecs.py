"""Drop-in durable ``EcsRunTaskOperator``: each ECS task is run exactly once (``RunTask`` ``clientToken``).

Change one import line::

    from airflow.providers.amazon.aws.operators.ecs import EcsRunTaskOperator
    from durable_jobs.providers.amazon.aws.operators.ecs import EcsRunTaskOperator

Same arguments, template fields, XComs (``ecs_task_arn`` when ``do_xcom_push``; the return value is the
last CloudWatch log line as upstream's, or None) and behaviour as amazon-provider 9.39's, plus
``durable``, ``cancel_on_kill`` and ``fresh_on_clear``. How the key travels:
``durable_jobs.providers.amazon.aws.clients.ecs``.

``reattach`` keeps the meaning upstream gave it ("check if the task previously launched by the
task_instance is already running. If so, the operator will attach to it instead of starting a new
task"): ``startedBy`` is upstream's deterministic id of the task instance, and a try that finds no
record of ours (the first try after the import was switched, or ``durable=False``) attaches to a task
of that id still RUNNING, as upstream does. With a record, the record decides, and it also covers
what upstream's reattach cannot: a task that already stopped (its outcome is returned, not run again)
and ``reattach=False``.

Differences from the official operator, on purpose:

* ``on_kill`` stops the task only when a *user* stopped the Airflow task (``cancel_on_kill="user"``),
  on both paths; upstream stops it on any kill of the synchronous path, never when deferred.
* The synchronous wait polls ``DescribeTasks`` every ``waiter_delay`` seconds under the shared fault
  policy instead of botocore's ``tasks_stopped`` waiter; ``waiter_max_attempts`` bounds both paths.
* ``stop_task_on_failure`` applies where upstream's ``WaiterError`` would: when the wait gives up.
"""

from __future__ import annotations

from time import sleep
from typing import TYPE_CHECKING, Any

from airflow.providers.amazon.aws.operators import ecs as _ecs
from airflow.providers.amazon.aws.utils.identifiers import generate_uuid

from durable_jobs.core.exceptions import JobSubmitError
from durable_jobs.core.signature import with_official_signature
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.amazon.aws.clients.ecs import EcsJobClient
from durable_jobs.providers.amazon.aws.operators.base_aws import AwsDurableMixin
from durable_jobs.shims import NEVER_EXPIRE

if TYPE_CHECKING:
    from airflow.sdk import Context


class EcsRunTaskOperator(AwsDurableMixin, _ecs.EcsRunTaskOperator):
    """The official ``EcsRunTaskOperator``, running each ECS task exactly once."""

    __init__ = with_official_signature(_ecs.EcsRunTaskOperator)
    external_id_key = "ecs_task_arn"
    official_event_id_keys = ("task_arn",)
    poll_interval_argument = "waiter_delay"
    #: upstream's ``startedBy`` with ``reattach`` (a deterministic id of the task instance), set in ``execute``
    _dj_started_by: str | None = None

    def make_job_client(self) -> EcsJobClient:
        client = EcsJobClient(self.aws_conn_id, cluster=self.cluster,
                              started_by=self._dj_started_by or self.owner, **self._client_kwargs())
        client.conn_source = lambda: self.client  # upstream's client in the worker (one session, one config)
        return client

    def accepted_result(self, context: Context, job_id: Any) -> Any:
        return None  # upstream returns nothing when it does not wait

    # ----------------------------------------------------------------- reattach, as upstream meant it
    def execute(self, context: Context) -> Any:
        if self._aws_logs_enabled() and not self.wait_for_completion:
            self.log.warning("Trying to get logs without waiting for the task to complete is undefined behavior.")
        self.log.info("Running ECS Task - Task definition: %s - on cluster %s", self.task_definition, self.cluster)
        self.log.info("EcsOperator overrides: %s", self.overrides)
        if self.reattach:
            ti = context["ti"]
            self._dj_started_by = generate_uuid(*map(str, [ti.dag_id, ti.task_id, ti.run_id, ti.map_index]))
            self.__dict__.pop("job_client", None)  # startedBy is part of the client (find scans by it)
            store = self._store(context)
            if store is None or self._read(store) is None:
                self.log.info("Try to find run with startedBy=%r", self._dj_started_by)
                running = self._running_task_of(self._dj_started_by)
                if running and store is None:
                    self._job_id = running
                    self.on_job_known(context, running, reconnected=True)
                    return self._after_submit(context, None, None, running)  # type: ignore[arg-type]
                if running and store is not None:  # a bare id, as upstream would store it: reconnect to it
                    store.set(self.external_id_key, running, retention=NEVER_EXPIRE)
        return self.execute_resumable(context)

    def _running_task_of(self, started_by: str) -> str | None:
        """Upstream's ``_try_reattach_task``: a RUNNING task of this task instance's ``startedBy``."""
        arns = self.call_vendor(None, lambda: self.client.list_tasks(
            cluster=self.cluster, desiredStatus="RUNNING", startedBy=started_by)["taskArns"])
        if len(arns) > 1:
            self.log.warning("Found more then one previously launched tasks: %s", arns)
        if arns:
            self.log.info("Reattaching previously launched task: %s", arns[0])
            return str(arns[0])
        self.log.info("No active previously launched task found to reattach")
        return None

    # ----------------------------------------------------------------- the request and what follows it
    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        """Upstream ``_start_task``'s ``run_opts``, field by field (the token and our tag are the client's)."""
        run_opts: dict[str, Any] = {
            "cluster": self.cluster, "taskDefinition": self.task_definition, "overrides": self.overrides,
            "startedBy": self._dj_started_by or self.owner,
        }
        if self.capacity_provider_strategy:
            run_opts["capacityProviderStrategy"] = self.capacity_provider_strategy
        elif self.launch_type:
            run_opts["launchType"] = self.launch_type
        optional = {
            "volumeConfigurations": self.volume_configurations, "platformVersion": self.platform_version,
            "group": self.group, "placementConstraints": self.placement_constraints,
            "placementStrategy": self.placement_strategy, "networkConfiguration": self.network_configuration,
            "propagateTags": self.propagate_tags,
        }
        run_opts.update({k: v for k, v in optional.items() if v is not None})
        if self.tags is not None:
            run_opts["tags"] = [{"key": k, "value": v} for (k, v) in self.tags.items()]
        return run_opts

    def _submit(
        self, context: Context, store: Any, record: Any, *, fresh_key: bool, first_contact: bool = False
    ) -> Any:
        """Upstream's ``EcsOperatorError`` when ECS answers RunTask with ``failures`` (nothing was started)."""
        from airflow.providers.amazon.aws.exceptions import EcsOperatorError

        try:
            return super()._submit(context, store, record, fresh_key=fresh_key, first_contact=first_contact)
        except JobSubmitError as err:
            if isinstance(err.__cause__, EcsOperatorError):
                raise err.__cause__ from err
            raise

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        self.arn = job_id
        self.log.info("ECS task ID is: %s", self._get_ecs_task_id(job_id))
        if self.do_xcom_push and context:
            context["ti"].xcom_push(key="ecs_task_arn", value=job_id)
        if not reconnected and not self.container_name and (self.awslogs_group and self.awslogs_stream_prefix):
            # upstream, after starting a task (not after reattaching): 10 s, then 30 s, for the first
            # container's name, which the log stream needs
            for delay in (10, 30):
                sleep(delay)
                task = self.call_vendor(job_id, lambda: self.client.describe_tasks(
                    cluster=self.cluster, tasks=[job_id])["tasks"][0])
                containers = task.get("containers", [])
                if containers:
                    self.container_name = containers[0]["name"]
                if self.container_name:
                    break
            if not self.container_name:
                self.log.info("Could not find container name, required for the log stream after 2 tries")

    def wait_for_job(self, context: Context, job_id: Any) -> JobStatus:
        """Upstream's synchronous wait streams the task's CloudWatch logs meanwhile: so does ours."""
        if not self._aws_logs_enabled():
            return super().wait_for_job(context, job_id)
        self.log.info("Starting ECS Task Log Fetcher")
        self.task_log_fetcher = self._get_task_log_fetcher()
        self.task_log_fetcher.start()
        try:
            return super().wait_for_job(context, job_id)
        finally:
            self.task_log_fetcher.stop()
            self.task_log_fetcher.join()

    def max_polls(self) -> int:
        return max(1, int(self.waiter_max_attempts))

    def on_poll_limit(self, job_id: Any) -> None:
        from airflow.providers.common.compat.sdk import AirflowException

        if self.stop_task_on_failure:
            self.log.warning("Attempting termination of ECS task %s.", job_id)
            try:
                self.job_client.cancel(job_id)
            except Exception:  # noqa: BLE001 - as upstream: report, then fail
                self.log.exception("Failed while attempting to stop ECS task %s", job_id)
        raise AirflowException(f"Waiter tasks_stopped failed: Max attempts exceeded ({job_id}, "
                               f"waiter_max_attempts={self.waiter_max_attempts})")

    def job_result(self, context: Context, job_id: Any) -> Any:
        """Upstream's check (``_after_execution``) and return value: the last log line, or None."""
        self.arn = job_id
        self._after_execution()
        if self.deferrable or self._dj_from_trigger:
            if not self._aws_logs_enabled():
                return None
            logs = _ecs.AwsLogsHook(aws_conn_id=self.aws_conn_id, region_name=self.resolve_awslogs_region(),
                               verify=self.verify, config=self.botocore_config).conn
            events = logs.get_log_events(logGroupName=self.awslogs_group,
                                         logStreamName=self._get_logs_stream_name(), startFromHead=False,
                                         limit=1)["events"]
            return events[0]["message"] if events else None
        if self.do_xcom_push and self.task_log_fetcher:
            return self.task_log_fetcher.get_last_log_message()
        return None

    _dj_from_trigger = False

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        self._dj_from_trigger = True  # upstream's execute_complete returns the last log line
        return super().execute_complete(context, event)

    def restore_from_echo(self, echo: dict[str, Any]) -> None:
        """Upstream's ``TaskDoneTrigger`` event names the cluster; upstream restores it from there."""
        if echo.get("cluster") and echo["cluster"] != self.cluster:
            self.cluster = echo["cluster"]
            self.__dict__.pop("job_client", None)

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        """Upstream's own exception for a stopped task (``AirflowSkipException`` for ``skip_on_exit_code``)."""
        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        self.arn = job_id
        try:
            self._check_success_task()
        except Exception as err:  # noqa: BLE001 - upstream's exceptions, returned for the mixin to raise
            return err
        return super().failure_error(context, job_id, status)

    def on_kill(self) -> None:
        if self.task_log_fetcher:
            self.task_log_fetcher.stop()
        super().on_kill()
