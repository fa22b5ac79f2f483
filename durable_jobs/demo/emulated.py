"""The demo's tables against our emulators on 127.0.0.1 (the Google and Snowflake sections), one driver for all.

A table is a :class:`Play`: one operator of the registry, whose example DAG (``Operator.example``) and its
official twin (``demo/dags/<twin>.py``, the official operator with the example's request) play the same faults,
through Airflow's own machinery (``durable_jobs.demo.runner``), against the service's emulator
(``Service.emulator_class``); the emulator's ledger counts what the vendor created. A play says only what is
its vendor's own: the stories, how a fault is armed, how its jobs are counted, how its table reads.

A family's section (:func:`family_section`) plays its services in registry order, each from the module the
registry names (``Service.demo``, holding ``PLAYS``), so a service shows up in the demo the moment it is
registered with a play. Airflow must be configured first (the demo's private AIRFLOW_HOME); when it is not yet
imported, the driver prepares one.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.resources
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from durable_jobs import vendors

EXAMPLES = Path(str(importlib.resources.files("durable_jobs.example_dags")))
TWINS = Path(__file__).resolve().parent / "dags"
OPERATORS = ("official", "durable")


@dataclass(frozen=True)
class Play:
    """One table: an operator's example DAG and its official twin, against the service's emulator."""

    #: the official operator's class name (its registry entry gives the example, the service, the emulator)
    operator: str
    #: ``module:attribute`` of the official twin in ``demo/dags/``
    twin: str
    #: the tag of its progress lines (``[bigquery] ...``)
    tag: str
    #: what runs on 127.0.0.1, as the title names it ("gRPC emulator")
    emulator: str
    #: scenario -> (the story, what an exactly-once operator leaves): happy, lost_reply, poll_failure
    scenarios: dict[str, tuple[str, str]]
    #: arms ``scenario`` on the emulator (its faults on the registry's submit and status calls)
    arm: Callable[[Any, vendors.Calls, str], None]
    #: the jobs the vendor created, from the emulator's ledger
    count: Callable[[Any], int]
    #: the line under the table (empty: none)
    footer: str
    #: what a cell counts ("job(s)"), and the widths of the "expected" and operator columns
    unit: str = "job(s)"
    widths: tuple[int, int] = (10, 28)
    #: the word of the progress lines ("jobs: 1")
    counted: str = "jobs"
    #: the title's name of the service (empty: the registry's)
    name: str = ""
    #: a fresh emulator for every run (else one, reset before each run)
    fresh: bool = True
    emulator_kwargs: dict[str, Any] = field(default_factory=dict)
    #: what the emulator needs once it serves (a job to run, its timings)
    prepare: Callable[[Any], None] | None = None
    #: environment for the runs (restored afterwards)
    env: dict[str, str] = field(default_factory=dict)
    #: our operator must also end in success (else only one job is asked of it)
    must_succeed: bool = False
    #: why the play cannot run here (a missing provider), or None
    unavailable: Callable[[], str | None] | None = None


def _load(classpath: str) -> Any:
    module, _, name = classpath.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _entry(play: Play) -> tuple[vendors.Service, vendors.Operator]:
    for _, service, op in vendors.operators():
        if op.name == play.operator:
            return service, op
    raise LookupError(f"no operator {play.operator} in the registry")


def _example(op: vendors.Operator) -> vendors.Example:
    if op.example is None:
        raise LookupError(f"the registry names no example DAG for {op.name}")
    return op.example


def _dags(play: Play, runner: Any) -> dict[str, Any]:
    """The example DAG and its official twin, with fast timings."""
    from airflow.sdk import DAG

    example = _example(_entry(play)[1])
    module = runner.load_module(example.dag, EXAMPLES)
    durable = next(v for v in vars(module).values() if isinstance(v, DAG))
    twin_module, _, attribute = play.twin.partition(":")
    official = getattr(runner.load_module(twin_module, TWINS), attribute)
    fast = {**dict(example.fast), "retry_delay": timedelta(0)}
    for dag in (durable, official):
        for name, value in fast.items():
            setattr(dag.task_dict[example.task], name, value)
    return {"durable": durable, "official": official}


@contextlib.contextmanager
def _serving(play: Play, service: vendors.Service, touched: set[str]) -> Iterator[Any]:
    """The service's emulator, serving and routed, with the connection it gives in the environment."""
    with _load(service.emulator_class)(**play.emulator_kwargs) as emu, emu.routed():
        conn_env = emu.airflow_conn_env()
        touched.update(conn_env)
        os.environ.update(conn_env)
        if play.prepare is not None:
            play.prepare(emu)
        yield emu


def run_play(play: Play, print_fn: Callable[[str], None] = print) -> list[dict]:
    """Play each scenario with the official operator and ours; one row per (scenario, operator)."""
    if "airflow.configuration" not in sys.modules:
        from durable_jobs.demo.main import prepare_airflow_home

        prepare_airflow_home()
    from durable_jobs.demo import runner

    service, op = _entry(play)
    calls = service.calls_of(op)
    if calls is None:
        raise LookupError(f"the registry names no calls for {op.name}")
    task = _example(op).task
    saved = dict(os.environ)
    touched = set(play.env)
    os.environ.update(play.env)
    rows: list[dict] = []
    try:
        with contextlib.ExitStack() as stack:
            shared = None if play.fresh else stack.enter_context(_serving(play, service, touched))
            dags = None
            for scenario, (story, wanted) in play.scenarios.items():
                for operator in OPERATORS:
                    print_fn(f"[{play.tag}] {story} — {operator} operator ...")
                    serving = _serving(play, service, touched) if shared is None else contextlib.nullcontext(shared)
                    with serving as emu:
                        dags = dags or _dags(play, runner)
                        if shared is not None:
                            emu.reset()
                        play.arm(emu, calls, scenario)
                        result = runner.task_result(runner.run(dags[operator]), task)
                        row = {"scenario": scenario, "operator": operator, "jobs": play.count(emu), "wanted": wanted,
                               "state": result.state, "outcome": f"{result.state} (try {result.try_number})"}
                    rows.append(row)
                    print_fn(f"      {play.counted}: {row['jobs']}  task: {row['outcome']}")
    finally:
        for name in touched:
            if name in saved:
                os.environ[name] = saved[name]
            else:
                os.environ.pop(name, None)
    return rows


def render(play: Play, rows: list[dict]) -> str:
    expected, cell = play.widths
    unit = f" {play.unit}, "
    header = f"{'scenario':<13} {'expected':<{expected}} {'official operator':<{cell}} {'durable-jobs':<{cell}}"
    lines = [header, "-" * len(header)]
    for scenario, (_, wanted) in play.scenarios.items():
        cells = {r["operator"]: r for r in rows if r["scenario"] == scenario}
        off, dur = cells["official"], cells["durable"]
        lines.append(f"{scenario:<13} {wanted:<{expected}} {str(off['jobs']) + unit + off['outcome']:<{cell}} "
                     f"{str(dur['jobs']) + unit + dur['outcome']:<{cell}}")
    return "\n".join(lines)


def missed(play: Play, rows: list[dict]) -> list[dict]:
    """The rows where ours did not leave exactly one job (and, where asked, a success)."""
    return [r for r in rows if r["operator"] == "durable"
            and (r["jobs"] != 1 or (play.must_succeed and r["state"] != "success"))]


def play_section(play: Play) -> list[dict]:
    """One table of a section: prints its title, the table and its footer; returns the rows where ours missed."""
    service, op = _entry(play)
    print()
    reason = play.unavailable() if play.unavailable else None
    if reason:
        print(reason)
        return []
    print(f"{play.name or service.name} on the bundled {play.emulator} (127.0.0.1), the official {op.name} vs ours:")
    rows = run_play(play)
    print()
    print(render(play, rows))
    if play.footer:
        print(play.footer)
    return missed(play, rows)


def plays(family: str) -> list[Play]:
    """The plays of a family's services, in registry order (each service must have one)."""
    found: list[Play] = []
    missing = []
    for service in vendors.family(family).services:
        names = {op.name for op in service.operators}
        own = [p for p in importlib.import_module(service.demo).PLAYS if p.operator in names] if service.demo else []
        if not own:
            missing.append(service.key)
        found += [p for p in own if p not in found]
    if missing:
        raise LookupError(f"no demo play for the {vendors.family(family).name} service(s) {', '.join(missing)}: "
                          "give each a Service.demo module whose PLAYS play one of its operators")
    return found


def example_files() -> list[Path]:
    """The example DAG files every play runs (the demo links them into its DAGs folder)."""
    files = []
    for family in vendors.families(supported=True):
        if any(service.demo for service in family.services):
            files += [EXAMPLES / f"{_example(_entry(play)[1]).dag}.py" for play in plays(family.key)]
    return files


def family_section(family: str) -> list[dict]:
    """A family's section of ``durable-jobs demo``: every play's table; returns the rows where ours missed."""
    wrong: list[dict] = []
    for play in plays(family):
        wrong += play_section(play)
    return wrong


def arm_grpc(emu: Any, calls: vendors.Calls, scenario: str) -> None:
    """The faults of our gRPC emulators (Dataproc, Cloud Batch): the submit's reply lost after the job is made
    (UNAVAILABLE), or one status call refused (PERMISSION_DENIED)."""
    if scenario == "lost_reply":
        emu.inject(calls.submit, "UNAVAILABLE", after=True)
    elif scenario == "poll_failure":
        emu.inject(calls.status, "PERMISSION_DENIED")


def main(module: str) -> int:
    """``python -m durable_jobs.demo.<module>``: its plays' tables; exit 1 when ours missed."""
    wrong: list[dict] = []
    for play in importlib.import_module(module).PLAYS:
        wrong += play_section(play)
    return 1 if wrong else 0
