"""The vendor registry: the one hand-written list of what durable-jobs supports.

One :class:`Family` per vendor family (a provider package: Databricks, AWS, ...), each with its
:class:`Service` entries (one ``JobClient`` each) and their drop-in :class:`Operator` classes.
Everything else that needs a vendor list is generated from here: Airflow's provider info
(:func:`durable_jobs.get_provider_info`), the README operator table, the lint's knowledge of job
APIs, the crash matrix's vendor names, the demo's sections and the docs reference.

Data only: classpaths are strings, nothing is imported, so the lint and the docs read this
without Airflow or a vendor provider installed. Families with no ``services`` are known to the
lint only (their submit calls are recognised) until their durable operators exist.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

#: The Airflow config section of every option below (``[durable_jobs]``).
CONFIG_SECTION = "durable_jobs"
VERSION_ADDED = "0.1.0"


@dataclass(frozen=True)
class ConfigOption:
    """One ``[durable_jobs]`` option, declared to Airflow through provider info."""

    name: str
    type: str  # "string" | "boolean" | "integer" | "float" (Airflow's provider-info schema)
    default: str
    description: str
    example: str | None = None
    version_added: str = VERSION_ADDED

    @property
    def env_var(self) -> str:
        return f"AIRFLOW__{CONFIG_SECTION.upper()}__{self.name.upper()}"


@dataclass(frozen=True)
class Operator:
    """A drop-in durable operator: same class name and arguments as ``official``."""

    name: str
    module: str
    official: str
    #: How the idempotency key reaches the vendor (markdown, for the README table).
    mechanism: str
    #: The crash suite's vendor key for the matrix rows run with this operator (None: no rows yet).
    crash: str | None = None

    @property
    def classpath(self) -> str:
        return f"{self.module}.{self.name}"

    @property
    def official_name(self) -> str:
        return self.official.rpartition(".")[2]


@dataclass(frozen=True)
class Service:
    """One job API with its own ``JobClient`` (one Airflow "integration")."""

    key: str
    name: str
    doc_url: str
    client: str
    operators: tuple[Operator, ...]
    #: What one submission creates, as the crash matrix counts it ("run", "job", "query").
    unit: str = "job"
    #: How ``astatuses`` asks for many jobs at once; empty: one status call per job.
    batch_status: str = ""
    extra_links: tuple[str, ...] = ()
    #: The test double the tests, the demo and the crash suite run it against (a phrase).
    emulator: str = ""
    tags: tuple[str, ...] = ("service",)
    #: An install extra of its own, on top of the family's, when its official hook needs another provider
    #: (``pip install "airflow-durable-jobs[<extra>]"``); empty: the family's extra is enough.
    extra: str = ""
    #: The provider distribution that extra adds (checked against pyproject.toml).
    extra_provider: str = ""

    @property
    def integration(self) -> str:
        return f"{self.name} (durable)"

    @property
    def hook_module(self) -> str:
        return self.client.rpartition(".")[0]


@dataclass(frozen=True)
class Family:
    """A vendor family: one official provider package, one install extra, its services."""

    key: str
    name: str
    #: ``pip install "airflow-durable-jobs[<extra>]"``.
    extra: str
    #: The official provider distribution whose hooks and operators we build on.
    provider: str
    services: tuple[Service, ...] = ()
    #: Docs page (repository path) that explains the family.
    docs: str = ""
    #: ``module:function`` of its section in ``durable-jobs demo`` (prints, returns wrong rows).
    demo: str = ""
    config: tuple[ConfigOption, ...] = ()
    # --- what the lint recognises in DAG code (the family's hooks, SDKs and REST paths) ---
    #: Hook / SDK methods that create a job.
    submit_methods: frozenset[str] = frozenset()
    #: (method, regex on the receiver's source text): submits only on such a receiver.
    submit_receivers: tuple[tuple[str, str], ...] = ()
    #: REST paths that submit when passed to a generic HTTP helper.
    submit_paths: tuple[str, ...] = ()
    #: One-shot status reads (a task calling one on another task's job is polling it).
    status_methods: frozenset[str] = frozenset()
    #: Official operators that return on acceptance unless told otherwise: class name -> the argument that
    #: turns the wait on (None: only ``deferrable=True`` makes them wait, or nothing does). Read from the
    #: providers' own signatures and ``execute()`` code at our pins.
    wait_off_by_default: dict[str, str | None] = field(default_factory=dict)
    #: Official operators (full class paths) that checkpoint their synchronous path with the
    #: SDK's ``ResumableJobMixin`` themselves.
    official_resumable: frozenset[str] = frozenset()

    @property
    def operators(self) -> tuple[Operator, ...]:
        return tuple(op for service in self.services for op in service.operators)


#: Options that hold for every vendor.
CORE_CONFIG: tuple[ConfigOption, ...] = (
    ConfigOption(
        "poll_error_budget", "float", "600",
        "Seconds of failing status calls (5xx, 429, resets, timeouts, replies that are not JSON) a task bears "
        "while it watches a job, on the synchronous and the deferrable path, before it fails the try. The job "
        "may be running all along: the retry reconnects to it. A time, not a count of attempts.",
        example="1800",
    ),
    ConfigOption(
        "unknown_state_budget", "float", "600",
        "Seconds a task keeps watching a job the vendor reports in a state durable-jobs' state table does not "
        "list (a state added after this release). The job is never taken to have ended on such a state; past "
        "the budget the try fails and the job is left running for the retry to reconnect.",
        example="3600",
    ),
    ConfigOption(
        "http_timeout_seconds", "float", "60",
        "Seconds one HTTP call to Databricks may take (submit, status, cancel), unless the connection's "
        "``timeout_seconds`` extra says otherwise; the same for the Snowflake SQL API, unless the operator's "
        "``hook_params`` give ``http_request_kwargs`` / ``aiohttp_request_kwargs`` a ``timeout``. AWS clients "
        "keep botocore's timeouts, set as for the official operators: ``botocore_config`` or the "
        "connection's ``config_kwargs`` extra (``connect_timeout``, ``read_timeout``).",
        example="30",
    ),
    ConfigOption(
        "shared_poller", "boolean", "False",
        "Deferred tasks share one poller per vendor connection in the triggerer: one client (one session), "
        "one polling task, the vendor's batch status calls (AWS Batch DescribeJobs, Databricks' active-run "
        "listing, ...) instead of one status call, one wake-up and one socket per task. Off by default until "
        "the crash suite's outage and timeout cells run through it (they watch per-job status calls) and the "
        "benchmark's targets are met; False: each trigger polls its own job.",
        example="True",
    ),
    ConfigOption(
        "poll_requests_per_second", "float", "50",
        "The most status requests per second the shared poller sends over one vendor connection (it also "
        "spreads each round's requests over the poll interval and honours Retry-After). The default stays "
        "under Databricks' documented 100 requests/s for ``jobs/runs/get``; lower it when other clients "
        "share the account's limits.",
        example="20",
    ),
)

AWS_CONFIG = (
    ConfigOption(
        "aws_list_consistency_seconds", "float", "15",
        "AWS vendors without an idempotency token (Batch, Glue) are found again by listing their jobs, "
        "and AWS listings are eventually consistent: an empty listing is not taken as proof that a job "
        "does not exist until this many seconds have passed since the submit attempt (or, after a crash, "
        "since the intent was written).",
        example="30",
    ),
)

_AWS = "airflow.providers.amazon.aws.operators"
_SNOWFLAKE = "airflow.providers.snowflake.operators.snowflake"

_GOOGLE = "airflow.providers.google.cloud.operators"
#: Google Cloud services, one constant each (filled as each service's durable operators land).
_GOOGLE_BIGQUERY: tuple[Service, ...] = (
    Service(
        key="bigquery", name="Google BigQuery", unit="job", tags=("google",),
        doc_url="https://cloud.google.com/bigquery/docs/reference/rest/v2/jobs",
        client="durable_jobs.hooks.google_bigquery.BigQueryJobClient",
        batch_status="jobs.list (PENDING and RUNNING), then one jobs.get per job that left them",
        emulator="the BigQuery jobs emulator (durable_jobs.emulators.bigquery)",
        operators=(
            Operator("BigQueryInsertJobOperator", "durable_jobs.operators.google.bigquery",
                     f"{_GOOGLE}.bigquery.BigQueryInsertJobOperator",
                     "the job id (`jobReference.jobId` = prefix + key; a resend answers 409 and the job is fetched)",
                     crash="bigquery"),
        ),
    ),
)
_GOOGLE_DATAPROC: tuple[Service, ...] = (
    Service(
        key="dataproc_jobs", name="Google Cloud Dataproc jobs", unit="job", tags=("google",),
        doc_url="https://cloud.google.com/dataproc/docs/reference/rpc/google.cloud.dataproc.v1#jobcontroller",
        client="durable_jobs.hooks.google_dataproc.DataprocJobClient",
        batch_status='ListJobs (filter "status.state = ACTIVE"), then one GetJob per job that left it',
        emulator="the Dataproc gRPC emulator (durable_jobs.emulators.dataproc)",
        operators=(
            Operator("DataprocSubmitJobOperator", "durable_jobs.operators.google.dataproc",
                     f"{_GOOGLE}.dataproc.DataprocSubmitJobOperator",
                     "`request_id` (and in the job's `reference.job_id`; a resend returns the first job)",
                     crash="dataproc_jobs"),
        ),
    ),
    Service(
        key="dataproc_batches", name="Google Cloud Dataproc Serverless batches", unit="batch", tags=("google",),
        doc_url="https://cloud.google.com/dataproc/docs/reference/rpc/google.cloud.dataproc.v1#batchcontroller",
        client="durable_jobs.hooks.google_dataproc.DataprocBatchClient",
        batch_status='ListBatches (filter "state = RUNNING"), then one GetBatch per batch that left it',
        emulator="the Dataproc gRPC emulator (durable_jobs.emulators.dataproc)",
        operators=(
            Operator("DataprocCreateBatchOperator", "durable_jobs.operators.google.dataproc",
                     f"{_GOOGLE}.dataproc.DataprocCreateBatchOperator",
                     "`batch_id` (your id or prefix + key; found again by `GetBatch`) and `request_id`",
                     crash="dataproc_batches"),
        ),
    ),
)
_GOOGLE_CLOUD_BATCH: tuple[Service, ...] = (
    Service(
        key="cloud_batch", name="Google Cloud Batch", unit="job", tags=("google",),
        doc_url="https://cloud.google.com/batch/docs/reference/rest/v1/projects.locations.jobs/create",
        client="durable_jobs.hooks.google_cloud_batch.CloudBatchJobClient",
        emulator="the Cloud Batch gRPC emulator (durable_jobs.emulators.cloud_batch)",
        operators=(
            Operator("CloudBatchSubmitJobOperator", "durable_jobs.operators.google.cloud_batch",
                     f"{_GOOGLE}.cloud_batch.CloudBatchSubmitJobOperator",
                     "the job id (`<job_name>-<key>`; found again by `GetJob`, a resend answers `ALREADY_EXISTS`)",
                     crash="cloud_batch"),
        ),
    ),
)
_GOOGLE_CLOUD_RUN: tuple[Service, ...] = (
    Service(
        key="cloud_run", name="Google Cloud Run jobs", unit="execution", tags=("google",),
        doc_url="https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.jobs/run",
        client="durable_jobs.hooks.google_cloud_run.CloudRunJobClient",
        emulator="the Cloud Run gRPC emulator (durable_jobs.emulators.cloud_run)",
        operators=(
            Operator("CloudRunExecuteJobOperator", "durable_jobs.operators.google.cloud_run",
                     f"{_GOOGLE}.cloud_run.CloudRunExecuteJobOperator",
                     "none exists: the key rides in the overrides (container env `DURABLE_JOBS_KEY`), found with "
                     "`ListExecutions` over a consistency window", crash="cloud_run"),
        ),
    ),
)
_GOOGLE_DATAFLOW: tuple[Service, ...] = (
    Service(
        key="google_dataflow", name="Google Cloud Dataflow templates", unit="job", tags=("google",),
        doc_url="https://cloud.google.com/dataflow/docs/reference/rest/v1b3/projects.locations.templates/launch",
        client="durable_jobs.hooks.google_dataflow.DataflowJobClient",
        emulator="the Dataflow REST emulator (durable_jobs.emulators.dataflow)",
        # google 22.8's Dataflow hook does not import without the Apache Beam provider (and its Beam SDK)
        extra="google-dataflow", extra_provider="apache-airflow-providers-apache-beam",
        operators=(
            Operator("DataflowTemplatedJobStartOperator", "durable_jobs.operators.google.dataflow",
                     f"{_GOOGLE}.dataflow.DataflowTemplatedJobStartOperator",
                     "the job name (`<job_name>-<key>`; a resend re-attaches to the active job of that name, "
                     "found with `jobs.list` over a consistency window)", crash="dataflow_templated"),
            Operator("DataflowStartFlexTemplateOperator", "durable_jobs.operators.google.dataflow",
                     f"{_GOOGLE}.dataflow.DataflowStartFlexTemplateOperator",
                     "the job name (`launchParameter.jobName` + `-<key>`; found again as the templated one)",
                     crash="dataflow_flex"),
        ),
    ),
)
GOOGLE_CONFIG = (
    ConfigOption(
        "cloud_run_list_consistency_seconds", "float", "15",
        "Cloud Run's RunJob takes no request id: an execution is found again by listing the job's executions "
        "for the key in its overrides, and Google does not say how soon a new execution is listed. An empty "
        "listing is not taken as proof that no execution exists until this many seconds have passed since the "
        "RunJob attempt (or, after a crash, since the intent was written).",
        example="30",
    ),
    ConfigOption(
        "dataflow_list_consistency_seconds", "float", "15",
        "A Dataflow template launch whose reply was lost (or a task that crashed inside the launch) is found "
        "again by listing the region's jobs by the key-derived job name, and Google does not say how soon a "
        "launched job is listed. An empty listing is not taken as proof that no job exists until this many "
        "seconds have passed since the launch attempt (or, after a crash, since the intent was written).",
        example="30",
    ),
)

FAMILIES: tuple[Family, ...] = (
    Family(
        key="databricks", name="Databricks", extra="databricks", provider="apache-airflow-providers-databricks",
        docs="docs/guide/durable-operators.md", demo="durable_jobs.demo.main:databricks_section",
        services=(
            Service(
                key="databricks", name="Databricks", unit="run",
                doc_url="https://docs.databricks.com/api/workspace/jobs",
                client="durable_jobs.hooks.databricks.DatabricksJobClient",
                extra_links=("durable_jobs.operators.databricks.DatabricksJobRunLink",),
                emulator="the Databricks emulator (durable_jobs.emulators.databricks)",
                operators=(
                    Operator("DatabricksSubmitRunOperator", "durable_jobs.operators.databricks",
                             "airflow.providers.databricks.operators.databricks.DatabricksSubmitRunOperator",
                             "`idempotency_token`", crash="databricks"),
                    Operator("DatabricksRunNowOperator", "durable_jobs.operators.databricks",
                             "airflow.providers.databricks.operators.databricks.DatabricksRunNowOperator",
                             "`idempotency_token`", crash="databricks_run_now"),
                    Operator("DatabricksNotebookOperator", "durable_jobs.operators.databricks",
                             "airflow.providers.databricks.operators.databricks.DatabricksNotebookOperator",
                             "`idempotency_token` (`runs/submit`; upstream sends none)", crash="databricks_notebook"),
                    Operator("DatabricksTaskOperator", "durable_jobs.operators.databricks",
                             "airflow.providers.databricks.operators.databricks.DatabricksTaskOperator",
                             "`idempotency_token` (`runs/submit`; upstream sends none)", crash="databricks_task"),
                ),
            ),
            Service(
                key="databricks_sql", name="Databricks SQL Statement Execution", unit="statement",
                doc_url="https://docs.databricks.com/api/workspace/statementexecution",
                client="durable_jobs.hooks.databricks_sql.DatabricksStatementClient",
                emulator="the Databricks emulator (durable_jobs.emulators.databricks)",
                operators=(
                    Operator("DatabricksSQLStatementsOperator", "durable_jobs.operators.databricks",
                             "airflow.providers.databricks.operators.databricks.DatabricksSQLStatementsOperator",
                             "none in the API: id checkpointed after the POST (reconnects); the submit window "
                             "stays open (a retry after a crash there runs the statement again)",
                             crash="databricks_sql"),
                ),
            ),
        ),
        submit_methods=frozenset({"submit_run", "run_now"}),
        submit_receivers=(("submit", r"jobs$"),),  # databricks-sdk: w.jobs.submit(...)
        submit_paths=("jobs/runs/submit", "jobs/run-now"),
        status_methods=frozenset({"get_run_state", "get_run", "get_run_status", "get_run_page_url"}),
        official_resumable=frozenset({
            "airflow.providers.databricks.operators.databricks.DatabricksSubmitRunOperator",
            "airflow.providers.databricks.operators.databricks.DatabricksRunNowOperator",
        }),
    ),
    Family(
        key="aws", name="AWS", extra="amazon", provider="apache-airflow-providers-amazon",
        docs="docs/aws.md", demo="durable_jobs.demo.aws:section",
        config=AWS_CONFIG,
        services=(
            Service(
                key="batch", name="AWS Batch", tags=("aws",),
                doc_url="https://docs.aws.amazon.com/batch/latest/APIReference/Welcome.html",
                client="durable_jobs.hooks.aws_batch.BatchJobClient",
                batch_status="DescribeJobs, 100 ids a call",
                emulator="moto behind our fault proxy",
                operators=(
                    Operator("BatchOperator", "durable_jobs.operators.aws", f"{_AWS}.batch.BatchOperator",
                             "none in the API: key in the job name + `durable-jobs:key` tag, found with "
                             "`ListJobs`", crash="batch"),
                ),
            ),
            Service(
                key="glue", name="AWS Glue", tags=("aws",), unit="job run",
                doc_url="https://docs.aws.amazon.com/glue/latest/dg/aws-glue-api-jobs-runs.html",
                client="durable_jobs.hooks.aws_glue.GlueJobClient",
                emulator="moto behind our fault proxy",
                operators=(
                    Operator("GlueJobOperator", "durable_jobs.operators.aws", f"{_AWS}.glue.GlueJobOperator",
                             "none in the API: `--durable_jobs_key` job argument, found with `GetJobRuns`",
                             crash="glue"),
                ),
            ),
            Service(
                key="emr_serverless", name="Amazon EMR Serverless", tags=("aws",), unit="job run",
                doc_url="https://docs.aws.amazon.com/emr-serverless/latest/APIReference/Welcome.html",
                client="durable_jobs.hooks.aws_emr_serverless.EmrServerlessJobClient",
                emulator="moto behind our fault proxy",
                operators=(
                    Operator("EmrServerlessStartJobOperator", "durable_jobs.operators.aws",
                             f"{_AWS}.emr.EmrServerlessStartJobOperator", "`clientToken` + `durable-jobs:key` tag",
                             crash="emr_serverless"),
                ),
            ),
            Service(
                key="athena", name="Amazon Athena", tags=("aws",), unit="query",
                doc_url="https://docs.aws.amazon.com/athena/latest/APIReference/API_StartQueryExecution.html",
                client="durable_jobs.hooks.aws_athena.AthenaJobClient",
                batch_status="BatchGetQueryExecution, 50 ids a call",
                emulator="moto behind our fault proxy",
                operators=(
                    Operator("AthenaOperator", "durable_jobs.operators.aws", f"{_AWS}.athena.AthenaOperator",
                             "`ClientRequestToken` (no lookup by token: a same-token resend)", crash="athena"),
                ),
            ),
            Service(
                key="stepfunctions", name="AWS Step Functions", tags=("aws",), unit="execution",
                doc_url="https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html",
                client="durable_jobs.hooks.aws_stepfunctions.StepFunctionsJobClient",
                emulator="moto behind our fault proxy",
                operators=(
                    Operator("StepFunctionStartExecutionOperator", "durable_jobs.operators.aws_stepfunctions",
                             f"{_AWS}.step_function.StepFunctionStartExecutionOperator",
                             "the execution `name` (`<name>-<key>`; found again by `DescribeExecution`); a "
                             "redrive's `clientToken`", crash="stepfunctions"),
                ),
            ),
            Service(
                key="ecs", name="Amazon ECS", tags=("aws",), unit="task",
                doc_url="https://docs.aws.amazon.com/AmazonECS/latest/APIReference/API_RunTask.html",
                client="durable_jobs.hooks.aws_ecs.EcsJobClient",
                batch_status="DescribeTasks, 100 tasks a call",
                emulator="moto behind our fault proxy",
                operators=(
                    Operator("EcsRunTaskOperator", "durable_jobs.operators.aws_ecs", f"{_AWS}.ecs.EcsRunTaskOperator",
                             "`clientToken` + `durable-jobs:key` tag, found with `ListTasks` by `startedBy`",
                             crash="ecs"),
                ),
            ),
            Service(
                key="emr_containers", name="Amazon EMR on EKS", tags=("aws",), unit="job run",
                doc_url="https://docs.aws.amazon.com/emr-on-eks/latest/APIReference/API_StartJobRun.html",
                client="durable_jobs.hooks.aws_emr_containers.EmrContainersJobClient",
                emulator="moto behind our fault proxy",
                operators=(
                    Operator("EmrContainerOperator", "durable_jobs.operators.aws_emr_containers",
                             f"{_AWS}.emr.EmrContainerOperator",
                             "`clientToken` (`<client_request_token>-<key>`), found with `ListJobRuns` by "
                             "`clientToken`", crash="emr_containers"),
                ),
            ),
            Service(
                key="redshift_data", name="Amazon Redshift Data API", tags=("aws",), unit="statement",
                doc_url="https://docs.aws.amazon.com/redshift-data/latest/APIReference/API_ExecuteStatement.html",
                client="durable_jobs.hooks.aws_redshift_data.RedshiftDataJobClient",
                emulator="moto behind our fault proxy",
                operators=(
                    Operator("RedshiftDataOperator", "durable_jobs.operators.aws_redshift_data",
                             f"{_AWS}.redshift_data.RedshiftDataOperator",
                             "`ClientToken` of `ExecuteStatement`/`BatchExecuteStatement` (no lookup by token: a "
                             "same-token resend)", crash="redshift_data"),
                ),
            ),
            Service(
                key="emr_steps", name="Amazon EMR", tags=("aws",), unit="step",
                doc_url="https://docs.aws.amazon.com/emr/latest/APIReference/API_AddJobFlowSteps.html",
                client="durable_jobs.hooks.aws_emr_steps.EmrStepsJobClient",
                emulator="moto behind our fault proxy",
                operators=(
                    Operator("EmrAddStepsOperator", "durable_jobs.operators.aws_emr_steps",
                             f"{_AWS}.emr.EmrAddStepsOperator",
                             "each step's `Name` (`<name> [durable-jobs <key> <i>/<n>]`), found with `ListSteps` on "
                             "the cluster", crash="emr_steps"),
                ),
            ),
            Service(
                key="sagemaker", name="Amazon SageMaker", tags=("aws",), unit="job",
                doc_url="https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateTrainingJob.html",
                client="durable_jobs.hooks.aws_sagemaker.SageMakerJobClient",
                emulator="moto behind our fault proxy",
                operators=(
                    Operator("SageMakerTrainingOperator", "durable_jobs.operators.aws_sagemaker",
                             f"{_AWS}.sagemaker.SageMakerTrainingOperator",
                             "the job name (`<name>-<key>`, unique per account; found again by "
                             "`DescribeTrainingJob`)", crash="sagemaker"),
                    Operator("SageMakerProcessingOperator", "durable_jobs.operators.aws_sagemaker",
                             f"{_AWS}.sagemaker.SageMakerProcessingOperator",
                             "the job name (`<name>-<key>`; found again by `DescribeProcessingJob`)",
                             crash="sagemaker_processing"),
                    Operator("SageMakerTransformOperator", "durable_jobs.operators.aws_sagemaker",
                             f"{_AWS}.sagemaker.SageMakerTransformOperator",
                             "the job name (`<name>-<key>`; found again by `DescribeTransformJob`)",
                             crash="sagemaker_transform"),
                ),
            ),
        ),
        submit_methods=frozenset({
            "start_job_run", "initialize_job",               # Glue, EMR Serverless / EMR on EKS
            "add_job_flow_steps", "run_job_flow",            # EMR
            "submit_job",                                    # Batch
            "execute_statement",                             # Redshift Data API
            "start_query_execution", "run_query",            # Athena
            "create_training_job", "create_processing_job", "create_transform_job",  # SageMaker
            "start_execution",                               # Step Functions
        }),
        status_methods=frozenset({
            "describe_jobs", "describe_step", "describe_cluster", "get_job_run", "get_job_runs",
            "get_job_state", "get_query_status", "get_query_execution", "describe_statement",
            "describe_training_job", "describe_execution", "get_job_run_status",
        }),
        wait_off_by_default={  # amazon 9.39: a wait_for_completion that defaults to False, or no wait at all
            **dict.fromkeys((
                "EmrAddStepsOperator", "EC2CreateInstanceOperator", "EC2TerminateInstanceOperator",
                "EC2RebootInstanceOperator", "EC2HibernateInstanceOperator", "EmrStartNotebookExecutionOperator",
                "EmrStopNotebookExecutionOperator", "LambdaCreateFunctionOperator", "MwaaTriggerDagRunOperator",
                "RedshiftCreateClusterOperator", "RedshiftCreateClusterSnapshotOperator",
                "RedshiftResumeClusterOperator", "RedshiftPauseClusterOperator", "SageMakerStartPipelineOperator",
                "SageMakerStopPipelineOperator", "EksCreateClusterOperator", "EksCreateNodegroupOperator",
                "EksCreateFargateProfileOperator", "EksDeleteClusterOperator", "EksDeleteNodegroupOperator",
                "EksDeleteFargateProfileOperator",
            ), "wait_for_completion"),
            "EmrCreateJobFlowOperator": "wait_policy",
            **dict.fromkeys((
                "CloudFormationCreateStackOperator", "CloudFormationDeleteStackOperator", "GlacierCreateJobOperator",
                "DmsStartTaskOperator", "MwaaServerlessStartWorkflowRunOperator", "StepFunctionStartExecutionOperator",
                "OpenSearchServerlessCreateCollectionOperator",
            ), None),
        },
        official_resumable=frozenset({f"{_AWS}.glue.GlueJobOperator", f"{_AWS}.redshift_data.RedshiftDataOperator"}),
    ),
    Family(
        key="snowflake", name="Snowflake", extra="snowflake", provider="apache-airflow-providers-snowflake",
        docs="docs/snowflake.md", demo="durable_jobs.demo.snowflake:section",
        services=(
            Service(
                key="snowflake_sql_api", name="Snowflake SQL API", unit="statement batch",
                doc_url="https://docs.snowflake.com/en/developer-guide/sql-api/reference",
                client="durable_jobs.hooks.snowflake_sql_api.SnowflakeSqlApiJobClient",
                emulator="the Snowflake SQL API emulator (durable_jobs.emulators.snowflake)",
                operators=(
                    Operator("SnowflakeSqlApiOperator", "durable_jobs.operators.snowflake",
                             f"{_SNOWFLAKE}.SnowflakeSqlApiOperator",
                             "`requestId` (a resend: the same id with `retry=true`)", crash="snowflake"),
                    Operator("SnowflakeNotebookOperator", "durable_jobs.operators.snowflake",
                             f"{_SNOWFLAKE}.SnowflakeNotebookOperator",
                             "`requestId` (a resend: the same id with `retry=true`)"),
                ),
            ),
        ),
        submit_methods=frozenset({"execute_query", "execute_async"}),
        status_methods=frozenset({"get_sql_api_query_status"}),
        official_resumable=frozenset({
            f"{_SNOWFLAKE}.SnowflakeSqlApiOperator", f"{_SNOWFLAKE}.SnowflakeNotebookOperator",
        }),
    ),
    Family(
        key="google", name="Google Cloud", extra="google", provider="apache-airflow-providers-google",
        docs="docs/google.md", demo="durable_jobs.demo.google:section",
        official_resumable=frozenset({f"{_GOOGLE}.bigquery.BigQueryInsertJobOperator"}),  # its sync path only
        # google 22.8: no wait parameter in their execute()
        wait_off_by_default=dict.fromkeys(("WorkflowsCreateExecutionOperator",
                                           "CloudDataTransferServiceCreateJobOperator"), None),
        config=GOOGLE_CONFIG,  # issue 16: Cloud Run's and Dataflow's listing windows
        services=(*_GOOGLE_BIGQUERY, *_GOOGLE_DATAPROC, *_GOOGLE_CLOUD_BATCH, *_GOOGLE_CLOUD_RUN,
                  *_GOOGLE_DATAFLOW),
        submit_methods=frozenset({"submit_job", "submit_job_as_operation", "create_batch", "insert_job",
                                  "submit_batch_job"}),
        submit_receivers=(("query", r"bigquery|bq"),),  # google-cloud-bigquery: client.query(...)
        status_methods=frozenset({"get_job", "get_batch", "get_batch_state", "get_job_status"}),
    ),
    # ---- known to the lint only, until their durable operators exist ----
    Family(
        key="dbt", name="dbt Cloud", extra="dbt-cloud", provider="apache-airflow-providers-dbt-cloud",
        submit_methods=frozenset({"trigger_job_run"}),
        status_methods=frozenset({"get_job_run", "get_job_run_status"}),
    ),
    Family(
        key="livy", name="Apache Livy", extra="apache-livy", provider="apache-airflow-providers-apache-livy",
        submit_methods=frozenset({"post_batch"}),
        status_methods=frozenset({"get_batch", "get_batch_state"}),
        wait_off_by_default={"LivyOperator": "polling_interval"},
    ),
    Family(
        key="azure", name="Azure Data Factory", extra="microsoft-azure",
        provider="apache-airflow-providers-microsoft-azure",
        submit_methods=frozenset({"create_run"}),
        status_methods=frozenset({"get_pipeline_run", "get_pipeline_run_status"}),
    ),
)


# ----------------------------------------------------------------------------- lookups
def families(*, supported: bool | None = None) -> tuple[Family, ...]:
    """Every family; ``supported=True``: only those with durable operators."""
    if supported is None:
        return FAMILIES
    return tuple(f for f in FAMILIES if bool(f.services) is supported)


def services() -> Iterator[tuple[Family, Service]]:
    for family in FAMILIES:
        for service in family.services:
            yield family, service


def operators() -> Iterator[tuple[Family, Service, Operator]]:
    for family, service in services():
        for op in service.operators:
            yield family, service, op


def family(key: str) -> Family:
    for candidate in FAMILIES:
        if candidate.key == key:
            return candidate
    raise KeyError(f"no vendor family {key!r} (known: {', '.join(f.key for f in FAMILIES)})")


def crash_vendor(key: str) -> tuple[Service, Operator]:
    """The service and official-comparison operator behind the crash suite's vendor ``key``."""
    for _, service, op in operators():
        if op.crash == key:
            return service, op
    raise KeyError(f"no operator in the registry runs the crash suite's {key!r} rows")


def config_options() -> tuple[ConfigOption, ...]:
    return CORE_CONFIG + tuple(option for f in FAMILIES for option in f.config)


def config_option(name: str) -> ConfigOption:
    for option in config_options():
        if option.name == name:
            return option
    raise KeyError(f"[{CONFIG_SECTION}] has no option {name!r}")


__all__ = [
    "CONFIG_SECTION", "ConfigOption", "FAMILIES", "Family", "Operator", "Service", "config_option",
    "config_options", "crash_vendor", "families", "family", "operators", "services",
]
