"""One benchmark variant in a fresh process: N deferred Databricks runs watched by one kind of trigger.

``python -m benchmarks.one --impl ours|official --n 1000 --interval 5 --vendor-url URL`` submits N runs
to the vendor process (their ends spread over a few intervals), then runs N triggers the way Airflow's
triggerer does — one event loop, each trigger in its own task behind ``greenback.ensure_portal()``,
``run()`` to the end, then ``cleanup()`` — while a sampler thread reads this process's CPU, memory and
sockets. It prints one JSON line: the figures of this process and the vendor's counts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import threading
import time
import urllib.request
from typing import Any

import psutil

PENDING, TERMINATING = 0.2, 0.1


def vendor_stats(url: str, path: str = "/_bench/stats") -> dict[str, Any]:
    with urllib.request.urlopen(url + path, timeout=30) as reply:  # noqa: S310 - loopback
        return json.loads(reply.read() or b"{}")


class Sampler(threading.Thread):
    """Peak RSS, open file descriptors and TCP sockets of this process, every 0.2 s. Its own CPU (``cpu``, read
    when it stops) is the benchmark's, not the triggers': listing a thousand sockets five times a second costs
    seconds, and more under the official trigger, which holds more of them."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.proc = psutil.Process()
        self.stop = threading.Event()
        self.rss = self.fds = self.sockets = 0
        self.cpu = 0.0

    def sample(self) -> None:
        self.rss = max(self.rss, self.proc.memory_info().rss)
        self.fds = max(self.fds, self.proc.num_fds())
        self.sockets = max(self.sockets, len(self.proc.net_connections(kind="tcp")))

    def run(self) -> None:
        while not self.stop.wait(0.2):
            self.sample()
        self.cpu = time.thread_time()


def make_trigger(impl: str, run_id: int, interval: float) -> Any:
    if impl == "official":
        from airflow.providers.databricks.triggers.databricks import DatabricksExecutionTrigger

        # What the official DatabricksSubmitRunOperator(deferrable=True) defers with (its default retries).
        return DatabricksExecutionTrigger(run_id=run_id, databricks_conn_id="databricks_default",
                                          polling_period_seconds=interval, retry_limit=3, retry_delay=1)
    from durable_jobs.hooks.databricks import DatabricksJobClient
    from durable_jobs.triggers.job import JobTrigger

    client = DatabricksJobClient(retry_limit=3, retry_delay=1)
    return JobTrigger(client_classpath=client.classpath(), client_kwargs=client.serialize(), job_id=run_id,
                      poll_interval=interval)


async def run_like_the_triggerer(trigger: Any) -> tuple[float, dict[str, Any]]:
    import greenback

    await greenback.ensure_portal()
    payload: dict[str, Any] = {}
    at = 0.0
    try:
        async for event in trigger.run():
            at, payload = time.time(), dict(event.payload)
    except Exception as err:  # noqa: BLE001 - the triggerer fails the task with this error
        at, payload = time.time(), {"exception": f"{type(err).__name__}: {err}"[:300]}
    finally:
        await trigger.cleanup()
    return at, payload


def outcome(payload: dict[str, Any]) -> str:
    """SUCCESS / FAILED (the run's own outcome, as the task will see it) or ERROR (the task fails otherwise)."""
    if "durable_status" in payload:
        return {"success": "SUCCESS", "failed": "FAILED"}.get(payload["durable_status"], "ERROR")
    if "run_state" in payload:
        from airflow.providers.databricks.hooks.databricks import RunState

        return RunState.from_json(payload["run_state"]).result_state or "ERROR"
    return "ERROR"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--impl", choices=("ours", "official"), required=True)
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--interval", type=float, required=True)
    parser.add_argument("--vendor-url", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lifetime", type=float, default=12.0,
                        help="each run ends between this many and twice as many intervals after its submit")
    args = parser.parse_args()

    from durable_jobs.hooks.databricks import DatabricksJobClient
    from durable_jobs.operators.checkpoint import new_nonce

    rng = random.Random(args.seed)
    # Every run ends between `lifetime` and twice as many intervals after its submit; one in ten fails.
    plans = [{"outcome": "FAILED" if i % 10 == 0 else "SUCCESS", "pending_seconds": PENDING,
              "terminating_seconds": TERMINATING, "running_seconds": args.interval * args.lifetime * (1 + rng.random())}
             for i in range(args.n)]
    request = urllib.request.Request(args.vendor_url + "/_emulator/config", method="POST",
                                     data=json.dumps({"outcomes": plans}).encode(),
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=30).read()  # noqa: S310 - loopback
    submitter = DatabricksJobClient(retry_limit=3, retry_delay=1)
    ends: dict[int, float] = {}
    for plan in plans:
        run_id = submitter.submit({"run_name": "bench", "tasks": [{"task_key": "t", "notebook_task": {
            "notebook_path": "/bench"}}]}, submitter.format_key(new_nonce()))
        ends[run_id] = time.time() + PENDING + plan["running_seconds"] + TERMINATING
    expected = {run_id: plan["outcome"] for run_id, plan in zip(ends, plans)}
    del submitter
    vendor_stats(args.vendor_url, "/_bench/reset")

    sampler = Sampler()
    sampler.sample()
    base_rss, base_fds = sampler.rss, sampler.fds
    sampler.rss = 0
    sampler.start()
    cpu0, wall0 = time.process_time(), time.time()

    async def all_triggers() -> list[tuple[float, dict[str, Any]]]:
        tasks = [asyncio.create_task(run_like_the_triggerer(make_trigger(args.impl, run_id, args.interval)))
                 for run_id in ends]
        return await asyncio.gather(*tasks)

    results = asyncio.run(all_triggers())
    cpu, wall = time.process_time() - cpu0, time.time() - wall0
    sampler.stop.set()
    sampler.join()
    cpu -= sampler.cpu  # the triggers' CPU: the process's, less the sampler thread's own
    stats = vendor_stats(args.vendor_url)

    latencies, failed, errors = [], 0, []
    for run_id, (at, payload) in zip(ends, results):
        if outcome(payload) != expected[run_id]:
            failed += 1  # the task fails for a reason other than its run's own outcome (or hangs)
            errors.append(payload.get("exception") or payload.get("message") or payload)
        latencies.append(at - ends[run_id])
    latencies.sort()
    per_second = list(stats["status_per_second"].values())
    # Steady state: every job deferred and none ended yet (from two intervals in to the first end).
    steady_from, steady_to = int(wall0 + 2 * args.interval), int(min(ends.values())) - 1
    steady = [stats["status_per_second"].get(str(t), 0) for t in range(steady_from, steady_to)]
    active = per_second[1:-1] or per_second  # whole seconds only
    print(json.dumps({
        "impl": args.impl, "n": args.n, "interval": args.interval, "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 2), "rss_per_job_kb": round(max(0, sampler.rss - base_rss) / args.n / 1024, 1),
        "peak_fds": sampler.fds, "base_fds": base_fds, "peak_tcp_sockets": sampler.sockets,
        "status_calls": sum(per_second), "status_calls_per_s": round(sum(per_second) / max(1.0, wall), 1),
        "steady_calls_per_s": round(sum(steady) / len(steady), 2) if steady else None,
        "routes": stats["routes"], "throttled": sum(stats["throttled"].values()),
        "busiest_second": max(per_second, default=0),
        "mean_per_second": round(sum(active) / max(1, len(active)), 1),
        "failed_tasks": failed, "first_errors": [str(e)[:200] for e in errors[:2]],
        "latency_p50_s": round(latencies[len(latencies) // 2], 2),
        "latency_p95_s": round(latencies[int(len(latencies) * 0.95) - 1], 2),
    }), flush=True)


if __name__ == "__main__":
    main()
