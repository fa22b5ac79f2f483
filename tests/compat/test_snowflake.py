"""The Snowflake SQL API operator through Airflow itself (dag.test) against the SQL API emulator, with the
snowflake provider pinned for 3.3: one execution per batch, a lost reply to the POST included (the same
``requestId`` resent with ``retry=true`` within the try, on every Airflow version)."""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

import pytest

pytest.importorskip("airflow.providers.snowflake", reason="add snowflake to COMPAT_EXTRAS")

import compat_snowflake_dags as dags  # noqa: E402
from compat_support import DEFERRALS, run_dag, xcom  # noqa: E402


@pytest.mark.parametrize("lost_reply", [False, True], ids=["plain", "lost-reply"])
@pytest.mark.parametrize("dag", [dags.sync, dags.deferrable, dags.notebook_sync, dags.notebook_deferrable],
                         ids=lambda d: d.dag_id)
def test_one_execution_per_batch(snowflake_emulator, dag, lost_reply):
    snowflake_emulator.configure(run_seconds=3.0)  # still running when a deferrable task defers (after a resend)
    if lost_reply:
        snowflake_emulator.add_fault("statements", 500, mode="lose_reply", count=1)
    DEFERRALS.clear()
    state, tis = run_dag(dag)
    assert state == "success", tis
    assert tis["run"] == ("success", 1)
    ledger = snowflake_emulator.ledger()
    assert ledger["executions"] == 1 and ledger["duplicates_detected"] == (1 if lost_reply else 0)
    [submit] = [s for s in ledger["submits"] if s["executed"]]
    assert xcom(dag.dag_id, "run", "query_ids") == submit["handles"]
    assert DEFERRALS == ([dag.dag_id] if dag in (dags.deferrable, dags.notebook_deferrable) else [])


def test_the_snowflake_provider_is_the_3_3_pin():
    """The same provider version on every Airflow, pinned by constraints-3.3-py3.11.txt."""
    pins_file = Path(__file__).resolve().parents[2] / "constraints" / "constraints-3.3-py3.11.txt"
    pins = {re.sub(r"[-_.]+", "-", n).lower(): v for n, _, v in
            (line.strip().partition("==") for line in pins_file.read_text().splitlines() if "==" in line)}
    assert version("apache-airflow-providers-snowflake") == pins["apache-airflow-providers-snowflake"]
