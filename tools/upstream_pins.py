"""Upstream pins: every block of an official operator we copy, and every private provider name we use.

The drop-in operators subclass the official ones and, in a few places, cannot avoid depending on
upstream code that carries no compatibility promise: a private helper we call (the official
Databricks poll loop), a private attribute we read or reset (``GlueJobOperator._job_run_id``), or a
block of an official method we had to copy because it cannot be called without submitting (the
``SubmitJob`` arguments of ``BatchOperator.submit_job``). A provider upgrade can change any of them
without a deprecation. This module is the one list of them, each with a sha256 of its normalised
source as installed when the pin was last reviewed; ``tests/unit/test_upstream_drift.py`` fails,
naming our code that depends on it, when the installed provider's source hashes differently.

* ``python -m tools.upstream_pins --check``: report drift (exit status 1) and unpinned private uses.
* ``python -m tools.upstream_pins --update``: after reviewing and adapting our code to an upgraded
  provider, rewrite every ``sha256=`` and ``pinned=`` below from the installed sources.
* ``python -m tools.upstream_pins --list``: print the pins.

How the hashes are normalised and what the private-use scan sees: ``tools/pinning.py``. The docs
page ``docs/reference/upstream.md`` renders this list.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tools.pinning import COPIED, KINDS, PRIVATE, REUSED, Pin, check, private_uses, unpinned, update

_DBX = "airflow.providers.databricks.operators.databricks"
_AWS = "airflow.providers.amazon.aws"
_OPS_DBX = "durable_jobs.providers.databricks.operators.databricks"
_OPS_AWS = "durable_jobs.providers.amazon.aws.operators"
_SF = "airflow.providers.snowflake"
_OPS_SF = "durable_jobs.providers.snowflake.operators.snowflake"
_GCP = "airflow.providers.google.cloud.operators"
_OPS_GCP = "durable_jobs.providers.google.cloud.operators"

PINS: tuple[Pin, ...] = (
    # ------------------------------------------------------------------ Databricks
    Pin(
        target=f"{_DBX}:_handle_databricks_operator_execution",
        kind=COPIED,
        used_by=(
            f"{_OPS_DBX}:_DatabricksDurableMixin.on_poll", f"{_OPS_DBX}:_DatabricksDurableMixin.job_result",
            f"{_OPS_DBX}:_DatabricksDurableMixin.failure_error",
        ),
        why="The official synchronous poll loop: our sync path polls with our client but copies its "
            "log lines (run state, run page, sleeping; completed successfully) and its failure messages "
            "(extract_failed_task_errors for a FAILED result, else the state message).",
        sha256="c64ab56a70557756d8daac1d7a832707f6f001b41c7dcca85749a24d4221771f",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    Pin(
        target=f"{_DBX}:_handle_deferrable_databricks_operator_completion",
        kind=COPIED,
        used_by=(f"{_OPS_DBX}:_DatabricksDurableMixin.job_result", f"{_OPS_DBX}:_DatabricksDurableMixin.failure_error"),
        why="The official deferrable completion: its success line and its failure message "
            "(\"Job run failed with terminal state: ...\") are copied for our trigger's event.",
        sha256="02cedbe6448ab8679d9ced2efec25bfd0066e19326bc52b5a7e2d111075e2aa4",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    Pin(
        target=f"{_DBX}:_handle_deferrable_databricks_operator_execution",
        kind=COPIED,
        used_by=(f"{_OPS_DBX}:_DatabricksDurableMixin.on_job_known",),
        why="on_job_known pushes the XComs this function pushes before deferring (job_id on the "
            "deferrable path, run_id, run_page_url) and logs the same run page line; we defer to "
            "our own trigger instead.",
        sha256="0a178ed9934f472dbb085a0bce17e91fd6682b428798b2e71af1a77f981e5101",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    Pin(
        target=f"{_DBX}:DatabricksSubmitRunOperator._prepare_submit_json",
        kind=PRIVATE,
        used_by=(f"{_OPS_DBX}:DatabricksSubmitRunOperator.prepare_request",),
        why="Builds the runs/submit payload (merge, validation, pipeline name lookup, params and "
            "OpenLineage injection) without submitting; we drop its idempotency_token and add ours.",
        sha256="5c141e16ecb2e1c79d148d541d958e1b86aa16491eee4669bae1414b6d9765fd",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    Pin(
        target=f"{_DBX}:DatabricksSubmitRunOperator._hook",
        kind=PRIVATE,
        used_by=(
            f"{_OPS_DBX}:_DatabricksDurableMixin.on_job_known", f"{_OPS_DBX}:_DatabricksDurableMixin.failure_error",
        ),
        why="The operator's own DatabricksHook (cached), built from the operator's arguments exactly as "
            "upstream: get_job_id for the deferrable XCom, get_run / extract_failed_task_errors on failure.",
        sha256="1c2d03c5662129a2e8ba3a1608f0b98c97c5f4918a0ff67b3bbb2dd484704456",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    Pin(
        target=f"{_DBX}:DatabricksRunNowOperator._hook",
        kind=PRIVATE,
        used_by=(
            f"{_OPS_DBX}:_DatabricksDurableMixin.on_job_known", f"{_OPS_DBX}:DatabricksRunNowOperator.on_failed_job",
        ),
        why="As for DatabricksSubmitRunOperator._hook; the repair path also calls update_job, "
            "get_latest_repair_id and repair_run on it.",
        sha256="1242c8c510cadbb43cf1314beaf0e4593731af260bac0124f10f2f5dd03b296c",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    Pin(
        target=f"{_DBX}:DatabricksRunNowOperator._prepare_run_now_json",
        kind=PRIVATE,
        used_by=(f"{_OPS_DBX}:DatabricksRunNowOperator.prepare_request",),
        why="Builds the run-now payload and cancels previous runs (cancel_previous_runs) before a "
            "fresh key's submit; it also sets the private self._merged_json (read by the official "
            "repair code). On a same-key resend we copy its tail (_build_run_now_payload, then "
            "self._merged_json = payload) without the cancel.",
        sha256="d0595c79ae923e0b0a5d9ca867f4b243623bbcaf59e098fff2440a319c6e6960",
        pinned="apache-airflow-providers-databricks==7.23.0",
        covers=(f"{_DBX}.DatabricksRunNowOperator._merged_json",),
    ),
    Pin(
        target=f"{_DBX}:DatabricksRunNowOperator._build_run_now_payload",
        kind=PRIVATE,
        used_by=(f"{_OPS_DBX}:DatabricksRunNowOperator.prepare_request",),
        why="The run-now payload without cancel_previous_runs, for a same-key resend (cancelling "
            "there would cancel the run our lost reply created).",
        sha256="4900e738956d75d290c78ca4c63d9e6f9ab7a2ea03df9cc799bd5474b8090d3b",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    Pin(
        target=f"{_DBX}:DatabricksRunNowOperator._get_merged_json",
        kind=PRIVATE,
        used_by=(f"{_OPS_DBX}:DatabricksRunNowOperator.on_failed_job",),
        why="The repair request's job_parameters are rebuilt from the rendered fields, as the "
            "official execute_complete does.",
        sha256="369ec6ebbd958b49d08e413395f8908d98afcfb6bea4c1c5b3c1b95a2e3dcb2c",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    Pin(
        target=f"{_DBX}:DatabricksRunNowOperator._inject_run_now_job_parameters",
        kind=PRIVATE,
        used_by=(f"{_OPS_DBX}:DatabricksRunNowOperator.on_failed_job",),
        why="Forwards DAG params / OpenLineage into job_parameters for the repair request, as the "
            "official execute_complete does.",
        sha256="d2335712777d2297a3373c66d3f4b7f4c23abede51181083cf9daf03ddba2fd7",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    Pin(
        target=f"{_DBX}:is_repair_reason_match_exist",
        kind=PRIVATE,
        used_by=(f"{_OPS_DBX}:DatabricksRunNowOperator.on_failed_job",),
        why="Undocumented module helper: whether the failure message matches a "
            "databricks_repair_reason_new_settings key (repair only then).",
        sha256="6dcf52b686faae9452f925c794437c34425489dc506b3536d5368b0ed8a09418",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    Pin(
        target=f"{_DBX}:update_job_for_repair",
        kind=PRIVATE,
        used_by=(f"{_OPS_DBX}:DatabricksRunNowOperator.on_failed_job",),
        why="Undocumented module helper: applies the new job settings for the matched repair reason "
            "before repairing.",
        sha256="d11b0ed146991710198b6913cd062e595784a048056badc18f78a537b951269c",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    Pin(
        target=f"{_DBX}:DatabricksRunNowOperator.execute_complete",
        kind=COPIED,
        used_by=(f"{_OPS_DBX}:DatabricksRunNowOperator.on_failed_job",),
        why="on_failed_job copies its repair_run branch (reason match, update_job_for_repair, "
            "latest_repair_id, job_parameters, repair_run) for a failed run on either path.",
        sha256="18bdb579d3543b0a86d6a0510525af41cbc7659729e83ffe1e0ecd49763d610a",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    Pin(
        target=f"{_DBX}:DatabricksSQLStatementsOperator.execute",
        kind=COPIED,
        used_by=(f"{_OPS_DBX}:DatabricksSQLStatementsOperator.prepare_request",
                 f"{_OPS_DBX}:DatabricksSQLStatementsOperator.on_job_known"),
        why="prepare_request copies its request body (statement, warehouse_id, catalog, schema, parameters, "
            "wait_timeout 0s, Airflow query tags); on_job_known its statement_id XCom and log line. The POST "
            "itself goes through our client, once per try.",
        sha256="9deb5db284fe1a217cae476f3e58125c7453c2eae1ce83d1f16978d70f85ef36",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    Pin(
        target="airflow.providers.databricks.utils.mixins:DatabricksSQLStatementsMixin._handle_execution",
        kind=COPIED,
        used_by=(f"{_OPS_DBX}:DatabricksSQLStatementsOperator.on_poll",
                 f"{_OPS_DBX}:DatabricksSQLStatementsOperator.failure_error",
                 f"{_OPS_DBX}:DatabricksSQLStatementsOperator.on_poll_limit"),
        why="The official synchronous poll loop: its log lines, its failure message and its timeout "
            "(cancel the statement, then fail) are copied; the polling is ours.",
        sha256="79a3c8a7b4a51849fe848cae85b378dc1fd3c2749558108441f69c0fa179d0a4",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    Pin(
        target="airflow.providers.databricks.utils.mixins:DatabricksSQLStatementsMixin.execute_complete",
        kind=COPIED,
        used_by=(f"{_OPS_DBX}:DatabricksSQLStatementsOperator.job_result",
                 f"{_OPS_DBX}:DatabricksSQLStatementsOperator.failure_error"),
        why="The official deferrable completion: its success line and failure message are copied for our "
            "trigger's event.",
        sha256="be464e158d2c9a59c826b81daac0c6f7a45800c23b6c5a8fd0ec9d82d98b6198",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    Pin(
        target="airflow.providers.databricks.hooks.databricks:DatabricksHook.get_sql_statement_state",
        kind=COPIED,
        used_by=("durable_jobs.providers.databricks.clients.databricks_sql:DatabricksStatementClient.status",
                 "durable_jobs.providers.databricks.clients.databricks_sql:DatabricksStatementClient.astatus"),
        why="status() calls it; astatus() (the trigger, one aiohttp session) makes the same GET and copies its "
            "reading of status.state / error.error_code / error.message, keeping a state SQLStatementState would "
            "refuse as UNKNOWN for the fault policy (status() falls back to that raw read too).",
        sha256="6667a98a37b8572f9ae1f628665d2e286efc26c80dfd3c5847ced5d243307a0f",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    # ------------------------------------------------------------------ AWS Batch
    Pin(
        target=f"{_AWS}.operators.batch:BatchOperator.submit_job",
        kind=COPIED,
        used_by=(f"{_OPS_AWS}.batch:BatchOperator.prepare_request", f"{_OPS_AWS}.batch:BatchOperator.on_job_known"),
        why="prepare_request copies its SubmitJob arguments (the call itself goes through our client, "
            "with the key); on_job_known persists the job-details link it persists. A new SubmitJob "
            "argument upstream would otherwise be dropped silently.",
        sha256="1ceed94216e19c689382c7e5a677013b1c189e3f9af521bce585c679ca5c69ca",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.batch:BatchOperator.execute",
        kind=COPIED,
        used_by=(f"{_OPS_AWS}.batch:BatchOperator.on_job_known",),
        why="Its deferrable branch persists the definition/queue links (_persist_links) before "
            "deferring; on_job_known does the same on both paths.",
        sha256="f3e0066cbcae2a89c4e7c7f0496eaf140abe995a2d06cb46af2de40363d99e17",
        pinned="apache-airflow-task-sdk==1.3.2",
    ),
    Pin(
        target=f"{_AWS}.operators.batch:BatchOperator.monitor_job",
        kind=COPIED,
        used_by=(f"{_OPS_AWS}.batch:BatchOperator.on_job_known", f"{_OPS_AWS}.batch:BatchOperator.job_result"),
        why="Our synchronous path replaces it: links before waiting, the CloudWatch link after; what "
            "it does around the wait must be mirrored.",
        sha256="47ca7f9eb47f044d726daea37440790074275b13fc354a1eabf35eddddafa1fe",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.batch:BatchOperator.execute_complete",
        kind=COPIED,
        used_by=(f"{_OPS_AWS}.batch:BatchOperator.job_result", f"{_OPS_AWS}.batch:BatchOperator._print_awslogs"),
        why="_print_awslogs copies its CloudWatch log printing (awslogs_enabled, 10,000 messages, "
            "warning on failure); job_result persists the CloudWatch link as it does.",
        sha256="22691c78f01595a5e733868618c0a472cedabbb795fee377f5904cf9493df6d0",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.batch:BatchOperator._persist_links",
        kind=PRIVATE,
        used_by=(f"{_OPS_AWS}.batch:BatchOperator.on_job_known",),
        why="Persists the job definition and job queue extra links (describes the job).",
        sha256="898a0aa68c9673ed17c21de95b33d4b9fb8366833bc50d5f4a74deccad30aa59",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.batch:BatchOperator._persist_cloudwatch_link",
        kind=PRIVATE,
        used_by=(f"{_OPS_AWS}.batch:BatchOperator.job_result",),
        why="Persists the CloudWatch logs extra link once the job has ended.",
        sha256="a73d68b0ec85b2df0ae10fc51dc8f0507a3d911d771bbef60ef813280f669ad6",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.batch:BatchOperator._get_batch_log_fetcher",
        kind=PRIVATE,
        used_by=(f"{_OPS_AWS}.batch:BatchOperator._print_awslogs",),
        why="The official CloudWatch log fetcher for awslogs_enabled.",
        sha256="557f097bb2a1fd73897e78f60bf2d0cbd015217b67e455e01f2a483c42182048",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    # ------------------------------------------------------------------ AWS Glue
    Pin(
        target=f"{_AWS}.hooks.glue:GlueJobHook.initialize_job",
        kind=COPIED,
        used_by=(f"{_OPS_AWS}.glue:GlueJobOperator.prepare_request",),
        why="prepare_request copies its get-or-create of the Glue job (update_config) and its "
            "StartJobRun arguments (JobName, Arguments, run_job_kwargs); the call goes through our client.",
        sha256="7bdba5b30313a2d8bd2cfa00ce0b2f527c569f9c7d3ed6dd21459dcfe9f80e5b",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.glue:GlueJobOperator.submit_job",
        kind=COPIED,
        used_by=(f"{_OPS_AWS}.glue:GlueJobOperator.prepare_request", f"{_OPS_AWS}.glue:GlueJobOperator.on_job_known"),
        why="prepare_request mirrors its fresh-submit half (script args, log line, initialize_job); "
            "on_job_known resets _job_run_id and calls _set_job_run_id as it does after a start.",
        sha256="27c32dcbd16c9b415f299075bd28e811126e47a883ef8556381d9e059ad2f48a",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.glue:GlueJobOperator._build_script_args",
        kind=PRIVATE,
        used_by=(f"{_OPS_AWS}.glue:GlueJobOperator.prepare_request",),
        why="The run's Arguments: script_args plus OpenLineage injection and upstream's task-UUID tag.",
        sha256="2a16ced1384db84e9cf79fd5956c4309b89fea28b1a5eb7b08c563721d8b6bb1",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.glue:GlueJobOperator._set_job_run_id",
        kind=PRIVATE,
        used_by=(f"{_OPS_AWS}.glue:GlueJobOperator.on_job_known",),
        why="Pushes the glue_job_run_id XCom and persists the run's extra link, once per run id: we "
            "reset the private _job_run_id it guards on so it runs again on this try.",
        sha256="3af7324103f2c1446f6dd87c63c66cd98ab1e581994bb2a11f4416703c0fc71c",
        pinned="apache-airflow-providers-amazon==9.39.0",
        covers=(f"{_AWS}.operators.glue.GlueJobOperator._job_run_id",),
    ),
    Pin(
        target=f"{_AWS}.operators.glue:GlueJobOperator.poll_until_complete",
        kind=COPIED,
        used_by=(f"{_OPS_AWS}.glue:GlueJobOperator.failure_error", f"{_OPS_AWS}.glue:GlueJobOperator.job_result"),
        why="Our synchronous wait is the shared fault policy's, not this loop; its closing line, "
            "sleep_before_return and its message for a run that ended without succeeding are copied.",
        sha256="6640ab562b377d80b074d5539df301db3218cc1637d61b655ed931783e2cc08e",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.hooks.glue:GlueJobHook._handle_state",
        kind=COPIED,
        used_by=(f"{_OPS_AWS}.glue:GlueJobOperator.on_poll", f"{_OPS_AWS}.glue:GlueJobOperator.failure_error"),
        why="The official poll loop's per-poll line, its verbose CloudWatch log printing and its "
            "FAILED/TIMEOUT message (\"Exiting Job ... Run State: ...\") are copied into our policy's loop.",
        sha256="d83aadc785fa26ce866b33bc90e982e8761b3afb60ee93d4c1ca804a9e28faf4",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    # ------------------------------------------------------------------ EMR Serverless
    Pin(
        target=f"{_AWS}.operators.emr:EmrServerlessStartJobOperator.execute",
        kind=COPIED,
        used_by=(
            f"{_OPS_AWS}.emr:EmrServerlessStartJobOperator._start_application",
            f"{_OPS_AWS}.emr:EmrServerlessStartJobOperator.prepare_request",
            f"{_OPS_AWS}.emr:EmrServerlessStartJobOperator.on_job_known",
            f"{_OPS_AWS}.emr:EmrServerlessStartJobOperator.max_polls",
            f"{_OPS_AWS}.emr:EmrServerlessStartJobOperator.on_poll_limit",
        ),
        why="execute cannot be called without starting a job run, so its application start (and "
            "deferral), its StartJobRun arguments (name, OpenLineage, configurationOverrides) and its "
            "cancel-at-max-attempts are copied.",
        sha256="c5c6e39ba262da4b518ae7999de1a834784ebdd448c99f8451b2c8f0597c4620",
        pinned="apache-airflow-task-sdk==1.3.2",
    ),
    Pin(
        target=f"{_AWS}.operators.emr:inject_parent_job_information_into_emr_serverless_properties",
        kind=PRIVATE,
        used_by=(f"{_OPS_AWS}.emr:EmrServerlessStartJobOperator.prepare_request",),
        why="Undocumented name (re-exported by the operator module from common.compat): OpenLineage "
            "parent-job injection, exactly as the official execute applies it.",
        sha256="7b0e1075e0cf8555c4832b485f6101265cb1d1facc54e5a9876e0545e34cceaa",
        pinned="apache-airflow-providers-common-compat==1.23.0",
    ),
    Pin(
        target=f"{_AWS}.operators.emr:inject_transport_information_into_emr_serverless_properties",
        kind=PRIVATE,
        used_by=(f"{_OPS_AWS}.emr:EmrServerlessStartJobOperator.prepare_request",),
        why="Undocumented name (re-exported by the operator module from common.compat): OpenLineage "
            "transport injection, exactly as the official execute applies it.",
        sha256="c4dc93fc49c590460dc7a2ec6f251b2b7f1e1529e42b2d16d421ddb943138a8e",
        pinned="apache-airflow-providers-common-compat==1.23.0",
    ),
    # ------------------------------------------------------------------ Athena
    Pin(
        target=f"{_AWS}.operators.athena:AthenaOperator.execute",
        kind=COPIED,
        used_by=(
            f"{_OPS_AWS}.athena:AthenaOperator._query_request", f"{_OPS_AWS}.athena:AthenaOperator.on_job_known",
            f"{_OPS_AWS}.athena:AthenaOperator.failure_error", f"{_OPS_AWS}.athena:AthenaOperator.on_poll_limit",
        ),
        why="execute cannot be called without starting a query, so its request (database, catalog and "
            "output location written into the operator's dicts), its results link and its two failure "
            "messages (failed query; max polling attempts) are copied.",
        sha256="6f41e95dc720538a70196010623374c0e58468a89687baf6d4f159717497bb50",
        pinned="apache-airflow-task-sdk==1.3.2",
    ),
    Pin(
        target=f"{_AWS}.hooks.athena:AthenaHook.run_query",
        kind=COPIED,
        used_by=(f"{_OPS_AWS}.athena:AthenaOperator.prepare_request", f"{_OPS_AWS}.athena:AthenaOperator.on_job_known"),
        why="Our client sends StartQueryExecution itself (with the key as ClientRequestToken), so the "
            "hook's log_query line, its query-execution-id line and its send_sql_hook_lineage call are copied.",
        sha256="948165ad8938e5b125fefd9e0d77f53896169889aa428f99304ef315a0e5c745",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.hooks.athena:AthenaHook.poll_query_status",
        kind=COPIED,
        used_by=(f"{_OPS_AWS}.athena:AthenaOperator.on_poll", f"{_OPS_AWS}.athena:AthenaOperator.max_polls"),
        why="Our poll loop replaces it: its per-poll log line and its max_polling_attempts contract are copied.",
        sha256="c5137ab082f716d1469f508edd739ae7713e043e45ab80744c7ffd1a0205f1b9",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    # ------------------------------------------------------------------ trigger events (switching imports)
    Pin(
        target="airflow.providers.databricks.triggers.databricks:DatabricksExecutionTrigger.run",
        kind=COPIED,
        used_by=("durable_jobs.providers.databricks.clients.databricks:DatabricksJobClient.official_event_fields",),
        why="Our trigger's event also carries the fields of this trigger's event (run_id, run_page_url, "
            "run_state JSON, repair_run, errors) so the official execute_complete can finish a task ours "
            "deferred, after a user switched the import back.",
        sha256="8ff48508b660cdeba0a27612df7bb69e8c564e1fc8702cc45a71c04eb6707885",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    Pin(
        target=f"{_AWS}.operators.glue:GlueJobOperator.execute_complete",
        kind=COPIED,
        used_by=("durable_jobs.providers.amazon.aws.clients.glue:GlueJobClient.official_event_fields",),
        why="It reads the run id from the event's run_id; our event carries it there too.",
        sha256="9d3c0655d0ca1643feb3f31f4241cc1deac0b13843574467fe83420454c53bfe",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.athena:AthenaOperator.execute_complete",
        kind=COPIED,
        used_by=("durable_jobs.providers.amazon.aws.clients.athena:AthenaJobClient.official_event_fields",),
        why="It reads the query execution id from the event's value; our event carries it there too.",
        sha256="7184402130353cc497c51172e1d85ec38ca0631d078c1a62b661ec99694dc970",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    # ------------------------------------------------------------------ Airflow core
    Pin(
        target="airflow.sdk.bases.operator:BaseOperatorMeta._apply_defaults",
        kind=PRIVATE,
        used_by=("durable_jobs.shims.operator:apply_defaults", "durable_jobs.core.mixin:DurableJobMixin.__init__"),
        why="The wrapper Airflow puts on every operator __init__ (default_args, argument checks); the "
            "mixin's own __init__ needs it so default_args={'durable': False} reaches it.",
        sha256="f9581861fd247c4f5f8e26d0c95487edc31e45b748d0d9d5f50090d3db0d111a",
        pinned="apache-airflow-task-sdk==1.3.2",
    ),
    Pin(
        target="airflow.sdk.execution_time.comms:CommsDecoder.send",
        kind=PRIVATE,
        used_by=("durable_jobs.core.cancel:_comms_busy",),
        why="on_kill tells an interrupted supervisor call by task_runner.SUPERVISOR_COMMS._thread_lock "
            "being held; send() is what holds it for the length of one call.",
        sha256="45d1110d3580af021295da57c960e8d6c7cbc7955ff04d3da4fdfe23bf8efa50",
        pinned="apache-airflow-task-sdk==1.3.2",
        covers=("airflow.sdk.execution_time.task_runner.SUPERVISOR_COMMS._thread_lock",),
    ),
    Pin(
        target="structlog._output:BytesLogger.msg",
        kind=PRIVATE,
        used_by=("durable_jobs.core.cancel:_structlog_writing",),
        why="on_kill tells an interrupted log line by a lock in structlog._output.WRITE_LOCKS being held: msg() "
            "holds its file's lock while it writes, and the Task SDK sends every task log line through it.",
        sha256="3f49776fb611011b8031284b18b93dfbddd1e443819aa1bc49ab9c306a94771f",
        pinned="structlog==26.1.0",
        covers=("structlog._output",),
    ),
    # ------------------------------------------------------------------ Snowflake
    Pin(
        target=f"{_SF}.operators.snowflake:SnowflakeNotebookOperator._build_execute_notebook_query",
        kind=PRIVATE,
        used_by=(f"{_OPS_SF}:SnowflakeNotebookOperator.prepare_request",),
        why="Builds the EXECUTE NOTEBOOK statement from the rendered notebook fields, as the official execute.",
        sha256="6dc9e9ad5f09abe06ba30f34a2e22b6d3f3d19b09a66ae522b7cf051200c3f8a",
        pinned="apache-airflow-providers-snowflake==6.20.0",
    ),
    Pin(
        target=f"{_SF}.hooks.sql_api:SnowflakeSqlApiHook._make_api_call_with_retries",
        kind=PRIVATE,
        used_by=("durable_jobs.providers.snowflake.clients.snowflake_sql_api:keyed_hook_class",),
        why="Overridden: every SQL API call of the official hook goes through it, so the statements POST of "
            "the official execute_query carries our requestId (and retry=true on a resend) instead of the "
            "hook's fresh uuid4. Renamed or bypassed upstream, the key would silently stop reaching Snowflake.",
        sha256="72480eb52bfb5e219431b983dfce796b3a443d8d3c06cb85df368b3283c42948",
        pinned="apache-airflow-providers-snowflake==6.20.0",
    ),
    Pin(
        target=f"{_SF}.hooks.sql_api:SnowflakeSqlApiHook._process_response",
        kind=PRIVATE,
        used_by=("durable_jobs.providers.snowflake.clients.snowflake_sql_api:keyed_hook_class",),
        why="Overridden: the official status read maps HTTP codes to states here; ours keeps the documented "
            "codes as upstream and reports an undocumented one as `HTTP <code>` (watched, not an end).",
        sha256="13b80a038030e7287aa3c4c864f4687802c81b145f5fad2f5a39397c379f9fc4",
        pinned="apache-airflow-providers-snowflake==6.20.0",
    ),
    # issue 15: DatabricksNotebookOperator / DatabricksTaskOperator
    Pin(
        target=f"{_DBX}:DatabricksNotebookOperator._databricks_workflow_task_group",
        kind=PRIVATE,
        used_by=(f"{_OPS_DBX}:_DatabricksTaskRunMixin._in_workflow",),
        why="Inside a DatabricksWorkflowTaskGroup the group's launch task submits the workflow run: ours then "
            "runs the official execute / execute_complete / on_kill unchanged (nothing to submit).",
        sha256="517c7d2cbe67bf0e36ce0d7b5a7ad34cf0e15274d9251c76949fb107f7e0112c",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    Pin(
        target=f"{_DBX}:DatabricksTaskBaseOperator._get_run_json",
        kind=PRIVATE,
        used_by=(f"{_OPS_DBX}:_DatabricksTaskRunMixin.prepare_request",),
        why="Builds the runs/submit payload (cluster, task JSON, native retry settings) without submitting; "
            "ours sends it under the epoch's idempotency_token.",
        sha256="fd76de9b4191d4ecac5c5d01a8105765e5f3987739270a3af35d30726b17cda6",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    Pin(
        target=f"{_DBX}:DatabricksTaskBaseOperator._hook",
        kind=PRIVATE,
        used_by=(f"{_OPS_DBX}:_DatabricksTaskRunMixin.failure_error",),
        why="The operator's own DatabricksHook, for get_run / extract_failed_task_errors on failure, as upstream.",
        sha256="346e8a327578fa6be2dfc7b3c2fe91ee137d8faaf935b3f99a3860fe5381ba1e",
        pinned="apache-airflow-providers-databricks==7.23.0",
    ),
    # issue 15: Amazon EMR on EKS EmrContainerOperator (durable_jobs/providers/amazon/aws/operators/emr.py)
    Pin(
        target=f"{_AWS}.operators.emr:EmrContainerOperator.execute",
        kind=COPIED,
        used_by=(
            "durable_jobs.providers.amazon.aws.operators.emr:EmrContainerOperator.prepare_request",
            "durable_jobs.providers.amazon.aws.operators.emr:EmrContainerOperator.on_poll_limit",
        ),
        why="execute cannot be called without starting a run: its OpenLineage injection into "
            "configuration_overrides and its 'Max tries of poll status exceeded' message are copied.",
        sha256="dad8a7330241d9dc53b076aff96678f77f896c494cd4b1bb67312316bdffff48",
        pinned="apache-airflow-task-sdk==1.3.2",
    ),
    Pin(
        target=f"{_AWS}.operators.emr:EmrContainerOperator.check_failure",
        kind=COPIED,
        used_by=("durable_jobs.providers.amazon.aws.operators.emr:EmrContainerOperator.failure_error",),
        why="Its failure message, with the hook's '<failureReason> - <stateDetails>', is copied (the status "
            "already holds both: no second DescribeJobRun).",
        sha256="8af55e3783704b2f754a28c439ba3299b673fa3e97032738ad444064977a92c6",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.hooks.emr:EmrContainerHook.submit_job",
        kind=COPIED,
        used_by=("durable_jobs.providers.amazon.aws.operators.emr:EmrContainerOperator.prepare_request",),
        why="submit_job sends the token it is given through the SDK's retries: its StartJobRun parameters "
            "(tags or {}, retryPolicyConfiguration) are copied so the client can send them under the epoch's key.",
        sha256="438a21764142fc164d1c4b6678d245ecc7ad67ecabf2ee2a6af85553071e6165",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    # issue 15: Amazon ECS EcsRunTaskOperator (durable_jobs/providers/amazon/aws/operators/ecs.py)
    Pin(
        target=f"{_AWS}.operators.ecs:EcsRunTaskOperator._start_task",
        kind=COPIED,
        used_by=(
            "durable_jobs.providers.amazon.aws.operators.ecs:EcsRunTaskOperator.prepare_request",
            "durable_jobs.providers.amazon.aws.operators.ecs:EcsRunTaskOperator.on_job_known",
        ),
        why="_start_task cannot be called without running a task: its RunTask arguments (run_opts) and its wait "
            "for the first container's name (10 s, 30 s) are copied.",
        sha256="1595a8a839d0fa8be88cb7cb4fc8c2a74f342d8c1c6c33c742708fb9e52a5ef7",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.ecs:EcsRunTaskOperator._try_reattach_task",
        kind=COPIED,
        used_by=("durable_jobs.providers.amazon.aws.operators.ecs:EcsRunTaskOperator._running_task_of",),
        why="Upstream's reattach (ListTasks RUNNING by startedBy, its log lines) is copied so that the lookup "
            "goes through the fault policy.",
        sha256="3374c8c78f7f032b9ecb9957bb89d248b6adcb1133cc5103a3069ca119ea205d",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.ecs:EcsRunTaskOperator.execute",
        kind=COPIED,
        used_by=(
            "durable_jobs.providers.amazon.aws.operators.ecs:EcsRunTaskOperator.execute",
            "durable_jobs.providers.amazon.aws.operators.ecs:EcsRunTaskOperator.wait_for_job",
            "durable_jobs.providers.amazon.aws.operators.ecs:EcsRunTaskOperator.job_result",
        ),
        why="execute cannot be called without running a task: its log lines, its reattach startedBy, its log "
            "fetcher around the wait and its return value are copied.",
        sha256="fa4d40cfa6d3641298d4159f2de1058a1b729da60e98a31f8d57b9471accab8d",
        pinned="apache-airflow-task-sdk==1.3.2",
    ),
    Pin(
        target=f"{_AWS}.operators.ecs:EcsRunTaskOperator.execute_complete",
        kind=COPIED,
        used_by=(
            "durable_jobs.providers.amazon.aws.operators.ecs:EcsRunTaskOperator.job_result",
            "durable_jobs.providers.amazon.aws.operators.ecs:EcsRunTaskOperator.restore_from_echo",
        ),
        why="Its cluster restored from the trigger event and its last-log-line return value (AwsLogsHook) are copied.",
        sha256="11f4500952a7363c0de11e119ce16412acbfd2a8d00bc7a450c18949b858fd1f",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.ecs:EcsRunTaskOperator._check_success_task",
        kind=PRIVATE,
        used_by=("durable_jobs.providers.amazon.aws.operators.ecs:EcsRunTaskOperator.failure_error",),
        why="Upstream's verdict on a stopped task and its exceptions (AirflowSkipException for "
            "skip_on_exit_code); durable_jobs.providers.amazon.aws.clients.ecs.task_outcome mirrors its rules "
            "(tests/unit/test_aws_ecs.py compares them).",
        sha256="a4d4b9d0ff9ab09693e632558f1ada88de2888c9f2d02b6193cdb8c1027ff272",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.ecs:EcsRunTaskOperator._after_execution",
        kind=PRIVATE,
        used_by=("durable_jobs.providers.amazon.aws.operators.ecs:EcsRunTaskOperator.job_result",),
        why="Upstream's success check after the task stopped, called as upstream calls it.",
        sha256="bba9ab973e6c613ef80cfa153c5f0b907c17e58556751204be422b9f0c4ee4af",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.ecs:EcsRunTaskOperator._aws_logs_enabled",
        kind=PRIVATE,
        used_by=(
            "durable_jobs.providers.amazon.aws.operators.ecs:EcsRunTaskOperator.execute",
            "durable_jobs.providers.amazon.aws.operators.ecs:EcsRunTaskOperator.wait_for_job",
            "durable_jobs.providers.amazon.aws.operators.ecs:EcsRunTaskOperator.job_result",
        ),
        why="Whether CloudWatch logs are read (awslogs_group and awslogs_stream_prefix), as upstream decides it.",
        sha256="5dd3d8000235881d16dc901421c93d1cb3f25903c4ecdd5a4ffa0d2399d8daa5",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.ecs:EcsRunTaskOperator._get_ecs_task_id",
        kind=PRIVATE,
        used_by=("durable_jobs.providers.amazon.aws.operators.ecs:EcsRunTaskOperator.on_job_known",),
        why="The task id in upstream's log line.",
        sha256="94547b1b0589e8eca806a8d50c2117b9f91579168782948ce760be30f39bcfc0",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.ecs:EcsRunTaskOperator._get_logs_stream_name",
        kind=PRIVATE,
        used_by=("durable_jobs.providers.amazon.aws.operators.ecs:EcsRunTaskOperator.job_result",),
        why="The CloudWatch stream of the task, for the last log line.",
        sha256="851042a09d1b10b146096adacee34dd16393610fa419046d747019a2a670dfe1",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.ecs:EcsRunTaskOperator._get_task_log_fetcher",
        kind=PRIVATE,
        used_by=("durable_jobs.providers.amazon.aws.operators.ecs:EcsRunTaskOperator.wait_for_job",),
        why="Upstream's log fetcher thread, streamed during the synchronous wait.",
        sha256="d527901bb5f1d69e455eb51aadf5a6fbb0724f40beddf14bfb37717575553eb9",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    # Amazon Redshift Data API RedshiftDataOperator (durable_jobs/providers/amazon/aws/operators/redshift_data.py)
    Pin(
        target=f"{_AWS}.hooks.redshift_data:RedshiftDataHook.execute_query",
        kind=COPIED,
        used_by=(
            "durable_jobs.providers.amazon.aws.operators.redshift_data:RedshiftDataOperator.prepare_request",
            "durable_jobs.providers.amazon.aws.operators.redshift_data:RedshiftDataOperator.on_job_known",
        ),
        why="execute_query cannot be given a ClientToken: its request (ExecuteStatement / BatchExecuteStatement "
            "arguments), its checks and their messages, and its send_sql_hook_lineage call are copied.",
        sha256="58b64246874044979ea0cac03f5268c99b133e9f46c1e20e89b8c194695c063a",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.hooks.redshift_data:RedshiftDataHook.parse_statement_response",
        kind=COPIED,
        used_by=("durable_jobs.providers.amazon.aws.operators.redshift_data:RedshiftDataOperator.failure_error",),
        why="Its exceptions for a FAILED / ABORTED statement and their text are copied (tests/unit/"
            "test_aws_redshift_data.py compares them with the hook's own).",
        sha256="29bfdfe38b42caaa04985c540ab03c61c7fd9163cc930101fab7141200b87489",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.redshift_data:RedshiftDataOperator.get_sql_results",
        kind=REUSED,
        used_by=(
            "durable_jobs.providers.amazon.aws.operators.redshift_data:RedshiftDataOperator.job_result",
            "durable_jobs.providers.amazon.aws.operators.redshift_data:RedshiftDataOperator.accepted_result",
        ),
        why="Upstream's return value (the statement or sub-statement ids, or GetStatementResult of each), "
            "called as upstream calls it.",
        sha256="3eb90214d003837d4f9880686d0fc2d3ea3adfca92fdef02a48e71c5432f05ab",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.redshift_data:RedshiftDataOperator.execute",
        kind=COPIED,
        used_by=(
            "durable_jobs.providers.amazon.aws.operators.redshift_data:RedshiftDataOperator.prepare_request",
            "durable_jobs.providers.amazon.aws.operators.redshift_data:RedshiftDataOperator.on_job_known",
            "durable_jobs.providers.amazon.aws.operators.redshift_data:RedshiftDataOperator.wait_for_termination",
        ),
        why="execute cannot be called without running the statement: its log line, its session_id XCom, its "
            "deferrable-only-when-waiting rule and its return value are copied.",
        sha256="cb1cdb5ae35bd7abeed1e5be8c335f92aa0dfc1c63bfa9010d790dff0a7b57ef",
        pinned="apache-airflow-task-sdk==1.3.2",
    ),
    # issue 15: SageMaker training / processing / transform (durable_jobs/providers/amazon/aws/operators/sagemaker.py)
    Pin(
        target=f"{_AWS}.operators.sagemaker:SageMakerBaseOperator._check_if_job_exists",
        kind=PRIVATE,
        used_by=("durable_jobs.providers.amazon.aws.operators.sagemaker:_SageMakerJobMixin._check_bare_name",),
        why="action_if_job_exists='fail' asks upstream's own existence check (Describe*Job; a ValidationException "
            "reads as 'no such job') for the bare name the user wrote.",
        sha256="5676f3179c14a42d1034aad7232f91b8e35dab82912144b77da4458f01da5b0a",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.sagemaker:SageMakerProcessingOperator._read_output_files",
        kind=PRIVATE,
        used_by=("durable_jobs.providers.amazon.aws.operators.sagemaker:SageMakerProcessingOperator.job_result",),
        why="Upstream's output_files_to_xcom reader, called as upstream calls it for the OutputFiles of the result.",
        sha256="6722c1719b7c0e2f48e2ea76c930d74ed6abb10804759fb061414425fd10f289",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.sagemaker:SageMakerTransformOperator._get_unique_model_name",
        kind=PRIVATE,
        used_by=("durable_jobs.providers.amazon.aws.operators.sagemaker:SageMakerTransformOperator.prepare_request",),
        why="Upstream's model step (check_if_model_exists / action_if_model_exists), called as upstream calls it.",
        sha256="f6b397240a35e5532d8fcfe38062a6af6cacca543a147506ed4bd735b223b621",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.sagemaker:SageMakerTrainingOperator.execute",
        kind=COPIED,
        used_by=("durable_jobs.providers.amazon.aws.operators.sagemaker:_SageMakerJobMixin.prepare_request",
                 "durable_jobs.providers.amazon.aws.operators.sagemaker:SageMakerTrainingOperator.job_result"),
        why="execute cannot be called without creating the job: its preprocess_config call, its name check, its "
            "log lines, its deferrable-only-when-waiting rule and its return value are copied.",
        sha256="b7f3fb92282529f0b4c89da829769d9ba7c9fb2ccc16da1cd44392b72d4e29fb",
        pinned="apache-airflow-task-sdk==1.3.2",
    ),
    Pin(
        target=f"{_AWS}.operators.sagemaker:SageMakerProcessingOperator.execute",
        kind=COPIED,
        used_by=("durable_jobs.providers.amazon.aws.operators.sagemaker:SageMakerProcessingOperator.prepare_request",
                 "durable_jobs.providers.amazon.aws.operators.sagemaker:SageMakerProcessingOperator.job_result"),
        why="As for training, plus its output_files_to_xcom check and OutputFiles in the return value.",
        sha256="d5698ea41120144bf7d633399556327aad267ad61717957a2e10d558984ac8e4",
        pinned="apache-airflow-task-sdk==1.3.2",
    ),
    Pin(
        target=f"{_AWS}.operators.sagemaker:SageMakerTransformOperator.execute",
        kind=COPIED,
        used_by=("durable_jobs.providers.amazon.aws.operators.sagemaker:SageMakerTransformOperator.prepare_request",
                 "durable_jobs.providers.amazon.aws.operators.sagemaker:SageMakerTransformOperator.on_job_known"),
        why="As for training, plus its model step, its transform job link and its monitoring log line.",
        sha256="f9cc21e1689de3a12794cf90f871456bd26f38217186639091821ac7a4ddcace",
        pinned="apache-airflow-task-sdk==1.3.2",
    ),
    # ------------------------------------------------------------------ Google (durable_jobs/providers/google/)
    Pin(
        target=f"{_GCP}.bigquery:BigQueryInsertJobOperator.execute",
        kind=PRIVATE,
        used_by=(f"{_OPS_GCP}.bigquery:BigQueryInsertJobOperator.execute",
                 f"{_OPS_GCP}.bigquery:BigQueryInsertJobOperator.user_idempotency_token"),
        why="Upstream keeps the user's job_id in the private _configured_job_id (set at the top of execute, read by "
            "its job-id generation); ours sets it the same way and reads it as the job id's prefix.",
        sha256="37384d888a80d255c48bff2c5de7f036644662d65d9b5e83efeb26fa84cf8da3",
        pinned="apache-airflow-task-sdk==1.3.2",
        covers=(f"{_GCP}.bigquery.BigQueryInsertJobOperator._configured_job_id",),
    ),
    Pin(
        target=f"{_GCP}.bigquery:BigQueryInsertJobOperator.submit_job",
        kind=PRIVATE,
        used_by=(f"{_OPS_GCP}.bigquery:BigQueryInsertJobOperator.on_job_known",
                 f"{_OPS_GCP}.bigquery:BigQueryInsertJobOperator._dry_run"),
        why="submit_job stores the job in the private _job, which upstream's execute_complete, "
            "get_openlineage_facets_on_complete and the links read; ours sets it to the job it created or found.",
        sha256="d1c91421578fab9a02ac7ed25fb5730c7a6a6560e5cb1760e8a2adf89f90d06a",
        pinned="apache-airflow-providers-google==22.8.0",
        covers=(f"{_GCP}.bigquery.BigQueryInsertJobOperator._job",),
    ),
    Pin(
        target=f"{_GCP}.bigquery:BigQueryInsertJobOperator._handle_job_error",
        kind=PRIVATE,
        used_by=(f"{_OPS_GCP}.bigquery:BigQueryInsertJobOperator._dry_run",),
        why="A dry run follows upstream's path: its error check (and message) on the job it validated.",
        sha256="73a870698835b3d2097cae1af13cf71da62941635fd5df3c117a869e894f316b",
        pinned="apache-airflow-providers-google==22.8.0",
    ),
    Pin(
        target=f"{_GCP}.bigquery:BigQueryInsertJobOperator._add_job_labels",
        kind=PRIVATE,
        used_by=(f"{_OPS_GCP}.bigquery:BigQueryInsertJobOperator.prepare_request",),
        why="Upstream's airflow-dag / airflow-task labels on the job configuration, added before our insert as "
            "upstream adds them before its own.",
        sha256="ddf638f2a1e6c56beb19a619cda7e9db0800ef04491c9506840182497cfb3339",
        pinned="apache-airflow-providers-google==22.8.0",
    ),
    Pin(
        target=f"{_GCP}.bigquery:BigQueryInsertJobOperator._persist_job_links",
        kind=PRIVATE,
        used_by=(f"{_OPS_GCP}.bigquery:BigQueryInsertJobOperator.on_job_known",),
        why="The job's extra links (BigQuery table / job detail), persisted as upstream does once the job is known.",
        sha256="13fc4df7040fe66775c87da133dbe919d018493f17983c85f17cfe6c8050b9ab",
        pinned="apache-airflow-providers-google==22.8.0",
    ),
    Pin(
        target=f"{_GCP}.cloud_run:CloudRunExecuteJobOperator._log_container_output",
        kind=PRIVATE,
        used_by=(f"{_OPS_GCP}.cloud_run:CloudRunExecuteJobOperator._forward_logs",),
        why="verbose=True forwards the execution's container logs through upstream's own helper.",
        sha256="a504fbc84dba493a7fd79f60fcf1978a6ec5f7a6605761a73d52e3e1b788864b",
        pinned="apache-airflow-providers-google==22.8.0",
    ),
    # Dataflow templates (durable_jobs/providers/google/cloud/operators/dataflow.py and clients/dataflow.py)
    Pin(
        target="airflow.providers.google.cloud.hooks.dataflow:DataflowHook._update_environment",
        kind=PRIVATE,
        used_by=(f"{_OPS_GCP}.dataflow:DataflowTemplatedJobStartOperator.prepare_request",),
        why="The templated launch's runtime environment, merged from the operator's options and environment "
            "exactly as upstream's start_template_dataflow merges them before its launch.",
        sha256="e5999a8b52523a3bebb99210e0138c8dc69c12dc3067971d2333347000723093",
        pinned="apache-airflow-providers-google==22.8.0",
    ),
    Pin(
        target="airflow.providers.google.cloud.hooks.dataflow:DataflowHook.build_dataflow_job_name",
        kind=COPIED,
        used_by=("durable_jobs.providers.google.cloud.clients.dataflow:job_name",),
        why="Its name rule and error message (`_` becomes `-`, [-a-z0-9] starting with a letter) are copied; "
            "the 8-character uuid it appends on every try is replaced by the epoch's key.",
        sha256="608b7714c0691b1ea2194dfa4c4a2c4895647c0f6d047f8c26cbb65dec899214",
        pinned="apache-airflow-providers-google==22.8.0",
    ),
    Pin(
        target="airflow.providers.google.cloud.hooks.dataflow:DataflowJobTerminalStateHelper"
               ".job_reached_terminal_state",
        kind=COPIED,
        used_by=("durable_jobs.providers.google.cloud.clients.dataflow:dataflow_phase",),
        why="The synchronous reading of a job's state (expected_terminal_state, streaming, wait_until_finished) "
            "and its error messages are copied into our state reading.",
        sha256="4fdcb6a88b8c3377465437bbed3f0f4d0afd6464332326a73a44e02e2a2d74c1",
        pinned="apache-airflow-providers-google==22.8.0",
    ),
    Pin(
        target="airflow.providers.google.cloud.triggers.dataflow:TemplateJobStartTrigger.run",
        kind=COPIED,
        used_by=("durable_jobs.providers.google.cloud.clients.dataflow:dataflow_phase",),
        why="The deferred reading (DONE succeeds, FAILED and STOPPED fail, the rest keeps waiting) and its event "
            "messages are copied for our trigger.",
        sha256="83d72df9d5ff7ce2f38f8d35f39f1272b39d388d6c2ea3a17139cdf245dbc9f0",
        pinned="apache-airflow-providers-google==22.8.0",
    ),
    Pin(
        target=f"{_GCP}.dataflow:DataflowTemplatedJobStartOperator.execute",
        kind=COPIED,
        used_by=("durable_jobs.providers.google.cloud.operators.dataflow:_DataflowDurable.on_job_known",),
        why="What upstream does once the job is known is copied: the job_id XCom and the Dataflow Job link.",
        sha256="7683e1a5b7f19f360df4dffdc9121374249bcc9ba25f2653f331519410b13d5a",
        pinned="apache-airflow-providers-google==22.8.0",
    ),
    Pin(
        target=f"{_GCP}.dataflow:DataflowStartFlexTemplateOperator.execute",
        kind=COPIED,
        used_by=("durable_jobs.providers.google.cloud.operators.dataflow:_DataflowDurable.on_job_known",
                 "durable_jobs.providers.google.cloud.operators.dataflow:DataflowStartFlexTemplateOperator.job_result"),
        why="The job_id XCom, the Dataflow Job link and the return value (the job dict) are upstream's.",
        sha256="59b4c941996e27f2d0f751499d2b9ec0fac4b8627c12f958987385591536f67b",
        pinned="apache-airflow-providers-google==22.8.0",
    ),
    Pin(
        target=f"{_GCP}.dataflow:DataflowTemplatedJobStartOperator.execute_complete",
        kind=COPIED,
        used_by=("durable_jobs.providers.google.cloud.operators.dataflow:_DataflowDurable.execute_complete",),
        why="An event of the official trigger (a task deferred by the official operator, resumed by ours) is "
            "handled as upstream handles it: its log line and AirflowException(message).",
        sha256="47b6e69c2e7f7ee61bf342c8cf03fa95b5cd33109c8638d88779b56aaab8b19b",
        pinned="apache-airflow-providers-google==22.8.0",
    ),
    Pin(
        target=f"{_GCP}.dataproc:DataprocSubmitJobOperator._inject_openlineage_properties_into_dataproc_job",
        kind=PRIVATE,
        used_by=(f"{_OPS_GCP}.dataproc:DataprocSubmitJobOperator.prepare_request",),
        why="Upstream's OpenLineage properties injected into the job before SubmitJob, as its execute does.",
        sha256="cc800f9c0ca7ea3525d9cd4b0e5d05d1a818b5dd141ebb9f14a9ae80c4fd92db",
        pinned="apache-airflow-providers-google==22.8.0",
    ),
    Pin(
        target=f"{_GCP}.dataproc:DataprocCreateBatchOperator._inject_openlineage_properties_into_dataproc_batch",
        kind=PRIVATE,
        used_by=(f"{_OPS_GCP}.dataproc:DataprocCreateBatchOperator.prepare_request",),
        why="Upstream's OpenLineage properties injected into the batch before CreateBatch, as its execute does.",
        sha256="92dc4cc8a92c8c66c6413754b0c3782f98166f3ef56d4a6df9d7cfed004f6411",
        pinned="apache-airflow-providers-google==22.8.0",
    ),
    Pin(
        target=f"{_GCP}.dataproc:DataprocCreateBatchOperator._DataprocCreateBatchOperator__update_batch_labels",
        kind=PRIVATE,
        used_by=(f"{_OPS_GCP}.dataproc:DataprocCreateBatchOperator.prepare_request",),
        why="Upstream's name-mangled helper that adds the airflow-dag / airflow-task labels to the batch.",
        sha256="68194cd9bcb6ea55df0d50e4d84acf29e0bb3fb0e316d2aca979714d1ea674ef",
        pinned="apache-airflow-providers-google==22.8.0",
    ),
    # issue 15: Amazon EMR steps EmrAddStepsOperator (durable_jobs/providers/amazon/aws/operators/emr.py)
    Pin(
        target=f"{_AWS}.operators.emr:EmrAddStepsOperator.execute",
        kind=COPIED,
        used_by=(
            "durable_jobs.providers.amazon.aws.operators.emr:EmrAddStepsOperator.execute",
            "durable_jobs.providers.amazon.aws.operators.emr:EmrAddStepsOperator.prepare_request",
        ),
        why="Upstream's execute up to AddJobFlowSteps is copied: the job_flow_name lookup and its error, the "
            "job_flow_id XCom, the cluster and logs links, the steps string parsed, OpenLineage injection.",
        sha256="cb2129233848a02974f2cd603d95de66c558fe043e79b8a7d65262d92f39b72c",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.hooks.emr:EmrHook.add_job_flow_steps",
        kind=COPIED,
        used_by=("durable_jobs.providers.amazon.aws.clients.emr_steps:EmrStepsJobClient._submit_once",),
        why="add_job_flow_steps sends through the hook's client with botocore's retries on and cannot carry the "
            "key: its request (ExecutionRoleArn when given) and its HTTPStatusCode check are copied.",
        sha256="cc2df5b2b4f7d5542a3252a6d68a9afb3f41ff26d618b0cfea72b26d2fe6b818",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
    Pin(
        target=f"{_AWS}.operators.emr:EmrAddStepsOperator._inject_openlineage_parent_job_information",
        kind=PRIVATE,
        used_by=("durable_jobs.providers.amazon.aws.operators.emr:EmrAddStepsOperator.prepare_request",),
        why="Upstream's OpenLineage parent-job injection into Spark steps, called as upstream calls it.",
        sha256="7e763619bb83f150017984ad6007e7bf6fc70db3ecef46bad77daae277c9241b",
        pinned="apache-airflow-providers-amazon==9.39.0",
    ),
)


# ============================================================================ command line
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.upstream_pins", description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--check", action="store_true", help="report drift and unpinned private uses (exit 1)")
    group.add_argument("--update", action="store_true", help="rewrite the hashes from the installed sources")
    group.add_argument("--list", action="store_true", help="print the pins")
    args = parser.parse_args(argv)
    if args.list:
        for pin in PINS:
            print(f"{pin.target}  [{pin.kind}]  {pin.pinned}\n    used by {', '.join(pin.used_by)}\n    {pin.why}")
        return 0
    if args.update:
        changed = update(PINS, Path(__file__))
        print("\n".join(f"updated {t}" for t in changed) or "every pin already matches the installed sources")
        return 0
    status = 0
    for drift in check(PINS):
        print(drift.message(), end="\n\n")
        status = 1
    for name, places in sorted(unpinned(private_uses(), PINS).items()):
        print(f"{name} is used by {', '.join(places)} but no pin in tools/upstream_pins.py covers it.\n")
        status = 1
    if status == 0:
        print(f"{len(PINS)} pins match the installed sources; every private upstream name we use is pinned")
    return status


__all__ = ["COPIED", "KINDS", "PINS", "PRIVATE", "REUSED", "Pin", "main"]

if __name__ == "__main__":
    sys.exit(main())
