"""One case (and its near miss) per class of mistake issue 18 found on real DAGs."""

from __future__ import annotations

import textwrap

import pytest

from durable_jobs.lint import RULES, Severity, lint_source
from tests.lint.helpers import pairs


def lint(source: str) -> set[tuple[str, int]]:
    return pairs(lint_source(textwrap.dedent(source).lstrip("\n"), "dag.py"))


GLUE = """
from airflow.providers.amazon.aws.operators.glue import GlueJobOperator
from airflow.providers.amazon.aws.sensors.glue import GlueJobSensor
from airflow.sdk import DAG

with DAG("d"{dag_args}):
    submit = GlueJobOperator(task_id="submit", job_name="j"{op_args})
    {after}
    wait = GlueJobSensor(task_id="wait", job_name="j", run_id=submit.output)
    submit >> wait
"""


def glue(dag_args: str = "", op_args: str = "", after: str = "pass") -> set[tuple[str, int]]:
    return lint(GLUE.format(dag_args=dag_args, op_args=op_args, after=after))


def test_setting_assigned_after_the_constructor_counts() -> None:
    assert glue(after="submit.wait_for_completion = False") == {("DJ051", 6)}
    assert glue(op_args=", wait_for_completion=False",
                after="submit.wait_for_completion = True") == set()


def test_default_args_reach_the_operator() -> None:
    assert glue(dag_args=', default_args={"wait_for_completion": False}') == {("DJ051", 6)}
    assert glue(dag_args=', default_args={"deferrable": True}',
                op_args=", wait_for_completion=False") == {("DJ051", 6), ("DJ061", 6)}
    assert glue(dag_args=', default_args={"deferrable": True}') == set()


def test_default_args_through_spread_and_dag_keyword() -> None:
    assert lint("""
        from airflow.sdk import DAG, task
        from durable_jobs.providers.databricks.operators.databricks import DatabricksSubmitRunOperator

        BASE = {"owner": "data", "retries": 0}
        dag = DAG("d", default_args={**BASE, "depends_on_past": False})
        other = DAG("e", default_args={"retries": 2})
        DatabricksSubmitRunOperator(task_id="run", tasks=[], dag=dag)
        DatabricksSubmitRunOperator(task_id="run2", tasks=[], dag=other)
    """) == {("DJ091", 7)}


def test_sensor_async_names_are_sensors() -> None:
    assert lint("""
        from airflow.providers.amazon.aws.operators.batch import BatchOperator
        from astronomer.providers.amazon.aws.sensors.batch import BatchSensorAsync
        from airflow.sdk import DAG

        with DAG("d"):
            submit = BatchOperator(task_id="submit", job_name="j", job_queue="q",
                                   job_definition="d", wait_for_completion=False)
            wait = BatchSensorAsync(task_id="wait", job_id=submit.output)
    """) == {("DJ051", 6)}


def test_dependent_that_feeds_the_sensor_is_not_told_to_depend_on_it() -> None:
    source = """
        from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator
        from airflow.providers.amazon.aws.sensors.emr import EmrStepSensor
        from airflow.sdk import DAG, task

        @task
        def first_step(ids):
            return ids[0]

        with DAG("d"):
            add = EmrAddStepsOperator(task_id="add", job_flow_id="j-1", steps=[])
            wait = EmrStepSensor(task_id="wait", job_flow_id="j-1", step_id=first_step(add.output))
            {tail}
    """
    assert lint(source.format(tail="pass")) == {("DJ051", 10)}
    # a real dependent on the submit task is still reported
    assert ("DJ052", 12) in lint(source.format(tail="add >> first_step.override(task_id='x')([])"))


def test_teardown_trigger_rule_is_not_a_gate() -> None:
    assert glue(op_args=", wait_for_completion=False",
                after='cleanup = GlueJobOperator(task_id="c", job_name="c", trigger_rule="all_done")'
                      '; submit >> cleanup') == {("DJ051", 6)}
    assert glue(op_args=", wait_for_completion=False",
                after='cleanup = GlueJobOperator(task_id="c", job_name="c"); submit >> cleanup'
                ) == {("DJ051", 6), ("DJ052", 7)}


def test_defaulting_a_variable_is_not_resume_logic() -> None:
    assert lint("""
        from airflow.sdk import Variable, task

        @task
        def seed():
            if Variable.get("run_id_prefix", default_var=None) is None:
                Variable.set("run_id_prefix", "nightly")
    """) == set()
    assert lint("""
        from airflow.sdk import Variable, task

        @task
        def resume(client):
            if Variable.get("spark_run_id", default_var=None) is None:
                Variable.set("spark_run_id", client.submit_run({}))
    """) == {("DJ031", 5)}


def test_configuration_writes_are_not_task_state() -> None:
    assert lint("""
        from airflow.sdk import Variable, task

        @task
        def setup(env):
            Variable.set("warehouse_bucket", f"s3://{env}-warehouse")
            Variable.set("alert_emails", ["a@example.com"])
            Variable.set("rows_seen", 10)
    """) == {("DJ011", 7)}


def test_cursor_written_back_once_per_run_goes_to_the_asset_store() -> None:
    body = """
        from airflow.sdk import Variable, task

        @task
        def sync(fetch):
            cursor = Variable.get("orders_cursor", default_var=0)
            for row in fetch(cursor):
                cursor = row["id"]
                {inside}
            {after}
    """
    assert lint(body.format(inside="pass", after='Variable.set("orders_cursor", cursor)')) == {("DJ041", 9)}
    assert lint(body.format(inside='Variable.set("orders_cursor", cursor)', after="pass")) == {("DJ011", 8)}


def test_per_run_key_is_state_even_when_only_read() -> None:
    assert lint("""
        from airflow.sdk import Variable, task

        @task
        def step(run_id=None):
            done = Variable.get(f"progress_{run_id}", default_var=0)
            settings = Variable.get("orders_settings")
            return done, settings
    """) == {("DJ011", 5)}


def test_mixin_execute_that_never_reaches_execute_resumable() -> None:
    source = """
        from airflow.providers.amazon.aws.operators.glue import GlueJobOperator
        from airflow.sdk import ResumableJobMixin

        class MyGlue(ResumableJobMixin, GlueJobOperator):
            external_id_key = "glue_run_id"

            def execute(self, context):
                {body}

            def _go(self, context):
                return self.execute_resumable(context)
    """
    assert lint(source.format(body="return self.hook.start_job()")) == {("DJ071", 7)}
    assert lint(source.format(body="return self._go(context)")) == set()
    assert lint(source.format(body="return super().execute(context)")) == set()


def test_naive_utcnow_through_a_dict_and_a_helper() -> None:
    assert lint("""
        from datetime import datetime
        from airflow.sdk import task

        def stamp():
            return datetime.utcnow().isoformat()

        @task
        def mark(task_state_store=None):
            now = datetime.utcnow().isoformat()
            task_state_store.set("summary", {"at": now})
            task_state_store.set("seen", stamp())
    """) == {("DJ084", 10), ("DJ084", 11)}


def test_byte_order_mark_parses() -> None:
    assert lint("\ufeffx = 1\n") == set()


@pytest.mark.parametrize("source", [
    "type Rows = list[dict]\n",
    "def first[T](items: list[T]) -> T:\n    return items[0]\n",
    'name = f"{"nested"}"\n',
])
def test_newer_syntax_says_why(source: str) -> None:
    (finding,) = lint_source(source, "dag.py")
    assert finding.rule == "DJ000" and "Python 3.12" in finding.message
    assert "nothing in it was checked" in finding.message


def test_plain_syntax_error_still_reported() -> None:
    (finding,) = lint_source("def broken(:\n    pass\n", "dag.py")
    assert finding.rule == "DJ000" and "Python 3.12" not in finding.message


def test_error_severity_is_kept_for_certain_findings_only() -> None:
    errors = {r.id for r in RULES.values() if r.severity is Severity.ERROR}
    assert errors == {"DJ000", "DJ071", "DJ073", "DJ074", "DJ081", "DJ082"}


def test_operator_that_never_waits_followed_by_its_sensor() -> None:
    source = """
        from airflow.providers.amazon.aws.operators.cloud_formation import CloudFormationCreateStackOperator
        from airflow.providers.amazon.aws.sensors.cloud_formation import CloudFormationCreateStackSensor
        from airflow.sdk import DAG, chain

        with DAG("d"):
            create = CloudFormationCreateStackOperator(task_id="create", stack_name=NAME,
                                                       cloudformation_parameters={{}}{extra})
            wait = CloudFormationCreateStackSensor(task_id="wait", stack_name=NAME)
            chain(create, wait)
    """
    assert lint(source.format(extra="")) == {("DJ051", 6)}
    # the same name on a sensor that is not downstream of the submit is not the same job
    assert lint(source.format(extra="").replace("chain(create, wait)", "chain(wait, create)")) == set()


def test_wait_until_finished_inside_a_config_dict() -> None:
    assert lint("""
        from airflow.providers.apache.beam.operators.beam import BeamRunPythonPipelineOperator
        from airflow.providers.google.cloud.sensors.dataflow import DataflowJobStatusSensor
        from airflow.sdk import DAG

        with DAG("d"):
            start = BeamRunPythonPipelineOperator(task_id="start", py_file="x.py",
                                                  dataflow_config={"wait_until_finished": False})
            done = DataflowJobStatusSensor(
                task_id="done", job_id="{{ task_instance.xcom_pull('start')['dataflow_job_id'] }}")
    """) == {("DJ051", 6)}


def test_sensor_reading_a_wrapped_xcomarg_and_a_chain_through_a_group() -> None:
    assert lint("""
        from typing import cast
        from airflow.providers.google.cloud.operators.workflows import WorkflowsCreateExecutionOperator
        from airflow.providers.google.cloud.sensors.workflows import WorkflowExecutionSensor
        from airflow.sdk import DAG, XComArg, chain

        with DAG("d"):
            run = WorkflowsCreateExecutionOperator(task_id="run", workflow_id="w", execution={})
            done = WorkflowExecutionSensor(task_id="done", workflow_id="w",
                                           execution_id=cast("str", XComArg(run, key="execution_id")))
            after = WorkflowsCreateExecutionOperator(task_id="after", workflow_id="w2", execution={},
                                                     deferrable=True)
            chain(run, done, some_group(), after)
    """) == {("DJ051", 7)}


def test_a_task_that_cancels_the_job_is_not_its_sensor() -> None:
    source = """
        from airflow.providers.google.cloud.hooks.dataproc import DataprocHook
        from airflow.providers.google.cloud.operators.dataproc import DataprocSubmitJobOperator
        from airflow.sdk import DAG, task

        @task
        def watch(job_id):
            hook = DataprocHook()
            {first}
            while hook.get_job(job_id=job_id).status.state != "DONE":
                time.sleep(5)

        with DAG("d"):
            submit = DataprocSubmitJobOperator(task_id="submit", job={{}}, asynchronous=True)
            watch(submit.output)
    """
    assert lint(source.format(first="pass")) == {("DJ051", 13)}
    assert lint(source.format(first="hook.cancel_job(job_id=job_id)")) == set()


def test_hand_submit_resuming_through_a_variable_is_dj031_not_dj101() -> None:
    assert lint("""
        from airflow.providers.databricks.hooks.databricks import DatabricksHook
        from airflow.sdk import Variable, task

        @task(retries=2)
        def run():
            run_id = Variable.get("nightly_run_id", default_var=None)
            if run_id is None:
                run_id = DatabricksHook().submit_run({})
                Variable.set("nightly_run_id", run_id)
    """) == {("DJ031", 7)}


def test_deferrable_with_wait_false_on_cloud_build() -> None:
    assert lint("""
        from airflow.providers.google.cloud.operators.cloud_build import CloudBuildCreateBuildOperator
        from airflow.sdk import DAG

        with DAG("d"):
            CloudBuildCreateBuildOperator(task_id="b", build={}, wait=False, deferrable=True)
    """) == {("DJ061", 5)}


EMR = """
from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator, EmrCreateJobFlowOperator
from airflow.providers.amazon.aws.sensors.emr import EmrStepSensor
from airflow.sdk import DAG, chain, task

@task
def first(ids):
    return ids[0]

with DAG("d"):
    cluster = EmrCreateJobFlowOperator(task_id="cluster")
    steps = EmrAddStepsOperator(task_id="steps", job_flow_id=cluster.output, steps=[],
                                wait_for_completion=True)
    watch = EmrStepSensor(task_id="watch", job_flow_id=cluster.output, step_id=first(steps.output))
    chain(*[t for t in [cluster, steps, watch] if t is not None])
"""


def test_step_sensor_watches_the_step_not_the_cluster_create() -> None:
    assert lint(EMR) == set()
    # without waiting, the add-steps task is the split's submit half
    assert lint(EMR.replace("wait_for_completion=True", "wait_for_completion=False")) == {("DJ051", 11)}


def test_sensor_waiting_for_a_running_state_watches_the_start() -> None:
    source = """
        from airflow.providers.amazon.aws.operators.dms import DmsStartTaskOperator
        from airflow.providers.amazon.aws.sensors.dms import DmsTaskBaseSensor
        from airflow.sdk import DAG

        with DAG("d"):
            start = DmsStartTaskOperator(task_id="start", replication_task_arn=ARN)
            wait = DmsTaskBaseSensor(task_id="wait", replication_task_arn=ARN, target_statuses=[{state}])
            start >> wait
    """
    assert lint(source.format(state='"running"')) == set()
    assert lint(source.format(state='"stopped"')) == {("DJ051", 6)}


def test_settings_computed_from_the_task_arguments_are_configuration() -> None:
    source = """
        from airflow.sdk import Variable, task

        @task
        def configure(fetch, rows, env="prod"):
            Variable.set("dbt_target", {value})

        {tail}
    """
    assert lint(source.format(value='"MEDIUM" if env == "prod" else env', tail="")) == set()
    assert lint(source.format(value="fetch(env)", tail="")) == {("DJ011", 5)}      # a result of work
    assert lint(source.format(value="rows", tail="")) == {("DJ011", 5)}           # upstream data
    assert lint(source.format(value="env", tail='TARGET = Variable.get("dbt_target")')) == {("DJ011", 5)}
