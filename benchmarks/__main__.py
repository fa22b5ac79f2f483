"""``python -m benchmarks [--quick] [--vendor databricks batch] [--n 100 500 1000] [--interval 5 30]``: ours
vs the official trigger.

For each (vendor, N, interval) both implementations run, one after the other in the same invocation, each in
a fresh process against a fresh vendor process limited to the vendor's documented requests/s (``VENDOR_LIMIT``,
or ``--limit``). Prints the table (figures, and the official/ours ratios the issue's
targets are about), writes ``benchmarks/results/last.json`` and the plot ``docs/_static/bench.png``.
Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
PLOT = ROOT / "docs" / "_static" / "bench.png"


#: The vendor process of each benchmarked vendor (``python -m <module> --limit L`` prints its URL and env).
VENDOR_PROCESS = {"databricks": "benchmarks.vendor", "batch": "benchmarks.vendor_batch"}
#: Each vendor's documented request limit: Databricks 100/s for ``jobs/runs/get`` (Jobs API rate limits);
#: AWS Batch 50 TPS per account for its API calls (AWS re:Post knowledge center, "aws-batch-requests-error").
VENDOR_LIMIT = {"databricks": 100.0, "batch": 50.0}


def run_variant(vendor_name: str, impl: str, n: int, interval: float, limit: float,
                lifetime: float, foreign: int = 0, seed: int = 1) -> dict[str, Any]:
    vendor = subprocess.Popen([sys.executable, "-m", VENDOR_PROCESS[vendor_name], "--limit", str(limit)],
                              cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert vendor.stdout is not None
        hello = json.loads(vendor.stdout.readline())
        # ours runs through the shared poller, which is opt-in ([durable_jobs] shared_poller)
        env = {**os.environ, **hello["env"], "AIRFLOW__LOGGING__LOGGING_LEVEL": "ERROR",
               "AIRFLOW__DURABLE_JOBS__SHARED_POLLER": "True"}
        timeout = 600 + interval * lifetime * 3
        done = subprocess.run([sys.executable, "-m", "benchmarks.one", "--vendor", vendor_name, "--impl", impl,
                               "--n", str(n),
                               "--interval", str(interval), "--lifetime", str(lifetime), "--vendor-url", hello["url"],
                               "--seed", str(seed), *(["--foreign", str(foreign)] if foreign else [])],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode != 0 or not lines:
            raise RuntimeError(f"{vendor_name} {impl} n={n} interval={interval} foreign={foreign} failed:\n"
                               f"{done.stderr[-3000:]}")
        return {"vendor": vendor_name, **json.loads(lines[-1]), "limit": limit, "lifetime_intervals": lifetime,
                "seed": seed,
                "date": f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC"}
    finally:
        vendor.send_signal(signal.SIGTERM)
        try:
            vendor.wait(10)
        except subprocess.TimeoutExpired:
            vendor.kill()


def ratio(a: float, b: float) -> float:
    return round(a / b, 2) if b else float("inf")


def row(official: dict[str, Any], ours: dict[str, Any]) -> dict[str, Any]:
    return {
        "vendor": ours["vendor"], "n": ours["n"], "interval": ours["interval"], "foreign": shape_of(ours)[3],
        "calls_ratio": ratio(official["status_calls"], ours["status_calls"]),
        "steady_calls_ratio": ratio(official["steady_calls_per_s"] or 0, ours["steady_calls_per_s"] or 0),
        "cpu_ratio": ratio(ours["cpu_s"], official["cpu_s"]),
        "mem_ratio": ratio(ours["rss_per_job_kb"], official["rss_per_job_kb"]),
        "ours_tcp": ours["peak_tcp_sockets"], "official_tcp": official["peak_tcp_sockets"],
        "ours_failed": ours["failed_tasks"], "official_failed": official["failed_tasks"],
        "p95_ours": ours["latency_p95_s"], "p95_official": official["latency_p95_s"],
        "burst_ours": ratio(ours["busiest_window"], ours["mean_per_window"]),
        "burst_official": ratio(official["busiest_window"], official["mean_per_window"]),
        "burst_window_ours": ours["burst_window_s"], "burst_window_official": official["burst_window_s"],
    }


def print_table(results: list[dict[str, Any]], rows: list[dict[str, Any]]) -> None:
    head = (f"{'vendor':10} {'impl':9} {'N':>5} {'ivl':>4} {'calls':>7} {'calls/s':>8} {'steady/s':>8} {'429':>6} "
            f"{'busy/s':>6} {'mean/s':>6} {'cpu s':>7} {'kB/job':>7} {'fds':>5} {'tcp':>5} {'fail':>5} "
            f"{'p50 s':>6} {'p95 s':>6}")
    print(head)
    for r in results:
        vendor = r["vendor"] + (f"+{r['foreign']}x" if r.get("foreign") else "")
        print(f"{vendor:10} {r['impl']:9} {r['n']:>5} {r['interval']:>4g} {r['status_calls']:>7} "
              f"{r['status_calls_per_s']:>8} "
              f"{r['steady_calls_per_s'] if r['steady_calls_per_s'] is not None else '-':>8} "
              f"{r['throttled']:>6} {r['busiest_second']:>6} {r['mean_per_second']:>6} {r['cpu_s']:>7} "
              f"{r['rss_per_job_kb']:>7} {r['peak_fds']:>5} {r['peak_tcp_sockets']:>5} {r['failed_tasks']:>5} "
              f"{r['latency_p50_s']:>6} {r['latency_p95_s']:>6}")
    print()
    print("official/ours status calls; ours/official CPU and memory per job; sockets; failed tasks; "
          "p95 job end -> event; busiest second / mean second (over a longer window where calls average < 1/s)")
    for r in rows:
        window = max(r["burst_window_ours"], r["burst_window_official"])
        foreign = f" +{r['foreign']}x foreign" if r.get("foreign") else ""
        print(f"{r['vendor']:10} N={r['n']:>5} interval={r['interval']:>4g}s{foreign}  "
              f"calls {r['calls_ratio']:>6}x fewer "
              f"(steady state {r['steady_calls_ratio']}x)  "
              f"cpu {r['cpu_ratio']:>5}x  mem {r['mem_ratio']:>5}x  tcp {r['ours_tcp']}/{r['official_tcp']}  "
              f"failed {r['ours_failed']}/{r['official_failed']}  p95 {r['p95_ours']}/{r['p95_official']} s  "
              f"burst {r['burst_ours']}/{r['burst_official']}" + (f" ({window} s windows)" if window > 1 else ""))


def plot(results: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2))
    results = [r for r in results if not r.get("foreign")]  # the plot is N against N: no foreign runs
    shapes = sorted({(r["vendor"], r["interval"]) for r in results})
    for ax, key, title in zip(axes, ("status_calls_per_s", "cpu_s", "peak_tcp_sockets"),
                              ("status calls / s", "triggerer CPU (s)", "open TCP sockets")):
        for impl, style in (("official", "o--"), ("ours", "s-")):
            for vendor, interval in shapes:
                points = sorted((r["n"], r[key]) for r in results
                                if r["impl"] == impl and r["vendor"] == vendor and r["interval"] == interval)
                if points:
                    ax.plot(*zip(*points), style, label=f"{impl}, {vendor}, every {interval:g} s")
        ax.set_title(title)
        ax.set_xlabel("deferred jobs (N)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def merged(previous: Path, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``--merge``: the earlier results this run did not measure again (by vendor, N, interval, impl), then
    this run's; each result carries its own date, lifetime and seed."""
    if not previous.exists():
        return results
    fresh = {(*shape_of(r), r["impl"]) for r in results}
    kept = [r for r in json.loads(previous.read_text())["results"] if (*shape_of(r), r["impl"]) not in fresh]
    for r in kept:
        r.setdefault("vendor", "databricks")
    return kept + results


def shape_of(result: dict[str, Any]) -> tuple[str, int, float, int]:
    """(vendor, N, interval, foreign runs per job): what a pair of results is measured on."""
    return result.get("vendor", "databricks"), result["n"], result["interval"], result.get("foreign", 0)


def pairs(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_key = {(*shape_of(r), r["impl"]): r for r in results}
    shapes = sorted({k[:4] for k in by_key})
    return [row(by_key[(*shape, "official")], by_key[(*shape, "ours")])
            for shape in shapes if (*shape, "official") in by_key and (*shape, "ours") in by_key]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--quick", action="store_true", help="N = 50 / 200 at 5 s only")
    parser.add_argument("--vendor", nargs="*", choices=sorted(VENDOR_PROCESS), default=None,
                        help="databricks (runs/get vs the run listings) and batch (DescribeJobs, 100 ids a call)")
    parser.add_argument("--n", type=int, nargs="*")
    parser.add_argument("--interval", type=float, nargs="*")
    parser.add_argument("--limit", type=float, default=None,
                        help="the vendor's requests/s limit (default: its documented one, see VENDOR_LIMIT)")
    parser.add_argument("--plot", type=Path, default=PLOT)
    parser.add_argument("--lifetime", type=float, default=12.0,
                        help="jobs end between this many and twice as many poll intervals after their submit")
    parser.add_argument("--foreign", type=int, default=0,
                        help="Databricks: a workspace with this many times N others' active runs, newer than ours")
    parser.add_argument("--seed", type=int, default=1, help="the jobs' lifetimes and outcomes (one.py --seed)")
    parser.add_argument("--merge", action="store_true",
                        help="keep the results of last.json this run does not measure again")
    args = parser.parse_args()
    try:  # the plot comes last: say so before the measuring does, not after it
        import matplotlib  # noqa: F401
    except ImportError:
        parser.error("matplotlib is not installed: `make bench` installs it, or "
                     "`.venv/bin/pip install -c constraints/constraints-3.3-py3.11.txt matplotlib`")
    vendors = args.vendor or ["databricks", "batch"]
    if args.foreign and vendors != ["databricks"]:
        parser.error("--foreign is a Databricks shape: add --vendor databricks")
    ns = args.n or ([50, 200] if args.quick else [100, 500, 1000])
    intervals = args.interval or ([5.0] if args.quick else [5.0, 30.0])
    results = []
    for vendor in vendors:
        for interval in intervals:
            for n in ns:
                for impl in ("official", "ours"):
                    limit = VENDOR_LIMIT[vendor] if args.limit is None else args.limit
                    results.append(run_variant(vendor, impl, n, interval, limit, args.lifetime, args.foreign,
                                               args.seed))
                print(f"# done {vendor} N={n} interval={interval:g}", file=sys.stderr, flush=True)
    RESULTS.mkdir(exist_ok=True)
    last = RESULTS / "last.json"
    if args.merge:
        results = merged(last, results)
    rows = pairs(results)
    limits = ", ".join(f"{v} {VENDOR_LIMIT[v] if args.limit is None else args.limit:g}" for v in vendors)
    machine = f"{platform.machine()}, {psutil.cpu_count()} CPUs, {platform.python_version()}, {platform.system()}"
    print(f"durable-jobs benchmark, {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, {machine}, "
          f"vendor emulators limited to {limits} requests/s, jobs lasting {args.lifetime:g}-"
          f"{2 * args.lifetime:g} intervals" + (" (merged results: each has its own date and lifetime)"
                                                 if args.merge else ""))
    print_table(results, rows)
    last.write_text(json.dumps({
        "date": f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d}", "machine": machine,
        "results": results, "ratios": rows}, indent=1))
    plot(results, args.plot)
    print(f"plot: {args.plot.relative_to(ROOT) if args.plot.is_relative_to(ROOT) else args.plot}")


if __name__ == "__main__":
    main()
