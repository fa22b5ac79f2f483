"""State-store traffic per attempt of a durable task, on Postgres and on SQLite (issue 17).

Target: at most 2 writes and 1 read per attempt, and none per poll. Measured, not modelled: a real Airflow
stack (tests/crash/crash_stack.py: SQLite + LocalExecutor; tests/crash_scale/scale_stack.py: Postgres +
CeleryExecutor) runs our DatabricksSubmitRunOperator against the Databricks emulator, sync and deferrable, with a
short job and a job that runs several times longer (so several times the polls). Every worker request to the
state store crosses the stack's Execution API proxy, which times it (the round trip through the api-server to the
database, as the task runner waits for it); triggers never touch the state store. On Postgres the table's own
statistics (``pg_stat_user_tables`` for ``task_state_store``) count what reached the database from any process.

    flock /tmp/dj-heavy.lock .venv/bin/python benchmarks/state_store_traffic.py [--backend sqlite|postgres]

Writes ``artifacts/state-store-traffic.json`` and prints a table; exits 1 when an attempt is over the target or
the counts grow with the polls.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT / "tests" / "crash", ROOT / "tests" / "crash_scale"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from crash_scenarios import Cell, Scenario  # noqa: E402
from crash_stack import AirflowStack, Emulator, EmulatorFleet, ExecutionApiProxy, wait_for  # noqa: E402

DAGS = ROOT / "tests" / "crash" / "dags"
ROUTE = ROOT / "tests" / "crash" / "vendor_route"
STORE_PREFIX = "/execution/store/ti/"
#: the job's run time on the emulator clock: short, and long enough for several times the polls
DURATIONS = {"short": 2.0, "long": 10.0}
MAX_WRITES, MAX_READS = 2, 1
REPEATS = 2
GET = "jobs/runs/get"


class CountingProxy(ExecutionApiProxy):
    """The stack's Execution API proxy, recording every state-store request with its round-trip time."""

    def __init__(self, upstream_port: int):
        self.records: list[tuple[str, str, float]] = []
        self._records_lock = threading.Lock()
        super().__init__(upstream_port)

    def _serve(self, handler) -> None:  # noqa: ANN001
        started = time.perf_counter()
        super()._serve(handler)
        if handler.path.startswith(STORE_PREFIX):
            with self._records_lock:
                self.records.append((handler.command, handler.path, time.perf_counter() - started))

    def of(self, ti_id: str) -> list[tuple[str, str, float]]:
        with self._records_lock:
            return [r for r in self.records if r[1].startswith(f"{STORE_PREFIX}{ti_id}/")]


def _cells() -> list[Cell]:
    bench = Scenario("BENCH", "state-store traffic of one attempt", {"sync": lambda run: None,
                                                                       "deferrable": lambda run: None})
    return [Cell(Scenario(f"BENCH-{length.upper()}", bench.title, bench.drivers), "ours", mode)
            for length in DURATIONS for mode in ("sync", "deferrable")]


def _use_counting_proxy(stack: AirflowStack) -> CountingProxy:
    stack.proxy.stop()
    proxy = CountingProxy(stack.port)
    stack.proxy = proxy
    stack.env["AIRFLOW__CORE__EXECUTION_API_SERVER_URL"] = f"http://127.0.0.1:{proxy.port}/execution/"
    return proxy


def _pg_stats(stack: Any) -> dict[str, int]:
    import psycopg2

    with psycopg2.connect(host="127.0.0.1", port=stack.postgres.port, user="airflow", dbname="airflow") as db:
        with db.cursor() as cur:
            cur.execute("SELECT pg_stat_force_next_flush()")
            cur.execute("SELECT coalesce(seq_scan,0), coalesce(idx_scan,0), n_tup_ins, n_tup_upd, n_tup_del "
                        "FROM pg_stat_user_tables WHERE relname = 'task_state_store'")
            row = cur.fetchone()
    keys = ("seq_scan", "idx_scan", "inserted", "updated", "deleted")
    return dict(zip(keys, (int(v) for v in row))) if row else dict.fromkeys(keys, 0)


def measure(backend: str, log=print) -> dict[str, Any]:
    cells = _cells()
    home = Path(tempfile.mkdtemp(prefix=f"durable-jobs-bench-{backend}-"))
    (home / "cells.json").write_text(json.dumps([c.dag_spec() for c in cells]))
    fleet = EmulatorFleet([c.key for c in cells], home / "emulators")
    env = {**fleet.conn_env({c.conn_id: c.key for c in cells}), "PYTHONPATH": str(ROUTE),
           "DJ_CRASH_CELLS": str(home / "cells.json")}
    if backend == "postgres":
        from scale_stack import ScaleStack

        stack: AirflowStack = ScaleStack(home, DAGS, env)
    else:
        stack = AirflowStack(home, DAGS, env)
    proxy = _use_counting_proxy(stack)
    attempts: list[dict[str, Any]] = []
    pg_before = pg_after = None
    try:
        stack.start()
        wait_for("the benchmark DAGs", lambda: {c.dag_id for c in cells} <= stack.dag_ids(), 240, 0.5)
        if backend == "postgres":
            pg_before = _pg_stats(stack)
        for cell in cells:
            length = cell.scenario.name.split("-")[1].lower()
            emulator = Emulator(fleet.urls[cell.key])
            emulator.config(running_seconds=DURATIONS[length])
            for i in range(REPEATS):
                attempts.append(_one_attempt(stack, proxy, emulator, cell, length, f"bench-{i}"))
                log(f"bench[{backend}]: {attempts[-1]['label']}: {attempts[-1]['writes']} writes, "
                    f"{attempts[-1]['reads']} reads, {attempts[-1]['polls']} polls")
        if backend == "postgres":
            pg_after = _pg_stats(stack)
    finally:
        stack.stop()
        fleet.stop()
    out: dict[str, Any] = {"backend": backend, "attempts": attempts}
    if pg_before is not None and pg_after is not None:
        diff = {k: pg_after[k] - pg_before[k] for k in pg_before}
        out["postgres_table_stats"] = {**diff, "attempts": len(attempts),
                                       "writes_per_attempt": round((diff["inserted"] + diff["updated"]
                                                                    + diff["deleted"]) / len(attempts), 2)}
    return out


def _one_attempt(stack: AirflowStack, proxy: CountingProxy, emulator: Emulator, cell: Cell, length: str,
                 run_id: str) -> dict[str, Any]:
    polls_before = emulator.ledger()["calls"].get(GET, 0)
    stack.trigger(cell.dag_id, run_id)

    def ended():
        ti = stack.ti(cell.dag_id, run_id, "submit")
        return ti if ti["state"] in ("success", "failed") else None

    ti = wait_for(f"{cell.dag_id}/{run_id} to end", ended, 240, 0.5)
    polls = emulator.ledger()["calls"].get(GET, 0) - polls_before
    records = proxy.of(ti["id"])
    writes = [r for r in records if r[0] in ("PUT", "DELETE", "POST", "PATCH")]
    reads = [r for r in records if r[0] == "GET"]
    latencies = [r[2] * 1000 for r in records]
    return {"label": f"{cell.mode}/{length}/{run_id}", "mode": cell.mode, "job": length, "state": ti["state"],
            "try_number": ti["try_number"], "writes": len(writes), "reads": len(reads), "polls": polls,
            "latency_ms": {"mean": round(statistics.fmean(latencies), 1) if latencies else None,
                           "max": round(max(latencies), 1) if latencies else None},
            "requests": [f"{m} {p.removeprefix(STORE_PREFIX + ti['id'] + '/')}" for m, p, _ in records]}


def judge(result: dict[str, Any]) -> list[str]:
    """Where the measurement misses the target (over 2 writes or 1 read, traffic growing with the polls)."""
    bad = []
    for a in result["attempts"]:
        if a["state"] != "success" or a["try_number"] != 1:
            bad.append(f"{result['backend']} {a['label']}: {a['state']} in try {a['try_number']}")
        if a["writes"] > MAX_WRITES or a["reads"] > MAX_READS:
            bad.append(f"{result['backend']} {a['label']}: {a['writes']} writes, {a['reads']} reads")
    for mode in ("sync", "deferrable"):
        short = {(a["writes"], a["reads"]) for a in result["attempts"] if a["mode"] == mode and a["job"] == "short"}
        long = {(a["writes"], a["reads"]) for a in result["attempts"] if a["mode"] == mode and a["job"] == "long"}
        polls = [a["polls"] for a in result["attempts"] if a["mode"] == mode]
        if short != long:
            bad.append(f"{result['backend']} {mode}: traffic {short} for the short job, {long} for the long one "
                       f"(polls {polls}): it grows with the polls")
    return bad


def render(results: list[dict[str, Any]]) -> str:
    lines = ["| backend | mode | job | polls | writes | reads | mean latency (ms) | max (ms) |",
             "|---|---|---|---|---|---|---|---|"]
    for result in results:
        for a in result["attempts"]:
            lines.append(f"| {result['backend']} | {a['mode']} | {a['job']} | {a['polls']} | {a['writes']} | "
                         f"{a['reads']} | {a['latency_ms']['mean']} | {a['latency_ms']['max']} |")
    for result in results:
        stats = result.get("postgres_table_stats")
        if stats:
            lines.append(f"\nPostgres `task_state_store` statistics over {stats['attempts']} attempts: "
                         f"{stats['inserted']} inserted, {stats['updated']} updated, {stats['deleted']} deleted "
                         f"({stats['writes_per_attempt']} writes per attempt), {stats['idx_scan']} index scans, "
                         f"{stats['seq_scan']} sequential scans (REST reads of the benchmark's own polling included)")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--out", type=Path, default=ROOT / "artifacts" / "state-store-traffic.json")
    args = parser.parse_args(argv)
    backends = ("sqlite", "postgres") if args.backend == "both" else (args.backend,)
    results = [measure(b, log=lambda m: print(m, file=sys.stderr)) for b in backends]
    problems = [p for r in results for p in judge(r)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"target": {"writes": MAX_WRITES, "reads": MAX_READS, "per_poll": 0},
                                    "results": results, "problems": problems}, indent=1) + "\n")
    print(render(results))
    for problem in problems:
        print(f"OVER TARGET: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
