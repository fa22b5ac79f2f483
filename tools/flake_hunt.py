"""Hunt flaky tests: the suites that wait on real time, run round after round beside CPU hogs.

A test that passes on an idle machine and fails on a busy one depends on how fast the machine is; CI's
machines are as busy as ``make test``'s three lanes make them. This runs the fault suite and the crash cells
of ours (one lane), the integration tests but AWS's (another) and the AWS integration tests (a third), side by
side as ``make test`` does, with one busy-loop process per CPU beside them, for several rounds, and reports
every test that failed at least once with its message and the load it saw.

    python -m tools.flake_hunt               # 3 rounds, every lane, one hog per CPU
    python -m tools.flake_hunt --rounds 1 --lane faults-crash --hogs 2

Exit status 1 when any test failed in any round. The hogs are started and stopped by their own PIDs.
Results: ``build/flake-hunt/round-<n>/<lane>.xml`` and ``.log``, and ``build/flake-hunt/report.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tools.test_summary import failures

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "flake-hunt"
AWS_INTEGRATION = "tests/integration/test_aws_*.py"


def lanes() -> dict[str, list[str]]:
    """Lane name -> pytest arguments: the waiting suites of ``make test``, split as its lanes split them."""
    return {
        # crash first: both suites import a top-level ``conftest``, and the crash suite's must be loaded first
        "faults-crash": ["tests/crash", "tests/faults"],
        "integration": ["tests/integration", f"--ignore-glob={AWS_INTEGRATION}"],
        "integration-aws": sorted(glob.glob(str(ROOT / AWS_INTEGRATION))),
    }


@dataclass
class Failure:
    test: str
    rounds: list[int] = field(default_factory=list)
    lane: str = ""
    message: str = ""


@contextlib.contextmanager
def cpu_hogs(count: int) -> Iterator[list[int]]:
    """``count`` busy-loop processes for the duration of the block, stopped by PID whatever happens."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL)
             for _ in range(count)]
    try:
        yield [p.pid for p in procs]
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait()


def run_round(number: int, chosen: Sequence[str], extra: Sequence[str]) -> dict[str, Path]:
    """Every chosen lane side by side; returns lane -> its JUnit report (missing if pytest died first)."""
    folder = OUT / f"round-{number}"
    folder.mkdir(parents=True, exist_ok=True)
    procs: dict[str, tuple[subprocess.Popen[bytes], Path]] = {}
    for lane in chosen:
        report = folder / f"{lane}.xml"
        report.unlink(missing_ok=True)
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
               *lanes()[lane], *extra]
        log = (folder / f"{lane}.log").open("wb")
        procs[lane] = (subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL), report)
    try:
        for lane, (proc, _) in procs.items():
            proc.wait()
            print(f"  round {number} {lane}: pytest exit {proc.returncode}{_counts(procs[lane][1])}", flush=True)
    finally:
        for proc, _ in procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                proc.wait()
    return {lane: report for lane, (_, report) in procs.items()}


def _counts(report: Path) -> str:
    if not report.exists():
        return " (no JUnit report)"
    suite = ET.parse(report).getroot()
    suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
    if suite is None:
        return ""
    get = suite.get
    return (f" ({get('tests')} tests, {get('failures')} failed, {get('errors')} errors, {get('skipped')} skipped, "
            f"{float(get('time') or 0):.0f} s)")


def collect(results: dict[int, dict[str, Path]]) -> list[Failure]:
    """Every test that failed or errored in any round (a lane without a report counts as its own failure)."""
    found: dict[str, Failure] = {}
    for number, reports in sorted(results.items()):
        for lane, report in reports.items():
            try:
                failed = failures(report) if report.exists() else [(f"<lane {lane}>", "no JUnit report written")]
            except ET.ParseError as err:
                failed = [(f"<lane {lane}>", f"unreadable JUnit report: {err}")]
            for test, message in failed:
                entry = found.setdefault(test, Failure(test, lane=lane, message=message))
                entry.rounds.append(number)
    return sorted(found.values(), key=lambda f: (-len(f.rounds), f.test))


def render(failed: list[Failure], rounds: int, hogs: int, seconds: float) -> str:
    head = f"flake hunt: {rounds} round(s) beside {hogs} CPU hog(s), {seconds / 60:.0f} min"
    if not failed:
        return f"{head}: no test failed"
    lines = [f"{head}: {len(failed)} test(s) failed at least once"]
    for f in failed:
        message = f.message if len(f.message) <= 1500 else f.message[:1500] + " [...]"
        lines.append(f"[{f.lane}] {f.test} failed in round(s) {', '.join(map(str, f.rounds))} of {rounds}\n    "
                     + message.replace("\n", "\n    "))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.flake_hunt", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 2, help="busy-loop processes beside the tests")
    parser.add_argument("--lane", action="append", choices=sorted(lanes()), help="only these lanes (repeatable)")
    parser.add_argument("pytest_args", nargs="*", help="passed to every lane's pytest (e.g. -k EXPR)")
    args = parser.parse_args(argv)
    chosen = args.lane or list(lanes())
    started = time.monotonic()
    results: dict[int, dict[str, Path]] = {}
    with cpu_hogs(args.hogs) as pids:
        print(f"flake hunt: lanes {', '.join(chosen)}; CPU hogs {pids}", flush=True)
        for number in range(1, args.rounds + 1):
            print(f"round {number} of {args.rounds}, started {time.strftime('%H:%M:%S')}, load average "
                  f"{' / '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
            results[number] = run_round(number, chosen, args.pytest_args)
    failed = collect(results)
    seconds = time.monotonic() - started
    (OUT / "report.json").write_text(json.dumps(
        {"rounds": args.rounds, "hogs": args.hogs, "lanes": chosen, "minutes": round(seconds / 60, 1),
         "failed": [f.__dict__ for f in failed]}, indent=1) + "\n")
    print(render(failed, args.rounds, args.hogs, seconds))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
