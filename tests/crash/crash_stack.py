"""A real Airflow 3.3 stack on 127.0.0.1 for the crash tests, and the emulators it talks to.

Every process is started here, recorded by PID and stopped by PID (with its process tree, which
LocalExecutor workers and task supervisors belong to). Nothing is found or killed by name.
The stack gets its own AIRFLOW_HOME through the environment of its subprocesses; the test process
never imports Airflow's settings for it (tests/conftest.py points the *test* process elsewhere).
"""

from __future__ import annotations

import datetime as dt
import http.client
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psutil
import requests
from stack_watch import SilentRunnerWatch

VENV_BIN = Path(sys.executable).parent
AIRFLOW = str(VENV_BIN / "airflow")


class StackError(RuntimeError):
    """An API call failed (often just "not yet": wait_for retries these)."""


class StackDied(RuntimeError):
    """A stack component exited: every wait fails at once instead of timing out."""


def wait_for(what: str, predicate: Callable[[], Any], timeout: float, interval: float = 0.1) -> Any:
    """Poll ``predicate`` until it returns something truthy; raise with ``what`` on timeout."""
    deadline = time.monotonic() + timeout
    last_err: Exception | None = None
    while True:
        try:
            value = predicate()
            if value:
                return value
        except (requests.RequestException, StackError, json.JSONDecodeError) as err:
            last_err = err
        if time.monotonic() > deadline:
            detail = f" ({last_err})" if last_err else ""
            raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what}{detail}")
        time.sleep(interval)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def process_tree(pid: int) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def stop_pids(procs: Iterable[psutil.Process], grace: float = 5.0) -> None:
    """SIGTERM these exact processes, wait ``grace``, SIGKILL the ones left. Never by name."""
    procs = list(procs)
    for proc in procs:
        try:
            proc.send_signal(signal.SIGCONT)  # a paused process cannot handle SIGTERM
            proc.terminate()
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(procs, timeout=grace)
    for proc in alive:
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(alive, timeout=5)


class Managed:
    """One started subprocess: its Popen, log file and the process tree seen at stop time."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log_dir: Path):
        self.name = name
        self.argv = argv
        self.log_path = log_dir / f"{name}.log"
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        self.popen = subprocess.Popen(
            argv, env=env, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.pid = self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def stop(self, grace: float = 5.0) -> None:
        stop_pids(process_tree(self.pid), grace)
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self._log.close()

    def tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


class EmulatorFleet:
    """One Databricks emulator subprocess per scenario cell, so concurrent cells never share holds."""

    def __init__(self, names: list[str], workdir: Path):
        self.workdir = workdir
        self.procs: dict[str, Managed] = {}
        self.urls: dict[str, str] = {}
        workdir.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW")}
        for name in names:
            port_file = workdir / f"{name}.port"
            argv = [sys.executable, "-m", "durable_jobs.testing.emulators", "databricks", "--host", "127.0.0.1",
                    "--port", "0", "--port-file", str(port_file)]
            self.procs[name] = Managed(f"emulator-{name}", argv, env, workdir)
        for name, proc in self.procs.items():
            port_file = workdir / f"{name}.port"
            wait_for(f"emulator {name} port file", lambda: port_file.exists() or not proc.alive(), 30, 0.05)
            if not proc.alive():
                raise StackError(f"emulator {name} exited: {proc.tail()}")
            self.urls[name] = f"http://127.0.0.1:{int(port_file.read_text())}"

    def conn_env(self, conn_ids: dict[str, str]) -> dict[str, str]:
        """``AIRFLOW_CONN_<ID>`` for each ``conn_id -> emulator name``."""
        out = {}
        for conn_id, name in conn_ids.items():
            port = int(self.urls[name].rsplit(":", 1)[1])
            conn = {"conn_type": "databricks", "host": "127.0.0.1", "port": port, "schema": "http",
                    "password": "emulator-token"}
            out[f"AIRFLOW_CONN_{conn_id.upper()}"] = json.dumps(conn)
        return out

    def stop(self) -> None:
        for proc in self.procs.values():
            proc.stop(grace=3)


class Emulator:
    """Control-API client for one emulator (``/_emulator/...``)."""

    def __init__(self, url: str):
        self.url = url
        self.session = requests.Session()

    def _call(self, method: str, name: str, body: Any = None) -> Any:
        resp = self.session.request(method, f"{self.url}/_emulator/{name}", json=body, timeout=10)
        if resp.status_code != 200:
            raise StackError(f"emulator {method} {name}: {resp.status_code} {resp.text}")
        return resp.json()

    def ledger(self) -> dict[str, Any]:
        return self._call("GET", "ledger")

    def config(self, **changes: Any) -> dict[str, Any]:
        return self._call("POST", "config", changes)

    def hold(self, path: str, phase: str, count: int = 1) -> None:
        self._call("POST", "holds", {"path": path, "phase": phase, "count": count})

    def holds(self) -> dict[str, Any]:
        return self._call("GET", "holds")

    def release(self, abandon: bool = False) -> int:
        return self._call("POST", "release", {"abandon": abandon})["released"]

    def clock(self, **body: Any) -> dict[str, Any]:
        return self._call("POST", "clock", body)

    def held(self, path: str) -> dict[str, Any] | None:
        """The parked request on ``path`` whose client is still connected, if any."""
        for held in self.holds()["held"]:
            if held["path"] == path and held["client_connected"]:
                return held
        return None


class ExecutionApiProxy:
    """A loopback proxy in front of the api-server's Execution API, able to hold a request.

    Task supervisors reach Airflow through it. Holding a supervisor's heartbeat keeps the
    supervisor inside that call, so a request its task runner sends meanwhile waits unanswered:
    the only way to put a real task runner, deterministically, inside a call to Airflow.
    """

    HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "proxy-connection"}

    def __init__(self, upstream_port: int):
        proxy = self
        self.upstream_port = upstream_port
        self._lock = threading.Lock()
        self._rules: list[dict[str, Any]] = []
        self._held: dict[int, dict[str, Any]] = {}
        self._ids = iter(range(1, 1 << 30))
        self._local = threading.local()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                proxy._serve(self)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _serve

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1},
                                        daemon=True, name="execution-api-proxy")
        self._thread.start()

    # -- holds -----------------------------------------------------------------------------------
    def hold(self, method: str, path: str) -> None:
        """Park the next ``method`` request whose path equals ``path`` until released."""
        with self._lock:
            self._rules.append({"method": method, "path": path})

    def held(self, path: str) -> dict[str, Any] | None:
        with self._lock:
            return next((dict(h) for h in self._held.values() if h["path"] == path), None)

    def release(self, path: str | None = None) -> int:
        with self._lock:
            targets = [h for h in self._held.values() if path is None or h["path"] == path]
            self._rules = [r for r in self._rules if path is not None and r["path"] != path]
        for held in targets:
            held["event"].set()
        return len(targets)

    # -- forwarding ------------------------------------------------------------------------------
    def _upstream(self) -> http.client.HTTPConnection:
        if getattr(self._local, "conn", None) is None:
            self._local.conn = http.client.HTTPConnection("127.0.0.1", self.upstream_port, timeout=120)
        return self._local.conn

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else None
        path = handler.path.split("?", 1)[0]
        with self._lock:
            rule = next((r for r in self._rules if r["method"] == handler.command and r["path"] == path), None)
            held = None
            if rule is not None:
                self._rules.remove(rule)
                held = {"id": next(self._ids), "path": path, "since": time.time(), "event": threading.Event()}
                self._held[held["id"]] = held
        if held is not None:
            held["event"].wait(300)
            with self._lock:
                self._held.pop(held["id"], None)
        headers = {k: v for k, v in handler.headers.items() if k.lower() not in self.HOP}
        for attempt in (1, 2):
            conn = self._upstream()
            try:
                conn.request(handler.command, handler.path, body=body, headers=headers)
                resp = conn.getresponse()
                payload = resp.read()
                break
            except (OSError, http.client.HTTPException):
                conn.close()
                self._local.conn = None
                if attempt == 2:
                    handler.send_error(502)
                    return
        handler.send_response(resp.status, resp.reason)
        for name, value in resp.getheaders():
            if name.lower() not in self.HOP:
                handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        if handler.command != "HEAD":
            handler.wfile.write(payload)

    def stop(self) -> None:
        self.release()
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)


#: ``[durable_jobs] shared_poller`` as the triggerer's environment sets it
SHARED_POLLER_ENV = "AIRFLOW__DURABLE_JOBS__SHARED_POLLER"


class AirflowStack:
    """api-server + dag-processor + scheduler (LocalExecutor) + triggerer, all on 127.0.0.1."""

    def __init__(self, home: Path, dags_folder: Path, extra_env: dict[str, str], parallelism: int = 16):
        self.home = home
        self.port = free_port()
        self.api = f"http://127.0.0.1:{self.port}/api/v2"
        # User actions (trigger, mark failed, clear) go to a second api-server. Airflow 3.3.2 commits
        # their audit-log row synchronously on the event loop (api_fastapi/logging/decorators.py,
        # action_logging); on SQLite that blocks the loop while a request thread of the *same*
        # server holds the write lock and needs the loop to commit: a 60 s stall for every task.
        self.actions_port = free_port()
        self.actions_api = f"http://127.0.0.1:{self.actions_port}/api/v2"
        self.proxy = ExecutionApiProxy(self.port)
        self.log_dir = home / "stack-logs"
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.procs: dict[str, Managed] = {}
        self.retired: list[Managed] = []
        #: What the harness did to the stack on its own during the run (a deadlocked triggerer replaced).
        self.events: list[dict[str, str]] = []
        #: what every triggerer started from now on gets on top of ``env`` (``share_poller``)
        self.triggerer_env: dict[str, str] = {}
        self._local = threading.local()
        # One user action at a time: two audit-logged requests in one api-server deadlock the same way.
        self._actions_lock = threading.Lock()
        base = {k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW")}
        base.pop("PYTEST_CURRENT_TEST", None)
        self.env = {
            **base,
            "AIRFLOW_HOME": str(home),
            "AIRFLOW__CORE__DAGS_FOLDER": str(dags_folder),
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            "AIRFLOW__CORE__UNIT_TEST_MODE": "False",
            "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
            "AIRFLOW__CORE__PARALLELISM": str(parallelism),
            "AIRFLOW__CORE__MAX_ACTIVE_TASKS_PER_DAG": "16",
            "AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION": "False",
            "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"http://127.0.0.1:{self.proxy.port}/execution/",
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "True",
            "AIRFLOW__CORE__DEFAULT_TASK_RETRY_DELAY": "0",
            "AIRFLOW__CORE__TASK_SUCCESS_OVERTIME": "5",
            "AIRFLOW__CORE__KILLED_TASK_CLEANUP_TIME": "5",
            # SQLite holds with WAL (set after migrate) and a long busy timeout: the components wait for
            # each other's writes instead of failing with "database is locked".
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{home / 'airflow.db'}?timeout=60",
            # Room for every concurrent cell's REST reads and every task's Execution API calls at once
            # (default 5 + 10): when readers hold all of the api-server's connections, a request that
            # holds SQLite's write lock and asks for a second connection stalls everyone for a minute.
            "AIRFLOW__DATABASE__SQL_ALCHEMY_POOL_SIZE": "20",
            "AIRFLOW__DATABASE__SQL_ALCHEMY_MAX_OVERFLOW": "20",
            "AIRFLOW__API__HOST": "127.0.0.1",
            "AIRFLOW__API__PORT": str(self.port),
            "AIRFLOW__API__BASE_URL": f"http://127.0.0.1:{self.port}",
            "AIRFLOW__API__WORKERS": "1",
            "AIRFLOW__API__EXPOSE_CONFIG": "False",
            "AIRFLOW__API_AUTH__JWT_SECRET": "durable-jobs-crash-tests-not-a-secret",
            "AIRFLOW__API_AUTH__JWT_ISSUER": "durable-jobs-crash",
            # Fast everything: a SIGKILLed worker is failed within seconds, retries start at once.
            "AIRFLOW__SCHEDULER__SCHEDULER_HEARTBEAT_SEC": "1",
            "AIRFLOW__SCHEDULER__JOB_HEARTBEAT_SEC": "1",
            "AIRFLOW__SCHEDULER__SCHEDULER_IDLE_SLEEP_TIME": "0.2",
            "AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT": "10",
            "AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT_DETECTION_INTERVAL": "1",
            "AIRFLOW__SCHEDULER__TRIGGER_TIMEOUT_CHECK_INTERVAL": "2",
            "AIRFLOW__SCHEDULER__TASK_QUEUED_TIMEOUT": "600",
            "AIRFLOW__SCHEDULER__ORPHANED_TASKS_CHECK_INTERVAL": "5",
            "AIRFLOW__SCHEDULER__PARSING_CLEANUP_INTERVAL": "3600",
            "AIRFLOW__WORKERS__MIN_HEARTBEAT_INTERVAL": "1",
            "AIRFLOW__WORKERS__EXECUTION_API_TIMEOUT": "30",  # a held request must not time out
            "AIRFLOW__TRIGGERER__JOB_HEARTBEAT_SEC": "1",
            "AIRFLOW__TRIGGERER__TRIGGERER_HEALTH_CHECK_THRESHOLD": "6",
            # The runner watchdog (default 30 s) reads a runner that is alive but starved of CPU (2 cores,
            # dozens of task processes, an SDK imported on the trigger loop) or that was SIGSTOPped with
            # its supervisor (TRIGGER-MOVE) as deadlocked, stops the heartbeat, and its triggers churn
            # between cancel and re-create. Moves are driven by the triggerer's own heartbeat (6 s above);
            # a runner silent this long still gets its stacks dumped (stack_watch.py).
            "AIRFLOW__TRIGGERER__RUNNER_HEALTH_CHECK_THRESHOLD": "120",
            "AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL": "5",
            "AIRFLOW__DAG_PROCESSOR__MIN_FILE_PROCESS_INTERVAL": "600",
            "AIRFLOW__DAG_PROCESSOR__PARSING_PROCESSES": "1",
            "AIRFLOW__DAG_PROCESSOR__STALE_DAG_THRESHOLD": "600",
            "AIRFLOW__DAG_PROCESSOR__PRINT_STATS_INTERVAL": "3600",
            "AIRFLOW__LOGGING__LOGGING_LEVEL": "INFO",
            "AIRFLOW__LOGGING__COLORED_CONSOLE_LOG": "False",
            "AIRFLOW__STATE_STORE__CLEAR_ON_SUCCESS": "False",
            **extra_env,
        }

    # ------------------------------------------------------------------ processes
    def _start(self, name: str, *args: str, env: dict[str, str] | None = None) -> Managed:
        proc = Managed(name, [AIRFLOW, *args], {**self.env, **(env or {})}, self.log_dir)
        self.procs[name] = proc
        return proc

    def start(self) -> None:
        migrate = subprocess.run(
            [AIRFLOW, "db", "migrate"], env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            timeout=300,
        )
        if migrate.returncode:
            raise StackError(f"airflow db migrate failed:\n{migrate.stdout.decode(errors='replace')[-3000:]}")
        with sqlite3.connect(self.home / "airflow.db") as db:  # persistent: readers stop blocking writers
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise StackError(f"could not switch the metadata DB to WAL (got {mode})")
        self._start("api-server", "api-server", "--host", "127.0.0.1", "--port", str(self.port))
        self._start("api-server-actions", "api-server", "--apps", "core", "--host", "127.0.0.1",
                    "--port", str(self.actions_port))
        self._start("dag-processor", "dag-processor")
        self._start("scheduler", "scheduler", "--skip-serve-logs")
        self.start_triggerer("triggerer")
        self.silent_runner_watch = SilentRunnerWatch(
            self.log_dir, lambda: {name: p.pid for name, p in self.procs.items() if name.startswith("triggerer")},
            log=lambda line: print(line, file=sys.stderr, flush=True), on_silent=self.replace_silent_triggerer)
        self.silent_runner_watch.start()
        wait_for("the api-server", self._api_up, 120, 0.25)

    def _api_up(self) -> bool:
        self.check_alive()
        return all(self.session.get(f"{api}/version", timeout=5).status_code == 200
                   for api in (self.api, self.actions_api))

    def check_alive(self) -> None:
        for name, proc in self.procs.items():
            if not proc.alive():
                raise StackDied(f"{name} exited ({proc.popen.returncode}):\n{proc.tail()}")

    def start_triggerer(self, name: str) -> Managed:
        old = self.procs.pop(name, None)
        if old is not None:
            self.retired.append(old)
        return self._start(name, "triggerer", "--skip-serve-logs", env=self.triggerer_env)

    @property
    def poller_shared(self) -> bool:
        """Triggerers started from now on run the shared poller (``share_poller``)."""
        return self.triggerer_env.get(SHARED_POLLER_ENV) == "True"

    def share_poller(self) -> None:
        """Restart every triggerer with ``[durable_jobs] shared_poller`` on (the hub phase of the crash suite):
        stopped by PID (SIGTERM, then SIGKILL), started again under the same name."""
        self.triggerer_env = {SHARED_POLLER_ENV: "True"}
        for name in [n for n in self.procs if n.startswith("triggerer")]:
            self.procs[name].stop(grace=8)
            self.start_triggerer(name)
        self.events.append({"at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                            "event": "triggerers restarted with [durable_jobs] shared_poller on (the hub cells)",
                            "stacks": ""})

    def replace_silent_triggerer(self, name: str, stacks: Path | None) -> None:
        """``name``'s runner deadlocked: every trigger on it is dead until the triggerer is replaced.

        Airflow only stops that triggerer's heartbeat; with no other triggerer its triggers never run again,
        and one cell's trigger that blocked the loop for good (seen: the official EMR Serverless trigger's
        ``on_kill`` calling a sync hook, waiting on a lock a thread holds while it waits on that loop) would
        fail every deferred cell after it. SIGKILL that triggerer's process tree by PID and start a new one
        under the same name; the triggers move to it. Recorded in ``events`` (and so in the matrix).
        """
        proc = self.procs.get(name)
        if proc is None or not proc.alive():
            return
        tree = process_tree(proc.pid)
        for child in tree:
            try:
                child.kill()
            except psutil.NoSuchProcess:
                pass
        psutil.wait_procs(tree, timeout=10)
        self.start_triggerer(name)
        self.events.append({"at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                            "event": f"{name}'s runner reported deadlocked; the harness replaced {name}",
                            "stacks": stacks.name if stacks is not None else ""})
        print(f"crash: {name} replaced after its runner deadlocked ({stacks})", file=sys.stderr, flush=True)

    def stop(self) -> None:
        watch = getattr(self, "silent_runner_watch", None)
        if watch is not None:
            watch.stop()
        procs = list(self.procs.values()) + self.retired
        trees = {p.name: process_tree(p.pid) for p in procs}
        # Stop the roots first, then whatever of their trees is left (task supervisors, runners).
        self.proxy.release()
        for proc in procs:
            proc.stop(grace=8)
        stop_pids([p for tree in trees.values() for p in tree if p.is_running()], grace=2)
        self.proxy.stop()

    # ------------------------------------------------------------------ REST API
    @property
    def session(self) -> requests.Session:
        """One HTTP session per thread: cells run on a thread pool."""
        if not hasattr(self._local, "session"):
            self._local.session = requests.Session()
        return self._local.session

    def get(self, path: str, **params: Any) -> Any:
        resp = self.session.get(f"{self.api}{path}", params=params, timeout=15)
        if resp.status_code >= 400:
            raise StackError(f"GET {path}: {resp.status_code} {resp.text[:500]}")
        return resp.json()

    def call(self, method: str, path: str, body: Any = None, **params: Any) -> Any:
        """A user action (audit-logged), sent to the actions api-server, one at a time."""
        with self._actions_lock:
            resp = self.session.request(method, f"{self.actions_api}{path}", json=body, params=params, timeout=90)
        if resp.status_code >= 400:
            raise StackError(f"{method} {path}: {resp.status_code} {resp.text[:500]}")
        return resp.json() if resp.content else None

    def dag_ids(self) -> set[str]:
        """Every DAG id, page by page: the API caps a page at ``[api] maximum_page_limit`` (100)."""
        ids: set[str] = set()
        while True:
            page = self.get("/dags", limit=100, offset=len(ids))
            ids |= {d["dag_id"] for d in page["dags"]}
            if not page["dags"] or len(ids) >= int(page.get("total_entries", 0)):
                return ids

    def trigger(self, dag_id: str, run_id: str) -> None:
        self.call("POST", f"/dags/{dag_id}/dagRuns", {"dag_run_id": run_id, "logical_date": None})

    def ti(self, dag_id: str, run_id: str, task_id: str) -> dict[str, Any]:
        return self.get(f"/dags/{dag_id}/dagRuns/{run_id}/taskInstances/{task_id}")

    def dag_run(self, dag_id: str, run_id: str) -> dict[str, Any]:
        return self.get(f"/dags/{dag_id}/dagRuns/{run_id}")

    def state_store(self, dag_id: str, run_id: str, task_id: str) -> dict[str, Any]:
        """``{key: value}`` of the task's state store (values decoded from JSON where they are JSON)."""
        body = self.get(f"/dags/{dag_id}/dagRuns/{run_id}/taskInstances/{task_id}/state-store")
        out = {}
        for entry in body.get("task_state_store", []):
            value = entry["value"]
            if isinstance(value, str):
                try:
                    value = json.loads(value)
                except ValueError:
                    pass
            out[entry["key"]] = value
        return out

    def tries(self, dag_id: str, run_id: str, task_id: str) -> list[dict[str, Any]]:
        body = self.get(f"/dags/{dag_id}/dagRuns/{run_id}/taskInstances/{task_id}/tries")
        return body.get("task_instances", [])

    def triggerer_jobs(self) -> list[dict[str, Any]]:
        body = self.get("/jobs", job_type="TriggererJob", job_state="running", limit=100)
        return body.get("jobs", [])

    # ------------------------------------------------------------------ task processes
    def task_processes(self, ti_id: str) -> list[psutil.Process]:
        """The supervisor and task runner of one task instance: the runner's title names the TI id."""
        scheduler = self.procs["scheduler"]
        for proc in process_tree(scheduler.pid):
            try:
                cmdline = " ".join(proc.cmdline())
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            if f"airflow worker -- {ti_id}" in cmdline:
                try:
                    return [proc.parent(), proc]
                except psutil.NoSuchProcess:
                    return []
        return []
