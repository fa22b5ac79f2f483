"""The HTTP plumbing every emulator shares: a threaded loopback server and a JSON request handler.

An emulator supplies an *app*: ``app.handle(request) -> Response``. The handler only parses and
writes; it never decides anything, so the vendor rules stay in one readable module.
"""

from __future__ import annotations

import abc
import json
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Protocol, Self
from urllib.parse import parse_qsl, urlsplit

log = logging.getLogger(__name__)

#: Where an emulator's control API lives (``GET /_emulator/ledger``, ``POST /_emulator/faults``, ...).
CONTROL_PREFIX = "/_emulator/"

#: Errors that only mean "the client went away"; never worth a traceback.
DISCONNECT_ERRORS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)


class ApiError(Exception):
    """Raised by an app to answer with a JSON error body ``{"error_code", "message"}``."""

    def __init__(self, status: int, error_code: str, message: str, headers: dict[str, str] | None = None):
        super().__init__(f"{status} {error_code}: {message}")
        self.status = status
        self.error_code = error_code
        self.message = message
        self.headers = headers or {}

    def response(self) -> Response:
        body = {"error_code": self.error_code, "message": self.message}
        return Response(self.status, body, dict(self.headers))


@dataclass
class Response:
    """What the app answers. ``drop=True`` closes the connection without any reply; ``raw`` bytes
    are sent as they are instead of ``body`` as JSON."""

    status: int = 200
    body: Any = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    drop: bool = False
    raw: bytes | None = None


@dataclass
class Request:
    """One parsed request. ``params`` merges the query string and a JSON object body."""

    method: str
    path: str
    params: dict[str, Any]
    body: Any
    headers: Any
    handler: JSONHandler

    def client_connected(self) -> bool:
        """True while the client still holds the connection open (used for held requests)."""
        return self.handler.client_connected()


class App(Protocol):
    def handle(self, request: Request) -> Response: ...


class JSONHandler(BaseHTTPRequestHandler):
    """Parse a request, hand it to ``server.app``, write its JSON response."""

    server: EmulatorHTTPServer
    server_version = "durable-jobs-emulator"

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        log.debug("%s " + format, self.address_string(), *args)

    def client_connected(self) -> bool:
        """Peek at the socket: readable with zero bytes (or an error) means the client is gone."""
        import select
        import socket

        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            if not readable:
                return True
            return self.connection.recv(1, socket.MSG_PEEK) != b""
        except (OSError, ValueError):
            return False

    def _serve(self, method: str) -> None:
        try:
            response = self._dispatch(method)
            if response.drop:
                self.close_connection = True
                return
            self._write(response)
        except DISCONNECT_ERRORS:
            self.close_connection = True

    def _dispatch(self, method: str) -> Response:
        split = urlsplit(self.path)
        params: dict[str, Any] = dict(parse_qsl(split.query, keep_blank_values=True))
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body: Any = None
        if raw.strip() and str(self.headers.get("Content-Type", "")).startswith("application/x-www-form-urlencoded"):
            body = dict(parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True))  # an OAuth token request
        elif raw.strip():
            try:
                body = json.loads(raw)
            except ValueError:
                return ApiError(400, "MALFORMED_REQUEST", "Request body is not valid JSON").response()
        if isinstance(body, dict):
            # aiohttp sends GET parameters as a JSON body; the query string wins on a clash.
            params = {**body, **params}
        request = Request(method, split.path, params, body, self.headers, self)
        try:
            return self.server.app.handle(request)
        except ApiError as err:
            return err.response()
        except Exception as err:  # noqa: BLE001 - a fake must answer, and record what broke
            self.server.record_error(err)
            return ApiError(500, "INTERNAL_ERROR", f"emulator bug: {err!r}").response()

    def _write(self, response: Response) -> None:
        payload = response.raw if response.raw is not None else json.dumps(response.body).encode()
        self.send_response(response.status)
        if "Content-Type" not in response.headers:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)


class KeepAliveJSONHandler(JSONHandler):
    """HTTP/1.1: a connection serves request after request until the client closes it (every reply carries its
    Content-Length). The emulators answer HTTP/1.0 (a connection a request), what their tests were written
    against; a benchmark's vendor keeps connections alive, as the vendors' front ends do."""

    protocol_version = "HTTP/1.1"


class EmulatorHTTPServer(ThreadingHTTPServer):
    """Threaded server whose handler threads never outlive it and never print disconnects."""

    daemon_threads = True
    allow_reuse_address = True
    #: The listen backlog. socketserver's default, 5, dropped the connects of many clients at once (the kernel
    #: counted them in ListenOverflows; each was retried after 1, 3, 7, ... s): the official trigger's hundred
    #: sessions in the benchmark heard ends up to two minutes late, a vendor's front end would have taken them.
    request_queue_size = 1024

    def __init__(self, address: tuple[str, int], app: App, *, keep_alive: bool = False):
        self.app = app
        self.errors: list[str] = []
        super().__init__(address, KeepAliveJSONHandler if keep_alive else JSONHandler)

    def record_error(self, err: BaseException) -> None:
        log.exception("emulator handler failed", exc_info=err)
        self.errors.append(repr(err))

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        err = sys.exc_info()[1]
        if isinstance(err, DISCONNECT_ERRORS):
            return
        if err is not None:
            self.record_error(err)


class ServerThread:
    """Run an :class:`EmulatorHTTPServer` on a background thread; ``stop`` joins it."""

    def __init__(self, host: str, port: int, app: App, *, keep_alive: bool = False):
        self.server = EmulatorHTTPServer((host, port), app, keep_alive=keep_alive)
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.server.server_address[:2]
        return str(host), int(port)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)


class LoopbackEmulator(abc.ABC):
    """The lifecycle every emulator shares: serve ``self`` (an :class:`App`) on ``host:port`` (port 0 picks a
    free one) from a background thread, abandon held requests on ``stop``; a context manager."""

    app: Any  # the vendor app; its ``holds`` are cleared on stop
    #: Serve HTTP/1.1 and keep connections open between requests (``KeepAliveJSONHandler``); HTTP/1.0 if False.
    keep_alive: bool = False
    #: The app's config keys with their defaults (``configure`` refuses any other), and the vendor's error code
    #: for the refusal.
    default_config: ClassVar[Mapping[str, Any]] = {}
    invalid_config_code: ClassVar[str] = "INVALID_PARAMETER_VALUE"

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self._requested_port = port
        self._server: ServerThread | None = None

    @abc.abstractmethod
    def handle(self, request: Request) -> Response:
        """Answer one request (each vendor's emulator routes it to its API)."""

    def on_started(self) -> None:
        """Called once the socket is bound (the URL is known)."""

    def start(self) -> Self:
        if self._server is None:
            self._server = ServerThread(self.host, self._requested_port, self, keep_alive=self.keep_alive)
            self._server.start()
            self.on_started()
        return self

    def stop(self) -> None:
        """Abandon held requests, stop serving and close the socket. Safe to call twice."""
        server, self._server = self._server, None
        if server is not None:
            self.app.holds.clear(keep_history=True)  # nothing new can park once disarmed
            server.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---------------------------------------------------------------- the control API (``CONTROL_PREFIX``)
    def ledger(self) -> Any:
        """What the app recorded (``GET /_emulator/ledger``)."""
        return self.app.ledger()

    def reset(self) -> None:
        self.app.reset()

    def _post_reset(self) -> dict[str, Any]:
        self.reset()
        return {"reset": True}

    def _control_actions(self, body: dict[str, Any]) -> dict[tuple[str, str], Callable[[], Any]]:
        """The control API's (method, name) -> action that the emulators share; ``body``: the request's JSON
        object. A vendor's emulator adds its own."""
        return {
            ("GET", "ledger"): lambda: self.ledger(),
            ("POST", "reset"): self._post_reset,
            ("POST", "config"): lambda: self.configure(**body),
            ("POST", "faults"): lambda: self.add_fault(**body),
            ("POST", "holds"): lambda: self.add_hold(**body),
            ("GET", "holds"): lambda: self.holds(),
            ("POST", "release"): lambda: {"released": self.release(body.get("id"), bool(body.get("abandon")))},
        }

    # ---------------------------------------------------------------- config, faults and holds (``self.app``'s)
    def configure(self, **changes: Any) -> dict[str, Any]:
        """Change config keys (``speed``: the app clock's speed too); returns the whole config."""
        self._check_config_keys(changes)
        with self.app.lock:
            self.app.config.update(changes)
            if "speed" in changes:
                self.app.clock.set_speed(float(changes["speed"]))
            return dict(self.app.config)

    def _check_config_keys(self, changes: Mapping[str, Any]) -> None:
        unknown = sorted(set(changes) - set(self.default_config))
        if unknown:
            raise ApiError(400, self.invalid_config_code, f"unknown config key(s) {unknown}")

    def add_fault(self, path: str, status: int = 500, **rule: Any) -> dict[str, Any]:
        """Arm a fault rule on a route: count, skip, seconds, seconds_from ("armed"|"first"), mode ("error"|
        "lose_reply"|"reset"|"garbage"|"slow"|"rewrite"), retry_after, delay, patch, method (see
        ``durable_jobs.testing.emulators._faults``)."""
        self.app.faults.add({"path": path, "status": status, **rule})
        return {"faults": self.app.faults.describe()}

    def clear_faults(self) -> None:
        self.app.faults.clear()

    def add_hold(self, path: str, phase: str = "before", **rule: Any) -> dict[str, Any]:
        """Park the next matching request(s) ``before`` or ``after`` the work (count, timeout)."""
        return self.app.holds.arm({"path": path, "phase": phase, **rule})

    def holds(self) -> dict[str, Any]:
        """``{"held": [{id, path, phase, since, client_connected, ...}], "armed": [...]}``."""
        return self.app.holds.describe()

    def release(self, hold_id: int | None = None, abandon: bool = False) -> int:
        """Let held requests go on (or, ``abandon``, drop them with no reply); returns how many."""
        return self.app.holds.release(None if hold_id is None else int(hold_id), abandon)

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        return self._server.address[1]

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def server_errors(self) -> list[str]:
        """Unexpected exceptions inside the emulator (a test can assert this stays empty)."""
        return list(self._server.server.errors) if self._server else []
