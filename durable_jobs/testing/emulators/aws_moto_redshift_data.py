"""The Amazon Redshift Data API rules moto 5.2.5 lacks, installed by ``aws_moto.install_gap_rules``.

Kept apart from ``aws_moto`` (which merges ``GAPS`` into ``MOTO_GAPS`` and calls ``install``) so that this
service's emulator rules read in one place; the contract is docs/emulators/aws-redshift-data.md. Nothing
here imports Airflow.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from durable_jobs.testing.emulators._moto_state import graft_managed_state

MODEL = "redshift-data::statement"
#: A statement whose SQL contains this ends FAILED (``redshift-data-life-cycle``): a call of a function named
#: ``fail``, which no crash cell's or example's SQL contains by accident (a DAG id "mark_failed" does not match).
FAIL_MARKER = "fail()"
FAIL_ERROR = "ERROR: function fail() does not exist (the emulator's 'fail()' marker)"
#: "The query was submitted, but not yet processed" / "has been chosen to be run" / "run has started".
RUNNING = ("SUBMITTED", "PICKED", "STARTED")

GAPS: dict[str, str] = {
    "redshift-data-life-cycle": (
        "moto creates every statement STARTED and nothing ever ends it (the official operator waits forever). "
        "Ours run SUBMITTED -> PICKED -> STARTED -> FINISHED on moto's state manager (model "
        "'redshift-data::statement'); a statement whose SQL contains 'fail()' ends FAILED with an Error. "
        "CancelStatement ends a SUBMITTED, PICKED or STARTED statement ABORTED (AWS: 'To be canceled, a query "
        "must be running'; moto cancels STARTED only) and answers a finished one with moto's ValidationException."
    ),
    "redshift-data-client-token": (
        "moto ignores ClientToken (every call runs a new statement). AWS (ExecuteStatement and "
        "BatchExecuteStatement, ClientToken): 'A unique, case-sensitive identifier that you provide to ensure the "
        "idempotency of the request.' Ours answers a token it has seen with the statement it already ran under "
        "it. The reference does not say how long a token is remembered, whether it is scoped beyond the account "
        "and Region, or what a token resent with other parameters gets: ours remembers it per account and Region "
        "until moto is reset and answers any resend with the first statement (the side that runs nothing twice)."
    ),
    "redshift-data-batch-execute-statement": (
        "moto has no BatchExecuteStatement. Ours runs the SQL list as one statement whose DescribeStatement lists "
        "SubStatements '<id>:1', '<id>:2', ... ('A suffix indicates the number of the SQL statement'); "
        "DescribeStatement and GetStatementResult answer a sub-statement id. The reference does not say how a "
        "sub-statement's status follows its batch's: ours mirror the batch's status (and its Error on the "
        "statement whose SQL holds the marker); the batch's QueryString is its statements joined by '; '."
    ),
    "redshift-data-sessions": (
        "moto ignores SessionKeepAliveSeconds and SessionId. AWS: SessionKeepAliveSeconds is 'The number of "
        "seconds to keep the session alive after the query finishes'; the reply's SessionId is 'The session "
        "identifier of the query.' Ours gives a statement run with SessionKeepAliveSeconds a new session id "
        "(a UUID4, as the official hook requires of a session_id), echoes a SessionId sent, and reports it in "
        "the submit's reply and in DescribeStatement. Sessions do not expire and are not checked."
    ),
}


def install(patch: Callable[[Any, str, Any], None]) -> None:
    """Add the rules in ``GAPS`` through ``patch(owner, name, value)`` (undone by ``aws_moto``)."""
    from moto.moto_api._internal import mock_random as random
    from moto.moto_api._internal.managed_state_model import ManagedState
    from moto.redshiftdata.exceptions import ResourceNotFoundException, ValidationException
    from moto.redshiftdata.models import RedshiftDataAPIServiceBackend, Statement, _validate_uuid
    from moto.redshiftdata.responses import RedshiftDataAPIServiceResponse

    original_init = Statement.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        failing = FAIL_MARKER in str(self.query_string).lower()
        ManagedState.__init__(self, MODEL, [("SUBMITTED", "PICKED"), ("PICKED", "STARTED"),
                                            ("STARTED", "FAILED" if failing else "FINISHED")])

    def _sub_statements(self: Any, status: str) -> list[dict[str, Any]]:
        subs = []
        for number, sql in enumerate(self.__dict__.get("_dj_sqls") or [], start=1):
            sub = {"Id": f"{self.id}:{number}", "Status": status, "QueryString": sql, "CreatedAt": self.created_at,
                   "UpdatedAt": self.updated_at, "Duration": self.duration, "HasResultSet": False,
                   "ResultRows": -1, "ResultSize": -1, "RedshiftQueryId": self.redshift_query_id}
            if status == "FAILED" and FAIL_MARKER in sql.lower():
                sub["Error"] = FAIL_ERROR
            subs.append(sub)
        return subs

    def __iter__(self: Any) -> Any:
        status = self.status  # one read: the state manager moves it at most once per describe
        yield from {
            "Id": self.id, "ClusterIdentifier": self.cluster_identifier, "CreatedAt": self.created_at,
            "Database": self.database, "DbUser": self.db_user, "Duration": self.duration,
            "HasResultSet": self.has_result_set, "QueryParameters": self.query_parameters,
            "QueryString": self.query_string, "RedshiftPid": self.redshift_pid,
            "RedshiftQueryId": self.redshift_query_id, "ResultRows": self.result_rows, "ResultSize": self.result_size,
            "SecretArn": self.secret_arn, "Status": status, "SubStatements": _sub_statements(self, status),
            "UpdatedAt": self.updated_at,
        }.items()
        if status == "FAILED":
            yield "Error", FAIL_ERROR
        if self.__dict__.get("_dj_session"):
            yield "SessionId", self.__dict__["_dj_session"]

    def cancel_statement(self: RedshiftDataAPIServiceBackend, statement_id: str) -> None:
        _validate_uuid(statement_id)
        statement = self.statements.get(statement_id)
        if statement is None:
            raise ResourceNotFoundException()
        state = statement.status
        if state not in RUNNING:
            raise ValidationException(
                f"Could not cancel a query that is already in {state} state with ID: {statement_id}")
        statement.status = "ABORTED"

    def _parent_of(backend: RedshiftDataAPIServiceBackend, statement_id: str) -> tuple[Any, int | None]:
        _validate_uuid(statement_id)
        parent_id, _, number = statement_id.partition(":")
        statement = backend.statements.get(parent_id)
        if statement is None or (number and int(number) > len(statement.__dict__.get("_dj_sqls") or [])):
            raise ResourceNotFoundException()
        return statement, int(number) if number else None

    def describe_statement(self: RedshiftDataAPIServiceResponse) -> Any:
        statement, number = _parent_of(self.redshiftdata_backend, self._get_param("Id"))
        described = dict(statement)
        if number is None:
            return 200, {}, json.dumps(described)
        return 200, {}, json.dumps(described["SubStatements"][number - 1])

    original_result = RedshiftDataAPIServiceBackend.get_statement_result

    def get_statement_result(self: RedshiftDataAPIServiceBackend, statement_id: str) -> Any:
        statement, _ = _parent_of(self, statement_id)
        return original_result(self, statement.id)

    def _submit(response: RedshiftDataAPIServiceResponse, sqls: list[str] | None) -> Any:
        backend = response.redshiftdata_backend
        token = response._get_param("ClientToken")
        seen: dict[str, str] = backend.__dict__.setdefault("_dj_tokens", {})
        statement = backend.statements.get(seen.get(token, "")) if token else None
        if statement is None:
            statement = backend.execute_statement(
                cluster_identifier=response._get_param("ClusterIdentifier"),
                database=response._get_param("Database"), db_user=response._get_param("DbUser"),
                parameters=response._get_param("Parameters"), secret_arn=response._get_param("SecretArn"),
                sql="; ".join(sqls) if sqls is not None else response._get_param("Sql"),
            )
            if sqls is not None:
                statement.__dict__["_dj_sqls"] = list(sqls)
            session = response._get_param("SessionId")
            if session is None and response._get_param("SessionKeepAliveSeconds") is not None:
                session = str(random.uuid4())
            statement.__dict__["_dj_session"] = session
            statement.__dict__["_dj_workgroup"] = response._get_param("WorkgroupName")
            if token:
                seen[token] = statement.id
        reply = {"Id": statement.id, "CreatedAt": statement.created_at, "Database": statement.database,
                 "ClusterIdentifier": statement.cluster_identifier, "DbUser": statement.db_user,
                 "SecretArn": statement.secret_arn, "WorkgroupName": statement.__dict__.get("_dj_workgroup")}
        if statement.__dict__.get("_dj_session"):
            reply["SessionId"] = statement.__dict__["_dj_session"]
        return 200, {}, json.dumps({k: v for k, v in reply.items() if v is not None})

    def execute_statement(self: RedshiftDataAPIServiceResponse) -> Any:
        return _submit(self, None)

    def batch_execute_statement(self: RedshiftDataAPIServiceResponse) -> Any:
        sqls = self._get_param("Sqls") or []
        if not sqls:
            raise ValidationException("Sqls must contain at least one statement")
        return _submit(self, [str(s) for s in sqls])

    patch(Statement, "__init__", __init__)
    patch(Statement, "__iter__", __iter__)
    graft_managed_state(patch, Statement, "status", plain_key="_plain_status")
    patch(RedshiftDataAPIServiceBackend, "cancel_statement", cancel_statement)
    patch(RedshiftDataAPIServiceBackend, "get_statement_result", get_statement_result)
    patch(RedshiftDataAPIServiceResponse, "describe_statement", describe_statement)
    patch(RedshiftDataAPIServiceResponse, "execute_statement", execute_statement)
    patch(RedshiftDataAPIServiceResponse, "batch_execute_statement", batch_execute_statement)
