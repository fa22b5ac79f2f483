"""The crash matrix page, rendered from ``artifacts/crash-matrix.json`` (written by ``make crash``).

The reader is tolerant about the file's outer shape (a list of cells, or an object with a
``cells``/``outcomes`` list and metadata) and reads each cell's fields with defaults, so a new
field in the crash suite does not break the docs; a file that is not JSON is a build warning.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MATRIX = Path("artifacts") / "crash-matrix.json"
OPERATOR_LABELS = {"ours": "durable-jobs", "official": "official operator"}
MODES = ("sync", "deferrable")

NOT_GENERATED = """```{{admonition}} Not generated in this build
:class: warning

`artifacts/crash-matrix.json` does not exist in this checkout, so there is no matrix to show{where}.
Generate it with

    make crash

which runs `tests/crash/` (a real scheduler, workers and triggerers, killed in each window) and
writes the file; then build the docs again. The table is rendered from that file, never typed.
```
"""


def load(path: Path, warn) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        warn(f"{path} is not readable JSON ({err}); the crash matrix page cannot be rendered")
        return None
    if isinstance(data, list):
        data = {"cells": data}
    if not isinstance(data, dict):
        warn(f"{path}: expected a JSON object or list, got {type(data).__name__}")
        return None
    cells = data.get("cells", data.get("outcomes"))
    if isinstance(cells, dict):
        cells = list(cells.values())
    if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
        warn(f"{path}: no list of cells (objects) under 'cells' or 'outcomes'")
        return None
    data["cells"] = cells
    return data


def _cell_text(cell: dict[str, Any] | None) -> str:
    if cell is None:
        return "—"
    runs = cell.get("runs_created")
    parts = [f"{runs} run{'s' if runs != 1 else ''}" if runs is not None else "? runs"]
    if cell.get("final_state"):
        parts.append(str(cell["final_state"]) + (f" (try {cell['try_number']})" if cell.get("try_number") else ""))
    if cell.get("cancels"):
        parts.append(f"{cell['cancels']} cancel(s)")
    text = ", ".join(parts)
    verdict = _verdict(cell)
    return f"{verdict} {text}".strip()


def _verdict(cell: dict[str, Any]) -> str:
    if cell.get("error"):
        return "✘ error:"
    if "violations" in cell:
        return "✔" if not cell["violations"] else "✘"
    if "passed" in cell:
        return "✔" if cell["passed"] else "✘"
    return ""


def _index(cells: list[dict[str, Any]]) -> tuple[list[str], dict[tuple[str, str, str], dict]]:
    scenarios: list[str] = []
    by_key: dict[tuple[str, str, str], dict] = {}
    for cell in cells:
        name = str(cell.get("scenario", "?"))
        if name not in scenarios:
            scenarios.append(name)
        by_key[(name, str(cell.get("mode")), str(cell.get("operator")))] = cell
    return scenarios, by_key


def _titles(cells: list[dict[str, Any]]) -> dict[str, str]:
    return {str(c.get("scenario")): str(c.get("title") or "") for c in cells}


def _esc(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def full(matrix: dict[str, Any] | None) -> str:
    if matrix is None:
        return NOT_GENERATED.format(where="")
    cells = matrix["cells"]
    scenarios, by_key = _index(cells)
    titles = _titles(cells)
    operators = [op for op in OPERATOR_LABELS if any(k[2] == op for k in by_key)]
    operators += sorted({k[2] for k in by_key} - set(operators))
    modes = [m for m in MODES if any(k[1] == m for k in by_key)] + sorted({k[1] for k in by_key} - set(MODES))
    meta = {k: v for k, v in matrix.items() if k != "cells" and isinstance(v, (str, int, float, bool))}
    out = []
    if meta:
        out.append("Run: " + "; ".join(f"{k} `{_esc(v)}`" for k, v in meta.items()) + ".\n")
    out.append(f"{len(cells)} cells. Each cell: external runs the vendor created, the task's final state "
               "and try; ✔ when the cell met its expectation, ✘ when it did not.\n")
    header = "| window | what is killed, and when | " + " | ".join(
        f"{m}: {OPERATOR_LABELS.get(o, o)}" for m in modes for o in operators) + " |"
    rows = [header, "|" + "---|" * (2 + len(modes) * len(operators))]
    for name in scenarios:
        rows.append(f"| {{ref}}`{name} <crash-{name.lower()}>` | {_esc(titles.get(name, ''))} | " + " | ".join(
            _esc(_cell_text(by_key.get((name, m, o)))) for m in modes for o in operators) + " |")
    out.append("\n".join(rows) + "\n")
    out.append("## Cell by cell\n")
    for name in scenarios:
        out.append(f"(crash-{name.lower()})=\n### {name}: {titles.get(name, '')}\n")
        for cell in (c for c in cells if str(c.get("scenario")) == name):
            label = f"{cell.get('mode')}, {OPERATOR_LABELS.get(str(cell.get('operator')), cell.get('operator'))}"
            out.append(f"**{label}** — {_cell_text(cell)}\n")
            for key, title in (("window", "window proved"), ("notes", "notes"), ("violations", "violations")):
                items = cell.get(key) or []
                if isinstance(items, str):
                    items = [items]
                for item in items:
                    out.append(f"- {title}: {_esc(item)}")
            if cell.get("tokens"):
                out.append(f"- idempotency tokens: {', '.join(f'`{t}`' for t in cell['tokens'] if t) or '—'}")
            if cell.get("error"):
                out.append("\n```text\n" + str(cell["error"]).strip() + "\n```")
            out.append("")
    return "\n".join(out)


def deferrable_summary(matrix: dict[str, Any] | None) -> str:
    """W1–W6 on the deferrable path, ours against the official operator (for the section-6 page)."""
    if matrix is None:
        return NOT_GENERATED.format(where=" for the deferrable path")
    cells = [c for c in matrix["cells"] if c.get("mode") == "deferrable" and str(c.get("scenario", "")).startswith("W")]
    scenarios, by_key = _index(cells)
    titles = _titles(cells)
    rows = ["| window | what is killed, and when | durable-jobs | official operator |", "|---|---|---|---|"]
    for name in scenarios:
        rows.append(f"| {{ref}}`{name} <crash-{name.lower()}>` | {_esc(titles.get(name, ''))} | "
                    f"{_esc(_cell_text(by_key.get((name, 'deferrable', 'ours'))))} | "
                    f"{_esc(_cell_text(by_key.get((name, 'deferrable', 'official'))))} |")
    return "\n".join(rows) + "\n"
