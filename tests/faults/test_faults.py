"""Every fault case, for every vendor, on both paths: what the task does and what the vendor got."""

from __future__ import annotations

import json

import pytest
from cases import CASES
from conftest import cells

BY_KEY = {c.key: c for c in CASES}


@pytest.mark.parametrize("cell_id", [c[0] for c in cells()])
def test_fault_cell(cell_id: str, fault_matrix: dict) -> None:
    out = fault_matrix[cell_id]
    detail = json.dumps(out, indent=1)
    assert out["error"] is None, f"the harness could not drive {cell_id}:\n{detail}"
    case = BY_KEY[out["case"]]
    assert out["jobs"] == case.jobs, f"{cell_id}: the vendor has {out['jobs']} jobs, expected {case.jobs}\n{detail}"
    assert out["outcome"] == case.expect, f"{cell_id}: {out['outcome']}, expected {case.expect}\n{detail}"
    if case.expect != "succeeded":
        first = out["first_line"]
        # The first line names the vendor, the endpoint (or the job), and says what happens next.
        assert first.startswith(("Databricks", "AWS", "Amazon", "EMR", "faults")), first
        assert len(first) < 1500, first
