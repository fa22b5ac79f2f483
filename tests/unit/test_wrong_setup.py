"""What ``wrong_setup`` recognises, from errors the real client libraries raise over loopback.

Each error is raised by the library itself (requests, botocore, google-api-core over gRPC, Airflow's
connection lookup) against a name under the reserved ``.invalid`` TLD, a 127.0.0.1 port bound and closed,
or a small server on 127.0.0.1: the recogniser must tell the errors raised before a request left from the
ones raised after (a reset, a timeout), which are never a wrong setup.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from durable_jobs.core.wrong_setup import wrong_setup

BAD_HOST = "nothere.invalid"


def closed_port() -> int:
    """A 127.0.0.1 port bound and closed: a connect to it is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def raised(call) -> BaseException:
    try:
        call()
    except Exception as err:  # noqa: BLE001 - the library's own error is the subject
        return err
    raise AssertionError("the call did not fail")


@pytest.fixture
def reset_after_request() -> Iterator[int]:
    """A server that reads one request, then resets the connection: the request left."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.recv(65536)
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    listener.close()


@pytest.fixture
def plain_http() -> Iterator[int]:
    """A plain-HTTP server that answers slowly: a TLS client fails its handshake, a slow read times out."""

    class Slow(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            threading.Event().wait(2.0)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_requests_a_host_that_does_not_resolve():
    found = wrong_setup(raised(lambda: requests.get(f"http://{BAD_HOST}:8080/api", timeout=5)))
    assert found is not None and "does not resolve" in found.what and found.host == f"{BAD_HOST}:8080"


def test_requests_a_refused_port():
    port = closed_port()
    found = wrong_setup(raised(lambda: requests.get(f"http://127.0.0.1:{port}/api", timeout=5)))
    assert found is not None and "refused" in found.what and found.host == f"127.0.0.1:{port}"


def test_requests_tls_spoken_to_a_plain_http_port(plain_http):
    found = wrong_setup(raised(lambda: requests.get(f"https://127.0.0.1:{plain_http}/api", timeout=5)))
    assert found is not None and "TLS handshake" in found.what


def test_requests_a_malformed_url():
    found = wrong_setup(raised(lambda: requests.get("127.0.0.1/api", timeout=5)))
    assert found is not None and "MissingSchema" in found.what


def test_a_reset_after_the_request_left_is_not_a_wrong_setup(reset_after_request):
    err = raised(lambda: requests.post(f"http://127.0.0.1:{reset_after_request}/api", json={}, timeout=5))
    assert isinstance(err, requests.ConnectionError)
    assert wrong_setup(err) is None


def test_a_read_timeout_is_not_a_wrong_setup(plain_http):
    err = raised(lambda: requests.get(f"http://127.0.0.1:{plain_http}/api", timeout=0.3))
    assert isinstance(err, requests.Timeout)
    assert wrong_setup(err) is None


def _batch(endpoint: str):
    import boto3
    from botocore.config import Config

    return boto3.client("batch", region_name="us-east-1", endpoint_url=endpoint, aws_access_key_id="testing",
                        aws_secret_access_key="testing", config=Config(retries={"max_attempts": 1}))


def test_botocore_a_host_that_does_not_resolve():
    found = wrong_setup(raised(lambda: _batch(f"http://{BAD_HOST}:4566").describe_jobs(jobs=["x"])))
    assert found is not None and "does not resolve" in found.what and found.host == f"{BAD_HOST}:4566"


def test_botocore_a_refused_port():
    port = closed_port()
    found = wrong_setup(raised(lambda: _batch(f"http://127.0.0.1:{port}").describe_jobs(jobs=["x"])))
    assert found is not None and "refused" in found.what and found.host == f"127.0.0.1:{port}"


def _dataproc(endpoint: str):
    from google.api_core.client_options import ClientOptions
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import dataproc_v1

    client = dataproc_v1.JobControllerClient(credentials=AnonymousCredentials(),
                                             client_options=ClientOptions(api_endpoint=endpoint))
    return lambda: client.get_job(project_id="p", region="r", job_id="j", timeout=5, retry=None)


def test_grpc_a_host_that_does_not_resolve():
    found = wrong_setup(raised(_dataproc(f"{BAD_HOST}:443")))
    assert found is not None and "does not resolve" in found.what and found.host == f"{BAD_HOST}:443"


def test_grpc_a_refused_port():
    port = closed_port()
    found = wrong_setup(raised(_dataproc(f"127.0.0.1:{port}")))
    assert found is not None and "refused" in found.what and found.host == f"127.0.0.1:{port}"


def test_a_connection_id_that_is_not_defined():
    from airflow.providers.databricks.hooks.databricks import DatabricksHook

    found = wrong_setup(raised(lambda: DatabricksHook("wrong_setup_not_defined").databricks_conn))
    assert found is not None and found.missing_connection and "wrong_setup_not_defined" in found.what


def test_an_http_error_reply_is_not_a_wrong_setup():
    err = requests.HTTPError("503 Server Error")
    assert wrong_setup(err) is None
