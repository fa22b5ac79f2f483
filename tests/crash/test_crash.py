"""Exactly-once under real process kills: one test per cell (scenario x operator x mode).

Our operator must meet each scenario's demand (see ``crash_scenarios.SCENARIOS``); the official
operator's cells are recorded for the matrix, and only fail when the harness could not drive them.
"""

from __future__ import annotations

import json

import pytest
from crash_scenarios import all_cells

# KNOWN_BUGS: cells that fail because of a product bug, with the bug (in known_bugs.py, which the matrix's
# unit tests read too). Each entry is xfail(strict=True): the fix turns it into XPASS.
from known_bugs import KNOWN_BUGS, STACK_HAZARDS


def _params():
    for cell in all_cells():
        marks = [pytest.mark.crash]
        if cell.mode in cell.scenario.ci:
            marks.append(pytest.mark.crash_ci)
        if cell.id in KNOWN_BUGS:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[cell.id]))
        yield pytest.param(cell.id, marks=marks, id=cell.id)


@pytest.mark.parametrize("cell_id", list(_params()))
def test_crash_cell(cell_id: str, crash_matrix: dict) -> None:
    outcome = crash_matrix["by_id"].get(cell_id)
    assert outcome is not None, f"{cell_id} did not run (the session stopped early)"
    load = outcome.get("load") or [0.0, 0.0, 0.0, 1.0]
    detail = (f"(the cell took {outcome['seconds']} s; load average {load[0]} / {load[1]} / {load[2]} on "
              f"{load[3]:.0f} CPUs when it ended)\n"
              + json.dumps({k: v for k, v in outcome.items() if k not in ("title",)}, indent=1))
    assert not outcome["error"], f"the harness could not drive {cell_id}:\n{detail}"
    assert outcome["window"], f"{cell_id}: no proof that the window was hit:\n{detail}"
    if outcome["operator"] == "ours":
        assert not outcome["deviations"], f"{cell_id}: {'; '.join(outcome['deviations'])}\n{detail}"


def test_known_bugs_and_stack_hazards_name_real_cells() -> None:
    """A renamed cell must not leave a stale entry (a hazard no longer run alone, a bug no longer expected)."""
    ids = {cell.id for cell in all_cells()}
    assert set(KNOWN_BUGS) <= ids and set(STACK_HAZARDS) <= ids, sorted((set(KNOWN_BUGS) | set(STACK_HAZARDS)) - ids)
