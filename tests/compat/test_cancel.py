"""Airflow 2 has no Task SDK to ask for a task's state on kill: durable_jobs.core.cancel reads the metadata DB."""

from __future__ import annotations

import importlib.util

import compat_dags
import pytest
from compat_support import run_dag

from durable_jobs.core.cancel import decide_cancel, ti_state

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("airflow.sdk") is not None, reason="Airflow 3 asks the Task SDK (tests/unit)"
)


def test_ti_state_reads_the_db_so_a_user_kill_cancels(emulator):
    from airflow.models.taskinstance import TaskInstance
    from airflow.utils.session import create_session
    from airflow.utils.state import TaskInstanceState

    state, _ = run_dag(compat_dags.submit_fire_and_forget)
    assert state == "success"
    with create_session() as session:
        ti = (session.query(TaskInstance).filter(TaskInstance.dag_id == "compat_submit_fire_and_forget")
              .order_by(TaskInstance.start_date.desc()).first())
        key = (ti.dag_id, ti.run_id, ti.task_id, ti.map_index)
    assert ti_state(*key) == "success"  # marked failed/success by a user: not running -> cancel
    assert decide_cancel("user", ti_state(*key), still_alive_state="running") is True
    with create_session() as session:
        session.query(TaskInstance).filter(TaskInstance.run_id == key[1]).update(
            {TaskInstance.state: TaskInstanceState.RUNNING}, synchronize_session=False
        )
    assert ti_state(*key) == "running"  # an eviction's SIGTERM: still running -> leave the job for the retry
    assert decide_cancel("user", ti_state(*key), still_alive_state="running") is False
    assert ti_state(key[0], key[1], "no_such_task", -1) is None
