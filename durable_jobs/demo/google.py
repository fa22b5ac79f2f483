"""The Google Cloud section of ``durable-jobs demo``: one table per registered Google service.

Each service's table is a play (``durable_jobs.demo.emulated.Play``) in the module the registry names
(``Service.demo``: its example DAG and the official operator's twin against its emulator on 127.0.0.1); this
section plays them in registry order, so a service shows up in the demo the moment it is registered with a play.
"""

from __future__ import annotations

from durable_jobs.demo.emulated import family_section


def section() -> list[dict]:
    """Prints each service's table; returns the rows where ours missed the expectation."""
    return family_section("google")


if __name__ == "__main__":
    raise SystemExit(1 if section() else 0)
