"""One benchmark variant in a fresh process: N deferred Databricks runs or AWS Batch jobs watched by one
kind of trigger.

``python -m benchmarks.one --vendor databricks|batch --impl ours|official --n 1000 --interval 5
--vendor-url URL`` submits N jobs to the vendor process (their ends spread over a few intervals), then runs
N triggers the way Airflow's triggerer does — one event loop, each trigger in its own task behind
``greenback.ensure_portal()``, ``run()`` to the end, then ``cleanup()`` — while a sampler thread reads this
process's CPU, memory and sockets. It prints one JSON line: the figures of this process and the vendor's counts.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import math
import random
import sys
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


def make_trigger(vendor: str, impl: str, job_id: Any, interval: float) -> Any:
    """The trigger each deferrable operator defers with, with the official operator's own defaults, built from its
    row's arguments as the triggerer builds it."""
    if impl == "official":
        if vendor == "batch":
            from airflow.providers.amazon.aws.triggers.batch import BatchJobTrigger

            # What BatchOperator(deferrable=True) defers with: max_retries (4200) as the waiter's attempts.
            return BatchJobTrigger(job_id=job_id, aws_conn_id="aws_default", waiter_delay=int(interval),
                                   waiter_max_attempts=4200)
        from airflow.providers.databricks.triggers.databricks import DatabricksExecutionTrigger

        # What the official DatabricksSubmitRunOperator(deferrable=True) defers with (its default retries).
        return DatabricksExecutionTrigger(run_id=job_id, databricks_conn_id="databricks_default",
                                          polling_period_seconds=int(interval), retry_limit=3, retry_delay=1)
    from durable_jobs.core.trigger import JobTrigger

    classpath, kwargs = client_row(vendor)
    return JobTrigger(client_classpath=classpath, client_kwargs=kwargs, job_id=job_id, poll_interval=interval)


@functools.cache
def client_row(vendor: str) -> tuple[str, dict[str, Any]]:
    """Our client's classpath and arguments, as our operators write them into the trigger's row (once: the
    triggerer reads them, it does not build an operator's client per trigger)."""
    if vendor == "batch":
        client: Any = batch_client()
    else:
        from durable_jobs.providers.databricks.clients.databricks import DatabricksJobClient

        client = DatabricksJobClient(retry_limit=3, retry_delay=1)
    return client.classpath(), client.serialize()


def batch_client() -> Any:
    from durable_jobs.providers.amazon.aws.clients.batch import BatchJobClient
    from durable_jobs.testing.emulators.aws_env import JOB_QUEUE

    return BatchJobClient("aws_default", job_queue=JOB_QUEUE, job_name="bench")


def submit_databricks(url: str, plans: list[dict[str, Any]]) -> list[tuple[Any, float]]:
    """The runs' ids, each with the time its submit returned (its run's clock starts there)."""
    from durable_jobs.core.checkpoint import new_nonce
    from durable_jobs.providers.databricks.clients.databricks import DatabricksJobClient

    post(url + "/_emulator/config", {"outcomes": [
        {"outcome": "FAILED" if p["fails"] else "SUCCESS", "pending_seconds": PENDING,
         "terminating_seconds": TERMINATING, "running_seconds": p["seconds"] - PENDING - TERMINATING}
        for p in plans]})
    submitter = DatabricksJobClient(retry_limit=3, retry_delay=1)
    request = {"run_name": "bench", "tasks": [{"task_key": "t", "notebook_task": {"notebook_path": "/bench"}}]}
    return [(submitter.submit(request, submitter.format_key(new_nonce())), time.time()) for _ in plans]


def submit_batch(url: str, plans: list[dict[str, Any]]) -> list[tuple[Any, float]]:
    """Each job is named ``bench<i>-<key>``; the vendor ends it on its plan (``benchmarks.vendor_batch``)."""
    from durable_jobs.core.checkpoint import new_nonce
    from durable_jobs.providers.amazon.aws.clients.batch import BatchJobClient
    from durable_jobs.testing.emulators.aws_env import JOB_DEFINITION, JOB_QUEUE

    post(url + "/_bench/plan", {f"bench{i}": [p["seconds"], "FAILED" if p["fails"] else "SUCCEEDED"]
                                for i, p in enumerate(plans)})
    submitter = BatchJobClient("aws_default", job_queue=JOB_QUEUE, job_name="bench")
    return [(submitter.submit({"jobName": f"bench{i}", "jobQueue": JOB_QUEUE, "jobDefinition": JOB_DEFINITION},
                              submitter.format_key(new_nonce())), time.time()) for i in range(len(plans))]


def post(url: str, body: Any) -> None:
    request = urllib.request.Request(url, method="POST", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=30).read()  # noqa: S310 - loopback


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
    """SUCCESS / FAILED (the job's own outcome, as the task will see it) or ERROR (the task fails otherwise)."""
    if "durable_status" in payload:
        return {"success": "SUCCESS", "failed": "FAILED"}.get(payload["durable_status"], "ERROR")
    if "run_state" in payload:
        from airflow.providers.databricks.hooks.databricks import RunState

        return RunState.from_json(payload["run_state"]).result_state or "ERROR"
    if payload.get("status") == "success" and "job_id" in payload:  # the official Batch trigger's event
        return "SUCCESS"
    said = f"{payload.get('exception', '')} {payload.get('message', '')}"
    if "Failure while running batch job" in said and "terminal failure state" in said:  # its waiter's failure
        return "FAILED"
    return "ERROR"


def burst(per_second: dict[int, int]) -> dict[str, Any]:
    """The busiest window against the mean window, over the whole span of the calls (silent seconds count).

    The window is one second while the calls average one a second or more; sparser calls (a long interval,
    few jobs) are judged over the shortest window that holds one call on average, since one call in a second
    is not a burst of a mean below one a second."""
    if not per_second:
        return {"burst_window_s": 1, "busiest_window": 0, "mean_per_window": 0.0}
    first, last = min(per_second), max(per_second)
    span, total = last - first + 1, sum(per_second.values())
    window = max(1, math.ceil(span / total))
    counts = [per_second.get(t, 0) for t in range(first, last + 1)]
    busiest = max(sum(counts[i:i + window]) for i in range(max(1, span - window + 1)))
    return {"burst_window_s": window, "busiest_window": busiest, "mean_per_window": round(total * window / span, 2)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--vendor", choices=("databricks", "batch"), default="databricks")
    parser.add_argument("--impl", choices=("ours", "official"), required=True)
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--interval", type=float, required=True)
    parser.add_argument("--vendor-url", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lifetime", type=float, default=12.0,
                        help="each job ends between this many and twice as many intervals after its submit")
    parser.add_argument("--foreign", type=int, default=0,
                        help="Databricks: this many times N others' runs, started after ours, active throughout")
    args = parser.parse_args()
    if args.foreign and args.vendor != "databricks":
        parser.error("--foreign is a Databricks shape (others' runs in the workspace's listings)")

    rng = random.Random(args.seed)
    # Every job ends between `lifetime` and twice as many intervals after its submit; one in ten fails.
    plans = [{"fails": i % 10 == 0, "seconds": args.interval * args.lifetime * (1 + rng.random())}
             for i in range(args.n)]
    submit = submit_batch if args.vendor == "batch" else submit_databricks
    submitted = submit(args.vendor_url, plans)
    ends = {job_id: at + plan["seconds"] for (job_id, at), plan in zip(submitted, plans)}
    if args.foreign:  # newer than ours: the active listing's first pages show only theirs
        post(args.vendor_url + "/_bench/foreign", {"count": args.foreign * args.n,
                                                   "seconds": args.interval * args.lifetime * 3})
    expected = {job_id: "FAILED" if plan["fails"] else "SUCCESS" for (job_id, _), plan in zip(submitted, plans)}
    vendor_stats(args.vendor_url, "/_bench/reset")

    # A triggerer imports a trigger's module (and greenback) once, for every trigger it will ever run: not a
    # cost per deferred job. Both implementations import theirs here, before the clock starts.
    make_trigger(args.vendor, args.impl, next(iter(ends)), args.interval)
    import asgiref.sync  # noqa: F401 - the SDK's first async connection lookup (the official hooks') imports it
    import greenback  # noqa: F401 - what run_like_the_triggerer imports
    imported = set(sys.modules)

    sampler = Sampler()
    sampler.sample()
    base_rss, base_fds = sampler.rss, sampler.fds
    sampler.rss = 0
    sampler.start()
    cpu0, wall0 = time.process_time(), time.time()

    async def all_triggers() -> list[tuple[float, dict[str, Any]]]:
        tasks = [asyncio.create_task(run_like_the_triggerer(make_trigger(args.vendor, args.impl, job_id,
                                                                         args.interval)))
                 for job_id in ends]
        return await asyncio.gather(*tasks)

    results = asyncio.run(all_triggers())
    cpu, wall = time.process_time() - cpu0, time.time() - wall0
    sampler.stop.set()
    sampler.join()
    cpu -= sampler.cpu  # the triggers' CPU: the process's, less the sampler thread's own
    imported_while_measured = sorted(set(sys.modules) - imported)
    stats = vendor_stats(args.vendor_url)

    latencies, failed, errors = [], 0, []
    for run_id, (at, payload) in zip(ends, results):
        if outcome(payload) != expected[run_id]:
            failed += 1  # the task fails for a reason other than its run's own outcome (or hangs)
            errors.append(payload.get("exception") or payload.get("message") or payload)
            continue  # its event tells no end: not a job end -> event latency (a throttled one comes early)
        latencies.append(at - ends[run_id])
    latencies.sort()
    by_second = {int(k): v for k, v in stats["status_per_second"].items()}
    per_second = list(by_second.values())
    # Steady state: every job deferred and none ended yet (from two intervals in to the first end).
    steady_from, steady_to = int(wall0 + 2 * args.interval), int(min(ends.values())) - 1
    steady = [stats["status_per_second"].get(str(t), 0) for t in range(steady_from, steady_to)]
    span = (max(by_second) - min(by_second) + 1) if by_second else 1
    print(json.dumps({
        "impl": args.impl, "n": args.n, "interval": args.interval, "foreign": args.foreign, "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 2), "imported_while_measured": imported_while_measured,
        "rss_per_job_kb": round(max(0, sampler.rss - base_rss) / args.n / 1024, 1),
        "peak_fds": sampler.fds, "base_fds": base_fds, "peak_tcp_sockets": sampler.sockets,
        "status_calls": sum(per_second), "status_calls_per_s": round(sum(per_second) / max(1.0, wall), 1),
        "steady_calls_per_s": round(sum(steady) / len(steady), 2) if steady else None,
        "routes": stats["routes"], "throttled": sum(stats["throttled"].values()),
        "busiest_second": max(per_second, default=0),
        "mean_per_second": round(sum(per_second) / span, 2),  # over the calls' whole span, silent seconds too
        **burst(by_second),
        "failed_tasks": failed, "first_errors": [str(e)[:200] for e in errors[:2]],
        "latency_p50_s": round(latencies[len(latencies) // 2], 2) if latencies else None,
        "latency_p95_s": round(latencies[max(0, int(len(latencies) * 0.95) - 1)], 2) if latencies else None,
    }), flush=True)


if __name__ == "__main__":
    main()
