"""Amazon SageMaker training, processing and transform jobs through the official ``SageMakerHook``: one client
for the three, told apart by ``job_type`` ("Training", "Processing", "Transform").

The job's name is the idempotency key. The SageMaker API reference (``CreateTrainingJob`` ``TrainingJobName``;
``CreateProcessingJob`` and ``CreateTransformJob`` say the same of theirs): "The name must be unique within an
AWS Region in an AWS account." Names are 1-63 characters, pattern ``^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}``. So the
epoch's key is the name: ``<the user's name>-<nonce>`` (the user's part trimmed so that the whole fits in 63;
the nonce is 32 hex characters), or the nonce alone when the config names no job.

* A lost reply, or a crash inside the submit→persist window, is resolved by ``Describe*Job`` on that exact
  name: the name *is* the key, so no listing is scanned. The reference does not call ``Describe*Job``
  eventually consistent, and a resend is safe anyway (next point), so ``find`` asks once, without a window.
* A create under a name that exists fails with ``ResourceInUse`` ("Resource being accessed is in use", the
  only error the three ``Create*Job`` references list for it). Only this epoch sends this name (the nonce is
  128 random bits), so that job is ours: the reply that created it was lost. The reference does not say
  which code a duplicate name gets; SageMaker is also reported to answer a ``ValidationException`` whose
  message says the name "already exists" / "must be unique", and the official operator itself reads
  ``ValidationException`` from ``Describe*Job`` as "no such job". Both read as ours; nothing else does.
* Since a resend cannot create a second job, the submit goes through the hook's client with the SDK's
  retries on (as Redshift Data and ECS).

States (``TrainingJobStatus`` / ``ProcessingJobStatus`` / ``TransformJobStatus``): InProgress, Completed,
Failed, Stopping, Stopped (training also Deleting). Stopped is a failure here, as in the official hook's
``training_failed_states`` and ``processing_job_failed_states``. ``Stop*Job``: "SageMaker changes the status of
the job to Stopping. After SageMaker stops the job, it sets the status to Stopped." (StopTrainingJob).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar

from durable_jobs.core.exceptions import DurableJobConfigError
from durable_jobs.core.status import JobStatus, StateTable
from durable_jobs.providers.amazon.aws.clients.base import AwsJobClient, error_code, log
from durable_jobs.providers.amazon.aws.clients.tokens import name_with_prefix

SAGEMAKER_STATES = StateTable(
    vendor="Amazon SageMaker",
    active=frozenset({"InProgress", "Stopping"}),
    succeeded=frozenset({"Completed"}),
    failed=frozenset({"Failed", "Stopped", "Deleting"}),
)
#: ``TrainingJobName`` / ``ProcessingJobName`` / ``TransformJobName``: "Length Constraints: Minimum length of 1.
#: Maximum length of 63. Pattern: ^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}".
MAX_NAME_LENGTH = 63
NAME_PATTERN = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")
JOB_TYPES = ("Training", "Processing", "Transform")
#: Codes that say "no such job" from ``Describe*Job`` (ValidationException: as the official operator reads it).
MISSING_CODES = frozenset({"ValidationException", "ResourceNotFound", "ResourceNotFoundException"})
_DUPLICATE_WORDS = ("already exists", "must be unique", "already in use")


def name_field(job_type: str) -> str:
    """``TrainingJobName``, ``ProcessingJobName`` or ``TransformJobName``."""
    return f"{job_type}JobName"


def job_name_for(nonce: str, user_name: str | None = None) -> str:
    """The nonce, or ``<name>-<nonce>`` within 63 characters (the user's part is trimmed)."""
    return name_with_prefix(nonce, user_name, max_length=MAX_NAME_LENGTH)


def is_duplicate_name(err: BaseException) -> bool:
    """A create refused because the name exists (see the module docstring for what the reference says)."""
    code = error_code(err)
    if code in ("ResourceInUse", "ResourceInUseException"):
        return True
    return code == "ValidationException" and any(w in str(err).lower() for w in _DUPLICATE_WORDS)


class SageMakerJobClient(AwsJobClient):
    """``Create<Type>Job`` named by the key; ``find`` and ``status`` are ``Describe<Type>Job`` on that name."""

    vendor: ClassVar[str] = "Amazon SageMaker"
    states: ClassVar[StateTable] = SAGEMAKER_STATES
    missing_codes: ClassVar[frozenset[str]] = MISSING_CODES
    service_fields = ("job_type",)

    def __init__(self, aws_conn_id: str | None = "aws_default", *, job_type: str = "Training", **kwargs: Any) -> None:
        if job_type not in JOB_TYPES:
            raise DurableJobConfigError(f"job_type must be one of {JOB_TYPES}, got {job_type!r}")
        super().__init__(aws_conn_id, **kwargs)
        self.job_type = job_type

    @property
    def unit(self) -> str:
        return f"{self.job_type.lower()} job"

    @property
    def status_endpoint(self) -> str:  # type: ignore[override]
        return f"sagemaker:Describe{self.job_type}Job"

    def _make_hook(self):
        from airflow.providers.amazon.aws.hooks.sagemaker import SageMakerHook

        return SageMakerHook(**self._hook_kwargs())

    @property
    def submit_client(self):
        """The hook's client: a resend under the same name cannot create a second job, so the SDK may retry."""
        return self.client

    def format_key(self, nonce: str, user_token: str | None = None) -> str:
        name = job_name_for(nonce, user_token)
        if not NAME_PATTERN.match(name):
            raise DurableJobConfigError(
                f"{name_field(self.job_type)} {user_token!r} does not fit SageMaker's pattern "
                "^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}: use letters, digits and hyphens, starting with a letter or digit."
            )
        return name

    # ------------------------------------------------------------------ submit
    def _submit_once(self, request: Mapping[str, Any], key: str, *, tag: bool) -> str:
        args = {**request, name_field(self.job_type): key}
        create = getattr(self.submit_client, f"create_{self.job_type.lower()}_job")
        try:
            self.field(create(**args), f"{self.job_type}JobArn", f"Create{self.job_type}Job")
        except Exception as err:
            if not is_duplicate_name(err):
                raise
            # Only this epoch sends this name: the job exists because an earlier reply was lost.
            log.warning("Amazon SageMaker already has %s job %s (%s): it is this epoch's, using it",
                        self.job_type.lower(), key, err)
        return key

    # ------------------------------------------------------------------ find
    def _scan(self, key: str, since: datetime | None) -> str | None:
        return key if self.status(key).state != "NOT_FOUND" else None

    def find(self, key: str, *, since: datetime | None = None) -> str | None:
        """One ``Describe*Job`` on the name: no listing, no consistency window (a resend is safe anyway)."""
        return self._scan(key, since)

    # ------------------------------------------------------------------ status
    def official_event_fields(self, job_id: Any, status: JobStatus, echo: Mapping[str, Any]) -> dict[str, Any]:
        """The official ``SageMakerTrigger``'s event names the job (its ``execute_complete`` reads it)."""
        return {"job_name": job_id}

    def _describe_args(self, job_id: Any) -> dict[str, Any]:
        return {name_field(self.job_type): job_id}

    def _describe(self, client: Any, job_id: Any) -> Any:
        return getattr(client, f"describe_{self.job_type.lower()}_job")(**self._describe_args(job_id))

    def _to_status(self, response: Mapping[str, Any]) -> JobStatus:
        operation = f"Describe{self.job_type}Job"
        state = self.field(response, f"{self.job_type}JobStatus", operation)
        return self._status_from(state, response.get("FailureReason") or "", response)

    def cancel(self, job_id: Any) -> None:
        """``Stop<Type>Job``; SageMaker refuses a job that is no longer running (it has ended: nothing to stop)."""
        stop = getattr(self.client, f"stop_{self.job_type.lower()}_job")
        try:
            stop(**self._describe_args(job_id))
        except Exception as err:
            if error_code(err) not in MISSING_CODES:
                raise
            log.warning("Amazon SageMaker did not stop %s job %s (%s); it may have already ended",
                        self.job_type.lower(), job_id, err)
