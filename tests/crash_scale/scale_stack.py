"""The crash stack at scale: AirflowStack on Postgres + CeleryExecutor (Redis broker), two workers, two triggerers.

Every server runs on 127.0.0.1 from the Debian packages ``postgresql`` and ``redis-server`` (``make crash-scale``
installs them) and is started and stopped by PID, like the rest of the stack. Postgres is restartable on the same
port and data directory (the "Postgres restarted during a state-store write" cell), so is Redis (the "Redis
restarted while tasks are queued" cell). Each Celery worker names itself through ``[core] hostname_callable``
(``scale_route/dj_worker_name.py``), so a task instance's tries tell, from Airflow's own records, which worker ran
each try.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
CRASH = HERE.parent / "crash"
for _path in (str(CRASH), str(HERE)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from crash_stack import (  # noqa: E402
    AIRFLOW,
    AirflowStack,
    ExecutionApiProxy,
    Managed,
    StackError,
    free_port,
    process_tree,
    wait_for,
)

#: the two Celery workers (their [core] hostname_callable answers these names)
WORKERS = ("worker-a", "worker-b")
#: the two triggerers (the first keeps AirflowStack's name, which crash_scenarios' helpers read)
TRIGGERERS = ("triggerer", "triggerer-2")
ROUTE_DIR = HERE / "scale_route"


class RecordingProxy(ExecutionApiProxy):
    """The Execution API proxy, recording each state-store request: method, path, reply status, seconds taken.

    Proof for the Postgres cells (what the write in flight was answered) and the benchmark's counts.
    """

    STORE = "/execution/store/ti/"

    def __init__(self, upstream_port: int):
        self.records: list[dict[str, object]] = []
        self._records_lock = threading.Lock()
        super().__init__(upstream_port)

    def _serve(self, handler) -> None:  # noqa: ANN001 - BaseHTTPRequestHandler
        started = time.perf_counter()
        status: list[int] = []
        send_response, send_error = handler.send_response, handler.send_error

        def recording_response(code, *args):  # noqa: ANN001, ANN002
            status.append(int(code))
            return send_response(code, *args)

        def recording_error(code, *args):  # noqa: ANN001, ANN002
            status.append(int(code))
            return send_error(code, *args)

        handler.send_response, handler.send_error = recording_response, recording_error
        try:
            super()._serve(handler)
        finally:
            if handler.path.startswith(self.STORE):
                with self._records_lock:
                    self.records.append({"method": handler.command, "path": handler.path,
                                         "status": status[0] if status else None,
                                         "seconds": time.perf_counter() - started, "ended": time.time()})

    def of(self, path_prefix: str) -> list[dict[str, object]]:
        with self._records_lock:
            return [r for r in self.records if str(r["path"]).startswith(path_prefix)]


class ManagedAs(Managed):
    """Managed, run as another user (Postgres as ``postgres`` when we are root)."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log_dir: Path, user: str | None):
        self.name = name
        self.argv = argv
        self.log_path = log_dir / f"{name}.log"
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        self.popen = subprocess.Popen(
            argv, env=env, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True, user=user, group=user, cwd="/",
        )
        self.pid = self.popen.pid


def postgres_bin(name: str) -> str:
    """A Postgres server binary: Debian keeps them in /usr/lib/postgresql/<major>/bin, off the PATH."""
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4]))
    if found:
        return found[-1]
    on_path = shutil.which(name)
    if on_path:
        return on_path
    raise StackError(f"{name} not found: install Debian's postgresql package (make crash-scale does)")


def redis_bin() -> str:
    found = shutil.which("redis-server")
    if not found:
        raise StackError("redis-server not found: install Debian's redis-server package (make crash-scale does)")
    return found


class Postgres:
    """One Postgres cluster in a temporary directory, listening on 127.0.0.1 only, trust auth for ``airflow``.

    As root, the server runs as the ``postgres`` user the Debian package creates (initdb refuses root).
    """

    def __init__(self, log_dir: Path):
        self.log_dir = log_dir
        self.port = free_port()
        self.user = "postgres" if os.geteuid() == 0 else None
        self.dir = Path(tempfile.mkdtemp(prefix="durable-jobs-pg-"))
        self.data = self.dir / "data"
        if self.user:
            shutil.chown(self.dir, self.user, self.user)
        self.proc: ManagedAs | None = None
        self.restarts = 0
        self.url = f"postgresql+psycopg2://airflow@127.0.0.1:{self.port}/airflow"

    def _run(self, argv: list[str]) -> None:
        done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, user=self.user,
                              group=self.user, timeout=120, cwd=self.dir)
        if done.returncode:
            raise StackError(f"{' '.join(argv)} failed:\n{done.stdout.decode(errors='replace')[-2000:]}")

    def init(self) -> None:
        self._run([postgres_bin("initdb"), "-D", str(self.data), "-U", "airflow", "--auth=trust",
                   "--encoding=UTF8", "--no-sync"])
        self.start()
        self._run([postgres_bin("createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "airflow", "airflow"])

    def start(self) -> None:
        argv = [postgres_bin("postgres"), "-D", str(self.data), "-p", str(self.port),
                "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={self.dir}",
                # a test database: durability across an OS crash is not what the cells test
                "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=on",
                "-c", "max_connections=400", "-c", "shared_buffers=64MB"]
        name = "postgres" if not self.restarts and self.proc is None else f"postgres-{self.restarts}"
        self.proc = ManagedAs(name, argv, self._env(), self.log_dir, self.user)
        wait_for("Postgres to accept connections", self.ready, 60, 0.2)

    def _env(self) -> dict[str, str]:
        return {k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "PG"))}

    def ready(self) -> bool:
        if self.proc is None or not self.proc.alive():
            raise StackError(f"postgres exited:\n{self.proc.tail() if self.proc else ''}")
        done = subprocess.run([postgres_bin("pg_isready"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "airflow"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10)
        return done.returncode == 0

    def ready_quietly(self) -> bool:
        try:
            return self.ready()
        except StackError:
            return False

    def kill(self, sig: signal.Signals = signal.SIGKILL) -> int:
        """Stop the server by PID: SIGKILL its postmaster and backends (a crash), or SIGINT (fast shutdown)."""
        assert self.proc is not None
        tree = process_tree(self.proc.pid)
        pid = self.proc.pid
        if sig == signal.SIGKILL:
            for proc in tree:
                try:
                    proc.kill()
                except psutil.NoSuchProcess:
                    pass
        else:
            os.kill(pid, sig)
        psutil.wait_procs(tree, timeout=30)
        self.proc.stop(grace=2)
        return pid

    def restart(self) -> None:
        self.restarts += 1
        self.start()

    def stop(self) -> None:
        if self.proc is not None:
            try:
                os.kill(self.proc.pid, signal.SIGINT)  # fast shutdown: no waiting for the clients
            except ProcessLookupError:
                pass
            self.proc.stop(grace=10)
        shutil.rmtree(self.dir, ignore_errors=True)


class Redis:
    """A redis-server on 127.0.0.1 with an append-only file, so a restart keeps what the broker held."""

    def __init__(self, log_dir: Path, workdir: Path):
        self.log_dir = log_dir
        self.dir = workdir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: Managed | None = None
        self.restarts = 0

    def start(self) -> None:
        argv = [redis_bin(), "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.dir),
                "--save", "", "--appendonly", "yes", "--appendfsync", "always", "--protected-mode", "yes",
                "--daemonize", "no"]
        name = "redis" if not self.restarts else f"redis-{self.restarts}"
        self.proc = Managed(name, argv, dict(os.environ), self.log_dir)
        wait_for("Redis to answer PING", self.ready, 30, 0.1)

    def ready(self) -> bool:
        import redis

        if self.proc is None or not self.proc.alive():
            raise StackError(f"redis exited:\n{self.proc.tail() if self.proc else ''}")
        try:
            return bool(redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2).ping())
        except redis.RedisError:
            return False

    def client(self):
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5)

    def kill(self) -> int:
        assert self.proc is not None
        pid = self.proc.pid
        self.proc.popen.kill()
        self.proc.stop(grace=2)
        return pid

    def restart(self) -> None:
        self.restarts += 1
        self.start()

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.stop(grace=5)


class ScaleStack(AirflowStack):
    """AirflowStack on Postgres with the CeleryExecutor: two Celery workers and two triggerers."""

    proxy: RecordingProxy

    def __init__(self, home: Path, dags_folder: Path, extra_env: dict[str, str], worker_concurrency: int = 4,
                 triggerer_capacity: int = 1000):
        self.log_dir = home / "stack-logs"
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.postgres = Postgres(self.log_dir)
        self.redis = Redis(self.log_dir, home / "redis")
        self.worker_concurrency = worker_concurrency
        self._ready_from: dict[str, int] = {}
        pythonpath = os.pathsep.join(p for p in (extra_env.get("PYTHONPATH"), str(ROUTE_DIR)) if p)
        super().__init__(home, dags_folder, {
            **extra_env,
            "PYTHONPATH": pythonpath,
            "AIRFLOW__CORE__EXECUTOR": "CeleryExecutor",
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": self.postgres.url,
            # Postgres serves every process's pool; the SQLite stack's 20 + 20 per process would not fit.
            "AIRFLOW__DATABASE__SQL_ALCHEMY_POOL_SIZE": "5",
            "AIRFLOW__DATABASE__SQL_ALCHEMY_MAX_OVERFLOW": "10",
            # A restarted Postgres leaves dead connections in every pool: check them out only when alive.
            "AIRFLOW__DATABASE__SQL_ALCHEMY_POOL_PRE_PING": "True",
            "AIRFLOW__CELERY__BROKER_URL": self.redis.url,
            "AIRFLOW__CELERY__RESULT_BACKEND": "db+" + self.postgres.url.replace("+psycopg2", ""),
            "AIRFLOW__CELERY__WORKER_CONCURRENCY": str(worker_concurrency),
            "AIRFLOW__CELERY__SYNC_PARALLELISM": "1",
            "AIRFLOW__CELERY__WORKER_ENABLE_REMOTE_CONTROL": "False",
            # A component dying of a fatal signal (the api-server's SIGSEGV under the fan-out cell) prints every
            # thread's Python stack into its log.
            "PYTHONFAULTHANDLER": "1",
            # Below the fan-out cell's job count, so its triggers are spread over both triggerers.
            "AIRFLOW__TRIGGERER__CAPACITY": str(triggerer_capacity),
        })
        self.proxy.stop()  # the same proxy, recording the state-store requests it forwards
        self.proxy = RecordingProxy(self.port)
        self.env["AIRFLOW__CORE__EXECUTION_API_SERVER_URL"] = f"http://127.0.0.1:{self.proxy.port}/execution/"

    # ------------------------------------------------------------------ processes
    def start(self) -> None:
        self.postgres.init()
        self.redis.start()
        migrate = subprocess.run([AIRFLOW, "db", "migrate"], env=self.env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, timeout=600)
        if migrate.returncode:
            raise StackError(f"airflow db migrate failed:\n{migrate.stdout.decode(errors='replace')[-3000:]}")
        self._start("api-server", "api-server", "--host", "127.0.0.1", "--port", str(self.port))
        self._start("api-server-actions", "api-server", "--apps", "core", "--host", "127.0.0.1",
                    "--port", str(self.actions_port))
        self._start("dag-processor", "dag-processor")
        self._start("scheduler", "scheduler", "--skip-serve-logs")
        for name in WORKERS:
            self.start_worker(name)
        for name in TRIGGERERS:
            self.start_triggerer(name)
        wait_for("the api-server", self._api_up, 180, 0.25)
        wait_for("both Celery workers to be ready", self.workers_ready, 180, 0.5)

    def start_worker(self, name: str) -> Managed:
        old = self.procs.pop(name, None)
        if old is not None:
            self.retired.append(old)
        argv = [AIRFLOW, "celery", "worker", "--celery-hostname", f"{name}@127.0.0.1", "--concurrency",
                str(self.worker_concurrency), "--skip-serve-logs", "--without-gossip", "--without-mingle",
                "--pid", str(self.home / f"{name}.pid")]
        log_path = self.log_dir / f"{name}.log"
        # a restarted worker appends to its log: "ready." counts only past what the earlier ones wrote
        self._ready_from[name] = log_path.stat().st_size if log_path.exists() else 0
        proc = Managed(name, argv, {**self.env, "DJ_WORKER_NAME": name,
                                    "AIRFLOW__CORE__HOSTNAME_CALLABLE": "dj_worker_name.hostname"}, self.log_dir)
        self.procs[name] = proc
        return proc

    def start_triggerer(self, name: str) -> Managed:
        """A triggerer whose job row names it (``hostname``), so a cell can tell which process runs a trigger."""
        old = self.procs.pop(name, None)
        if old is not None:
            self.retired.append(old)
        env = {**self.env, **self.triggerer_env, "DJ_WORKER_NAME": name,
               "AIRFLOW__CORE__HOSTNAME_CALLABLE": "dj_worker_name.hostname"}
        proc = Managed(name, [AIRFLOW, "triggerer", "--skip-serve-logs"], env, self.log_dir)
        self.procs[name] = proc
        return proc

    def triggerer_named(self, jobs: dict[int, dict], job_id: int) -> str:
        """The name of the triggerer process that heartbeats as TriggererJob ``job_id``."""
        host = (jobs.get(job_id) or {}).get("hostname")
        if host not in TRIGGERERS or host not in self.procs:
            raise StackError(f"triggerer job {job_id} is {host!r}, not one of ours that runs")
        return host

    def trigger_events(self, dag_id: str) -> dict[str, int]:
        """task_id -> "Trigger fired event" lines in its trigger logs (every triggerer job, every attempt)."""
        counts: dict[str, int] = {}
        for path in (self.home / "logs" / f"dag_id={dag_id}").glob("run_id=*/task_id=*/attempt=*.log.trigger.*.log"):
            task = path.parent.name.removeprefix("task_id=")
            fired = 0
            for line in path.read_text(errors="replace").splitlines():
                try:
                    fired += json.loads(line).get("event") == "Trigger fired event"
                except (ValueError, AttributeError):
                    continue
            if fired:
                counts[task] = counts.get(task, 0) + fired
        # The trigger's own file sometimes misses its last lines (crash_scenarios.wait_trigger_ended saw it too):
        # the line is then in the triggerer's output. Per task, the larger of the two counts (never their sum).
        # A triggerer started again under its name appends to the same file as the one it replaced (retired):
        # each file is read once, or every line it holds would count twice.
        said: dict[str, int] = {}
        paths = {proc.log_path for proc in [*self.procs.values(), *self.retired] if proc.name in TRIGGERERS}
        for path in sorted(paths):
            for line in path.read_text(errors="replace").splitlines():
                if "Trigger fired event" in line and f"{dag_id}/" in line:
                    task = line.split(f"{dag_id}/", 1)[1].split("/")[1]
                    said[task] = said.get(task, 0) + 1
        return {t: max(counts.get(t, 0), said.get(t, 0)) for t in set(counts) | set(said)}

    def broker_depth(self, queue: str = "default") -> int:
        """Messages waiting in the Celery queue's Redis lists (kombu keeps one list per priority step)."""
        client = self.redis.client()
        return sum(int(client.llen(key)) for key in client.scan_iter(match=f"{queue}*")
                   if client.type(key) == b"list")

    def workers_ready(self) -> bool:
        self.check_alive()
        return all(self._said_ready(n) for n in WORKERS if n in self.procs)

    def worker_ready(self, name: str) -> bool:
        self.check_alive()
        return self._said_ready(name)

    def _said_ready(self, name: str) -> bool:
        with open(self.procs[name].log_path, "rb") as log:
            log.seek(self._ready_from.get(name, 0))
            return b" ready." in log.read()

    def stop_workers(self) -> list[str]:
        """Warm-shut both Celery workers down (nothing runs: they exit at once), by PID; their names."""
        stopped = []
        for name in WORKERS:
            if name in self.procs:
                self.procs[name].stop(grace=20)
                self.retire(name)
                stopped.append(name)
        return stopped

    def kill_worker(self, name: str, sig: signal.Signals = signal.SIGKILL) -> list[psutil.Process]:
        """Signal a whole Celery worker (main process, pool children, task supervisors and runners)."""
        proc = self.procs[name]
        tree = process_tree(proc.pid)
        for p in tree:
            try:
                p.send_signal(sig)
            except psutil.NoSuchProcess:
                pass
        return tree

    def revive(self) -> list[str]:
        """Start again every Airflow component that exited (as Kubernetes or systemd would); their names."""
        revived = []
        for name, proc in list(self.procs.items()):
            if proc.alive():
                continue
            self.retire(name)
            if name in WORKERS:
                self.start_worker(name)
            elif name in TRIGGERERS:
                self.start_triggerer(name)
            else:
                argv = proc.argv[1:]
                self._start(name, *argv)
            revived.append(f"{name} (exit {proc.popen.returncode})")
        if any(name.startswith("api-server") for name in revived):  # the next cell talks to it at once
            wait_for("the restarted api-server", self._api_up, 180, 0.5)
        return revived

    def settle(self, quiet_seconds: float = 20.0, timeout: float = 240.0) -> list[str]:
        """Revive what exits until every component has stayed up ``quiet_seconds`` (after a database outage,
        Airflow's components exit one by one, some seconds later: a process manager restarts them)."""
        revived: list[str] = []
        deadline = time.monotonic() + timeout
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < quiet_seconds:
            if time.monotonic() > deadline:
                raise StackError(f"components kept exiting after the outage: {revived}")
            again = self.revive()
            if again:
                revived += again
                quiet_since = time.monotonic()
            time.sleep(0.5)
        return revived

    def retire(self, name: str) -> None:
        """Forget a component that was killed on purpose (check_alive must not count it as a crash)."""
        old = self.procs.pop(name, None)
        if old is not None:
            self.retired.append(old)

    def stop(self) -> None:
        try:
            super().stop()
        finally:
            self.redis.stop()
            self.postgres.stop()

    # ------------------------------------------------------------------ task processes
    def task_processes(self, ti_id: str) -> list[psutil.Process]:
        """The supervisor (a Celery pool process) and task runner of one task instance, on any worker."""
        return self.task_processes_on(ti_id)[1]

    def task_processes_on(self, ti_id: str) -> tuple[str | None, list[psutil.Process]]:
        for name in WORKERS:
            proc = self.procs.get(name)
            if proc is None:
                continue
            for child in process_tree(proc.pid):
                try:
                    cmdline = " ".join(child.cmdline())
                except (psutil.NoSuchProcess, psutil.AccessDenied):
                    continue
                if f"airflow worker -- {ti_id}" in cmdline:
                    try:
                        return name, [child.parent(), child]
                    except psutil.NoSuchProcess:
                        return name, []
        return None, []
