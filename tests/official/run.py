"""Run the official providers' unit tests against the official classes and against ours; compare.

    python -m tests.official.run            # CI (make official-check): the run must match the committed artifact
    python -m tests.official.run --write    # make official: rewrite artifacts/official-tests.json and the README
    python -m tests.official.run --only BatchOperator   # one operator's tests, nothing compared or written

For each provider of the registry, the test modules of our operators (``tests.official.sources``) run in
two pytest sessions, each in its own process: ``official`` (the classes as shipped) and ``ours`` (the
official names bound to our classes, ``tests.official.plugin``). A test counts only if it passes against
the official class. Each counted test that does not pass against ours must be in the table
(``tests/official/expected.py``) with its category, and fail the way the table says; anything else —
a failure not in the table, a table entry that passes now or fails upstream too, an artifact that no
longer matches the run — fails the suite and is printed.

The runs use the providers' own conftests and our ``tests_common`` stand-in (``tests/official/shim``).
Two settings differ from a bare ``pytest``: sockets beyond loopback are refused (a vendor call the
test did not mock fails at once instead of waiting on the network), and ``[durable_jobs]
poll_error_budget`` / ``unknown_state_budget`` are 2 seconds, so that such a call fails our operator in
seconds rather than after the 10-minute default; neither changes which tests pass.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from tests.official import expected, sources

ROOT = sources.ROOT
HERE = Path(__file__).resolve().parent
ARTIFACT = ROOT / "artifacts" / "official-tests.json"
RUNS = sources.CACHE / "runs"
MODES = ("official", "ours")
ENV = {
    "AIRFLOW__DURABLE_JOBS__POLL_ERROR_BUDGET": "2",
    "AIRFLOW__DURABLE_JOBS__UNKNOWN_STATE_BUDGET": "2",
}
#: What a counted test can come to against ours.
COUNTED = ("pass", expected.DELIBERATE, expected.INTERNAL, expected.NOT_APPLICABLE, "other")


def session_command(provider: sources.Provider, modules: list[Path]) -> list[str]:
    return [
        sys.executable, "-m", "pytest", "-c", str(HERE / "pytest.ini"), "--rootdir", str(provider.tests),
        "-p", "tests.official.plugin", "-q", "-p", "no:cacheprovider", "--tb=short",
        *[str(m) for m in modules],
    ]


def start(provider: sources.Provider, modules: list[Path], mode: str) -> tuple[subprocess.Popen[bytes], Path, Path]:
    RUNS.mkdir(parents=True, exist_ok=True)
    report, log = RUNS / f"{provider.key}-{mode}.json", RUNS / f"{provider.key}-{mode}.log"
    report.unlink(missing_ok=True)
    env = {
        **os.environ, **ENV, "DJ_OFFICIAL_MODE": mode, "DJ_OFFICIAL_REPORT": str(report),
        "PYTHONPATH": os.pathsep.join([str(HERE / "shim"), str(ROOT), str(sources.site())]),
    }
    env.pop("AIRFLOW_HOME", None)  # tests_common.pytest_plugin makes a private one
    with log.open("wb") as out:
        proc = subprocess.Popen(session_command(provider, modules), cwd=ROOT, env=env, stdout=out,
                                stderr=subprocess.STDOUT)
    return proc, report, log


def run_all(targets: list[sources.Target], jobs: int) -> dict[str, dict[str, dict[str, Any]]]:
    """mode -> node id -> {operator, outcome, message}, over every provider."""
    queue = []
    for provider in sources.providers(targets):
        modules = sorted({m for t in targets if t.provider == provider for m in t.test_modules()})
        queue += [(provider, modules, mode) for mode in MODES]
    running: list[tuple[subprocess.Popen[bytes], Path, Path, str]] = []
    results: dict[str, dict[str, dict[str, Any]]] = {mode: {} for mode in MODES}
    failures = []
    while queue or running:
        while queue and len(running) < jobs:
            provider, modules, mode = queue.pop(0)
            whose = "our" if mode == "ours" else "the official"
            print(f"official tests: {provider.distribution}=={provider.version} against {whose} classes", flush=True)
            running.append((*start(provider, modules, mode), mode))
        for entry in list(running):
            proc, report, log, mode = entry
            if proc.poll() is None:
                continue
            running.remove(entry)
            if not report.exists():
                failures.append(f"{log}: the pytest session wrote no report (exit {proc.returncode}):\n"
                                + "\n".join(log.read_text(errors="replace").splitlines()[-30:]))
                continue
            data = json.loads(report.read_text())
            if data["exitstatus"] not in (0, 1):  # 1: some tests failed, which is what we compare
                failures.append(f"{log}: pytest exited {data['exitstatus']}:\n"
                                + "\n".join(log.read_text(errors="replace").splitlines()[-30:]))
            results[mode].update(data["results"])
        time.sleep(0.2)
    if failures:
        raise SystemExit("\n\n".join(failures))
    return results


def classify(targets: list[sources.Target], results: dict[str, dict[str, dict[str, Any]]], *,
             partial: bool = False) -> tuple[list[dict[str, Any]], list[str]]:
    """Per operator: counts and each test's verdict; and the problems that fail the suite.

    ``partial``: only ``targets`` ran (``--only``), so the table's entries for test modules that did
    not run are not stale.
    """
    problems: list[str] = []
    table = expected.table()
    if partial:
        ran = {str(m.relative_to(t.provider.tests)) for t in targets for m in t.test_modules()}
        table = {node: entry for node, entry in table.items() if node.split("::")[0] in ran}
    seen: set[str] = set()
    operators = []
    for target in targets:
        ids = sorted(n for n, r in results["official"].items() if r["operator"] == target.classpath)
        tests: dict[str, str] = {}
        messages: dict[str, str] = {}
        for node in ids:
            seen.add(node)
            official, ours = results["official"][node], results["ours"].get(node)
            entry = table.get(node)
            if official["outcome"] != "passed":
                verdict = "upstream-skipped" if official["outcome"] == "skipped" else "upstream-failing"
                if entry:
                    problems.append(f"{node}: in the table, but it does not pass against the official class "
                                    f"either ({official['outcome']}: {official['message'][:300]})")
            elif ours is None:
                verdict = "other"
                problems.append(f"{node}: passed against the official class, did not run against ours")
            elif ours["outcome"] == "passed":
                verdict = "pass"
                if entry:
                    problems.append(f"{node}: passes against ours now; take it out of the table")
            elif entry is None:
                verdict = "other"
                messages[node] = ours["message"].split("\n")[0][:300]
                problems.append(f"{node}: fails against ours ({ours['outcome']}), not in the table:\n    "
                                + ours["message"][:1500].replace("\n", "\n    "))
            else:
                verdict = entry.category
                if not re.search(entry.match, ours["message"] + "\n" + ours.get("detail", "")):
                    shown = ours["message"][:1500].replace("\n", "\n    ")
                    problems.append(
                        f"{node}: the table says {entry.category} ({entry.reason}), but it fails otherwise "
                        f"(no /{entry.match}/ in the failure or its traceback):\n    {shown}"
                    )
            tests[node] = verdict
        counts = {key: sum(1 for v in tests.values() if v == key) for key in (*COUNTED, "upstream-failing",
                                                                              "upstream-skipped")}
        counts["counted"] = sum(counts[k] for k in COUNTED)
        counts["collected"] = len(tests)
        operators.append({
            "operator": target.classpath, "official": target.official, "label": target.label,
            "provider": f"{target.provider.distribution}=={target.provider.version}",
            "modules": sorted(str(m.relative_to(target.provider.tests)) for m in target.test_modules()),
            "counts": counts, "tests": tests, "other": messages,
        })
        if not ids:
            problems.append(f"{target.classpath}: no official test ran for it")
    for node in sorted(set(table) - seen):
        problems.append(f"{node}: in the table, but no such official test ran")
    return operators, problems


def versions() -> dict[str, str]:
    names = ["apache-airflow", *dict.fromkeys(t.provider.distribution for t in sources.targets())]
    return {name: metadata.version(name) for name in names}


def artifact(operators: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    return {
        "generated": datetime.now(tz=timezone.utc).isoformat(timespec="seconds"),
        "seconds": round(seconds, 1),
        "python": platform.python_version(),
        "versions": versions(),
        "operators": operators,
    }


def comparable(data: dict[str, Any]) -> Any:
    """What a rerun must reproduce: each test's verdict, the counts and versions (not the time stamp, the
    duration, or the first lines of unexpected failures, which carry object ids)."""
    kept = {k: v for k, v in data.items() if k not in ("generated", "seconds", "python")}
    kept["operators"] = [{k: v for k, v in op.items() if k != "other"} for op in data.get("operators", [])]
    return kept


def summary(operators: list[dict[str, Any]]) -> str:
    from tools import official_tests

    return "\n".join(official_tests.line(op) for op in operators)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.official.run", description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true",
                        help=f"rewrite {ARTIFACT.relative_to(ROOT)} and the README section from this run")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("OFFICIAL_JOBS", "2")))
    parser.add_argument("--only", action="append", default=[], metavar="OPERATOR",
                        help="only these operators (official class names; repeatable); compares nothing with the "
                             "artifact and cannot --write: for working on one operator's table entries")
    args = parser.parse_args(argv)
    if args.only and args.write:
        parser.error("--only runs part of the table; --write needs the whole run")
    started = time.monotonic()
    targets = sources.targets()
    if args.only:
        unknown = set(args.only) - {t.official_name for t in targets}
        if unknown:
            parser.error(f"--only: no registered operator named {', '.join(sorted(unknown))}")
        targets = [t for t in targets if t.official_name in args.only]
    for provider in sources.providers(targets):
        sources.fetch(provider)
    sources.install_requirements()
    results = run_all(targets, args.jobs)
    operators, problems = classify(targets, results, partial=bool(args.only))
    seconds = time.monotonic() - started
    data = artifact(operators, seconds)
    print(summary(operators))
    if args.write:
        from tools import readme

        ARTIFACT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {ARTIFACT.relative_to(ROOT)}")
        readme.main([])
    elif args.only:
        print("--only: the artifact is not compared (a partial run)")
    elif not ARTIFACT.exists():
        problems.append(f"{ARTIFACT.relative_to(ROOT)} is missing: run `make official` and commit it")
    elif comparable(json.loads(ARTIFACT.read_text(encoding="utf-8"))) != comparable(data):
        problems.append(f"{ARTIFACT.relative_to(ROOT)} does not match this run: run `make official` and commit it")
    print(f"official tests: {seconds:.0f} s; session logs in {RUNS.relative_to(ROOT)}/")
    if problems:
        print(f"\n{len(problems)} problem(s):\n" + "\n".join(f"- {p}" for p in problems))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
