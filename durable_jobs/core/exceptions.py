"""The exceptions durable-jobs raises, in one tree.

::

    DurableJobError                 base of everything below; catch this to catch them all
    ├── DurableJobConfigError       bad operator argument (also a ValueError); raised at DAG-parse time
    ├── CheckpointError             the task_state_store could not be read, or holds a value we cannot
    │                               trust (non-JSON, None, a record from a newer format); the try fails
    │                               rather than risk a duplicate submission
    ├── JobSubmitError              the vendor refused or lost the submission
    │   ├── IdempotencyKeyBurnedError  the vendor says this key can never submit again (deleted run)
    │   └── WrongSetupError         the submit could not leave (host does not resolve, port refused, TLS,
    │       │                       a malformed connection): fails at once, nothing was submitted
    │       └── ConnectionNotDefinedError  the connection id is not defined (also AirflowNotFoundException)
    ├── JobFailedError              the external job reached a failed/cancelled/timed-out state, or no
    │                               longer exists (deleted, history expired)
    ├── VendorCallError             a call to the vendor failed and the fault policy gave up on it; the job
    │   │                           may still be running (``.vendor``, ``.endpoint``, ``.job_id``, ``.fault``)
    │   ├── VendorAuthError         401/403 or missing credentials: fails at once, naming the connection
    │   └── PollBudgetExceededError status calls kept failing for ``[durable_jobs] poll_error_budget``
    └── UnknownJobStateError        the vendor reported a state missing from our state table for longer
                                    than ``[durable_jobs] unknown_state_budget``; the job is left running

Each message names the vendor, the endpoint or argument, and the job or record involved, says what
happened and what the next try will do. Messages repeat at most a few KB of anything the vendor or
the user sent (``durable_jobs.core.faults.cap``).
"""

from __future__ import annotations

try:  # an Airflow error too, so code that catches AirflowException keeps working after the switch
    from airflow.exceptions import AirflowException as _Base
except ImportError:  # pragma: no cover - the lint and docs tools import nothing from Airflow
    _Base = Exception  # type: ignore[assignment,misc]
try:
    from airflow.exceptions import AirflowNotFoundException as _NotFound
except ImportError:  # pragma: no cover
    _NotFound = LookupError  # type: ignore[assignment,misc]


class DurableJobError(_Base):
    """Base class of every durable-jobs error."""


class DurableJobConfigError(DurableJobError, ValueError):
    """An operator argument is invalid; the message names it and the fix."""


class CheckpointError(DurableJobError):
    """The checkpoint record could not be read or is not trustworthy."""


class JobSubmitError(DurableJobError):
    """The vendor refused the submission, or its reply was lost and could not be recovered."""


class IdempotencyKeyBurnedError(JobSubmitError):
    """The vendor will never accept this idempotency key again (for example its run was deleted)."""


class WrongSetupError(JobSubmitError):
    """The submit failed before its request left (``durable_jobs.core.wrong_setup``): nothing was submitted."""


class ConnectionNotDefinedError(WrongSetupError, _NotFound):
    """The operator's connection id is not defined; the official operators raise AirflowNotFoundException."""


class JobFailedError(DurableJobError):
    """The external job ended in a failed, cancelled or timed-out state."""

    def __init__(self, message: str, *, job_id: object = None, state: str | None = None) -> None:
        super().__init__(message)
        self.job_id = job_id
        self.state = state


class VendorCallError(DurableJobError):
    """A call to the vendor failed and the fault policy gave up; the job may still be running."""

    def __init__(
        self, message: str, *, vendor: str = "", endpoint: str = "", job_id: object = None, fault: object = None
    ) -> None:
        super().__init__(message)
        self.vendor = vendor
        self.endpoint = endpoint
        self.job_id = job_id
        self.fault = fault


class VendorAuthError(VendorCallError):
    """The vendor refused the connection's credentials or permissions (401/403)."""


class PollBudgetExceededError(VendorCallError):
    """Status calls kept failing for the whole ``poll_error_budget``."""


class UnknownJobStateError(DurableJobError):
    """The vendor returned a state that is not in our state table."""
