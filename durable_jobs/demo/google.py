"""The Google Cloud section of ``durable-jobs demo``: one table per registered Google service.

Each service's demo lives in its own module (``google_<service>.py``: its example DAG and the official
operator's twin against its emulator on 127.0.0.1); this section runs those whose service is in the
registry, in registry order, so a service shows up in the demo the moment it is registered.
"""

from __future__ import annotations

import importlib

#: Registry service key -> the demo module that plays it (one module may play several services).
MODULES = {
    "bigquery": "durable_jobs.demo.google_bigquery",
    "dataproc_jobs": "durable_jobs.demo.google_dataproc",
    "dataproc_batches": "durable_jobs.demo.google_dataproc",
    "cloud_batch": "durable_jobs.demo.google_cloud_batch",
    "cloud_run": "durable_jobs.demo.google_cloud_run",
    "google_dataflow": "durable_jobs.demo.google_dataflow",
}


def modules() -> list[str]:
    """The demo modules of the registered Google services, each once, in registry order."""
    from durable_jobs import vendors

    keys = [s.key for s in vendors.family("google").services]
    missing = [k for k in keys if k not in MODULES]
    if missing:
        raise LookupError(f"no demo module for the Google service(s) {', '.join(missing)}: add them to MODULES")
    return list(dict.fromkeys(MODULES[k] for k in keys))


def section() -> list[dict]:
    """Prints each service's table; returns the rows where ours missed the expectation."""
    wrong: list[dict] = []
    for name in modules():
        wrong += importlib.import_module(name).section()
    return wrong


if __name__ == "__main__":
    raise SystemExit(1 if section() else 0)
