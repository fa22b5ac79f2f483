"""The vendor registry: the one hand-written list of what durable-jobs supports.

One :class:`Family` per vendor family (a provider package: Databricks, AWS, ...), each with its
:class:`Service` entries (one ``JobClient`` each) and their drop-in :class:`Operator` classes.
Everything else that needs a vendor list is generated from here: Airflow's provider info
(:func:`durable_jobs.get_provider_info`), the README operator table, the lint's knowledge of job
APIs and SDKs, ``durable-jobs doctor``'s providers, the demo's sections and rows, the emulator command's
choices, the AWS fault proxy's operation tables, the fault and crash suites' services, the crash matrix's
vendor names and the docs reference. ``tests/unit/test_vendor_registry.py`` checks that every file a
service needs (docs/adding-a-vendor.md lists them) exists.

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
class Calls:
    """A job API's calls, named as the vendor names them: AWS ``<signing name>:<Operation>`` (as IAM and the
    fault proxy name them), a gRPC API's method, a REST API's path after its version (as our emulators' fault
    rules take them). The demo, the fault and crash suites and the AWS fault proxy arm and count by these."""

    submit: str
    status: str
    #: other calls that create a job the same way (Redshift Data's ``BatchExecuteStatement``, for several SQLs)
    also_submit: tuple[str, ...] = ()
    #: the calls that stop a job (AWS: the crash suite counts them)
    cancel: tuple[str, ...] = ()
    # --- AWS: what the fault proxy in front of moto reads ---
    #: the botocore service whose model names the calls (``boto3.client(<this>)``; its REST routes, its protocol)
    botocore: str = ""
    #: where the submit's reply holds the new job's id: a dotted path, numbers index lists (``tasks.0.taskArn``)
    reply_id: str = ""
    #: that id is an ARN whose last segment, the job's name, is what the client asks for (SageMaker)
    id_is_arn_name: bool = False
    #: the request field that carries the idempotency key, if the API has one
    key_field: str = ""
    #: the listing that finds a job again by its key: (operation, list field, id field of an entry)
    listing: tuple[str, ...] = ()
    #: how the vendor answers a throttled call: (HTTP status, error code, message)
    throttled: tuple[int, str, str] = (429, "ThrottlingException", "Too Many Requests")
    #: where the status reply holds the job's state: a dotted path, ``*`` for each entry of a list
    state_field: str = ""

    @property
    def submits(self) -> tuple[str, ...]:
        return (self.submit, *self.also_submit)


@dataclass(frozen=True)
class Example:
    """The example DAG that shows an operator (``example_dags/<dag>.py``) and its task, as the demo runs it."""

    dag: str
    task: str
    #: the official arguments a loopback run shortens (the poll interval), with their values: (name, seconds)
    fast: tuple[tuple[str, float], ...] = ()
    #: the status calls the operator makes before it starts waiting, which the demo's failing poll lets through
    #: (AWS Batch also describes the job for its links)
    status_reads: int = 1

    @property
    def path(self) -> str:
        """The file, from the repository root."""
        return f"example_dags/{self.dag}.py"


@dataclass(frozen=True)
class Operator:
    """A drop-in durable operator: same class name and arguments as ``official``, at the official path with
    ``airflow.`` replaced by ``durable_jobs.`` (``airflow.providers.amazon.aws.operators.batch.BatchOperator`` is
    ours at ``durable_jobs.providers.amazon.aws.operators.batch.BatchOperator``)."""

    official: str
    #: How the idempotency key reaches the vendor (markdown, for the README table).
    mechanism: str
    #: The crash suite's vendor key for the matrix rows run with this operator (None: no rows yet).
    crash: str | None = None
    #: Its example DAG (None: none shows this operator).
    example: Example | None = None
    #: Its own calls, when they are not its service's (SageMaker: each job type has its Create/Describe call).
    calls: Calls | None = None

    @property
    def name(self) -> str:
        return self.official.rpartition(".")[2]

    @property
    def official_module(self) -> str:
        return self.official.rpartition(".")[0]

    @property
    def module(self) -> str:
        """Ours: the official module's path under ``durable_jobs.`` instead of ``airflow.``."""
        return "durable_jobs." + self.official_module.removeprefix("airflow.")

    @property
    def classpath(self) -> str:
        return f"{self.module}.{self.name}"

    @property
    def official_name(self) -> str:
        return self.name


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
    #: Our emulator of its API (a class path), which the demo and the tests start on 127.0.0.1 ...
    emulator_class: str = ""
    #: ... or, on moto, the module with the rules moto lacks for it.
    moto_rules: str = ""
    #: Its calls, as the vendor names them.
    calls: Calls | None = None
    #: Its docs page (repository path); empty: its family's.
    docs: str = ""
    #: The module of its tables in its family's demo section (its ``PLAYS``); empty: the section needs none.
    demo: str = ""
    tags: tuple[str, ...] = ("service",)
    #: An install extra of its own, on top of the family's, when its official hook needs another provider
    #: (``pip install "airflow-durable-jobs[<extra>]"``); empty: the family's extra is enough.
    extra: str = ""
    #: The provider distribution that extra adds (checked against pyproject.toml).
    extra_provider: str = ""

    @property
    def integration(self) -> str:
        return f"{self.name} (durable)"

    def calls_of(self, op: Operator) -> Calls | None:
        """The calls ``op`` makes: its own, else the service's."""
        return op.calls or self.calls

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
    #: Import prefixes of its provider and its SDKs: a DAG file that imports one of them talks to a job system.
    modules: tuple[str, ...] = ()
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

    def docs_of(self, service: Service) -> str:
        """The docs page of ``service``: its own, else the family's."""
        return service.docs or self.docs


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
#: Our test doubles (``emulator_class``, ``moto_rules``).
_EMU = "durable_jobs.testing.emulators"


def _sagemaker_calls(job_type: str) -> Calls:
    """A SageMaker job type's calls (Training, Processing, Transform): the job's name is its key and its id."""
    return Calls(f"sagemaker:Create{job_type}Job", f"sagemaker:Describe{job_type}Job",
                 cancel=(f"sagemaker:Stop{job_type}Job",), botocore="sagemaker", reply_id=f"{job_type}JobArn",
                 id_is_arn_name=True, key_field=f"{job_type}JobName", state_field=f"{job_type}JobStatus")

_SNOWFLAKE = "airflow.providers.snowflake.operators.snowflake"

_GOOGLE = "airflow.providers.google.cloud.operators"
#: Google Cloud services, one constant each (filled as each service's durable operators land).
_GOOGLE_BIGQUERY: tuple[Service, ...] = (
    Service(
        key="bigquery", name="Google BigQuery", unit="job", tags=("google",),
        doc_url="https://cloud.google.com/bigquery/docs/reference/rest/v2/jobs",
        client="durable_jobs.providers.google.cloud.clients.bigquery.BigQueryJobClient",
        batch_status="jobs.list (PENDING and RUNNING), then one jobs.get per job that left them",
        emulator="the BigQuery jobs emulator (durable_jobs.testing.emulators.bigquery)",
        emulator_class=f"{_EMU}.bigquery.BigQueryEmulator", calls=Calls("jobs/insert", "jobs/get"),
        docs="docs/google/bigquery.md", demo="durable_jobs.demo.google_bigquery",
        operators=(
            Operator(f"{_GOOGLE}.bigquery.BigQueryInsertJobOperator",
                     "the job id (`jobReference.jobId` = prefix + key; a resend answers 409 and the job is fetched)",
                     crash="bigquery",
                     example=Example("google_bigquery", "merge_sales_daily", (("poll_interval", 0.2),))),
        ),
    ),
)
_GOOGLE_DATAPROC: tuple[Service, ...] = (
    Service(
        key="dataproc_jobs", name="Google Cloud Dataproc jobs", unit="job", tags=("google",),
        doc_url="https://cloud.google.com/dataproc/docs/reference/rpc/google.cloud.dataproc.v1#jobcontroller",
        client="durable_jobs.providers.google.cloud.clients.dataproc.DataprocJobClient",
        batch_status='ListJobs (filter "status.state = ACTIVE"), then one GetJob per job that left it',
        emulator="the Dataproc gRPC emulator (durable_jobs.testing.emulators.dataproc)",
        emulator_class=f"{_EMU}.dataproc.DataprocEmulator", calls=Calls("SubmitJob", "GetJob"),
        docs="docs/google/dataproc.md", demo="durable_jobs.demo.google_dataproc",
        operators=(
            Operator(f"{_GOOGLE}.dataproc.DataprocSubmitJobOperator",
                     "`request_id` (and in the job's `reference.job_id`; a resend returns the first job)",
                     crash="dataproc_jobs",
                     example=Example("google_dataproc", "aggregate_sales", (("polling_interval_seconds", 0.2),))),
        ),
    ),
    Service(
        key="dataproc_batches", name="Google Cloud Dataproc Serverless batches", unit="batch", tags=("google",),
        doc_url="https://cloud.google.com/dataproc/docs/reference/rpc/google.cloud.dataproc.v1#batchcontroller",
        client="durable_jobs.providers.google.cloud.clients.dataproc.DataprocBatchClient",
        batch_status='ListBatches (filter "state = RUNNING"), then one GetBatch per batch that left it',
        emulator="the Dataproc gRPC emulator (durable_jobs.testing.emulators.dataproc)",
        emulator_class=f"{_EMU}.dataproc.DataprocEmulator", calls=Calls("CreateBatch", "GetBatch"),
        docs="docs/google/dataproc.md", demo="durable_jobs.demo.google_dataproc",
        operators=(
            Operator(f"{_GOOGLE}.dataproc.DataprocCreateBatchOperator",
                     "`batch_id` (your id or prefix + key; found again by `GetBatch`) and `request_id`",
                     crash="dataproc_batches",
                     example=Example("google_dataproc_batch", "sales_report", (("polling_interval_seconds", 0.2),))),
        ),
    ),
)
_GOOGLE_CLOUD_BATCH: tuple[Service, ...] = (
    Service(
        key="cloud_batch", name="Google Cloud Batch", unit="job", tags=("google",),
        doc_url="https://cloud.google.com/batch/docs/reference/rest/v1/projects.locations.jobs/create",
        client="durable_jobs.providers.google.cloud.clients.cloud_batch.CloudBatchJobClient",
        emulator="the Cloud Batch gRPC emulator (durable_jobs.testing.emulators.cloud_batch)",
        emulator_class=f"{_EMU}.cloud_batch.CloudBatchEmulator", calls=Calls("CreateJob", "GetJob"),
        docs="docs/google/cloud_batch.md", demo="durable_jobs.demo.google_cloud_batch",
        operators=(
            Operator(f"{_GOOGLE}.cloud_batch.CloudBatchSubmitJobOperator",
                     "the job id (`<job_name>-<key>`; found again by `GetJob`, a resend answers `ALREADY_EXISTS`)",
                     crash="cloud_batch",
                     example=Example("google_cloud_batch", "nightly_render", (("polling_period_seconds", 0.2),))),
        ),
    ),
)
_GOOGLE_CLOUD_RUN: tuple[Service, ...] = (
    Service(
        key="cloud_run", name="Google Cloud Run jobs", unit="execution", tags=("google",),
        doc_url="https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.jobs/run",
        client="durable_jobs.providers.google.cloud.clients.cloud_run.CloudRunJobClient",
        emulator="the Cloud Run gRPC emulator (durable_jobs.testing.emulators.cloud_run)",
        emulator_class=f"{_EMU}.cloud_run.CloudRunEmulator", calls=Calls("RunJob", "GetExecution"),
        docs="docs/google/cloud_run.md", demo="durable_jobs.demo.google_cloud_run",
        operators=(
            Operator(f"{_GOOGLE}.cloud_run.CloudRunExecuteJobOperator",
                     "none exists: the key rides in the overrides (container env `DURABLE_JOBS_KEY`), found with "
                     "`ListExecutions` over a consistency window", crash="cloud_run",
                     example=Example("google_cloud_run", "nightly_export", (("polling_period_seconds", 0.2),))),
        ),
    ),
)
_GOOGLE_DATAFLOW: tuple[Service, ...] = (
    Service(
        key="google_dataflow", name="Google Cloud Dataflow templates", unit="job", tags=("google",),
        doc_url="https://cloud.google.com/dataflow/docs/reference/rest/v1b3/projects.locations.templates/launch",
        client="durable_jobs.providers.google.cloud.clients.dataflow.DataflowJobClient",
        emulator="the Dataflow REST emulator (durable_jobs.testing.emulators.dataflow)",
        emulator_class=f"{_EMU}.dataflow.DataflowEmulator", calls=Calls("templates/launch", "jobs/get"),
        docs="docs/google/dataflow.md", demo="durable_jobs.demo.google_dataflow",
        # google 22.8's Dataflow hook does not import without the Apache Beam provider (and its Beam SDK)
        extra="google-dataflow", extra_provider="apache-airflow-providers-apache-beam",
        operators=(
            Operator(f"{_GOOGLE}.dataflow.DataflowTemplatedJobStartOperator",
                     "the job name (`<job_name>-<key>`; a resend re-attaches to the active job of that name, "
                     "found with `jobs.list` over a consistency window)", crash="dataflow_templated",
                     example=Example("google_dataflow", "word_count", (("poll_sleep", 0.2),))),
            Operator(f"{_GOOGLE}.dataflow.DataflowStartFlexTemplateOperator",
                     "the job name (`launchParameter.jobName` + `-<key>`; found again as the templated one)",
                     crash="dataflow_flex", calls=Calls("flexTemplates/launch", "jobs/get")),
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
                client="durable_jobs.providers.databricks.clients.databricks.DatabricksJobClient",
                extra_links=("durable_jobs.providers.databricks.operators.databricks.DatabricksJobRunLink",),
                emulator="the Databricks emulator (durable_jobs.testing.emulators.databricks)",
                emulator_class=f"{_EMU}.databricks.DatabricksEmulator",
                calls=Calls("jobs/runs/submit", "jobs/runs/get"),
                operators=(
                    Operator("airflow.providers.databricks.operators.databricks.DatabricksSubmitRunOperator",
                             "`idempotency_token`", crash="databricks",
                             example=Example("databricks_submit_deferrable", "nightly_etl",
                                             (("polling_period_seconds", 0.2),))),
                    Operator("airflow.providers.databricks.operators.databricks.DatabricksRunNowOperator",
                             "`idempotency_token`", crash="databricks_run_now",
                             example=Example("databricks_run_now", "refresh_marts", (("polling_period_seconds", 0.2),)),
                             calls=Calls("jobs/run-now", "jobs/runs/get")),
                    Operator("airflow.providers.databricks.operators.databricks.DatabricksNotebookOperator",
                             "`idempotency_token` (`runs/submit`; upstream sends none)", crash="databricks_notebook",
                             example=Example("databricks_notebook", "prepare_orders",
                                             (("polling_period_seconds", 0.2),))),
                    Operator("airflow.providers.databricks.operators.databricks.DatabricksTaskOperator",
                             "`idempotency_token` (`runs/submit`; upstream sends none)", crash="databricks_task"),
                ),
            ),
            Service(
                key="databricks_sql", name="Databricks SQL Statement Execution", unit="statement",
                doc_url="https://docs.databricks.com/api/workspace/statementexecution",
                client="durable_jobs.providers.databricks.clients.databricks_sql.DatabricksStatementClient",
                emulator="the Databricks emulator (durable_jobs.testing.emulators.databricks)",
                emulator_class=f"{_EMU}.databricks.DatabricksEmulator",
                calls=Calls("sql/statements", "sql/statements/get"),
                operators=(
                    Operator("airflow.providers.databricks.operators.databricks.DatabricksSQLStatementsOperator",
                             "none in the API: id checkpointed after the POST (reconnects); the submit window "
                             "stays open (a retry after a crash there runs the statement again)",
                             crash="databricks_sql",
                             example=Example("databricks_sql_statements", "stage_sales",
                                             (("polling_period_seconds", 0.2),))),
                ),
            ),
        ),
        modules=("airflow.providers.databricks", "databricks"),
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
                client="durable_jobs.providers.amazon.aws.clients.batch.BatchJobClient",
                batch_status="DescribeJobs, 100 ids a call",
                emulator="moto behind our fault proxy", moto_rules=f"{_EMU}.aws_moto",
                calls=Calls("batch:SubmitJob", "batch:DescribeJobs", cancel=("batch:TerminateJob", "batch:CancelJob"),
                            botocore="batch", reply_id="jobId", listing=("batch:ListJobs", "jobSummaryList", "jobId"),
                            throttled=(429, "TooManyRequestsException", "Too Many Requests"),
                            state_field="jobs.*.status"),
                operators=(
                    Operator(f"{_AWS}.batch.BatchOperator",
                             "none in the API: key in the job name + `durable-jobs:key` tag, found with "
                             "`ListJobs`", crash="batch",
                             example=Example("aws_batch", "nightly_batch", (("poll_interval", 0.2),), status_reads=2)),
                ),
            ),
            Service(
                key="glue", name="AWS Glue", tags=("aws",), unit="job run",
                doc_url="https://docs.aws.amazon.com/glue/latest/dg/aws-glue-api-jobs-runs.html",
                client="durable_jobs.providers.amazon.aws.clients.glue.GlueJobClient",
                emulator="moto behind our fault proxy", moto_rules=f"{_EMU}.aws_moto",
                calls=Calls("glue:StartJobRun", "glue:GetJobRun", cancel=("glue:BatchStopJobRun",), botocore="glue",
                            reply_id="JobRunId", listing=("glue:GetJobRuns", "JobRuns", "Id"),
                            throttled=(400, "ThrottlingException", "Rate exceeded"), state_field="JobRun.JobRunState"),
                operators=(
                    Operator(f"{_AWS}.glue.GlueJobOperator",
                             "none in the API: `--durable_jobs_key` job argument, found with `GetJobRuns`",
                             crash="glue", example=Example("aws_glue", "nightly_glue",
                                                           (("waiter_delay", 0.2), ("job_poll_interval", 0.2)))),
                ),
            ),
            Service(
                key="emr_serverless", name="Amazon EMR Serverless", tags=("aws",), unit="job run",
                doc_url="https://docs.aws.amazon.com/emr-serverless/latest/APIReference/Welcome.html",
                client="durable_jobs.providers.amazon.aws.clients.emr_serverless.EmrServerlessJobClient",
                emulator="moto behind our fault proxy", moto_rules=f"{_EMU}.aws_moto",
                calls=Calls("emr-serverless:StartJobRun", "emr-serverless:GetJobRun",
                            cancel=("emr-serverless:CancelJobRun",), botocore="emr-serverless", reply_id="jobRunId",
                            key_field="clientToken", listing=("emr-serverless:ListJobRuns", "jobRuns", "id"),
                            state_field="jobRun.state"),
                operators=(
                    Operator(f"{_AWS}.emr.EmrServerlessStartJobOperator", "`clientToken` + `durable-jobs:key` tag",
                             crash="emr_serverless",
                             example=Example("aws_emr_serverless", "nightly_spark", (("waiter_delay", 1),))),
                ),
            ),
            Service(
                key="athena", name="Amazon Athena", tags=("aws",), unit="query",
                doc_url="https://docs.aws.amazon.com/athena/latest/APIReference/API_StartQueryExecution.html",
                client="durable_jobs.providers.amazon.aws.clients.athena.AthenaJobClient",
                batch_status="BatchGetQueryExecution, 50 ids a call",
                emulator="moto behind our fault proxy", moto_rules=f"{_EMU}.aws_moto",
                calls=Calls("athena:StartQueryExecution", "athena:GetQueryExecution",
                            cancel=("athena:StopQueryExecution",), botocore="athena", reply_id="QueryExecutionId",
                            key_field="ClientRequestToken", state_field="QueryExecution.Status.State",
                            throttled=(400, "TooManyRequestsException", "Rate exceeded")),
                operators=(
                    Operator(f"{_AWS}.athena.AthenaOperator",
                             "`ClientRequestToken` (no lookup by token: a same-token resend)", crash="athena",
                             example=Example("aws_athena", "nightly_report", (("sleep_time", 0.2),))),
                ),
            ),
            Service(
                key="stepfunctions", name="AWS Step Functions", tags=("aws",), unit="execution",
                doc_url="https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html",
                client="durable_jobs.providers.amazon.aws.clients.stepfunctions.StepFunctionsJobClient",
                docs="docs/emulators/aws-stepfunctions.md",
                emulator="moto behind our fault proxy", moto_rules=f"{_EMU}.aws_moto_stepfunctions",
                calls=Calls("states:StartExecution", "states:DescribeExecution", cancel=("states:StopExecution",),
                            botocore="stepfunctions", reply_id="executionArn", key_field="name",
                            state_field="status"),
                operators=(
                    Operator(f"{_AWS}.step_function.StepFunctionStartExecutionOperator",
                             "the execution `name` (`<name>-<key>`; found again by `DescribeExecution`); a "
                             "redrive's `clientToken`", crash="stepfunctions",
                             example=Example("aws_stepfunctions", "nightly_workflow", (("waiter_delay", 0.2),))),
                ),
            ),
            Service(
                key="ecs", name="Amazon ECS", tags=("aws",), unit="task",
                doc_url="https://docs.aws.amazon.com/AmazonECS/latest/APIReference/API_RunTask.html",
                client="durable_jobs.providers.amazon.aws.clients.ecs.EcsJobClient",
                batch_status="DescribeTasks, 100 tasks a call",
                docs="docs/emulators/aws-ecs.md",
                emulator="moto behind our fault proxy", moto_rules=f"{_EMU}.aws_moto",
                calls=Calls("ecs:RunTask", "ecs:DescribeTasks", cancel=("ecs:StopTask",), botocore="ecs",
                            reply_id="tasks.0.taskArn", key_field="clientToken", state_field="tasks.*.lastStatus"),
                operators=(
                    Operator(f"{_AWS}.ecs.EcsRunTaskOperator",
                             "`clientToken` + `durable-jobs:key` tag, found with `ListTasks` by `startedBy`",
                             crash="ecs", example=Example("aws_ecs", "nightly_container", (("waiter_delay", 0.2),))),
                ),
            ),
            Service(
                key="emr_containers", name="Amazon EMR on EKS", tags=("aws",), unit="job run",
                doc_url="https://docs.aws.amazon.com/emr-on-eks/latest/APIReference/API_StartJobRun.html",
                client="durable_jobs.providers.amazon.aws.clients.emr_containers.EmrContainersJobClient",
                docs="docs/emulators/aws-emr-containers.md",
                emulator="moto behind our fault proxy", moto_rules=f"{_EMU}.aws_moto_emr_containers",
                calls=Calls("emr-containers:StartJobRun", "emr-containers:DescribeJobRun",
                            cancel=("emr-containers:CancelJobRun",), botocore="emr-containers", reply_id="id",
                            key_field="clientToken", listing=("emr-containers:ListJobRuns", "jobRuns", "id"),
                            state_field="jobRun.state"),
                operators=(
                    Operator(f"{_AWS}.emr.EmrContainerOperator",
                             "`clientToken` (`<client_request_token>-<key>`), found with `ListJobRuns` by "
                             "`clientToken`", crash="emr_containers",
                             example=Example("aws_emr_containers", "nightly_spark_on_eks", (("poll_interval", 0.2),))),
                ),
            ),
            Service(
                key="redshift_data", name="Amazon Redshift Data API", tags=("aws",), unit="statement",
                doc_url="https://docs.aws.amazon.com/redshift-data/latest/APIReference/API_ExecuteStatement.html",
                client="durable_jobs.providers.amazon.aws.clients.redshift_data.RedshiftDataJobClient",
                docs="docs/emulators/aws-redshift-data.md",
                emulator="moto behind our fault proxy", moto_rules=f"{_EMU}.aws_moto_redshift_data",
                calls=Calls("redshift-data:ExecuteStatement", "redshift-data:DescribeStatement",
                            also_submit=("redshift-data:BatchExecuteStatement",),
                            cancel=("redshift-data:CancelStatement",), botocore="redshift-data", reply_id="Id",
                            key_field="ClientToken", state_field="Status"),
                operators=(
                    Operator(f"{_AWS}.redshift_data.RedshiftDataOperator",
                             "`ClientToken` of `ExecuteStatement`/`BatchExecuteStatement` (no lookup by token: a "
                             "same-token resend)", crash="redshift_data",
                             example=Example("aws_redshift_data", "nightly_load", (("poll_interval", 0.2),))),
                ),
            ),
            Service(
                key="emr_steps", name="Amazon EMR", tags=("aws",), unit="step",
                doc_url="https://docs.aws.amazon.com/emr/latest/APIReference/API_AddJobFlowSteps.html",
                client="durable_jobs.providers.amazon.aws.clients.emr_steps.EmrStepsJobClient",
                docs="docs/emulators/aws-emr-steps.md",
                emulator="moto behind our fault proxy", moto_rules=f"{_EMU}.aws_moto_emr_steps",
                calls=Calls("elasticmapreduce:AddJobFlowSteps", "elasticmapreduce:ListSteps",
                            cancel=("elasticmapreduce:CancelSteps",), botocore="emr", reply_id="StepIds.0",
                            state_field="Steps.*.Status.State"),
                operators=(
                    Operator(f"{_AWS}.emr.EmrAddStepsOperator",
                             "each step's `Name` (`<name> [durable-jobs <key> <i>/<n>]`), found with `ListSteps` on "
                             "the cluster", crash="emr_steps",
                             example=Example("aws_emr_steps", "nightly_report", (("waiter_delay", 0.2),))),
                ),
            ),
            Service(
                key="sagemaker", name="Amazon SageMaker", tags=("aws",), unit="job",
                doc_url="https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateTrainingJob.html",
                client="durable_jobs.providers.amazon.aws.clients.sagemaker.SageMakerJobClient",
                docs="docs/emulators/aws-sagemaker.md",
                emulator="moto behind our fault proxy", moto_rules=f"{_EMU}.aws_moto_sagemaker",
                calls=_sagemaker_calls("Training"),
                operators=(
                    Operator(f"{_AWS}.sagemaker.SageMakerTrainingOperator",
                             "the job name (`<name>-<key>`, unique per account; found again by "
                             "`DescribeTrainingJob`)", crash="sagemaker",
                             example=Example("aws_sagemaker", "nightly_training", (("check_interval", 0.2),))),
                    Operator(f"{_AWS}.sagemaker.SageMakerProcessingOperator",
                             "the job name (`<name>-<key>`; found again by `DescribeProcessingJob`)",
                             crash="sagemaker_processing", calls=_sagemaker_calls("Processing"),
                             example=Example("aws_sagemaker_processing", "nightly_features",
                                             (("check_interval", 0.2),))),
                    Operator(f"{_AWS}.sagemaker.SageMakerTransformOperator",
                             "the job name (`<name>-<key>`; found again by `DescribeTransformJob`)",
                             crash="sagemaker_transform", calls=_sagemaker_calls("Transform"),
                             example=Example("aws_sagemaker_transform", "nightly_scoring",
                                             (("check_interval", 0.2),))),
                ),
            ),
        ),
        modules=("airflow.providers.amazon", "boto3", "botocore"),
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
                client="durable_jobs.providers.snowflake.clients.snowflake_sql_api.SnowflakeSqlApiJobClient",
                emulator="the Snowflake SQL API emulator (durable_jobs.testing.emulators.snowflake)",
                emulator_class=f"{_EMU}.snowflake.SnowflakeEmulator", calls=Calls("statements", "statements/status"),
                demo="durable_jobs.demo.snowflake",
                operators=(
                    Operator(f"{_SNOWFLAKE}.SnowflakeSqlApiOperator",
                             "`requestId` (a resend: the same id with `retry=true`)", crash="snowflake",
                             example=Example("snowflake_sql_api", "load_sales_daily", (("poll_interval", 0.2),))),
                    Operator(f"{_SNOWFLAKE}.SnowflakeNotebookOperator",
                             "`requestId` (a resend: the same id with `retry=true`)"),
                ),
            ),
        ),
        modules=("airflow.providers.snowflake", "snowflake"),
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
        config=GOOGLE_CONFIG,  # Cloud Run's and Dataflow's listing windows
        services=(*_GOOGLE_BIGQUERY, *_GOOGLE_DATAPROC, *_GOOGLE_CLOUD_BATCH, *_GOOGLE_CLOUD_RUN,
                  *_GOOGLE_DATAFLOW),
        modules=("airflow.providers.google", "google.cloud"),
        submit_methods=frozenset({"submit_job", "submit_job_as_operation", "create_batch", "insert_job",
                                  "submit_batch_job"}),
        submit_receivers=(("query", r"bigquery|bq"),),  # google-cloud-bigquery: client.query(...)
        status_methods=frozenset({"get_job", "get_batch", "get_batch_state", "get_job_status"}),
    ),
    # ---- known to the lint only, until their durable operators exist ----
    Family(
        key="dbt", name="dbt Cloud", extra="dbt-cloud", provider="apache-airflow-providers-dbt-cloud",
        modules=("airflow.providers.dbt",),
        submit_methods=frozenset({"trigger_job_run"}),
        status_methods=frozenset({"get_job_run", "get_job_run_status"}),
    ),
    Family(
        key="livy", name="Apache Livy", extra="apache-livy", provider="apache-airflow-providers-apache-livy",
        modules=("airflow.providers.apache.livy",),
        submit_methods=frozenset({"post_batch"}),
        status_methods=frozenset({"get_batch", "get_batch_state"}),
        wait_off_by_default={"LivyOperator": "polling_interval"},
    ),
    Family(
        key="spark", name="Apache Spark", extra="apache-spark", provider="apache-airflow-providers-apache-spark",
        modules=("airflow.providers.apache.spark",),
    ),
    Family(
        key="azure", name="Azure Data Factory", extra="microsoft-azure",
        provider="apache-airflow-providers-microsoft-azure",
        modules=("airflow.providers.microsoft.azure",),
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


def service(key: str) -> Service:
    for _, candidate in services():
        if candidate.key == key:
            return candidate
    raise KeyError(f"no service {key!r} in the registry")


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
    "CONFIG_SECTION", "Calls", "ConfigOption", "Example", "FAMILIES", "Family", "Operator", "Service", "config_option",
    "config_options", "crash_vendor", "families", "family", "operators", "service", "services",
]
