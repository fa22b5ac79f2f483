"""The ``durable-jobs`` commands as a user meets them: ``--help`` and argument errors, from a real subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

from durable_jobs.reconcile import parse_since


def durable_jobs(*args: str) -> subprocess.CompletedProcess:
    # FORCE_COLOR: Python 3.14's argparse colours help on a terminal (and with it); ours must stay plain.
    env = {**os.environ, "FORCE_COLOR": "1", "PYTHON_COLORS": "1"}
    return subprocess.run([sys.executable, "-m", "durable_jobs.cli", *args], capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.mark.parametrize("command", ["reconcile", "doctor", "lint", "demo"])
def test_help_is_plain_text(command):
    done = durable_jobs(command, "--help")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith(f"usage: durable-jobs {command} ")
    for artefact in ("`", "**", ":func:", "::", "\x1b["):  # reST/Markdown markup, ANSI colour
        assert artefact not in done.stdout, artefact


def test_reconcile_help_names_the_forms_of_since():
    help_text = " ".join(durable_jobs("reconcile", "--help").stdout.split())
    assert "durable-jobs reconcile: external jobs still running for task instances that have finished." in help_text
    assert "--since WHEN only records written since WHEN: an ISO date or time (2026-11-29," in help_text
    assert "or a duration back from now (2d, 12h, 30m)" in help_text


def test_reconcile_refuses_a_since_it_cannot_read_naming_the_forms():
    done = durable_jobs("reconcile", "--since", "yesterday")
    assert done.returncode == 2 and done.stdout == ""
    assert ("durable-jobs reconcile: error: argument --since: expected an ISO date or time (2026-11-29, "
            "2026-11-29T06:00:00+00:00; UTC unless it names an offset) or a duration back from now (2d, 12h, 30m), "
            "got 'yesterday'") in done.stderr


NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(("given", "since"), [
    ("2d", NOW - timedelta(days=2)),
    ("12h", NOW - timedelta(hours=12)),
    ("30m", NOW - timedelta(minutes=30)),
    ("2026-11-29", datetime(2026, 11, 29, tzinfo=timezone.utc)),
    ("2026-11-29T06:00:00", datetime(2026, 11, 29, 6, tzinfo=timezone.utc)),
    ("2026-11-29T06:00:00+02:00", datetime(2026, 11, 29, 4, tzinfo=timezone.utc)),
])
def test_since_is_an_iso_date_or_a_duration(given, since):
    assert parse_since(given, now=NOW) == since


@pytest.mark.parametrize("given", ["yesterday", "2 d", "2w", "-2d", "1.5h", "29/11/2026", ""])
def test_since_refuses_anything_else(given):
    import argparse

    with pytest.raises(argparse.ArgumentTypeError, match=r"^expected an ISO date or time .* \(2d, 12h, 30m\), got "):
        parse_since(given, now=NOW)
