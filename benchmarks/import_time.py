"""``python -m benchmarks.import_time [--runs 5]``: each durable operator module's import time against the official
module it mirrors, measured in the same run.

For every operator module of the registry, ours (``durable_jobs.providers...``) and the official one
(``airflow.providers...``) are imported in fresh processes, one after the other, ``--runs`` times each, under
``python -X importtime``; the figure is the module's cumulative import time as Python reports it. Each run also
imports both in one fresh process, the official module first: what ours adds after it is our own modules' cost,
and (official + ours' own) / official is the ratio free of the drift between two processes (the target, at most
1.05, is about that one; the two-process ratio is printed beside it). Prints the medians and writes
``benchmarks/results/import-time.json``. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import statistics
import subprocess
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
TARGET = 1.05


def modules() -> list[tuple[str, str]]:
    """(ours, official) for every operator module of the registry, each once."""
    from durable_jobs import vendors

    return list(dict.fromkeys((op.module, op.official_module) for _, _, op in vendors.operators()))


def _cumulative(code: str, modules: tuple[str, ...]) -> list[int]:
    """The cumulative import time (microseconds) of each of ``modules`` when a fresh interpreter runs ``code``."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True,
                          check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{code} failed: {proc.stderr.strip().splitlines()[-1:]}")
    seen: dict[str, int] = {}
    for line in proc.stderr.splitlines():
        if line.startswith("import time:"):
            _, cumulative, name = (part.strip() for part in line.removeprefix("import time:").split("|"))
            if cumulative.isdigit():
                seen.setdefault(name, int(cumulative))
    missing = [m for m in modules if m not in seen]
    if missing:
        raise RuntimeError(f"python -X importtime did not report {missing}")
    return [seen[m] for m in modules]


def cumulative_us(module: str) -> int:
    """The cumulative import time of ``module`` (microseconds) in a fresh interpreter."""
    return _cumulative(f"import {module}", (module,))[0]


def own_us(ours: str, official: str) -> tuple[int, int]:
    """(the official module's import, what ours adds after it) in one fresh interpreter: ours imports the official
    module it mirrors, so importing ours costs the official module plus our own modules. One process holds both
    figures, so the machine's drift between two processes (airflow's own import varies by 10 % from one to the
    next) does not enter their ratio."""
    official_us, added_us = _cumulative(f"import {official}; import {ours}", (official, ours))
    return official_us, added_us


def measure(runs: int) -> list[dict]:
    rows = []
    for ours, official in modules():
        ours_us, official_us, in_process = [], [], []
        for _ in range(runs):  # alternate, so that a drift of the machine's speed hits both alike
            official_us.append(cumulative_us(official))
            ours_us.append(cumulative_us(ours))
            base, added = own_us(ours, official)
            in_process.append((base, added))
        o, u = statistics.median(official_us), statistics.median(ours_us)
        added_ms = statistics.median(a for _, a in in_process) / 1000
        same = statistics.median((b + a) / b for b, a in in_process)
        rows.append({"ours": ours, "official": official, "official_ms": round(o / 1000, 1),
                     "ours_ms": round(u / 1000, 1), "ratio": round(u / o, 3),
                     "own_ms": round(added_ms, 1), "ratio_one_process": round(same, 3)})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.import_time", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    rows = measure(args.runs)
    width = max(len(r["ours"]) for r in rows)
    print(f"{'module (ours)':{width}}  official ms  ours ms  ratio  own ms  ratio in one process (target <= {TARGET})")
    for r in rows:
        print(f"{r['ours']:{width}}  {r['official_ms']:11.1f}  {r['ours_ms']:7.1f}  {r['ratio']:.3f}  "
              f"{r['own_ms']:6.1f}  {r['ratio_one_process']:.3f}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "import-time.json").write_text(json.dumps({
        "generated": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "runs": args.runs,
        "python": platform.python_version(), "target": TARGET, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
