"""The table: every official test that passes against the official class but not against ours, and why.

Categories:

* ``deliberate`` — one of our documented differences from the official operators (README, "Deliberate
  differences from the official operators" under "How it works"; docs/aws.md, "Differences from the
  official operators"): the entry links it.
* ``internal`` — the test mocks or asserts an internal path we do not take (it patches an official hook
  method or module name that our JobClient does not go through); the reason names both.
* ``not-applicable`` — the test's premise does not hold for a durable operator; the reason says why.

Each entry carries ``match``, a regular expression that the failure against ours (its message or its
traceback) must contain: ``tests.official.run`` fails the suite when a listed test fails in another way,
passes, or fails against the official class too. A test that fails for any reason not listed here fails
the suite: real incompatibilities are fixed in the product, never listed.

Node ids are relative to the provider sdist's ``tests`` folder (``python -m tests.official.sources``).
"""

from __future__ import annotations

from dataclasses import dataclass

DELIBERATE = "deliberate"
INTERNAL = "internal"
NOT_APPLICABLE = "not-applicable"
CATEGORIES = (DELIBERATE, INTERNAL, NOT_APPLICABLE)

#: Where the differences are documented (repository paths with GitHub-style anchors).
README_DIFFERENCES = "README.md#how-it-works"
AWS_DIFFERENCES = "docs/aws.md#differences-from-the-official-operators"
SNOWFLAKE_DIFFERENCES = "docs/snowflake.md#differences-from-the-official-operators"

_DBX = "unit/databricks/operators/test_databricks.py"
_BATCH = "unit/amazon/aws/operators/test_batch.py"
_GLUE = "unit/amazon/aws/operators/test_glue.py"
_EMR = "unit/amazon/aws/operators/test_emr_serverless.py"
_ATHENA = "unit/amazon/aws/operators/test_athena.py"
_SNOWFLAKE = "unit/snowflake/operators/test_snowflake.py"


@dataclass(frozen=True)
class Entry:
    category: str
    reason: str
    #: Regular expression the failure against ours must contain (``re.search`` on message + traceback).
    match: str
    #: Where the difference is documented (a README or docs anchor); required for ``deliberate``.
    link: str = ""


@dataclass(frozen=True)
class Reason:
    entry: Entry
    tests: tuple[str, ...]


def _ids(module: str, *names: str) -> tuple[str, ...]:
    return tuple(f"{module}::{name}" for name in names)


GLUE_CLIENT = Entry(
    INTERNAL,
    "The test mocks `GlueJobHook` methods (`initialize_job`, `get_job_state`, `job_completion`, `get_conn`). "
    "Ours starts the run with `StartJobRun` on its own boto3 client with SDK retries off (`get_client_type`) "
    "and reads it with `GetJobRun` on `hook.conn`, neither of which the test mocks: the call goes to AWS "
    "(refused: the suite blocks the network).",
    match=r"glue\.[a-z0-9-]+\.amazonaws\.com",
)
BATCH_CLIENT = Entry(
    INTERNAL,
    "The test mocks the Batch hook's boto3 client (`AwsBaseHook.get_client_type` while the operator is "
    "created, or `BatchClientHook.client`). Ours submits with `SubmitJob` on a client of its own with SDK "
    "retries off, made when the task runs, which the test does not mock: the call goes to AWS (refused: the "
    "suite blocks the network).",
    match=r"batch\.[a-z0-9-]+\.amazonaws\.com",
)
DATABRICKS_TOKEN = Entry(
    DELIBERATE,
    "The test asserts the exact `runs/submit` / `run-now` payload. Ours adds `idempotency_token` (the epoch's "
    "key; `<your token>-<key>` when you set one), with `durable=False` too, where the key lives for one try: "
    "a submit resent after a transient fault, under the same key, returns the run Databricks already started.",
    match=r"Actual: (submit_run|run_now)\(\{.*'idempotency_token': '[0-9a-f]{32}'\}\)",
    link=README_DIFFERENCES,
)
DATABRICKS_SECOND_HOOK = Entry(
    INTERNAL,
    "The test asserts that `airflow.providers.databricks.operators.databricks.DatabricksHook` is built exactly "
    "once. The official operator builds one (`self._hook`); ours builds a second, with the same arguments, "
    "for `DatabricksJobClient`, which submits and polls, while the official code ours reuses (`job_name` / "
    "`pipeline_name` lookups, `cancel_previous_runs`, the failed tasks' errors) still reads `self._hook`. "
    "Past this assertion the test's payload check differs too: ours adds `idempotency_token` (deliberate).",
    match=r"Expected 'DatabricksHook' to be called once\. Called 2 times",
)
DATABRICKS_TRIGGER = Entry(
    DELIBERATE,
    "The test asserts the official `DatabricksExecutionTrigger`. Ours defers to its own `JobTrigger` (the "
    "fault policy, a cancel on a user's kill from the triggerer, the record's client), after the same "
    "checkpoint; an official trigger's event is still taken when a task deferred by the official operator "
    "resumes with ours.",
    match=r"isinstance\(<durable_jobs\.core\.trigger\.JobTrigger .*DatabricksExecutionTrigger\)",
    link=README_DIFFERENCES,
)
DATABRICKS_SQL_TRIGGER = Entry(
    DELIBERATE,
    "The test asserts the official `DatabricksSQLStatementExecutionTrigger`. Ours defers to its own `JobTrigger` "
    "(the fault policy, a cancel on a user's kill from the triggerer) after the statement id is checkpointed; an "
    "official trigger's event is still taken when a task deferred by the official operator resumes with ours.",
    match=r"isinstance\(<durable_jobs\.core\.trigger\.JobTrigger .*DatabricksSQLStatementExecutionTrigger\)",
    link=README_DIFFERENCES,
)
DATABRICKS_REPAIR_HANDLER = Entry(
    INTERNAL,
    "The test patches `airflow.providers.databricks.operators.databricks._handle_deferrable_databricks_operator"
    "_execution`, which the official `execute_complete` calls after `repair_run` to read `runs/get` and defer "
    "again. Ours repairs the run the same way (`update_job`, `repair_run`), then reads `runs/get` itself before "
    "deferring; the test's `get_run` (still the failed state, or an unconfigured MagicMock) says the run ended "
    "failed, so ours fails the task, as the patched function would for a run that is still failed.",
    match=r"JobFailedError: Job run failed with terminal state: ",
)
DATABRICKS_CONTEXT_WITHOUT_TI = Entry(
    NOT_APPLICABLE,
    "The test calls `execute_complete(context={}, ...)`: a context without `ti`, which Airflow always passes. "
    "Taking over the official trigger's event, ours pushes the `run_id` / `run_page_url` XComs through "
    "`context['ti']`, as the official repair path does in the function the test patches out "
    "(`_handle_deferrable_databricks_operator_execution`).",
    match=r"KeyError: 'ti'",
)
DATABRICKS_STORE_KEYS = Entry(
    DELIBERATE,
    "The test asserts one `task_state_store.set(<external_id_key>, run_id)`. Ours writes its record under "
    "`<external_id_key>_durable` (the intent before the submit, then the id, then the outcome) beside the bare "
    "id, which it writes as upstream does, all with `retention=NEVER_EXPIRE`.",
    match=r"Expected 'set' to be called once\. Called \d+ times\.\s+Calls: \[call\('databricks_run(_now)?_id_durable'",
    link=README_DIFFERENCES,
)
RECORD_XCOM = Entry(
    DELIBERATE,
    "The test counts `ti.xcom_push` calls (`run_id`, `run_page_url`). Ours also copies its record to an XCom of "
    "the same name (`<external_id_key>_durable`; written with the intent and with the id): the DAG processor, "
    "which runs the last-try failure callback that cancels an orphaned job, can read XComs but not "
    "`task_state_store` (`durable_jobs/core/orphans.py`).",
    match=r"assert 4 == 2\s+\+\s+where 4 = <MagicMock name='mock\.xcom_push'",
    link=README_DIFFERENCES,
)
DATABRICKS_RECONNECT_JOB_NAME = Entry(
    INTERNAL,
    "The test asserts that a reconnect resolves `job_name` with `find_job_id_by_name` into `_merged_json`, "
    "which the official repair path reads. Ours reads the job id of a run it repairs from the run itself "
    "(`get_job_id(run_id)`) and rebuilds `job_parameters` when it repairs, so a reconnect makes no lookup and "
    "leaves `_merged_json` unset.",
    match=r"Expected 'find_job_id_by_name' to be called once\. Called 0 times",
)
BATCH_CLIENT_VALIDATES = Entry(
    INTERNAL,
    "The test patches `BatchClientHook.client` and passes a placeholder override (`{'a': 'a'}`). Ours submits "
    "with `SubmitJob` on a boto3 client of its own with SDK retries off, which the test does not patch: botocore "
    "validates the request first and refuses the placeholder. The test's expected arguments would differ "
    "too: ours adds its key to the job name and the `durable-jobs:key` tag (docs/aws.md).",
    match=r"ParamValidationError: Parameter validation failed:\s+Unknown parameter in "
          r"(nodeOverrides|ecsPropertiesOverride|eksPropertiesOverride)",
)
ATHENA_CLIENT = Entry(
    INTERNAL,
    "The test patches `AthenaHook.run_query` / `check_query_status` (and `get_state_change_reason`). Ours calls "
    "`StartQueryExecution` / `GetQueryExecution` on its own client, which the test class's `@mock_aws` answers "
    "(moto: the query SUCCEEDED at once), so the patched methods are never called and a test that expects a "
    "failed, cancelled or still-running query sees it succeed. Its `run_query` arguments would differ too: "
    "ours sends `<client_request_token>-<key>` as the token (docs/aws.md).",
    match=r"Expected 'run_query' to be called once\. Called 0 times|DID NOT RAISE AirflowException",
)
ATHENA_NOT_DEFERRED = Entry(
    INTERNAL,
    "The test patches `AthenaHook.run_query` and expects `execute` to defer. Ours starts the query with "
    "`StartQueryExecution` on its own client, which the test class's `@mock_aws` answers, and asks its state "
    "before `defer()`: moto says SUCCEEDED, so ours returns the result without deferring. (Deferred, it would "
    "use our `JobTrigger`, not `AthenaTrigger`.)",
    match=r"DID NOT RAISE TaskDeferred",
)
BATCH_EVENT_VALIDATOR = Entry(
    INTERNAL,
    "The test patches `airflow.providers.amazon.aws.operators.batch.validate_execute_complete_event` to turn "
    "`{'dummy': 'event'}` into the official trigger's event. Our `execute_complete` reads the event it is "
    "given (ours, or an official trigger's by its job id) and never calls that function.",
    match=r"unexpected trigger event \{'dummy': 'event'\}",
)
KILL_NOT_BY_USER = Entry(
    DELIBERATE,
    "The test calls `on_kill()` on an operator no user stopped (there is no task instance at all). Ours "
    "cancels the job only when Airflow says a user stopped this task instance (`cancel_on_kill=\"user\"`); "
    "the official operator cancels on any kill, an eviction or a deploy included. Glue's "
    "`stop_job_run_on_kill` is superseded by `cancel_on_kill`.",
    match=r"Expected '(cancel_run|terminate_job|batch_stop_job_run|cancel_queries|cancel_sql_statement)' to be called "
          r"once\. Called 0 times",
    link=README_DIFFERENCES,
)
UNREADABLE_STORE = Entry(
    DELIBERATE,
    "The test's `task_state_store` cannot be read (it raises, or it is a runtime context with no task "
    "supervisor behind it). The official operator goes on as if there were no record (Athena's never reads "
    "the store); ours fails the try, because the record it cannot read may name a job that is running (README: "
    "store unreadable -> fail the try, never \"no record\").",
    match=r"could not read the checkpoint",
    link=README_DIFFERENCES,
)
MAGICMOCK_CONTEXT = Entry(
    NOT_APPLICABLE,
    "The test passes `MagicMock()` as the task context, so `context['task_state_store'].get(...)` answers a "
    "MagicMock where Airflow's store answers None or the JSON written earlier. Ours reads its checkpoint "
    "there (the official Batch and EMR Serverless operators never do) and refuses a value that is neither "
    "(README: store unreadable -> fail the try).",
    match=r"holds \"<MagicMock",
    link=README_DIFFERENCES,
)
FAKE_STORE_WITHOUT_RETENTION = Entry(
    NOT_APPLICABLE,
    "The test's `FakeTaskStateStore.set(key, value)` takes no `retention`; Airflow 3.3's `task_state_store.set` "
    "does, and ours writes its record with `retention=NEVER_EXPIRE` so that a job running for days keeps it "
    "past the 30-day default.",
    match=r"unexpected keyword argument 'retention'",
)

MAGICMOCK_CONTEXT_SWALLOWED = Entry(
    NOT_APPLICABLE,
    MAGICMOCK_CONTEXT.reason + " Here the refusal (a `CheckpointError`, an `AirflowException`) satisfies the "
    "test's `pytest.raises(AirflowException)`, which then finds `submit_job` never called.",
    match=r"Expected 'submit_job' to be called once\. Called 0 times",
    link=README_DIFFERENCES,
)

SNOWFLAKE_TRIGGER = Entry(
    DELIBERATE,
    "The test asserts the official `SnowflakeSqlApiTrigger`. Ours defers to its own `JobTrigger` (the fault "
    "policy, a cancel on a user's kill from the triggerer, the record's client), after the checkpoint the "
    "official deferrable path does not write; the official trigger's event is still taken when a task "
    "deferred by the official operator resumes with ours.",
    match=r"isinstance\(<durable_jobs\.core\.trigger\.JobTrigger .*SnowflakeSqlApiTrigger",
    link=SNOWFLAKE_DIFFERENCES,
)
SNOWFLAKE_DEFERRABLE_CHECKPOINT = Entry(
    DELIBERATE,
    "The test asserts that the deferrable path never touches `task_state_store` (upstream checkpoints the "
    "synchronous path only). Checkpointing the deferrable path before `defer()` is what durable-jobs adds: "
    "ours reads its record first, and the test's `MagicMock` store answers a MagicMock, which ours refuses as "
    "a record it cannot trust.",
    match=r"task_state_store key 'snowflake_query_ids_durable' holds \"<MagicMock",
    link=SNOWFLAKE_DIFFERENCES,
)
SNOWFLAKE_STORE_KEYS = Entry(
    DELIBERATE,
    "The test asserts one `task_state_store.set('snowflake_query_ids', handles)`. Ours writes that bare list "
    "as upstream does and its record under `snowflake_query_ids_durable` beside it (the intent before the "
    "POST, then the handles, then the outcome), all with `retention=NEVER_EXPIRE`.",
    match=r"Expected 'set' to be called once\. Called \d+ times\.\s+Calls: \[call\('snowflake_query_ids_durable'",
    link=README_DIFFERENCES,
)


# ---- Google Cloud Dataproc (provider 22.8.0): DataprocSubmitJobOperator
_DATAPROC = "unit/google/cloud/operators/test_dataproc.py"
DATAPROC_DIFFERENCES = "docs/google/dataproc.md#what-changes-against-upstream-on-purpose"
DATAPROC_HOOK_LOOKUP = Entry(
    INTERNAL,
    "The test patches `airflow.providers.google.cloud.operators.dataproc.DataprocHook` (the name the official "
    "operator builds its hook from) and asserts its `submit_job` / `wait_for_job` / `cancel_job` calls. Ours "
    "submits, polls and cancels through `DataprocJobClient`, which builds `DataprocHook` from "
    "`airflow.providers.google.cloud.hooks.dataproc`: the unpatched hook looks up the test's connection, which "
    "does not exist (and its request_id and job id would differ: ours carry the epoch's key).",
    match=r"The conn_id `[^`]+` isn't defined",
)
DATAPROC_START_FROM_TRIGGER = Entry(
    DELIBERATE,
    "The test asserts `start_from_trigger=True` is kept. Ours turns it off with a warning: a job submitted from "
    "the triggerer leaves nothing to checkpoint, so the durable operator submits from a worker and then defers.",
    match=r"where False = <Task\(DataprocSubmitJobOperator\): task-id>\.start_from_trigger",
    link=DATAPROC_DIFFERENCES,
)


# ---- Google BigQuery (provider 22.8.0): BigQueryInsertJobOperator
_BIGQUERY = "unit/google/cloud/operators/test_bigquery.py"
BIGQUERY_DIFFERENCES = "docs/google/bigquery.md#what-changes-vs-upstream"
BIGQUERY_MAGICMOCK_STORE = Entry(
    NOT_APPLICABLE,
    "The test passes `MagicMock()` as the task context (or as its `task_state_store`), so the store answers a "
    "MagicMock where Airflow's answers None or the JSON written earlier. Ours reads its checkpoint on the "
    "deferrable path too (the official deferrable path keeps none) and refuses a value that is neither a record "
    "nor an id (README: store unreadable -> fail the try); two of the tests compare that error's text.",
    match=r"holds \"<MagicMock|assert 'task_state_s\.\.\. start fresh\.' == ",
    link=README_DIFFERENCES,
)
BIGQUERY_MOCKED_JOB = Entry(
    INTERNAL,
    "The test patches `BigQueryHook` with a MagicMock whose `insert_job` / `get_job` return MagicMock jobs. The "
    "official operator waits with that job object's `result()`, which the mock answers at once, and never reads "
    "its `state`; ours polls `jobs.get` under the shared fault policy and reads `state`: a MagicMock, which is no "
    "BigQuery state (the wait ends at `unknown_state_budget`), or a `RUNNING` that never changes (the wait does "
    "not end; the suite's per-test time limit does: tests/official/plugin.py TEST_TIMEOUT).",
    match=r"in state \"<MagicMock name='BigQueryHook\(\)\.get_job\(\)\.state'|test took longer than [0-9]+ s",
)
BIGQUERY_MOCKED_NEW_JOB = Entry(
    INTERNAL,
    "The stored job failed or vanished, so both operators insert a new job. The official operator then waits "
    "on the inserted job object (`result()`, answered by the mock); ours reads the new job with `jobs.get`, "
    "which the test's mock answers with the old job's failure (or 404) for every id.",
    match=r"BigQueryJobError: BigQuery job \S+ failed: boom|JobFailedError: BigQuery job new-job-id no longer exists",
)
BIGQUERY_OWN_DONE_JOB = Entry(
    DELIBERATE,
    "The test expects `AirflowException` when the job id already exists and the job is DONE (`force_rerun=False`, "
    "or DONE not in `reattach_states`). Ours makes the id from this epoch's key, so a job found under it is this "
    "task's own: DONE and succeeded is success, not \"Job is already in state DONE\".",
    match=r"DID NOT RAISE AirflowException",
    link=BIGQUERY_DIFFERENCES,
)
BIGQUERY_FAILED_JOB_NEW_TRY = Entry(
    DELIBERATE,
    "The test expects a job that ended with a 429 `errorResult` to be replaced by a new job within the same try. "
    "Ours fails the try with the official text; Airflow's retry inserts the new job under a new key (a failed job "
    "is never reinserted inside a try: the retry's record decides).",
    match=r"BigQueryJobError: BigQuery job initial_generated_job_id failed: Quota exceeded",
    link=BIGQUERY_DIFFERENCES,
)
BIGQUERY_SUBMIT_ERROR = Entry(
    DELIBERATE,
    "The test suppresses the `RuntimeError` the mocked `insert_job` raises. Ours reports a rejected submit as "
    "`JobSubmitError` (an `AirflowException`) naming the endpoint and the idempotency key, chained to the "
    "`RuntimeError`, so the test's `suppress(RuntimeError)` does not catch it.",
    match=r"JobSubmitError: BigQuery POST projects/\{project\}/jobs \(jobs\.insert\) under idempotency key \S+ was "
          r"rejected \(rejected: RuntimeError",
    link=README_DIFFERENCES,
)


REASONS: tuple[Reason, ...] = (
    Reason(MAGICMOCK_CONTEXT_SWALLOWED, _ids(_BATCH, "TestBatchOperator::test_execute_with_failures")),
    Reason(UNREADABLE_STORE, (
        *_ids(
            _GLUE,
            "TestGlueJobOperator::test_deferrable_retry_reattaches_via_fallback_when_task_store_errors",
        ),
        *_ids(
            _ATHENA,
            "TestAthenaOperator::test_return_value",
        ),
    )),
    Reason(MAGICMOCK_CONTEXT, (
        *_ids(
            _BATCH,
            "TestBatchOperator::test_defer_but_fail_before_deferred",
            "TestBatchOperator::test_defer_but_failed_due_to_job_id_not_found",
            "TestBatchOperator::test_defer_but_success_before_deferred",
            "TestBatchOperator::test_defer_if_deferrable_param_set",
            "TestBatchOperator::test_do_not_wait_job_complete",
            "TestBatchOperator::test_execute_with_ecs_overrides",
            "TestBatchOperator::test_execute_with_eks_overrides",
            "TestBatchOperator::test_wait_job_complete_using_waiters",
        ),
        *_ids(
            _EMR,
            "TestEmrServerlessStartJobOperator::test_cancel_job_run",
            "TestEmrServerlessStartJobOperator::test_execute_deferrable_does_not_cancel",
            "TestEmrServerlessStartJobOperator::test_execute_max_attempts_cancel_job",
            "TestEmrServerlessStartJobOperator::test_execute_max_attempts_cancel_job_cancel_fails",
            "TestEmrServerlessStartJobOperator::test_execute_no_wait_for_completion_does_not_cancel",
            "TestEmrServerlessStartJobOperator::test_execute_waiter_other_exception_does_not_cancel",
            "TestEmrServerlessStartJobOperator::test_failed_start_job_run",
            "TestEmrServerlessStartJobOperator::test_job_run_app_not_started",
            "TestEmrServerlessStartJobOperator::test_job_run_app_not_started_no_wait_for_completion",
            "TestEmrServerlessStartJobOperator::test_job_run_app_started",
            "TestEmrServerlessStartJobOperator::test_job_run_app_started_no_wait_for_completion",
            "TestEmrServerlessStartJobOperator::test_job_run_job_failed",
            "TestEmrServerlessStartJobOperator::test_links_applicationui_enabled",
            "TestEmrServerlessStartJobOperator::test_links_applicationui_with_spark_enabled",
            "TestEmrServerlessStartJobOperator::test_links_cloudwatch_enabled",
            "TestEmrServerlessStartJobOperator::test_links_s3_enabled",
            "TestEmrServerlessStartJobOperator::test_links_spark_without_applicationui_enabled",
            "TestEmrServerlessStartJobOperator::test_links_start_job_default",
            "TestEmrServerlessStartJobOperator::test_start_job_custom_name",
            "TestEmrServerlessStartJobOperator::test_start_job_default_name",
            "TestEmrServerlessStartJobOperator::test_start_job_deferrable",
            "TestEmrServerlessStartJobOperator::test_start_job_deferrable_without_wait_for_completion",
            "TestEmrServerlessStartJobOperator::test_start_job_run_fail_on_wait_for_completion",
            "TestEmrServerlessStartJobOperatorOpenLineageInjection::test_inject_both_parent_and_transport_info",
            "TestEmrServerlessStartJobOperatorOpenLineageInjection::test_inject_parent_job_info_called_when_enabled",
            "TestEmrServerlessStartJobOperatorOpenLineageInjection::test_inject_parent_job_info_not_called_when_disabled",
            "TestEmrServerlessStartJobOperatorOpenLineageInjection::test_inject_parent_job_info_preserves_existing_config",
            "TestEmrServerlessStartJobOperatorOpenLineageInjection::test_inject_transport_info_called_when_enabled",
        ),
    )),
    Reason(FAKE_STORE_WITHOUT_RETENTION, (
        *_ids(
            _GLUE,
            "TestGlueJobOperatorDurableExecution::test_first_attempt_skips_the_retry_lookup_entirely",
            "TestGlueJobOperatorDurableExecution::test_fresh_submit_persists_before_polling",
            "TestGlueJobOperatorDurableExecution::test_retry_on_3_3_plus_sync_never_scans_or_tags",
            "TestGlueJobOperatorDurableExecution::test_wait_for_completion_false_still_persists_immediately",
        ),
    )),
    Reason(KILL_NOT_BY_USER, (
        *_ids(
            _DBX,
            "TestDatabricksRunNowOperator::test_on_kill",
            "TestDatabricksSQLStatementsOperator::test_on_kill",
            "TestDatabricksSubmitRunOperator::test_on_kill",
        ),
        *_ids(
            _BATCH,
            "TestBatchOperator::test_kill_job",
        ),
        *_ids(
            _GLUE,
            "TestGlueJobOperator::test_killed_with_stop_job_run_on_kill",
        ),
    )),
    Reason(BATCH_EVENT_VALIDATOR, (
        *_ids(
            _BATCH,
            "TestBatchOperator::test_execute_complete_failure",
            "TestBatchOperator::test_execute_complete_failure_without_logs",
            "TestBatchOperator::test_execute_complete_success_with_logs",
            "TestBatchOperator::test_execute_complete_success_without_logs",
        ),
    )),
    Reason(DATABRICKS_TOKEN, (
        *_ids(
            _DBX,
            "TestDatabricksRunNowOperator::test_exec_with_json_string_and_templated_named_parameters",
            "TestDatabricksSubmitRunOperator::test_databricks_submit_run_deferrable_operator_success_before_defer",
            "TestDatabricksSubmitRunOperator::test_exec_success",
            "TestDatabricksSubmitRunOperator::test_exec_with_xcom_arg_json_and_templated_named_parameters",
            "TestDatabricksSubmitRunOperator::test_no_wait_for_termination",
            "TestDatabricksSubmitRunOperator::test_wait_for_termination",
        ),
    )),
    Reason(DATABRICKS_SECOND_HOOK, (
        *_ids(
            _DBX,
            "TestDatabricksRunNowOperator::test_cancel_previous_runs",
            "TestDatabricksRunNowOperator::test_databricks_run_now_deferrable_operator_failed_before_defer",
            "TestDatabricksRunNowOperator::test_databricks_run_now_deferrable_operator_success_before_defer",
            "TestDatabricksRunNowOperator::test_exec_failure",
            "TestDatabricksRunNowOperator::test_exec_failure_with_message",
            "TestDatabricksRunNowOperator::test_exec_multiple_failures_with_message",
            "TestDatabricksRunNowOperator::test_exec_success",
            "TestDatabricksRunNowOperator::test_exec_with_job_name",
            "TestDatabricksRunNowOperator::test_no_cancel_previous_runs",
            "TestDatabricksRunNowOperator::test_no_wait_for_termination",
            "TestDatabricksRunNowOperator::test_wait_for_termination",
            "TestDatabricksSubmitRunOperator::test_databricks_submit_run_deferrable_operator_failed_before_defer",
            "TestDatabricksSubmitRunOperator::test_exec_failure",
            "TestDatabricksSubmitRunOperator::test_exec_pipeline_name",
        ),
    )),
    Reason(DATABRICKS_TRIGGER, (
        *_ids(
            _DBX,
            "TestDatabricksRunNowOperator::test_execute_task_deferred",
            "TestDatabricksSubmitRunOperator::test_execute_task_deferred",
        ),
    )),
    Reason(DATABRICKS_SQL_TRIGGER, (
        *_ids(
            _DBX,
            "TestDatabricksSQLStatementsOperator::test_execute_task_deferred",
        ),
    )),
    Reason(DATABRICKS_REPAIR_HANDLER, (
        *_ids(
            _DBX,
            "TestDatabricksRunNowOperator::test_deferrable_exec_with_databricks_repair_reason_new_settings",
            "TestDatabricksRunNowOperator::test_deferrable_exec_with_none_databricks_repair_reason_new_settings",
            "TestDatabricksRunNowOperator::test_execute_complete_failure_and_repair_run",
        ),
    )),
    Reason(DATABRICKS_CONTEXT_WITHOUT_TI, (
        *_ids(
            _DBX,
            "TestDatabricksRunNowOperator::test_execute_complete_repair_includes_named_job_parameters",
            "TestDatabricksSubmitRunOperator::test_execute_complete_repair_includes_job_parameters",
        ),
    )),
    Reason(DATABRICKS_STORE_KEYS, (
        *_ids(
            _DBX,
            "TestDatabricksRunNowOperatorDurable::test_persists_run_id_to_task_state_store_on_fresh_submit",
            "TestDatabricksRunNowOperatorDurable::test_resubmits_when_stored_run_in_terminal_failure",
            "TestDatabricksRunNowOperatorDurable::test_resubmits_when_stored_run_no_longer_exists",
            "TestDatabricksSubmitRunOperatorDurable::test_persists_run_id_to_task_state_store_on_fresh_submit",
            "TestDatabricksSubmitRunOperatorDurable::test_resubmits_when_stored_run_in_terminal_failure",
            "TestDatabricksSubmitRunOperatorDurable::test_resubmits_when_stored_run_no_longer_exists",
        ),
    )),
    Reason(RECORD_XCOM, (
        *_ids(
            _DBX,
            "TestDatabricksRunNowOperatorDurable::test_fresh_submit_pushes_run_xcoms_exactly_once",
            "TestDatabricksSubmitRunOperatorDurable::test_fresh_submit_pushes_run_xcoms_exactly_once",
        ),
    )),
    Reason(DATABRICKS_RECONNECT_JOB_NAME, (
        *_ids(
            _DBX,
            "TestDatabricksRunNowOperatorDurable::test_reconnect_with_job_name_resolves_job_id_for_repair",
        ),
    )),
    Reason(GLUE_CLIENT, (
        *_ids(
            _GLUE,
            "TestGlueJobOperator::test_deferrable_first_attempt_injects_task_uuid_but_skips_scan",
            "TestGlueJobOperator::test_deferrable_retry_does_not_swallow_task_uuid_scan_bug",
            "TestGlueJobOperator::test_deferrable_retry_reattaches_via_task_uuid_scan",
            "TestGlueJobOperator::test_deferrable_retry_submits_fresh_when_task_uuid_scan_client_error",
            "TestGlueJobOperator::test_execute_deferrable",
            "TestGlueJobOperator::test_execute_deferrable_forwards_hook_config_to_trigger",
            "TestGlueJobOperator::test_execute_with_verbose_logging",
            "TestGlueJobOperator::test_execute_without_failure[/glue-examples/glue-scripts/sample_aws_glue_job.py]",
            "TestGlueJobOperator::test_execute_without_failure[s3://glue-examples/glue-scripts/sample_aws_glue_job.py]",
            "TestGlueJobOperator::test_execute_without_verbose_logging",
            "TestGlueJobOperator::test_execute_without_waiting_for_completion",
            "TestGlueJobOperator::test_find_job_run_by_task_uuid_reconnects[RUNNING]",
            "TestGlueJobOperator::test_find_job_run_by_task_uuid_reconnects[STARTING]",
            "TestGlueJobOperator::test_find_job_run_by_task_uuid_reconnects[STOPPING]",
            "TestGlueJobOperator::test_find_job_run_by_task_uuid_reconnects[WAITING]",
            "TestGlueJobOperator::test_find_previous_job_run_does_not_fall_back_to_scan_on_xcom_state_mismatch",
            "TestGlueJobOperator::test_find_previous_job_run_reuses_from_xcom[RUNNING]",
            "TestGlueJobOperator::test_find_previous_job_run_reuses_from_xcom[STARTING]",
            "TestGlueJobOperator::test_find_previous_job_run_reuses_from_xcom[STOPPING]",
            "TestGlueJobOperator::test_find_previous_job_run_reuses_from_xcom[WAITING]",
            "TestGlueJobOperator::test_log_correct_url",
            "TestGlueJobOperator::test_no_script_file",
            "TestGlueJobOperator::test_replace_script_file",
            "TestGlueJobOperator::test_role_arn_execute_deferrable",
            "TestGlueJobOperator::test_upload_script_to_s3_no_upload",
            "TestGlueJobOperatorDurableExecution::test_already_succeeded_returns_without_resubmit",
            "TestGlueJobOperatorDurableExecution::test_durable_false_never_touches_store",
            "TestGlueJobOperatorDurableExecution::test_legacy_flag_still_warns_and_reconnects_like_durable",
            "TestGlueJobOperatorDurableExecution::test_not_found_resubmits_fresh",
            "TestGlueJobOperatorDurableExecution::test_reconnect_from_every_active_state[RUNNING]",
            "TestGlueJobOperatorDurableExecution::test_reconnect_from_every_active_state[STARTING]",
            "TestGlueJobOperatorDurableExecution::test_reconnect_from_every_active_state[STOPPING]",
            "TestGlueJobOperatorDurableExecution::test_reconnect_from_every_active_state[WAITING]",
            "TestGlueJobOperatorDurableExecution::test_reconnect_to_stopping_run_that_settles_stopped_raises",
            "TestGlueJobOperatorDurableExecution::test_reconnect_when_stored_run_is_running",
            "TestGlueJobOperatorDurableExecution::test_terminal_failure_resubmits_fresh[FAILED]",
            "TestGlueJobOperatorDurableExecution::test_terminal_failure_resubmits_fresh[STOPPED]",
            "TestGlueJobOperatorDurableExecution::test_terminal_failure_resubmits_fresh[TIMEOUT]",
            "TestGlueJobOperatorDurableExecution::test_terminal_resubmit_clears_stale_id_if_initialize_job_fails",
            "TestGlueJobOperatorDurableExecution::test_terminal_resubmit_skips_the_scan_when_store_already_had_an_id",
            "TestGlueJobOperatorOpenLineageInjection::test_inject_both_parent_and_transport_info",
            "TestGlueJobOperatorOpenLineageInjection::test_inject_parent_job_info_called_when_enabled",
            "TestGlueJobOperatorOpenLineageInjection::test_inject_parent_job_info_not_called_when_disabled",
            "TestGlueJobOperatorOpenLineageInjection::test_inject_parent_job_info_preserves_existing_script_args",
            "TestGlueJobOperatorOpenLineageInjection::test_inject_parent_job_info_with_durable_scan",
            "TestGlueJobOperatorOpenLineageInjection::test_inject_transport_info_called_when_enabled",
        ),
    )),
    Reason(BATCH_CLIENT, (
        *_ids(
            _BATCH,
            "TestBatchOperator::test_execute_without_failures",
        ),
    )),
    Reason(BATCH_CLIENT_VALIDATES, (
        *_ids(
            _BATCH,
            "TestBatchOperator::test_override_not_sent_if_not_set[ecs_properties_override]",
            "TestBatchOperator::test_override_not_sent_if_not_set[eks_properties_override]",
            "TestBatchOperator::test_override_not_sent_if_not_set[node_overrides]",
        ),
    )),
    Reason(ATHENA_CLIENT, (
        *_ids(
            _ATHENA,
            "TestAthenaOperator::test_hook_run_big_success_query",
            "TestAthenaOperator::test_hook_run_cancelled_query",
            "TestAthenaOperator::test_hook_run_failed_query_with_max_tries",
            "TestAthenaOperator::test_hook_run_failure_query",
            "TestAthenaOperator::test_hook_run_override_catalog",
            "TestAthenaOperator::test_hook_run_small_success_query",
            "TestAthenaOperator::test_hook_run_without_database",
            "TestAthenaOperator::test_optional_output_location",
        ),
    )),
    Reason(ATHENA_NOT_DEFERRED, (
        *_ids(
            _ATHENA,
            "TestAthenaOperator::test_is_deferred",
        ),
    )),
    Reason(SNOWFLAKE_TRIGGER, (
        *_ids(
            _SNOWFLAKE,
            "TestSnowflakeNotebookOperator::test_execute_deferred",
            "TestSnowflakeSqlApiOperator::test_snowflake_sql_api_execute_operator_async[multi]",
            "TestSnowflakeSqlApiOperator::test_snowflake_sql_api_execute_operator_async[single]",
        ),
    )),
    Reason(KILL_NOT_BY_USER, (
        *_ids(
            _SNOWFLAKE,
            "TestSnowflakeNotebookOperator::test_on_kill_with_queries",
            "TestSnowflakeSqlApiOperator::test_snowflake_sql_api_on_kill_cancels_queries",
        ),
    )),
    Reason(SNOWFLAKE_DEFERRABLE_CHECKPOINT, (
        *_ids(
            _SNOWFLAKE,
            "TestSnowflakeSqlApiOperatorDurable::test_deferrable_unaffected_by_durable",
        ),
    )),
    Reason(SNOWFLAKE_STORE_KEYS, (
        *_ids(
            _SNOWFLAKE,
            "TestSnowflakeSqlApiOperatorDurable::test_persists_query_ids_to_task_state_store_on_fresh_submit",
            "TestSnowflakeSqlApiOperatorDurable::test_resubmits_when_stored_query_in_terminal_error",
            "TestSnowflakeSqlApiOperatorDurable::test_resubmits_when_stored_query_not_found",
        ),
    )),
    Reason(DATAPROC_HOOK_LOOKUP, (
        *_ids(
            _DATAPROC,
            "TestDataprocSubmitJobOperator::test_dataproc_operator_execute_async_done_before_defer",
            "TestDataprocSubmitJobOperator::test_execute",
            "TestDataprocSubmitJobOperator::test_execute_async",
            "TestDataprocSubmitJobOperator::test_execute_openlineage_all_info_injection",
            "TestDataprocSubmitJobOperator::test_execute_openlineage_http_transport_info_injection",
            "TestDataprocSubmitJobOperator::test_execute_openlineage_parent_job_info_injection",
            "TestDataprocSubmitJobOperator::"
            "test_execute_openlineage_parent_job_info_injection_skipped_by_default_unless_enabled",
            "TestDataprocSubmitJobOperator::test_execute_openlineage_parent_job_info_injection_skipped_when_already_present",
            "TestDataprocSubmitJobOperator::"
            "test_execute_openlineage_parent_job_info_injection_skipped_when_ol_not_accessible",
            "TestDataprocSubmitJobOperator::"
            "test_execute_openlineage_transport_info_injection_skipped_by_default_unless_enabled",
            "TestDataprocSubmitJobOperator::test_execute_openlineage_transport_info_injection_skipped_when_already_present",
            "TestDataprocSubmitJobOperator::test_execute_openlineage_transport_info_injection_skipped_when_ol_not_accessible",
            "TestDataprocSubmitJobOperator::test_on_kill",
            "TestDataprocSubmitJobOperator::test_on_kill_after_execution_timeout",
        ),
    )),
    Reason(MAGICMOCK_CONTEXT, _ids(_DATAPROC, "TestDataprocSubmitJobOperator::test_execute_deferrable")),
    Reason(DATAPROC_HOOK_LOOKUP, (
        *_ids(
            _DATAPROC,
            "TestDataprocCreateBatchOperator::"
            "test_execute_openlineage_transport_info_injection_skipped_when_ol_not_accessible",
            "TestDataprocCreateBatchOperator::"
            "test_create_batch_long_taskid_labels_ignored",
            "TestDataprocCreateBatchOperator::"
            "test_create_batch_asdict_labels_updated",
            "TestDataprocCreateBatchOperator::"
            "test_create_batch_asdict_labels_uppercase_transformed",
            "TestDataprocCreateBatchOperator::"
            "test_create_batch_asdict_taskid_max_length_labels_updated",
            "TestDataprocCreateBatchOperator::"
            "test_create_batch_asobj_labels_updated",
            "TestDataprocCreateBatchOperator::"
            "test_create_batch_invalid_taskid_labels_ignored",
            "TestDataprocCreateBatchOperator::"
            "test_create_batch_labels_sanitize_underscores_and_dots",
            "TestDataprocCreateBatchOperator::"
            "test_execute_openlineage_all_info_injection",
            "TestDataprocCreateBatchOperator::"
            "test_execute_openlineage_parent_job_info_injection",
            "TestDataprocCreateBatchOperator::"
            "test_execute_openlineage_parent_job_info_injection_skipped_by_default_unless_enabled",
            "TestDataprocCreateBatchOperator::"
            "test_execute_openlineage_parent_job_info_injection_skipped_when_already_present",
            "TestDataprocCreateBatchOperator::"
            "test_execute_openlineage_parent_job_info_injection_skipped_when_ol_not_accessible",
            "TestDataprocCreateBatchOperator::"
            "test_execute_openlineage_transport_info_injection",
            "TestDataprocCreateBatchOperator::"
            "test_execute_openlineage_transport_info_injection_skipped_by_default_unless_enabled",
            "TestDataprocCreateBatchOperator::"
            "test_execute_openlineage_transport_info_injection_skipped_when_already_present",
        ),
    )),
    Reason(MAGICMOCK_CONTEXT, (
        *_ids(
            _DATAPROC,
            "TestDataprocCreateBatchOperator::"
            "test_execute",
            "TestDataprocCreateBatchOperator::"
            "test_execute_batch_already_exists_cancelled",
            "TestDataprocCreateBatchOperator::"
            "test_execute_batch_already_exists_fails",
            "TestDataprocCreateBatchOperator::"
            "test_execute_batch_already_exists_succeeds",
            "TestDataprocCreateBatchOperator::"
            "test_execute_with_batch_id_prefix",
            "TestDataprocCreateBatchOperator::"
            "test_execute_with_batch_id_prefix_generates_new_id_per_task_attempt",
            "TestDataprocCreateBatchOperator::"
            "test_execute_with_batch_id_prefix_retries_resource_not_ready_with_same_id",
            "TestDataprocCreateBatchOperator::"
            "test_execute_with_result_retry",
        ),
    )),
    Reason(DATAPROC_START_FROM_TRIGGER, _ids(
        _DATAPROC,
        "TestDataprocSubmitJobOperator::test_start_from_trigger_sets_start_trigger_args",
        "TestDataprocSubmitJobOperator::test_start_from_trigger_without_deferrable_does_not_set_args",
    )),
    Reason(BIGQUERY_MAGICMOCK_STORE, _ids(
        _BIGQUERY,
        "TestBigQueryInsertJobOperator::test_bigquery_insert_job_operator_async",
        "TestBigQueryInsertJobOperator::test_bigquery_insert_job_operator_async_error_before_deferred",
        "TestBigQueryInsertJobOperator::test_bigquery_insert_job_operator_async_inherits_hook_project_id_when_non_given",
        "TestBigQueryInsertJobOperator::test_bigquery_insert_job_operator_execute_complete",
        "TestBigQueryInsertJobOperator::test_bigquery_insert_job_operator_execute_complete_reassigns_job_id",
        "TestBigQueryInsertJobOperator::test_bigquery_insert_job_operator_with_job_id_generate",
        "TestBigQueryInsertJobOperator::test_execute_force_rerun_async",
        "TestBigQueryInsertJobOperatorDurable::test_deferrable_unaffected_by_durable",
    )),
    Reason(BIGQUERY_MOCKED_JOB, _ids(
        _BIGQUERY,
        "TestBigQueryInsertJobOperator::test_execute_adds_to_existing_labels",
        "TestBigQueryInsertJobOperator::test_execute_copy_success",
        "TestBigQueryInsertJobOperator::test_execute_force_rerun",
        "TestBigQueryInsertJobOperator::test_execute_generate_job_id_with_ti_try_number",
        "TestBigQueryInsertJobOperator::test_execute_inherits_labels_from_connection",
        "TestBigQueryInsertJobOperator::test_execute_openlineage_events",
        "TestBigQueryInsertJobOperator::test_execute_pushes_deprecated_job_id_path_xcom",
        "TestBigQueryInsertJobOperator::test_execute_query_success",
        "TestBigQueryInsertJobOperator::test_execute_reattach",
        "TestBigQueryInsertJobOperator::test_execute_respects_explicit_no_labels",
        "TestBigQueryInsertJobOperator::test_on_kill",
        "TestBigQueryInsertJobOperator::test_on_kill_after_execution_timeout",
        "TestBigQueryInsertJobOperatorDurable::test_configured_job_id_uses_rendered_template_not_raw_jinja",
        "TestBigQueryInsertJobOperatorDurable::test_durable_false_never_touches_task_state_store",
        "TestBigQueryInsertJobOperatorDurable::test_persists_job_id_to_task_state_store_on_fresh_submit",
        "TestBigQueryInsertJobOperatorDurable::test_reconnect_wins_over_force_rerun_default",
        "TestBigQueryInsertJobOperatorDurable::test_reconnects_to_running_job_without_resubmitting",
    )),
    Reason(BIGQUERY_MOCKED_NEW_JOB, _ids(
        _BIGQUERY,
        "TestBigQueryInsertJobOperatorDurable::test_resubmit_computes_id_from_configured_job_id_not_stale_stored_id",
        "TestBigQueryInsertJobOperatorDurable::test_resubmits_when_stored_job_in_terminal_failure",
        "TestBigQueryInsertJobOperatorDurable::test_resubmits_when_stored_job_not_found",
    )),
    Reason(BIGQUERY_OWN_DONE_JOB, _ids(
        _BIGQUERY,
        "TestBigQueryInsertJobOperator::test_execute_no_force_rerun",
        "TestBigQueryInsertJobOperator::test_execute_reattach_to_done_state",
    )),
    Reason(BIGQUERY_FAILED_JOB_NEW_TRY,
           _ids(_BIGQUERY, "TestBigQueryInsertJobOperator::test_execute_conflict_429_retry_resubmits_job")),
    Reason(BIGQUERY_SUBMIT_ERROR,
           _ids(_BIGQUERY, "TestBigQueryInsertJobOperator::test_execute_fails_openlineage_events")),
)

_SFN = "unit/amazon/aws/operators/test_step_function.py"
SFN_CLIENT = Entry(
    INTERNAL,
    "The test patches the operator's `StepFunctionHook.start_execution` (returning an ARN, None or ''). Ours "
    "starts the execution with `StartExecution` on its own client, named by the epoch's key "
    "(`<name>-<key>`, docs/aws.md), so the patched method is never called and the call goes to AWS itself, "
    "which the official test run refuses (no network): a host that does not resolve before anything was sent, "
    "so the try fails at once as a wrong setup.",
    match=r"AWS Step Functions submit(?: under idempotency key \S+ failed \(transient: EndpointConnectionError: "
          r"Could not connect to the endpoint URL|: (?:connection \S+|the SDK's defaults \(no connection id\)) "
          r"could not reach host)",
)
REASONS = (
    *REASONS,
    Reason(MAGICMOCK_CONTEXT, _ids(
        _SFN,
        "TestStepFunctionStartExecutionOperator::test_execute",
        "TestStepFunctionStartExecutionOperator::test_start_redrive_execution",
    )),
    Reason(SFN_CLIENT, _ids(
        _SFN,
        "TestStepFunctionStartExecutionOperator::test_step_function_no_execution_arn_returns[empty]",
        "TestStepFunctionStartExecutionOperator::test_step_function_no_execution_arn_returns[none]",
        "TestStepFunctionStartExecutionOperator::test_step_function_start_execution_deferrable",
    )),
)

DATABRICKS_TASK_LAUNCH = Entry(
    INTERNAL,
    "The test replaces `_launch_job` and `monitor_databricks_job` with mocks and calls `execute({})` on an "
    "operator with neither `existing_cluster_id` nor `new_cluster`. Ours does not call them standalone: it "
    "builds the same run JSON (`_get_run_json`, which raises the official ValueError for that operator) and "
    "submits it under the epoch's `idempotency_token` through `DatabricksJobClient`, then watches the run.",
    match=r"ValueError: Must specify either existing_cluster_id or new_cluster\.",
)
REASONS = (
    *REASONS,
    Reason(DATABRICKS_TASK_LAUNCH, _ids(
        _DBX,
        "TestDatabricksNotebookOperator::test_execute_with_wait_for_termination",
        "TestDatabricksNotebookOperator::test_execute_without_wait_for_termination",
    )),
    Reason(KILL_NOT_BY_USER, _ids(_DBX, "TestDatabricksTaskOperator::test_on_kill_cancels_run")),
)


# ---- Google Cloud Batch (provider 22.8.0): CloudBatchSubmitJobOperator
_CLOUD_BATCH = "unit/google/cloud/operators/test_cloud_batch.py"
REASONS = (
    *REASONS,
    Reason(MAGICMOCK_CONTEXT, _ids(
        _CLOUD_BATCH,
        "TestCloudBatchSubmitJobOperator::test_execute",
        "TestCloudBatchSubmitJobOperator::test_execute_complete",
        "TestCloudBatchSubmitJobOperator::test_execute_deferrable",
    )),
)


# ---- Google Cloud Run jobs (provider 22.8.0): CloudRunExecuteJobOperator (issue 16)
_CLOUD_RUN = "unit/google/cloud/operators/test_cloud_run.py"
REASONS = (
    *REASONS,
    Reason(MAGICMOCK_CONTEXT, _ids(
        _CLOUD_RUN,
        "TestCloudRunExecuteJobOperator::test_execute_complete_verbose_true_forwards_container_logs",
        "TestCloudRunExecuteJobOperator::test_execute_deferrable",
        "TestCloudRunExecuteJobOperator::test_execute_fail_all_failed_tasks",
        "TestCloudRunExecuteJobOperator::test_execute_fail_incomplete_failed_tasks",
        "TestCloudRunExecuteJobOperator::test_execute_fail_incomplete_succeeded_tasks",
        "TestCloudRunExecuteJobOperator::test_execute_fail_one_failed_task",
        "TestCloudRunExecuteJobOperator::test_execute_overrides",
        "TestCloudRunExecuteJobOperator::test_execute_persists_job_execution_details_link",
        "TestCloudRunExecuteJobOperator::test_execute_success",
        "TestCloudRunExecuteJobOperator::test_execute_verbose_false_does_not_call_logging_client",
        "TestCloudRunExecuteJobOperator::test_execute_verbose_true_forwards_container_logs",
        "TestCloudRunExecuteJobOperator::test_execute_verbose_true_forwards_structured_log_payload",
        "TestCloudRunExecuteJobOperator::test_execute_verbose_true_logging_api_failure_warns_and_succeeds",
        "TestCloudRunExecuteJobOperator::test_execute_verbose_true_with_failed_execution_still_forwards_logs",
        "TestCloudRunExecuteJobOperator::test_execute_verbose_true_with_operation_exception_still_forwards_logs",
        "TestCloudRunExecuteJobOperator::test_execute_verbose_true_with_operation_exception_waits_for_late_logs",
        "TestCloudRunExecuteJobOperator::test_execute_with_transport",
    )),
)


# ---- Google Cloud Dataflow templates (provider 22.8.0): DataflowTemplatedJobStartOperator,
# DataflowStartFlexTemplateOperator (issue 16; docs/google/dataflow.md)
_DATAFLOW = "unit/google/cloud/operators/test_dataflow.py"
DATAFLOW_HOOK_MOCKED = Entry(
    INTERNAL,
    "The test patches `airflow.providers.google.cloud.operators.dataflow.DataflowHook` and asserts its "
    "`start_template_dataflow` / `start_flex_template` / `launch_job_with_*` calls, or the official trigger's "
    "arguments. Ours launches through the hook's REST client (`get_conn().projects().locations().templates()` / "
    "`flexTemplates().launch(...).execute(num_retries=0)`, under the key-derived job name) and defers to its own "
    "`JobTrigger`; on the mock that launch answers a MagicMock instead of `{'job': {...}}`, which ours refuses "
    "as an unreadable reply.",
    match=r"launch answered (no job id|a reply that is not JSON) \(<MagicMock",
)
DATAFLOW_KILL_NOT_BY_USER = Entry(
    DELIBERATE,
    KILL_NOT_BY_USER.reason.split(" Glue's")[0] + " `cancel_on_kill=True` (upstream's boolean) is read as \"user\".",
    match=r"Expected 'cancel_job' to be called once\. Called 0 times",
    link=README_DIFFERENCES,
)
REASONS = (
    *REASONS,
    Reason(DATAFLOW_HOOK_MOCKED, _ids(
        _DATAFLOW,
        "TestDataflowTemplatedJobStartOperator::test_execute",
        "TestDataflowTemplatedJobStartOperator::test_deferrable_threads_cancel_on_kill_false_into_trigger",
        "TestDataflowStartFlexTemplateOperator::test_deferrable_threads_cancel_on_kill_false_into_trigger",
        "TestDataflowStartFlexTemplateOperator::test_deferrable_threads_drain_pipeline_into_trigger",
    )),
    Reason(MAGICMOCK_CONTEXT, _ids(
        _DATAFLOW,
        "TestDataflowTemplatedJobStartOperator::test_execute_with_deferrable_mode",
        "TestDataflowStartFlexTemplateOperator::test_execute",
        "TestDataflowStartFlexTemplateOperator::test_execute_with_deferrable_mode",
    )),
    Reason(DATAFLOW_KILL_NOT_BY_USER, _ids(_DATAFLOW, "TestDataflowStartFlexTemplateOperator::test_on_kill")),
)


# ---- Amazon EMR on EKS (amazon 9.39.0): EmrContainerOperator (issue 15; docs/emulators/aws-emr-containers.md)
_EMR_CONTAINERS = "unit/amazon/aws/operators/test_emr_containers.py"
EMR_CONTAINERS_CLIENT = Entry(
    INTERNAL,
    "The test mocks `EmrContainerHook.submit_job` / `check_query_status` (or the hook's `conn`). Ours starts the "
    "run with `StartJobRun` on a boto3 client of its own with SDK retries off (`get_client_type`: the reference "
    "does not say a same-token resend is deduplicated, so a lost reply is looked for by `clientToken` before "
    "any resend), which the test does not mock: botocore validates the request first and refuses the test's "
    "role ARN `arn:aws:somerole` (16 characters; StartJobRun's minimum is 20). Past that, the token tests "
    "would see `<client_request_token>-<key>` or the key instead of the raw token / a UUID4 per call "
    "(deliberate: docs/emulators/aws-emr-containers.md), and the defer tests ours `JobTrigger`.",
    match=r"Invalid length for parameter executionRoleArn, value: 16, valid min length: 20",
)
REASONS = (
    *REASONS,
    Reason(EMR_CONTAINERS_CLIENT, _ids(
        _EMR_CONTAINERS,
        "TestEmrContainerOperator::test_execute_generates_fresh_token_per_attempt",
        "TestEmrContainerOperator::test_execute_honors_explicit_token_across_attempts",
        "TestEmrContainerOperator::test_execute_with_failure",
        "TestEmrContainerOperator::test_execute_with_polling",
        "TestEmrContainerOperator::test_execute_with_polling_timeout",
        "TestEmrContainerOperator::test_execute_without_failure",
        "TestEmrContainerOperator::test_operator_defer",
        "TestEmrContainerOperator::test_operator_defer_with_timeout",
    )),
    Reason(MAGICMOCK_CONTEXT, _ids(
        _EMR_CONTAINERS,
        "TestEmrContainerOperatorOpenLineageInjection::test_inject_both_parent_and_transport_info",
        "TestEmrContainerOperatorOpenLineageInjection::test_inject_parent_job_info_called_when_enabled",
        "TestEmrContainerOperatorOpenLineageInjection::test_inject_parent_job_info_not_called_when_disabled",
        "TestEmrContainerOperatorOpenLineageInjection::test_inject_parent_job_info_preserves_existing_config",
        "TestEmrContainerOperatorOpenLineageInjection::test_inject_transport_info_called_when_enabled",
    )),
)


# ---- Amazon ECS (amazon 9.39.0): EcsRunTaskOperator (issue 15; docs/emulators/aws-ecs.md)
_ECS = "unit/amazon/aws/operators/test_ecs.py"
_ECS_DIFFERENCES = "docs/emulators/aws-ecs.md#differences-from-the-official-operator"
ECS_WAIT_MOCKED = Entry(
    INTERNAL,
    "The test patches `EcsRunTaskOperator._wait_for_task_ended` (botocore's `tasks_stopped` waiter) and "
    "`_check_success_task`, and leaves the operator's `client` a bare MagicMock. Ours waits by reading the task "
    "with `DescribeTasks` under the fault policy (`EcsJobClient.status`), which the test does not patch: the "
    "MagicMock reply has no `tasks` member, which ours reads as an unreadable reply until the poll budget is "
    "spent (2 s in this suite).",
    match=r"PollBudgetExceededError: Amazon ECS ecs:DescribeTasks for task \S+ kept failing",
)
ECS_RUN_TASK_MOCK_REPLY = Entry(
    INTERNAL,
    "The test's `client.run_task` returns a bare MagicMock. Upstream indexes it (`response['failures']`, a "
    "MagicMock of length 0); ours reads RunTask's documented `failures` member through `field()`, and a reply "
    "without it is unreadable (botocore turns a body that is not JSON into `{'message': ...}`): the submit is "
    "resent under the same `clientToken` until the budget is spent.",
    match=r"Amazon ECS RunTask answered without 'failures'",
)
ECS_TOKEN = Entry(
    DELIBERATE,
    "The test asserts RunTask's exact arguments. Ours adds `clientToken` (the epoch's key: a resend returns the "
    "task ECS already started) and the tag `durable-jobs:key` (how a retry finds the task), "
    "docs/emulators/aws-ecs.md.",
    match=r"clientToken='[0-9a-f]{32}'",
    link=_ECS_DIFFERENCES,
)
ECS_TRIGGER = Entry(
    DELIBERATE,
    "The test asserts the official `TaskDoneTrigger` (and its fields). Ours defers to its own `JobTrigger` (the "
    "fault policy, a cancel on a user's kill, the record's client) after the same checkpoint; an official "
    "trigger's event (`task_arn`, `cluster`) is still taken when a task deferred by the official operator "
    "resumes with ours.",
    match=r"JobTrigger",
    link=_ECS_DIFFERENCES,
)
REASONS = (
    *REASONS,
    Reason(ECS_WAIT_MOCKED, _ids(
        _ECS,
        "TestEcsRunTaskOperator::test_cleanup_failure_does_not_mask_original_exception",
        "TestEcsRunTaskOperator::test_cleanup_on_post_start_failure",
        *(f"TestEcsRunTaskOperator::test_execute_without_failures[{p}]" for p in (
            "-None-None-tags4-None-expected_args4", "EC2-None-None-None-None-expected_args0",
            "EC2-None-None-tags3-None-expected_args3",
            "EC2-capacity_provider_strategy7-LATEST-None-None-expected_args7",
            "EXTERNAL-None-None-None-None-expected_args1", "FARGATE-None-LATEST-None-None-expected_args2",
            "FARGATE-None-None-None-volume_configurations8-expected_args8",
            "FARGATE-capacity_provider_strategy6-LATEST-None-None-expected_args6",
            "None-capacity_provider_strategy5-LATEST-None-None-expected_args5",
            "None-capacity_provider_strategy9-None-None-volume_configurations9-expected_args9")),
        *(f"TestEcsRunTaskOperator::test_reattach_successful[{p}]" for p in (
            "multiple-arns--tags3", "multiple-arns-EC2-None", "multiple-arns-EC2-tags2",
            "multiple-arns-FARGATE-None",
            "simgle-arn--tags3", "simgle-arn-EC2-None", "simgle-arn-EC2-tags2", "simgle-arn-FARGATE-None")),
    )),
    Reason(ECS_RUN_TASK_MOCK_REPLY, _ids(
        _ECS,
        "TestEcsRunTaskOperator::test_execute_xcom_disabled",
        "TestEcsRunTaskOperator::test_execute_xcom_with_log",
        "TestEcsRunTaskOperator::test_execute_xcom_with_no_log",
        "TestEcsRunTaskOperator::test_execute_xcom_with_no_log_fetcher",
    )),
    Reason(ECS_TOKEN, _ids(_ECS, "TestEcsRunTaskOperator::test_execute_with_failures")),
    Reason(ECS_TRIGGER, _ids(
        _ECS,
        "TestEcsRunTaskOperator::test_with_defer",
        "TestEcsRunTaskOperator::test_with_defer_passes_awslogs_region_to_trigger",
    )),
)



# ---- Amazon Redshift Data API (amazon 9.39.0): RedshiftDataOperator (issue 15; docs/emulators/aws-redshift-data.md)
_RSD = "unit/amazon/aws/operators/test_redshift_data.py"
_RSD_DIFFERENCES = "docs/emulators/aws-redshift-data.md#differences-from-the-official-operator"
RSD_EXECUTE_QUERY_MOCKED = Entry(
    INTERNAL,
    "The test patches `RedshiftDataHook.execute_query` (and leaves the hook's `conn` a MagicMock). That method "
    "cannot send a `ClientToken`, so ours calls `ExecuteStatement` / `BatchExecuteStatement` on the client itself "
    "(`RedshiftDataJobClient`): the patched method is never called, and the MagicMock client's reply has no `Id` "
    "member, which ours reads as an unreadable reply (or, with the client unpatched, the call goes to the network, "
    "refused in this suite).",
    match=r"Expected 'execute_query' to be called once. Called 0 times|ExecuteStatement answered without 'Id'"
          r"|Could not connect to the endpoint URL",
)
RSD_TOKEN = Entry(
    DELIBERATE,
    "The test asserts ExecuteStatement's exact arguments. Ours adds `ClientToken` (the epoch's key: a resend returns "
    "the statement the Data API already ran), docs/emulators/aws-redshift-data.md.",
    match=r"ClientToken='[0-9a-f]{32}'",
    link=_RSD_DIFFERENCES,
)
RSD_DEFERRABLE_CHECKPOINT = Entry(
    DELIBERATE,
    "The test asserts that the deferrable path never reads `task_state_store` (upstream checkpoints the synchronous "
    "path only). Ours checkpoints both paths; the test's store is a MagicMock, whose value ours refuses to take for "
    "a record.",
    match=r"CheckpointError: task_state_store key 'redshift_statement_id_durable' holds",
    link=_RSD_DIFFERENCES,
)
RSD_KILL = Entry(
    DELIBERATE,
    "The test calls `on_kill()` outside any task instance and expects `CancelStatement`. Ours cancels only when a "
    "user stopped the task (`cancel_on_kill=True` maps to the policy \"user\"); a kill Airflow cannot attribute to "
    "a user (an eviction, a deploy) leaves the statement for the retry to reconnect to.",
    match=r"Expected 'cancel_statement' to be called once. Called 0 times",
    link=_RSD_DIFFERENCES,
)
RSD_WARNING = Entry(
    DELIBERATE,
    "The test expects one warning for deferrable=True with wait_for_completion=False. Ours logs upstream's and the "
    "durable mixin's (the task succeeds when the statement is accepted, which is not success).",
    match=r"Expected 'warning' to be called once. Called 2 times",
    link=_RSD_DIFFERENCES,
)
REASONS = (
    *REASONS,
    Reason(RSD_EXECUTE_QUERY_MOCKED, _ids(
        _RSD,
        "TestRedshiftDataOperator::test_execute",
        "TestRedshiftDataOperator::test_execute_defer",
        "TestRedshiftDataOperator::test_execute_defer_propagates_cancel_on_kill_false",
        "TestRedshiftDataOperator::test_execute_finished_before_defer",
        "TestRedshiftDataOperator::test_execute_new_session",
        "TestRedshiftDataOperator::test_execute_with_workgroup_name",
        "TestRedshiftDataOperator::test_no_wait_for_completion",
        "TestRedshiftDataOperatorDurable::test_durable_false_never_touches_task_state_store",
        "TestRedshiftDataOperatorDurable::test_persists_statement_id_to_task_state_store_on_fresh_submit",
        "TestRedshiftDataOperatorDurable::test_resubmits_when_stored_statement_in_terminal_failure",
        "TestRedshiftDataOperatorDurable::test_resubmits_when_stored_statement_not_found",
    )),
    Reason(RSD_TOKEN, _ids(_RSD, "TestRedshiftDataOperator::test_return_sql_result")),
    Reason(RSD_DEFERRABLE_CHECKPOINT, _ids(
        _RSD, "TestRedshiftDataOperatorDurable::test_deferrable_unaffected_by_durable")),
    Reason(RSD_KILL, _ids(_RSD, "TestRedshiftDataOperator::test_on_kill_with_query")),
    Reason(RSD_WARNING, _ids(_RSD, "TestRedshiftDataOperator::test_init_warns_when_deferrable_has_no_effect")),
)

def table() -> dict[str, Entry]:
    """Node id (relative to the provider's ``tests`` folder) -> its entry."""
    out: dict[str, Entry] = {}
    for reason in REASONS:
        for node in reason.tests:
            if node in out:
                raise ValueError(f"{node} is listed twice in tests/official/expected.py")
            out[node] = reason.entry
    return out


# ---- Amazon EMR steps (amazon 9.39.0): EmrAddStepsOperator (issue 15; docs/emulators/aws-emr-steps.md)
_EMR_STEPS = "unit/amazon/aws/operators/test_emr_add_steps.py"
EMR_STEPS_CLIENT = Entry(
    INTERNAL,
    "The test mocks the hook's `conn` (or patches `EmrHook.add_job_flow_steps`). AddJobFlowSteps takes no "
    "idempotency token, so ours sends it through a client of its own with botocore's retries off (a retried lost "
    "reply would add every step again) and looks the steps up with ListSteps before any resend "
    "(`EmrStepsJobClient`): the mocked client is never called and the call goes to the network, refused in this "
    "suite.",
    match=r"Could not connect to the endpoint URL",
)
REASONS = (
    *REASONS,
    Reason(EMR_STEPS_CLIENT, _ids(
        _EMR_STEPS,
        "TestEmrAddStepsOperator::test_does_not_inject_openlineage_parent_job_information[disabled]",
        "TestEmrAddStepsOperator::test_does_not_inject_openlineage_parent_job_information[no-parent-information]",
        "TestEmrAddStepsOperator::test_emr_add_steps_deferrable",
        "TestEmrAddStepsOperator::test_inject_openlineage_parent_job_information",
    )),
    Reason(MAGICMOCK_CONTEXT, _ids(
        _EMR_STEPS,
        "TestEmrAddStepsOperator::test_execute_returns_step_id",
        "TestEmrAddStepsOperator::test_init_with_cluster_name",
        "TestEmrAddStepsOperator::test_render_template_from_file",
        "TestEmrAddStepsOperator::test_wait_for_completion",
    )),
)


# ---- Amazon SageMaker (amazon 9.39.0): SageMakerTrainingOperator, SageMakerProcessingOperator,
# SageMakerTransformOperator (issue 15; docs/emulators/aws-sagemaker.md)
_SM_TRAINING = "unit/amazon/aws/operators/test_sagemaker_training.py"
_SM_PROCESSING = "unit/amazon/aws/operators/test_sagemaker_processing.py"
_SM_TRANSFORM = "unit/amazon/aws/operators/test_sagemaker_transform.py"
SAGEMAKER_CREATE_MOCKED = Entry(
    INTERNAL,
    "The test patches `SageMakerHook.create_training_job` / `create_transform_job`, which check the S3 inputs "
    "(`check_training_config`, `check_s3_url`) and then call the client. Ours makes the same S3 check itself and "
    "creates the job with `CreateTrainingJob` / `CreateTransformJob` on the hook's client under the keyed name "
    "(`SageMakerJobClient`): the patched method is never called, and the check runs on the test's placeholder "
    "URI `s3_uri`, which `S3Hook.parse_s3_url` refuses (as upstream's check would, had the test not patched it "
    "out).",
    match=r"S3HookUriParseFailure: .*provided: \"s3_uri\"",
)
SAGEMAKER_NAME_PATTERN = Entry(
    DELIBERATE,
    "The test names its processing job `job_name`. SageMaker's names follow `^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}` "
    "(no underscores: AWS refuses the create); ours builds the keyed name `<name>-<key>` and checks it before "
    "anything is sent, failing with an error that names the field and the fix (upstream sends it and lets AWS "
    "refuse it).",
    match=r"DurableJobConfigError: ProcessingJobName 'job_name' does not fit SageMaker's pattern",
    link=AWS_DIFFERENCES,
)
SAGEMAKER_OFFICIAL_ERROR_EVENT = Entry(
    DELIBERATE,
    "The test hands `execute_complete` the official trigger's `{'status': 'error', ...}` event and expects "
    "upstream's RuntimeError. Ours takes an official trigger's event as the job's outcome only when it says "
    "success (an error may be the waiter's own, not the job's); otherwise it watches the job with its own "
    "`JobTrigger`, which fails the task with SageMaker's `FailureReason` once the job is Failed: it defers "
    "again.",
    match=r"TaskDeferred",
    link=AWS_DIFFERENCES,
)
REASONS = (
    *REASONS,
    Reason(SAGEMAKER_CREATE_MOCKED, (
        *_ids(
            _SM_TRAINING,
            "TestSageMakerTrainingOperator::test_deferred_trigger_receives_hook_configuration",
            "TestSageMakerTrainingOperator::test_execute_openlineage_data",
            "TestSageMakerTrainingOperator::test_execute_without_check_if_job_exists",
            "TestSageMakerTrainingOperator::test_integer_fields",
            "TestSageMakerTrainingOperator::test_operator_complete_before_defer",
            "TestSageMakerTrainingOperator::test_operator_defer",
        ),
        *_ids(
            _SM_TRANSFORM,
            "TestSageMakerTransformOperator::test_deferred_trigger_receives_hook_configuration",
            "TestSageMakerTransformOperator::test_execute",
            "TestSageMakerTransformOperator::test_execute_with_check_if_job_exists",
            "TestSageMakerTransformOperator::test_execute_without_check_if_job_exists",
            "TestSageMakerTransformOperator::test_execute_without_check_if_model_exists",
            "TestSageMakerTransformOperator::test_integer_fields",
            "TestSageMakerTransformOperator::test_log_correct_url",
            "TestSageMakerTransformOperator::test_operator_complete_before_defer",
            "TestSageMakerTransformOperator::test_operator_defer",
            "TestSageMakerTransformOperator::test_operator_lineage_data",
            "TestSageMakerTransformOperator::test_when_model_already_exists_it_should_add_timestamp_to_model_name",
        ),
    )),
    Reason(SAGEMAKER_NAME_PATTERN, _ids(
        _SM_PROCESSING,
        "TestSageMakerProcessingOperator::test_deferred_trigger_receives_hook_configuration",
        "TestSageMakerProcessingOperator::test_execute",
        "TestSageMakerProcessingOperator::test_execute_with_existing_job_timestamp",
        "TestSageMakerProcessingOperator::test_execute_with_stopping_condition",
        "TestSageMakerProcessingOperator::test_integer_fields_with_stopping_condition",
        "TestSageMakerProcessingOperator::test_integer_fields_without_stopping_condition",
        "TestSageMakerProcessingOperator::test_operator_complete_before_defer",
        "TestSageMakerProcessingOperator::test_operator_defer",
        "TestSageMakerProcessingOperator::test_operator_openlineage_data",
        "TestSageMakerProcessingOperatorOutputFiles::test_no_output_files_returns_unchanged",
        "TestSageMakerProcessingOperatorOutputFiles::test_output_files_invalid_json_sets_error",
        "TestSageMakerProcessingOperatorOutputFiles::test_output_files_no_matching_output_logs_warning",
        "TestSageMakerProcessingOperatorOutputFiles::test_output_files_not_found_sets_error",
        "TestSageMakerProcessingOperatorOutputFiles::test_output_files_read_from_s3",
        "TestSageMakerProcessingOperatorOutputFiles::test_output_files_s3_error_does_not_fail_task",
    )),
    Reason(SAGEMAKER_OFFICIAL_ERROR_EVENT, _ids(
        _SM_TRANSFORM,
        "TestSageMakerTransformOperator::test_execute_complete_raises_when_job_failed_during_deferred_wait",
    )),
)
