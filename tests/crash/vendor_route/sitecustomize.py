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
# is imported, route_from_env() points each cell's account at its emulator (durable_jobs.emulators.snowflake).
def _route_snowflake() -> None:
    from durable_jobs.emulators.snowflake import route_from_env

    route_from_env()


if os.environ.get("DURABLE_JOBS_SNOWFLAKE_EMULATOR_URL"):
    sys.meta_path.insert(0, _AfterImport("airflow.providers.snowflake.hooks.snowflake", _route_snowflake))


# ---------------------------------------------------------------------------------------------- BigQuery
# google-cloud-bigquery takes BIGQUERY_EMULATOR_HOST (a URL) as it is; gcloud-aio-bigquery (the official
# trigger's cancel) is taught to take it too, once its module is imported (durable_jobs.emulators.bigquery).
def _route_bigquery() -> None:
    from durable_jobs.emulators.bigquery import route_from_env

    route_from_env()


if os.environ.get("BIGQUERY_EMULATOR_HOST", "").startswith("http"):
    sys.meta_path.insert(0, _AfterImport("gcloud.aio.bigquery.bigquery", _route_bigquery))

# ---------------------------------------------------------------------------------------------- Dataproc
# The hooks build their clients over TLS to <region>-dataproc.googleapis.com: DataprocHook's and
# DataprocAsyncHook's client factories are replaced by the same clients over an insecure channel to the
# emulator, once the hook module is imported (durable_jobs.emulators.dataproc.route_from_env).
def _route_dataproc() -> None:
    from durable_jobs.emulators.dataproc import route_from_env

    route_from_env()


if os.environ.get("DURABLE_JOBS_DATAPROC_EMULATOR_ADDRESS"):
    sys.meta_path.insert(0, _AfterImport("airflow.providers.google.cloud.hooks.dataproc", _route_dataproc))
