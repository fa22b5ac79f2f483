"""The one renderer of the crash matrix (``artifacts/crash-matrix.json``, written by ``make crash``).

Every view reads the same cells and marks them the same way: ✅ when the cell met the scenario's
demand (no ``deviations``), ❌ when it did not, ⚠️ when the harness could not drive it.

* :func:`render_markdown` — the README section and ``artifacts/crash-matrix.md``;
* :func:`render_page` / :func:`render_deferrable` — the docs pages (with cell-by-cell detail);
* :func:`render_text` — the terminal summary at the end of a crash run.

Vendor names, units and official operators come from the registry (``durable_jobs.vendors``).

    python -m tools.crash_matrix                    # plain text
    python -m tools.crash_matrix --markdown         # the README section
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from durable_jobs import vendors
from tools.sections import load_cells

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = ROOT / "artifacts" / "crash-matrix.json"
SECTION = "crash-matrix"
OPERATOR_LABELS = {"ours": "durable-jobs", "official": "official operator"}


def load(path: Path = DEFAULT_JSON) -> dict[str, Any] | None:
    """The matrix, or None when it has not been written yet; a malformed file raises."""
    return load_cells(path)


def _vendor(data: dict[str, Any], scenario: str) -> tuple[vendors.Service, vendors.Operator]:
    return vendors.crash_vendor(data["scenarios"].get(scenario, {}).get("vendor", "databricks"))


def plural(word: str) -> str:
    """English plural of a unit ("run" → "runs", "query" → "queries", "statement batch" → "statement batches")."""
    if word.endswith("y") and word[-2:-1] not in tuple("aeiou"):
        return f"{word[:-1]}ies"
    return f"{word}es" if word.endswith(("ch", "sh", "s", "x", "z")) else f"{word}s"


def _plural(n: int | None, word: str) -> str:
    if n is None:
        return f"? {plural(word)}"
    return f"{n} {word if n == 1 else plural(word)}"


def mark(cell: dict[str, Any]) -> str:
    if cell.get("error"):
        return "⚠️"
    return "❌" if cell.get("deviations") else "✅"


def cell_text(cell: dict[str, Any] | None, unit: str = "run") -> str:
    """``✅ 1 run · 0 cancels · success (try 2)``; a failed task whose job still runs adds ``· 1 left running``, a
    user's kill how soon its cancel reached the vendor (``· cancel 1.4 s after the user``)."""
    if cell is None:
        return "—"
    if cell.get("error"):
        return "⚠️ harness error (see the JSON)"
    orphans = cell.get("active_jobs") if cell.get("final_state") == "failed" else None
    return (f"{mark(cell)} {_plural(cell.get('runs_created'), unit)} · {_plural(cell.get('cancels'), 'cancel')} · "
            f"{cell.get('final_state')} (try {cell.get('try_number')})"
            f"{f' · {orphans} left running' if orphans else ''}"
            f"{_delay(cell.get('cancel_delay'))}")


def _delay(seconds: float | None) -> str:
    return "" if seconds is None else f" · cancel {seconds:.1f} s after the user"


def _by_row(data: dict[str, Any]) -> dict[tuple[str, str], dict[str, dict[str, Any]]]:
    rows: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for cell in data["cells"]:
        rows.setdefault((cell["scenario"], cell["mode"]), {})[cell["operator"]] = cell
    return rows


def rows(data: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(scenario label, mode, ours, official), in the order the suite defines them."""
    out, previous = [], None
    for (scenario, mode), ops in _by_row(data).items():
        title = data["scenarios"].get(scenario, {}).get("title", "")
        unit = _vendor(data, scenario)[0].unit
        label = f"**{scenario}** {title}" if scenario != previous else f"**{scenario}**"
        previous = scenario
        out.append((label, mode, cell_text(ops.get("ours"), unit), cell_text(ops.get("official"), unit)))
    return out


def _vendors_in(data: dict[str, Any]) -> list[tuple[vendors.Service, list[vendors.Operator]]]:
    """Each service with rows, and the operators its rows compare (a service has several: RunNow, Task, ...)."""
    seen: dict[str, tuple[vendors.Service, list[vendors.Operator]]] = {}
    for scenario in data["scenarios"]:
        service, op = _vendor(data, scenario)
        ops = seen.setdefault(service.key, (service, []))[1]
        if op not in ops:
            ops.append(op)
    return list(seen.values())


def legend(data: dict[str, Any]) -> str:
    counted = "; ".join(
        f"{service.name} {plural(service.unit)} created, as {service.emulator} saw them"
        for service, _ in _vendors_in(data)
    )
    compared = "; ".join(f"{service.name} rows " + ", ".join(f"`{op.official_name}`" for op in ops)
                         for service, ops in _vendors_in(data))
    return (
        f"Counted on the vendor's side — {counted}; cancels = cancel calls for an active job; the final task "
        "state and its try number as Airflow reports them; \"left running\": jobs of a failed task the vendor "
        "still runs when the cell ended (orphans). ✅ = what an exactly-once operator must do in that "
        "scenario (the same yardstick for both columns; the official column is recorded, not asserted), "
        f"❌ = it did not, ⚠️ = the harness could not drive the cell. Official operator (the class ours replaces, "
        f"named in each row's title where a service has several): {compared}."
    )


def provenance(data: dict[str, Any]) -> str:
    versions = data.get("versions", {})
    wall = data.get("wall_seconds", {})
    providers = ", ".join(
        f"{f.provider} {versions[f.provider]}" for f in vendors.families(supported=True) if versions.get(f.provider)
    )
    full_run = len(data["cells"]) - sum(m["cells"] for m in data.get("merged", []))
    merged = _merged_runs(data, "make crash-rows")
    events = data.get("stack_events", [])
    replaced = (f" The harness replaced a deadlocked triggerer {_times(len(events))} during the full run "
                f"({'; '.join(e['at'] for e in events)}; stacks in the stack's logs)." if events else "")
    return (
        f"Generated by `make crash` on {data.get('generated', '?')}: Airflow {versions.get('apache-airflow')}, "
        f"{providers}; real api-server, dag-processor, scheduler (LocalExecutor) and triggerer processes killed "
        f"by PID; {_plural(full_run, 'cell')} in {wall.get('total', '?')} s wall time on "
        f"{data.get('machine', {}).get('cpus', '?')} CPUs.{replaced}{merged}"
    )


def _merged_runs(data: dict[str, Any], command: str) -> str:
    """The provenance of the cells a partial run (``command``) merged into a full run's file."""
    return "".join(
        f" Re-run on {m['generated']} with `{command}` ({m['selection']}): {_plural(m['cells'], 'cell')} in "
        f"{m['wall_seconds']} s, merged in"
        + (f" (a deadlocked triggerer replaced {_times(len(m['stack_events']))})" if m.get("stack_events") else "")
        + "." for m in data.get("merged", [])
    )


def _times(n: int) -> str:
    return "once" if n == 1 else "twice" if n == 2 else f"{n} times"


class MergeRefused(ValueError):
    """A partial run that cannot honestly join the full matrix (another Airflow or provider version)."""


def merge(full: dict[str, Any], partial: dict[str, Any], selection: str) -> dict[str, Any]:
    """``full`` with ``partial``'s cells in place of (or beside) its own, and the re-run recorded.

    For rows added or changed after the last full ``make crash`` (``make crash-rows``): a cell is only ever
    replaced by a newer run of the same cell id, and the provenance line says which cells came from which run.
    Versions must match; a different stack needs the full run.
    """
    if full.get("versions") != partial.get("versions"):
        raise MergeRefused(f"the partial run's versions {partial.get('versions')} differ from the full matrix's "
                           f"{full.get('versions')}: run `make crash` instead")
    new_ids = {c["cell"] for c in partial["cells"]}
    kept = [c for c in full["cells"] if c["cell"] not in new_ids]
    earlier = [{**m, "cells": sum(1 for c in kept if c.get("merged_at") == m["generated"])}
               for m in full.get("merged", [])]
    stamped = [{**c, "merged_at": partial["generated"]} for c in partial["cells"]]
    record = {"generated": partial["generated"], "selection": selection, "cells": len(stamped),
              "wall_seconds": partial.get("wall_seconds", {}).get("total", "?"),
              "stack_events": partial.get("stack_events", [])}
    return {**full, "scenarios": {**full["scenarios"], **partial["scenarios"]}, "cells": kept + stamped,
            "merged": [m for m in earlier if m["cells"]] + [record]}


def render_markdown(data: dict[str, Any]) -> str:
    lines = ["| Scenario | Mode | durable-jobs | official provider operator |", "|---|---|---|---|"]
    lines += [f"| {s} | {m} | {a} | {b} |" for s, m, a, b in rows(data)]
    lines += ["", legend(data), "", provenance(data)]
    return "\n".join(lines) + "\n"


#: The scale section (issue 17): ``artifacts/crash-scale.json``, written by ``make crash-scale``.
SCALE_JSON = ROOT / "artifacts" / "crash-scale.json"
SCALE_SECTION = "crash-matrix-scale"


def render_scale_markdown(data: dict[str, Any]) -> str:
    """The crash matrix's "scale" section: the same table and legend, on the Celery + Postgres stack."""
    versions, wall = data.get("versions", {}), data.get("wall_seconds", {})
    lines = ["| Scenario | Mode | durable-jobs | official provider operator |", "|---|---|---|---|"]
    lines += [f"| {s} | {m} | {a} | {b} |" for s, m, a, b in rows(data)]
    lines += ["", legend(data), "",
              f"Generated by `make crash-scale` on {data.get('generated', '?')}: Airflow "
              f"{versions.get('apache-airflow')}; {data.get('stack', 'the scale stack')}; whole Celery workers, "
              f"Postgres, Redis and triggerers killed by PID; "
              f"{_plural(len(data['cells']) - sum(m['cells'] for m in data.get('merged', [])), 'cell')} one by one in "
              f"{wall.get('total', '?')} s wall time on {data.get('machine', {}).get('cpus', '?')} CPUs."
              + _merged_runs(data, "make crash-scale-rows")]
    return "\n".join(lines) + "\n"


def render_text(data: dict[str, Any]) -> str:
    table = [("scenario", "mode", "durable-jobs", "official")] + [
        (s.split("**")[1], m, a, b) for s, m, a, b in rows(data)
    ]
    widths = [max(len(r[i]) for r in table) for i in range(4)]
    out = ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in table]
    wall = data.get("wall_seconds", {})
    out.append(f"{len(data['cells'])} cells; wall time {wall.get('total')} s "
               f"(stack start {wall.get('stack_start')} s, cells {wall.get('cells')} s)")
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- docs pages
NOT_GENERATED_SCALE = """```{admonition} Not generated in this build
:class: warning

`artifacts/crash-scale.json` does not exist in this checkout. Generate it with `make crash-scale` (Postgres,
Redis, two Celery workers and two triggerers on 127.0.0.1, killed cell by cell), then build the docs again.
```
"""

NOT_GENERATED = """```{{admonition}} Not generated in this build
:class: warning

`artifacts/crash-matrix.json` does not exist in this checkout, so there is no matrix to show{where}.
Generate it with `make crash`, which runs `tests/crash/` (a real scheduler, workers and triggerers,
killed in each window) and writes the file; then build the docs again.
```
"""


def _esc(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_page(data: dict[str, Any] | None) -> str:
    """The docs' crash-matrix page: the README table, then every cell with its proof and notes."""
    if data is None:
        return NOT_GENERATED.format(where="")
    out = [render_markdown(data), "## Cell by cell\n"]
    for scenario, info in data["scenarios"].items():
        unit = _vendor(data, scenario)[0].unit
        out.append(f"(crash-{scenario.lower()})=\n### {scenario}: {_esc(info.get('title', ''))}\n")
        for cell in (c for c in data["cells"] if c["scenario"] == scenario):
            label = f"{cell['mode']}, {OPERATOR_LABELS.get(cell['operator'], cell['operator'])}"
            out.append(f"**{label}** — {cell_text(cell, unit)}\n")
            for key, title in (("window", "window proved"), ("notes", "note"), ("deviations", "deviation")):
                out += [f"- {title}: {_esc(item)}" for item in cell.get(key) or []]
            tokens = [t for t in cell.get("tokens") or [] if t]
            if tokens:
                out.append(f"- idempotency keys: {', '.join(f'`{t}`' for t in tokens)}")
            if cell.get("error"):
                out.append("\n```text\n" + str(cell["error"]).strip() + "\n```")
            out.append("")
    return "\n".join(out)


def render_deferrable(data: dict[str, Any] | None) -> str:
    """W1–W6 on the deferrable path, ours against the official operator (for the one-task-or-two page)."""
    if data is None:
        return NOT_GENERATED.format(where=" for the deferrable path")
    lines = ["| window | what is killed, and when | durable-jobs | official operator |", "|---|---|---|---|"]
    for (scenario, mode), ops in _by_row(data).items():
        if mode != "deferrable" or not scenario[:1] == "W" or not scenario[1:].isdigit():
            continue
        unit = _vendor(data, scenario)[0].unit
        title = _esc(data["scenarios"].get(scenario, {}).get("title", ""))
        lines.append(f"| {{ref}}`{scenario} <crash-{scenario.lower()}>` | {title} | "
                     f"{cell_text(ops.get('ours'), unit)} | {cell_text(ops.get('official'), unit)} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.crash_matrix", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="the matrix written by make crash")
    parser.add_argument("--markdown", action="store_true", help="print the README section instead of text")
    args = parser.parse_args(argv)
    data = load(args.json)
    if data is None:
        print(f"{args.json} not found: run `make crash` first", file=sys.stderr)
        return 2
    sys.stdout.write(render_markdown(data) if args.markdown else render_text(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
