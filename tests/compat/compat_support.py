"""Helpers for the compatibility subset that read Airflow's metadata DB the same way on every version."""

from __future__ import annotations

import threading
import time

#: dag_ids whose operator called defer(), appended by the compat DAGs.
DEFERRALS: list[str] = []


def release_after_trigger_polls(aws, operation: str, timeout: float = 60) -> threading.Thread:
    """Hold moto's jobs where they are until a trigger (the async client) has called ``operation``, then let
    them go on: the deferrable path is proven to poll from the triggerer, not to find the job already done."""
    aws.moto.hold()

    def watch() -> None:
        deadline = time.monotonic() + timeout
        while not aws.proxy.async_calls.get(operation) and time.monotonic() < deadline:
            time.sleep(0.02)
        aws.moto.progress()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def run_dag(dag):
    """``dag.test()`` on any Airflow; returns (dag run state, {task_id: (state, try_number)})."""
    dr = dag.test()
    from airflow.utils.session import create_session

    with create_session() as session:
        tis = dr.get_task_instances(session=session) if hasattr(dr, "get_task_instances") else []
        states = {ti.task_id: (str(getattr(ti.state, "value", ti.state)), ti.try_number) for ti in tis}
        dr_state = str(getattr(dr.state, "value", dr.state))
    return dr_state, states


def xcom(dag_id: str, task_id: str, key: str):
    """An XCom value written by the latest run of ``dag_id`` (reads the metadata DB on any version)."""
    from airflow.utils.session import create_session

    with create_session() as session:
        try:
            from airflow.models.xcom import XComModel  # Airflow 3
        except ImportError:
            from airflow.models.xcom import XCom  # Airflow 2

            row = (
                session.query(XCom)
                .filter(XCom.dag_id == dag_id, XCom.task_id == task_id, XCom.key == key)
                .order_by(XCom.timestamp.desc())
                .first()
            )
            return None if row is None else row.value  # the ORM loader already deserialised it
        row = (
            session.query(XComModel)
            .filter(XComModel.dag_id == dag_id, XComModel.task_id == task_id, XComModel.key == key)
            .order_by(XComModel.timestamp.desc())
            .first()
        )
        return None if row is None else XComModel.deserialize_value(row)


class FakeHealth:
    """A loopback stand-in for the API's health endpoint: ``with FakeHealth(status) as url: ...``."""

    def __init__(self, triggerer_status: str | None = "healthy"):
        self.body = {
            "metadatabase": {"status": "healthy"},
            "scheduler": {"status": "healthy", "latest_scheduler_heartbeat": None},
            "triggerer": {"status": triggerer_status, "latest_triggerer_heartbeat": "2026-01-01T00:00:00Z"},
        }

    def __enter__(self) -> str:
        import json
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        body = json.dumps(self.body).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}/api/v2/monitor/health"

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
