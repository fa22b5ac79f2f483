"""The tests drive DAG runs with the same runner the demo uses (durable_jobs.demo.runner)."""

from __future__ import annotations

from pathlib import Path

from durable_jobs.demo.runner import clear, drive, load_module, run, start, task_result  # noqa: F401

DAGS = Path(__file__).resolve().parent / "dags"
EXAMPLES = Path(__file__).resolve().parents[2] / "example_dags"


def load(name: str, folder: Path = DAGS):
    return load_module(name, folder)
