"""The crash suite's stack: one real Airflow 3.3 stack for the whole session, shared by every cell.

``DJ_CRASH`` picks what runs:

- ``ours`` (the default: what ``make test``, and so CI, runs): every cell of our operators, plus the
  official operators' cells of the ``crash_ci`` subset, so that CI still proves the harness drives them;
- ``all`` (``make crash``): both columns in full. The official column is recorded, not asserted, so CI's
  time goes to the cells that assert;
- ``ci``: only the ``crash_ci`` subset (W2, W3, BATCH-W2, ATHENA-W2 and OUTAGE deferrable, SIGTERM);
- ``off``: skip the suite.

The selected cells run together, once, in a session fixture (concurrently where safe); each test then
asserts its own cell. ``make crash`` sets ``DJ_CRASH_ARTIFACTS=1`` so a full run writes
``artifacts/crash-matrix.json`` and ``.md`` and regenerates the README's sections from them (the matrix and
the operator table's "crash-proven" column); ``make crash-rows K=<pytest -k expression>`` (``DJ_CRASH_ARTIFACTS=merge``)
runs some cells and merges them into that file, recorded as such; other runs write
``artifacts/tmp/crash-matrix.json`` and leave the README alone.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from crash_lab import run_session  # noqa: E402
from crash_scenarios import all_cells  # noqa: E402

MODE = os.environ.get("DJ_CRASH", "ours").strip().lower()
_MATRIX: dict = {}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "crash_ci: the crash cells CI always runs (DJ_CRASH=ci runs only these)")


def _ours(item: pytest.Item) -> bool:
    return HERE in Path(str(item.path)).resolve().parents


#: Rows recorded by `make crash` / `make crash-rows` (artifacts/crash-matrix.json: ours ✅ in every cell) but
#: kept out of `make test`: with them, 235 ours-cells beside the integration lane starved the 2-CPU stack and
#: the timing-bound cells (TIMEOUT, TIMEOUT-LAST, BATCH-OUTAGE) failed in three fresh-clone runs in a row.
#: They share their drivers and client code with rows that `make test` does run (NOTEBOOK-*, SAGEMAKER-*).
MATRIX_ONLY = ("DBTASK-", "SAGEMAKER-PROCESSING-", "SAGEMAKER-TRANSFORM-")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if not _ours(item) or item.get_closest_marker("crash") is None:
            continue
        if MODE in ("off", "0", "no", "false"):
            item.add_marker(pytest.mark.skip(reason="DJ_CRASH=off"))
        elif MODE == "ci" and item.get_closest_marker("crash_ci") is None:
            item.add_marker(pytest.mark.skip(reason="DJ_CRASH=ci runs the crash_ci subset; `make crash` runs all"))
        elif MODE == "ours" and item.get_closest_marker("crash_ci") is None and "-official-" in item.name:
            item.add_marker(pytest.mark.skip(reason="the official column is recorded by `make crash` (DJ_CRASH=all)"))
        elif MODE == "ours" and any(f"[{prefix}" in item.name for prefix in MATRIX_ONLY):
            item.add_marker(pytest.mark.skip(reason="recorded by `make crash`; kept out of `make test` (MATRIX_ONLY)"))


def _selected(session: pytest.Session) -> list[str]:
    ids = []
    for item in session.items:
        callspec = getattr(item, "callspec", None)
        if _ours(item) and callspec and "cell_id" in callspec.params and not item.get_closest_marker("skip"):
            ids.append(callspec.params["cell_id"])
    return ids


@pytest.fixture(scope="session")
def crash_matrix(request: pytest.FixtureRequest) -> dict:
    """Run every selected cell on one stack; ``{"by_id": {cell_id: outcome}, ...matrix data}``."""
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")

    def log(message: str) -> None:
        if reporter is not None:
            reporter.write_line(message)

    wanted = set(_selected(request.session))
    cells = [c for c in all_cells() if c.id in wanted]
    data = run_session(cells, log=log)
    full = len(cells) == len(all_cells())
    artifacts = os.environ.get("DJ_CRASH_ARTIFACTS")
    if full and artifacts == "1":
        target = ROOT / "artifacts" / "crash-matrix.json"
    elif artifacts == "merge" and cells:  # `make crash-rows`: these cells replace theirs in the full matrix
        from tools import crash_matrix

        target = ROOT / "artifacts" / "crash-matrix.json"
        previous = crash_matrix.load(target)
        if previous is None:
            raise pytest.UsageError("make crash-rows merges into artifacts/crash-matrix.json: run `make crash` first")
        data = crash_matrix.merge(previous, data, selection=os.environ.get("DJ_CRASH_SELECTION", "?"))
    else:
        target = ROOT / "artifacts" / "tmp" / "crash-matrix.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data, indent=1) + "\n")
    if target.parent.name == "artifacts":
        from tools import crash_matrix, readme

        target.with_suffix(".md").write_text(crash_matrix.render_markdown(data))
        readme.main([])
    _MATRIX.update(data, path=str(target))
    return {**data, "by_id": {c["cell"]: c for c in data["cells"]}}


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if not _MATRIX:
        return
    from tools.crash_matrix import render_text

    terminalreporter.section("crash matrix")
    terminalreporter.write(render_text(_MATRIX))
    terminalreporter.write_line(f"written to {_MATRIX['path']}")
