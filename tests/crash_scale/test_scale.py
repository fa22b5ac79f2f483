"""Exactly-once on the scale stack (Postgres, Redis, CeleryExecutor, two workers, two triggerers).

As tests/crash/test_crash.py: our operator must meet each scenario's demand; the official operator's cells are
recorded for the matrix and fail only when the harness could not drive them.
"""

from __future__ import annotations

import json

import pytest
from scale_scenarios import scale_cells


@pytest.mark.parametrize("cell_id", [pytest.param(c.id, marks=pytest.mark.crash, id=c.id) for c in scale_cells()])
def test_scale_cell(cell_id: str, scale_matrix: dict) -> None:
    outcome = scale_matrix["by_id"].get(cell_id)
    assert outcome is not None, f"{cell_id} did not run (the session stopped early)"
    detail = json.dumps({k: v for k, v in outcome.items() if k != "title"}, indent=1)
    assert not outcome["error"], f"the harness could not drive {cell_id}:\n{detail}"
    assert outcome["window"], f"{cell_id}: no proof that the window was hit:\n{detail}"
    if outcome["operator"] == "ours":
        assert not outcome["deviations"], f"{cell_id}: {'; '.join(outcome['deviations'])}\n{detail}"
