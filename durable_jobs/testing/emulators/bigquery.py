"""A loopback fake of BigQuery's REST v2 jobs API that the official hooks and clients talk to unchanged.

Contract (every rule, quoted from Google where Google documents it): ``docs/emulators/bigquery.md``.

Usage::

    with BigQueryEmulator() as emu, emu.routed():        # BIGQUERY_EMULATOR_HOST=http://127.0.0.1:<port>
        os.environ.update(emu.airflow_conn_env())         # AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT: is_anonymous
        BigQueryHook().insert_job({"query": {"query": "SELECT 1"}}, job_id="j1", nowait=True)
        assert emu.ledger()["created"] == 1

Where the clients send their requests, and how they get here without touching our code or the hooks:

* ``google-cloud-bigquery`` (``BigQueryHook.get_client``; the official operator, our client, and
  ``BigQueryAsyncHook.get_job_status``, which runs the sync hook in a thread) honours the environment
  variable ``BIGQUERY_EMULATOR_HOST`` as its API endpoint (``_helpers._get_bigquery_host``), scheme included.
* ``gcloud-aio-bigquery`` (``BigQueryAsyncHook.cancel_job``, the official trigger's ``on_kill``) reads the
  same variable but puts ``http://`` in front of it itself (``init_api_root``), so a value with a scheme
  would become ``http://http://...``. :func:`route_aio` makes that one function accept a URL as it is; with
  the variable set, gcloud-aio also treats the API as an emulator and sends no token.
* Credentials: the connection extra ``is_anonymous`` (``GoogleBaseHook``) gives ``AnonymousCredentials``;
  the ``project`` extra names the project. Nothing leaves 127.0.0.1.

Request pipeline: count -> fault ``error`` (no work) -> hold ``before`` -> the work -> hold ``after`` ->
after-work fault (``lose_reply``, ``reset``, ``garbage``, ``slow``, ``rewrite``). Fault and hold routes:
``jobs/insert``, ``jobs/get``, ``jobs/cancel``, ``jobs/list``, ``queries/get``; prefixed with a project
(``<project>/jobs/get``) a rule reaches that project's requests only, so that concurrent tests (each with its
own project) share one emulator, as they must share the one ``BIGQUERY_EMULATOR_HOST``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator
from typing import Any

from durable_jobs.testing.emulators._bigquery_api import DEFAULT_CONFIG, BigQueryApp
from durable_jobs.testing.emulators._controlled import serve_controlled
from durable_jobs.testing.emulators._google_rest import anonymous_connection, google_error
from durable_jobs.testing.emulators._http import CONTROL_PREFIX, ApiError, LoopbackEmulator, Request, Response

API_PATH = re.compile(
    r"^/bigquery/v2/projects/(?P<project>[^/]+)/(?P<kind>jobs|queries)(?:/(?P<job>[^/]+?)(?P<cancel>/cancel)?)?/*$"
)
PROJECT = "emulator-project"
#: The variable both BigQuery client libraries read (see the module docstring).
HOST_ENV = "BIGQUERY_EMULATOR_HOST"
#: google-api-core reads the JSON error's ``status`` for gRPC-style names.


class BigQueryEmulator(LoopbackEmulator):
    """BigQuery jobs fake on ``host:port`` (port 0 picks a free one)."""

    default_config = DEFAULT_CONFIG
    invalid_config_code = "invalid"

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, project: str = PROJECT):
        super().__init__(host, port)
        self.project = project
        self.app = BigQueryApp()

    def on_started(self) -> None:
        self.app.base_url = self.url

    # -- routing and the Airflow connection ----------------------------------------------------
    @contextlib.contextmanager
    def routed(self) -> Iterator[BigQueryEmulator]:
        """Send both BigQuery client libraries here while the block runs (see the module docstring)."""
        previous = os.environ.get(HOST_ENV)
        os.environ[HOST_ENV] = self.url
        try:
            with route_aio():
                yield self
        finally:
            if previous is None:
                os.environ.pop(HOST_ENV, None)
            else:
                os.environ[HOST_ENV] = previous

    def connection_dict(self) -> dict[str, Any]:
        """A ``google_cloud_platform`` connection: anonymous credentials, this emulator's project."""
        return anonymous_connection(self.project)

    def airflow_conn_env(self, conn_id: str = "google_cloud_default") -> dict[str, str]:
        return {f"AIRFLOW_CONN_{conn_id.upper()}": json.dumps(self.connection_dict()), HOST_ENV: self.url}

    # -- Python twin of the control API ------------------------------------------------------
    def ledger(self, project: str | None = None) -> dict[str, Any]:
        """Every insert and job; with ``project``, that project's only."""
        return self.app.ledger(project)

    def configure_project(self, project: str, **changes: Any) -> dict[str, Any]:
        """Settings for one project's jobs only (``speed`` gives it a clock of its own: freeze one tenant)."""
        self._check_config_keys(changes)
        with self.app.lock:
            if "speed" in changes:
                clock = self.app.clocks.setdefault(project, self.app.clock.copy())
                clock.set_speed(float(changes["speed"]))
            self.app.project_config.setdefault(project, {}).update(changes)
            return dict(self.app.project_config[project])

    def advance(self, seconds: float, project: str | None = None) -> float:
        clock = self.app.clock if project is None else self.app.clock_for(project)
        return clock.advance(float(seconds))

    def finish(self, job_id: str) -> None:
        """End a job now (its state is ``DONE`` on the next read)."""
        with self.app.lock:
            for job in self.app.jobs.values():
                if job.job_id == job_id:
                    now = self.app.clock_for(job.project).now()
                    job.pending_until = min(job.pending_until, now)
                    job.done_at = min(job.done_at, now)

    def forget(self, job_id: str) -> None:
        """Drop a job from the emulator's memory (its status then answers 404, as an expired history)."""
        with self.app.lock:
            for key in [k for k in self.app.jobs if k[1] == job_id]:
                del self.app.jobs[key]

    # -- HTTP dispatch ---------------------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        if request.path.startswith(CONTROL_PREFIX):
            return self._handle_control(request)
        match = API_PATH.match(request.path)
        if match is None:
            return google_error(ApiError(404, "notFound", f"No API found for '{request.method} {request.path}'"))
        kind, job_id, cancel = match.group("kind"), match.group("job"), bool(match.group("cancel"))
        routes = {
            ("jobs", False, False, "POST"): "jobs/insert", ("jobs", False, False, "GET"): "jobs/list",
            ("jobs", True, False, "GET"): "jobs/get", ("jobs", True, True, "POST"): "jobs/cancel",
            ("queries", True, False, "GET"): "queries/get",
        }
        route = routes.get((kind, job_id is not None, cancel, request.method))
        if route is None:
            return google_error(ApiError(405, "methodNotAllowed", f"{request.method} is not allowed on {request.path}"))
        return self._serve(request, route, match.group("project"), job_id)

    def _work(self, request: Request, route: str, project: str, job_id: str | None) -> Response:
        app, location = self.app, request.params.get("location")
        if route == "jobs/insert":
            return Response(200, app.insert(project, request))
        if route == "jobs/list":
            return Response(200, app.list(project, request.params))
        if route == "jobs/get":
            return Response(200, app.get(project, str(job_id), location))
        if route == "jobs/cancel":
            return Response(200, app.cancel(project, str(job_id), location))
        return Response(200, app.query_results(project, str(job_id), location))

    def _serve(self, request: Request, route: str, project: str, job_id: str | None) -> Response:
        app = self.app
        with app.lock:
            app.calls[route] += 1
        # a rule on "<project>/<route>" reaches that project only (one emulator, many isolated tenants)
        return serve_controlled(app, request, (f"{project}/{route}", route),
                                lambda: self._work(request, route, project, job_id), google_error)

    def _post_finish(self, job_id: str) -> dict[str, Any]:
        self.finish(job_id)
        return {"finished": job_id}

    def _handle_control(self, request: Request) -> Response:
        name = request.path[len(CONTROL_PREFIX):].strip("/")
        body = request.body if isinstance(request.body, dict) else {}
        actions = {**self._control_actions(body),
                   ("POST", "finish"): lambda: self._post_finish(str(body.get("job_id")))}
        action = actions.get((request.method, name))
        if action is None:
            return google_error(ApiError(404, "notFound", f"No control API '{request.method} {request.path}'"))
        try:
            return Response(200, action())
        except TypeError as err:
            return google_error(ApiError(400, "invalid", str(err)))
        except ApiError as err:
            return google_error(err)



_AIO_ORIGINAL: Any = None


@contextlib.contextmanager
def route_aio() -> Iterator[None]:
    """Let gcloud-aio-bigquery take ``BIGQUERY_EMULATOR_HOST`` with a scheme (as google-cloud-bigquery does)."""
    installed = install_aio_route()
    try:
        yield
    finally:
        if installed:
            uninstall_aio_route()


def install_aio_route() -> bool:
    """Wrap ``gcloud.aio.bigquery.bigquery.init_api_root``: a ``BIGQUERY_EMULATOR_HOST`` that starts with
    ``http://`` is the API root itself (plus ``/bigquery/v2``), an emulator (no token); any other value keeps
    the library's own behaviour. False when already installed."""
    global _AIO_ORIGINAL
    from gcloud.aio.bigquery import bigquery as aio

    if _AIO_ORIGINAL is not None:
        return False
    original = _AIO_ORIGINAL = aio.init_api_root

    def init_api_root(api_root: str | None, api_is_dev: bool | None = None) -> tuple[bool, str]:
        host = os.environ.get(HOST_ENV, "")
        if not api_root and host.startswith(("http://", "https://")):
            return True, f"{host.rstrip('/')}/bigquery/v2"
        return original(api_root, api_is_dev)

    aio.init_api_root = init_api_root
    return True


def uninstall_aio_route() -> None:
    global _AIO_ORIGINAL
    from gcloud.aio.bigquery import bigquery as aio

    if _AIO_ORIGINAL is not None:
        aio.init_api_root = _AIO_ORIGINAL
        _AIO_ORIGINAL = None


def route_from_env() -> bool:
    """For processes a test starts (Airflow's): with ``BIGQUERY_EMULATOR_HOST`` set to a URL, install the
    gcloud-aio wrapper (google-cloud-bigquery needs nothing)."""
    if not os.environ.get(HOST_ENV, "").startswith(("http://", "https://")):
        return False
    install_aio_route()
    return True
