"""The AWS fault proxy's time windows, against a stub upstream on loopback (no moto needed)."""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from durable_jobs.testing.emulators.aws_proxy import AwsFaultProxy

OP = "athena:GetQueryExecution"
HEADERS = {
    "Authorization": "AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/athena/aws4_request, "
                     "SignedHeaders=host, Signature=0",
    "X-Amz-Target": "AmazonAthena.GetQueryExecution",
    "Content-Type": "application/x-amz-json-1.1",
}


class _Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.dumps({"QueryExecution": {"QueryExecutionId": "q-1", "Status": {"State": "RUNNING"}}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-amz-json-1.1")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def proxy() -> Iterator[AwsFaultProxy]:
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    thread = threading.Thread(target=upstream.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        with AwsFaultProxy(f"http://127.0.0.1:{upstream.server_address[1]}") as fault_proxy:
            yield fault_proxy
    finally:
        upstream.shutdown()
        upstream.server_close()
        thread.join(timeout=5)


def _ask(proxy: AwsFaultProxy) -> str:
    host, port = proxy.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=5)
    try:
        conn.request("POST", "/", body=b'{"QueryExecutionId": "q-1"}', headers=HEADERS)
        response = conn.getresponse()
        body = json.loads(response.read())
    finally:
        conn.close()
    return str(response.status) if response.status != 200 else body["QueryExecution"]["Status"]["State"]


def _hibernating(body: dict[str, Any]) -> dict[str, Any]:
    body["QueryExecution"]["Status"]["State"] = "HIBERNATING"
    return body


def test_window_from_first_reply_starts_where_an_outage_ends_for_the_client(proxy):
    # Windows of 1.5 s: the requests that must land inside one (the first ask after arming, the two asks in
    # a row) take milliseconds, but a loaded machine can stall this process for a good part of a second.
    # The sleeps only need to outlast a window, which a sleep always does.
    proxy.fault(OP, status=503, code="ServiceUnavailableException", count=-1, seconds=1.5)
    proxy.fault(OP, mode="rewrite", rewrite=_hibernating, count=-1, seconds=1.5, seconds_from="first")
    assert _ask(proxy) == "503"
    time.sleep(1.6)  # the client backed off past both windows as counted from arming
    assert [_ask(proxy), _ask(proxy)] == ["HIBERNATING", "HIBERNATING"]  # counted from its first reply
    time.sleep(1.6)
    assert _ask(proxy) == "RUNNING"
    assert [(f["op"], f["status"], f["mode"]) for f in proxy.fired] == [
        (OP, 503, "error"), (OP, 500, "rewrite"), (OP, 500, "rewrite"),
    ]
    assert proxy.calls[OP] == 4


def test_window_from_arming_is_the_default(proxy):
    proxy.fault(OP, mode="rewrite", rewrite=_hibernating, count=-1, seconds=0.3)
    time.sleep(0.5)
    assert _ask(proxy) == "RUNNING" and proxy.fired == []
    with pytest.raises(ValueError, match="seconds_from"):
        proxy.fault(OP, seconds_from="later")
