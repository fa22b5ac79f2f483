"""The exceptions durable-jobs raises, in one tree.

::

    DurableJobError                 base of everything below; catch this to catch them all
    ├── DurableJobConfigError       bad operator argument (also a ValueError); raised at DAG-parse time
    ├── CheckpointError             the task_state_store could not be read, or holds a value we cannot
    │                               trust (non-JSON, None, a record from a newer format); the try fails
    │                               rather than risk a duplicate submission
    ├── JobSubmitError              the vendor refused or lost the submission
    │   └── IdempotencyKeyBurnedError  the vendor says this key can never submit again (deleted run)
    ├── JobFailedError              the external job reached a failed/cancelled/timed-out state
    ├── JobNotFoundError            the vendor has no job with this id (expired history, deleted)
    └── UnknownJobStateError        the vendor reported a state missing from our state table

Each message names the argument or the record involved and says what to do.
"""

from __future__ import annotations

try:  # an Airflow error too, so code that catches AirflowException keeps working after the switch
    from airflow.exceptions import AirflowException as _Base
except ImportError:  # pragma: no cover - the lint and docs tools import nothing from Airflow
    _Base = Exception  # type: ignore[assignment,misc]


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


class JobFailedError(DurableJobError):
    """The external job ended in a failed, cancelled or timed-out state."""

    def __init__(self, message: str, *, job_id=None, state: str | None = None) -> None:
        super().__init__(message)
        self.job_id = job_id
        self.state = state


class JobNotFoundError(DurableJobError):
    """The vendor has no job with this id."""


class UnknownJobStateError(DurableJobError):
    """The vendor returned a state that is not in our state table."""
