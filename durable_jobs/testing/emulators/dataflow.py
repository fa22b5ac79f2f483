"""A loopback fake of Dataflow's REST API v1b3 (templates, flex templates and jobs) for the official
``DataflowHook``, whose discovery-built client talks to it unchanged.

Contract (every rule, quoted from Google where Google documents it): ``docs/emulators/dataflow.md``.

Usage::

    with DataflowEmulator() as emu, emu.routed():          # DataflowHook.get_conn now reaches 127.0.0.1
        os.environ.update(emu.airflow_conn_env())          # AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT: is_anonymous
        DataflowHook().launch_job_with_template(job_name="wc", variables={}, parameters={},
                                                dataflow_template="gs://t/wc", project_id="emulator-project")
        assert emu.ledger()["created"] == 1

Where the hook sends its requests: ``DataflowHook.get_conn`` (google 22.8) is ``googleapiclient.discovery.build(
"dataflow", "v1b3", http=<authorized>, cache_discovery=False, client_options=self.get_client_options())``, and
``get_client_options()`` passes no endpoint (only ``GOOGLE_CLOUD_UNIVERSE_DOMAIN``, which changes the domain,
never the scheme or port). The discovery document is the one bundled with google-api-python-client (no network
call). :meth:`routed` (and :func:`route_hooks`) replace that one method by the same ``build`` call with
``client_options={"api_endpoint": "http://127.0.0.1:<port>/"}``: the documented way to point a discovery client
elsewhere, and the least invasive one (the rest of the request - paths, query, body, the authorized http with
the connection's credentials, ``num_retries`` - is the hook's own). Credentials: the connection extra
``is_anonymous`` gives ``AnonymousCredentials``. Nothing leaves 127.0.0.1.

gRPC: ``JobsV1Beta3.GetJob`` only, which ``AsyncDataflowHook`` (the official ``TemplateJobStartTrigger``) polls,
is served from the same model on a second port (``_dataflow_grpc``; :meth:`routed` routes that hook too). The
durable trigger does not use it (``durable_jobs.providers.google.cloud.clients.dataflow``: the REST client in a
thread); it lets the official operator's deferrable path run against this emulator.

Request pipeline (the BigQuery emulator's): count -> fault ``error`` -> hold ``before`` -> the work -> hold
``after`` -> after-work fault (``lose_reply``, ``reset``, ``garbage``, ``slow``, ``rewrite``). Routes:
``templates/launch``, ``flexTemplates/launch``, ``jobs/get``, ``jobs/list``, ``jobs/update``; prefixed with a
project (``<project>/jobs/get``) a rule reaches that project's requests only, so that the crash suite's cells
(one project each) share one emulator, as the stack's processes share one ``DURABLE_JOBS_DATAFLOW_EMULATOR_URL``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator
from typing import Any

from durable_jobs.testing.emulators._controlled import serve_controlled
from durable_jobs.testing.emulators._dataflow_grpc import DataflowGrpcServer
from durable_jobs.testing.emulators._dataflow_grpc import install as install_grpc
from durable_jobs.testing.emulators._dataflow_model import DEFAULT_CONFIG, DataflowModel
from durable_jobs.testing.emulators._google_rest import anonymous_connection, google_error
from durable_jobs.testing.emulators._grpc_routing import replace, routed
from durable_jobs.testing.emulators._http import ApiError, LoopbackEmulator, Request, Response

PROJECT = "emulator-project"
REGION = "us-central1"
#: The environment variable :func:`route_from_env` reads (``http://127.0.0.1:<port>``).
ROUTE_ENV = "DURABLE_JOBS_DATAFLOW_EMULATOR_URL"
#: ... and the gRPC face's address (``127.0.0.1:<port>``), for ``AsyncDataflowHook``.
GRPC_ROUTE_ENV = "DURABLE_JOBS_DATAFLOW_EMULATOR_GRPC_ADDRESS"
API_PATH = re.compile(r"^/v1b3/projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)/"
                      r"(?:(?P<launch>templates|flexTemplates):launch|jobs(?:/(?P<job>[^/]+))?)/*$")


class DataflowEmulator(LoopbackEmulator):
    """Dataflow v1b3 fake on ``host:port`` (port 0 picks a free one)."""

    default_config = DEFAULT_CONFIG
    invalid_config_code = "invalid"

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, project: str = PROJECT):
        super().__init__(host, port)
        self.project = project
        self.app = DataflowModel()
        self.grpc = DataflowGrpcServer(self.app, host)

    def on_started(self) -> None:
        self.grpc.start()

    def stop(self) -> None:
        super().stop()
        self.grpc.stop()

    # -- routing and the Airflow connection ----------------------------------------------------
    @contextlib.contextmanager
    def routed(self) -> Iterator[DataflowEmulator]:
        with route_hooks(self.url, self.grpc.address):
            yield self

    def connection_dict(self) -> dict[str, Any]:
        return anonymous_connection(self.project)

    def airflow_conn_env(self, conn_id: str = "google_cloud_default") -> dict[str, str]:
        return {f"AIRFLOW_CONN_{conn_id.upper()}": json.dumps(self.connection_dict()), ROUTE_ENV: self.url,
                GRPC_ROUTE_ENV: self.grpc.address}

    # -- test controls ---------------------------------------------------------------------------
    def ledger(self, project: str | None = None) -> dict[str, Any]:
        """Every launch and job; with ``project``, that project's only."""
        return self.app.ledger(project)

    def created(self) -> int:
        return int(self.ledger()["created"])

    def configure_project(self, project: str, *, speed: float) -> None:
        """A clock of its own for one project's jobs (``speed=0`` freezes one tenant: the crash suite's cells)."""
        with self.app.lock:
            self.app.clocks.setdefault(project, self.app.clock.copy()).set_speed(float(speed))

    def finish(self, job_id: str) -> None:
        """End a batch job now (its state is ``JOB_STATE_DONE`` or ``_FAILED`` on the next read)."""
        with self.app.lock:
            job = self.app.jobs[job_id]
            now = self.app.clock_for(job.project).now()
            job.pending_until, job.done_at = min(job.pending_until, now), min(job.done_at, now)

    def set_state(self, job_id: str, state: str | None) -> None:
        """Force a job's state (None: back to its clock)."""
        with self.app.lock:
            self.app.jobs[job_id].forced = state

    def forget(self, job_id: str) -> None:
        """Drop a job (its ``jobs.get`` then answers 404)."""
        with self.app.lock:
            self.app.jobs.pop(job_id, None)

    # -- HTTP dispatch ---------------------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        match = API_PATH.match(request.path)
        if match is None:
            return google_error(ApiError(404, "notFound", f"No API found for '{request.method} {request.path}'"))
        launch, job_id = match.group("launch"), match.group("job")
        if launch and request.method == "POST":
            route = f"{launch}/launch"
        else:
            route = {(False, "GET"): "jobs/list", (True, "GET"): "jobs/get",
                     (True, "PUT"): "jobs/update"}.get((job_id is not None, request.method), "")
        if not route:
            return google_error(ApiError(405, "methodNotAllowed", f"{request.method} is not allowed on {request.path}"))
        return self._serve(request, route, match.group("project"), match.group("location"), job_id)

    def _work(self, request: Request, route: str, project: str, location: str, job_id: str | None) -> Response:
        app = self.app
        body = request.body if isinstance(request.body, dict) else {}
        if route.endswith("/launch"):
            return Response(200, app.launch(project, location, route.split("/")[0], body,
                                            str(request.params.get("gcsPath") or "")))
        if route == "jobs/list":
            return Response(200, app.list(project, location, request.params))
        if route == "jobs/get":
            return Response(200, app.get(project, location, str(job_id)))
        return Response(200, app.update(project, location, str(job_id), body))

    def _serve(self, request: Request, route: str, project: str, location: str, job_id: str | None) -> Response:
        app = self.app
        with app.lock:
            app.calls[route] += 1
            app.calls[f"{project}/{route}"] += 1  # per tenant (the crash suite's cells)
        # a rule on "<project>/<route>" reaches that project only (one emulator, many isolated tenants)
        return serve_controlled(app, request, (f"{project}/{route}", route),
                                lambda: self._work(request, route, project, location, job_id), google_error)



# -------------------------------------------------------------------- routing the official hook
def route_hooks(url: str, grpc_address: str | None = None) -> contextlib.AbstractContextManager[None]:
    """``DataflowHook.get_conn`` builds its discovery client against ``url`` while the block runs (and, with
    ``grpc_address``, ``AsyncDataflowHook`` its gRPC client against that)."""
    return routed(lambda url: _install(url) + (install_grpc(grpc_address) if grpc_address else []), url)


def route_from_env() -> None:
    """Route for the whole process when ``DURABLE_JOBS_DATAFLOW_EMULATOR_URL`` is set (crash stack)."""
    url = os.environ.get(ROUTE_ENV)
    if url:
        _install(url)
    address = os.environ.get(GRPC_ROUTE_ENV)
    if address:
        install_grpc(address)


def _install(url: str) -> list[tuple[Any, str, Any]]:
    from airflow.providers.google.cloud.hooks import dataflow as hooks

    endpoint = url.rstrip("/") + "/"

    def get_conn(self: Any) -> Any:
        # the hook's own call, with the endpoint its get_client_options() cannot carry
        return hooks.build("dataflow", "v1b3", http=self._authorize(), cache_discovery=False,
                           client_options={"api_endpoint": endpoint})

    return replace([(hooks.DataflowHook, "get_conn", get_conn)])
