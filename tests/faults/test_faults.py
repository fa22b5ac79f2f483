"""Every fault case, for every vendor, on both paths: what the task does and what the vendor got."""

from __future__ import annotations

import json

import pytest
from cases import CASES, SETUP, SETUP_FAILS_WITHIN, case_for
from conftest import cells
from harness import ERROR_BUDGET

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
    if case.phase == SETUP:
        # The outcome above (WrongSetupError, not the budget's "kept failing") is the fast path; its time is a
        # measurement (the matrix records it against SETUP_FAILS_WITHIN on a quiet machine), and a loaded CI
        # machine may take seconds more. Here it only has to end well inside the budget it would otherwise ride.
        assert out["failed_after"] is not None and out["failed_after"] < ERROR_BUDGET, \
            f"{cell_id}: the wrong setup took {out['failed_after']} s to fail " \
            f"(target {SETUP_FAILS_WITHIN:g} s)\n{detail}"
        assert out["jobs_before_fix"] == 0, f"{cell_id}: the broken try submitted\n{detail}"
        assert out["fixed_try"] == "submitted", f"{cell_id}: the fixed try: {out['fixed_try']}\n{detail}"
        first = out["first_line"]
        assert "nothing was submitted" in first.lower(), first
        assert "is not defined" in first if case.key == "setup-no-connection" else "could not reach host" in first
    if case.expect != "succeeded":
        first = out["first_line"]
        # The first line names the vendor, the endpoint (or the job), and says what happens next.
        assert first.startswith(("Databricks", "AWS", "Amazon", "EMR", "Snowflake", "BigQuery", "Dataproc",
                                  "Cloud Batch", "Cloud Run", "Dataflow", "faults", "connection '")), first
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
