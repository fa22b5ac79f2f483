"""The docs' fault table marks a wrong setup cell passed only when the try failed fast and nothing was submitted."""

from __future__ import annotations

import pytest

from tools import fault_matrix

CASE = {"key": "setup-refused", "phase": "setup", "expect": "WrongSetupError", "jobs": 1}
GOOD = {"case": "setup-refused", "outcome": "WrongSetupError", "jobs": 1, "error": None, "failed_after": 0.4,
        "jobs_before_fix": 0, "fixed_try": "submitted"}


def test_a_fast_failure_then_one_job_passes():
    assert fault_matrix.passed(GOOD, CASE)


@pytest.mark.parametrize("change", [
    {"failed_after": fault_matrix.SETUP_FAILS_WITHIN + 0.1},  # rode a budget instead of failing at once
    {"failed_after": None},  # the broken try did not fail
    {"jobs_before_fix": 1},  # the broken try reached the vendor
    {"fixed_try": "JobSubmitError: ..."},  # the fixed try did not submit
])
def test_anything_else_fails(change):
    assert not fault_matrix.passed({**GOOD, **change}, CASE)
