"""pytest plugin of the official-tests runs: select each operator's tests, swap our classes in, record outcomes.

Loaded with ``-p tests.official.plugin`` by ``tests.official.run``; the environment says what to do:

* ``DJ_OFFICIAL_MODE=official``: the official classes as they are (which tests pass upstream at all);
* ``DJ_OFFICIAL_MODE=ours``: before any test module is imported, every official operator module's name
  for an operator we ship (``airflow.providers.amazon.aws.operators.batch.BatchOperator`` ...) is bound
  to our class, so a test module's ``from airflow.providers... import BatchOperator`` gets ours. Our
  modules are imported first, while the names are still the official classes they subclass;
* ``DJ_OFFICIAL_REPORT``: where to write ``{node id: {operator, outcome, message}}`` (JSON).

Only the tests of the classes named ``Test<OfficialName>...`` run (``tests.official.sources``).
"""

from __future__ import annotations

import importlib
import ipaddress
import json
import os
import signal
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.official import sources

MODES = ("official", "ours")
_MESSAGE_CAP = 2000
_DETAIL_CAP = 30000
#: Seconds one test may take before it fails (no official operator test needs more than a few).
TEST_TIMEOUT = float(os.environ.get("DJ_OFFICIAL_TEST_TIMEOUT", "30"))


class NetworkBlocked(ConnectionRefusedError):
    """A unit test tried to reach a host other than this machine (the vendor's real endpoint)."""


def _loopback(host: Any) -> bool:
    if not isinstance(host, str):
        return True  # AF_UNIX paths and the like
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def block_network() -> None:
    """Refuse, at once, any connection or name lookup beyond loopback.

    The official tests mock every vendor call they expect; a call they did not mock (ours go through our
    own clients) would otherwise wait on the network and botocore's retries. It fails now instead, with
    the host in the message, which is what the failure reports show.
    """
    real_connect, real_getaddrinfo = socket.socket.connect, socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else address
        if not _loopback(host):
            raise NetworkBlocked(f"network access blocked in the official tests: {address!r}")
        return real_connect(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(host, bytes):
            host = host.decode()
        if not _loopback(host):
            raise socket.gaierror(socket.EAI_NONAME, f"name lookup blocked in the official tests: {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo
    # botocore retries a refused connection up to 4 times with exponential backoff (legacy mode); none
    # of those retries can succeed here, so they happen without the wait.
    from botocore import retryhandler
    from botocore.retries import standard

    retryhandler.delay_exponential = lambda base, growth_factor, attempts: 0
    standard.ExponentialBackoff.delay_amount = lambda self, context: 0  # type: ignore[method-assign]


def _mode() -> str:
    mode = os.environ.get("DJ_OFFICIAL_MODE", "")
    if mode not in MODES:
        raise pytest.UsageError(f"DJ_OFFICIAL_MODE must be one of {MODES}, not {mode!r}")
    return mode


def swap(targets: list[sources.Target]) -> dict[str, tuple[type, type]]:
    """Bind each official name to our class; official classpath -> (official class, ours)."""
    resolved: dict[str, tuple[Any, type, type]] = {}
    for target in targets:  # the official classes first ...
        module = importlib.import_module(target.official_module)
        resolved[target.official] = (module, getattr(module, target.official_name), type)
    for target in targets:  # ... then ours, which subclass them, imported while the names are official
        module, official, _ = resolved[target.official]
        ours_module, _, ours_name = target.classpath.rpartition(".")
        ours = getattr(importlib.import_module(ours_module), ours_name)
        if not (isinstance(ours, type) and issubclass(ours, official)):
            raise pytest.UsageError(f"{target.classpath} does not subclass {target.official}")
        resolved[target.official] = (module, official, ours)
    for target in targets:
        module, _, ours = resolved[target.official]
        setattr(module, target.official_name, ours)
    return {path: (official, ours) for path, (_, official, ours) in resolved.items()}


class OfficialTests:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.mode = _mode()
        self.targets = sources.targets()
        self.swapped: dict[str, tuple[type, type]] = {}
        self.results: dict[str, dict[str, Any]] = {}
        self.owner: dict[str, str] = {}

    @pytest.hookimpl(trylast=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        # Runs after the providers' conftests (and tests_common.pytest_plugin's Airflow setup) are
        # loaded, before any test module is collected.
        block_network()
        if self.mode == "ours":
            self.swapped = swap(self.targets)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
        def expired(signum: int, frame: Any) -> None:
            raise TimeoutError(f"test took longer than {TEST_TIMEOUT:.0f} s")

        previous = signal.signal(signal.SIGALRM, expired)
        signal.setitimer(signal.ITIMER_REAL, TEST_TIMEOUT)
        try:
            return (yield)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        keep, drop = [], []
        for item in items:
            cls = getattr(item, "cls", None)
            target = sources.owner(cls.__name__, self.targets) if cls is not None else None
            if target is None:
                drop.append(item)
                continue
            self._check_binding(item, target)
            self.owner[item.nodeid] = target.classpath
            keep.append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
        items[:] = keep

    def _check_binding(self, item: pytest.Item, target: sources.Target) -> None:
        """The test module's name for the official class is what this mode promises (ours or official)."""
        module = getattr(item, "module", None)
        bound = getattr(module, target.official_name, None)
        if bound is None:
            return  # the module imports the class under another name or not at all
        official = importlib.import_module(target.official_module)
        want = self.swapped[target.official][1] if self.mode == "ours" else getattr(official, target.official_name)
        if bound is not want:
            raise pytest.UsageError(
                f"{item.nodeid}: {target.official_name} is {bound!r}, expected {want!r} in mode {self.mode}"
            )

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.nodeid not in self.owner:
            return
        entry = self.results.setdefault(
            report.nodeid,
            {"operator": self.owner[report.nodeid], "outcome": "passed", "message": "", "detail": ""},
        )
        if report.skipped and not hasattr(report, "wasxfail"):
            entry["outcome"] = "skipped"
            entry["message"] = _skip_reason(report)
        elif report.failed:
            if entry["outcome"] in ("failed", "error"):
                return  # keep the first failure (a teardown error after a failed call)
            entry["outcome"] = "failed" if report.when == "call" else "error"
            entry["message"] = _crash_message(report)
            detail = report.longreprtext
            entry["detail"] = detail if len(detail) <= _DETAIL_CAP else detail[:_DETAIL_CAP] + " ..."

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        path = os.environ.get("DJ_OFFICIAL_REPORT")
        if not path:
            return
        data = {
            "mode": self.mode,
            "swapped": {k: f"{v[1].__module__}.{v[1].__qualname__}" for k, v in self.swapped.items()},
            "exitstatus": int(exitstatus),
            "results": self.results,
        }
        Path(path).write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")


def _crash_message(report: pytest.TestReport) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr)
    return text if len(text) <= _MESSAGE_CAP else text[:_MESSAGE_CAP] + " ..."


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(OfficialTests(config), "official-tests")
