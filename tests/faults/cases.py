"""The faults every vendor family is tested against, and what the policy must do about each.

One list, read by the suite (tests/faults/test_faults.py parametrises over it for every vendor) and
by the docs page "When the vendor misbehaves" (through artifacts/fault-matrix.json, which the suite
writes): the table cannot say what the tests do not check.
"""

from __future__ import annotations

from dataclasses import dataclass

from tools import fault_matrix


@dataclass(frozen=True)
class Case:
    key: str
    title: str
    #: "poll": the fault hits the status call while the job runs; "submit": the submit call
    phase: str
    #: what the task must do: "succeeded" (the job is watched to its end), or the error class it fails with
    expect: str
    #: jobs the vendor must have after the case (and after the next try's same-key resend)
    jobs: int = 1
    #: what the policy does, for the docs table
    policy: str = ""


POLL = "poll"
SUBMIT = "submit"
#: "setup": the connection is wrong before anything was submitted; the next try runs with it fixed
SETUP = "setup"
#: The most a try that meets a wrong setup may take to fail (the docs table checks it too)
SETUP_FAILS_WITHIN = fault_matrix.SETUP_FAILS_WITHIN

CASES: tuple[Case, ...] = (
    Case("throttled-retry-after", "429 with Retry-After", POLL, "succeeded",
         policy="waits as long as the vendor asks, keeps watching"),
    Case("throttled", "429 without Retry-After", POLL, "succeeded",
         policy="backs off (1 s, 2 s, 4 s … up to 60 s, jittered), keeps watching"),
    Case("server-error", "5xx", POLL, "succeeded", policy="backs off, keeps watching"),
    Case("reset", "connection reset", POLL, "succeeded", policy="backs off, keeps watching"),
    Case("timeout", "reply slower than the HTTP timeout", POLL, "succeeded", policy="backs off, keeps watching"),
    Case("not-json", "reply that is not JSON", POLL, "succeeded", policy="backs off, keeps watching"),
    Case("unknown-state", "a state the table does not list", POLL, "succeeded",
         policy="keeps watching, warns once per state; fails the try past `unknown_state_budget`, job left running"),
    Case("unknown-state-too-long", "a state the table does not list, past `unknown_state_budget`", POLL,
         "UnknownJobStateError", policy="fails the try, naming the state; the job is left running for the retry"),
    Case("outage", "status calls fail past `poll_error_budget`", POLL, "PollBudgetExceededError",
         policy="fails the try saying the job may still run; the retry reconnects"),
    Case("auth", "401/403 on the status call", POLL, "VendorAuthError",
         policy="fails the try at once, naming the connection; the job is left running"),
    Case("deleted", "the job vanishes while watched (deleted, history purged)", POLL, "JobFailedError",
         policy="ends the watch: the job no longer exists; the retry submits a new one"),
    Case("submit-throttled", "429 on submit", SUBMIT, "succeeded",
         policy="sends the same key again after the wait"),
    Case("submit-lost-reply", "5xx after the job was created", SUBMIT, "succeeded",
         policy="looks for the key, else sends the same key again: the vendor hands back the job"),
    Case("submit-reset", "connection reset after the job was created", SUBMIT, "succeeded",
         policy="looks for the key, else sends the same key again"),
    Case("submit-timeout", "submit reply slower than the HTTP timeout", SUBMIT, "succeeded",
         policy="looks for the key, else sends the same key again"),
    Case("submit-not-json", "a reply that is not JSON after the job was created", SUBMIT, "succeeded",
         policy="looks for the key, else sends the same key again"),
    Case("submit-auth", "401/403 on submit", SUBMIT, "VendorAuthError", jobs=0,
         policy="fails the try at once, naming the connection; nothing was submitted"),
    Case("setup-unresolvable", "the connection's host does not resolve", SETUP, "WrongSetupError",
         policy="fails the try within 5 s, naming the connection and the host; nothing was submitted; the next "
                "try, with the host fixed, submits once"),
    Case("setup-refused", "the connection's port refuses", SETUP, "WrongSetupError",
         policy="fails the try within 5 s, naming the connection and the host; nothing was submitted; the next "
                "try, with the port fixed, submits once"),
    Case("setup-no-connection", "the connection id is not defined", SETUP, "ConnectionNotDefinedError",
         policy="fails the try within 5 s: `connection 'x' is not defined: nothing was submitted` (an "
                "AirflowNotFoundException); the next try, with the connection defined, submits once"),
)

#: Where a service's API cannot meet a case as written, what it must do instead, and why: (service, case key)
#: -> Case. Each is a documented limit of the vendor's API, not a product bug; the harness stores the
#: expectation with the cell (``expect`` / ``expect_jobs``), so the docs table shows it as what is checked.
_NO_KEY = ("no idempotency field: not resent inside the try (a resend could run the statement twice); fails "
           "the try saying the statement may have run — the retry runs it again (the open W2 window)")
VENDOR_CASES: dict[tuple[str, str], Case] = {
    ("databricks_sql", "submit-throttled"): Case(
        "submit-throttled", "429 on submit", SUBMIT, "JobSubmitError", jobs=0,
        policy="not resent inside the try: the reference does not say a throttled POST ran nothing; fails "
               "the try, the retry sends it again"),
    **{("databricks_sql", key): Case(key, title, SUBMIT, "JobSubmitError", jobs=1, policy=_NO_KEY) for key, title in (
        ("submit-lost-reply", "5xx after the job was created"),
        ("submit-reset", "connection reset after the job was created"),
        ("submit-timeout", "submit reply slower than the HTTP timeout"),
        ("submit-not-json", "a reply that is not JSON after the job was created"),
    )},
}


def case_for(service: str, key: str) -> Case:
    """The case as ``service`` must meet it (``VENDOR_CASES``, else the shared one)."""
    return VENDOR_CASES.get((service, key)) or next(c for c in CASES if c.key == key)
