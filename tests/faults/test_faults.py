"""Every fault case, for every vendor, on both paths: what the task does and what the vendor got."""

from __future__ import annotations

import json

import pytest
from cases import CASES, case_for
from conftest import cells

BY_KEY = {c.key: c for c in CASES}


@pytest.mark.parametrize("cell_id", [c[0] for c in cells()])
def test_fault_cell(cell_id: str, fault_matrix: dict) -> None:
    out = fault_matrix[cell_id]
    load = out.get("load") or [0.0, 0.0, 0.0, 1.0]
    detail = (f"(the cell took {out['seconds']} s; load average {load[0]} / {load[1]} / {load[2]} on {load[3]:.0f} "
              f"CPUs when it ended)\n{json.dumps(out, indent=1)}")
    assert out["error"] is None, f"the harness could not drive {cell_id}:\n{detail}"
    case = case_for(out["vendor"], out["case"])  # a documented limit of one vendor's API (cases.VENDOR_CASES)
    assert out["jobs"] == case.jobs, f"{cell_id}: the vendor has {out['jobs']} jobs, expected {case.jobs}\n{detail}"
    assert out["outcome"] == case.expect, f"{cell_id}: {out['outcome']}, expected {case.expect}\n{detail}"
    if case.expect != "succeeded":
        first = out["first_line"]
        # The first line names the vendor, the endpoint (or the job), and says what happens next.
        assert first.startswith(("Databricks", "AWS", "Amazon", "EMR", "Snowflake", "BigQuery", "Dataproc",
                                  "Cloud Batch", "Cloud Run", "Dataflow", "faults")), first
        assert len(first) < 1500, first


def test_every_registered_service_is_in_the_suite():
    from conftest import VENDORS

    from durable_jobs import vendors

    assert set(VENDORS) == {s.key for _, s in vendors.services()}


def test_the_committed_fault_matrix_is_this_suite_and_it_passed():
    """artifacts/fault-matrix.json (the docs' table) holds every cell of this suite, each as its case demands."""
    from tools import fault_matrix

    data = fault_matrix.load()
    assert data is not None, "run `make faults` to write artifacts/fault-matrix.json"
    committed = {c["cell"]: c for c in data["cells"]}
    assert set(committed) == {c[0] for c in cells()}, "the suite changed: run `make faults`"
    cases = {c["key"]: c for c in data["cases"]}
    assert {k: (c.expect, c.jobs) for k, c in BY_KEY.items()} == {
        k: (c["expect"], c["jobs"]) for k, c in cases.items()}
    failed = [cell for cell, c in committed.items() if not fault_matrix.passed(c, cases[c["case"]])]
    assert not failed, f"cells that failed when the matrix was written: {failed}"
