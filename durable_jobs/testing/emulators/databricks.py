"""A loopback fake of the Databricks Jobs API (and of the SQL Statement Execution calls the hook makes,
``durable_jobs.testing.emulators._databricks_statements``) that the official ``DatabricksHook`` talks to unchanged.

Contract (every rule, one line each, with its proving test): ``docs/emulators/databricks.md``.

Usage::

    with DatabricksEmulator() as emu:
        os.environ.update(emu.airflow_conn_env())        # AIRFLOW_CONN_DATABRICKS_DEFAULT
        run_id = DatabricksHook().submit_run({...})
        assert emu.ledger()["runs_created"] == 1

Request pipeline for ``/api/2.1/<route>``, ``/api/2.2/<route>`` and ``/api/2.0/sql/statements...`` (whose
``{statement_id}`` paths become the routes ``sql/statements/get`` and ``sql/statements/cancel``): count the
call -> bearer auth (401) -> fault ``error`` (answer without doing the work) -> hold ``before`` -> the work ->
hold ``after`` -> fault ``lose_reply`` / ``reset`` (work done, reply lost) -> reply.
The control API under ``/_emulator/`` needs no auth and has a Python twin on this class.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

from durable_jobs.testing.emulators._controlled import serve_controlled
from durable_jobs.testing.emulators._databricks_api import DEFAULT_CONFIG, DatabricksApp
from durable_jobs.testing.emulators._databricks_statements import StatementsApi, normalize
from durable_jobs.testing.emulators._http import CONTROL_PREFIX, ApiError, LoopbackEmulator, Request, Response

API_PATH = re.compile(r"^/api/(2\.[012])/(.+?)/*$")


class DatabricksEmulator(LoopbackEmulator):
    """Jobs API fake on ``host:port`` (port 0 picks a free one). Start it, point a connection at it."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, token: str = "emulator-token"):
        super().__init__(host, port)
        self.token = token
        self.app = DatabricksApp(token)
        self._control: dict[tuple[str, str], Callable[[dict[str, Any]], Any]] = {
            ("GET", "ledger"): lambda body: self.ledger(),
            ("POST", "reset"): lambda body: self._post_reset(),
            ("GET", "config"): lambda body: self.configure(),
            ("POST", "config"): lambda body: self.configure(**body),
            ("GET", "faults"): lambda body: {"faults": self.app.faults.describe()},
            ("POST", "faults"): self._post_faults,
            ("GET", "holds"): lambda body: self.holds(),
            ("POST", "holds"): lambda body: {"armed": [self.add_hold(**h) for h in _as_list(body)]},
            ("POST", "release"): lambda body: {
                "released": self.release(body.get("id"), bool(body.get("abandon")))
            },
            ("GET", "clock"): lambda body: self._clock_state(),
            ("POST", "clock"): self._post_clock,
            ("POST", "expire"): lambda body: {"expired": [self.expire(r) for r in _run_ids(body, "expire")]},
            ("POST", "unlist"): lambda body: {"unlisted": [self.unlist(r) for r in _run_ids(body, "unlist")]},
            ("POST", "expire_statement"): lambda body: {"expired": self.expire_statement(str(body["statement_id"]))},
            ("POST", "jobs"): lambda body: {"job_id": self.seed_job(**body)},
        }

    # -- lifecycle (LoopbackEmulator) --------------------------------------------------------
    def on_started(self) -> None:
        self.app.url = self.url

    # -- Airflow connection ------------------------------------------------------------------
    def connection_dict(self) -> dict[str, Any]:
        """Fields of an Airflow ``databricks`` connection whose ``_endpoint_url`` is this server."""
        return {
            "conn_type": "databricks",
            "host": self.host,
            "port": self.port,
            "schema": "http",
            "password": self.token,
        }

    def connection_json(self) -> str:
        """The connection as Airflow's JSON format (the value of an ``AIRFLOW_CONN_*`` variable)."""
        return json.dumps(self.connection_dict())

    def airflow_conn_env(self, conn_id: str = "databricks_default") -> dict[str, str]:
        """``{"AIRFLOW_CONN_<CONN_ID>": <json>}`` — set it and DatabricksHook(conn_id) talks to us."""
        return {f"AIRFLOW_CONN_{conn_id.upper()}": self.connection_json()}

    # -- Python twin of the control API ------------------------------------------------------
    def configure(self, **changes: Any) -> dict[str, Any]:
        """Change config keys (see DEFAULT_CONFIG); returns the whole config. Unknown keys: 400."""
        unknown = sorted(set(changes) - set(DEFAULT_CONFIG))
        if unknown:
            message = f"unknown config key(s) {unknown}; known {sorted(DEFAULT_CONFIG)}"
            raise ApiError(400, "INVALID_PARAMETER_VALUE", message)
        app = self.app
        with app.lock:
            merged = {**app.config, **changes}
            for queue in ("outcomes", "repair_outcomes", "statement_outcomes"):
                merged[queue] = list(merged[queue])
            entries = [merged["default_outcome"], *merged["outcomes"], *merged["repair_outcomes"]]
            app.validate_plans(entries, merged)
            StatementsApi.validate_outcomes(merged["statement_outcomes"])
            if int(merged["not_found_status"]) not in (400, 404):
                raise ApiError(400, "INVALID_PARAMETER_VALUE", "not_found_status must be 404 or 400")
            if merged["runs_list_order"] not in ("reference", "start_time"):
                raise ApiError(400, "INVALID_PARAMETER_VALUE", "runs_list_order must be 'reference' or 'start_time'")
            if int(merged["tasks_page_size"]) < 1:
                raise ApiError(400, "INVALID_PARAMETER_VALUE", "tasks_page_size must be >= 1")
            if "speed" in changes:
                app.clock.set_speed(float(changes["speed"]))
            app.config = merged
            return json.loads(json.dumps(app.config))

    def advance(self, seconds: float) -> float:
        """Move the emulator clock forward; returns the new emulator time."""
        return self.app.clock.advance(float(seconds))

    def expire(self, run_id: int) -> int:
        """Make a run's history expire: runs/get and get-output answer not-found from now on."""
        return self._mark(run_id, "expired")

    def unlist(self, run_id: int) -> int:
        """A fault: ``runs/list`` no longer shows the run (neither listing), while ``runs/get`` still answers. The
        reference does not say how soon an ended run is listed; this is a run listed too late ever to be seen, for
        tests of a client that follows the listing of ended runs."""
        return self._mark(run_id, "unlisted")

    def _mark(self, run_id: int, flag: str) -> int:
        with self.app.lock:
            run = self.app.runs.get(int(run_id))
            if run is None:
                raise self.app.not_found("Run", run_id)
            setattr(run, flag, True)
        return int(run_id)

    def expire_statement(self, statement_id: str) -> str:
        """Remove a SQL statement ("removed from the warehouse"): its GET and cancel answer 404 from now on."""
        return self.app.statements.expire(statement_id)

    def seed_job(
        self, job_id: int | None = None, name: str | None = None, settings: dict[str, Any] | None = None
    ) -> int:
        """Create a job without going through jobs/create (for run-now tests); returns its id."""
        settings = dict(settings or {})
        if name is not None:
            settings["name"] = name
        return self.app.add_job(settings, job_id)

    # -- HTTP dispatch (the App protocol of _http) --------------------------------------------
    def handle(self, request: Request) -> Response:
        if request.path.startswith(CONTROL_PREFIX):
            return self._handle_control(request)
        match = API_PATH.match(request.path)
        if match is None:
            raise ApiError(404, "ENDPOINT_NOT_FOUND", f"No API found for '{request.method} {request.path}'")
        version, route = match.groups()
        if (version == "2.0") != route.startswith("sql/"):  # Jobs under 2.1/2.2, SQL statements under 2.0
            raise ApiError(404, "ENDPOINT_NOT_FOUND", f"No API found for '{request.method} {request.path}'")
        return self._handle_api(request, version, route)

    def _handle_api(self, request: Request, version: str, route: str) -> Response:
        app = self.app
        route = normalize(route, request.params)  # sql/statements/{id}[/cancel]: the id moves to params
        with app.lock:
            app.calls[route] += 1
        method, handler = app.routes.get(route, (None, None))
        if handler is None or method != request.method:
            raise ApiError(404, "ENDPOINT_NOT_FOUND", f"No API found for '{request.method} /{route}'")
        if request.headers.get("Authorization") != f"Bearer {self.token}":
            raise ApiError(401, "UNAUTHENTICATED", "Invalid access token.")
        return serve_controlled(app, request, (route,), lambda: Response(200, handler(request, version)),
                                ApiError.response, run_id=lambda reply: _run_id(reply, request))

    def _handle_control(self, request: Request) -> Response:
        name = request.path[len(CONTROL_PREFIX) :].strip("/")
        action = self._control.get((request.method, name))
        if action is None:
            raise ApiError(404, "ENDPOINT_NOT_FOUND", f"No control API '{request.method} {request.path}'")
        body = request.body if request.body is not None else {}
        if name not in ("faults", "holds") and not isinstance(body, dict):
            raise ApiError(400, "MALFORMED_REQUEST", "control request body must be a JSON object")
        try:
            return Response(200, action(body))
        except TypeError as err:  # a wrong keyword in the body
            raise ApiError(400, "INVALID_PARAMETER_VALUE", str(err)) from None

    def _post_faults(self, body: Any) -> dict[str, Any]:
        if isinstance(body, dict) and body.get("clear"):
            self.clear_faults()
            return {"faults": []}
        for spec in _as_list(body):
            self.app.faults.add(spec)
        return {"faults": self.app.faults.describe()}

    def _clock_state(self) -> dict[str, Any]:
        return {"now": self.app.clock.now(), "speed": self.app.clock.speed}

    def _post_clock(self, body: dict[str, Any]) -> dict[str, Any]:
        if "speed" in body:
            self.configure(speed=body["speed"])
        if "advance" in body:
            self.advance(body["advance"])
        return self._clock_state()


def _run_id(reply: Response, request: Request) -> Any:
    """The run (or statement) a request concerns, as an after-work hold reports it: the reply's, else the ask's."""
    return reply.body.get("run_id", reply.body.get("statement_id", request.params.get(
        "run_id", request.params.get("statement_id"))))


def _as_list(body: Any) -> list[dict[str, Any]]:
    return body if isinstance(body, list) else [body]


def _run_ids(body: dict[str, Any], action: str) -> list[int]:
    if "run_ids" in body:
        return [int(r) for r in body["run_ids"]]
    if "run_id" not in body:
        raise ApiError(400, "INVALID_PARAMETER_VALUE", f"{action} needs 'run_id' (or 'run_ids')")
    return [int(body["run_id"])]
