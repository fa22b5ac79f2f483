"""What the durable AWS operators share: the connection arguments, and the job id as the return value.

Each operator module beside this one mirrors the official module of the same name
(``airflow.providers.amazon.aws.operators.<module>``) and imports only that official module.
"""


from __future__ import annotations

from typing import TYPE_CHECKING, Any

from durable_jobs.core.mixin import DurableJobMixin

if TYPE_CHECKING:
    from airflow.sdk import Context


class AwsDurableMixin(DurableJobMixin):
    """What the AWS operators share: connection arguments, and the id as the return value."""

    if TYPE_CHECKING:  # set by the official operators this is mixed into (AwsBaseOperator and its subclasses)
        region_name: str | None
        verify: bool | str | None
        botocore_config: dict[str, Any] | None
        deferrable: bool
        wait_for_completion: bool

    def _client_kwargs(self) -> dict[str, Any]:
        return {
            "region_name": self.region_name, "verify": self.verify,
            "botocore_config": self.botocore_config if isinstance(self.botocore_config, dict) else None,
        }

    @property
    def wait_for_termination(self) -> bool:
        # The official Batch and Glue operators always wait when deferrable.
        return bool(self.wait_for_completion or self.deferrable)

    def accepted_result(self, context: Context, job_id: Any) -> Any:
        return job_id  # the official operators return the id without waiting, too
