"""``python -m benchmarks [--quick] [--n 100 500 1000] [--interval 5 30]``: ours vs the official trigger.

For each (N, interval) both implementations run, one after the other in the same invocation, each in
a fresh process against a fresh vendor process limited to ``--limit`` requests/s (100: Databricks'
documented ``runs/get`` limit). Prints the table (figures, and the official/ours ratios the issue's
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


def run_variant(impl: str, n: int, interval: float, limit: float, lifetime: float) -> dict[str, Any]:
    vendor = subprocess.Popen([sys.executable, "-m", "benchmarks.vendor", "--limit", str(limit)], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert vendor.stdout is not None
        hello = json.loads(vendor.stdout.readline())
        # ours runs through the shared poller, which is opt-in ([durable_jobs] shared_poller)
        env = {**os.environ, **hello["env"], "AIRFLOW__LOGGING__LOGGING_LEVEL": "ERROR",
               "AIRFLOW__DURABLE_JOBS__SHARED_POLLER": "True"}
        timeout = 600 + interval * lifetime * 3
        done = subprocess.run([sys.executable, "-m", "benchmarks.one", "--impl", impl, "--n", str(n),
                               "--interval", str(interval), "--lifetime", str(lifetime), "--vendor-url", hello["url"]],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode != 0 or not lines:
            raise RuntimeError(f"{impl} n={n} interval={interval} failed:\n{done.stderr[-3000:]}")
        return json.loads(lines[-1])
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
        "n": ours["n"], "interval": ours["interval"],
        "calls_ratio": ratio(official["status_calls"], ours["status_calls"]),
        "steady_calls_ratio": ratio(official["steady_calls_per_s"] or 0, ours["steady_calls_per_s"] or 0),
        "cpu_ratio": ratio(ours["cpu_s"], official["cpu_s"]),
        "mem_ratio": ratio(ours["rss_per_job_kb"], official["rss_per_job_kb"]),
        "ours_tcp": ours["peak_tcp_sockets"], "official_tcp": official["peak_tcp_sockets"],
        "ours_failed": ours["failed_tasks"], "official_failed": official["failed_tasks"],
        "p95_ours": ours["latency_p95_s"], "p95_official": official["latency_p95_s"],
        "burst_ours": ratio(ours["busiest_second"], ours["mean_per_second"]),
        "burst_official": ratio(official["busiest_second"], official["mean_per_second"]),
    }


def print_table(results: list[dict[str, Any]], rows: list[dict[str, Any]]) -> None:
    head = (f"{'impl':9} {'N':>5} {'ivl':>4} {'calls':>7} {'calls/s':>8} {'steady/s':>8} {'429':>6} {'busy/s':>6} "
            f"{'mean/s':>6} {'cpu s':>7} {'kB/job':>7} {'fds':>5} {'tcp':>5} {'fail':>5} {'p50 s':>6} {'p95 s':>6}")
    print(head)
    for r in results:
        print(f"{r['impl']:9} {r['n']:>5} {r['interval']:>4g} {r['status_calls']:>7} {r['status_calls_per_s']:>8} "
              f"{r['steady_calls_per_s'] if r['steady_calls_per_s'] is not None else '-':>8} "
              f"{r['throttled']:>6} {r['busiest_second']:>6} {r['mean_per_second']:>6} {r['cpu_s']:>7} "
              f"{r['rss_per_job_kb']:>7} {r['peak_fds']:>5} {r['peak_tcp_sockets']:>5} {r['failed_tasks']:>5} "
              f"{r['latency_p50_s']:>6} {r['latency_p95_s']:>6}")
    print()
    print("official/ours status calls; ours/official CPU and memory per job; sockets; failed tasks; "
          "p95 job end -> event; busiest second / mean")
    for r in rows:
        print(f"N={r['n']:>5} interval={r['interval']:>4g}s  calls {r['calls_ratio']:>6}x fewer "
              f"(steady state {r['steady_calls_ratio']}x)  "
              f"cpu {r['cpu_ratio']:>5}x  mem {r['mem_ratio']:>5}x  tcp {r['ours_tcp']}/{r['official_tcp']}  "
              f"failed {r['ours_failed']}/{r['official_failed']}  p95 {r['p95_ours']}/{r['p95_official']} s  "
              f"burst {r['burst_ours']}/{r['burst_official']}")


def plot(results: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for ax, key, title in zip(axes, ("status_calls_per_s", "cpu_s", "peak_tcp_sockets"),
                              ("status calls / s", "triggerer CPU (s)", "open TCP sockets")):
        for impl, style in (("official", "o--"), ("ours", "s-")):
            for interval in sorted({r["interval"] for r in results}):
                points = sorted((r["n"], r[key]) for r in results if r["impl"] == impl and r["interval"] == interval)
                if points:
                    ax.plot(*zip(*points), style, label=f"{impl}, every {interval:g} s")
        ax.set_title(title)
        ax.set_xlabel("deferred Databricks runs (N)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--quick", action="store_true", help="N = 50 / 200 at 5 s only")
    parser.add_argument("--n", type=int, nargs="*")
    parser.add_argument("--interval", type=float, nargs="*")
    parser.add_argument("--limit", type=float, default=100.0, help="the vendor's requests/s limit")
    parser.add_argument("--plot", type=Path, default=PLOT)
    parser.add_argument("--lifetime", type=float, default=12.0,
                        help="runs end between this many and twice as many poll intervals after their submit")
    args = parser.parse_args()
    ns = args.n or ([50, 200] if args.quick else [100, 500, 1000])
    intervals = args.interval or ([5.0] if args.quick else [5.0, 30.0])
    results, rows = [], []
    for interval in intervals:
        for n in ns:
            pair = {impl: run_variant(impl, n, interval, args.limit, args.lifetime) for impl in ("official", "ours")}
            results += [pair["official"], pair["ours"]]
            rows.append(row(pair["official"], pair["ours"]))
            print(f"# done N={n} interval={interval:g}", file=sys.stderr, flush=True)
    machine = f"{platform.machine()}, {psutil.cpu_count()} CPUs, {platform.python_version()}, {platform.system()}"
    print(f"durable-jobs benchmark, {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, {machine}, "
          f"Databricks emulator limited to {args.limit:g} requests/s, runs lasting {args.lifetime:g}-"
          f"{2 * args.lifetime:g} intervals")
    print_table(results, rows)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "last.json").write_text(json.dumps({
        "date": f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d}", "machine": machine, "limit": args.limit,
        "lifetime_intervals": args.lifetime,
        "results": results, "ratios": rows}, indent=1))
    plot(results, args.plot)
    print(f"plot: {args.plot.relative_to(ROOT) if args.plot.is_relative_to(ROOT) else args.plot}")


if __name__ == "__main__":
    main()
