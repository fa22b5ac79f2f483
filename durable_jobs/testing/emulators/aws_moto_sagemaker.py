"""The Amazon SageMaker job rules moto 5.2.5 lacks (training, processing, transform), installed by
``aws_moto.install_gap_rules``.

Kept apart from ``aws_moto`` (which merges ``GAPS`` into ``MOTO_GAPS`` and calls ``install``); the contract is
docs/emulators/aws-sagemaker.md. Nothing here imports Airflow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MODEL = "sagemaker::job"
#: A job whose name contains this ends Failed (``sagemaker-life-cycle``).
FAIL_MARKER = "fail"
FAIL_REASON = "AlgorithmError: the emulator's 'fail' marker is in the job name"
_KINDS = {  # job type -> (moto class, status attribute, backend dict)
    "Training": ("FakeTrainingJob", "training_job_status", "training_jobs"),
    "Processing": ("FakeProcessingJob", "processing_job_status", "processing_jobs"),
    "Transform": ("FakeTransformJob", "transform_job_status", "transform_jobs"),
}

GAPS: dict[str, str] = {
    "sagemaker-job-name-unique": (
        "moto's CreateTrainingJob, CreateProcessingJob and CreateTransformJob replace a job of the same name. AWS "
        "(each Create*Job's name): 'The name must be unique within an AWS Region in an AWS account.' Ours refuses "
        "an existing name with ResourceInUse, the one error the three references list for it ('Resource being "
        "accessed is in use'); the reference does not say which code a duplicate name gets, nor whether a name "
        "becomes free again after the job is deleted (ours never frees it)."
    ),
    "sagemaker-life-cycle": (
        "moto creates every training, processing and transform job Completed. Ours run InProgress -> Completed "
        "on moto's state manager (model 'sagemaker::job'); a job whose name contains 'fail' ends Failed with a "
        "FailureReason. The reference's intermediate secondary statuses (Starting, Downloading, Training, ...) "
        "are not modelled."
    ),
    "sagemaker-stop-job": (
        "moto has no StopTrainingJob or StopTransformJob, and its StopProcessingJob sets Stopped at once, whatever "
        "the status. AWS (StopTrainingJob): 'SageMaker changes the status of the job to Stopping. After SageMaker "
        "stops the job, it sets the status to Stopped.' Ours move an InProgress job to Stopping, then Stopped at "
        "its next read. The reference lists only ResourceNotFound for Stop*Job and is silent on stopping a job that "
        "has ended: ours answers moto's ValidationException ('Could not find ...') for an unknown name and leaves "
        "an ended job as it is."
    ),
}


def install(patch: Callable[[Any, str, Any], None]) -> None:
    """Add the rules in ``GAPS`` through ``patch(owner, name, value)`` (undone by ``aws_moto``)."""
    from moto.moto_api._internal.managed_state_model import ManagedState
    from moto.sagemaker import models as sm
    from moto.sagemaker.exceptions import ResourceInUseException, ValidationError
    from moto.sagemaker.responses import SageMakerResponse

    for job_type, (class_name, attribute, store) in _KINDS.items():
        cls = getattr(sm, class_name)
        name_attr = f"{job_type.lower()}_job_name"
        original_init = cls.__init__
        original_response = vars(cls)["response_object"].fget

        def __init__(self: Any, *args: Any, _orig: Any = original_init, _name: str = name_attr,
                     _attr: str = attribute, **kwargs: Any) -> None:
            _orig(self, *args, **kwargs)
            self.__dict__.pop(_attr, None)  # moto's "Completed": the state manager's status replaces it
            failing = FAIL_MARKER in str(getattr(self, _name, "")).lower()
            # kept outside the job's own attributes: moto's reply lists every attribute (a Transform's model_name)
            self.__dict__["_dj_state"] = ManagedState(
                MODEL, [("InProgress", "Failed" if failing else "Completed"), ("Stopping", "Stopped")])

        def _get(self: Any) -> str | None:
            state = self.__dict__.get("_dj_state")
            return state.status if state is not None else self.__dict__.get("_dj_plain_status")

        def _set(self: Any, value: str) -> None:
            state = self.__dict__.get("_dj_state")
            if state is not None:
                state.status = value
            else:
                self.__dict__["_dj_plain_status"] = value

        def response_object(self: Any, _orig: Any = original_response, _type: str = job_type) -> dict[str, Any]:
            status = _get(self)  # one read: the state manager moves it at most once per describe
            response = {k: v for k, v in _orig(self).items() if k not in ("DjState", "DjPlainStatus")}
            response[f"{_type}JobStatus"] = status
            if status == "Failed":
                response["FailureReason"] = FAIL_REASON
            return response

        patch(cls, "__init__", __init__)
        patch(cls, attribute, property(_get, _set))
        patch(cls, "response_object", property(response_object))

        original_create = getattr(sm.SageMakerModelBackend, f"create_{job_type.lower()}_job")

        def create(self: Any, *args: Any, _orig: Any = original_create, _store: str = store,
                   _name: str = name_attr, _type: str = job_type, **kwargs: Any) -> Any:
            name = kwargs.get(_name)
            if name in getattr(self, _store):
                raise ResourceInUseException(
                    message=f"{_type} job names must be unique within an AWS account and region, and a "
                            f"{_type.lower()} job with this name already exists ({name})")
            return _orig(self, *args, **kwargs)

        patch(sm.SageMakerModelBackend, f"create_{job_type.lower()}_job", create)

        def stop(self: Any, name: str, _store: str = store, _attr: str = attribute, _cls: Any = cls,
                 _type: str = job_type) -> None:
            job = getattr(self, _store).get(name)
            if job is None:
                arn = _cls.arn_formatter(name, self.account_id, self.region_name)
                raise ValidationError(message=f"Could not find {_type.lower()} job '{arn}'.")
            if getattr(job, _attr) == "InProgress":
                setattr(job, _attr, "Stopping")

        patch(sm.SageMakerModelBackend, f"stop_{job_type.lower()}_job", stop)

    def _stop_response(job_type: str) -> Callable[[Any], Any]:
        def handler(self: Any) -> Any:
            from moto.core.responses import EmptyResult

            name = self._get_param(f"{job_type}JobName")
            getattr(self.sagemaker_backend, f"stop_{job_type.lower()}_job")(name)
            return EmptyResult()
        return handler

    for job_type in ("Training", "Transform", "Processing"):
        patch(SageMakerResponse, f"stop_{job_type.lower()}_job", _stop_response(job_type))
