"""Task instances for tests: a scheduler-side ``TaskInstance`` of an SDK task, and its template context."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from uuid import UUID

    from airflow.models.taskinstance import TaskInstance
    from airflow.sdk import BaseOperator, Context


def scheduler_task(task: BaseOperator) -> Any:
    """The scheduler's view of ``task``: its DAG serialized and read back, as the scheduler reads it."""
    from airflow.serialization.serialized_objects import DagSerialization, create_scheduler_operator

    dag = task.get_dag()
    if dag is None:
        return create_scheduler_operator(task)
    return DagSerialization.deserialize_dag(DagSerialization.serialize_dag(dag)).get_task(task.task_id)


def create_task_instance(
    task: BaseOperator,
    *,
    dag_version_id: UUID,
    run_id: str | None = None,
    state: str | None = None,
    map_index: int = -1,
) -> TaskInstance:
    """A ``TaskInstance`` row object for ``task`` (not added to a session: the test does that)."""
    from airflow.models.taskinstance import TaskInstance

    return TaskInstance(scheduler_task(task), dag_version_id=dag_version_id, run_id=run_id, state=state,
                        map_index=map_index)


def get_template_context(ti: TaskInstance, task: BaseOperator) -> Context:
    """The context the task runner would hand ``task``, built by Airflow's own ``airflow tasks`` helper.

    XComs go straight to the metadata database through ``ti`` (there is no execution API server in a
    unit test); ``conn`` and ``var`` are Airflow's accessors.
    """
    from airflow.cli.commands.task_command import _get_template_context
    from airflow.utils.context import ConnectionAccessor, VariableAccessor

    context = _get_template_context(ti, task)
    context["ti"].__dict__.update(xcom_push=ti.xcom_push, xcom_pull=ti.xcom_pull)
    context.update(  # type: ignore[call-arg]
        conn=ConnectionAccessor(),
        var={"json": VariableAccessor(deserialize_json=True), "value": VariableAccessor(deserialize_json=False)},
    )
    return context


class TaskInstanceWrapper:
    """A ``TaskInstance`` together with its SDK task, for ``ti.render_templates()`` in tests."""

    def __init__(self, ti: TaskInstance, task: BaseOperator) -> None:
        self.__dict__.update(_ti=ti, _task=task)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["_ti"], name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.__dict__["_ti"], name, value)

    def get_template_context(self) -> Context:
        return get_template_context(self.__dict__["_ti"], self.__dict__["_task"])

    def render_templates(self) -> BaseOperator:
        """Render the SDK task's template fields in place, as the task runner does; return the task."""
        task = self.__dict__["_task"]
        task.render_template_fields(self.get_template_context())
        return task


def render_template_fields(ti: TaskInstance, task: BaseOperator) -> None:
    """Render ``task``'s template fields in place from ``ti``'s context, as the task runner does before execute."""
    task.render_template_fields(get_template_context(ti, task))


__all__ = ["TaskInstanceWrapper", "create_task_instance", "get_template_context", "render_template_fields"]
