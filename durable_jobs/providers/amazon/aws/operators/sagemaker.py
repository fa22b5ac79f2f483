"""Drop-in durable ``SageMakerTrainingOperator``, ``SageMakerProcessingOperator`` and ``SageMakerTransformOperator``.

Change one import line::

    from airflow.providers.amazon.aws.operators.sagemaker import SageMakerTrainingOperator
    from durable_jobs.providers.amazon.aws.operators.sagemaker import SageMakerTrainingOperator

Same arguments, template fields, extra links (Transform's job link) and return value as amazon-provider 9.39's:
the ``Describe*Job`` reply as upstream serializes it (``{"Training": ...}``, ``{"Processing": ...}`` plus
``OutputFiles``, ``{"Model": ..., "Transform": ...}``), on submit, reconnect and already-succeeded alike. How the
key travels (the job name) is in ``durable_jobs.providers.amazon.aws.clients.sagemaker``.

The job name. SageMaker names are unique per account and Region, so the name is the key: the name in the config
becomes ``<name>-<key>`` (the name trimmed to 30 characters; 63 in all). A retry after a crash describes that
name and reconnects; a retry after a failure is a new epoch, hence a new name (upstream's retry hits its own
failed job's name and renames it with a timestamp, or fails with ``action_if_job_exists="fail"``).
``action_if_job_exists`` keeps its meaning for names that are *not* ours: a keyed name carries 128 random bits,
so the only name someone else can hold is the bare one the user wrote. Before each new epoch, when
``check_if_job_exists`` (Processing: always, as upstream) is on, ``Describe*Job`` asks for that bare name: with
"fail" an existing job fails the task with upstream's message; with "timestamp" (the default) nothing needs
renaming, since the key already makes the name unique. A ``ResourceInUse`` under our keyed name is our own job
(a lost reply), never a reason to rename.

Differences from the official operators, on purpose:

* A user's kill (mark-failed, clear) stops the job (``Stop*Job``) on both paths (``cancel_on_kill="user"``);
  upstream never stops a SageMaker job: these operators have no ``on_kill`` and ``SageMakerTrigger`` none either.
* The synchronous wait polls ``Describe*Job`` every ``check_interval``; with ``print_log`` the training path
  logs SageMaker's secondary status messages each poll (upstream tails the job's CloudWatch streams there).
  ``max_ingestion_time`` bounds the wait on both paths (deferred, upstream makes it the deferral's timeout; ours
  counts it in polls of ``check_interval``), and deferred ``max_attempts`` polls (default 60) bound it as
  upstream's trigger does; the job may still run then, and the retry reconnects to it.
* A Stopped transform job fails the task on both paths (upstream's synchronous path treats it as done).
* A failed job raises upstream's "SageMaker job failed because <FailureReason>" on both paths.
"""

from __future__ import annotations

import math
import urllib.parse
from typing import TYPE_CHECKING, Any, ClassVar

from airflow.providers.amazon.aws.links.sagemaker import SageMakerTransformJobLink
from airflow.providers.amazon.aws.operators import sagemaker as _sm

from durable_jobs.core.exceptions import JobFailedError
from durable_jobs.core.faults import cap
from durable_jobs.core.signature import with_official_signature
from durable_jobs.core.status import JobPhase, JobStatus
from durable_jobs.providers.amazon.aws.clients.sagemaker import SageMakerJobClient, name_field
from durable_jobs.providers.amazon.aws.operators.base_aws import AwsDurableMixin

if TYPE_CHECKING:
    from airflow.sdk import Context


class _SageMakerJobMixin(AwsDurableMixin):
    """What the three SageMaker job operators share: the keyed name, the wait bounds, the failure text."""

    job_type: ClassVar[str] = "Training"
    poll_interval_argument = "check_interval"
    official_event_id_keys = ("job_name",)

    if TYPE_CHECKING:  # set by the official SageMakerBaseOperator subclasses
        aws_conn_id: str | None
        config: dict[str, Any]
        action_if_job_exists: str
        check_interval: int
        max_attempts: int
        max_ingestion_time: int | None
        hook: Any

        def preprocess_config(self) -> None: ...
        def _check_if_job_exists(self, job_name: str, describe_func: Any) -> bool: ...

    @property
    def wait_for_termination(self) -> bool:
        return bool(self.wait_for_completion)  # upstream ignores deferrable when it does not wait

    def make_job_client(self) -> SageMakerJobClient:
        return SageMakerJobClient(self.aws_conn_id, job_type=self.job_type, **self._client_kwargs())

    # ----------------------------------------------------------------- the name
    @property
    def job_config(self) -> dict[str, Any]:
        """The ``Create*Job`` request inside ``config`` (Transform may nest it under "Transform")."""
        return self.config

    def user_idempotency_token(self) -> str | None:
        """The name the user wrote (rendered): the keyed name starts with it."""
        config = self.job_config if isinstance(self.config, dict) else {}
        name = config.get(name_field(self.job_type))
        return str(name) if name else None

    @property
    def _checks_job_name(self) -> bool:
        return bool(getattr(self, "check_if_job_exists", True))

    def _check_bare_name(self) -> None:
        """Upstream's ``action_if_job_exists="fail"`` for the one name someone else can hold: the bare one."""
        from airflow.providers.common.compat.sdk import AirflowException

        name = self.user_idempotency_token()
        if not name or not self._checks_job_name or self.action_if_job_exists != "fail":
            return
        describe = getattr(self.hook, f"describe_{self.job_type.lower()}_job")
        if self._check_if_job_exists(name, describe):
            raise AirflowException(
                f"A SageMaker job with name {name} already exists. (action_if_job_exists='fail'; durable-jobs "
                f"names its job {name[:30]}-<key>, so use 'timestamp' to run next to that job.)"
            )

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        """Upstream's ``preprocess_config`` (integer fields, S3 operations, role), then the job's request."""
        self.preprocess_config()
        if fresh_key:
            self._check_bare_name()
        self.log.info("Creating SageMaker %s job %s.", self.job_type.lower(), self.user_idempotency_token())
        return dict(self.job_config)

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        """The keyed name goes into ``config`` where upstream keeps the name it used (lineage, output files)."""
        if isinstance(self.config, dict):
            self.job_config[name_field(self.job_type)] = job_id
        self.log.info("SageMaker %s job %s: %s", self.job_type.lower(),
                      "reconnected" if reconnected else "created", job_id)

    # ----------------------------------------------------------------- the wait
    def max_polls(self) -> int | None:
        """Deferred: upstream's trigger makes ``max_attempts`` checks; synchronously ``max_ingestion_time``."""
        ingestion = (max(1, math.ceil(self.max_ingestion_time / max(float(self.check_interval), 1e-3)))
                     if self.max_ingestion_time else None)
        if self.deferrable:  # upstream: the trigger's attempts, and max_ingestion_time as the deferral's timeout
            return min(max(1, int(self.max_attempts)), ingestion or int(self.max_attempts) or 1)
        return ingestion

    def on_poll_limit(self, job_id: Any) -> None:
        from airflow.providers.common.compat.sdk import AirflowException

        if self.deferrable:
            raise AirflowException(
                f"Error while running job: {self.job_type} job {job_id} still running after {self.max_attempts} "
                "checks (max_attempts). The job may still be running: the next try reconnects to it."
            )
        raise AirflowException(
            f"SageMaker job took more than {self.max_ingestion_time} seconds. Job {job_id} may still be running: "
            "the next try reconnects to it."
        )

    def on_poll(self, context: Context, job_id: Any, status: JobStatus) -> None:
        self.log.info("SageMaker %s job %s: current status is %s", self.job_type.lower(), job_id, status.state)

    def failure_error(self, context: Context, job_id: Any, status: JobStatus) -> Exception:
        if status.phase is JobPhase.MISSING:
            return super().failure_error(context, job_id, status)
        reason = cap(status.message, 2000) or "(No reason provided)"
        return JobFailedError(
            f"SageMaker job failed because {reason} ({self.job_type} job {job_id} is {status.state}). "
            "A retry creates a new job.", job_id=job_id, state=status.state,
        )

    def accepted_result(self, context: Context, job_id: Any) -> Any:
        """Upstream returns the same description when it does not wait (the job may still be running)."""
        return self.job_result(context, job_id)

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        if event is None:
            from airflow.providers.amazon.aws.utils import validate_execute_complete_event

            validate_execute_complete_event(event)  # upstream's "Trigger error: event is None"
        return super().execute_complete(context, event)


class SageMakerTrainingOperator(_SageMakerJobMixin, _sm.SageMakerTrainingOperator):  # type: ignore[misc]
    """The official ``SageMakerTrainingOperator``, creating each training job exactly once."""

    __init__ = with_official_signature(_sm.SageMakerTrainingOperator)
    job_type = "Training"
    external_id_key = "sagemaker_training_job_name"
    durable_request_fields = ("check_if_job_exists", "action_if_job_exists")

    def on_poll(self, context: Context, job_id: Any, status: JobStatus) -> None:
        if self.print_log and status.raw:
            from airflow.providers.amazon.aws.hooks.sagemaker import secondary_training_status_message

            self.log.info(secondary_training_status_message(dict(status.raw), None))
        super().on_poll(context, job_id, status)

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        request = super().prepare_request(context, fresh_key=fresh_key)
        self.hook.check_training_config(request)  # upstream's hook checks the S3 inputs before creating
        return request

    def job_result(self, context: Context, job_id: Any) -> Any:
        result = self.call_vendor(job_id, lambda: self.serialize_result(job_id))
        self.log.info("%s completed successfully.", self.task_id)
        return result


class SageMakerProcessingOperator(_SageMakerJobMixin, _sm.SageMakerProcessingOperator):  # type: ignore[misc]
    """The official ``SageMakerProcessingOperator``, creating each processing job exactly once."""

    __init__ = with_official_signature(_sm.SageMakerProcessingOperator)
    job_type = "Processing"
    external_id_key = "sagemaker_processing_job_name"
    durable_request_fields = ("action_if_job_exists",)

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        if self.output_files_to_xcom and not self.wait_for_completion:
            raise ValueError(
                "output_files_to_xcom requires wait_for_completion=True. "
                "Output files cannot be read before the job completes."
            )
        return super().prepare_request(context, fresh_key=fresh_key)

    def job_result(self, context: Context, job_id: Any) -> Any:
        self.serialized_job = _sm.serialize(self.call_vendor(job_id, lambda: self.hook.describe_processing_job(job_id)))
        result = {"Processing": self.serialized_job}
        result.update(self._read_output_files())
        self.log.info("%s completed successfully.", self.task_id)
        return result


class SageMakerTransformOperator(_SageMakerJobMixin, _sm.SageMakerTransformOperator):  # type: ignore[misc]
    """The official ``SageMakerTransformOperator``, creating each transform job exactly once."""

    __init__ = with_official_signature(_sm.SageMakerTransformOperator)
    job_type = "Transform"
    external_id_key = "sagemaker_transform_job_name"
    durable_request_fields = ("check_if_job_exists", "action_if_job_exists", "check_if_model_exists",
                              "action_if_model_exists")

    @property
    def job_config(self) -> dict[str, Any]:
        return self.config.get("Transform", self.config)

    def prepare_request(self, context: Context, *, fresh_key: bool) -> dict[str, Any]:
        """Upstream's model step (create the model named in ``config["Model"]``, renamed if it exists), then
        the transform request. The model is no job: a resend after a lost reply may leave a second model."""
        request = super().prepare_request(context, fresh_key=fresh_key)
        model_config = self.config.get("Model")
        if model_config:
            if self.check_if_model_exists:
                model_config["ModelName"] = self._get_unique_model_name(
                    model_config["ModelName"], self.action_if_model_exists == "fail", self.hook.describe_model)
                if "ModelName" in self.config["Transform"]:
                    self.config["Transform"]["ModelName"] = model_config["ModelName"]
            self.log.info("Creating SageMaker Model %s for transform job", model_config["ModelName"])
            self.hook.create_model(model_config)
            request = dict(self.job_config)
        source = request.get("TransformInput", {}).get("DataSource", {})
        if "S3DataSource" in source:  # upstream's hook checks the S3 input before creating
            self.hook.check_s3_url(source["S3DataSource"]["S3Uri"])
        return request

    def on_job_known(self, context: Context, job_id: Any, *, reconnected: bool) -> None:
        super().on_job_known(context, job_id, reconnected=reconnected)
        hook = self.hook
        quoted = urllib.parse.quote(job_id, safe="")
        SageMakerTransformJobLink.persist(context=context, operator=self, region_name=hook.conn_region_name,
                                          aws_partition=hook.conn_partition, job_name=quoted)
        url = SageMakerTransformJobLink.format_str.format(
            aws_domain=SageMakerTransformJobLink.get_aws_domain(hook.conn_partition),
            region_name=hook.conn_region_name, job_name=quoted)
        self.log.info("You can monitor this SageMaker Transform job at %s", url)

    def job_result(self, context: Context, job_id: Any) -> Any:
        result = self.call_vendor(job_id, lambda: self.serialize_result(job_id))
        self.log.info("%s completed successfully.", self.task_id)
        return result


__all__ = ["SageMakerProcessingOperator", "SageMakerTrainingOperator", "SageMakerTransformOperator"]
