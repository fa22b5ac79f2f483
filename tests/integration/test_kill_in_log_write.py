"""``on_kill`` inside a SIGTERM that lands while the task process writes a log line.

Found by the crash cell DATAFLOW-MARK-FAILED (sync) on CI: the user's kill came 13 ms after a poll's log
line; ``on_kill`` ran on top of structlog's write, waited on the lock that write held, and Airflow SIGKILLed
the process 5 s later with the job still running (0 cancels: an orphan). The task process here is a real
child process (``kill_in_log_write.py``): its cancel must reach the emulator; without the fix it hangs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = Path(__file__).with_name("kill_in_log_write.py")


def test_a_kill_during_a_log_write_still_cancels_the_run(databricks_conn_env):
    databricks_conn_env.configure(running_seconds=120, pending_seconds=0.0, terminating_seconds=0.0)
    child = subprocess.Popen([sys.executable, str(CHILD)], env=os.environ.copy(), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        # The child imports Airflow (4 s alone here, several times that beside other lanes) before the kill;
        # only a hang in on_kill should reach the bound.
        out, err = child.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        child.kill()  # by its PID
        out, err = child.communicate()
        cancels = databricks_conn_env.ledger()["cancels"]
        raise AssertionError(f"the task process hung in on_kill ({len(cancels)} cancels): {err[-2000:]}") from None
    assert child.returncode == 0, err[-3000:]
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen["lock_held_in_handler"] is True, "the window was missed: SIGTERM did not land inside the write"
    assert seen["handler_returned"] is True and seen["kill_finished"] is True
    cancels = databricks_conn_env.ledger()["cancels"]
    assert [(c["run_id"], c["was_active"]) for c in cancels] == [(seen["run_id"], True)]
