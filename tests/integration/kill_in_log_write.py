"""A task process whose SIGTERM lands while it writes a log line (run by ``test_kill_in_log_write.py``).

The Task SDK sends every log line of a task process through structlog, which writes under a plain lock per
file. Here the log channel is a socket nobody reads yet, so a long line blocks inside that lock; SIGTERM is
then sent to the main thread, whose handler calls ``on_kill`` as the Task SDK's ``_on_term`` does — on top
of the blocked write. A reader drains the channel a second later. Prints one JSON line: whether the lock was
held when the handler ran, and whether on_kill's cancel finished.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
import time

from airflow.sdk.execution_time.supervisor import _configure_logs_over_json_channel

REQUEST = {"run_name": "kill-in-log-write", "tasks": [{"task_key": "t", "notebook_task": {"notebook_path": "/p"}}]}


def write_locks() -> list[threading.Lock]:
    from structlog._output import WRITE_LOCKS

    return list(WRITE_LOCKS.values())


def main() -> None:
    reader, writer = socket.socketpair()
    _configure_logs_over_json_channel(os.dup(writer.fileno()))  # as the supervisor's child sets it up

    from durable_jobs.providers.databricks.operators.databricks import DatabricksSubmitRunOperator

    op = DatabricksSubmitRunOperator(task_id="run", tasks=REQUEST["tasks"], run_name=REQUEST["run_name"],
                                     retries=0, cancel_on_kill="always")
    op._job_id = op.job_client.submit(REQUEST, op.job_client.format_key("0123456789abcdef"))
    main_thread = threading.main_thread().ident
    assert main_thread is not None
    seen: dict[str, object] = {"run_id": op._job_id}

    def on_term(signum, frame):  # airflow.sdk.execution_time.task_runner's _on_term
        seen["lock_held_in_handler"] = any(lock.locked() for lock in write_locks())
        op.on_kill()
        seen["handler_returned"] = True

    signal.signal(signal.SIGTERM, on_term)

    def stage() -> None:
        deadline = time.monotonic() + 20
        while not any(lock.locked() for lock in write_locks()):
            if time.monotonic() > deadline:
                os._exit(3)
            time.sleep(0.001)
        signal.pthread_kill(main_thread, signal.SIGTERM)
        time.sleep(1.0)
        while reader.recv(1 << 20):
            pass

    threading.Thread(target=stage, daemon=True).start()
    op.log.info("a long line nobody reads yet: %s", "x" * 4_000_000)
    kill = op._durable_kill
    if kill is not None:
        kill.join(30)
    seen["kill_finished"] = kill is not None and not kill.is_alive()
    print(json.dumps(seen), flush=True)
    os._exit(0)  # as the Task SDK leaves a task process


if __name__ == "__main__":
    sys.exit(main())
