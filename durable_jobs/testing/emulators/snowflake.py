"""A loopback fake of the Snowflake SQL API v2 that the official ``SnowflakeSqlApiHook`` talks to unchanged.

Contract (every rule, quoted from Snowflake where Snowflake documents it): ``docs/emulators/snowflake.md``.

Usage::

    with SnowflakeEmulator() as emu, emu.routed():            # the hook's URLs now reach 127.0.0.1
        os.environ.update(emu.airflow_conn_env())               # AIRFLOW_CONN_SNOWFLAKE_DEFAULT (PAT)
        SnowflakeSqlApiHook("snowflake_default").execute_query("insert ...", statement_count=1)
        assert emu.ledger()["executions"] == 1

Where the hook sends its requests: ``SnowflakeSqlApiHook`` 6.20 builds every URL as
``f"{account_identifier}.snowflakecomputing.com/api/v2/..."`` with ``account_identifier`` =
``https://<account>[.<region>]`` (``SnowflakeHook.account_identifier``). It does not read the
connection's ``host``/``port`` extras (only the connector and the Cortex hooks do), and ``account`` is
checked against ``[A-Za-z0-9._-]``. So the one place to redirect is that property: :meth:`routed` (and
:func:`route_hooks`) make it answer ``http://127.0.0.1:<port>/<account>``; the emulator serves
``/<account>.snowflakecomputing.com/api/v2/...`` (and ``/api/v2/...``). Everything else — headers, the
key-pair JWT or OAuth/PAT token, ``requestId``, requests' and aiohttp's sessions, the hook's retries —
is the official code, unchanged.

Request pipeline: count -> auth (401) -> fault ``error`` (no work) -> hold ``before`` -> the work ->
hold ``after`` -> after-work fault (``lose_reply``, ``reset``, ``garbage``, ``slow``, ``rewrite``).
Fault and hold routes: ``statements`` (POST submit), ``statements/status`` (GET), ``statements/cancel``.
A ``rewrite`` patch may carry ``"__status__": <code>``: the SQL API's state *is* the HTTP code.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from typing import Any

from durable_jobs.testing.emulators._controlled import serve_controlled
from durable_jobs.testing.emulators._http import CONTROL_PREFIX, ApiError, LoopbackEmulator, Request, Response
from durable_jobs.testing.emulators._snowflake_api import DEFAULT_CONFIG, SnowflakeApp

API_PATH = re.compile(r"^(?:/[^/]+)?/api/v2/statements(?:/(?P<handle>[^/]+?)(?P<cancel>/cancel)?)?/*$")
ACCOUNT = "emulator"
#: The environment variable :func:`route_from_env` reads (for Airflow processes started by a test).
ROUTE_ENV = "DURABLE_JOBS_SNOWFLAKE_EMULATOR_URL"


class SnowflakeEmulator(LoopbackEmulator):
    """SQL API fake on ``host:port`` (port 0 picks a free one)."""

    default_config = DEFAULT_CONFIG

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, token: str = "emulator-token",
                 account: str = ACCOUNT):
        super().__init__(host, port)
        self.account = account
        self.token = token
        self.app = SnowflakeApp({"PROGRAMMATIC_ACCESS_TOKEN": token, "OAUTH": f"oauth-{token}"})

    # -- routing and the Airflow connection ----------------------------------------------------
    @contextlib.contextmanager
    def routed(self) -> Iterator[SnowflakeEmulator]:
        """Send every ``SnowflakeHook``'s REST calls here while the block runs (see the module docstring)."""
        with route_hooks(self.url, self.account):
            yield self

    def connection_dict(self, auth: str = "pat") -> dict[str, Any]:
        """A ``snowflake`` connection: ``auth`` "pat" (programmatic access token), "oauth" (a token fetched
        from this emulator's token endpoint) or "keypair" (a fresh RSA key: the hook signs a JWT)."""
        extra: dict[str, Any] = {"account": self.account, "warehouse": "EMULATOR_WH", "database": "EMULATOR_DB",
                                 "role": "EMULATOR_ROLE"}
        conn: dict[str, Any] = {"conn_type": "snowflake", "login": "emulator_user", "schema": "PUBLIC"}
        if auth == "pat":
            extra["authenticator"] = "programmatic_access_token"
            conn["password"] = self.token
        elif auth == "oauth":
            extra.update(authenticator="oauth", refresh_token="emulator-refresh",
                         token_endpoint=f"{self.url}/oauth/token-request")
            conn.update(login="client-id", password="client-secret")
        elif auth == "keypair":
            extra["private_key_content"] = _private_key_pem()
        else:
            raise ValueError(f"auth must be 'pat', 'oauth' or 'keypair', got {auth!r}")
        return {**conn, "extra": json.dumps(extra)}

    def airflow_conn_env(self, conn_id: str = "snowflake_default", auth: str = "pat") -> dict[str, str]:
        return {f"AIRFLOW_CONN_{conn_id.upper()}": json.dumps(self.connection_dict(auth))}

    # -- Python twin of the control API ------------------------------------------------------
    def advance(self, seconds: float) -> float:
        return self.app.clock.advance(float(seconds))

    def forget(self, handle: str) -> None:
        """Drop a statement from the emulator's memory (its status then answers 404)."""
        with self.app.lock:
            self.app.statements.pop(handle, None)

    # -- HTTP dispatch ---------------------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        if request.path.startswith(CONTROL_PREFIX):
            return self._handle_control(request)
        if request.path.rstrip("/").endswith("/oauth/token-request") and request.method == "POST":
            return Response(200, {"access_token": f"oauth-{self.token}", "expires_in": 600})
        match = API_PATH.match(request.path)
        if match is None:
            raise ApiError(404, "000404", f"No API found for '{request.method} {request.path}'")
        handle, cancel = match.group("handle"), bool(match.group("cancel"))
        if handle is None and request.method == "POST":
            route = "statements"
        elif handle is not None and cancel and request.method == "POST":
            route = "statements/cancel"
        elif handle is not None and not cancel and request.method == "GET":
            route = "statements/status"
        else:
            raise ApiError(405, "000405", f"{request.method} is not allowed on {request.path}")
        return self._serve(request, route, handle)

    def _serve(self, request: Request, route: str, handle: str | None) -> Response:
        app = self.app
        with app.lock:
            app.calls[route] += 1
        app.authenticate(request)
        return serve_controlled(app, request, (route,), lambda: self._work(request, route, handle), _sf_error,
                                rewritten=_rewritten)

    def _work(self, request: Request, route: str, handle: str | None) -> Response:
        app = self.app
        if route == "statements":
            status, body = app.submit(request)
        elif route == "statements/cancel":
            status, body = app.cancel(str(handle))
        else:
            status, body = app.status_reply(str(handle))
        return Response(status, body)

    def _handle_control(self, request: Request) -> Response:
        name = request.path[len(CONTROL_PREFIX):].strip("/")
        body = request.body if isinstance(request.body, dict) else {}
        action = self._control_actions(body).get((request.method, name))
        if action is None:
            raise ApiError(404, "ENDPOINT_NOT_FOUND", f"No control API '{request.method} {request.path}'")
        try:
            return Response(200, action())
        except TypeError as err:
            raise ApiError(400, "INVALID_PARAMETER_VALUE", str(err)) from None


def _rewritten(response: Response, body: Any) -> Response:
    """A ``rewrite`` fault may change the status too (``__status__``): the SQL API's state is in its code."""
    status = response.status
    if isinstance(body, dict) and "__status__" in body:
        body = dict(body)
        status = int(body.pop("__status__"))
    return Response(status, body, response.headers)


def _sf_error(err: ApiError) -> Response:
    """Snowflake's error body: ``{"code", "message"}`` (plus the status's own fields where it has them)."""
    return Response(err.status, {"code": err.error_code, "message": err.message}, dict(err.headers))


#: account -> emulator URL, for every route in place in this process ("" routes every other account)
_ROUTES: dict[str, str] = {}
_ORIGINAL: Any = None


@contextlib.contextmanager
def route_hooks(base_url: str, account: str = "") -> Iterator[None]:
    """Make ``SnowflakeHook.account_identifier`` answer ``<base_url>/<account>`` for ``account`` (every account
    when empty) until the block ends. Several emulators, one per account, can be routed at once."""
    _install()
    previous = _ROUTES.get(account)
    _ROUTES[account] = base_url.rstrip("/")
    try:
        yield
    finally:
        if previous is None:
            _ROUTES.pop(account, None)
        else:
            _ROUTES[account] = previous
        if not _ROUTES:
            _uninstall()


def route_from_env() -> bool:
    """For processes a test starts (Airflow's): ``$DURABLE_JOBS_SNOWFLAKE_EMULATOR_URL`` is one URL (every
    account) or a JSON object ``{account: url}`` (one emulator per account)."""
    import os

    value = os.environ.get(ROUTE_ENV, "").strip()
    if not value:
        return False
    routes = json.loads(value) if value.startswith("{") else {"": value}
    _install()
    _ROUTES.update({str(k): str(v).rstrip("/") for k, v in routes.items()})
    return True


def _install() -> None:
    global _ORIGINAL
    from airflow.providers.snowflake.hooks.snowflake import SnowflakeHook, _validate_account_component

    if _ORIGINAL is not None:
        return
    _ORIGINAL = SnowflakeHook.__dict__["account_identifier"]

    def account_identifier(self: Any) -> str:
        account = _validate_account_component(self._get_conn_params()["account"], "account")
        base = _ROUTES.get(account) or _ROUTES.get("")
        if base is None:
            raise RuntimeError(f"no Snowflake emulator is routed for account {account!r}")
        return f"{base}/{account}"

    SnowflakeHook.account_identifier = property(account_identifier)  # type: ignore[assignment,method-assign]


def _uninstall() -> None:
    global _ORIGINAL
    from airflow.providers.snowflake.hooks.snowflake import SnowflakeHook

    if _ORIGINAL is not None:
        SnowflakeHook.account_identifier = _ORIGINAL  # type: ignore[method-assign]
        _ORIGINAL = None


def _private_key_pem() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()
