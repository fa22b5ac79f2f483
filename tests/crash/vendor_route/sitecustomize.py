"""On the crash stack's PYTHONPATH only: route the official hooks to the cells' emulators.

Every Airflow process (worker, triggerer, DAG processor) imports this at start-up. One section per vendor;
each acts only when its own environment variable is set, and changes nothing else. One file for every
vendor: Python imports the *first* ``sitecustomize`` on ``sys.path`` only, so a second vendor's file beside
it would silently never run.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import sys
from collections.abc import Callable


class _AfterImport(importlib.abc.MetaPathFinder):
    """Run ``then()`` once, right after module ``target`` is first imported."""

    def __init__(self, target: str, then: Callable[[], object]):
        self.target, self.then = target, then

    def find_spec(self, name, path, target=None):  # noqa: ANN001 - the importlib protocol
        if name != self.target:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader_exec, then = spec.loader.exec_module, self.then

        def exec_module(module):  # noqa: ANN001
            loader_exec(module)
            then()

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


# --------------------------------------------------------------------------------------------- Snowflake
# SnowflakeHook builds https://<account>.snowflakecomputing.com from the account alone: once the hook module
# is imported, route_from_env() points each cell's account at its emulator (durable_jobs.testing.emulators.snowflake).
def _route_snowflake() -> None:
    from durable_jobs.testing.emulators.snowflake import route_from_env

    route_from_env()


if os.environ.get("DURABLE_JOBS_SNOWFLAKE_EMULATOR_URL"):
    sys.meta_path.insert(0, _AfterImport("airflow.providers.snowflake.hooks.snowflake", _route_snowflake))


# ---------------------------------------------------------------------------------------------- BigQuery
# google-cloud-bigquery takes BIGQUERY_EMULATOR_HOST (a URL) as it is; gcloud-aio-bigquery (the official
# trigger's cancel) is taught to take it too, once its module is imported (durable_jobs.testing.emulators.bigquery).
def _route_bigquery() -> None:
    from durable_jobs.testing.emulators.bigquery import route_from_env

    route_from_env()


if os.environ.get("BIGQUERY_EMULATOR_HOST", "").startswith("http"):
    sys.meta_path.insert(0, _AfterImport("gcloud.aio.bigquery.bigquery", _route_bigquery))

# ---------------------------------------------------------------------------------------------- Dataproc
# The hooks build their clients over TLS to <region>-dataproc.googleapis.com: DataprocHook's and
# DataprocAsyncHook's client factories are replaced by the same clients over an insecure channel to the
# emulator, once the hook module is imported (durable_jobs.testing.emulators.dataproc.route_from_env).
def _route_dataproc() -> None:
    from durable_jobs.testing.emulators.dataproc import route_from_env

    route_from_env()


if os.environ.get("DURABLE_JOBS_DATAPROC_EMULATOR_ADDRESS"):
    sys.meta_path.insert(0, _AfterImport("airflow.providers.google.cloud.hooks.dataproc", _route_dataproc))

# ------------------------------------------------------------------------------------------- Cloud Batch
# CloudBatchHook / CloudBatchAsyncHook build their clients over TLS to batch.googleapis.com in get_conn: both
# get_conn methods are replaced by the same clients over an insecure channel to the emulator, once the hook module
# is imported (durable_jobs.testing.emulators.cloud_batch.route_from_env).
def _route_cloud_batch() -> None:
    from durable_jobs.testing.emulators.cloud_batch import route_from_env

    route_from_env()


if os.environ.get("DURABLE_JOBS_CLOUD_BATCH_EMULATOR_ADDRESS"):
    sys.meta_path.insert(0, _AfterImport("airflow.providers.google.cloud.hooks.cloud_batch", _route_cloud_batch))


# --------------------------------------------------------------------------------------------- Cloud Run
# CloudRunHook / CloudRunAsyncHook build their JobsClients over TLS to run.googleapis.com in get_conn: both get_conn
# methods are replaced by the same clients over an insecure channel to the emulator, once the hook module is
# imported (durable_jobs.testing.emulators.cloud_run.route_from_env); ours' ExecutionsClient shares that channel.
def _route_cloud_run() -> None:
    from durable_jobs.testing.emulators.cloud_run import route_from_env

    route_from_env()


if os.environ.get("DURABLE_JOBS_CLOUD_RUN_EMULATOR_ADDRESS"):
    sys.meta_path.insert(0, _AfterImport("airflow.providers.google.cloud.hooks.cloud_run", _route_cloud_run))

# --------------------------------------------------------------------------------------------- Dataflow
# DataflowHook.get_conn builds its discovery client against dataflow.googleapis.com: it is replaced by the same
# build() call with the emulator's endpoint, once the hook module is imported
# (durable_jobs.testing.emulators.dataflow.route_from_env); AsyncDataflowHook (the official trigger) builds its gRPC
# JobsV1Beta3 client over an insecure channel to the emulator's gRPC face (DURABLE_JOBS_DATAFLOW_EMULATOR_GRPC_ADDRESS).
def _route_dataflow() -> None:
    from durable_jobs.testing.emulators.dataflow import route_from_env

    route_from_env()


if os.environ.get("DURABLE_JOBS_DATAFLOW_EMULATOR_URL"):
    sys.meta_path.insert(0, _AfterImport("airflow.providers.google.cloud.hooks.dataflow", _route_dataflow))

# ------------------------------------------------------------------------------------- warm forked children
# LocalExecutor forks every task from the scheduler's worker processes, and the triggerer forks its trigger
# runner: what the parent has imported, the child has for free. Without this each task re-imports its vendor's
# SDK while parsing the DAG file (measured: 12-19 s of CPU per Google task, 4-10 s per AWS one, on 2 shared
# cores), and the trigger runner imports it on its event loop, stalling every other trigger meanwhile.
# DJ_CRASH_PREIMPORT (set by crash_lab.py from the registry) names the modules the session's cells use; they
# are imported right after Airflow's own executor / triggerer module, so Airflow is configured by then and
# the routing sections above apply to them. Only module imports happen here: no client, channel or thread.
def _preimport() -> None:
    import importlib

    for name in filter(None, os.environ.get("DJ_CRASH_PREIMPORT", "").split(",")):
        try:
            importlib.import_module(name)
        except Exception as err:  # a cell whose module fails will say so itself; the stack still starts
            print(f"crash pre-import of {name} failed: {err!r}", file=sys.stderr)


_PREIMPORT_AFTER = {"scheduler": "airflow.executors.local_executor", "triggerer": "airflow.jobs.triggerer_job_runner"}
if os.environ.get("DJ_CRASH_PREIMPORT") and len(sys.argv) > 1 and sys.argv[1] in _PREIMPORT_AFTER:
    sys.meta_path.insert(0, _AfterImport(_PREIMPORT_AFTER[sys.argv[1]], _preimport))
