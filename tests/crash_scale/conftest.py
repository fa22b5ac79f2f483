"""The scale crash suite: every cell on one ScaleStack (Postgres, Redis, CeleryExecutor), one after another.

It starts Postgres, Redis and ten Airflow processes, so it runs only when asked: ``DJ_CRASH_SCALE=1``
(``make crash-scale`` sets it, with ``DJ_CRASH_ARTIFACTS=1`` to write ``artifacts/crash-scale.json`` and
``.md``; ``make crash-scale-rows K=...`` (``DJ_CRASH_ARTIFACTS=merge``) runs some cells and merges them into
that file, recorded as such; other runs write ``artifacts/tmp/crash-scale.json``).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
for _path in (str(HERE.parent / "crash"), str(HERE)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from scale_lab import run_scale_session  # noqa: E402
from scale_scenarios import scale_cells  # noqa: E402

ENABLED = os.environ.get("DJ_CRASH_SCALE") == "1"
_MATRIX: dict = {}


def _ours(item: pytest.Item) -> bool:
    return HERE in Path(str(item.path)).resolve().parents


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if ENABLED:
        return
    for item in items:
        if _ours(item) and "cell_id" in getattr(getattr(item, "callspec", None), "params", {}):
            item.add_marker(pytest.mark.skip(reason="the scale stack runs with DJ_CRASH_SCALE=1 (make crash-scale)"))


@pytest.fixture(scope="session")
def scale_matrix(request: pytest.FixtureRequest) -> dict:
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")

    def log(message: str) -> None:
        if reporter is not None:
            reporter.write_line(message)

    wanted = {item.callspec.params["cell_id"] for item in request.session.items
              if _ours(item) and hasattr(item, "callspec") and "cell_id" in item.callspec.params
              and not item.get_closest_marker("skip")}
    cells = [c for c in scale_cells() if c.id in wanted]
    data = run_scale_session(cells, log=log)
    full = len(cells) == len(scale_cells())
    artifacts = os.environ.get("DJ_CRASH_ARTIFACTS")
    folder = ROOT / "artifacts" if (full and artifacts == "1") or (artifacts == "merge" and cells) else \
        ROOT / "artifacts" / "tmp"
    target = folder / "crash-scale.json"
    if artifacts == "merge" and cells:  # `make crash-scale-rows`: these cells replace theirs in the full run's file
        from tools import crash_matrix

        previous = crash_matrix.load(target)
        if previous is None:
            raise pytest.UsageError("make crash-scale-rows merges into artifacts/crash-scale.json: "
                                    "run `make crash-scale` first")
        data = crash_matrix.merge(previous, data, selection=os.environ.get("DJ_CRASH_SELECTION", "?"))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data, indent=1) + "\n")
    if folder.name == "artifacts":
        from tools import readme
        from tools.crash_matrix import render_scale_markdown

        target.with_suffix(".md").write_text(render_scale_markdown(data))
        readme.main([])
    _MATRIX.update(data, path=str(target))
    return {**data, "by_id": {c["cell"]: c for c in data["cells"]}}


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if not _MATRIX:
        return
    from tools.crash_matrix import render_text

    terminalreporter.section("crash matrix: scale")
    terminalreporter.write(render_text(_MATRIX))
    terminalreporter.write_line(f"written to {_MATRIX['path']}")
