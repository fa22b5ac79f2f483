"""One send for a request that creates something, through googleapiclient's httplib2 transport.

httplib2 sends any request a second time, a POST included, when the server closes the connection before
answering on the first try ("the connection just went stale": ``Http._conn_request`` resends on a
``BadStatusLine`` "regardless of the number of RETRIES set"). A launch whose job was created and whose reply was
lost is then sent again inside one call, where the checkpoint cannot see it; Dataflow dedupes a launch only
against an *active* job of that name, so a resend after the job ended starts a second one.

``send_once(http)`` makes the client's transport (an ``httplib2.Http``, or google-auth's ``AuthorizedHttp``
around one) send each request on a fresh connection (a pooled one the server has since closed is
not a lost reply), and never twice: a reply lost after the request went out raises ``ReplyLost``, a
``ConnectionResetError`` the fault policy reads as "may have been processed", and the resend loop looks for the
job before it sends again. Only the launch goes this way: a read or a cancel may be resent.
"""

from __future__ import annotations

from typing import Any

import httplib2


class ReplyLost(ConnectionResetError):
    """The connection closed after the request went out and before its reply: not resent here."""


class _OneSend:
    """The connection httplib2 is handed for one request: it lets the request go out once."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self._sent = False
        self._failure: BaseException | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def request(self, *args: Any, **kwargs: Any) -> Any:
        if self._sent:
            raise ReplyLost(f"the server closed the connection without a reply ({self._failure!r}); the request "
                            "went out and may have been processed, so it is not sent again here") from self._failure
        result = self._conn.request(*args, **kwargs)
        self._sent = True  # set once the request went out: a send that failed may be tried again
        return result

    def getresponse(self) -> Any:
        try:
            return self._conn.getresponse()
        except BaseException as err:
            self._failure = err
            raise


class SendOnceHttp(httplib2.Http):
    """``httplib2.Http`` that sends each request once, on a fresh connection."""

    def _conn_request(self, conn: Any, request_uri: str, method: str, body: Any, headers: Any) -> Any:
        conn.close()
        return super()._conn_request(_OneSend(conn), request_uri, method, body, headers)


def send_once(http: Any) -> bool:
    """Make ``http`` (an ``httplib2.Http``, or google-auth's ``AuthorizedHttp`` around one) send each request once;
    False when it is neither (a test's stand-in: it is left as it is).

    It changes that object, so give it a transport built for the call: the official hooks' ``get_conn`` builds a
    new one each time. (A copy would not do: the hook wraps the instance's ``request`` in a closure bound to the
    original, ``googleapiclient.http.set_user_agent``.)"""
    inner = http if isinstance(http, httplib2.Http) else getattr(http, "http", None)
    if not isinstance(inner, httplib2.Http):
        return False
    if not isinstance(inner, SendOnceHttp):
        inner.__class__ = SendOnceHttp
    return True
