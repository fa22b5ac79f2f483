"""Snowflake SQL API statement batches through the official ``SnowflakeSqlApiHook``.

A *job* is one ``POST /api/v2/statements`` request (one statement or a batch separated by ``;``); its
id is the list of statement handles the reply names, as the official operator keeps it.

Idempotency (SQL API reference, ``POST /api/v2/statements``): "requestId (Optional) Unique ID (a UUID)
of the API request. See Resubmitting a request to execute SQL statements." The epoch's 128-bit nonce
*is* that UUID. A resend after a lost or failed reply uses the same ``requestId`` and ``retry=true``, so
that Snowflake hands back the statement it already has instead of executing it again (the resubmission
rule, quoted in ``docs/emulators/snowflake.md``). Snowflake cannot be asked for a statement by its
``requestId``: ``find()`` answers None and the protocol resends under the same id.

The submit goes through a hook whose own tenacity retries are off: they would resend the POST
*without* ``retry=true``. Status calls keep the official retry settings (``snowflake_api_retry_args``).

What Snowflake does not document, and the side taken: how long a ``requestId`` is remembered (a
crash recovered within minutes is what we rely on); what a ``retry=true`` resend with a *changed* body
does (we never change it: the fingerprint starts a new epoch instead); what ``/cancel`` answers for a
statement that already ended (best effort, never a failure of ours).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, ClassVar

from durable_jobs.core.cached import fill_cached
from durable_jobs.core.client import JobClient
from durable_jobs.core.faults import Fault, FaultKind, UnreadableReplyError, cap, chain, generic_classify
from durable_jobs.core.status import MISSING_STATE, JobPhase, JobStatus, StateTable

#: The status call's HTTP codes, as the official hook reads them (``_process_response``) and Snowflake's
#: "Handling responses" / "Getting details about an error" pages describe them: "Snowflake returns the HTTP
#: response code 202 with a QueryStatus object" (still executing), "200 and the rows from the results in a
#: ResultSet object", "If an error occurred when executing the statement, Snowflake returns the HTTP response
#: code 422 with a QueryFailureStatus object"; and 408 when "the statement execution takes longer than the
#: timeout period" (a failure for us). Any other code is a state this table does not list (watched, never an
#: end). An unknown handle: not documented in what we could read; the official ``get_job_status`` reads a 404
#: as "not_found", and so do we.
STATEMENT_STATES = StateTable(
    vendor="Snowflake statement",
    active=frozenset({"running"}),
    succeeded=frozenset({"success"}),
    failed=frozenset({"error", "timeout"}),
)
#: What the official hook's ``_process_response`` makes of the documented codes; ours reports any other
#: code as ``HTTP <code>`` (a state the table does not list) where the official hook says "error".
_STATE_OF_CODE = {202: "running", 200: "success", 422: "error"}
#: A namespace for combining a user's own request id with the nonce (uuid5: deterministic).
KEY_NAMESPACE = uuid.UUID("6f1c0d2e-6a52-4d4e-9d8e-2a8f3b1f5c11")


def request_id(nonce: str, user_token: str | None = None) -> str:
    """The ``requestId``: the nonce in UUID form, or a uuid5 of (user token, nonce) when a user gave one."""
    if user_token:
        return str(uuid.uuid5(KEY_NAMESPACE, f"{user_token}:{nonce}"))
    return str(uuid.UUID(hex=nonce))


def _http_status(err: BaseException) -> int | None:
    for cause in chain(err):
        response = getattr(cause, "response", None)
        status = getattr(response, "status_code", None)
        if isinstance(status, int):
            return status
        status = getattr(cause, "status", None)
        if isinstance(status, int) and hasattr(cause, "request_info"):
            return status
    return None


class SnowflakeSqlApiJobClient(JobClient):
    """``POST /api/v2/statements`` under ``requestId``; status aggregated over the statement handles."""

    vendor: ClassVar[str] = "Snowflake"
    states: ClassVar[StateTable] = STATEMENT_STATES
    status_endpoint: ClassVar[str] = "GET /api/v2/statements/{handle}"

    def __init__(
        self,
        snowflake_conn_id: str = "snowflake_default",
        *,
        token_life_time: float = 59 * 60,
        token_renewal_delta: float = 54 * 60,
        api_retry_args: Mapping[str, Any] | None = None,
        hook_params: Mapping[str, Any] | None = None,
    ) -> None:
        self.snowflake_conn_id = snowflake_conn_id
        self.token_life_time = float(token_life_time)
        self.token_renewal_delta = float(token_renewal_delta)
        self.api_retry_args = dict(api_retry_args or {})
        self.hook_params = dict(hook_params or {})
        self._hooks: dict[str, Any] = {}
        self._sent: set[str] = set()

    def serialize(self) -> dict[str, Any]:
        return {
            "snowflake_conn_id": self.snowflake_conn_id, "token_life_time": self.token_life_time,
            "token_renewal_delta": self.token_renewal_delta,
            "api_retry_args": {k: v for k, v in self.api_retry_args.items() if _is_plain(v)},
            "hook_params": {k: v for k, v in self.hook_params.items() if _is_plain(v)},
        }

    @property
    def connection_id(self) -> str | None:
        return self.snowflake_conn_id

    @property
    def submit_endpoint(self) -> str:
        return "POST /api/v2/statements"

    def _hook(self, purpose: str) -> Any:
        """The official hook (ours adds the key to its POST); the submit's has its own retries off."""
        if purpose not in self._hooks:
            from tenacity import stop_after_attempt

            retry_args = {"stop": stop_after_attempt(1)} if purpose == "submit" else self.api_retry_args
            self._hooks[purpose] = keyed_hook_class()(
                snowflake_conn_id=self.snowflake_conn_id,
                token_life_time=timedelta(seconds=self.token_life_time),
                token_renewal_delta=timedelta(seconds=self.token_renewal_delta),
                api_retry_args=retry_args, **self._with_timeouts(self.hook_params),
            )
            # never under 3.11's class-wide lock (durable_jobs.core.cached): a cancel runs in a thread
            fill_cached(self._hooks[purpose], "_get_static_conn_params")
        return self._hooks[purpose]

    @staticmethod
    def _with_timeouts(hook_params: Mapping[str, Any]) -> dict[str, Any]:
        """``[durable_jobs] http_timeout_seconds`` on every call, unless the user's ``http_request_kwargs`` /
        ``aiohttp_request_kwargs`` set one: the official hook sets none, so a hung connection would hang the task."""
        import aiohttp

        from durable_jobs.core.config import http_timeout_from_config

        seconds = http_timeout_from_config()
        params = dict(hook_params)
        params["http_request_kwargs"] = {"timeout": seconds, **dict(params.get("http_request_kwargs") or {})}
        params["aiohttp_request_kwargs"] = {"timeout": aiohttp.ClientTimeout(total=seconds),
                                            **dict(params.get("aiohttp_request_kwargs") or {})}
        return params

    @property
    def hook(self) -> Any:
        return self._hook("status")

    def format_key(self, nonce: str, user_token: str | None = None) -> str:
        return request_id(nonce, user_token)

    def classify(self, err: BaseException) -> Fault:
        found = generic_classify(err)
        if found is not None:
            return found
        for cause in chain(err):
            # the hook's own refusals before any call: no credentials, an account it will not put in a URL
            if isinstance(cause, ValueError) and "authentication" in str(cause).lower():
                return Fault(FaultKind.AUTH, cap(cause, 300))
        return Fault(FaultKind.REJECTED, f"{type(err).__name__}: {cap(err, 300)}")

    # ------------------------------------------------------------------ submit
    def submit(self, request: Mapping[str, Any], key: str) -> list[str]:
        """The official ``execute_query`` (its body, its hook-level lineage), under our ``requestId``."""
        hook = self._hook("submit")
        hook.durable_request_id = key
        hook.durable_retry = bool(request.get("retry")) or key in self._sent
        self._sent.add(key)
        try:
            handles = hook.execute_query(
                str(request["sql"]), statement_count=request.get("statement_count", 0),
                bindings=request.get("bindings"), timeout=request.get("timeout"),
            )
        except RuntimeError as err:
            if "No statementHandle" in str(err):  # a reply without the documented field: unreadable
                raise UnreadableReplyError(f"POST /api/v2/statements answered without a handle ({err})") from err
            raise
        finally:
            hook.durable_request_id = None
        return [str(h) for h in handles]

    def find(self, key: str, *, since: datetime | None = None) -> None:
        # The SQL API has no lookup by requestId; a retry=true resend under it returns the statement.
        return None

    # ------------------------------------------------------------------ status
    def _one(self, handle: str, reply: Any) -> JobStatus:
        """The official ``get_sql_api_query_status`` answer (``{"status", "message"}``) as a ``JobStatus``."""
        if not isinstance(reply, Mapping) or not isinstance(reply.get("status"), str):
            raise UnreadableReplyError(f"GET /api/v2/statements/{handle} answered {cap(reply, 200)}")
        state = reply["status"]
        return JobStatus(self.phase_of(state), state, str(reply.get("message") or ""), raw={"handle": handle, **reply})

    def _failed_call(self, handle: str, err: Exception) -> JobStatus:
        code = _http_status(err)
        if code == 404:
            return JobStatus(JobPhase.MISSING, MISSING_STATE, self.classify(err).detail)
        if code == 408:  # the statement outlived its timeout and was cancelled (Getting details about an error)
            return JobStatus(JobPhase.FAILED, "timeout", f"statement {handle} exceeded its timeout")
        if isinstance(err, (KeyError, TypeError)):  # the hook read a reply without its documented fields
            raise UnreadableReplyError(f"GET /api/v2/statements/{handle}: unreadable reply ({err!r})") from err
        raise err

    def _aggregate(self, ids: Sequence[str], statuses: list[JobStatus]) -> JobStatus:
        """One verdict for the batch, as the official ``get_job_status``: error > missing > running > success."""
        for phase in (JobPhase.FAILED, JobPhase.MISSING, JobPhase.UNKNOWN, JobPhase.ACTIVE):
            for status in statuses:
                if status.phase is phase:
                    return status
        return JobStatus(JobPhase.SUCCEEDED, "success", statuses[-1].message if statuses else "",
                         raw={"handles": list(ids)})

    def status(self, job_id: Any) -> JobStatus:
        hook, ids = self.hook, _handles(job_id)
        statuses = []
        for handle in ids:
            try:
                statuses.append(self._one(handle, hook.get_sql_api_query_status(handle)))
            except UnreadableReplyError:
                raise
            except Exception as err:
                statuses.append(self._failed_call(handle, err))
        return self._aggregate(ids, statuses)

    async def astatus(self, job_id: Any) -> JobStatus:
        hook, ids = self.hook, _handles(job_id)
        statuses = []
        for handle in ids:
            try:
                statuses.append(self._one(handle, await hook.get_sql_api_query_status_async(handle)))
            except UnreadableReplyError:
                raise
            except Exception as err:
                statuses.append(self._failed_call(handle, err))
        return self._aggregate(ids, statuses)

    def cancel(self, job_id: Any) -> None:
        """``POST /api/v2/statements/{handle}/cancel`` for every handle of the batch."""
        self.hook.cancel_queries(_handles(job_id))

    def status_from_official_event(self, event: Mapping[str, Any]) -> JobStatus | None:
        """``SnowflakeSqlApiTrigger`` says "success" only when every statement succeeded."""
        if event.get("status") == "success":
            return JobStatus(JobPhase.SUCCEEDED, "success", "the official trigger reported success")
        return None

    def official_event_fields(self, job_id: Any, status: JobStatus, echo: Mapping[str, Any]) -> dict[str, Any]:
        """What the official ``execute_complete`` reads: ``statement_query_ids``, and ``status: "error"`` (with
        the event's ``message``) for a batch that did not succeed: it raises only on that word, so a task
        deferred by ours that resumes with the official operator after a switch fails as it should."""
        fields: dict[str, Any] = {"statement_query_ids": _handles(job_id)}
        if status.phase is not JobPhase.SUCCEEDED:
            fields["status"] = "error"
        return fields


def keyed_hook_class() -> type:
    """``SnowflakeSqlApiHook`` with two additions, so that the official ``execute_query`` and
    ``get_sql_api_query_status`` run unchanged: the statements POST carries ``durable_request_id`` (and
    ``retry=true`` when ``durable_retry``) instead of the hook's fresh uuid4; a status code the SQL API does
    not document is reported as ``HTTP <code>`` (watched) instead of "error" (an end)."""
    global _KEYED
    if _KEYED is None:
        from airflow.providers.snowflake.hooks.sql_api import SnowflakeSqlApiHook

        class DurableSqlApiHook(SnowflakeSqlApiHook):
            durable_request_id: str | None = None
            durable_retry: bool = False

            def _make_api_call_with_retries(self, method: str, url: str, headers: dict, params: dict | None = None,
                                            json: dict | None = None) -> Any:
                if self.durable_request_id and method.upper() == "POST" and url.endswith("/api/v2/statements"):
                    params = {**(params or {}), "requestId": self.durable_request_id}
                    if self.durable_retry:
                        params["retry"] = True
                return super()._make_api_call_with_retries(method, url, headers, params, json)

            def _process_response(self, status_code: Any, resp: Any) -> Any:
                if status_code in _STATE_OF_CODE:
                    return super()._process_response(status_code, resp)
                self.log.info("Snowflake SQL GET statements status API response: %s", resp)
                message = resp.get("message", "") if isinstance(resp, Mapping) else ""
                return {"status": f"HTTP {status_code}", "message": message}

        _KEYED = DurableSqlApiHook
    return _KEYED


_KEYED: type | None = None


def _handles(job_id: Any) -> list[str]:
    if isinstance(job_id, str):
        return [job_id]
    return [str(h) for h in job_id]


def _is_plain(value: Any) -> bool:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return True
    if isinstance(value, (list, tuple)):
        return all(_is_plain(v) for v in value)
    if isinstance(value, Mapping):
        return all(isinstance(k, str) and _is_plain(v) for k, v in value.items())
    return False
